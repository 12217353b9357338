// SPDX-License-Identifier: GPL-2.0
/* iscsi_xt: the configfs tree of the fabric, as rtslib and targetcli drive it. */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/array_size.h>
#include <linux/bits.h>
#include <linux/capability.h>
#include <linux/configfs.h>
#include <linux/cpumask.h>
#include <linux/ctype.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/kstrtox.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <net/ipv6.h>
#include <scsi/scsi_proto.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include <iscsi_xt/params.h>

#include "conn.h"
#include "fault.h"
#include "iscsi_xt.h"
#include "session.h"

/* Largest command window of an ACL, as in LIO. */
#define IXT_CMDSN_DEPTH_MAX	512

/*
 * Names and values
 *
 * Tags and ports in names must be canonical decimal (no sign, no leading
 * zero), so that "tpgt_1" cannot be created a second time as "tpgt_01".
 */

static bool ixt_is_canonical_decimal(const char *s)
{
	if (*s < '1' || *s > '9')
		return false;
	while (isdigit(*s))
		s++;
	return *s == '\0';
}

/* Parse "0" or "1" as LIO does (kstrtou32 base 0) into a bool. */
static int ixt_parse_flag(const char *page, bool *flag)
{
	u32 val;

	if (kstrtou32(page, 0, &val) || val > 1)
		return -EINVAL;
	*flag = val;
	return 0;
}

static int ixt_check_node_name(const char *name)
{
	static const char * const prefixes[] = { "iqn.", "eui.", "naa." };
	size_t i;

	if (strlen(name) >= ISCSI_NAME_LEN) {
		pr_err("target name longer than %d bytes: %s\n",
		       ISCSI_NAME_LEN - 1, name);
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (str_has_prefix(name, prefixes[i]))
			return 0;
	pr_err("target name must start with iqn., eui. or naa.: %s\n", name);
	return -EINVAL;
}

static int ixt_parse_tpgt(const char *name, u16 *tpgt)
{
	size_t len = str_has_prefix(name, "tpgt_");

	if (!len || !ixt_is_canonical_decimal(name + len) ||
	    kstrtou16(name + len, 10, tpgt)) {
		pr_err("TPG name must be tpgt_N with N in 1..65535: %s\n",
		       name);
		return -EINVAL;
	}
	return 0;
}

static int ixt_parse_port(const char *s, __be16 *port)
{
	u16 val;

	if (!ixt_is_canonical_decimal(s) || kstrtou16(s, 10, &val))
		return -EINVAL;
	*port = htons(val);
	return 0;
}

/*
 * A portal is named "a.b.c.d:port" or "[IPv6 address]:port", the names LIO
 * uses and rtslib writes. Scoped IPv6 addresses ("%dev") are not accepted.
 */
static int ixt_parse_portal(const char *name, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	const char *end;

	memset(ss, 0, sizeof(*ss));
	if (name[0] == '[') {
		if (!in6_pton(name + 1, -1, sin6->sin6_addr.s6_addr, ']',
			      &end) || end[0] != ']' || end[1] != ':')
			return -EINVAL;
		sin6->sin6_family = AF_INET6;
		return ixt_parse_port(end + 2, &sin6->sin6_port);
	}
	if (!in4_pton(name, -1, (u8 *)&sin->sin_addr.s_addr, ':', &end) ||
	    end[0] != ':')
		return -EINVAL;
	sin->sin_family = AF_INET;
	return ixt_parse_port(end + 1, &sin->sin_port);
}

/*
 * CHAP credentials: shared by discovery_auth/, <tpg>/auth/ and
 * <acl>/auth/. As in LIO they are readable and writable by CAP_SYS_ADMIN
 * only, and "NULL" (what rtslib writes for "unset") is kept as written but
 * counts as unset. Unlike LIO, a trailing newline ("echo secret >") is
 * not made part of the credential.
 */

static const char * const ixt_auth_names[IXT_AUTH_NR] = {
	[IXT_AUTH_USERID]		= "userid",
	[IXT_AUTH_PASSWORD]		= "password",
	[IXT_AUTH_USERID_MUTUAL]	= "userid_mutual",
	[IXT_AUTH_PASSWORD_MUTUAL]	= "password_mutual",
};

static void ixt_auth_init(struct ixt_auth *auth)
{
	mutex_init(&auth->lock);
}

static ssize_t ixt_auth_show(struct ixt_auth *auth, enum ixt_auth_field field,
			     char *page)
{
	ssize_t ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	mutex_lock(&auth->lock);
	ret = sysfs_emit(page, "%s\n", auth->cred[field]);
	mutex_unlock(&auth->lock);
	return ret;
}

static ssize_t ixt_auth_store(struct ixt_auth *auth, enum ixt_auth_field field,
			      const char *page, size_t count)
{
	size_t len = count;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (len && page[len - 1] == '\n')
		len--;
	if (len >= IXT_AUTH_LEN || strnlen(page, len) != len ||
	    memchr(page, '\n', len)) {
		pr_err("auth %s: a single line of at most %d bytes expected\n",
		       ixt_auth_names[field], IXT_AUTH_LEN - 1);
		return -EINVAL;
	}

	/* Kept as written: "NULL" reads back as "NULL", as in LIO. */
	mutex_lock(&auth->lock);
	memcpy(auth->cred[field], page, len);
	auth->cred[field][len] = '\0';
	mutex_unlock(&auth->lock);
	return count;
}

static ssize_t ixt_auth_target_show(struct ixt_auth *auth, char *page)
{
	bool mutual;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	mutex_lock(&auth->lock);
	mutual = ixt_auth_cred_is_set(auth->cred[IXT_AUTH_USERID_MUTUAL]) &&
		 ixt_auth_cred_is_set(auth->cred[IXT_AUTH_PASSWORD_MUTUAL]);
	mutex_unlock(&auth->lock);
	return sysfs_emit(page, "%d\n", mutual);
}

/*
 * configfs hands show() and store() the item only, so each credential of
 * each context needs its own pair of functions; these macros write them.
 * ixt_<ctx>_auth(item) must return the context's &struct ixt_auth.
 */
#define IXT_AUTH_ATTR(_ctx, _name, _field)				\
static const enum ixt_auth_field ixt_##_ctx##_auth_##_name##_field = _field; \
									\
static ssize_t ixt_##_ctx##_auth_##_name##_show(struct config_item *item, \
						char *page)		\
{									\
	return ixt_auth_show(ixt_##_ctx##_auth(item),			\
			     ixt_##_ctx##_auth_##_name##_field, page);	\
}									\
									\
static ssize_t ixt_##_ctx##_auth_##_name##_store(struct config_item *item, \
						 const char *page,	\
						 size_t count)		\
{									\
	return ixt_auth_store(ixt_##_ctx##_auth(item),			\
			      ixt_##_ctx##_auth_##_name##_field, page,	\
			      count);					\
}									\
									\
