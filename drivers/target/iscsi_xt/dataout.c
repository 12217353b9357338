// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: the Data-Out side of writes: command slots, R2Ts, and Data-Out
 * PDUs received in place through the data-pointer table.
 *
 * Everything here runs under the session's rx_lock: in the receive path
 * of the command's connection (Data-Out must come on the connection of
 * its command), in that of another connection of the session (which
 * delivers a command held behind a CmdSN hole, or carries a task
 * management function), or in the connection's release work once its
 * receive path has stopped; ixt_dataout_resume() takes the lock itself.
 * The slots and the lists of writes (expecting unsolicited data, waiting
 * for Data-Out, waiting for room in the send queue for their R2Ts) need
 * no lock of their own; the watchdog reads only the time of the write
 * that has waited longest (ixt_dataout_overdue()). The data segment of a
 * Data-Out is received without the lock, between ixt_dataout_rx_hdr()
 * and ixt_dataout_rx(): the write it goes into holds a reference for it
 * meanwhile (conn->rx_data).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/slab.h>
#include <scsi/scsi_proto.h>
#include <target/target_core_fabric.h>

#include "cmd.h"
#include "conn.h"
#include "fault.h"
#include "session.h"

/* Slots beyond the command window, for immediate commands. */
#define IXT_DATAOUT_SLOTS_EXTRA	16

/**
 * ixt_dataout_slot_get() - give a write a slot of its connection
 * @conn: the connection.
 * @cmd: the write, which expects Data-Out.
 *
 * The slot is the low half of the command's Target Transfer Tags. The
 * slots are allocated at the first write of the connection, for the
 * session's command window.
 *
 * Context: Process context (the connection's receive path).
 * Return: 0, -EBUSY when every slot is taken, or -ENOMEM.
 */
int ixt_dataout_slot_get(struct ixt_conn *conn, struct ixt_cmd *cmd)
{
	u32 slot;

	if (!conn->slots) {
		u32 n = conn->sess->cmdsn_depth + IXT_DATAOUT_SLOTS_EXTRA;

		conn->slots = ixt_fault(IXT_FAULT_DATAOUT_SLOTS) ? NULL :
			      kvcalloc(n, sizeof(*conn->slots), GFP_KERNEL);
		conn->slot_map = ixt_fault(IXT_FAULT_DATAOUT_SLOT_MAP) ? NULL :
				 bitmap_zalloc(n, GFP_KERNEL);
		if (!conn->slots || !conn->slot_map) {
			ixt_dataout_slots_free(conn);
			return -ENOMEM;
		}
		conn->nr_slots = n;
	}
	slot = find_first_zero_bit(conn->slot_map, conn->nr_slots);
	if (slot >= conn->nr_slots)
		return -EBUSY;
	__set_bit(slot, conn->slot_map);
	cmd->slot = slot;
	set_bit(IXT_CMD_F_SLOT, &cmd->head.flags);
	return 0;
}

/**
 * ixt_dataout_slot_put() - give a command's slot back, if it has one
 * @conn: the connection.
 * @cmd: the command.
 *
 * Context: Process context (the receive path or the release work).
 */
void ixt_dataout_slot_put(struct ixt_conn *conn, struct ixt_cmd *cmd)
{
	if (!test_and_clear_bit(IXT_CMD_F_SLOT, &cmd->head.flags))
		return;
	conn->slots[cmd->slot] = NULL;
	__clear_bit(cmd->slot, conn->slot_map);
}

/**
 * ixt_dataout_slots_free() - free the slots of a connection
 * @conn: the connection, none of whose slots is taken.
 *
 * Context: Process context.
 */
void ixt_dataout_slots_free(struct ixt_conn *conn)
{
	kvfree(conn->slots);
	bitmap_free(conn->slot_map);
	conn->slots = NULL;
	conn->slot_map = NULL;
	conn->nr_slots = 0;
}

