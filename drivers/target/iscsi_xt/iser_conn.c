// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt_iser: connections: accepting an RDMA CM request with its
 * iSER CM header, the queue pair, receive buffers and the receive path
 * that hands PDUs to the core, and teardown.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/gfp.h>
#include <linux/minmax.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/uio.h>
#include <linux/wait.h>

#include <rdma/ib_cm.h>
#include <iscsi_xt/params.h>

#include "fault.h"
#include "iser.h"

/* PDUs the receive work hands over before it yields. */
#define IXT_ISER_RX_BUDGET	32
/* How long a connection waits for the initiator to disconnect after a
 * Logout Response before it disconnects itself.
 */
#define IXT_ISER_LOGOUT_WAIT_SECS	2

/* Every iSER connection, for device removal and module exit. */
static DEFINE_SPINLOCK(ixt_iser_conns_lock);
static LIST_HEAD(ixt_iser_conns);
static DECLARE_WAIT_QUEUE_HEAD(ixt_iser_conns_wq);
static atomic_t ixt_iser_comp_vector = ATOMIC_INIT(0);

static void ixt_iser_rx_done(struct ib_cq *cq, struct ib_wc *wc);

static void ixt_iser_rx_free(struct ixt_iser_conn *ic, struct ixt_iser_rx *rx)
{
	struct ib_device *ibdev = ic->ibdev;
	u32 i;

	for (i = 0; i < IXT_ISER_RX_PAGES; i++) {
		if (!rx->pages[i])
			break;
		if (rx->sge[1 + i].addr)
			ib_dma_unmap_page(ibdev, rx->sge[1 + i].addr,
					  PAGE_SIZE, DMA_FROM_DEVICE);
		__free_page(rx->pages[i]);
	}
	if (rx->sge[0].addr)
		ib_dma_unmap_single(ibdev, rx->sge[0].addr, IXT_ISER_HDRS_LEN,
				    DMA_FROM_DEVICE);
	kfree(rx->hdr);
	kfree(rx);
}

/* A receive buffer in page-sized pieces: no high-order allocation. */
static struct ixt_iser_rx *ixt_iser_rx_alloc(struct ixt_iser_conn *ic)
{
	struct ib_device *ibdev = ic->ibdev;
	struct ixt_iser_rx *rx;
	u32 i;

	rx = ixt_fault(IXT_FAULT_ISER_RX) ? NULL :
	     kzalloc(sizeof(*rx), GFP_KERNEL);
	if (!rx)
		return NULL;
	rx->ic = ic;
	rx->cqe.done = ixt_iser_rx_done;
	rx->hdr = ixt_fault(IXT_FAULT_ISER_RX_HDR) ? NULL :
		  kzalloc(IXT_ISER_HDRS_LEN, GFP_KERNEL);
	if (!rx->hdr)
		goto out_free;
	rx->sge[0].addr = ib_dma_map_single(ibdev, rx->hdr, IXT_ISER_HDRS_LEN,
					    DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, rx->sge[0].addr)) {
		rx->sge[0].addr = 0;
		goto out_free;
	}
	rx->sge[0].length = IXT_ISER_HDRS_LEN;
	for (i = 0; i < IXT_ISER_RX_PAGES; i++) {
		rx->pages[i] = ixt_fault(IXT_FAULT_ISER_RX_PAGE) ? NULL :
			       alloc_page(GFP_KERNEL);
		if (!rx->pages[i])
			goto out_free;
		rx->sge[1 + i].addr = ib_dma_map_page(ibdev, rx->pages[i], 0,
						      PAGE_SIZE,
						      DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(ibdev, rx->sge[1 + i].addr)) {
			rx->sge[1 + i].addr = 0;
			goto out_free;
		}
		rx->sge[1 + i].length = PAGE_SIZE;
	}
	for (i = 0; i < ARRAY_SIZE(rx->sge); i++)
		rx->sge[i].lkey = ic->pd->local_dma_lkey;
	rx->wr.wr_cqe = &rx->cqe;
	rx->wr.sg_list = rx->sge;
	rx->wr.num_sge = ARRAY_SIZE(rx->sge);
	return rx;

out_free:
	ixt_iser_rx_free(ic, rx);
	return NULL;
}

static int ixt_iser_rx_post(struct ixt_iser_conn *ic, struct ixt_iser_rx *rx)
{
	struct ib_device *ibdev = ic->ibdev;
	u32 i;

	ib_dma_sync_single_for_device(ibdev, rx->sge[0].addr,
				      IXT_ISER_HDRS_LEN, DMA_FROM_DEVICE);
	for (i = 1; i < ARRAY_SIZE(rx->sge); i++)
		ib_dma_sync_single_for_device(ibdev, rx->sge[i].addr,
					      PAGE_SIZE, DMA_FROM_DEVICE);
	return ib_post_recv(ic->qp, &rx->wr, NULL);
}

/* Adds and posts receive buffers until @nr exist; returns how many do. */
static u32 ixt_iser_rx_grow(struct ixt_iser_conn *ic, u32 nr)
{
	struct ixt_iser_rx *rx;

	nr = min(nr, ic->rx_max);
	while (ic->nr_rx < nr) {
		rx = ixt_iser_rx_alloc(ic);
		if (!rx)
			break;
		if (ixt_iser_rx_post(ic, rx)) {
			ixt_iser_rx_free(ic, rx);
			break;
		}
		rx->slot = ic->nr_rx;
		ic->rx[ic->nr_rx++] = rx;
	}
	return ic->nr_rx;
}

/*
 * Lending. A write whose data came whole as immediate data keeps the
 * receive buffer it came in as its own buffer, the data where the device
 * put it, and a spare takes the buffer's place in the ring at once, so
 * that as many receives stay posted (the window is cut to them). The
 * command gives the buffer back when it is released (cmd_release op),
 * after its last use by the backend, by a TMF or by teardown: it joins
 * the spares, which the connection frees with the ring, once its commands
 * are gone.
 */

