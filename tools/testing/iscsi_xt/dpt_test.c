// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/iscsi_xt/dpt.c: the example of
 * "Data-pointer table over cache lines" in Documentation/design.rst as a
 * test vector, in order and out of order, the unsolicited-data rules,
 * the Target Transfer Tag split, hostile Data-Out PDUs, and a brute-force
 * model of random layouts and PDU orders: every byte placed exactly once
 * where the lines say, no R2T across a line or beyond MaxBurstLength,
 * MaxOutstandingR2T respected, and every Data-Out accepted exactly when
 * the model says it may be.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <iscsi_xt/dpt.h>
#include <iscsi_xt/holes.h>
#include <iscsi_xt/pdu.h>

#include "ixt_test.h"

/*
 * Checks that the walk of a placement gives two pieces, of @len0 bytes at
 * @addr0 and of the rest at @addr1.
 */
static void expect_two_pieces(const struct ixt_dpt *t,
			      const struct ixt_dpt_place *p, u64 addr0,
			      u32 len0, u64 addr1)
{
	struct ixt_dpt_piece pc;
	struct ixt_dpt_iter it;

	ASSERT_EQ(ixt_dpt_iter_init(&it, t, p->offset, p->len), 0);
	ASSERT_TRUE(ixt_dpt_iter_next(&it, &pc));
	EXPECT_EQ(pc.addr, addr0);
	EXPECT_EQ(pc.len, len0);
	ASSERT_TRUE(ixt_dpt_iter_next(&it, &pc));
	EXPECT_EQ(pc.addr, addr1);
	EXPECT_EQ(pc.len, p->len - len0);
	EXPECT_FALSE(ixt_dpt_iter_next(&it, &pc));
}

/* ---- The example of Documentation/design.rst ----------------------- */

/* Three 32 KiB lines; buffer offset 0 lands 0x4000 into the first. */
static const struct ixt_dpt_line ex_lines[] = {
	{ .addr = 0x50000, .handle = 7 },
	{ .addr = 0x68000, .handle = 3 },
	{ .addr = 0x80000, .handle = 9 },
};

/* MaxBurstLength of the example (open-iscsi's), and a smaller one. */
#define EX_BURST	262144
#define EX_BURST_32K	0x8000

static struct ixt_dpt_geom ex_geom_burst(u32 max_r2t, u32 max_burst)
{
	return (struct ixt_dpt_geom) {
		.xfer_len = 0x10000,
		.first_off = 0x4000,
		.unsol_len = 0,
		.max_burst = max_burst,
		.max_r2t = max_r2t,
		.slot = 0x123,
		.ttt_base = 0x10,
		.line_shift = 15,
		.data_pdu_in_order = true,
	};
}

static struct ixt_dpt_geom ex_geom(u32 max_r2t)
{
	return ex_geom_burst(max_r2t, EX_BURST);
}

/* Sets up the example's table in @t over @e; false on failure. */
static bool ex_init(struct ixt_dpt *t, struct ixt_dpt_entry *e, u32 max_r2t)
{
	struct ixt_dpt_geom g = ex_geom(max_r2t);

	return !ixt_dpt_init(t, &g, ex_lines, ARRAY_SIZE(ex_lines), e, 3,
			     NULL);
}

/*
 * The example's buffer with MaxBurstLength 32 KiB: two runs, [0, 0x8000)
 * from entry 0 and [0x8000, 0x10000) from entry 2, line 1 cut between.
 */
static bool ex_init_32k(struct ixt_dpt *t, struct ixt_dpt_entry *e,
			u32 max_r2t)
{
	struct ixt_dpt_geom g = ex_geom_burst(max_r2t, EX_BURST_32K);

	return !ixt_dpt_init(t, &g, ex_lines, ARRAY_SIZE(ex_lines), e, 4,
			     NULL);
}

/* The tags of the two runs of the 32 KiB table. */
#define EX_RUN1	0x00100123
#define EX_RUN2	0x00120123

/* The example's table: its three entries, their tags from 0x0010_0123. */
static const struct {
	u32 ttt, addr, offset, length;
} ex_entries[] = {
	{ 0x00100123, 0x54000, 0x0000, 0x4000 },
	{ 0x00110123, 0x68000, 0x4000, 0x8000 },
	{ 0x00120123, 0x80000, 0xc000, 0x4000 },
};

/*
 * The example's 8 KiB Data-Out PDUs, and where the lines put them. The
 * one R2T of the whole buffer names entry 0; the offset finds the entry.
 */
static const struct {
	u32 offset, len, addr, entry;
	bool final;
} ex_pdus[] = {
	{ 0x0000, 0x2000, 0x54000, 0, false },
	{ 0x2000, 0x2000, 0x56000, 0, false },
	{ 0x4000, 0x2000, 0x68000, 1, false },
	{ 0x6000, 0x2000, 0x6a000, 1, false },
	{ 0x8000, 0x2000, 0x6c000, 1, false },
	{ 0xa000, 0x2000, 0x6e000, 1, false },
	{ 0xc000, 0x2000, 0x80000, 2, false },
	{ 0xe000, 0x2000, 0x82000, 2, true },
};

/* The tag and F bit of one of those PDUs in the 32 KiB table. */
static u32 ex_pdu_ttt_32k(unsigned int i)
{
	return ex_pdus[i].offset < EX_BURST_32K ? EX_RUN1 : EX_RUN2;
}

static bool ex_pdu_final_32k(unsigned int i)
{
	return !((ex_pdus[i].offset + ex_pdus[i].len) % EX_BURST_32K);
}

TEST(example_line_and_entry_counts)
{
	struct ixt_dpt_geom g = ex_geom(1);
	u32 nr_lines = 0, nr_entries = 0;

	ASSERT_EQ(ixt_dpt_count(&g, &nr_lines, &nr_entries), 0);
	EXPECT_EQ(nr_lines, 3);
	EXPECT_EQ(nr_entries, 3);
}

TEST(example_entries_and_tags)
{
	struct ixt_dpt_entry e[3];
	struct ixt_dpt t;
	unsigned int i;

	ASSERT_TRUE(ex_init(&t, e, 1));
	EXPECT_EQ(t.first_r2t, 0);
	EXPECT_EQ(t.next_r2t, 0);
	for (i = 0; i < ARRAY_SIZE(ex_entries); i++) {
		IXT_CASE("entry %u", i);
		EXPECT_EQ(ixt_dpt_ttt(&t, i), ex_entries[i].ttt);
		EXPECT_EQ(e[i].addr, ex_entries[i].addr);
		EXPECT_EQ(e[i].offset, ex_entries[i].offset);
		EXPECT_EQ(e[i].length, ex_entries[i].length);
		EXPECT_EQ(e[i].received, 0);
		EXPECT_EQ(e[i].line, i);
	}
	EXPECT_FALSE(ixt_dpt_is_complete(&t));
}

/* One R2T, not one per line, asks for the run of all three entries. */
TEST(example_one_r2t_per_burst)
{
	struct ixt_dpt_entry e[3];
	struct ixt_dpt_r2t r2t;
	struct ixt_dpt t;

	ASSERT_TRUE(ex_init(&t, e, 3));
	ASSERT_EQ(ixt_dpt_next_r2t(&t, &r2t), 0);
	EXPECT_EQ(r2t.ttt, 0x00100123);
	EXPECT_EQ(r2t.offset, 0);
	EXPECT_EQ(r2t.length, 0x10000);
	EXPECT_EQ(r2t.entry, 0);
	EXPECT_EQ(ixt_dpt_next_r2t(&t, &r2t), -ENODATA);
	EXPECT_EQ(t.next_r2t, 3);
	EXPECT_EQ(t.outstanding, 1);
}

