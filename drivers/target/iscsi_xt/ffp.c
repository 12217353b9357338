// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: the requests of a session in full feature phase: the CmdSN
 * window check at the header, dispatch in CmdSN order (or at once for
 * immediate requests and Data-Out), NOP-Out and Logout.
 *
 * Everything here runs under the session's rx_lock, from the receive
 * path of one of its connections.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/string.h>
#include <target/target_core_base.h>

#include "cmd.h"
#include "conn.h"
#include "session.h"

/*
 * CmdSN of a request, seen at its header. Returns false for a CmdSN
 * outside the window, which RFC 7143 says to drop silently.
 */
static bool ixt_sess_cmd_sn_ok(struct ixt_sess *sess,
			       const struct iscsi_hdr *hdr)
{
	/* Every request carries CmdSN where a NOP-Out does. */
	u32 cmd_sn = be32_to_cpu(((const struct iscsi_nopout *)hdr)->cmdsn);
	u32 max = READ_ONCE(sess->max_cmd_sn);

	if (ixt_pdu_is_immediate(hdr) ||
	    ixt_sn_in_window(cmd_sn, sess->exp_cmd_sn, max))
		return true;
	pr_warn_ratelimited("%s: CmdSN 0x%08x outside 0x%08x..0x%08x, dropped\n",
			    sess->initiator, cmd_sn, sess->exp_cmd_sn, max);
	return false;
}

/**
 * ixt_sess_rx_hdr() - look at the header of a PDU in full feature phase
 * @conn: the connection, with its session.
 * @pdu: the PDU, its BHS checked; its data segment not received yet.
 *
 * Checks that CmdSN is in the window before a byte of data is read, and
 * lets SCSI Commands and Data-Out say where their data goes. CmdSN is
 * taken when the whole PDU is in (ixt_cmdsn_rx()); a PDU rejected here
 * does not take it (RFC 7143 7.3).
 *
 * Context: Process context (the connection's receive path).
 * Return: as ixt_conn_rx_hdr().
 */