/*
 * Keeps the writes of the connection in their data phase that hold cache
 * lines on its dout_age, in the order they came to it, and the time of
 * the first for the watchdog (ixt_dataout_slow()). Progress does not
 * move a write there: a peer that sends a trickle of Data-Out, each
 * within dataout_timeout, keeps a write from being overdue, not old.
 */
static void ixt_dataout_age(struct ixt_cmd *cmd)
{
	struct ixt_conn *conn = cmd->head.conn;
	bool holds = test_bit(IXT_CMD_F_DATA_PHASE, &cmd->head.flags) &&
		     cmd->head.nr_lines;
	struct ixt_cmd *first;

	if (holds == test_bit(IXT_CMD_F_AGED, &cmd->head.flags))
		return;
	if (holds) {
		set_bit(IXT_CMD_F_AGED, &cmd->head.flags);
		cmd->dout_since = jiffies | 1;
		list_add_tail(&cmd->age_entry, &conn->dout_age);
	} else {
		clear_bit(IXT_CMD_F_AGED, &cmd->head.flags);
		list_del(&cmd->age_entry);
	}
	first = list_first_entry_or_null(&conn->dout_age, struct ixt_cmd,
					 age_entry);
	WRITE_ONCE(conn->dataout_since, first ? first->dout_since : 0);
}

/*
 * Keeps the writes of the connection that wait for Data-Out the initiator
 * owes them (what their R2Ts asked for, and their unsolicited data;
 * aborted ones do not count) on its dout_wait, in the order of their
 * last progress, and the time of the first for the watchdog. @progress:
 * the write just made some (an R2T sent, Data-Out received). Each write
 * is timed on its own: the progress of the others does not keep one
 * that gets no Data-Out, nor does the target core's answer to one that
 * it did not ask data of (an unknown LUN, a reservation conflict).
 */
static void ixt_dataout_track(struct ixt_cmd *cmd, bool progress)
{
	struct ixt_conn *conn = cmd->head.conn;
	bool waits = test_bit(IXT_CMD_F_DATA_PHASE, &cmd->head.flags) &&
		     !test_bit(IXT_CMD_F_ABORTING, &cmd->head.flags) &&
		     (cmd->dpt.outstanding ||
		      cmd->dpt.unsol_received < cmd->dpt.unsol_len);
	struct ixt_cmd *first;

	ixt_dataout_age(cmd);
	if (!waits) {
		if (!test_and_clear_bit(IXT_CMD_F_R2T_WAIT, &cmd->head.flags))
			return;
		list_del(&cmd->dout_entry);
		conn->r2t_waiting--;
	} else if (!test_and_set_bit(IXT_CMD_F_R2T_WAIT, &cmd->head.flags)) {
		cmd->dout_stamp = jiffies | 1;
		list_add_tail(&cmd->dout_entry, &conn->dout_wait);
		conn->r2t_waiting++;
	} else if (progress) {
		cmd->dout_stamp = jiffies | 1;
		list_move_tail(&cmd->dout_entry, &conn->dout_wait);
	} else {
		return;
	}
	first = list_first_entry_or_null(&conn->dout_wait, struct ixt_cmd,
					 dout_entry);
	WRITE_ONCE(conn->dataout_stamp, first ? first->dout_stamp : 0);
}

/**
 * ixt_dataout_overdue() - whether a write waited too long for Data-Out
 * @conn: the connection.
 * @limit: jiffies a write may wait without progress (dataout_timeout).
 *
 * ErrorRecoveryLevel 0 cannot ask for the data again: the watchdog closes
 * the connection instead.
 *
 * Context: Any context (the watchdog).
 * Return: true when the write of @conn that has waited longest for the
 * Data-Out it is owed (solicited or unsolicited) has had none, nor sent
 * an R2T, for @limit.
 */
