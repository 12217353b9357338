// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: fair shares of the bounds that peers compete for before they
 * are trusted.
 *
 * A bound on connections in login, or on discovery sessions, keeps what
 * peers that proved nothing can make the target hold. Alone it also lets
 * one host take every place and keep it by reconnecting as places free
 * up: every other initiator is then locked out of login. So when a bound
 * is reached, a newcomer takes the place of the oldest holder of the host
 * that holds the most places, if that host holds at least two more than
 * the newcomer's (which then holds no more than it): a single host can
 * no longer keep another out, and a newcomer whose host already holds
 * the most is refused as before. Hosts are IPv4 addresses and IPv6 /64
 * prefixes, what one machine on a network is given.
 *
 * The choice walks the places twice over, max * max steps (4096 at the
 * default 64), and runs only when the bound is reached.
 *
 * Locking: a bound's lock is taken with bottom halves off. The TCP
 * transport arms a place under its socket's sk_callback_lock, which the
 * network's softirq takes too; a plain spinlock nested there could
 * deadlock with a softirq on the CPU that held it.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <net/ipv6.h>

#include "fair.h"

/* IPv4 hosts: no IPv6 source address (ff00::/8 is multicast) has these. */
#define IXT_FAIR_HOST_V4	0xffffffff00000000ULL

/**
 * ixt_fair_host() - the host a peer's address belongs to
 * @ss: the peer's address.
 *
 * Context: Any context.
 * Return: its IPv4 address (an IPv4-mapped IPv6 address included) or its
 * IPv6 /64 prefix, as a key of its own; 0 for other families.
 */
u64 ixt_fair_host(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *sin6 = (const void *)ss;
	const struct sockaddr_in *sin = (const void *)ss;
	const struct in6_addr *a = &sin6->sin6_addr;

	switch (ss->ss_family) {
	case AF_INET:
		return IXT_FAIR_HOST_V4 | be32_to_cpu(sin->sin_addr.s_addr);
	case AF_INET6:
		if (ipv6_addr_v4mapped(a))
			return IXT_FAIR_HOST_V4 | be32_to_cpu(a->s6_addr32[3]);
		return (u64)be32_to_cpu(a->s6_addr32[0]) << 32 |
		       be32_to_cpu(a->s6_addr32[1]);
	default:
		return 0;
	}
}

static u32 ixt_fair_held(const struct ixt_fair_bound *b, u64 host)
{
	const struct ixt_fair_slot *s;
	u32 n = 0;

	list_for_each_entry(s, &b->slots, entry)
		n += s->host == host;
	return n;
}

/*
 * The oldest armed place of the host that holds the most, other than
 * @host, if it holds at least two more than @host does; %NULL otherwise.
 * Walking oldest first and keeping only a strictly larger count, the
 * first place found of the busiest host is its oldest armed one.
 */
static struct ixt_fair_slot *ixt_fair_victim(struct ixt_fair_bound *b,
					     u64 host, u32 *held)
{
	struct ixt_fair_slot *s, *victim = NULL;
	u32 mine = ixt_fair_held(b, host), most = 0, n;

	list_for_each_entry(s, &b->slots, entry) {
		if (!s->armed || s->host == host)
			continue;
		n = ixt_fair_held(b, s->host);
		if (n > most) {
			most = n;
			victim = s;
		}
	}
	if (most < mine + 2)
		return NULL;
	*held = most;
	return victim;
}

/**
 * ixt_fair_take() - take a place in a bound
 * @b: the bound.
 * @slot: the place, not held.
 * @host: the taker's host, from ixt_fair_host().
 * @max: the bound.
 *
 * Below @max the place is taken. At @max, the oldest armed holder of the
 * host that holds the most places gives its place up and is closed
 * (&ixt_fair_bound.evict), if that host holds at least two more than
 * @host; otherwise the place is refused.
 *
 * Context: Process context; takes @b's lock.
 * Return: 0, or -EBUSY when refused.
 */
int ixt_fair_take(struct ixt_fair_bound *b, struct ixt_fair_slot *slot,
		  u64 host, u32 max)
{
	struct ixt_fair_slot *victim;
	u32 held;

	slot->host = host;
	slot->armed = false;
	spin_lock_bh(&b->lock);
	if (b->nr >= max) {
		victim = ixt_fair_victim(b, host, &held);
		if (!victim) {
			spin_unlock_bh(&b->lock);
			INIT_LIST_HEAD(&slot->entry);
			return -EBUSY;
		}
		list_del_init(&victim->entry);
		b->nr--;
		b->evict(victim, held);
	}
	list_add_tail(&slot->entry, &b->slots);
	b->nr++;
	spin_unlock_bh(&b->lock);
	return 0;
}

/**
 * ixt_fair_arm() - let a place be taken back from its holder
 * @b: the bound.
 * @slot: a place ixt_fair_take() gave, maybe taken back since.
 *
 * Call it once the holder can be closed by &ixt_fair_bound.evict.
 *
 * Context: Any context but hard IRQ (the TCP transport calls it under a
 * socket's sk_callback_lock); takes @b's lock.
 */
void ixt_fair_arm(struct ixt_fair_bound *b, struct ixt_fair_slot *slot)
{
	spin_lock_bh(&b->lock);
	slot->armed = true;
	spin_unlock_bh(&b->lock);
}

/**
 * ixt_fair_put() - give a place back
 * @b: the bound.
 * @slot: a place ixt_fair_take() gave; nothing happens if it was taken
 *	back since.
 *
 * Context: Process context; takes @b's lock.
 */
void ixt_fair_put(struct ixt_fair_bound *b, struct ixt_fair_slot *slot)
{
	spin_lock_bh(&b->lock);
	if (!list_empty(&slot->entry)) {
		list_del_init(&slot->entry);
		b->nr--;
	}
	spin_unlock_bh(&b->lock);
}
