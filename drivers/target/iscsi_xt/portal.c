// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: listeners, one per portal address and transport, shared by
 * the TPGs, each started and stopped through its transport's listener
 * ops: TCP's (tcp_listen.c), and iSER's, which the iSER module registers
 * when it loads. An iWARP listener needs the TCP port itself: the TCP
 * listener of its address lends it the port while it listens.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inet.h>
#include <linux/ipv6.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <net/ipv6.h>
#include <target/target_core_fabric.h>

#include "conn.h"
#include "fault.h"
#include "session.h"

/**
 * struct ixt_portal - a listening endpoint, shared by every TPG portal
 *	(&struct ixt_np) with the same address and port
 * @ref: kref: one while the listener runs (some np names the address),
 *	one per connection accepted from it.
 * @entry: link in ixt_portals, under ixt_portal_mutex, while listening.
 * @addr: the address and port listened on.
 * @iser: an iSER listener (the iSER module's), not a TCP one.
 * @lops: the listener ops of the transport while it listens (a
 *	reference on their module held); %NULL once stopped, or while
 *	@lent. Under ixt_portal_mutex.
 * @listener: what @lops keeps of the listener.
 * @lent: for a TCP portal, its port is lent to the iWARP listener of the
 *	iSER portal of the same address (iWARP connections are TCP
 *	connections, on the port itself): not listening until it is given
 *	back.
 * @links: &struct ixt_portal_link of the nps using the portal, under
 *	ixt_portal_mutex.
 */
struct ixt_portal {
	struct kref ref;
	struct list_head entry;
	struct sockaddr_storage addr;
	bool iser;
	const struct ixt_listener_ops *lops;
	void *listener;
	bool lent;
	struct list_head links;
};

/**
 * struct ixt_portal_link - one configfs portal using a listener
 * @entry: link in &struct ixt_portal.links.
 * @np: the configfs portal; it and its TPG outlive the link, which
 *	ixt_portal_np_del() removes before the np is freed.
 * @tpg: the TPG of @np.
 */
struct ixt_portal_link {
	struct list_head entry;
	struct ixt_np *np;
	struct ixt_tpg *tpg;
};

/**
 * struct ixt_tpg_use - references on a TPG held by connections
 * @entry: link in ixt_tpg_uses, under ixt_portal_mutex.
 * @tpg: the TPG.
 * @count: references; the entry goes when it drops to 0.
 *
 * A TPG is freed when its configfs directory goes, which cannot wait for
 * a reference count of its own; ixt_tpg_drain() waits for these instead.
 */
struct ixt_tpg_use {
	struct list_head entry;
	struct ixt_tpg *tpg;
	unsigned int count;
};

/*
 * Protects ixt_portals, every portal's links, the start/stop of
 * listeners, ixt_tpg_uses and ixt_iser_lops.
 */
static DEFINE_MUTEX(ixt_portal_mutex);
static const struct ixt_listener_ops *ixt_iser_lops;
static LIST_HEAD(ixt_portals);
static LIST_HEAD(ixt_tpg_uses);
static DECLARE_WAIT_QUEUE_HEAD(ixt_tpg_use_wq);

/**
 * ixt_addr_equal() - compare two portal addresses
 * @a: an IPv4 or IPv6 address with its port.
 * @b: another.
 *
 * Context: Any context.
 * Return: true when family, address and port are the same.
 */
bool ixt_addr_equal(const struct sockaddr_storage *a,
		    const struct sockaddr_storage *b)
{
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;
	const struct sockaddr_in6 *b6 = (const struct sockaddr_in6 *)b;
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)a;
	const struct sockaddr_in *b4 = (const struct sockaddr_in *)b;

	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET6)
		return a6->sin6_port == b6->sin6_port &&
		       ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr);
	return a4->sin_port == b4->sin_port &&
	       a4->sin_addr.s_addr == b4->sin_addr.s_addr;
}

