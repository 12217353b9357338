/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iscsi_xt: network portals and connections, their login and text
 * exchanges; the core's own (a transport sees transport.h only).
 *
 * Lifetimes, in short:
 * - a &struct ixt_portal (one listening endpoint) is refcounted by the
 *   configfs portals (&struct ixt_np) that name its address;
 * - a &struct ixt_conn is owned by its release work: ixt_conn_close()
 *   schedules it once, and it tears the connection down and frees it.
 */
#ifndef _ISCSI_XT_CONN_H
#define _ISCSI_XT_CONN_H

#include <linux/list.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <iscsi_xt/params.h>
#include <iscsi_xt/pdu.h>

#include "fair.h"
#include "iscsi_xt.h"
#include "pool.h"
#include "transport.h"

struct ixt_login;
struct ixt_portal;
struct ixt_sess;

/**
 * struct ixt_reqbuf - request text reassembled from PDUs with C set
 * @buf: the text, kvmalloc'ed; %NULL until the first byte arrives.
 * @len: bytes of text at @buf.
 * @size: bytes allocated at @buf, at most %IXT_TEXT_MAX_LEN.
 */
struct ixt_reqbuf {
	char *buf;
	u32 len;
	u32 size;
};

/* &struct ixt_conn.flags bits */
#define IXT_CONN_F_CLOSING	0	/* release work scheduled */
#define IXT_CONN_F_IN_LOGIN	1	/* counted in the login bound */
#define IXT_CONN_F_REPLACED	2	/* a login with its CID replaces it */
#define IXT_CONN_F_TX_WAIT	3	/* reading waits for the send queue */
#define IXT_CONN_F_ABORT	4	/* reset, unsent data dropped */
#define IXT_CONN_F_DISCOVERY	5	/* discovery session: idle deadline */
#define IXT_CONN_F_R2T_LATER	6	/* R2Ts wait for the send queue */

