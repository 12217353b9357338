// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/iscsi_xt/rdma_desc.c: the coalesce/divide
 * builder of RDMA work requests. Figures 7 and 8 of the seed and other
 * layouts as test vectors (contiguous pieces in one SGE, one SGE a work
 * request, empty pieces, the ends of the 32-bit lengths and of the 64-bit
 * address space, and in page-list mode whole pages joined, pieces
 * starting or ending mid-page, the page span dividing a piece), the state
 * between two calls, a huge piece divided, the rejected transfers, and a
 * brute-force model of random transfers, plain and in page-list mode,
 * built a few work requests a call, as a send queue with few free slots
 * takes them: every byte moved exactly once and in order, each work
 * request within the limits and as full as they allow, the total known
 * before the first one, and the same chain however the calls cut it.
 */
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

/* splitmix64: a fixed seed makes every run test the same numbers. */
static u64 rng_state = 0x5eed0fd1ce5c0a1eULL;

static u64 rng(void)
{
	return ixt_rng(&rng_state);
}

/* A number in [lo, hi]. */
static u32 rng_range(u32 lo, u32 hi)
{
	return ixt_rng_range(&rng_state, lo, hi);
}

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

/* ---- Test vectors -------------------------------------------------- */

/* A work request as a table wants it: its length is that of its SGEs. */
struct want_wr {
	u64 raddr;
	u32 nr_sge;
	struct ixt_rd_sge sge[4];
};

