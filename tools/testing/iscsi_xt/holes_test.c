// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/iscsi_xt/holes.c: the sequence-number queue
 * (in order, reversed, holes closing in the middle and at the head, one
 * batch per closed hole with exact per-kind counts, window edges, the
 * hard bound, duplicates, wrap-around at 2^32) and the byte-range tracker
 * (fill orders, overlaps, out-of-range, overflow, zero length, the island
 * bound). Tables first, then random runs with fixed seeds against
 * brute-force models.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/errno.h>
#include <linux/kernel.h>
#include <iscsi_xt/holes.h>

#include "ixt_test.h"

/* Starting numbers every sequence-number table runs from. */
static const u32 starts[] = { 0, 1, 0x7ffffffe, 0xfffffff0, 0xfffffffe,
			      0xffffffff };

/* splitmix64: a fixed seed makes every run test the same numbers. */
static u64 rng_state;

static u64 rng(void)
{
	return ixt_rng(&rng_state);
}

/* A number in [0, n). */
static u32 rng_below(u32 n)
{
	return n ? (u32)(rng() % n) : 0;
}

/* The queue's items, and the models the random tests check against. */
#include "holes_model.h"

/* Pops @nr nodes, which must be numbered @first, @first + 1, ... */
static bool pop_run(struct ixt_snq *q, u32 first, u32 nr)
{
	u32 i;

	for (i = 0; i < nr; i++) {
		struct ixt_snq_node *node = ixt_snq_pop(q);

		if (!EXPECT_TRUE(node) ||
		    !EXPECT_EQ(ixt_snq_node_sn(node), first + i))
			return false;
	}
	return EXPECT_TRUE(!ixt_snq_pop(q));
}

/* One insert of a table: number as an offset from the start, kind, result. */
struct snq_step {
	u32 off;
	u8 kind;
	int ret;
	u32 holes;
	u32 count[IXT_SNQ_NR_KINDS];
};

#define HELD(o, k, h)	{ .off = (o), .kind = (k), .holes = (h) }
#define REFUSED(o, k, err, h) \
	{ .off = (o), .kind = (k), .ret = (err), .holes = (h) }
#define READY(o, k, nr, h, ...) \
	{ .off = (o), .kind = (k), .ret = (nr), .holes = (h), \
	  .count = { __VA_ARGS__ } }

#define SNQ_MAX_STEPS	12

struct snq_case {
	const char *name;
	u32 nr_slots;
	struct snq_step step[SNQ_MAX_STEPS];
	unsigned int nr_steps;
};

/*
 * Every batch is popped as soon as it is reported. The counts are those
 * of the batch: all zero for an item that is held.
 */
static const struct snq_case snq_cases[] = {
	{ "in order", 8, {
		READY(0, 0, 1, 0, 1),
		READY(1, 1, 1, 0, 0, 1),
		READY(2, 2, 1, 0, 0, 0, 1),
		READY(3, 3, 1, 0, 0, 0, 0, 1),
	}, 4 },
	{ "reversed", 8, {
		HELD(7, 1, 1),
		HELD(6, 0, 1),
		HELD(5, 1, 1),
		HELD(4, 0, 1),
		HELD(3, 1, 1),
		HELD(2, 0, 1),
		HELD(1, 1, 1),
		READY(0, 2, 8, 0, 3, 4, 1),
	}, 8 },
	{ "middle holes close, then the head", 8, {
		HELD(1, 0, 1),
		HELD(3, 1, 2),
		HELD(5, 1, 3),
		HELD(2, 0, 2),
		HELD(4, 3, 1),
		READY(0, 2, 6, 0, 2, 2, 1, 1),
	}, 6 },
	{ "head hole closes first, one batch each", 8, {
		HELD(2, 0, 1),
		HELD(4, 1, 2),
		HELD(5, 1, 2),
		READY(0, 3, 1, 2, 0, 0, 0, 1),
		READY(1, 2, 2, 1, 1, 0, 1),
		READY(3, 0, 3, 0, 1, 2),
	}, 6 },
	{ "run grows at both ends", 8, {
		HELD(4, 1, 1),
		HELD(3, 1, 1),
		HELD(5, 1, 1),
		HELD(2, 1, 1),
		HELD(6, 1, 1),
		READY(0, 0, 1, 1, 1),
		READY(1, 0, 6, 0, 1, 5),
	}, 7 },
	{ "every other, then the gaps from the top", 8, {
		HELD(1, 0, 1),
		HELD(3, 0, 2),
		HELD(5, 0, 3),
		HELD(7, 0, 4),
		HELD(6, 1, 3),
		HELD(4, 1, 2),
		HELD(2, 1, 1),
		READY(0, 1, 8, 0, 4, 4),
	}, 8 },
	{ "ring of one", 1, {
		READY(0, 0, 1, 0, 1),
		REFUSED(2, 0, -ENOSPC, 0),
		READY(1, 3, 1, 0, 0, 0, 0, 1),
	}, 3 },
	{ "ring of two: the last slot, then the bound", 2, {
		HELD(1, 2, 1),
		REFUSED(2, 2, -ENOSPC, 1),
		REFUSED(1, 2, -EEXIST, 1),
		READY(0, 1, 2, 0, 0, 1, 1),
		REFUSED(0, 1, -EALREADY, 0),
		HELD(3, 0, 1),
	}, 6 },
	{ "duplicates of held and of delivered", 8, {
		HELD(2, 0, 1),
		REFUSED(2, 1, -EEXIST, 1),
		READY(0, 0, 1, 1, 1),
		REFUSED(0, 0, -EALREADY, 1),
		READY(1, 0, 2, 0, 2),
		REFUSED(2, 0, -EALREADY, 0),
		REFUSED(0xffffffff, 0, -EALREADY, 0),
		REFUSED(0x80000002, 0, -ENOSPC, 0),
	}, 8 },
};