/* MaxBurstLength 32 KiB: line 1 is cut where the second burst starts. */
TEST(example_burst_cut_inside_line)
{
	static const struct { u32 addr, offset, length, line; } want[] = {
		{ 0x54000, 0x0000, 0x4000, 0 },
		{ 0x68000, 0x4000, 0x4000, 1 },
		{ 0x6c000, 0x8000, 0x4000, 1 },
		{ 0x80000, 0xc000, 0x4000, 2 },
	};
	struct ixt_dpt_geom g = ex_geom_burst(3, EX_BURST_32K);
	u32 nr_lines = 0, nr_entries = 0;
	struct ixt_dpt_entry e[4];
	struct ixt_dpt_r2t r2t;
	struct ixt_dpt t;
	unsigned int i;

	ASSERT_EQ(ixt_dpt_count(&g, &nr_lines, &nr_entries), 0);
	EXPECT_EQ(nr_lines, 3);
	ASSERT_EQ(nr_entries, 4);
	ASSERT_TRUE(ex_init_32k(&t, e, 3));
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		IXT_CASE("entry %u", i);
		EXPECT_EQ(e[i].addr, want[i].addr);
		EXPECT_EQ(e[i].offset, want[i].offset);
		EXPECT_EQ(e[i].length, want[i].length);
		EXPECT_EQ(e[i].line, want[i].line);
	}
	IXT_CASE("R2Ts");
	ASSERT_EQ(ixt_dpt_next_r2t(&t, &r2t), 0);
	EXPECT_EQ(r2t.ttt, EX_RUN1);
	EXPECT_EQ(r2t.offset, 0);
	EXPECT_EQ(r2t.length, 0x8000);
	EXPECT_EQ(r2t.entry, 0);
	ASSERT_EQ(ixt_dpt_next_r2t(&t, &r2t), 0);
	EXPECT_EQ(r2t.ttt, EX_RUN2);
	EXPECT_EQ(r2t.offset, 0x8000);
	EXPECT_EQ(r2t.length, 0x8000);
	EXPECT_EQ(r2t.entry, 2);
	EXPECT_EQ(ixt_dpt_next_r2t(&t, &r2t), -ENODATA);
	EXPECT_EQ(t.outstanding, 2);
}

/* The 8 KiB Data-Outs under the one R2T: each lands where the lines say. */
TEST(example_data_out_placement)
{
	struct ixt_dpt_entry e[3];
	struct ixt_dpt_place p;
	struct ixt_dpt_r2t r2t;
	struct ixt_dpt t;
	unsigned int i;
	u32 slot = 0;

	ASSERT_TRUE(ex_init(&t, e, 3));
	while (!ixt_dpt_next_r2t(&t, &r2t))
		;
	ASSERT_EQ(ixt_dpt_ttt_slot(0x00100123, 0x200, &slot), 0);
	EXPECT_EQ(slot, 0x123);
	for (i = 0; i < ARRAY_SIZE(ex_pdus); i++) {
		IXT_CASE("Data-Out %u", i + 1);
		ASSERT_EQ(ixt_dpt_place(&t, 0x00100123, ex_pdus[i].offset,
					ex_pdus[i].len, ex_pdus[i].final, &p), 0);
		EXPECT_EQ(p.addr, ex_pdus[i].addr);
		EXPECT_EQ(p.contig, ex_pdus[i].len);
		EXPECT_EQ(p.entry, ex_pdus[i].entry);
		EXPECT_EQ(p.run, 0);
		EXPECT_EQ(ex_lines[p.line].addr + p.line_off, p.addr);
		EXPECT_TRUE(p.solicited);
		ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
		EXPECT_EQ(t.outstanding, ex_pdus[i].final ? 0 : 1);
	}
	EXPECT_TRUE(ixt_dpt_is_complete(&t));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(e[i].received, e[i].length);
}

/* MaxOutstandingR2T=1 (the default): the next R2T on each completion. */
TEST(example_one_outstanding_r2t)
{
	struct ixt_dpt_entry e[4];
	struct ixt_dpt_place p;
	struct ixt_dpt_r2t r2t;
	struct ixt_dpt t;
	unsigned int i, r = 0;

	ASSERT_TRUE(ex_init_32k(&t, e, 1));
	for (i = 0; i < ARRAY_SIZE(ex_pdus); i++) {
		IXT_CASE("Data-Out %u", i + 1);
		if (i == 0 || ex_pdu_final_32k(i - 1)) {
			ASSERT_EQ(ixt_dpt_next_r2t(&t, &r2t), 0);
			EXPECT_EQ(r2t.ttt, r ? EX_RUN2 : EX_RUN1);
			r++;
			EXPECT_EQ(ixt_dpt_next_r2t(&t, &r2t),
				  r < 2 ? -EAGAIN : -ENODATA);
		}
		ASSERT_EQ(ixt_dpt_place(&t, ex_pdu_ttt_32k(i), ex_pdus[i].offset,
					ex_pdus[i].len, ex_pdu_final_32k(i), &p),
			  0);
		EXPECT_EQ(p.addr, ex_pdus[i].addr);
		EXPECT_EQ(p.run, r == 1 ? 0 : 2);
		ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
	}
	EXPECT_EQ(ixt_dpt_next_r2t(&t, &r2t), -ENODATA);
	EXPECT_TRUE(ixt_dpt_is_complete(&t));
}

/* Data-Outs that straddle a line boundary go into both pieces. */
TEST(example_data_out_across_lines)
{
	struct ixt_dpt_entry e[3];
	struct ixt_dpt_place p;
	struct ixt_dpt_r2t r2t;
	struct ixt_dpt t;

	ASSERT_TRUE(ex_init(&t, e, 1));
	ASSERT_EQ(ixt_dpt_next_r2t(&t, &r2t), 0);
	ASSERT_EQ(ixt_dpt_place(&t, 0x00100123, 0, 0x3000, false, &p), 0);
	ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
	IXT_CASE("lines 0 and 1");
	ASSERT_EQ(ixt_dpt_place(&t, 0x00100123, 0x3000, 0x2000, false, &p),
		  0);
	EXPECT_EQ(p.entry, 0);
	EXPECT_EQ(p.addr, 0x57000);
	EXPECT_EQ(p.contig, 0x1000);
	expect_two_pieces(&t, &p, 0x57000, 0x1000, 0x68000);
	ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
	EXPECT_EQ(e[0].received, 0x4000);
	EXPECT_EQ(e[1].received, 0x1000);
	IXT_CASE("all of line 1 and into line 2, with F at the run's end");
	EXPECT_EQ(ixt_dpt_place(&t, 0x00100123, 0x5000, 0xb000, false, &p),
		  -EPROTO);
	ASSERT_EQ(ixt_dpt_place(&t, 0x00100123, 0x5000, 0xb000, true, &p), 0);
	EXPECT_EQ(p.entry, 1);
	EXPECT_EQ(p.addr, 0x69000);
	EXPECT_EQ(p.contig, 0x7000);
	EXPECT_EQ(ixt_dpt_nr_pieces(&t, p.offset, p.len), 2);
	ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
	EXPECT_EQ(e[1].received, 0x8000);
	EXPECT_EQ(e[2].received, 0x4000);
	EXPECT_EQ(t.outstanding, 0);
	EXPECT_TRUE(ixt_dpt_is_complete(&t));
}

