/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Brute-force model of drivers/target/iscsi_xt/rdma_desc.c, shared by the
 * unit tests (rdma_desc_test.c) and the fuzzer (fuzz/rdma_desc_fuzz.c):
 * transfers and chains of work requests, the rules a chain must keep
 * (every byte moved exactly once and in order, each work request within
 * the limits and as full as they allow), the model that builds a chain a
 * byte at a time, the builder driven a few work requests a call, and
 * random transfers, plain and in page-list mode.
 *
 * Not a header of the usual kind: it defines static functions, and the
 * file that includes it must define first, after "ixt_test.h",
 *
 *	static u64 rng(void);			a random number
 *	static u32 rng_range(u32 lo, u32 hi);	a random number in [lo, hi]
 *
 * which the unit tests draw from a fixed seed and the fuzzer from its
 * input. The checks use MEXPECT_*() and MASSERT_*(): the unit tests count
 * a failure and stop, the fuzzer aborts on it.
 */
#ifndef _IXT_RDMA_DESC_MODEL_H
#define _IXT_RDMA_DESC_MODEL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <iscsi_xt/rdma_desc.h>

#include "ixt_test.h"

#define KIB	1024U
#define MIB	(1024 * KIB)

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		abort();
	return p;
}

/* ---- Transfers and chains of work requests ------------------------- */

/* A transfer as ixt_rd_init() takes it. */
struct xfer {
	const struct ixt_rd_piece *pieces;
	u32 nr_pieces;
	u64 raddr;
	u32 len;
	struct ixt_rd_limits lim;
};

/*
 * A whole chain of work requests, each one's sge_first indexing @sge:
 * what the builder built over all its calls, or what the model says.
 */
struct chain {
	struct ixt_rd_wr *wr;
	struct ixt_rd_sge *sge;
	u32 nr_wr, nr_sge;
	u32 max_wr, max_sge;
};

static void chain_add_wr(struct chain *c, u64 raddr)
{
	if (c->nr_wr == c->max_wr) {
		c->max_wr = c->max_wr ? 2 * c->max_wr : 16;
		c->wr = realloc(c->wr, c->max_wr * sizeof(*c->wr));
		if (!c->wr)
			abort();
	}
	c->wr[c->nr_wr++] = (struct ixt_rd_wr) {
		.raddr = raddr, .sge_first = c->nr_sge,
	};
}

/* A new SGE at the end of the last work request. */
static void chain_add_sge(struct chain *c, u64 addr, u32 len)
{
	if (c->nr_sge == c->max_sge) {
		c->max_sge = c->max_sge ? 2 * c->max_sge : 16;
		c->sge = realloc(c->sge, c->max_sge * sizeof(*c->sge));
		if (!c->sge)
			abort();
	}
	c->sge[c->nr_sge++] = (struct ixt_rd_sge) { .addr = addr, .len = len };
	c->wr[c->nr_wr - 1].nr_sge++;
	c->wr[c->nr_wr - 1].len += len;
}

static void chain_free(struct chain *c)
{
	free(c->wr);
	free(c->sge);
	memset(c, 0, sizeof(*c));
}

static void print_wr(const char *who, const struct chain *c, u32 i)
{
	const struct ixt_rd_wr *wr = &c->wr[i];
	u32 j;

	printf("#   %s work request %u: raddr %#llx len %#x, %u SGEs:", who,
	       i, (unsigned long long)wr->raddr, wr->len, wr->nr_sge);
	for (j = 0; j < wr->nr_sge && j < 8 &&
	     (u64)wr->sge_first + j < c->nr_sge; j++)
		printf(" %#llx+%#x",
		       (unsigned long long)c->sge[wr->sge_first + j].addr,
		       c->sge[wr->sge_first + j].len);
	printf("%s\n", j < wr->nr_sge ? " ..." : "");
}