static void ixt_portal_release(struct kref *ref)
{
	kfree(container_of(ref, struct ixt_portal, ref));
}

/**
 * ixt_portal_get() - take a reference on a portal
 * @portal: the portal, on which the caller holds a reference.
 *
 * Context: Any context.
 */
void ixt_portal_get(struct ixt_portal *portal)
{
	kref_get(&portal->ref);
}

/**
 * ixt_portal_put() - drop a reference on a portal
 * @portal: the portal.
 *
 * Context: Any context.
 */
void ixt_portal_put(struct ixt_portal *portal)
{
	kref_put(&portal->ref, ixt_portal_release);
}

/*
 * Starts listening through @lops (%NULL: the iSER module is not loaded,
 * and LIO's transport lookup fails with -EINVAL there too).
 */
static int ixt_portal_listen(struct ixt_portal *portal,
			     const struct ixt_listener_ops *lops)
{
	int ret;

	lockdep_assert_held(&ixt_portal_mutex);
	if (!lops || !try_module_get(lops->owner))
		return -EINVAL;
	ret = lops->listen(portal, &portal->listener);
	if (ret) {
		module_put(lops->owner);
		return ret;
	}
	portal->lops = lops;
	return 0;
}

/* Stops listening, if it does: lent, or not listening again after a loan. */
static void ixt_portal_unlisten(struct ixt_portal *portal)
{
	const struct ixt_listener_ops *lops = portal->lops;

	lockdep_assert_held(&ixt_portal_mutex);
	if (!lops)
		return;
	lops->unlisten(portal, portal->listener);
	module_put(lops->owner);
	portal->lops = NULL;
	portal->listener = NULL;
}

static struct ixt_portal *ixt_portal_find(const struct sockaddr_storage *addr,
					  bool iser)
{
	struct ixt_portal *portal;

	lockdep_assert_held(&ixt_portal_mutex);
	list_for_each_entry(portal, &ixt_portals, entry)
		if (portal->iser == iser && ixt_addr_equal(&portal->addr, addr))
			return portal;
	return NULL;
}

/**
 * ixt_portal_lend_tcp() - stop the TCP listener of an iSER portal's address
 * @portal: an iSER portal whose listener is an iWARP one, about to listen
 *	on the address and port that the TCP listener of its nps holds.
 *
 * The port stays lent until ixt_portal_reclaim_tcp(); connections
 * already accepted over TCP stay up.
 *
 * Context: Process context, in the listener ops (ixt_portal_mutex held).
 */
void ixt_portal_lend_tcp(struct ixt_portal *portal)
{
	struct ixt_portal *tcp = ixt_portal_find(&portal->addr, false);

	if (!tcp || tcp->lent)
		return;
	ixt_portal_unlisten(tcp);
	tcp->lent = true;
	pr_info("%pISpc: TCP listener stopped: the iWARP listener (iSER) takes the port\n",
		&tcp->addr);
}
EXPORT_SYMBOL_GPL(ixt_portal_lend_tcp);

/**
 * ixt_portal_reclaim_tcp() - restart a TCP listener lent to iWARP
 * @portal: the iSER portal to which ixt_portal_lend_tcp() lent the port;
 *	its iWARP listener no longer holds the port.
 *
 * Does nothing when the port was not lent. If the TCP listener cannot
 * start again (another socket took the port meanwhile), the error is
 * logged and the portal serves no TCP until it is created again.
 *
 * Context: Process context, ixt_portal_mutex held.
 */
void ixt_portal_reclaim_tcp(struct ixt_portal *portal)
{
	struct ixt_portal *tcp = ixt_portal_find(&portal->addr, false);
	int ret;

	if (!tcp || !tcp->lent)
		return;
	tcp->lent = false;
	ret = ixt_portal_listen(tcp, &ixt_tcp_lops);
	if (ret)
		pr_err("%pISpc: cannot listen over TCP again: %d\n",
		       &tcp->addr, ret);
	else
		pr_info("%pISpc: TCP listener back from the iWARP listener\n",
			&tcp->addr);
}
EXPORT_SYMBOL_GPL(ixt_portal_reclaim_tcp);

