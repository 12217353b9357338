// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/iscsi_xt/window.c: the adaptive command
 * window. Backends are modelled by their response time as a function of
 * the window (every command of the window outstanding): a fast one, a
 * single queue, a queue of several servers, one that recovers, one
 * slower than the goal on its own; plus no goal, the caps of pool
 * pressure and how the pool is shared out for them, and the
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
	EXPECT_EQ(ixt_window_cap(&w, 32), 32);
	EXPECT_EQ(run_queue(&w, 100 * MS, 1, 10000), 32);
	ixt_window_cap(&w, U32_MAX);
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

TEST(window_cap_holds_then_lifts)
{
	struct ixt_window w;

	ixt_window_init(&w, 64, 2 * MS);
	ixt_window_sample(&w, 10 * US);
	EXPECT_EQ(ixt_window_cap(&w, 16), 16);
	EXPECT_EQ(w.round, 0);
	/* A fast backend does not grow it past the cap... */
	EXPECT_EQ(run_queue(&w, 10 * US, 64, 10000), 16);
	/* ...a slow one still shrinks it under the cap... */
	EXPECT_TRUE(run_queue(&w, 10 * MS, 1, 1000) < 16);
	/* ...and a higher cap does not raise it by itself. */
	EXPECT_TRUE(ixt_window_cap(&w, 48) < 16);
	EXPECT_EQ(w.cap, 48);
	EXPECT_EQ(run_queue(&w, 10 * US, 64, 10000), 48);
	/* Lifted, it earns the rest back one per round. */
	EXPECT_EQ(ixt_window_cap(&w, U32_MAX), 48);
	EXPECT_EQ(w.cap, 64);
	EXPECT_EQ(run_queue(&w, 10 * US, 64, 16 * 64), 64);
	EXPECT_EQ(ixt_window_cap(&w, 0), 1);
	EXPECT_EQ(w.cap, 1);
}

TEST(window_demand_is_the_full_window_at_the_lines_now)
{
	/* 1 MiB writes of 32 KiB lines, one of them unaligned. */
	EXPECT_EQ(ixt_window_demand(32, 10 * 32 + 1, 10), 32 * 33);
	EXPECT_EQ(ixt_window_demand(32, 320, 10), 1024);
	EXPECT_EQ(ixt_window_demand(128, 7, 7), 128);
	EXPECT_EQ(ixt_window_demand(64, 0, 0), 0);
	EXPECT_EQ(ixt_window_demand(U32_MAX, U32_MAX, 1), U32_MAX);
}

TEST(window_fit_counts_the_commands_of_a_share)
{
	EXPECT_EQ(ixt_window_fit(112, 32 * 20, 20), 3);
	EXPECT_EQ(ixt_window_fit(128, 32 * 20, 20), 4);
	EXPECT_EQ(ixt_window_fit(10, 32, 1), 1);
	EXPECT_EQ(ixt_window_fit(0, 32, 1), 1);
	EXPECT_EQ(ixt_window_fit(U32_MAX, 32, 1), U32_MAX);
	EXPECT_EQ(ixt_window_fit(100, 0, 0), U32_MAX);
	EXPECT_EQ(ixt_window_fit(U32_MAX - 1, 1, U32_MAX), U32_MAX);
}

static u64 rng_seed_share = 7;

/* Brute force: the largest level whose shares fit, as the pool sees it. */
static u32 share_model(const u32 *demand, u32 n, u32 pool)
{
	u64 sum = 0, at;
	u32 i, level, top = 0;

	for (i = 0; i < n; i++) {
		sum += demand[i];
		top = max(top, demand[i]);
	}
	if (sum <= pool)
		return U32_MAX;
	for (level = top; level; level--) {
		at = 0;
		for (i = 0; i < n; i++)
			at += min(demand[i], level);
		if (at <= pool)
			return level;
	}
	return 0;
}