/* The walker over the buffer: one piece per line, for SG lists and Data-In. */
TEST(example_walk_line_by_line)
{
	static const struct {
		u32 offset, len, nr;
		struct { u32 addr, len, line; } pc[3];
	} cases[] = {
		{ 0, 0x10000, 3, { { 0x54000, 0x4000, 0 },
				   { 0x68000, 0x8000, 1 },
				   { 0x80000, 0x4000, 2 } } },
		{ 0x2000, 0x4000, 2, { { 0x56000, 0x2000, 0 },
				       { 0x68000, 0x2000, 1 } } },
		{ 0xbfff, 2, 2, { { 0x6ffff, 1, 1 }, { 0x80000, 1, 2 } } },
		{ 0x5000, 0x1000, 1, { { 0x69000, 0x1000, 1 } } },
		{ 0xffff, 1, 1, { { 0x83fff, 1, 2 } } },
		{ 0x8000, 0, 0, { } },
	};
	struct ixt_dpt_entry e[3];
	struct ixt_dpt_piece pc;
	struct ixt_dpt_iter it;
	struct ixt_dpt t;
	unsigned int i, n;

	ASSERT_TRUE(ex_init(&t, e, 1));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		IXT_CASE("walk %u", i);
		EXPECT_EQ(ixt_dpt_nr_pieces(&t, cases[i].offset, cases[i].len),
			  cases[i].nr);
		ASSERT_EQ(ixt_dpt_iter_init(&it, &t, cases[i].offset,
					    cases[i].len), 0);
		for (n = 0; ixt_dpt_iter_next(&it, &pc); n++) {
			ASSERT_TRUE(n < cases[i].nr);
			EXPECT_EQ(pc.addr, cases[i].pc[n].addr);
			EXPECT_EQ(pc.len, cases[i].pc[n].len);
			EXPECT_EQ(pc.line, cases[i].pc[n].line);
			EXPECT_EQ(ex_lines[pc.line].addr + pc.line_off,
				  pc.addr);
		}
		EXPECT_EQ(n, cases[i].nr);
	}
	IXT_CASE("outside");
	EXPECT_EQ(ixt_dpt_iter_init(&it, &t, 0x10000, 1), -EPROTO);
	EXPECT_EQ(ixt_dpt_iter_init(&it, &t, 0xffff, 2), -EPROTO);
	EXPECT_EQ(ixt_dpt_iter_init(&it, &t, 0xfffff000, 0x2000), -EPROTO);
	EXPECT_EQ(ixt_dpt_iter_init(&it, &t, 0x10001, 0), -EPROTO);
	EXPECT_EQ(ixt_dpt_nr_pieces(&t, 0x10000, 1), 0);
	EXPECT_EQ(ixt_dpt_nr_pieces(&t, 0xfffff000, 0x2000), 0);
}

/* ---- Hostile Data-Out PDUs on the example's table ------------------ */

/*
 * The example's 32 KiB table, the R2T of run 1 sent (run 2's waits),
 * Data-Out 1 committed.
 */
static bool hostile_init(struct ixt_dpt *t, struct ixt_dpt_entry *e)
{
	struct ixt_dpt_place p;
	struct ixt_dpt_r2t r2t;

	return ex_init_32k(t, e, 1) && !ixt_dpt_next_r2t(t, &r2t) &&
	       !ixt_dpt_place(t, EX_RUN1, 0, 0x2000, false, &p) &&
	       !ixt_dpt_commit(t, &p);
}

TEST(hostile_data_out_rejected)
{
	static const struct {
		const char *what;
		u32 ttt, offset, len;
		bool final;
	} cases[] = {
		{ "reserved tag", 0xffffffff, 0x2000, 0x2000, false },
		{ "other slot", 0x00100124, 0x2000, 0x2000, false },
		{ "slot 0", 0x00100000, 0x2000, 0x2000, false },
		{ "entry inside the run", 0x00110123, 0x4000, 0x2000, false },
		{ "run not solicited yet", EX_RUN2, 0x8000, 0x2000, false },
		{ "entry beyond the table", 0x00140123, 0xc000, 0x2000,
		  false },
		{ "entry below the base", 0x000f0123, 0x2000, 0x2000, false },
		{ "entry field all ones", 0xffff0123, 0x2000, 0x2000, false },
		{ "duplicate", EX_RUN1, 0x0000, 0x2000, false },
		{ "overlap", EX_RUN1, 0x1000, 0x2000, false },
		{ "gap", EX_RUN1, 0x3000, 0x1000, false },
		{ "gap, in the next line", EX_RUN1, 0x4000, 0x2000, false },
		{ "after the run", EX_RUN1, 0x8000, 0x2000, false },
		{ "runs past the run", EX_RUN1, 0x2000, 0x6001, true },
		{ "runs past the run, no F", EX_RUN1, 0x2000, 0x6001,
		  false },
		{ "runs past the buffer", EX_RUN1, 0x2000, 0xe001, true },
		{ "offset + len wraps", EX_RUN1, 0x2000, 0xfffff000, true },
		{ "offset near 2^32", EX_RUN1, 0xfffff000, 0x2000, true },
		{ "empty", EX_RUN1, 0x2000, 0, false },
		{ "empty, final", EX_RUN1, 0x2000, 0, true },
		{ "F at the end of an entry, not of the run", EX_RUN1,
		  0x2000, 0x2000, true },
		{ "F missing at the end of the run", EX_RUN1, 0x2000,
		  0x6000, false },
		{ "out of order in the run", EX_RUN1, 0x6000, 0x2000, true },
	};
	struct ixt_dpt_place p, keep;
	struct ixt_dpt_entry e[4];
	struct ixt_dpt t, before;
	unsigned int i;

	ASSERT_TRUE(hostile_init(&t, e));
	memcpy(&before, &t, sizeof(t));
	memset(&keep, 0x5a, sizeof(keep));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		IXT_CASE("%s", cases[i].what);
		memcpy(&p, &keep, sizeof(p));
		EXPECT_EQ(ixt_dpt_place(&t, cases[i].ttt, cases[i].offset,
					cases[i].len, cases[i].final, &p),
			  -EPROTO);
		EXPECT_TRUE(!memcmp(&p, &keep, sizeof(p)));
		EXPECT_TRUE(!memcmp(&t, &before, sizeof(t)));
	}
	IXT_CASE("the right one still goes in, across the line");
	ASSERT_EQ(ixt_dpt_place(&t, EX_RUN1, 0x2000, 0x6000, true, &p), 0);
	EXPECT_EQ(p.addr, 0x56000);
	EXPECT_EQ(p.contig, 0x2000);
	ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
	EXPECT_EQ(t.outstanding, 0);
	IXT_CASE("a line's entry done is not the run done");
	EXPECT_EQ(e[0].received, 0x4000);
	EXPECT_EQ(e[1].received, 0x4000);
	EXPECT_EQ(e[2].received, 0);
}