static void run_snq_case(const struct snq_case *c, u32 start)
{
	struct ixt_snq_node *slot[16] = { NULL };
	struct item items[SNQ_MAX_STEPS];
	struct ixt_snq q;
	unsigned int i, k;

	ASSERT_EQ(ixt_snq_init(&q, slot, c->nr_slots, start), 0);
	for (i = 0; i < c->nr_steps; i++) {
		const struct snq_step *s = &c->step[i];
		struct ixt_snq_batch batch;
		int ret;

		IXT_CASE("%s, start %#x, step %u", c->name, start, i);
		ret = ixt_snq_insert(&q, &items[i].node, start + s->off,
				     s->kind, &batch);
		ASSERT_EQ(ret, s->ret);
		ASSERT_EQ(ixt_snq_holes(&q), s->holes);
		ASSERT_EQ(batch.nr, ret > 0 ? ret : 0);
		for (k = 0; k < IXT_SNQ_NR_KINDS; k++)
			ASSERT_EQ(batch.count[k], s->count[k]);
		if (ret > 0) {
			ASSERT_EQ(batch.first, start + s->off);
			ASSERT_TRUE(pop_run(&q, batch.first, batch.nr));
		}
	}
}

TEST(snq_table)
{
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(snq_cases); i++)
		for (j = 0; j < ARRAY_SIZE(starts); j++)
			run_snq_case(&snq_cases[i], starts[j]);
}

TEST(snq_in_order_long_run_across_wrap)
{
	struct ixt_snq_node *slot[4] = { NULL };
	struct item it;
	struct ixt_snq_batch b;
	struct ixt_snq q;
	u32 i, start = 0xfffffff0;

	ASSERT_EQ(ixt_snq_init(&q, slot, ARRAY_SIZE(slot), start), 0);
	for (i = 0; i < 100; i++) {
		IXT_CASE("sn %#x", start + i);
		ASSERT_EQ(ixt_snq_insert(&q, &it.node, start + i, i % 4, &b), 1);
		ASSERT_EQ(b.first, start + i);
		ASSERT_EQ(b.count[i % 4], 1);
		ASSERT_TRUE(ixt_snq_pop(&q) == &it.node);
		ASSERT_EQ(ixt_snq_expected(&q), start + i + 1);
	}
	EXPECT_EQ(ixt_snq_held(&q), 0);
	EXPECT_EQ(q.stats.old + q.stats.beyond + q.stats.dup + q.stats.full, 0);
}

/* Nodes popped without a lock drop in between keep their identity. */
TEST(snq_pop_returns_the_inserted_nodes)
{
	struct ixt_snq_node *slot[8] = { NULL };
	struct item items[8];
	struct ixt_snq q;
	u32 i, start = 0xfffffffc;

	ASSERT_EQ(ixt_snq_init(&q, slot, ARRAY_SIZE(slot), start), 0);
	for (i = 1; i < 8; i++) {
		items[i].id = i;
		ASSERT_EQ(ixt_snq_insert(&q, &items[i].node, start + i, 0,
					 NULL), 0);
	}
	EXPECT_EQ(ixt_snq_held(&q), 7);
	EXPECT_EQ(ixt_snq_ready(&q), 0);
	EXPECT_TRUE(!ixt_snq_pop(&q));
	items[0].id = 0;
	ASSERT_EQ(ixt_snq_insert(&q, &items[0].node, start, 0, NULL), 8);
	EXPECT_EQ(ixt_snq_ready(&q), 8);
	EXPECT_EQ(ixt_snq_held(&q), 0);
	for (i = 0; i < 8; i++) {
		struct item *it = to_item(ixt_snq_pop(&q));

		ASSERT_TRUE(it);
		EXPECT_EQ(it->id, i);
		EXPECT_TRUE(it == &items[i]);
	}
	EXPECT_TRUE(!ixt_snq_pop(&q));
	EXPECT_EQ(ixt_snq_expected(&q), start + 8);
}

