// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: sessions: registration, joins, reinstatement, teardown, the
 * command window, the ACL info file and the debugfs sessions file.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <linux/sysfs.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/unaligned.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "cmd.h"
#include "conn.h"
#include "fault.h"
#include "initiator.h"
#include "session.h"

/*
 * Protects ixt_sess_list, ixt_sess_ending, ixt_last_tsih and &struct
 * ixt_sess.conn. Taken before the target core's locks, never inside them.
 */
static DEFINE_MUTEX(ixt_sess_mutex);
static LIST_HEAD(ixt_sess_list);
/*
 * Sessions whose last connection went, until their target core session
 * is removed. That removal releases what the session holds in the core
 * (its SPC-2 reservations): a login of the same initiator and ISID must
 * not complete before it (ixt_sess_reinstate()).
 */
static LIST_HEAD(ixt_sess_ending);
static u16 ixt_last_tsih;

/* Woken when a session leaves ixt_sess_list. */
static DECLARE_WAIT_QUEUE_HEAD(ixt_sess_wq);

static unsigned int window_goal_us = 10000;
module_param(window_goal_us, uint, 0644);
MODULE_PARM_DESC(window_goal_us,
		 "Backend response time (us) each session's command window adapts to stay under; 0 keeps the window at the ACL's queue depth, as LIO (default 10000)");

/*
 * Normal sessions of one initiator (one InitiatorName, with its ACLs or
 * demo mode's) over every target and TPG of the module: each has its
 * connections, their buffers and its share of the cache-line pool.
 * open-iscsi opens one per interface and portal of a target (multipath's
 * paths); a login past the bound is refused with "out of resources",
 * and retried.
 */
static unsigned int sessions_per_initiator = 64;
module_param(sessions_per_initiator, uint, 0644);
MODULE_PARM_DESC(sessions_per_initiator,
		 "Normal sessions one initiator (InitiatorName) may have over all targets and TPGs; 0 for no bound, as LIO (default 64)");

/*
 * Discovery sessions at once, over all portals. A discovery session needs
 * no ACL and, by default, no CHAP; it holds up to about 150 KiB (its
 * SendTargets response and request text) and leaves the bound on
 * connections in login once it is in full feature phase. Initiators log
 * out of one as soon as they have the targets; a login past the bound is
 * refused with "out of resources".
 */
#define IXT_MAX_DISCOVERY_SESSIONS	64

static void ixt_sess_discovery_evict(struct ixt_fair_slot *slot, u32 held);

/* At the bound, a newcomer may take the place of another host's (fair.c). */
static struct ixt_fair_bound ixt_discovery_bound = {
	.lock = __SPIN_LOCK_UNLOCKED(ixt_discovery_bound.lock),
	.slots = LIST_HEAD_INIT(ixt_discovery_bound.slots),
	.evict = ixt_sess_discovery_evict,
};

/* Seconds an initiator is given to log out when the target asks it to. */
#define IXT_LOGOUT_REQUEST_SECS		2

/*
 * Seconds a reinstating login waits for the commands of the session it
 * replaces: long enough for any working backend, short enough to log in
 * again while a stuck one holds them.
 */
#define IXT_REINSTATE_WAIT_SECS		5

/**
 * ixt_sess_alloc() - allocate a session for a login about to succeed
 * @initiator: InitiatorName.
 * @isid: the ISID, 6 bytes.
 *
 * Context: Process context.
 * Return: the session with one reference, or %NULL.
 */
struct ixt_sess *ixt_sess_alloc(const char *initiator, const u8 *isid)
{
	struct ixt_sess *sess;

	sess = ixt_fault(IXT_FAULT_SESS) ? NULL :
	       kzalloc(sizeof(*sess), GFP_KERNEL);
	if (!sess)
		return NULL;
	kref_init(&sess->ref);
	INIT_LIST_HEAD(&sess->entry);
	INIT_LIST_HEAD(&sess->ending_entry);
	INIT_LIST_HEAD(&sess->conns);
	mutex_init(&sess->rx_lock);
	spin_lock_init(&sess->win_lock);
	init_completion(&sess->gone);
	strscpy(sess->initiator, initiator, sizeof(sess->initiator));
	memcpy(sess->isid, isid, sizeof(sess->isid));
	return sess;
}

static void ixt_sess_release(struct kref *ref)
{
	struct ixt_sess *sess = container_of(ref, struct ixt_sess, ref);

	if (sess->ini)
		ixt_initiator_put(sess->ini);
	mutex_destroy(&sess->rx_lock);
	kfree(sess);
}

/**
 * ixt_sess_put() - drop a reference on a session
 * @sess: the session.
 *
 * Context: Process context.
 */
void ixt_sess_put(struct ixt_sess *sess)
{
	kref_put(&sess->ref, ixt_sess_release);
}

static bool ixt_tsih_in_use(u16 tsih)
{
	struct ixt_sess *sess;

	lockdep_assert_held(&ixt_sess_mutex);
	list_for_each_entry(sess, &ixt_sess_list, entry)
		if (sess->tsih == tsih)
			return true;
	return false;
}

static u16 ixt_tsih_alloc(void)
{
	lockdep_assert_held(&ixt_sess_mutex);
	do {
		ixt_last_tsih++;
	} while (!ixt_last_tsih || ixt_tsih_in_use(ixt_last_tsih));
	return ixt_last_tsih;
}

