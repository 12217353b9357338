/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iscsi_xt_iser: the iSER transport (RFC 7145), shared by its files.
 *
 * Lifetimes:
 * - a &struct ixt_iser_conn is the transport's part of a core connection,
 *   in front of it in the block ixt_conn_alloc() allocates: the core's
 *   release work calls ixt_iser_shutdown(), which drains the queue pair,
 *   so that no work request of it is outstanding, then ixt_iser_free(),
 *   and frees the block; its protection domain is its own, freed after
 *   its queue pair and MRs, before its cm_id (which holds the device);
 * - a &struct ixt_iser_cmd is likewise in front of a core command, from
 *   the cache ixt_transport_register() made for iSER: the core calls
 *   the cmd_init op on a new command and the cmd_release op before it
 *   frees one;
 * - a command's RDMA transfers (&struct ixt_iser_xfer) keep its lines:
 *   a fetch (RDMA READs) holds a reference on the command; a Data-In
 *   (RDMA WRITEs) is followed on the same send queue by the command's
 *   response, which holds the target core's reference until it completes;
 * - an MR of the connection's pool (&struct ixt_iser_reg) is busy from the
 *   post of its RDMA READ until that READ's batch completes, and the pool
 *   is destroyed after the queue pair is drained, before it is destroyed.
 */
#ifndef _ISCSI_XT_ISER_H
#define _ISCSI_XT_ISER_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <scsi/iser.h>
#include <iscsi_xt/rdma_desc.h>

#include "transport.h"

/* iSER header and BHS, at the start of every message. */
#define IXT_ISER_HDRS_LEN	(sizeof(struct iser_ctrl) + ISCSI_HDR_LEN)

/* TargetRecvDataSegmentLength at most: what a receive buffer holds. */
#define IXT_ISER_RX_DSEG	8192
/* Receive buffer pages: the data segment and up to 1 KiB of AHS. */
#define IXT_ISER_RX_PAGES	DIV_ROUND_UP(IXT_ISER_RX_DSEG + 1024, PAGE_SIZE)
/* Data segment SGEs of a Send: 8 KiB in pages, wherever it starts. */
#define IXT_ISER_TX_DATA_SGE	(IXT_ISER_RX_DSEG / PAGE_SIZE + 1)
/* Receives posted during login. */
#define IXT_ISER_LOGIN_RX	4

/*
 * RNR retries of our Sends when the initiator has no receive posted: 6,
 * the most short of 7, which means for ever (InfiniBand's encoding); at
 * most what the initiator's connection request asks for. Also what the
 * REP asks of the initiator's Sends.
 */
#define IXT_ISER_RNR_RETRY	6

/* Receives kept for PDUs outside the command window (NOP-Out, TMF...). */
#define IXT_ISER_UNEXPECTED	16
/*
 * Receive buffers a connection lends at most as the buffers of writes
 * whose data came whole as immediate data (ixt_iser_rx_lend()); past
 * that, their data is copied into cache lines.
 */
#define IXT_ISER_LEND_MAX	128
/* Send descriptors of a connection. */
#define IXT_ISER_NR_TX		64
/* RDMA work requests built and posted at once. */
#define IXT_ISER_POST_BATCH	16
/* Local pieces a command's transfer carries inline (256 KiB in 32 KiB). */
#define IXT_ISER_XFER_INLINE	9
/* Registered RDMA READs built and posted at once. */
#define IXT_ISER_REG_BATCH	4
/* Pages an MR maps at most (1 MiB in 4 KiB pages). */
#define IXT_ISER_REG_PAGES	256

/* What the cm_id's context points at. */
enum ixt_iser_ctx {
	IXT_ISER_CTX_LISTENER,
	IXT_ISER_CTX_CONN,
};

/**
 * struct ixt_iser_rx - a receive buffer
 * @cqe: completion of its receive.
 * @wr: its receive work request.
 * @sge: the iSER header and BHS, then the pages.
 * @entry: on the connection's rx_done list while in the backlog, on its
 *	rx_spare list while spare.
 * @hdr: the iSER header and BHS (%IXT_ISER_HDRS_LEN bytes).
 * @pages: AHS and data segment.
 * @byte_len: bytes received.
 * @slot: its index in the connection's @rx while it is there (neither
 *	lent nor spare).
 * @ic: its connection.
 */