TEST(snq_per_hole_counts)
{
	struct ixt_snq_node *slot[32] = { NULL };
	static const struct { u32 off; u8 kind; } held[] = {
		{ 3, 0 }, { 4, 1 }, { 5, 1 },		/* behind [0, 3) */
		{ 7, 2 },				/* behind [6, 7) */
		{ 20, 3 }, { 21, 3 }, { 22, 0 }, { 23, 1 },	/* [8, 20) */
	};
	static const struct ixt_snq_hole want[] = {
		{ 0, 3, 3, { 1, 2, 0, 0 } },
		{ 6, 1, 1, { 0, 0, 1, 0 } },
		{ 8, 12, 4, { 1, 1, 0, 2 } },
	};
	struct item items[ARRAY_SIZE(held) + 1];
	struct ixt_snq_hole h;
	struct ixt_snq_batch b;
	struct ixt_snq q;
	unsigned int i, j, n = 0;
	u32 start;

	for (j = 0; j < ARRAY_SIZE(starts); j++) {
		start = starts[j];
		ASSERT_EQ(ixt_snq_init(&q, slot, ARRAY_SIZE(slot), start), 0);
		EXPECT_FALSE(ixt_snq_hole_first(&q, &h));
		for (i = 0; i < ARRAY_SIZE(held); i++)
			ASSERT_EQ(ixt_snq_insert(&q, &items[i].node,
						 start + held[i].off,
						 held[i].kind, NULL), 0);
		EXPECT_EQ(ixt_snq_holes(&q), ARRAY_SIZE(want));
		EXPECT_EQ(ixt_snq_held(&q), ARRAY_SIZE(held));
		n = 0;
		for (bool ok = ixt_snq_hole_first(&q, &h); ok;
		     ok = ixt_snq_hole_next(&q, &h), n++) {
			IXT_CASE("start %#x, hole %u", start, n);
			ASSERT_TRUE(n < ARRAY_SIZE(want));
			EXPECT_EQ(h.first, start + want[n].first);
			EXPECT_EQ(h.missing, want[n].missing);
			EXPECT_EQ(h.held, want[n].held);
			for (i = 0; i < IXT_SNQ_NR_KINDS; i++)
				EXPECT_EQ(h.count[i], want[n].count[i]);
		}
		EXPECT_EQ(n, ARRAY_SIZE(want));

		/* Closing [0, 3) with 0, 1, 2: one batch of 1 + 3 at 2. */
		IXT_CASE("start %#x, closing the first hole", start);
		ASSERT_EQ(ixt_snq_insert(&q, &items[8].node, start, 0, &b), 1);
		ASSERT_TRUE(pop_run(&q, start, 1));
		ASSERT_EQ(ixt_snq_insert(&q, &items[8].node, start + 1, 0, &b),
			  1);
		ASSERT_TRUE(pop_run(&q, start + 1, 1));
		ASSERT_EQ(ixt_snq_insert(&q, &items[8].node, start + 2, 2, &b),
			  4);
		EXPECT_EQ(b.count[0], 1);
		EXPECT_EQ(b.count[1], 2);
		EXPECT_EQ(b.count[2], 1);
		EXPECT_EQ(b.count[3], 0);
		ASSERT_TRUE(pop_run(&q, start + 2, 4));
		ASSERT_TRUE(ixt_snq_hole_first(&q, &h));
		EXPECT_EQ(h.first, start + 6);
		EXPECT_EQ(h.held, 1);
		EXPECT_EQ(ixt_snq_holes(&q), 2);
	}
}

