// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: where a command's backend work runs.
 *
 * The receive path hands a READ or WRITE to the target core itself
 * (target_submit(), target_execute_cmd() once a write's data is in): on
 * an asynchronous backend (iblock, pscsi, rd_mcp, user) the call returns
 * once the I/O is queued. Other commands may run to their end inside
 * that call: WRITE SAME and UNMAP on iblock wait in
 * blkdev_issue_zeroout() or blkdev_issue_discard(), SYNCHRONIZE CACHE and
 * every read and write on fileio wait for the file, COMPARE AND WRITE
 * waits for the device's other ones, PERSISTENT RESERVE OUT with APTPL
 * writes a file. In the receive path such a command would stop the
 * session's receive paths for as long (they share rx_lock): NOP-Outs,
 * task management functions and the other LUNs' commands would wait,
 * and the initiator would drop the connection after its NOP timeout
 * (mkfs's WRITE ZEROES does that on a slow machine). Those commands run
 * in a work item of their own instead, on their initiator's workqueue
 * (initiator.c): unbound, it runs up to WQ_MAX_ACTIVE (512) at once, and
 * it is the initiator's alone. On ixt_wq, which runs 256 at once a CPU,
 * held ones past that held up the receive, send and release work of
 * every session; on one workqueue for the module, an initiator whose
 * commands a device held filled it, and every other initiator's TEST
 * UNIT READY waited behind them. The target core offers
 * per-device queued submission (attrib/submit_type) too; it runs every
 * command of a device and CPU in one work item, one after the other, so
 * a slow one would still hold up the fast ones.
 *
 * Order: SAM lets SIMPLE commands run in any order; the core holds an
 * ORDERED command until the SIMPLE ones it has are done, and a SIMPLE
 * one that arrives while an ORDERED one waits (target_handle_task_attr()).
 * A command in a work item has not reached the core yet. So that the core
 * sees the commands in the order it would without work items, an ORDERED
 * command waits in the receive path until none of its session's commands
 * is in a work item, and a SIMPLE one until no ORDERED one is. HEAD OF
 * QUEUE commands never wait. Linux, Windows and ESXi initiators send
 * SIMPLE commands only; the wait, as long as the call of the command in
 * the work item, is for initiators that use ORDERED.
 *
 * Bound: a session has at most its command window's largest size
 * (cmdsn_depth, the ACL's queue depth) of commands in work items; past
 * that, its receive path waits for one of them to return from the core.
 * The window holds the commands below that, immediate ones too
 * (ixt_sess_window_full()); the wait is the hard bound behind it.
 *
 * Lifetime: a work item holds a reference on its command, which keeps
 * the command's connection (its release waits for its commands) and
 * through it the session, which holds its initiator's entry and so the
 * workqueue.
 */

#include <linux/string.h>
#include <linux/wait_bit.h>
#include <target/target_core_backend.h>
#include <target/target_core_fabric.h>

#include "cmd.h"
#include "conn.h"
#include "initiator.h"
#include "session.h"

/* Whether the backend may keep the calling thread for long. */
static bool ixt_submit_may_block(struct se_cmd *se_cmd)
{
	if (!(se_cmd->se_cmd_flags & SCF_SCSI_DATA_CDB) ||
	    (se_cmd->se_cmd_flags & SCF_COMPARE_AND_WRITE))
		return true;
	return !strcmp(se_cmd->se_dev->transport->name, "fileio");
}

/* Whether @se_cmd counts in its session's deferred_ordered. */
static bool ixt_submit_ordered(struct se_cmd *se_cmd)
{
	return se_cmd->sam_task_attr != TCM_SIMPLE_TAG &&
	       se_cmd->sam_task_attr != TCM_HEAD_TAG;
}

/* Waits until @cmd may reach the core after the session's deferred ones. */
static void ixt_submit_order(struct ixt_sess *sess, struct se_cmd *se_cmd)
{
	if (se_cmd->sam_task_attr == TCM_HEAD_TAG)
		return;
	if (ixt_submit_ordered(se_cmd))
		wait_var_event(&sess->deferred, !atomic_read(&sess->deferred));
	else
		wait_var_event(&sess->deferred,
			       !atomic_read(&sess->deferred_ordered));
}

static void ixt_submit_work(struct work_struct *work)
{
	struct ixt_cmd *cmd = container_of(work, struct ixt_cmd, submit_work);
	struct ixt_sess *sess = cmd->head.conn->sess;
	struct se_cmd *se_cmd = &cmd->se_cmd;
	bool ordered = ixt_submit_ordered(se_cmd);

	if (test_bit(IXT_CMD_F_WRITE_PENDING, &cmd->head.flags))
		target_execute_cmd(se_cmd);
	else
		target_submit(se_cmd);
	if (ordered)
		atomic_dec(&sess->deferred_ordered);
	atomic_dec(&sess->deferred);
	wake_up_var(&sess->deferred);
	ixt_cmd_put(cmd);
}

/*
 * Once @cmd's turn has come, hands it to its work item when the call into
 * the core may block; returns whether it did.
 */
static bool ixt_submit_defer(struct ixt_cmd *cmd)
{
	struct ixt_sess *sess = cmd->head.conn->sess;
	struct se_cmd *se_cmd = &cmd->se_cmd;

	ixt_submit_order(sess, se_cmd);
	if (!ixt_submit_may_block(se_cmd))
		return false;
	wait_var_event(&sess->deferred,
		       atomic_read(&sess->deferred) < sess->cmdsn_depth);
	atomic_inc(&sess->deferred);
	if (ixt_submit_ordered(se_cmd))
		atomic_inc(&sess->deferred_ordered);
	refcount_inc(&cmd->ref);
	INIT_WORK(&cmd->submit_work, ixt_submit_work);
	queue_work(sess->ini->submit_wq, &cmd->submit_work);
	return true;
}

/**
 * ixt_submit() - hand a command to the target core
 * @cmd: the command, prepared by target_submit_prep().
 *
 * A write with data only goes to write_pending, which runs it through
 * ixt_submit_execute() once the data is in; any other command runs in
 * the call.
 *
 * Context: Process context (the receive path, under the session's
 * rx_lock); may wait for the session's commands in work items (see the
 * top of this file).
 */
void ixt_submit(struct ixt_cmd *cmd)
{
	struct se_cmd *se_cmd = &cmd->se_cmd;

	if ((se_cmd->data_direction == DMA_TO_DEVICE && se_cmd->data_length) ||
	    !ixt_submit_defer(cmd))
		target_submit(se_cmd);
}

/**
 * ixt_submit_execute() - run a write whose data is all in
 * @cmd: the write; the target core waits for it in write_pending.
 *
 * Context: Process context (the receive path, under the session's
 * rx_lock); may wait for the session's commands in work items (see the
 * top of this file).
 */
void ixt_submit_execute(struct ixt_cmd *cmd)
{
	if (!ixt_submit_defer(cmd))
		target_execute_cmd(&cmd->se_cmd);
}
