/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iscsi_xt: allocation fault injection. Each allocation of iscsi_xt and
 * iscsi_xt_iser is a named site; built with IXT_FAULT_INJECT=1 (make
 * kselftest), ixt_fault() says whether the allocation at a site must fail,
 * as armed through /sys/kernel/debug/iscsi_xt/fault/, and ixt_fault_stall()
 * makes a path wait at a named place once. Without the option both are
 * empty and the sites compile to what they were.
 */
#ifndef _ISCSI_XT_FAULT_H
#define _ISCSI_XT_FAULT_H

#include <linux/types.h>

/**
 * enum ixt_fault_site - the allocation sites of iscsi_xt and iscsi_xt_iser
 * @IXT_FAULT_POOL_ARRAYS: pool.c, module init: the pool's arrays of pages,
 *	free and busy lines.
 * @IXT_FAULT_POOL_CACHE: pool.c, module init: the per-CPU caches of free
 *	lines.
 * @IXT_FAULT_POOL_PAGES: pool.c, module init: one cache line (a compound
 *	page).
 * @IXT_FAULT_CMD_CACHE: cmd.c, module init: the slab cache of TCP's commands
 *	(ixt_transport_register()).
 * @IXT_FAULT_WQ: conn.c, module init: the module's workqueue.
 * @IXT_FAULT_TIQN: configfs.c: a target (mkdir of an IQN).
 * @IXT_FAULT_TIQN_INDEX: stats.c: a target's MIB index (ida).
 * @IXT_FAULT_TPG: configfs.c: a TPG (mkdir tpgt_N).
 * @IXT_FAULT_NP: configfs.c: a TPG's network portal (mkdir np/ADDR:PORT).
 * @IXT_FAULT_PORTAL: portal.c: a listener shared by the portals of an
 *	address.
 * @IXT_FAULT_PORTAL_SOCK: tcp_listen.c: a TCP listener (its state and
 *	socket).
 * @IXT_FAULT_PORTAL_LINK: portal.c: a portal's link to its listener.
 * @IXT_FAULT_ACCEPT: tcp_listen.c: the socket of an accepted connection.
 * @IXT_FAULT_TCP_CONN: conn.c: a TCP connection (ixt_conn_alloc()).
 * @IXT_FAULT_TPG_USE: portal.c: the count of connections in a TPG.
 * @IXT_FAULT_LOGIN: login.c: a connection's login state.
 * @IXT_FAULT_LOGIN_NEG: login.c: a login's negotiation state.
 * @IXT_FAULT_TEXT_BUF: text.c: a Login or Text Response buffer, or a
 *	request's reassembly.
 * @IXT_FAULT_TCP_RX_DATA: tcp.c: a received data segment that lands in no
 *	command (login, text, NOP-Out).
 * @IXT_FAULT_CHAP_TFM: chap.c: the CHAP digest transform.
 * @IXT_FAULT_CHAP_MUTUAL: chap.c: the initiator's challenge in mutual CHAP.
 * @IXT_FAULT_SESS: session.c: a session.
 * @IXT_FAULT_SE_SESS: session.c: the target core's session
 *	(target_setup_session()).
 * @IXT_FAULT_INITIATOR: initiator.c: an initiator's entry in the registry.
 * @IXT_FAULT_SUBMIT_WQ: initiator.c: an initiator's workqueue of the
 *	commands whose backend may block (submit.c).
 * @IXT_FAULT_ST_ENTRIES: discovery.c: the entries of a SendTargets answer.
 * @IXT_FAULT_TX_PDU: conn.c: a PDU to send.
 * @IXT_FAULT_TX_PDU_DATA: conn.c: the data segment of a PDU to send.
 * @IXT_FAULT_CMDSN_SLOTS: cmdsn.c: a session's CmdSN queue.
 * @IXT_FAULT_CMDSN_HELD: cmdsn.c: a copy of a request held behind a CmdSN
 *	hole.
 * @IXT_FAULT_CMDSN_ABORTED: cmdsn.c: the entry of an aborted CmdSN never
 *	received.
 * @IXT_FAULT_CMD: cmd.c: a SCSI command (TCP).
 * @IXT_FAULT_CMD_ECDB: cmd.c: a CDB longer than 16 bytes.
 * @IXT_FAULT_CMD_BUF: cmd.c: a command's table, lines and scatterlist.
 * @IXT_FAULT_POOL_GET: pool.c: a command's cache lines (fails as an empty
 *	pool).
 * @IXT_FAULT_DATAOUT_SLOTS: dataout.c: a connection's slots of writes.
 * @IXT_FAULT_DATAOUT_SLOT_MAP: dataout.c: the bitmap of those slots.
 * @IXT_FAULT_BIDI: bidi.c: the read buffer of a bidirectional command.
 * @IXT_FAULT_ISER_CMD_CACHE: cmd.c, iscsi_xt_iser init: the slab cache of
 *	iSER's commands (ixt_transport_register()).
 * @IXT_FAULT_ISER_LISTENER: iser_main.c: an iSER listener.
 * @IXT_FAULT_ISER_LISTEN_ID: iser_main.c: a listener's RDMA CM id.
 * @IXT_FAULT_ISER_PD: iser_conn.c: a connection's protection domain.
 * @IXT_FAULT_ISER_CONN: conn.c: an iSER connection (ixt_conn_alloc()).
 * @IXT_FAULT_ISER_RX_RING: iser_conn.c: a connection's array of receive
 *	buffers.
 * @IXT_FAULT_ISER_RX: iser_conn.c: a receive buffer.
 * @IXT_FAULT_ISER_RX_HDR: iser_conn.c: its header part.
 * @IXT_FAULT_ISER_RX_PAGE: iser_conn.c: one of its data pages.
 * @IXT_FAULT_ISER_CQ: iser_conn.c: a connection's completion queue.
 * @IXT_FAULT_ISER_QP: iser_conn.c: its queue pair.
 * @IXT_FAULT_ISER_SQ_CREDITS: iser_tx.c: the ring of send queue credits.
 * @IXT_FAULT_ISER_RD_SGE: iser_tx.c: the builder's SGE array.
 * @IXT_FAULT_ISER_IB_SGE: iser_tx.c: the posted SGE array.
 * @IXT_FAULT_ISER_TX: iser_tx.c: a Send descriptor.
 * @IXT_FAULT_ISER_TX_HDR: iser_tx.c: its header buffer.
 * @IXT_FAULT_ISER_REG: iser_reg.c: a connection's registration state.
 * @IXT_FAULT_ISER_REG_BATCHES: iser_reg.c: its batches of registered READs.
 * @IXT_FAULT_ISER_MR_POOL: iser_reg.c: its MR pool (ib_mr_pool_init()).
 * @IXT_FAULT_ISER_BUF: iser_conn.c: a received data segment copied for the
 *	core.
 * @IXT_FAULT_ISER_CMD: cmd.c: a SCSI command (iSER).
 * @IXT_FAULT_ISER_XFER_PIECES: iser_tx.c: the pieces of a long RDMA transfer.
 * @IXT_FAULT_NR: number of sites; not a site.
 *
 * Sites of module init and configfs first, then those of a connection's
 * life, then those of iscsi_xt_iser. A site may be several calls of one
 * allocator that fail the same way (the pool's arrays, the lines).
 */
