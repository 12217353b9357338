// SPDX-License-Identifier: GPL-2.0
/* iscsi_xt: connection life cycle and PDU dispatch, transport-neutral. */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/export.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "cmd.h"
#include "conn.h"
#include "fair.h"
#include "fault.h"
#include "pool.h"
#include "session.h"

/*
 * What a connection's send queue may hold before its receive path reads
 * no more requests: PDUs, and bytes of data segments in memory of their
 * own (NOP-In echoes, Text and Login Responses, Rejects; a Data-In's
 * bytes are its command's cache lines, which the command window bounds).
 * Reading resumes once both are below half. In the login phase the
 * bound is one PDU, and reading resumes once it is sent.
 */
#define IXT_CONN_TX_MAX_PDUS		256
#define IXT_CONN_TX_MAX_BYTES		SZ_1M

/* Seconds a login may take before its TPG is known, LIO's default. */
#define IXT_LOGIN_TIMEOUT_DEFAULT	15

/*
 * Seconds a connection that reads nothing more (after a Logout, a failed
 * login, a Reject that ends it) has to send its last PDU once queued.
 */
#define IXT_CONN_LAST_PDU_SECS		10

/*
 * Seconds a discovery session may go without a request. iscsiadm sends
 * SendTargets as soon as it is logged in and logs out on the answer; a
 * poller that keeps its session asks again within this, or logs in anew.
 */
#define IXT_DISCOVERY_IDLE_SECS		30

static unsigned int max_login_conns = 64;
module_param(max_login_conns, uint, 0644);
MODULE_PARM_DESC(max_login_conns,
		 "Most connections in the login phase at once, over all portals; past it a newcomer takes the place of the oldest of the host holding the most, at least two more than its own, or is closed at accept (default 64)");

struct workqueue_struct *ixt_wq;
EXPORT_SYMBOL_GPL(ixt_wq);

static void ixt_conn_login_evict(struct ixt_fair_slot *slot, u32 held);

/* Connections that have not reached full feature phase. */
static struct ixt_fair_bound ixt_login_bound = {
	.lock = __SPIN_LOCK_UNLOCKED(ixt_login_bound.lock),
	.slots = LIST_HEAD_INIT(ixt_login_bound.slots),
	.evict = ixt_conn_login_evict,
};

/* Protects ixt_conns; module exit waits on ixt_conns_wq for it to empty. */
static DEFINE_SPINLOCK(ixt_conns_lock);
static LIST_HEAD(ixt_conns);
static DECLARE_WAIT_QUEUE_HEAD(ixt_conns_wq);

/**
 * ixt_tx_pdu_alloc() - allocate a PDU to send
 * @dlength: length of its data segment; 0 for none.
 * @gfp: allocation flags.
 *
 * The BHS and the data segment are zeroed.
 *
 * Context: As @gfp allows.
 * Return: the PDU, or %NULL.
 */
struct ixt_tx_pdu *ixt_tx_pdu_alloc(u32 dlength, gfp_t gfp)
{
	struct ixt_tx_pdu *pdu;

	pdu = ixt_fault(IXT_FAULT_TX_PDU) ? NULL : kzalloc(sizeof(*pdu), gfp);
	if (!pdu)
		return NULL;
	if (dlength) {
		pdu->data = ixt_fault(IXT_FAULT_TX_PDU_DATA) ? NULL :
			    kvzalloc(dlength, gfp);
		if (!pdu->data) {
			kfree(pdu);
			return NULL;
		}
	}
	pdu->dlength = dlength;
	return pdu;
}

/**
 * ixt_conn_pdu_alloc() - allocate a PDU a connection sends in full
 *	feature phase
 * @conn: the connection; closed when there is no memory, as it could not
 *	answer any more.
 * @opcode: the PDU's opcode.
 * @itt: its Initiator Task Tag (%RESERVED_ITT for none).
 * @dlength: length of its data segment; 0 for none.
 *
 * The BHS has its opcode, the F bit and @itt; the rest, and the data
 * segment, is zeroed.
 *
 * Context: Process context.
 * Return: the PDU, or %NULL when @conn is closing for lack of memory.
 */
struct ixt_tx_pdu *ixt_conn_pdu_alloc(struct ixt_conn *conn, u8 opcode,
				      itt_t itt, u32 dlength)
{
	struct ixt_tx_pdu *pdu = ixt_tx_pdu_alloc(dlength, GFP_KERNEL);

	if (!pdu) {
		ixt_conn_close(conn);
		return NULL;
	}
	pdu->hdr.opcode = opcode;
	pdu->hdr.flags = ISCSI_FLAG_CMD_FINAL;
	pdu->hdr.itt = itt;
	return pdu;
}

/**
 * ixt_tx_pdu_free() - free a PDU and its data segment
 * @pdu: the PDU, off any queue. The response embedded in a command is
 *	not freed: the command learns that it is gone.
 *
 * Context: Process context (the data segment may be vmalloc'ed).
 */
void ixt_tx_pdu_free(struct ixt_tx_pdu *pdu)
{
	if (pdu->cmd) {
		ixt_cmd_rsp_done(pdu->cmd);
		return;
	}
	kvfree(pdu->data);
	kfree(pdu);
}
EXPORT_SYMBOL_GPL(ixt_tx_pdu_free);

/**
 * ixt_conn_queue() - send a PDU on a connection
 * @conn: the connection.
 * @pdu: the PDU, owned by the connection from now on.
 *
 * Sets the data segment length in the BHS and the digests in force. A
 * PDU that closes the connection once sent must be out within
 * %IXT_CONN_LAST_PDU_SECS, or the connection is reset.
 *
 * Context: Any context but hard IRQ.
 */
