/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iscsi_xt: the contract between the transport-neutral core (login,
 * sessions, PDU dispatch) and a transport (TCP in the core module, iSER
 * in iscsi_xt_iser).
 *
 * A transport shows the core each PDU's header with ixt_conn_rx_hdr(),
 * which says where its data segment goes, delivers the whole PDU with
 * ixt_conn_rx_pdu() and reports its end with ixt_conn_close(); the core
 * hands it PDUs to send through &struct ixt_transport_ops.
 *
 * An RDMA transport (%IXT_XPRT_F_RDMA) moves the data of commands itself:
 * the core queues one Data-In PDU for a read's whole buffer, which the
 * transport writes with RDMA WRITEs, and asks it to fetch the solicited
 * part of a write (RDMA READs) instead of sending R2Ts; the transport
 * reports the fetched data with ixt_conn_fetched().
 */
#ifndef _ISCSI_XT_TRANSPORT_H
#define _ISCSI_XT_TRANSPORT_H

#include <linux/bits.h>
#include <linux/bvec.h>
#include <linux/list.h>
#include <linux/socket.h>
#include <linux/types.h>
#include <scsi/iscsi_proto.h>

struct ixt_cmd;
struct ixt_conn;
struct ixt_portal;
struct module;

/**
 * struct ixt_tx_pdu - a PDU queued for transmission
 * @entry: link in the connection's transmit queue.
 * @hdr: the BHS; the transport appends the header digest.
 * @data: the data segment, or %NULL; owned by the PDU, freed with it by
 *	ixt_tx_pdu_free().
 * @bvec: the data segment in pages, when @data is %NULL: @dlength bytes
 *	from @bvec_off on in the @nr_bvec pages at @bvec, which the PDU does
 *	not own. The transport may hand these pages to the network stack
 *	without copying them.
 * @nr_bvec: number of @bvec.
 * @bvec_off: offset of the data segment in @bvec.
 * @dlength: bytes of the data segment; the transport appends the padding
 *	and the data digest.
 * @cmd: set when the PDU is the response embedded in a command:
 *	ixt_tx_pdu_free() then tells the command instead of freeing it.
 * @data_cmd: for an RDMA transport, the command whose buffer a Data-In
 *	PDU describes (@bvec); the command outlives the PDU, whose response
 *	is always queued after it: the transport may hold the Data-In until
 *	then, to post both at once. %NULL otherwise.
 * @digests: IXT_PDU_HDIGEST and IXT_PDU_DDIGEST as in force when the
 *	PDU was queued, so that the final Login Response goes out without
 *	digests even though the connection turns them on right after it.
 * @close: close the connection once the PDU is out (Logout Response,
 *	failed Login Response).
 */
struct ixt_tx_pdu {
	struct list_head entry;
	struct iscsi_hdr hdr;
	void *data;
	const struct bio_vec *bvec;
	u32 nr_bvec;
	u32 bvec_off;
	u32 dlength;
	struct ixt_cmd *cmd;
	struct ixt_cmd *data_cmd;
	unsigned int digests;
	bool close;
};

/**
 * struct ixt_rx_pdu - a PDU received in full, as the core sees it
 * @hdr: the BHS, checked by ixt_pdu_check_bhs() unless @reject is set.
 * @ahs: the AHSs (TotalAHSLength bytes), or %NULL.
 * @data: the data segment without padding, or %NULL; %NULL too when it
 *	went to @bvec or was discarded.
 * @dlength: bytes of the data segment.
 * @bvec: set by ixt_conn_rx_hdr() to receive the data segment in place:
 *	@dlength bytes from @bvec_off on in the @nr_bvec pages at @bvec.
 *	%NULL: the transport receives it into @data.
 * @nr_bvec: number of @bvec.
 * @bvec_off: where the data segment starts in @bvec.
 * @cmd: the command the PDU belongs to; the core's, set by
 *	ixt_conn_rx_hdr().
 * @reject: non-zero when the header was refused: the reject reason. The
 *	data segment was read and dropped (@discard).
 * @discard: set by ixt_conn_check_hdr() with @reject, or by
 *	ixt_conn_rx_hdr(): read the data segment and drop it.
 * @ignore: set by ixt_conn_rx_hdr(): the core has dealt with the PDU at
 *	its header; ixt_conn_rx_pdu() does nothing more with it.
 * @answered: set by ixt_conn_rx_hdr(): a SCSI Command answered at its
 *	header (TASK SET FULL, CHECK CONDITION); it still takes its CmdSN,
 *	in order, as every command the initiator sees answered must.
 *
 * Owned by the transport, which zeroes it before each PDU.
 */
struct ixt_rx_pdu {
	struct iscsi_hdr hdr;
	u8 *ahs;
	u8 *data;
	u32 dlength;
	const struct bio_vec *bvec;
	u32 nr_bvec;
	u32 bvec_off;
	struct ixt_cmd *cmd;
	u8 reject;
	bool discard;
	bool ignore;
	bool answered;
};

/* &struct ixt_transport_ops.flags */
#define IXT_XPRT_F_RDMA		BIT(0)	/* data moves by RDMA; no digests */

