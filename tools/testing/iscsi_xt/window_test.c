// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/iscsi_xt/window.c: the adaptive command
 * window. Backends are modelled by their response time as a function of
 * the window (every command of the window outstanding): a fast one, a
 * single queue, a queue of several servers, one that recovers, one
 * slower than the goal on its own; plus no goal, the squeeze and the
 * bounds under random response times.
 */
#include <stdint.h>

#include <linux/kernel.h>
#include <linux/minmax.h>
#include <iscsi_xt/window.h>

#include "ixt_test.h"

#define US	1000ULL
#define MS	(1000 * US)

/* Response time of a backend of @servers parallel servers taking @svc. */
static u64 queue_rt(u64 svc, u32 servers, u32 window)
{
	return window <= servers ? svc : svc * window / servers;
}

/* Feeds @n responses of a @servers-wide backend; returns the window. */
static u32 run_queue(struct ixt_window *w, u64 svc, u32 servers, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		ixt_window_sample(w, queue_rt(svc, servers, w->cur));
	return w->cur;
}

TEST(window_init)
{
	struct ixt_window w;

	ixt_window_init(&w, 64, 2 * MS);
	EXPECT_EQ(w.cur, 64);
	EXPECT_EQ(w.max, 64);
	ixt_window_init(&w, 0, 0);
	EXPECT_EQ(w.cur, 1);
	EXPECT_EQ(w.max, 1);
}

TEST(window_fast_backend_keeps_its_depth)
{
	struct ixt_window w;
	u32 i;

	ixt_window_init(&w, 64, 2 * MS);
	for (i = 0; i < 100000; i++)
		ASSERT_EQ(ixt_window_sample(&w, 10 * US + (i % 7) * US), 64);
}

TEST(window_queueing_under_the_goal_keeps_its_depth)
{
	struct ixt_window w;

	/* 64 x 20 us = 1.28 ms: queueing, but under the 2 ms goal. */
	ixt_window_init(&w, 64, 2 * MS);
	EXPECT_EQ(run_queue(&w, 20 * US, 1, 100000), 64);
}

TEST(window_without_goal_stays_static)
{
	struct ixt_window w;

	ixt_window_init(&w, 64, 0);
	EXPECT_EQ(run_queue(&w, 100 * MS, 1, 10000), 64);
	ixt_window_squeeze(&w);
	EXPECT_EQ(run_queue(&w, 100 * MS, 1, 64 * 65 / 2), 64);
}

TEST(window_single_queue_shrinks_to_the_goal)
{
	struct ixt_window w;
	u32 i, lo = 64, hi = 0;

	/* 5 ms a command, one at a time: a window of 2 meets 10 ms. */
	ixt_window_init(&w, 64, 10 * MS);
	run_queue(&w, 5 * MS, 1, 5000);
	for (i = 0; i < 5000; i++) {
		run_queue(&w, 5 * MS, 1, 1);
		lo = min(lo, w.cur);
		hi = max(hi, w.cur);
	}
	EXPECT_EQ(lo, 2);
	EXPECT_EQ(hi, 2);
}

TEST(window_parallel_backend_settles_at_the_goal)
{
	static const u32 widths[] = { 1, 2, 4, 8, 16 };
	struct ixt_window w;
	unsigned int k;
	u32 i, lo, hi;

	/* 1 ms a command on P servers: the goal of 4 ms is 3P..4P. */
	for (k = 0; k < ARRAY_SIZE(widths); k++) {
		IXT_CASE("%u servers", widths[k]);
		ixt_window_init(&w, 256, 4 * MS);
		run_queue(&w, 1 * MS, widths[k], 20000);
		lo = 256;
		hi = 0;
		for (i = 0; i < 20000; i++) {
			run_queue(&w, 1 * MS, widths[k], 1);
			lo = min(lo, w.cur);
			hi = max(hi, w.cur);
		}
		EXPECT_TRUE(lo >= 2 * widths[k]);
		EXPECT_TRUE(hi <= 5 * widths[k]);
	}
}

TEST(window_grows_back_when_the_backend_recovers)
{
	struct ixt_window w;

	ixt_window_init(&w, 64, 10 * MS);
	EXPECT_EQ(run_queue(&w, 5 * MS, 1, 5000), 2);
	EXPECT_EQ(run_queue(&w, 50 * US, 1000, 10000), 64);
}

TEST(window_backend_slower_than_the_goal_gets_one)
{
	struct ixt_window w;
	u32 i;

	ixt_window_init(&w, 64, 10 * MS);
	for (i = 0; i < 10000; i++)
		ixt_window_sample(&w, 30 * MS);
	EXPECT_EQ(w.cur, 1);
}