static const struct {
	const char *what;
	struct ixt_rd_limits lim;
	u64 raddr;
	u32 nr_pieces;
	struct ixt_rd_piece pieces[8];
	u32 nr_wrs;
	struct want_wr wrs[8];
} vectors[] = {
	{
		"figure 7: piece 1 divided over two work requests",
		{ 4, 64 * KIB, 0, 0 }, 0x10000000,
		3, { { 0x100000, 40 * KIB }, { 0x300000, 48 * KIB },
		     { 0x200000, 16 * KIB } },
		2, { { 0x10000000, 2, { { 0x100000, 40 * KIB },
					{ 0x300000, 24 * KIB } } },
		     { 0x10010000, 2, { { 0x306000, 24 * KIB },
					{ 0x200000, 16 * KIB } } } },
	}, {
		"figure 8: piece 0 divided, piece 1 with its rest",
		{ 4, 64 * KIB, 0, 0 }, 0x20000000,
		2, { { 0x100000, 96 * KIB }, { 0x300000, 16 * KIB } },
		2, { { 0x20000000, 1, { { 0x100000, 64 * KIB } } },
		     { 0x20010000, 2, { { 0x110000, 32 * KIB },
					{ 0x300000, 16 * KIB } } } },
	}, {
		"figure 8, piece 1 contiguous: one SGE with the rest",
		{ 4, 64 * KIB, 0, 0 }, 0x20000000,
		2, { { 0x100000, 96 * KIB }, { 0x118000, 16 * KIB } },
		2, { { 0x20000000, 1, { { 0x100000, 64 * KIB } } },
		     { 0x20010000, 1, { { 0x110000, 48 * KIB } } } },
	}, {
		"contiguous neighbours share an SGE",
		{ 2, 64 * KIB, 0, 0 }, 0x1000,
		5, { { 0x10000, 4 * KIB }, { 0x11000, 4 * KIB },
		     { 0x12000, 8 * KIB }, { 0x40000, 4 * KIB },
		     { 0x41000, 4 * KIB } },
		1, { { 0x1000, 2, { { 0x10000, 16 * KIB },
				    { 0x40000, 8 * KIB } } } },
	}, {
		"max_sge 1: contiguous pieces still share the SGE",
		{ 1, 64 * KIB, 0, 0 }, 0,
		4, { { 0x10000, 4 * KIB }, { 0x11000, 4 * KIB },
		     { 0x30000, 4 * KIB }, { 0x31000, 8 * KIB } },
		2, { { 0, 1, { { 0x10000, 8 * KIB } } },
		     { 0x2000, 1, { { 0x30000, 12 * KIB } } } },
	}, {
		"max_sge 1: every other piece its own work request",
		{ 1, 64 * KIB, 0, 0 }, 0x5000,
		4, { { 0x90000, 512 }, { 0x10000, 4 * KIB }, { 0x80000, 1 },
		     { 0x20000, 8 * KIB } },
		4, { { 0x5000, 1, { { 0x90000, 512 } } },
		     { 0x5200, 1, { { 0x10000, 4 * KIB } } },
		     { 0x6200, 1, { { 0x80000, 1 } } },
		     { 0x6201, 1, { { 0x20000, 8 * KIB } } } },
	}, {
		"max_sge reached: the next piece starts a work request",
		{ 2, 64 * KIB, 0, 0 }, 0,
		5, { { 0x10000, KIB }, { 0x20000, KIB }, { 0x30000, KIB },
		     { 0x40000, KIB }, { 0x50000, KIB } },
		3, { { 0, 2, { { 0x10000, KIB }, { 0x20000, KIB } } },
		     { 0x800, 2, { { 0x30000, KIB }, { 0x40000, KIB } } },
		     { 0x1000, 1, { { 0x50000, KIB } } } },
	}, {
		"a full work request: a contiguous piece starts the next",
		{ 4, 8 * KIB, 0, 0 }, 0x100,
		2, { { 0x10000, 8 * KIB }, { 0x12000, 4 * KIB } },
		2, { { 0x100, 1, { { 0x10000, 8 * KIB } } },
		     { 0x2100, 1, { { 0x12000, 4 * KIB } } } },
	}, {
		"a piece divided over three work requests",
		{ 4, 4 * KIB, 0, 0 }, 0,
		3, { { 0x1000, KIB }, { 0x10000, 10 * KIB },
		     { 0x20000, KIB } },
		3, { { 0, 2, { { 0x1000, KIB }, { 0x10000, 3 * KIB } } },
		     { 0x1000, 1, { { 0x10c00, 4 * KIB } } },
		     { 0x2000, 2, { { 0x11c00, 3 * KIB },
				    { 0x20000, KIB } } } },
	}, {
		"empty pieces skipped, contiguity seen across them",
		{ 4, 64 * KIB, 0, 0 }, 0x3000,
		7, { { 0x5000, 0 }, { 0x10000, 4 * KIB }, { 0x99999, 0 },
		     { 0x11000, 4 * KIB }, { 0x12000, 0 },
		     { 0x40000, 2 * KIB }, { 0, 0 } },
		1, { { 0x3000, 2, { { 0x10000, 8 * KIB },
				    { 0x40000, 2 * KIB } } } },
	}, {
		"an empty piece takes no SGE",
		{ 1, 64 * KIB, 0, 0 }, 0,
		3, { { 0x10000, 4 * KIB }, { 0x20000, 0 },
		     { 0x11000, 4 * KIB } },
		1, { { 0, 1, { { 0x10000, 8 * KIB } } } },
	}, {
		"only empty pieces: nothing to build",
		{ 4, 64 * KIB, 0, 0 }, 0x3000,
		2, { { 0x5000, 0 }, { 0x6000, 0 } },
		0, { },
	}, {
		"one-byte work requests",
		{ 4, 1, 0, 0 }, 0xfff,
		2, { { 0x10, 3 }, { 0x13, 1 } },
		4, { { 0xfff, 1, { { 0x10, 1 } } },
		     { 0x1000, 1, { { 0x11, 1 } } },
		     { 0x1001, 1, { { 0x12, 1 } } },
		     { 0x1002, 1, { { 0x13, 1 } } } },
	}, {
		"a piece that ends where the last starts is not contiguous",
		{ 4, 64 * KIB, 0, 0 }, 0,
		2, { { 0x20000, 4 * KIB }, { 0x1f000, 4 * KIB } },
		1, { { 0, 2, { { 0x20000, 4 * KIB },
			       { 0x1f000, 4 * KIB } } } },
	}, {
		"at the top of both address spaces",
		{ 4, 4 * KIB, 0, 0 }, 0xffffffffffffe001ULL,
		2, { { 0xffffffffffffe000ULL, 0x1000 },
		     { 0xfffffffffffff000ULL, 0xffe } },
		2, { { 0xffffffffffffe001ULL, 1,
		       { { 0xffffffffffffe000ULL, 0x1000 } } },
		     { 0xfffffffffffff001ULL, 1,
		       { { 0xfffffffffffff000ULL, 0xffe } } } },
	}, {
		"at the top of both address spaces, in one SGE",
		{ 1, 64 * KIB, 0, 0 }, 0xffffffffffffe001ULL,
		2, { { 0xffffffffffffe000ULL, 0x1000 },
		     { 0xfffffffffffff000ULL, 0xffe } },
		1, { { 0xffffffffffffe001ULL, 1,
		       { { 0xffffffffffffe000ULL, 0x1ffe } } } },
	}, {
		"4 GiB - 1 in one work request",
		{ 2, U32_MAX, 0, 0 }, 0,
		1, { { 0x100000000ULL, U32_MAX } },
		1, { { 0, 1, { { 0x100000000ULL, U32_MAX } } } },
	}, {
		"4 GiB - 1 in two contiguous halves: one SGE",
		{ 1, U32_MAX, 0, 0 }, 0x1000,
		2, { { 0x100000000ULL, 0x80000000 },
		     { 0x180000000ULL, 0x7fffffff } },
		1, { { 0x1000, 1, { { 0x100000000ULL, U32_MAX } } } },
	}, {
		"4 GiB - 1 in 2 GiB work requests",
		{ 1, 0x80000000, 0, 0 }, 0,
		1, { { 0x100000000ULL, U32_MAX } },
		2, { { 0, 1, { { 0x100000000ULL, 0x80000000 } } },
		     { 0x80000000, 1, { { 0x180000000ULL, 0x7fffffff } } } },
	}, {
		"4 GiB - 1 over 3 pieces, 2 GiB - 1 a work request",
		{ 4, 0x7fffffff, 0, 0 }, 0x1000,
		3, { { 0x100000000ULL, 0x7fffffff },
		     { 0x300000000ULL, 0x7fffffff },
		     { 0x500000000ULL, 1 } },
		3, { { 0x1000, 1, { { 0x100000000ULL, 0x7fffffff } } },
		     { 0x80000fff, 1, { { 0x300000000ULL, 0x7fffffff } } },
		     { 0x100000ffeULL, 1, { { 0x500000000ULL, 1 } } } },
	}, {
		"pages: whole pages on page boundaries join one work request",
		{ 4, MIB, 4 * KIB, 16 }, 0x40000,
		5, { { 0x10000, 4 * KIB }, { 0x30000, 8 * KIB },
		     { 0x32000, 4 * KIB }, { 0x20000, 4 * KIB },
		     { 0x50000, 4 * KIB } },
		1, { { 0x40000, 4, { { 0x10000, 4 * KIB },
				     { 0x30000, 12 * KIB },
				     { 0x20000, 4 * KIB },
				     { 0x50000, 4 * KIB } } } },
	}, {
		"pages: a first piece from mid-page, its offset in the span",
		{ 4, MIB, 4 * KIB, 2 }, 0x1000,
		3, { { 0x10800, 2 * KIB }, { 0x30000, 4 * KIB },
		     { 0x40000, 2 * KIB } },
		2, { { 0x1000, 2, { { 0x10800, 2 * KIB },
				    { 0x30000, 4 * KIB } } },
		     { 0x2800, 1, { { 0x40000, 2 * KIB } } } },
	}, {
		"pages: a middle piece ending mid-page ends the work request",
		{ 4, MIB, 4 * KIB, 16 }, 0,
		4, { { 0x10000, 4 * KIB }, { 0x30000, 2 * KIB },
		     { 0x50000, 4 * KIB }, { 0x60000, 4 * KIB } },
		2, { { 0, 2, { { 0x10000, 4 * KIB }, { 0x30000, 2 * KIB } } },
		     { 0x1800, 2, { { 0x50000, 4 * KIB },
				    { 0x60000, 4 * KIB } } } },
	}, {
		"pages: a piece starting mid-page starts a work request",
		{ 4, MIB, 4 * KIB, 16 }, 0,
		3, { { 0x10000, 4 * KIB }, { 0x20200, 0xe00 },
		     { 0x30000, 4 * KIB } },
		2, { { 0, 1, { { 0x10000, 4 * KIB } } },
		     { 0x1000, 2, { { 0x20200, 0xe00 },
				    { 0x30000, 4 * KIB } } } },
	}, {
		"pages: contiguous pieces meeting mid-page share an SGE",
		{ 4, MIB, 4 * KIB, 16 }, 0,
		3, { { 0x10000, 0x900 }, { 0x10900, 0x700 },
		     { 0x20000, 4 * KIB } },
		1, { { 0, 2, { { 0x10000, 4 * KIB },
			       { 0x20000, 4 * KIB } } } },
	}, {
		"pages: the span divides a piece at a page boundary",
		{ 4, MIB, 4 * KIB, 4 }, 0x7000,
		2, { { 0x100800, 42 * KIB }, { 0x200000, 4 * KIB } },
		3, { { 0x7000, 1, { { 0x100800, 14 * KIB } } },
		     { 0xa800, 1, { { 0x104000, 16 * KIB } } },
		     { 0xe800, 2, { { 0x108000, 12 * KIB },
				    { 0x200000, 4 * KIB } } } },
	}, {
		"pages, max_sge 1: contiguous pieces still share the SGE",
		{ 1, MIB, 4 * KIB, 8 }, 0,
		4, { { 0x10000, 4 * KIB }, { 0x11000, 4 * KIB },
		     { 0x30000, 4 * KIB }, { 0x40800, KIB } },
		3, { { 0, 1, { { 0x10000, 8 * KIB } } },
		     { 0x2000, 1, { { 0x30000, 4 * KIB } } },
		     { 0x3000, 1, { { 0x40800, KIB } } } },
	}, {
		"pages: max_wr_len divides mid-page, the rest joins on",
		{ 4, 6 * KIB, 4 * KIB, 16 }, 0,
		2, { { 0x10000, 8 * KIB }, { 0x20000, 4 * KIB } },
		2, { { 0, 1, { { 0x10000, 6 * KIB } } },
		     { 0x1800, 2, { { 0x11800, 2 * KIB },
				    { 0x20000, 4 * KIB } } } },
	}, {
		"pages, max_pages 1: a page a work request",
		{ 4, MIB, 4 * KIB, 1 }, 0,
		2, { { 0x10800, 6 * KIB }, { 0x20000, KIB } },
		3, { { 0, 1, { { 0x10800, 2 * KIB } } },
		     { 0x800, 1, { { 0x11000, 4 * KIB } } },
		     { 0x1800, 1, { { 0x20000, KIB } } } },
	}, {
		"pages: the example of Documentation/design.rst",
		{ 4, MIB, 4 * KIB, 4 }, 0x80000000,
		4, { { 0x100800, 6 * KIB }, { 0x200000, 4 * KIB },
		     { 0x300000, 2 * KIB }, { 0x400000, 20 * KIB } },
		3, { { 0x80000000, 3, { { 0x100800, 6 * KIB },
					{ 0x200000, 4 * KIB },
					{ 0x300000, 2 * KIB } } },
		     { 0x80003000, 1, { { 0x400000, 16 * KIB } } },
		     { 0x80007000, 1, { { 0x404000, 4 * KIB } } } },
	}, {
		"pages of 64 KiB, two a work request",
		{ 4, MIB, 64 * KIB, 2 }, 0x100000,
		3, { { 0x10000, 64 * KIB }, { 0x30000, 64 * KIB },
		     { 0x50000, 64 * KIB } },
		2, { { 0x100000, 2, { { 0x10000, 64 * KIB },
				      { 0x30000, 64 * KIB } } },
		     { 0x120000, 1, { { 0x50000, 64 * KIB } } } },
	},
};

