// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: pool pressure. A command that finds the cache-line pool short
 * caps the command windows of every normal session, not only its own: the
 * pool is shared out among them and each window admits the commands that
 * fit in its share (ixt_sess_pool_caps()). The initiators then queue the
 * rest themselves, in order, rather than have the target answer them
 * TASK SET FULL, which Linux's SCSI layer sends again into whatever the
 * pool holds then, so that one write can lose for seconds to the others.
 *
 * The caps are sized again every IXT_PRESSURE_TICK, from what each
 * session's commands hold then, and lifted once the sessions' full
 * windows would fit in the pool; the windows then grow back one by one
 * (window.h). One delayed work does it all: the first shortage queues it
 * at once, and it queues itself again while the caps hold. It never runs
 * on a command's path.
 */

#include <linux/jiffies.h>
#include <linux/workqueue.h>

#include "conn.h"
#include "pool.h"
#include "session.h"

/* How often the caps are sized again while they hold. */
#define IXT_PRESSURE_TICK	(HZ / 4)

static void ixt_pressure_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(ixt_pressure_dwork, ixt_pressure_work);

/*
 * The windows' commands may hold all but an eighth of the pool together:
 * the rest covers the lines of the CPUs' caches, those parked in flight,
 * and the read half of bidirectional commands, which no window counts.
 */
static u32 ixt_pressure_lines(void)
{
	u32 lines = ixt_pool_lines();

	return lines - lines / 8;
}

static void ixt_pressure_work(struct work_struct *work)
{
	if (ixt_sess_pool_caps(ixt_pressure_lines()))
		queue_delayed_work(system_wq, &ixt_pressure_dwork,
				   IXT_PRESSURE_TICK);
}

/**
 * ixt_pressure_short() - a command found the cache-line pool short
 *
 * Sizes the windows' caps now, unless they are sized already and will be
 * again within a tick.
 *
 * Context: Any context but hard IRQ.
 */
void ixt_pressure_short(void)
{
	queue_delayed_work(system_wq, &ixt_pressure_dwork, 0);
}

/**
 * ixt_pressure_exit() - stop sizing the windows
 *
 * Context: Process context, module exit, once no connection is left.
 */
void ixt_pressure_exit(void)
{
	cancel_delayed_work_sync(&ixt_pressure_dwork);
}
