// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: CmdSN order. Non-immediate requests of a session reach the
 * rest of the core in CmdSN order (RFC 7143 3.2.2.1): one that arrives
 * early, past a hole, is held (a copy of its PDU; a SCSI command keeps
 * its buffer, its data already in place) and released with everything
 * behind the hole, in order, when the hole closes. ExpCmdSN is the
 * queue's expected number. The queue is holes.c's ixt_snq, as big as the
 * command window, so what is held is bounded by the window; the cache
 * lines held SCSI Commands took at their header, by an eighth of the pool
 * for all the sessions of an initiator (ixt_cmdsn_hole_take()). How long
 * a hole may hold them, by the watchdog: at ErrorRecoveryLevel 0 nothing
 * asks again for a lost request, and one still on its way on another
 * connection of the session arrives as long as that connection lives
 * (watchdog.c).
 *
 * The queue is the session's, shared by its connections under the
 * session's rx_lock: a request held for one connection is delivered, for
 * that connection, by whichever receive path closes its hole; held
 * requests of a connection that is closing are dropped instead, and
 * those still there when its release work runs are dropped then
 * (ixt_cmdsn_conn_gone()): an entry never outlives its connection.
 * sess->exp_cmd_sn mirrors ExpCmdSN for the responses built elsewhere.
 *
 * A task management function reaches requests that are not delivered
 * yet (RFC 7143 11.5.1): a held task it aborts stays in the queue, its
 * CmdSN received, and is dropped instead of delivered when its turn
 * comes (its unsolicited Data-Out may still be arriving into it); the
 * CmdSN of an aborted task that never came is taken by an empty entry.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <scsi/scsi_proto.h>
#include <target/target_core_base.h>
#include <iscsi_xt/holes.h>

#include "cmd.h"
#include "conn.h"
#include "fault.h"
#include "initiator.h"
#include "iscsi_xt.h"
#include "session.h"

/* Data of requests other than SCSI Commands a session holds past holes. */
#define IXT_CMDSN_HELD_BYTES	(256 * 1024)

/* Kinds of what the queue counts per hole. */
enum {
	IXT_CMDSN_SCSI,
	IXT_CMDSN_OTHER,
};

/**
 * struct ixt_cmdsn_held - a request held behind a CmdSN hole
 * @node: its place in the session's queue.
 * @conn: the connection it came on; its cmdsn_held counts the entry,
 *	and its release work empties the entry (ixt_cmdsn_conn_gone())
 *	before it frees the connection.
 * @pdu: a copy of the PDU; @pdu.data points at @data, @pdu.cmd is the
 *	command of a SCSI Command.
 * @aborted: a task management function aborted it: dropped at its turn.
 * @data: the data segment of a request other than a SCSI Command.
 *
 * An entry with a %NULL @conn holds nothing: it takes the CmdSN of a task
 * aborted before it came.
 */
struct ixt_cmdsn_held {
	struct ixt_snq_node node;
	struct ixt_conn *conn;
	struct ixt_rx_pdu pdu;
	bool aborted;
	u8 data[];
};

static u32 ixt_cmdsn_of(const struct iscsi_hdr *hdr)
{
	/* Every request carries CmdSN where a NOP-Out does. */
	return be32_to_cpu(((const struct iscsi_nopout *)hdr)->cmdsn);
}

/* The session's queue, set up at its first use; false without memory. */
static bool ixt_cmdsn_setup(struct ixt_sess *sess)
{
	u32 n = sess->cmdsn_depth;
	int ret;

	if (sess->cmdsn_slots)
		return true;
	sess->cmdsn_slots = ixt_fault(IXT_FAULT_CMDSN_SLOTS) ? NULL :
			    kcalloc(n, sizeof(*sess->cmdsn_slots),
				    GFP_KERNEL);
	if (!sess->cmdsn_slots)
		return false;
	ret = ixt_snq_init(&sess->cmdsn_q, sess->cmdsn_slots, n,
			   sess->exp_cmd_sn);
	if (!ret)
		ret = ixt_snq_set_max(&sess->cmdsn_q, sess->exp_cmd_sn + n - 1);
	if (ret) {
		kfree(sess->cmdsn_slots);
		sess->cmdsn_slots = NULL;
	}
	return !ret;
}

