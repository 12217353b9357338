// SPDX-License-Identifier: GPL-2.0
/* iscsi_xt: statistics, counted by login and session code, shown as LIO's. */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/idr.h>
#include <linux/jiffies.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/sprintf.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <target/target_core_base.h>

#include "iscsi_xt.h"
#include "fault.h"

/* Fixed values of the iSCSI MIB tables, as LIO shows them. */
#define IXT_STAT_NODE_INDEX	1
#define IXT_STAT_NR_NODES	1
#define IXT_STAT_DESCRIPTION	"Storage Engine Target"
#define IXT_STAT_VENDOR		"iscsi_xt iSCSI-Target"
#define IXT_STAT_NONE		"None"

/* Target node indexes: the smallest free one, from 0, as LIO's idr. */
static DEFINE_IDA(ixt_tiqn_ida);

/**
 * ixt_stats_init() - give a new target node its index and zeroed counters
 * @tiqn: the node, zeroed.
 *
 * Context: Process context.
 * Return: 0, or -ENOMEM or -ENOSPC when no index is left.
 */
int ixt_stats_init(struct ixt_tiqn *tiqn)
{
	int index;

	index = ixt_fault(IXT_FAULT_TIQN_INDEX) ? -ENOMEM :
		ida_alloc(&ixt_tiqn_ida, GFP_KERNEL);
	if (index < 0)
		return index;
	tiqn->index = index;
	spin_lock_init(&tiqn->login_stats.lock);
	spin_lock_init(&tiqn->sess_err_stats.lock);
	return 0;
}

/**
 * ixt_stats_destroy() - give back the index of a target node
 * @tiqn: the node, about to be freed.
 *
 * Context: Process context.
 */
void ixt_stats_destroy(struct ixt_tiqn *tiqn)
{
	ida_free(&ixt_tiqn_ida, tiqn->index);
}

/**
 * ixt_tpg_get_inst_index() - the index of a TPG's node, for the target
 *	core's statistics
 * @se_tpg: the TPG.
 *
 * Context: Any context.
 * Return: the index of the node the TPG belongs to.
 */
u32 ixt_tpg_get_inst_index(struct se_portal_group *se_tpg)
{
	return to_ixt_tpg(se_tpg)->tiqn->index;
}

/**
 * ixt_stat_login_accept() - count a login that reached full feature phase
 * @tiqn: the target node logged in to.
 *
 * Context: Any context; takes the node's login statistics lock.
 */
void ixt_stat_login_accept(struct ixt_tiqn *tiqn)
{
	spin_lock_bh(&tiqn->login_stats.lock);
	tiqn->login_stats.accepts++;
	spin_unlock_bh(&tiqn->login_stats.lock);
}

/**
 * ixt_stat_login_fail() - count a refused login and remember who it was
 * @tiqn: the target node the initiator tried to log in to.
 * @type: why the login was refused.
 * @initiator: the initiator's name, or NULL when it did not give one.
 * @addr: the initiator's address.
 *
 * Context: Any context; takes the node's login statistics lock.
 */
void ixt_stat_login_fail(struct ixt_tiqn *tiqn, enum ixt_login_fail type,
			 const char *initiator,
			 const struct sockaddr_storage *addr)
{
	struct ixt_login_stats *ls = &tiqn->login_stats;

	spin_lock_bh(&ls->lock);
	switch (type) {
	case IXT_LOGIN_FAIL_REDIRECT:
		ls->redirects++;
		break;
	case IXT_LOGIN_FAIL_AUTHORIZE:
		ls->authorize_fails++;
		break;
	case IXT_LOGIN_FAIL_AUTHENTICATE:
		ls->authenticate_fails++;
		break;
	case IXT_LOGIN_FAIL_NEGOTIATE:
		ls->negotiate_fails++;
		break;
	default:
		ls->other_fails++;
		break;
	}
	ls->last_fail_time = jiffies;
	ls->last_fail_type = type;
	ls->last_fail_addr = *addr;
	strscpy(ls->last_fail_name, initiator ? initiator : "");
	spin_unlock_bh(&ls->lock);
}