/* Stops accepting; connections already accepted keep their reference. */
static void ixt_portal_stop(struct ixt_portal *portal)
{
	lockdep_assert_held(&ixt_portal_mutex);
	ixt_portal_unlisten(portal);
	list_del(&portal->entry);
	pr_info("stopped listening on %pISpc%s\n", &portal->addr,
		portal->iser ? " (iSER)" : "");
	if (portal->iser)
		ixt_portal_reclaim_tcp(portal);
	ixt_portal_put(portal);
}

static struct ixt_portal *ixt_portal_find_start(struct sockaddr_storage *addr,
						bool iser)
{
	struct ixt_portal *portal;
	int ret;

	portal = ixt_portal_find(addr, iser);
	if (portal)
		return portal;

	portal = ixt_fault(IXT_FAULT_PORTAL) ? NULL :
		 kzalloc(sizeof(*portal), GFP_KERNEL);
	if (!portal)
		return ERR_PTR(-ENOMEM);
	kref_init(&portal->ref);
	portal->addr = *addr;
	portal->iser = iser;
	INIT_LIST_HEAD(&portal->links);

	ret = ixt_portal_listen(portal, iser ? ixt_iser_lops : &ixt_tcp_lops);
	if (ret) {
		pr_err("cannot listen on %pISpc%s: %d\n", addr,
		       iser ? " (iSER)" : "", ret);
		kfree(portal);
		return ERR_PTR(ret);
	}
	list_add_tail(&portal->entry, &ixt_portals);
	pr_info("listening on %pISpc%s\n", addr, iser ? " (iSER)" : "");
	return portal;
}

static struct ixt_portal_link *ixt_portal_find_link(struct ixt_np *np,
						    bool iser,
						    struct ixt_portal **portalp)
{
	struct ixt_portal_link *link;
	struct ixt_portal *portal;

	lockdep_assert_held(&ixt_portal_mutex);
	list_for_each_entry(portal, &ixt_portals, entry) {
		if (portal->iser != iser)
			continue;
		list_for_each_entry(link, &portal->links, entry) {
			if (link->np == np) {
				*portalp = portal;
				return link;
			}
		}
	}
	return NULL;
}

/* Links @np to the listener of its address for @iser, started if need be. */
static int ixt_portal_link_add(struct ixt_np *np, struct ixt_tpg *tpg,
			       bool iser)
{
	struct ixt_portal_link *link;
	struct ixt_portal *portal;

	lockdep_assert_held(&ixt_portal_mutex);
	link = ixt_fault(IXT_FAULT_PORTAL_LINK) ? NULL :
	       kzalloc(sizeof(*link), GFP_KERNEL);
	if (!link)
		return -ENOMEM;
	link->np = np;
	link->tpg = tpg;
	portal = ixt_portal_find_start(&np->addr, iser);
	if (IS_ERR(portal)) {
		kfree(link);
		return PTR_ERR(portal);
	}
	list_add_tail(&link->entry, &portal->links);
	return 0;
}

/* Unlinks @np from its listener for @iser, stopped if it was the last. */
static void ixt_portal_link_del(struct ixt_np *np, bool iser)
{
	struct ixt_portal_link *link;
	struct ixt_portal *portal;

	lockdep_assert_held(&ixt_portal_mutex);
	link = ixt_portal_find_link(np, iser, &portal);
	if (WARN_ON_ONCE(!link))
		return;
	list_del(&link->entry);
	kfree(link);
	if (list_empty(&portal->links))
		ixt_portal_stop(portal);
}