/* Gives back what a request held or refused owns. */
static void ixt_cmdsn_drop(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	if (pdu->cmd)
		ixt_cmd_drop(conn, pdu->cmd);
}

/**
 * ixt_cmdsn_hole_take() - count a command past a hole in its initiator's share
 * @conn: the connection, in full feature phase of a normal session.
 * @cmd: the SCSI Command of @hdr, its buffer not set up yet.
 * @hdr: its BHS.
 * @len: the bytes of its buffers (both, if bidirectional).
 *
 * A SCSI Command takes its cache lines at its header, and one past a
 * CmdSN hole keeps them for as long as the hole stays open, which the
 * initiator decides. The commands past holes in all the sessions of one
 * initiator (its InitiatorName, over every TPG: initiator.c) may take an
 * eighth of the pool together, and at least one of the largest (one
 * command always fits when the initiator holds none); one that would go
 * beyond is answered TASK SET FULL at once, and takes its CmdSN at its
 * turn (ixt_cmd_refuse_hdr()). A command counts
 * from its header on, before its immediate data comes, so that the
 * initiator's connections cannot pass the share together with commands
 * each of them is still receiving; it leaves the count when it leaves
 * the CmdSN queue (ixt_cmdsn_hole_give()).
 *
 * Context: Process context (the connection's receive path), under the
 * session's rx_lock.
 * Return: 0, or -EBUSY to refuse the command.
 */
int ixt_cmdsn_hole_take(struct ixt_conn *conn, struct ixt_cmd *cmd,
			const struct iscsi_hdr *hdr, u32 len)
{
	struct ixt_sess *sess = conn->sess;
	u32 need, total;
	atomic_t *held;

	lockdep_assert_held(&sess->rx_lock);
	if (!sess->ini || ixt_pdu_is_immediate(hdr) ||
	    ixt_cmdsn_of(hdr) == READ_ONCE(sess->exp_cmd_sn))
		return 0;
	held = &sess->ini->hole_lines;
	need = (len >> ixt_pool_line_shift()) + 2;
	total = atomic_add_return(need, held);
	if (total != need && total > ixt_pool_lines() / 8) {
		atomic_sub(need, held);
		return -EBUSY;
	}
	cmd->hole_lines = need;
	return 0;
}

/**
 * ixt_cmdsn_hole_give() - a command leaves its initiator's hole share
 * @cmd: a SCSI Command, counted by ixt_cmdsn_hole_take() or not: handed
 *	to the target core, or dropped before it.
 *
 * Context: Process context (the receive path or the release work),
 * under the session's rx_lock.
 */
void ixt_cmdsn_hole_give(struct ixt_cmd *cmd)
{
	struct ixt_sess *sess = cmd->head.conn->sess;

	lockdep_assert_held(&sess->rx_lock);
	if (!cmd->hole_lines)
		return;
	atomic_sub(cmd->hole_lines, &sess->ini->hole_lines);
	cmd->hole_lines = 0;
}

/*
 * Holds a copy of an early request; false if it cannot be held: a
 * duplicate; no memory, or more data than a session may hold past its
 * holes, either of which closes the connection.
 *
 * The data of NOP-Outs and Text Requests is copied here: the window
 * bounds how many requests wait, not their bytes, and 63 pings of 256 KiB
 * would keep 16 MiB for as long as the hole stays open. A session holds
 * IXT_CMDSN_HELD_BYTES of such data at most (at least one PDU of the
 * default 256 KiB limit); past that, nothing at ErrorRecoveryLevel 0
 * could take the request's CmdSN, and the connection ends.
 */