/**
 * struct ixt_transport_ops - what the core asks of a transport
 * @name: short name for messages ("tcp").
 * @flags: IXT_XPRT_F_* bits.
 * @max_recv_dlength: the longest data segment the transport can receive,
 *	which caps the TargetRecvDataSegmentLength offered; 0: no limit.
 * @queue: queue @pdu for transmission after the PDUs queued before it
 *	and take ownership of it. Any context but hard IRQ. Never fails: a
 *	connection that cannot send is closing, and the PDU is then freed
 *	(at once, once the connection is shut down).
 * @rx_resume: the core can now take the PDU it put off (-EAGAIN from
 *	ixt_conn_rx_hdr(): its command waits for cache lines): run the
 *	receive path again soon. Called with a spinlock held and interrupts
 *	off (the pool's, ixt_pool_waiter_init()): it may only queue work.
 *	Never called once @shutdown has begun.
 * @shutdown: stop I/O: detach from the wire, wait until no receive or
 *	transmit work of the connection runs nor can start, free every
 *	PDU still queued and release the wire (socket, queue pair). Called
 *	once, from the connection's release work, which may then wait
 *	long for the session's commands. Process context; may sleep.
 * @free: free the transport's part of the connection, the &struct
 *	ixt_conn embedded in it included. Called once, last. Process
 *	context.
 * @local_addr: the address the initiator connected to (the connection's
 *	local end). Returns 0 or a negative errno. Process context.
 * @cmd_alloc: optional: allocate a zeroed command with room for the
 *	transport's state around it, or return %NULL. Process context.
 * @cmd_free: frees what @cmd_alloc allocated, once the command is done
 *	with; any context but hard IRQ. Both or neither are set.
 * @ffp_prepare: optional: login succeeds and the connection is about to
 *	enter full feature phase. @window holds the command window the
 *	session wants; the transport lowers it to what it can receive.
 *	Called from the receive path before the final Login Response is
 *	queued. Process context.
 * @fetch: RDMA transports: pull the solicited data of a write, bytes
 *	[unsolicited length, Expected Data Transfer Length) of its buffer,
 *	into its cache lines, then call ixt_conn_fetched() from the receive
 *	path, or, if the connection fails first, drop the reference the
 *	core took for the fetch with ixt_cmd_put(). Receive path.
 * @show_info: optional: print the connection's communication context
 *	(device, queue pair, negotiated RDMA limits) at @len in @page, one
 *	or more lines indented by 3 spaces that contain neither "Address"
 *	nor "STATE_" (rtslib parses the rest of the file); returns the new
 *	length. Process context, under the session mutex: the connection
 *	is in its session.
 */
struct ixt_transport_ops {
	const char *name;
	unsigned int flags;
	u32 max_recv_dlength;
	void (*queue)(struct ixt_conn *conn, struct ixt_tx_pdu *pdu);
	void (*rx_resume)(struct ixt_conn *conn);
	void (*shutdown)(struct ixt_conn *conn);
	void (*free)(struct ixt_conn *conn);
	int (*local_addr)(struct ixt_conn *conn, struct sockaddr_storage *ss);
	struct ixt_cmd *(*cmd_alloc)(struct ixt_conn *conn);
	void (*cmd_free)(struct ixt_cmd *cmd);
	void (*ffp_prepare)(struct ixt_conn *conn, u32 *window);
	void (*fetch)(struct ixt_cmd *cmd);
	ssize_t (*show_info)(struct ixt_conn *conn, char *page, ssize_t len);
};

/**
 * struct ixt_listener_ops - how a transport module listens on portals
 * @owner: the transport's module, referenced while it listens for a
 *	portal; %NULL for TCP, which is part of the core module.
 * @listen: start listening on ixt_portal_addr() of @portal, and keep in
 *	@priv what @unlisten needs. Connections it accepts are set up with
 *	ixt_conn_init() on @portal. Returns 0 or a negative errno, as LIO's
 *	transport would for the same address. Process context, under the
 *	core's portal mutex.
 *	An iWARP listener takes the port from the TCP listener of the
 *	address first, with ixt_portal_lend_tcp(), and gives it back with
 *	ixt_portal_reclaim_tcp() if it fails.
 * @unlisten: stop listening; connections already accepted stay up.
 *	Process context, under the core's portal mutex. The core gives a
 *	lent port back to TCP afterwards.
 * @relisten: iSER only: listen again if the listener lost its RDMA
 *	device and one with the address is there now, as @listen would.
 *	Process context, under the core's portal mutex, from
 *	ixt_iser_relisten().
 *
 * The core starts and stops every listener through these: TCP's
 * (ixt_tcp_lops), and iSER's, which the iSER module registers with
 * ixt_iser_register() and the portals whose iser attribute is set use.
 */
struct ixt_listener_ops {
	struct module *owner;
	int (*listen)(struct ixt_portal *portal, void **priv);
	void (*unlisten)(struct ixt_portal *portal, void *priv);
	void (*relisten)(struct ixt_portal *portal, void *priv);
};

int ixt_iser_register(const struct ixt_listener_ops *ops);
void ixt_iser_unregister(const struct ixt_listener_ops *ops);
void ixt_iser_relisten(void);
void ixt_portal_lend_tcp(struct ixt_portal *portal);
void ixt_portal_reclaim_tcp(struct ixt_portal *portal);

#endif /* _ISCSI_XT_TRANSPORT_H */