/**
 * struct ixt_conn - one iSCSI connection, transport-neutral part
 * @head: what the transport reads (&struct ixt_conn_head: the limits of
 *	the receive path, the digests, the initiator's address); first.
 * @ops: the transport's ops.
 * @xprt: the transport, for the cache of its commands.
 * @entry: link in the list of all connections (module exit closes them).
 * @state: &enum ixt_conn_state; written only by the receive path (in
 *	full feature phase under the session's rx_lock, and maybe by
 *	another connection's: a held Logout, see below), read anywhere
 *	with READ_ONCE().
 *
 * "Receive path" below means the transport's rx work, which calls every
 * core receive function, and in full feature phase holds the session's
 * rx_lock meanwhile; a request of one connection that a CmdSN hole held
 * may be delivered from the receive path of another connection of the
 * session, under the same lock.
 * @flags: IXT_CONN_F_* bits, atomic.
 * @portal: listening endpoint the connection arrived on; a reference.
 * @login: login state while @state is %IXT_CONN_LOGIN, else %NULL.
 * @sess: the session once login succeeded; the connection's reference.
 * @sess_entry: link in the session's connections, under ixt_sess_mutex.
 * @params: what the login negotiated, session-wide values included
 *	(the session's, for a connection that joined one); set at the end
 *	of login.
 * @nr_cmds: commands and task management requests of the connection not
 *	yet freed; atomic. Its release waits until none is left.
 * @cmdsn_held: requests of the connection held behind a CmdSN hole;
 *	under the session's rx_lock (the watchdog reads it with
 *	READ_ONCE()).
 * @logged_out: the connection ends with a Logout request; under the
 *	session's rx_lock.
 * @tpg: the TPG the login is for, once known; a reference, dropped when
 *	the connection is released (ixt_tpg_drain() waits for that).
 * @cid: connection ID the initiator chose.
 * @sn_lock: protects @stat_sn in full feature phase, and keeps the
 *	PDUs that carry a StatSN queued in StatSN order.
 * @stat_sn: StatSN of the next response; the receive path alone uses it
 *	during login.
 * @deadline: resets the connection if it is not in full feature phase
 *	by then: its login took too long, or its last PDU (a failed login's
 *	response, a Logout Response) did not go out in time; and a discovery
 *	session that stays silent.
 * @release_work: tears the connection down; see ixt_conn_close().
 * @logout_work: ends the session in the target core before its Logout
 *	Response goes (ixt_sess_logout_last()); the release work cancels
 *	it, or waits for it, before it ends the session itself.
 * @logout_rsp: the Logout Response @logout_work sends; owned by the
 *	work from ixt_sess_logout_last() on, %NULL once it is queued.
 * @login_start: jiffies when the connection was accepted.
 * @login_slot: its place in the bound on connections in login, while
 *	%IXT_CONN_F_IN_LOGIN is set (conn.c).
 * @discovery_slot: its place in the bound on discovery sessions, while
 *	its discovery session is registered (session.c).
 * @neg: the login's key negotiation, kept in full feature phase for
 *	the keys of Text Requests (rx work); %NULL before.
 * @text_req: Text Request text being reassembled (rx work).
 * @text_rsp: Text Response text, sent in parts when longer than the
 *	initiator's MaxRecvDataSegmentLength (rx work); its storage is
 *	kvmalloc'ed.
 * @text_ttt: Target Transfer Tag of the parts of @text_rsp.
 * @rx_cmd: a command whose SCSI Command PDU is being received, between
 *	ixt_conn_rx_hdr() and ixt_conn_rx_pdu(); the release work frees it
 *	if the connection dies in between. Receive path only.
 * @rx_cmd_stamp: jiffies (| 1) when @rx_cmd's header came, 0 when there
 *	is none: the receive path writes it with WRITE_ONCE(), the watchdog
 *	reads it (ixt_cmd_rx_overdue()).
 * @rx_data: the write a Data-Out being received goes into, between
 *	ixt_dataout_rx_hdr() and ixt_dataout_rx(), with a reference that
 *	keeps it (and its lines) while the data lands, even if another
 *	connection drops it meanwhile; the release work drops the reference
 *	if the data never comes. Receive path only.
 * @slots: the writes in their data phase, by slot; %NULL until the
 *	first write. Receive path only, as @slot_map, @nr_slots,
 *	@unsol_cmds and @ttt_gen (and the release work once it stopped).
 * @slot_map: which @slots are taken.
 * @nr_slots: number of @slots.
 * @unsol_cmds: writes still expecting unsolicited Data-Out.
 * @ttt_gen: varies the Target Transfer Tags of successive commands.
 * @pool_wait: jiffies (| 1) since when a command's header waits for
 *	cache lines; 0 when none waits. Receive path.
 * @pool_waiter: the connection's place in the pool's queue while its
 *	command waits for lines (ixt_pool_get_fair()); left when the
 *	command gets them or gives up, or the connection closes.
 * @r2t_waiting: writes that wait for Data-Out the initiator owes them
 *	(R2Ts not fully answered, unsolicited data not all in), on
 *	@dout_wait; receive path, as @dout_wait.
 * @dout_wait: those writes, in the order of their last progress: the
 *	one that waits longest first (ixt_dataout_track()).
 * @dataout_stamp: the &struct ixt_cmd.dout_stamp of the first of
 *	@dout_wait, 0 when it is empty: the receive path writes it with
 *	WRITE_ONCE(), the watchdog reads it (ixt_dataout_overdue()).
 * @dout_age: the writes in their data phase that hold cache lines, in
 *	the order they came to it, progress aside; receive path, under the
 *	session's rx_lock (ixt_dataout_age()).
 * @dataout_since: the &struct ixt_cmd.dout_since of the first of
 *	@dout_age, 0 when it is empty: written with WRITE_ONCE(), read by
 *	the watchdog (ixt_dataout_slow()).
 * @r2t_later: writes whose next R2Ts wait for room in the send queue,
 *	in the order they were put off (with %IXT_CONN_F_R2T_LATER);
 *	receive path.
 * @watchdog: NOP-In keepalive and Data-Out timeout (watchdog.c); runs
 *	in full feature phase of a normal session only.
 * @nopin_ttt: TTT of the last NOP-In the watchdog sent (watchdog only,
 *	like @nopin_next and @nopin_deadline).
 * @nopin_acked: TTT of the last NOP-Out answering one; receive path.
 * @nopin_next: when the next NOP-In goes.
 * @nopin_deadline: when the outstanding NOP-In must be answered by.
 * @tx_pdus: PDUs queued to the transport and not sent; atomic. Past
 *	%IXT_CONN_TX_MAX_PDUS (in the login phase, one) the connection
 *	reads no request and sends no R2T (ixt_conn_tx_full()).
 * @tx_bytes: their data segments held in memory of their own (not a
 *	command's cache lines); atomic, bounded by %IXT_CONN_TX_MAX_BYTES
 *	the same way.
 * @tx_sent: PDUs sent in full, ever (wraps); atomic.
 * @tx_stamp: jiffies when the send queue last moved: a PDU queued to an
 *	empty queue, or bytes of one sent. The watchdog closes a connection
 *	whose queue does not move for the NOP-In timeouts.
 * @drain_start: jiffies (| 1) when the current period of
 *	ixt_conn_tx_slow() began, 0 when none runs. The watchdog's, like the two below.
 * @drain_sent: @tx_sent when it began.
 * @drain_pdus: the PDUs queued when it began.
 * @local: the address the initiator connected to (for SendTargets
 *	answers on wildcard portals).
 *
 * Allocated by ixt_conn_alloc() behind the transport's part of the
 * connection, and freed with it.
 */
