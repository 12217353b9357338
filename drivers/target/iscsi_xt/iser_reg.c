// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt_iser: fast registration of the sinks of RDMA READs.
 *
 * On iWARP the sink of an RDMA READ is named by a STag the READ Request
 * carries, so it must be a memory region with remote write access: the
 * local DMA key is not one. Each RDMA READ the builder makes (in its
 * page-list mode: its SGEs leave no gap in the pages of one region) is
 * preceded on the send queue by a registration (IB_WR_REG_MR) of an MR
 * from the connection's pool. A forced-registration parameter does the
 * same on any device, to test this path on soft-RoCE.
 *
 * Lifetime of an MR: taken from the pool when its READ is built, on the
 * busy list from when it is posted, back in the pool when the READ that
 * ends its batch completes, signaled. Only a READ's completion says that
 * the READs before it are done: RDMA READs complete in the order posted
 * (their responses come back in order), but an iWARP device may report
 * Sends and registrations posted after a READ as complete before it
 * (siw completes them as they leave, while the READ waits for its
 * response), so the send queue's other completions never give MRs back.
 * On iWARP the READ invalidates its sink itself (RDMA READ with
 * Invalidate); elsewhere the MR is invalidated by a Local Invalidate
 * chained before its next registration. MRs whose work requests were
 * flushed go back the same way, or at teardown, and are destroyed with
 * the connection.
 *
 * Everything here runs under the connection's tx_lock, but for the pool's
 * setup and teardown: the pool's lists are the connection's own, moved
 * under that lock rather than with ib_mr_pool_get() and _put().
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/minmax.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/mr_pool.h>

#include "fault.h"
#include "iser.h"

/* MRs of a connection at most: 64 MiB of RDMA READs in flight. */
#define IXT_ISER_REG_MAX_MRS	64

/**
 * ixt_iser_reg_pages() - pages an MR of a new connection maps, if the
 *	sinks of its RDMA READs are to be registered
 * @ic: the connection, its device known.
 *
 * Context: Process context.
 * Return: 0 when RDMA READs use the local DMA key; else the pages of an
 * MR, at most %IXT_ISER_REG_PAGES.
 */
u32 ixt_iser_reg_pages(struct ixt_iser_conn *ic)
{
	struct ib_device *ibdev = ic->ibdev;

	if (!rdma_protocol_iwarp(ibdev, ic->cm_id->port_num) &&
	    !READ_ONCE(ixt_iser_force_reg))
		return 0;
	if (!(ibdev->attrs.device_cap_flags &
	      IB_DEVICE_MEM_MGT_EXTENSIONS) ||
	    !ibdev->attrs.max_fast_reg_page_list_len) {
		pr_warn_ratelimited("%pISpc: %s has no fast registration: RDMA READs use the local DMA key\n",
				    ixt_iser_peer(ic), dev_name(&ibdev->dev));
		return 0;
	}
	return min_t(u32, ibdev->attrs.max_fast_reg_page_list_len,
		     IXT_ISER_REG_PAGES);
}

/**
 * ixt_iser_reg_init() - set up the MR pool of a connection
 * @ic: the connection, its queue pair created; @ic->reg_pages from
 *	ixt_iser_reg_pages().
 *
 * The pool holds as many MRs as the send queue can have registrations
 * in flight (each takes the slots of its registration, its READ and, off
 * iWARP, a Local Invalidate), at most %IXT_ISER_REG_MAX_MRS, fewer with
 * the dbg_mr_pool parameter. Sets @ic->post_min to the slots the largest
 * unit the send queue takes at once (one registered READ) needs.
 *
 * Context: Process context.
 * Return: 0 or a negative errno; ixt_iser_reg_free() undoes a partial
 * setup.
 */
