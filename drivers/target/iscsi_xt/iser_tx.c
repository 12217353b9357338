// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt_iser: the send queue: PDUs as Sends, Data-In as RDMA WRITEs
 * and fetches of solicited data as RDMA READs, built by the coalesce/
 * divide descriptor builder (rdma_desc) over the command's cache lines.
 *
 * Every work request holds one send queue slot until it completes. Only
 * some are signaled: every Send, the last RDMA READ of a fetch, and the
 * last work request of each batch of a transfer, unless it is the end of
 * a Data-In with a Send chained behind it (below), or with room left for
 * the largest unit posted at once (the command's response, a Send that
 * follows it, completes it). A signaled completion gives back its own
 * slot and those of the unsignaled work requests posted before it: the
 * credits of the signaled ones wait in a ring, in the order posted. Only
 * the completion of a READ that ends a batch gives back the MRs of
 * registered READs (iser_reg.c): an iWARP device may report a Send posted
 * after a READ complete before it. A send queue without room for that
 * largest unit always ends with a signaled work request, so a completion
 * is always to come.
 *
 * A transfer that finds the queue full, or the MR pool empty, keeps its
 * request state and continues when completions give them back: no
 * transfer is refused for its size, and the queue is not sized for the
 * worst case. PDUs go out in the order they were queued (StatSN order):
 * a Data-In keeps the PDUs behind it, its command's response first,
 * waiting until its last RDMA WRITE is posted.
 *
 * The last RDMA WRITEs of a Data-In and the Send queued right behind it
 * (its command's response, unless a PDU of another context came in
 * between) go in one ib_post_send(), the Send linked behind the last
 * WRITE, when a Send descriptor and a slot for it are free: one pass
 * through the device's send queue processing instead of two, as in LIO's
 * isert. The Send, signaled, then completes those WRITEs. To find its
 * response there, a Data-In with nothing queued behind it is not posted:
 * the core queues the response right after it, in every case, and that
 * queue call posts both. Once the Send is posted, its completion may
 * free the command, with its transfer, on another CPU: nothing of the
 * command is touched after that post. When the post fails, nothing from
 * the failed work request on was posted, so the Send was not: its
 * descriptor goes back to the free list and its PDU back behind the
 * Data-In, for the teardown to free.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bvec.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "fault.h"
#include "iser.h"

/**
 * ixt_iser_xfer_alloc() - make room for the pieces of a transfer
 * @x: the transfer, zeroed.
 * @nr_pieces: bio_vecs of the buffer it will move.
 *
 * Context: Process context.
 * Return: 0 or -ENOMEM.
 */
int ixt_iser_xfer_alloc(struct ixt_iser_xfer *x, u32 nr_pieces)
{
	if (nr_pieces <= IXT_ISER_XFER_INLINE) {
		x->pieces = x->inl;
	} else {
		x->pieces = ixt_fault(IXT_FAULT_ISER_XFER_PIECES) ? NULL :
			    kcalloc(nr_pieces, sizeof(*x->pieces), GFP_KERNEL);
		if (!x->pieces)
			return -ENOMEM;
	}
	x->max_pieces = nr_pieces;
	return 0;
}

/**
 * ixt_iser_xfer_release() - unmap a transfer and free its pieces
 * @ic: its connection.
 * @x: the transfer, none of whose work requests is outstanding.
 *
 * Context: Any context but hard IRQ.
 */
void ixt_iser_xfer_release(struct ixt_iser_conn *ic, struct ixt_iser_xfer *x)
{
	struct ib_device *ibdev = ic->ibdev;
	u32 i;

	if (x->mapped) {
		for (i = 0; i < x->nr_pieces; i++)
			ib_dma_unmap_page(ibdev, x->pieces[i].addr,
					  x->pieces[i].len,
					  x->read ? DMA_FROM_DEVICE :
						    DMA_TO_DEVICE);
		x->mapped = false;
	}
	if (x->pieces != x->inl)
		kfree(x->pieces);
	x->pieces = NULL;
	x->max_pieces = 0;
}

/*
 * Maps bytes [@off, @off + @len) of a buffer, line by line, into the
 * transfer's pieces, and starts the builder on them towards @raddr.
 */