struct ixt_iser_rx {
	struct ib_cqe cqe;
	struct ib_recv_wr wr;
	struct ib_sge sge[1 + IXT_ISER_RX_PAGES];
	struct list_head entry;
	void *hdr;
	struct page *pages[IXT_ISER_RX_PAGES];
	u32 byte_len;
	u32 slot;
	struct ixt_iser_conn *ic;
};

/**
 * struct ixt_iser_tx - a Send descriptor
 * @cqe: completion of its Send.
 * @wr: the Send work request.
 * @sge: the iSER header and BHS, then the data segment.
 * @entry: on the connection's free list while unused.
 * @hdr: the iSER header and BHS.
 * @pdu: the PDU being sent; %NULL while free.
 * @nr_sge: SGEs in use.
 * @ic: its connection.
 */
struct ixt_iser_tx {
	struct ib_cqe cqe;
	struct ib_send_wr wr;
	struct ib_sge sge[1 + IXT_ISER_TX_DATA_SGE];
	struct list_head entry;
	void *hdr;
	struct ixt_tx_pdu *pdu;
	u32 nr_sge;
	struct ixt_iser_conn *ic;
};

/**
 * struct ixt_iser_xfer - one RDMA transfer of a command: the builder's
 *	request state, and what the transfer needs to finish
 * @cqe: completion of a fetch's last RDMA READ.
 * @entry: on the connection's rd_wait list (a fetch waiting for send
 *	queue slots), rd_posted list (its last RDMA READ posted, not
 *	completed successfully) or fetched list (a fetch done, in the
 *	backlog).
 * @st: the builder's state: where the next work request starts.
 * @pieces: the local pieces, DMA-mapped; @inl or kmalloc'ed.
 * @nr_pieces: pieces mapped.
 * @max_pieces: room at @pieces.
 * @rkey: the initiator's STag.
 * @read: RDMA READs (a fetch) rather than RDMA WRITEs (Data-In).
 * @mapped: @pieces are mapped and must be unmapped.
 * @pdu: the Data-In PDU a WRITE transfer stands for; freed once its
 *	last RDMA WRITE is posted.
 * @inl: inline room for @pieces.
 */
struct ixt_iser_xfer {
	struct ib_cqe cqe;
	struct list_head entry;
	struct ixt_rd_state st;
	struct ixt_rd_piece *pieces;
	u32 nr_pieces;
	u32 max_pieces;
	u32 rkey;
	bool read;
	bool mapped;
	struct ixt_tx_pdu *pdu;
	struct ixt_rd_piece inl[IXT_ISER_XFER_INLINE];
};

/**
 * struct ixt_iser_reg - fast registration of a connection's RDMA READ
 *	sinks (iser_reg.c); under the connection's tx_lock
 * @free: the MR pool: MRs not in use.
 * @busy: MRs posted, oldest first: their READs complete in this order.
 * @batches: ring of @nr entries: the MRs of each batch of READs posted
 *	and not completed, oldest first.
 * @b_tail: where in @batches the oldest batch is.
 * @b_nr: batches outstanding.
 * @nr: MRs of the pool.
 * @nr_free: MRs on @free.
 * @access: access flags of a registration.
 * @read_inv: READs invalidate their sinks (RDMA READ with Invalidate,
 *	iWARP); else a Local Invalidate precedes an MR's next registration.
 * @inv: scratch: the Local Invalidates of a batch.
 * @reg: scratch: the registrations of a batch.
 * @sg: scratch: the SGEs of one READ as a scatterlist for
 *	ib_map_mr_sg(); &ixt_iser_conn.reg_pages entries.
 */
struct ixt_iser_reg {
	struct list_head free;
	struct list_head busy;
	u32 *batches;
	u32 b_tail;
	u32 b_nr;
	u32 nr;
	u32 nr_free;
	int access;
	bool read_inv;
	struct ib_send_wr inv[IXT_ISER_REG_BATCH];
	struct ib_reg_wr reg[IXT_ISER_REG_BATCH];
	struct scatterlist sg[];
};