TEST(vectors)
{
	static const u32 steps[] = { 1, 3, 0 };
	struct chain want, model;
	unsigned int i, k;
	struct xfer x;
	u64 len;
	u32 j, s;

	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		x = (struct xfer) {
			.pieces = vectors[i].pieces,
			.nr_pieces = vectors[i].nr_pieces,
			.raddr = vectors[i].raddr,
			.lim = vectors[i].lim,
		};
		for (j = 0, len = 0; j < x.nr_pieces; j++)
			len += x.pieces[j].len;
		x.len = len;
		memset(&want, 0, sizeof(want));
		memset(&model, 0, sizeof(model));
		for (j = 0; j < vectors[i].nr_wrs; j++) {
			chain_add_wr(&want, vectors[i].wrs[j].raddr);
			for (s = 0; s < vectors[i].wrs[j].nr_sge; s++)
				chain_add_sge(&want,
					      vectors[i].wrs[j].sge[s].addr,
					      vectors[i].wrs[j].sge[s].len);
		}
		ixt_model_failed = false;
		IXT_CASE("%s: the table", vectors[i].what);
		EXPECT_EQ(len, x.len);
		check_chain(&x, &want);
		IXT_CASE("%s: the model", vectors[i].what);
		model_build(&x, &model, x.len <= 64 * KIB);
		expect_same_chain(&model, &want);
		for (k = 0; k < ARRAY_SIZE(steps); k++) {
			ixt_model_failed = false;
			IXT_CASE("%s: %u a call", vectors[i].what, steps[k]);
			check_xfer(&x, &want, steps[k]);
		}
		chain_free(&want);
		chain_free(&model);
	}
}

