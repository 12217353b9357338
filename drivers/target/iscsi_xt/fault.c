// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: allocation fault injection, built only with IXT_FAULT_INJECT=1
 * (make kselftest). Every allocation of iscsi_xt and iscsi_xt_iser asks
 * ixt_fault() first, naming its site; armed, the Nth allocation counted
 * from then on (of every site, or of one) fails as if the allocator had
 * returned NULL. Files in /sys/kernel/debug/iscsi_xt/fault/:
 *
 *   fail      write "N" or "N SITE": count from 0 again (only SITE's
 *             allocations, with SITE) and fail the Nth; "0" counts and
 *             fails none. Reads back "N SITE" ("all" for every site).
 *   count     the allocations counted since the last write to fail.
 *   injected  the failures injected since the module loaded.
 *   sites     one line per site: its name, allocations, failures.
 *   stall     write "MS SITE": the next pass through stall site SITE
 *             (rx_hdr, data_in, iser_tx_stop, iser_accept) sleeps MS
 *             milliseconds; "0 SITE" disarms it.
 *             Reads back one line per stall site: its name and the
 *             milliseconds armed.
 *
 * The module parameters fault_nth and fault_site arm it the same way
 * before the module's own init allocates.
 *
 * Locking: the counters are atomics, so ixt_fault() takes no lock and
 * works in any context; exactly one allocation sees the count reach N.
 * A write to fail takes ixt_fault_mutex against other writers and
 * disarms first (N 0), then resets the count and the site and arms last;
 * an allocation racing with that write may be counted under the old
 * arming or the new one (the tests arm while the target is idle).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "fault.h"
#include "iscsi_xt.h"