TEST(window_squeeze_halves_down_to_one)
{
	struct ixt_window w;

	ixt_window_init(&w, 64, 2 * MS);
	ixt_window_sample(&w, 10 * US);
	EXPECT_EQ(ixt_window_squeeze(&w), 32);
	EXPECT_EQ(w.round, 0);
	EXPECT_EQ(ixt_window_squeeze(&w), 16);
	EXPECT_EQ(ixt_window_squeeze(&w), 8);
	EXPECT_EQ(ixt_window_squeeze(&w), 4);
	EXPECT_EQ(ixt_window_squeeze(&w), 2);
	EXPECT_EQ(ixt_window_squeeze(&w), 1);
	EXPECT_EQ(ixt_window_squeeze(&w), 1);
	/* A fast backend then earns the window back, one per round. */
	EXPECT_EQ(run_queue(&w, 10 * US, 64, 64 * 65 / 2), 64);
}

TEST(window_limit_lowers_the_maximum_for_good)
{
	struct ixt_window w;

	ixt_window_init(&w, 64, 2 * MS);
	EXPECT_EQ(ixt_window_limit(&w, 100), 64);
	EXPECT_EQ(w.max, 64);
	EXPECT_EQ(ixt_window_limit(&w, 24), 24);
	EXPECT_EQ(w.max, 24);
	EXPECT_EQ(ixt_window_limit(&w, 0), 1);
	/* A fast backend earns the window back only up to the new limit. */
	ixt_window_init(&w, 64, 2 * MS);
	ixt_window_limit(&w, 24);
	EXPECT_EQ(ixt_window_squeeze(&w), 12);
	EXPECT_EQ(run_queue(&w, 10 * US, 24, 24 * 25 / 2), 24);
}

TEST(window_max_cmd_sn_leaves_room_for_the_free_part)
{
	EXPECT_EQ(ixt_window_max_cmd_sn(100, 64, 0), 163);
	EXPECT_EQ(ixt_window_max_cmd_sn(100, 64, 10), 153);
	/* Full or over (after the window shrank): closed. */
	EXPECT_EQ(ixt_window_max_cmd_sn(100, 64, 64), 99);
	EXPECT_EQ(ixt_window_max_cmd_sn(100, 64, 70), 99);
	EXPECT_EQ(ixt_window_max_cmd_sn(0, 1, 1), 0xffffffff);
	EXPECT_EQ(ixt_window_max_cmd_sn(0xfffffff0, 64, 0), 0x2f);
}

/*
 * An initiator that sends whenever MaxCmdSN allows, up to its own queue
 * depth of 128, to a target that answers one command per step and
 * advertises, as the session does, the larger of the old MaxCmdSN and
 * the new one: once the window shrinks from 64 to 8, the commands the
 * target holds drain to 8 and stay there.
 */
TEST(window_max_cmd_sn_bounds_an_eager_initiator)
{
	u32 exp = 0xffffff00, max, held = 0, win = 64, step, most = 0;

	max = ixt_window_max_cmd_sn(exp, win, held);
	for (step = 0; step < 1000; step++) {
		u32 cand;

		/* The initiator sends up to MaxCmdSN or its queue depth. */
		while ((s32)(max - exp) >= 0 && held < 128) {
			exp++;
			held++;
		}
		if (step == 100)
			win = 8;
		if (step < 100)
			ASSERT_TRUE(held <= 64);
		else if (step >= 100 + 64)
			most = held > most ? held : most;
		/* One answer: its place is free before MaxCmdSN is built. */
		held--;
		cand = ixt_window_max_cmd_sn(exp, win, held);
		if ((s32)(cand - max) > 0)
			max = cand;
	}
	EXPECT_EQ(most, 8);
}

/* splitmix64 with a fixed seed: every run tests the same numbers. */
static u64 rng_state = 42;

static u64 rng(void)
{
	return ixt_rng(&rng_state);
}

TEST(window_random_times_stay_in_bounds)
{
	struct ixt_window w;
	u32 i, max;

	for (max = 1; max <= 256; max *= 4) {
		IXT_CASE("max %u", max);
		ixt_window_init(&w, max, rng() % (4 * MS));
		for (i = 0; i < 50000; i++) {
			u64 rt = rng() % (rng() % 3 ? 100 * US : 10 * 1000 * MS);
			u32 cur = i % 997 ? ixt_window_sample(&w, rt) :
					    ixt_window_squeeze(&w);

			ASSERT_TRUE(cur >= 1 && cur <= max);
		}
	}
}