CONFIGFS_ATTR(ixt_##_ctx##_auth_, _name)

#define IXT_AUTH_TARGET_ATTR(_ctx)					\
static ssize_t								\
ixt_##_ctx##_auth_authenticate_target_show(struct config_item *item,	\
					   char *page)			\
{									\
	return ixt_auth_target_show(ixt_##_ctx##_auth(item), page);	\
}									\
									\
CONFIGFS_ATTR_RO(ixt_##_ctx##_auth_, authenticate_target)

/*
 * Fabric root: target/iscsi/
 */

static ssize_t ixt_fabric_lio_version_show(struct config_item *item,
					   char *page)
{
	return sysfs_emit(page, "iscsi_xt iSCSI Target %s\n", IXT_VERSION);
}

CONFIGFS_ATTR_RO(ixt_fabric_, lio_version);

/*
 * CPUs the fabric's connection threads may run on, all at first; read and
 * written as a CPU list ("0-3,8"), as in LIO.
 */
static struct cpumask ixt_cpus_allowed = CPU_MASK_ALL;
static DEFINE_SPINLOCK(ixt_cpus_allowed_lock);	/* protects ixt_cpus_allowed */

static ssize_t ixt_fabric_cpus_allowed_list_show(struct config_item *item,
						 char *page)
{
	ssize_t ret;

	spin_lock(&ixt_cpus_allowed_lock);
	ret = sysfs_emit(page, "%*pbl\n", cpumask_pr_args(&ixt_cpus_allowed));
	spin_unlock(&ixt_cpus_allowed_lock);
	return ret;
}

static ssize_t ixt_fabric_cpus_allowed_list_store(struct config_item *item,
						  const char *page,
						  size_t count)
{
	cpumask_var_t mask;
	int ret;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	ret = cpulist_parse(page, mask);
	if (ret) {
		pr_err("cpus_allowed_list: a list of this machine's CPUs (\"0-3,8\") expected\n");
	} else {
		spin_lock(&ixt_cpus_allowed_lock);
		cpumask_copy(&ixt_cpus_allowed, mask);
		spin_unlock(&ixt_cpus_allowed_lock);
	}
	free_cpumask_var(mask);
	/* cpulist_parse()'s errno, as LIO's: ERANGE for a CPU past the last */
	if (ret)
		return ret;
	return count;
}

CONFIGFS_ATTR(ixt_fabric_, cpus_allowed_list);

struct configfs_attribute *ixt_fabric_attrs[] = {
	&ixt_fabric_attr_lio_version,
	&ixt_fabric_attr_cpus_allowed_list,
	NULL,
};

/*
 * Discovery: target/iscsi/discovery_auth/
 */

/**
 * struct ixt_discovery - settings of SendTargets discovery sessions
 * @auth: CHAP credentials a discovery session is checked against;
 *	@auth.lock also protects @enforce.
 * @enforce: discovery sessions must authenticate with CHAP.
 */
struct ixt_discovery {
	struct ixt_auth auth;
	bool enforce;
};

static struct ixt_discovery ixt_discovery = {
	.auth.lock = __MUTEX_INITIALIZER(ixt_discovery.auth.lock),
};

static struct ixt_auth *ixt_disc_auth(struct config_item *item)
{
	return &ixt_discovery.auth;
}

IXT_AUTH_ATTR(disc, userid, IXT_AUTH_USERID);
IXT_AUTH_ATTR(disc, password, IXT_AUTH_PASSWORD);
IXT_AUTH_ATTR(disc, userid_mutual, IXT_AUTH_USERID_MUTUAL);
IXT_AUTH_ATTR(disc, password_mutual, IXT_AUTH_PASSWORD_MUTUAL);
IXT_AUTH_TARGET_ATTR(disc);

static ssize_t ixt_disc_enforce_discovery_auth_show(struct config_item *item,
						    char *page)
{
	bool enforce;

	mutex_lock(&ixt_discovery.auth.lock);
	enforce = ixt_discovery.enforce;
	mutex_unlock(&ixt_discovery.auth.lock);
	return sysfs_emit(page, "%d\n", enforce);
}

static ssize_t ixt_disc_enforce_discovery_auth_store(struct config_item *item,
						     const char *page,
						     size_t count)
{
	bool enforce;

	if (ixt_parse_flag(page, &enforce)) {
		pr_err("enforce_discovery_auth: 0 or 1 expected\n");
		return -EINVAL;
	}
	mutex_lock(&ixt_discovery.auth.lock);
	ixt_discovery.enforce = enforce;
	mutex_unlock(&ixt_discovery.auth.lock);
	return count;
}

CONFIGFS_ATTR(ixt_disc_, enforce_discovery_auth);

/**
 * ixt_discovery_auth() - the credentials of discovery sessions
 * @enforce: set to whether enforce_discovery_auth requires CHAP.
 *
 * Context: Process context; takes and releases the credentials' lock.
 * Return: the discovery_auth credentials, which live as long as the
 * module; copy them under their lock.
 */
struct ixt_auth *ixt_discovery_auth(bool *enforce)
{
	mutex_lock(&ixt_discovery.auth.lock);
	*enforce = ixt_discovery.enforce;
	mutex_unlock(&ixt_discovery.auth.lock);
	return &ixt_discovery.auth;
}

struct configfs_attribute *ixt_discovery_attrs[] = {
	&ixt_disc_auth_attr_userid,
	&ixt_disc_auth_attr_password,
	&ixt_disc_auth_attr_authenticate_target,
	&ixt_disc_auth_attr_userid_mutual,
	&ixt_disc_auth_attr_password_mutual,
	&ixt_disc_attr_enforce_discovery_auth,
	NULL,
};

/*
 * Target nodes: target/iscsi/<name>/
 */

/**
 * ixt_make_tiqn() - create a target node for a configfs mkdir
 * @tf: the fabric (unused: there is one).
 * @group: the fabric's root group (unused).
 * @name: directory name, the node's iSCSI name.
 *
 * Context: Process context, from configfs mkdir.
 * Return: the node's &struct se_wwn, or an ERR_PTR(): -EINVAL when @name
 * is not an iSCSI name ("iqn.", "eui." or "naa." prefix, at most 223
 * bytes), -ENOMEM, or -ENOSPC when no statistics index is left.
 */
struct se_wwn *ixt_make_tiqn(struct target_fabric_configfs *tf,
			     struct config_group *group, const char *name)
{
	struct ixt_tiqn *tiqn;
	int ret;

	ret = ixt_check_node_name(name);
	if (ret)
		return ERR_PTR(ret);

	tiqn = ixt_fault(IXT_FAULT_TIQN) ? NULL :
	       kzalloc(sizeof(*tiqn), GFP_KERNEL);
	if (!tiqn)
		return ERR_PTR(-ENOMEM);
	ret = ixt_stats_init(tiqn);
	if (ret) {
		kfree(tiqn);
		return ERR_PTR(ret);
	}
	strscpy(tiqn->name, name, sizeof(tiqn->name));
	mutex_init(&tiqn->np_lock);
	INIT_LIST_HEAD(&tiqn->nps);
	pr_debug("target %s created\n", tiqn->name);
	return &tiqn->wwn;
}

/**
 * ixt_drop_tiqn() - free a target node
 * @wwn: the node, whose TPGs are all gone.
 *
 * Context: Process context, from the release of the node's configfs item.
 */
void ixt_drop_tiqn(struct se_wwn *wwn)
{
	struct ixt_tiqn *tiqn = to_ixt_tiqn(wwn);

	pr_debug("target %s removed\n", tiqn->name);
	ixt_stats_destroy(tiqn);
	mutex_destroy(&tiqn->np_lock);
	kfree(tiqn);
}

/*
 * TPG attributes: <tpg>/attrib/
 */

/**
 * struct ixt_tpg_attr_desc - what a TPG attribute accepts
 * @name: configfs file name, for messages.
 * @def: value in a new TPG.
 * @min: smallest value accepted.
 * @max: largest value accepted.
 * @allowed: if not zero, bit N set means value N is accepted; for
 *	enumerations with holes (@max must then be below 32).
 */
struct ixt_tpg_attr_desc {
	const char *name;
	u32 def;
	u32 min;
	u32 max;
	u32 allowed;
};

/* Names, defaults and bounds are LIO's, so saved configurations move over. */
static const struct ixt_tpg_attr_desc ixt_tpg_attr_descs[IXT_TA_NR] = {
	[IXT_TA_AUTHENTICATION] = {
		.name = "authentication", .def = 1, .max = 1,
	},
	[IXT_TA_LOGIN_TIMEOUT] = {
		.name = "login_timeout", .def = 15, .min = 5, .max = 30,
	},
	[IXT_TA_GENERATE_NODE_ACLS] = {
		.name = "generate_node_acls", .def = 0, .max = 1,
	},
	[IXT_TA_DEFAULT_CMDSN_DEPTH] = {
		.name = "default_cmdsn_depth", .def = 64, .min = 1,
		.max = IXT_CMDSN_DEPTH_MAX,
	},
	[IXT_TA_CACHE_DYNAMIC_ACLS] = {
		.name = "cache_dynamic_acls", .def = 0, .max = 1,
	},
	[IXT_TA_DEMO_MODE_WRITE_PROTECT] = {
		.name = "demo_mode_write_protect", .def = 1, .max = 1,
	},
	[IXT_TA_PROD_MODE_WRITE_PROTECT] = {
		.name = "prod_mode_write_protect", .def = 0, .max = 1,
	},
	[IXT_TA_DEMO_MODE_DISCOVERY] = {
		.name = "demo_mode_discovery", .def = 1, .max = 1,
	},
	[IXT_TA_DEFAULT_ERL] = {
		.name = "default_erl", .def = 0, .max = 2,
	},
	[IXT_TA_T10_PI] = {
		.name = "t10_pi", .def = 0, .max = 1,
	},
	[IXT_TA_FABRIC_PROT_TYPE] = {
		.name = "fabric_prot_type", .def = 0, .max = 3,
		.allowed = BIT(0) | BIT(1) | BIT(3),
	},
	[IXT_TA_TPG_ENABLED_SENDTARGETS] = {
		.name = "tpg_enabled_sendtargets", .def = 1, .max = 1,
	},
	[IXT_TA_LOGIN_KEYS_WORKAROUND] = {
		.name = "login_keys_workaround", .def = 1, .max = 1,
	},
};

static bool ixt_tpg_attr_valid(const struct ixt_tpg_attr_desc *desc, u32 val)
{
	if (val < desc->min || val > desc->max)
		return false;
	return !desc->allowed || (desc->allowed & BIT(val));
}

static void ixt_tpg_attr_reject(const struct ixt_tpg *tpg,
				const struct ixt_tpg_attr_desc *desc)
{
	char values[64] = "";
	size_t len = 0;
	u32 val;

	if (!desc->allowed) {
		pr_err("%s tpgt_%u: %s must be in %u..%u\n", tpg->tiqn->name,
		       tpg->tpgt, desc->name, desc->min, desc->max);
		return;
	}
	for (val = desc->min; val <= desc->max; val++)
		if (desc->allowed & BIT(val))
			len += scnprintf(values + len, sizeof(values) - len,
					 " %u", val);
	pr_err("%s tpgt_%u: %s must be one of:%s\n", tpg->tiqn->name,
	       tpg->tpgt, desc->name, values);
}

static void ixt_tpg_attrib_init(struct ixt_tpg *tpg)
{
	int i;

	for (i = 0; i < IXT_TA_NR; i++)
		tpg->attrib[i] = ixt_tpg_attr_descs[i].def;
}

/*
 * As in LIO, the authentication attribute edits the AuthMethod offer:
 * required authentication takes "None" out of it ("CHAP" if nothing else
 * is left), optional authentication adds "None" at its end.
 */
static void ixt_tpg_auth_method_follow(struct ixt_tpg *tpg)
{
	struct ixt_vlist *am = &tpg->offer.auth_method;
	int i, nr = 0;

	lockdep_assert_held(&tpg->lock);

	if (!tpg->attrib[IXT_TA_AUTHENTICATION]) {
		for (i = 0; i < am->nr; i++)
			if (am->v[i] == IXT_AUTH_NONE)
				return;
		if (am->nr < IXT_VLIST_MAX)
			am->v[am->nr++] = IXT_AUTH_NONE;
		return;
	}
	for (i = 0; i < am->nr; i++)
		if (am->v[i] != IXT_AUTH_NONE)
			am->v[nr++] = am->v[i];
	if (!nr)
		am->v[nr++] = IXT_AUTH_CHAP;
	am->nr = nr;
}

static void ixt_tpg_attrib_set(struct ixt_tpg *tpg, enum ixt_tpg_attr attr,
			       u32 val)
{
	lockdep_assert_held(&tpg->lock);

	/*
	 * LIO keeps dynamic ACLs cached whenever demo mode is on, and ignores
	 * a request to stop caching them meanwhile rather than failing it:
	 * restoring a saved configuration writes both attributes in any
	 * order, so a refusal would break restoreconfig.
	 */
	if (attr == IXT_TA_CACHE_DYNAMIC_ACLS && !val &&
	    tpg->attrib[IXT_TA_GENERATE_NODE_ACLS]) {
		pr_debug("%s tpgt_%u: cache_dynamic_acls stays 1 in demo mode\n",
			 tpg->tiqn->name, tpg->tpgt);
		return;
	}
	WRITE_ONCE(tpg->attrib[attr], val);
	if (attr == IXT_TA_GENERATE_NODE_ACLS && val)
		WRITE_ONCE(tpg->attrib[IXT_TA_CACHE_DYNAMIC_ACLS], 1);
	if (attr == IXT_TA_AUTHENTICATION)
		ixt_tpg_auth_method_follow(tpg);
}

static ssize_t ixt_tpg_attrib_show(struct config_item *item,
				   enum ixt_tpg_attr attr, char *page)
{
	struct ixt_tpg *tpg = to_ixt_tpg(attrib_to_tpg(item));

	return sysfs_emit(page, "%u\n", ixt_tpg_attrib(tpg, attr));
}

static ssize_t ixt_tpg_attrib_store(struct config_item *item,
				    enum ixt_tpg_attr attr, const char *page,
				    size_t count)
{
	const struct ixt_tpg_attr_desc *desc = &ixt_tpg_attr_descs[attr];
	struct ixt_tpg *tpg = to_ixt_tpg(attrib_to_tpg(item));
	u32 val;

	if (kstrtou32(page, 0, &val) || !ixt_tpg_attr_valid(desc, val)) {
		ixt_tpg_attr_reject(tpg, desc);
		return -EINVAL;
	}
	mutex_lock(&tpg->lock);
	ixt_tpg_attrib_set(tpg, attr, val);
	mutex_unlock(&tpg->lock);
	return count;
}

/* One configfs file per attribute, all served by the two functions above. */
#define IXT_TPG_ATTRIB(_name, _attr)					\
static const enum ixt_tpg_attr ixt_tpg_attrib_##_name##_id = _attr;	\
									\
static ssize_t ixt_tpg_attrib_##_name##_show(struct config_item *item,	\
					     char *page)		\
{									\
	return ixt_tpg_attrib_show(item, ixt_tpg_attrib_##_name##_id,	\
				   page);				\
}									\
									\
static ssize_t ixt_tpg_attrib_##_name##_store(struct config_item *item,	\
					      const char *page,		\
					      size_t count)		\
{									\
	return ixt_tpg_attrib_store(item, ixt_tpg_attrib_##_name##_id,	\
				    page, count);			\
}									\
									\