/*
 * Shows the session's parameters and counters in its ACL's param/ and
 * fabric_statistics/iscsi_sess_stats/, or takes them away when they are
 * still the ones shown: the ACL shows its latest session, as LIO's does.
 */
static void ixt_sess_publish(struct ixt_sess *sess, bool on)
{
	struct se_node_acl *se_nacl;
	struct ixt_node_acl *nacl;

	if (!sess->se_sess)
		return;
	se_nacl = sess->se_sess->se_node_acl;
	nacl = to_ixt_nacl(se_nacl);
	spin_lock_bh(&se_nacl->nacl_sess_lock);
	if (on) {
		nacl->sess_params = &sess->params;
		nacl->sess_stats = &sess->stats;
	} else if (nacl->sess_stats == &sess->stats) {
		nacl->sess_params = NULL;
		nacl->sess_stats = NULL;
	}
	spin_unlock_bh(&se_nacl->nacl_sess_lock);
}

static int ixt_sess_setup_cb(struct se_portal_group *se_tpg,
			     struct se_session *se_sess, void *priv)
{
	struct ixt_sess *sess = priv;

	/* Persistent reservations name iSCSI initiator ports by ISID. */
	se_sess->sess_bin_isid = get_unaligned_be48(sess->isid);
	return 0;
}

/*
 * The bound on discovery sessions is full and another host wants one:
 * this session's host holds the most of them, @held.
 */
static void ixt_sess_discovery_evict(struct ixt_fair_slot *slot, u32 held)
{
	struct ixt_conn *conn = container_of(slot, struct ixt_conn,
					     discovery_slot);

	pr_warn_ratelimited("%pISpc: discovery session reset: its host has %u of the %u discovery sessions, and another host asks for one\n",
			    &conn->head.peer, held, IXT_MAX_DISCOVERY_SESSIONS);
	ixt_conn_reset(conn);
}

/**
 * ixt_sess_register() - make a session live at the end of its login
 * @sess: the session, with @tpg set for a normal session; the
 *	caller's reference passes to @conn.
 * @conn: the leading connection.
 *
 * Counts a normal session in its initiator's entry (initiator.c), which
 * the session holds from then until it is freed, and creates its target
 * core session (the ACL check happens there again: an ACL removed
 * meanwhile fails the login); assigns the TSIH, and makes the session
 * findable.
 *
 * Context: Process context (the receive path); takes ixt_sess_mutex.
 * Return: 0; -EACCES when no ACL admits the initiator any more; -EBUSY
 * when %IXT_MAX_DISCOVERY_SESSIONS discovery sessions are open and no
 * other host holds two more of them than the initiator's (which would
 * give one up), or the initiator has sessions_per_initiator normal
 * sessions (over every TPG); -ENOMEM. On error the caller still owns @sess.
 */
int ixt_sess_register(struct ixt_sess *sess, struct ixt_conn *conn)
{
	unsigned int cap = READ_ONCE(sessions_per_initiator);
	struct se_session *se_sess;

	if (sess->discovery) {
		if (ixt_fair_take(&ixt_discovery_bound, &conn->discovery_slot,
				  ixt_fair_host(&conn->head.peer),
				  IXT_MAX_DISCOVERY_SESSIONS)) {
			pr_warn_ratelimited("%pISpc: discovery login refused: %u discovery sessions open, its host's the most\n",
					    &conn->head.peer,
					    IXT_MAX_DISCOVERY_SESSIONS);
			return -EBUSY;
		}
		ixt_fair_arm(&ixt_discovery_bound, &conn->discovery_slot);
	} else {
		sess->ini = ixt_initiator_get(sess->initiator);
		if (!sess->ini)
			return -ENOMEM;
		if (atomic_inc_return(&sess->ini->nr_sessions) > cap && cap) {
			atomic_dec(&sess->ini->nr_sessions);
			pr_warn_ratelimited("%s: login from %pISpc refused: %u sessions already (sessions_per_initiator)\n",
					    sess->initiator, &conn->head.peer,
					    cap);
			return -EBUSY;
		}
		se_sess = ixt_fault(IXT_FAULT_SE_SESS) ? ERR_PTR(-ENOMEM) :
			  target_setup_session(&sess->tpg->se_tpg, 0, 0,
					       TARGET_PROT_NORMAL,
					       sess->initiator, sess,
					       ixt_sess_setup_cb);
		if (IS_ERR(se_sess)) {
			atomic_dec(&sess->ini->nr_sessions);
			return PTR_ERR(se_sess);
		}
		sess->se_sess = se_sess;
		atomic_inc(&sess->tpg->tiqn->nr_sessions);
	}

	mutex_lock(&ixt_sess_mutex);
	sess->tsih = ixt_tsih_alloc();
	sess->stats.index = sess->tsih;
	sess->stats.discovery = sess->discovery;
	ixt_sess_publish(sess, true);
	list_add_tail(&conn->sess_entry, &sess->conns);
	sess->nr_conns = 1;
	list_add_tail(&sess->entry, &ixt_sess_list);
	mutex_unlock(&ixt_sess_mutex);
	conn->sess = sess;
	return 0;
}

/**
 * ixt_sess_find_get() - find the session a connection wants to join
 * @tpg: the TPG of the login.
 * @initiator: its InitiatorName.
 * @isid: its ISID.
 * @tsih: its TSIH, not 0.
 *
 * Context: Process context; takes ixt_sess_mutex.
 * Return: the normal session, with a reference, or %NULL.
 */
