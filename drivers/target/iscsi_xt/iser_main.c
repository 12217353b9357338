// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt_iser: the iSER transport module: its parameters, RDMA devices
 * coming and going, the RDMA CM listeners of the portals whose iser
 * attribute is set, and module init and exit.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "fault.h"
#include "iser.h"

/* Connection requests the RDMA CM queues for a listener. */
#define IXT_ISER_BACKLOG	256

unsigned int ixt_iser_send_depth = 256;
module_param_named(send_depth, ixt_iser_send_depth, uint, 0644);
MODULE_PARM_DESC(send_depth,
		 "Send queue work requests per connection, at least 4; a transfer that finds it full continues when slots free up (default 256)");

unsigned int ixt_iser_recv_depth = 512;
module_param_named(recv_depth, ixt_iser_recv_depth, uint, 0644);
MODULE_PARM_DESC(recv_depth,
		 "Most receive buffers per connection; the command window is cut to what they take (default 512)");

bool ixt_iser_force_reg;
module_param_named(force_reg, ixt_iser_force_reg, bool, 0644);
MODULE_PARM_DESC(force_reg,
		 "Register the sinks of RDMA READs with fast registration on every device, not only on iWARP, which needs it; for new connections (default N)");

#ifdef IXT_FAULT_INJECT
unsigned int ixt_iser_dbg_max_sge;
module_param_named(dbg_max_sge, ixt_iser_dbg_max_sge, uint, 0644);
MODULE_PARM_DESC(dbg_max_sge,
		 "Debug: at most this many SGEs per RDMA work request, below the device's limit; 0: the device's (default 0)");

unsigned int ixt_iser_dbg_max_wr_len;
module_param_named(dbg_max_wr_len, ixt_iser_dbg_max_wr_len, uint, 0644);
MODULE_PARM_DESC(dbg_max_wr_len,
		 "Debug: at most this many bytes per RDMA work request; 0: the port's limit (default 0)");

unsigned int ixt_iser_dbg_mr_pool;
module_param_named(dbg_mr_pool, ixt_iser_dbg_mr_pool, uint, 0644);
MODULE_PARM_DESC(dbg_mr_pool,
		 "Debug: at most this many MRs per connection where READ sinks are registered; 0: as many as the send queue can use, up to 64 (default 0)");

unsigned int ixt_iser_dbg_lose_sends;
module_param_named(dbg_lose_sends, ixt_iser_dbg_lose_sends, uint, 0644);
MODULE_PARM_DESC(dbg_lose_sends,
		 "Fault injection: the completions of the next this many Sends are ignored, as if the device never made them (default 0)");
#endif

struct ixt_iser_stats ixt_iser_stats;
static struct dentry *ixt_iser_debugfs;

static int ixt_iser_stats_show(struct seq_file *m, void *v)
{
	struct ixt_iser_stats *st = &ixt_iser_stats;

	seq_printf(m, "rdma_writes %lld\n", atomic64_read(&st->rdma_writes));
	seq_printf(m, "rdma_reads %lld\n", atomic64_read(&st->rdma_reads));
	seq_printf(m, "xfers %lld\n", atomic64_read(&st->xfers));
	seq_printf(m, "sq_waits %lld\n", atomic64_read(&st->sq_waits));
	seq_printf(m, "send_invs %lld\n", atomic64_read(&st->send_invs));
	seq_printf(m, "chained_sends %lld\n",
		   atomic64_read(&st->chained_sends));
	seq_printf(m, "reg_mrs %lld\n", atomic64_read(&st->reg_mrs));
	seq_printf(m, "mr_waits %lld\n", atomic64_read(&st->mr_waits));
	seq_printf(m, "remote_invs %lld\n", atomic64_read(&st->remote_invs));
	seq_printf(m, "late_flushes %lld\n",
		   atomic64_read(&st->late_flushes));
	seq_printf(m, "abandoned_sends %lld\n",
		   atomic64_read(&st->abandoned_sends));
	seq_printf(m, "rx_lent %lld\n", atomic64_read(&st->rx_lent));
	seq_printf(m, "rx_lend_full %lld\n",
		   atomic64_read(&st->rx_lend_full));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ixt_iser_stats);

/*
 * ixt_iser_mutex protects each listener's cm_id; the RDMA CM's handlers
 * take it. Listening cm_ids are made and destroyed in the listener ops
 * only, which the core serialises under its portal mutex: no handler
 * takes that one, so no handler waits for a caller that waits for the
 * handler's own cm_id.
 */
static DEFINE_MUTEX(ixt_iser_mutex);

/* The iWARP devices registered: what a wildcard listener would take. */
static atomic_t ixt_iser_iwarp_devs = ATOMIC_INIT(0);