CONFIGFS_ATTR(ixt_tpg_attrib_, _name)

IXT_TPG_ATTRIB(authentication, IXT_TA_AUTHENTICATION);
IXT_TPG_ATTRIB(login_timeout, IXT_TA_LOGIN_TIMEOUT);
IXT_TPG_ATTRIB(generate_node_acls, IXT_TA_GENERATE_NODE_ACLS);
IXT_TPG_ATTRIB(default_cmdsn_depth, IXT_TA_DEFAULT_CMDSN_DEPTH);
IXT_TPG_ATTRIB(cache_dynamic_acls, IXT_TA_CACHE_DYNAMIC_ACLS);
IXT_TPG_ATTRIB(demo_mode_write_protect, IXT_TA_DEMO_MODE_WRITE_PROTECT);
IXT_TPG_ATTRIB(prod_mode_write_protect, IXT_TA_PROD_MODE_WRITE_PROTECT);
IXT_TPG_ATTRIB(demo_mode_discovery, IXT_TA_DEMO_MODE_DISCOVERY);
IXT_TPG_ATTRIB(default_erl, IXT_TA_DEFAULT_ERL);
IXT_TPG_ATTRIB(t10_pi, IXT_TA_T10_PI);
IXT_TPG_ATTRIB(fabric_prot_type, IXT_TA_FABRIC_PROT_TYPE);
IXT_TPG_ATTRIB(tpg_enabled_sendtargets, IXT_TA_TPG_ENABLED_SENDTARGETS);
IXT_TPG_ATTRIB(login_keys_workaround, IXT_TA_LOGIN_KEYS_WORKAROUND);

