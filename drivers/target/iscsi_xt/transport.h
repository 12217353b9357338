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
 *
 * This header is all a transport sees of the core: &struct ixt_conn and
 * &struct ixt_cmd are incomplete types here. The core allocates both
 * with the transport's private part in front (see &struct
 * ixt_transport_ops), and the transport reads the few fields it needs
 * through the ixt_conn_*() and ixt_cmd_*() accessors below: inline ones
 * over the head of each structure for what the data path reads, exported
 * functions for the rest.
 */
#ifndef _ISCSI_XT_TRANSPORT_H
#define _ISCSI_XT_TRANSPORT_H

#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/bvec.h>
#include <linux/list.h>
#include <linux/socket.h>
#include <linux/types.h>
#include <scsi/iscsi_proto.h>
#include <iscsi_xt/pdu.h>

#include "fault.h"

struct ixt_cmd;
struct ixt_conn;
struct ixt_params;
struct ixt_portal;
struct kmem_cache;
struct module;
struct socket;
struct workqueue_struct;

/* The workqueue every connection's rx, tx and release work runs on. */
extern struct workqueue_struct *ixt_wq;

/**
 * enum ixt_conn_state - where a connection is in its life
 * @IXT_CONN_LOGIN: login phase: only Login Requests are accepted.
 * @IXT_CONN_FULL_FEATURE: login succeeded; the session is usable.
 * @IXT_CONN_LOGOUT: a Logout Response, or a Login Response that fails
 *	the login, is queued: nothing more is read, and the connection
 *	closes once the response is out.
 *
 * Closing is not a state but a flag (ixt_conn_closing()), which may be
 * set in any state and from any context.
 */
enum ixt_conn_state {
	IXT_CONN_LOGIN,
	IXT_CONN_FULL_FEATURE,
	IXT_CONN_LOGOUT,
};

/**
 * struct ixt_conn_head - what a transport reads of a connection on its
 *	data path
 * @limits: what the receive path accepts; written by the core from the
 *	receive path only.
 * @digests: IXT_PDU_HDIGEST/IXT_PDU_DDIGEST in force for PDUs queued
 *	from now on; the transport checks received PDUs against it too.
 *	Changed only from the receive path, at the end of login.
 * @peer: the initiator's address, for messages; set by ixt_conn_alloc().
 *
 * The first member of &struct ixt_conn, owned by the core; a transport
 * reads it through ixt_conn_digests() and the other inline accessors.
 */
struct ixt_conn_head {
	struct ixt_pdu_limits limits;
	unsigned int digests;
	struct sockaddr_storage peer;
};

/* &struct ixt_cmd_head.flags bits a transport tests; cmd.h has the rest. */
#define IXT_CMD_F_SLOT		1	/* has data to solicit */

/**
 * struct ixt_cmd_head - what a transport reads of a command on its data
 *	path
 * @conn: the connection the command came on; its release waits for
 *	every command of its session, so it outlives them.
 * @flags: IXT_CMD_F_* bits (cmd.h); changed by the receive path, and
 *	by the watchdog under the session's rx_lock
 *	(ixt_dataout_abort_marked()).
 * @itt: Initiator Task Tag.
 * @nr_lines: number of cache lines of the buffer; 0 for a command
 *	without data. A bidirectional command's is its write buffer. For a
 *	write whose buffer the transport lent (&struct ixt_rx_pdu.lent),
 *	its pages: each is a line of PAGE_SIZE bytes.
 * @bvec: the buffer as the transports see it: one bio_vec per line, the
 *	first starting where the buffer does.
 *
 * The first member of &struct ixt_cmd, owned by the core; a transport
 * reads it through ixt_cmd_conn() and the other inline accessors.
 */
struct ixt_cmd_head {
	struct ixt_conn *conn;
	unsigned long flags;
	itt_t itt;
	u32 nr_lines;
	struct bio_vec *bvec;
};