static bool ixt_cmdsn_hold(struct ixt_conn *conn, struct ixt_rx_pdu *pdu,
			   u32 sn)
{
	struct ixt_sess *sess = conn->sess;
	u32 len = pdu->data ? pdu->dlength : 0;
	struct ixt_snq_batch batch;
	struct ixt_cmdsn_held *h;
	int ret;

	if (len > IXT_CMDSN_HELD_BYTES - sess->held_bytes) {
		pr_warn_ratelimited("%s: %u bytes of requests past a CmdSN hole, more than %u: closing the connection\n",
				    sess->initiator, sess->held_bytes + len,
				    IXT_CMDSN_HELD_BYTES);
		ixt_conn_close(conn);
		return false;
	}
	h = ixt_fault(IXT_FAULT_CMDSN_HELD) ? NULL :
	    kmalloc(struct_size(h, data, len), GFP_KERNEL);
	if (!h) {
		/* Its CmdSN would stay a hole for good: ERL0 ends here. */
		ixt_conn_close(conn);
		return false;
	}
	h->conn = conn;
	h->aborted = false;
	h->pdu = *pdu;
	h->pdu.data = len ? h->data : NULL;
	memcpy(h->data, pdu->data, len);
	if (!ixt_snq_held(&sess->cmdsn_q))
		WRITE_ONCE(sess->hole_stamp, jiffies);
	ret = ixt_snq_insert(&sess->cmdsn_q, &h->node, sn,
			     pdu->cmd ? IXT_CMDSN_SCSI : IXT_CMDSN_OTHER,
			     &batch);
	if (ret < 0) {
		/* A duplicate: dropped, as RFC 7143 says. */
		pr_warn_ratelimited("%s: CmdSN 0x%08x received twice, dropped\n",
				    sess->initiator, sn);
		kfree(h);
		return false;
	}
	conn->cmdsn_held++;
	sess->held_bytes += len;
	return true;
}

/*
 * A held request's turn has come (@deliver), or the session is going.
 * One held behind a Logout of its own connection that went before it is
 * dropped: nothing after a Logout is acted on (a second Logout would
 * answer twice, or close the whole session).
 */
static void ixt_cmdsn_unhold(struct ixt_sess *sess, struct ixt_cmdsn_held *h,
			     bool deliver)
{
	if (h->pdu.data)
		sess->held_bytes -= h->pdu.dlength;
	if (h->conn) {
		h->conn->cmdsn_held--;
		if (deliver && !h->aborted && !ixt_conn_closing(h->conn) &&
		    READ_ONCE(h->conn->state) == IXT_CONN_FULL_FEATURE)
			ixt_sess_deliver(h->conn, &h->pdu);
		else
			ixt_cmdsn_drop(h->conn, &h->pdu);
	}
	kfree(h);
}

/*
 * ExpCmdSN moved: everything ready is handed on in order. @here is the
 * node of @pdu, received on @conn, that closed the hole, if any.
 */
static void ixt_cmdsn_release(struct ixt_sess *sess, struct ixt_snq_node *here,
			      struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	struct ixt_snq_node *node;

	ixt_snq_set_max(&sess->cmdsn_q, ixt_snq_expected(&sess->cmdsn_q) +
			sess->cmdsn_depth - 1);
	WRITE_ONCE(sess->exp_cmd_sn, ixt_snq_expected(&sess->cmdsn_q));
	while ((node = ixt_snq_pop(&sess->cmdsn_q))) {
		if (node == here)
			ixt_sess_deliver(conn, pdu);
		else
			ixt_cmdsn_unhold(sess, container_of(node,
							    struct ixt_cmdsn_held,
							    node), true);
	}
	/* Behind a hole still: its clock starts now. */
	if (ixt_snq_held(&sess->cmdsn_q))
		WRITE_ONCE(sess->hole_stamp, jiffies);
}

/**
 * ixt_cmdsn_rx() - deliver a non-immediate request in CmdSN order
 * @conn: the connection, in full feature phase.
 * @pdu: the request, its CmdSN in the window (ixt_sess_rx_hdr() saw to
 *	it); a SCSI Command set up by ixt_cmd_rx_hdr().
 *
 * A request whose turn has come goes to ixt_sess_deliver(), and so do
 * those held behind it.
 *
 * Context: Process context (the connection's receive path), under the
 * session's rx_lock.
 */