int ixt_iser_reg_init(struct ixt_iser_conn *ic)
{
	struct ib_device *ibdev = ic->ibdev;
	struct ixt_iser_reg *reg;
	u32 slots, nr, dbg;
	int ret;

	ic->post_min = 1;
	if (!ic->reg_pages)
		return 0;
	reg = ixt_fault(IXT_FAULT_ISER_REG) ? NULL :
	      kzalloc(struct_size(reg, sg, ic->reg_pages), GFP_KERNEL);
	if (!reg)
		return -ENOMEM;
	ic->reg = reg;
	INIT_LIST_HEAD(&reg->free);
	INIT_LIST_HEAD(&reg->busy);
	reg->read_inv = rdma_cap_read_inv(ibdev, ic->cm_id->port_num);
	reg->access = IB_ACCESS_LOCAL_WRITE;
	if (rdma_protocol_iwarp(ibdev, ic->cm_id->port_num))
		reg->access |= IB_ACCESS_REMOTE_WRITE;

	slots = reg->read_inv ? 2 : 3;
	nr = min_t(u32, ic->send_depth / slots, IXT_ISER_REG_MAX_MRS);
	dbg = ixt_iser_dbg_mrs();
	if (dbg)
		nr = min(nr, dbg);
	nr = max(nr, 1U);
	reg->batches = ixt_fault(IXT_FAULT_ISER_REG_BATCHES) ? NULL :
		       kcalloc(nr, sizeof(*reg->batches), GFP_KERNEL);
	if (!reg->batches)
		return -ENOMEM;
	ret = ixt_fault(IXT_FAULT_ISER_MR_POOL) ? -ENOMEM :
	      ib_mr_pool_init(ic->qp, &reg->free, nr, IB_MR_TYPE_MEM_REG,
			      ic->reg_pages, 0);
	if (ret) {
		pr_warn_ratelimited("%pISpc: cannot allocate %u MRs of %u pages on %s: %d\n",
				    ixt_iser_peer(ic), nr, ic->reg_pages,
				    dev_name(&ibdev->dev), ret);
		return ret;
	}
	reg->nr = nr;
	reg->nr_free = nr;
	ic->post_min = slots;
	return 0;
}

/**
 * ixt_iser_reg_free() - destroy the MR pool of a connection
 * @ic: the connection, its queue pair destroyed: no work request can
 *	use an MR any more.
 *
 * Context: Process context.
 */
void ixt_iser_reg_free(struct ixt_iser_conn *ic)
{
	struct ixt_iser_reg *reg = ic->reg;
	struct ib_mr *mr, *next;

	if (!reg)
		return;
	list_splice_init(&reg->busy, &reg->free);
	/* ib_mr_pool_destroy() would want the queue pair, for its lock. */
	list_for_each_entry_safe(mr, next, &reg->free, qp_entry) {
		list_del(&mr->qp_entry);
		ib_dereg_mr(mr);
	}
	kfree(reg->batches);
	kfree(reg);
	ic->reg = NULL;
}

/**
 * ixt_iser_reg_room() - registered RDMA READs the next batch may take
 * @ic: the connection, with an MR pool.
 *
 * Context: Under the connection's tx_lock.
 * Return: how many the free MRs and send queue slots allow, at most
 * %IXT_ISER_REG_BATCH; 0 makes the fetch wait.
 */
u32 ixt_iser_reg_room(struct ixt_iser_conn *ic)
{
	return min3(ic->reg->nr_free, ic->sq_free / ic->post_min,
		    (u32)IXT_ISER_REG_BATCH);
}

/* Registers the SGEs of one built READ as @mr; false if they do not map. */
static bool ixt_iser_reg_map(struct ixt_iser_conn *ic, struct ib_mr *mr,
			     const struct ixt_rd_wr *rw)
{
	const struct ixt_rd_sge *rs = &ic->rd_sge[rw->sge_first];
	struct scatterlist *sg = ic->reg->sg;
	u32 i;

	sg_init_table(sg, rw->nr_sge);
	for (i = 0; i < rw->nr_sge; i++) {
		sg_dma_address(&sg[i]) = rs[i].addr;
		sg_dma_len(&sg[i]) = rs[i].len;
	}
	if (ib_map_mr_sg(mr, sg, rw->nr_sge, NULL, PAGE_SIZE) != rw->nr_sge)
		return false;
	/*
	 * The MR's address (iova) is the sink's, which an iWARP peer sees
	 * in each READ Request: the first piece's DMA address, on siw a
	 * kernel virtual one. Only its offset in the first page is kept,
	 * which the page list needs; the device resolves addresses from
	 * the iova the registration carries (as xprtrdma rebases it).
	 */
	mr->iova &= PAGE_SIZE - 1;
	return true;
}