static void print_xfer(const struct xfer *x)
{
	u32 i;

	printf("#   raddr %#llx len %#x max_sge %u max_wr_len %u page_size %u max_pages %u\n",
	       (unsigned long long)x->raddr, x->len, x->lim.max_sge,
	       x->lim.max_wr_len, x->lim.page_size, x->lim.max_pages);
	for (i = 0; i < x->nr_pieces; i++)
		printf("#   piece %u: %#llx+%#x\n", i,
		       (unsigned long long)x->pieces[i].addr,
		       x->pieces[i].len);
}

/* ---- The rules ----------------------------------------------------- */

/* Whether @addr is on a page boundary; every address is in plain mode. */
static bool on_page(const struct ixt_rd_limits *lim, u64 addr)
{
	return !lim->page_size || addr % lim->page_size == 0;
}

/* The pages @len bytes from @addr on span, in page mode. */
static u64 span(const struct ixt_rd_limits *lim, u64 addr, u64 len)
{
	return (addr % lim->page_size + len + lim->page_size - 1) /
	       lim->page_size;
}

/*
 * Whether the byte at @addr may join work request @wr, whose SGEs are
 * @sge: the work request has room for a byte (bytes, and pages from the
 * page of its first byte), and the byte follows on from its last SGE, or
 * it has room for an SGE and, in page mode, the last SGE ends and the
 * byte starts on a page boundary (no gap in the memory region).
 */
static bool byte_joins(const struct ixt_rd_limits *lim,
		       const struct ixt_rd_wr *wr,
		       const struct ixt_rd_sge *sge, u64 addr)
{
	u64 end = sge[wr->nr_sge - 1].addr + sge[wr->nr_sge - 1].len;

	if (wr->len >= lim->max_wr_len ||
	    (lim->page_size &&
	     span(lim, sge[0].addr, wr->len + 1ULL) > lim->max_pages))
		return false;
	return addr == end ||
	       (wr->nr_sge < lim->max_sge && on_page(lim, end) &&
		on_page(lim, addr));
}

/* ---- The model ----------------------------------------------------- */

/*
 * The model takes the transfer one byte at a time and puts each byte
 * where the rules say, in the simplest terms. A byte that may join the
 * last work request (byte_joins()) goes at the end of its last SGE if it
 * follows on from it, else in a new SGE; else it starts a new work
 * request, at the remote address where the last one ends.
 */
static void model_byte(struct chain *c, const struct xfer *x, u64 addr)
{
	struct ixt_rd_wr *wr = c->nr_wr ? &c->wr[c->nr_wr - 1] : NULL;
	struct ixt_rd_sge *last = c->nr_sge ? &c->sge[c->nr_sge - 1] : NULL;

	if (wr && byte_joins(&x->lim, wr, &c->sge[wr->sge_first], addr)) {
		if (last->addr + last->len == addr) {
			last->len++;
			wr->len++;
		} else {
			chain_add_sge(c, addr, 1);
		}
		return;
	}
	chain_add_wr(c, wr ? wr->raddr + wr->len : x->raddr);
	chain_add_sge(c, addr, 1);
}

/*
 * The bytes the last work request of @c may still take: up to
 * max_wr_len, and in page mode up to the end of its last page.
 */
static u32 wr_room(const struct xfer *x, const struct chain *c)
{
	const struct ixt_rd_wr *wr = &c->wr[c->nr_wr - 1];
	u64 room = x->lim.max_wr_len - wr->len, ps = x->lim.page_size;

	if (ps)
		room = min(room, x->lim.max_pages * ps -
				 c->sge[wr->sge_first].addr % ps - wr->len);
	return room;
}

/*
 * The chain of @x into @c, a byte at a time when @bytewise. Else in runs:
 * once a byte of a piece is placed, the next ones of the piece follow on
 * from the last SGE, so the model puts each at its end for as long as the
 * work request has room, which the run does in one go.
 */