/*
 * The alignment of a transport's private part of a connection or of a
 * command: the core's structure follows it in the same allocation, so
 * the private structure is declared __aligned(IXT_PRIV_ALIGN), which
 * makes its size a multiple of that (IXT_PRIV_CHECK() says so at build
 * time), and the core checks at build time that its own structures need
 * no more.
 */
#define IXT_PRIV_ALIGN		8
#define IXT_PRIV_CHECK(type)						\
	static_assert(__alignof__(type) == IXT_PRIV_ALIGN,		\
		      #type " must be __aligned(IXT_PRIV_ALIGN)")

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
 * @run_end: for a transport without %IXT_XPRT_F_RDMA, a read's Data-In:
 *	the offset in @bvec where its data ends. The PDU is then the first
 *	of a run of Data-In PDUs of at most @seg_max bytes each, which the
 *	transport sends one after the other, ixt_tx_pdu_next() making each
 *	from the one before; 0 for a PDU alone.
 * @seg_max: the most data a PDU of the run carries.
 * @last_flags: the flags of the run's last PDU (F, and S with the
 *	residual bits when it carries the status); the others have none.
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
	u32 run_end;
	u32 seg_max;
	u8 last_flags;
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
 * @lend: set by the transport before ixt_conn_rx_hdr(), or %NULL: the
 *	pages that already hold the data segment, from the start of the
 *	first, which the core may take as the buffer of a write whose every
 *	byte is in this PDU, instead of cache lines and a copy.
 * @nr_lend: number of @lend pages.
 * @lent: set by ixt_conn_rx_hdr(): the core took @lend as the buffer of
 *	@cmd. The data segment is in place (the transport neither copies it
 *	nor reuses the pages), and the pages stay the command's until the
 *	transport's cmd_release op, which takes them back.
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
	struct page **lend;
	u32 nr_lend;
	bool lent;
};

/* &struct ixt_transport_ops.flags */
#define IXT_XPRT_F_RDMA		BIT(0)	/* data moves by RDMA; no digests */