/**
 * ixt_stat_sess_err() - count a session ended by an error
 * @tiqn: the target node of the session.
 * @type: the kind of error.
 * @initiator: the initiator's name.
 *
 * Context: Any context; takes the node's session error statistics lock.
 */
void ixt_stat_sess_err(struct ixt_tiqn *tiqn, enum ixt_sess_err type,
		       const char *initiator)
{
	struct ixt_sess_err_stats *es = &tiqn->sess_err_stats;

	spin_lock_bh(&es->lock);
	switch (type) {
	case IXT_SESS_ERR_DIGEST:
		es->digest_errors++;
		break;
	case IXT_SESS_ERR_CXN_TIMEOUT:
		es->cxn_timeout_errors++;
		break;
	case IXT_SESS_ERR_PDU_FORMAT:
		es->pdu_format_errors++;
		break;
	}
	es->last_type = type;
	strscpy(es->last_name, initiator);
	spin_unlock_bh(&es->lock);
}

/**
 * ixt_stat_logout() - count the end of a normal session
 * @tiqn: the target node of the session.
 * @normal: the session ended with a Logout request (not a timeout, a
 *	connection loss or a reinstatement).
 *
 * Context: Any context.
 */
void ixt_stat_logout(struct ixt_tiqn *tiqn, bool normal)
{
	atomic_inc(normal ? &tiqn->normal_logouts : &tiqn->abnormal_logouts);
}

/*
 * fabric_statistics/ of a target node. configfs gives show() the item
 * only: each file has its own small function, written by IXT_STAT_ATTR(),
 * which hands its id to the group's show function.
 */

enum ixt_stat_id {
	IXT_SI_INST,
	IXT_SI_INDX,
	IXT_SI_MIN_VER,
	IXT_SI_MAX_VER,
	IXT_SI_PORTALS,
	IXT_SI_NODES,
	IXT_SI_SESSIONS,
	IXT_SI_FAIL_SESS,
	IXT_SI_FAIL_TYPE,
	IXT_SI_FAIL_REM_NAME,
	IXT_SI_DISC_TIME,
	IXT_SI_DESCRIPTION,
	IXT_SI_VENDOR,
	IXT_SI_VERSION,
	IXT_SI_DIGEST_ERRORS,
	IXT_SI_CXN_ERRORS,
	IXT_SI_FORMAT_ERRORS,
	IXT_SI_LOGIN_FAILS,
	IXT_SI_LAST_FAIL_TIME,
	IXT_SI_LAST_FAIL_TYPE,
	IXT_SI_FAIL_INTR_NAME,
	IXT_SI_FAIL_INTR_ADDR_TYPE,
	IXT_SI_FAIL_INTR_ADDR,
	IXT_SI_ACCEPTS,
	IXT_SI_OTHER_FAILS,
	IXT_SI_REDIRECTS,
	IXT_SI_AUTHORIZE_FAILS,
	IXT_SI_AUTHENTICATE_FAILS,
	IXT_SI_NEGOTIATE_FAILS,
	IXT_SI_NORMAL_LOGOUTS,
	IXT_SI_ABNORMAL_LOGOUTS,
};

static ssize_t ixt_stat_login_show(struct ixt_login_stats *ls,
				   enum ixt_stat_id id, char *page)
{
	ssize_t ret;
	u32 val = 0;

