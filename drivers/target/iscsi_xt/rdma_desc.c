// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: the coalesce/divide builder of RDMA work requests (see the
 * DOC in <iscsi_xt/rdma_desc.h>).
 */

#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <iscsi_xt/rdma_desc.h>

/*
 * Page mode: whether a new SGE at @addr may join a work request of
 * @nr_sge SGEs whose last one ends at @end, leaving no gap in the page
 * list of its memory region. The first SGE cuts @room to the bytes from
 * it to the end of the last page the work request may span.
 */
static bool ixt_rd_page_ok(const struct ixt_rd_limits *lim, u32 nr_sge,
			   u64 addr, u64 end, u32 *room)
{
	u64 mask = lim->page_size - 1, span;

	if (nr_sge)
		return !(addr & mask) && !(end & mask);
	span = (u64)lim->max_pages * lim->page_size - (addr & mask);
	if (span < *room)
		*room = span;
	return true;
}

/*
 * Builds the next work request of @st into @wr and @sges (room for
 * lim.max_sge), or only advances @st when @wr is %NULL: the same walk
 * counts the work requests up front and builds them later. @pages is
 * whether lim.page_size is set, a constant in each caller.
 */
static __always_inline void ixt_rd_walk(struct ixt_rd_state *st,
					struct ixt_rd_wr *wr,
					struct ixt_rd_sge *sges, bool pages)
{
	u32 room = st->lim.max_wr_len, nr_sge = 0, wr_len = 0, n;
	u64 addr, sge_addr = 0;
	u32 sge_len = 0;
	const struct ixt_rd_piece *p;

	while (room && st->cur < st->nr_pieces) {
		p = &st->pieces[st->cur];
		n = min(p->len - st->off, room);
		addr = p->addr + st->off;
		/* Coalesce: a piece that goes on where the SGE ends grows it. */
		if (n && !(nr_sge && addr > sge_addr &&
			   addr - sge_addr == sge_len)) {
			if (nr_sge == st->lim.max_sge)
				break;
			if (pages) {
				if (!ixt_rd_page_ok(&st->lim, nr_sge, addr,
						    sge_addr + sge_len, &room))
					break;
				n = min(n, room);
			}
			nr_sge++;
			sge_addr = addr;
			sge_len = 0;
		}
		sge_len += n;
		if (wr && n)
			sges[nr_sge - 1] = (struct ixt_rd_sge) {
				.addr = sge_addr, .len = sge_len,
			};
		room -= n;
		wr_len += n;
		st->off += n;
		/* Divide: a piece left with bytes is where the next starts. */
		if (st->off == p->len) {
			st->cur++;
			st->off = 0;
		}
	}
	if (wr) {
		wr->raddr = st->raddr;
		wr->len = wr_len;
		wr->nr_sge = nr_sge;
	}
	st->raddr += wr_len;
	st->done += wr_len;
	st->wrs_done++;
}

/* Page mode in a copy of its own, so that plain mode pays nothing for it. */
static void ixt_rd_one(struct ixt_rd_state *st, struct ixt_rd_wr *wr,
		       struct ixt_rd_sge *sges)
{
	if (st->lim.page_size)
		ixt_rd_walk(st, wr, sges, true);
	else
		ixt_rd_walk(st, wr, sges, false);
}

/**
 * ixt_rd_init() - set up the request state of a transfer
 * @st: the state to set up.
 * @pieces: the local pieces, in the order of the remote buffer; kept by
 *	the caller until the last work request is built.
 * @nr_pieces: how many.
 * @raddr: remote address of the first byte.
 * @len: bytes of the transfer: exactly what the pieces add up to.
 * @lim: the limits of each work request.
 *
 * Walks the pieces once to count the work requests the transfer takes
 * (&ixt_rd_state.nr_wrs), before the first one is built.
 *
 * Context: Any context.
 * Return: 0, or -EINVAL for a limit of 0, a page size that is not a
 * power of two, pieces that do not add up to @len, or a piece or remote
 * buffer that runs past the end of the 64-bit address space.
 */
int ixt_rd_init(struct ixt_rd_state *st, const struct ixt_rd_piece *pieces,
		u32 nr_pieces, u64 raddr, u32 len,
		const struct ixt_rd_limits *lim)
{
	struct ixt_rd_state walk;
	u64 sum = 0, end;
	u32 i;

	if (!lim->max_sge || !lim->max_wr_len ||
	    (lim->page_size && (!is_power_of_2(lim->page_size) ||
				!lim->max_pages)) ||
	    check_add_overflow(raddr, (u64)len, &end))
		return -EINVAL;
	for (i = 0; i < nr_pieces; i++) {
		if (check_add_overflow(pieces[i].addr, (u64)pieces[i].len,
				       &end))
			return -EINVAL;
		sum += pieces[i].len;
	}
	if (sum != len)
		return -EINVAL;

	*st = (struct ixt_rd_state) {
		.pieces = pieces,
		.nr_pieces = nr_pieces,
		.lim = *lim,
		.raddr = raddr,
		.len = len,
	};
	walk = *st;
	while (walk.done < walk.len)
		ixt_rd_one(&walk, NULL, NULL);
	st->nr_wrs = walk.wrs_done;
	return 0;
}

/**
 * ixt_rd_build() - build the next work requests of a transfer
 * @st: the transfer, from ixt_rd_init(); advanced past what is built.
 * @max_wrs: at most this many (the send queue slots free now).
 * @wrs: room for @max_wrs work requests.
 * @sges: room for @max_wrs times &ixt_rd_limits.max_sge SGEs; each work
 *	request's SGEs follow those of the one before it.
 *
 * Context: Any context.
 * Return: the work requests built, 0 once the transfer is all built.
 */
u32 ixt_rd_build(struct ixt_rd_state *st, u32 max_wrs, struct ixt_rd_wr *wrs,
		 struct ixt_rd_sge *sges)
{
	u32 n, first = 0;

	for (n = 0; n < max_wrs && !ixt_rd_done(st); n++) {
		wrs[n].sge_first = first;
		ixt_rd_one(st, &wrs[n], sges + first);
		first += wrs[n].nr_sge;
	}
	return n;
}
