// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: SCSI commands: their buffers of cache lines, submission to
 * the target core, Data-In, SCSI Response, and the task management
 * answer. The Data-Out side of writes is in dataout.c.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/export.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/unaligned.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_proto.h>
#include <target/target_core_backend.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "cmd.h"
#include "conn.h"
#include "fault.h"
#include "pool.h"
#include "session.h"

/*
 * How long an aborted write waits for the target core to mark it, and
 * how often at most it looks: its delay grows with the time it has
 * waited, from a jiffy to a tenth of a second (about 60 looks in all).
 */
#define IXT_CMD_ABORT_WAIT	(5 * HZ)
#define IXT_CMD_ABORT_POLL_MAX	(HZ / 10)

/* How long a command's header waits for cache lines before TASK SET FULL. */
#define IXT_CMD_POOL_WAIT	(2 * HZ)

static int ixt_cmd_task_attr(u8 flags)
{
	switch (flags & ISCSI_FLAG_CMD_ATTR_MASK) {
	case ISCSI_ATTR_ORDERED:
		return TCM_ORDERED_TAG;
	case ISCSI_ATTR_HEAD_OF_QUEUE:
		return TCM_HEAD_TAG;
	case ISCSI_ATTR_ACA:
		return TCM_ACA_TAG;
	default:
		return TCM_SIMPLE_TAG;
	}
}

/* A SCSI Response built here, for what never reaches the target core. */
static void ixt_cmd_respond(struct ixt_conn *conn, itt_t itt, u8 status,
			    const u8 *sense, u32 sense_len)
{
	struct iscsi_scsi_rsp *rsp;
	struct ixt_tx_pdu *pdu;

	pdu = ixt_conn_pdu_alloc(conn, ISCSI_OP_SCSI_CMD_RSP, itt,
				 sense_len ? sense_len + 2 : 0);
	if (!pdu)
		return;
	if (sense_len) {
		put_unaligned_be16(sense_len, pdu->data);
		memcpy(pdu->data + 2, sense, sense_len);
	}
	rsp = (struct iscsi_scsi_rsp *)&pdu->hdr;
	rsp->cmd_status = status;
	ixt_conn_queue_resp(conn, pdu, true);
}

/* CHECK CONDITION, ILLEGAL REQUEST, INVALID FIELD IN CDB. */
static void ixt_cmd_refuse(struct ixt_conn *conn, itt_t itt)
{
	u8 sense[18];

	scsi_build_sense_buffer(0, sense, ILLEGAL_REQUEST, 0x24, 0x00);
	ixt_cmd_respond(conn, itt, SAM_STAT_CHECK_CONDITION, sense,
			sizeof(sense));
}

/*
 * The READs and WRITEs whose buffers only the backends touch: they take
 * a scatterlist entry per cache line. Every other command gets one per
 * page, as target core emulations that map the buffer expect.
 */
static bool ixt_cmd_sg_per_line(const u8 *cdb)
{
	switch (cdb[0]) {
	case READ_6:
	case READ_10:
	case READ_12:
	case READ_16:
	case WRITE_6:
	case WRITE_10:
	case WRITE_12:
	case WRITE_16:
		return true;
	default:
		return false;
	}
}