TEST(snq_window_edges)
{
	struct ixt_snq_node *slot[8] = { NULL };
	struct item it[8];
	struct ixt_snq_batch b;
	struct ixt_snq q;
	unsigned int j;
	u32 start;

	for (j = 0; j < ARRAY_SIZE(starts); j++) {
		start = starts[j];
		IXT_CASE("start %#x", start);
		ASSERT_EQ(ixt_snq_init(&q, slot, ARRAY_SIZE(slot), start), 0);
		/* [start, start + 3]: four numbers. */
		ASSERT_EQ(ixt_snq_set_max(&q, start + 3), 0);
		EXPECT_EQ(ixt_snq_insert(&q, &it[0].node, start + 4, 0, &b),
			  -ERANGE);
		EXPECT_EQ(b.nr, 0);
		EXPECT_EQ(ixt_snq_insert(&q, &it[0].node, start - 1, 0, &b),
			  -EALREADY);
		EXPECT_EQ(ixt_snq_insert(&q, &it[0].node, start + 0x80000000,
					 0, &b), -ERANGE);
		EXPECT_EQ(ixt_snq_insert(&q, &it[0].node, start + 3, 0, &b),
			  0);
		EXPECT_EQ(q.stats.beyond, 2);
		EXPECT_EQ(q.stats.old, 1);

		/* A smaller MaxCmdSN is ignored, as the initiator does. */
		EXPECT_EQ(ixt_snq_set_max(&q, start + 1), 0);
		EXPECT_EQ(q.max, start + 3);

		ASSERT_EQ(ixt_snq_insert(&q, &it[1].node, start, 0, &b), 1);
		ASSERT_EQ(ixt_snq_insert(&q, &it[2].node, start + 1, 0, &b),
			  1);
		ASSERT_EQ(ixt_snq_insert(&q, &it[3].node, start + 2, 0, &b),
			  2);
		ASSERT_TRUE(pop_run(&q, start, 4));
		/* Every number received: the window is empty, now closed. */
		EXPECT_EQ(ixt_snq_expected(&q), start + 4);
		EXPECT_EQ(ixt_snq_insert(&q, &it[4].node, start + 4, 0, &b),
			  -ERANGE);
		EXPECT_EQ(ixt_snq_insert(&q, &it[4].node, start + 3, 0, &b),
			  -EALREADY);
		/* Open it to the size of the ring; one more is a bug. */
		EXPECT_WARNS(1, EXPECT_EQ(ixt_snq_set_max(&q, start + 12),
					  -EINVAL));
		EXPECT_EQ(q.max, start + 3);
		ASSERT_EQ(ixt_snq_set_max(&q, start + 11), 0);
		EXPECT_EQ(ixt_snq_insert(&q, &it[4].node, start + 12, 0, &b),
			  -ERANGE);
		EXPECT_EQ(ixt_snq_insert(&q, &it[4].node, start + 11, 0, &b),
			  0);
		EXPECT_EQ(ixt_snq_insert(&q, &it[5].node, start + 4, 0, &b),
			  1);
		/* A ready node not popped yet still takes its slot. */
		EXPECT_EQ(ixt_snq_insert(&q, &it[6].node, start + 5, 0, &b),
			  1);
		EXPECT_EQ(ixt_snq_ready(&q), 2);
		EXPECT_EQ(ixt_snq_set_max(&q, start + 13), 0);
		EXPECT_EQ(ixt_snq_insert(&q, &it[7].node, start + 13, 0, &b),
			  -ENOSPC);
		ASSERT_TRUE(pop_run(&q, start + 4, 2));
		EXPECT_EQ(ixt_snq_insert(&q, &it[7].node, start + 13, 0, &b),
			  0);
		EXPECT_EQ(q.stats.full, 1);
		EXPECT_EQ(q.stats.beyond, 4);
		EXPECT_EQ(q.stats.old, 2);
	}
}

TEST(snq_first_window_must_precede_held_nodes)
{
	struct ixt_snq_node *slot[8] = { NULL };
	struct item it;
	struct ixt_snq q;

	ASSERT_EQ(ixt_snq_init(&q, slot, ARRAY_SIZE(slot), 100), 0);
	EXPECT_WARNS(1, EXPECT_EQ(ixt_snq_set_max(&q, 98), -EINVAL));
	EXPECT_FALSE(q.windowed);
	ASSERT_EQ(ixt_snq_insert(&q, &it.node, 107, 0, NULL), 0);
	EXPECT_WARNS(1, EXPECT_EQ(ixt_snq_set_max(&q, 101), -EINVAL));
	EXPECT_FALSE(q.windowed);
	/* An empty window is a window. */
	ASSERT_EQ(ixt_snq_init(&q, slot, ARRAY_SIZE(slot), 100), 0);
	EXPECT_EQ(ixt_snq_set_max(&q, 99), 0);
	EXPECT_EQ(ixt_snq_insert(&q, &it.node, 100, 0, NULL), -ERANGE);
}