void ixt_conn_queue(struct ixt_conn *conn, struct ixt_tx_pdu *pdu)
{
	if (pdu->close)
		mod_delayed_work(ixt_wq, &conn->deadline,
				 IXT_CONN_LAST_PDU_SECS * HZ);
	ixt_pdu_set_dlength(&pdu->hdr, pdu->dlength);
	pdu->digests = conn->head.digests;
	if (pdu->data)
		atomic_add(pdu->dlength, &conn->tx_bytes);
	if (atomic_inc_return(&conn->tx_pdus) == 1)
		WRITE_ONCE(conn->tx_stamp, jiffies);
	conn->ops->queue(conn, pdu);
}

/**
 * ixt_conn_queue_resp() - send a response that carries sequence numbers
 * @conn: the connection, in full feature phase.
 * @pdu: the response, owned by the connection from now on.
 * @status: the PDU carries status and takes the next StatSN; otherwise
 *	(a Data-In without status) it shows the next StatSN unchanged.
 *
 * Fills in StatSN, ExpCmdSN and MaxCmdSN, which every PDU of the target
 * carries at the same offsets, and queues the PDU in StatSN order.
 *
 * Context: Any context but hard IRQ; takes @conn->sn_lock.
 */
void ixt_conn_queue_resp(struct ixt_conn *conn, struct ixt_tx_pdu *pdu,
			 bool status)
{
	struct ixt_sess *sess = conn->sess;
	struct iscsi_hdr *hdr = &pdu->hdr;
	u32 exp = READ_ONCE(sess->exp_cmd_sn);

	spin_lock_bh(&conn->sn_lock);
	hdr->statsn = cpu_to_be32(status ? conn->stat_sn++ : conn->stat_sn);
	hdr->exp_statsn = cpu_to_be32(exp);
	hdr->max_statsn = cpu_to_be32(ixt_sess_max_cmd_sn(sess, exp));
	ixt_conn_queue(conn, pdu);
	spin_unlock_bh(&conn->sn_lock);
}

/*
 * Login, and a discovery session (Text and Logout Requests only), are one
 * response per request: their send queue holds one PDU. The state is
 * read as it is now, in any context.
 */
static bool ixt_conn_lockstep(struct ixt_conn *conn)
{
	return READ_ONCE(conn->state) == IXT_CONN_LOGIN ||
	       test_bit(IXT_CONN_F_DISCOVERY, &conn->flags);
}

/*
 * The send queue is down to half its bound, in PDUs and in bytes; in
 * lock step, empty.
 */
static bool ixt_conn_tx_below_half(struct ixt_conn *conn)
{
	if (ixt_conn_lockstep(conn))
		return !atomic_read(&conn->tx_pdus);
	return atomic_read(&conn->tx_pdus) <= IXT_CONN_TX_MAX_PDUS / 2 &&
	       atomic_read(&conn->tx_bytes) <= IXT_CONN_TX_MAX_BYTES / 2;
}

/* The send queue is at its bound: in lock step, one PDU. */
static bool ixt_conn_tx_at_bound(struct ixt_conn *conn)
{
	if (ixt_conn_lockstep(conn))
		return atomic_read(&conn->tx_pdus);
	return atomic_read(&conn->tx_pdus) >= IXT_CONN_TX_MAX_PDUS ||
	       atomic_read(&conn->tx_bytes) >= IXT_CONN_TX_MAX_BYTES;
}

/**
 * ixt_conn_tx_done() - a transport has sent a PDU in full
 * @conn: the connection.
 * @pdu: the PDU; freed here. Every PDU queued to a live connection ends
 *	here (an RDMA transport's Data-In once its RDMA WRITEs are posted),
 *	or the send queue's count (ixt_conn_tx_full()) never comes down.
 *
 * Context: Any context but hard IRQ: the transport's transmit work, its
 * completion handlers, or under its send queue's lock.
 */
void ixt_conn_tx_done(struct ixt_conn *conn, struct ixt_tx_pdu *pdu)
{
	if (pdu->data)
		atomic_sub(pdu->dlength, &conn->tx_bytes);
	/* Sent first, then out of the queue: see ixt_conn_tx_slow(). */
	atomic_inc(&conn->tx_sent);
	atomic_dec(&conn->tx_pdus);
	WRITE_ONCE(conn->tx_stamp, jiffies);
	if (pdu->close)
		ixt_conn_close(conn);
	ixt_tx_pdu_free(pdu);
	/* The transport's shutdown waits for us before it stops reading. */
	if (test_bit(IXT_CONN_F_TX_WAIT, &conn->flags) &&
	    ixt_conn_tx_below_half(conn) &&
	    test_and_clear_bit(IXT_CONN_F_TX_WAIT, &conn->flags))
		conn->ops->rx_resume(conn);
}
EXPORT_SYMBOL_GPL(ixt_conn_tx_done);

/**
 * ixt_conn_tx_progress() - a transport sent part of a PDU
 * @conn: the connection.
 *
 * Context: Process context (the transport's transmit work).
 */
void ixt_conn_tx_progress(struct ixt_conn *conn)
{
	WRITE_ONCE(conn->tx_stamp, jiffies);
}
EXPORT_SYMBOL_GPL(ixt_conn_tx_progress);