TEST(hostile_after_completion)
{
	struct ixt_dpt_entry e[3];
	struct ixt_dpt_place p;
	struct ixt_dpt_r2t r2t;
	struct ixt_dpt t;
	unsigned int i;

	ASSERT_TRUE(ex_init(&t, e, 3));
	while (!ixt_dpt_next_r2t(&t, &r2t))
		;
	for (i = 0; i < ARRAY_SIZE(ex_pdus); i++) {
		ASSERT_EQ(ixt_dpt_place(&t, 0x00100123, ex_pdus[i].offset,
					ex_pdus[i].len, ex_pdus[i].final, &p), 0);
		ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
	}
	for (i = 0; i < ARRAY_SIZE(ex_pdus); i++) {
		IXT_CASE("replay of Data-Out %u", i + 1);
		EXPECT_EQ(ixt_dpt_place(&t, 0x00100123, ex_pdus[i].offset,
					ex_pdus[i].len, ex_pdus[i].final, &p),
			  -EPROTO);
	}
	IXT_CASE("one more byte");
	EXPECT_EQ(ixt_dpt_place(&t, 0x00100123, 0x10000, 1, true, &p),
		  -EPROTO);
	EXPECT_EQ(ixt_dpt_place_unsol(&t, 0, 1, true, &p), -EPROTO);
}

/* A new command in the same slot with another base: old tags miss. */
TEST(stale_ttt_of_previous_command)
{
	struct ixt_dpt_geom g = ex_geom_burst(3, EX_BURST_32K);
	struct ixt_dpt_entry e[4];
	struct ixt_dpt_place p;
	struct ixt_dpt_r2t r2t;
	struct ixt_dpt t;
	unsigned int i;

	g.ttt_base = 0x13;
	ASSERT_EQ(ixt_dpt_init(&t, &g, ex_lines, 3, e, 4, NULL), 0);
	while (!ixt_dpt_next_r2t(&t, &r2t))
		;
	for (i = 0; i < ARRAY_SIZE(ex_pdus); i++) {
		IXT_CASE("old Data-Out %u", i + 1);
		EXPECT_EQ(ixt_dpt_place(&t, ex_pdu_ttt_32k(i), ex_pdus[i].offset,
					ex_pdus[i].len, ex_pdu_final_32k(i), &p),
			  -EPROTO);
	}
	IXT_CASE("new tag");
	EXPECT_EQ(ixt_dpt_place(&t, 0x00130123, 0, 0x2000, false, &p), 0);
	g.ttt_base = 0xfffe;
	ASSERT_EQ(ixt_dpt_init(&t, &g, ex_lines, 3, e, 4, NULL), 0);
	IXT_CASE("base wraps");
	EXPECT_EQ(ixt_dpt_ttt(&t, 0), 0xfffe0123);
	EXPECT_EQ(ixt_dpt_ttt(&t, 2), 0x00000123);
	while (!ixt_dpt_next_r2t(&t, &r2t))
		;
	EXPECT_EQ(ixt_dpt_place(&t, 0x00000123, 0x8000, 0x8000, true, &p), 0);
	EXPECT_EQ(p.addr, 0x6c000);
	EXPECT_EQ(p.run, 2);
}

/* Committing @p, a placement misused, warns once and fails. */
static void commit_refused(struct ixt_dpt *t, const struct ixt_dpt_place *p)
{
	int ret = 0;

	EXPECT_WARNS(1, ret = ixt_dpt_commit(t, p));
	EXPECT_EQ(ret, -EINVAL);
}

TEST(commit_misuse_warns)
{
	struct ixt_dpt_entry e[3];
	struct ixt_dpt_place p, bad;
	struct ixt_dpt_r2t r2t;
	struct ixt_dpt t;

	ASSERT_TRUE(ex_init(&t, e, 1));
	ASSERT_EQ(ixt_dpt_next_r2t(&t, &r2t), 0);
	ASSERT_EQ(ixt_dpt_place(&t, 0x00100123, 0, 0x2000, false, &p), 0);
	ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
	IXT_CASE("committed twice");
	commit_refused(&t, &p);
	IXT_CASE("entry out of range");
	bad = p;
	bad.entry = 3;
	commit_refused(&t, &bad);
	IXT_CASE("longer than the run");
	bad = p;
	bad.offset = 0x2000;
	bad.len = 0xe001;
	commit_refused(&t, &bad);
	IXT_CASE("run after the entry");
	bad = p;
	bad.offset = 0x2000;
	bad.run = 1;
	commit_refused(&t, &bad);
	IXT_CASE("solicited flag wrong");
	bad = p;
	bad.offset = 0x2000;
	bad.solicited = false;
	commit_refused(&t, &bad);
	EXPECT_EQ(e[0].received, 0x2000);
	EXPECT_EQ(t.received, 0x2000);
}

/* ---- DataPDUInOrder=No ---------------------------------------------- */

/*
 * The example's table out of order, with MaxBurstLength @max_burst, its
 * tracker holding @max islands, every R2T sent.
 */
static bool ooo_init(struct ixt_dpt *t, struct ixt_dpt_entry *e,
		     u32 max_burst, struct ixt_ranges *rs,
		     struct ixt_range *range, u32 max)
{
	struct ixt_dpt_geom g = ex_geom_burst(3, max_burst);
	u32 nr_lines, nr_entries;
	struct ixt_dpt_r2t r2t;

	g.data_pdu_in_order = false;
	if (ixt_dpt_count(&g, &nr_lines, &nr_entries) ||
	    ixt_ranges_init(rs, range, max, g.xfer_len) ||
	    ixt_dpt_init(t, &g, ex_lines, 3, e, nr_entries, rs))
		return false;
	while (!ixt_dpt_next_r2t(t, &r2t))
		;
	return t->next_r2t == nr_entries;
}

/*
 * The example's PDUs in the 32 KiB table, shuffled within and across the
 * two R2Ts, F on the one that completes each run.
 */
TEST(example_data_out_out_of_order)
{
	static const struct {
		u32 ttt, offset, addr;
		bool final;
	} order[] = {
		{ EX_RUN2, 0x8000, 0x6c000, false },
		{ EX_RUN1, 0x2000, 0x56000, false },
		{ EX_RUN2, 0xe000, 0x82000, false },
		{ EX_RUN1, 0x4000, 0x68000, false },
		{ EX_RUN1, 0x0000, 0x54000, false },
		{ EX_RUN2, 0xa000, 0x6e000, false },
		{ EX_RUN2, 0xc000, 0x80000, true },
		{ EX_RUN1, 0x6000, 0x6a000, true },
	};
	struct ixt_range range[4];
	struct ixt_dpt_entry e[4];
	struct ixt_dpt_place p;
	struct ixt_ranges rs;
	struct ixt_dpt t;
	unsigned int i, open = 2;

	ASSERT_TRUE(ooo_init(&t, e, EX_BURST_32K, &rs, range,
			     ARRAY_SIZE(range)));
	for (i = 0; i < ARRAY_SIZE(order); i++) {
		IXT_CASE("Data-Out %u", i + 1);
		EXPECT_EQ(ixt_dpt_place(&t, order[i].ttt, order[i].offset,
					0x2000, !order[i].final, &p), -EPROTO);
		ASSERT_EQ(ixt_dpt_place(&t, order[i].ttt, order[i].offset,
					0x2000, order[i].final, &p), 0);
		EXPECT_EQ(p.addr, order[i].addr);
		EXPECT_EQ(p.contig, 0x2000);
		ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
		open -= order[i].final;
		EXPECT_EQ(t.outstanding, open);
		IXT_CASE("Data-Out %u again", i + 1);
		EXPECT_EQ(ixt_dpt_place(&t, order[i].ttt, order[i].offset,
					0x2000, order[i].final, &p), -EPROTO);
	}
	EXPECT_TRUE(ixt_dpt_is_complete(&t));
	EXPECT_TRUE(ixt_ranges_complete(&rs));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(e[i].received, e[i].length);
}

