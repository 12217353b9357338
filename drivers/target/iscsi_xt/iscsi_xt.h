/* SPDX-License-Identifier: GPL-2.0 */
/* iscsi_xt: fabric objects and functions shared by the files of the module. */
#ifndef _ISCSI_XT_H
#define _ISCSI_XT_H

#include <linux/atomic.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/configfs.h>
#include <linux/container_of.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <scsi/iscsi_proto.h>
#include <target/target_core_base.h>

#include <iscsi_xt/params.h>

/*
 * IXT_VERSION, the project's version (the file VERSION at the top of the
 * tree), comes from Kbuild on the compiler's command line: reported in
 * modinfo, in the fabric's lio_version attribute and in the MIB.
 */
#ifndef IXT_VERSION
#error "IXT_VERSION is set by drivers/target/iscsi_xt/Kbuild"
#endif

/*
 * The longest transfer one command may ask for: 8 MiB, announced in the
 * Block Limits VPD page through max_data_sg_nents.
 */
#define IXT_MAX_XFER_LEN	(8U << 20)

/* Room for one CHAP name or secret and its NUL, as LIO allows. */
#define IXT_AUTH_LEN		256

/**
 * enum ixt_auth_field - one CHAP credential of an &struct ixt_auth
 * @IXT_AUTH_USERID: name the initiator presents (CHAP_N).
 * @IXT_AUTH_PASSWORD: secret the initiator proves it knows.
 * @IXT_AUTH_USERID_MUTUAL: name the target presents in mutual CHAP.
 * @IXT_AUTH_PASSWORD_MUTUAL: secret the target proves in mutual CHAP.
 * @IXT_AUTH_NR: number of credentials; not a credential.
 */
enum ixt_auth_field {
	IXT_AUTH_USERID,
	IXT_AUTH_PASSWORD,
	IXT_AUTH_USERID_MUTUAL,
	IXT_AUTH_PASSWORD_MUTUAL,
	IXT_AUTH_NR,
};

/**
 * struct ixt_auth - CHAP credentials of a discovery, TPG or ACL context
 * @lock: protects @cred; held only to copy a credential in or out.
 * @cred: NUL-terminated credentials indexed by &enum ixt_auth_field, as
 *	last written (without a trailing newline), so that they read back
 *	as in LIO. A credential is set when ixt_auth_cred_is_set() says so:
 *	empty and "NULL" (what rtslib writes for "unset") are not.
 *
 * Mutual authentication is requested when both mutual credentials are set.
 */
struct ixt_auth {
	struct mutex lock;	/* protects cred */
	char cred[IXT_AUTH_NR][IXT_AUTH_LEN];
};

/**
 * ixt_auth_cred_is_set() - whether a credential of &struct ixt_auth is set
 * @cred: one of &struct ixt_auth.cred, read under its lock.
 *
 * Context: Any context.
 * Return: false for an empty credential and for "NULL", true otherwise.
 */
static inline bool ixt_auth_cred_is_set(const char *cred)
{
	return cred[0] && strcmp(cred, "NULL");
}

/**
 * enum ixt_tpg_attr - TPG attributes, named and bounded as in LIO
 * @IXT_TA_AUTHENTICATION: require CHAP for logins to this TPG.
 * @IXT_TA_LOGIN_TIMEOUT: seconds a login may take.
 * @IXT_TA_GENERATE_NODE_ACLS: demo mode: any initiator may log in.
 * @IXT_TA_DEFAULT_CMDSN_DEPTH: command window of a dynamically made ACL.
 * @IXT_TA_CACHE_DYNAMIC_ACLS: keep a dynamic ACL after its session ends.
 * @IXT_TA_DEMO_MODE_WRITE_PROTECT: LUNs are read-only in demo mode.
 * @IXT_TA_PROD_MODE_WRITE_PROTECT: LUNs are read-only through explicit ACLs.
 * @IXT_TA_DEMO_MODE_DISCOVERY: SendTargets is answered in demo mode.
 * @IXT_TA_DEFAULT_ERL: highest ErrorRecoveryLevel offered.
 * @IXT_TA_T10_PI: T10 protection information is enabled.
 * @IXT_TA_FABRIC_PROT_TYPE: protection type the fabric inserts and strips.
 * @IXT_TA_TPG_ENABLED_SENDTARGETS: SendTargets lists enabled TPGs only.
 * @IXT_TA_LOGIN_KEYS_WORKAROUND: answer keys that non-compliant
 *	initiators neither propose nor answer.
 * @IXT_TA_NR: number of attributes; not an attribute.
 */