/* The sites' names, which debugfs lists and takes. */
static const char *const ixt_fault_names[IXT_FAULT_NR] = {
	[IXT_FAULT_POOL_ARRAYS]		= "pool_arrays",
	[IXT_FAULT_POOL_CACHE]		= "pool_cache",
	[IXT_FAULT_POOL_PAGES]		= "pool_pages",
	[IXT_FAULT_CMD_CACHE]		= "cmd_cache",
	[IXT_FAULT_WQ]			= "wq",
	[IXT_FAULT_TIQN]		= "tiqn",
	[IXT_FAULT_TIQN_INDEX]		= "tiqn_index",
	[IXT_FAULT_TPG]			= "tpg",
	[IXT_FAULT_NP]			= "np",
	[IXT_FAULT_PORTAL]		= "portal",
	[IXT_FAULT_PORTAL_SOCK]		= "portal_sock",
	[IXT_FAULT_PORTAL_LINK]		= "portal_link",
	[IXT_FAULT_ACCEPT]		= "accept",
	[IXT_FAULT_TCP_CONN]		= "tcp_conn",
	[IXT_FAULT_TPG_USE]		= "tpg_use",
	[IXT_FAULT_LOGIN]		= "login",
	[IXT_FAULT_LOGIN_NEG]		= "login_neg",
	[IXT_FAULT_TEXT_BUF]		= "text_buf",
	[IXT_FAULT_TCP_RX_DATA]		= "tcp_rx_data",
	[IXT_FAULT_CHAP_TFM]		= "chap_tfm",
	[IXT_FAULT_CHAP_MUTUAL]		= "chap_mutual",
	[IXT_FAULT_SESS]		= "sess",
	[IXT_FAULT_SE_SESS]		= "se_sess",
	[IXT_FAULT_INITIATOR]		= "initiator",
	[IXT_FAULT_SUBMIT_WQ]		= "submit_wq",
	[IXT_FAULT_ST_ENTRIES]		= "st_entries",
	[IXT_FAULT_TX_PDU]		= "tx_pdu",
	[IXT_FAULT_TX_PDU_DATA]		= "tx_pdu_data",
	[IXT_FAULT_CMDSN_SLOTS]		= "cmdsn_slots",
	[IXT_FAULT_CMDSN_HELD]		= "cmdsn_held",
	[IXT_FAULT_CMDSN_ABORTED]	= "cmdsn_aborted",
	[IXT_FAULT_CMD]			= "cmd",
	[IXT_FAULT_CMD_ECDB]		= "cmd_ecdb",
	[IXT_FAULT_CMD_BUF]		= "cmd_buf",
	[IXT_FAULT_POOL_GET]		= "pool_get",
	[IXT_FAULT_DATAOUT_SLOTS]	= "dataout_slots",
	[IXT_FAULT_DATAOUT_SLOT_MAP]	= "dataout_slot_map",
	[IXT_FAULT_BIDI]		= "bidi",
	[IXT_FAULT_ISER_CMD_CACHE]	= "iser_cmd_cache",
	[IXT_FAULT_ISER_LISTENER]	= "iser_listener",
	[IXT_FAULT_ISER_LISTEN_ID]	= "iser_listen_id",
	[IXT_FAULT_ISER_PD]		= "iser_pd",
	[IXT_FAULT_ISER_CONN]		= "iser_conn",
	[IXT_FAULT_ISER_RX_RING]	= "iser_rx_ring",
	[IXT_FAULT_ISER_RX]		= "iser_rx",
	[IXT_FAULT_ISER_RX_HDR]		= "iser_rx_hdr",
	[IXT_FAULT_ISER_RX_PAGE]	= "iser_rx_page",
	[IXT_FAULT_ISER_CQ]		= "iser_cq",
	[IXT_FAULT_ISER_QP]		= "iser_qp",
	[IXT_FAULT_ISER_SQ_CREDITS]	= "iser_sq_credits",
	[IXT_FAULT_ISER_RD_SGE]		= "iser_rd_sge",
	[IXT_FAULT_ISER_IB_SGE]		= "iser_ib_sge",
	[IXT_FAULT_ISER_TX]		= "iser_tx",
	[IXT_FAULT_ISER_TX_HDR]		= "iser_tx_hdr",
	[IXT_FAULT_ISER_REG]		= "iser_reg",
	[IXT_FAULT_ISER_REG_BATCHES]	= "iser_reg_batches",
	[IXT_FAULT_ISER_MR_POOL]	= "iser_mr_pool",
	[IXT_FAULT_ISER_BUF]		= "iser_buf",
	[IXT_FAULT_ISER_CMD]		= "iser_cmd",
	[IXT_FAULT_ISER_XFER_PIECES]	= "iser_xfer_pieces",
};

/* The stall sites' names. */
static const char *const ixt_stall_names[IXT_STALL_NR] = {
	[IXT_STALL_RX_HDR]		= "rx_hdr",
	[IXT_STALL_DATA_IN]		= "data_in",
	[IXT_STALL_ISER_TX_STOP]	= "iser_tx_stop",
	[IXT_STALL_ISER_ACCEPT]		= "iser_accept",
};

/* Milliseconds the next pass through each stall site sleeps; 0: none. */
static atomic_t ixt_stall_ms[IXT_STALL_NR];

static DEFINE_MUTEX(ixt_fault_mutex);
/* The allocation to fail, counted from the last arming; 0: none. */
static atomic_t ixt_fault_nth;
/* Allocations counted since the last arming. */
static atomic_t ixt_fault_count;
/* The site counted, or IXT_FAULT_NR for every site. */
static int ixt_fault_only = IXT_FAULT_NR;
static atomic_t ixt_fault_injected;
static atomic_t ixt_fault_hits[IXT_FAULT_NR];
static atomic_t ixt_fault_fails[IXT_FAULT_NR];

static unsigned int fault_nth;
module_param(fault_nth, uint, 0444);
MODULE_PARM_DESC(fault_nth,
		 "Fault injection: fail the Nth allocation from load on (0: none)");

static char *fault_site;
module_param(fault_site, charp, 0444);
MODULE_PARM_DESC(fault_site,
		 "Fault injection: count only the allocations of this site (/sys/kernel/debug/iscsi_xt/fault/sites)");