/**
 * ixt_tx_pdu_next() - make the next PDU of a Data-In run from the one sent
 * @pdu: a PDU whose @run_end is set, sent in full.
 *
 * Advances the data segment past what was sent and the header with it:
 * DataSegmentLength, Buffer Offset, DataSN, and the flags of the run's
 * last PDU on that one. A read thus queues one descriptor, whatever
 * MaxRecvDataSegmentLength the initiator declared: before, a PDU each
 * (8 MiB in 512-byte PDUs made 16384, 2 MiB of slab).
 *
 * Context: Any context (the transport's transmit path).
 * Return: true when @pdu is now the run's next PDU to send; false when
 * the run is over.
 */
bool ixt_tx_pdu_next(struct ixt_tx_pdu *pdu)
{
	struct iscsi_data_rsp *hdr = (struct iscsi_data_rsp *)&pdu->hdr;
	u32 off = pdu->bvec_off + pdu->dlength;

	if (off >= pdu->run_end)
		return false;
	pdu->bvec_off = off;
	pdu->dlength = min(pdu->run_end - off, pdu->seg_max);
	hdr->flags = off + pdu->dlength == pdu->run_end ? pdu->last_flags : 0;
	hdr->offset = cpu_to_be32(off);
	be32_add_cpu(&hdr->datasn, 1);
	ixt_pdu_set_dlength(&pdu->hdr, pdu->dlength);
	return true;
}
EXPORT_SYMBOL_GPL(ixt_tx_pdu_next);

/**
 * ixt_conn_tx_full() - whether a connection reads no request for now
 * @conn: the connection.
 *
 * A peer that does not read its responses would otherwise make the
 * target queue them without bound: NOP-In echoes, Rejects, the R2Ts its
 * Data-Out asks for, one per burst. Past %IXT_CONN_TX_MAX_PDUS queued
 * PDUs or %IXT_CONN_TX_MAX_BYTES of their own data, the receive path
 * takes no request and sends no R2T (ixt_dataout_send_r2ts() puts them
 * off) until the queue is below half of both, when ixt_conn_tx_done()
 * resumes it. In the login phase and in a discovery session a peer gets
 * one response per request: no request is read while a response is still
 * queued, so that one that never reads holds one.
 *
 * Context: Process context (the receive path).
 * Return: true when the receive path must put its PDU off.
 */
bool ixt_conn_tx_full(struct ixt_conn *conn)
{
	if (!ixt_conn_tx_at_bound(conn))
		return false;
	set_bit(IXT_CONN_F_TX_WAIT, &conn->flags);
	/* Pairs with the done side: either it sees the bit or we its sends. */
	smp_mb__after_atomic();
	if (!ixt_conn_tx_below_half(conn))
		return true;
	clear_bit(IXT_CONN_F_TX_WAIT, &conn->flags);
	return false;
}

/**
 * ixt_conn_tx_stalled() - whether a connection's send queue stopped
 * @conn: the connection.
 * @limit: jiffies the queue may stand still.
 *
 * Context: Any context.
 * Return: true when PDUs are queued and none of their bytes left for
 * @limit: the peer reads nothing, and its commands hold their lines.
 */
bool ixt_conn_tx_stalled(struct ixt_conn *conn, unsigned long limit)
{
	return atomic_read(&conn->tx_pdus) &&
	       time_after(jiffies, READ_ONCE(conn->tx_stamp) + limit);
}

/**
 * ixt_conn_tx_slow() - whether a connection's peer reads too slowly
 * @conn: the connection, in full feature phase of a normal session.
 *
 * A peer that reads a trickle keeps its send queue moving, and the lines
 * of the Data-In queued in it, as long as it likes: eight 8 MiB READs
 * hold the default pool. The queue is measured in periods of
 * %IXT_CONN_DRAIN_SECS: a period ends once every PDU the queue held at
 * its start is sent, and the next starts then. While the pool is short
 * (ixt_pool_short()) and the session's commands hold lines, a period
 * older than that with PDUs of its start still queued condemns the
 * connection: no PDU waits longer in the queue while others wait for
 * lines, and the window's caps then give the other sessions their
 * share. The period runs on while the pool is not short, so a victim
 * that sends its refused command again late does not restart it. Called
 * once a second; an empty queue, or a session without lines, ends the
 * period.
 *
 * Context: Process context (the watchdog, which owns @conn->drain_*).
 * Return: true when the pool is short and PDUs queued at the start of a
 * period that began %IXT_CONN_DRAIN_SECS ago or earlier are unsent.
 */
bool ixt_conn_tx_slow(struct ixt_conn *conn)
{
	u32 sent = atomic_read(&conn->tx_sent);
	/* Read after @sent: a PDU sent in between is not counted queued. */
	u32 queued = atomic_read(&conn->tx_pdus);
	unsigned long now = jiffies;

	if (!queued || !lower_32_bits(atomic64_read(&conn->sess->pool_use))) {
		conn->drain_start = 0;
		return false;
	}
	if (conn->drain_start) {
		if (time_before(now, conn->drain_start +
				IXT_CONN_DRAIN_SECS * HZ))
			return false;
		if (sent - conn->drain_sent < conn->drain_pdus)
			return ixt_pool_short();
	}
	conn->drain_start = now | 1;
	conn->drain_sent = sent;
	conn->drain_pdus = queued;
	return false;
}

/*
 * Sends a Reject for @hdr; with @close, nothing more is read and the
 * connection closes once the Reject is out (ErrorRecoveryLevel 0).
 */