/**
 * ixt_portal_np_add() - make a configfs portal listen
 * @np: the new portal, its address parsed.
 * @tpg: the TPG it belongs to.
 *
 * Starts a listener for the address unless another portal already
 * listens there, and records that @np uses it. As in LIO, the portal
 * listens whether or not its TPG is enabled; logins check that.
 *
 * Context: Process context; takes ixt_portal_mutex.
 * Return: 0, -ENOMEM, or the socket layer's error (-EADDRINUSE). An
 * address no interface has is listened on as soon as one has it, as in
 * LIO (IP_FREEBIND).
 */
int ixt_portal_np_add(struct ixt_np *np, struct ixt_tpg *tpg)
{
	int ret;

	mutex_lock(&ixt_portal_mutex);
	ret = ixt_portal_link_add(np, tpg, false);
	mutex_unlock(&ixt_portal_mutex);
	return ret;
}

/**
 * ixt_portal_np_del() - forget a configfs portal
 * @np: the portal going away; ixt_portal_np_add() succeeded for it.
 *
 * Stops its listeners (TCP, and iSER if its iser attribute is set) when
 * @np was their last user. Connections accepted from them stay up, as
 * in LIO.
 *
 * Context: Process context; takes ixt_portal_mutex.
 */
void ixt_portal_np_del(struct ixt_np *np)
{
	struct ixt_portal *portal;

	mutex_lock(&ixt_portal_mutex);
	if (ixt_portal_find_link(np, true, &portal))
		ixt_portal_link_del(np, true);
	ixt_portal_link_del(np, false);
	mutex_unlock(&ixt_portal_mutex);
}

/**
 * ixt_portal_np_set_iser() - start or stop the iSER listener of a portal
 * @np: the configfs portal, listening over TCP.
 * @tpg: its TPG.
 * @on: whether it should accept iSER connections too.
 *
 * Loads the iSER module the first time (as LIO loads ib_isert), then
 * listens through it on the portal's address, sharing the listener with
 * the other portals of that address. Stopping it leaves the connections
 * it accepted up.
 *
 * Context: Process context; may load a module; takes ixt_portal_mutex.
 * Caller serialises the calls for one portal (the TPG's lock).
 * Return: 0, or the error of the module load or of the RDMA listener
 * (-EINVAL when the module is not there, as in LIO, -ENODEV or
 * -EADDRNOTAVAIL when no RDMA device has the address, -EADDRINUSE,
 * -ENOMEM).
 */
int ixt_portal_np_set_iser(struct ixt_np *np, struct ixt_tpg *tpg, bool on)
{
	struct ixt_portal *portal;
	int ret = 0;

	if (on && !READ_ONCE(ixt_iser_lops))
		request_module("iscsi_xt_iser");
	mutex_lock(&ixt_portal_mutex);
	if (!on != !ixt_portal_find_link(np, true, &portal)) {
		if (on)
			ret = ixt_portal_link_add(np, tpg, true);
		else
			ixt_portal_link_del(np, true);
	}
	mutex_unlock(&ixt_portal_mutex);
	return ret;
}

/**
 * ixt_iser_register() - the iSER module offers its listeners
 * @ops: its listener ops.
 *
 * Context: Process context, module init; takes ixt_portal_mutex.
 * Return: 0, or -EBUSY when another module registered already.
 */