/* Whether the message is a write that brings all its data, no AHS. */
static bool ixt_iser_rx_lendable(const struct ixt_rx_pdu *pdu, u32 ahs,
				 u32 dlen)
{
	const struct iscsi_scsi_req *req = (const void *)&pdu->hdr;

	return (req->opcode & ISCSI_OPCODE_MASK) == ISCSI_OP_SCSI_CMD &&
	       !ahs && dlen && dlen == be32_to_cpu(req->data_length) &&
	       (req->flags & (ISCSI_FLAG_CMD_WRITE | ISCSI_FLAG_CMD_READ |
			      ISCSI_FLAG_CMD_FINAL)) ==
	       (ISCSI_FLAG_CMD_WRITE | ISCSI_FLAG_CMD_FINAL);
}

/*
 * A buffer to put in the ring in place of one lent: a spare, else a new
 * one; %NULL when the connection lends %IXT_ISER_LEND_MAX already, or
 * none could be made (the data is copied then).
 */
static struct ixt_iser_rx *ixt_iser_rx_spare_get(struct ixt_iser_conn *ic)
{
	struct ixt_iser_rx *rx;
	bool full;

	spin_lock_bh(&ic->rx_lock);
	full = ic->nr_lent >= IXT_ISER_LEND_MAX;
	rx = full ? NULL : list_first_entry_or_null(&ic->rx_spare,
						    struct ixt_iser_rx, entry);
	if (rx)
		list_del(&rx->entry);
	spin_unlock_bh(&ic->rx_lock);
	if (full) {
		atomic64_inc(&ixt_iser_stats.rx_lend_full);
		return NULL;
	}
	return rx ?: ixt_iser_rx_alloc(ic);
}

/* A buffer back among the spares: unused, or given back by a command. */
static void ixt_iser_rx_spare_put(struct ixt_iser_conn *ic,
				  struct ixt_iser_rx *rx, bool lent)
{
	spin_lock_bh(&ic->rx_lock);
	list_add(&rx->entry, &ic->rx_spare);
	if (lent)
		ic->nr_lent--;
	spin_unlock_bh(&ic->rx_lock);
}

/*
 * The core took @rx as the buffer of @cmd: @spare takes its slot in the
 * ring. A buffer of the backlog leaves it first: the command may be
 * released, and its buffer join the spares, as soon as the core has it.
 */
static void ixt_iser_rx_lend(struct ixt_iser_conn *ic, struct ixt_iser_rx *rx,
			     struct ixt_iser_rx *spare, struct ixt_cmd *cmd,
			     bool queued)
{
	spin_lock_bh(&ic->rx_lock);
	if (queued)
		list_del(&rx->entry);
	ic->nr_lent++;
	spin_unlock_bh(&ic->rx_lock);
	spare->slot = rx->slot;
	ic->rx[rx->slot] = spare;
	to_iser_cmd(cmd)->rx = rx;
	atomic64_inc(&ixt_iser_stats.rx_lent);
}

/* Copies a data segment from a receive buffer into the core's pages. */
static int ixt_iser_rx_copy(struct ixt_iser_rx *rx, u32 off, u32 len,
			    struct ixt_rx_pdu *pdu)
{
	struct iov_iter iter;
	u32 n;

	iov_iter_bvec(&iter, ITER_DEST, pdu->bvec, pdu->nr_bvec,
		      pdu->bvec_off + len);
	iov_iter_advance(&iter, pdu->bvec_off);
	while (len) {
		n = min_t(u32, len, PAGE_SIZE - off % PAGE_SIZE);
		if (copy_to_iter(page_address(rx->pages[off / PAGE_SIZE]) +
				 off % PAGE_SIZE, n, &iter) != n)
			return -EFAULT;
		off += n;
		len -= n;
	}
	return 0;
}

/* Copies a data segment into a buffer of its own, for the core. */
static void *ixt_iser_rx_linear(struct ixt_iser_rx *rx, u32 off, u32 len)
{
	u8 *buf = ixt_fault(IXT_FAULT_ISER_BUF) ? NULL :
		  kvmalloc(len, GFP_KERNEL);
	u32 n, done = 0;

	if (!buf)
		return NULL;
	while (done < len) {
		n = min_t(u32, len - done, PAGE_SIZE - off % PAGE_SIZE);
		memcpy(buf + done, page_address(rx->pages[off / PAGE_SIZE]) +
		       off % PAGE_SIZE, n);
		off += n;
		done += n;
	}
	return buf;
}

/* Keeps what the iSER header says of a new command's initiator buffers. */
static int ixt_iser_rx_cmd(struct ixt_iser_conn *ic,
			   const struct iser_ctrl *ctrl, struct ixt_cmd *cmd)
{
	const struct iscsi_scsi_req *req = (const void *)(ctrl + 1);
	struct ixt_iser_cmd *icmd = to_iser_cmd(cmd);
	u32 nr_lines = ixt_cmd_nr_lines(cmd);
	int ret = 0;

	icmd->flags = ctrl->flags;
	icmd->write_stag = be32_to_cpu(ctrl->write_stag);
	icmd->write_va = be64_to_cpu(ctrl->write_va);
	icmd->read_stag = be32_to_cpu(ctrl->read_stag);
	icmd->read_va = be64_to_cpu(ctrl->read_va);
	if (!nr_lines)
		return 0;
	/* Only a bidirectional command reads into a buffer of its own. */
	if (req->flags & ISCSI_FLAG_CMD_READ)
		ret = ixt_iser_xfer_alloc(&icmd->in,
					  req->flags & ISCSI_FLAG_CMD_WRITE ?
					  ixt_cmd_read_lines(cmd) : nr_lines);
	if (!ret && ixt_cmd_has_slot(cmd))
		ret = ixt_iser_xfer_alloc(&icmd->out, nr_lines);
	return ret;
}

/*
 * Hands one received message to the core; *@rxp is the buffer to post
 * again: the message's own (@queued: in the backlog), or the spare that
 * replaced it when the core took it as a command's buffer. Returns 0,
 * -EAGAIN when the core puts it off (call again with the same buffer), or
 * an errno that closes the connection.
 */