struct configfs_attribute *ixt_tpg_attrib_attrs[] = {
	&ixt_tpg_attrib_attr_authentication,
	&ixt_tpg_attrib_attr_login_timeout,
	&ixt_tpg_attrib_attr_generate_node_acls,
	&ixt_tpg_attrib_attr_default_cmdsn_depth,
	&ixt_tpg_attrib_attr_cache_dynamic_acls,
	&ixt_tpg_attrib_attr_demo_mode_write_protect,
	&ixt_tpg_attrib_attr_prod_mode_write_protect,
	&ixt_tpg_attrib_attr_demo_mode_discovery,
	&ixt_tpg_attrib_attr_default_erl,
	&ixt_tpg_attrib_attr_t10_pi,
	&ixt_tpg_attrib_attr_fabric_prot_type,
	&ixt_tpg_attrib_attr_tpg_enabled_sendtargets,
	&ixt_tpg_attrib_attr_login_keys_workaround,
	NULL,
};

/* Every attribute of the enum has a file, and only those. */
static_assert(ARRAY_SIZE(ixt_tpg_attrib_attrs) == IXT_TA_NR + 1);

/*
 * TPG credentials: <tpg>/auth/
 */

static struct ixt_auth *ixt_tpg_auth(struct config_item *item)
{
	return &to_ixt_tpg(auth_to_tpg(item))->auth;
}

IXT_AUTH_ATTR(tpg, userid, IXT_AUTH_USERID);
IXT_AUTH_ATTR(tpg, password, IXT_AUTH_PASSWORD);
IXT_AUTH_ATTR(tpg, userid_mutual, IXT_AUTH_USERID_MUTUAL);
IXT_AUTH_ATTR(tpg, password_mutual, IXT_AUTH_PASSWORD_MUTUAL);
IXT_AUTH_TARGET_ATTR(tpg);

struct configfs_attribute *ixt_tpg_auth_attrs[] = {
	&ixt_tpg_auth_attr_userid,
	&ixt_tpg_auth_attr_password,
	&ixt_tpg_auth_attr_authenticate_target,
	&ixt_tpg_auth_attr_userid_mutual,
	&ixt_tpg_auth_attr_password_mutual,
	NULL,
};

/*
 * TPG parameters: <tpg>/param/, the TPG's offer for the login
 * negotiation. The set, names, defaults, syntax and validation are the
 * offer's (ixt_offer_*()); here they only meet configfs. configfs gives
 * show() and store() the item only, so each parameter has its own pair of
 * functions, written by IXT_TPG_PARAM(); the attribute names are filled
 * from the offer's table by ixt_configfs_init().
 */

static ssize_t ixt_tpg_param_show(struct config_item *item,
				  enum ixt_offer_param param, char *page)
{
	struct ixt_tpg *tpg = to_ixt_tpg(param_to_tpg(item));
	int len;

	mutex_lock(&tpg->lock);
	len = ixt_offer_show(&tpg->offer, param, page, PAGE_SIZE - 1);
	mutex_unlock(&tpg->lock);
	if (len < 0)
		return len;
	page[len++] = '\n';
	return len;
}

static ssize_t ixt_tpg_param_store(struct config_item *item,
				   enum ixt_offer_param param,
				   const char *page, size_t count)
{
	struct ixt_tpg *tpg = to_ixt_tpg(param_to_tpg(item));
	int ret;

	/* The offer strips one trailing newline, as LIO does. */
	mutex_lock(&tpg->lock);
	ret = ixt_offer_store(&tpg->offer, param, page, count);
	mutex_unlock(&tpg->lock);
	if (ret) {
		pr_err("%s tpgt_%u: invalid %s: %.*s\n", tpg->tiqn->name,
		       tpg->tpgt, ixt_offer_param_name(param),
		       (int)strcspn(page, "\n"), page);
		return -EINVAL;
	}
	return count;
}

#define IXT_TPG_PARAM(_id)						\
static const enum ixt_offer_param ixt_tpg_param_##_id##_param = _id;	\
									\
static ssize_t ixt_tpg_param_##_id##_show(struct config_item *item,	\
					  char *page)			\
{									\
	return ixt_tpg_param_show(item, ixt_tpg_param_##_id##_param,	\
				  page);				\
}									\
									\
static ssize_t ixt_tpg_param_##_id##_store(struct config_item *item,	\
					   const char *page,		\
					   size_t count)		\
{									\
	return ixt_tpg_param_store(item, ixt_tpg_param_##_id##_param,	\
				   page, count);			\
}

#define IXT_TPG_PARAM_ATTR(_id)						\
	[_id] = {							\
		.ca_owner	= THIS_MODULE,				\
		.ca_mode	= 0644,					\
		.show		= ixt_tpg_param_##_id##_show,		\
		.store		= ixt_tpg_param_##_id##_store,		\
	}

IXT_TPG_PARAM(IXT_PARAM_AUTH_METHOD)
IXT_TPG_PARAM(IXT_PARAM_HEADER_DIGEST)
IXT_TPG_PARAM(IXT_PARAM_DATA_DIGEST)
IXT_TPG_PARAM(IXT_PARAM_MAX_CONNECTIONS)
IXT_TPG_PARAM(IXT_PARAM_TARGET_ALIAS)
IXT_TPG_PARAM(IXT_PARAM_INITIAL_R2T)
IXT_TPG_PARAM(IXT_PARAM_IMMEDIATE_DATA)
IXT_TPG_PARAM(IXT_PARAM_MAX_RECV_DSL)
IXT_TPG_PARAM(IXT_PARAM_MAX_XMIT_DSL)
IXT_TPG_PARAM(IXT_PARAM_MAX_BURST)
IXT_TPG_PARAM(IXT_PARAM_FIRST_BURST)
IXT_TPG_PARAM(IXT_PARAM_TIME2WAIT)
IXT_TPG_PARAM(IXT_PARAM_TIME2RETAIN)
IXT_TPG_PARAM(IXT_PARAM_MAX_R2T)
IXT_TPG_PARAM(IXT_PARAM_DATA_PDU_IN_ORDER)
IXT_TPG_PARAM(IXT_PARAM_DATA_SEQ_IN_ORDER)
IXT_TPG_PARAM(IXT_PARAM_ERL)
IXT_TPG_PARAM(IXT_PARAM_IF_MARKER)
IXT_TPG_PARAM(IXT_PARAM_OF_MARKER)
IXT_TPG_PARAM(IXT_PARAM_IF_MARK_INT)
IXT_TPG_PARAM(IXT_PARAM_OF_MARK_INT)