enum ixt_tpg_attr {
	IXT_TA_AUTHENTICATION,
	IXT_TA_LOGIN_TIMEOUT,
	IXT_TA_GENERATE_NODE_ACLS,
	IXT_TA_DEFAULT_CMDSN_DEPTH,
	IXT_TA_CACHE_DYNAMIC_ACLS,
	IXT_TA_DEMO_MODE_WRITE_PROTECT,
	IXT_TA_PROD_MODE_WRITE_PROTECT,
	IXT_TA_DEMO_MODE_DISCOVERY,
	IXT_TA_DEFAULT_ERL,
	IXT_TA_T10_PI,
	IXT_TA_FABRIC_PROT_TYPE,
	IXT_TA_TPG_ENABLED_SENDTARGETS,
	IXT_TA_LOGIN_KEYS_WORKAROUND,
	IXT_TA_NR,
};

/**
 * enum ixt_login_fail - kinds of failed login, numbered as the iSCSI MIB
 *	(RFC 4544, iscsiTgtLoginStats) and LIO number them
 * @IXT_LOGIN_FAIL_OTHER: any other failure (for example a target error).
 * @IXT_LOGIN_FAIL_REDIRECT: the initiator was redirected elsewhere.
 * @IXT_LOGIN_FAIL_AUTHORIZE: the initiator may not use this target (no
 *	ACL, or a TPG it may not reach).
 * @IXT_LOGIN_FAIL_AUTHENTICATE: CHAP failed.
 * @IXT_LOGIN_FAIL_NEGOTIATE: operational negotiation failed.
 */
enum ixt_login_fail {
	IXT_LOGIN_FAIL_OTHER = 2,
	IXT_LOGIN_FAIL_REDIRECT = 3,
	IXT_LOGIN_FAIL_AUTHORIZE = 4,
	IXT_LOGIN_FAIL_AUTHENTICATE = 5,
	IXT_LOGIN_FAIL_NEGOTIATE = 6,
};

/**
 * enum ixt_sess_err - kinds of session failure, numbered as LIO numbers
 *	them in fabric_statistics/iscsi_instance/fail_type
 * @IXT_SESS_ERR_DIGEST: a header or data digest error ended the session.
 * @IXT_SESS_ERR_CXN_TIMEOUT: a connection timed out (NOP-In, Time2Retain).
 * @IXT_SESS_ERR_PDU_FORMAT: a malformed PDU ended the session.
 */
enum ixt_sess_err {
	IXT_SESS_ERR_DIGEST = 1,
	IXT_SESS_ERR_CXN_TIMEOUT = 2,
	IXT_SESS_ERR_PDU_FORMAT = 3,
};

/**
 * struct ixt_login_stats - login outcomes of a target node
 * @lock: protects every other member; a spinlock, taken with
 *	spin_lock_bh(), so that login code in any context may count.
 * @accepts: logins that reached full feature phase (normal sessions).
 * @other_fails: logins refused for %IXT_LOGIN_FAIL_OTHER.
 * @redirects: logins answered with a redirection.
 * @authorize_fails: logins refused for %IXT_LOGIN_FAIL_AUTHORIZE.
 * @authenticate_fails: logins refused for %IXT_LOGIN_FAIL_AUTHENTICATE.
 * @negotiate_fails: logins refused for %IXT_LOGIN_FAIL_NEGOTIATE.
 * @last_fail_time: jiffies of the last failure; 0 before the first.
 * @last_fail_type: &enum ixt_login_fail of the last failure; 0 before.
 * @last_fail_addr: initiator address of the last failure.
 * @last_fail_name: initiator name of the last failure; empty before.
 *
 * Counted through ixt_stat_login_accept() and ixt_stat_login_fail().
 */