struct ixt_sess *ixt_sess_find_get(struct ixt_tpg *tpg, const char *initiator,
				   const u8 *isid, u16 tsih)
{
	struct ixt_sess *sess;

	mutex_lock(&ixt_sess_mutex);
	list_for_each_entry(sess, &ixt_sess_list, entry) {
		if (sess->tsih == tsih && sess->tpg == tpg &&
		    !memcmp(sess->isid, isid, sizeof(sess->isid)) &&
		    !strcmp(sess->initiator, initiator)) {
			kref_get(&sess->ref);
			mutex_unlock(&ixt_sess_mutex);
			return sess;
		}
	}
	mutex_unlock(&ixt_sess_mutex);
	return NULL;
}

static struct ixt_conn *ixt_sess_find_cid(struct ixt_sess *sess, u16 cid)
{
	struct ixt_conn *conn;

	lockdep_assert_held(&ixt_sess_mutex);
	list_for_each_entry(conn, &sess->conns, sess_entry)
		if (conn->cid == cid)
			return conn;
	return NULL;
}

static bool ixt_sess_has_cid(struct ixt_sess *sess, u16 cid)
{
	bool found;

	mutex_lock(&ixt_sess_mutex);
	found = ixt_sess_find_cid(sess, cid);
	mutex_unlock(&ixt_sess_mutex);
	return found;
}

/**
 * ixt_sess_join() - add a connection to a session at the end of its login
 * @sess: the session, found by ixt_sess_find_get().
 * @conn: the connection, its CID set; it takes a reference on @sess.
 *
 * A connection with the same CID is replaced (connection reinstatement,
 * RFC 7143 section 6.3.4): it is closed, its tasks end with it, and this
 * waits up to %IXT_REINSTATE_WAIT_SECS for it to leave.
 *
 * Context: Process context (the receive path); takes ixt_sess_mutex.
 * Return: 0; -ENOENT when the session ended meanwhile; -EMLINK when it
 * has MaxConnections connections already; -EBUSY when the connection to
 * replace does not go.
 */
int ixt_sess_join(struct ixt_sess *sess, struct ixt_conn *conn)
{
	struct ixt_conn *old;

	for (;;) {
		mutex_lock(&ixt_sess_mutex);
		if (list_empty(&sess->entry)) {
			mutex_unlock(&ixt_sess_mutex);
			return -ENOENT;
		}
		old = ixt_sess_find_cid(sess, conn->cid);
		if (!old)
			break;
		set_bit(IXT_CONN_F_REPLACED, &old->flags);
		ixt_conn_close(old);
		mutex_unlock(&ixt_sess_mutex);
		pr_info_ratelimited("%s: reinstating connection CID %u of session TSIH %u\n",
				    sess->initiator, conn->cid, sess->tsih);
		if (!ixt_wait_woken(ixt_sess_wq,
				    !ixt_sess_has_cid(sess, conn->cid),
				    IXT_REINSTATE_WAIT_SECS * HZ))
			return -EBUSY;
	}
	if (sess->nr_conns >= sess->params.max_connections) {
		mutex_unlock(&ixt_sess_mutex);
		return -EMLINK;
	}
	kref_get(&sess->ref);
	list_add_tail(&conn->sess_entry, &sess->conns);
	sess->nr_conns++;
	conn->sess = sess;
	mutex_unlock(&ixt_sess_mutex);
	return 0;
}

/* Closes every connection of a session. */
static void ixt_sess_close(struct ixt_sess *sess)
{
	struct ixt_conn *conn;

	lockdep_assert_held(&ixt_sess_mutex);
	list_for_each_entry(conn, &sess->conns, sess_entry)
		ixt_conn_close(conn);
}

/*
 * @conn is the last connection of @sess: the requests still held are
 * dropped, the writes of the connection waiting for Data-Out ended, the
 * session's commands waited for and its target core session removed,
 * which releases its SPC-2 reservations. Runs once @sess has left
 * ixt_sess_list, from the release work of @conn or from its logout
 * work, which the release work waits for: never twice at once.
 */
static void ixt_sess_core_end(struct ixt_sess *sess, struct ixt_conn *conn)
{
	mutex_lock(&sess->rx_lock);
	ixt_cmdsn_sess_gone(sess);
	mutex_unlock(&sess->rx_lock);
	if (!sess->se_sess)
		return;
	target_stop_session(sess->se_sess);
	mutex_lock(&sess->rx_lock);
	ixt_cmd_conn_gone(conn);
	mutex_unlock(&sess->rx_lock);
	target_wait_for_sess_cmds(sess->se_sess);
	ixt_sess_publish(sess, false);
	atomic_dec(&sess->ini->nr_sessions);
	target_remove_session(sess->se_sess);
	sess->se_sess = NULL;
	atomic_dec(&conn->tpg->tiqn->nr_sessions);
	ixt_stat_logout(conn->tpg->tiqn, conn->logged_out);
}

/*
 * The last connection of a session went: its target core session is
 * removed if its Logout did not do it already, which lets an ACL
 * deletion or a reinstating login waiting for it go on.
 */