/* Names filled by ixt_configfs_init(). */
static struct configfs_attribute ixt_tpg_param_attr[IXT_PARAM_NR] = {
	IXT_TPG_PARAM_ATTR(IXT_PARAM_AUTH_METHOD),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_HEADER_DIGEST),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_DATA_DIGEST),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_MAX_CONNECTIONS),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_TARGET_ALIAS),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_INITIAL_R2T),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_IMMEDIATE_DATA),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_MAX_RECV_DSL),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_MAX_XMIT_DSL),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_MAX_BURST),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_FIRST_BURST),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_TIME2WAIT),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_TIME2RETAIN),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_MAX_R2T),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_DATA_PDU_IN_ORDER),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_DATA_SEQ_IN_ORDER),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_ERL),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_IF_MARKER),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_OF_MARKER),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_IF_MARK_INT),
	IXT_TPG_PARAM_ATTR(IXT_PARAM_OF_MARK_INT),
};

struct configfs_attribute *ixt_tpg_param_attrs[IXT_PARAM_NR + 1] = {
	&ixt_tpg_param_attr[IXT_PARAM_AUTH_METHOD],
	&ixt_tpg_param_attr[IXT_PARAM_HEADER_DIGEST],
	&ixt_tpg_param_attr[IXT_PARAM_DATA_DIGEST],
	&ixt_tpg_param_attr[IXT_PARAM_MAX_CONNECTIONS],
	&ixt_tpg_param_attr[IXT_PARAM_TARGET_ALIAS],
	&ixt_tpg_param_attr[IXT_PARAM_INITIAL_R2T],
	&ixt_tpg_param_attr[IXT_PARAM_IMMEDIATE_DATA],
	&ixt_tpg_param_attr[IXT_PARAM_MAX_RECV_DSL],
	&ixt_tpg_param_attr[IXT_PARAM_MAX_XMIT_DSL],
	&ixt_tpg_param_attr[IXT_PARAM_MAX_BURST],
	&ixt_tpg_param_attr[IXT_PARAM_FIRST_BURST],
	&ixt_tpg_param_attr[IXT_PARAM_TIME2WAIT],
	&ixt_tpg_param_attr[IXT_PARAM_TIME2RETAIN],
	&ixt_tpg_param_attr[IXT_PARAM_MAX_R2T],
	&ixt_tpg_param_attr[IXT_PARAM_DATA_PDU_IN_ORDER],
	&ixt_tpg_param_attr[IXT_PARAM_DATA_SEQ_IN_ORDER],
	&ixt_tpg_param_attr[IXT_PARAM_ERL],
	&ixt_tpg_param_attr[IXT_PARAM_IF_MARKER],
	&ixt_tpg_param_attr[IXT_PARAM_OF_MARKER],
	&ixt_tpg_param_attr[IXT_PARAM_IF_MARK_INT],
	&ixt_tpg_param_attr[IXT_PARAM_OF_MARK_INT],
	NULL,
};

/*
 * TPGs: target/iscsi/<name>/tpgt_<tag>/ ("enable" is the target core's)
 */

static ssize_t ixt_tpg_dynamic_sessions_show(struct config_item *item,
					     char *page)
{
	return target_show_dynamic_sessions(to_tpg(item), page);
}

CONFIGFS_ATTR_RO(ixt_tpg_, dynamic_sessions);

struct configfs_attribute *ixt_tpg_attrs[] = {
	&ixt_tpg_attr_dynamic_sessions,
	NULL,
};

/**
 * ixt_make_tpg() - create a target portal group for a configfs mkdir
 * @wwn: the node the TPG belongs to.
 * @name: directory name, "tpgt_<tag>" with a tag of 1..65535.
 *
 * The TPG starts disabled, with LIO's default attributes.
 *
 * Context: Process context, from configfs mkdir.
 * Return: the TPG's &struct se_portal_group, or an ERR_PTR(): -EINVAL for
 * a malformed @name, -ENOMEM, or the target core's error.
 */
struct se_portal_group *ixt_make_tpg(struct se_wwn *wwn, const char *name)
{
	struct ixt_tpg *tpg;
	u16 tpgt;
	int ret;

	ret = ixt_parse_tpgt(name, &tpgt);
	if (ret)
		return ERR_PTR(ret);

	tpg = ixt_fault(IXT_FAULT_TPG) ? NULL :
	      kzalloc(sizeof(*tpg), GFP_KERNEL);
	if (!tpg)
		return ERR_PTR(-ENOMEM);
	tpg->tiqn = to_ixt_tiqn(wwn);
	tpg->tpgt = tpgt;
	mutex_init(&tpg->lock);
	ixt_tpg_attrib_init(tpg);
	ixt_offer_init(&tpg->offer, tpgt);
	ixt_auth_init(&tpg->auth);

	/* The core asks for the node name and tag, so set them first. */
	ret = core_tpg_register(wwn, &tpg->se_tpg, SCSI_PROTOCOL_ISCSI);
	if (ret)
		goto out_free_tpg;

	pr_debug("%s tpgt_%u created\n", tpg->tiqn->name, tpg->tpgt);
	return &tpg->se_tpg;

out_free_tpg:
	mutex_destroy(&tpg->auth.lock);
	mutex_destroy(&tpg->lock);
	kfree(tpg);
	return ERR_PTR(ret);
}

/**
 * ixt_enable_tpg() - enable or disable a TPG
 * @se_tpg: the TPG.
 * @enable: the state asked for through the target core's "enable" file.
 *
 * Called by the target core only when the state changes. Portals listen
 * whatever the state; what changes is whether logins find the TPG. As in
 * LIO, enabling a TPG that requires authentication makes sure its
 * AuthMethod offer does not let an initiator skip it. Disabling asks the
 * sessions to log out and closes what is left a few seconds later
 * (ixt_tpg_logout_sessions()); it does not wait for their commands.
 *
 * Context: Process context, from a configfs write.
 * Return: 0.
 */
int ixt_enable_tpg(struct se_portal_group *se_tpg, bool enable)
{
	struct ixt_tpg *tpg = to_ixt_tpg(se_tpg);

	if (enable) {
		mutex_lock(&tpg->lock);
		if (tpg->attrib[IXT_TA_AUTHENTICATION])
			ixt_tpg_auth_method_follow(tpg);
		mutex_unlock(&tpg->lock);
	}

	pr_debug("%s tpgt_%u %s\n", tpg->tiqn->name, tpg->tpgt,
		 enable ? "enabled" : "disabled");
	ixt_tpg_set_active(tpg, enable);
	if (!enable)
		ixt_tpg_logout_sessions(tpg);
	return 0;
}

/**
 * ixt_drop_tpg() - free a target portal group
 * @se_tpg: the TPG, whose portals, LUNs and ACLs are all gone.
 *
 * Context: Process context, from the release of the TPG's configfs item.
 */
void ixt_drop_tpg(struct se_portal_group *se_tpg)
{
	struct ixt_tpg *tpg = to_ixt_tpg(se_tpg);

	pr_debug("%s tpgt_%u removed\n", tpg->tiqn->name, tpg->tpgt);
	ixt_tpg_drain(tpg);
	core_tpg_deregister(se_tpg);
	mutex_destroy(&tpg->auth.lock);
	mutex_destroy(&tpg->lock);
	kfree(tpg);
}

/*
 * Network portals: <tpg>/np/<address>:<port>/
 */

static struct ixt_np *ixt_item_to_np(struct config_item *item)
{
	return to_ixt_np(to_tpg_np(item));
}

static ssize_t ixt_np_iser_show(struct config_item *item, char *page)
{
	struct ixt_np *np = ixt_item_to_np(item);
	struct ixt_tpg *tpg = np->tpg;
	bool iser;

	mutex_lock(&tpg->lock);
	iser = np->iser;
	mutex_unlock(&tpg->lock);
	return sysfs_emit(page, "%d\n", iser);
}