struct ixt_login_stats {
	spinlock_t lock;	/* protects the members below */
	u32 accepts;
	u32 other_fails;
	u32 redirects;
	u32 authorize_fails;
	u32 authenticate_fails;
	u32 negotiate_fails;
	unsigned long last_fail_time;
	u32 last_fail_type;
	struct sockaddr_storage last_fail_addr;
	char last_fail_name[ISCSI_NAME_LEN];
};

/**
 * struct ixt_sess_err_stats - session failures of a target node
 * @lock: protects every other member; taken with spin_lock_bh().
 * @digest_errors: sessions ended by %IXT_SESS_ERR_DIGEST.
 * @cxn_timeout_errors: sessions ended by %IXT_SESS_ERR_CXN_TIMEOUT.
 * @pdu_format_errors: sessions ended by %IXT_SESS_ERR_PDU_FORMAT.
 * @last_type: &enum ixt_sess_err of the last failure; 0 before the first.
 * @last_name: initiator name of the last failure; empty before.
 *
 * Counted through ixt_stat_sess_err().
 */
struct ixt_sess_err_stats {
	spinlock_t lock;	/* protects the members below */
	u32 digest_errors;
	u32 cxn_timeout_errors;
	u32 pdu_format_errors;
	u32 last_type;
	char last_name[ISCSI_NAME_LEN];
};

/**
 * struct ixt_sess_stats - counters of one session, shown in the ACL's
 *	fabric_statistics/iscsi_sess_stats/
 * @index: the session's index, unique among live sessions.
 * @discovery: a discovery session (shown as node 0).
 * @cmd_pdus: SCSI Command PDUs received; atomic.
 * @rsp_pdus: SCSI Response PDUs sent; atomic.
 * @txdata_octs: data bytes sent in Data-In PDUs; atomic.
 * @rxdata_octs: data bytes received (immediate, unsolicited and
 *	solicited Data-Out); atomic.
 * @conn_digest_errors: header and data digest errors on its connections;
 *	atomic.
 * @conn_timeout_errors: connection timeouts (NOP-In, Data-Out); atomic.
 *
 * Embedded in the session, which publishes it in &struct
 * ixt_node_acl.sess_stats while it is the ACL's session.
 */
struct ixt_sess_stats {
	u32 index;
	bool discovery;
	atomic_long_t cmd_pdus;
	atomic_long_t rsp_pdus;
	atomic_long_t txdata_octs;
	atomic_long_t rxdata_octs;
	atomic_long_t conn_digest_errors;
	atomic_long_t conn_timeout_errors;
};

/**
 * enum ixt_stat_group - the statistics groups of a target node, below
 *	its fabric_statistics/
 * @IXT_STAT_INSTANCE: iscsi_instance.
 * @IXT_STAT_SESS_ERR: iscsi_sess_err.
 * @IXT_STAT_TGT_ATTR: iscsi_tgt_attr.
 * @IXT_STAT_LOGIN: iscsi_login_stats.
 * @IXT_STAT_LOGOUT: iscsi_logout_stats.
 * @IXT_STAT_NR: number of groups; not a group.
 */
enum ixt_stat_group {
	IXT_STAT_INSTANCE,
	IXT_STAT_SESS_ERR,
	IXT_STAT_TGT_ATTR,
	IXT_STAT_LOGIN,
	IXT_STAT_LOGOUT,
	IXT_STAT_NR,
};