enum ixt_fault_site {
	IXT_FAULT_POOL_ARRAYS,
	IXT_FAULT_POOL_CACHE,
	IXT_FAULT_POOL_PAGES,
	IXT_FAULT_CMD_CACHE,
	IXT_FAULT_WQ,
	IXT_FAULT_TIQN,
	IXT_FAULT_TIQN_INDEX,
	IXT_FAULT_TPG,
	IXT_FAULT_NP,
	IXT_FAULT_PORTAL,
	IXT_FAULT_PORTAL_SOCK,
	IXT_FAULT_PORTAL_LINK,
	IXT_FAULT_ACCEPT,
	IXT_FAULT_TCP_CONN,
	IXT_FAULT_TPG_USE,
	IXT_FAULT_LOGIN,
	IXT_FAULT_LOGIN_NEG,
	IXT_FAULT_TEXT_BUF,
	IXT_FAULT_TCP_RX_DATA,
	IXT_FAULT_CHAP_TFM,
	IXT_FAULT_CHAP_MUTUAL,
	IXT_FAULT_SESS,
	IXT_FAULT_SE_SESS,
	IXT_FAULT_INITIATOR,
	IXT_FAULT_SUBMIT_WQ,
	IXT_FAULT_ST_ENTRIES,
	IXT_FAULT_TX_PDU,
	IXT_FAULT_TX_PDU_DATA,
	IXT_FAULT_CMDSN_SLOTS,
	IXT_FAULT_CMDSN_HELD,
	IXT_FAULT_CMDSN_ABORTED,
	IXT_FAULT_CMD,
	IXT_FAULT_CMD_ECDB,
	IXT_FAULT_CMD_BUF,
	IXT_FAULT_POOL_GET,
	IXT_FAULT_DATAOUT_SLOTS,
	IXT_FAULT_DATAOUT_SLOT_MAP,
	IXT_FAULT_BIDI,
	IXT_FAULT_ISER_CMD_CACHE,
	IXT_FAULT_ISER_LISTENER,
	IXT_FAULT_ISER_LISTEN_ID,
	IXT_FAULT_ISER_PD,
	IXT_FAULT_ISER_CONN,
	IXT_FAULT_ISER_RX_RING,
	IXT_FAULT_ISER_RX,
	IXT_FAULT_ISER_RX_HDR,
	IXT_FAULT_ISER_RX_PAGE,
	IXT_FAULT_ISER_CQ,
	IXT_FAULT_ISER_QP,
	IXT_FAULT_ISER_SQ_CREDITS,
	IXT_FAULT_ISER_RD_SGE,
	IXT_FAULT_ISER_IB_SGE,
	IXT_FAULT_ISER_TX,
	IXT_FAULT_ISER_TX_HDR,
	IXT_FAULT_ISER_REG,
	IXT_FAULT_ISER_REG_BATCHES,
	IXT_FAULT_ISER_MR_POOL,
	IXT_FAULT_ISER_BUF,
	IXT_FAULT_ISER_CMD,
	IXT_FAULT_ISER_XFER_PIECES,
	IXT_FAULT_NR
};