static void model_build(const struct xfer *x, struct chain *c, bool bytewise)
{
	u32 i, left, n;
	u64 addr;

	for (i = 0; i < x->nr_pieces; i++) {
		addr = x->pieces[i].addr;
		left = x->pieces[i].len;
		while (left) {
			model_byte(c, x, addr++);
			left--;
			if (bytewise)
				continue;
			n = min(left, wr_room(x, c));
			c->sge[c->nr_sge - 1].len += n;
			c->wr[c->nr_wr - 1].len += n;
			addr += n;
			left -= n;
		}
	}
}

/* ---- Checks -------------------------------------------------------- */

/*
 * Takes @sge off the pieces of @x from piece @cur, byte @off on: false
 * if it is not made of exactly the next bytes, in order.
 */
static bool take_sge(const struct xfer *x, u32 *cur, u32 *off,
		     const struct ixt_rd_sge *sge)
{
	u64 addr = sge->addr;
	u32 left = sge->len, n;

	while (left) {
		while (*cur < x->nr_pieces && *off == x->pieces[*cur].len) {
			(*cur)++;
			*off = 0;
		}
		if (!MEXPECT_TRUE(*cur < x->nr_pieces))
			return false;
		if (!MEXPECT_EQ(addr, x->pieces[*cur].addr + *off)) {
			printf("#   SGE %#llx+%#x against piece %u at %#x\n",
			       (unsigned long long)sge->addr, sge->len, *cur,
			       *off);
			return false;
		}
		n = min(left, x->pieces[*cur].len - *off);
		addr += n;
		left -= n;
		*off += n;
	}
	return true;
}

/*
 * What a chain of @x must be, whoever built it. Each work request has 1
 * to max_sge SGEs, none empty and none following on from the one before
 * it (they would be one), moves the sum of its SGEs, at most max_wr_len
 * bytes, from the remote address where the one before it ended; in page
 * mode, its SGEs but the first start on a page boundary, its SGEs but the
 * last end on one, and it spans at most max_pages pages; and it could not
 * take the first byte of the next one (greedy): it is full, in bytes or
 * pages, or that byte does not follow on from its last SGE and it has
 * max_sge SGEs or, in page mode, that byte or the end of its last SGE is
 * not on a page boundary. The SGEs in order are the bytes of the pieces,
 * each exactly once.
 */
static void check_chain(const struct xfer *x, const struct chain *c)
{
	const struct ixt_rd_limits *lim = &x->lim;
	const struct ixt_rd_sge *sge, *next;
	u32 i, j, len, cur = 0, off = 0;
	const struct ixt_rd_wr *wr;
	u64 raddr = x->raddr;

	for (i = 0; i < c->nr_wr; i++) {
		wr = &c->wr[i];
		sge = &c->sge[wr->sge_first];
		len = 0;
		if (!MEXPECT_TRUE(wr->nr_sge >= 1 &&
				  wr->nr_sge <= x->lim.max_sge) ||
		    !MEXPECT_TRUE((u64)wr->sge_first + wr->nr_sge <=
				  c->nr_sge) ||
		    !MEXPECT_EQ(wr->raddr, raddr))
			goto bad;
		for (j = 0; j < wr->nr_sge; j++) {
			if (!MEXPECT_NE(sge[j].len, 0) ||
			    (j && !MEXPECT_NE(sge[j].addr,
					      sge[j - 1].addr +
					      sge[j - 1].len)) ||
			    (j && !MEXPECT_TRUE(on_page(lim, sge[j].addr))) ||
			    (j + 1 < wr->nr_sge &&
			     !MEXPECT_TRUE(on_page(lim, sge[j].addr +
						   sge[j].len))) ||
			    !take_sge(x, &cur, &off, &sge[j]))
				goto bad;
			len += sge[j].len;
		}
		if (!MEXPECT_EQ(wr->len, len) ||
		    !MEXPECT_TRUE(wr->len <= lim->max_wr_len) ||
		    (lim->page_size &&
		     !MEXPECT_TRUE(span(lim, sge[0].addr, wr->len) <=
				   lim->max_pages)))
			goto bad;
		if (i + 1 < c->nr_wr) {
			next = &c->sge[c->wr[i + 1].sge_first];
			if (!MEXPECT_FALSE(byte_joins(lim, wr, sge,
						      next->addr)))
				goto bad;
		}
		raddr += wr->len;
	}
	MEXPECT_EQ(raddr - x->raddr, x->len);
	while (cur < x->nr_pieces && off == x->pieces[cur].len) {
		cur++;
		off = 0;
	}
	MEXPECT_EQ(cur, x->nr_pieces);
	return;
bad:
	print_wr("the", c, i);
}

