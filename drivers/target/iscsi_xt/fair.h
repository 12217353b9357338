/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iscsi_xt: fair shares of the bounds that peers compete for before they
 * are trusted (connections in login, discovery sessions).
 */
#ifndef _ISCSI_XT_FAIR_H
#define _ISCSI_XT_FAIR_H

#include <linux/list.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/**
 * struct ixt_fair_slot - a place in a &struct ixt_fair_bound
 * @entry: on the bound's list while the place is held; empty otherwise.
 * @host: the holder's host, from ixt_fair_host().
 * @armed: the holder can be closed: a place is taken back only from an
 *	armed holder.
 */
struct ixt_fair_slot {
	struct list_head entry;
	u64 host;
	bool armed;
};

/**
 * struct ixt_fair_bound - a bound on places, shared fairly between hosts
 *	when it is reached
 * @lock: protects @slots, @nr and the slots' @armed; taken with bottom
 *	halves off (fair.c).
 * @slots: the places held, oldest first.
 * @nr: places held.
 * @evict: closes the holder of a place taken back, which no longer holds
 *	it; called under @lock, so it must not sleep. The second argument
 *	is how many places the holder's host held before.
 */
struct ixt_fair_bound {
	spinlock_t lock;	/* protects slots, nr, armed */
	struct list_head slots;
	u32 nr;
	void (*evict)(struct ixt_fair_slot *slot, u32 held);
};

u64 ixt_fair_host(const struct sockaddr_storage *ss);
int ixt_fair_take(struct ixt_fair_bound *b, struct ixt_fair_slot *slot,
		  u64 host, u32 max);
void ixt_fair_arm(struct ixt_fair_bound *b, struct ixt_fair_slot *slot);
void ixt_fair_put(struct ixt_fair_bound *b, struct ixt_fair_slot *slot);

#endif /* _ISCSI_XT_FAIR_H */