/**
 * struct ixt_transport_ops - what the core asks of a transport
 * @name: short name for messages ("tcp") and for the name of its
 *	command cache.
 * @flags: IXT_XPRT_F_* bits.
 * @max_recv_dlength: the longest data segment the transport can receive,
 *	which caps the TargetRecvDataSegmentLength offered; 0: no limit.
 * @max_send_dlength: the longest data segment of a PDU the transport
 *	sends as one message (over RDMA, every PDU but Data-In), which
 *	caps what the target sends whatever the initiator declared; 0: no
 *	limit.
 * @conn_priv_size: bytes of the transport's part of a connection, a
 *	structure declared __aligned(IXT_PRIV_ALIGN) (IXT_PRIV_CHECK()).
 *	ixt_conn_alloc() allocates it zeroed in front of the core's
 *	&struct ixt_conn: the transport finds its part at
 *	``(struct priv *)conn - 1`` and the connection at
 *	``(struct ixt_conn *)(priv + 1)``.
 * @cmd_priv_size: the same for the transport's part of a command, in
 *	front of the core's &struct ixt_cmd; 0 for none.
 * @conn_fault: the allocation fault site (fault.h) of its connections,
 *	in ixt_conn_alloc().
 * @cmd_fault: that of its commands.
 * @cache_fault: that of its command cache, in ixt_transport_register().
 * @queue: queue @pdu for transmission after the PDUs queued before it
 *	and take ownership of it. Any context but hard IRQ. Never fails: a
 *	connection that cannot send is closing, and the PDU is then freed
 *	(at once, once the connection is shut down).
 * @rx_resume: the core can now take the PDU it put off (-EAGAIN from
 *	ixt_conn_rx_hdr(): its command waits for cache lines), or send the
 *	R2Ts it put off (ixt_dataout_resume()): run the receive path again
 *	soon. Called with a spinlock held and interrupts off (the pool's,
 *	ixt_pool_waiter_init()): it may only queue work. Never called once
 *	@shutdown has begun.
 * @shutdown: stop I/O: detach from the wire, wait until no receive or
 *	transmit work of the connection runs nor can start, free every
 *	PDU still queued and release the wire (socket, queue pair). Called
 *	once, from the connection's release work, which may then wait
 *	long for the session's commands. Process context; may sleep.
 * @free: release what the transport's part of the connection holds;
 *	called once, last, when every command of the connection is freed.
 *	The core frees the memory of the connection, the transport's part
 *	included, when it returns. Process context.
 * @local_addr: the address the initiator connected to (the connection's
 *	local end). Returns 0 or a negative errno. Process context.
 * @cmd_init: optional: set up the transport's part of a new command,
 *	zeroed, before the core uses the command. Process context (the
 *	receive path).
 * @cmd_release: optional: release what the transport's part of a command
 *	holds, once its last reference is dropped (pages it lent as the
 *	command's buffer among them); the core frees the memory afterwards.
 *	Any context but hard IRQ.
 * @ffp_prepare: optional: login succeeds and the connection is about to
 *	enter full feature phase. @window holds the command window the
 *	session wants; the transport lowers it to what it can receive.
 *	Called from the receive path before the final Login Response is
 *	queued. Process context.
 * @fetch: RDMA transports: pull the solicited data of a write, the @len
 *	bytes from @off on in its buffer (ixt_cmd_bvec()), into its cache
 *	lines, then call ixt_conn_fetched() from the receive path, or, if
 *	the connection fails first, drop the reference the core took for
 *	the fetch with ixt_cmd_put(). Receive path.
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
	u32 max_send_dlength;
	size_t conn_priv_size;
	size_t cmd_priv_size;
	enum ixt_fault_site conn_fault;
	enum ixt_fault_site cmd_fault;
	enum ixt_fault_site cache_fault;
	void (*queue)(struct ixt_conn *conn, struct ixt_tx_pdu *pdu);
	void (*rx_resume)(struct ixt_conn *conn);
	void (*shutdown)(struct ixt_conn *conn);
	void (*free)(struct ixt_conn *conn);
	int (*local_addr)(struct ixt_conn *conn, struct sockaddr_storage *ss);
	void (*cmd_init)(struct ixt_cmd *cmd);
	void (*cmd_release)(struct ixt_cmd *cmd);
	void (*ffp_prepare)(struct ixt_conn *conn, u32 *window);
	void (*fetch)(struct ixt_cmd *cmd, u32 off, u32 len);
	ssize_t (*show_info)(struct ixt_conn *conn, char *page, ssize_t len);
};

/**
 * struct ixt_transport - a transport as registered with the core
 * @ops: its ops; set by the transport.
 * @cmd_cache: the slab cache of its commands, each the transport's part
 *	(&ixt_transport_ops.cmd_priv_size bytes) and the core's &struct
 *	ixt_cmd; the core's, from ixt_transport_register() to
 *	ixt_transport_unregister().
 *
 * Owned by the transport (a static variable), which registers it before
 * it allocates its first connection with ixt_conn_alloc() and
 * unregisters it once its last connection is freed.
 */
struct ixt_transport {
	const struct ixt_transport_ops *ops;
	struct kmem_cache *cmd_cache;
};

/**
 * struct ixt_listener_ops - how a transport module listens on portals
 * @owner: the transport's module, referenced while it listens for a
 *	portal; %NULL for TCP, which is part of the core module.
 * @listen: start listening on ixt_portal_addr() of @portal, and keep in
 *	@priv what @unlisten needs. Connections it accepts are allocated
 *	with ixt_conn_alloc() and set up with ixt_conn_init() on @portal.
 *	Returns 0 or a negative errno, as LIO's transport would for the
 *	same address. Process context, under the core's portal mutex.
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

/**
 * ixt_conn_head() - the part of a connection a transport reads
 * @conn: the connection.
 *
 * Return: its head, the first member of &struct ixt_conn.
 */
static inline const struct ixt_conn_head *
ixt_conn_head(const struct ixt_conn *conn)
{
	return (const struct ixt_conn_head *)conn;
}

/**
 * ixt_conn_peer() - the initiator's address of a connection
 * @conn: the connection.
 *
 * Return: the address, for messages.
 */