int ixt_iser_register(const struct ixt_listener_ops *ops)
{
	int ret = 0;

	mutex_lock(&ixt_portal_mutex);
	if (ixt_iser_lops)
		ret = -EBUSY;
	else
		WRITE_ONCE(ixt_iser_lops, ops);
	mutex_unlock(&ixt_portal_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(ixt_iser_register);

/**
 * ixt_iser_relisten() - the iSER listeners may listen again
 *
 * The iSER module calls it when an RDMA device comes: each iSER portal's
 * listener whose device went may find one with its address again. The
 * listener ops' relisten runs under ixt_portal_mutex, as listen does, so
 * that an iWARP listener can take its port from the TCP listener.
 *
 * Context: Process context; takes ixt_portal_mutex.
 */
void ixt_iser_relisten(void)
{
	struct ixt_portal *portal;

	mutex_lock(&ixt_portal_mutex);
	list_for_each_entry(portal, &ixt_portals, entry)
		if (portal->iser)
			portal->lops->relisten(portal, portal->listener);
	mutex_unlock(&ixt_portal_mutex);
}
EXPORT_SYMBOL_GPL(ixt_iser_relisten);

/**
 * ixt_iser_unregister() - the iSER module goes
 * @ops: what it registered. No portal listens through it: each holds a
 *	reference on its module.
 *
 * Context: Process context, module exit; takes ixt_portal_mutex.
 */
void ixt_iser_unregister(const struct ixt_listener_ops *ops)
{
	mutex_lock(&ixt_portal_mutex);
	if (ixt_iser_lops == ops)
		WRITE_ONCE(ixt_iser_lops, NULL);
	mutex_unlock(&ixt_portal_mutex);
}
EXPORT_SYMBOL_GPL(ixt_iser_unregister);

static struct ixt_tpg_use *ixt_tpg_use_find(struct ixt_tpg *tpg)
{
	struct ixt_tpg_use *use;

	lockdep_assert_held(&ixt_portal_mutex);
	list_for_each_entry(use, &ixt_tpg_uses, entry)
		if (use->tpg == tpg)
			return use;
	return NULL;
}

/* Takes a reference on @tpg, whose np (hence the TPG) is alive. */
static bool ixt_tpg_get(struct ixt_tpg *tpg)
{
	struct ixt_tpg_use *use;

	lockdep_assert_held(&ixt_portal_mutex);
	use = ixt_tpg_use_find(tpg);
	if (!use) {
		use = ixt_fault(IXT_FAULT_TPG_USE) ? NULL :
		      kzalloc(sizeof(*use), GFP_KERNEL);
		if (!use)
			return false;
		use->tpg = tpg;
		list_add(&use->entry, &ixt_tpg_uses);
	}
	use->count++;
	return true;
}

/**
 * ixt_portal_find_tpg_get() - find the TPG a login is for
 * @portal: the endpoint the connection arrived on.
 * @target_name: the TargetName of the Login Request.
 *
 * The TPG must have a portal on @portal and be enabled. If several TPGs
 * of the target qualify, the first one configured wins.
 *
 * Context: Process context; takes ixt_portal_mutex.
 * Return: the TPG with a reference, to drop with ixt_tpg_put();
 * ERR_PTR(-ENOENT) when no TPG of that target has a portal on @portal,
 * ERR_PTR(-EAGAIN) when such TPGs exist but none is enabled (the admin
 * may enable one: the initiator should retry), ERR_PTR(-ENOMEM).
 */
struct ixt_tpg *ixt_portal_find_tpg_get(struct ixt_portal *portal,
					const char *target_name)
{
	struct ixt_portal_link *link;
	struct ixt_tpg *tpg = ERR_PTR(-ENOENT);

	mutex_lock(&ixt_portal_mutex);
	list_for_each_entry(link, &portal->links, entry) {
		if (strcmp(link->tpg->tiqn->name, target_name))
			continue;
		if (!link->tpg->active) {
			tpg = ERR_PTR(-EAGAIN);
			continue;
		}
		tpg = ixt_tpg_get(link->tpg) ? link->tpg : ERR_PTR(-ENOMEM);
		break;
	}
	mutex_unlock(&ixt_portal_mutex);
	return tpg;
}

/**
 * ixt_tpg_set_active() - let logins find a TPG, or stop them
 * @tpg: the TPG, being enabled or disabled.
 * @active: whether logins may find it.
 *
 * Context: Process context; takes ixt_portal_mutex.
 */
void ixt_tpg_set_active(struct ixt_tpg *tpg, bool active)
{
	mutex_lock(&ixt_portal_mutex);
	tpg->active = active;
	mutex_unlock(&ixt_portal_mutex);
}

/**
 * ixt_tpg_put() - drop a reference taken by ixt_portal_find_tpg_get()
 * @tpg: the TPG.
 *
 * Context: Process context; takes ixt_portal_mutex.
 */
void ixt_tpg_put(struct ixt_tpg *tpg)
{
	struct ixt_tpg_use *use;

	mutex_lock(&ixt_portal_mutex);
	use = ixt_tpg_use_find(tpg);
	if (!WARN_ON_ONCE(!use) && !--use->count) {
		list_del(&use->entry);
		kfree(use);
		wake_up_all(&ixt_tpg_use_wq);
	}
	mutex_unlock(&ixt_portal_mutex);
}

static bool ixt_tpg_in_use(struct ixt_tpg *tpg)
{
	bool in_use;

	mutex_lock(&ixt_portal_mutex);
	in_use = ixt_tpg_use_find(tpg);
	mutex_unlock(&ixt_portal_mutex);
	return in_use;
}

/**
 * ixt_tpg_drain() - end every login and session of a TPG being freed
 * @tpg: the TPG, whose portals are all gone: no new login can find it.
 *
 * Closes the connections that hold a reference on @tpg and waits until
 * they have dropped it. A connection that found the TPG just before its
 * last portal went may not have recorded it yet, hence the retries.
 *
 * Context: Process context, may sleep; the TPG's configfs release.
 */
void ixt_tpg_drain(struct ixt_tpg *tpg)
{
	ixt_tpg_logout_sessions(tpg);
	while (ixt_tpg_in_use(tpg)) {
		ixt_conns_close_tpg(tpg);
		ixt_wait_woken(ixt_tpg_use_wq, !ixt_tpg_in_use(tpg), HZ);
	}
}

/**
 * ixt_portals_walk() - call a function for every (portal, TPG) pair
 * @begin: called first, under the same lock, with the number of pairs
 *	@fn will be called for, so that the caller sizes what it collects
 *	to them; a non-zero return ends the walk there.
 * @fn: the function; a non-zero return stops the walk. It runs under
 *	ixt_portal_mutex: it may sleep and take target core mutexes, but
 *	must not add or remove portals.
 * @arg: passed to @begin and @fn.
 *
 * Context: Process context; takes ixt_portal_mutex.
 * Return: the first non-zero value @begin or @fn returned, else 0.
 */
int ixt_portals_walk(int (*begin)(u32 nr_pairs, void *arg),
		     int (*fn)(struct ixt_np *np, struct ixt_tpg *tpg,
			       void *arg), void *arg)
{
	struct ixt_portal_link *link;
	struct ixt_portal *portal;
	u32 nr = 0;
	int ret;

	mutex_lock(&ixt_portal_mutex);
	/* Every np has a TCP listener; its iser flag tells the rest. */
	list_for_each_entry(portal, &ixt_portals, entry)
		if (!portal->iser)
			list_for_each_entry(link, &portal->links, entry)
				nr++;
	ret = begin(nr, arg);
	if (ret)
		goto out_unlock;
	list_for_each_entry(portal, &ixt_portals, entry) {
		if (portal->iser)
			continue;
		list_for_each_entry(link, &portal->links, entry) {
			ret = fn(link->np, link->tpg, arg);
			if (ret)
				goto out_unlock;
		}
	}
out_unlock:
	mutex_unlock(&ixt_portal_mutex);
	return ret;
}

/**
 * ixt_portal_addr() - the address a portal listens on
 * @portal: the portal.
 *
 * Context: Any context.
 * Return: the address; constant for the portal's life.
 */
const struct sockaddr_storage *ixt_portal_addr(struct ixt_portal *portal)
{
	return &portal->addr;
}
EXPORT_SYMBOL_GPL(ixt_portal_addr);