static ssize_t ixt_np_iser_store(struct config_item *item, const char *page,
				 size_t count)
{
	struct ixt_np *np = ixt_item_to_np(item);
	struct ixt_tpg *tpg = np->tpg;
	bool iser;
	int ret;

	if (ixt_parse_flag(page, &iser)) {
		pr_err("%s tpgt_%u: iser: 0 or 1 expected\n",
		       tpg->tiqn->name, tpg->tpgt);
		return -EINVAL;
	}
	mutex_lock(&tpg->lock);
	ret = ixt_portal_np_set_iser(np, tpg, iser);
	if (ret) {
		mutex_unlock(&tpg->lock);
		return ret;
	}
	/* LIO counts an iSER portal as one more portal of the node. */
	if (iser != np->iser)
		atomic_add(iser ? 1 : -1, &tpg->tiqn->nr_portals);
	WRITE_ONCE(np->iser, iser);
	mutex_unlock(&tpg->lock);
	return count;
}

CONFIGFS_ATTR(ixt_np_, iser);

/* Chelsio offload is a transport of LIO's; accept only "off". */
static ssize_t ixt_np_cxgbit_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "0\n");
}

static ssize_t ixt_np_cxgbit_store(struct config_item *item, const char *page,
				   size_t count)
{
	bool cxgbit;

	if (ixt_parse_flag(page, &cxgbit)) {
		pr_err("cxgbit: 0 or 1 expected\n");
		return -EINVAL;
	}
	if (cxgbit) {
		pr_err("cxgbit: offload is not supported\n");
		return -EINVAL;
	}
	return count;
}

CONFIGFS_ATTR(ixt_np_, cxgbit);

struct configfs_attribute *ixt_np_attrs[] = {
	&ixt_np_attr_iser,
	&ixt_np_attr_cxgbit,
	NULL,
};

/* A node's portal belongs to one of its TPGs only, as in LIO. */
static int ixt_tiqn_add_np(struct ixt_tiqn *tiqn, struct ixt_np *np)
{
	struct ixt_np *other;
	int ret = 0;

	mutex_lock(&tiqn->np_lock);
	list_for_each_entry(other, &tiqn->nps, node) {
		if (other->tpg != np->tpg &&
		    ixt_addr_equal(&other->addr, &np->addr)) {
			ret = -EEXIST;
			goto out_unlock;
		}
	}
	list_add_tail(&np->node, &tiqn->nps);
out_unlock:
	mutex_unlock(&tiqn->np_lock);
	return ret;
}

/**
 * ixt_make_np() - create a network portal for a configfs mkdir
 * @se_tpg: the TPG the portal belongs to.
 * @group: the TPG's np group (unused).
 * @name: directory name, "a.b.c.d:port" or "[IPv6 address]:port".
 *
 * Only records the address: portals do not listen in this version.
 *
 * Context: Process context, from configfs mkdir.
 * Return: the portal's &struct se_tpg_np, or an ERR_PTR(): -EINVAL for a
 * malformed @name, -EEXIST when another TPG of the node has the portal
 * (as in LIO), -ENOMEM.
 */
struct se_tpg_np *ixt_make_np(struct se_portal_group *se_tpg,
			      struct config_group *group, const char *name)
{
	struct ixt_tpg *tpg = to_ixt_tpg(se_tpg);
	struct sockaddr_storage addr;
	struct ixt_np *np;
	int ret;

	if (ixt_parse_portal(name, &addr)) {
		pr_err("%s tpgt_%u: portal must be IPv4:port or [IPv6]:port: %s\n",
		       tpg->tiqn->name, tpg->tpgt, name);
		return ERR_PTR(-EINVAL);
	}

	np = ixt_fault(IXT_FAULT_NP) ? NULL : kzalloc(sizeof(*np), GFP_KERNEL);
	if (!np)
		return ERR_PTR(-ENOMEM);
	np->tpg = tpg;
	np->addr = addr;
	if (ixt_tiqn_add_np(tpg->tiqn, np)) {
		pr_err("%s tpgt_%u: portal %pISpc is another TPG's already\n",
		       tpg->tiqn->name, tpg->tpgt, &np->addr);
		kfree(np);
		return ERR_PTR(-EEXIST);
	}
	ret = ixt_portal_np_add(np, tpg);
	if (ret) {
		mutex_lock(&tpg->tiqn->np_lock);
		list_del(&np->node);
		mutex_unlock(&tpg->tiqn->np_lock);
		kfree(np);
		return ERR_PTR(ret);
	}
	atomic_inc(&tpg->tiqn->nr_portals);
	pr_debug("%s tpgt_%u: portal %pISpc created\n", tpg->tiqn->name,
		 tpg->tpgt, &np->addr);
	return &np->se_np;
}

/**
 * ixt_drop_np() - free a network portal
 * @se_np: the portal.
 *
 * Context: Process context, from the release of the portal's configfs item.
 */
void ixt_drop_np(struct se_tpg_np *se_np)
{
	struct ixt_np *np = to_ixt_np(se_np);
	struct ixt_tiqn *tiqn = np->tpg->tiqn;

	pr_debug("portal %pISpc removed\n", &np->addr);
	ixt_portal_np_del(np);
	mutex_lock(&tiqn->np_lock);
	list_del(&np->node);
	mutex_unlock(&tiqn->np_lock);
	atomic_sub(np->iser ? 2 : 1, &tiqn->nr_portals);
	kfree(np);
}

/*
 * Initiator ACLs: <tpg>/acls/<initiator name>/
 */

static ssize_t ixt_nacl_info_show(struct config_item *item, char *page)
{
	return ixt_sess_info_show(acl_to_nacl(item), page);
}

static ssize_t ixt_nacl_cmdsn_depth_show(struct config_item *item,
					 char *page)
{
	return sysfs_emit(page, "%u\n", acl_to_nacl(item)->queue_depth);
}

static ssize_t ixt_nacl_cmdsn_depth_store(struct config_item *item,
					  const char *page, size_t count)
{
	struct se_node_acl *se_nacl = acl_to_nacl(item);
	u32 depth;
	int ret;

	/* 0 is accepted, as in LIO: the target core makes it 1. */
	if (kstrtou32(page, 0, &depth) || depth > IXT_CMDSN_DEPTH_MAX) {
		pr_err("%s: cmdsn_depth must be in 0..%d\n",
		       se_nacl->initiatorname, IXT_CMDSN_DEPTH_MAX);
		return -EINVAL;
	}
	ret = core_tpg_set_initiator_node_queue_depth(se_nacl, depth);
	return ret ? ret : count;
}

/*
 * The tag is a label for user space, kept and shown as written, with no
 * newline added, as in LIO; "NULL" clears it.
 */
static ssize_t ixt_nacl_tag_show(struct config_item *item, char *page)
{
	return strscpy(page, acl_to_nacl(item)->acl_tag, PAGE_SIZE);
}

static ssize_t ixt_nacl_tag_store(struct config_item *item, const char *page,
				  size_t count)
{
	struct se_node_acl *se_nacl = acl_to_nacl(item);

	/* configfs NUL-terminates what was written. */
	if (core_tpg_set_initiator_node_tag(se_nacl->se_tpg, se_nacl,
					    page) < 0) {
		pr_err("%s: tag longer than %d bytes\n",
		       se_nacl->initiatorname, MAX_ACL_TAG_SIZE - 1);
		return -EINVAL;
	}
	return count;
}

CONFIGFS_ATTR_RO(ixt_nacl_, info);
CONFIGFS_ATTR(ixt_nacl_, cmdsn_depth);
CONFIGFS_ATTR(ixt_nacl_, tag);

struct configfs_attribute *ixt_nacl_attrs[] = {
	&ixt_nacl_attr_info,
	&ixt_nacl_attr_cmdsn_depth,
	&ixt_nacl_attr_tag,
	NULL,
};