TEST(snq_hard_bound_without_window)
{
	struct ixt_snq_node *slot[5] = { NULL };
	struct item it[8];
	struct ixt_snq q;
	unsigned int j;
	u32 s;

	for (j = 0; j < ARRAY_SIZE(starts); j++) {
		s = starts[j];
		IXT_CASE("start %#x", s);
		ASSERT_EQ(ixt_snq_init(&q, slot, ARRAY_SIZE(slot), s), 0);
		EXPECT_EQ(ixt_snq_insert(&q, &it[0].node, s + 5, 0, NULL),
			  -ENOSPC);
		EXPECT_EQ(ixt_snq_insert(&q, &it[0].node, s + 0x7fffffff, 0,
					 NULL), -ENOSPC);
		EXPECT_EQ(ixt_snq_insert(&q, &it[0].node, s + 4, 0, NULL), 0);
		EXPECT_EQ(ixt_snq_insert(&q, &it[1].node, s, 0, NULL), 1);
		EXPECT_EQ(ixt_snq_insert(&q, &it[2].node, s + 1, 0, NULL), 1);
		/* Two ready nodes are not popped: s + 5 and s + 6 don't fit. */
		EXPECT_EQ(ixt_snq_insert(&q, &it[3].node, s + 5, 0, NULL),
			  -ENOSPC);
		ASSERT_TRUE(pop_run(&q, s, 2));
		EXPECT_EQ(ixt_snq_insert(&q, &it[3].node, s + 6, 0, NULL), 0);
		EXPECT_EQ(ixt_snq_insert(&q, &it[4].node, s + 7, 0, NULL),
			  -ENOSPC);
		EXPECT_EQ(q.stats.full, 4);
		EXPECT_EQ(ixt_snq_held(&q), 2);
		EXPECT_EQ(ixt_snq_holes(&q), 2);
	}
}

TEST(snq_bad_arguments)
{
	struct ixt_snq_node *slot[2] = { NULL };
	struct ixt_snq_batch b = { .nr = 7 };
	struct item it;
	struct ixt_snq q;

	EXPECT_WARNS(1, EXPECT_EQ(ixt_snq_init(&q, slot, 0, 0), -EINVAL));
	EXPECT_WARNS(1, EXPECT_EQ(ixt_snq_init(&q, slot,
					       IXT_SNQ_MAX_SLOTS + 1, 0),
				  -EINVAL));
	ASSERT_EQ(ixt_snq_init(&q, slot, 2, 0), 0);
	EXPECT_WARNS(1, EXPECT_EQ(ixt_snq_insert(&q, &it.node, 0,
						 IXT_SNQ_NR_KINDS, &b),
				  -EINVAL));
	EXPECT_EQ(b.nr, 0);
	EXPECT_EQ(ixt_snq_expected(&q), 0);
	EXPECT_TRUE(!slot[0] && !slot[1]);
}

TEST(snq_largest_ring)
{
	static struct ixt_snq_node *slot[IXT_SNQ_MAX_SLOTS];
	static struct item it[IXT_SNQ_MAX_SLOTS];
	struct ixt_snq_batch b;
	struct ixt_snq q;
	u32 i, start = 0xffff8000;

	ASSERT_EQ(ixt_snq_init(&q, slot, IXT_SNQ_MAX_SLOTS, start), 0);
	for (i = IXT_SNQ_MAX_SLOTS - 1; i; i--)
		ASSERT_EQ(ixt_snq_insert(&q, &it[i].node, start + i, 0, NULL),
			  0);
	EXPECT_EQ(ixt_snq_holes(&q), 1);
	ASSERT_EQ(ixt_snq_insert(&q, &it[0].node, start, 0, &b),
		  IXT_SNQ_MAX_SLOTS);
	EXPECT_EQ(b.count[0], IXT_SNQ_MAX_SLOTS);
	EXPECT_TRUE(pop_run(&q, start, IXT_SNQ_MAX_SLOTS));
}

TEST(snq_flush_skips_holes)
{
	struct ixt_snq_node *slot[16] = { NULL };
	static const u32 offs[] = { 0, 1, 4, 5, 9, 12, 13, 14 };
	struct item it[ARRAY_SIZE(offs) + 1];
	struct ixt_snq_node *node;
	struct ixt_snq q;
	unsigned int i, j, n;
	u32 s;

	for (j = 0; j < ARRAY_SIZE(starts); j++) {
		s = starts[j];
		IXT_CASE("start %#x", s);
		ASSERT_EQ(ixt_snq_init(&q, slot, ARRAY_SIZE(slot), s), 0);
		for (i = 0; i < ARRAY_SIZE(offs); i++)
			ASSERT_TRUE(ixt_snq_insert(&q, &it[i].node, s + offs[i],
						   0, NULL) >= 0);
		EXPECT_EQ(ixt_snq_ready(&q), 2);
		EXPECT_EQ(ixt_snq_held(&q), 6);
		for (n = 0; (node = ixt_snq_flush(&q)); n++) {
			ASSERT_TRUE(n < ARRAY_SIZE(offs));
			EXPECT_EQ(ixt_snq_node_sn(node), s + offs[n]);
			EXPECT_TRUE(node == &it[n].node);
			/* Mid-flush, the queue is consistent. */
			EXPECT_EQ(ixt_snq_held(&q) + ixt_snq_ready(&q),
				  ARRAY_SIZE(offs) - n - 1);
		}
		EXPECT_EQ(n, ARRAY_SIZE(offs));
		EXPECT_EQ(ixt_snq_holes(&q), 0);
		EXPECT_EQ(ixt_snq_expected(&q), s + 15);
		for (i = 0; i < ARRAY_SIZE(slot); i++)
			EXPECT_TRUE(!slot[i]);
		/* And usable. */
		EXPECT_EQ(ixt_snq_insert(&q, &it[8].node, s + 15, 1, NULL), 1);
		EXPECT_TRUE(ixt_snq_flush(&q) == &it[8].node);
		EXPECT_TRUE(!ixt_snq_flush(&q));
	}
}