bool ixt_dataout_overdue(struct ixt_conn *conn, unsigned long limit)
{
	unsigned long stamp = READ_ONCE(conn->dataout_stamp);

	return stamp && time_after(jiffies, stamp + limit);
}

/**
 * ixt_dataout_slow() - whether a connection's peer sends its writes'
 *	data too slowly
 * @conn: the connection.
 *
 * The write side of ixt_conn_tx_slow(): a peer that sends each write a
 * few bytes of Data-Out just within dataout_timeout keeps the write,
 * and its lines, as long as it likes; over RDMA, a peer that answers
 * the RDMA READs of a fetch as slowly does the same. While the pool is
 * short (ixt_pool_short()), a write that came to its data phase
 * %IXT_CONN_DRAIN_SECS ago or earlier and still holds its lines
 * condemns the connection, as a PDU that waits that long in the send
 * queue does.
 *
 * Context: Any context (the watchdog).
 * Return: true when the pool is short and the connection has such a
 * write.
 */
bool ixt_dataout_slow(struct ixt_conn *conn)
{
	unsigned long since = READ_ONCE(conn->dataout_since);

	return since &&
	       time_after(jiffies, since + IXT_CONN_DRAIN_SECS * HZ) &&
	       ixt_pool_short();
}

/**
 * ixt_dataout_abort_marked() - stop waiting for the data of writes the
 *	target core aborted for another I_T nexus
 * @conn: the connection.
 *
 * A LOGICAL UNIT RESET, or a PREEMPT AND ABORT, from another session
 * marks this one's writes aborted in the target core (CMD_T_ABORTED) and
 * waits for them, telling the fabric nothing: a write waiting for
 * Data-Out kept it waiting until its data was in or its connection went,
 * as long as a peer that sends a trickle of data liked. The watchdog
 * looks for such writes once a second and ends their wait as an abort
 * received on the session does (ixt_cmd_abort_write()); when the
 * session's rx_lock is taken, at its next tick.
 *
 * Context: Process context (the watchdog); takes the session's rx_lock.
 */
void ixt_dataout_abort_marked(struct ixt_conn *conn)
{
	struct ixt_cmd *cmd;
	unsigned long flags;
	bool aborted;
	u32 i;

	if (!READ_ONCE(conn->dataout_since) ||
	    !mutex_trylock(&conn->sess->rx_lock))
		return;
	for (i = 0; i < conn->nr_slots; i++) {
		cmd = conn->slots[i];
		if (!cmd || !test_bit(IXT_CMD_F_WRITE_PENDING, &cmd->head.flags) ||
		    test_bit(IXT_CMD_F_ABORTING, &cmd->head.flags))
			continue;
		spin_lock_irqsave(&cmd->se_cmd.t_state_lock, flags);
		aborted = cmd->se_cmd.transport_state & CMD_T_ABORTED;
		spin_unlock_irqrestore(&cmd->se_cmd.t_state_lock, flags);
		if (aborted)
			ixt_cmd_abort_write(cmd);
	}
	mutex_unlock(&conn->sess->rx_lock);
}

/* Takes a write off the connection's r2t_later, if it is on it. */
static void ixt_dataout_later_del(struct ixt_cmd *cmd)
{
	if (test_and_clear_bit(IXT_CMD_F_R2T_LATER, &cmd->head.flags))
		list_del(&cmd->later_entry);
}

/**
 * ixt_dataout_start() - a write enters its data phase
 * @cmd: the write, with a slot, whose SCSI Command PDU is in (the target
 *	core may not have it yet: a CmdSN hole may hold it).
 *
 * Its Target Transfer Tags find it from now on, and so does the ITT of
 * its unsolicited Data-Out; the data phase holds a reference on it.
 *
 * Context: Process context (the connection's receive path).
 */