static void ixt_sess_end(struct ixt_sess *sess, struct ixt_conn *conn)
{
	ixt_sess_core_end(sess, conn);
	/* Apart, so that discovery sessions cannot crowd normal ones out. */
	if (sess->discovery) {
		ixt_fair_put(&ixt_discovery_bound, &conn->discovery_slot);
		pr_info_ratelimited("discovery session of %s, TSIH %u, closed\n",
				    sess->initiator, sess->tsih);
	} else {
		pr_info_ratelimited("normal session of %s, TSIH %u, closed\n",
				    sess->initiator, sess->tsih);
	}
	mutex_lock(&ixt_sess_mutex);
	list_del_init(&sess->ending_entry);
	mutex_unlock(&ixt_sess_mutex);
	complete_all(&sess->gone);
}

/**
 * ixt_sess_conn_gone() - a connection of a session is closing
 * @conn: the connection, whose I/O has stopped.
 *
 * The connection leaves its session. The last one to leave ends the
 * session. At ErrorRecoveryLevel 0 a connection lost other than by a
 * Logout, or with requests still held behind a CmdSN hole, fails the
 * whole session: the other connections are closed too. A connection
 * that leaves a session going on ends its writes waiting for Data-Out.
 * Its requests held behind a CmdSN hole are dropped at once: the other
 * connections outlive it.
 * Either way this returns once every command of the connection is gone:
 * their responses would use it.
 *
 * Context: Process context (the connection's release work).
 */
void ixt_sess_conn_gone(struct ixt_conn *conn)
{
	struct ixt_sess *sess = conn->sess;
	bool last, fail;

	if (!sess)
		return;
	mutex_lock(&sess->rx_lock);
	fail = (!conn->logged_out &&
		!test_bit(IXT_CONN_F_REPLACED, &conn->flags)) ||
	       conn->cmdsn_held;
	ixt_cmdsn_conn_gone(conn);
	mutex_unlock(&sess->rx_lock);

	mutex_lock(&ixt_sess_mutex);
	list_del_init(&conn->sess_entry);
	last = !--sess->nr_conns;
	if (last) {
		/* Its Logout may have moved it already. */
		list_del_init(&sess->entry);
		if (list_empty(&sess->ending_entry))
			list_add_tail(&sess->ending_entry, &ixt_sess_ending);
	} else if (fail) {
		ixt_sess_close(sess);
	}
	mutex_unlock(&ixt_sess_mutex);
	wake_up_all(&ixt_sess_wq);

	if (last) {
		ixt_sess_end(sess, conn);
	} else {
		mutex_lock(&sess->rx_lock);
		ixt_cmd_conn_gone(conn);
		mutex_unlock(&sess->rx_lock);
	}
	ixt_conn_wait_cmds(conn);
	conn->sess = NULL;
	ixt_sess_put(sess);
}

/*
 * A Logout closes the session of its connection, the only one: the
 * watchdog stops, the writes waiting for Data-Out end, the commands are waited for, up to
 * %IXT_REINSTATE_WAIT_SECS, their responses going out meanwhile, and the
 * target core session goes; then the Logout Response. A backend that
 * holds a command longer leaves the target core session to the release
 * work, as before a Logout.
 */
static void ixt_sess_logout_work(struct work_struct *work)
{
	struct ixt_conn *conn = container_of(work, struct ixt_conn,
					     logout_work);
	struct ixt_tx_pdu *rsp = conn->logout_rsp;
	struct ixt_sess *sess = conn->sess;

	/* It reads the session's ACL, which goes with the core session. */
	ixt_watchdog_stop(conn);
	mutex_lock(&sess->rx_lock);
	ixt_cmdsn_sess_gone(sess);
	ixt_cmd_conn_gone(conn);
	mutex_unlock(&sess->rx_lock);
	if (ixt_conn_wait_cmds_for(conn, IXT_REINSTATE_WAIT_SECS * HZ))
		ixt_sess_core_end(sess, conn);
	else
		pr_warn_ratelimited("%s: commands of session TSIH %u still in the backend at its Logout\n",
				    sess->initiator, sess->tsih);
	conn->logout_rsp = NULL;
	ixt_conn_queue_resp(conn, rsp, true);
}

/**
 * ixt_sess_logout_last() - end a session before answering its Logout
 * @conn: the connection a Logout that closes the session came on; it
 *	reads nothing more (%IXT_CONN_LOGOUT).
 * @rsp: the Logout Response, which closes @conn once sent.
 *
 * A session's SPC-2 reservations are released when its target core
 * session is removed. Once the initiator has the Logout Response, another
 * initiator's RESERVE must not meet them, nor may a login of the same
 * initiator with another ISID, which ixt_sess_reinstate() does not wait
 * for. So when @conn is the session's only connection, the session
 * leaves ixt_sess_list (no connection can join it, no login finds it but
 * as ending), and @conn's logout work removes the target core session,
 * its commands done and their responses queued, before it queues @rsp.
 * A session with other connections still open answers at once and ends
 * with its last connection, as one that loses its connection does.
 *
 * Context: Process context (the receive path), under the session's
 * rx_lock; takes ixt_sess_mutex.
 * Return: true when the logout work owns @rsp; false when the caller
 * queues it.
 */
bool ixt_sess_logout_last(struct ixt_conn *conn, struct ixt_tx_pdu *rsp)
{
	struct ixt_sess *sess = conn->sess;
	bool alone;

	mutex_lock(&ixt_sess_mutex);
	alone = sess->nr_conns == 1 && !list_empty(&sess->entry);
	if (alone) {
		list_del_init(&sess->entry);
		list_add_tail(&sess->ending_entry, &ixt_sess_ending);
		conn->logout_rsp = rsp;
		queue_work(ixt_wq, &conn->logout_work);
	}
	mutex_unlock(&ixt_sess_mutex);
	if (alone)
		wake_up_all(&ixt_sess_wq);
	return alone;
}

