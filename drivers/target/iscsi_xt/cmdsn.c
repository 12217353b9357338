// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: CmdSN order. Non-immediate requests of a session reach the
 * rest of the core in CmdSN order (RFC 7143 3.2.2.1): one that arrives
 * early, past a hole, is held (a copy of its PDU; a SCSI command keeps
 * its buffer, its data already in place) and released with everything
 * behind the hole, in order, when the hole closes. ExpCmdSN is the
 * queue's expected number. The queue is holes.c's ixt_snq, as big as the
 * command window, so what is held is bounded by the window.
 *
 * The queue is the session's, shared by its connections under the
 * session's rx_lock: a request held for one connection is delivered, for
 * that connection, by whichever receive path closes its hole; held
 * requests of a connection that is closing are dropped instead.
 * sess->exp_cmd_sn mirrors ExpCmdSN for the responses built elsewhere.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <iscsi_xt/holes.h>

#include "cmd.h"
#include "conn.h"

/* Kinds of what the queue counts per hole. */
enum {
	IXT_CMDSN_SCSI,
	IXT_CMDSN_OTHER,
};

/**
 * struct ixt_cmdsn_held - a request held behind a CmdSN hole
 * @node: its place in the session's queue.
 * @conn: the connection it came on, which waits for it when closing
 *	(a held SCSI Command counts in its nr_cmds; any request in its
 *	cmdsn_held).
 * @pdu: a copy of the PDU; @pdu.data points at @data, @pdu.cmd is the
 *	command of a SCSI Command.
 * @data: the data segment of a request other than a SCSI Command.
 */
struct ixt_cmdsn_held {
	struct ixt_snq_node node;
	struct ixt_conn *conn;
	struct ixt_rx_pdu pdu;
	u8 data[];
};

static u32 ixt_cmdsn_of(const struct iscsi_hdr *hdr)
{
	/* Every request carries CmdSN where a NOP-Out does. */
	return be32_to_cpu(((const struct iscsi_nopout *)hdr)->cmdsn);
}

static int ixt_cmdsn_setup(struct ixt_sess *sess)
{
	u32 n = sess->cmdsn_depth;
	int ret;

	sess->cmdsn_slots = kcalloc(n, sizeof(*sess->cmdsn_slots),
				    GFP_KERNEL);
	if (!sess->cmdsn_slots)
		return -ENOMEM;
	ret = ixt_snq_init(&sess->cmdsn_q, sess->cmdsn_slots, n,
			   sess->exp_cmd_sn);
	if (!ret)
		ret = ixt_snq_set_max(&sess->cmdsn_q, sess->exp_cmd_sn + n - 1);
	if (ret) {
		kfree(sess->cmdsn_slots);
		sess->cmdsn_slots = NULL;
	}
	return ret;
}

/* Gives back what a request held or refused owns. */
static void ixt_cmdsn_drop(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	if (pdu->cmd)
		ixt_cmd_drop(conn, pdu->cmd);
}

/* Holds a copy of an early request; false if it cannot be held. */
static bool ixt_cmdsn_hold(struct ixt_conn *conn, struct ixt_rx_pdu *pdu,
			   u32 sn)
{
	struct ixt_sess *sess = conn->sess;
	u32 len = pdu->data ? pdu->dlength : 0;
	struct ixt_snq_batch batch;
	struct ixt_cmdsn_held *h;
	int ret;

	h = kmalloc(struct_size(h, data, len), GFP_KERNEL);
	if (!h)
		return false;
	h->conn = conn;
	h->pdu = *pdu;
	h->pdu.data = len ? h->data : NULL;
	memcpy(h->data, pdu->data, len);
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
	return true;
}

/* A held request's turn has come, or the session is going. */
static void ixt_cmdsn_unhold(struct ixt_cmdsn_held *h,
			     void (*deliver)(struct ixt_conn *conn,
					     struct ixt_rx_pdu *pdu))
{
	h->conn->cmdsn_held--;
	if (deliver && !ixt_conn_closing(h->conn))
		deliver(h->conn, &h->pdu);
	else
		ixt_cmdsn_drop(h->conn, &h->pdu);
	kfree(h);
}

/**
 * ixt_cmdsn_rx() - deliver a non-immediate request in CmdSN order
 * @conn: the connection, in full feature phase.
 * @pdu: the request, its CmdSN in the window (ixt_sess_rx_hdr() saw to
 *	it); a SCSI Command set up by ixt_cmd_rx_hdr().
 * @deliver: what handles a request once its turn has come.
 *
 * Context: Process context (the connection's receive path), under the
 * session's rx_lock.
 */
void ixt_cmdsn_rx(struct ixt_conn *conn, struct ixt_rx_pdu *pdu,
		  void (*deliver)(struct ixt_conn *conn,
				  struct ixt_rx_pdu *pdu))
{
	struct ixt_sess *sess = conn->sess;
	u32 sn = ixt_cmdsn_of(&pdu->hdr);
	struct ixt_snq_node here, *node;
	struct ixt_snq_batch batch;

	lockdep_assert_held(&sess->rx_lock);
	if (!sess->cmdsn_slots && ixt_cmdsn_setup(sess)) {
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
	ixt_snq_set_max(&sess->cmdsn_q, ixt_snq_expected(&sess->cmdsn_q) +
			sess->cmdsn_depth - 1);
	WRITE_ONCE(sess->exp_cmd_sn, ixt_snq_expected(&sess->cmdsn_q));
	while ((node = ixt_snq_pop(&sess->cmdsn_q))) {
		if (node == &here)
			deliver(conn, pdu);
		else
			ixt_cmdsn_unhold(container_of(node,
						      struct ixt_cmdsn_held,
						      node), deliver);
	}
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
		ixt_cmdsn_unhold(container_of(node, struct ixt_cmdsn_held,
					      node), NULL);
	kfree(sess->cmdsn_slots);
	sess->cmdsn_slots = NULL;
}