/* Whether @got is the chain @want; prints where they differ. */
static void expect_same_chain(const struct chain *got,
			      const struct chain *want)
{
	const struct ixt_rd_wr *g, *w;
	u32 i, j;
	bool same;

	for (i = 0; i < got->nr_wr && i < want->nr_wr; i++) {
		g = &got->wr[i];
		w = &want->wr[i];
		same = g->raddr == w->raddr && g->len == w->len &&
		       g->nr_sge == w->nr_sge;
		for (j = 0; same && j < g->nr_sge; j++)
			same = got->sge[g->sge_first + j].addr ==
			       want->sge[w->sge_first + j].addr &&
			       got->sge[g->sge_first + j].len ==
			       want->sge[w->sge_first + j].len;
		if (!MEXPECT_TRUE(same)) {
			print_wr("built", got, i);
			print_wr("wanted", want, i);
			return;
		}
	}
	if (!MEXPECT_EQ(got->nr_wr, want->nr_wr)) {
		if (i < got->nr_wr)
			print_wr("extra", got, i);
		else
			print_wr("missing", want, i);
	}
}

/* Whether ixt_rd_build() left @a as @b (fields, not padding). */
static bool same_state(const struct ixt_rd_state *a,
		       const struct ixt_rd_state *b)
{
	return a->pieces == b->pieces && a->nr_pieces == b->nr_pieces &&
	       a->lim.max_sge == b->lim.max_sge &&
	       a->lim.max_wr_len == b->lim.max_wr_len &&
	       a->lim.page_size == b->lim.page_size &&
	       a->lim.max_pages == b->lim.max_pages &&
	       a->raddr == b->raddr && a->len == b->len &&
	       a->done == b->done && a->cur == b->cur && a->off == b->off &&
	       a->nr_wrs == b->nr_wrs && a->wrs_done == b->wrs_done;
}

/*
 * The state after a call: the transfer and the total unchanged, the
 * remote address and the bytes done moved on by what the call built, and
 * the current piece and offset in it at the first byte not built.
 */
static void check_state(const struct ixt_rd_state *st,
			const struct ixt_rd_state *before, u32 built)
{
	u64 at = 0;
	u32 i;

	MEXPECT_TRUE(st->pieces == before->pieces &&
		     st->nr_pieces == before->nr_pieces &&
		     st->lim.max_sge == before->lim.max_sge &&
		     st->lim.max_wr_len == before->lim.max_wr_len &&
		     st->lim.page_size == before->lim.page_size &&
		     st->lim.max_pages == before->lim.max_pages &&
		     st->len == before->len);
	MEXPECT_EQ(st->nr_wrs, before->nr_wrs);
	MEXPECT_EQ(st->done - before->done, built);
	MEXPECT_EQ(st->raddr - before->raddr, built);
	MASSERT_TRUE(st->cur <= st->nr_pieces);
	for (i = 0; i < st->cur; i++)
		at += st->pieces[i].len;
	if (st->cur < st->nr_pieces)
		MEXPECT_TRUE(st->off <= st->pieces[st->cur].len);
	else
		MEXPECT_EQ(st->off, 0);
	MEXPECT_EQ(at + st->off, st->done);
}

/*
 * Builds the rest of @st into @out, each call given room for 1 to
 * @max_step work requests at random (0: for all that are left, and one
 * more), in arrays of exactly that size so that the sanitizer sees a
 * write past them; now and then a call with room for none. Each call must
 * build all it may, up to @want_nr in all; its work requests index SGEs
 * of its own array, apart; and it moves the state on by what it built.
 */