static int ixt_iser_xfer_start(struct ixt_iser_conn *ic,
			       struct ixt_iser_xfer *x,
			       const struct bio_vec *bvec, u32 nr_bvec,
			       u32 off, u32 len, u64 raddr)
{
	struct ib_device *ibdev = ic->ibdev;
	struct ixt_rd_limits lim = {
		.max_sge = x->read ? ic->max_sge_rd : ic->max_sge_wr,
		.max_wr_len = ic->max_wr_len,
	};
	enum dma_data_direction dir = x->read ? DMA_FROM_DEVICE :
						DMA_TO_DEVICE;
	u32 i, n, left = len;
	u64 dma;

	x->nr_pieces = 0;
	x->mapped = true;
	for (i = 0; i < nr_bvec && left; i++) {
		if (off >= bvec[i].bv_len) {
			off -= bvec[i].bv_len;
			continue;
		}
		n = min(bvec[i].bv_len - off, left);
		if (WARN_ON_ONCE(x->nr_pieces == x->max_pieces))
			return -EINVAL;
		dma = ib_dma_map_page(ibdev, bvec[i].bv_page,
				      bvec[i].bv_offset + off, n, dir);
		if (ib_dma_mapping_error(ibdev, dma))
			return -ENOMEM;
		x->pieces[x->nr_pieces].addr = dma;
		x->pieces[x->nr_pieces].len = n;
		x->nr_pieces++;
		left -= n;
		off = 0;
	}
	if (left)
		return -EINVAL;
	if (x->read && ic->reg) {
		/* Each READ's SGEs become the page list of one MR. */
		lim.page_size = PAGE_SIZE;
		lim.max_pages = ic->reg_pages;
		lim.max_sge = ic->reg_pages;
	}
	atomic64_inc(&ixt_iser_stats.xfers);
	return ixt_rd_init(&x->st, x->pieces, x->nr_pieces, raddr, len, &lim);
}

/*
 * A failed work request ends the connection; a flushed one is expected
 * once the connection ends, and tells of its end when it comes first.
 */
static bool ixt_iser_wc_ok(struct ixt_iser_conn *ic, struct ib_wc *wc,
			   const char *what)
{
	if (likely(wc->status == IB_WC_SUCCESS))
		return true;
	if (wc->status == IB_WC_WR_FLUSH_ERR) {
		ixt_iser_conn_lost(ic, what, " flushed");
		return false;
	}
	pr_err_ratelimited("%pISpc: %s failed: %s (vendor error 0x%x)\n",
			   ixt_iser_peer(ic), what,
			   ib_wc_status_msg(wc->status), wc->vendor_err);
	ixt_conn_close(iser_to_conn(ic));
	return false;
}

static void ixt_iser_tx_kick(struct ixt_iser_conn *ic);

/*
 * Under tx_lock: @wr is signaled, and its completion gives back @n slots
 * (its own and those of the work requests posted in its chain before
 * it) and those of the unsignaled ones posted before that.
 */
static void ixt_iser_sq_signal(struct ixt_iser_conn *ic,
			       struct ib_send_wr *wr, u32 n)
{
	u32 head = (ic->sq_cr_tail + ic->sq_cr_nr) % ic->send_depth;

	wr->send_flags |= IB_SEND_SIGNALED;
	ic->sq_credits[head] = n + ic->sq_unsig;
	ic->sq_cr_nr++;
	ic->sq_unsig = 0;
}

/*
 * Under tx_lock: the signaled work request of ixt_iser_sq_signal(), the
 * newest, was not posted after all (ib_post_send() failed at it or
 * before it): no completion will give its credit back.
 */
static void ixt_iser_sq_unsignal(struct ixt_iser_conn *ic)
{
	ic->sq_cr_nr--;
}

/*
 * Under tx_lock: a signaled work request completed, @flushed or failed
 * unless it succeeded. A flushed one may be a second completion of the
 * same work request (siw: a READ held back by a full ORQ, then moved to
 * it), which finds nothing to give back.
 */
static void ixt_iser_sq_credit(struct ixt_iser_conn *ic, bool flushed)
{
	lockdep_assert_held(&ic->tx_lock);
	if (!ic->sq_cr_nr) {
		WARN_ON_ONCE(!flushed);
		return;
	}
	ic->sq_free += ic->sq_credits[ic->sq_cr_tail];
	ic->sq_cr_tail = (ic->sq_cr_tail + 1) % ic->send_depth;
	if (!--ic->sq_cr_nr && ic->tx_dead)
		wake_up(&ic->sq_idle);
}

/*
 * A signaled work request completed: its slots are free again, and if it
 * ends a batch of RDMA READs (@read), the MRs of the batch.
 */
static void ixt_iser_slot_done(struct ixt_iser_conn *ic, bool read,
			       bool flushed)
{
	spin_lock_bh(&ic->tx_lock);
	ixt_iser_sq_credit(ic, flushed);
	/* A READ completed twice finds no batch left (above). */
	if (read && ic->reg && (ic->reg->b_nr || !flushed))
		ixt_iser_reg_put(ic);
	ixt_iser_tx_kick(ic);
	spin_unlock_bh(&ic->tx_lock);
}

static void ixt_iser_credit_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ixt_iser_conn *ic = cq->cq_context;

	ixt_iser_slot_done(ic, false, !ixt_iser_wc_ok(ic, wc, "RDMA WRITE"));
}

static void ixt_iser_rd_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ixt_iser_conn *ic = cq->cq_context;

	ixt_iser_slot_done(ic, true, !ixt_iser_wc_ok(ic, wc, "RDMA READ"));
}

/* Only an unsignaled work request that failed completes here. */
static void ixt_iser_unsig_done(struct ib_cq *cq, struct ib_wc *wc)
{
	ixt_iser_wc_ok(cq->cq_context, wc, "RDMA transfer");
}

/*
 * The last RDMA READ of a fetch is done: the data is in the lines. A
 * failed or flushed fetch is not touched: it stays on rd_posted for
 * ixt_iser_tx_stop(), as a second completion of the same READ may come.
 */