/**
 * ixt_sess_logout_cancel() - the connection goes before its logout work
 * @conn: the connection, its transport shut down.
 *
 * Waits for the logout work if it runs; frees the Logout Response it
 * did not get to send.
 *
 * Context: Process context (the connection's release work).
 */
void ixt_sess_logout_cancel(struct ixt_conn *conn)
{
	cancel_work_sync(&conn->logout_work);
	if (conn->logout_rsp) {
		ixt_tx_pdu_free(conn->logout_rsp);
		conn->logout_rsp = NULL;
	}
}

/**
 * ixt_sess_logout_init() - set up a connection's logout work
 * @conn: the connection, being set up.
 *
 * Context: Any context.
 */
void ixt_sess_logout_init(struct ixt_conn *conn)
{
	INIT_WORK(&conn->logout_work, ixt_sess_logout_work);
}

static bool ixt_sess_is_nexus(struct ixt_sess *sess, struct ixt_tpg *tpg,
			      const char *initiator, const u8 *isid)
{
	return sess->tpg == tpg && !memcmp(sess->isid, isid, 6) &&
	       !strcmp(sess->initiator, initiator);
}

/**
 * ixt_sess_reinstate() - end the session a new leading login replaces
 * @tpg: the TPG of the login.
 * @initiator: its InitiatorName.
 * @isid: its ISID.
 *
 * At ErrorRecoveryLevel 0 a login with the InitiatorName and ISID of a
 * live session, and TSIH 0, replaces that session (RFC 7143 section
 * 6.3.5): the old session is closed, and this waits until its commands
 * are done and its target core session removed, or
 * %IXT_REINSTATE_WAIT_SECS, whichever comes first: its connection is
 * gone by then, and a stuck backend must not keep the initiator out.
 * A session of that initiator and ISID already ending (logged out, or
 * its connection lost) is waited for the same way: the new session must
 * not find the old one's SPC-2 reservations still held.
 *
 * Context: Process context, may sleep; takes ixt_sess_mutex.
 */
void ixt_sess_reinstate(struct ixt_tpg *tpg, const char *initiator,
			const u8 *isid)
{
	struct ixt_sess *sess, *old = NULL;

	mutex_lock(&ixt_sess_mutex);
	list_for_each_entry(sess, &ixt_sess_list, entry) {
		if (ixt_sess_is_nexus(sess, tpg, initiator, isid)) {
			old = sess;
			ixt_sess_close(old);
			break;
		}
	}
	if (!old) {
		list_for_each_entry(sess, &ixt_sess_ending, ending_entry) {
			if (ixt_sess_is_nexus(sess, tpg, initiator, isid)) {
				old = sess;
				break;
			}
		}
	}
	if (old)
		kref_get(&old->ref);
	mutex_unlock(&ixt_sess_mutex);
	if (!old)
		return;
	pr_info_ratelimited("%s: reinstating session TSIH %u\n", initiator,
			    old->tsih);
	if (!wait_for_completion_timeout(&old->gone,
					 IXT_REINSTATE_WAIT_SECS * HZ))
		pr_warn_ratelimited("%s: commands of session TSIH %u still in the backend; the new session goes ahead\n",
				    initiator, old->tsih);
	ixt_sess_put(old);
}

/*
 * Asks the initiator to log a connection out (RFC 7143 11.9.1): the
 * Async Message goes on that connection.
 */
static void ixt_conn_request_logout(struct ixt_conn *conn)
{
	struct iscsi_async *hdr;
	struct ixt_tx_pdu *pdu;

	lockdep_assert_held(&ixt_sess_mutex);
	if (READ_ONCE(conn->state) != IXT_CONN_FULL_FEATURE)
		return;
	pdu = ixt_conn_pdu_alloc(conn, ISCSI_OP_ASYNC_EVENT, RESERVED_ITT, 0);
	if (!pdu)
		return;
	hdr = (struct iscsi_async *)&pdu->hdr;
	hdr->async_event = ISCSI_ASYNC_MSG_REQUEST_LOGOUT;
	hdr->param3 = cpu_to_be16(IXT_LOGOUT_REQUEST_SECS);
	ixt_conn_queue_resp(conn, pdu, true);
}

static bool ixt_tpg_has_sessions(struct ixt_tpg *tpg)
{
	struct ixt_sess *sess;
	bool found = false;

	mutex_lock(&ixt_sess_mutex);
	list_for_each_entry(sess, &ixt_sess_list, entry) {
		if (sess->tpg == tpg) {
			found = true;
			break;
		}
	}
	mutex_unlock(&ixt_sess_mutex);
	return found;
}

/*
 * Whether a session of @tpg that logged out is still answering its
 * Logout: its logout work waits for the commands, then sends the Logout
 * Response, which closes the connection, and the connection leaves the
 * session. logged_out is set before ixt_sess_logout_last() moves the
 * session to ixt_sess_ending under ixt_sess_mutex, which this takes.
 */
