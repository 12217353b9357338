/* SPDX-License-Identifier: GPL-2.0 */
/* iscsi_xt: fabric objects and functions shared by the files of the module. */
#ifndef _ISCSI_XT_H
#define _ISCSI_XT_H

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/container_of.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <linux/stddef.h>
#include <linux/types.h>
#include <scsi/iscsi_proto.h>
#include <target/target_core_base.h>

/* Reported in the fabric's lio_version attribute. */
#define IXT_VERSION		"0.1.0"

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
 * @cred: NUL-terminated credentials indexed by &enum ixt_auth_field; an
 *	empty string means "not set".
 *
 * Mutual authentication is requested when both mutual credentials are set.
 */
struct ixt_auth {
	struct mutex lock;	/* protects cred */
	char cred[IXT_AUTH_NR][IXT_AUTH_LEN];
};

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
 * struct ixt_tiqn - an iSCSI target node: target/iscsi/<name>
 * @wwn: the target core's view of the node; its groups hold the TPGs.
 * @name: iSCSI name of the node, validated when the node was made.
 *
 * Lifetime: made by configfs mkdir, freed by the release of its configfs
 * item, which configfs only allows once every TPG below it is gone.
 */
struct ixt_tiqn {
	struct se_wwn wwn;
	char name[ISCSI_NAME_LEN];
};

/**
 * struct ixt_tpg - a target portal group: <node>/tpgt_<tag>
 * @se_tpg: the target core's view of the TPG (LUNs, ACLs, sessions).
 * @tiqn: node the TPG belongs to; outlives the TPG.
 * @tpgt: target portal group tag, 1..65535, fixed at creation.
 * @lock: serialises writers of @attrib and of &struct ixt_np.iser of the
 *	TPG's portals. Readers that cannot sleep use ixt_tpg_attrib(),
 *	which reads one value without the lock.
 * @attrib: attribute values indexed by &enum ixt_tpg_attr; written with
 *	WRITE_ONCE() under @lock.
 * @auth: CHAP credentials used when @attrib requests TPG-wide CHAP.
 */
struct ixt_tpg {
	struct se_portal_group se_tpg;
	struct ixt_tiqn *tiqn;
	u16 tpgt;
	struct mutex lock;	/* serialises attrib and np->iser writers */
	u32 attrib[IXT_TA_NR];
	struct ixt_auth auth;
};

/**
 * struct ixt_np - a network portal of a TPG: <tpg>/np/<address>:<port>
 * @se_np: the target core's view of the portal.
 * @addr: parsed address and port (&struct sockaddr_in or sockaddr_in6).
 * @iser: the portal also accepts iSER connections; protected by the
 *	owning &struct ixt_tpg.lock.
 *
 * Only configuration for now: listeners are not started yet.
 */
struct ixt_np {
	struct se_tpg_np se_np;
	struct sockaddr_storage addr;
	bool iser;
};

/**
 * struct ixt_node_acl - an initiator ACL of a TPG: <tpg>/acls/<name>
 * @se_nacl: the target core's view of the ACL. Must stay the first member:
 *	the core allocates the fabric's node_acl_size bytes and frees them
 *	through a pointer to @se_nacl.
 * @auth: CHAP credentials of this initiator.
 */
struct ixt_node_acl {
	struct se_node_acl se_nacl;
	struct ixt_auth auth;
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

/* The fabric's configfs attribute tables, defined with their handlers. */
extern struct configfs_attribute *ixt_fabric_attrs[];
extern struct configfs_attribute *ixt_discovery_attrs[];
extern struct configfs_attribute *ixt_tpg_attrs[];
extern struct configfs_attribute *ixt_tpg_attrib_attrs[];
extern struct configfs_attribute *ixt_tpg_auth_attrs[];
extern struct configfs_attribute *ixt_np_attrs[];
extern struct configfs_attribute *ixt_nacl_attrs[];
extern struct configfs_attribute *ixt_nacl_auth_attrs[];

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

int iscsit_register_transport(void *transport);

#endif /* _ISCSI_XT_H */