void ixt_dataout_start(struct ixt_cmd *cmd)
{
	struct ixt_conn *conn = cmd->head.conn;

	refcount_inc(&cmd->ref);
	set_bit(IXT_CMD_F_DATA_PHASE, &cmd->head.flags);
	conn->slots[cmd->slot] = cmd;
	if (cmd->dpt.unsol_received < cmd->dpt.unsol_len)
		list_add_tail(&cmd->unsol_entry, &conn->unsol_cmds);
	ixt_dataout_track(cmd, false);
}

/**
 * ixt_dataout_end() - a write leaves its data phase
 * @cmd: the write; may be freed here, unless the caller holds a
 *	reference (the target core's counts).
 *
 * Context: Process context (the receive path or the release work).
 */
void ixt_dataout_end(struct ixt_cmd *cmd)
{
	if (!test_and_clear_bit(IXT_CMD_F_DATA_PHASE, &cmd->head.flags))
		return;
	ixt_dataout_track(cmd, false);
	ixt_dataout_later_del(cmd);
	list_del_init(&cmd->unsol_entry);
	ixt_dataout_slot_put(cmd->head.conn, cmd);
	ixt_cmd_put(cmd);
}

/* The last byte of a write the target core waits for is in: run it. */
static void ixt_dataout_complete(struct ixt_cmd *cmd)
{
	/* The target core's reference keeps the command. */
	ixt_dataout_end(cmd);
	ixt_cmd_execute(cmd);
}

/**
 * ixt_dataout_settle() - end a data phase nobody waits for any more
 * @cmd: a write in its data phase, or out of it.
 *
 * When the target core answered a write without asking for its data
 * (an unknown LUN, a reservation conflict...), or a task management
 * function aborted it, the write only waits for the data the initiator
 * sends anyway (unsolicited, and what R2Ts already asked for), and then
 * ends. An aborted write gives its cache lines back at once
 * (ixt_cmd_shed_lines()): the initiator may never send that data, and
 * what it does send is read and dropped.
 *
 * Context: Process context (the connection's receive path, or that of
 * another connection of the session), under the session's rx_lock.
 */
void ixt_dataout_settle(struct ixt_cmd *cmd)
{
	ixt_dataout_track(cmd, false);
	if (!test_bit(IXT_CMD_F_DATA_PHASE, &cmd->head.flags) ||
	    !test_bit(IXT_CMD_F_SUBMITTED, &cmd->head.flags) ||
	    (test_bit(IXT_CMD_F_WRITE_PENDING, &cmd->head.flags) &&
	     !test_bit(IXT_CMD_F_ABORTING, &cmd->head.flags)))
		return;
	if (cmd->dpt.unsol_received == cmd->dpt.unsol_len &&
	    !cmd->dpt.outstanding)
		ixt_dataout_end(cmd);
	else if (test_bit(IXT_CMD_F_ABORTING, &cmd->head.flags))
		ixt_cmd_shed_lines(cmd);
	ixt_dataout_age(cmd);
}

/*
 * Over RDMA the transport pulls the solicited data (RFC 7145: the R2Ts
 * become RDMA READs), once per command, into the lines the table names;
 * the fetch holds a reference, and the lines (IXT_CMD_F_FETCHING), until
 * ixt_dataout_fetched().
 */
static void ixt_dataout_fetch(struct ixt_cmd *cmd)
{
	if (cmd->dpt.first_r2t == cmd->dpt.nr_entries ||
	    test_and_set_bit(IXT_CMD_F_FETCH, &cmd->head.flags))
		return;
	set_bit(IXT_CMD_F_FETCHING, &cmd->head.flags);
	refcount_inc(&cmd->ref);
	cmd->head.conn->ops->fetch(cmd, cmd->dpt.unsol_len,
				   cmd->dpt.xfer_len - cmd->dpt.unsol_len);
}