/* Figure 7 a work request a call: the state holds piece 1 at 24 KiB. */
TEST(fig7_state_between_calls)
{
	static const struct ixt_rd_piece pieces[] = {
		{ 0x100000, 40 * KIB }, { 0x300000, 48 * KIB },
		{ 0x200000, 16 * KIB },
	};
	struct ixt_rd_limits lim = { .max_sge = 4, .max_wr_len = 64 * KIB };
	struct ixt_rd_sge sge[4];
	struct ixt_rd_state st;
	struct ixt_rd_wr wr;

	ASSERT_EQ(ixt_rd_init(&st, pieces, 3, 0x10000000, 104 * KIB, &lim),
		  0);
	EXPECT_EQ(st.nr_wrs, 2);
	EXPECT_FALSE(ixt_rd_done(&st));
	IXT_CASE("send queue full");
	EXPECT_EQ(ixt_rd_build(&st, 0, &wr, sge), 0);
	EXPECT_EQ(st.wrs_done, 0);
	EXPECT_EQ(st.done, 0);

	IXT_CASE("first work request");
	ASSERT_EQ(ixt_rd_build(&st, 1, &wr, sge), 1);
	EXPECT_EQ(wr.raddr, 0x10000000);
	EXPECT_EQ(wr.len, 64 * KIB);
	EXPECT_EQ(wr.sge_first, 0);
	ASSERT_EQ(wr.nr_sge, 2);
	EXPECT_EQ(sge[0].addr, 0x100000);
	EXPECT_EQ(sge[0].len, 40 * KIB);
	EXPECT_EQ(sge[1].addr, 0x300000);
	EXPECT_EQ(sge[1].len, 24 * KIB);
	EXPECT_FALSE(ixt_rd_done(&st));
	EXPECT_EQ(st.cur, 1);
	EXPECT_EQ(st.off, 24 * KIB);
	EXPECT_EQ(st.done, 64 * KIB);
	EXPECT_EQ(st.raddr, 0x10010000);
	EXPECT_EQ(st.wrs_done, 1);

	IXT_CASE("second work request, its SGEs from 0 again");
	memset(sge, 0, sizeof(sge));
	ASSERT_EQ(ixt_rd_build(&st, 1, &wr, sge), 1);
	EXPECT_EQ(wr.raddr, 0x10010000);
	EXPECT_EQ(wr.len, 40 * KIB);
	EXPECT_EQ(wr.sge_first, 0);
	ASSERT_EQ(wr.nr_sge, 2);
	EXPECT_EQ(sge[0].addr, 0x306000);
	EXPECT_EQ(sge[0].len, 24 * KIB);
	EXPECT_EQ(sge[1].addr, 0x200000);
	EXPECT_EQ(sge[1].len, 16 * KIB);
	EXPECT_TRUE(ixt_rd_done(&st));
	EXPECT_EQ(st.done, 104 * KIB);
	EXPECT_EQ(st.raddr, 0x1001a000);
	EXPECT_EQ(st.wrs_done, 2);

	IXT_CASE("done");
	EXPECT_EQ(ixt_rd_build(&st, 1, &wr, sge), 0);
	EXPECT_TRUE(ixt_rd_done(&st));
}