/**
 * struct ixt_iser_cmd - the transport's part of a command of an iSER
 *	connection, in front of the core's command
 * @flags: the iSER header's flags (%ISER_WSV, %ISER_RSV).
 * @write_stag: STag of the initiator's write buffer, with %ISER_WSV.
 * @write_va: its address: that of the first solicited byte.
 * @read_stag: STag of the initiator's read buffer, with %ISER_RSV.
 * @read_va: its address.
 * @in: the Data-In transfer (RDMA WRITEs).
 * @out: the fetch of the solicited data (RDMA READs).
 * @rx: the receive buffer lent as the command's buffer, its immediate
 *	data in place, or %NULL; back to the connection's spares when the
 *	command is released.
 */
struct ixt_iser_cmd {
	u8 flags;
	u32 write_stag;
	u64 write_va;
	u32 read_stag;
	u64 read_va;
	struct ixt_iser_xfer in;
	struct ixt_iser_xfer out;
	struct ixt_iser_rx *rx;
} __aligned(IXT_PRIV_ALIGN);

IXT_PRIV_CHECK(struct ixt_iser_cmd);

static inline struct ixt_iser_cmd *to_iser_cmd(struct ixt_cmd *cmd)
{
	return (struct ixt_iser_cmd *)cmd - 1;
}

static inline struct ixt_cmd *iser_to_cmd(struct ixt_iser_cmd *icmd)
{
	return (struct ixt_cmd *)(icmd + 1);
}

/* The command whose fetch (out transfer) @x is. */
static inline struct ixt_cmd *ixt_iser_out_cmd(struct ixt_iser_xfer *x)
{
	return iser_to_cmd(container_of(x, struct ixt_iser_cmd, out));
}