void ixt_cmdsn_rx(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	struct ixt_sess *sess = conn->sess;
	u32 sn = ixt_cmdsn_of(&pdu->hdr);
	struct ixt_snq_batch batch;
	struct ixt_snq_node here;

	lockdep_assert_held(&sess->rx_lock);
	if (!ixt_cmdsn_setup(sess)) {
		ixt_cmdsn_drop(conn, pdu);
		ixt_conn_close(conn);
		return;
	}
	if (sn != ixt_snq_expected(&sess->cmdsn_q)) {
		if (!ixt_cmdsn_hold(conn, pdu, sn))
			ixt_cmdsn_drop(conn, pdu);
		return;
	}
	/* In order: it, and what was held behind it, are ready. */
	if (WARN_ON_ONCE(ixt_snq_insert(&sess->cmdsn_q, &here, sn,
					IXT_CMDSN_OTHER, &batch) <= 0)) {
		ixt_cmdsn_drop(conn, pdu);
		ixt_conn_close(conn);
		return;
	}
	ixt_cmdsn_release(sess, &here, conn, pdu);
}

/* Whether @h holds a SCSI Command, not yet answered, for LUN @lun. */
static bool ixt_cmdsn_held_task(struct ixt_cmdsn_held *h, u64 lun)
{
	struct iscsi_scsi_req *req = (struct iscsi_scsi_req *)&h->pdu.hdr;

	return h->conn && h->pdu.cmd && scsilun_to_int(&req->lun) == lun;
}

/*
 * ABORT TASK of a task not delivered yet (RFC 7143 11.5.1): @scope's
 * RefCmdSN lies in the window, at or after ExpCmdSN and before the
 * function. If that CmdSN is held, the task is aborted there, provided
 * it is the task the function names; if it never came, its CmdSN now
 * counts as received (rule a), and a copy arriving late is dropped as a
 * duplicate or as outside the window. Either way the function is done.
 */
static bool ixt_cmdsn_abort_task(struct ixt_conn *conn,
				 const struct ixt_tmf_scope *scope)
{
	struct ixt_sess *sess = conn->sess;
	u32 sn = scope->ref_cmd_sn;
	struct ixt_snq_batch batch;
	struct ixt_snq_node *node;
	struct ixt_cmdsn_held *h;
	int ret;

	node = ixt_snq_find(&sess->cmdsn_q, sn);
	if (node) {
		h = container_of(node, struct ixt_cmdsn_held, node);
		if (!ixt_cmdsn_held_task(h, scope->lun) ||
		    h->pdu.cmd->head.itt != scope->rtt)
			return false;
		h->aborted = true;
		return true;
	}
	h = ixt_fault(IXT_FAULT_CMDSN_ABORTED) ? NULL :
	    kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h) {
		/* Its CmdSN could stay a hole for good: ERL0 ends here. */
		ixt_conn_close(conn);
		return false;
	}
	ret = ixt_snq_insert(&sess->cmdsn_q, &h->node, sn, IXT_CMDSN_OTHER,
			     &batch);
	if (ret < 0) {
		/* Outside the window: "task does not exist" (rule b). */
		kfree(h);
		return false;
	}
	pr_info_ratelimited("%s: CmdSN 0x%08x of aborted ITT 0x%08x never came: taken as received\n",
			    sess->initiator, sn, ixt_itt(scope->rtt));
	if (ret > 0)
		ixt_cmdsn_release(sess, NULL, NULL, NULL);
	return true;
}

