/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iscsi_xt: the contract between the transport-neutral core (login,
 * sessions, PDU dispatch) and a transport (TCP now, iSER later).
 *
 * A transport shows the core each PDU's header with ixt_conn_rx_hdr(),
 * which says where its data segment goes, delivers the whole PDU with
 * ixt_conn_rx_pdu() and reports its end with ixt_conn_close(); the core
 * hands it PDUs to send through &struct ixt_transport_ops.
 */
#ifndef _ISCSI_XT_TRANSPORT_H
#define _ISCSI_XT_TRANSPORT_H

#include <linux/bvec.h>
#include <linux/list.h>
#include <linux/socket.h>
#include <linux/types.h>
#include <scsi/iscsi_proto.h>

struct ixt_cmd;
struct ixt_conn;

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
 *	data segment was read and is to be ignored.
 * @discard: set by ixt_conn_rx_hdr(): read the data segment and drop it.
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

/**
 * struct ixt_transport_ops - what the core asks of a transport
 * @name: short name for messages ("tcp").
 * @queue: queue @pdu for transmission after the PDUs queued before it
 *	and take ownership of it. Any context but hard IRQ. Never fails: a
 *	connection that cannot send is closing, and the PDU is then freed
 *	(at once, once the connection is shut down).
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
 */
struct ixt_transport_ops {
	const char *name;
	void (*queue)(struct ixt_conn *conn, struct ixt_tx_pdu *pdu);
	void (*shutdown)(struct ixt_conn *conn);
	void (*free)(struct ixt_conn *conn);
	int (*local_addr)(struct ixt_conn *conn, struct sockaddr_storage *ss);
};

#endif /* _ISCSI_XT_TRANSPORT_H */
