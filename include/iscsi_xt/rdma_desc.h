/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iscsi_xt: the coalesce/divide builder of RDMA work requests.
 *
 * Pure code: no allocation, locking, I/O or logging, so the same library
 * builds into the iSER module and into the user-space unit tests.
 */
#ifndef _ISCSI_XT_RDMA_DESC_H
#define _ISCSI_XT_RDMA_DESC_H

#include <linux/types.h>

/**
 * DOC: RDMA descriptor builder
 *
 * One RDMA transfer moves the local pieces of a command's buffer (the
 * cache-line pieces of its data-pointer table, DMA-mapped) to or from one
 * remote buffer, contiguous from a remote address on. The builder turns
 * it into a chain of RDMA WRITE or READ work requests, within the limits
 * of the queue pair: SGEs per work request and bytes per work request.
 *
 * - Coalesce: a work request takes pieces while it has room, and a piece
 *   that starts where the previous one ends (physically contiguous) grows
 *   the previous SGE instead of taking a new one.
 * - Divide: a piece larger than the room left in a work request is split;
 *   its rest starts the next work request.
 *
 * In fast-registration (page-list) mode, &ixt_rd_limits.page_size not 0,
 * the SGEs of each work request become the page list of one memory
 * region (the sink of an RDMA READ over iWARP must be one), so they must
 * leave no gap in its pages: every SGE but the first starts on a page
 * boundary and every SGE but the last ends on one, and the work request
 * spans at most &ixt_rd_limits.max_pages pages, from the page of its
 * first byte. A piece that cannot join a work request under these rules
 * starts the next one, and a piece is divided at the last page as at the
 * byte limit. Plain mode, page_size 0, has no such rules.
 *
 * The request state (&struct ixt_rd_state: the current piece, the bytes
 * of it already built, the work requests built and how many the whole
 * transfer takes, counted before the first one) stays with the transfer,
 * so a transfer that finds the send queue full builds what fits and
 * continues from where it stopped when completions free slots. No
 * transfer is refused for its size; the send queue need not be sized for
 * the largest one.
 */

/**
 * struct ixt_rd_piece - a local piece of a transfer
 * @addr: its DMA address.
 * @len: its length in bytes; pieces of length 0 are skipped.
 */
struct ixt_rd_piece {
	u64 addr;
	u32 len;
};

/**
 * struct ixt_rd_limits - what one work request may carry
 * @max_sge: SGEs per work request, at least 1 (the device's max_send_sge
 *	for RDMA WRITEs, max_sge_rd for RDMA READs).
 * @max_wr_len: bytes per work request, at least 1.
 * @page_size: 0 for plain SGEs; else the page size, a power of two, of
 *	the memory region each work request's SGEs are registered as
 *	(page-list mode).
 * @max_pages: in page-list mode, pages a work request may span, at least
 *	1 (the memory region's page list length); ignored in plain mode.
 */
struct ixt_rd_limits {
	u32 max_sge;
	u32 max_wr_len;
	u32 page_size;
	u32 max_pages;
};

/**
 * struct ixt_rd_sge - a local segment of a work request
 * @addr: DMA address.
 * @len: length in bytes, never 0.
 */
struct ixt_rd_sge {
	u64 addr;
	u32 len;
};

/**
 * struct ixt_rd_wr - one work request as built
 * @raddr: remote address of its first byte.
 * @len: bytes it moves: the sum of its SGEs.
 * @sge_first: index of its first SGE in the array given to
 *	ixt_rd_build().
 * @nr_sge: its SGEs, 1 to &ixt_rd_limits.max_sge.
 */
struct ixt_rd_wr {
	u64 raddr;
	u32 len;
	u32 sge_first;
	u32 nr_sge;
};

/**
 * struct ixt_rd_state - the request state of one transfer
 * @pieces: the local pieces; the caller keeps them until the transfer is
 *	built.
 * @nr_pieces: how many.
 * @lim: the limits of every work request.
 * @raddr: remote address of the next byte to build.
 * @len: bytes of the whole transfer.
 * @done: bytes built so far.
 * @cur: index of the current piece: the one the next byte comes from.
 * @off: bytes of @cur already built.
 * @nr_wrs: work requests the whole transfer takes, counted by
 *	ixt_rd_init().
 * @wrs_done: work requests built so far.
 */
struct ixt_rd_state {
	const struct ixt_rd_piece *pieces;
	u32 nr_pieces;
	struct ixt_rd_limits lim;
	u64 raddr;
	u32 len;
	u32 done;
	u32 cur;
	u32 off;
	u32 nr_wrs;
	u32 wrs_done;
};

int ixt_rd_init(struct ixt_rd_state *st, const struct ixt_rd_piece *pieces,
		u32 nr_pieces, u64 raddr, u32 len,
		const struct ixt_rd_limits *lim);
u32 ixt_rd_build(struct ixt_rd_state *st, u32 max_wrs, struct ixt_rd_wr *wrs,
		 struct ixt_rd_sge *sges);

/**
 * ixt_rd_done() - whether every work request of a transfer is built
 * @st: the transfer.
 *
 * Return: true once ixt_rd_build() has built the last one.
 */
static inline bool ixt_rd_done(const struct ixt_rd_state *st)
{
	return st->wrs_done == st->nr_wrs;
}

#endif /* _ISCSI_XT_RDMA_DESC_H */