/* Built with fault injection: make install warns about such a module. */
MODULE_INFO(ixt_fault_inject, "Y");

/**
 * ixt_fault() - whether the allocation at a site must fail
 * @site: the site, right before its allocation.
 *
 * Counts the allocation; the caller fails it as its allocator would
 * (NULL, or ERR_PTR(-ENOMEM)) when this returns true.
 *
 * Context: Any context.
 * Return: true when this is the armed allocation.
 */
bool ixt_fault(enum ixt_fault_site site)
{
	int only = READ_ONCE(ixt_fault_only);
	int nth;

	if (WARN_ON_ONCE(site >= IXT_FAULT_NR))
		return false;
	atomic_inc(&ixt_fault_hits[site]);
	if (only != IXT_FAULT_NR && only != site)
		return false;
	nth = atomic_read(&ixt_fault_nth);
	if (atomic_inc_return(&ixt_fault_count) != nth || !nth)
		return false;
	atomic_inc(&ixt_fault_fails[site]);
	atomic_inc(&ixt_fault_injected);
	pr_info("fault: allocation %d failed at %s\n", nth,
		ixt_fault_names[site]);
	return true;
}
EXPORT_SYMBOL_GPL(ixt_fault);

/**
 * ixt_fault_stall() - wait here if a test asked for it
 * @site: the site.
 *
 * Sleeps for what fault/stall armed at @site, once: the first caller to
 * pass disarms it.
 *
 * Context: Process context; may sleep when armed.
 */
void ixt_fault_stall(enum ixt_stall_site site)
{
	int ms;

	if (WARN_ON_ONCE(site >= IXT_STALL_NR) ||
	    !atomic_read(&ixt_stall_ms[site]))
		return;
	ms = atomic_xchg(&ixt_stall_ms[site], 0);
	if (!ms)
		return;
	pr_info("fault: stalling %d ms at %s\n", ms, ixt_stall_names[site]);
	msleep(ms);
}
EXPORT_SYMBOL_GPL(ixt_fault_stall);

/* The index of @name in @names (@nr of them), or -EINVAL. */
static int ixt_fault_lookup(const char *const *names, int nr,
			    const char *name)
{
	int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -EINVAL;
}

/* A site's name in a write: 47 characters and the NUL (the %47s below). */
#define IXT_FAULT_NAME_LEN	48

/*
 * Reads "N [NAME]" from what a debugfs file was written: returns how
 * many of the two were there (NAME, @name, is "" when missing), or a
 * negative errno.
 */
static int ixt_fault_parse(const char __user *ubuf, size_t len,
			   unsigned int *n, char name[IXT_FAULT_NAME_LEN])
{
	char buf[64];
	int got;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	name[0] = '\0';
	got = sscanf(buf, "%u %47s", n, name);
	return got < 1 ? -EINVAL : got;
}

static ssize_t ixt_fault_stall_write(struct file *file,
				     const char __user *ubuf, size_t len,
				     loff_t *ppos)
{
	char name[IXT_FAULT_NAME_LEN];
	unsigned int ms;
	int ret, site;

	ret = ixt_fault_parse(ubuf, len, &ms, name);
	if (ret < 0)
		return ret;
	if (ret != 2 || ms > 60000)
		return -EINVAL;
	site = ixt_fault_lookup(ixt_stall_names, IXT_STALL_NR, name);
	if (site < 0)
		return site;
	atomic_set(&ixt_stall_ms[site], ms);
	return len;
}

static int ixt_fault_stall_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < IXT_STALL_NR; i++)
		seq_printf(m, "%s %d\n", ixt_stall_names[i],
			   atomic_read(&ixt_stall_ms[i]));
	return 0;
}

static int ixt_fault_stall_open(struct inode *inode, struct file *file)
{
	return single_open(file, ixt_fault_stall_show, NULL);
}