static void ixt_conn_send_reject_close(struct ixt_conn *conn,
				       const struct iscsi_hdr *hdr, u8 reason,
				       bool close)
{
	struct iscsi_reject *rej;
	struct ixt_tx_pdu *pdu;

	if (close)
		WRITE_ONCE(conn->state, IXT_CONN_LOGOUT);
	pr_warn_ratelimited("%pISpc: rejecting opcode 0x%02x, reason 0x%02x\n",
			    &conn->head.peer, hdr->opcode, reason);
	pdu = ixt_conn_pdu_alloc(conn, ISCSI_OP_REJECT, RESERVED_ITT,
				 ISCSI_HDR_LEN);
	if (!pdu)
		return;
	memcpy(pdu->data, hdr, ISCSI_HDR_LEN);
	rej = (struct iscsi_reject *)&pdu->hdr;
	rej->reason = reason;
	pdu->close = close;
	ixt_conn_queue_resp(conn, pdu, true);
}

/**
 * ixt_conn_send_reject() - answer a PDU with a Reject PDU
 * @conn: the connection, in full feature phase.
 * @hdr: the BHS of the PDU rejected; sent back as the data segment.
 * @reason: ISCSI_REASON_* or IXT_REASON_* code.
 *
 * Context: Process context (the receive path).
 */
void ixt_conn_send_reject(struct ixt_conn *conn, const struct iscsi_hdr *hdr,
			  u8 reason)
{
	ixt_conn_send_reject_close(conn, hdr, reason, false);
}

/**
 * ixt_conn_fail() - answer a protocol error with a Reject, then close
 * @conn: the connection, in full feature phase.
 * @hdr: the BHS of the PDU at fault.
 * @reason: ISCSI_REASON_* or IXT_REASON_* code.
 *
 * At ErrorRecoveryLevel 0 an error the connection cannot recover from
 * ends it: nothing more is read, and it closes once the Reject is out.
 * Counted as a PDU format error of the target node.
 *
 * Context: Process context (the receive path).
 */
void ixt_conn_fail(struct ixt_conn *conn, const struct iscsi_hdr *hdr,
		   u8 reason)
{
	if (conn->tpg)
		ixt_stat_sess_err(conn->tpg->tiqn, IXT_SESS_ERR_PDU_FORMAT,
				  conn->sess->initiator);
	ixt_conn_send_reject_close(conn, hdr, reason, true);
}

/**
 * ixt_conn_rx_hdr() - show the core the header of a PDU being received
 * @conn: the connection.
 * @pdu: the PDU, with its BHS and AHSs; its data segment not read yet.
 *
 * The core may set @pdu->bvec to receive the data segment in place,
 * @pdu->discard to drop it, @pdu->ignore, @pdu->answered and
 * @pdu->reject.
 *
 * Context: Process context: the transport's receive path.
 * Return: 0; -EAGAIN when the core cannot take the PDU yet (no cache
 * lines free, or a request while the send queue is full:
 * ixt_conn_tx_full()): call again later with the same PDU, as
 * rx_resume says; or a negative errno: close the connection.
 */
int ixt_conn_rx_hdr(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	struct ixt_sess *sess = conn->sess;
	int state, ret;

	/* A command waiting in the pool's queue keeps its turn there. */
	if (!conn->pool_wait &&
	    ixt_pdu_opcode(&pdu->hdr) != ISCSI_OP_SCSI_DATA_OUT &&
	    ixt_conn_tx_full(conn))
		return -EAGAIN;
	ixt_fault_stall(IXT_STALL_RX_HDR);
	state = READ_ONCE(conn->state);
	if (state == IXT_CONN_LOGIN || pdu->reject)
		return 0;
	ret = 0;
	if (state == IXT_CONN_FULL_FEATURE) {
		mutex_lock(&sess->rx_lock);
		/*
		 * A Logout of this connection held behind a CmdSN hole ends
		 * its full feature phase when another connection's receive
		 * path closes the hole, under rx_lock, maybe since this one
		 * looked above.
		 */
		state = conn->state;
		if (state == IXT_CONN_FULL_FEATURE)
			ret = ixt_sess_rx_hdr(conn, pdu);
		mutex_unlock(&sess->rx_lock);
	}
	/* Nothing read after a Logout Response is acted on. */
	if (state != IXT_CONN_FULL_FEATURE) {
		pdu->discard = true;
		pdu->ignore = true;
	}
	return ret;
}
EXPORT_SYMBOL_GPL(ixt_conn_rx_hdr);

/**
 * ixt_conn_check_hdr() - check a received BHS
 * @conn: the connection.
 * @pdu: the PDU, its @hdr received; @reject is set to the reason of a
 *	header to refuse (0 for a good one), and then @discard: its data
 *	segment is read and dropped, never buffered.
 *
 * The length of the data segment is checked before anything else
 * (ixt_pdu_check_bhs()), so that whatever the header, no more than the
 * connection's MaxRecvDataSegmentLength (8192 bytes in the login phase)
 * is ever allocated for it.
 *
 * Context: Process context: the transport's receive path.
 * Return: 0, or -EMSGSIZE for a data segment longer than the connection
 * takes: the transport cannot skip it and closes the connection.
 */
int ixt_conn_check_hdr(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	int ret;

	ret = ixt_pdu_check_bhs(&pdu->hdr, &conn->head.limits, &pdu->reject);
	if (ret == -EMSGSIZE)
		return ret;
	if (!ret) {
		pdu->reject = 0;
		return 0;
	}
	if (!pdu->reject)
		pdu->reject = ISCSI_REASON_PROTOCOL_ERROR;
	pdu->discard = true;
	return 0;
}
EXPORT_SYMBOL_GPL(ixt_conn_check_hdr);