TEST(hostile_out_of_order)
{
	static const struct {
		const char *what;
		u32 ttt, offset, len;
		bool final;
	} cases[] = {
		{ "duplicate", EX_RUN1, 0x6000, 0x2000, false },
		{ "overlaps the start", EX_RUN1, 0x5000, 0x2000, false },
		{ "runs past the run", EX_RUN1, 0x7000, 0x2000, false },
		{ "covers it", EX_RUN1, 0x4000, 0x4000, false },
		{ "F, run not complete", EX_RUN1, 0x4000, 0x2000, true },
		{ "before the run", EX_RUN2, 0x7000, 0x2000, false },
		{ "after the run", EX_RUN1, 0x8000, 0x2000, false },
		{ "entry inside the run", 0x00110123, 0x4000, 0x2000, false },
		{ "wraps", EX_RUN1, 0x2000, 0xffffc000, false },
		{ "empty", EX_RUN1, 0x4000, 0, false },
		{ "other slot", 0x00100124, 0x4000, 0x2000, false },
	};
	struct ixt_range range[4];
	struct ixt_dpt_entry e[4];
	struct ixt_dpt_place p;
	struct ixt_ranges rs;
	struct ixt_dpt t;
	unsigned int i;

	ASSERT_TRUE(ooo_init(&t, e, EX_BURST_32K, &rs, range,
			     ARRAY_SIZE(range)));
	ASSERT_EQ(ixt_dpt_place(&t, EX_RUN1, 0x6000, 0x2000, false, &p), 0);
	ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		IXT_CASE("%s", cases[i].what);
		EXPECT_EQ(ixt_dpt_place(&t, cases[i].ttt, cases[i].offset,
					cases[i].len, cases[i].final, &p),
			  -EPROTO);
	}
	IXT_CASE("F on the PDU that completes the run, across the line");
	ASSERT_EQ(ixt_dpt_place(&t, EX_RUN1, 0x0, 0x5000, false, &p), 0);
	EXPECT_EQ(p.contig, 0x4000);
	ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
	EXPECT_EQ(ixt_dpt_place(&t, EX_RUN1, 0x5000, 0x1000, false, &p),
		  -EPROTO);
	ASSERT_EQ(ixt_dpt_place(&t, EX_RUN1, 0x5000, 0x1000, true, &p), 0);
	ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
	EXPECT_EQ(t.outstanding, 1);
}

/* More islands than the tracker holds: the commit fails, nothing moves. */
TEST(out_of_order_island_bound)
{
	struct ixt_dpt_entry e[3];
	struct ixt_range range[1];
	struct ixt_dpt_place p;
	struct ixt_ranges rs;
	struct ixt_dpt t;

	ASSERT_TRUE(ooo_init(&t, e, EX_BURST, &rs, range, 1));
	ASSERT_EQ(ixt_dpt_place(&t, 0x00100123, 0, 0x1000, false, &p), 0);
	ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
	ASSERT_EQ(ixt_dpt_place(&t, 0x00100123, 0x3000, 0x1000, false, &p),
		  0);
	EXPECT_EQ(ixt_dpt_commit(&t, &p), -ENOSPC);
	EXPECT_EQ(t.received, 0x1000);
	EXPECT_EQ(e[0].received, 0x1000);
	IXT_CASE("the adjacent bytes still fit");
	ASSERT_EQ(ixt_dpt_place(&t, 0x00100123, 0x1000, 0x1000, false, &p),
		  0);
	EXPECT_EQ(ixt_dpt_commit(&t, &p), 0);
	IXT_CASE("committed twice");
	commit_refused(&t, &p);
	EXPECT_EQ(t.received, 0x2000);
}

TEST(init_checks_the_tracker)
{
	struct ixt_dpt_geom g = ex_geom(1);
	struct ixt_range range[2];
	struct ixt_dpt_entry e[3];
	struct ixt_ranges rs;
	struct ixt_dpt t;

	ASSERT_EQ(ixt_ranges_init(&rs, range, 2, g.xfer_len), 0);
	IXT_CASE("in order: no tracker");
	EXPECT_EQ(ixt_dpt_init(&t, &g, ex_lines, 3, e, 3, &rs), -EINVAL);
	g.data_pdu_in_order = false;
	IXT_CASE("out of order: a tracker");
	EXPECT_EQ(ixt_dpt_init(&t, &g, ex_lines, 3, e, 3, NULL), -EINVAL);
	IXT_CASE("tracker of the wrong size");
	ASSERT_EQ(ixt_ranges_init(&rs, range, 2, g.xfer_len - 1), 0);
	EXPECT_EQ(ixt_dpt_init(&t, &g, ex_lines, 3, e, 3, &rs), -EINVAL);
	IXT_CASE("tracker not empty");
	ASSERT_EQ(ixt_ranges_init(&rs, range, 2, g.xfer_len), 0);
	ASSERT_EQ(ixt_ranges_add(&rs, 0, 1), 0);
	EXPECT_EQ(ixt_dpt_init(&t, &g, ex_lines, 3, e, 3, &rs), -EINVAL);
	IXT_CASE("good");
	ASSERT_EQ(ixt_ranges_init(&rs, range, 2, g.xfer_len), 0);
	EXPECT_EQ(ixt_dpt_init(&t, &g, ex_lines, 3, e, 3, &rs), 0);
	EXPECT_TRUE(t.ranges == &rs);
}

/* ---- Unsolicited data ------------------------------------------------ */

/*
 * 64 KiB in 32 KiB lines, byte 0 at 0x7000 of the first: 4 KiB of line 0,
 * then line 1 from 0x1000. FirstBurstLength 8 KiB, InitialR2T=No.
 */
static const struct ixt_dpt_line unsol_lines[] = {
	{ .addr = 0x100000 }, { .addr = 0x300000 }, { .addr = 0x200000 },
};

static struct ixt_dpt_geom unsol_geom(void)
{
	return (struct ixt_dpt_geom) {
		.xfer_len = 0x10000,
		.first_off = 0x7000,
		.unsol_len = 0x2000,
		.max_burst = 0x4000,
		.max_r2t = 2,
		.slot = 5,
		.ttt_base = 0,
		.line_shift = 15,
		.data_pdu_in_order = true,
	};
}