/**
 * ixt_cmdsn_tmf() - a task management function on requests held back
 * @conn: the connection of the function, in full feature phase.
 * @scope: what the function aborts.
 *
 * Only a function sent as immediate can find anything: its CmdSN is
 * after those still missing and held, which it affects (RFC 7143
 * 11.5.1). LOGICAL UNIT RESET aborts the SCSI Commands for its LUN held
 * before its CmdSN; ABORT TASK is done here when its RefCmdSN names a
 * task held, or never received, in the window (see
 * ixt_cmdsn_abort_task()).
 *
 * Context: Process context (the connection's receive path), under the
 * session's rx_lock.
 * Return: true when ABORT TASK is done here and is answered "Function
 * complete"; false when the target core is to carry out the function.
 */
bool ixt_cmdsn_tmf(struct ixt_conn *conn, const struct ixt_tmf_scope *scope)
{
	struct ixt_sess *sess = conn->sess;
	struct ixt_snq_node *node;
	struct ixt_cmdsn_held *h;
	u32 exp, sn, n;

	lockdep_assert_held(&sess->rx_lock);
	if (!ixt_cmdsn_setup(sess))
		return false;
	exp = ixt_snq_expected(&sess->cmdsn_q);
	if (scope->type == TMR_ABORT_TASK)
		return !ixt_sn_lt(scope->ref_cmd_sn, exp) &&
		       ixt_sn_lt(scope->ref_cmd_sn, scope->cmd_sn) &&
		       ixt_cmdsn_abort_task(conn, scope);
	if (!ixt_snq_held(&sess->cmdsn_q))
		return false;
	/* The held part of the queue is at most the window. */
	for (sn = exp, n = 0; ixt_sn_lt(sn, scope->cmd_sn) &&
	     n < sess->cmdsn_depth; sn++, n++) {
		node = ixt_snq_find(&sess->cmdsn_q, sn);
		if (!node)
			continue;
		h = container_of(node, struct ixt_cmdsn_held, node);
		if (ixt_cmdsn_held_task(h, scope->lun))
			h->aborted = true;
	}
	return false;
}

/**
 * ixt_cmdsn_conn_gone() - drop what a closing connection has held
 * @conn: the connection, whose receive path has stopped.
 *
 * Its requests held behind a CmdSN hole go now, before the connection is
 * freed: a SCSI Command is dropped, and each entry stays in the queue
 * empty, its CmdSN received, so that nothing delivered or dropped later
 * by another connection of the session refers to this one.
 *
 * Context: Process context (the connection's release work), under the
 * session's rx_lock.
 */
void ixt_cmdsn_conn_gone(struct ixt_conn *conn)
{
	struct ixt_sess *sess = conn->sess;
	struct ixt_snq_node *node;
	struct ixt_cmdsn_held *h;
	u32 sn, n;

	lockdep_assert_held(&sess->rx_lock);
	if (!sess->cmdsn_slots || !conn->cmdsn_held)
		return;
	/* The held part of the queue is at most the window. */
	for (sn = ixt_snq_expected(&sess->cmdsn_q), n = 0;
	     conn->cmdsn_held && n < sess->cmdsn_depth; sn++, n++) {
		node = ixt_snq_find(&sess->cmdsn_q, sn);
		if (!node)
			continue;
		h = container_of(node, struct ixt_cmdsn_held, node);
		if (h->conn != conn)
			continue;
		ixt_cmdsn_drop(conn, &h->pdu);
		h->pdu.cmd = NULL;
		h->conn = NULL;
		conn->cmdsn_held--;
	}
	WARN_ON_ONCE(conn->cmdsn_held);
}

/**
 * ixt_cmdsn_sess_gone() - drop what a session still holds
 * @sess: the session, whose last connection is closing.
 *
 * Context: Process context (the release work of the session's last
 * connection), under the session's rx_lock.
 */
void ixt_cmdsn_sess_gone(struct ixt_sess *sess)
{
	struct ixt_snq_node *node;

	lockdep_assert_held(&sess->rx_lock);
	if (!sess->cmdsn_slots)
		return;
	while ((node = ixt_snq_flush(&sess->cmdsn_q)))
		ixt_cmdsn_unhold(sess, container_of(node, struct ixt_cmdsn_held,
						    node), false);
	kfree(sess->cmdsn_slots);
	sess->cmdsn_slots = NULL;
}