/**
 * ixt_dataout_fetched() - an RDMA transport fetched a write's data
 * @cmd: the write; the fetch's reference is dropped here.
 *
 * Every solicited entry of the data-pointer table is filled: counted in
 * as if Data-Out had answered an R2T for each, with the same checks,
 * and the write runs once its unsolicited data is in too. A write whose
 * data phase ended meanwhile (aborted, or answered without its data)
 * only lets go. The lines are no longer being written: an aborted write
 * still owed unsolicited data gives them back now.
 *
 * Context: Process context (the connection's receive path).
 */
void ixt_dataout_fetched(struct ixt_cmd *cmd)
{
	struct ixt_conn *conn = cmd->head.conn;
	struct ixt_dpt_place place;
	struct ixt_dpt_r2t r2t;
	int ret = 0;

	clear_bit(IXT_CMD_F_FETCHING, &cmd->head.flags);
	if (!test_bit(IXT_CMD_F_DATA_PHASE, &cmd->head.flags))
		goto out_put;
	while (!ret && !ixt_dpt_next_r2t(&cmd->dpt, &r2t)) {
		ret = ixt_dpt_place(&cmd->dpt, r2t.ttt, r2t.offset,
				    r2t.length, true, &place);
		if (!ret)
			ret = ixt_dpt_commit(&cmd->dpt, &place);
	}
	if (ret) {
		pr_err_ratelimited("%s: fetched data of ITT 0x%08x does not fit its table: %d\n",
				   conn->sess->initiator,
				   ixt_itt(cmd->head.itt), ret);
		ixt_conn_close(conn);
		goto out_put;
	}
	atomic_long_add(cmd->dpt.xfer_len - cmd->dpt.unsol_len,
			&conn->sess->stats.rxdata_octs);
	ixt_cost_add(IXT_COST_PAYLOAD_RX,
		     cmd->dpt.xfer_len - cmd->dpt.unsol_len);
	ixt_dataout_track(cmd, true);
	if (!test_bit(IXT_CMD_F_WRITE_PENDING, &cmd->head.flags) ||
	    test_bit(IXT_CMD_F_ABORTING, &cmd->head.flags))
		ixt_dataout_settle(cmd);
	else if (ixt_dpt_is_complete(&cmd->dpt))
		ixt_dataout_complete(cmd);
out_put:
	ixt_cmd_put(cmd);
}

/* Whether @cmd has an R2T to send, the send queue aside. */
static bool ixt_dataout_r2t_due(const struct ixt_cmd *cmd)
{
	const struct ixt_dpt *t = &cmd->dpt;

	return test_bit(IXT_CMD_F_DATA_PHASE, &cmd->head.flags) &&
	       test_bit(IXT_CMD_F_WRITE_PENDING, &cmd->head.flags) &&
	       !test_bit(IXT_CMD_F_ABORTING, &cmd->head.flags) &&
	       t->next_r2t < t->nr_entries && t->outstanding < t->max_r2t;
}

/*
 * Sends what MaxOutstandingR2T allows of @cmd's R2Ts while the send queue
 * has room (ixt_conn_tx_full()). The Data-Out that answers them is read
 * even with the queue full, so that writes end; each R2T it makes the
 * target send would otherwise go past the queue's bound, one per burst:
 * with MaxBurstLength 512 and a peer that reads nothing, as many as the
 * lines of the writes in flight hold bursts. Returns false when R2Ts are
 * left for the queue to drain.
 */