static void run_seeded(u64 seed, u32 start, u32 nr_slots, bool window)
{
	rng_state = seed;
	run_snq_random(seed, start, nr_slots, window, 3000);
}

TEST(snq_random_against_model)
{
	static const u32 sizes[] = { 1, 2, 3, 8, 33, 64, MODEL_MAX };
	unsigned int i, j;
	u64 seed = 0x1de5c0ffee;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		for (j = 0; j < ARRAY_SIZE(starts); j++) {
			run_seeded(seed++, starts[j], sizes[i], false);
			run_seeded(seed++, starts[j], sizes[i], true);
		}
	}
}

/* Random permutations of a whole window: one batch per closed head hole. */
TEST(snq_random_permutations)
{
	static struct ixt_snq_node *slot[64];
	static struct item it[64];
	struct ixt_snq q;
	unsigned int round, i;
	bool inserted[64];
	u32 perm[64];

	rng_state = 0xabad1dea;
	for (round = 0; round < 500; round++) {
		u32 n = 1 + rng_below(64), start = (u32)rng();
		u32 released = 0, batches = 0;

		if (round % 4 == 0)
			start = 0xffffffe0 + rng_below(32);
		IXT_CASE("round %u, n %u, start %#x", round, n, start);
		memset(slot, 0, sizeof(slot));
		memset(inserted, 0, sizeof(inserted));
		ASSERT_EQ(ixt_snq_init(&q, slot, n, start), 0);
		ASSERT_EQ(ixt_snq_set_max(&q, start + n - 1), 0);
		for (i = 0; i < n; i++)
			perm[i] = i;
		for (i = n - 1; i > 0; i--) {
			u32 j = rng_below(i + 1), t = perm[i];

			perm[i] = perm[j];
			perm[j] = t;
		}
		for (i = 0; i < n; i++) {
			struct ixt_snq_batch b;
			int ret = ixt_snq_insert(&q, &it[i].node,
						 start + perm[i], 0, &b);

			ASSERT_TRUE(ret >= 0);
			inserted[perm[i]] = true;
			/* The batch is everything up to the next gap. */
			if (ret) {
				u32 end = perm[i] + 1;

				while (end < n && inserted[end])
					end++;
				ASSERT_EQ(perm[i], released);
				ASSERT_EQ(b.first, start + released);
				ASSERT_EQ(ret, end - perm[i]);
				released += ret;
				batches++;
				ASSERT_TRUE(pop_run(&q, b.first, ret));
			}
		}
		ASSERT_EQ(released, n);
		ASSERT_EQ(ixt_snq_holes(&q), 0);
		ASSERT_TRUE(batches >= 1);
	}
}

/* Byte ranges. */

struct ranges_step {
	u32 offset;
	u32 len;
	int ret;
	bool complete;
};

#define OK(o, l)	{ .offset = (o), .len = (l) }
#define DONE(o, l)	{ .offset = (o), .len = (l), .complete = true }
#define BAD(o, l, err)	{ .offset = (o), .len = (l), .ret = (err) }

#define RANGES_MAX_STEPS	10

struct ranges_case {
	const char *name;
	u32 total;
	u32 max;
	struct ranges_step step[RANGES_MAX_STEPS];
	unsigned int nr_steps;
	/* The islands at the end. */
	struct ixt_range want[4];
	unsigned int nr_want;
};