static void ixt_iser_out_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ixt_iser_xfer *x = container_of(wc->wr_cqe,
					       struct ixt_iser_xfer, cqe);
	struct ixt_iser_conn *ic = cq->cq_context;

	if (!ixt_iser_wc_ok(ic, wc, "RDMA READ")) {
		ixt_iser_slot_done(ic, true, true);
		return;
	}
	spin_lock_bh(&ic->tx_lock);
	list_del_init(&x->entry);
	spin_unlock_bh(&ic->tx_lock);
	ixt_iser_xfer_release(ic, x);
	ixt_iser_rx_fetched(ic, x);
	ixt_iser_slot_done(ic, true, false);
}

/* The transmit side failed: nothing more is posted, the connection ends. */
static void ixt_iser_tx_fail(struct ixt_iser_conn *ic)
{
	ic->tx_dead = true;
	ixt_conn_close(iser_to_conn(ic));
}

/* Turns @n work requests the builder made into a chain to post. */
static void ixt_iser_xfer_wrs(struct ixt_iser_conn *ic,
			      struct ixt_iser_xfer *x, u32 n)
{
	const struct ixt_rd_wr *rw;
	const struct ixt_rd_sge *rs;
	struct ib_rdma_wr *w;
	struct ib_sge *sge;
	u32 i, j;

	for (i = 0; i < n; i++) {
		rw = &ic->rd_wr[i];
		rs = &ic->rd_sge[rw->sge_first];
		sge = &ic->ib_sge[rw->sge_first];
		for (j = 0; j < rw->nr_sge; j++) {
			sge[j].addr = rs[j].addr;
			sge[j].length = rs[j].len;
			sge[j].lkey = ic->pd->local_dma_lkey;
		}
		w = &ic->ib_wr[i];
		memset(w, 0, sizeof(*w));
		w->wr.opcode = x->read ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE;
		w->wr.wr_cqe = &ic->unsig_cqe;
		w->wr.sg_list = sge;
		w->wr.num_sge = rw->nr_sge;
		w->wr.next = i + 1 < n ? &ic->ib_wr[i + 1].wr : NULL;
		w->remote_addr = rw->raddr;
		w->rkey = x->rkey;
	}
}

/* Maps the data segment of a PDU into the SGEs of a Send. */
static int ixt_iser_tx_map(struct ixt_iser_conn *ic, struct ixt_iser_tx *tx,
			   struct ixt_tx_pdu *pdu)
{
	struct ib_device *ibdev = ic->ibdev;
	u8 *p = pdu->data;
	u32 left = pdu->dlength, n;
	struct page *page;
	struct ib_sge *sge;
	u64 dma;

	if (WARN_ON_ONCE(left && !p))
		return -EINVAL;
	tx->nr_sge = 1;
	while (left) {
		if (tx->nr_sge == ARRAY_SIZE(tx->sge))
			return -EMSGSIZE;
		n = min_t(u32, left, PAGE_SIZE - offset_in_page(p));
		page = is_vmalloc_addr(p) ? vmalloc_to_page(p) :
					    virt_to_page(p);
		dma = ib_dma_map_page(ibdev, page, offset_in_page(p), n,
				      DMA_TO_DEVICE);
		if (ib_dma_mapping_error(ibdev, dma))
			return -ENOMEM;
		sge = &tx->sge[tx->nr_sge++];
		sge->addr = dma;
		sge->length = n;
		sge->lkey = ic->pd->local_dma_lkey;
		p += n;
		left -= n;
	}
	return 0;
}

static void ixt_iser_tx_unmap(struct ixt_iser_conn *ic,
			      struct ixt_iser_tx *tx)
{
	u32 i;

	for (i = 1; i < tx->nr_sge; i++)
		ib_dma_unmap_page(ic->ibdev, tx->sge[i].addr,
				  tx->sge[i].length, DMA_TO_DEVICE);
	tx->nr_sge = 1;
}

static void ixt_iser_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ixt_iser_tx *tx = container_of(wc->wr_cqe, struct ixt_iser_tx,
					      cqe);
	struct ixt_iser_conn *ic = tx->ic;
	struct ixt_tx_pdu *pdu = tx->pdu;
	bool ok;

	if (ixt_iser_send_lost())
		return;
	ok = ixt_iser_wc_ok(ic, wc, "Send");
	ixt_iser_tx_unmap(ic, tx);
	tx->pdu = NULL;
	ixt_conn_tx_done(iser_to_conn(ic), pdu);
	spin_lock_bh(&ic->tx_lock);
	list_add(&tx->entry, &ic->tx_free);
	ixt_iser_sq_credit(ic, !ok);
	ixt_iser_tx_kick(ic);
	spin_unlock_bh(&ic->tx_lock);
}

/*
 * The STag a response invalidates: the one the initiator registered for
 * the command, when it takes Send with Invalidate. A bidirectional
 * command has two, and a Send invalidates at most one: it gets neither.
 */