/* Figure 7 with room for more than it takes: two, nothing more. */
TEST(fig7_in_one_call)
{
	static const struct ixt_rd_piece pieces[] = {
		{ 0x100000, 40 * KIB }, { 0x300000, 48 * KIB },
		{ 0x200000, 16 * KIB },
	};
	struct ixt_rd_limits lim = { .max_sge = 4, .max_wr_len = 64 * KIB };
	struct ixt_rd_sge sge[8 * 4];
	struct ixt_rd_state st;
	struct ixt_rd_wr wr[8];

	ASSERT_EQ(ixt_rd_init(&st, pieces, 3, 0x10000000, 104 * KIB, &lim),
		  0);
	ASSERT_EQ(ixt_rd_build(&st, 8, wr, sge), 2);
	EXPECT_TRUE(ixt_rd_done(&st));
	ASSERT_EQ(wr[0].nr_sge, 2);
	ASSERT_EQ(wr[1].nr_sge, 2);
	ASSERT_TRUE(wr[0].sge_first + 2 <= 8 * 4);
	ASSERT_TRUE(wr[1].sge_first + 2 <= 8 * 4);
	EXPECT_TRUE(wr[1].sge_first >= wr[0].sge_first + 2 ||
		    wr[0].sge_first >= wr[1].sge_first + 2);
	EXPECT_EQ(wr[0].len, 64 * KIB);
	EXPECT_EQ(sge[wr[0].sge_first + 1].addr, 0x300000);
	EXPECT_EQ(sge[wr[0].sge_first + 1].len, 24 * KIB);
	EXPECT_EQ(wr[1].raddr, 0x10010000);
	EXPECT_EQ(wr[1].len, 40 * KIB);
	EXPECT_EQ(sge[wr[1].sge_first].addr, 0x306000);
	EXPECT_EQ(sge[wr[1].sge_first].len, 24 * KIB);
	EXPECT_EQ(ixt_rd_build(&st, 8, wr, sge), 0);
}