static inline const struct sockaddr_storage *
ixt_conn_peer(const struct ixt_conn *conn)
{
	return &ixt_conn_head(conn)->peer;
}

/**
 * ixt_conn_digests() - the digests in force on a connection
 * @conn: the connection.
 *
 * Context: The receive path, or when queueing a PDU.
 * Return: IXT_PDU_HDIGEST and IXT_PDU_DDIGEST bits.
 */
static inline unsigned int ixt_conn_digests(const struct ixt_conn *conn)
{
	return ixt_conn_head(conn)->digests;
}

/**
 * ixt_conn_max_recv_dlength() - the longest data segment a connection takes
 * @conn: the connection.
 *
 * Context: The receive path.
 * Return: MaxRecvDataSegmentLength as the target declared it.
 */
static inline u32 ixt_conn_max_recv_dlength(const struct ixt_conn *conn)
{
	return ixt_conn_head(conn)->limits.max_recv_dlength;
}

/**
 * ixt_cmd_head() - the part of a command a transport reads
 * @cmd: the command.
 *
 * Return: its head, the first member of &struct ixt_cmd.
 */
static inline const struct ixt_cmd_head *
ixt_cmd_head(const struct ixt_cmd *cmd)
{
	return (const struct ixt_cmd_head *)cmd;
}

/**
 * ixt_cmd_conn() - the connection of a command
 * @cmd: the command.
 *
 * Return: the connection it came on.
 */
static inline struct ixt_conn *ixt_cmd_conn(const struct ixt_cmd *cmd)
{
	return ixt_cmd_head(cmd)->conn;
}

/**
 * ixt_cmd_itt() - the Initiator Task Tag of a command
 * @cmd: the command.
 *
 * Return: the tag, as on the wire.
 */
static inline itt_t ixt_cmd_itt(const struct ixt_cmd *cmd)
{
	return ixt_cmd_head(cmd)->itt;
}

/**
 * ixt_cmd_nr_lines() - the cache lines of a command's buffer
 * @cmd: the command, its buffer set up (ixt_conn_rx_hdr()).
 *
 * Return: the number of lines, 0 for a command without data; for a
 * bidirectional command, those of its write buffer.
 */
static inline u32 ixt_cmd_nr_lines(const struct ixt_cmd *cmd)
{
	return ixt_cmd_head(cmd)->nr_lines;
}

/**
 * ixt_cmd_bvec() - a command's buffer
 * @cmd: the command, its buffer set up (ixt_conn_rx_hdr()).
 *
 * Return: ixt_cmd_nr_lines() bio_vecs, one per line, the first starting
 * where the buffer does.
 */
static inline const struct bio_vec *ixt_cmd_bvec(const struct ixt_cmd *cmd)
{
	return ixt_cmd_head(cmd)->bvec;
}

/**
 * ixt_cmd_has_slot() - whether a write has solicited data
 * @cmd: the command, its header taken by ixt_conn_rx_hdr().
 *
 * Return: true when the command holds a slot of its connection: it
 * expects data beyond its unsolicited part, which an RDMA transport is
 * asked to fetch (&struct ixt_transport_ops.fetch).
 */
static inline bool ixt_cmd_has_slot(const struct ixt_cmd *cmd)
{
	return test_bit(IXT_CMD_F_SLOT, &ixt_cmd_head(cmd)->flags);
}

/**
 * ixt_itt() - an Initiator Task Tag as a number, for messages
 * @itt: the tag.
 *
 * Return: its value in CPU order.
 */
static inline u32 ixt_itt(itt_t itt)
{
	return be32_to_cpu((__force __be32)itt);
}