static bool ixt_tpg_logging_out(struct ixt_tpg *tpg)
{
	struct ixt_conn *conn;
	struct ixt_sess *sess;
	bool found = false;

	mutex_lock(&ixt_sess_mutex);
	list_for_each_entry(sess, &ixt_sess_ending, ending_entry)
		if (sess->tpg == tpg)
			list_for_each_entry(conn, &sess->conns, sess_entry)
				found |= conn->logged_out;
	mutex_unlock(&ixt_sess_mutex);
	return found;
}

/**
 * ixt_tpg_logout_sessions() - end every session of a TPG, politely
 * @tpg: the TPG, being disabled or freed: logins no longer find it.
 *
 * Each session in full feature phase is sent an Async Message asking
 * its initiator to log out within %IXT_LOGOUT_REQUEST_SECS seconds, so
 * that it stops issuing commands and logs out cleanly. A session that
 * logs out is then given the time its logout work takes at most
 * (%IXT_REINSTATE_WAIT_SECS for its commands) to send its Logout
 * Response: closed earlier, the initiator would wait for that response
 * until its own logout timeout (open-iscsi: 15 s) before it tried
 * another path. A second after each bound, the connections still
 * there, and those still logging in, are closed. Returns then, without
 * waiting for their commands: a stuck backend must not hold up a TPG
 * disable for longer.
 *
 * Context: Process context, may sleep; takes ixt_sess_mutex.
 */
void ixt_tpg_logout_sessions(struct ixt_tpg *tpg)
{
	struct ixt_conn *conn;
	struct ixt_sess *sess;

	mutex_lock(&ixt_sess_mutex);
	list_for_each_entry(sess, &ixt_sess_list, entry)
		if (sess->tpg == tpg)
			list_for_each_entry(conn, &sess->conns, sess_entry)
				ixt_conn_request_logout(conn);
	mutex_unlock(&ixt_sess_mutex);
	ixt_wait_woken(ixt_sess_wq, !ixt_tpg_has_sessions(tpg),
		       (IXT_LOGOUT_REQUEST_SECS + 1) * HZ);
	ixt_wait_woken(ixt_sess_wq, !ixt_tpg_logging_out(tpg),
		       (IXT_REINSTATE_WAIT_SECS + 1) * HZ);
	ixt_conns_close_tpg(tpg);
}

/**
 * ixt_close_session() - the target core asks to end a session
 * @se_sess: the session, whose ACL is being deleted.
 *
 * The core calls this with no lock held but may race with the session
 * ending by itself, so @se_sess is looked up among the live sessions
 * rather than trusted.
 *
 * Context: Process context; takes ixt_sess_mutex.
 */
void ixt_close_session(struct se_session *se_sess)
{
	struct ixt_sess *sess;

	mutex_lock(&ixt_sess_mutex);
	list_for_each_entry(sess, &ixt_sess_list, entry)
		if (sess->se_sess == se_sess)
			ixt_sess_close(sess);
	mutex_unlock(&ixt_sess_mutex);
}

/*
 * One session in the format of LIO's "info" file, which rtslib parses.
 * CmdSN/WR is the command window (LIO's, static, is the queue depth),
 * CmdSN/WC the room MaxCmdSN leaves beyond ExpCmdSN, as in LIO.
 */
static ssize_t ixt_sess_info_one(struct ixt_sess *sess, char *page,
				 ssize_t len)
{
	u32 max_cmd_sn = READ_ONCE(sess->max_cmd_sn);
	u32 exp_cmd_sn = READ_ONCE(sess->exp_cmd_sn);
	struct ixt_conn *conn;

	len += sysfs_emit_at(page, len, "InitiatorName: %s\n",
			     sess->initiator);
	len += sysfs_emit_at(page, len, "InitiatorAlias: %s\n",
			     sess->params.initiator_alias);
	len += sysfs_emit_at(page, len,
			     "LIO Session ID: %u   ISID: 0x%6phN  TSIH: %u  SessionType: Normal\n",
			     sess->tsih, sess->isid, sess->tsih);
	len += sysfs_emit_at(page, len,
			     "Session State: TARG_SESS_STATE_LOGGED_IN\n");
	len += sysfs_emit_at(page, len,
			     "---------------------[iSCSI Session Values]-----------------------\n");
	len += sysfs_emit_at(page, len,
			     "  CmdSN/WR  :  CmdSN/WC  :  ExpCmdSN  :  MaxCmdSN  :     ITT    :     TTT\n");
	len += sysfs_emit_at(page, len,
			     " 0x%08x   0x%08x   0x%08x   0x%08x   0x%08x   0x%08x\n",
			     READ_ONCE(sess->win_cur), max_cmd_sn - exp_cmd_sn + 1,
			     exp_cmd_sn, max_cmd_sn, 0, 0);
	len += sysfs_emit_at(page, len,
			     "----------------------[iSCSI Connections]-------------------------\n");
	list_for_each_entry(conn, &sess->conns, sess_entry) {
		len += sysfs_emit_at(page, len,
				     "CID: %u  Connection State: TARG_CONN_STATE_LOGGED_IN\n",
				     conn->cid);
		/* LIO prints "SCTP" for every connection that is not TCP. */
		len += sysfs_emit_at(page, len,
				     "   Address %pISc %s  StatSN: 0x%08x\n",
				     &conn->head.peer,
				     conn->ops->flags & IXT_XPRT_F_RDMA ?
				     "iSER" : "TCP", conn->stat_sn);
		if (conn->ops->show_info)
			len = conn->ops->show_info(conn, page, len);
	}
	return len;
}

