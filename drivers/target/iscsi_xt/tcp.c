// SPDX-License-Identifier: GPL-2.0
/* iscsi_xt: the TCP transport: socket callbacks, PDU receive and transmit. */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bvec.h>
#include <linux/crc32c.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/tcp.h>
#include <linux/uio.h>
#include <linux/unaligned.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "transport.h"

/* A CRC32C digest on the wire. */
#define IXT_TCP_DIGEST_LEN	4

/* PDUs received or sent per run of a work item before it yields. */
#define IXT_TCP_BUDGET		16

/**
 * enum ixt_tcp_recv_state - what the receive path reads next
 * @IXT_TCP_RECV_BHS: the 48-byte Basic Header Segment.
 * @IXT_TCP_RECV_HDR_REST: the AHSs and the header digest, if any.
 * @IXT_TCP_RECV_HDR_CORE: nothing: the core decides where the data
 *	segment goes (ixt_conn_rx_hdr()), which it may put off.
 * @IXT_TCP_RECV_DATA: the data segment, into a buffer of its own
 *	together with its padding and data digest, into the pages the core
 *	named, or nowhere when it is discarded (with the padding and digest).
 * @IXT_TCP_RECV_TRAILER: the padding and data digest of a data segment
 *	received into the core's pages.
 */
enum ixt_tcp_recv_state {
	IXT_TCP_RECV_BHS,
	IXT_TCP_RECV_HDR_REST,
	IXT_TCP_RECV_HDR_CORE,
	IXT_TCP_RECV_DATA,
	IXT_TCP_RECV_TRAILER,
};

/**
 * struct ixt_tcp_conn - the TCP transport's part of a connection
 * @sock: the connected socket.
 * @data_ready: the socket's own callback, restored at shutdown.
 * @write_space: likewise.
 * @state_change: likewise.
 * @rx_work: receives and dispatches PDUs; the only reader of the socket.
 *	Delayed only when the core puts a PDU off (no free cache lines).
 * @tx_work: sends queued PDUs; the only writer of the socket.
 * @rcv_state: receive state; rx work only, like every @rcv_* and @rx_*.
 * @rcv_msg: the part being received: its iterator says what is left.
 * @rcv_kvec: the buffer of a part received into memory of our own.
 * @rx_pdu: the PDU being received.
 * @rx_hdr: the BHS, the AHSs and the header digest as received.
 * @rx_trailer: the padding and data digest of an in-place data segment.
 * @tx_lock: protects @tx_queue, @tx_dead and @tx_gone.
 * @tx_queue: PDUs waiting to be sent.
 * @tx_dead: set at shutdown: queued PDUs are not sent, but freed.
 * @tx_gone: set once the transmit work is stopped: a PDU queued from
 *	then on is freed at once. Before, one waits on @tx_queue: the
 *	response of a read lets its command, and its lines, go, which
 *	@tx_cur, a Data-In of that read, may still be copying from.
 * @tx_cur: the PDU being sent, off @tx_queue; tx work only, like
 *	@tx_off and @tx_digest.
 * @tx_off: bytes of @tx_cur sent so far.
 * @tx_digest: header digest, padding and data digest of @tx_cur.
 *
 * In front of the core's connection, in the block ixt_conn_alloc()
 * allocates and the core frees after the free op.
 */
struct ixt_tcp_conn {
	struct socket *sock;
	void (*data_ready)(struct sock *sk);
	void (*write_space)(struct sock *sk);
	void (*state_change)(struct sock *sk);
	struct delayed_work rx_work;
	struct work_struct tx_work;

	enum ixt_tcp_recv_state rcv_state;
	struct msghdr rcv_msg;
	struct kvec rcv_kvec;
	struct ixt_rx_pdu rx_pdu;
	u8 rx_hdr[ISCSI_HDR_LEN + IXT_PDU_MAX_AHS_LEN + IXT_TCP_DIGEST_LEN];
	u8 rx_trailer[ISCSI_PAD_LEN + IXT_TCP_DIGEST_LEN];

