// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: the TCP transport's listener ops. portal.c starts and stops
 * every listener through &struct ixt_listener_ops, TCP's these, iSER's
 * those of the iSER module; each TCP listener is a listening socket whose
 * accept work hands every connection to ixt_tcp_conn_create().
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ipv6.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/workqueue.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "transport.h"

/* Pending connections a listener queues before the accept work runs. */
#define IXT_LISTEN_BACKLOG	256

/*
 * One listening socket: @portal, which outlives it (ixt_tcp_unlisten()
 * runs before the portal's last reference goes); @data_ready, the
 * socket's own sk_data_ready, restored at stop; @accept_work accepts
 * every pending connection, and runs again a moment later when accepting
 * one failed (for lack of memory, say), which left it in the queue with
 * no new connection to call us.
 */
struct ixt_tcp_listener {
	struct ixt_portal *portal;
	struct socket *sock;
	void (*data_ready)(struct sock *sk);
	struct delayed_work accept_work;
};

static void ixt_tcp_listen_data_ready(struct sock *sk)
{
	struct ixt_tcp_listener *tl;

	read_lock_bh(&sk->sk_callback_lock);
	tl = sk->sk_user_data;
	if (tl && sk->sk_state == TCP_LISTEN)
		mod_delayed_work(ixt_wq, &tl->accept_work, 0);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void ixt_tcp_accept_work(struct work_struct *work)
{
	struct ixt_tcp_listener *tl =
		container_of(to_delayed_work(work), struct ixt_tcp_listener,
			     accept_work);
	struct socket *newsock;
	int ret;

	for (;;) {
		ret = ixt_fault(IXT_FAULT_ACCEPT) ? -ENOMEM :
		      kernel_accept(tl->sock, &newsock, O_NONBLOCK);
		if (ret) {
			if (ret == -EAGAIN)
				return;
			pr_warn_ratelimited("accept on %pISpc failed: %d\n",
					    ixt_portal_addr(tl->portal), ret);
			queue_delayed_work(ixt_wq, &tl->accept_work, HZ / 10);
			return;
		}
		ret = ixt_tcp_conn_create(tl->portal, newsock);
		if (ret)
			sock_release(newsock);
	}
}

/* listen op: a socket listening on the portal's address. */
static int ixt_tcp_listen(struct ixt_portal *portal, void **priv)
{
	const struct sockaddr_storage *addr = ixt_portal_addr(portal);
	struct ixt_tcp_listener *tl;
	struct sock *sk;
	int ret;

	tl = ixt_fault(IXT_FAULT_PORTAL_SOCK) ? NULL :
	     kzalloc(sizeof(*tl), GFP_KERNEL);
	if (!tl)
		return -ENOMEM;
	tl->portal = portal;
	INIT_DELAYED_WORK(&tl->accept_work, ixt_tcp_accept_work);
	ret = sock_create_kern(&init_net, addr->ss_family, SOCK_STREAM,
			       IPPROTO_TCP, &tl->sock);
	if (ret)
		goto out_free;
	sk = tl->sock->sk;
	sk->sk_allocation = GFP_KERNEL;
	sock_set_reuseaddr(sk);
	tcp_sock_set_nodelay(sk);
	/*
	 * As LIO: an address no interface has yet listens once one has it
	 * (a cluster's floating address, or the other node's address in the
	 * disabled remote TPG of a two-node ALUA layout).
	 */
	ip_sock_set_freebind(sk);
	/* [::] must not take 0.0.0.0 as well: both may be portals. */
	if (addr->ss_family == AF_INET6)
		ip6_sock_set_v6only(sk);

	ret = kernel_bind(tl->sock, (struct sockaddr *)addr, sizeof(*addr));
	if (ret)
		goto out_release_sock;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = tl;
	tl->data_ready = sk->sk_data_ready;
	sk->sk_data_ready = ixt_tcp_listen_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);

	ret = kernel_listen(tl->sock, IXT_LISTEN_BACKLOG);
	if (ret)
		goto out_restore_callbacks;
	*priv = tl;
	return 0;

out_restore_callbacks:
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = tl->data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
out_release_sock:
	sock_release(tl->sock);
out_free:
	kfree(tl);
	return ret;
}

/* unlisten op: no new connection; those accepted stay up. */
static void ixt_tcp_unlisten(struct ixt_portal *portal, void *priv)
{
	struct ixt_tcp_listener *tl = priv;
	struct sock *sk = tl->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = tl->data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	cancel_delayed_work_sync(&tl->accept_work);
	kernel_sock_shutdown(tl->sock, SHUT_RDWR);
	sock_release(tl->sock);
	kfree(tl);
}

/* TCP is part of the core module: no module reference to take. */
const struct ixt_listener_ops ixt_tcp_lops = {
	.listen		= ixt_tcp_listen,
	.unlisten	= ixt_tcp_unlisten,
};