static void build_all(struct ixt_rd_state *st, u32 max_step, u32 want_nr,
		      struct chain *out)
{
	struct ixt_rd_state before;
	struct ixt_rd_sge *sges;
	struct ixt_rd_wr *wrs;
	u32 step, room, n, i, j, built;
	const struct ixt_rd_wr *wr;
	bool *used;

	while (!ixt_rd_done(st) && !ixt_model_failed) {
		if (rng() % 8 == 0) {
			struct ixt_rd_sge sge;
			struct ixt_rd_wr one;

			before = *st;
			MEXPECT_EQ(ixt_rd_build(st, 0, &one, &sge), 0);
			MEXPECT_TRUE(same_state(st, &before));
		}
		if (max_step)
			step = rng_range(1, max_step);
		else
			step = st->nr_wrs - st->wrs_done + 1;
		room = step * st->lim.max_sge;
		wrs = xcalloc(step, sizeof(*wrs));
		sges = xcalloc(room, sizeof(*sges));
		used = xcalloc(room, sizeof(*used));
		before = *st;
		n = ixt_rd_build(st, step, wrs, sges);
		MEXPECT_EQ(n, min(step, before.nr_wrs - before.wrs_done));
		MEXPECT_EQ(st->wrs_done, before.wrs_done + n);
		built = 0;
		for (i = 0; i < n && i < step && !ixt_model_failed; i++) {
			wr = &wrs[i];
			if (!MEXPECT_TRUE(wr->nr_sge >= 1 &&
					  wr->nr_sge <= st->lim.max_sge) ||
			    !MEXPECT_TRUE((u64)wr->sge_first + wr->nr_sge <=
					  room)) {
				printf("#   work request %u of the call: SGEs %u+%u of %u\n",
				       i, wr->sge_first, wr->nr_sge, room);
				break;
			}
			chain_add_wr(out, wr->raddr);
			for (j = wr->sge_first; j < wr->sge_first + wr->nr_sge;
			     j++) {
				MEXPECT_FALSE(used[j]);
				used[j] = true;
				chain_add_sge(out, sges[j].addr, sges[j].len);
			}
			out->wr[out->nr_wr - 1].len = wr->len;
			built += wr->len;
		}
		free(wrs);
		free(sges);
		free(used);
		if (ixt_model_failed)
			return;
		check_state(st, &before, built);
		MEXPECT_EQ(ixt_rd_done(st), out->nr_wr >= want_nr);
		if (!MEXPECT_NE(n, 0) || !MEXPECT_TRUE(out->nr_wr <= want_nr))
			return;
	}
}

/*
 * Builds @x @max_step work requests at most a call (see build_all()):
 * the total is known at once, the chain is @want, and once it is all
 * built the transfer is done and a call builds nothing.
 */
static void check_xfer(const struct xfer *x, const struct chain *want,
		       u32 max_step)
{
	struct ixt_rd_state st, end;
	struct chain got = { 0 };
	struct ixt_rd_sge *sges;
	struct ixt_rd_wr wr;

	MASSERT_EQ(ixt_rd_init(&st, x->pieces, x->nr_pieces, x->raddr,
			       x->len, &x->lim), 0);
	MEXPECT_EQ(st.nr_wrs, want->nr_wr);
	MEXPECT_EQ(st.wrs_done, 0);
	MEXPECT_EQ(st.done, 0);
	MEXPECT_EQ(st.raddr, x->raddr);
	MEXPECT_EQ(st.len, x->len);
	MEXPECT_EQ(ixt_rd_done(&st), want->nr_wr == 0);
	build_all(&st, max_step, want->nr_wr, &got);
	if (!ixt_model_failed) {
		check_chain(x, &got);
		expect_same_chain(&got, want);
	}
	chain_free(&got);
	if (ixt_model_failed)
		return;
	MEXPECT_TRUE(ixt_rd_done(&st));
	MEXPECT_EQ(st.done, x->len);
	MEXPECT_EQ(st.raddr, x->raddr + x->len);
	end = st;
	sges = xcalloc(x->lim.max_sge, sizeof(*sges));
	MEXPECT_EQ(ixt_rd_build(&st, 1, &wr, sges), 0);
	free(sges);
	MEXPECT_TRUE(same_state(&st, &end));
}