/**
 * enum ixt_cost_counter - what /sys/kernel/debug/iscsi_xt/cost counts
 *	(cost.c), per CPU
 * @IXT_COST_CMDS: SCSI Command PDUs received whole in full feature phase.
 * @IXT_COST_PAYLOAD_RX: SCSI data bytes received into commands' buffers:
 *	immediate data, Data-Out (unsolicited or not), data fetched with
 *	RDMA READs.
 * @IXT_COST_PAYLOAD_TX: SCSI data bytes queued as Data-In, sent over TCP
 *	or written with RDMA WRITEs.
 * @IXT_COST_COPIED_RX: payload bytes the target's CPU copied on their way
 *	in: received from a socket into cache lines, copied out of an iSER
 *	receive buffer.
 * @IXT_COST_COPIED_TX: payload bytes the target's CPU copied on their way
 *	out: Data-In sent over TCP without MSG_SPLICE_PAGES.
 * @IXT_COST_LINES: cache lines taken from the pool.
 * @IXT_COST_NR: number of counters.
 */
enum ixt_cost_counter {
	IXT_COST_CMDS,
	IXT_COST_PAYLOAD_RX,
	IXT_COST_PAYLOAD_TX,
	IXT_COST_COPIED_RX,
	IXT_COST_COPIED_TX,
	IXT_COST_LINES,
	IXT_COST_NR,
};

void ixt_cost_add(enum ixt_cost_counter counter, u64 n);

/* The TCP transport, part of the core module (tcp.c, tcp_listen.c). */
extern struct ixt_transport ixt_tcp_xprt;
extern const struct ixt_listener_ops ixt_tcp_lops;
int ixt_tcp_conn_create(struct ixt_portal *portal, struct socket *sock);

/*
 * The core's functions a transport calls (conn.c, cmd.c, dataout.c,
 * portal.c).
 */
int ixt_transport_register(struct ixt_transport *xprt);
void ixt_transport_unregister(struct ixt_transport *xprt);
struct ixt_conn *ixt_conn_alloc(struct ixt_transport *xprt,
				const struct sockaddr_storage *peer);
void ixt_conn_free(struct ixt_conn *conn);
int ixt_conn_init(struct ixt_conn *conn, struct ixt_portal *portal);
void ixt_conn_uninit(struct ixt_conn *conn);
void ixt_conn_start(struct ixt_conn *conn);
bool ixt_conn_close(struct ixt_conn *conn);
bool ixt_conn_closing(struct ixt_conn *conn);
bool ixt_conn_rx_stopped(struct ixt_conn *conn);
enum ixt_conn_state ixt_conn_state(const struct ixt_conn *conn);
bool ixt_conn_aborted(const struct ixt_conn *conn);
const struct ixt_params *ixt_conn_params(const struct ixt_conn *conn);
int ixt_conn_nr_cmds(const struct ixt_conn *conn);
int ixt_conn_check_hdr(struct ixt_conn *conn, struct ixt_rx_pdu *pdu);
int ixt_conn_rx_hdr(struct ixt_conn *conn, struct ixt_rx_pdu *pdu);
void ixt_conn_rx_pdu(struct ixt_conn *conn, struct ixt_rx_pdu *pdu);
void ixt_conn_fetched(struct ixt_conn *conn, struct ixt_cmd *cmd);
void ixt_conn_digest_error(struct ixt_conn *conn, const struct iscsi_hdr *hdr);
void ixt_conn_tx_done(struct ixt_conn *conn, struct ixt_tx_pdu *pdu);
void ixt_conn_tx_progress(struct ixt_conn *conn);
bool ixt_tx_pdu_next(struct ixt_tx_pdu *pdu);
void ixt_dataout_resume(struct ixt_conn *conn);
void ixt_tx_pdu_free(struct ixt_tx_pdu *pdu);
void ixt_cmd_put(struct ixt_cmd *cmd);
u32 ixt_cmd_read_lines(const struct ixt_cmd *cmd);
const struct sockaddr_storage *ixt_portal_addr(struct ixt_portal *portal);
int ixt_iser_register(const struct ixt_listener_ops *ops);
void ixt_iser_unregister(const struct ixt_listener_ops *ops);
void ixt_iser_relisten(void);
void ixt_portal_lend_tcp(struct ixt_portal *portal);
void ixt_portal_reclaim_tcp(struct ixt_portal *portal);

#endif /* _ISCSI_XT_TRANSPORT_H */