/* 4 GiB - 1 in one piece, 1 MiB a work request: 4096 of them. */
TEST(huge_piece_divided)
{
	static const struct ixt_rd_piece piece = {
		0x7fff00000000ULL, U32_MAX,
	};
	struct ixt_rd_sge sge[7 * 2];
	struct ixt_rd_wr wr[7];
	struct ixt_rd_state st;
	struct chain want = { 0 };
	struct xfer x = {
		.pieces = &piece, .nr_pieces = 1, .raddr = 0x200000000ULL,
		.len = U32_MAX, .lim = { .max_sge = 2, .max_wr_len = MIB },
	};
	u32 i = 0, n, k;

	ASSERT_EQ(ixt_rd_init(&st, x.pieces, 1, x.raddr, x.len, &x.lim), 0);
	EXPECT_EQ(st.nr_wrs, 4096);
	while ((n = ixt_rd_build(&st, 7, wr, sge))) {
		for (k = 0; k < n; k++, i++) {
			IXT_CASE("work request %u", i);
			ASSERT_TRUE(i < 4096);
			EXPECT_EQ(wr[k].raddr, x.raddr + (u64)i * MIB);
			EXPECT_EQ(wr[k].len, i < 4095 ? MIB : MIB - 1);
			ASSERT_EQ(wr[k].nr_sge, 1);
			ASSERT_TRUE(wr[k].sge_first < 7 * 2);
			EXPECT_EQ(sge[wr[k].sge_first].addr,
				  piece.addr + (u64)i * MIB);
			EXPECT_EQ(sge[wr[k].sge_first].len, wr[k].len);
		}
		EXPECT_EQ(ixt_rd_done(&st), i == 4096);
	}
	IXT_CASE("all");
	EXPECT_EQ(i, 4096);
	EXPECT_TRUE(ixt_rd_done(&st));

	ixt_model_failed = false;
	model_build(&x, &want, false);
	IXT_CASE("against the model, up to 8 a call");
	EXPECT_EQ(want.nr_wr, 4096);
	check_xfer(&x, &want, 8);
	chain_free(&want);
}

/* len 0: nothing to build, done at once. */
TEST(empty_transfer)
{
	static const struct ixt_rd_piece empty[] = { { 0x1000, 0 } };
	struct ixt_rd_limits lim = { .max_sge = 1, .max_wr_len = 1 };
	struct ixt_rd_state st, end;
	struct ixt_rd_sge sge;
	struct ixt_rd_wr wr;

	IXT_CASE("no pieces");
	ASSERT_EQ(ixt_rd_init(&st, NULL, 0, 0x1000, 0, &lim), 0);
	EXPECT_EQ(st.nr_wrs, 0);
	EXPECT_TRUE(ixt_rd_done(&st));
	end = st;
	EXPECT_EQ(ixt_rd_build(&st, 1, &wr, &sge), 0);
	EXPECT_TRUE(same_state(&st, &end));

	IXT_CASE("an empty piece, remote address U64_MAX");
	ASSERT_EQ(ixt_rd_init(&st, empty, 1, U64_MAX, 0, &lim), 0);
	EXPECT_EQ(st.nr_wrs, 0);
	EXPECT_TRUE(ixt_rd_done(&st));
	end = st;
	EXPECT_EQ(ixt_rd_build(&st, 1, &wr, &sge), 0);
	EXPECT_TRUE(same_state(&st, &end));
}

/*
 * What ixt_rd_init() refuses: a limit of 0, pieces that do not add up to
 * len (in 64 bits), a remote buffer or a piece past the end of the 64-bit
 * address space; and the edges it takes.
 */