/**
 * enum ixt_stall_site - where a test may make a path wait, once
 * @IXT_STALL_RX_HDR: conn.c, ixt_conn_rx_hdr(): a receive path with a
 *	header in, before it looks at its connection's state.
 * @IXT_STALL_DATA_IN: cmd.c, ixt_queue_data_in(): over RDMA, a read's
 *	Data-In queued, its response not yet.
 * @IXT_STALL_ISER_TX_STOP: iser_conn.c, ixt_iser_shutdown(): the queue
 *	pair drained, what waits to be sent not yet freed.
 * @IXT_STALL_ISER_ACCEPT: iser_conn.c, ixt_iser_accept(): the connection
 *	accepted, not yet published.
 * @IXT_STALL_NR: number of sites; not a site.
 *
 * A stall widens a race window the tests cannot hit otherwise: armed
 * through /sys/kernel/debug/iscsi_xt/fault/stall, the next pass through
 * the site sleeps that long.
 */
enum ixt_stall_site {
	IXT_STALL_RX_HDR,
	IXT_STALL_DATA_IN,
	IXT_STALL_ISER_TX_STOP,
	IXT_STALL_ISER_ACCEPT,
	IXT_STALL_NR
};

#ifdef IXT_FAULT_INJECT
bool ixt_fault(enum ixt_fault_site site);
void ixt_fault_stall(enum ixt_stall_site site);
int ixt_fault_init(void);
void ixt_fault_debugfs_init(void);
#else
/**
 * ixt_fault() - whether the allocation at a site must fail
 * @site: the site, right before its allocation.
 *
 * Without IXT_FAULT_INJECT: never, at no cost.
 *
 * Return: false.
 */
static inline bool ixt_fault(enum ixt_fault_site site)
{
	(void)site;
	return false;
}

/**
 * ixt_fault_stall() - wait here if a test asked for it
 * @site: the site.
 *
 * Without IXT_FAULT_INJECT: never, at no cost.
 */
static inline void ixt_fault_stall(enum ixt_stall_site site)
{
	(void)site;
}

static inline int ixt_fault_init(void)
{
	return 0;
}

static inline void ixt_fault_debugfs_init(void)
{
}
#endif

#endif /* _ISCSI_XT_FAULT_H */