/* ---- Random transfers against the model ---------------------------- */

#define MAX_PIECES	64

/* An address where @len bytes fit below 2^64, of a random kind. */
static u64 random_addr(u32 len)
{
	u64 top = U64_MAX - len;

	switch (rng() % 6) {
	case 0:
		return rng() % (1ULL << 32);
	case 1:
		return (rng() % (1ULL << 36)) & ~0xfffULL;
	case 2:
		return top;
	case 3:
		return top - rng() % MIB;
	case 4:
		return (top - rng() % (1ULL << 32)) & ~0xfffULL;
	default:
		return len ? rng() % (top + 1) : rng();
	}
}

/*
 * A random transfer into @x over @pieces: limits from one byte to the
 * 256 KiB of a work request (a few bytes with small pieces now and then),
 * pieces 0 to three work requests long, some of them in contiguous runs,
 * some of those broken by empty pieces, or just before the piece above.
 */
static void random_xfer(struct xfer *x, struct ixt_rd_piece *pieces)
{
	u64 sum = 0, start = 0, end = 0;
	u32 i, len, max_len;
	bool empty;

	x->lim.page_size = 0;
	x->lim.max_pages = 0;
	x->lim.max_sge = rng() % 4 ? rng_range(1, 32) : rng_range(1, 3);
	switch (rng() % 4) {
	case 0:
		x->lim.max_wr_len = rng_range(1, 16);
		break;
	case 1:
		x->lim.max_wr_len = 4 * KIB << rng_range(0, 6);
		break;
	default:
		x->lim.max_wr_len = rng_range(1, 256 * KIB);
	}
	max_len = 3 * x->lim.max_wr_len;
	x->nr_pieces = rng_range(1, MAX_PIECES);
	empty = rng() % 32 == 0;
	for (i = 0; i < x->nr_pieces; i++) {
		switch (rng() % 8) {
		case 0:
			len = 0;
			break;
		case 1:
			len = rng_range(1, 16);
			break;
		default:
			len = rng_range(1, max_len);
		}
		if (empty)
			len = 0;
		switch (i ? rng() % 6 : 0) {
		case 1:
		case 2:
			/* After the last non-empty piece, if it fits. */
			pieces[i].addr = U64_MAX - end >= len ?
					 end : random_addr(len);
			break;
		case 3:
			/* Just before the last non-empty piece. */
			pieces[i].addr = start >= len ?
					 start - len : random_addr(len);
			break;
		default:
			pieces[i].addr = random_addr(len);
		}
		pieces[i].len = len;
		if (len) {
			start = pieces[i].addr;
			end = start + len;
		}
		sum += len;
	}
	x->pieces = pieces;
	x->len = sum;
	x->raddr = random_addr(x->len);
}

/*
 * A random transfer in page mode into @x over @pieces: pages of 512 bytes
 * to 64 KiB, 1 to 64 of them a work request; max_wr_len a few pages (so
 * that it divides mid-page), no limit, or about the span; pieces mostly
 * whole pages on page boundaries (they join), else starting or ending
 * mid-page or both, a few bytes or empty, some in contiguous runs.
 */
