// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/iscsi_xt/rdma_desc.c: the coalesce/divide
 * builder of RDMA work requests. The divide and page-list examples of
 * "Coalesce/divide descriptor builder" in Documentation/design.rst and
 * other layouts as test vectors (a piece divided, contiguous pieces in
 * one SGE, one SGE a work request, empty pieces, the ends of the 32-bit
 * lengths and of the 64-bit address space, and in page-list mode whole
 * pages joined, pieces starting or ending mid-page, the page span
 * dividing a piece), the state between two calls, a huge piece divided,
 * the rejected transfers, and a brute-force model of random transfers,
 * plain and in page-list mode, built a few work requests a call, as a
 * send queue with few free slots takes them: every byte moved exactly
 * once and in order, each work request within the limits and as full as
 * they allow, the total known before the first one, and the same chain
 * however the calls cut it.
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

/* Transfers, chains, the rules, the model and random transfers. */
#include "rdma_desc_model.h"

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
		"divide: piece 1 split over two work requests",
		{ 4, 64 * KIB, 0, 0 }, 0x10000000,
		3, { { 0x100000, 40 * KIB }, { 0x300000, 48 * KIB },
		     { 0x200000, 16 * KIB } },
		2, { { 0x10000000, 2, { { 0x100000, 40 * KIB },
					{ 0x300000, 24 * KIB } } },
		     { 0x10010000, 2, { { 0x306000, 24 * KIB },
					{ 0x200000, 16 * KIB } } } },
	}, {
		"divide: piece 0 split, piece 1 with its rest",
		{ 4, 64 * KIB, 0, 0 }, 0x20000000,
		2, { { 0x100000, 96 * KIB }, { 0x300000, 16 * KIB } },
		2, { { 0x20000000, 1, { { 0x100000, 64 * KIB } } },
		     { 0x20010000, 2, { { 0x110000, 32 * KIB },
					{ 0x300000, 16 * KIB } } } },
	}, {
		"divide, piece 1 contiguous: one SGE with piece 0's rest",
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

/*
 * The divide example of design.rst, a work request a call: between the
 * calls the request state holds piece 1 at 24 KiB.
 */
TEST(divide_state_between_calls)
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

/* The same with room for more than it takes: two, nothing more. */
TEST(divide_in_one_call)
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