/**
 * struct ixt_tiqn - an iSCSI target node: target/iscsi/<name>
 * @wwn: the target core's view of the node; its groups hold the TPGs.
 * @name: iSCSI name of the node, validated when the node was made.
 * @index: the node's index in the statistics ("inst"), the smallest
 *	free one when the node was made, from 0, as in LIO.
 * @np_lock: protects @nps.
 * @nps: the &struct ixt_np of all the node's TPGs.
 * @nr_portals: the node's network portals, iSER ones counted apart, as
 *	LIO counts them; atomic.
 * @nr_sessions: the node's normal sessions: incremented by the session
 *	code when a session reaches full feature phase, decremented when it
 *	is released; atomic.
 * @login_stats: login outcomes.
 * @sess_err_stats: session failures.
 * @normal_logouts: sessions closed by a Logout request; atomic.
 * @abnormal_logouts: sessions closed any other way; atomic.
 * @stat_groups: the groups below fabric_statistics/, indexed by
 *	&enum ixt_stat_group.
 *
 * Lifetime: made by configfs mkdir, freed by the release of its configfs
 * item, which configfs only allows once every TPG below it is gone.
 */
struct ixt_tiqn {
	struct se_wwn wwn;
	char name[ISCSI_NAME_LEN];
	u32 index;
	struct mutex np_lock;	/* protects nps */
	struct list_head nps;
	atomic_t nr_portals;
	atomic_t nr_sessions;
	struct ixt_login_stats login_stats;
	struct ixt_sess_err_stats sess_err_stats;
	atomic_t normal_logouts;
	atomic_t abnormal_logouts;
	struct config_group stat_groups[IXT_STAT_NR];
};

/**
 * struct ixt_tpg - a target portal group: <node>/tpgt_<tag>
 * @se_tpg: the target core's view of the TPG (LUNs, ACLs, sessions).
 * @tiqn: node the TPG belongs to; outlives the TPG.
 * @tpgt: target portal group tag, 1..65535, fixed at creation.
 * @lock: serialises writers of @attrib and of &struct ixt_np.iser of the
 *	TPG's portals, and protects @offer. Readers of @attrib that cannot
 *	sleep use ixt_tpg_attrib(), which reads one value without the lock.
 * @attrib: attribute values indexed by &enum ixt_tpg_attr; written with
 *	WRITE_ONCE() under @lock.
 * @auth: CHAP credentials used when @attrib requests TPG-wide CHAP.
 * @offer: what the TPG offers in login negotiations (param/); read and
 *	written under @lock only: a login copies it (ixt_neg_init()) with
 *	@lock held.
 * @active: logins are accepted; under ixt_portal_mutex (portal.c). It
 *	follows @se_tpg.enabled, but is cleared before the sessions are
 *	asked to log out, where the core clears @se_tpg.enabled only once
 *	the disable returns, too late to keep them from logging in again.
 */
struct ixt_tpg {
	struct se_portal_group se_tpg;
	struct ixt_tiqn *tiqn;
	u16 tpgt;
	struct mutex lock;	/* attrib and np->iser writers, offer */
	u32 attrib[IXT_TA_NR];
	struct ixt_auth auth;
	struct ixt_offer offer;
	bool active;
};

/**
 * struct ixt_np - a network portal of a TPG: <tpg>/np/<address>:<port>
 * @se_np: the target core's view of the portal.
 * @tpg: the TPG the portal belongs to.
 * @node: entry in &struct ixt_tiqn.nps, under its np_lock.
 * @addr: parsed address and port (&struct sockaddr_in or sockaddr_in6).
 * @iser: the portal also accepts iSER connections; protected by the
 *	owning &struct ixt_tpg.lock.
 *
 * Only configuration for now: listeners are not started yet.
 */
struct ixt_np {
	struct se_tpg_np se_np;
	struct ixt_tpg *tpg;
	struct list_head node;
	struct sockaddr_storage addr;
	bool iser;
};