/**
 * ixt_iser_reg_wrs() - turn built RDMA READs into registered ones
 * @ic: the connection, with an MR pool.
 * @rkey: the initiator's STag the READs read from.
 * @n: READs built in @ic->rd_wr, at most what ixt_iser_reg_room() gave.
 * @first: set to the first work request of the chain to post.
 *
 * Each READ gets an MR over its SGEs, and the chain becomes, per READ:
 * a Local Invalidate if the MR's last registration is still valid, the
 * registration with a new key, the READ into the MR (with Invalidate on
 * iWARP). The MRs go on the busy list, as one batch: the caller posts
 * the chain with its last READ signaled, whose completion calls
 * ixt_iser_reg_put().
 *
 * Context: Under the connection's tx_lock.
 * Return: the send queue slots the chain takes, or -EIO when the SGEs
 * of a READ do not map (the builder broke its page-list rules; the MRs
 * taken are back in the pool).
 */
int ixt_iser_reg_wrs(struct ixt_iser_conn *ic, u32 rkey, u32 n,
		     struct ib_send_wr **first)
{
	struct ixt_iser_reg *reg = ic->reg;
	struct ib_send_wr *prev = NULL, *head;
	struct ib_rdma_wr *w;
	struct ib_reg_wr *rw;
	struct ib_mr *mr;
	LIST_HEAD(taken);
	u32 i, slots = 0;

	lockdep_assert_held(&ic->tx_lock);
	for (i = 0; i < n; i++) {
		mr = list_first_entry(&reg->free, struct ib_mr, qp_entry);
		list_move_tail(&mr->qp_entry, &taken);
		if (WARN_ON_ONCE(!ixt_iser_reg_map(ic, mr, &ic->rd_wr[i]))) {
			list_splice(&taken, &reg->free);
			return -EIO;
		}
		rw = &reg->reg[i];
		memset(rw, 0, sizeof(*rw));
		head = &rw->wr;
		if (mr->need_inval) {
			memset(&reg->inv[i], 0, sizeof(reg->inv[i]));
			reg->inv[i].opcode = IB_WR_LOCAL_INV;
			reg->inv[i].wr_cqe = &ic->unsig_cqe;
			reg->inv[i].ex.invalidate_rkey = mr->lkey;
			reg->inv[i].next = &rw->wr;
			head = &reg->inv[i];
			slots++;
		}
		ib_update_fast_reg_key(mr, ib_inc_rkey(mr->lkey));
		rw->wr.opcode = IB_WR_REG_MR;
		rw->wr.wr_cqe = &ic->unsig_cqe;
		rw->mr = mr;
		rw->key = mr->lkey;
		rw->access = reg->access;

		w = &ic->ib_wr[i];
		memset(w, 0, sizeof(*w));
		ic->ib_sge[i].addr = mr->iova;
		ic->ib_sge[i].length = mr->length;
		ic->ib_sge[i].lkey = mr->lkey;
		w->wr.wr_cqe = &ic->unsig_cqe;
		w->wr.sg_list = &ic->ib_sge[i];
		w->wr.num_sge = 1;
		if (reg->read_inv) {
			w->wr.opcode = IB_WR_RDMA_READ_WITH_INV;
			w->wr.ex.invalidate_rkey = mr->lkey;
		} else {
			w->wr.opcode = IB_WR_RDMA_READ;
		}
		w->remote_addr = ic->rd_wr[i].raddr;
		w->rkey = rkey;
		rw->wr.next = &w->wr;
		slots += 2;
		if (prev)
			prev->next = head;
		else
			*first = head;
		prev = &w->wr;
		/* The READ invalidates it, or the next use must. */
		mr->need_inval = !reg->read_inv;
	}
	list_splice_tail(&taken, &reg->busy);
	reg->nr_free -= n;
	reg->batches[(reg->b_tail + reg->b_nr++) % reg->nr] = n;
	atomic64_add(n, &ixt_iser_stats.reg_mrs);
	return slots;
}

/**
 * ixt_iser_reg_put() - the oldest batch of READs completed: its MRs go
 *	back to the pool
 * @ic: the connection, with an MR pool.
 *
 * Context: Under the connection's tx_lock.
 */
void ixt_iser_reg_put(struct ixt_iser_conn *ic)
{
	struct ixt_iser_reg *reg = ic->reg;
	struct ib_mr *mr;
	u32 nr;

	lockdep_assert_held(&ic->tx_lock);
	if (WARN_ON_ONCE(!reg->b_nr))
		return;
	nr = reg->batches[reg->b_tail];
	reg->b_tail = (reg->b_tail + 1) % reg->nr;
	reg->b_nr--;
	while (nr--) {
		mr = list_first_entry_or_null(&reg->busy, struct ib_mr,
					      qp_entry);
		if (WARN_ON_ONCE(!mr))
			return;
		list_move(&mr->qp_entry, &reg->free);
		reg->nr_free++;
	}
}