static void random_page_xfer(struct xfer *x, struct ixt_rd_piece *pieces)
{
	u32 i, len, off, ps, max_len;
	u64 sum = 0, end = 0, span;

	ps = 512U << rng_range(0, 7);
	x->lim.page_size = ps;
	x->lim.max_pages = rng() % 4 ? rng_range(1, 64) : rng_range(1, 3);
	x->lim.max_sge = rng() % 4 ? rng_range(1, 32) : rng_range(1, 3);
	span = (u64)ps * x->lim.max_pages;
	switch (rng() % 4) {
	case 0:
		x->lim.max_wr_len = rng_range(ps / 4, 4 * ps);
		break;
	case 1:
		x->lim.max_wr_len = U32_MAX;
		break;
	default:
		x->lim.max_wr_len = rng_range(1, 2 * span);
	}
	max_len = min3(3 * span, 3ULL * x->lim.max_wr_len, 16ULL * MIB);
	x->nr_pieces = rng_range(1, MAX_PIECES);
	for (i = 0; i < x->nr_pieces; i++) {
		off = rng_range(1, ps - 1);
		switch (rng() % 8) {
		case 0:
			len = ps * rng_range(1, max(max_len / ps, 1U));
			pieces[i].addr = random_addr(len) & ~(u64)(ps - 1);
			break;
		case 4:
			/* From a page boundary to mid-page. */
			len = rng_range(1, max_len);
			pieces[i].addr = random_addr(len) & ~(u64)(ps - 1);
			break;
		case 5:
			/* From mid-page to a page boundary. */
			len = ps - off + ps * rng_range(0, max_len / ps);
			pieces[i].addr = (random_addr(len + ps) &
					  ~(u64)(ps - 1)) + off;
			break;
		case 6:
			len = rng_range(1, max_len);
			pieces[i].addr = random_addr(len);
			break;
		case 7:
			len = rng_range(0, 16);
			pieces[i].addr = random_addr(len);
			break;
		default:
			/* Whole pages, a few: the common case. */
			len = ps * rng_range(1, 4);
			pieces[i].addr = random_addr(len) & ~(u64)(ps - 1);
		}
		/* After the last non-empty piece, if it fits. */
		if (i && rng() % 3 == 0 && U64_MAX - end >= len)
			pieces[i].addr = end;
		pieces[i].len = len;
		if (len)
			end = pieces[i].addr + len;
		sum += len;
	}
	x->pieces = pieces;
	x->len = sum;
	x->raddr = random_addr(x->len);
}

/* What is wrong with @x is rejected, whatever the rest. */
static void check_rejects(const struct xfer *x)
{
	struct ixt_rd_limits lim = x->lim;
	struct ixt_rd_state st;
	u64 raddr;

	MEXPECT_EQ(ixt_rd_init(&st, x->pieces, x->nr_pieces, x->raddr,
			       x->len + 1, &x->lim), -EINVAL);
	if (x->len) {
		MEXPECT_EQ(ixt_rd_init(&st, x->pieces, x->nr_pieces,
				       x->raddr, x->len - 1, &x->lim),
			   -EINVAL);
		raddr = U64_MAX - rng() % x->len;
		MEXPECT_EQ(ixt_rd_init(&st, x->pieces, x->nr_pieces, raddr,
				       x->len, &x->lim), -EINVAL);
	}
	lim.max_sge = 0;
	MEXPECT_EQ(ixt_rd_init(&st, x->pieces, x->nr_pieces, x->raddr,
			       x->len, &lim), -EINVAL);
	lim = x->lim;
	lim.max_wr_len = 0;
	MEXPECT_EQ(ixt_rd_init(&st, x->pieces, x->nr_pieces, x->raddr,
			       x->len, &lim), -EINVAL);
	lim = x->lim;
	lim.page_size = x->lim.page_size ? 3 * x->lim.page_size : 3;
	MEXPECT_EQ(ixt_rd_init(&st, x->pieces, x->nr_pieces, x->raddr,
			       x->len, &lim), -EINVAL);
	lim = x->lim;
	lim.page_size = x->lim.page_size ?: 4 * KIB;
	lim.max_pages = 0;
	MEXPECT_EQ(ixt_rd_init(&st, x->pieces, x->nr_pieces, x->raddr,
			       x->len, &lim), -EINVAL);
}

#endif /* _IXT_RDMA_DESC_MODEL_H */