static const struct file_operations ixt_fault_stall_fops = {
	.owner		= THIS_MODULE,
	.open		= ixt_fault_stall_open,
	.read		= seq_read,
	.write		= ixt_fault_stall_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/* Arms: fail the @nth allocation (0: none) counted at @site from now. */
static void ixt_fault_arm(unsigned int nth, int site)
{
	mutex_lock(&ixt_fault_mutex);
	atomic_set(&ixt_fault_nth, 0);
	/* Disarmed before the count and site change... */
	smp_mb();
	atomic_set(&ixt_fault_count, 0);
	WRITE_ONCE(ixt_fault_only, site);
	/* ...and armed only once they have. */
	smp_mb();
	atomic_set(&ixt_fault_nth, min_t(unsigned int, nth, INT_MAX));
	mutex_unlock(&ixt_fault_mutex);
}

static ssize_t ixt_fault_fail_write(struct file *file, const char __user *ubuf,
				    size_t len, loff_t *ppos)
{
	char name[IXT_FAULT_NAME_LEN];
	int site = IXT_FAULT_NR;
	unsigned int nth;
	int n;

	n = ixt_fault_parse(ubuf, len, &nth, name);
	if (n < 0)
		return n;
	if (n == 2 && strcmp(name, "all")) {
		site = ixt_fault_lookup(ixt_fault_names, IXT_FAULT_NR, name);
		if (site < 0)
			return site;
	}
	ixt_fault_arm(nth, site);
	return len;
}

static int ixt_fault_fail_show(struct seq_file *m, void *v)
{
	int only = READ_ONCE(ixt_fault_only);

	seq_printf(m, "%d %s\n", atomic_read(&ixt_fault_nth),
		   only == IXT_FAULT_NR ? "all" : ixt_fault_names[only]);
	return 0;
}

static int ixt_fault_fail_open(struct inode *inode, struct file *file)
{
	return single_open(file, ixt_fault_fail_show, NULL);
}

static const struct file_operations ixt_fault_fail_fops = {
	.owner		= THIS_MODULE,
	.open		= ixt_fault_fail_open,
	.read		= seq_read,
	.write		= ixt_fault_fail_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static int ixt_fault_sites_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < IXT_FAULT_NR; i++)
		seq_printf(m, "%s %d %d\n", ixt_fault_names[i],
			   atomic_read(&ixt_fault_hits[i]),
			   atomic_read(&ixt_fault_fails[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ixt_fault_sites);

static int ixt_fault_atomic_get(void *data, u64 *val)
{
	*val = atomic_read(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(ixt_fault_atomic_fops, ixt_fault_atomic_get, NULL,
			 "%llu\n");

/**
 * ixt_fault_init() - arm from the module parameters
 *
 * Called first in module init, so that fault_nth can reach the init's
 * own allocations.
 *
 * Context: Process context, module init.
 * Return: 0, or -EINVAL for a fault_site that names no site.
 */
int ixt_fault_init(void)
{
	int site = IXT_FAULT_NR;

	if (fault_site && *fault_site) {
		site = ixt_fault_lookup(ixt_fault_names, IXT_FAULT_NR,
					fault_site);
		if (site < 0) {
			pr_err("fault: no allocation site %s\n", fault_site);
			return site;
		}
	}
	ixt_fault_arm(fault_nth, site);
	return 0;
}

/**
 * ixt_fault_debugfs_init() - the files of /sys/kernel/debug/iscsi_xt/fault/
 *
 * Context: Process context, module init, after ixt_debugfs exists.
 */
void ixt_fault_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("fault", ixt_debugfs);

	debugfs_create_file("fail", 0600, dir, NULL, &ixt_fault_fail_fops);
	debugfs_create_file_unsafe("count", 0400, dir, &ixt_fault_count,
				   &ixt_fault_atomic_fops);
	debugfs_create_file_unsafe("injected", 0400, dir, &ixt_fault_injected,
				   &ixt_fault_atomic_fops);
	debugfs_create_file("sites", 0400, dir, NULL, &ixt_fault_sites_fops);
	debugfs_create_file("stall", 0600, dir, NULL, &ixt_fault_stall_fops);
}