/* Points the arrays at inline storage, or at one allocation if too big. */
static int ixt_cmd_alloc_arrays(struct ixt_cmd *cmd, u32 nr_lines,
				u32 nr_entries, u32 sg_nents)
{
	size_t size;
	u8 *p;

	if (nr_lines <= IXT_CMD_INLINE_LINES &&
	    nr_entries <= IXT_CMD_INLINE_ENTRIES &&
	    sg_nents <= IXT_CMD_INLINE_LINES) {
		cmd->lines = cmd->inl.lines;
		cmd->dpt.entries = cmd->inl.entries;
		cmd->datasn = cmd->inl.datasn;
		cmd->sgl = cmd->inl.sgl;
		cmd->head.bvec = cmd->inl.bvec;
		return 0;
	}
	size = nr_entries * sizeof(struct ixt_dpt_entry) +
	       nr_lines * (sizeof(struct ixt_dpt_line) +
			   sizeof(struct bio_vec)) +
	       sg_nents * sizeof(struct scatterlist) +
	       nr_entries * sizeof(u32);
	p = ixt_fault(IXT_FAULT_CMD_BUF) ? NULL : kvzalloc(size, GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	cmd->big = p;
	/* Largest alignment first: every member stays aligned. */
	cmd->dpt.entries = (struct ixt_dpt_entry *)p;
	p += nr_entries * sizeof(struct ixt_dpt_entry);
	cmd->lines = (struct ixt_dpt_line *)p;
	p += nr_lines * sizeof(struct ixt_dpt_line);
	cmd->sgl = (struct scatterlist *)p;
	p += sg_nents * sizeof(struct scatterlist);
	cmd->head.bvec = (struct bio_vec *)p;
	p += nr_lines * sizeof(struct bio_vec);
	cmd->datasn = (u32 *)p;
	return 0;
}

/*
 * The command's lines go back, and leave its session's pool_use. Pages a
 * transport lent stay until the command is freed: its cmd_release op
 * takes them back.
 */
static void ixt_cmd_lines_put(struct ixt_cmd *cmd)
{
	if (test_bit(IXT_CMD_F_LENT, &cmd->head.flags))
		return;
	atomic64_sub(IXT_POOL_USE(cmd->head.nr_lines),
		     &cmd->head.conn->sess->pool_use);
	ixt_pool_put(cmd->lines, cmd->head.nr_lines);
	cmd->head.nr_lines = 0;
}

/*
 * Whether the pages the transport offers (@pdu->lend) can be the buffer
 * of the command: a write (not bidirectional: that one has an AHS) whose
 * every byte is immediate data, within the pages offered.
 */
static bool ixt_cmd_can_lend(const struct ixt_rx_pdu *pdu)
{
	const struct iscsi_scsi_req *req = (const void *)&pdu->hdr;
	u32 edtl = be32_to_cpu(req->data_length);

	return pdu->lend && !pdu->ahs &&
	       (req->flags & (ISCSI_FLAG_CMD_WRITE | ISCSI_FLAG_CMD_READ |
			      ISCSI_FLAG_CMD_FINAL)) ==
	       (ISCSI_FLAG_CMD_WRITE | ISCSI_FLAG_CMD_FINAL) &&
	       pdu->dlength == edtl &&
	       DIV_ROUND_UP(edtl, PAGE_SIZE) <= pdu->nr_lend;
}

/*
 * The transport's pages as the command's lines, one a page; no pool
 * handle: they never go back to the pool.
 */
static void ixt_cmd_lend_lines(struct ixt_cmd *cmd,
			       const struct ixt_rx_pdu *pdu, u32 nr_lines)
{
	u32 i;

	for (i = 0; i < nr_lines; i++)
		cmd->lines[i] = (struct ixt_dpt_line){
			.addr = (u64)(uintptr_t)page_address(pdu->lend[i]),
		};
	set_bit(IXT_CMD_F_LENT, &cmd->head.flags);
}

/* bvec and scatterlist over lent pages: the buffer starts at the first. */
static void ixt_cmd_map_lent(struct ixt_cmd *cmd, const struct ixt_rx_pdu *pdu,
			     u32 nr_lines, u32 len)
{
	u32 i, n;

	for (i = 0; i < nr_lines; i++, len -= n) {
		n = min_t(u32, len, PAGE_SIZE);
		bvec_set_page(&cmd->head.bvec[i], pdu->lend[i], n, 0);
		sg_set_page(&cmd->sgl[i], pdu->lend[i], n, 0);
	}
}

/*
 * Takes the cache lines of a command, or the pages its transport lends
 * (ixt_cmd_can_lend()), and lays out its data-pointer table. Returns 0,
 * -EAGAIN when the pool is short of lines, -EPROTO when the command
 * breaks the negotiated unsolicited-data rules, or -ENOMEM.
 */
static int ixt_cmd_setup_buf(struct ixt_conn *conn, struct ixt_cmd *cmd,
			     struct ixt_rx_pdu *pdu)
{
	const struct iscsi_scsi_req *req = (const void *)&pdu->hdr;
	const struct ixt_params *p = &conn->params;
	bool lend = ixt_cmd_can_lend(pdu);
	bool per_line = lend || ixt_cmd_sg_per_line(req->cdb);
	struct ixt_dpt_geom g = {
		.xfer_len = be32_to_cpu(req->data_length),
		.max_burst = p->max_burst_length,
		.max_r2t = p->max_outstanding_r2t,
		.slot = cmd->slot,
		.ttt_base = conn->ttt_gen++,
		.line_shift = lend ? PAGE_SHIFT : ixt_pool_line_shift(),
		.data_pdu_in_order = p->data_pdu_in_order,
	};
	u32 imm = pdu->dlength;
	u32 nr_lines, nr_entries;
	int ret;

	/*
	 * Over RDMA the solicited data is fetched at once: no R2T goes on
	 * the wire, and every solicited entry is asked for together.
	 */
	if (conn->ops->flags & IXT_XPRT_F_RDMA)
		g.max_r2t = IXT_DPT_MAX_ENTRIES;
	if (req->flags & ISCSI_FLAG_CMD_WRITE) {
		if (ixt_dpt_unsol_len(g.xfer_len, imm,
				      req->flags & ISCSI_FLAG_CMD_FINAL,
				      &conn->head.limits, &g.unsol_len))
			return -EPROTO;
	} else {
		g.unsol_len = g.xfer_len;
	}
	ret = ixt_dpt_count(&g, &nr_lines, &nr_entries);
	if (ret)
		return ret == -E2BIG ? -EPROTO : ret;
	if (g.xfer_len <= (1U << g.line_shift))
		per_line = true;
	/* Lines are whole pages and the buffer starts at a line. */
	cmd->sg_nents = per_line ? nr_lines :
			DIV_ROUND_UP(g.xfer_len, PAGE_SIZE);
	ret = ixt_cmd_alloc_arrays(cmd, nr_lines, nr_entries, cmd->sg_nents);
	if (ret)
		return ret;
	if (lend) {
		ixt_cmd_lend_lines(cmd, pdu, nr_lines);
	} else {
		ret = ixt_pool_get_fair(&conn->pool_waiter, cmd->lines,
					nr_lines);
		if (ret)
			goto out_free;
		atomic64_add(IXT_POOL_USE(nr_lines), &conn->sess->pool_use);
	}
	cmd->head.nr_lines = nr_lines;
	if (!g.data_pdu_in_order)
		ixt_ranges_init(&cmd->ranges, cmd->range, IXT_CMD_RANGES,
				g.xfer_len);
	ret = ixt_dpt_init(&cmd->dpt, &g, cmd->lines, nr_lines,
			   cmd->dpt.entries, nr_entries,
			   g.data_pdu_in_order ? NULL : &cmd->ranges);
	if (WARN_ON_ONCE(ret))
		goto out_put;
	memset(cmd->datasn, 0, nr_entries * sizeof(u32));
	sg_init_table(cmd->sgl, cmd->sg_nents);
	if (lend)
		ixt_cmd_map_lent(cmd, pdu, nr_lines, g.xfer_len);
	else
		ixt_pool_map(cmd->lines, nr_lines, g.first_off, g.xfer_len,
			     per_line, cmd->head.bvec, cmd->sgl);
	pdu->lent = lend;
	return 0;

out_put:
	ixt_cmd_lines_put(cmd);
	cmd->head.nr_lines = 0;
	clear_bit(IXT_CMD_F_LENT, &cmd->head.flags);
out_free:
	kvfree(cmd->big);
	cmd->big = NULL;
	return ret;
}

/* The command gives its place in the session's window back, once. */
static void ixt_cmd_window_give(struct ixt_cmd *cmd)
{
	if (!cmd->held)
		return;
	cmd->held = false;
	atomic_dec(&cmd->head.conn->sess->win_held);
}

/*
 * The core's part of the command, then the transport's; both go back to
 * the transport's cache together. The connection outlives its commands:
 * it is told last.
 */
static void ixt_cmd_free(struct ixt_cmd *cmd)
{
	struct ixt_conn *conn = cmd->head.conn;
	const struct ixt_transport_ops *ops = conn->ops;

	WARN_ON_ONCE(cmd->hole_lines);
	ixt_cmd_window_give(cmd);
	if (cmd->head.nr_lines)
		ixt_cmd_lines_put(cmd);
	ixt_bidi_free(cmd);
	kvfree(cmd->big);
	kfree(cmd->cdb);
	if (ops->cmd_release)
		ops->cmd_release(cmd);
	kmem_cache_free(conn->xprt->cmd_cache,
			(void *)cmd - ops->cmd_priv_size);
	ixt_conn_cmd_done(conn);
}

/**
 * ixt_cmd_put() - drop a reference on a command
 * @cmd: the command; freed, its lines back in the pool, with the last.
 *
 * Context: Any context but hard IRQ.
 */
void ixt_cmd_put(struct ixt_cmd *cmd)
{
	if (refcount_dec_and_test(&cmd->ref))
		ixt_cmd_free(cmd);
}
EXPORT_SYMBOL_GPL(ixt_cmd_put);

/*
 * A write waiting for Data-Out that a task management function aborts:
 * the target core marks it aborted, then waits for the fabric, which owns
 * a command in that state. Once the mark is there (or after a bound, in
 * case the function did not reach it), completing it lets the core
 * finish the abort without running the write.
 */
static void ixt_cmd_abort_work(struct work_struct *work)
{
	struct ixt_cmd *cmd = container_of(to_delayed_work(work),
					   struct ixt_cmd, abort_work);
	struct se_cmd *se_cmd = &cmd->se_cmd;
	unsigned long flags, waited;
	bool aborted;

	spin_lock_irqsave(&se_cmd->t_state_lock, flags);
	aborted = se_cmd->transport_state & CMD_T_ABORTED;
	spin_unlock_irqrestore(&se_cmd->t_state_lock, flags);
	if (!aborted && time_before(jiffies, cmd->abort_deadline)) {
		waited = jiffies - (cmd->abort_deadline - IXT_CMD_ABORT_WAIT);
		queue_delayed_work(ixt_wq, &cmd->abort_work,
				   clamp(waited / 4, 1UL, IXT_CMD_ABORT_POLL_MAX));
		return;
	}
	target_complete_cmd(se_cmd, SAM_STAT_TASK_ABORTED);
	ixt_cmd_put(cmd);
}

/**
 * ixt_cmd_alloc() - allocate a command
 * @conn: the connection it comes on.
 * @itt: its Initiator Task Tag.
 *
 * The command comes from its transport's cache, behind the transport's
 * part, which the transport's cmd_init op sets up.
 *
 * Context: Process context.
 * Return: the command, zeroed but for these and one reference, or %NULL.
 */
struct ixt_cmd *ixt_cmd_alloc(struct ixt_conn *conn, itt_t itt)
{
	const struct ixt_transport_ops *ops = conn->ops;
	struct ixt_cmd *cmd;
	void *priv;

	priv = ixt_fault(ops->cmd_fault) ? NULL :
	       kmem_cache_zalloc(conn->xprt->cmd_cache, GFP_KERNEL);
	if (!priv)
		return NULL;
	cmd = priv + ops->cmd_priv_size;
	if (ops->cmd_init)
		ops->cmd_init(cmd);
	atomic_inc(&conn->nr_cmds);
	cmd->head.conn = conn;
	cmd->head.itt = itt;
	cmd->se_cmd.tag = ixt_itt(itt);
	refcount_set(&cmd->ref, 1);
	INIT_LIST_HEAD(&cmd->unsol_entry);
	INIT_DELAYED_WORK(&cmd->abort_work, ixt_cmd_abort_work);
	return cmd;
}

/**
 * ixt_cmd_drop() - free a command the target core never got
 * @conn: its connection.
 * @cmd: the command; its data phase, if it entered one, ends.
 *
 * Context: Process context (the receive path or the release work).
 */
void ixt_cmd_drop(struct ixt_conn *conn, struct ixt_cmd *cmd)
{
	ixt_cmdsn_hole_give(cmd);
	ixt_dataout_end(cmd);
	ixt_dataout_slot_put(conn, cmd);
	ixt_cmd_put(cmd);
}

/*
 * Refuses a command at its header: its data segment is dropped, and so
 * will be the unsolicited Data-Out that may follow (their ITT is unknown).
 * Its CmdSN is taken all the same when its turn comes.
 */
static void ixt_cmd_refuse_hdr(struct ixt_conn *conn, struct ixt_rx_pdu *pdu,
			       u8 status)
{
	pdu->discard = true;
	pdu->answered = true;
	if (status == SAM_STAT_CHECK_CONDITION)
		ixt_cmd_refuse(conn, pdu->hdr.itt);
	else
		ixt_cmd_respond(conn, pdu->hdr.itt, status, NULL, 0);
}

/*
 * The pool is short of lines for a command, and every session's window
 * is capped to fit in it (pressure.c). The command waits, in turn with
 * the other connections' (see ixt_pool_get_fair()), which the receive
 * path does by calling again (-EAGAIN), unless Data-Out that writes of
 * this connection wait for would queue behind it on the socket: those
 * writes hold lines that only their data frees, so waiting would stall
 * them too. A command that does not wait, or waits %IXT_CMD_POOL_WAIT in
 * vain, is answered TASK SET FULL, which the initiator retries later: the
 * connection reads on.
 */
static int ixt_cmd_pool_wait(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	bool dataout = conn->r2t_waiting || !list_empty(&conn->unsol_cmds);

	if (!conn->pool_wait) {
		ixt_pressure_short();
		conn->pool_wait = jiffies | 1;
	}
	if (!dataout &&
	    time_before(jiffies, conn->pool_wait + IXT_CMD_POOL_WAIT))
		return -EAGAIN;
	if (dataout)
		pr_warn_ratelimited("%s: no cache line free, Data-Out queued behind: TASK SET FULL\n",
				    conn->sess->initiator);
	else
		pr_warn_ratelimited("%s: no cache line free for %u ms: TASK SET FULL\n",
				    conn->sess->initiator,
				    jiffies_to_msecs(IXT_CMD_POOL_WAIT));
	ixt_pool_leave(&conn->pool_waiter);
	ixt_pool_count_set_full();
	ixt_cmd_refuse_hdr(conn, pdu, SAM_STAT_TASK_SET_FULL);
	return 0;
}

/* ixt_cmd_rx_hdr()'s work, called again for a PDU put off (-EAGAIN). */
static int ixt_cmd_setup(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	struct iscsi_scsi_req *req = (struct iscsi_scsi_req *)&pdu->hdr;
	bool write = req->flags & ISCSI_FLAG_CMD_WRITE;
	u32 edtl = be32_to_cpu(req->data_length);
	struct ixt_pdu_ahs ahs = { };
	bool bidi;
	struct ixt_cmd *cmd;
	int ret;

	if (pdu->ahs && ixt_pdu_parse_ahs(pdu->ahs, ixt_pdu_ahs_len(&pdu->hdr),
					  &ahs, &pdu->reject)) {
		pdu->discard = true;
		return 0;
	}
	/*
	 * A CDB longer than what came of it (a variable-length CDB's byte 7
	 * against the Extended CDB AHS) is a fault of the CDB, answered as
	 * the device server would answer it: INVALID FIELD IN CDB.
	 */
	if (!ixt_pdu_cdb_complete(req->cdb, ahs.ecdb_len)) {
		pr_warn_ratelimited("%s: CDB 0x%02x refused: longer than the %u bytes received\n",
				    conn->sess->initiator, req->cdb[0],
				    ISCSI_CDB_SIZE + ahs.ecdb_len);
		ixt_cmd_refuse_hdr(conn, pdu, SAM_STAT_CHECK_CONDITION);
		return 0;
	}
	/*
	 * A bidirectional command (R and W) carries the length of its read
	 * in an AHS, and has data both ways: the target core passes it to
	 * the backend with both buffers.
	 */
	bidi = write && req->flags & ISCSI_FLAG_CMD_READ;
	if (bidi != ahs.has_bidi_read_len || edtl > IXT_MAX_XFER_LEN ||
	    (bidi && (!edtl || !ahs.bidi_read_len ||
		      ahs.bidi_read_len > IXT_MAX_XFER_LEN))) {
		pr_warn_ratelimited("%s: CDB 0x%02x refused: %s\n",
				    conn->sess->initiator, req->cdb[0],
				    bidi != ahs.has_bidi_read_len ?
				    "bidirectional without both R, W and the read length" :
				    "transfer length");
		ixt_cmd_refuse_hdr(conn, pdu, SAM_STAT_CHECK_CONDITION);
		return 0;
	}
	if (ixt_pdu_is_immediate(&pdu->hdr) &&
	    ixt_sess_window_full(conn->sess)) {
		pr_warn_ratelimited("%s: immediate CDB 0x%02x with every place of the command window held: TASK SET FULL\n",
				    conn->sess->initiator, req->cdb[0]);
		ixt_cmd_refuse_hdr(conn, pdu, SAM_STAT_TASK_SET_FULL);
		return 0;
	}

	cmd = ixt_cmd_alloc(conn, req->itt);
	if (!cmd)
		return -ENOMEM;
	cmd->cmd_sn = be32_to_cpu(req->cmdsn);
	if (ahs.ecdb) {
		/* A CDB longer than 16 bytes: the rest came in an AHS. */
		cmd->cdb = ixt_fault(IXT_FAULT_CMD_ECDB) ? NULL :
			   kmalloc(ISCSI_CDB_SIZE + ahs.ecdb_len, GFP_KERNEL);
		if (!cmd->cdb) {
			ixt_cmd_put(cmd);
			return -ENOMEM;
		}
		memcpy(cmd->cdb, req->cdb, ISCSI_CDB_SIZE);
		memcpy(cmd->cdb + ISCSI_CDB_SIZE, ahs.ecdb, ahs.ecdb_len);
	}

	if (write && edtl > pdu->dlength) {
		ret = ixt_dataout_slot_get(conn, cmd);
		if (ret) {
			ixt_cmd_put(cmd);
			if (ret != -EBUSY)
				return ret;
			ixt_cmd_refuse_hdr(conn, pdu, SAM_STAT_TASK_SET_FULL);
			return 0;
		}
	}
	if (edtl && ixt_cmdsn_hole_take(conn, cmd, &pdu->hdr,
					edtl + ahs.bidi_read_len)) {
		pr_warn_ratelimited("%s: CmdSN 0x%08x past a hole, its lines would pass the initiator's share: TASK SET FULL\n",
				    conn->sess->initiator,
				    be32_to_cpu(req->cmdsn));
		ixt_cmd_drop(conn, cmd);
		ixt_cmd_refuse_hdr(conn, pdu, SAM_STAT_TASK_SET_FULL);
		return 0;
	}
	if (edtl) {
		ret = ixt_cmd_setup_buf(conn, cmd, pdu);
		if (!ret && bidi)
			ret = ixt_bidi_setup(cmd, ahs.bidi_read_len);
		if (ret) {
			ixt_cmd_drop(conn, cmd);
			if (ret == -EAGAIN)
				return ixt_cmd_pool_wait(conn, pdu);
			if (ret != -EPROTO)
				return ret;
			pdu->reject = ISCSI_REASON_PROTOCOL_ERROR;
			pdu->discard = true;
			return 0;
		}
	}
	if (pdu->dlength) {
		/* Checked by ixt_pdu_check_bhs() and ixt_dpt_unsol_len(). */
		ret = ixt_dpt_place_unsol(&cmd->dpt, 0, pdu->dlength,
					  req->flags & ISCSI_FLAG_CMD_FINAL,
					  &cmd->place);
		if (WARN_ON_ONCE(ret)) {
			conn->rx_cmd = cmd;
			return ret;
		}
		pdu->bvec = cmd->head.bvec;
		pdu->nr_bvec = cmd->head.nr_lines;
		pdu->bvec_off = 0;
		WRITE_ONCE(conn->rx_cmd_stamp, jiffies | 1);
	}
	conn->rx_cmd = cmd;
	pdu->cmd = cmd;
	return 0;
}

/**
 * ixt_cmd_rx_hdr() - set up a SCSI command from its header
 * @conn: the connection, in full feature phase of a normal session.
 * @pdu: the SCSI Command, its BHS and CmdSN checked; its data segment
 *	(immediate data) not received yet.
 *
 * Takes the command's cache lines and points the transport at where its
 * immediate data goes. A command refused here is answered here; one the
 * pool cannot serve yet is put off: @conn->pool_wait, set while it
 * waits, tells the calls again for the same PDU from its first, which
 * alone counts it in the session's statistics.
 *
 * Context: Process context (the connection's receive path).
 * Return: 0, -EAGAIN to be called again later for the same PDU, or a
 * negative errno that closes the connection.
 */
int ixt_cmd_rx_hdr(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	int ret;

	if (!conn->pool_wait)
		atomic_long_inc(&conn->sess->stats.cmd_pdus);
	ret = ixt_cmd_setup(conn, pdu);
	if (ret != -EAGAIN)
		conn->pool_wait = 0;
	return ret;
}

/**
 * ixt_cmd_arrived() - a SCSI Command PDU is in, its immediate data too
 * @conn: the connection, in full feature phase of a normal session.
 * @pdu: the SCSI Command set up by ixt_cmd_rx_hdr().
 *
 * The immediate data counts as received, and a write expecting Data-Out
 * enters its data phase now, before its CmdSN turn: its unsolicited
 * Data-Out must land even while a CmdSN hole holds the command.
 *
 * Context: Process context (the connection's receive path).
 * Return: true; false when the data cannot be placed: the command is
 * dropped and the connection closes.
 */
bool ixt_cmd_arrived(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	struct ixt_cmd *cmd = pdu->cmd;

	/* The command now belongs to the CmdSN queue, or to its delivery. */
	conn->rx_cmd = NULL;
	WRITE_ONCE(conn->rx_cmd_stamp, 0);
	atomic_long_add(pdu->dlength, &conn->sess->stats.rxdata_octs);
	ixt_cost_add(IXT_COST_PAYLOAD_RX, pdu->dlength);
	if (pdu->dlength && ixt_dpt_commit(&cmd->dpt, &cmd->place)) {
		ixt_cmd_drop(conn, cmd);
		ixt_conn_close(conn);
		return false;
	}
	if (test_bit(IXT_CMD_F_SLOT, &cmd->head.flags))
		ixt_dataout_start(cmd);
	return true;
}

/**
 * ixt_cmd_rx_overdue() - whether a command's immediate data is too slow
 * @conn: the connection.
 * @limit: jiffies the data may take (dataout_timeout).
 *
 * A SCSI Command takes its cache lines at its header, before its
 * immediate data comes: a peer that sends the header and stops inside
 * the data would keep the lines for as long as the connection lives
 * (the NOP-In timeouts, which an ACL may turn off). Its data is timed
 * as the Data-Out of a write is (ixt_dataout_overdue()).
 *
 * Context: Any context (the watchdog).
 * Return: true when the immediate data of the command being received
 * has been coming for longer than @limit.
 */
bool ixt_cmd_rx_overdue(struct ixt_conn *conn, unsigned long limit)
{
	unsigned long stamp = READ_ONCE(conn->rx_cmd_stamp);

	return stamp && time_after(jiffies, stamp + limit);
}

/*
 * The command's lines as the target core's data buffer of @len bytes:
 * the scatterlist cut after @len, the number of entries left returned.
 * Backends such as iblock transfer as much as the scatterlist holds,
 * whatever the CDB says: given more than the CDB's blocks, they would
 * read or write past them, and past the end of the device for its last
 * ones.
 */
static u32 ixt_cmd_cut_sgl(struct ixt_cmd *cmd, u32 len)
{
	struct scatterlist *sg;
	u32 nents = 0;

	for (sg = cmd->sgl; sg && len; sg = sg_next(sg)) {
		nents++;
		if (sg->length >= len) {
			sg->length = len;
			break;
		}
		len -= sg->length;
	}
	return nents;
}

/*
 * Zeroes the first @len bytes of a read's buffer. Cache lines go from
 * command to command, and hold what the last one left, possibly another
 * initiator's data.
 */
static void ixt_cmd_zero_buf(struct bio_vec *bvec, u32 len)
{
	u32 n;

	for (; len; bvec++, len -= n) {
		n = min(bvec->bv_len, len);
		memset(bvec_virt(bvec), 0, n);
	}
}

/*
 * Whether the backend writes every byte of @se_cmd's read buffer. Not
 * the TPG's virtual LUN 0, which the core gives a session whose ACL maps
 * no LUN 0: a ramdisk with rd_nullio=1, whose READs complete GOOD
 * without a byte written.
 */
static bool ixt_cmd_backend_fills(const struct se_cmd *se_cmd)
{
	if (!(se_cmd->se_cmd_flags & SCF_SCSI_DATA_CDB) ||
	    se_cmd->se_lun == se_cmd->se_sess->se_tpg->tpg_virt_lun0)
		return false;
	switch (se_cmd->t_task_cdb[0]) {
	case READ_6:
	case READ_10:
	case READ_12:
	case READ_16:
		return true;
	default:
		return false;
	}
}

/*
 * A read's lines become its data buffer once the target core has parsed
 * the CDB, as transport_generic_map_mem_to_cmd() would do for an SGL
 * given to target_submit_prep(), but sized by what the CDB asks for (RFC
 * 7143 11.4.5.1):
 *
 * - Residual overflow, the CDB asks for more than the Expected Data
 *   Transfer Length: the core keeps data_length at the expected length,
 *   sets SCF_OVERFLOW_BIT and the residual, and the lines hold exactly
 *   that, so the initiator gets the first bytes, the O bit and the
 *   residual count. transport_generic_map_mem_to_cmd() refuses every
 *   overflow, because a fabric SGL cannot grow: a read never needs it to.
 * - Residual underflow, it asks for less: the core lowers data_length to
 *   the CDB's, and the buffer is cut there too.
 *
 * The buffer of a command other than READ is zeroed first, every byte
 * the Data-In may carry (and the core may compare): the core's emulations
 * (RECEIVE COPY RESULTS, say) may fill less than the allocation length
 * and still complete with all of it, and the lines hold what earlier
 * commands, of any session, left there. LIO zeroes the buffers it
 * allocates for such commands in transport_generic_new_cmd(); the core
 * skips that for a fabric's own buffer (SCF_PASSTHROUGH_SG_TO_MEM_NOALLOC).
 * A READ's buffer is not zeroed: its backend fills it whole (see
 * Documentation/design.rst for the null devices that do not), but for
 * the core's virtual LUN 0, one of them, which the initiator reaches by
 * itself. READ is
 * its opcode, not SCF_SCSI_DATA_CDB: the core marks COMPARE AND WRITE a
 * data CDB too, and one sent with R=1 and W=0 runs at once, comparing
 * the block with lines nobody wrote for it; its MISCOMPARE offset would
 * tell where they differ.
 *
 * The read buffer of a bidirectional command is zeroed whatever its CDB:
 * its Data-In is sent whole, whatever the backend (pscsi, TCMU) filled.
 *
 * A write's lines go with target_submit_prep(), cut to the length its
 * CDB names (resid.c).
 */
static void ixt_cmd_attach_read(struct ixt_cmd *cmd)
{
	struct se_cmd *se_cmd = &cmd->se_cmd;

	if (cmd->bidi)
		ixt_cmd_zero_buf(cmd->bidi->bvec, cmd->bidi->len);
	if (!cmd->head.nr_lines || se_cmd->data_direction != DMA_FROM_DEVICE ||
	    !se_cmd->data_length)
		return;
	if (!ixt_cmd_backend_fills(se_cmd))
		ixt_cmd_zero_buf(cmd->head.bvec, se_cmd->data_length);
	se_cmd->t_data_sg = cmd->sgl;
	se_cmd->t_data_nents = ixt_cmd_cut_sgl(cmd, se_cmd->data_length);
	se_cmd->se_cmd_flags |= SCF_PASSTHROUGH_SG_TO_MEM_NOALLOC;
}

/*
 * A LUN other than 0 that the session does not map gets here what the
 * target core would answer (LOGICAL UNIT NOT SUPPORTED): the core logs
 * each such command, without a rate limit, and a peer would fill the
 * kernel log. An unmapped LUN 0 is the virtual LUN 0, which the core
 * answers without a word. A command that may change the medium of a LUN
 * the session maps read-only gets DATA PROTECT, WRITE PROTECTED, whatever
 * its R and W bits say (ixt_cdb_writes_medium()); so does a third-party
 * copy (83h) on a session that maps any LUN read-only, since its
 * destination, in its parameter list, could be that LUN and the core
 * does not check it against the mapping. @access is how the session maps
 * @lun, looked up when @lun is not 0 or @writes (the CDB may change the
 * medium). Returns true when @cmd is answered.
 */
static bool ixt_cmd_lun_refused(struct ixt_cmd *cmd, u64 lun, const u8 *cdb,
				enum ixt_lun_access access, bool writes)
{
	struct ixt_sess *sess = cmd->head.conn->sess;
	sense_reason_t reason;

	if (!lun && !writes)
		return false;
	if (access == IXT_LUN_UNMAPPED && lun) {
		pr_warn_ratelimited("%s: a command for LUN %llu, which it does not map\n",
				    sess->initiator, lun);
		reason = TCM_NON_EXISTENT_LUN;
	} else if ((access == IXT_LUN_RO && writes) ||
		   (cdb[0] == EXTENDED_COPY && ixt_lun_any_ro(sess->se_sess))) {
		pr_warn_ratelimited("%s: CDB 0x%02x for LUN %llu refused: it may write a LUN mapped read-only\n",
				    sess->initiator, cdb[0], lun);
		reason = TCM_WRITE_PROTECTED;
	} else {
		return false;
	}
	transport_send_check_condition_and_sense(&cmd->se_cmd, reason, 0);
	target_put_sess_cmd(&cmd->se_cmd);
	return true;
}

/**
 * ixt_cmd_rx() - submit a SCSI command to the target core
 * @conn: the connection, in full feature phase of a normal session.
 * @pdu: the SCSI Command set up by ixt_cmd_rx_hdr(), its immediate data
 *	in place.
 *
 * Context: Process context (the connection's receive path).
 */
void ixt_cmd_rx(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	struct iscsi_scsi_req *req = (struct iscsi_scsi_req *)&pdu->hdr;
	u32 data_length = be32_to_cpu(req->data_length);
	struct se_session *se_sess = conn->sess->se_sess;
	u64 lun = scsilun_to_int(&req->lun);
	struct ixt_cmd *cmd = pdu->cmd;
	u8 *cdb = cmd->cdb ?: req->cdb;
	bool writes = ixt_cdb_writes_medium(cdb);
	enum ixt_lun_access access = IXT_LUN_UNMAPPED;
	struct se_lun *se_lun = NULL;
	struct ixt_resid_fit fit;
	bool fitted = false;
	int dir = DMA_NONE;
	u32 sg_nents = 0;
	bool data_phase;

	ixt_cmdsn_hole_give(cmd);
	/* Every command holds a place in the window, immediate ones too. */
	cmd->held = true;
	atomic_inc(&conn->sess->win_held);
	if (req->flags & ISCSI_FLAG_CMD_WRITE)
		dir = DMA_TO_DEVICE;
	else if (req->flags & ISCSI_FLAG_CMD_READ)
		dir = DMA_FROM_DEVICE;
	/*
	 * One lookup for the mapping check and a write's fitting: every
	 * write ixt_resid_fit_write() fits is one that changes the medium.
	 */
	if (lun || writes)
		se_lun = ixt_lun_get(se_sess, lun, &access);
	if (se_lun && dir != DMA_FROM_DEVICE && !cmd->bidi &&
	    ixt_resid_fit_write(se_lun, cdb, data_length, &fit)) {
		fitted = true;
		cdb = fit.cdb;
		data_length = fit.data_length;
	}
	if (se_lun)
		ixt_lun_put(se_lun);

	if (target_init_cmd(&cmd->se_cmd, se_sess, cmd->sense, lun,
			    data_length, ixt_cmd_task_attr(req->flags), dir,
			    TARGET_SCF_ACK_KREF |
			    (cmd->bidi ? TARGET_SCF_BIDI_OP : 0))) {
		/* The session is stopping: nobody waits for an answer. */
		ixt_cmd_drop(conn, cmd);
		return;
	}
	/*
	 * From here on the target core owns the first reference. A write
	 * in its data phase (ixt_cmd_arrived()) is kept alive by it, and
	 * holds a reference of our own until ixt_dataout_settle() has
	 * looked at it; any other command may be gone once submitted.
	 */
	data_phase = test_bit(IXT_CMD_F_DATA_PHASE, &cmd->head.flags);
	if (data_phase)
		refcount_inc(&cmd->ref);
	set_bit(IXT_CMD_F_SUBMITTED, &cmd->head.flags);
	if (dir != DMA_TO_DEVICE)
		cmd->exec_ns = ktime_get_ns();
	/* A write's lines go now; a read's once its CDB is parsed. */
	if (dir == DMA_TO_DEVICE && cmd->head.nr_lines)
		sg_nents = ixt_cmd_cut_sgl(cmd, data_length);
	/* On failure the core answers through ixt_queue_status(). */
	if (!ixt_cmd_lun_refused(cmd, lun, cdb, access, writes) &&
	    !target_submit_prep(&cmd->se_cmd, cdb,
				sg_nents ? cmd->sgl : NULL, sg_nents,
				cmd->bidi ? cmd->bidi->sgl : NULL,
				cmd->bidi ? cmd->bidi->sg_nents : 0,
				NULL, 0, GFP_KERNEL)) {
		/*
		 * A fitted write's residual, set once the core has taken its
		 * buffer: transport_generic_map_mem_to_cmd() refuses a
		 * command marked as overflowing.
		 */
		if (fitted) {
			cmd->se_cmd.se_cmd_flags |= fit.flag;
			cmd->se_cmd.residual_count = fit.residual;
		}
		ixt_cmd_attach_read(cmd);
		ixt_submit(cmd);
	}
	if (data_phase) {
		ixt_dataout_settle(cmd);
		ixt_cmd_put(cmd);
	}
}

/* U and O bits and the residual count, for Data-In and SCSI Response. */
static u8 ixt_cmd_residual(struct se_cmd *se_cmd, __be32 *residual)
{
	*residual = cpu_to_be32(se_cmd->residual_count);
	if (se_cmd->se_cmd_flags & SCF_UNDERFLOW_BIT)
		return ISCSI_FLAG_CMD_UNDERFLOW;
	if (se_cmd->se_cmd_flags & SCF_OVERFLOW_BIT)
		return ISCSI_FLAG_CMD_OVERFLOW;
	return 0;
}

/**
 * ixt_cmd_rsp_pdu() - the response PDU embedded in a command
 * @cmd: the command, whose response has not been queued yet.
 *
 * The command's place in the window is free from now on, so that the
 * MaxCmdSN the response carries opens it.
 *
 * Context: Any context.
 * Return: the PDU, zeroed; ixt_tx_pdu_free() hands it back to
 * ixt_cmd_rsp_done().
 */
struct ixt_tx_pdu *ixt_cmd_rsp_pdu(struct ixt_cmd *cmd)
{
	struct ixt_tx_pdu *pdu = &cmd->rsp;

	ixt_cmd_window_give(cmd);
	memset(pdu, 0, sizeof(*pdu));
	INIT_LIST_HEAD(&pdu->entry);
	pdu->cmd = cmd;
	return pdu;
}

/**
 * ixt_cmd_rsp_done() - the response embedded in a command is gone
 * @cmd: the command.
 *
 * Called by ixt_tx_pdu_free() once the response is sent, or dropped
 * with the connection: the fabric is done with the command.
 *
 * Context: Process context.
 */
void ixt_cmd_rsp_done(struct ixt_cmd *cmd)
{
	target_put_sess_cmd(&cmd->se_cmd);
}

/* The backend is done with @cmd: its response time goes to the window. */
static void ixt_cmd_sample(struct ixt_cmd *cmd)
{
	if (!cmd->exec_ns)
		return;
	ixt_sess_cmd_done(cmd->head.conn->sess, ktime_get_ns() - cmd->exec_ns);
	cmd->exec_ns = 0;
}

/**
 * ixt_queue_status() - send the SCSI Response of a command
 * @se_cmd: the command.
 *
 * Context: Any context the target core completes commands in.
 * Return: 0.
 */
int ixt_queue_status(struct se_cmd *se_cmd)
{
	struct ixt_cmd *cmd = to_ixt_cmd(se_cmd);
	u32 sense_len = se_cmd->scsi_sense_length;
	struct ixt_tx_pdu *pdu = ixt_cmd_rsp_pdu(cmd);
	struct iscsi_scsi_rsp *rsp;

	ixt_cmd_sample(cmd);
	if (sense_len) {
		put_unaligned_be16(sense_len, cmd->rsp_data);
		memcpy(cmd->rsp_data + 2, se_cmd->sense_buffer, sense_len);
		pdu->data = cmd->rsp_data;
		pdu->dlength = sense_len + 2;
	}
	rsp = (struct iscsi_scsi_rsp *)&pdu->hdr;
	rsp->opcode = ISCSI_OP_SCSI_CMD_RSP;
	rsp->flags = ISCSI_FLAG_CMD_FINAL |
		     ixt_cmd_residual(se_cmd, &rsp->residual_count);
	rsp->cmd_status = se_cmd->scsi_status;
	rsp->itt = cmd->head.itt;
	atomic_long_inc(&cmd->head.conn->sess->stats.rsp_pdus);
	ixt_conn_queue_resp(cmd->head.conn, pdu, true);
	return 0;
}

/**
 * ixt_queue_data_in() - send the data of a read, then its status
 * @se_cmd: the command, its data in its cache lines.
 *
 * The data goes in Data-In PDUs of at most the initiator's
 * MaxRecvDataSegmentLength, straight from the cache lines; the last one
 * carries the status (S bit) unless there is sense data, which a SCSI
 * Response then carries. They are one descriptor, a run the transport
 * sends PDU by PDU (ixt_tx_pdu_next()); over RDMA, one Data-In stands
 * for the whole buffer. A bidirectional command sends its read buffer,
 * unless it failed, and always a SCSI Response.
 *
 * Context: Any context the target core completes commands in.
 * Return: 0.
 */
int ixt_queue_data_in(struct se_cmd *se_cmd)
{
	struct ixt_cmd *cmd = to_ixt_cmd(se_cmd);
	struct ixt_conn *conn = cmd->head.conn;
	bool rdma = conn->ops->flags & IXT_XPRT_F_RDMA;
	u32 max = READ_ONCE(conn->params.max_xmit_dlength);
	u32 len = min(se_cmd->data_length, cmd->dpt.xfer_len);
	const struct bio_vec *bvec = cmd->head.bvec;
	u32 nr_bvec = cmd->head.nr_lines;
	bool status = !se_cmd->scsi_sense_length;
	struct iscsi_data_rsp *hdr;
	struct ixt_tx_pdu *pdu;
	u8 last_flags;

	ixt_cmd_sample(cmd);
	if (cmd->bidi) {
		len = se_cmd->scsi_status ? 0 : cmd->bidi->len;
		bvec = cmd->bidi->bvec;
		nr_bvec = cmd->bidi->nr_lines;
		status = false;
	}
	if (!len || !nr_bvec)
		return ixt_queue_status(se_cmd);
	/*
	 * The transport writes the data into the initiator's memory before
	 * it sends the SCSI Response that follows; it may hold the Data-In
	 * until that response is queued: every path below queues it.
	 */
	if (rdma) {
		max = len;
		status = false;
	}
	atomic_long_add(len, &conn->sess->stats.txdata_octs);
	ixt_cost_add(IXT_COST_PAYLOAD_TX, len);
	pdu = status ? ixt_cmd_rsp_pdu(cmd) : ixt_tx_pdu_alloc(0, GFP_KERNEL);
	if (!pdu) {
		/* The response still goes, to a dead link. */
		ixt_conn_close(conn);
		return ixt_queue_status(se_cmd);
	}
	pdu->bvec = bvec;
	pdu->nr_bvec = nr_bvec;
	pdu->dlength = min(len, max);
	if (rdma)
		pdu->data_cmd = cmd;
	hdr = (struct iscsi_data_rsp *)&pdu->hdr;
	hdr->opcode = ISCSI_OP_SCSI_DATA_IN;
	hdr->itt = cmd->head.itt;
	hdr->ttt = cpu_to_be32(ISCSI_RESERVED_TAG);
	last_flags = ISCSI_FLAG_CMD_FINAL;
	if (status) {
		atomic_long_inc(&conn->sess->stats.rsp_pdus);
		last_flags |= ISCSI_FLAG_DATA_STATUS |
			      ixt_cmd_residual(se_cmd, &hdr->residual_count);
		hdr->cmd_status = se_cmd->scsi_status;
	}
	if (len > max) {
		pdu->run_end = len;
		pdu->seg_max = max;
		pdu->last_flags = last_flags;
	} else {
		hdr->flags = last_flags;
	}
	ixt_conn_queue_resp(conn, pdu, status);

	if (rdma)
		ixt_fault_stall(IXT_STALL_DATA_IN);
	return status ? 0 : ixt_queue_status(se_cmd);
}

/**
 * ixt_write_pending() - the target core wants a write's data
 * @se_cmd: the command.
 *
 * Called from target_submit() in ixt_cmd_rx(), hence in the receive path
 * of the command's connection: the data may all be there (immediate
 * data) and the command runs now, or R2Ts solicit the rest.
 *
 * Context: Process context (the connection's receive path).
 * Return: 0.
 */
int ixt_write_pending(struct se_cmd *se_cmd)
{
	struct ixt_cmd *cmd = to_ixt_cmd(se_cmd);

	set_bit(IXT_CMD_F_WRITE_PENDING, &cmd->head.flags);
	if (ixt_dpt_is_complete(&cmd->dpt)) {
		if (test_bit(IXT_CMD_F_DATA_PHASE, &cmd->head.flags))
			ixt_dataout_end(cmd);
		ixt_cmd_execute(cmd);
		return 0;
	}
	ixt_dataout_send_r2ts(cmd);
	return 0;
}

/**
 * ixt_cmd_execute() - a write's data is all in: let the backend run it
 * @cmd: the write, whose data phase has ended.
 *
 * Context: Process context (the connection's receive path).
 */
void ixt_cmd_execute(struct ixt_cmd *cmd)
{
	cmd->exec_ns = ktime_get_ns();
	ixt_submit_execute(cmd);
}

/**
 * ixt_check_stop_free() - the target core is done with a command
 * @se_cmd: the command.
 *
 * Context: Any context.
 * Return: what target_put_sess_cmd() returns.
 */
int ixt_check_stop_free(struct se_cmd *se_cmd)
{
	return target_put_sess_cmd(se_cmd);
}

/**
 * ixt_release_cmd() - the target core lets go of a command
 * @se_cmd: the command, no longer referenced by the core.
 *
 * Context: Any context.
 */
void ixt_release_cmd(struct se_cmd *se_cmd)
{
	ixt_cmd_put(to_ixt_cmd(se_cmd));
}

/**
 * ixt_aborted_task() - the target core aborted a command
 * @se_cmd: the command; nothing of it is queued, and the core drops the
 *	reference its response would have. A task management function
 *	among them is answered still (ixt_tmf_aborted()).
 *
 * Context: Process context (the target core's abort and reset work).
 */
void ixt_aborted_task(struct se_cmd *se_cmd)
{
	if (se_cmd->se_cmd_flags & SCF_SCSI_TMR_CDB)
		ixt_tmf_aborted(to_ixt_cmd(se_cmd));
}

/**
 * ixt_cmd_abort_write() - a task management function aborts a write
 *	that waits for Data-Out
 * @cmd: the write, in its data phase, the core waiting for its data.
 *
 * No more R2Ts go out for it and it will not run; its cache lines go
 * back to the pool at once (ixt_dataout_settle()). The Data-Out already
 * solicited is still received, and dropped, and the data phase ends
 * when it is in or the connection goes.
 *
 * Context: Process context, under the session's rx_lock (the receive
 * path of any connection of the session, or the watchdog of the write's:
 * ixt_dataout_abort_marked()).
 */
void ixt_cmd_abort_write(struct ixt_cmd *cmd)
{
	if (test_and_set_bit(IXT_CMD_F_ABORTING, &cmd->head.flags))
		return;
	refcount_inc(&cmd->ref);
	cmd->abort_deadline = jiffies + IXT_CMD_ABORT_WAIT;
	queue_delayed_work(ixt_wq, &cmd->abort_work, 0);
	ixt_dataout_settle(cmd);
}

/**
 * ixt_cmd_shed_lines() - give back the cache lines of an aborted write
 * @cmd: a write in its data phase that will never run (aborted), still
 *	waiting for Data-Out solicited or unsolicited before the abort.
 *
 * Its lines go back to the pool at once, not when the initiator sends
 * data it may never send: the Data-Out that still comes for the write
 * is checked and counted as before, its data read and dropped
 * (ixt_dataout_rx_hdr()). The command itself keeps its slot, its place
 * in the window and its reference until that data is in or the
 * connection goes. The target core still has the write's SGL over the
 * lines, but neither runs nor reads an aborted write.
 *
 * Not while data is on its way into the lines: a Data-Out's segment
 * being received without the rx_lock (conn->rx_data), whose
 * ixt_dataout_rx() settles the write again, or an RDMA fetch, which
 * ends with ixt_dataout_fetched() and the whole solicited data in.
 *
 * Context: Process context, under the session's rx_lock.
 */
void ixt_cmd_shed_lines(struct ixt_cmd *cmd)
{
	if (!cmd->head.nr_lines || cmd->head.conn->rx_data == cmd ||
	    test_bit(IXT_CMD_F_FETCHING, &cmd->head.flags))
		return;
	ixt_cmd_lines_put(cmd);
}

/**
 * ixt_cmd_conn_gone() - end the commands a closing connection still feeds
 * @conn: the connection, whose I/O has stopped.
 *
 * A command whose header was in but not its immediate data never reached
 * the core: it is freed, and a write a Data-Out's data was going into is
 * let go (ixt_dataout_rx_gone()). A write that waits for Data-Out is
 * completed with TASK ABORTED (unless an abort does it already), so that
 * the core can let it go, and its data phase ends. Called before the session, or
 * the connection, waits for the commands.
 *
 * Context: Process context (the connection's release work), under the
 * session's rx_lock.
 */
void ixt_cmd_conn_gone(struct ixt_conn *conn)
{
	struct ixt_cmd *cmd = conn->rx_cmd;
	u32 i;

	if (cmd) {
		conn->rx_cmd = NULL;
		WRITE_ONCE(conn->rx_cmd_stamp, 0);
		ixt_cmd_drop(conn, cmd);
	}
	ixt_dataout_rx_gone(conn);
	for (i = 0; i < conn->nr_slots; i++) {
		cmd = conn->slots[i];
		if (!cmd)
			continue;
		if (test_bit(IXT_CMD_F_WRITE_PENDING, &cmd->head.flags) &&
		    !test_bit(IXT_CMD_F_ABORTING, &cmd->head.flags))
			target_complete_cmd(&cmd->se_cmd,
					    SAM_STAT_TASK_ABORTED);
		ixt_dataout_end(cmd);
	}
}

/**
 * ixt_cmd_read_lines() - the cache lines of a command's read buffer
 * @cmd: the command, its buffer set up (ixt_conn_rx_hdr()).
 *
 * Context: Any context.
 * Return: the number of lines of the buffer Data-In comes from: the
 * read buffer of a bidirectional command, the only buffer of any other.
 */
u32 ixt_cmd_read_lines(const struct ixt_cmd *cmd)
{
	return cmd->bidi ? cmd->bidi->nr_lines : cmd->head.nr_lines;
}
EXPORT_SYMBOL_GPL(ixt_cmd_read_lines);

/**
 * ixt_transport_register() - make a transport's connections possible
 * @xprt: the transport, its ops set.
 *
 * Creates the cache its commands come from: the transport's part
 * (&ixt_transport_ops.cmd_priv_size bytes, a multiple of
 * %IXT_PRIV_ALIGN) and the core's &struct ixt_cmd in each object.
 *
 * Context: Process context (module init).
 * Return: 0, -EINVAL for a private part of the wrong size, -ENOMEM.
 */
int ixt_transport_register(struct ixt_transport *xprt)
{
	const struct ixt_transport_ops *ops = xprt->ops;
	char name[32];

	if (WARN_ON(!IS_ALIGNED(ops->cmd_priv_size, IXT_PRIV_ALIGN) ||
		    !IS_ALIGNED(ops->conn_priv_size, IXT_PRIV_ALIGN)))
		return -EINVAL;
	/* The slab keeps a copy of the name. */
	snprintf(name, sizeof(name), "ixt_cmd_%s", ops->name);
	xprt->cmd_cache = ixt_fault(ops->cache_fault) ? NULL :
			  kmem_cache_create(name, ops->cmd_priv_size +
					    sizeof(struct ixt_cmd),
					    IXT_PRIV_ALIGN, 0, NULL);
	return xprt->cmd_cache ? 0 : -ENOMEM;
}
EXPORT_SYMBOL_GPL(ixt_transport_register);

/**
 * ixt_transport_unregister() - undo ixt_transport_register()
 * @xprt: the transport, every connection of which is freed.
 *
 * Context: Process context (module exit).
 */
void ixt_transport_unregister(struct ixt_transport *xprt)
{
	kmem_cache_destroy(xprt->cmd_cache);
	xprt->cmd_cache = NULL;
}
EXPORT_SYMBOL_GPL(ixt_transport_unregister);