static int ixt_iser_rx_one(struct ixt_iser_conn *ic, struct ixt_iser_rx **rxp,
			   bool queued)
{
	struct ixt_iser_rx *rx = *rxp, *spare = NULL;
	const struct iser_ctrl *ctrl = rx->hdr;
	struct ixt_conn *conn = iser_to_conn(ic);
	struct ixt_rx_pdu *pdu = &ic->rx_pdu;
	u32 ahs, dlen;
	int ret;

	if (rx->byte_len < IXT_ISER_HDRS_LEN) {
		pr_err_ratelimited("%pISpc: %u-byte message, shorter than the iSER header and BHS\n",
				   ixt_conn_peer(conn), rx->byte_len);
		return -EPROTO;
	}
	if ((ctrl->flags & 0xf0) != ISCSI_CTRL) {
		pr_err_ratelimited("%pISpc: iSER message 0x%02x not supported\n",
				   ixt_conn_peer(conn), ctrl->flags);
		return -EPROTO;
	}
	memset(pdu, 0, sizeof(*pdu));
	memcpy(&pdu->hdr, ctrl + 1, ISCSI_HDR_LEN);
	ret = ixt_conn_check_hdr(conn, pdu);
	if (ret) {
		pr_err_ratelimited("%pISpc: opcode 0x%02x with %u data bytes, limit %u\n",
				   ixt_conn_peer(conn), pdu->hdr.opcode,
				   ixt_pdu_dlength(&pdu->hdr),
				   ixt_conn_max_recv_dlength(conn));
		return ret;
	}
	ahs = ixt_pdu_ahs_len(&pdu->hdr);
	dlen = ixt_pdu_dlength(&pdu->hdr);
	if (IXT_ISER_HDRS_LEN + ahs + dlen > rx->byte_len) {
		pr_err_ratelimited("%pISpc: opcode 0x%02x: %u bytes of AHS and data announced, %u received\n",
				   ixt_conn_peer(conn), pdu->hdr.opcode,
				   ahs + dlen,
				   rx->byte_len - (u32)IXT_ISER_HDRS_LEN);
		return -EPROTO;
	}
	pdu->ahs = ahs ? page_address(rx->pages[0]) : NULL;
	pdu->dlength = dlen;
	if (ixt_iser_rx_lendable(pdu, ahs, dlen)) {
		spare = ixt_iser_rx_spare_get(ic);
		if (spare) {
			pdu->lend = rx->pages;
			pdu->nr_lend = IXT_ISER_RX_PAGES;
		}
	}
	ret = ixt_conn_rx_hdr(conn, pdu);
	if (spare && (ret || !pdu->lent)) {
		ixt_iser_rx_spare_put(ic, spare, false);
		spare = NULL;
	}
	if (ret)
		return ret;
	if (spare) {
		ixt_iser_rx_lend(ic, rx, spare, pdu->cmd, queued);
		*rxp = spare;
	}
	if (pdu->cmd && (pdu->hdr.opcode & ISCSI_OPCODE_MASK) ==
	    ISCSI_OP_SCSI_CMD) {
		ret = ixt_iser_rx_cmd(ic, ctrl, pdu->cmd);
		if (ret)
			return ret;
	}
	if (dlen && !pdu->discard && !pdu->lent) {
		if (pdu->bvec) {
			ret = ixt_iser_rx_copy(rx, ahs, dlen, pdu);
			if (WARN_ON_ONCE(ret))
				return ret;
			ixt_cost_add(IXT_COST_COPIED_RX, dlen);
		} else {
			pdu->data = ixt_iser_rx_linear(rx, ahs, dlen);
			if (!pdu->data)
				return -ENOMEM;
		}
	}
	ixt_conn_rx_pdu(conn, pdu);
	kvfree(pdu->data);
	pdu->data = NULL;
	return 0;
}

/*
 * The receive path. Completions of a connection's one CQ run one at a time
 * (IB_POLL_WORKQUEUE), so its handlers hand received PDUs and fetched data
 * to the core themselves, in the order they complete. Only when the core
 * puts a PDU off (no cache lines free) does the connection fall back to
 * rx_work: from then until that work has emptied the backlog, later
 * completions queue behind it, so the order stays.
 */

/*
 * Hands a received message over and posts its buffer again; false when
 * the core puts it off. A message of the backlog (@queued) leaves it
 * before its buffer can complete again.
 */
static bool ixt_iser_rx_handle(struct ixt_iser_conn *ic,
			       struct ixt_iser_rx *rx, bool queued)
{
	struct ixt_iser_rx *post = rx;
	int ret = ixt_iser_rx_one(ic, &post, queued);

	if (ret == -EAGAIN)
		return false;
	/* A lent buffer left the backlog already (ixt_iser_rx_lend()). */
	if (queued && post == rx) {
		spin_lock_bh(&ic->rx_lock);
		list_del(&rx->entry);
		spin_unlock_bh(&ic->rx_lock);
	}
	if (ret || ixt_iser_rx_post(ic, post))
		ixt_conn_close(iser_to_conn(ic));
	return true;
}

/*
 * Whether the receive path is stopped: shutdown began, or the accept
 * failed. A receive flushed then closes nothing: a connection whose
 * accept failed is freed by ixt_iser_accept() itself, and its release
 * work must never run.
 */
static bool ixt_iser_rx_stopping(struct ixt_iser_conn *ic)
{
	bool stopping;

	spin_lock_bh(&ic->rx_lock);
	stopping = ic->stopping || ic->unpublished;
	spin_unlock_bh(&ic->rx_lock);
	return stopping;
}

