/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iscsi_xt: sessions, their full feature phase receive path, CmdSN order
 * and task management; the core's own (a transport sees transport.h
 * only).
 *
 * Lifetime: a &struct ixt_sess lives on ixt_sess_list while its
 * connection is in full feature phase, with a kref for each finder and
 * one for the connection that owns it.
 */
#ifndef _ISCSI_XT_SESSION_H
#define _ISCSI_XT_SESSION_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <iscsi_xt/holes.h>
#include <iscsi_xt/params.h>
#include <iscsi_xt/window.h>

#include "iscsi_xt.h"
#include "transport.h"

struct ixt_initiator;
struct se_cmd;
struct se_node_acl;
struct se_session;

/**
 * struct ixt_sess - an iSCSI session, of one or more connections
 * @ref: kref; one per connection, one per finder.
 * @entry: link in ixt_sess_list, under ixt_sess_mutex, while the
 *	session can be found (from full feature phase until its last
 *	connection goes).
 * @ending_entry: link in ixt_sess_ending, under ixt_sess_mutex, from
 *	when its last connection goes until its target core session is
 *	removed: a reinstating login waits for it too.
 * @tpg: the TPG, %NULL for a discovery session; the connection holds
 *	the reference. Compared, never dereferenced, once the connection
 *	is gone.
 * @se_sess: the target core session, %NULL for a discovery session.
 * @conns: its connections in full feature phase, under ixt_sess_mutex.
 * @nr_conns: number of @conns, under ixt_sess_mutex.
 * @rx_lock: serialises the full feature receive paths of the
 *	connections: the CmdSN queue is the session's, and a request held
 *	by it is delivered by whichever connection closes its hole.
 * @discovery: SessionType=Discovery.
 * @isid: ISID the initiator chose.
 * @tsih: TSIH the target assigned, never 0.
 * @initiator: InitiatorName.
 * @params: values negotiated at login.
 * @exp_cmd_sn: ExpCmdSN: written by the receive path, read anywhere
 *	with READ_ONCE().
 * @cmdsn_q: puts requests in CmdSN order (cmdsn.c); under @rx_lock.
 * @cmdsn_slots: the ring of @cmdsn_q, as big as the window; %NULL until
 *	the first request of the full feature phase.
 * @ini: the entry of its InitiatorName (initiator.h), whose shares its
 *	commands count in, for a normal session; set when the session gets
 *	its target core session, held until the session is freed.
 * @held_bytes: the data of the requests other than SCSI Commands held in
 *	@cmdsn_q (cmdsn.c); under @rx_lock.
 * @hole_stamp: jiffies when @cmdsn_q last began to hold requests, or
 *	ExpCmdSN last moved while it held some; written under @rx_lock,
 *	read by the watchdog with READ_ONCE().
 * @cmdsn_depth: the ACL's queue depth: the largest command window, and
 *	the size of @cmdsn_slots.
 * @max_cmd_sn: MaxCmdSN advertised so far; never moves back. Written
 *	under the connection's sn_lock, read anywhere with READ_ONCE().
 * @win_held: the session's SCSI commands that have no response built
 *	yet, non-immediate ones below ExpCmdSN and immediate ones: the part
 *	of the window in use (ixt_window_max_cmd_sn(),
 *	ixt_sess_window_full()). Taken when a command's turn comes, given
 *	back when its response is built or it goes without one.
 * @win_lock: protects @window.
 * @window: the command window, adapted to the backend (window.h).
 * @win_cur: @window.cur, published under @win_lock for lockless readers.
 * @pool_use: the cache lines its commands hold (low 32 bits) and how
 *	many commands hold them (high 32 bits), added and taken away
 *	together (%IXT_POOL_USE()): what the pool pressure sizes its window
 *	by (pressure.c).
 * @deferred: its commands that wait in a work item to reach the target
 *	core, whose backend may block (submit.c).
 * @deferred_ordered: those of @deferred that are not SIMPLE or HEAD OF
 *	QUEUE.
 * @gone: completed once the session is off ixt_sess_list and its
 *	target core session removed, for session reinstatement.
 * @stats: its counters, shown in its ACL's fabric_statistics/
 *	iscsi_sess_stats/ while it is the ACL's latest session.
 */
struct ixt_sess {
	struct kref ref;
	struct list_head entry;
	struct list_head ending_entry;
	struct ixt_tpg *tpg;
	struct se_session *se_sess;
	struct list_head conns;
	u32 nr_conns;
	struct mutex rx_lock;	/* receive paths of the connections */
	bool discovery;
	u8 isid[6];
	u16 tsih;
	char initiator[ISCSI_NAME_LEN];
	struct ixt_params params;
	u32 exp_cmd_sn;
	struct ixt_snq cmdsn_q;
	struct ixt_snq_node **cmdsn_slots;
	struct ixt_initiator *ini;
	u32 held_bytes;
	unsigned long hole_stamp;
	u32 cmdsn_depth;
	u32 max_cmd_sn;
	atomic_t win_held;
	spinlock_t win_lock;	/* protects window */
	struct ixt_window window;
	u32 win_cur;
	atomic64_t pool_use;
	atomic_t deferred;
	atomic_t deferred_ordered;
	struct completion gone;
	struct ixt_sess_stats stats;
};