TEST(unsol_layout_and_placement)
{
	static const struct { u32 addr, offset, length; } want[] = {
		{ 0x107000, 0x0000, 0x1000 },	/* unsolicited, line 0 */
		{ 0x300000, 0x1000, 0x1000 },	/* unsolicited, line 1 */
		{ 0x301000, 0x2000, 0x4000 },	/* R2T 1: MaxBurstLength */
		{ 0x305000, 0x6000, 0x3000 },	/* R2T 2: to line 1's end */
		{ 0x200000, 0x9000, 0x1000 },	/* R2T 2: in line 2 */
		{ 0x201000, 0xa000, 0x4000 },	/* R2T 3 */
		{ 0x205000, 0xe000, 0x2000 },	/* R2T 4: end of buffer */
	};
	struct ixt_dpt_geom g = unsol_geom();
	struct ixt_dpt_entry e[ARRAY_SIZE(want)];
	struct ixt_dpt_place p;
	struct ixt_dpt_r2t r2t;
	u32 nr_lines, nr_entries;
	struct ixt_dpt t;
	unsigned int i;

	ASSERT_EQ(ixt_dpt_count(&g, &nr_lines, &nr_entries), 0);
	ASSERT_EQ(nr_lines, 3);
	ASSERT_EQ(nr_entries, ARRAY_SIZE(want));
	ASSERT_EQ(ixt_dpt_init(&t, &g, unsol_lines, 3, e, nr_entries, NULL),
		  0);
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		IXT_CASE("entry %u", i);
		EXPECT_EQ(e[i].addr, want[i].addr);
		EXPECT_EQ(e[i].offset, want[i].offset);
		EXPECT_EQ(e[i].length, want[i].length);
	}
	EXPECT_EQ(t.first_r2t, 2);

	IXT_CASE("no tag for unsolicited entries");
	ASSERT_EQ(ixt_dpt_next_r2t(&t, &r2t), 0);
	EXPECT_EQ(r2t.ttt, 0x00020005);
	EXPECT_EQ(ixt_dpt_place(&t, 0x00000005, 0, 0x1000, true, &p), -EPROTO);
	EXPECT_EQ(ixt_dpt_place(&t, 0x00010005, 0x1000, 0x1000, true, &p),
		  -EPROTO);

	IXT_CASE("immediate data across lines");
	EXPECT_EQ(ixt_dpt_place_unsol(&t, 0, 0x1800, true, &p), -EPROTO);
	ASSERT_EQ(ixt_dpt_place_unsol(&t, 0, 0x1800, false, &p), 0);
	EXPECT_EQ(p.addr, 0x107000);
	EXPECT_EQ(p.contig, 0x1000);
	EXPECT_FALSE(p.solicited);
	expect_two_pieces(&t, &p, 0x107000, 0x1000, 0x300000);
	ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
	EXPECT_EQ(e[0].received, 0x1000);
	EXPECT_EQ(e[1].received, 0x800);
	EXPECT_EQ(t.unsol_received, 0x1800);

	IXT_CASE("hostile unsolicited Data-Out");
	EXPECT_EQ(ixt_dpt_place_unsol(&t, 0, 0x800, false, &p), -EPROTO);
	EXPECT_EQ(ixt_dpt_place_unsol(&t, 0x1000, 0x1000, true, &p), -EPROTO);
	EXPECT_EQ(ixt_dpt_place_unsol(&t, 0x1c00, 0x400, true, &p), -EPROTO);
	EXPECT_EQ(ixt_dpt_place_unsol(&t, 0x1800, 0x1000, true, &p), -EPROTO);
	EXPECT_EQ(ixt_dpt_place_unsol(&t, 0x1800, 0x800, false, &p), -EPROTO);
	EXPECT_EQ(ixt_dpt_place_unsol(&t, 0x1800, 0x400, true, &p), -EPROTO);
	EXPECT_EQ(ixt_dpt_place_unsol(&t, 0x1800, 0, false, &p), -EPROTO);
	EXPECT_EQ(ixt_dpt_place_unsol(&t, 0x1800, 0xfffff000, true, &p),
		  -EPROTO);

	IXT_CASE("last unsolicited Data-Out");
	ASSERT_EQ(ixt_dpt_place_unsol(&t, 0x1800, 0x800, true, &p), 0);
	EXPECT_EQ(p.addr, 0x300800);
	EXPECT_EQ(p.contig, 0x800);
	ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
	EXPECT_EQ(e[1].received, 0x1000);
	EXPECT_EQ(t.received, 0x2000);
	EXPECT_EQ(ixt_dpt_place_unsol(&t, 0x2000, 0x800, true, &p), -EPROTO);
	EXPECT_EQ(t.outstanding, 1);

	IXT_CASE("a run over two lines, its last piece short");
	ASSERT_EQ(ixt_dpt_next_r2t(&t, &r2t), 0);
	EXPECT_EQ(r2t.ttt, 0x00030005);
	EXPECT_EQ(r2t.offset, 0x6000);
	EXPECT_EQ(r2t.length, 0x4000);
	EXPECT_EQ(ixt_dpt_next_r2t(&t, &r2t), -EAGAIN);
	ASSERT_EQ(ixt_dpt_place(&t, 0x00030005, 0x6000, 0x2000, false, &p),
		  0);
	EXPECT_EQ(p.run, 3);
	ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
	ASSERT_EQ(ixt_dpt_place(&t, 0x00030005, 0x8000, 0x2000, true, &p), 0);
	EXPECT_EQ(p.entry, 3);
	EXPECT_EQ(p.addr, 0x307000);
	EXPECT_EQ(p.contig, 0x1000);
	ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
	EXPECT_EQ(e[3].received, 0x3000);
	EXPECT_EQ(e[4].received, 0x1000);
	EXPECT_EQ(t.outstanding, 1);
	IXT_CASE("the next run starts after it");
	ASSERT_EQ(ixt_dpt_next_r2t(&t, &r2t), 0);
	EXPECT_EQ(r2t.ttt, 0x00050005);
	EXPECT_EQ(r2t.offset, 0xa000);
	ASSERT_EQ(ixt_dpt_next_r2t(&t, &r2t), -EAGAIN);
	EXPECT_EQ(ixt_dpt_place(&t, 0x00040005, 0x9000, 0x1000, true, &p),
		  -EPROTO);
}

/*
 * Entries that end one byte short of their line, at the end of the
 * unsolicited data and at the end of the buffer: the next entry starts in
 * the same line.
 */
TEST(entries_one_byte_short_of_line)
{
	static const struct ixt_dpt_line lines[] = {
		{ .addr = 0x10000 }, { .addr = 0x40000 },
	};
	struct ixt_dpt_geom g = {
		.xfer_len = 0x1eff, .first_off = 0x100,
		.unsol_len = 0xeff, .max_burst = 0x10000,
		.max_r2t = 1, .line_shift = 12, .data_pdu_in_order = true,
	};
	struct ixt_dpt_entry e[3];
	u32 nr_lines, nr_entries;
	struct ixt_dpt t;

	ASSERT_EQ(ixt_dpt_count(&g, &nr_lines, &nr_entries), 0);
	ASSERT_EQ(nr_lines, 2);
	ASSERT_EQ(nr_entries, 3);
	ASSERT_EQ(ixt_dpt_init(&t, &g, lines, 2, e, 3, NULL), 0);
	EXPECT_EQ(e[0].length, 0xeff);
	EXPECT_EQ(e[1].offset, 0xeff);
	EXPECT_EQ(e[1].length, 1);
	EXPECT_EQ(e[1].addr, 0x10fff);
	EXPECT_EQ(e[2].offset, 0xf00);
	EXPECT_EQ(e[2].length, 0xfff);
	EXPECT_EQ(e[2].addr, 0x40000);
	EXPECT_EQ(t.first_r2t, 1);
}