static void ixt_iser_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ixt_iser_rx *rx = container_of(wc->wr_cqe, struct ixt_iser_rx,
					      cqe);
	struct ixt_iser_conn *ic = rx->ic;
	struct ib_device *ibdev = ic->ibdev;
	u32 i;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		if (ixt_iser_rx_stopping(ic))
			return;
		if (wc->status == IB_WC_WR_FLUSH_ERR) {
			ixt_iser_conn_lost(ic, "receive", " flushed");
			return;
		}
		pr_err_ratelimited("%pISpc: receive failed: %s\n",
				   ixt_iser_peer(ic),
				   ib_wc_status_msg(wc->status));
		ixt_conn_close(iser_to_conn(ic));
		return;
	}
	/*
	 * The target advertises no STag of its own: an initiator that
	 * invalidates one broke the protocol, and the MR it hit can no
	 * longer be trusted. Dropping the connection destroys them all.
	 */
	if (unlikely(wc->wc_flags & IB_WC_WITH_INVALIDATE)) {
		atomic64_inc(&ixt_iser_stats.remote_invs);
		pr_err_ratelimited("%pISpc: the initiator invalidated STag 0x%x, which the target never advertised: dropping the connection\n",
				   ixt_iser_peer(ic), wc->ex.invalidate_rkey);
		ixt_conn_close(iser_to_conn(ic));
		return;
	}
	rx->byte_len = wc->byte_len;
	ib_dma_sync_single_for_cpu(ibdev, rx->sge[0].addr, IXT_ISER_HDRS_LEN,
				   DMA_FROM_DEVICE);
	for (i = 1; i < ARRAY_SIZE(rx->sge); i++)
		ib_dma_sync_single_for_cpu(ibdev, rx->sge[i].addr, PAGE_SIZE,
					   DMA_FROM_DEVICE);
	spin_lock_bh(&ic->rx_lock);
	if (ic->stopping || ic->rx_backlog) {
		if (!ic->stopping)
			list_add_tail(&rx->entry, &ic->rx_done);
		spin_unlock_bh(&ic->rx_lock);
		return;
	}
	spin_unlock_bh(&ic->rx_lock);
	if (ixt_conn_rx_stopped(iser_to_conn(ic)) ||
	    ixt_iser_rx_handle(ic, rx, false))
		return;
	/* The core waits for cache lines: rx_work tries again soon. */
	spin_lock_bh(&ic->rx_lock);
	if (!ic->stopping) {
		ic->rx_backlog = true;
		list_add_tail(&rx->entry, &ic->rx_done);
		queue_delayed_work(ixt_wq, &ic->rx_work, 1);
	}
	spin_unlock_bh(&ic->rx_lock);
}

/**
 * ixt_iser_rx_fetched() - hand a finished fetch to the receive path
 * @ic: the connection.
 * @x: the fetch (a command's out transfer), holding its reference.
 *
 * Context: Process context (a completion handler of the connection's CQ).
 */
void ixt_iser_rx_fetched(struct ixt_iser_conn *ic, struct ixt_iser_xfer *x)
{
	struct ixt_cmd *cmd = ixt_iser_out_cmd(x);
	bool stopping, queued;

	spin_lock_bh(&ic->rx_lock);
	stopping = ic->stopping;
	queued = !stopping && ic->rx_backlog;
	if (queued)
		list_add_tail(&x->entry, &ic->fetched);
	spin_unlock_bh(&ic->rx_lock);
	if (stopping)
		ixt_cmd_put(cmd);
	else if (!queued)
		ixt_conn_fetched(iser_to_conn(ic), cmd);
}

/*
 * The backlog: what completed while the core put a PDU off, in order,
 * fetched writes first. Once it is empty, completions are handed over
 * by their handlers again.
 */
static void ixt_iser_rx_work(struct work_struct *work)
{
	struct ixt_iser_conn *ic = container_of(to_delayed_work(work),
						struct ixt_iser_conn, rx_work);
	struct ixt_conn *conn = iser_to_conn(ic);
	int budget = IXT_ISER_RX_BUDGET;
	struct ixt_iser_xfer *x;
	struct ixt_iser_rx *rx;

	while (!ixt_conn_rx_stopped(conn)) {
		if (!budget--) {
			queue_delayed_work(ixt_wq, &ic->rx_work, 0);
			return;
		}
		spin_lock_bh(&ic->rx_lock);
		x = list_first_entry_or_null(&ic->fetched,
					     struct ixt_iser_xfer, entry);
		if (x)
			list_del_init(&x->entry);
		rx = list_first_entry_or_null(&ic->rx_done,
					      struct ixt_iser_rx, entry);
		if (!x && !rx)
			ic->rx_backlog = false;
		spin_unlock_bh(&ic->rx_lock);
		if (x) {
			ixt_conn_fetched(conn, ixt_iser_out_cmd(x));
			continue;
		}
		if (!rx)
			return;
		if (!ixt_iser_rx_handle(ic, rx, true)) {
			queue_delayed_work(ixt_wq, &ic->rx_work, 1);
			return;
		}
	}
}

/* rx_resume op: the command rx_work put off may get its lines now. */
static void ixt_iser_rx_resume(struct ixt_conn *conn)
{
	mod_delayed_work(ixt_wq, &to_iser_conn(conn)->rx_work, 0);
}

/*
 * ffp_prepare op: enough receives for the command window, each command
 * with the unsolicited Data-Out it may send, plus the unexpected PDUs;
 * the window shrinks to what could be posted, so that MaxCmdSN never
 * lets the initiator send into a receive queue with no buffer.
 */
static void ixt_iser_ffp_prepare(struct ixt_conn *conn, u32 *window)
{
	struct ixt_iser_conn *ic = to_iser_conn(conn);
	const struct ixt_params *p = ixt_conn_params(conn);
	u32 unexp = IXT_ISER_UNEXPECTED, per_cmd = 1, have, fit;

	if (p->max_unexpected_pdus)
		unexp = min(unexp, p->max_unexpected_pdus);
	if (!p->initial_r2t)
		per_cmd += DIV_ROUND_UP(p->first_burst_length,
					max(p->target_recv_dlength, 512U));
	have = ixt_iser_rx_grow(ic, *window * per_cmd + unexp);
	fit = have > unexp ? (have - unexp) / per_cmd : 1;
	if (fit < *window) {
		pr_info_ratelimited("%pISpc: command window %u, for the %u receives posted\n",
				    ixt_conn_peer(conn), max(fit, 1U), have);
		*window = max(fit, 1U);
	}
}

static int ixt_iser_local_addr(struct ixt_conn *conn,
			       struct sockaddr_storage *ss)
{
	struct ixt_iser_conn *ic = to_iser_conn(conn);

	memcpy(ss, &ic->cm_id->route.addr.src_addr, sizeof(*ss));
	return 0;
}