static const struct ranges_case ranges_cases[] = {
	{ "in order", 300, 1, {
		OK(0, 100), OK(100, 100), DONE(200, 100),
	}, 3, { { 0, 300 } }, 1 },
	{ "reversed", 300, 1, {
		OK(200, 100), OK(100, 100), DONE(0, 100),
	}, 3, { { 0, 300 } }, 1 },
	{ "middle last", 300, 2, {
		OK(0, 100), OK(200, 100), DONE(100, 100),
	}, 3, { { 0, 300 } }, 1 },
	{ "overlaps are refused, state unchanged", 400, 4, {
		OK(100, 100), OK(300, 50),
		BAD(100, 100, -EPROTO),	/* the same again */
		BAD(50, 51, -EPROTO),	/* its first byte */
		BAD(199, 10, -EPROTO),	/* its last byte */
		BAD(120, 10, -EPROTO),	/* inside */
		BAD(50, 300, -EPROTO),	/* around both */
		BAD(200, 101, -EPROTO),	/* fills the gap and one more */
		BAD(349, 1, -EPROTO),	/* last byte of the tail island */
		OK(200, 100),	/* fills the gap exactly */
	}, 10, { { 100, 350 } }, 1 },
	{ "out of range and overflow", 100, 4, {
		BAD(0, 101, -EPROTO), BAD(100, 1, -EPROTO),
		BAD(101, 0, -EPROTO), BAD(0xffffffff, 1, -EPROTO),
		BAD(1, 0xffffffff, -EPROTO), BAD(0xffffffff, 0xffffffff, -EPROTO),
		OK(99, 1), DONE(0, 99),
	}, 8, { { 0, 100 } }, 1 },
	{ "zero length records nothing", 100, 1, {
		OK(0, 0), OK(50, 0), OK(100, 0), OK(10, 10),
		OK(15, 0), OK(20, 0), OK(20, 80),
	}, 7, { { 10, 100 } }, 1 },
	{ "the island bound", 100, 2, {
		OK(10, 10), OK(50, 10),
		BAD(30, 10, -ENOSPC), BAD(90, 10, -ENOSPC), BAD(0, 5, -ENOSPC),
		OK(60, 10), OK(5, 5), OK(20, 30),
		OK(80, 20), OK(0, 5),
	}, 10, { { 0, 70 }, { 80, 100 } }, 2 },
	{ "largest offsets", 0xffffffff, 2, {
		OK(0xfffffffe, 1), BAD(0xffffffff, 1, -EPROTO),
		OK(0xfffffff0, 14), DONE(0, 0xfffffff0),
	}, 4, { { 0, 0xffffffff } }, 1 },
};

TEST(ranges_table)
{
	struct ixt_range range[4];
	struct ixt_ranges rs;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(ranges_cases); i++) {
		const struct ranges_case *c = &ranges_cases[i];

		ASSERT_EQ(ixt_ranges_init(&rs, range, c->max, c->total), 0);
		for (j = 0; j < c->nr_steps; j++) {
			const struct ranges_step *s = &c->step[j];
			struct ixt_ranges before = rs;
			struct ixt_range saved[4];

			memcpy(saved, range, sizeof(saved));
			IXT_CASE("%s, step %u: [%#x + %#x)", c->name, j,
				 s->offset, s->len);
			EXPECT_EQ(ixt_ranges_add(&rs, s->offset, s->len),
				  s->ret);
			EXPECT_EQ(ixt_ranges_complete(&rs), s->complete);
			if (s->ret) {
				EXPECT_TRUE(!memcmp(&rs, &before, sizeof(rs)));
				EXPECT_TRUE(!memcmp(range, saved,
						    rs.nr * sizeof(range[0])));
			}
		}
		IXT_CASE("%s, at the end", c->name);
		ASSERT_EQ(rs.nr, c->nr_want);
		for (j = 0; j < c->nr_want; j++) {
			EXPECT_EQ(range[j].start, c->want[j].start);
			EXPECT_EQ(range[j].end, c->want[j].end);
		}
	}
}

TEST(ranges_empty_data_is_complete)
{
	struct ixt_range range[1];
	struct ixt_ranges rs;
	u32 off, len;

	ASSERT_EQ(ixt_ranges_init(&rs, range, 1, 0), 0);
	EXPECT_TRUE(ixt_ranges_complete(&rs));
	EXPECT_FALSE(ixt_ranges_hole(&rs, 0, &off, &len));
	EXPECT_EQ(ixt_ranges_add(&rs, 0, 0), 0);
	EXPECT_EQ(ixt_ranges_add(&rs, 0, 1), -EPROTO);
	EXPECT_EQ(ixt_ranges_add(&rs, 1, 0), -EPROTO);
	EXPECT_WARNS(1, EXPECT_EQ(ixt_ranges_init(&rs, range, 0, 10),
				  -EINVAL));
}