	spin_lock_bh(&ls->lock);
	switch (id) {
	case IXT_SI_FAIL_INTR_NAME:
		ret = sysfs_emit(page, "%s\n", ls->last_fail_name[0] ?
				 ls->last_fail_name : IXT_STAT_NONE);
		goto out_unlock;
	case IXT_SI_FAIL_INTR_ADDR_TYPE:
		ret = sysfs_emit(page, "%s\n",
				 ls->last_fail_addr.ss_family == AF_INET6 ?
				 "ipv6" : "ipv4");
		goto out_unlock;
	case IXT_SI_FAIL_INTR_ADDR:
		/* Before any failure: "(einval)", as LIO shows it. */
		ret = sysfs_emit(page, "%pISc\n", &ls->last_fail_addr);
		goto out_unlock;
	case IXT_SI_LOGIN_FAILS:
		val = ls->redirects + ls->authorize_fails +
		      ls->authenticate_fails + ls->negotiate_fails +
		      ls->other_fails;
		break;
	case IXT_SI_LAST_FAIL_TIME:
		/* Hundredths of a second since boot, as in LIO. */
		if (ls->last_fail_time)
			val = (u32)(ls->last_fail_time - INITIAL_JIFFIES) *
			      100 / HZ;
		break;
	case IXT_SI_LAST_FAIL_TYPE:
		val = ls->last_fail_type;
		break;
	case IXT_SI_ACCEPTS:
		val = ls->accepts;
		break;
	case IXT_SI_OTHER_FAILS:
		val = ls->other_fails;
		break;
	case IXT_SI_REDIRECTS:
		val = ls->redirects;
		break;
	case IXT_SI_AUTHORIZE_FAILS:
		val = ls->authorize_fails;
		break;
	case IXT_SI_AUTHENTICATE_FAILS:
		val = ls->authenticate_fails;
		break;
	case IXT_SI_NEGOTIATE_FAILS:
		val = ls->negotiate_fails;
		break;
	default:
		break;
	}
	ret = sysfs_emit(page, "%u\n", val);
out_unlock:
	spin_unlock_bh(&ls->lock);
	return ret;
}

static ssize_t ixt_stat_sess_err_show(struct ixt_sess_err_stats *es,
				      enum ixt_stat_id id, char *page)
{
	ssize_t ret;
	u32 val = 0;

	spin_lock_bh(&es->lock);
	switch (id) {
	case IXT_SI_FAIL_REM_NAME:
		ret = sysfs_emit(page, "%s\n", es->last_name[0] ?
				 es->last_name : IXT_STAT_NONE);
		goto out_unlock;
	case IXT_SI_FAIL_SESS:
		val = es->digest_errors + es->cxn_timeout_errors +
		      es->pdu_format_errors;
		break;
	case IXT_SI_FAIL_TYPE:
		val = es->last_type;
		break;
	case IXT_SI_DIGEST_ERRORS:
		val = es->digest_errors;
		break;
	case IXT_SI_CXN_ERRORS:
		val = es->cxn_timeout_errors;
		break;
	case IXT_SI_FORMAT_ERRORS:
		val = es->pdu_format_errors;
		break;
	default:
		break;
	}
	ret = sysfs_emit(page, "%u\n", val);
out_unlock:
	spin_unlock_bh(&es->lock);
	return ret;
}

static ssize_t ixt_stat_show(struct ixt_tiqn *tiqn, enum ixt_stat_id id,
			     char *page)
{
	switch (id) {
	case IXT_SI_INST:
		return sysfs_emit(page, "%u\n", tiqn->index);
	case IXT_SI_INDX:
		return sysfs_emit(page, "%u\n", IXT_STAT_NODE_INDEX);
	case IXT_SI_MIN_VER:
	case IXT_SI_MAX_VER:
		return sysfs_emit(page, "%u\n", ISCSI_DRAFT20_VERSION);
	case IXT_SI_PORTALS:
		return sysfs_emit(page, "%d\n", atomic_read(&tiqn->nr_portals));
	case IXT_SI_NODES:
		return sysfs_emit(page, "%u\n", IXT_STAT_NR_NODES);
	case IXT_SI_SESSIONS:
		return sysfs_emit(page, "%d\n",
				  atomic_read(&tiqn->nr_sessions));
	case IXT_SI_DISC_TIME:
		return sysfs_emit(page, "0\n");
	case IXT_SI_DESCRIPTION:
		return sysfs_emit(page, "%s\n", IXT_STAT_DESCRIPTION);
	case IXT_SI_VENDOR:
		return sysfs_emit(page, "%s\n", IXT_STAT_VENDOR);
	case IXT_SI_VERSION:
		return sysfs_emit(page, "%s\n", IXT_VERSION);
	case IXT_SI_NORMAL_LOGOUTS:
		return sysfs_emit(page, "%d\n",
				  atomic_read(&tiqn->normal_logouts));
	case IXT_SI_ABNORMAL_LOGOUTS:
		return sysfs_emit(page, "%d\n",
				  atomic_read(&tiqn->abnormal_logouts));
	case IXT_SI_FAIL_SESS:
	case IXT_SI_FAIL_TYPE:
	case IXT_SI_FAIL_REM_NAME:
	case IXT_SI_DIGEST_ERRORS:
	case IXT_SI_CXN_ERRORS:
	case IXT_SI_FORMAT_ERRORS:
		return ixt_stat_sess_err_show(&tiqn->sess_err_stats, id, page);
	default:
		return ixt_stat_login_show(&tiqn->login_stats, id, page);
	}
}