/*
 * Listeners whose device went: off the RDMA CM handler, which must not
 * take the core's portal mutex, their cm_ids are destroyed (an iWARP
 * one's socket with it) and they try again, giving the port back to TCP
 * if no iWARP device has the address now.
 */
static void ixt_iser_relisten_fn(struct work_struct *work)
{
	ixt_iser_relisten();
}

static DECLARE_WORK(ixt_iser_relisten_work, ixt_iser_relisten_fn);

/**
 * struct ixt_iser_listener - the RDMA CM listener of a portal
 * @ctx: %IXT_ISER_CTX_LISTENER; what @cm_id's context points at.
 * @portal: the core's portal; it outlives the listener.
 * @cm_id: the listening cm_id; %NULL after its device went, until a
 *	device comes that takes the address again. Under ixt_iser_mutex.
 * @gone: @cm_id's device went; the relisten work destroys it. Under
 *	ixt_iser_mutex.
 */
struct ixt_iser_listener {
	enum ixt_iser_ctx ctx;
	struct ixt_portal *portal;
	struct rdma_cm_id *cm_id;
	bool gone;
};

static int ixt_iser_listener_event(struct ixt_iser_listener *l,
				   struct rdma_cm_id *id,
				   struct rdma_cm_event *ev)
{
	pr_info("%pISpc: listener: %s\n", ixt_portal_addr(l->portal),
		rdma_event_msg(ev->event));
	if (ev->event != RDMA_CM_EVENT_DEVICE_REMOVAL)
		return 0;
	/*
	 * The relisten work destroys the id, which the device removal waits
	 * for, then gives the port back to TCP: the RDMA CM would destroy it
	 * only after this handler returns. Unless ixt_iser_unlisten() has
	 * taken it already, and destroys it.
	 */
	mutex_lock(&ixt_iser_mutex);
	if (l->cm_id == id)
		l->gone = true;
	mutex_unlock(&ixt_iser_mutex);
	schedule_work(&ixt_iser_relisten_work);
	return 0;
}

static int ixt_iser_cm_handler(struct rdma_cm_id *id,
			       struct rdma_cm_event *ev)
{
	enum ixt_iser_ctx *ctx = id->context;
	struct ixt_iser_listener *l;

	if (!ctx)
		return 0;
	if (*ctx == IXT_ISER_CTX_CONN) {
		ixt_iser_conn_cm_event(container_of(ctx, struct ixt_iser_conn,
						    ctx), ev);
		return 0;
	}
	l = container_of(ctx, struct ixt_iser_listener, ctx);
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return ixt_iser_accept(id, ev, l->portal);
	return ixt_iser_listener_event(l, id, ev);
}

/*
 * Whether listening with @id, bound, takes the TCP port itself: an iWARP
 * device listens with a TCP socket on the address and port (siw, as
 * IW_F_NO_PORT_MAP devices do). A wildcard id has no device: the RDMA CM
 * listens on every device, so it does when an iWARP device exists.
 */
static bool ixt_iser_takes_port(struct rdma_cm_id *id)
{
	if (!id->device)
		return atomic_read(&ixt_iser_iwarp_devs) > 0;
	return rdma_protocol_iwarp(id->device, id->port_num);
}

/*
 * Makes the listening cm_id of @l. An iWARP one first takes the port
 * from the portal's TCP listener; the port goes back to TCP as soon as
 * no iWARP listener holds it: when this one cannot bind or listen, or
 * binds to a device of another kind.
 */
static struct rdma_cm_id *ixt_iser_listen_id(struct ixt_iser_listener *l)
{
	const struct sockaddr_storage *addr = ixt_portal_addr(l->portal);
	struct rdma_cm_id *id;
	int ret;