static u32 ixt_iser_inv_rkey(struct ixt_iser_conn *ic,
			     const struct ixt_tx_pdu *pdu)
{
	struct ixt_iser_cmd *icmd;

	if (!ic->snd_w_inv || !pdu->cmd ||
	    pdu->hdr.opcode != ISCSI_OP_SCSI_CMD_RSP)
		return 0;
	icmd = to_iser_cmd(pdu->cmd);
	switch (icmd->flags & (ISER_RSV | ISER_WSV)) {
	case ISER_RSV:
		return icmd->read_stag;
	case ISER_WSV:
		return icmd->write_stag;
	default:
		return 0;
	}
}

/*
 * Builds the Send of @pdu in the first free descriptor, which stays free
 * until ixt_iser_send_take(). Returns 0 with *@txp, -EBUSY when no
 * descriptor is free, or another error when the PDU cannot be mapped (it
 * is said, and the connection is to fail).
 */
static int ixt_iser_send_build(struct ixt_iser_conn *ic,
			       struct ixt_tx_pdu *pdu,
			       struct ixt_iser_tx **txp)
{
	struct ib_device *ibdev = ic->ibdev;
	struct ixt_iser_tx *tx;
	struct iser_ctrl *ctrl;
	u32 rkey;
	int ret;

	lockdep_assert_held(&ic->tx_lock);
	tx = list_first_entry_or_null(&ic->tx_free, struct ixt_iser_tx,
				      entry);
	if (!tx)
		return -EBUSY;
	ret = ixt_iser_tx_map(ic, tx, pdu);
	if (ret) {
		pr_err_ratelimited("%pISpc: cannot send opcode 0x%02x with %u data bytes: %d\n",
				   ixt_iser_peer(ic), pdu->hdr.opcode,
				   pdu->dlength, ret);
		ixt_iser_tx_unmap(ic, tx);
		return ret;
	}
	ctrl = tx->hdr;
	memset(ctrl, 0, sizeof(*ctrl));
	ctrl->flags = ISCSI_CTRL;
	memcpy(ctrl + 1, &pdu->hdr, ISCSI_HDR_LEN);
	ib_dma_sync_single_for_device(ibdev, tx->sge[0].addr,
				      IXT_ISER_HDRS_LEN, DMA_TO_DEVICE);

	memset(&tx->wr, 0, sizeof(tx->wr));
	tx->wr.wr_cqe = &tx->cqe;
	tx->wr.sg_list = tx->sge;
	tx->wr.num_sge = tx->nr_sge;
	rkey = ixt_iser_inv_rkey(ic, pdu);
	if (rkey) {
		tx->wr.opcode = IB_WR_SEND_WITH_INV;
		tx->wr.ex.invalidate_rkey = rkey;
		atomic64_inc(&ixt_iser_stats.send_invs);
	} else {
		tx->wr.opcode = IB_WR_SEND;
	}
	*txp = tx;
	return 0;
}

/*
 * Takes the descriptor of a Send built for @pdu, the PDU off the queue
 * and a signaled slot, just before the post: the Send may complete on
 * another CPU before ib_post_send() returns.
 */
static void ixt_iser_send_take(struct ixt_iser_conn *ic,
			       struct ixt_iser_tx *tx, struct ixt_tx_pdu *pdu)
{
	list_del(&tx->entry);
	tx->pdu = pdu;
	list_del_init(&pdu->entry);
	ic->sq_free--;
	ixt_iser_sq_signal(ic, &tx->wr, 1);
}

/*
 * Undoes ixt_iser_send_take() after a failed post: the descriptor is
 * free again and its PDU back at the head of the queue, for the
 * teardown to free.
 */
static void ixt_iser_send_untake(struct ixt_iser_conn *ic,
				 struct ixt_iser_tx *tx)
{
	ixt_iser_sq_unsignal(ic);
	ixt_iser_tx_unmap(ic, tx);
	list_add(&tx->pdu->entry, &ic->tx_queue);
	tx->pdu = NULL;
	list_add(&tx->entry, &ic->tx_free);
}

/* Sends a PDU; false when no descriptor is free (it then waits). */
static bool ixt_iser_send(struct ixt_iser_conn *ic, struct ixt_tx_pdu *pdu)
{
	const struct ib_send_wr *bad;
	struct ixt_iser_tx *tx;
	int ret;

	ret = ixt_iser_send_build(ic, pdu, &tx);
	if (ret == -EBUSY)
		return false;
	if (ret)
		goto out_fail;
	ixt_iser_send_take(ic, tx, pdu);
	ret = ib_post_send(ic->qp, &tx->wr, &bad);
	if (ret) {
		pr_err_ratelimited("%pISpc: posting a Send failed: %d\n",
				   ixt_iser_peer(ic), ret);
		ixt_iser_send_untake(ic, tx);
		goto out_fail;
	}
	return true;

out_fail:
	ixt_iser_tx_fail(ic);
	return false;
}

/*
 * The Send to post in one chain behind the last @slots RDMA WRITEs of
 * the Data-In @pdu, at the head of the queue: the PDU right behind it,
 * unless it is a Data-In too, when a descriptor and a slot beyond those
 * of the WRITEs are free. Returns 0 with *@txp, %NULL when there is none
 * to chain, or the error of a PDU that cannot be mapped.
 */
