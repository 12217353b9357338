// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: what an IO costs, counted.
 *
 * /sys/kernel/debug/iscsi_xt/cost: per-CPU event counters, summed when
 * read, one "name value" a line, so that the bench can divide each by
 * the IOs of a run (bench.sh -C; Documentation/admin-guide.rst describes
 * the file):
 *
 *   cmds              SCSI Command PDUs received whole in full feature
 *                     phase, on any transport;
 *   payload_bytes     payload_rx_bytes + payload_tx_bytes;
 *   payload_rx_bytes  SCSI data received into commands' buffers:
 *                     immediate data, Data-Out (unsolicited or solicited),
 *                     data fetched with RDMA READs;
 *   payload_tx_bytes  SCSI data queued as Data-In: sent over TCP, or
 *                     written with RDMA WRITEs (one Data-In stands for
 *                     the whole buffer);
 *   copied_bytes      copied_rx_bytes + copied_tx_bytes;
 *   copied_rx_bytes   payload the CPU copied in: over TCP every byte the
 *                     socket copies from its buffers into cache lines,
 *                     over iSER every byte of immediate and unsolicited
 *                     data copied out of a receive buffer (RDMA READs
 *                     copy nothing);
 *   copied_tx_bytes   payload the CPU copied out: Data-In that TCP's
 *                     sendmsg copied into the socket's buffers (all of
 *                     it); RDMA WRITEs copy nothing;
 *   lines             cache lines taken from the pool.
 *
 * Only payload counts: login, text, NOP and sense data, headers and
 * digests do not. Writing 0 to the file resets it: it then reads the
 * counts since, from a baseline taken at the write, without touching the
 * per-CPU counters. Each event is one this_cpu_add(): no lock, no atomic.
 */

#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "iscsi_xt.h"
#include "transport.h"

struct ixt_cost {
	u64 n[IXT_COST_NR];
};

static DEFINE_PER_CPU(struct ixt_cost, ixt_cost);

/* The sums at the last reset, under ixt_cost_mutex. */
static DEFINE_MUTEX(ixt_cost_mutex);
static struct ixt_cost ixt_cost_base;

/**
 * ixt_cost_add() - count an event of the cost file
 * @counter: which counter.
 * @n: by how much.
 *
 * One per-CPU add: neither a lock nor an atomic. Exported for the iSER
 * transport.
 *
 * Context: Any context.
 */
void ixt_cost_add(enum ixt_cost_counter counter, u64 n)
{
	this_cpu_add(ixt_cost.n[counter], n);
}
EXPORT_SYMBOL_GPL(ixt_cost_add);

static void ixt_cost_sum(struct ixt_cost *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu)
		for (i = 0; i < IXT_COST_NR; i++)
			sum->n[i] += READ_ONCE(per_cpu_ptr(&ixt_cost, cpu)->n[i]);
}

static int ixt_cost_show(struct seq_file *m, void *v)
{
	struct ixt_cost c;
	int i;

	mutex_lock(&ixt_cost_mutex);
	ixt_cost_sum(&c);
	for (i = 0; i < IXT_COST_NR; i++)
		c.n[i] -= ixt_cost_base.n[i];
	mutex_unlock(&ixt_cost_mutex);

	seq_printf(m, "cmds %llu\n", c.n[IXT_COST_CMDS]);
	seq_printf(m, "payload_bytes %llu\n",
		   c.n[IXT_COST_PAYLOAD_RX] + c.n[IXT_COST_PAYLOAD_TX]);
	seq_printf(m, "payload_rx_bytes %llu\n", c.n[IXT_COST_PAYLOAD_RX]);
	seq_printf(m, "payload_tx_bytes %llu\n", c.n[IXT_COST_PAYLOAD_TX]);
	seq_printf(m, "copied_bytes %llu\n",
		   c.n[IXT_COST_COPIED_RX] + c.n[IXT_COST_COPIED_TX]);
	seq_printf(m, "copied_rx_bytes %llu\n", c.n[IXT_COST_COPIED_RX]);
	seq_printf(m, "copied_tx_bytes %llu\n", c.n[IXT_COST_COPIED_TX]);
	seq_printf(m, "lines %llu\n", c.n[IXT_COST_LINES]);
	return 0;
}

static int ixt_cost_open(struct inode *inode, struct file *file)
{
	return single_open(file, ixt_cost_show, NULL);
}

/* "0" resets: later reads count from now on. */
static ssize_t ixt_cost_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	unsigned int val;
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 0, &val);
	if (ret)
		return ret;
	if (val)
		return -EINVAL;
	mutex_lock(&ixt_cost_mutex);
	ixt_cost_sum(&ixt_cost_base);
	mutex_unlock(&ixt_cost_mutex);
	return len;
}

static const struct file_operations ixt_cost_fops = {
	.owner		= THIS_MODULE,
	.open		= ixt_cost_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= ixt_cost_write,
};

/**
 * ixt_cost_debugfs_init() - add the cost file to the debugfs folder
 *
 * Context: Process context, module init, after ixt_debugfs exists.
 */
void ixt_cost_debugfs_init(void)
{
	debugfs_create_file("cost", 0644, ixt_debugfs, NULL, &ixt_cost_fops);
}
