// SPDX-License-Identifier: GPL-2.0
/* iscsi_xt: module init and exit, and the fabric ops the target core calls. */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/module.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "cmd.h"
#include "conn.h"
#include "fault.h"
#include "iscsi_xt.h"
#include "pool.h"
#include "session.h"

/*
 * TPG queries. The target core asks these while it manages ACLs, LUN
 * mappings and sessions, holding its own locks and, for LUN mappings,
 * under rcu_read_lock(): they read with ixt_tpg_attrib(), without the
 * TPG lock.
 */

static char *ixt_tpg_get_wwn(struct se_portal_group *se_tpg)
{
	return to_ixt_tpg(se_tpg)->tiqn->name;
}

static u16 ixt_tpg_get_tag(struct se_portal_group *se_tpg)
{
	return to_ixt_tpg(se_tpg)->tpgt;
}

static u32 ixt_tpg_get_default_depth(struct se_portal_group *se_tpg)
{
	return ixt_tpg_attrib(to_ixt_tpg(se_tpg), IXT_TA_DEFAULT_CMDSN_DEPTH);
}

static int ixt_tpg_check_demo_mode(struct se_portal_group *se_tpg)
{
	return ixt_tpg_attrib(to_ixt_tpg(se_tpg), IXT_TA_GENERATE_NODE_ACLS);
}

static int ixt_tpg_check_demo_mode_cache(struct se_portal_group *se_tpg)
{
	return ixt_tpg_attrib(to_ixt_tpg(se_tpg), IXT_TA_CACHE_DYNAMIC_ACLS);
}

static int ixt_tpg_check_demo_mode_write_protect(struct se_portal_group *se_tpg)
{
	return ixt_tpg_attrib(to_ixt_tpg(se_tpg),
			      IXT_TA_DEMO_MODE_WRITE_PROTECT);
}

static int ixt_tpg_check_prod_mode_write_protect(struct se_portal_group *se_tpg)
{
	return ixt_tpg_attrib(to_ixt_tpg(se_tpg),
			      IXT_TA_PROD_MODE_WRITE_PROTECT);
}

static int ixt_tpg_check_prot_fabric_only(struct se_portal_group *se_tpg)
{
	struct ixt_tpg *tpg = to_ixt_tpg(se_tpg);

	/* As in LIO, the fabric protection type only counts with T10 PI. */
	if (!ixt_tpg_attrib(tpg, IXT_TA_T10_PI))
		return 0;
	return ixt_tpg_attrib(tpg, IXT_TA_FABRIC_PROT_TYPE);
}

/*
 * Registered under LIO's names so that rtslib and targetcli find it at
 * target/iscsi, and so that persistent reservations saved under "iSCSI"
 * stay valid. iscsi_target_mod therefore cannot be loaded at the same
 * time: see iscsit_register_transport().
 */