static int ixt_iser_chain_build(struct ixt_iser_conn *ic,
				struct ixt_tx_pdu *pdu, u32 slots,
				struct ixt_iser_tx **txp)
{
	struct ixt_tx_pdu *next = list_next_entry(pdu, entry);
	int ret;

	*txp = NULL;
	if (list_entry_is_head(next, &ic->tx_queue, entry) ||
	    next->data_cmd || ic->sq_free <= slots)
		return 0;
	ret = ixt_iser_send_build(ic, next, txp);
	return ret == -EBUSY ? 0 : ret;
}

/*
 * Posts what the send queue takes of a transfer. @queued is the list
 * entry that keeps the transfer waiting (its fetch on rd_wait, its
 * Data-In PDU on tx_queue): it is unlinked before the last work request
 * is posted, whose completion may run at once on another CPU and reuse
 * or free it, and @x with its command: neither is touched after that
 * post. The last RDMA WRITEs of a Data-In take the Send behind them in
 * the same post when they can (ixt_iser_chain_build()). A Data-In PDU is
 * done once posted (ixt_conn_tx_done(): the command keeps its buffer,
 * mapped, until its response has completed). Returns true once the last work request is
 * posted, false when the transfer waits for slots or the connection
 * failed (the entries then stay linked, for the teardown to free).
 */
static bool ixt_iser_xfer_post(struct ixt_iser_conn *ic,
			       struct ixt_iser_xfer *x,
			       struct list_head *queued)
{
	bool read = x->read, reg = read && ic->reg, last = false, sig;
	struct ixt_tx_pdu *pdu = x->pdu;
	struct ib_send_wr *first, *end;
	const struct ib_send_wr *bad;
	struct ixt_iser_tx *tx = NULL;
	u32 n, max, slots;
	int ret;

	lockdep_assert_held(&ic->tx_lock);
	while (!last) {
		sig = false;
		max = reg ? ixt_iser_reg_room(ic) :
			    min_t(u32, ic->sq_free, IXT_ISER_POST_BATCH);
		if (!max) {
			atomic64_inc(reg && !ic->reg->nr_free ?
				     &ixt_iser_stats.mr_waits :
				     &ixt_iser_stats.sq_waits);
			return false;
		}
		n = ixt_rd_build(&x->st, max, ic->rd_wr, ic->rd_sge);
		if (WARN_ON_ONCE(!n))
			return false;
		if (reg) {
			ret = ixt_iser_reg_wrs(ic, x->rkey, n, &first);
			if (ret < 0)
				goto out_fail;
			slots = ret;
		} else {
			ixt_iser_xfer_wrs(ic, x, n);
			first = &ic->ib_wr[0].wr;
			slots = n;
		}
		last = ixt_rd_done(&x->st);
		end = &ic->ib_wr[n - 1].wr;
		if (last && !read) {
			ret = ixt_iser_chain_build(ic, pdu, slots, &tx);
			if (ret)
				goto out_dead;
		}
		ic->sq_free -= slots;
		sig = read || (!tx && (!last || ic->sq_free < ic->post_min));
		if (read) {
			end->wr_cqe = last ? &x->cqe : &ic->rd_cqe;
			ixt_iser_sq_signal(ic, end, slots);
		} else if (tx) {
			/* The signaled Send completes the WRITEs too. */
			ic->sq_unsig += slots;
			end->next = &tx->wr;
			ixt_iser_send_take(ic, tx, list_next_entry(pdu, entry));
		} else if (sig) {
			end->wr_cqe = &ic->credit_cqe;
			ixt_iser_sq_signal(ic, end, slots);
		} else {
			ic->sq_unsig += slots;
		}
		if (last) {
			if (read)
				list_move_tail(queued, &ic->rd_posted);
			else
				list_del_init(queued);
			x->pdu = NULL;
		}
		ret = ib_post_send(ic->qp, first, &bad);
		if (ret)
			goto out_fail;
		atomic64_add(n, read ? &ixt_iser_stats.rdma_reads :
				       &ixt_iser_stats.rdma_writes);
	}
	if (tx)
		atomic64_inc(&ixt_iser_stats.chained_sends);
	if (!read)
		ixt_conn_tx_done(iser_to_conn(ic), pdu);
	return true;

out_fail:
	pr_err_ratelimited("%pISpc: posting RDMA %s failed: %d\n",
			   ixt_iser_peer(ic), read ? "READ" : "WRITE", ret);
	/* Nothing from @bad on was posted: the chained Send least of all. */
	if (tx)
		ixt_iser_send_untake(ic, tx);
	else if (sig)
		ixt_iser_sq_unsignal(ic);
	if (last) {
		list_move(queued, read ? &ic->rd_wait : &ic->tx_queue);
		x->pdu = pdu;
	}
out_dead:
	ixt_iser_tx_fail(ic);
	return false;
}

/*
 * Whether nothing more is posted: shutdown began, or the connection is
 * closing (a failed Data-In, say), when what is queued is freed unsent
 * by ixt_iser_tx_stop(), as over TCP: never the response of a read
 * whose data did not go.
 */
