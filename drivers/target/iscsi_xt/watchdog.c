// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: the watchdog of a connection in full feature phase of a
 * normal session. Once a second it checks that the initiator is alive:
 * it sends a NOP-In every nopin_timeout seconds and drops the connection
 * when no NOP-Out answers within nopin_response_timeout, and it drops a
 * connection with a write that has waited dataout_timeout for the
 * Data-Out it is owed, solicited or unsolicited, each write timed from
 * its own last progress (ixt_dataout_overdue(); ErrorRecoveryLevel 0
 * cannot ask again), or a SCSI Command whose immediate data has been
 * coming for as long (ixt_cmd_rx_overdue(): its lines are taken at the
 * header), and one whose
 * requests wait behind a CmdSN hole that stays open longer than a
 * connection may go silent (nopin_timeout + nopin_response_timeout): a
 * request lost is never sent again at ErrorRecoveryLevel 0, and one on
 * its way on another connection of the session (MC/S) has arrived by
 * then unless that connection is as good as dead, while the requests
 * held keep their cache lines. All come from the attributes of the
 * session's ACL. While the cache-line pool is short, it also drops a
 * connection whose peer reads so slowly that PDUs queued
 * %IXT_CONN_DRAIN_SECS or more ago are still unsent (ixt_conn_tx_slow()): their
 * Data-In holds lines others wait for. A connection dropped for an
 * unanswered NOP-In counts as a connection timeout in the target's
 * fabric_statistics/iscsi_sess_err. It also tells the initiator of a
 * command window that reopened without a response to carry the news.
 *
 * The receive path writes the NOP-Out answers and the Data-Out progress
 * with WRITE_ONCE(); the watchdog reads them with READ_ONCE() and owns
 * the rest of its state.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/random.h>
#include <linux/workqueue.h>
#include <target/target_core_base.h>

#include "cmd.h"
#include "conn.h"
#include "session.h"

static int ixt_watchdog_attrib(struct ixt_conn *conn, enum ixt_nacl_attr a)
{
	return ixt_nacl_attrib(to_ixt_nacl(conn->sess->se_sess->se_node_acl),
			       a);
}

/*
 * Sends a NOP-In of the target's own (ITT reserved, no StatSN taken):
 * with a fresh @ttt it asks for an answer, with ISCSI_RESERVED_TAG for
 * none (RFC 7143 11.19). Returns whether it was queued.
 */
static bool ixt_watchdog_nop_in(struct ixt_conn *conn, u32 ttt)
{
	struct ixt_tx_pdu *pdu;

	pdu = ixt_conn_pdu_alloc(conn, ISCSI_OP_NOOP_IN, RESERVED_ITT, 0);
	if (!pdu)
		return false;
	((struct iscsi_nopin *)&pdu->hdr)->ttt = cpu_to_be32(ttt);
	ixt_conn_queue_resp(conn, pdu, false);
	return true;
}

/*
 * Sends a NOP-In that asks for an answer, under a fresh TTT, random: a
 * peer that reads nothing cannot answer a ping it never saw, and its send
 * queue standing still closes it.
 */
static void ixt_watchdog_ping(struct ixt_conn *conn)
{
	u32 ttt;

	do {
		ttt = get_random_u32();
	} while (!ttt || ttt == ISCSI_RESERVED_TAG || ttt == conn->nopin_ttt);
	if (ixt_watchdog_nop_in(conn, ttt))
		conn->nopin_ttt = ttt;
}

/*
 * A NOP-In that asks for nothing, to carry MaxCmdSN: when the window was
 * closed and the commands that gave their places back went without a
 * response, the initiator would otherwise wait for its own next NOP-Out
 * to learn of them.
 */
static void ixt_watchdog_window_update(struct ixt_conn *conn)
{
	if (ixt_sess_window_reopened(conn->sess))
		ixt_watchdog_nop_in(conn, ISCSI_RESERVED_TAG);
}

/* Whether @conn's requests have waited behind a CmdSN hole for @limit. */
static bool ixt_watchdog_hole_stuck(struct ixt_conn *conn,
				    unsigned long limit)
{
	return READ_ONCE(conn->cmdsn_held) &&
	       time_after(jiffies, READ_ONCE(conn->sess->hole_stamp) + limit);
}

