// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: the command window of a session, adapted to the backend's
 * response time. Pure code (see window.h).
 */

#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/types.h>

#include <iscsi_xt/window.h>

/**
 * ixt_window_init() - start a window at its maximum
 * @w: the window.
 * @max: the largest window; 0 counts as 1.
 * @goal_ns: the response time to stay under; 0 for none.
 */
void ixt_window_init(struct ixt_window *w, u32 max, u64 goal_ns)
{
	*w = (struct ixt_window){
		.cur = max ? max : 1,
		.max = max ? max : 1,
		.cap = max ? max : 1,
		.goal_ns = goal_ns ? goal_ns : U64_MAX,
	};
}

/* Responses in a round: the window's, but at least this many. */
#define IXT_WINDOW_ROUND_MIN	8U

static u32 ixt_window_round_len(const struct ixt_window *w)
{
	return max(w->cur, IXT_WINDOW_ROUND_MIN);
}

/* A new round starts: nothing counted yet. */
static void ixt_window_new_round(struct ixt_window *w)
{
	w->round = 0;
	w->above = 0;
	w->below = 0;
}

/*
 * One round is over: move the window towards the goal, by the round's
 * median response time: above the goal it shrinks, below three
 * quarters of the goal it grows. A few stalled commands, which the median
 * does not see, leave it alone.
 */
static void ixt_window_adapt(struct ixt_window *w, u32 len)
{
	if (w->above > len / 2)
		w->cur -= min(w->cur - 1, max(w->cur / 4, 1U));
	else if (w->below > len / 2 && w->cur < w->cap)
		w->cur++;
	ixt_window_new_round(w);
}

/**
 * ixt_window_sample() - account for one response
 * @w: the window.
 * @rt_ns: the command's response time.
 *
 * Return: the window now.
 */
u32 ixt_window_sample(struct ixt_window *w, u64 rt_ns)
{
	u32 len = ixt_window_round_len(w);

	if (!w->srt_ns)
		w->srt_ns = rt_ns;
	else
		w->srt_ns = w->srt_ns - w->srt_ns / 8 + rt_ns / 8;
	if (rt_ns > w->goal_ns)
		w->above++;
	else if (rt_ns < w->goal_ns - w->goal_ns / 4)
		w->below++;
	if (++w->round >= len)
		ixt_window_adapt(w, len);
	return w->cur;
}

/**
 * ixt_window_limit() - lower the largest window for good
 * @w: the window.
 * @limit: the new largest window, if smaller than the old; 0 counts as 1.
 *
 * Return: the window now, at most @limit.
 */
u32 ixt_window_limit(struct ixt_window *w, u32 limit)
{
	w->max = min(w->max, max(limit, 1U));
	w->cap = min(w->cap, w->max);
	w->cur = min(w->cur, w->cap);
	return w->cur;
}

/**
 * ixt_window_max_cmd_sn() - the MaxCmdSN a window allows
 * @exp_cmd_sn: ExpCmdSN.
 * @win: the window: how many commands the target may hold at once.
 * @held: commands below @exp_cmd_sn the target has not answered yet.
 *
 * Return: @exp_cmd_sn plus the free part of the window, minus 1: so
 * @exp_cmd_sn - 1, the window closed, when @held fills it (serial
 * arithmetic, RFC 1982).
 */
u32 ixt_window_max_cmd_sn(u32 exp_cmd_sn, u32 win, u32 held)
{
	return exp_cmd_sn + (win > held ? win - held : 0) - 1;
}

/**
 * ixt_window_cap() - cap the window under pool pressure, or lift the cap
 * @w: the window.
 * @cap: the largest window for now; 0 counts as 1, and anything from
 *	@w->max up lifts the cap.
 *
 * A window above the cap comes down to it at once and starts a new
 * round; one below it keeps adapting, up to the cap.
 *
 * Return: the window now.
 */
u32 ixt_window_cap(struct ixt_window *w, u32 cap)
{
	w->cap = min(max(cap, 1U), w->max);
	if (w->cur > w->cap) {
		w->cur = w->cap;
		ixt_window_new_round(w);
	}
	return w->cur;
}

/**
 * ixt_window_demand() - the lines a session's full window would hold
 * @win_max: its largest window.
 * @lines: the cache lines its commands hold now.
 * @cmds: the commands holding them.
 *
 * Return: @win_max commands of the lines per command now (rounded up),
 * at most U32_MAX; 0 when no command holds lines.
 */
u32 ixt_window_demand(u32 win_max, u32 lines, u32 cmds)
{
	u64 per_cmd;

	if (!cmds)
		return 0;
	per_cmd = ((u64)lines + cmds - 1) / cmds;
	return min(win_max * per_cmd, (u64)U32_MAX);
}

static u64 ixt_window_filled(const u32 *demand, u32 n, u32 level)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < n; i++)
		sum += min(demand[i], level);
	return sum;
}

/**
 * ixt_window_share() - share a pool out among sessions by water-filling
 * @demand: the lines each session would hold (ixt_window_demand()).
 * @n: the number of sessions.
 * @pool: the lines to share out.
 *
 * A session whose demand is below the level gets all of it, every other
 * one the level: the largest level whose shares together fit in @pool.
 *
 * Return: that level, or U32_MAX when every demand fits as it is.
 */
u32 ixt_window_share(const u32 *demand, u32 n, u32 pool)
{
	u32 lo = 0, hi = 0, mid, i;

	for (i = 0; i < n; i++)
		hi = max(hi, demand[i]);
	if (ixt_window_filled(demand, n, hi) <= pool)
		return U32_MAX;
	/* The shares fit at lo, not at hi. */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (ixt_window_filled(demand, n, mid) <= pool)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/**
 * ixt_window_fit() - the window whose commands fit in a share of the pool
 * @share: the lines the session may hold.
 * @lines: the lines its commands hold now.
 * @cmds: the commands holding them.
 *
 * Return: how many commands of the lines per command now fit in @share,
 * at least 1; U32_MAX (no cap) when @share is U32_MAX or nothing is held.
 */
u32 ixt_window_fit(u32 share, u32 lines, u32 cmds)
{
	u64 fit;

	if (share == U32_MAX || !lines || !cmds)
		return U32_MAX;
	fit = (u64)share * cmds / lines;
	if (fit > U32_MAX)
		return U32_MAX;
	return fit ? fit : 1;
}
