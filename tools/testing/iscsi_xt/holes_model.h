/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Brute-force models of drivers/target/iscsi_xt/holes.c, shared by the
 * unit tests (holes_test.c) and the fuzzer (fuzz/holes_fuzz.c): the
 * sequence-number queue as an unsorted array of held numbers and a FIFO
 * of ready ones, the byte-range tracker as one byte per byte of data, and
 * the checks that compare the library with them after every step.
 *
 * Not a header of the usual kind: it defines static functions, and the
 * file that includes it must define first, after "ixt_test.h",
 *
 *	static u64 rng(void);		a random number
 *	static u32 rng_below(u32 n);	a random number in [0, n), 0 for n = 0
 *
 * which the unit tests draw from a fixed seed and the fuzzer from its
 * input. The checks use EXPECT_*() and ASSERT_*(): the unit tests count
 * a failure, the fuzzer aborts on it.
 */
#ifndef _IXT_HOLES_MODEL_H
#define _IXT_HOLES_MODEL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <linux/errno.h>
#include <linux/kernel.h>
#include <iscsi_xt/holes.h>

#include "ixt_test.h"

/* An object the queue orders. */
struct item {
	struct ixt_snq_node node;
	u32 id;
};

static struct item *to_item(struct ixt_snq_node *node)
{
	return node ? (struct item *)((char *)node -
				       offsetof(struct item, node)) : NULL;
}

/*
 * Brute-force model of the queue: held numbers in an unsorted array,
 * searched linearly; ready ones in a FIFO. Numbers compare as signed
 * 32-bit distances, which is RFC 1982 away from the 2^31 ambiguity.
 */
#define MODEL_MAX	256

struct snq_model {
	u32 nr_slots;
	u32 expected;
	u32 max;
	bool windowed;
	u32 held_sn[MODEL_MAX];
	u8 held_kind[MODEL_MAX];
	struct item *held_item[MODEL_MAX];
	unsigned int nr_held;
	struct item *ready[MODEL_MAX];
	unsigned int ready_head, nr_ready;
	struct ixt_snq_stats stats;
};

static int model_find(const struct snq_model *m, u32 sn)
{
	unsigned int i;

	for (i = 0; i < m->nr_held; i++)
		if (m->held_sn[i] == sn)
			return i;
	return -1;
}

static void model_take(struct snq_model *m, int i, struct ixt_snq_batch *b)
{
	b->count[m->held_kind[i]]++;
	b->nr++;
	m->ready[(m->ready_head + m->nr_ready++) % MODEL_MAX] =
		m->held_item[i];
	m->nr_held--;
	m->held_sn[i] = m->held_sn[m->nr_held];
	m->held_kind[i] = m->held_kind[m->nr_held];
	m->held_item[i] = m->held_item[m->nr_held];
}

static int model_insert(struct snq_model *m, struct item *it, u32 sn,
			u8 kind, struct ixt_snq_batch *b)
{
	u32 back = m->expected - sn, w;
	bool in_window = false;
	int i;

	memset(b, 0, sizeof(*b));
	if (back >= 1 && back < 0x80000000U) {
		m->stats.old++;
		return -EALREADY;
	}
	/* In the window: one of expected, expected + 1, ..., max. */
	for (w = m->expected; m->windowed && w != m->max + 1; w++)
		if (w == sn)
			in_window = true;
	if (m->windowed && !in_window) {
		m->stats.beyond++;
		return -ERANGE;
	}
	if ((u64)(sn - m->expected) + m->nr_ready >= m->nr_slots) {
		m->stats.full++;
		return -ENOSPC;
	}
	if (model_find(m, sn) >= 0) {
		m->stats.dup++;
		return -EEXIST;
	}
	i = m->nr_held++;
	m->held_sn[i] = sn;
	m->held_kind[i] = kind;
	m->held_item[i] = it;
	if (sn != m->expected)
		return 0;
	b->first = sn;
	while ((i = model_find(m, m->expected)) >= 0) {
		model_take(m, i, b);
		m->expected++;
	}
	return b->nr;
}

/* Holes: runs of missing numbers from expected to the last held one. */
static unsigned int model_holes(const struct snq_model *m,
				struct ixt_snq_hole *out, unsigned int max)
{
	u32 last = 0, sn;
	unsigned int i, n = 0;
	bool in_hole = false;

	for (i = 0; i < m->nr_held; i++)
		if (m->held_sn[i] - m->expected > last)
			last = m->held_sn[i] - m->expected;
	if (!m->nr_held)
		return 0;
	for (sn = m->expected; sn != m->expected + last + 1; sn++) {
		i = model_find(m, sn);
		if ((int)i < 0) {
			if (!in_hole) {
				if (n == max)
					return n + 1;
				memset(&out[n], 0, sizeof(out[n]));
				out[n].first = sn;
				n++;
			}
			in_hole = true;
			out[n - 1].missing++;
		} else {
			in_hole = false;
			out[n - 1].held++;
			out[n - 1].count[m->held_kind[i]]++;
		}
	}
	return n;
}