/**
 * ixt_conn_fetched() - an RDMA transport fetched a write's data
 * @conn: the connection of the write.
 * @cmd: the write, whose fetch the core asked for with the transport's
 *	fetch op; the reference taken for the fetch goes.
 *
 * Context: Process context: the transport's receive path; takes the
 * session's rx_lock.
 */
void ixt_conn_fetched(struct ixt_conn *conn, struct ixt_cmd *cmd)
{
	mutex_lock(&conn->sess->rx_lock);
	ixt_dataout_fetched(cmd);
	mutex_unlock(&conn->sess->rx_lock);
}
EXPORT_SYMBOL_GPL(ixt_conn_fetched);

/**
 * ixt_conn_rx_pdu() - hand a received PDU to the core
 * @conn: the connection.
 * @pdu: the PDU, whole; valid only during the call.
 *
 * Context: Process context: the transport's receive path, which is the
 * only caller for a connection, so calls never overlap; in full feature
 * phase this takes the session's rx_lock.
 */
void ixt_conn_rx_pdu(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	if (conn->state == IXT_CONN_LOGIN) {
		ixt_login_rx(conn, pdu);
		return;
	}
	if (pdu->reject) {
		ixt_conn_send_reject(conn, &pdu->hdr, pdu->reject);
		return;
	}
	if (pdu->ignore)
		return;
	if (ixt_pdu_opcode(&pdu->hdr) == ISCSI_OP_SCSI_CMD)
		ixt_cost_add(IXT_COST_CMDS, 1);
	if (test_bit(IXT_CONN_F_DISCOVERY, &conn->flags))
		ixt_conn_discovery_start(conn);
	mutex_lock(&conn->sess->rx_lock);
	ixt_sess_rx_ffp(conn, pdu);
	mutex_unlock(&conn->sess->rx_lock);
}
EXPORT_SYMBOL_GPL(ixt_conn_rx_pdu);

/*
 * A connection not in full feature phase at its deadline is reset: one
 * still in login, or one whose last PDU is not out (its peer reads
 * nothing): a failed login's response, which would otherwise hold its
 * place in the bound on logins for ever, a Logout Response, whose
 * connection has no watchdog any more; and a discovery session that
 * stays silent.
 */
static void ixt_conn_deadline(struct work_struct *work)
{
	struct ixt_conn *conn = container_of(to_delayed_work(work),
					     struct ixt_conn, deadline);
	int state = READ_ONCE(conn->state);
	const char *why;

	if (state == IXT_CONN_LOGIN)
		why = "login timed out";
	else if (state == IXT_CONN_LOGOUT)
		why = "its last response not sent in time";
	else if (test_bit(IXT_CONN_F_DISCOVERY, &conn->flags))
		why = "discovery session idle";
	else
		return;
	pr_warn_ratelimited("%pISpc: %s, resetting the connection\n",
			    &conn->head.peer, why);
	ixt_conn_reset(conn);
}

/**
 * ixt_conn_discovery_start() - a discovery session's deadline, renewed
 * @conn: the connection of a discovery session in full feature phase.
 *
 * A discovery session has no watchdog (nor any LUN to keep alive): one
 * that sends nothing for %IXT_DISCOVERY_IDLE_SECS is reset, so that
 * silent peers cannot hold the bound on discovery sessions for ever.
 * Called when it enters full feature phase and at each PDU it sends;
 * from then on, its send queue holds one PDU (ixt_conn_tx_full()).
 *
 * Context: Process context (the receive path).
 */
void ixt_conn_discovery_start(struct ixt_conn *conn)
{
	set_bit(IXT_CONN_F_DISCOVERY, &conn->flags);
	mod_delayed_work(ixt_wq, &conn->deadline,
			 IXT_DISCOVERY_IDLE_SECS * HZ);
}

/**
 * ixt_conn_set_login_deadline() - give a login a time limit
 * @conn: the connection, in login.
 * @secs: seconds since the connection was accepted.
 *
 * Context: Process context (the receive path).
 */
void ixt_conn_set_login_deadline(struct ixt_conn *conn, unsigned int secs)
{
	mod_delayed_work(ixt_wq, &conn->deadline,
			 (long)(conn->login_start + secs * HZ - jiffies) > 0 ?
			 conn->login_start + secs * HZ - jiffies : 0);
}

/**
 * ixt_conn_login_done() - a connection leaves the login phase
 * @conn: the connection.
 *
 * Frees its slot in the bound on connections in login and stops the
 * login deadline.
 *
 * Context: Process context (the receive path or the release work).
 */
void ixt_conn_login_done(struct ixt_conn *conn)
{
	if (test_and_clear_bit(IXT_CONN_F_IN_LOGIN, &conn->flags))
		ixt_fair_put(&ixt_login_bound, &conn->login_slot);
	cancel_delayed_work(&conn->deadline);
}

/*
 * The bound on connections in login is full and another host wants a
 * place: this connection's host holds the most of them, @held.
 */
static void ixt_conn_login_evict(struct ixt_fair_slot *slot, u32 held)
{
	struct ixt_conn *conn = container_of(slot, struct ixt_conn,
					     login_slot);

	pr_warn_ratelimited("%pISpc: login reset: its host has %u of the %u connections in login, and another host asks for one\n",
			    &conn->head.peer, held, max_login_conns);
	ixt_conn_reset(conn);
}