/**
 * enum ixt_nacl_attr - ACL attributes (<acl>/attrib/), named and bounded
 *	as in LIO
 * @IXT_NA_DATAOUT_TIMEOUT: seconds to wait for solicited Data-Out.
 * @IXT_NA_DATAOUT_TIMEOUT_RETRIES: R2T retries before giving up.
 * @IXT_NA_DEFAULT_ERL: highest ErrorRecoveryLevel for this initiator;
 *	starts as the TPG's default_erl.
 * @IXT_NA_NOPIN_TIMEOUT: seconds between NOP-Ins on an idle connection;
 *	0 turns them off.
 * @IXT_NA_NOPIN_RESPONSE_TIMEOUT: seconds to wait for the NOP-Out answer.
 * @IXT_NA_RANDOM_DATAIN_PDU_OFFSETS: send Data-In PDUs out of order
 *	(DataPDUInOrder=No); a test knob.
 * @IXT_NA_RANDOM_DATAIN_SEQ_OFFSETS: send Data-In sequences out of order
 *	(DataSequenceInOrder=No); a test knob.
 * @IXT_NA_RANDOM_R2T_OFFSETS: send R2Ts out of order; a test knob.
 * @IXT_NA_AUTHENTICATION: 1 requires CHAP, 0 does not, -1 follows the
 *	TPG's authentication attribute.
 * @IXT_NA_NR: number of attributes; not an attribute.
 */
enum ixt_nacl_attr {
	IXT_NA_DATAOUT_TIMEOUT,
	IXT_NA_DATAOUT_TIMEOUT_RETRIES,
	IXT_NA_DEFAULT_ERL,
	IXT_NA_NOPIN_TIMEOUT,
	IXT_NA_NOPIN_RESPONSE_TIMEOUT,
	IXT_NA_RANDOM_DATAIN_PDU_OFFSETS,
	IXT_NA_RANDOM_DATAIN_SEQ_OFFSETS,
	IXT_NA_RANDOM_R2T_OFFSETS,
	IXT_NA_AUTHENTICATION,
	IXT_NA_NR,
};

/**
 * struct ixt_node_acl - an initiator ACL of a TPG: <tpg>/acls/<name>
 * @se_nacl: the target core's view of the ACL. Must stay the first member:
 *	the core allocates the fabric's node_acl_size bytes and frees them
 *	through a pointer to @se_nacl.
 * @auth: CHAP credentials of this initiator.
 * @attrib: attribute values indexed by &enum ixt_nacl_attr; each written
 *	with WRITE_ONCE() and read with ixt_nacl_attrib(), no lock: they
 *	are independent of one another.
 * @sess_params: what the ACL's session negotiated (shown in param/), or
 *	NULL when it has none; set and cleared by the session code under
 *	@se_nacl.nacl_sess_lock (spin_lock_bh()), together with
 *	@se_nacl.nacl_sess.
 * @sess_stats: counters of the ACL's session, or NULL when it has none;
 *	set and cleared as @sess_params.
 * @sess_stats_group: fabric_statistics/iscsi_sess_stats.
 */
struct ixt_node_acl {
	struct se_node_acl se_nacl;
	struct ixt_auth auth;
	int attrib[IXT_NA_NR];
	const struct ixt_params *sess_params;
	struct ixt_sess_stats *sess_stats;
	struct config_group sess_stats_group;
};

static_assert(offsetof(struct ixt_node_acl, se_nacl) == 0);

static inline struct ixt_tiqn *to_ixt_tiqn(struct se_wwn *wwn)
{
	return container_of(wwn, struct ixt_tiqn, wwn);
}

static inline struct ixt_tpg *to_ixt_tpg(struct se_portal_group *se_tpg)
{
	return container_of(se_tpg, struct ixt_tpg, se_tpg);
}

static inline struct ixt_np *to_ixt_np(struct se_tpg_np *se_np)
{
	return container_of(se_np, struct ixt_np, se_np);
}