TEST(init_rejects)
{
	static const struct ixt_rd_piece two[] = {
		{ 0x1000, 0x1000 }, { 0x8000, 0x3000 },
	};
	static const struct ixt_rd_piece halves[] = {
		{ 0x10000000000ULL, 0x80000000 },
		{ 0x20000000000ULL, 0x80000000 },
	};
	static const struct ixt_rd_piece past_u32[] = {
		{ 0x10000000000ULL, U32_MAX }, { 0x1000, 2 },
	};
	static const struct ixt_rd_piece past_u64[] = {
		{ 0x1000, 0x1000 }, { U64_MAX - 0xfff, 0x1000 },
	};
	static const struct ixt_rd_piece at_top[] = {
		{ 0x1000, 0x1000 }, { U64_MAX - 0x1000, 0x1000 },
	};
	static const struct {
		const char *what;
		const struct ixt_rd_piece *pieces;
		u32 nr_pieces;
		u64 raddr;
		u32 len;
		struct ixt_rd_limits lim;
		int ret;
		u32 nr_wrs;
	} cases[] = {
		{ "good", two, 2, 0x5000, 0x4000, { 4, 64 * KIB, 0, 0 }, 0, 1 },
		{ "max_sge 0", two, 2, 0x5000, 0x4000, { 0, 64 * KIB, 0, 0 },
		  -EINVAL, 0 },
		{ "max_wr_len 0", two, 2, 0x5000, 0x4000, { 4, 0, 0, 0 },
		  -EINVAL, 0 },
		{ "both limits 0", two, 2, 0x5000, 0x4000, { 0, 0, 0, 0 },
		  -EINVAL, 0 },
		{ "pieces one byte short", two, 2, 0x5000, 0x4001,
		  { 4, 64 * KIB, 0, 0 }, -EINVAL, 0 },
		{ "pieces one byte over", two, 2, 0x5000, 0x3fff,
		  { 4, 64 * KIB, 0, 0 }, -EINVAL, 0 },
		{ "len 0, pieces not", two, 2, 0x5000, 0, { 4, 64 * KIB, 0, 0 },
		  -EINVAL, 0 },
		{ "first piece only", two, 1, 0x5000, 0x4000,
		  { 4, 64 * KIB, 0, 0 }, -EINVAL, 0 },
		{ "no pieces, len 1", NULL, 0, 0x5000, 1, { 4, 64 * KIB, 0, 0 },
		  -EINVAL, 0 },
		{ "pieces add up to 4 GiB: 0 in 32 bits", halves, 2, 0, 0,
		  { 4, 64 * KIB, 0, 0 }, -EINVAL, 0 },
		{ "pieces add up to 4 GiB, len U32_MAX", halves, 2, 0,
		  U32_MAX, { 4, 64 * KIB, 0, 0 }, -EINVAL, 0 },
		{ "pieces add up to 4 GiB + 1: 1 in 32 bits", past_u32, 2, 0,
		  1, { 4, 64 * KIB, 0, 0 }, -EINVAL, 0 },
		{ "remote buffer ends at 2^64", two, 2, U64_MAX - 0x3fff,
		  0x4000, { 4, 64 * KIB, 0, 0 }, -EINVAL, 0 },
		{ "remote address U64_MAX", two, 2, U64_MAX, 0x4000,
		  { 4, 64 * KIB, 0, 0 }, -EINVAL, 0 },
		{ "remote buffer wraps", two, 2, U64_MAX - 0x1000, 0x4000,
		  { 4, 64 * KIB, 0, 0 }, -EINVAL, 0 },
		{ "remote buffer ends at U64_MAX", two, 2, U64_MAX - 0x4000,
		  0x4000, { 4, 64 * KIB, 0, 0 }, 0, 1 },
		{ "piece ends at 2^64", past_u64, 2, 0, 0x2000,
		  { 4, 64 * KIB, 0, 0 }, -EINVAL, 0 },
		{ "piece ends at U64_MAX", at_top, 2, 0, 0x2000,
		  { 4, 64 * KIB, 0, 0 }, 0, 1 },
		{ "no limit on SGEs", two, 2, 0, 0x4000,
		  { U32_MAX, U32_MAX, 0, 0 }, 0, 1 },
		{ "one byte, one SGE a work request", two, 2, 0, 0x4000,
		  { 1, 1, 0, 0 }, 0, 0x4000 },
		{ "pages of 4 KiB", two, 2, 0, 0x4000,
		  { 4, 64 * KIB, 4 * KIB, 16 }, 0, 1 },
		{ "pages of 4 KiB, one a work request", two, 2, 0, 0x4000,
		  { 4, 64 * KIB, 4 * KIB, 1 }, 0, 4 },
		{ "pages of a byte", two, 2, 0, 0x4000,
		  { 4, 64 * KIB, 1, 0x3fff }, 0, 2 },
		{ "pages of 2 GiB, U32_MAX a work request", two, 2, 0, 0x4000,
		  { 4, U32_MAX, 0x80000000, U32_MAX }, 0, 2 },
		{ "max_pages, no page size: plain", two, 2, 0, 0x4000,
		  { 1, 64 * KIB, 0, 1 }, 0, 2 },
		{ "page_size 3", two, 2, 0, 0x4000,
		  { 4, 64 * KIB, 3, 16 }, -EINVAL, 0 },
		{ "page_size 12 KiB", two, 2, 0, 0x4000,
		  { 4, 64 * KIB, 12 * KIB, 16 }, -EINVAL, 0 },
		{ "page_size U32_MAX", two, 2, 0, 0x4000,
		  { 4, 64 * KIB, U32_MAX, 16 }, -EINVAL, 0 },
		{ "pages of 4 KiB, max_pages 0", two, 2, 0, 0x4000,
		  { 4, 64 * KIB, 4 * KIB, 0 }, -EINVAL, 0 },
	};
	struct ixt_rd_state st;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		IXT_CASE("%s", cases[i].what);
		memset(&st, 0x5a, sizeof(st));
		EXPECT_EQ(ixt_rd_init(&st, cases[i].pieces,
				      cases[i].nr_pieces, cases[i].raddr,
				      cases[i].len, &cases[i].lim),
			  cases[i].ret);
		if (cases[i].ret)
			continue;
		EXPECT_EQ(st.nr_wrs, cases[i].nr_wrs);
		EXPECT_EQ(st.wrs_done, 0);
		EXPECT_FALSE(ixt_rd_done(&st));
	}
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