static bool ixt_dataout_issue(struct ixt_cmd *cmd)
{
	struct ixt_conn *conn = cmd->head.conn;
	struct iscsi_r2t_rsp *hdr;
	struct ixt_dpt_r2t r2t;
	struct ixt_tx_pdu *pdu;
	bool sent = false, room = true;

	while (ixt_dataout_r2t_due(cmd)) {
		if (ixt_conn_tx_full(conn)) {
			room = false;
			break;
		}
		pdu = ixt_conn_pdu_alloc(conn, ISCSI_OP_R2T, cmd->head.itt, 0);
		if (!pdu)
			break;
		if (WARN_ON_ONCE(ixt_dpt_next_r2t(&cmd->dpt, &r2t))) {
			ixt_tx_pdu_free(pdu);
			break;
		}
		sent = true;
		hdr = (struct iscsi_r2t_rsp *)&pdu->hdr;
		int_to_scsilun(cmd->se_cmd.orig_fe_lun, &hdr->lun);
		hdr->ttt = cpu_to_be32(r2t.ttt);
		hdr->r2tsn = cpu_to_be32(cmd->r2t_sn++);
		hdr->data_offset = cpu_to_be32(r2t.offset);
		hdr->data_length = cpu_to_be32(r2t.length);
		ixt_conn_queue_resp(conn, pdu, false);
	}
	ixt_dataout_track(cmd, sent);
	return room;
}

/* Sends the R2Ts put off, write after write, while the queue has room. */
static void ixt_dataout_flush(struct ixt_conn *conn)
{
	struct ixt_cmd *cmd;

	while ((cmd = list_first_entry_or_null(&conn->r2t_later,
					       struct ixt_cmd, later_entry))) {
		if (!ixt_dataout_issue(cmd))
			return;
		ixt_dataout_later_del(cmd);
	}
	clear_bit(IXT_CONN_F_R2T_LATER, &conn->flags);
}

/*
 * Puts @cmd's next R2Ts off, behind those of the writes put off before,
 * until the send queue has room: ixt_conn_tx_done() resumes the receive
 * path once the queue is down to half, and ixt_dataout_resume() sends
 * them. Until then the write is not timed for them: the target holds
 * them back, not the initiator.
 */
static void ixt_dataout_later(struct ixt_cmd *cmd)
{
	struct ixt_conn *conn = cmd->head.conn;

	if (!test_and_set_bit(IXT_CMD_F_R2T_LATER, &cmd->head.flags))
		list_add_tail(&cmd->later_entry, &conn->r2t_later);
	set_bit(IXT_CONN_F_R2T_LATER, &conn->flags);
	/*
	 * A resume since the queue was found full may have missed the bit:
	 * then the queue has drained, and ixt_conn_tx_full() sees it; if it
	 * has not, ixt_conn_tx_full() leaves the next resume to come after
	 * the bit is set.
	 */
	smp_mb__after_atomic();
	if (!ixt_conn_tx_full(conn))
		ixt_dataout_flush(conn);
}

/**
 * ixt_dataout_send_r2ts() - solicit what MaxOutstandingR2T allows
 * @cmd: a write the target core waits for.
 *
 * Each R2T asks for a run of entries of the data-pointer table: a burst
 * of MaxBurstLength bytes (the last one may be shorter) over the cache
 * lines it touches. Over RDMA, the transport fetches all of them at once
 * instead. While the send queue is full, or the R2Ts of other writes of
 * the connection wait for it to drain, the write's wait too, in turn.
 *
 * Context: Process context (the connection's receive path).
 */
void ixt_dataout_send_r2ts(struct ixt_cmd *cmd)
{
	struct ixt_conn *conn = cmd->head.conn;

	if (conn->ops->fetch) {
		ixt_dataout_fetch(cmd);
		return;
	}
	if (list_empty(&conn->r2t_later) ? !ixt_dataout_issue(cmd) :
	    ixt_dataout_r2t_due(cmd))
		ixt_dataout_later(cmd);
}

/**
 * ixt_dataout_resume() - send the R2Ts a full send queue put off
 * @conn: the connection, whose receive path runs again.
 *
 * ixt_conn_tx_done() resumes the receive path (the transport's
 * rx_resume op) once the send queue is down to half; a transport that
 * sends R2Ts (without the fetch op) calls this whenever its receive path
 * starts to run, before it reads on. The writes whose R2Ts wait get
 * them, in the order they were put off, as long as the queue has room.
 *
 * Context: Process context (the transport's receive path); takes the
 * session's rx_lock when R2Ts wait.
 */