static bool ixt_iser_tx_stopped(struct ixt_iser_conn *ic)
{
	return ic->tx_dead || ixt_conn_closing(iser_to_conn(ic));
}

/*
 * Posts what fits: fetches first (they hold writes back), then the PDUs
 * in order.
 */
static void ixt_iser_tx_kick(struct ixt_iser_conn *ic)
{
	struct ixt_iser_xfer *x;
	struct ixt_tx_pdu *pdu;

	lockdep_assert_held(&ic->tx_lock);
	while (!ixt_iser_tx_stopped(ic) && ic->sq_free) {
		x = list_first_entry_or_null(&ic->rd_wait,
					     struct ixt_iser_xfer, entry);
		if (x) {
			if (!ixt_iser_xfer_post(ic, x, &x->entry))
				return;
			continue;
		}
		pdu = list_first_entry_or_null(&ic->tx_queue,
					       struct ixt_tx_pdu, entry);
		if (!pdu)
			return;
		/*
		 * A Data-In waits for the PDU queued behind it (its
		 * command's response comes right after it) to post both
		 * at once.
		 */
		if (pdu->data_cmd &&
		    list_is_last(&pdu->entry, &ic->tx_queue))
			return;
		/* Each takes the PDU off the queue as it posts it. */
		if (pdu->data_cmd) {
			x = &to_iser_cmd(pdu->data_cmd)->in;
			if (!ixt_iser_xfer_post(ic, x, &pdu->entry))
				return;
		} else if (!ixt_iser_send(ic, pdu)) {
			return;
		}
	}
}

/* Sets up the RDMA WRITEs of a Data-In into the initiator's read buffer. */
static int ixt_iser_data_in(struct ixt_iser_conn *ic, struct ixt_tx_pdu *pdu)
{
	struct ixt_iser_cmd *icmd = to_iser_cmd(pdu->data_cmd);
	struct ixt_iser_xfer *x = &icmd->in;
	int ret;

	if (!(icmd->flags & ISER_RSV)) {
		pr_err_ratelimited("%pISpc: ITT 0x%08x reads %u bytes but gave no read STag\n",
				   ixt_iser_peer(ic),
				   ixt_itt(ixt_cmd_itt(iser_to_cmd(icmd))),
				   pdu->dlength);
		return -EPROTO;
	}
	if (WARN_ON_ONCE(!x->pieces || x->mapped))
		return -EINVAL;
	x->read = false;
	x->rkey = icmd->read_stag;
	x->pdu = pdu;
	ret = ixt_iser_xfer_start(ic, x, pdu->bvec, pdu->nr_bvec,
				  pdu->bvec_off, pdu->dlength,
				  icmd->read_va + pdu->bvec_off);
	if (ret)
		ixt_iser_xfer_release(ic, x);
	return ret;
}

/*
 * Frees a PDU never posted, and what its transfer holds: a Data-In
 * before its command's response, which may free the command.
 */
static void ixt_iser_pdu_drop(struct ixt_iser_conn *ic,
			      struct ixt_tx_pdu *pdu)
{
	if (pdu->data_cmd)
		ixt_iser_xfer_release(ic, &to_iser_cmd(pdu->data_cmd)->in);
	ixt_tx_pdu_free(pdu);
}

/**
 * ixt_iser_queue() - the transport's queue op
 * @conn: an iSER connection.
 * @pdu: the PDU; a Data-In of a whole read buffer goes as RDMA WRITEs.
 *
 * Once nothing more is posted, a PDU still joins the queue, which
 * ixt_iser_tx_stop() frees in order once the queue pair is drained:
 * were the response of a read freed here, its command would go while
 * its Data-In waits on the queue, or its RDMA WRITEs still read the
 * command's lines (@tx_gone).
 *
 * Context: Any context but hard IRQ; takes the connection's tx_lock.
 */
void ixt_iser_queue(struct ixt_conn *conn, struct ixt_tx_pdu *pdu)
{
	struct ixt_iser_conn *ic = to_iser_conn(conn);

	if (pdu->data_cmd && ixt_iser_data_in(ic, pdu)) {
		ixt_conn_close(conn);
		pdu->data_cmd = NULL;
		ixt_tx_pdu_free(pdu);
		return;
	}
	spin_lock_bh(&ic->tx_lock);
	if (ic->tx_gone) {
		spin_unlock_bh(&ic->tx_lock);
		ixt_iser_pdu_drop(ic, pdu);
		return;
	}
	list_add_tail(&pdu->entry, &ic->tx_queue);
	ixt_iser_tx_kick(ic);
	spin_unlock_bh(&ic->tx_lock);
}

/**
 * ixt_iser_fetch() - the transport's fetch op: RDMA READs of a write's
 *	solicited data straight into its cache lines
 * @cmd: the write; the core holds a reference for the fetch.
 * @off: where the solicited data starts in its buffer: after the
 *	unsolicited part.
 * @len: bytes of solicited data.
 *
 * Context: Process context (the connection's receive path).
 */