/* The same unsolicited data out of order: the last one sent has F. */
TEST(unsol_out_of_order)
{
	struct ixt_dpt_geom g = unsol_geom();
	struct ixt_dpt_entry e[7];
	struct ixt_range range[4];
	struct ixt_dpt_place p;
	struct ixt_ranges rs;
	struct ixt_dpt t;

	g.data_pdu_in_order = false;
	ASSERT_EQ(ixt_ranges_init(&rs, range, 4, g.xfer_len), 0);
	ASSERT_EQ(ixt_dpt_init(&t, &g, unsol_lines, 3, e, 7, &rs), 0);
	ASSERT_EQ(ixt_dpt_place_unsol(&t, 0, 0x800, false, &p), 0);
	ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
	IXT_CASE("a later PDU first");
	ASSERT_EQ(ixt_dpt_place_unsol(&t, 0x1800, 0x800, false, &p), 0);
	EXPECT_EQ(p.entry, 1);
	EXPECT_EQ(p.addr, 0x300800);
	ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
	EXPECT_EQ(e[1].received, 0x800);
	IXT_CASE("hostile");
	EXPECT_EQ(ixt_dpt_place_unsol(&t, 0x1800, 0x800, false, &p), -EPROTO);
	EXPECT_EQ(ixt_dpt_place_unsol(&t, 0x700, 0x200, false, &p), -EPROTO);
	EXPECT_EQ(ixt_dpt_place_unsol(&t, 0x800, 0x800, true, &p), -EPROTO);
	EXPECT_EQ(ixt_dpt_place_unsol(&t, 0x1f00, 0x200, false, &p), -EPROTO);
	EXPECT_EQ(ixt_dpt_place_unsol(&t, 0x800, 0x1000, false, &p), -EPROTO);
	IXT_CASE("the hole, across lines, with F");
	ASSERT_EQ(ixt_dpt_place_unsol(&t, 0x800, 0x1000, true, &p), 0);
	EXPECT_EQ(p.entry, 0);
	EXPECT_EQ(p.addr, 0x107800);
	EXPECT_EQ(p.contig, 0x800);
	ASSERT_EQ(ixt_dpt_commit(&t, &p), 0);
	EXPECT_EQ(e[0].received, 0x1000);
	EXPECT_EQ(e[1].received, 0x1000);
	EXPECT_EQ(t.unsol_received, 0x2000);
	EXPECT_EQ(ixt_dpt_place_unsol(&t, 0x1000, 1, true, &p), -EPROTO);
}

/* A read: everything "unsolicited", no R2T, the walker covers it all. */
TEST(read_table_has_no_r2t)
{
	struct ixt_dpt_geom g = unsol_geom();
	struct ixt_dpt_entry e[3];
	struct ixt_dpt_r2t r2t;
	u32 nr_lines, nr_entries;
	struct ixt_dpt t;

	g.unsol_len = g.xfer_len;
	ASSERT_EQ(ixt_dpt_count(&g, &nr_lines, &nr_entries), 0);
	ASSERT_EQ(nr_entries, 3);
	ASSERT_EQ(ixt_dpt_init(&t, &g, unsol_lines, 3, e, 3, NULL), 0);
	EXPECT_EQ(t.first_r2t, 3);
	EXPECT_EQ(ixt_dpt_next_r2t(&t, &r2t), -ENODATA);
	EXPECT_EQ(ixt_dpt_nr_pieces(&t, 0, g.xfer_len), 3);
}

#define LIM(imm, r2t, fbl) {						\
	.immediate_data = (imm), .initial_r2t = (r2t),			\
	.first_burst_length = (fbl),					\
}