static struct ixt_auth *ixt_nacl_auth(struct config_item *item)
{
	return &to_ixt_nacl(auth_to_nacl(item))->auth;
}

IXT_AUTH_ATTR(nacl, userid, IXT_AUTH_USERID);
IXT_AUTH_ATTR(nacl, password, IXT_AUTH_PASSWORD);
IXT_AUTH_ATTR(nacl, userid_mutual, IXT_AUTH_USERID_MUTUAL);
IXT_AUTH_ATTR(nacl, password_mutual, IXT_AUTH_PASSWORD_MUTUAL);
IXT_AUTH_TARGET_ATTR(nacl);

struct configfs_attribute *ixt_nacl_auth_attrs[] = {
	&ixt_nacl_auth_attr_userid,
	&ixt_nacl_auth_attr_password,
	&ixt_nacl_auth_attr_authenticate_target,
	&ixt_nacl_auth_attr_userid_mutual,
	&ixt_nacl_auth_attr_password_mutual,
	NULL,
};

/*
 * ACL attributes: <acl>/attrib/
 */

/**
 * struct ixt_nacl_attr_desc - what an ACL attribute accepts
 * @name: configfs file name, for messages.
 * @def: value in a new ACL (default_erl: the TPG's instead).
 * @min: smallest value accepted, besides @zero.
 * @max: largest value accepted.
 * @zero: 0 is accepted too (it turns the feature off).
 */
struct ixt_nacl_attr_desc {
	const char *name;
	int def;
	int min;
	int max;
	bool zero;
};

/* Names, defaults and bounds are LIO's, so saved configurations move over. */
static const struct ixt_nacl_attr_desc ixt_nacl_attr_descs[IXT_NA_NR] = {
	[IXT_NA_DATAOUT_TIMEOUT] = {
		.name = "dataout_timeout", .def = 3, .min = 2, .max = 60,
	},
	[IXT_NA_DATAOUT_TIMEOUT_RETRIES] = {
		.name = "dataout_timeout_retries", .def = 5, .min = 1,
		.max = 15,
	},
	[IXT_NA_DEFAULT_ERL] = {
		.name = "default_erl", .def = 0, .min = 0, .max = 2,
	},
	[IXT_NA_NOPIN_TIMEOUT] = {
		.name = "nopin_timeout", .def = 15, .min = 3, .max = 60,
		.zero = true,
	},
	[IXT_NA_NOPIN_RESPONSE_TIMEOUT] = {
		.name = "nopin_response_timeout", .def = 30, .min = 3,
		.max = 60,
	},
	[IXT_NA_RANDOM_DATAIN_PDU_OFFSETS] = {
		.name = "random_datain_pdu_offsets", .def = 0, .min = 0,
		.max = 1,
	},
	[IXT_NA_RANDOM_DATAIN_SEQ_OFFSETS] = {
		.name = "random_datain_seq_offsets", .def = 0, .min = 0,
		.max = 1,
	},
	[IXT_NA_RANDOM_R2T_OFFSETS] = {
		.name = "random_r2t_offsets", .def = 0, .min = 0, .max = 1,
	},
	[IXT_NA_AUTHENTICATION] = {
		.name = "authentication", .def = -1, .min = -1, .max = 1,
	},
};

static ssize_t ixt_nacl_attrib_show(struct config_item *item,
				    enum ixt_nacl_attr attr, char *page)
{
	struct ixt_node_acl *nacl = to_ixt_nacl(attrib_to_nacl(item));

	return sysfs_emit(page, "%d\n", ixt_nacl_attrib(nacl, attr));
}

static ssize_t ixt_nacl_attrib_store(struct config_item *item,
				     enum ixt_nacl_attr attr, const char *page,
				     size_t count)
{
	const struct ixt_nacl_attr_desc *desc = &ixt_nacl_attr_descs[attr];
	struct ixt_node_acl *nacl = to_ixt_nacl(attrib_to_nacl(item));
	int val;

	if (kstrtoint(page, 0, &val) ||
	    ((val < desc->min || val > desc->max) && !(desc->zero && !val))) {
		pr_err("%s: %s must be in %d..%d%s\n",
		       nacl->se_nacl.initiatorname, desc->name, desc->min,
		       desc->max, desc->zero ? " or 0" : "");
		return -EINVAL;
	}
	WRITE_ONCE(nacl->attrib[attr], val);
	return count;
}

#define IXT_NACL_ATTRIB(_name, _attr)					\
static const enum ixt_nacl_attr ixt_nacl_attrib_##_name##_id = _attr;	\
									\
static ssize_t ixt_nacl_attrib_##_name##_show(struct config_item *item,	\
					      char *page)		\
{									\
	return ixt_nacl_attrib_show(item, ixt_nacl_attrib_##_name##_id,	\
				    page);				\
}									\
									\
static ssize_t ixt_nacl_attrib_##_name##_store(struct config_item *item, \
					       const char *page,	\
					       size_t count)		\
{									\
	return ixt_nacl_attrib_store(item, ixt_nacl_attrib_##_name##_id, \
				     page, count);			\
}									\
									\
CONFIGFS_ATTR(ixt_nacl_attrib_, _name)

IXT_NACL_ATTRIB(dataout_timeout, IXT_NA_DATAOUT_TIMEOUT);
IXT_NACL_ATTRIB(dataout_timeout_retries, IXT_NA_DATAOUT_TIMEOUT_RETRIES);
IXT_NACL_ATTRIB(default_erl, IXT_NA_DEFAULT_ERL);
IXT_NACL_ATTRIB(nopin_timeout, IXT_NA_NOPIN_TIMEOUT);
IXT_NACL_ATTRIB(nopin_response_timeout, IXT_NA_NOPIN_RESPONSE_TIMEOUT);
IXT_NACL_ATTRIB(random_datain_pdu_offsets, IXT_NA_RANDOM_DATAIN_PDU_OFFSETS);
IXT_NACL_ATTRIB(random_datain_seq_offsets, IXT_NA_RANDOM_DATAIN_SEQ_OFFSETS);
IXT_NACL_ATTRIB(random_r2t_offsets, IXT_NA_RANDOM_R2T_OFFSETS);
IXT_NACL_ATTRIB(authentication, IXT_NA_AUTHENTICATION);

struct configfs_attribute *ixt_nacl_attrib_attrs[] = {
	&ixt_nacl_attrib_attr_dataout_timeout,
	&ixt_nacl_attrib_attr_dataout_timeout_retries,
	&ixt_nacl_attrib_attr_default_erl,
	&ixt_nacl_attrib_attr_nopin_timeout,
	&ixt_nacl_attrib_attr_nopin_response_timeout,
	&ixt_nacl_attrib_attr_random_datain_pdu_offsets,
	&ixt_nacl_attrib_attr_random_datain_seq_offsets,
	&ixt_nacl_attrib_attr_random_r2t_offsets,
	&ixt_nacl_attrib_attr_authentication,
	NULL,
};

static_assert(ARRAY_SIZE(ixt_nacl_attrib_attrs) == IXT_NA_NR + 1);

/*
 * ACL parameters: <acl>/param/, read-only: the values the ACL's session
 * negotiated, LIO's subset of the TPG's param/ and shown as LIO shows
 * them (numbers, Yes/No as 1/0). Names filled by ixt_configfs_init().
 */