	spinlock_t tx_lock;	/* protects tx_queue, tx_dead, tx_gone */
	struct list_head tx_queue;
	bool tx_dead;
	bool tx_gone;
	struct ixt_tx_pdu *tx_cur;
	u32 tx_off;
	struct {
		__le32 hdigest;
		u8 pad[ISCSI_PAD_LEN];
		__le32 ddigest;
	} tx_digest;
} __aligned(IXT_PRIV_ALIGN);

IXT_PRIV_CHECK(struct ixt_tcp_conn);

static inline struct ixt_tcp_conn *to_tcp_conn(struct ixt_conn *conn)
{
	return (struct ixt_tcp_conn *)conn - 1;
}

static inline struct ixt_conn *tcp_to_conn(struct ixt_tcp_conn *tc)
{
	return (struct ixt_conn *)(tc + 1);
}

static const u8 ixt_tcp_zero_pad[ISCSI_PAD_LEN];

static __le32 ixt_tcp_crc(const void *buf, u32 len, u32 pad)
{
	u32 crc = crc32c(~0, buf, len);

	if (pad)
		crc = crc32c(crc, ixt_tcp_zero_pad, pad);
	return cpu_to_le32(~crc);
}

/*
 * CRC32C of @len bytes from @off on in pages of the cache-line pool, then
 * of @pad zero bytes. Those pages are never highmem: each bvec is one
 * stretch of kernel virtual memory.
 */
static __le32 ixt_tcp_crc_bvec(const struct bio_vec *bv, u32 off, u32 len,
			       u32 pad)
{
	u32 crc = ~0;

	for (; len; bv++) {
		u32 n;

		if (off >= bv->bv_len) {
			off -= bv->bv_len;
			continue;
		}
		n = min(bv->bv_len - off, len);
		crc = crc32c(crc, page_address(bv->bv_page) + bv->bv_offset + off,
			     n);
		len -= n;
		off = 0;
	}
	if (pad)
		crc = crc32c(crc, ixt_tcp_zero_pad, pad);
	return cpu_to_le32(~crc);
}

/*
 * Socket callbacks, in softirq context: they only schedule work. A NULL
 * sk_user_data means the connection is being torn down.
 */