/**
 * ixt_conn_closing() - whether a connection is being torn down
 * @conn: the connection.
 *
 * Context: Any context.
 * Return: true once ixt_conn_close() was called.
 */
bool ixt_conn_closing(struct ixt_conn *conn)
{
	return test_bit(IXT_CONN_F_CLOSING, &conn->flags);
}
EXPORT_SYMBOL_GPL(ixt_conn_closing);

/**
 * ixt_conn_rx_stopped() - whether a transport stops handing PDUs over
 * @conn: the connection.
 *
 * Nothing is read after a Logout Response (or a failed Login Response)
 * is queued, nor once the connection is being torn down.
 *
 * Context: Any context.
 * Return: true when the receive path should stop.
 */
bool ixt_conn_rx_stopped(struct ixt_conn *conn)
{
	return ixt_conn_closing(conn) ||
	       READ_ONCE(conn->state) == IXT_CONN_LOGOUT;
}
EXPORT_SYMBOL_GPL(ixt_conn_rx_stopped);

/**
 * ixt_conn_state() - where a connection is in its life
 * @conn: the connection.
 *
 * Context: Any context.
 * Return: its state; it may change right after, from its receive path.
 */
enum ixt_conn_state ixt_conn_state(const struct ixt_conn *conn)
{
	return READ_ONCE(conn->state);
}
EXPORT_SYMBOL_GPL(ixt_conn_state);

/**
 * ixt_conn_aborted() - whether a connection is reset rather than closed
 * @conn: the connection.
 *
 * The initiator stopped answering (ixt_conn_timeout()): what the
 * connection could not send is dropped, and the transport resets it.
 *
 * Context: Any context; meant for the transport's shutdown op.
 * Return: true for a connection to reset.
 */
bool ixt_conn_aborted(const struct ixt_conn *conn)
{
	return test_bit(IXT_CONN_F_ABORT, &conn->flags);
}
EXPORT_SYMBOL_GPL(ixt_conn_aborted);

/**
 * ixt_conn_params() - what the login of a connection negotiated
 * @conn: the connection.
 *
 * Context: From the end of login on: the transport's ffp_prepare op,
 * or later.
 * Return: the negotiated values, session-wide ones included.
 */
const struct ixt_params *ixt_conn_params(const struct ixt_conn *conn)
{
	return &conn->params;
}
EXPORT_SYMBOL_GPL(ixt_conn_params);

/**
 * ixt_conn_nr_cmds() - the commands of a connection not yet freed
 * @conn: the connection.
 *
 * Context: Any context.
 * Return: their number, for messages; it may change right after.
 */
int ixt_conn_nr_cmds(const struct ixt_conn *conn)
{
	return atomic_read(&conn->nr_cmds);
}
EXPORT_SYMBOL_GPL(ixt_conn_nr_cmds);

/**
 * ixt_conn_close() - tear a connection down
 * @conn: the connection.
 *
 * Schedules the release work, once: later calls do nothing. The release
 * work stops the transport, ends the session of the connection, if any,
 * and frees the connection: the caller must not touch @conn afterwards
 * unless it runs in the connection's own receive or transmit work, which
 * the release waits for.
 *
 * Context: Any context but hard IRQ.
 * Return: true for the call that scheduled the release work.
 */
bool ixt_conn_close(struct ixt_conn *conn)
{
	if (test_and_set_bit(IXT_CONN_F_CLOSING, &conn->flags))
		return false;
	queue_work(ixt_wq, &conn->release_work);
	return true;
}
EXPORT_SYMBOL_GPL(ixt_conn_close);

/**
 * ixt_conn_reset() - close a connection, dropping what it has not sent
 * @conn: the connection.
 *
 * Context: Any context but hard IRQ.
 */
void ixt_conn_reset(struct ixt_conn *conn)
{
	set_bit(IXT_CONN_F_ABORT, &conn->flags);
	ixt_conn_close(conn);
}

/* Lines came back for the command the connection's receive path put off. */
static void ixt_conn_pool_wake(struct ixt_pool_waiter *w)
{
	struct ixt_conn *conn = container_of(w, struct ixt_conn, pool_waiter);

	conn->ops->rx_resume(conn);
}

static void ixt_conn_release_work(struct work_struct *work)
{
	struct ixt_conn *conn = container_of(work, struct ixt_conn,
					     release_work);

	pr_debug("%pISpc: connection closing\n", &conn->head.peer);
	/* No wake-up of the receive path may come once it is stopped. */
	ixt_pool_waiter_stop(&conn->pool_waiter);
	conn->ops->shutdown(conn);
	ixt_sess_logout_cancel(conn);
	cancel_delayed_work_sync(&conn->deadline);
	ixt_watchdog_stop(conn);
	ixt_conn_login_done(conn);
	ixt_login_free(conn);
	kfree(conn->neg);
	ixt_reqbuf_free(&conn->text_req);
	ixt_rsp_free(&conn->text_rsp);
	ixt_sess_conn_gone(conn);
	ixt_dataout_slots_free(conn);
	if (conn->tpg)
		ixt_tpg_put(conn->tpg);
	ixt_portal_put(conn->portal);

	spin_lock(&ixt_conns_lock);
	list_del(&conn->entry);
	spin_unlock(&ixt_conns_lock);
	wake_up_all(&ixt_conns_wq);
	conn->ops->free(conn);
	ixt_conn_free(conn);
}