TEST(window_share_water_fills_like_the_model)
{
	u32 demand[24], n, i, k, pool;

	for (k = 0; k < 3000; k++) {
		n = 1 + ixt_rng(&rng_seed_share) % 24;
		for (i = 0; i < n; i++)
			demand[i] = ixt_rng(&rng_seed_share) % 3 ?
				    ixt_rng_range(&rng_seed_share, 0, 4096) :
				    ixt_rng_range(&rng_seed_share, 0, 64);
		pool = ixt_rng_range(&rng_seed_share, 0, 8192);
		IXT_CASE("case %u: %u sessions, pool %u", k, n, pool);
		ASSERT_EQ(ixt_window_share(demand, n, pool),
			  share_model(demand, n, pool));
	}
	EXPECT_EQ(ixt_window_share(demand, 0, 0), U32_MAX);
}

/*
 * Pool pressure as make bench's scale job makes it: sessions of window
 * @win sending commands of @lines lines each into a pool of @pool lines,
 * with a light session beside them (window 32, one line a command).
 * The capped windows' commands fit in the pool together (unless even one
 * command each does not); the light session keeps its whole window when
 * it is below the level, and gets the level's worth otherwise.
 */
static void pressure_case(u32 heavy, u32 win, u32 lines, u32 pool)
{
	u32 demand[64], cap[64], i, level;
	u64 held = 0;

	for (i = 0; i < heavy; i++)
		demand[i] = ixt_window_demand(win, lines * 4, 4);
	demand[heavy] = ixt_window_demand(32, 3, 3);
	level = ixt_window_share(demand, heavy + 1, pool);
	ASSERT_TRUE(level != U32_MAX);
	for (i = 0; i < heavy; i++) {
		cap[i] = min(ixt_window_fit(min(demand[i], level), lines * 4, 4),
			     win);
		ASSERT_TRUE(cap[i] >= 1);
		held += (u64)cap[i] * lines;
	}
	cap[heavy] = min(ixt_window_fit(min(demand[heavy], level), 3, 3), 32U);
	held += cap[heavy];
	EXPECT_EQ(cap[heavy], min(level, 32U));
	EXPECT_TRUE(held <= pool || cap[0] == 1);
}

TEST(window_pressure_caps_fit_the_pool)
{
	/* 16 sessions of 1 MiB writes at iodepth 32, 32 KiB lines, 64 MiB. */
	IXT_CASE("16 x 32 x 32 lines in 1792");
	pressure_case(16, 32, 32, 1792);
	IXT_CASE("4 x 128 x 33 lines in 1792");
	pressure_case(4, 128, 33, 1792);
	IXT_CASE("60 x 32 x 32 lines in 1792");
	pressure_case(60, 32, 32, 1792);
	IXT_CASE("60 x 32 x 1 line in 1792");
	pressure_case(60, 32, 1, 1792);
	IXT_CASE("2 x 64 x 4 lines in 448");
	pressure_case(2, 64, 4, 448);
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
	ixt_window_cap(&w, 48);
	EXPECT_EQ(ixt_window_limit(&w, 24), 24);
	EXPECT_EQ(w.cap, 24);
	EXPECT_EQ(ixt_window_cap(&w, 12), 12);
	ixt_window_cap(&w, U32_MAX);
	EXPECT_EQ(run_queue(&w, 10 * US, 24, 24 * 25 / 2), 24);
}

/*
 * A session in front of a backend that serves one command every @gap in
 * arrival order, each then completing @lat later (null_blk throttled to a
 * rate, with a completion timer: make bench's slow device), behind an
 * initiator that sends whenever MaxCmdSN lets it, its command reaching
 * the target @turn after the response that allowed it. The target holds
 * the window as the session does (ixt_window_max_cmd_sn(), MaxCmdSN never
 * moving back). One command in 50 takes @stall longer, and completes
 * after it so do those behind it. Simulated in steps of 10 us for @secs
 * seconds; what the second half saw is in the result.
 */
struct pipeline {
	u64 gap, lat, turn;
	u32 done;	/* commands completed */
	u64 rt_sum;	/* their response times */
	u32 lo, hi;	/* the window's range */
	u64 stall;	/* extra time of one command in 50 */
	u64 seed;
};

#define PIPE_RING	256
#define PIPE_TICK	(10 * US)

struct pipe_ring {
	u64 adm[PIPE_RING];
	u64 due[PIPE_RING];
	u32 head, tail;
};