static u32 ixt_sess_param_value(const struct ixt_params *p,
				enum ixt_offer_param param)
{
	switch (param) {
	case IXT_PARAM_MAX_CONNECTIONS:
		return p->max_connections;
	case IXT_PARAM_INITIAL_R2T:
		return p->initial_r2t;
	case IXT_PARAM_IMMEDIATE_DATA:
		return p->immediate_data;
	case IXT_PARAM_MAX_BURST:
		return p->max_burst_length;
	case IXT_PARAM_FIRST_BURST:
		return p->first_burst_length;
	case IXT_PARAM_TIME2WAIT:
		return p->default_time2wait;
	case IXT_PARAM_TIME2RETAIN:
		return p->default_time2retain;
	case IXT_PARAM_MAX_R2T:
		return p->max_outstanding_r2t;
	case IXT_PARAM_DATA_PDU_IN_ORDER:
		return p->data_pdu_in_order;
	case IXT_PARAM_DATA_SEQ_IN_ORDER:
		return p->data_sequence_in_order;
	case IXT_PARAM_ERL:
		return p->error_recovery_level;
	default:
		return 0;
	}
}

static ssize_t ixt_nacl_param_show(struct config_item *item,
				   enum ixt_offer_param param, char *page)
{
	struct ixt_node_acl *nacl = to_ixt_nacl(param_to_nacl(item));
	ssize_t ret;

	spin_lock_bh(&nacl->se_nacl.nacl_sess_lock);
	if (nacl->sess_params)
		ret = sysfs_emit(page, "%u\n",
				 ixt_sess_param_value(nacl->sess_params, param));
	else
		ret = sysfs_emit(page, "No Active iSCSI Session\n");
	spin_unlock_bh(&nacl->se_nacl.nacl_sess_lock);
	return ret;
}

#define IXT_NACL_PARAM(_id)						\
static ssize_t ixt_nacl_param_##_id##_show(struct config_item *item,	\
					   char *page)			\
{									\
	return ixt_nacl_param_show(item, _id, page);			\
}

#define IXT_NACL_PARAM_ATTR(_id)					\
	{								\
		.ca_owner	= THIS_MODULE,				\
		.ca_mode	= 0444,					\
		.show		= ixt_nacl_param_##_id##_show,		\
	}

IXT_NACL_PARAM(IXT_PARAM_MAX_CONNECTIONS)
IXT_NACL_PARAM(IXT_PARAM_INITIAL_R2T)
IXT_NACL_PARAM(IXT_PARAM_IMMEDIATE_DATA)
IXT_NACL_PARAM(IXT_PARAM_MAX_BURST)
IXT_NACL_PARAM(IXT_PARAM_FIRST_BURST)
IXT_NACL_PARAM(IXT_PARAM_TIME2WAIT)
IXT_NACL_PARAM(IXT_PARAM_TIME2RETAIN)
IXT_NACL_PARAM(IXT_PARAM_MAX_R2T)
IXT_NACL_PARAM(IXT_PARAM_DATA_PDU_IN_ORDER)
IXT_NACL_PARAM(IXT_PARAM_DATA_SEQ_IN_ORDER)
IXT_NACL_PARAM(IXT_PARAM_ERL)

/* The ACL's parameters, in LIO's order. */
static const enum ixt_offer_param ixt_nacl_params[] = {
	IXT_PARAM_MAX_CONNECTIONS,
	IXT_PARAM_INITIAL_R2T,
	IXT_PARAM_IMMEDIATE_DATA,
	IXT_PARAM_MAX_BURST,
	IXT_PARAM_FIRST_BURST,
	IXT_PARAM_TIME2WAIT,
	IXT_PARAM_TIME2RETAIN,
	IXT_PARAM_MAX_R2T,
	IXT_PARAM_DATA_PDU_IN_ORDER,
	IXT_PARAM_DATA_SEQ_IN_ORDER,
	IXT_PARAM_ERL,
};

static struct configfs_attribute ixt_nacl_param_attr[] = {
	IXT_NACL_PARAM_ATTR(IXT_PARAM_MAX_CONNECTIONS),
	IXT_NACL_PARAM_ATTR(IXT_PARAM_INITIAL_R2T),
	IXT_NACL_PARAM_ATTR(IXT_PARAM_IMMEDIATE_DATA),
	IXT_NACL_PARAM_ATTR(IXT_PARAM_MAX_BURST),
	IXT_NACL_PARAM_ATTR(IXT_PARAM_FIRST_BURST),
	IXT_NACL_PARAM_ATTR(IXT_PARAM_TIME2WAIT),
	IXT_NACL_PARAM_ATTR(IXT_PARAM_TIME2RETAIN),
	IXT_NACL_PARAM_ATTR(IXT_PARAM_MAX_R2T),
	IXT_NACL_PARAM_ATTR(IXT_PARAM_DATA_PDU_IN_ORDER),
	IXT_NACL_PARAM_ATTR(IXT_PARAM_DATA_SEQ_IN_ORDER),
	IXT_NACL_PARAM_ATTR(IXT_PARAM_ERL),
};

static_assert(ARRAY_SIZE(ixt_nacl_param_attr) == ARRAY_SIZE(ixt_nacl_params));

struct configfs_attribute *ixt_nacl_param_attrs[] = {
	&ixt_nacl_param_attr[0],
	&ixt_nacl_param_attr[1],
	&ixt_nacl_param_attr[2],
	&ixt_nacl_param_attr[3],
	&ixt_nacl_param_attr[4],
	&ixt_nacl_param_attr[5],
	&ixt_nacl_param_attr[6],
	&ixt_nacl_param_attr[7],
	&ixt_nacl_param_attr[8],
	&ixt_nacl_param_attr[9],
	&ixt_nacl_param_attr[10],
	NULL,
};

static_assert(ARRAY_SIZE(ixt_nacl_param_attrs) ==
	      ARRAY_SIZE(ixt_nacl_params) + 1);

/**
 * ixt_configfs_init() - name the parameter files after the offer's table
 * @void: no arguments.
 *
 * The files of <tpg>/param/ and <acl>/param/ take their names from
 * ixt_offer_param_name(), the one table of parameter names.
 *
 * Context: Process context, at module load, before the fabric registers.
 */
void ixt_configfs_init(void)
{
	size_t i;

	for (i = 0; i < IXT_PARAM_NR; i++)
		ixt_tpg_param_attr[i].ca_name = ixt_offer_param_name(i);
	for (i = 0; i < ARRAY_SIZE(ixt_nacl_params); i++)
		ixt_nacl_param_attr[i].ca_name =
			ixt_offer_param_name(ixt_nacl_params[i]);
}

/**
 * ixt_nacl_set_defaults() - initialise the fabric part of a new ACL
 * @se_nacl: the ACL, zeroed by the target core.
 *
 * Called for explicit ACLs (configfs mkdir) and for those the core makes
 * in demo mode; the core frees both kinds without calling back, which is
 * why nothing here needs undoing.
 *
 * Context: Process context.
 */
void ixt_nacl_set_defaults(struct se_node_acl *se_nacl)
{
	struct ixt_node_acl *nacl = to_ixt_nacl(se_nacl);
	struct ixt_tpg *tpg = to_ixt_tpg(se_nacl->se_tpg);
	int i;

	ixt_auth_init(&nacl->auth);
	for (i = 0; i < IXT_NA_NR; i++)
		nacl->attrib[i] = ixt_nacl_attr_descs[i].def;
	nacl->attrib[IXT_NA_DEFAULT_ERL] = ixt_tpg_attrib(tpg,
							  IXT_TA_DEFAULT_ERL);
}

/**
 * ixt_init_nacl() - accept an ACL created by configfs mkdir
 * @se_nacl: the ACL, already set up by ixt_nacl_set_defaults().
 * @name: directory name, the initiator's iSCSI name.
 *
 * Adds the ACL's fabric_statistics/iscsi_sess_stats group.
 *
 * Context: Process context, from configfs mkdir.
 * Return: 0.
 */
int ixt_init_nacl(struct se_node_acl *se_nacl, const char *name)
{
	ixt_stats_nacl_init(to_ixt_nacl(se_nacl));
	pr_debug("ACL %s created\n", name);
	return 0;
}