/* show_info op: the communication context of the connection. */
static ssize_t ixt_iser_show_info(struct ixt_conn *conn, char *page,
				  ssize_t len)
{
	struct ixt_iser_conn *ic = to_iser_conn(conn);
	struct rdma_addr *a = &ic->cm_id->route.addr;

	len += sysfs_emit_at(page, len,
			     "   iSER: %pISpc <- %pISpc, device %s port %u, QP 0x%x\n",
			     &a->src_addr, &a->dst_addr,
			     dev_name(&ic->ibdev->dev), ic->cm_id->port_num,
			     ic->qpn);
	len += sysfs_emit_at(page, len,
			     "   iSER: send queue %u, receives %u, RDMA READs in flight %u, SGEs per WRITE %u per READ %u, bytes per WR %u, Send with Invalidate %s\n",
			     ic->send_depth, READ_ONCE(ic->nr_rx), ic->ord,
			     ic->max_sge_wr,
			     ic->max_sge_rd, ic->max_wr_len,
			     ic->snd_w_inv ? "yes" : "no");
	if (ic->reg)
		len += sysfs_emit_at(page, len,
				     "   iSER: RDMA READ sinks registered: %u MRs of %u pages, invalidated by %s\n",
				     ic->reg->nr, ic->reg_pages,
				     ic->reg->read_inv ? "the READ" :
							 "Local Invalidate");
	return len;
}

/* cmd_init op: the transfers of a new command are on no list. */
static void ixt_iser_cmd_init(struct ixt_cmd *cmd)
{
	struct ixt_iser_cmd *icmd = to_iser_cmd(cmd);

	INIT_LIST_HEAD(&icmd->in.entry);
	INIT_LIST_HEAD(&icmd->out.entry);
}

/*
 * cmd_release op: what the command's transfers still map and hold, and
 * the receive buffer it was lent, which joins the spares.
 */
static void ixt_iser_cmd_release(struct ixt_cmd *cmd)
{
	struct ixt_iser_cmd *icmd = to_iser_cmd(cmd);
	struct ixt_iser_conn *ic = to_iser_conn(ixt_cmd_conn(cmd));

	ixt_iser_xfer_release(ic, &icmd->in);
	ixt_iser_xfer_release(ic, &icmd->out);
	if (icmd->rx)
		ixt_iser_rx_spare_put(ic, icmd->rx, true);
}

static void ixt_iser_qp_destroy(struct ixt_iser_conn *ic)
{
	if (!ic->qp)
		return;
	if (ic->cm_id->qp)
		rdma_destroy_qp(ic->cm_id);
	else
		ib_destroy_qp(ic->qp);
	ic->qp = NULL;
}

/*
 * Signaled work requests never completed after the drain (see
 * ixt_iser_sq_wait()): destroy the queue pair, so that the device forgets
 * them, and the completion queue, which returns once no handler runs,
 * and give back what they held.
 */
static void ixt_iser_qp_abandon(struct ixt_iser_conn *ic)
{
	ixt_iser_qp_destroy(ic);
	ib_free_cq(ic->cq);
	ic->cq = NULL;
	ixt_iser_sq_abandon(ic);
}

/*
 * shutdown op: disconnect, let every work request complete (flushed),
 * stop the receive path, and free what was never sent.
 */
static void ixt_iser_shutdown(struct ixt_conn *conn)
{
	struct ixt_iser_conn *ic = to_iser_conn(conn);
	struct ixt_iser_xfer *x, *xn;
	LIST_HEAD(fetched);
	bool done;

	spin_lock_bh(&ic->tx_lock);
	ic->tx_dead = true;
	spin_unlock_bh(&ic->tx_lock);
	/*
	 * After a Logout Response (or a failed login) the initiator
	 * disconnects itself: a disconnect from the target first would
	 * look like a connection failure to it. Two seconds at most.
	 */
	if (ixt_conn_state(conn) == IXT_CONN_LOGOUT)
		wait_for_completion_timeout(&ic->cm_gone,
					    IXT_ISER_LOGOUT_WAIT_SECS * HZ);
	rdma_disconnect(ic->cm_id);
	ib_drain_qp(ic->qp);
	done = ixt_iser_sq_wait(ic);

	spin_lock_bh(&ic->rx_lock);
	ic->stopping = true;
	list_splice_init(&ic->fetched, &fetched);
	spin_unlock_bh(&ic->rx_lock);
	/*
	 * rx_work may be handing over a receive of the backlog, which
	 * stays linked on rx_done until it returns: the backlog is dropped
	 * only once rx_work is done. Run again, it stops at once (the
	 * connection is closing).
	 */
	cancel_delayed_work_sync(&ic->rx_work);
	spin_lock_bh(&ic->rx_lock);
	INIT_LIST_HEAD(&ic->rx_done);
	spin_unlock_bh(&ic->rx_lock);
	list_for_each_entry_safe(x, xn, &fetched, entry) {
		list_del_init(&x->entry);
		ixt_cmd_put(ixt_iser_out_cmd(x));
	}
	if (!done)
		ixt_iser_qp_abandon(ic);
	ixt_fault_stall(IXT_STALL_ISER_TX_STOP);
	ixt_iser_tx_stop(ic);
}

/*
 * Frees the queues, buffers and the protection domain; the caller
 * destroys the cm_id after, which lets the device go.
 */
static void ixt_iser_conn_destroy(struct ixt_iser_conn *ic)
{
	struct ixt_iser_rx *rx, *next;
	u32 i;

	ixt_iser_qp_destroy(ic);
	ixt_iser_reg_free(ic);
	if (ic->cq)
		ib_free_cq(ic->cq);
	for (i = 0; i < ic->nr_rx; i++)
		ixt_iser_rx_free(ic, ic->rx[i]);
	kvfree(ic->rx);
	/* Every command is gone: what was lent is back among the spares. */
	WARN_ON_ONCE(ic->nr_lent);
	list_for_each_entry_safe(rx, next, &ic->rx_spare, entry)
		ixt_iser_rx_free(ic, rx);
	ixt_iser_tx_free(ic);
	/* Last: nothing of the device is in it any more. */
	if (ic->pd)
		ib_dealloc_pd(ic->pd);
}