/**
 * struct ixt_iser_conn - the transport's part of an iSER connection, in
 *	front of the core's connection
 * @ctx: %IXT_ISER_CTX_CONN; what @cm_id's context points at.
 * @entry: in the list of iSER connections, under its lock.
 * @cm_id: the RDMA CM identifier.
 * @ibdev: the device: @cm_id's, which holds it until destroyed.
 * @pd: the connection's own protection domain: its queue pair, its MRs
 *	and the local DMA key of its buffers. No other queue pair, of this
 *	initiator or another, reaches an MR of it (an iWARP READ sink takes
 *	remote writes).
 * @cq: completion queue of both work queues (IB_POLL_WORKQUEUE: every
 *	completion handler runs in process context).
 * @qp: the queue pair: our own over InfiniBand and RoCE, to set our RNR
 *	retry count (ixt_iser_qp_to()); the RDMA CM's (@cm_id's) over iWARP.
 *	Destroyed early, and NULL, when work requests never complete
 *	(ixt_iser_sq_wait()).
 * @qpn: its number, to show while it may be gone.
 * @cm_gone: completed when the RDMA CM reports the end of the
 *	connection (the initiator disconnected, or it failed).
 * @snd_w_inv: the initiator takes Send with Invalidate.
 * @max_sge_wr: SGEs per RDMA WRITE.
 * @max_sge_rd: SGEs per RDMA READ.
 * @max_wr_len: bytes per RDMA work request.
 * @send_depth: work requests the send queue holds (ixt_iser_send_depth
 *	as the connection was accepted).
 * @rx_max: receives the queue pair holds.
 * @ord: RDMA READs the target may have outstanding (initiator depth).
 * @reg_pages: pages of an MR when the sinks of RDMA READs are registered
 *	(iWARP, or the force_reg parameter); 0 when they use the local DMA
 *	key.
 * @post_min: send queue slots the largest unit posted at once takes:
 *	1, or those of a registered READ (registration, READ and maybe a
 *	Local Invalidate).
 * @reg: the MR pool, with @reg_pages.
 * @rx_lock: protects @rx_done, @fetched, @rx_backlog, @stopping,
 *	@unpublished, @rx_spare and @nr_lent.
 * @rx_done: the backlog's receives, in order.
 * @fetched: the backlog's fetches.
 * @rx_backlog: the core put a PDU off: completions queue for @rx_work
 *	until it has emptied the backlog, instead of being handed to the
 *	core by their handlers.
 * @stopping: shutdown began, or the accept failed: completions are
 *	dropped.
 * @unpublished: accepted, but not yet on the list of connections nor
 *	under its login deadline: a receive is held in the backlog (with
 *	@rx_backlog) and a failed one ignored (the login deadline ends the
 *	connection), as nothing may close it before ixt_iser_accept() has
 *	published it.
 * @rx_work: hands the backlog to the core, delayed while the core puts
 *	its first PDU off (no cache lines free).
 * @rx_pdu: the PDU being handed over; the receive path only (the CQ's
 *	handlers, or @rx_work while there is a backlog: never both).
 * @rx: every receive buffer of the ring, posted or not; @nr_rx of them,
 *	grown, and a lent buffer's slot given to its replacement, only by
 *	the receive path.
 * @nr_rx: receive buffers of the ring.
 * @rx_spare: receive buffers out of the ring that commands gave back,
 *	ready to replace the next lent ones.
 * @nr_lent: receive buffers lent to commands, at most
 *	%IXT_ISER_LEND_MAX. Lent and spare buffers together are never more:
 *	a new one is allocated only when no spare is left.
 * @tx_lock: protects @tx_queue, @rd_wait, @rd_posted, @tx_free, @sq_free, the
 *	credits, @tx_dead, @tx_gone and the scratch arrays below; taken with
 *	spin_lock_bh().
 * @tx_queue: PDUs to send, in order; a Data-In stays at the head until
 *	its last RDMA WRITE is posted, and is not posted before a PDU (its
 *	command's response) is queued behind it.
 * @rd_wait: fetches with RDMA READs left to post.
 * @rd_posted: fetches whose last RDMA READ is posted and did not complete
 *	successfully; a failed or flushed one stays, for
 *	ixt_iser_tx_stop() to give back (siw may flush a READ twice).
 * @tx_free: free Send descriptors.
 * @sq_free: send queue slots free.
 * @sq_unsig: slots of the unsignaled work requests posted since the last
 *	signaled one.
 * @sq_credits: ring of @send_depth entries: the slots each outstanding
 *	signaled work request gives back, in the order posted.
 * @sq_cr_tail: where in @sq_credits the oldest outstanding one is.
 * @sq_cr_nr: signaled work requests outstanding (posted, or being
 *	posted under @tx_lock, and not completed).
 * @sq_idle: woken when the last of them completes after @tx_dead is set.
 * @tx_dead: shutdown began, or a post failed: nothing more is posted.
 * @tx_gone: ixt_iser_tx_stop() ran: a PDU queued from now on is freed
 *	at once. Until then one is queued even when nothing is posted any
 *	more, and freed there in order, after the drain: a response
 *	queued behind its Data-In frees the command, whose buffer that
 *	Data-In maps and whose RDMA WRITEs may still be reading it.
 * @tx: the Send descriptors.
 * @credit_cqe: completion of an RDMA WRITE that ends a batch of a
 *	Data-In: it only gives slots back.
 * @rd_cqe: completion of an RDMA READ that ends a batch, not a fetch:
 *	it gives slots back, and the MRs of the batch.
 * @unsig_cqe: of the unsignaled RDMA work requests: it completes only
 *	one that failed.
 * @rd_wr: scratch: work requests the builder emits.
 * @rd_sge: scratch: their SGEs (%IXT_ISER_POST_BATCH times @max_sge_wr,
 *	or %IXT_ISER_REG_BATCH times @reg_pages if more).
 * @ib_wr: scratch: the same as posted.
 * @ib_sge: scratch: their SGEs as posted.
 */
struct ixt_iser_conn {
	enum ixt_iser_ctx ctx;
	struct list_head entry;
	struct rdma_cm_id *cm_id;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	u32 qpn;
	struct completion cm_gone;
	bool snd_w_inv;
	u32 max_sge_wr;
	u32 max_sge_rd;
	u32 max_wr_len;
	u32 send_depth;
	u32 rx_max;
	u32 ord;
	u32 reg_pages;
	u32 post_min;
	struct ixt_iser_reg *reg;