struct ixt_conn {
	struct ixt_conn_head head;
	const struct ixt_transport_ops *ops;
	struct ixt_transport *xprt;
	struct list_head entry;
	int state;
	unsigned long flags;
	struct ixt_portal *portal;
	struct ixt_login *login;
	struct ixt_sess *sess;
	struct list_head sess_entry;
	struct ixt_params params;
	atomic_t nr_cmds;
	u32 cmdsn_held;
	bool logged_out;
	struct ixt_tpg *tpg;
	u16 cid;
	spinlock_t sn_lock;	/* protects stat_sn, orders status PDUs */
	u32 stat_sn;
	struct delayed_work deadline;
	struct work_struct release_work;
	struct work_struct logout_work;
	struct ixt_tx_pdu *logout_rsp;
	unsigned long login_start;
	struct ixt_fair_slot login_slot;
	struct ixt_fair_slot discovery_slot;
	struct ixt_neg *neg;
	struct ixt_reqbuf text_req;
	struct ixt_text_buf text_rsp;
	u32 text_ttt;
	struct ixt_cmd *rx_cmd;
	unsigned long rx_cmd_stamp;
	struct ixt_cmd *rx_data;
	struct ixt_cmd **slots;
	unsigned long *slot_map;
	u32 nr_slots;
	struct list_head unsol_cmds;
	u16 ttt_gen;
	unsigned long pool_wait;
	struct ixt_pool_waiter pool_waiter;
	unsigned int r2t_waiting;
	struct list_head dout_wait;
	unsigned long dataout_stamp;
	struct list_head dout_age;
	unsigned long dataout_since;
	struct list_head r2t_later;
	struct delayed_work watchdog;
	u32 nopin_ttt;
	u32 nopin_acked;
	unsigned long nopin_next;
	unsigned long nopin_deadline;
	atomic_t tx_pdus;
	atomic_t tx_bytes;
	atomic_t tx_sent;
	unsigned long tx_stamp;
	unsigned long drain_start;
	u32 drain_sent;
	u32 drain_pdus;
	struct sockaddr_storage local;
};

static_assert(offsetof(struct ixt_conn, head) == 0);
static_assert(__alignof__(struct ixt_conn) <= IXT_PRIV_ALIGN);

/* portal.c */
bool ixt_addr_equal(const struct sockaddr_storage *a,
		    const struct sockaddr_storage *b);
int ixt_portal_np_add(struct ixt_np *np, struct ixt_tpg *tpg);
void ixt_portal_np_del(struct ixt_np *np);
int ixt_portal_np_set_iser(struct ixt_np *np, struct ixt_tpg *tpg, bool on);
struct ixt_tpg *ixt_portal_find_tpg_get(struct ixt_portal *portal,
					const char *target_name);
void ixt_tpg_put(struct ixt_tpg *tpg);
void ixt_tpg_set_active(struct ixt_tpg *tpg, bool active);
void ixt_tpg_drain(struct ixt_tpg *tpg);
int ixt_portals_walk(int (*begin)(u32 nr_pairs, void *arg),
		     int (*fn)(struct ixt_np *np, struct ixt_tpg *tpg,
			       void *arg), void *arg);
void ixt_portal_get(struct ixt_portal *portal);
void ixt_portal_put(struct ixt_portal *portal);