/*
 * @nr random transfers from @make against the model, each built up to 8
 * and all it takes a call.
 */
static void random_against_model(void (*make)(struct xfer *x,
					      struct ixt_rd_piece *pieces),
				 unsigned int nr)
{
	struct ixt_rd_piece pieces[MAX_PIECES];
	struct chain want;
	unsigned int i;
	struct xfer x;
	u64 seed;

	ixt_model_failed = false;
	for (i = 0; i < nr && !ixt_model_failed; i++) {
		seed = rng_state;
		make(&x, pieces);
		IXT_CASE("seed %#llx: %u pieces, %#x bytes, limits %u %u %u %u",
			 (unsigned long long)seed, x.nr_pieces, x.len,
			 x.lim.max_sge, x.lim.max_wr_len, x.lim.page_size,
			 x.lim.max_pages);
		memset(&want, 0, sizeof(want));
		model_build(&x, &want, x.len <= 64 * KIB);
		/* The model keeps the rules too. */
		check_chain(&x, &want);
		if (!ixt_model_failed)
			check_xfer(&x, &want, 8);
		if (!ixt_model_failed)
			check_xfer(&x, &want, 0);
		if (!ixt_model_failed)
			check_rejects(&x);
		if (ixt_model_failed)
			print_xfer(&x);
		chain_free(&want);
	}
}

/* The run model against the byte model, on @nr transfers up to 1 MiB. */
static void model_runs_are_bytes(void (*make)(struct xfer *x,
					      struct ixt_rd_piece *pieces),
				 unsigned int nr)
{
	struct ixt_rd_piece pieces[MAX_PIECES];
	struct chain bytes, runs;
	unsigned int i;
	struct xfer x;
	u64 seed;

	ixt_model_failed = false;
	for (i = 0; i < nr && !ixt_model_failed; i++) {
		seed = rng_state;
		make(&x, pieces);
		if (x.len > MIB)
			continue;
		IXT_CASE("seed %#llx", (unsigned long long)seed);
		memset(&bytes, 0, sizeof(bytes));
		memset(&runs, 0, sizeof(runs));
		model_build(&x, &bytes, true);
		model_build(&x, &runs, false);
		expect_same_chain(&runs, &bytes);
		if (ixt_model_failed)
			print_xfer(&x);
		chain_free(&bytes);
		chain_free(&runs);
	}
}

TEST(random_against_model)
{
	random_against_model(random_xfer, 3000);
}

TEST(model_runs_are_bytes)
{
	model_runs_are_bytes(random_xfer, 300);
}

TEST(random_pages_against_model)
{
	random_against_model(random_page_xfer, 3000);
}

TEST(page_model_runs_are_bytes)
{
	model_runs_are_bytes(random_page_xfer, 300);
}