	spinlock_t rx_lock;	/* protects rx_done, fetched, the flags */
	struct list_head rx_done;
	struct list_head fetched;
	bool rx_backlog;
	bool stopping;
	bool unpublished;
	struct delayed_work rx_work;
	struct ixt_rx_pdu rx_pdu;
	struct ixt_iser_rx **rx;
	u32 nr_rx;
	struct list_head rx_spare;
	u32 nr_lent;

	spinlock_t tx_lock;	/* protects the transmit side, see above */
	struct list_head tx_queue;
	struct list_head rd_wait;
	struct list_head rd_posted;
	struct list_head tx_free;
	u32 sq_free;
	u32 sq_unsig;
	u32 *sq_credits;
	u32 sq_cr_tail;
	u32 sq_cr_nr;
	wait_queue_head_t sq_idle;
	bool tx_dead;
	bool tx_gone;
	struct ixt_iser_tx *tx[IXT_ISER_NR_TX];
	struct ib_cqe credit_cqe;
	struct ib_cqe rd_cqe;
	struct ib_cqe unsig_cqe;
	struct ixt_rd_wr rd_wr[IXT_ISER_POST_BATCH];
	struct ixt_rd_sge *rd_sge;
	struct ib_rdma_wr ib_wr[IXT_ISER_POST_BATCH];
	struct ib_sge *ib_sge;
} __aligned(IXT_PRIV_ALIGN);

IXT_PRIV_CHECK(struct ixt_iser_conn);

static inline struct ixt_iser_conn *to_iser_conn(struct ixt_conn *conn)
{
	return (struct ixt_iser_conn *)conn - 1;
}

static inline struct ixt_conn *iser_to_conn(struct ixt_iser_conn *ic)
{
	return (struct ixt_conn *)(ic + 1);
}

/* The initiator's address of a connection, for messages. */
static inline const struct sockaddr_storage *
ixt_iser_peer(struct ixt_iser_conn *ic)
{
	return ixt_conn_peer(iser_to_conn(ic));
}

/**
 * struct ixt_iser_stats - what the iSER transport did, over all its
 *	connections since it loaded (debugfs iscsi_xt_iser/stats)
 * @rdma_writes: RDMA WRITE work requests posted (Data-In).
 * @rdma_reads: RDMA READ work requests posted (fetches of solicited data).
 * @xfers: transfers built (one per Data-In or fetch).
 * @sq_waits: times a transfer found the send queue full and waited for
 *	completions to continue.
 * @send_invs: responses sent with Invalidate of the initiator's STag.
 * @chained_sends: Sends posted in one chain behind the last RDMA WRITEs
 *	of a Data-In (its command's response, unless another PDU was
 *	queued in between).
 * @reg_mrs: fast registrations posted (one per RDMA READ into an MR).
 * @mr_waits: times a fetch found its connection's MR pool empty and
 *	waited for READs to complete to continue.
 * @remote_invs: Sends with Invalidate received (the initiator
 *	invalidating a STag of the target's; each drops its connection).
 * @late_flushes: connections whose queue pair drain returned before
 *	every signaled work request had completed (see ixt_iser_sq_wait()).
 * @abandoned_sends: Sends given up on at teardown, never completed by
 *	the device (see ixt_iser_sq_abandon()).
 * @rx_lent: receive buffers lent as the buffer of a write whose data
 *	came whole as immediate data (no copy).
 * @rx_lend_full: such writes whose data was copied, their connection
 *	having %IXT_ISER_LEND_MAX buffers lent already.
 */
struct ixt_iser_stats {
	atomic64_t rdma_writes;
	atomic64_t rdma_reads;
	atomic64_t xfers;
	atomic64_t sq_waits;
	atomic64_t send_invs;
	atomic64_t chained_sends;
	atomic64_t reg_mrs;
	atomic64_t mr_waits;
	atomic64_t remote_invs;
	atomic64_t late_flushes;
	atomic64_t abandoned_sends;
	atomic64_t rx_lent;
	atomic64_t rx_lend_full;
};