/**
 * ixt_conn_alloc() - allocate a connection with the transport's part
 * @xprt: the transport, registered.
 * @peer: the initiator's address.
 *
 * One zeroed block holds the transport's part of the connection
 * (&ixt_transport_ops.conn_priv_size bytes) and the core's behind it,
 * which is returned. Set the transport's part up, then call
 * ixt_conn_init(); ixt_conn_free() frees the block until that succeeds,
 * the release work afterwards (see ixt_conn_close()).
 *
 * Context: Process context.
 * Return: the connection, or %NULL.
 */
struct ixt_conn *ixt_conn_alloc(struct ixt_transport *xprt,
				const struct sockaddr_storage *peer)
{
	const struct ixt_transport_ops *ops = xprt->ops;
	struct ixt_conn *conn;
	void *priv;

	priv = ixt_fault(ops->conn_fault) ? NULL :
	       kzalloc(ops->conn_priv_size + sizeof(*conn), GFP_KERNEL);
	if (!priv)
		return NULL;
	conn = priv + ops->conn_priv_size;
	conn->ops = ops;
	conn->xprt = xprt;
	conn->head.peer = *peer;
	return conn;
}
EXPORT_SYMBOL_GPL(ixt_conn_alloc);

/**
 * ixt_conn_free() - free what ixt_conn_alloc() allocated
 * @conn: the connection, never initialised (ixt_conn_init() not called,
 *	failed or undone by ixt_conn_uninit()) or released; the transport
 *	has let go of what its part holds.
 *
 * Context: Process context.
 */
void ixt_conn_free(struct ixt_conn *conn)
{
	kfree((void *)conn - conn->ops->conn_priv_size);
}
EXPORT_SYMBOL_GPL(ixt_conn_free);

/**
 * ixt_conn_init() - set up the core part of a new connection
 * @conn: the connection, from ixt_conn_alloc(), the transport's part set
 *	up (its local_addr op is called).
 * @portal: where the connection arrived; the connection takes a
 *	reference.
 *
 * Counts the connection against max_login_conns, or takes the place of
 * a connection of the host that holds the most (fair.c). Undo with
 * ixt_conn_uninit() until ixt_conn_start() is called.
 *
 * Context: Process context.
 * Return: 0, -EBUSY when too many connections are in login, -ENOMEM.
 */
int ixt_conn_init(struct ixt_conn *conn, struct ixt_portal *portal)
{
	int ret;

	if (ixt_fair_take(&ixt_login_bound, &conn->login_slot,
			  ixt_fair_host(&conn->head.peer),
			  READ_ONCE(max_login_conns))) {
		pr_warn_ratelimited("%pISpc: refused: %u connections already in login, its host's the most\n",
				    &conn->head.peer, max_login_conns);
		return -EBUSY;
	}
	set_bit(IXT_CONN_F_IN_LOGIN, &conn->flags);
	conn->state = IXT_CONN_LOGIN;
	conn->head.limits.login = true;
	conn->head.limits.max_recv_dlength = ISCSI_DEF_MAX_RECV_SEG_LEN;
	spin_lock_init(&conn->sn_lock);
	conn->stat_sn = get_random_u32();
	conn->login_start = jiffies;
	INIT_LIST_HEAD(&conn->unsol_cmds);
	INIT_LIST_HEAD(&conn->dout_wait);
	INIT_LIST_HEAD(&conn->dout_age);
	INIT_LIST_HEAD(&conn->r2t_later);
	INIT_LIST_HEAD(&conn->sess_entry);
	ixt_pool_waiter_init(&conn->pool_waiter, ixt_conn_pool_wake);
	INIT_DELAYED_WORK(&conn->deadline, ixt_conn_deadline);
	INIT_WORK(&conn->release_work, ixt_conn_release_work);
	ixt_sess_logout_init(conn);
	ixt_watchdog_init(conn);

	ret = conn->ops->local_addr(conn, &conn->local);
	if (ret)
		goto out_login_done;
	ret = ixt_login_init(conn);
	if (ret)
		goto out_login_done;

	ixt_portal_get(portal);
	conn->portal = portal;
	spin_lock(&ixt_conns_lock);
	list_add_tail(&conn->entry, &ixt_conns);
	spin_unlock(&ixt_conns_lock);
	return 0;

out_login_done:
	ixt_conn_login_done(conn);
	return ret;
}
EXPORT_SYMBOL_GPL(ixt_conn_init);

/**
 * ixt_conn_uninit() - undo ixt_conn_init() of a connection never started
 * @conn: the connection.
 *
 * Context: Process context.
 */
void ixt_conn_uninit(struct ixt_conn *conn)
{
	spin_lock(&ixt_conns_lock);
	list_del(&conn->entry);
	spin_unlock(&ixt_conns_lock);
	wake_up_all(&ixt_conns_wq);
	ixt_portal_put(conn->portal);
	ixt_login_free(conn);
	ixt_conn_login_done(conn);
}
EXPORT_SYMBOL_GPL(ixt_conn_uninit);

/**
 * ixt_conn_start() - start the login deadline of a connection
 * @conn: the connection, being hooked up to its transport.
 *
 * From here on, only ixt_conn_close() ends the connection, and another
 * host's login may end it while it is in login (ixt_fair_take()).
 *
 * Context: Process context, maybe with bottom halves disabled.
 */
void ixt_conn_start(struct ixt_conn *conn)
{
	queue_delayed_work(ixt_wq, &conn->deadline,
			   IXT_LOGIN_TIMEOUT_DEFAULT * HZ);
	ixt_fair_arm(&ixt_login_bound, &conn->login_slot);
}
EXPORT_SYMBOL_GPL(ixt_conn_start);