static bool same_holes(const struct ixt_snq *q, const struct snq_model *m)
{
	static struct ixt_snq_hole want[MODEL_MAX];
	unsigned int n = model_holes(m, want, MODEL_MAX), i = 0, k;
	struct ixt_snq_hole h;
	bool ok;

	if (!EXPECT_EQ(ixt_snq_holes(q), n))
		return false;
	for (ok = ixt_snq_hole_first(q, &h); ok;
	     ok = ixt_snq_hole_next(q, &h), i++) {
		if (!EXPECT_TRUE(i < n) || !EXPECT_EQ(h.first, want[i].first) ||
		    !EXPECT_EQ(h.missing, want[i].missing) ||
		    !EXPECT_EQ(h.held, want[i].held))
			return false;
		for (k = 0; k < IXT_SNQ_NR_KINDS; k++)
			if (!EXPECT_EQ(h.count[k], want[i].count[k]))
				return false;
	}
	return EXPECT_EQ(i, n);
}

static bool same_state(const struct ixt_snq *q, const struct snq_model *m)
{
	return EXPECT_EQ(ixt_snq_expected(q), m->expected) &&
	       EXPECT_EQ(ixt_snq_ready(q), m->nr_ready) &&
	       EXPECT_EQ(ixt_snq_held(q), m->nr_held) &&
	       EXPECT_EQ(q->stats.old, m->stats.old) &&
	       EXPECT_EQ(q->stats.beyond, m->stats.beyond) &&
	       EXPECT_EQ(q->stats.dup, m->stats.dup) &&
	       EXPECT_EQ(q->stats.full, m->stats.full);
}

/* ixt_snq_find() of numbers around the window finds the held ones. */
static bool same_find(const struct ixt_snq *q, const struct snq_model *m)
{
	unsigned int n;

	for (n = 0; n < 4; n++) {
		u32 sn = m->expected - 2 + rng_below(m->nr_slots + 4);
		int i = model_find(m, sn);
		struct item *want = i >= 0 ? m->held_item[i] : NULL;

		if (!EXPECT_TRUE(to_item(ixt_snq_find(q, sn)) == want))
			return false;
	}
	return true;
}

static struct item *model_pop(struct snq_model *m)
{
	struct item *it;

	if (!m->nr_ready)
		return NULL;
	it = m->ready[m->ready_head];
	m->ready_head = (m->ready_head + 1) % MODEL_MAX;
	m->nr_ready--;
	return it;
}

/* A free list of items, so that each item is in the queue at most once. */
static struct item pool[2 * MODEL_MAX];
static struct item *free_items[2 * MODEL_MAX];
static unsigned int nr_free;

static void pool_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pool); i++) {
		pool[i].id = i;
		free_items[i] = &pool[i];
	}
	nr_free = ARRAY_SIZE(pool);
}

static bool pop_some(struct ixt_snq *q, struct snq_model *m, u32 n)
{
	while (n--) {
		struct item *want = model_pop(m);
		struct item *got = to_item(ixt_snq_pop(q));

		if (!EXPECT_TRUE(got == want))
			return false;
		if (!got)
			return true;
		free_items[nr_free++] = got;
	}
	return true;
}

/* What ixt_snq_flush() returns: a ready item, else the first hole skipped. */
static struct item *model_flush(struct snq_model *m)
{
	struct ixt_snq_batch b = { 0 };
	unsigned int i, lo = 0;
	int j;

	if (m->nr_ready || !m->nr_held)
		return model_pop(m);
	for (i = 1; i < m->nr_held; i++)
		if (m->held_sn[i] - m->expected < m->held_sn[lo] - m->expected)
			lo = i;
	m->expected = m->held_sn[lo];
	while ((j = model_find(m, m->expected)) >= 0) {
		model_take(m, j, &b);
		m->expected++;
	}
	return model_pop(m);
}

static bool flush_all(struct ixt_snq *q, struct snq_model *m)
{
	struct ixt_snq_node *node;

	while ((node = ixt_snq_flush(q))) {
		struct item *want = model_flush(m);

		if (!EXPECT_TRUE(to_item(node) == want))
			return false;
		free_items[nr_free++] = want;
	}
	return EXPECT_EQ(m->nr_held + m->nr_ready, 0);
}

/*
 * @ops random steps on a queue against the model. The caller seeds rng();
 * @seed only names the run in failure messages.
 */