TEST(unsol_len_rules)
{
	static const struct {
		const char *what;
		struct ixt_pdu_limits lim;
		u32 xfer, imm;
		bool final;
		int ret;
		u32 unsol;
	} cases[] = {
		{ "no data, F", LIM(true, true, 65536), 0x10000, 0, true,
		  0, 0 },
		{ "immediate, F", LIM(true, true, 65536), 0x10000, 0x2000,
		  true, 0, 0x2000 },
		{ "immediate = FBL", LIM(true, true, 8192), 0x10000, 0x2000,
		  true, 0, 0x2000 },
		{ "immediate > FBL", LIM(true, true, 8192), 0x10000, 0x2001,
		  true, -EPROTO, 0 },
		{ "immediate > EDTL", LIM(true, true, 65536), 0x1000, 0x1001,
		  true, -EPROTO, 0 },
		{ "ImmediateData=No", LIM(false, true, 65536), 0x10000, 1,
		  true, -EPROTO, 0 },
		{ "Data-Out under InitialR2T=Yes", LIM(true, true, 65536),
		  0x10000, 0x2000, false, -EPROTO, 0 },
		{ "InitialR2T=No, FBL < EDTL", LIM(true, false, 8192),
		  0x10000, 0x1000, false, 0, 0x2000 },
		{ "InitialR2T=No, no immediate", LIM(false, false, 8192),
		  0x10000, 0, false, 0, 0x2000 },
		{ "InitialR2T=No, EDTL < FBL", LIM(true, false, 65536),
		  0x3000, 0x1000, false, 0, 0x3000 },
		{ "InitialR2T=No, F", LIM(true, false, 8192), 0x10000,
		  0x1000, true, 0, 0x1000 },
		{ "no room for Data-Out", LIM(true, false, 8192), 0x10000,
		  0x2000, false, -EPROTO, 0 },
		{ "all sent, F missing", LIM(true, false, 65536), 0x1000,
		  0x1000, false, -EPROTO, 0 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		u32 unsol = 0xdeadbeef;

		IXT_CASE("%s", cases[i].what);
		EXPECT_EQ(ixt_dpt_unsol_len(cases[i].xfer, cases[i].imm,
					    cases[i].final, &cases[i].lim,
					    &unsol), cases[i].ret);
		if (cases[i].ret)
			EXPECT_EQ(unsol, 0xdeadbeef);
		else
			EXPECT_EQ(unsol, cases[i].unsol);
	}
}

/* ---- Tags, geometry checks ------------------------------------------ */

TEST(ttt_split)
{
	u32 slot = 0xdead, field;

	EXPECT_EQ(ixt_dpt_ttt_make(0x123, 0x11), 0x00110123);
	EXPECT_EQ(ixt_dpt_ttt_make(0x123, 0x10011), 0x00110123);
	EXPECT_EQ(ixt_dpt_ttt_make(IXT_DPT_MAX_SLOTS - 1, 0xffff),
		  0xfffffffe);
	for (field = 0; field <= IXT_DPT_TTT_ENTRY_MASK; field++)
		if (ixt_dpt_ttt_make(IXT_DPT_MAX_SLOTS - 1, field) ==
		    IXT_DPT_TTT_RESERVED)
			break;
	EXPECT_EQ(field, IXT_DPT_TTT_ENTRY_MASK + 1);

	EXPECT_EQ(ixt_dpt_ttt_slot(0x00110123, 0x124, &slot), 0);
	EXPECT_EQ(slot, 0x123);
	slot = 0xdead;
	EXPECT_EQ(ixt_dpt_ttt_slot(0x00110123, 0x123, &slot), -EPROTO);
	EXPECT_EQ(ixt_dpt_ttt_slot(0xffffffff, 0x10000, &slot), -EPROTO);
	EXPECT_EQ(ixt_dpt_ttt_slot(0x0000ffff, 0x10000, &slot), -EPROTO);
	EXPECT_EQ(ixt_dpt_ttt_slot(0x00000000, 0, &slot), -EPROTO);
	EXPECT_EQ(slot, 0xdead);
	EXPECT_EQ(ixt_dpt_ttt_slot(0xfffffffe, 0x10000, &slot), 0);
	EXPECT_EQ(slot, 0xfffe);
}

static const struct ixt_dpt_geom geom_ok = {
	.xfer_len = 0x10000, .first_off = 0x4000, .max_burst = 8192,
	.max_r2t = 1, .slot = 1, .line_shift = 15, .data_pdu_in_order = true,
};

/* ixt_dpt_count() on geom_ok changed by @change fails with @err. */
#define EXPECT_GEOM_REJECTED(err, change)				\
	do {								\
		struct ixt_dpt_geom g = geom_ok;			\
		u32 nr_lines = 0xdead, nr_entries = 0xdead;		\
									\
		IXT_CASE("%s", #change);				\
		change;							\
		EXPECT_EQ(ixt_dpt_count(&g, &nr_lines, &nr_entries), err); \
		EXPECT_EQ(nr_lines, 0xdead);				\
		EXPECT_EQ(nr_entries, 0xdead);				\
	} while (0)

TEST(geometry_rejected)
{
	u32 nr_lines, nr_entries;

	IXT_CASE("the base geometry");
	EXPECT_EQ(ixt_dpt_count(&geom_ok, &nr_lines, &nr_entries), 0);
	EXPECT_GEOM_REJECTED(-EINVAL, g.line_shift = 11; g.first_off = 0);
	EXPECT_GEOM_REJECTED(-EINVAL, g.line_shift = 31);
	EXPECT_GEOM_REJECTED(-EINVAL, g.first_off = 0x8000);
	EXPECT_GEOM_REJECTED(-EINVAL, g.xfer_len = 0);
	EXPECT_GEOM_REJECTED(-EINVAL, g.unsol_len = 0x10001);
	EXPECT_GEOM_REJECTED(-EINVAL, g.max_burst = 0);
	EXPECT_GEOM_REJECTED(-EINVAL, g.max_r2t = 0);
	EXPECT_GEOM_REJECTED(-EINVAL, g.slot = 0xffff);
	/* 65537 entries of 512 bytes. */
	EXPECT_GEOM_REJECTED(-E2BIG, g.xfer_len = 0x10001 * 512;
			     g.first_off = 0; g.max_burst = 512);
	EXPECT_GEOM_REJECTED(-E2BIG, g.xfer_len = 0xffffffff;
			     g.max_burst = 512);
}

TEST(geometry_limits_accepted)
{
	struct ixt_dpt_geom g = {
		.xfer_len = 0x10000 * 512, .max_burst = 512, .max_r2t = 65535,
		.slot = IXT_DPT_MAX_SLOTS - 1, .line_shift = 12,
		.data_pdu_in_order = true,
	};
	u32 nr_lines, nr_entries;

	IXT_CASE("65536 entries");
	EXPECT_EQ(ixt_dpt_count(&g, &nr_lines, &nr_entries), 0);
	EXPECT_EQ(nr_entries, IXT_DPT_MAX_ENTRIES);
	EXPECT_EQ(nr_lines, 0x10000 * 512 / 4096);
	IXT_CASE("4 GiB - 1 in 1 GiB lines");
	g = (struct ixt_dpt_geom) {
		.xfer_len = 0xffffffff, .first_off = (1U << 30) - 1,
		.max_burst = 0xffffff, .max_r2t = 1, .line_shift = 30,
		.data_pdu_in_order = true,
	};
	EXPECT_EQ(ixt_dpt_count(&g, &nr_lines, &nr_entries), 0);
	EXPECT_EQ(nr_lines, 5);
	IXT_CASE("room: 32 MiB in 4 KiB lines, first one partial, "
		 "bursts cutting every line");
	g = (struct ixt_dpt_geom) {
		.xfer_len = IXT_DPT_ROOM_XFER, .first_off = 1,
		.max_burst = 4096, .max_r2t = 1, .line_shift = 12,
		.data_pdu_in_order = true,
	};
	EXPECT_EQ(ixt_dpt_count(&g, &nr_lines, &nr_entries), 0);
	EXPECT_EQ(nr_entries, 2 * (IXT_DPT_ROOM_XFER / 4096));
}

TEST(init_rejects_wrong_sizes)
{
	struct ixt_dpt_geom g = ex_geom(1);
	struct ixt_dpt_line lines[3];
	struct ixt_dpt_entry e[4];
	struct ixt_dpt t;

	memcpy(lines, ex_lines, sizeof(lines));
	EXPECT_EQ(ixt_dpt_init(&t, &g, lines, 2, e, 3, NULL), -EINVAL);
	EXPECT_EQ(ixt_dpt_init(&t, &g, lines, 3, e, 2, NULL), -EINVAL);
	EXPECT_EQ(ixt_dpt_init(&t, &g, lines, 3, e, 4, NULL), -EINVAL);
	lines[2].addr = U64_MAX - 0x7fff;
	EXPECT_EQ(ixt_dpt_init(&t, &g, lines, 3, e, 3, NULL), -EINVAL);
	lines[2].addr = U64_MAX - 0x8000;
	EXPECT_EQ(ixt_dpt_init(&t, &g, lines, 3, e, 3, NULL), 0);
}

/* ---- Brute-force model ---------------------------------------------- */

/* splitmix64: a fixed seed makes every run test the same numbers. */
static u64 rng_state = 0x0dd7ab1e5eed1234ULL;

static u64 rng(void)
{
	return ixt_rng(&rng_state);
}

/* A number in [lo, hi]. */
static u32 rng_range(u32 lo, u32 hi)
{
	return ixt_rng_range(&rng_state, lo, hi);
}

/* The model, and the initiator it plays. */
#include "dpt_model.h"

TEST(random_against_model)
{
	unsigned int i, run = 0;

	ixt_model_failed = false;
	for (i = 0; i < 1500 && !ixt_model_failed; i++) {
		struct model m = { 0 };
		u64 seed = rng_state;

		model_random_geom(&m);
		if (!model_setup(&m)) {
			model_free(&m);
			continue;
		}
		run++;
		m.next_sol = m.g.unsol_len;
		IXT_CASE("seed %#llx: line %u first_off %#x xfer %#x unsol %#x burst %u r2t %u%s",
			 (unsigned long long)seed, 1U << m.g.line_shift,
			 m.g.first_off, m.g.xfer_len, m.g.unsol_len,
			 m.g.max_burst, m.g.max_r2t,
			 m.ooo ? " out of order" : "");
		model_run(&m);
		model_free(&m);
	}
	IXT_CASE("runs");
	EXPECT_TRUE(run > 1400 || ixt_model_failed);
}

/* The walker against the model on random ranges of random layouts. */
TEST(random_walk_against_model)
{
	unsigned int i, j;

	ixt_model_failed = false;
	for (i = 0; i < 300 && !ixt_model_failed; i++) {
		struct model m = { 0 };

		model_random_geom(&m);
		if (!model_setup(&m)) {
			model_free(&m);
			continue;
		}
		for (j = 0; j < 50; j++) {
			u32 off = rng_range(0, m.g.xfer_len);
			u32 len = rng_range(0, m.g.xfer_len - off);
			struct ixt_dpt_piece pc;
			struct ixt_dpt_iter it;
			u32 n = 0, at = off;

			IXT_CASE("walk %#x+%#x of %#x", off, len,
				 m.g.xfer_len);
			MASSERT_EQ(ixt_dpt_iter_init(&it, &m.t, off, len), 0);
			while (ixt_dpt_iter_next(&it, &pc)) {
				MEXPECT_EQ(pc.offset, at);
				MEXPECT_EQ(pc.addr, model_addr(&m, at));
				MEXPECT_EQ(pc.len,
					   min(model_line_room(&m, at),
					       off + len - at));
				at += pc.len;
				n++;
			}
			MEXPECT_EQ(at, off + len);
			MEXPECT_EQ(n, ixt_dpt_nr_pieces(&m.t, off, len));
			MEXPECT_EQ(ixt_dpt_iter_init(&it, &m.t, off,
						     m.g.xfer_len - off + 1),
				   -EPROTO);
		}
		model_free(&m);
	}
}