/* free op: the core is done with the connection. */
static void ixt_iser_free(struct ixt_conn *conn)
{
	struct ixt_iser_conn *ic = to_iser_conn(conn);

	/*
	 * Commands are gone: nothing uses the queue pair or the device,
	 * and no PDU is freed any more. The last one freed may have
	 * resumed the receive path (ixt_conn_tx_done()) after shutdown.
	 */
	cancel_delayed_work_sync(&ic->rx_work);
	ixt_iser_conn_destroy(ic);
	rdma_destroy_id(ic->cm_id);
	spin_lock(&ixt_iser_conns_lock);
	list_del(&ic->entry);
	spin_unlock(&ixt_iser_conns_lock);
	wake_up_all(&ixt_iser_conns_wq);
}

static const struct ixt_transport_ops ixt_iser_ops = {
	.name			= "iser",
	.flags			= IXT_XPRT_F_RDMA,
	.max_recv_dlength	= IXT_ISER_RX_DSEG,
	/* What the data SGEs of a Send map (IXT_ISER_TX_DATA_SGE). */
	.max_send_dlength	= IXT_ISER_RX_DSEG,
	.conn_priv_size		= sizeof(struct ixt_iser_conn),
	.cmd_priv_size		= sizeof(struct ixt_iser_cmd),
	.conn_fault		= IXT_FAULT_ISER_CONN,
	.cmd_fault		= IXT_FAULT_ISER_CMD,
	.cache_fault		= IXT_FAULT_ISER_CMD_CACHE,
	.queue			= ixt_iser_queue,
	.rx_resume		= ixt_iser_rx_resume,
	.shutdown		= ixt_iser_shutdown,
	.free			= ixt_iser_free,
	.local_addr		= ixt_iser_local_addr,
	.cmd_init		= ixt_iser_cmd_init,
	.cmd_release		= ixt_iser_cmd_release,
	.ffp_prepare		= ixt_iser_ffp_prepare,
	.fetch			= ixt_iser_fetch,
	.show_info		= ixt_iser_show_info,
};

/* Registered by the module's init (iser_main.c). */
struct ixt_transport ixt_iser_xprt = {
	.ops			= &ixt_iser_ops,
};

static void ixt_iser_qp_event(struct ib_event *ev, void *ctx)
{
	struct ixt_iser_conn *ic = ctx;

	pr_err_ratelimited("%pISpc: QP event %s\n", ixt_iser_peer(ic),
			   ib_event_msg(ev->event));
	if (ev->event != IB_EVENT_COMM_EST)
		ixt_conn_close(iser_to_conn(ic));
	else
		rdma_notify(ic->cm_id, ev->event);
}

/* Limits of the device, and of the debug parameters that shrink them. */
static void ixt_iser_limits(struct ixt_iser_conn *ic)
{
	const struct ib_device_attr *a = &ic->ibdev->attrs;
	struct ib_port_attr pa;
	u32 dbg;

	ic->max_sge_wr = clamp_t(u32, a->max_send_sge, 1, 32);
	ic->max_sge_rd = clamp_t(u32, a->max_sge_rd, 1, ic->max_sge_wr);
	ic->max_wr_len = SZ_1G;
	if (!ib_query_port(ic->ibdev, ic->cm_id->port_num, &pa) &&
	    pa.max_msg_sz)
		ic->max_wr_len = min_t(u32, pa.max_msg_sz, SZ_1G);
	dbg = ixt_iser_dbg_sge();
	if (dbg) {
		ic->max_sge_wr = min(ic->max_sge_wr, dbg);
		ic->max_sge_rd = min(ic->max_sge_rd, dbg);
	}
	dbg = ixt_iser_dbg_wr_len();
	if (dbg)
		ic->max_wr_len = min(ic->max_wr_len, dbg);
	/* One more of each is left for ib_drain_qp(). */
	ic->send_depth = clamp_t(u32, ixt_iser_send_depth, 4,
				 a->max_qp_wr - 1);
	ic->sq_free = ic->send_depth;
	ic->rx_max = clamp_t(u32, ixt_iser_recv_depth, IXT_ISER_LOGIN_RX,
			     a->max_qp_wr - 1);
	ic->reg_pages = ixt_iser_reg_pages(ic);
}

/*
 * Moves a queue pair of our own (InfiniBand, RoCE) to @state with what
 * the RDMA CM says of the connection, as rdma_accept() moves one of
 * rdma_create_qp(), but for the RNR retry count. The CM gives the
 * passive side the count of the initiator's connection request (that of
 * the REP is the initiator's), and an initiator that asks for 7, which
 * means for ever, and posts no receives would hold our Sends, and what
 * they carry, as long as it likes: at most %IXT_ISER_RNR_RETRY, so that
 * they fail and the connection closes.
 */
static int ixt_iser_qp_to(struct ixt_iser_conn *ic, enum ib_qp_state state,
			  const struct rdma_conn_param *param)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = rdma_init_qp_attr(ic->cm_id, &attr, &mask);
	if (ret)
		return ret;
	if (state == IB_QPS_RTR) {
		attr.max_dest_rd_atomic = param->responder_resources;
	} else if (state == IB_QPS_RTS) {
		attr.max_rd_atomic = param->initiator_depth;
		attr.rnr_retry = min_t(u8, attr.rnr_retry, IXT_ISER_RNR_RETRY);
	}
	return ib_modify_qp(ic->qp, &attr, mask);
}

/*
 * The queue pair, in INIT. Over InfiniBand and RoCE it is our own, not
 * the RDMA CM's, for ixt_iser_qp_to(); over iWARP, which has no RNR, the
 * CM's (its iw_cm moves it).
 */