static void pipe_push(struct pipe_ring *r, u64 adm, u64 due)
{
	r->adm[r->tail % PIPE_RING] = adm;
	r->due[r->tail++ % PIPE_RING] = due;
}

static bool pipe_due(const struct pipe_ring *r, u64 now)
{
	return r->head != r->tail && r->due[r->head % PIPE_RING] <= now;
}

/* The extra time of the next command: @stall for one in 50. */
static u64 pipe_stall(struct pipeline *p)
{
	return p->stall && ixt_rng(&p->seed) % 50 == 0 ? p->stall : 0;
}

static void run_pipeline(struct ixt_window *w, struct pipeline *p, u32 secs)
{
	struct pipe_ring transit = {}, queue = {}, busy = {};
	u64 now, next = 0, end = secs * 1000 * MS;
	u32 sent = 0, received = 0, allowed, held = 0, n;

	allowed = w->cur;
	for (n = 0; n < allowed; n++)
		pipe_push(&transit, 0, p->turn);
	sent = allowed;
	p->done = 0;
	p->rt_sum = 0;
	p->lo = U32_MAX;
	p->hi = 0;
	for (now = 0; now < end; now += PIPE_TICK) {
		bool late = now >= end / 2;

		for (; pipe_due(&transit, now); transit.head++, received++, held++)
			pipe_push(&queue, now, now);
		if (queue.head != queue.tail && now >= next) {
			pipe_push(&busy, queue.adm[queue.head++ % PIPE_RING],
				  now + p->lat + pipe_stall(p));
			next = now + p->gap;
		}
		for (; pipe_due(&busy, now); busy.head++) {
			u64 rt = now - busy.adm[busy.head % PIPE_RING];
			u32 cur = ixt_window_sample(w, rt);
			u32 max = ixt_window_max_cmd_sn(received, cur, --held);

			/* MaxCmdSN, counted from 0, as a number of commands. */
			if ((s32)(max + 1 - allowed) > 0)
				allowed = max + 1;
			for (; sent != allowed; sent++)
				pipe_push(&transit, now, now + p->turn);
			if (late) {
				p->done++;
				p->rt_sum += rt;
				p->lo = min(p->lo, cur);
				p->hi = max(p->hi, cur);
			}
		}
	}
}

/*
 * make bench's slow phase: 1000 commands a second, 2 ms each on top, an
 * initiator 1 ms away. The window settles where the response time meets
 * the 10 ms goal, without starving the backend: it stays above the 3
 * commands that its rate times the 3 ms of latency and turnaround need.
 */
TEST(window_rate_limited_backend_keeps_its_throughput)
{
	struct pipeline p = { .gap = 1 * MS, .lat = 2 * MS, .turn = 1 * MS };
	struct ixt_window w;

	ixt_window_init(&w, 64, 10 * MS);
	run_pipeline(&w, &p, 20);
	IXT_CASE("%u done, mean %llu us, window %u..%u", p.done,
		 p.rt_sum / p.done / US, p.lo, p.hi);
	EXPECT_TRUE(p.done >= 9800);
	EXPECT_TRUE(p.rt_sum / p.done <= 11 * MS);
	EXPECT_TRUE(p.lo > 3);
}

/*
 * The same with one command in 50 taking 20 ms longer and holding up
 * those behind it (the host stops the VM for a while): the round's
 * median ignores them, and the window stays where the backend needs it
 * (an average of the response times took it down to 1 now and then).
 */
TEST(window_stalls_do_not_shrink_it)
{
	struct pipeline p = { .gap = 1 * MS, .lat = 2 * MS, .turn = 1 * MS,
			      .stall = 20 * MS, .seed = 7 };
	struct ixt_window w;

	ixt_window_init(&w, 64, 10 * MS);
	run_pipeline(&w, &p, 20);
	IXT_CASE("%u done, mean %llu us, window %u..%u", p.done,
		 p.rt_sum / p.done / US, p.lo, p.hi);
	EXPECT_TRUE(p.lo > 3);
	EXPECT_TRUE(p.hi <= 12);
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
					    ixt_window_cap(&w, rng() % 300);

			ASSERT_TRUE(cur >= 1 && cur <= max);
		}
	}
}
