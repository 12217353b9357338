/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iscsi_xt: the cache-line pool. Command buffers are made of fixed-size
 * cache lines (a power of two, at least a page) allocated once, when the
 * module loads; commands take and return them without allocating.
 */
#ifndef _ISCSI_XT_POOL_H
#define _ISCSI_XT_POOL_H

#include <linux/bvec.h>
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
 * @exhausted: times a command found too few free lines and waited.
 */
struct ixt_pool_stats {
	u32 line_size;
	u32 lines;
	u32 free;
	u32 in_flight;
	u64 exhausted;
};

int ixt_pool_init(void);
void ixt_pool_exit(void);
u8 ixt_pool_line_shift(void);
u32 ixt_pool_max_lines(void);
int ixt_pool_get(struct ixt_dpt_line *lines, u32 n);
void ixt_pool_put(const struct ixt_dpt_line *lines, u32 n);
struct page *ixt_pool_page(const struct ixt_dpt_line *line);
void ixt_pool_map(const struct ixt_dpt_line *lines, u32 nr_lines, u32 off,
		  u32 len, bool per_line, struct bio_vec *bvec,
		  struct scatterlist *sgl);
void ixt_pool_stats(struct ixt_pool_stats *st);

#endif /* _ISCSI_XT_POOL_H */