static int ixt_iser_qp_create(struct ixt_iser_conn *ic)
{
	struct ib_device *ibdev = ic->ibdev;
	struct ib_qp_init_attr attr = { };
	struct ib_qp *qp;
	int ret;

	ic->cq = ixt_fault(IXT_FAULT_ISER_CQ) ? ERR_PTR(-ENOMEM) :
		 ib_alloc_cq(ibdev, ic, ic->send_depth + ic->rx_max + 4,
			     atomic_inc_return(&ixt_iser_comp_vector) %
			     ibdev->num_comp_vectors, IB_POLL_WORKQUEUE);
	if (IS_ERR(ic->cq)) {
		ret = PTR_ERR(ic->cq);
		ic->cq = NULL;
		return ret;
	}
	attr.event_handler = ixt_iser_qp_event;
	attr.qp_context = ic;
	attr.send_cq = ic->cq;
	attr.recv_cq = ic->cq;
	attr.cap.max_send_wr = ic->send_depth + 1;
	attr.cap.max_recv_wr = ic->rx_max + 1;
	attr.cap.max_send_sge = max_t(u32, ic->max_sge_wr,
				      ARRAY_SIZE(ic->tx[0]->sge));
	attr.cap.max_recv_sge = 1 + IXT_ISER_RX_PAGES;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	if (rdma_cap_ib_cm(ibdev, ic->cm_id->port_num)) {
		attr.port_num = ic->cm_id->port_num;
		qp = ixt_fault(IXT_FAULT_ISER_QP) ? ERR_PTR(-ENOMEM) :
		     ib_create_qp(ic->pd, &attr);
		if (IS_ERR(qp))
			return PTR_ERR(qp);
		ic->qp = qp;
		ret = ixt_iser_qp_to(ic, IB_QPS_INIT, NULL);
	} else {
		ret = ixt_fault(IXT_FAULT_ISER_QP) ? -ENOMEM :
		      rdma_create_qp(ic->cm_id, ic->pd, &attr);
		ic->qp = ic->cm_id->qp;
	}
	if (ret)
		return ret;
	ic->qpn = ic->qp->qp_num;
	return ixt_iser_reg_init(ic);
}

/*
 * Answers a connection request with the target's iSER CM header, our
 * own queue pair made ready to send first.
 */
static int ixt_iser_cm_accept(struct ixt_iser_conn *ic,
			      const struct rdma_conn_param *req)
{
	const struct ib_device_attr *a = &ic->ibdev->attrs;
	struct rdma_conn_param param = { };
	struct iser_cm_hdr hdr = { };
	int ret;

	hdr.flags = ISER_ZBVA_NOT_SUP;
	if (!ic->snd_w_inv)
		hdr.flags |= ISER_SEND_W_INV_NOT_SUP;
	/*
	 * The CM gives the passive side the request's depths from its own
	 * point of view (cm_format_req_event(), iWARP's IRD and ORD alike):
	 * @initiator_depth is how many RDMA READs the initiator takes at
	 * once, @responder_resources how many it may send us.
	 */
	ic->ord = min_t(u32, req->initiator_depth, a->max_qp_init_rd_atom);
	param.initiator_depth = ic->ord;
	param.responder_resources = min_t(u32, req->responder_resources,
					  a->max_qp_rd_atom);
	param.flow_control = 1;
	/*
	 * The initiator's RNR retries when we have no receive posted,
	 * which MaxCmdSN should never let happen; ours are set apart.
	 */
	param.rnr_retry_count = IXT_ISER_RNR_RETRY;
	param.private_data = &hdr;
	param.private_data_len = sizeof(hdr);
	param.qp_num = ic->qp->qp_num;
	if (!ic->cm_id->qp) {
		ret = ixt_iser_qp_to(ic, IB_QPS_RTR, &param);
		if (!ret)
			ret = ixt_iser_qp_to(ic, IB_QPS_RTS, &param);
		if (ret)
			return ret;
	}
	return rdma_accept(ic->cm_id, &param);
}

/*
 * Why a connection request is refused, or NULL. On InfiniBand and RoCE
 * the CM pads private data with zeroes: four zero bytes where the iSER
 * CM header goes count as no header. A header without ZBVA_NOT_SUP says
 * the initiator uses zero-based virtual addresses, which this target
 * never does: it addresses the initiator's buffers by their virtual
 * address. A request with no responder resources lets the target have
 * no RDMA READ in flight: no write's data could ever be fetched, and
 * each write would hold its lines until the connection went.
 */
static const char *ixt_iser_cm_req_refused(const struct rdma_conn_param *req)
{
	const struct iser_cm_hdr *cm = req->private_data;

	if (!cm || req->private_data_len < sizeof(*cm) ||
	    !memchr_inv(cm, 0, sizeof(*cm)))
		return "no iSER CM header";
	if (!(cm->flags & ISER_ZBVA_NOT_SUP))
		return "initiator wants zero-based addresses";
	if (!req->initiator_depth)
		return "no responder resources: writes could not be fetched";
	return NULL;
}

/*
 * The protection domain of a new connection, its receive ring, Send
 * descriptors, queue pair, MR pool and login receives. The PD is its
 * own: no other queue pair reaches its MRs. ixt_iser_conn_destroy()
 * undoes a partial build.
 */
static int ixt_iser_conn_build(struct ixt_iser_conn *ic)
{
	struct ib_pd *pd;
	int ret;

	pd = ixt_fault(IXT_FAULT_ISER_PD) ? ERR_PTR(-ENOMEM) :
	     ib_alloc_pd(ic->ibdev, 0);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	ic->pd = pd;
	ic->rx = ixt_fault(IXT_FAULT_ISER_RX_RING) ? NULL :
		 kvcalloc(ic->rx_max, sizeof(*ic->rx), GFP_KERNEL);
	ret = ic->rx ? ixt_iser_tx_init(ic) : -ENOMEM;
	if (ret)
		return ret;
	ret = ixt_iser_qp_create(ic);
	if (ret)
		return ret;
	if (ixt_iser_rx_grow(ic, IXT_ISER_LOGIN_RX) < IXT_ISER_LOGIN_RX)
		return -ENOMEM;
	return 0;
}

/**
 * ixt_iser_accept() - set up a connection for an RDMA CM request
 * @id: the new cm_id; its context becomes the connection.
 * @ev: the CONNECT_REQUEST event, with the iSER CM header.
 * @portal: the core's portal of the listener.
 *
 * A request without the iSER CM header is rejected, and so is one past
 * the core's cap of connections in login, before anything is built for
 * it. Otherwise the connection's protection domain, queue pair, login
 * receives and Send descriptors are set up, and the request accepted.
 *
 * Context: Process context (RDMA CM event handler).
 * Return: 0, or a negative errno: the caller returns it to the RDMA CM,
 * which then destroys @id.
 */