static void ixt_tcp_data_ready(struct sock *sk)
{
	struct ixt_tcp_conn *tc;

	read_lock_bh(&sk->sk_callback_lock);
	tc = sk->sk_user_data;
	if (tc)
		queue_delayed_work(ixt_wq, &tc->rx_work, 0);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void ixt_tcp_write_space(struct sock *sk)
{
	struct ixt_tcp_conn *tc;

	read_lock_bh(&sk->sk_callback_lock);
	tc = sk->sk_user_data;
	if (tc && sk_stream_is_writeable(sk)) {
		clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		queue_work(ixt_wq, &tc->tx_work);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

static void ixt_tcp_state_change(struct sock *sk)
{
	struct ixt_tcp_conn *tc;

	read_lock_bh(&sk->sk_callback_lock);
	tc = sk->sk_user_data;
	if (tc) {
		switch (sk->sk_state) {
		case TCP_FIN_WAIT1:
		case TCP_CLOSE_WAIT:
		case TCP_CLOSE:
			ixt_conn_close(tcp_to_conn(tc));
			break;
		default:
			break;
		}
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Receive
 */

static void ixt_tcp_rcv_expect(struct ixt_tcp_conn *tc,
			       enum ixt_tcp_recv_state state, void *buf,
			       u32 len)
{
	tc->rcv_state = state;
	tc->rcv_kvec = (struct kvec){ buf, len };
	iov_iter_kvec(&tc->rcv_msg.msg_iter, ITER_DEST, &tc->rcv_kvec, 1, len);
}

static void ixt_tcp_rcv_reset(struct ixt_tcp_conn *tc)
{
	kvfree(tc->rx_pdu.data);
	memset(&tc->rx_pdu, 0, sizeof(tc->rx_pdu));
	ixt_tcp_rcv_expect(tc, IXT_TCP_RECV_BHS, tc->rx_hdr, ISCSI_HDR_LEN);
}

/* Reads what is there of the current part: 0 when complete, -EAGAIN, ... */
static int ixt_tcp_rcv_part(struct ixt_tcp_conn *tc)
{
	int ret;

	while (iov_iter_count(&tc->rcv_msg.msg_iter)) {
		tc->rcv_msg.msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL;
		ret = sock_recvmsg(tc->sock, &tc->rcv_msg, tc->rcv_msg.msg_flags);
		if (ret == 0)
			return -ECONNRESET;
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* The BHS is in: validate it before reading a byte more. */
static int ixt_tcp_rcv_bhs(struct ixt_tcp_conn *tc)
{
	struct ixt_conn *conn = tcp_to_conn(tc);
	struct iscsi_hdr *hdr = (struct iscsi_hdr *)tc->rx_hdr;
	u32 rest = ixt_pdu_ahs_len(hdr);
	int ret;

	memcpy(&tc->rx_pdu.hdr, hdr, ISCSI_HDR_LEN);
	ret = ixt_conn_check_hdr(conn, &tc->rx_pdu);
	if (ret) {
		/* Nothing sane to do with a segment that large: drop. */
		pr_err_ratelimited("%pISpc: opcode 0x%02x with %u data bytes, limit %u\n",
				   ixt_conn_peer(conn), hdr->opcode,
				   ixt_pdu_dlength(hdr),
				   ixt_conn_max_recv_dlength(conn));
		return ret;
	}

	if (ixt_conn_digests(conn) & IXT_PDU_HDIGEST)
		rest += IXT_TCP_DIGEST_LEN;
	ixt_tcp_rcv_expect(tc, IXT_TCP_RECV_HDR_REST,
			   tc->rx_hdr + ISCSI_HDR_LEN, rest);
	return 0;
}

static int ixt_tcp_rcv_hdr_rest(struct ixt_tcp_conn *tc)
{
	struct ixt_conn *conn = tcp_to_conn(tc);
	struct iscsi_hdr *hdr = (struct iscsi_hdr *)tc->rx_hdr;
	u32 hlen = ISCSI_HDR_LEN + ixt_pdu_ahs_len(hdr);

	if (ixt_conn_digests(conn) & IXT_PDU_HDIGEST &&
	    get_unaligned((__le32 *)(tc->rx_hdr + hlen)) !=
	    ixt_tcp_crc(tc->rx_hdr, hlen, 0)) {
		pr_err_ratelimited("%pISpc: header digest error\n",
				   ixt_conn_peer(conn));
		return -EBADMSG;
	}
	memcpy(&tc->rx_pdu.hdr, hdr, ISCSI_HDR_LEN);
	tc->rx_pdu.ahs = hlen > ISCSI_HDR_LEN ? tc->rx_hdr + ISCSI_HDR_LEN :
					       NULL;
	tc->rx_pdu.dlength = ixt_pdu_dlength(hdr);
	ixt_tcp_rcv_expect(tc, IXT_TCP_RECV_HDR_CORE, NULL, 0);
	return 0;
}

/* Bytes of padding and data digest that follow a data segment. */
static u32 ixt_tcp_trailer_len(struct ixt_tcp_conn *tc)
{
	u32 len = ixt_pdu_pad_len(tc->rx_pdu.dlength);

	if (ixt_conn_digests(tcp_to_conn(tc)) & IXT_PDU_DDIGEST)
		len += IXT_TCP_DIGEST_LEN;
	return len;
}

/* The core has seen the header: set up the receipt of the data segment. */
static int ixt_tcp_rcv_hdr_core(struct ixt_tcp_conn *tc)
{
	struct ixt_rx_pdu *pdu = &tc->rx_pdu;
	u32 len;
	int ret;

	ret = ixt_conn_rx_hdr(tcp_to_conn(tc), pdu);
	if (ret)
		return ret;
	if (!pdu->dlength)
		return 1;

	len = pdu->dlength + ixt_tcp_trailer_len(tc);
	tc->rcv_state = IXT_TCP_RECV_DATA;
	if (pdu->discard) {
		iov_iter_discard(&tc->rcv_msg.msg_iter, ITER_DEST, len);
	} else if (pdu->bvec) {
		iov_iter_bvec(&tc->rcv_msg.msg_iter, ITER_DEST, pdu->bvec,
			      pdu->nr_bvec, pdu->bvec_off + pdu->dlength);
		iov_iter_advance(&tc->rcv_msg.msg_iter, pdu->bvec_off);
	} else {
		pdu->data = ixt_fault(IXT_FAULT_TCP_RX_DATA) ? NULL :
			    kvmalloc(len, GFP_KERNEL);
		if (!pdu->data)
			return -ENOMEM;
		ixt_tcp_rcv_expect(tc, IXT_TCP_RECV_DATA, pdu->data, len);
	}
	return 0;
}

static int ixt_tcp_rcv_data(struct ixt_tcp_conn *tc)
{
	struct ixt_rx_pdu *pdu = &tc->rx_pdu;
	u32 dlength = pdu->dlength;
	u32 pad = ixt_pdu_pad_len(dlength);

	if (pdu->discard)
		return 1;
	if (pdu->bvec) {
		/* The socket copied it from its buffers into the lines. */
		ixt_cost_add(IXT_COST_COPIED_RX, dlength);
		ixt_tcp_rcv_expect(tc, IXT_TCP_RECV_TRAILER, tc->rx_trailer,
				   ixt_tcp_trailer_len(tc));
		return 0;
	}
	/* The digest covers the padding too, as received. */
	if (ixt_conn_digests(tcp_to_conn(tc)) & IXT_PDU_DDIGEST &&
	    get_unaligned((__le32 *)(pdu->data + dlength + pad)) !=
	    ixt_tcp_crc(pdu->data, dlength + pad, 0)) {
		pr_err_ratelimited("%pISpc: data digest error\n",
				   ixt_conn_peer(tcp_to_conn(tc)));
		return -EILSEQ;
	}
	return 1;
}

static int ixt_tcp_rcv_trailer(struct ixt_tcp_conn *tc)
{
	struct ixt_rx_pdu *pdu = &tc->rx_pdu;
	u32 pad = ixt_pdu_pad_len(pdu->dlength);
	u32 crc;

	if (!(ixt_conn_digests(tcp_to_conn(tc)) & IXT_PDU_DDIGEST))
		return 1;
	crc = ~le32_to_cpu(ixt_tcp_crc_bvec(pdu->bvec, pdu->bvec_off,
					    pdu->dlength, 0));
	crc = ~crc32c(crc, tc->rx_trailer, pad);
	if (get_unaligned((__le32 *)(tc->rx_trailer + pad)) !=
	    cpu_to_le32(crc)) {
		pr_err_ratelimited("%pISpc: data digest error\n",
				   ixt_conn_peer(tcp_to_conn(tc)));
		return -EILSEQ;
	}
	return 1;
}

/*
 * Advances the receive state machine by one part. Returns 1 when a whole
 * PDU is in, 0 to go on, or a negative errno (-EAGAIN: wait for data, or
 * for the core when it put the header off; -EBADMSG: a header digest
 * error; -EILSEQ: a data digest error).
 */
static int ixt_tcp_rcv_step(struct ixt_tcp_conn *tc)
{
	int ret;

	ret = ixt_tcp_rcv_part(tc);
	if (ret)
		return ret;

	switch (tc->rcv_state) {
	case IXT_TCP_RECV_BHS:
		return ixt_tcp_rcv_bhs(tc);
	case IXT_TCP_RECV_HDR_REST:
		return ixt_tcp_rcv_hdr_rest(tc);
	case IXT_TCP_RECV_HDR_CORE:
		return ixt_tcp_rcv_hdr_core(tc);
	case IXT_TCP_RECV_DATA:
		return ixt_tcp_rcv_data(tc);
	case IXT_TCP_RECV_TRAILER:
		return ixt_tcp_rcv_trailer(tc);
	}
	return -EINVAL;
}

static void ixt_tcp_rx_work(struct work_struct *work)
{
	struct ixt_tcp_conn *tc = container_of(to_delayed_work(work),
					       struct ixt_tcp_conn, rx_work);
	struct ixt_conn *conn = tcp_to_conn(tc);
	int budget = IXT_TCP_BUDGET;
	int ret;

	/* R2Ts the send queue's bound put off go before the next request. */
	ixt_dataout_resume(conn);
	while (!ixt_conn_rx_stopped(conn)) {
		ret = ixt_tcp_rcv_step(tc);
		if (ret == -EAGAIN) {
			/* The core waits for cache lines: look again soon. */
			if (tc->rcv_state == IXT_TCP_RECV_HDR_CORE)
				queue_delayed_work(ixt_wq, &tc->rx_work, 1);
			return;
		}
		if (ret == -EBADMSG || ret == -EILSEQ) {
			ixt_conn_digest_error(conn, ret == -EILSEQ ?
					      &tc->rx_pdu.hdr : NULL);
			return;
		}
		if (ret < 0) {
			if (ret != -ECONNRESET)
				pr_debug("%pISpc: receive failed: %d\n",
					 ixt_conn_peer(conn), ret);
			ixt_conn_close(conn);
			return;
		}
		if (ret == 0)
			continue;

		ixt_conn_rx_pdu(conn, &tc->rx_pdu);
		ixt_tcp_rcv_reset(tc);
		if (--budget == 0) {
			queue_delayed_work(ixt_wq, &tc->rx_work, 0);
			return;
		}
	}
}

/*
 * Transmit
 */

static u32 ixt_tcp_tx_hdr_len(const struct ixt_tx_pdu *pdu)
{
	return ISCSI_HDR_LEN +
	       (pdu->digests & IXT_PDU_HDIGEST ? IXT_TCP_DIGEST_LEN : 0);
}

static u32 ixt_tcp_tx_trailer_len(const struct ixt_tx_pdu *pdu)
{
	if (!pdu->dlength)
		return 0;
	return ixt_pdu_pad_len(pdu->dlength) +
	       (pdu->digests & IXT_PDU_DDIGEST ? IXT_TCP_DIGEST_LEN : 0);
}

/*
 * Points @msg at what is left of @tc->tx_cur's part that @tc->tx_off falls
 * in: the header and its digest, the data segment, or the padding and the
 * data digest. A data segment in pages goes from them, copied once into
 * the socket's buffers; the rest is copied, being small or slab memory.
 * Never handed over as they are (MSG_SPLICE_PAGES): TCP would keep the
 * pages until the initiator acknowledged them and resend from them,
 * while the pool gives the lines to other commands once the PDU is out.
 * Returns whether the part is data in pages that the socket copies.
 */
static bool ixt_tcp_tx_part(struct ixt_tcp_conn *tc, struct msghdr *msg,
			    struct kvec *iov, bool more)
{
	struct ixt_tx_pdu *pdu = tc->tx_cur;
	u32 hlen = ixt_tcp_tx_hdr_len(pdu);
	u32 tlen = ixt_tcp_tx_trailer_len(pdu);
	u32 off = tc->tx_off;
	bool copied = false;
	int nr = 0;

	if (off < hlen) {
		iov[nr++] = (struct kvec){ &pdu->hdr, ISCSI_HDR_LEN };
		if (hlen > ISCSI_HDR_LEN)
			iov[nr++] = (struct kvec){ &tc->tx_digest.hdigest,
						   IXT_TCP_DIGEST_LEN };
		iov_iter_kvec(&msg->msg_iter, ITER_SOURCE, iov, nr, hlen);
		if (pdu->dlength)
			more = true;
	} else if (off < hlen + pdu->dlength) {
		off -= hlen;
		if (pdu->bvec) {
			iov_iter_bvec(&msg->msg_iter, ITER_SOURCE, pdu->bvec,
				      pdu->nr_bvec,
				      pdu->bvec_off + pdu->dlength);
			off += pdu->bvec_off;
			copied = true;
		} else {
			iov[nr++] = (struct kvec){ pdu->data, pdu->dlength };
			iov_iter_kvec(&msg->msg_iter, ITER_SOURCE, iov, nr,
				      pdu->dlength);
		}
		if (tlen)
			more = true;
	} else {
		u32 pad = ixt_pdu_pad_len(pdu->dlength);

		off -= hlen + pdu->dlength;
		if (pad)
			iov[nr++] = (struct kvec){ tc->tx_digest.pad, pad };
		if (tlen > pad)
			iov[nr++] = (struct kvec){ &tc->tx_digest.ddigest,
						   IXT_TCP_DIGEST_LEN };
		iov_iter_kvec(&msg->msg_iter, ITER_SOURCE, iov, nr, tlen);
	}
	iov_iter_advance(&msg->msg_iter, off);
	if (more)
		msg->msg_flags |= MSG_MORE;
	return copied;
}

/* Sends what the socket takes of @tc->tx_cur: 0 when all is out. */
static int ixt_tcp_send_cur(struct ixt_tcp_conn *tc, bool more)
{
	struct ixt_tx_pdu *pdu = tc->tx_cur;
	u32 total = ixt_tcp_tx_hdr_len(pdu) + pdu->dlength +
		    ixt_tcp_tx_trailer_len(pdu);
	struct kvec iov[2];
	bool copied;
	int ret;

	while (tc->tx_off < total) {
		struct msghdr msg = {
			.msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL,
		};

		copied = ixt_tcp_tx_part(tc, &msg, iov, more);
		ret = sock_sendmsg(tc->sock, &msg);
		if (ret <= 0)
			return ret ? ret : -EAGAIN;
		if (copied)
			ixt_cost_add(IXT_COST_COPIED_TX, ret);
		tc->tx_off += ret;
		/* A PDU sent in full stamps the queue in ixt_conn_tx_done(). */
		if (tc->tx_off < total)
			ixt_conn_tx_progress(tcp_to_conn(tc));
	}
	return 0;
}

static struct ixt_tx_pdu *ixt_tcp_next(struct ixt_tcp_conn *tc, bool *more)
{
	struct ixt_tx_pdu *pdu;

	spin_lock_bh(&tc->tx_lock);
	pdu = list_first_entry_or_null(&tc->tx_queue, struct ixt_tx_pdu,
				       entry);
	if (pdu)
		list_del(&pdu->entry);
	*more = !list_empty(&tc->tx_queue);
	spin_unlock_bh(&tc->tx_lock);
	return pdu;
}

static void ixt_tcp_prepare(struct ixt_tcp_conn *tc, struct ixt_tx_pdu *pdu)
{
	tc->tx_cur = pdu;
	tc->tx_off = 0;
	memset(tc->tx_digest.pad, 0, sizeof(tc->tx_digest.pad));
	if (pdu->digests & IXT_PDU_HDIGEST)
		tc->tx_digest.hdigest = ixt_tcp_crc(&pdu->hdr, ISCSI_HDR_LEN,
						    0);
	if (pdu->dlength && pdu->digests & IXT_PDU_DDIGEST)
		tc->tx_digest.ddigest = pdu->bvec ?
			ixt_tcp_crc_bvec(pdu->bvec, pdu->bvec_off,
					 pdu->dlength,
					 ixt_pdu_pad_len(pdu->dlength)) :
			ixt_tcp_crc(pdu->data, pdu->dlength,
				    ixt_pdu_pad_len(pdu->dlength));
}

/* Whether PDUs of @pdu's Data-In run follow the one being sent. */
static bool ixt_tcp_run_left(const struct ixt_tx_pdu *pdu)
{
	return pdu->bvec_off + pdu->dlength < pdu->run_end;
}

static void ixt_tcp_tx_work(struct work_struct *work)
{
	struct ixt_tcp_conn *tc =
		container_of(work, struct ixt_tcp_conn, tx_work);
	struct ixt_conn *conn = tcp_to_conn(tc);
	int budget = IXT_TCP_BUDGET;
	bool more = false;
	int ret;

	while (!ixt_conn_closing(conn)) {
		if (!tc->tx_cur) {
			struct ixt_tx_pdu *pdu = ixt_tcp_next(tc, &more);

			if (!pdu)
				return;
			ixt_tcp_prepare(tc, pdu);
		}
		ret = ixt_tcp_send_cur(tc, more || ixt_tcp_run_left(tc->tx_cur));
		if (ret == -EAGAIN)
			return;	/* write_space requeues us */
		if (ret) {
			pr_debug("%pISpc: send failed: %d\n", ixt_conn_peer(conn), ret);
			ixt_conn_close(conn);
			return;
		}
		if (ixt_tx_pdu_next(tc->tx_cur)) {
			/* The next PDU of a read's Data-In run. */
			ixt_conn_tx_progress(conn);
			ixt_tcp_prepare(tc, tc->tx_cur);
		} else {
			ixt_conn_tx_done(conn, tc->tx_cur);
			tc->tx_cur = NULL;
		}
		if (--budget == 0) {
			queue_work(ixt_wq, &tc->tx_work);
			return;
		}
	}
}

/*
 * Transport ops
 */

static void ixt_tcp_queue(struct ixt_conn *conn, struct ixt_tx_pdu *pdu)
{
	struct ixt_tcp_conn *tc = to_tcp_conn(conn);

	spin_lock_bh(&tc->tx_lock);
	if (tc->tx_gone) {
		spin_unlock_bh(&tc->tx_lock);
		ixt_tx_pdu_free(pdu);
		return;
	}
	list_add_tail(&pdu->entry, &tc->tx_queue);
	if (!tc->tx_dead)
		queue_work(ixt_wq, &tc->tx_work);
	spin_unlock_bh(&tc->tx_lock);
}

static void ixt_tcp_rx_resume(struct ixt_conn *conn)
{
	mod_delayed_work(ixt_wq, &to_tcp_conn(conn)->rx_work, 0);
}

static void ixt_tcp_restore_callbacks(struct ixt_tcp_conn *tc)
{
	struct sock *sk = tc->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = tc->data_ready;
	sk->sk_write_space = tc->write_space;
	sk->sk_state_change = tc->state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Stops the I/O and lets the socket go at once: the core may then wait a
 * long time for the connection's commands (a stuck backend), and neither
 * the socket nor the responses still queued may wait with them, as a
 * queued response holds its command.
 */
static void ixt_tcp_shutdown(struct ixt_conn *conn)
{
	struct ixt_tcp_conn *tc = to_tcp_conn(conn);
	struct ixt_tx_pdu *pdu, *tmp;
	LIST_HEAD(unsent);

	ixt_tcp_restore_callbacks(tc);
	spin_lock_bh(&tc->tx_lock);
	tc->tx_dead = true;
	spin_unlock_bh(&tc->tx_lock);
	/*
	 * The transmit work may resume the receive work (ixt_conn_tx_done());
	 * the receive work queues no transmit work once tx_dead is set.
	 */
	cancel_work_sync(&tc->tx_work);
	cancel_delayed_work_sync(&tc->rx_work);
	/*
	 * A peer given up for dead gets a reset: the socket would otherwise
	 * keep what it could not send, up to its send buffer, for as long as
	 * TCP retries.
	 */
	if (ixt_conn_aborted(conn))
		sock_no_linger(tc->sock->sk);
	else
		kernel_sock_shutdown(tc->sock, SHUT_RDWR);
	sock_release(tc->sock);
	tc->sock = NULL;

	/* What was queued since is freed in order, @tx_cur first. */
	spin_lock_bh(&tc->tx_lock);
	tc->tx_gone = true;
	list_splice_init(&tc->tx_queue, &unsent);
	spin_unlock_bh(&tc->tx_lock);
	if (tc->tx_cur)
		ixt_tx_pdu_free(tc->tx_cur);
	tc->tx_cur = NULL;
	list_for_each_entry_safe(pdu, tmp, &unsent, entry)
		ixt_tx_pdu_free(pdu);
}

static void ixt_tcp_free(struct ixt_conn *conn)
{
	struct ixt_tcp_conn *tc = to_tcp_conn(conn);

	kvfree(tc->rx_pdu.data);
}

static int ixt_tcp_local_addr(struct ixt_conn *conn,
			      struct sockaddr_storage *ss)
{
	int ret = kernel_getsockname(to_tcp_conn(conn)->sock,
				     (struct sockaddr *)ss);

	return ret < 0 ? ret : 0;
}

static const struct ixt_transport_ops ixt_tcp_ops = {
	.name		= "tcp",
	.conn_priv_size	= sizeof(struct ixt_tcp_conn),
	.conn_fault	= IXT_FAULT_TCP_CONN,
	.cmd_fault	= IXT_FAULT_CMD,
	.cache_fault	= IXT_FAULT_CMD_CACHE,
	.queue		= ixt_tcp_queue,
	.rx_resume	= ixt_tcp_rx_resume,
	.shutdown	= ixt_tcp_shutdown,
	.free		= ixt_tcp_free,
	.local_addr	= ixt_tcp_local_addr,
};

/* Registered by the core's module init. */
struct ixt_transport ixt_tcp_xprt = {
	.ops		= &ixt_tcp_ops,
};

/*
 * Hooks the socket up and starts the connection; fails if the peer already
 * went away. Once the callbacks are in place the connection may close at
 * any time, so everything that starts it happens under the callback lock,
 * which its release takes first.
 */
static int ixt_tcp_set_sock(struct ixt_tcp_conn *tc)
{
	struct sock *sk = tc->sock->sk;
	int ret = 0;

	tcp_sock_set_nodelay(sk);
	write_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_state != TCP_ESTABLISHED) {
		ret = -ENOTCONN;
	} else {
		sk->sk_user_data = tc;
		tc->data_ready = sk->sk_data_ready;
		sk->sk_data_ready = ixt_tcp_data_ready;
		tc->write_space = sk->sk_write_space;
		sk->sk_write_space = ixt_tcp_write_space;
		tc->state_change = sk->sk_state_change;
		sk->sk_state_change = ixt_tcp_state_change;
		ixt_conn_start(tcp_to_conn(tc));
		/* Data may have arrived before the callbacks were in place. */
		queue_delayed_work(ixt_wq, &tc->rx_work, 0);
	}
	write_unlock_bh(&sk->sk_callback_lock);
	return ret;
}

/**
 * ixt_tcp_conn_create() - start a connection on an accepted socket
 * @portal: the listening endpoint; the connection takes a reference.
 * @sock: the accepted socket; owned by the connection on success.
 *
 * Context: Process context (the portal's accept work).
 * Return: 0, or a negative errno when the connection could not start
 * (too many connections in login, no memory, peer gone): the caller then
 * releases @sock.
 */
int ixt_tcp_conn_create(struct ixt_portal *portal, struct socket *sock)
{
	struct sockaddr_storage peer;
	struct ixt_tcp_conn *tc;
	struct ixt_conn *conn;
	int ret;

	ret = kernel_getpeername(sock, (struct sockaddr *)&peer);
	if (ret < 0)
		return ret;
	conn = ixt_conn_alloc(&ixt_tcp_xprt, &peer);
	if (!conn)
		return -ENOMEM;
	tc = to_tcp_conn(conn);
	tc->sock = sock;
	INIT_DELAYED_WORK(&tc->rx_work, ixt_tcp_rx_work);
	INIT_WORK(&tc->tx_work, ixt_tcp_tx_work);
	spin_lock_init(&tc->tx_lock);
	INIT_LIST_HEAD(&tc->tx_queue);
	ixt_tcp_rcv_reset(tc);
	sock->sk->sk_allocation = GFP_KERNEL;
	ret = ixt_conn_init(conn, portal);
	if (ret)
		goto out_free_conn;
	ret = ixt_tcp_set_sock(tc);
	if (ret)
		goto out_uninit_conn;
	return 0;

out_uninit_conn:
	ixt_conn_uninit(conn);
out_free_conn:
	ixt_conn_free(conn);
	return ret;
}