int ixt_sess_rx_hdr(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	struct ixt_sess *sess = conn->sess;
	u8 op = ixt_pdu_opcode(&pdu->hdr);
	int ret;

	if (op == ISCSI_OP_SCSI_DATA_OUT)
		return ixt_dataout_rx_hdr(conn, pdu);
	if (op == ISCSI_OP_SNACK)
		return 0;
	if (!ixt_sess_cmd_sn_ok(sess, &pdu->hdr)) {
		pdu->discard = true;
		pdu->ignore = true;
		return 0;
	}
	if (op == ISCSI_OP_SCSI_CMD) {
		ret = ixt_cmd_rx_hdr(conn, pdu);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * struct ixt_logout_scope - the connections a Logout request closes
 * @conn: the connection the request came on, left alone.
 * @cid: the CID it names, or -1 for all (a session Logout).
 * @found: a connection was closed.
 */
struct ixt_logout_scope {
	struct ixt_conn *conn;
	int cid;
	bool found;
};

static void ixt_logout_other(struct ixt_conn *other, void *arg)
{
	struct ixt_logout_scope *scope = arg;

	if (other == scope->conn ||
	    (scope->cid >= 0 && other->cid != scope->cid))
		return;
	scope->found = true;
	other->logged_out = true;
	ixt_conn_close(other);
}

/*
 * Logs out the other connections of @conn's session: the one @cid names,
 * or all of them (@cid < 0, a session Logout). Returns whether any was.
 */
static bool ixt_sess_logout_others(struct ixt_conn *conn, int cid)
{
	struct ixt_logout_scope scope = { .conn = conn, .cid = cid };

	ixt_sess_each_conn(conn->sess, ixt_logout_other, &scope);
	return scope.found;
}

static void ixt_sess_logout(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	const struct iscsi_logout *req = (const struct iscsi_logout *)&pdu->hdr;
	u8 reason = req->flags & ISCSI_FLAG_LOGOUT_REASON_MASK;
	u16 cid = be16_to_cpu(req->cid);
	struct iscsi_logout_rsp *rsp;
	struct ixt_tx_pdu *tx;

	tx = ixt_conn_pdu_alloc(conn, ISCSI_OP_LOGOUT_RSP, req->itt, 0);
	if (!tx)
		return;
	rsp = (struct iscsi_logout_rsp *)&tx->hdr;
	if (reason == ISCSI_LOGOUT_REASON_RECOVERY) {
		rsp->response = ISCSI_LOGOUT_RECOVERY_UNSUPPORTED;
	} else if (reason == ISCSI_LOGOUT_REASON_CLOSE_CONNECTION &&
		   cid != conn->cid) {
		/* Another connection: this one goes on. */
		rsp->response = ixt_sess_logout_others(conn, cid) ?
				ISCSI_LOGOUT_SUCCESS :
				ISCSI_LOGOUT_CID_NOT_FOUND;
	} else {
		if (reason != ISCSI_LOGOUT_REASON_CLOSE_CONNECTION)
			ixt_sess_logout_others(conn, -1);
		conn->logged_out = true;
		rsp->response = ISCSI_LOGOUT_SUCCESS;
		WRITE_ONCE(conn->state, IXT_CONN_LOGOUT);
		tx->close = true;
		if (ixt_sess_logout_last(conn, tx))
			return;
	}
	ixt_conn_queue_resp(conn, tx, true);
}

static void ixt_sess_nop_out(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	const struct iscsi_nopout *req = (const struct iscsi_nopout *)&pdu->hdr;
	struct iscsi_nopin *rsp;
	struct ixt_tx_pdu *tx;

	if (req->ttt != cpu_to_be32(ISCSI_RESERVED_TAG))
		ixt_watchdog_nop_out(conn, be32_to_cpu(req->ttt));
	/* A NOP-Out with the reserved ITT wants no answer. */
	if (req->itt == RESERVED_ITT)
		return;
	tx = ixt_conn_pdu_alloc(conn, ISCSI_OP_NOOP_IN, req->itt, pdu->dlength);
	if (!tx)
		return;
	if (pdu->dlength)
		memcpy(tx->data, pdu->data, pdu->dlength);
	rsp = (struct iscsi_nopin *)&tx->hdr;
	rsp->lun = req->lun;
	rsp->ttt = cpu_to_be32(ISCSI_RESERVED_TAG);
	ixt_conn_queue_resp(conn, tx, true);
}

/**
 * ixt_sess_deliver() - handle a request whose turn has come
 * @conn: the connection it came on, in full feature phase.
 * @pdu: the request, whole: an immediate one or Data-Out at once, any
 *	other in CmdSN order (ixt_cmdsn_rx()).
 *
 * Context: Process context (the receive path of a connection of the
 * session), under the session's rx_lock.
 */
void ixt_sess_deliver(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	switch (ixt_pdu_opcode(&pdu->hdr)) {
	case ISCSI_OP_TEXT:
		ixt_text_rx(conn, pdu);
		break;
	case ISCSI_OP_LOGOUT:
		ixt_sess_logout(conn, pdu);
		break;
	case ISCSI_OP_NOOP_OUT:
		ixt_sess_nop_out(conn, pdu);
		break;
	case ISCSI_OP_SCSI_CMD:
		if (!pdu->answered)
			ixt_cmd_rx(conn, pdu);
		break;
	case ISCSI_OP_SCSI_DATA_OUT:
		ixt_dataout_rx(conn, pdu);
		break;
	case ISCSI_OP_SCSI_TMFUNC:
		ixt_tmf_rx(conn, pdu);
		break;
	default:
		ixt_conn_send_reject(conn, &pdu->hdr,
				     ISCSI_REASON_CMD_NOT_SUPPORTED);
		break;
	}
}

/**
 * ixt_sess_rx_ffp() - handle a PDU received in full feature phase
 * @conn: the connection, with its session.
 * @pdu: the PDU, its BHS checked, its header accepted by
 *	ixt_sess_rx_hdr().
 *
 * Data-Out, SNACK and immediate requests are handled at once; the other
 * requests in CmdSN order.
 *
 * Context: Process context (the connection's receive path).
 */
void ixt_sess_rx_ffp(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	u8 op = ixt_pdu_opcode(&pdu->hdr);

	if (op == ISCSI_OP_SCSI_CMD && !pdu->answered &&
	    !ixt_cmd_arrived(conn, pdu))
		return;

	if (op == ISCSI_OP_SCSI_DATA_OUT || op == ISCSI_OP_SNACK ||
	    ixt_pdu_is_immediate(&pdu->hdr))
		ixt_sess_deliver(conn, pdu);
	else
		ixt_cmdsn_rx(conn, pdu);
}