int ixt_iser_accept(struct rdma_cm_id *id, struct rdma_cm_event *ev,
		    struct ixt_portal *portal)
{
	const struct rdma_conn_param *req = &ev->param.conn;
	const struct iser_cm_hdr *cm = req->private_data;
	const char *refused = ixt_iser_cm_req_refused(req);
	struct ixt_iser_conn *ic;
	struct ixt_conn *conn;
	int ret;

	if (refused) {
		pr_warn_ratelimited("%pISpc: RDMA connection request rejected: %s\n",
				    &id->route.addr.dst_addr, refused);
		rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
		return -EPROTO;
	}

	conn = ixt_conn_alloc(&ixt_iser_xprt, &id->route.addr.dst_addr);
	if (!conn) {
		ret = -ENOMEM;
		goto out_reject;
	}
	ic = to_iser_conn(conn);
	ic->ctx = IXT_ISER_CTX_CONN;
	ic->cm_id = id;
	ic->snd_w_inv = !(cm->flags & ISER_SEND_W_INV_NOT_SUP);
	init_completion(&ic->cm_gone);
	spin_lock_init(&ic->rx_lock);
	spin_lock_init(&ic->tx_lock);
	init_waitqueue_head(&ic->sq_idle);
	INIT_LIST_HEAD(&ic->rx_done);
	INIT_LIST_HEAD(&ic->fetched);
	INIT_LIST_HEAD(&ic->rx_spare);
	INIT_LIST_HEAD(&ic->tx_queue);
	INIT_LIST_HEAD(&ic->rd_wait);
	INIT_LIST_HEAD(&ic->rd_posted);
	INIT_LIST_HEAD(&ic->tx_free);
	INIT_DELAYED_WORK(&ic->rx_work, ixt_iser_rx_work);

	ic->ibdev = id->device;
	ixt_iser_limits(ic);
	/* The login cap first: a request it refuses costs no queue pair. */
	ret = ixt_conn_init(conn, portal);
	if (ret)
		goto out_free;
	ret = ixt_iser_conn_build(ic);
	if (ret)
		goto out_uninit;
	id->context = &ic->ctx;
	/*
	 * The initiator may send its Login Request as soon as it is
	 * accepted: the receive waits in the backlog until the connection
	 * is published, or a failed login could close it before.
	 */
	ic->unpublished = true;
	ic->rx_backlog = true;
	ret = ixt_iser_cm_accept(ic, req);
	if (ret) {
		pr_warn_ratelimited("%pISpc: rdma_accept failed: %d\n",
				    ixt_iser_peer(ic), ret);
		goto out_uninit;
	}
	ixt_fault_stall(IXT_STALL_ISER_ACCEPT);
	spin_lock(&ixt_iser_conns_lock);
	list_add_tail(&ic->entry, &ixt_iser_conns);
	spin_unlock(&ixt_iser_conns_lock);
	ixt_conn_start(conn);
	spin_lock_bh(&ic->rx_lock);
	ic->unpublished = false;
	queue_delayed_work(ixt_wq, &ic->rx_work, 0);
	spin_unlock_bh(&ic->rx_lock);
	pr_debug("%pISpc: iSER connection on %s, QP 0x%x\n", ixt_iser_peer(ic),
		 dev_name(&id->device->dev), ic->qp->qp_num);
	return 0;

out_uninit:
	/* The RDMA CM destroys @id once this returns. */
	id->context = NULL;
	ixt_conn_uninit(conn);
	/* The login receives the queue pair flushes as it goes. */
	spin_lock_bh(&ic->rx_lock);
	ic->stopping = true;
	spin_unlock_bh(&ic->rx_lock);
	ixt_iser_conn_destroy(ic);
out_free:
	ixt_conn_free(conn);
out_reject:
	rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	return ret;
}

/**
 * ixt_iser_conn_lost() - the connection ends from below
 * @ic: the connection.
 * @what: what told of it: a flushed work request, an RDMA CM event.
 * @how: appended to @what.
 *
 * Closes the connection. When that was not under way and the connection
 * was in full feature phase (no Logout), it was lost: the initiator
 * disconnected or an iWARP peer sent a TERMINATE (whose cause, a READ
 * of an invalid STag say, only the peer knows: the target's READs just
 * flush). Says so, once, with the commands it had.
 *
 * Context: Any context but hard IRQ.
 */
void ixt_iser_conn_lost(struct ixt_iser_conn *ic, const char *what,
			const char *how)
{
	struct ixt_conn *conn = iser_to_conn(ic);

	if (ixt_conn_close(conn) &&
	    ixt_conn_state(conn) == IXT_CONN_FULL_FEATURE)
		pr_warn_ratelimited("%pISpc: connection lost: %s%s, commands in progress: %d\n",
				    ixt_conn_peer(conn), what, how,
				    ixt_conn_nr_cmds(conn));
}

/**
 * ixt_iser_conn_cm_event() - an RDMA CM event of a connection
 * @ic: the connection.
 * @ev: the event.
 *
 * Anything but the establishment ends the connection; its release work
 * destroys the cm_id.
 *
 * Context: Process context (RDMA CM event handler).
 */
void ixt_iser_conn_cm_event(struct ixt_iser_conn *ic,
			    struct rdma_cm_event *ev)
{
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED)
		return;
	complete_all(&ic->cm_gone);
	ixt_iser_conn_lost(ic, "RDMA CM event ", rdma_event_msg(ev->event));
}

/**
 * ixt_iser_conns_close() - close iSER connections and wait until gone
 * @ibdev: only those on this device; %NULL for all.
 *
 * Context: Process context; may sleep long (the connections wait for
 * their commands).
 */
void ixt_iser_conns_close(struct ib_device *ibdev)
{
	struct ixt_iser_conn *ic;
	bool left;

	for (;;) {
		left = false;
		spin_lock(&ixt_iser_conns_lock);
		list_for_each_entry(ic, &ixt_iser_conns, entry) {
			if (ibdev && ic->ibdev != ibdev)
				continue;
			left = true;
			ixt_conn_close(iser_to_conn(ic));
		}
		spin_unlock(&ixt_iser_conns_lock);
		if (!left)
			return;
		/* Woken as each goes; the next round sees who is left. */
		wait_event_timeout(ixt_iser_conns_wq, false, HZ / 10);
	}
}