/* iser_main.c */
extern struct ixt_iser_stats ixt_iser_stats;
extern unsigned int ixt_iser_send_depth;
extern unsigned int ixt_iser_recv_depth;
extern bool ixt_iser_force_reg;
#ifdef IXT_FAULT_INJECT
extern unsigned int ixt_iser_dbg_max_sge;
extern unsigned int ixt_iser_dbg_max_wr_len;
extern unsigned int ixt_iser_dbg_mr_pool;
extern unsigned int ixt_iser_dbg_lose_sends;

/*
 * The debug parameters of fault injection builds: limits below the
 * device's on SGEs and bytes per RDMA work request and on the MRs of a
 * connection, to make the descriptor builder divide transfers and writes
 * wait for MRs; 0: no limit. Production builds have no such parameter.
 */
static inline u32 ixt_iser_dbg_sge(void)
{
	return READ_ONCE(ixt_iser_dbg_max_sge);
}

static inline u32 ixt_iser_dbg_wr_len(void)
{
	return READ_ONCE(ixt_iser_dbg_max_wr_len);
}

static inline u32 ixt_iser_dbg_mrs(void)
{
	return READ_ONCE(ixt_iser_dbg_mr_pool);
}

/*
 * Whether a Send's completion is to be ignored, as a device that never
 * completes it (siw, now and then, after its peer's TERMINATE) leaves
 * it: the dbg_lose_sends parameter counts them down.
 */
static inline bool ixt_iser_send_lost(void)
{
	unsigned int n = READ_ONCE(ixt_iser_dbg_lose_sends);

	while (n)
		if (try_cmpxchg(&ixt_iser_dbg_lose_sends, &n, n - 1))
			return true;
	return false;
}
#else
static inline u32 ixt_iser_dbg_sge(void)
{
	return 0;
}

static inline u32 ixt_iser_dbg_wr_len(void)
{
	return 0;
}

static inline u32 ixt_iser_dbg_mrs(void)
{
	return 0;
}

static inline bool ixt_iser_send_lost(void)
{
	return false;
}
#endif

/* iser_conn.c */
extern struct ixt_transport ixt_iser_xprt;
int ixt_iser_accept(struct rdma_cm_id *id, struct rdma_cm_event *ev,
		    struct ixt_portal *portal);
void ixt_iser_conn_lost(struct ixt_iser_conn *ic, const char *what,
			const char *how);
void ixt_iser_conn_cm_event(struct ixt_iser_conn *ic,
			    struct rdma_cm_event *ev);
void ixt_iser_conns_close(struct ib_device *ibdev);
void ixt_iser_rx_fetched(struct ixt_iser_conn *ic, struct ixt_iser_xfer *x);

/* iser_reg.c */
u32 ixt_iser_reg_pages(struct ixt_iser_conn *ic);
int ixt_iser_reg_init(struct ixt_iser_conn *ic);
void ixt_iser_reg_free(struct ixt_iser_conn *ic);
u32 ixt_iser_reg_room(struct ixt_iser_conn *ic);
int ixt_iser_reg_wrs(struct ixt_iser_conn *ic, u32 rkey, u32 n,
		     struct ib_send_wr **first);
void ixt_iser_reg_put(struct ixt_iser_conn *ic);

/* iser_tx.c */
void ixt_iser_queue(struct ixt_conn *conn, struct ixt_tx_pdu *pdu);
void ixt_iser_fetch(struct ixt_cmd *cmd, u32 off, u32 len);
int ixt_iser_tx_init(struct ixt_iser_conn *ic);
void ixt_iser_tx_stop(struct ixt_iser_conn *ic);
void ixt_iser_tx_free(struct ixt_iser_conn *ic);
bool ixt_iser_sq_wait(struct ixt_iser_conn *ic);
void ixt_iser_sq_abandon(struct ixt_iser_conn *ic);
int ixt_iser_xfer_alloc(struct ixt_iser_xfer *x, u32 nr_pieces);
void ixt_iser_xfer_release(struct ixt_iser_conn *ic, struct ixt_iser_xfer *x);

#endif /* _ISCSI_XT_ISER_H */