static const struct target_core_fabric_ops ixt_fabric_ops = {
	.module				= THIS_MODULE,
	.fabric_alias			= "iscsi",
	.fabric_name			= "iSCSI",
	.node_acl_size			= sizeof(struct ixt_node_acl),

	.tpg_get_wwn			= ixt_tpg_get_wwn,
	.tpg_get_tag			= ixt_tpg_get_tag,
	.tpg_get_default_depth		= ixt_tpg_get_default_depth,
	.tpg_check_demo_mode		= ixt_tpg_check_demo_mode,
	.tpg_check_demo_mode_cache	= ixt_tpg_check_demo_mode_cache,
	.tpg_check_demo_mode_write_protect =
					ixt_tpg_check_demo_mode_write_protect,
	.tpg_check_prod_mode_write_protect =
					ixt_tpg_check_prod_mode_write_protect,
	.tpg_check_prot_fabric_only	= ixt_tpg_check_prot_fabric_only,
	.tpg_get_inst_index		= ixt_tpg_get_inst_index,

	.check_stop_free		= ixt_check_stop_free,
	.release_cmd			= ixt_release_cmd,
	.write_pending			= ixt_write_pending,
	.queue_data_in			= ixt_queue_data_in,
	.queue_status			= ixt_queue_status,
	.queue_tm_rsp			= ixt_queue_tm_rsp,
	.aborted_task			= ixt_aborted_task,
	.close_session			= ixt_close_session,

	.fabric_make_wwn		= ixt_make_tiqn,
	.fabric_drop_wwn		= ixt_drop_tiqn,
	.add_wwn_groups			= ixt_add_wwn_groups,
	.fabric_make_tpg		= ixt_make_tpg,
	.fabric_enable_tpg		= ixt_enable_tpg,
	.fabric_drop_tpg		= ixt_drop_tpg,
	.fabric_make_np			= ixt_make_np,
	.fabric_drop_np			= ixt_drop_np,
	.set_default_node_attributes	= ixt_nacl_set_defaults,
	.fabric_init_nodeacl		= ixt_init_nacl,

	.tfc_wwn_attrs			= ixt_fabric_attrs,
	.tfc_discovery_attrs		= ixt_discovery_attrs,
	.tfc_tpg_base_attrs		= ixt_tpg_attrs,
	.tfc_tpg_attrib_attrs		= ixt_tpg_attrib_attrs,
	.tfc_tpg_auth_attrs		= ixt_tpg_auth_attrs,
	.tfc_tpg_np_base_attrs		= ixt_np_attrs,
	.tfc_tpg_nacl_base_attrs	= ixt_nacl_attrs,
	.tfc_tpg_nacl_auth_attrs	= ixt_nacl_auth_attrs,
	.tfc_tpg_nacl_attrib_attrs	= ixt_nacl_attrib_attrs,
	.tfc_tpg_nacl_param_attrs	= ixt_nacl_param_attrs,
	.tfc_tpg_param_attrs		= ixt_tpg_param_attrs,

	/* iSCSI: a WRITE's Data-Out must be drained before it is aborted. */
	.write_pending_must_be_called	= 1,

	/* Block Limits: MAXIMUM TRANSFER LENGTH of IXT_MAX_XFER_LEN. */
	.max_data_sg_nents		= IXT_MAX_XFER_LEN / PAGE_SIZE,

	/* As LIO's iSCSI: commands run in the receiving thread. */
	.default_submit_type		= TARGET_DIRECT_SUBMIT,
	.direct_submit_supp		= 1,
};

struct dentry *ixt_debugfs;

static int __init ixt_init(void)
{
	int ret;

	ret = ixt_fault_init();
	if (ret)
		return ret;
	ixt_configfs_init();
	ixt_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	ixt_fault_debugfs_init();
	ixt_sess_debugfs_init();
	ixt_cost_debugfs_init();
	ret = ixt_pool_init();
	if (ret)
		goto out_debugfs;
	ret = ixt_transport_register(&ixt_tcp_xprt);
	if (ret)
		goto out_pool;
	ret = ixt_conn_module_init();
	if (ret)
		goto out_tcp;
	ret = target_register_template(&ixt_fabric_ops);
	if (ret)
		goto out_conn;

	pr_info("iSCSI target fabric %s registered\n", IXT_VERSION);
	return 0;

out_conn:
	ixt_conn_module_exit();
out_tcp:
	ixt_transport_unregister(&ixt_tcp_xprt);
out_pool:
	ixt_pool_exit();
out_debugfs:
	debugfs_remove_recursive(ixt_debugfs);
	return ret;
}

static void __exit ixt_exit(void)
{
	debugfs_remove_recursive(ixt_debugfs);
	ixt_conn_module_exit();
	ixt_pressure_exit();
	target_unregister_template(&ixt_fabric_ops);
	ixt_transport_unregister(&ixt_tcp_xprt);
	ixt_pool_exit();
}

module_init(ixt_init);
module_exit(ixt_exit);

MODULE_DESCRIPTION("iSCSI target fabric for LIO, over TCP and iSER");
MODULE_AUTHOR("iscsi_xt developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(IXT_VERSION);