void ixt_dataout_resume(struct ixt_conn *conn)
{
	if (!test_bit(IXT_CONN_F_R2T_LATER, &conn->flags) ||
	    ixt_conn_rx_stopped(conn))
		return;
	mutex_lock(&conn->sess->rx_lock);
	ixt_dataout_flush(conn);
	mutex_unlock(&conn->sess->rx_lock);
}

static struct ixt_cmd *ixt_dataout_find_unsol(struct ixt_conn *conn,
					      itt_t itt)
{
	struct ixt_cmd *cmd;

	list_for_each_entry(cmd, &conn->unsol_cmds, unsol_entry)
		if (cmd->head.itt == itt)
			return cmd;
	return NULL;
}

/* Finds the write a Data-Out is for, and where its data goes. */
static int ixt_dataout_place(struct ixt_conn *conn,
			     const struct iscsi_data *hdr, u32 len,
			     struct ixt_cmd **cmdp)
{
	u32 ttt = be32_to_cpu(hdr->ttt), offset = be32_to_cpu(hdr->offset);
	u32 datasn = be32_to_cpu(hdr->datasn);
	bool final = hdr->flags & ISCSI_FLAG_CMD_FINAL;
	struct ixt_cmd *cmd = NULL;
	u32 slot;
	int ret;

	if (ttt == ISCSI_RESERVED_TAG) {
		cmd = ixt_dataout_find_unsol(conn, hdr->itt);
		*cmdp = cmd;
		if (!cmd)
			return -ENOENT;
		ret = ixt_dpt_place_unsol(&cmd->dpt, offset, len, final,
					  &cmd->place);
		if (!ret && datasn != cmd->unsol_datasn)
			ret = -EPROTO;
		return ret;
	}
	if (!ixt_dpt_ttt_slot(ttt, conn->nr_slots, &slot))
		cmd = conn->slots[slot];
	*cmdp = cmd;
	if (!cmd || cmd->head.itt != hdr->itt)
		return -EPROTO;
	ret = ixt_dpt_place(&cmd->dpt, ttt, offset, len, final, &cmd->place);
	if (!ret && datasn != cmd->datasn[cmd->place.run])
		ret = -EPROTO;
	return ret;
}

/**
 * ixt_dataout_rx_hdr() - place a Data-Out PDU from its header
 * @conn: the connection, in full feature phase of a normal session.
 * @pdu: the Data-Out, its BHS checked; its data not received yet.
 *
 * The data goes straight into the cache lines of its entry of the
 * data-pointer table, once the Target Transfer Tag, the offset, the
 * length, DataSN and the F bit are found right. Unsolicited data for a
 * command that is not expecting it (one refused at its header) is
 * dropped, and so is the data of an aborted write whose lines went back
 * (it still counts, see ixt_dataout_settle()); anything else wrong is a
 * protocol error: a Reject, and the connection closes at
 * ErrorRecoveryLevel 0.
 *
 * Context: Process context (the connection's receive path).
 * Return: 0.
 */