void ixt_iser_fetch(struct ixt_cmd *cmd, u32 off, u32 len)
{
	struct ixt_iser_cmd *icmd = to_iser_cmd(cmd);
	struct ixt_iser_conn *ic = to_iser_conn(ixt_cmd_conn(cmd));
	struct ixt_iser_xfer *x = &icmd->out;
	int ret = -EPROTO;

	if (!(icmd->flags & ISER_WSV)) {
		pr_err_ratelimited("%pISpc: ITT 0x%08x writes %u bytes but gave no write STag\n",
				   ixt_iser_peer(ic), ixt_itt(ixt_cmd_itt(cmd)),
				   len);
		goto out_fail;
	}
	x->read = true;
	x->rkey = icmd->write_stag;
	x->cqe.done = ixt_iser_out_done;
	ret = ixt_iser_xfer_start(ic, x, ixt_cmd_bvec(cmd),
				  ixt_cmd_nr_lines(cmd), off, len,
				  icmd->write_va);
	if (ret)
		goto out_release;
	spin_lock_bh(&ic->tx_lock);
	if (ixt_iser_tx_stopped(ic)) {
		spin_unlock_bh(&ic->tx_lock);
		ret = -ESHUTDOWN;
		goto out_release;
	}
	list_add_tail(&x->entry, &ic->rd_wait);
	ixt_iser_tx_kick(ic);
	spin_unlock_bh(&ic->tx_lock);
	return;

out_release:
	ixt_iser_xfer_release(ic, x);
out_fail:
	if (ret != -ESHUTDOWN)
		ixt_conn_close(iser_to_conn(ic));
	ixt_cmd_put(cmd);
}

/**
 * ixt_iser_tx_init() - allocate the Send descriptors of a connection
 * @ic: the connection, its device known.
 *
 * Context: Process context.
 * Return: 0 or -ENOMEM; ixt_iser_tx_free() undoes a partial setup.
 */
int ixt_iser_tx_init(struct ixt_iser_conn *ic)
{
	struct ib_device *ibdev = ic->ibdev;
	struct ixt_iser_tx *tx;
	u32 i, nr_sge;

	ic->credit_cqe.done = ixt_iser_credit_done;
	ic->rd_cqe.done = ixt_iser_rd_done;
	ic->unsig_cqe.done = ixt_iser_unsig_done;
	ic->sq_credits = ixt_fault(IXT_FAULT_ISER_SQ_CREDITS) ? NULL :
			 kcalloc(ic->send_depth, sizeof(*ic->sq_credits),
				 GFP_KERNEL);
	if (!ic->sq_credits)
		return -ENOMEM;
	nr_sge = max(IXT_ISER_POST_BATCH * ic->max_sge_wr,
		     IXT_ISER_REG_BATCH * ic->reg_pages);
	ic->rd_sge = ixt_fault(IXT_FAULT_ISER_RD_SGE) ? NULL :
		     kvcalloc(nr_sge, sizeof(*ic->rd_sge), GFP_KERNEL);
	ic->ib_sge = ixt_fault(IXT_FAULT_ISER_IB_SGE) ? NULL :
		     kcalloc(IXT_ISER_POST_BATCH * ic->max_sge_wr,
			     sizeof(*ic->ib_sge), GFP_KERNEL);
	if (!ic->rd_sge || !ic->ib_sge)
		return -ENOMEM;
	for (i = 0; i < IXT_ISER_NR_TX; i++) {
		tx = ixt_fault(IXT_FAULT_ISER_TX) ? NULL :
		     kzalloc(sizeof(*tx), GFP_KERNEL);
		if (!tx)
			return -ENOMEM;
		ic->tx[i] = tx;
		tx->ic = ic;
		tx->cqe.done = ixt_iser_send_done;
		tx->hdr = ixt_fault(IXT_FAULT_ISER_TX_HDR) ? NULL :
			  kzalloc(IXT_ISER_HDRS_LEN, GFP_KERNEL);
		if (!tx->hdr)
			return -ENOMEM;
		tx->sge[0].addr = ib_dma_map_single(ibdev, tx->hdr,
						    IXT_ISER_HDRS_LEN,
						    DMA_TO_DEVICE);
		if (ib_dma_mapping_error(ibdev, tx->sge[0].addr)) {
			tx->sge[0].addr = 0;
			return -ENOMEM;
		}
		tx->sge[0].length = IXT_ISER_HDRS_LEN;
		tx->sge[0].lkey = ic->pd->local_dma_lkey;
		tx->nr_sge = 1;
		list_add_tail(&tx->entry, &ic->tx_free);
	}
	return 0;
}

/* Seconds ixt_iser_sq_wait() waits for late completions at most. */
#define IXT_ISER_LATE_FLUSH_SECS	10

static bool ixt_iser_sq_done(struct ixt_iser_conn *ic)
{
	bool done;

	spin_lock_bh(&ic->tx_lock);
	done = !ic->sq_cr_nr;
	spin_unlock_bh(&ic->tx_lock);
	return done;
}