static inline struct ixt_node_acl *to_ixt_nacl(struct se_node_acl *se_nacl)
{
	return container_of(se_nacl, struct ixt_node_acl, se_nacl);
}

/**
 * ixt_tpg_attrib() - read one TPG attribute without the TPG lock
 * @tpg: the TPG.
 * @attr: the attribute.
 *
 * Context: Any context.
 * Return: the attribute's current value.
 */
static inline u32 ixt_tpg_attrib(const struct ixt_tpg *tpg,
				 enum ixt_tpg_attr attr)
{
	return READ_ONCE(tpg->attrib[attr]);
}

/**
 * ixt_nacl_attrib() - read one ACL attribute without a lock
 * @nacl: the ACL.
 * @attr: the attribute.
 *
 * Context: Any context.
 * Return: the attribute's current value.
 */
static inline int ixt_nacl_attrib(const struct ixt_node_acl *nacl,
				  enum ixt_nacl_attr attr)
{
	return READ_ONCE(nacl->attrib[attr]);
}

/* The fabric's configfs attribute tables, defined with their handlers. */
/* /sys/kernel/debug/iscsi_xt/: the pool's and the sessions' figures. */
extern struct dentry *ixt_debugfs;
void ixt_cost_debugfs_init(void);

extern struct configfs_attribute *ixt_fabric_attrs[];
extern struct configfs_attribute *ixt_discovery_attrs[];
extern struct configfs_attribute *ixt_tpg_attrs[];
extern struct configfs_attribute *ixt_tpg_attrib_attrs[];
extern struct configfs_attribute *ixt_tpg_auth_attrs[];
extern struct configfs_attribute *ixt_np_attrs[];
extern struct configfs_attribute *ixt_nacl_attrs[];
extern struct configfs_attribute *ixt_nacl_auth_attrs[];
extern struct configfs_attribute *ixt_nacl_attrib_attrs[];
extern struct configfs_attribute *ixt_nacl_param_attrs[];
extern struct configfs_attribute *ixt_tpg_param_attrs[];

void ixt_configfs_init(void);
struct ixt_auth *ixt_discovery_auth(bool *enforce);
struct se_wwn *ixt_make_tiqn(struct target_fabric_configfs *tf,
			     struct config_group *group, const char *name);
void ixt_drop_tiqn(struct se_wwn *wwn);
struct se_portal_group *ixt_make_tpg(struct se_wwn *wwn, const char *name);
int ixt_enable_tpg(struct se_portal_group *se_tpg, bool enable);
void ixt_drop_tpg(struct se_portal_group *se_tpg);
struct se_tpg_np *ixt_make_np(struct se_portal_group *se_tpg,
			      struct config_group *group, const char *name);
void ixt_drop_np(struct se_tpg_np *se_np);
void ixt_nacl_set_defaults(struct se_node_acl *se_nacl);
int ixt_init_nacl(struct se_node_acl *se_nacl, const char *name);

/* Statistics: stats.c */
int ixt_stats_init(struct ixt_tiqn *tiqn);
void ixt_stats_destroy(struct ixt_tiqn *tiqn);
void ixt_add_wwn_groups(struct se_wwn *wwn);
u32 ixt_tpg_get_inst_index(struct se_portal_group *se_tpg);
void ixt_stats_nacl_init(struct ixt_node_acl *nacl);
void ixt_stat_login_accept(struct ixt_tiqn *tiqn);
void ixt_stat_login_fail(struct ixt_tiqn *tiqn, enum ixt_login_fail type,
			 const char *initiator,
			 const struct sockaddr_storage *addr);
void ixt_stat_sess_err(struct ixt_tiqn *tiqn, enum ixt_sess_err type,
		       const char *initiator);
void ixt_stat_logout(struct ixt_tiqn *tiqn, bool normal);

int iscsit_register_transport(void *transport);

#endif /* _ISCSI_XT_H */