	id = ixt_fault(IXT_FAULT_ISER_LISTEN_ID) ? ERR_PTR(-ENOMEM) :
	     rdma_create_id(&init_net, ixt_iser_cm_handler, &l->ctx,
			    RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	/* [::] must not take 0.0.0.0 as well: both may be portals. */
	if (addr->ss_family == AF_INET6) {
		ret = rdma_set_afonly(id, 1);
		if (ret)
			goto out_destroy;
	}
	ret = rdma_bind_addr(id, (struct sockaddr *)addr);
	if (ret)
		goto out_reclaim;
	if (ixt_iser_takes_port(id))
		ixt_portal_lend_tcp(l->portal);
	else
		ixt_portal_reclaim_tcp(l->portal);
	ret = rdma_listen(id, IXT_ISER_BACKLOG);
	if (ret)
		goto out_reclaim;
	return id;

out_reclaim:
	ixt_portal_reclaim_tcp(l->portal);
out_destroy:
	rdma_destroy_id(id);
	return ERR_PTR(ret);
}

static int ixt_iser_listen(struct ixt_portal *portal, void **priv)
{
	struct ixt_iser_listener *l;
	struct rdma_cm_id *id;

	l = ixt_fault(IXT_FAULT_ISER_LISTENER) ? NULL :
	    kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	l->ctx = IXT_ISER_CTX_LISTENER;
	l->portal = portal;
	id = ixt_iser_listen_id(l);
	if (IS_ERR(id)) {
		kfree(l);
		return PTR_ERR(id);
	}
	mutex_lock(&ixt_iser_mutex);
	l->cm_id = id;
	mutex_unlock(&ixt_iser_mutex);
	*priv = l;
	return 0;
}

static void ixt_iser_unlisten(struct ixt_portal *portal, void *priv)
{
	struct ixt_iser_listener *l = priv;
	struct rdma_cm_id *id;

	mutex_lock(&ixt_iser_mutex);
	id = l->cm_id;
	l->cm_id = NULL;
	mutex_unlock(&ixt_iser_mutex);
	/* Waits for a connection request being handled. */
	if (id)
		rdma_destroy_id(id);
	kfree(l);
}

/*
 * A listener whose device went: its cm_id is destroyed, and it listens
 * again if a device has the address now.
 */
static void ixt_iser_listen_again(struct ixt_portal *portal, void *priv)
{
	struct ixt_iser_listener *l = priv;
	struct rdma_cm_id *id, *gone = NULL;

	mutex_lock(&ixt_iser_mutex);
	if (l->gone) {
		gone = l->cm_id;
		l->cm_id = NULL;
		l->gone = false;
	}
	id = l->cm_id;
	mutex_unlock(&ixt_iser_mutex);
	if (gone)
		rdma_destroy_id(gone);
	if (id)
		return;
	id = ixt_iser_listen_id(l);
	if (IS_ERR(id))
		return;
	mutex_lock(&ixt_iser_mutex);
	l->cm_id = id;
	mutex_unlock(&ixt_iser_mutex);
	pr_info("listening on %pISpc again (iSER)\n", ixt_portal_addr(portal));
}

static const struct ixt_listener_ops ixt_iser_listener_ops = {
	.owner		= THIS_MODULE,
	.listen		= ixt_iser_listen,
	.unlisten	= ixt_iser_unlisten,
	.relisten	= ixt_iser_listen_again,
};

static bool ixt_iser_dev_iwarp(struct ib_device *ibdev)
{
	return rdma_protocol_iwarp(ibdev, rdma_start_port(ibdev));
}

/* A device came: listeners whose device went listen again if they can. */
static int ixt_iser_add_one(struct ib_device *ibdev)
{
	if (ixt_iser_dev_iwarp(ibdev))
		atomic_inc(&ixt_iser_iwarp_devs);
	ixt_iser_relisten();
	return 0;
}

/* A device goes: its connections close, and free what they hold of it. */
static void ixt_iser_remove_one(struct ib_device *ibdev, void *client_data)
{
	if (ixt_iser_dev_iwarp(ibdev))
		atomic_dec(&ixt_iser_iwarp_devs);
	ixt_iser_conns_close(ibdev);
}

static struct ib_client ixt_iser_client = {
	.name	= "iscsi_xt_iser",
	.add	= ixt_iser_add_one,
	.remove	= ixt_iser_remove_one,
};

static int __init ixt_iser_init(void)
{
	int ret;

	ret = ixt_transport_register(&ixt_iser_xprt);
	if (ret)
		return ret;
	ixt_iser_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("stats", 0444, ixt_iser_debugfs, NULL,
			    &ixt_iser_stats_fops);
	ret = ib_register_client(&ixt_iser_client);
	if (ret)
		goto out_debugfs;
	ret = ixt_iser_register(&ixt_iser_listener_ops);
	if (ret)
		goto out_unregister_client;
	pr_info("iSER transport registered\n");
	return 0;

out_unregister_client:
	ib_unregister_client(&ixt_iser_client);
out_debugfs:
	debugfs_remove_recursive(ixt_iser_debugfs);
	ixt_transport_unregister(&ixt_iser_xprt);
	return ret;
}

/*
 * No portal listens through the module (each holds a reference on it):
 * the connections still up are closed, and waited for.
 */
static void __exit ixt_iser_exit(void)
{
	ixt_iser_unregister(&ixt_iser_listener_ops);
	cancel_work_sync(&ixt_iser_relisten_work);
	ixt_iser_conns_close(NULL);
	/* Their release work may still be returning from our free op. */
	flush_workqueue(ixt_wq);
	ib_unregister_client(&ixt_iser_client);
	debugfs_remove_recursive(ixt_iser_debugfs);
	ixt_transport_unregister(&ixt_iser_xprt);
}

module_init(ixt_iser_init);
module_exit(ixt_iser_exit);

MODULE_DESCRIPTION("iSER (iSCSI over RDMA) transport of the iscsi_xt target");
MODULE_AUTHOR("iscsi_xt developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(IXT_VERSION);