/**
 * ixt_iser_sq_wait() - wait for the completions a drain did not wait for
 * @ic: the connection, @tx_dead set and its queue pair drained.
 *
 * ib_drain_qp() returns once the work requests it posts have completed,
 * which should come after every earlier one. siw breaks that: a queue
 * pair moved to ERROR from CLOSING (after rdma_disconnect()) while its
 * transmitter is idle keeps its queued work requests and its RDMA READs
 * waiting for their responses, and the drain's own work requests
 * complete at once; the others are flushed only when its socket closes,
 * after the drain. Their handlers still give commands back and free
 * PDUs, so the teardown waits for every signaled work request to have
 * completed (those before them completed first, in order). A queue pair
 * in TERMINATE (the peer's device ended the connection) that way keeps
 * them until the peer closes its socket, which a peer may never do: the
 * wait then ends, said, and the caller abandons them
 * (ixt_iser_sq_abandon()).
 *
 * Context: Process context (the release work); sleeps.
 * Return: true when every signaled work request completed, false when
 * some did not within %IXT_ISER_LATE_FLUSH_SECS.
 */
bool ixt_iser_sq_wait(struct ixt_iser_conn *ic)
{
	if (ixt_iser_sq_done(ic))
		return true;
	atomic64_inc(&ixt_iser_stats.late_flushes);
	if (wait_event_timeout(ic->sq_idle, ixt_iser_sq_done(ic),
			       IXT_ISER_LATE_FLUSH_SECS * HZ))
		return true;
	pr_err_ratelimited("%pISpc: %u signaled work requests not completed %u s after the queue pair was drained: abandoned\n",
			   ixt_iser_peer(ic), READ_ONCE(ic->sq_cr_nr),
			   IXT_ISER_LATE_FLUSH_SECS);
	return false;
}

/**
 * ixt_iser_sq_abandon() - give back what work requests that never
 *	completed hold
 * @ic: the connection, its queue pair and completion queue destroyed: no
 *	completion handler runs any more, nor ever will.
 *
 * A Send never completed holds its PDU, freed here as a flushed Send's
 * completion frees it (a command's response lets the command go). The
 * RDMA transfers hold send queue slots, which die with the queue pair,
 * and fetches, which ixt_iser_tx_stop() gives back. The descriptors
 * stay off @tx_free and @sq_cr_nr stays as it was: with @tx_dead set
 * nothing takes a descriptor or a slot again, and ixt_iser_tx_free()
 * frees them from @tx.
 *
 * Context: Process context (the release work).
 */
void ixt_iser_sq_abandon(struct ixt_iser_conn *ic)
{
	struct ixt_iser_tx *tx;
	struct ixt_tx_pdu *pdu;
	u32 i, n = 0;

	for (i = 0; i < IXT_ISER_NR_TX; i++) {
		tx = ic->tx[i];
		pdu = tx->pdu;
		if (!pdu)
			continue;
		ixt_iser_tx_unmap(ic, tx);
		tx->pdu = NULL;
		ixt_conn_tx_done(iser_to_conn(ic), pdu);
		n++;
	}
	atomic64_add(n, &ixt_iser_stats.abandoned_sends);
}

/**
 * ixt_iser_tx_stop() - free what waits to be sent or fetched
 * @ic: the connection, its queue pair drained: no completion is to come.
 *
 * PDUs never posted are freed, in the order queued (a command's
 * response lets the command go), and any queued from now on at once
 * (@tx_gone); fetches never finished, posted or not, drop their command
 * reference.
 *
 * Context: Process context (the release work).
 */
void ixt_iser_tx_stop(struct ixt_iser_conn *ic)
{
	struct ixt_iser_xfer *x, *xn;
	struct ixt_tx_pdu *pdu, *pn;
	LIST_HEAD(pdus);
	LIST_HEAD(xfers);

	spin_lock_bh(&ic->tx_lock);
	ic->tx_dead = true;
	ic->tx_gone = true;
	list_splice_init(&ic->tx_queue, &pdus);
	list_splice_init(&ic->rd_wait, &xfers);
	list_splice_init(&ic->rd_posted, &xfers);
	spin_unlock_bh(&ic->tx_lock);

	list_for_each_entry_safe(x, xn, &xfers, entry) {
		list_del_init(&x->entry);
		ixt_iser_xfer_release(ic, x);
		ixt_cmd_put(ixt_iser_out_cmd(x));
	}
	list_for_each_entry_safe(pdu, pn, &pdus, entry) {
		list_del_init(&pdu->entry);
		ixt_iser_pdu_drop(ic, pdu);
	}
}

/**
 * ixt_iser_tx_free() - free the Send descriptors
 * @ic: the connection, none of whose Sends is outstanding.
 *
 * Context: Process context.
 */
void ixt_iser_tx_free(struct ixt_iser_conn *ic)
{
	struct ixt_iser_tx *tx;
	u32 i;

	for (i = 0; i < IXT_ISER_NR_TX; i++) {
		tx = ic->tx[i];
		if (!tx)
			continue;
		if (tx->sge[0].addr)
			ib_dma_unmap_single(ic->ibdev, tx->sge[0].addr,
					    IXT_ISER_HDRS_LEN, DMA_TO_DEVICE);
		kfree(tx->hdr);
		kfree(tx);
		ic->tx[i] = NULL;
	}
	kvfree(ic->rd_sge);
	kfree(ic->ib_sge);
	kfree(ic->sq_credits);
}
