// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of drivers/target/iscsi_xt/holes.c: the
 * sequence-number queue and the byte-range tracker driven by a random
 * sequence of events that the input decodes to, checked after every
 * step against the brute-force models of ../holes_model.h, which the
 * unit tests use too.
 *
 * The input chooses one of the two and its shape: for the queue the
 * first number (anywhere, and often next to 0, 2^31 and 2^32), the ring
 * size (1 to 256), a CmdSN window or none, and the number of steps
 * (inserts near the window or anywhere, pops, window slides, flushes);
 * for the tracker the length (0 to 512 bytes), the island bound (1 to
 * 64) and the ranges added (anywhere, empty, past the end, overflowing).
 * Every number the models draw comes from the input (see fuzz.h).
 *
 * Invariants, after every step (same_state(), same_find(),
 * same_holes(), same_ranges()): the queue's result, batch, per-kind
 * counts, expected number, ready and held counts, refusal statistics,
 * holes and found nodes are the model's; the tracker's result, islands,
 * received count, completeness and holes are the bitmap's. A divergence
 * aborts.
 */
#include "fuzz.h"
#include "../holes_model.h"

static void fuzz_snq(void)
{
	u32 start, nr_slots;
	bool window;

	switch (rng_below(4)) {
	case 0:
		start = rng_below(512) - 256;
		break;
	case 1:
		start = 0x80000000U + rng_below(512) - 256;
		break;
	case 2:
		start = 0xffffffffU - rng_below(512);
		break;
	default:
		start = rng();
	}
	nr_slots = 1 + rng_below(MODEL_MAX);
	window = rng_below(2);
	run_snq_random(0, start, nr_slots, window, 1 + rng_below(512));
}

static void fuzz_ranges(void)
{
	static struct ixt_range range[RMODEL_MAX];
	static u8 got[RMODEL_MAX];
	u32 total = rng_below(RMODEL_MAX + 1);
	u32 max = 1 + rng_below(64), ops = 1 + rng_below(256), op;
	struct ixt_ranges rs;

	ASSERT_EQ(ixt_ranges_init(&rs, range, max, total), 0);
	memset(got, 0, sizeof(got));
	for (op = 0; op < ops; op++) {
		u32 off = rng_below(total + 4), len = rng_below(48);

		switch (rng_below(16)) {
		case 0:
			off = 0xffffffff - rng_below(8);
			break;
		case 1:
			len = 0;
			break;
		case 2:
			len = rng();
			break;
		}
		IXT_CASE("total %u, max %u, op %u: [%u + %u)", total, max, op,
			 off, len);
		ASSERT_EQ(ixt_ranges_add(&rs, off, len),
			  model_add(got, total, max, off, len));
		ASSERT_TRUE(same_ranges(&rs, got));
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	fz_begin(data, size);
	if (rng_below(2))
		fuzz_snq();
	else
		fuzz_ranges();
	return 0;
}