/* conn.c */
int ixt_conn_module_init(void);
void ixt_conn_module_exit(void);
void ixt_conn_login_done(struct ixt_conn *conn);
void ixt_conn_reset(struct ixt_conn *conn);
void ixt_conn_set_login_deadline(struct ixt_conn *conn, unsigned int secs);
void ixt_conn_discovery_start(struct ixt_conn *conn);
struct ixt_tx_pdu *ixt_tx_pdu_alloc(u32 dlength, gfp_t gfp);
struct ixt_tx_pdu *ixt_conn_pdu_alloc(struct ixt_conn *conn, u8 opcode,
				      itt_t itt, u32 dlength);
void ixt_conn_queue(struct ixt_conn *conn, struct ixt_tx_pdu *pdu);
void ixt_conn_queue_resp(struct ixt_conn *conn, struct ixt_tx_pdu *pdu,
			 bool status);
void ixt_conns_close_tpg(struct ixt_tpg *tpg);
void ixt_conn_send_reject(struct ixt_conn *conn, const struct iscsi_hdr *hdr,
			  u8 reason);
void ixt_conn_fail(struct ixt_conn *conn, const struct iscsi_hdr *hdr,
		   u8 reason);
void ixt_conn_cmd_done(struct ixt_conn *conn);
void ixt_conn_timeout(struct ixt_conn *conn);
void ixt_conn_wait_cmds(struct ixt_conn *conn);
bool ixt_conn_wait_cmds_for(struct ixt_conn *conn, long timeout);
bool ixt_conn_tx_full(struct ixt_conn *conn);
/*
 * Seconds a PDU may wait in a send queue while the cache-line pool is
 * short: the length of a period of ixt_conn_tx_slow().
 */
#define IXT_CONN_DRAIN_SECS		10
bool ixt_conn_tx_slow(struct ixt_conn *conn);
bool ixt_conn_tx_stalled(struct ixt_conn *conn, unsigned long limit);

/* text.c */
int ixt_reqbuf_append(struct ixt_reqbuf *req, const void *data, u32 len);
void ixt_reqbuf_free(struct ixt_reqbuf *req);
int ixt_rsp_alloc(struct ixt_text_buf *rsp, u32 size);
void ixt_rsp_free(struct ixt_text_buf *rsp);

/* login.c */
int ixt_login_init(struct ixt_conn *conn);
void ixt_login_free(struct ixt_conn *conn);
void ixt_login_rx(struct ixt_conn *conn, struct ixt_rx_pdu *pdu);

/* watchdog.c */
void ixt_watchdog_init(struct ixt_conn *conn);
void ixt_watchdog_start(struct ixt_conn *conn);
void ixt_watchdog_stop(struct ixt_conn *conn);
void ixt_watchdog_nop_out(struct ixt_conn *conn, u32 ttt);

/* discovery.c */
void ixt_text_rx(struct ixt_conn *conn, struct ixt_rx_pdu *pdu);

/* dataout.c */
bool ixt_dataout_overdue(struct ixt_conn *conn, unsigned long limit);
bool ixt_dataout_slow(struct ixt_conn *conn);
void ixt_dataout_abort_marked(struct ixt_conn *conn);

/**
 * ixt_wait_woken() - wait_event_timeout() for a condition that sleeps
 * @wq: the wait queue its changes are woken on.
 * @cond: the condition; evaluated in %TASK_RUNNING, so it may take a
 *	mutex (wait_event_timeout() evaluates it with the task already
 *	set to sleep, where blocking is a bug).
 * @timeout: jiffies to wait at most.
 *
 * A wake_up() on @wq between an evaluation and the sleep is not lost
 * (wait_woken()).
 *
 * Context: Process context; sleeps.
 * Return: whether @cond held at last.
 */
#define ixt_wait_woken(wq, cond, timeout)				\
({									\
	DEFINE_WAIT_FUNC(__ixt_wait, woken_wake_function);		\
	struct wait_queue_head *__ixt_wq = &(wq);			\
	long __ixt_left = (timeout);					\
	bool __ixt_done;						\
									\
	add_wait_queue(__ixt_wq, &__ixt_wait);				\
	for (;;) {							\
		__ixt_done = (cond);					\
		if (__ixt_done || !__ixt_left)				\
			break;						\
		__ixt_left = wait_woken(&__ixt_wait,			\
					TASK_UNINTERRUPTIBLE,		\
					__ixt_left);			\
	}								\
	remove_wait_queue(__ixt_wq, &__ixt_wait);			\
	__ixt_done;							\
})

#endif /* _ISCSI_XT_CONN_H */
