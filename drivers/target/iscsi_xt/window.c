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
	else if (w->below > len / 2 && w->cur < w->max)
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
	w->cur = min(w->cur, w->max);
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
 * ixt_window_squeeze() - halve the window: the cache lines ran out
 * @w: the window.
 *
 * Return: the window now, at least 1.
 */
u32 ixt_window_squeeze(struct ixt_window *w)
{
	w->cur = max(w->cur / 2, 1U);
	ixt_window_new_round(w);
	return w->cur;
}