/**
 * ixt_sess_info_show() - describe the sessions of an ACL
 * @se_nacl: the ACL.
 * @page: the configfs page.
 *
 * Prints what LIO's "info" file prints, which rtslib parses: one block
 * per session, or the "No active iSCSI Session" sentence.
 *
 * Context: Process context; takes ixt_sess_mutex.
 * Return: bytes written to @page.
 */
ssize_t ixt_sess_info_show(struct se_node_acl *se_nacl, char *page)
{
	struct ixt_sess *sess;
	ssize_t len = 0;

	mutex_lock(&ixt_sess_mutex);
	list_for_each_entry(sess, &ixt_sess_list, entry)
		if (sess->se_sess && sess->se_sess->se_node_acl == se_nacl)
			len = ixt_sess_info_one(sess, page, len);
	mutex_unlock(&ixt_sess_mutex);
	if (!len)
		len = sysfs_emit(page,
				 "No active iSCSI Session for Initiator Endpoint: %s\n",
				 se_nacl->initiatorname);
	return len;
}

/**
 * ixt_sess_window_start() - open the command window of a new session
 * @sess: the session, at the end of its login.
 * @depth: the ACL's queue depth: the largest window.
 *
 * Context: Process context (the receive path), before the session's
 * first response.
 */
void ixt_sess_window_start(struct ixt_sess *sess, u32 depth)
{
	sess->cmdsn_depth = depth;
	spin_lock_bh(&sess->win_lock);
	ixt_window_init(&sess->window, depth,
			(u64)READ_ONCE(window_goal_us) * NSEC_PER_USEC);
	WRITE_ONCE(sess->win_cur, sess->window.cur);
	spin_unlock_bh(&sess->win_lock);
	WRITE_ONCE(sess->max_cmd_sn, sess->exp_cmd_sn + depth - 1);
}

/**
 * ixt_sess_window_limit() - a joining connection may take fewer commands
 * @sess: the session.
 * @depth: the commands the connection can receive at once.
 *
 * The window's maximum comes down to @depth, if lower, for the rest of
 * the session; MaxCmdSN, which never moves back, waits for ExpCmdSN to
 * catch up. The CmdSN queue still takes what an earlier MaxCmdSN allowed.
 *
 * Context: Process context (the receive path); takes @sess->win_lock.
 */
void ixt_sess_window_limit(struct ixt_sess *sess, u32 depth)
{
	spin_lock_bh(&sess->win_lock);
	WRITE_ONCE(sess->win_cur, ixt_window_limit(&sess->window, depth));
	spin_unlock_bh(&sess->win_lock);
}

/**
 * ixt_sess_max_cmd_sn() - the MaxCmdSN a response carries
 * @sess: the session.
 * @exp_cmd_sn: the ExpCmdSN the response carries.
 *
 * MaxCmdSN leaves the initiator the free part of the window
 * (ixt_window_max_cmd_sn()), but never moves back: when the window
 * shrinks, it waits for the commands the target holds to drain
 * (initiators ignore a smaller MaxCmdSN, and the commands up to it were
 * allowed already).
 * The connections of a session build responses under their own sn_lock,
 * hence the compare-and-exchange.
 *
 * Context: Any context but hard IRQ.
 * Return: MaxCmdSN.
 */
u32 ixt_sess_max_cmd_sn(struct ixt_sess *sess, u32 exp_cmd_sn)
{
	u32 max = ixt_window_max_cmd_sn(exp_cmd_sn, READ_ONCE(sess->win_cur),
					atomic_read(&sess->win_held));
	u32 cur = READ_ONCE(sess->max_cmd_sn);

	do {
		if (!ixt_sn_gt(max, cur))
			return cur;
	} while (!try_cmpxchg(&sess->max_cmd_sn, &cur, max));
	return max;
}

/**
 * ixt_sess_window_reopened() - whether the window opened unannounced
 * @sess: the session.
 *
 * The MaxCmdSN advertised last leaves the initiator no room (it is
 * ExpCmdSN - 1), yet the window has room now: commands that end without
 * a response (aborted by a task management function) gave their places
 * back, and no response carries the MaxCmdSN that opens them.
 *
 * Context: Any context.
 * Return: true when the initiator must be told the new MaxCmdSN.
 */
bool ixt_sess_window_reopened(struct ixt_sess *sess)
{
	return READ_ONCE(sess->max_cmd_sn) + 1 == READ_ONCE(sess->exp_cmd_sn) &&
	       READ_ONCE(sess->win_cur) > atomic_read(&sess->win_held);
}

/**
 * ixt_sess_cmd_done() - a command's response time, for the window
 * @sess: the command's session.
 * @rt_ns: nanoseconds from the command's execution to its response.
 *
 * Context: Any context but hard IRQ; takes @sess->win_lock.
 */
void ixt_sess_cmd_done(struct ixt_sess *sess, u64 rt_ns)
{
	spin_lock_bh(&sess->win_lock);
	WRITE_ONCE(sess->win_cur, ixt_window_sample(&sess->window, rt_ns));
	spin_unlock_bh(&sess->win_lock);
}

/* What a normal session's commands held when the caps were sized. */
struct ixt_sess_use {
	u32 lines;
	u32 cmds;
};