TEST(ranges_hole_query)
{
	struct ixt_range range[4];
	struct ixt_ranges rs;
	static const struct {
		u32 from;
		bool found;
		u32 off, len;
	} q[] = {
		{ 0, true, 0, 10 }, { 5, true, 5, 5 }, { 10, true, 20, 30 },
		{ 15, true, 20, 30 }, { 19, true, 20, 30 }, { 20, true, 20, 30 },
		{ 49, true, 49, 1 }, { 50, true, 60, 40 }, { 99, true, 99, 1 },
		{ 100, false, 0, 0 }, { 0xffffffff, false, 0, 0 },
	};
	unsigned int i;

	ASSERT_EQ(ixt_ranges_init(&rs, range, 4, 100), 0);
	ASSERT_EQ(ixt_ranges_add(&rs, 50, 10), 0);
	ASSERT_EQ(ixt_ranges_add(&rs, 10, 10), 0);
	for (i = 0; i < ARRAY_SIZE(q); i++) {
		u32 off = 0xeeee, len = 0xeeee;

		IXT_CASE("from %u", q[i].from);
		EXPECT_EQ(ixt_ranges_hole(&rs, q[i].from, &off, &len),
			  q[i].found);
		EXPECT_EQ(off, q[i].found ? q[i].off : 0xeeee);
		EXPECT_EQ(len, q[i].found ? q[i].len : 0xeeee);
	}
}

TEST(ranges_random_against_model)
{
	static struct ixt_range range[RMODEL_MAX];
	static u8 got[RMODEL_MAX];
	struct ixt_ranges rs;
	unsigned int round, op;

	rng_state = 0x5eedf00d;
	for (round = 0; round < 400; round++) {
		u32 total = rng_below(RMODEL_MAX + 1);
		u32 max = 1 + rng_below(round % 2 ? 4 : 64);

		ASSERT_EQ(ixt_ranges_init(&rs, range, max, total), 0);
		memset(got, 0, sizeof(got));
		for (op = 0; op < 200; op++) {
			u32 off = rng_below(total + 4), len = rng_below(48);
			int want;

			if (op % 50 == 49)
				off = 0xffffffff - rng_below(8);
			if (op % 10 == 9)
				len = 0;
			IXT_CASE("round %u, total %u, max %u, op %u: [%u + %u)",
				 round, total, max, op, off, len);
			want = model_add(got, total, max, off, len);
			ASSERT_EQ(ixt_ranges_add(&rs, off, len), want);
			ASSERT_TRUE(same_ranges(&rs, got));
		}
	}
}

/*
 * Whole transfers cut into PDUs received in a random order; every third
 * one ends at the largest offset, its first bytes received up front.
 */
TEST(ranges_random_fill_orders)
{
	static struct ixt_range range[66];
	struct { u32 off, len; } pdu[128], t;
	struct ixt_ranges rs;
	unsigned int round, i, n;

	rng_state = 0xfeedface;
	for (round = 0; round < 2000; round++) {
		u32 total = 0, shift = 0, max_islands = 0, bound, off, len;

		n = 1 + rng_below(128);
		for (i = 0; i < n; i++) {
			pdu[i].off = total;
			pdu[i].len = 1 + rng_below(round % 2 ? 8192 : 3);
			total += pdu[i].len;
		}
		if (round % 3 == 0) {
			shift = 0xffffffff - total;
			for (i = 0; i < n; i++)
				pdu[i].off += shift;
			total = 0xffffffff;
		}
		for (i = n - 1; i > 0; i--) {
			u32 j = rng_below(i + 1);

			t = pdu[i];
			pdu[i] = pdu[j];
			pdu[j] = t;
		}
		/* (n + 1) / 2 islands always suffice for n PDUs. */
		bound = (n + 1) / 2 + !!shift;
		ASSERT_EQ(ixt_ranges_init(&rs, range, bound, total), 0);
		ASSERT_EQ(ixt_ranges_add(&rs, 0, shift), 0);
		for (i = 0; i < n; i++) {
			IXT_CASE("round %u, pdu %u of %u", round, i, n);
			ASSERT_FALSE(ixt_ranges_complete(&rs));
			ASSERT_TRUE(ixt_ranges_hole(&rs, 0, &off, &len));
			ASSERT_EQ(ixt_ranges_add(&rs, pdu[i].off, pdu[i].len),
				  0);
			if (rs.nr > max_islands)
				max_islands = rs.nr;
			/* Every PDU is refused the second time. */
			ASSERT_EQ(ixt_ranges_add(&rs, pdu[i].off, pdu[i].len),
				  -EPROTO);
		}
		IXT_CASE("round %u, n %u, at the end", round, n);
		ASSERT_TRUE(ixt_ranges_complete(&rs));
		ASSERT_FALSE(ixt_ranges_hole(&rs, 0, &off, &len));
		ASSERT_EQ(rs.nr, 1);
		ASSERT_EQ(rs.received, total);
		ASSERT_TRUE(max_islands <= bound);
	}
}
