/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iscsi_xt: the command window of a session, adapted to the backend's
 * response time (per I_T nexus flow control).
 *
 * Pure code: no allocation, locking, I/O or logging, so the same library
 * builds into the module and into the user-space unit tests.
 */
#ifndef _ISCSI_XT_WINDOW_H
#define _ISCSI_XT_WINDOW_H

#include <linux/types.h>

/**
 * DOC: Adaptive command window
 *
 * The window is how many commands the target holds at once: those
 * below ExpCmdSN it has not answered yet, plus what MaxCmdSN still lets
 * the initiator send (RFC 7143 3.2.2.1): MaxCmdSN = ExpCmdSN + window -
 * held - 1, ExpCmdSN - 1 (closed) when the window is full
 * (ixt_window_max_cmd_sn()). A response frees its command's place before
 * it is built, so it carries the MaxCmdSN its completion opens. LIO holds
 * its queue depth the same way; a window over ExpCmdSN alone would bound
 * only the commands not received yet, and the initiator could keep its
 * own queue depth in the target however the window shrank. It starts at
 * the ACL's queue depth (what LIO keeps for good) and adapts to the
 * response time of the backend (from submission to the target core, or
 * from the moment a write's data is all in, to the response), once per
 * round: as many responses as the window is wide, 8 at least. The
 * round's median decides, so that a few stalled commands (a host that
 * stops the VM for a while, a path that retransmits) do not shrink it:
 *
 * - Above the goal the window shrinks by a quarter (by 1 at least, never
 *   below 1): commands then queue in the initiator rather than in the
 *   target, where they hold cache lines and delay the other sessions of
 *   the same backend.
 * - Below three quarters of the goal it grows by one, up to its maximum.
 * - A goal of 0 means no goal: the window stays at its maximum, as LIO's.
 *
 * ixt_window_limit() lowers the largest window, when a connection
 * joining the session can take fewer commands.
 *
 * Under cache-line pool pressure every session's window is capped
 * (ixt_window_cap()) so that the commands the windows admit fit in the
 * pool together: the pool is shared out by water-filling
 * (ixt_window_share()) over what each session's full window would hold
 * at its lines per command, and each cap is the window that fits in the
 * session's share (ixt_window_fit()). A capped window adapts as above,
 * but grows no further than its cap; once the cap is lifted it grows
 * back one by one.
 */

/**
 * struct ixt_window - a command window and what it adapts to
 * @cur: the window now, 1..@max.
 * @max: the largest window: the ACL's queue depth.
 * @cap: the largest window under pool pressure, 1..@max; @max without.
 * @goal_ns: the response time to stay under; 0 for none.
 * @round: responses seen in the current round.
 * @above: responses of the round slower than the goal.
 * @below: responses of the round faster than three quarters of the goal.
 * @srt_ns: smoothed response time (exponential average, weight 1/8),
 *	for the statistics only (debugfs); 0 before the first response.
 */
struct ixt_window {
	u32 cur;
	u32 max;
	u32 cap;
	u64 goal_ns;
	u32 round;
	u32 above;
	u32 below;
	u64 srt_ns;
};

void ixt_window_init(struct ixt_window *w, u32 max, u64 goal_ns);
u32 ixt_window_sample(struct ixt_window *w, u64 rt_ns);
u32 ixt_window_limit(struct ixt_window *w, u32 limit);
u32 ixt_window_cap(struct ixt_window *w, u32 cap);
u32 ixt_window_demand(u32 win_max, u32 lines, u32 cmds);
u32 ixt_window_share(const u32 *demand, u32 n, u32 pool);
u32 ixt_window_fit(u32 share, u32 lines, u32 cmds);
u32 ixt_window_max_cmd_sn(u32 exp_cmd_sn, u32 win, u32 held);

#endif /* _ISCSI_XT_WINDOW_H */