int ixt_dataout_rx_hdr(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	const struct iscsi_data *hdr = (const struct iscsi_data *)&pdu->hdr;
	struct ixt_cmd *cmd;
	int ret;

	ret = ixt_dataout_place(conn, hdr, pdu->dlength, &cmd);
	if (ret == -ENOENT) {
		pr_debug("%s: unsolicited Data-Out for ITT 0x%08x dropped\n",
			 conn->sess->initiator, ixt_itt(hdr->itt));
		pdu->discard = true;
		pdu->ignore = true;
		return 0;
	}
	if (ret) {
		pr_err_ratelimited("%s: bad Data-Out: ITT 0x%08x TTT 0x%08x offset %u length %u DataSN %u%s\n",
				   conn->sess->initiator,
				   ixt_itt(hdr->itt), be32_to_cpu(hdr->ttt),
				   be32_to_cpu(hdr->offset), pdu->dlength,
				   be32_to_cpu(hdr->datasn),
				   cmd ? "" : " (no such transfer)");
		pdu->discard = true;
		pdu->ignore = true;
		ixt_conn_fail(conn, &pdu->hdr, cmd ?
			      ISCSI_REASON_PROTOCOL_ERROR :
			      IXT_REASON_INVALID_PDU_FIELD);
		return 0;
	}
	/*
	 * The transport writes the data into the write's lines after this
	 * returns, without the rx_lock: another connection may drop the
	 * write meanwhile (a held one aborted, or delivered while this one
	 * closes). This reference keeps it, and its lines, until the data
	 * is in (ixt_dataout_rx()) or the connection goes.
	 */
	refcount_inc(&cmd->ref);
	conn->rx_data = cmd;
	pdu->cmd = cmd;
	if (!cmd->head.nr_lines) {
		pdu->discard = true;
		return 0;
	}
	pdu->bvec = cmd->head.bvec;
	pdu->nr_bvec = cmd->head.nr_lines;
	pdu->bvec_off = be32_to_cpu(hdr->offset);
	return 0;
}

/**
 * ixt_dataout_rx_gone() - let go of a Data-Out whose data never came
 * @conn: the connection, whose receive path has stopped.
 *
 * Drops the reference ixt_dataout_rx_hdr() took on the write the
 * Data-Out being received was placed in.
 *
 * Context: Process context (the connection's release work), under the
 * session's rx_lock.
 */
void ixt_dataout_rx_gone(struct ixt_conn *conn)
{
	struct ixt_cmd *cmd = conn->rx_data;

	if (!cmd)
		return;
	conn->rx_data = NULL;
	ixt_cmd_put(cmd);
}

/**
 * ixt_dataout_rx() - a Data-Out PDU is in place
 * @conn: the connection.
 * @pdu: the Data-Out placed by ixt_dataout_rx_hdr().
 *
 * Counts the data in; solicits more when an R2T is answered in full, and
 * runs the write when its last byte is in. A write whose data phase
 * ended while the data came (dropped, see ixt_dataout_rx_hdr()) only
 * lets go: the data landed in its own lines, which go with it.
 *
 * Context: Process context (the connection's receive path).
 */
void ixt_dataout_rx(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	struct ixt_cmd *cmd = pdu->cmd;
	bool solicited = cmd->place.solicited;
	u32 run = cmd->place.run;

	conn->rx_data = NULL;
	if (!test_bit(IXT_CMD_F_DATA_PHASE, &cmd->head.flags))
		goto out_put;
	atomic_long_add(pdu->dlength, &conn->sess->stats.rxdata_octs);
	ixt_cost_add(IXT_COST_PAYLOAD_RX, pdu->dlength);
	if (ixt_dpt_commit(&cmd->dpt, &cmd->place)) {
		pr_err_ratelimited("%s: Data-Out of ITT 0x%08x too scattered\n",
				   conn->sess->initiator,
				   ixt_itt(cmd->head.itt));
		ixt_conn_fail(conn, &pdu->hdr, ISCSI_REASON_PROTOCOL_ERROR);
		goto out_put;
	}
	if (solicited) {
		cmd->datasn[run]++;
	} else {
		cmd->unsol_datasn++;
		if (cmd->dpt.unsol_received == cmd->dpt.unsol_len)
			list_del_init(&cmd->unsol_entry);
	}
	ixt_dataout_track(cmd, true);
	if (!test_bit(IXT_CMD_F_WRITE_PENDING, &cmd->head.flags) ||
	    test_bit(IXT_CMD_F_ABORTING, &cmd->head.flags))
		ixt_dataout_settle(cmd);
	else if (ixt_dpt_is_complete(&cmd->dpt))
		ixt_dataout_complete(cmd);
	else
		ixt_dataout_send_r2ts(cmd);
out_put:
	ixt_cmd_put(cmd);
}