static void run_snq_random(u64 seed, u32 start, u32 nr_slots, bool window,
			   unsigned int ops)
{
	static struct ixt_snq_node *slot[MODEL_MAX];
	struct snq_model m = {
		.nr_slots = nr_slots, .expected = start,
	};
	struct ixt_snq q;
	unsigned int op;

	pool_init();
	memset(slot, 0, sizeof(slot));
	ASSERT_EQ(ixt_snq_init(&q, slot, nr_slots, start), 0);
	if (window) {
		m.windowed = true;
		m.max = start + rng_below(nr_slots + 1) - 1;
		ASSERT_EQ(ixt_snq_set_max(&q, m.max), 0);
	}
	for (op = 0; op < ops; op++) {
		u32 r = rng_below(100);

		IXT_CASE("seed %#llx, start %#x, slots %u, window %d, op %u",
			 (unsigned long long)seed, start, nr_slots, window, op);
		if (r < 70) {
			/* Mostly near the window, sometimes far away. */
			u32 sn = m.expected - 4 + rng_below(nr_slots + 8);
			u8 kind = rng_below(IXT_SNQ_NR_KINDS);
			struct ixt_snq_batch want, got;
			struct item *it;
			int ret;

			if (r < 3)
				sn = (u32)rng();
			it = free_items[--nr_free];
			ret = ixt_snq_insert(&q, &it->node, sn, kind, &got);
			ASSERT_EQ(ret, model_insert(&m, it, sn, kind, &want));
			if (ret < 0)
				free_items[nr_free++] = it;
			ASSERT_TRUE(!memcmp(&got, &want, sizeof(got)));
		} else if (r < 85) {
			ASSERT_TRUE(pop_some(&q, &m, rng_below(4)));
		} else if (r < 95) {
			ASSERT_TRUE(pop_some(&q, &m, MODEL_MAX));
		} else if (r < 98) {
			/* Slide the window; a smaller MaxCmdSN is ignored. */
			u32 max = m.expected + rng_below(nr_slots + 1) - 1 -
				  rng_below(3);

			if (!window || max + 1 - m.expected > nr_slots)
				continue;
			ASSERT_EQ(ixt_snq_set_max(&q, max), 0);
			if ((s32)(max - m.max) > 0)
				m.max = max;
		} else {
			ASSERT_TRUE(flush_all(&q, &m));
		}
		ASSERT_TRUE(same_state(&q, &m));
		ASSERT_TRUE(same_find(&q, &m));
		if (op % 8 == 0 || ixt_snq_held(&q) < 8)
			ASSERT_TRUE(same_holes(&q, &m));
	}
	ASSERT_TRUE(same_holes(&q, &m));
}

/* Brute-force model: one byte per byte of data. */
#define RMODEL_MAX	512

static unsigned int model_islands(const u8 *got, u32 total,
				  struct ixt_range *out)
{
	unsigned int n = 0;
	u32 i;

	for (i = 0; i < total; i++) {
		if (!got[i])
			continue;
		if (!i || !got[i - 1]) {
			if (out)
				out[n].start = i;
			n++;
		}
		if (out)
			out[n - 1].end = i + 1;
	}
	return n;
}

static int model_add(u8 *got, u32 total, u32 max, u32 off, u32 len)
{
	u8 next[RMODEL_MAX];
	u64 end = (u64)off + len;
	u32 i;

	if (end > total)
		return -EPROTO;
	for (i = off; i < end; i++)
		if (got[i])
			return -EPROTO;
	memcpy(next, got, total);
	memset(next + off, 1, len);
	if (model_islands(next, total, NULL) > max)
		return -ENOSPC;
	memcpy(got, next, total);
	return 0;
}

static bool same_ranges(const struct ixt_ranges *rs, const u8 *got)
{
	static struct ixt_range want[RMODEL_MAX];
	unsigned int n = model_islands(got, rs->total, want), i;
	u32 received = 0, from, off, len, want_len;

	for (i = 0; i < rs->total; i++)
		received += got[i];
	if (!EXPECT_EQ(rs->nr, n) || !EXPECT_EQ(rs->received, received) ||
	    !EXPECT_EQ(ixt_ranges_complete(rs), received == rs->total))
		return false;
	for (i = 0; i < n; i++)
		if (!EXPECT_EQ(rs->range[i].start, want[i].start) ||
		    !EXPECT_EQ(rs->range[i].end, want[i].end))
			return false;
	/* The hole query from a few places. */
	for (i = 0; i < 4; i++) {
		from = rng_below(rs->total + 2);
		while (from < rs->total && got[from])
			from++;
		if (!EXPECT_EQ(ixt_ranges_hole(rs, from, &off, &len),
			       from < rs->total))
			return false;
		if (from >= rs->total)
			continue;
		want_len = 0;
		while (from + want_len < rs->total && !got[from + want_len])
			want_len++;
		if (!EXPECT_EQ(off, from) || !EXPECT_EQ(len, want_len))
			return false;
	}
	return true;
}

#endif /* _IXT_HOLES_MODEL_H */