/* session.c */
struct ixt_sess *ixt_sess_alloc(const char *initiator, const u8 *isid);
void ixt_sess_put(struct ixt_sess *sess);
int ixt_sess_register(struct ixt_sess *sess, struct ixt_conn *conn);
void ixt_sess_conn_gone(struct ixt_conn *conn);
bool ixt_sess_logout_last(struct ixt_conn *conn, struct ixt_tx_pdu *rsp);
void ixt_sess_logout_cancel(struct ixt_conn *conn);
void ixt_sess_logout_init(struct ixt_conn *conn);
void ixt_sess_reinstate(struct ixt_tpg *tpg, const char *initiator,
			const u8 *isid);
struct ixt_sess *ixt_sess_find_get(struct ixt_tpg *tpg, const char *initiator,
				   const u8 *isid, u16 tsih);
int ixt_sess_join(struct ixt_sess *sess, struct ixt_conn *conn);
void ixt_sess_each_conn(struct ixt_sess *sess,
			void (*fn)(struct ixt_conn *conn, void *arg), void *arg);
void ixt_sess_window_start(struct ixt_sess *sess, u32 depth);
void ixt_sess_window_limit(struct ixt_sess *sess, u32 depth);
u32 ixt_sess_max_cmd_sn(struct ixt_sess *sess, u32 exp_cmd_sn);

/**
 * ixt_sess_window_full() - whether an immediate command finds no place
 * @sess: the session.
 *
 * An immediate command takes no CmdSN, so MaxCmdSN cannot hold it back:
 * it takes a place of the window as it arrives, and finds none when the
 * window's places are all held (the window capped by the pool's
 * pressure too).
 *
 * Context: Any context.
 * Return: true when the command is to be answered TASK SET FULL.
 */
static inline bool ixt_sess_window_full(struct ixt_sess *sess)
{
	return atomic_read(&sess->win_held) >= READ_ONCE(sess->win_cur);
}

bool ixt_sess_window_reopened(struct ixt_sess *sess);
void ixt_sess_cmd_done(struct ixt_sess *sess, u64 rt_ns);
bool ixt_sess_pool_caps(u32 pool);
void ixt_sess_debugfs_init(void);
void ixt_tpg_logout_sessions(struct ixt_tpg *tpg);
void ixt_close_session(struct se_session *se_sess);
ssize_t ixt_sess_info_show(struct se_node_acl *se_nacl, char *page);

/* ffp.c */
int ixt_sess_rx_hdr(struct ixt_conn *conn, struct ixt_rx_pdu *pdu);
void ixt_sess_rx_ffp(struct ixt_conn *conn, struct ixt_rx_pdu *pdu);
void ixt_sess_deliver(struct ixt_conn *conn, struct ixt_rx_pdu *pdu);

/**
 * struct ixt_tmf_scope - what a task management function aborts
 * @lun: the LUN it names.
 * @type: the target core's function, TMR_*: ABORT TASK or LOGICAL UNIT
 *	RESET, the ones it carries out.
 * @rtt: for ABORT TASK, the Referenced Task Tag.
 * @ref_cmd_sn: for ABORT TASK, RefCmdSN: the CmdSN of the task.
 * @cmd_sn: the function's own CmdSN; it affects the tasks before it.
 *
 * Built by tmf.c for the parts of the function the fabric carries out:
 * requests still in the CmdSN queue (cmdsn.c), writes waiting for
 * Data-Out.
 */
struct ixt_tmf_scope {
	u64 lun;
	u8 type;
	itt_t rtt;
	u32 ref_cmd_sn;
	u32 cmd_sn;
};

/* cmdsn.c */
void ixt_cmdsn_rx(struct ixt_conn *conn, struct ixt_rx_pdu *pdu);
bool ixt_cmdsn_tmf(struct ixt_conn *conn, const struct ixt_tmf_scope *scope);
void ixt_cmdsn_conn_gone(struct ixt_conn *conn);
int ixt_cmdsn_hole_take(struct ixt_conn *conn, struct ixt_cmd *cmd,
			const struct iscsi_hdr *hdr, u32 len);
void ixt_cmdsn_hole_give(struct ixt_cmd *cmd);
void ixt_cmdsn_sess_gone(struct ixt_sess *sess);

/* tmf.c */
void ixt_tmf_rx(struct ixt_conn *conn, struct ixt_rx_pdu *pdu);
void ixt_queue_tm_rsp(struct se_cmd *se_cmd);
void ixt_tmf_aborted(struct ixt_cmd *cmd);

/*
 * pressure.c. IXT_POOL_USE(n): what a command holding n lines adds to its
 * session's pool_use.
 */
#define IXT_POOL_USE(n)		(BIT_ULL(32) | (u32)(n))
void ixt_pressure_short(void);
void ixt_pressure_exit(void);

#endif /* _ISCSI_XT_SESSION_H */
