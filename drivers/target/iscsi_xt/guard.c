// SPDX-License-Identifier: GPL-2.0
/* iscsi_xt: refuse to be loaded together with LIO's iscsi_target_mod. */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/export.h>
#include <linux/printk.h>

#include "iscsi_xt.h"

/**
 * iscsit_register_transport() - refuse a transport written for LIO
 * @transport: LIO's transport descriptor; opaque here, never touched.
 *
 * iscsi_xt registers the target core fabric "iscsi", as iscsi_target_mod
 * does. The target core accepts two fabrics of one name, and unloading
 * one would then remove the other's registration. Exporting this symbol,
 * which iscsi_target_mod also exports, makes the module loader refuse
 * whichever of the two modules comes second ("exports duplicate symbol
 * iscsit_register_transport"), before either can do harm.
 *
 * The function itself is a refusal: LIO's transports (ib_isert, cxgbit)
 * cannot plug into iscsi_xt, which has its own. In practice they do not
 * even load, for want of LIO's other symbols, so this only logs.
 *
 * Context: Any context.
 * Return: -EOPNOTSUPP.
 */
int iscsit_register_transport(void *transport)
{
	pr_err_ratelimited("LIO iSCSI transports cannot register with iscsi_xt\n");
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL_GPL(iscsit_register_transport);
