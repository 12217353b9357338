/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iscsi_xt: the cache-line pool. Command buffers are made of fixed-size
 * cache lines (a power of two, at least a page) allocated once, when the
 * module loads; commands take and return them without allocating.
 */
#ifndef _ISCSI_XT_POOL_H
#define _ISCSI_XT_POOL_H

#include <linux/bvec.h>
#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/scatterlist.h>
#include <linux/types.h>
#include <iscsi_xt/dpt.h>

/**
 * struct ixt_pool_stats - a snapshot of the pool's use
 * @line_size: bytes per line.
 * @lines: lines in the pool.
 * @free: lines ready to be taken.
 * @in_flight: lines returned while the network stack still held their
 *	pages (zero-copy transmit); reused once it lets go.
 * @waiters: connections whose command waits for lines, in turn.
 * @exhausted: times a command found too few free lines and waited.
 * @set_full: commands answered TASK SET FULL for want of lines.
 */
struct ixt_pool_stats {
	u32 line_size;
	u32 lines;
	u32 free;
	u32 in_flight;
	u32 waiters;
	u64 exhausted;
	u64 set_full;
};

/**
 * struct ixt_pool_waiter - a place in the queue for cache lines
 * @entry: in the pool's queue of waiters, oldest first; empty when not
 *	waiting. Under the pool's lock, as are the flags below.
 * @wake: asks the owner to try again soon (ixt_pool_waiter_init()).
 * @woken: @wake was called and the owner has not asked since.
 * @stopped: ixt_pool_waiter_stop() was called: never queued again.
 */
struct ixt_pool_waiter {
	struct list_head entry;
	void (*wake)(struct ixt_pool_waiter *w);
	bool woken;
	bool stopped;
};

int ixt_pool_init(void);
void ixt_pool_exit(void);
u8 ixt_pool_line_shift(void);
u32 ixt_pool_lines(void);
u32 ixt_pool_max_lines(void);
int ixt_pool_get(struct ixt_dpt_line *lines, u32 n);
void ixt_pool_waiter_init(struct ixt_pool_waiter *w,
			  void (*wake)(struct ixt_pool_waiter *w));
int ixt_pool_get_fair(struct ixt_pool_waiter *w, struct ixt_dpt_line *lines,
		      u32 n);
void ixt_pool_leave(struct ixt_pool_waiter *w);
bool ixt_pool_short(void);
void ixt_pool_waiter_stop(struct ixt_pool_waiter *w);
void ixt_pool_count_set_full(void);
void ixt_pool_put(const struct ixt_dpt_line *lines, u32 n);
struct page *ixt_pool_page(const struct ixt_dpt_line *line);
void ixt_pool_map(const struct ixt_dpt_line *lines, u32 nr_lines, u32 off,
		  u32 len, bool per_line, struct bio_vec *bvec,
		  struct scatterlist *sgl);
void ixt_pool_stats(struct ixt_pool_stats *st);

#endif /* _ISCSI_XT_POOL_H */