#define IXT_STAT_ATTR(_grp, _gid, _name, _id)				\
static ssize_t ixt_stat_##_grp##_##_name##_show(struct config_item *item, \
						char *page)		\
{									\
	struct config_group *group = to_config_group(item);		\
									\
	return ixt_stat_show(container_of(group, struct ixt_tiqn,	\
					  stat_groups[_gid]),		\
			     _id, page);				\
}									\
									\
CONFIGFS_ATTR_RO(ixt_stat_##_grp##_, _name)

IXT_STAT_ATTR(inst, IXT_STAT_INSTANCE, inst, IXT_SI_INST);
IXT_STAT_ATTR(inst, IXT_STAT_INSTANCE, min_ver, IXT_SI_MIN_VER);
IXT_STAT_ATTR(inst, IXT_STAT_INSTANCE, max_ver, IXT_SI_MAX_VER);
IXT_STAT_ATTR(inst, IXT_STAT_INSTANCE, portals, IXT_SI_PORTALS);
IXT_STAT_ATTR(inst, IXT_STAT_INSTANCE, nodes, IXT_SI_NODES);
IXT_STAT_ATTR(inst, IXT_STAT_INSTANCE, sessions, IXT_SI_SESSIONS);
IXT_STAT_ATTR(inst, IXT_STAT_INSTANCE, fail_sess, IXT_SI_FAIL_SESS);
IXT_STAT_ATTR(inst, IXT_STAT_INSTANCE, fail_type, IXT_SI_FAIL_TYPE);
IXT_STAT_ATTR(inst, IXT_STAT_INSTANCE, fail_rem_name, IXT_SI_FAIL_REM_NAME);
IXT_STAT_ATTR(inst, IXT_STAT_INSTANCE, disc_time, IXT_SI_DISC_TIME);
IXT_STAT_ATTR(inst, IXT_STAT_INSTANCE, description, IXT_SI_DESCRIPTION);
IXT_STAT_ATTR(inst, IXT_STAT_INSTANCE, vendor, IXT_SI_VENDOR);
IXT_STAT_ATTR(inst, IXT_STAT_INSTANCE, version, IXT_SI_VERSION);

static struct configfs_attribute *ixt_stat_inst_attrs[] = {
	&ixt_stat_inst_attr_inst,
	&ixt_stat_inst_attr_min_ver,
	&ixt_stat_inst_attr_max_ver,
	&ixt_stat_inst_attr_portals,
	&ixt_stat_inst_attr_nodes,
	&ixt_stat_inst_attr_sessions,
	&ixt_stat_inst_attr_fail_sess,
	&ixt_stat_inst_attr_fail_type,
	&ixt_stat_inst_attr_fail_rem_name,
	&ixt_stat_inst_attr_disc_time,
	&ixt_stat_inst_attr_description,
	&ixt_stat_inst_attr_vendor,
	&ixt_stat_inst_attr_version,
	NULL,
};

IXT_STAT_ATTR(err, IXT_STAT_SESS_ERR, inst, IXT_SI_INST);
IXT_STAT_ATTR(err, IXT_STAT_SESS_ERR, digest_errors, IXT_SI_DIGEST_ERRORS);
IXT_STAT_ATTR(err, IXT_STAT_SESS_ERR, cxn_errors, IXT_SI_CXN_ERRORS);
IXT_STAT_ATTR(err, IXT_STAT_SESS_ERR, format_errors, IXT_SI_FORMAT_ERRORS);

static struct configfs_attribute *ixt_stat_err_attrs[] = {
	&ixt_stat_err_attr_inst,
	&ixt_stat_err_attr_digest_errors,
	&ixt_stat_err_attr_cxn_errors,
	&ixt_stat_err_attr_format_errors,
	NULL,
};

IXT_STAT_ATTR(tgt, IXT_STAT_TGT_ATTR, inst, IXT_SI_INST);
IXT_STAT_ATTR(tgt, IXT_STAT_TGT_ATTR, indx, IXT_SI_INDX);
IXT_STAT_ATTR(tgt, IXT_STAT_TGT_ATTR, login_fails, IXT_SI_LOGIN_FAILS);
IXT_STAT_ATTR(tgt, IXT_STAT_TGT_ATTR, last_fail_time, IXT_SI_LAST_FAIL_TIME);
IXT_STAT_ATTR(tgt, IXT_STAT_TGT_ATTR, last_fail_type, IXT_SI_LAST_FAIL_TYPE);
IXT_STAT_ATTR(tgt, IXT_STAT_TGT_ATTR, fail_intr_name, IXT_SI_FAIL_INTR_NAME);
IXT_STAT_ATTR(tgt, IXT_STAT_TGT_ATTR, fail_intr_addr_type,
	      IXT_SI_FAIL_INTR_ADDR_TYPE);
IXT_STAT_ATTR(tgt, IXT_STAT_TGT_ATTR, fail_intr_addr, IXT_SI_FAIL_INTR_ADDR);

static struct configfs_attribute *ixt_stat_tgt_attrs[] = {
	&ixt_stat_tgt_attr_inst,
	&ixt_stat_tgt_attr_indx,
	&ixt_stat_tgt_attr_login_fails,
	&ixt_stat_tgt_attr_last_fail_time,
	&ixt_stat_tgt_attr_last_fail_type,
	&ixt_stat_tgt_attr_fail_intr_name,
	&ixt_stat_tgt_attr_fail_intr_addr_type,
	&ixt_stat_tgt_attr_fail_intr_addr,
	NULL,
};

IXT_STAT_ATTR(login, IXT_STAT_LOGIN, inst, IXT_SI_INST);
IXT_STAT_ATTR(login, IXT_STAT_LOGIN, indx, IXT_SI_INDX);
IXT_STAT_ATTR(login, IXT_STAT_LOGIN, accepts, IXT_SI_ACCEPTS);
IXT_STAT_ATTR(login, IXT_STAT_LOGIN, other_fails, IXT_SI_OTHER_FAILS);
IXT_STAT_ATTR(login, IXT_STAT_LOGIN, redirects, IXT_SI_REDIRECTS);
IXT_STAT_ATTR(login, IXT_STAT_LOGIN, authorize_fails, IXT_SI_AUTHORIZE_FAILS);
IXT_STAT_ATTR(login, IXT_STAT_LOGIN, authenticate_fails,
	      IXT_SI_AUTHENTICATE_FAILS);
IXT_STAT_ATTR(login, IXT_STAT_LOGIN, negotiate_fails, IXT_SI_NEGOTIATE_FAILS);

static struct configfs_attribute *ixt_stat_login_attrs[] = {
	&ixt_stat_login_attr_inst,
	&ixt_stat_login_attr_indx,
	&ixt_stat_login_attr_accepts,
	&ixt_stat_login_attr_other_fails,
	&ixt_stat_login_attr_redirects,
	&ixt_stat_login_attr_authorize_fails,
	&ixt_stat_login_attr_authenticate_fails,
	&ixt_stat_login_attr_negotiate_fails,
	NULL,
};

IXT_STAT_ATTR(logout, IXT_STAT_LOGOUT, inst, IXT_SI_INST);
IXT_STAT_ATTR(logout, IXT_STAT_LOGOUT, indx, IXT_SI_INDX);
IXT_STAT_ATTR(logout, IXT_STAT_LOGOUT, normal_logouts, IXT_SI_NORMAL_LOGOUTS);
IXT_STAT_ATTR(logout, IXT_STAT_LOGOUT, abnormal_logouts,
	      IXT_SI_ABNORMAL_LOGOUTS);

static struct configfs_attribute *ixt_stat_logout_attrs[] = {
	&ixt_stat_logout_attr_inst,
	&ixt_stat_logout_attr_indx,
	&ixt_stat_logout_attr_normal_logouts,
	&ixt_stat_logout_attr_abnormal_logouts,
	NULL,
};

static const struct config_item_type ixt_stat_cits[IXT_STAT_NR] = {
	[IXT_STAT_INSTANCE] = {
		.ct_attrs = ixt_stat_inst_attrs, .ct_owner = THIS_MODULE,
	},
	[IXT_STAT_SESS_ERR] = {
		.ct_attrs = ixt_stat_err_attrs, .ct_owner = THIS_MODULE,
	},
	[IXT_STAT_TGT_ATTR] = {
		.ct_attrs = ixt_stat_tgt_attrs, .ct_owner = THIS_MODULE,
	},
	[IXT_STAT_LOGIN] = {
		.ct_attrs = ixt_stat_login_attrs, .ct_owner = THIS_MODULE,
	},
	[IXT_STAT_LOGOUT] = {
		.ct_attrs = ixt_stat_logout_attrs, .ct_owner = THIS_MODULE,
	},
};

static const char * const ixt_stat_names[IXT_STAT_NR] = {
	[IXT_STAT_INSTANCE]	= "iscsi_instance",
	[IXT_STAT_SESS_ERR]	= "iscsi_sess_err",
	[IXT_STAT_TGT_ATTR]	= "iscsi_tgt_attr",
	[IXT_STAT_LOGIN]	= "iscsi_login_stats",
	[IXT_STAT_LOGOUT]	= "iscsi_logout_stats",
};

/**
 * ixt_add_wwn_groups() - add the statistics groups of a new target node
 * @wwn: the node, whose fabric_statistics/ group the core has set up.
 *
 * The core removes them with fabric_statistics/ when the node goes.
 *
 * Context: Process context, from configfs mkdir.
 */
void ixt_add_wwn_groups(struct se_wwn *wwn)
{
	struct ixt_tiqn *tiqn = to_ixt_tiqn(wwn);
	int i;

	for (i = 0; i < IXT_STAT_NR; i++) {
		config_group_init_type_name(&tiqn->stat_groups[i],
					    ixt_stat_names[i],
					    &ixt_stat_cits[i]);
		configfs_add_default_group(&tiqn->stat_groups[i],
					   &wwn->fabric_stat_group);
	}
}

/*
 * fabric_statistics/iscsi_sess_stats/ of an ACL: the counters of its
 * session. Without a session every file but inst reads empty, as in LIO.
 */

enum ixt_sess_stat_id {
	IXT_SS_NODE,
	IXT_SS_INDX,
	IXT_SS_CMD_PDUS,
	IXT_SS_RSP_PDUS,
	IXT_SS_TXDATA_OCTS,
	IXT_SS_RXDATA_OCTS,
	IXT_SS_CONN_DIGEST_ERRORS,
	IXT_SS_CONN_TIMEOUT_ERRORS,
};

static long ixt_sess_stat_value(const struct ixt_sess_stats *ss,
				enum ixt_sess_stat_id id)
{
	switch (id) {
	case IXT_SS_NODE:
		return ss->discovery ? 0 : IXT_STAT_NODE_INDEX;
	case IXT_SS_INDX:
		return ss->index;
	case IXT_SS_CMD_PDUS:
		return atomic_long_read(&ss->cmd_pdus);
	case IXT_SS_RSP_PDUS:
		return atomic_long_read(&ss->rsp_pdus);
	case IXT_SS_TXDATA_OCTS:
		return atomic_long_read(&ss->txdata_octs);
	case IXT_SS_RXDATA_OCTS:
		return atomic_long_read(&ss->rxdata_octs);
	case IXT_SS_CONN_DIGEST_ERRORS:
		return atomic_long_read(&ss->conn_digest_errors);
	case IXT_SS_CONN_TIMEOUT_ERRORS:
		return atomic_long_read(&ss->conn_timeout_errors);
	}
	return 0;
}

static struct ixt_node_acl *ixt_sess_stats_nacl(struct config_item *item)
{
	return container_of(to_config_group(item), struct ixt_node_acl,
			    sess_stats_group);
}

static ssize_t ixt_sess_stat_show(struct config_item *item,
				  enum ixt_sess_stat_id id, char *page)
{
	struct ixt_node_acl *nacl = ixt_sess_stats_nacl(item);
	ssize_t ret = 0;

	spin_lock_bh(&nacl->se_nacl.nacl_sess_lock);
	if (nacl->sess_stats)
		ret = sysfs_emit(page, "%lu\n",
				 ixt_sess_stat_value(nacl->sess_stats, id));
	spin_unlock_bh(&nacl->se_nacl.nacl_sess_lock);
	return ret;
}

static ssize_t ixt_sess_stat_inst_show(struct config_item *item, char *page)
{
	struct ixt_node_acl *nacl = ixt_sess_stats_nacl(item);

	return sysfs_emit(page, "%u\n",
			  to_ixt_tpg(nacl->se_nacl.se_tpg)->tiqn->index);
}

#define IXT_SESS_STAT_ATTR(_name, _id)					\
static ssize_t ixt_sess_stat_##_name##_show(struct config_item *item,	\
					    char *page)			\
{									\
	return ixt_sess_stat_show(item, _id, page);			\
}									\
									\