/**
 * ixt_conn_digest_error() - a PDU failed its header or data digest
 * @conn: the connection, which closes (ErrorRecoveryLevel 0).
 * @hdr: the BHS of a PDU whose data digest failed; %NULL when its header
 *	digest failed, and nothing of the header can be trusted.
 *
 * RFC 7143 7.8: a data digest error is answered with a Reject (Data
 * (payload) Digest Error), and the PDU is discarded. At ERL0 the data
 * cannot be asked for again, so the connection then closes, as after a
 * header digest error at once. Data that landed in a command's buffer
 * was never counted in: the command does not run. Counted for the
 * target node and the connection's session.
 *
 * Context: Process context (the receive path).
 */
void ixt_conn_digest_error(struct ixt_conn *conn, const struct iscsi_hdr *hdr)
{
	if (conn->sess && conn->tpg) {
		atomic_long_inc(&conn->sess->stats.conn_digest_errors);
		ixt_stat_sess_err(conn->tpg->tiqn, IXT_SESS_ERR_DIGEST,
				  conn->sess->initiator);
	}
	if (!hdr || READ_ONCE(conn->state) != IXT_CONN_FULL_FEATURE) {
		ixt_conn_close(conn);
		return;
	}
	ixt_conn_send_reject_close(conn, hdr, ISCSI_REASON_DATA_DIGEST_ERROR,
				   true);
}
EXPORT_SYMBOL_GPL(ixt_conn_digest_error);

/**
 * ixt_conn_timeout() - the initiator of a connection stopped answering
 * @conn: the connection, about to close: a NOP-In or a Data-Out timed
 *	out, or its send queue stood still.
 *
 * Counted for the target node and the connection's session. The
 * connection is reset rather than closed (%IXT_CONN_F_ABORT): what it
 * could not send is dropped.
 *
 * Context: Process context.
 */
void ixt_conn_timeout(struct ixt_conn *conn)
{
	set_bit(IXT_CONN_F_ABORT, &conn->flags);
	atomic_long_inc(&conn->sess->stats.conn_timeout_errors);
	ixt_stat_sess_err(conn->tpg->tiqn, IXT_SESS_ERR_CXN_TIMEOUT,
			  conn->sess->initiator);
}

/**
 * ixt_conn_cmd_done() - a command of a connection is freed
 * @conn: the command's connection.
 *
 * Context: Any context.
 */
void ixt_conn_cmd_done(struct ixt_conn *conn)
{
	if (atomic_dec_and_test(&conn->nr_cmds))
		wake_up_all(&ixt_conns_wq);
}

/**
 * ixt_conn_wait_cmds() - wait until every command of a connection is freed
 * @conn: the connection, closing: no command starts any more.
 *
 * Context: Process context (the connection's release work).
 */
void ixt_conn_wait_cmds(struct ixt_conn *conn)
{
	wait_event(ixt_conns_wq, !atomic_read(&conn->nr_cmds));
}

/**
 * ixt_conn_wait_cmds_for() - wait a while for a connection's commands
 * @conn: the connection, which starts no command any more.
 * @timeout: how long at most, in jiffies.
 *
 * Context: Process context.
 * Return: true once every command of @conn is freed; false when
 * @timeout ran out first.
 */
bool ixt_conn_wait_cmds_for(struct ixt_conn *conn, long timeout)
{
	return wait_event_timeout(ixt_conns_wq, !atomic_read(&conn->nr_cmds),
				  timeout);
}

/**
 * ixt_conns_close_tpg() - close every connection logging in or logged in
 *	to a TPG
 * @tpg: the TPG.
 *
 * Context: Any context but hard IRQ; takes ixt_conns_lock.
 */
void ixt_conns_close_tpg(struct ixt_tpg *tpg)
{
	struct ixt_conn *conn;

	spin_lock(&ixt_conns_lock);
	list_for_each_entry(conn, &ixt_conns, entry)
		if (READ_ONCE(conn->tpg) == tpg)
			ixt_conn_close(conn);
	spin_unlock(&ixt_conns_lock);
}

static bool ixt_conns_empty(void)
{
	bool empty;

	spin_lock(&ixt_conns_lock);
	empty = list_empty(&ixt_conns);
	spin_unlock(&ixt_conns_lock);
	return empty;
}

/**
 * ixt_conn_module_init() - set up what connections need
 *
 * Context: Process context, module init.
 * Return: 0 or -ENOMEM.
 */
int ixt_conn_module_init(void)
{
	ixt_wq = ixt_fault(IXT_FAULT_WQ) ? NULL :
		 alloc_workqueue("iscsi_xt", WQ_MEM_RECLAIM | WQ_SYSFS, 0);
	if (!ixt_wq)
		return -ENOMEM;
	return 0;
}

/**
 * ixt_conn_module_exit() - close every connection and wait for them
 *
 * Every portal is gone by then (configfs removed them before the module
 * could be unloaded), so no connection can start meanwhile.
 *
 * Context: Process context, module exit.
 */
void ixt_conn_module_exit(void)
{
	struct ixt_conn *conn;

	spin_lock(&ixt_conns_lock);
	list_for_each_entry(conn, &ixt_conns, entry)
		ixt_conn_close(conn);
	spin_unlock(&ixt_conns_lock);
	wait_event(ixt_conns_wq, ixt_conns_empty());
	destroy_workqueue(ixt_wq);
}