static void ixt_watchdog_work(struct work_struct *work)
{
	struct ixt_conn *conn = container_of(to_delayed_work(work),
					     struct ixt_conn, watchdog);
	int dataout = ixt_watchdog_attrib(conn, IXT_NA_DATAOUT_TIMEOUT);
	unsigned long now = jiffies;
	int nopin, stall;

	if (ixt_conn_closing(conn))
		return;
	/* A nopin_timeout of 0 sends no NOP-In, as on LIO. */
	nopin = ixt_watchdog_attrib(conn, IXT_NA_NOPIN_TIMEOUT);
	stall = nopin + ixt_watchdog_attrib(conn,
					    IXT_NA_NOPIN_RESPONSE_TIMEOUT);
	if (ixt_conn_tx_stalled(conn, stall * HZ)) {
		pr_err_ratelimited("%s: %pISpc read nothing of its responses for %d s, closing the connection\n",
				   conn->sess->initiator, &conn->head.peer,
				   stall);
		ixt_conn_timeout(conn);
		ixt_conn_close(conn);
		return;
	}
	if (ixt_conn_tx_slow(conn)) {
		pr_err_ratelimited("%s: %pISpc read too slowly: PDUs queued over %d s ago still unsent, the cache-line pool short: closing the connection\n",
				   conn->sess->initiator, &conn->head.peer,
				   IXT_CONN_DRAIN_SECS);
		ixt_conn_timeout(conn);
		ixt_conn_close(conn);
		return;
	}
	if (ixt_watchdog_hole_stuck(conn, stall * HZ)) {
		pr_err_ratelimited("%s: %pISpc left CmdSN 0x%08x missing for %d s, requests held behind it: closing the connection\n",
				   conn->sess->initiator, &conn->head.peer,
				   READ_ONCE(conn->sess->exp_cmd_sn), stall);
		ixt_conn_timeout(conn);
		ixt_conn_close(conn);
		return;
	}
	if (ixt_cmd_rx_overdue(conn, dataout * HZ)) {
		pr_err_ratelimited("%s: the immediate data of a command from %pISpc did not come within %d s, closing the connection\n",
				   conn->sess->initiator, &conn->head.peer,
				   dataout);
		ixt_conn_timeout(conn);
		ixt_conn_close(conn);
		return;
	}
	if (ixt_dataout_overdue(conn, dataout * HZ)) {
		pr_err_ratelimited("%s: a write waited %d s for Data-Out from %pISpc, closing the connection\n",
				   conn->sess->initiator, dataout,
				   &conn->head.peer);
		ixt_conn_timeout(conn);
		ixt_conn_close(conn);
		return;
	}
	if (ixt_dataout_slow(conn)) {
		pr_err_ratelimited("%s: %pISpc sends its writes' data too slowly: one in its data phase over %d s, the cache-line pool short: closing the connection\n",
				   conn->sess->initiator, &conn->head.peer,
				   IXT_CONN_DRAIN_SECS);
		ixt_conn_timeout(conn);
		ixt_conn_close(conn);
		return;
	}
	ixt_dataout_abort_marked(conn);
	if (conn->nopin_ttt != READ_ONCE(conn->nopin_acked)) {
		if (time_after(now, conn->nopin_deadline)) {
			ixt_conn_timeout(conn);
			pr_err_ratelimited("%s: no answer to NOP-In from %pISpc in %d s, closing the connection\n",
					   conn->sess->initiator,
					   &conn->head.peer,
					   ixt_watchdog_attrib(conn,
							       IXT_NA_NOPIN_RESPONSE_TIMEOUT));
			ixt_conn_close(conn);
			return;
		}
	} else if (nopin && time_after_eq(now, conn->nopin_next)) {
		ixt_watchdog_ping(conn);
		conn->nopin_deadline = now + HZ *
			ixt_watchdog_attrib(conn, IXT_NA_NOPIN_RESPONSE_TIMEOUT);
		conn->nopin_next = now + HZ * nopin;
	}
	ixt_watchdog_window_update(conn);
	queue_delayed_work(ixt_wq, &conn->watchdog, HZ);
}

/**
 * ixt_watchdog_init() - set up the watchdog of a new connection
 * @conn: the connection.
 *
 * Context: Any context.
 */
void ixt_watchdog_init(struct ixt_conn *conn)
{
	INIT_DELAYED_WORK(&conn->watchdog, ixt_watchdog_work);
}

/**
 * ixt_watchdog_start() - start watching a connection
 * @conn: the connection, entering full feature phase of a normal session.
 *
 * Context: Process context (the receive path).
 */
void ixt_watchdog_start(struct ixt_conn *conn)
{
	conn->nopin_next = jiffies +
		HZ * ixt_watchdog_attrib(conn, IXT_NA_NOPIN_TIMEOUT);
	queue_delayed_work(ixt_wq, &conn->watchdog, HZ);
}

/**
 * ixt_watchdog_stop() - stop watching a connection
 * @conn: the connection, closing; its transport stopped.
 *
 * Context: Process context (the release work).
 */
void ixt_watchdog_stop(struct ixt_conn *conn)
{
	cancel_delayed_work_sync(&conn->watchdog);
}

/**
 * ixt_watchdog_nop_out() - a NOP-Out answers a NOP-In of the watchdog
 * @conn: the connection.
 * @ttt: the Target Transfer Tag it echoes.
 *
 * Context: Process context (the receive path).
 */
void ixt_watchdog_nop_out(struct ixt_conn *conn, u32 ttt)
{
	WRITE_ONCE(conn->nopin_acked, ttt);
}