/**
 * ixt_sess_pool_caps() - fit the sessions' windows in the cache-line pool
 * @pool: the lines the sessions' commands may hold together.
 *
 * Shares @pool out among the normal sessions by what their full windows
 * would hold at their lines per command now (ixt_window_share()), and
 * caps each window at the commands that fit in its share; a session that
 * holds no lines is capped as if its commands were of the average size.
 * When every full window fits, the caps are lifted.
 *
 * Context: Process context; takes ixt_sess_mutex, then each session's
 * win_lock.
 * Return: true while the windows are capped (or could not be sized for
 * want of memory): the pool is still short for what they would take.
 */
bool ixt_sess_pool_caps(u32 pool)
{
	u32 n = 0, i, level, cap, win_max, all_lines = 0, all_cmds = 0;
	struct ixt_sess_use *use;
	struct ixt_sess *sess;
	u32 *demand;
	u64 v;

	mutex_lock(&ixt_sess_mutex);
	list_for_each_entry(sess, &ixt_sess_list, entry)
		n += !sess->discovery;
	demand = kmalloc_array(n, sizeof(*demand) + sizeof(*use), GFP_KERNEL);
	if (!demand) {
		mutex_unlock(&ixt_sess_mutex);
		return n != 0;
	}
	use = (struct ixt_sess_use *)&demand[n];
	i = 0;
	list_for_each_entry(sess, &ixt_sess_list, entry) {
		if (sess->discovery)
			continue;
		v = atomic64_read(&sess->pool_use);
		use[i].lines = lower_32_bits(v);
		use[i].cmds = upper_32_bits(v);
		/* u32 holds the sums: the pool's lines, a line a command at least. */
		all_lines += use[i].lines;
		all_cmds += use[i].cmds;
		spin_lock_bh(&sess->win_lock);
		win_max = sess->window.max;
		spin_unlock_bh(&sess->win_lock);
		demand[i] = ixt_window_demand(win_max, use[i].lines,
					      use[i].cmds);
		i++;
	}
	level = ixt_window_share(demand, n, pool);
	i = 0;
	list_for_each_entry(sess, &ixt_sess_list, entry) {
		if (sess->discovery)
			continue;
		if (use[i].cmds)
			cap = ixt_window_fit(min(demand[i], level),
					     use[i].lines, use[i].cmds);
		else
			cap = ixt_window_fit(level, all_lines, all_cmds);
		spin_lock_bh(&sess->win_lock);
		WRITE_ONCE(sess->win_cur, ixt_window_cap(&sess->window, cap));
		spin_unlock_bh(&sess->win_lock);
		i++;
	}
	mutex_unlock(&ixt_sess_mutex);
	kfree(demand);
	return level != U32_MAX;
}

/*
 * /sys/kernel/debug/iscsi_xt/sessions: one line per normal session; the
 * last column, the PDUs queued on its connections and not yet sent.
 */
static int ixt_sess_debugfs_show(struct seq_file *m, void *unused)
{
	struct ixt_sess *sess;
	struct ixt_conn *conn;
	struct ixt_window w;
	int queued;

	seq_puts(m, "tsih initiator exp_cmd_sn max_cmd_sn window max_window srt_us held cap queued\n");
	mutex_lock(&ixt_sess_mutex);
	list_for_each_entry(sess, &ixt_sess_list, entry) {
		if (sess->discovery)
			continue;
		spin_lock_bh(&sess->win_lock);
		w = sess->window;
		spin_unlock_bh(&sess->win_lock);
		queued = 0;
		list_for_each_entry(conn, &sess->conns, sess_entry)
			queued += atomic_read(&conn->tx_pdus);
		seq_printf(m, "%u %s 0x%08x 0x%08x %u %u %llu %d %u %d\n",
			   sess->tsih, sess->initiator,
			   READ_ONCE(sess->exp_cmd_sn),
			   READ_ONCE(sess->max_cmd_sn), w.cur, w.max,
			   div_u64(w.srt_ns, NSEC_PER_USEC),
			   atomic_read(&sess->win_held), w.cap, queued);
	}
	mutex_unlock(&ixt_sess_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ixt_sess_debugfs);

/**
 * ixt_sess_debugfs_init() - add the sessions file to the debugfs folder
 *
 * Context: Process context, module init.
 */
void ixt_sess_debugfs_init(void)
{
	debugfs_create_file("sessions", 0444, ixt_debugfs, NULL,
			    &ixt_sess_debugfs_fops);
}

/**
 * ixt_sess_each_conn() - call a function for each connection of a session
 * @sess: the session.
 * @fn: called with each connection and @arg; it must not sleep on the
 *	connection's release (ixt_sess_mutex is held).
 * @arg: passed to @fn.
 *
 * A connection still in the list has not freed its receive-path state
 * (slots, R2Ts): its release work frees them only once it has left the
 * list, and the session's rx_lock keeps its receive path out meanwhile.
 *
 * Context: Process context, under the session's rx_lock; takes
 * ixt_sess_mutex.
 */
void ixt_sess_each_conn(struct ixt_sess *sess,
			void (*fn)(struct ixt_conn *conn, void *arg), void *arg)
{
	struct ixt_conn *conn;

	lockdep_assert_held(&sess->rx_lock);
	mutex_lock(&ixt_sess_mutex);
	list_for_each_entry(conn, &sess->conns, sess_entry)
		fn(conn, arg);
	mutex_unlock(&ixt_sess_mutex);
}