CONFIGFS_ATTR_RO(ixt_sess_stat_, _name)

CONFIGFS_ATTR_RO(ixt_sess_stat_, inst);
IXT_SESS_STAT_ATTR(node, IXT_SS_NODE);
IXT_SESS_STAT_ATTR(indx, IXT_SS_INDX);
IXT_SESS_STAT_ATTR(cmd_pdus, IXT_SS_CMD_PDUS);
IXT_SESS_STAT_ATTR(rsp_pdus, IXT_SS_RSP_PDUS);
IXT_SESS_STAT_ATTR(txdata_octs, IXT_SS_TXDATA_OCTS);
IXT_SESS_STAT_ATTR(rxdata_octs, IXT_SS_RXDATA_OCTS);
IXT_SESS_STAT_ATTR(conn_digest_errors, IXT_SS_CONN_DIGEST_ERRORS);
IXT_SESS_STAT_ATTR(conn_timeout_errors, IXT_SS_CONN_TIMEOUT_ERRORS);

static struct configfs_attribute *ixt_sess_stat_attrs[] = {
	&ixt_sess_stat_attr_inst,
	&ixt_sess_stat_attr_node,
	&ixt_sess_stat_attr_indx,
	&ixt_sess_stat_attr_cmd_pdus,
	&ixt_sess_stat_attr_rsp_pdus,
	&ixt_sess_stat_attr_txdata_octs,
	&ixt_sess_stat_attr_rxdata_octs,
	&ixt_sess_stat_attr_conn_digest_errors,
	&ixt_sess_stat_attr_conn_timeout_errors,
	NULL,
};

static const struct config_item_type ixt_sess_stat_cit = {
	.ct_attrs	= ixt_sess_stat_attrs,
	.ct_owner	= THIS_MODULE,
};

/**
 * ixt_stats_nacl_init() - add fabric_statistics/iscsi_sess_stats to an ACL
 * @nacl: the ACL, made by configfs mkdir; the core has set up its
 *	fabric_statistics/ group and removes it, with this group, when the
 *	ACL goes.
 *
 * Context: Process context, from configfs mkdir.
 */
void ixt_stats_nacl_init(struct ixt_node_acl *nacl)
{
	config_group_init_type_name(&nacl->sess_stats_group,
				    "iscsi_sess_stats", &ixt_sess_stat_cit);
	configfs_add_default_group(&nacl->sess_stats_group,
				   &nacl->se_nacl.acl_fabric_stat_group);
}
