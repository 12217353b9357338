/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iscsi_xt: a SCSI command of a session, shared by the command glue
 * (cmd.c) and the Data-Out path (dataout.c); the core's own (a transport
 * sees transport.h only).
 *
 * Lifetime: a command is freed when its reference count drops to zero.
 * The target core holds one from target_init_cmd() until it calls
 * ixt_release_cmd(); the data phase of a write holds another until the
 * last Data-Out the command expects is in (or the connection goes; an
 * aborted write gives its lines back before, ixt_cmd_shed_lines()), and
 * so does each Data-Out whose data is being received into it
 * (conn->rx_data); a held command belongs to the CmdSN queue. The
 * core's own reference counting (se_cmd.cmd_kref, with TARGET_SCF_ACK_KREF)
 * decides when ixt_release_cmd() is called: after check_stop_free and
 * after the response embedded in the command has been sent or dropped.
 */
#ifndef _ISCSI_XT_CMD_H
#define _ISCSI_XT_CMD_H

#include <linux/bvec.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/scatterlist.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <target/target_core_base.h>
#include <iscsi_xt/dpt.h>
#include <iscsi_xt/holes.h>

#include "transport.h"

/* What a command carries inline: 256 KiB in 32 KiB lines, any start. */
#define IXT_CMD_INLINE_LINES	9
#define IXT_CMD_INLINE_ENTRIES	16
/* Islands of out-of-order Data-Out one command may hold. */
#define IXT_CMD_RANGES		16

/* &struct ixt_cmd_head.flags bits; IXT_CMD_F_SLOT (1) is in transport.h */
#define IXT_CMD_F_WRITE_PENDING	0	/* the core waits for the data */
#define IXT_CMD_F_DATA_PHASE	2	/* in the slot, holds a reference */
#define IXT_CMD_F_ABORTING	3	/* a TMF aborts it: never runs */
#define IXT_CMD_F_R2T_WAIT	4	/* on conn->dout_wait: timed */
#define IXT_CMD_F_SUBMITTED	5	/* handed to the target core */
#define IXT_CMD_F_FETCH		6	/* RDMA transport fetched, once */
#define IXT_CMD_F_R2T_LATER	7	/* on conn->r2t_later */
#define IXT_CMD_F_FETCHING	8	/* RDMA READs into its lines */
#define IXT_CMD_F_AGED		9	/* on conn->dout_age */
#define IXT_CMD_F_LENT		10	/* buffer: the transport's pages */

/**
 * struct ixt_cmd_bidi - the read buffer of a bidirectional command
 * @len: its size: the Bidirectional Read Expected Data Transfer Length.
 * @nr_lines: number of @lines.
 * @sg_nents: number of @sgl.
 * @bvec: the buffer for Data-In: one bio_vec per line.
 * @sgl: the buffer for the target core: one entry per page.
 * @lines: the cache lines, from the pool.
 *
 * Set up by ixt_bidi_setup() with the command, freed with it.
 */
struct ixt_cmd_bidi {
	u32 len;
	u32 nr_lines;
	u32 sg_nents;
	struct bio_vec *bvec;
	struct scatterlist *sgl;
	struct ixt_dpt_line lines[];
};

/**
 * struct ixt_cmd - a SCSI command of a session
 * @head: what the transport reads (&struct ixt_cmd_head: the connection,
 *	the IXT_CMD_F_* flags, changed by the receive path only, the
 *	Initiator Task Tag and the buffer's lines); first.
 * @se_cmd: the target core's command.
 * @ref: references, see the top of this file.
 * @slot: index in the connection's slots, with %IXT_CMD_F_SLOT: the low
 *	bits of the command's Target Transfer Tags.
 * @unsol_entry: on the connection's unsol_cmds while unsolicited Data-Out
 *	is expected.
 * @unsol_datasn: DataSN the next unsolicited Data-Out must carry.
 * @r2t_sn: R2TSN of the next R2T.
 * @dout_entry: on the connection's dout_wait while the write waits for
 *	Data-Out the initiator owes it (%IXT_CMD_F_R2T_WAIT).
 * @dout_stamp: jiffies (| 1) when it started to wait, or last made
 *	progress (an R2T sent, Data-Out received) since.
 * @age_entry: on the connection's dout_age while the write is in its
 *	data phase with cache lines (%IXT_CMD_F_AGED).
 * @dout_since: jiffies (| 1) when it went on dout_age.
 * @later_entry: on the connection's r2t_later while its next R2Ts wait
 *	for room in the send queue (%IXT_CMD_F_R2T_LATER).
 * @dpt: the data-pointer table over @lines.
 * @place: where the Data-Out PDU being received goes (receive path).
 * @lines: the cache lines of the buffer, from the pool (@head.nr_lines of
 *	them; 0 for a command without data); with %IXT_CMD_F_LENT, the pages
 *	the transport lent instead, as lines of PAGE_SIZE bytes.
 * @datasn: DataSN each R2T expects next, by the first entry of its run
 *	in @dpt.
 * @sgl: the buffer as the target core sees it.
 * @sg_nents: number of @sgl.
 * @big: the arrays, when the command needs more than what it carries
 *	inline; %NULL otherwise.
 * @bidi: the read buffer of a bidirectional command, whose @lines are
 *	its write buffer; %NULL for any other command.
 * @ranges: which bytes arrived, with DataPDUInOrder=No.
 * @range: storage of @ranges.
 * @cmd_sn: CmdSN of its header, which an ABORT TASK names as RefCmdSN.
 * @abort_work: completes a write waiting for Data-Out that a task
 *	management function aborts, once the target core has marked it.
 * @abort_deadline: when @abort_work stops waiting for the mark.
 * @submit_work: hands the command to a backend that may block, out of
 *	the receive path (submit.c).
 * @cdb: the whole CDB when it is longer than the 16 bytes of the BHS
 *	(the rest came in an Extended CDB AHS), kmalloc'ed; else %NULL.
 * @exec_ns: ktime_get_ns() when the command went to the backend (a read
 *	at submission, a write once its data is in); 0 before that, and
 *	once its response time has been fed to the session's window.
 * @hole_lines: the lines counted for it in its initiator's hole_lines, from
 *	its header, past a CmdSN hole, until it leaves the CmdSN queue
 *	(ixt_cmdsn_hole_give()); 0 for any other. Receive path, under the
 *	session's rx_lock.
 * @held: counted in its session's win_held: set by the receive path
 *	before the command reaches the target core, cleared when its
 *	response is built or it is freed, whichever comes first (never at
 *	once: the response holds a reference).
 * @rsp: the PDU that carries the command's status, sent once.
 * @rsp_data: data segment of @rsp: SenseLength and sense data.
 * @sense: sense buffer for the target core.
 * @inl: storage of the arrays for commands that fit.
 *
 * Allocated by ixt_cmd_alloc() from its transport's cache, behind the
 * transport's part of the command, and freed with it.
 */
struct ixt_cmd {
	struct ixt_cmd_head head;
	struct se_cmd se_cmd;
	refcount_t ref;
	u32 slot;
	struct list_head unsol_entry;
	u32 unsol_datasn;
	u32 r2t_sn;
	struct list_head dout_entry;
	unsigned long dout_stamp;
	struct list_head age_entry;
	unsigned long dout_since;
	struct list_head later_entry;
	struct ixt_dpt dpt;
	struct ixt_dpt_place place;
	struct ixt_dpt_line *lines;
	u32 *datasn;
	struct scatterlist *sgl;
	u32 sg_nents;
	void *big;
	struct ixt_cmd_bidi *bidi;
	u32 cmd_sn;
	struct delayed_work abort_work;
	unsigned long abort_deadline;
	struct work_struct submit_work;
	u8 *cdb;
	u64 exec_ns;
	u32 hole_lines;
	bool held;
	struct ixt_ranges ranges;
	struct ixt_range range[IXT_CMD_RANGES];
	struct ixt_tx_pdu rsp;
	u8 rsp_data[2 + TRANSPORT_SENSE_BUFFER];
	unsigned char sense[TRANSPORT_SENSE_BUFFER];
	struct {
		struct ixt_dpt_line lines[IXT_CMD_INLINE_LINES];
		struct ixt_dpt_entry entries[IXT_CMD_INLINE_ENTRIES];
		u32 datasn[IXT_CMD_INLINE_ENTRIES];
		struct scatterlist sgl[IXT_CMD_INLINE_LINES];
		struct bio_vec bvec[IXT_CMD_INLINE_LINES];
	} inl;
};

static_assert(offsetof(struct ixt_cmd, head) == 0);
static_assert(__alignof__(struct ixt_cmd) <= IXT_PRIV_ALIGN);

/**
 * struct ixt_resid_fit - a write fitted to its Expected Data Transfer Length
 * @cdb: the CDB for the target core: the initiator's, its transfer length
 *	lowered when the initiator sends less than it names.
 * @data_length: the bytes the target core writes: what @cdb names.
 * @residual: Residual Count of the response.
 * @flag: %SCF_UNDERFLOW_BIT or %SCF_OVERFLOW_BIT, for the U or O bit.
 *
 * Filled by ixt_resid_fit_write() (resid.c) for ixt_cmd_rx().
 */
struct ixt_resid_fit {
	u8 cdb[ISCSI_CDB_SIZE];
	u32 data_length;
	u32 residual;
	u32 flag;
};

static inline struct ixt_cmd *to_ixt_cmd(struct se_cmd *se_cmd)
{
	return container_of(se_cmd, struct ixt_cmd, se_cmd);
}

/* resid.c */
bool ixt_resid_fit_write(struct se_lun *se_lun, const u8 *cdb, u32 edtl,
			 struct ixt_resid_fit *fit);

/**
 * enum ixt_lun_access - how a session maps a LUN (ixt_lun_get())
 * @IXT_LUN_UNMAPPED: not at all, or the LUN is going away.
 * @IXT_LUN_RW: read-write.
 * @IXT_LUN_RO: read-only (the mapping's write_protect).
 */
enum ixt_lun_access {
	IXT_LUN_UNMAPPED,
	IXT_LUN_RW,
	IXT_LUN_RO,
};

struct se_lun *ixt_lun_get(struct se_session *se_sess, u64 lun,
			   enum ixt_lun_access *access);
void ixt_lun_put(struct se_lun *se_lun);
bool ixt_lun_any_ro(struct se_session *se_sess);

/* cmd.c */
int ixt_cmd_rx_hdr(struct ixt_conn *conn, struct ixt_rx_pdu *pdu);
bool ixt_cmd_arrived(struct ixt_conn *conn, struct ixt_rx_pdu *pdu);
bool ixt_cmd_rx_overdue(struct ixt_conn *conn, unsigned long limit);
void ixt_cmd_rx(struct ixt_conn *conn, struct ixt_rx_pdu *pdu);
void ixt_cmd_rsp_done(struct ixt_cmd *cmd);
void ixt_cmd_conn_gone(struct ixt_conn *conn);
int ixt_queue_status(struct se_cmd *se_cmd);
int ixt_queue_data_in(struct se_cmd *se_cmd);
int ixt_write_pending(struct se_cmd *se_cmd);
int ixt_check_stop_free(struct se_cmd *se_cmd);
void ixt_release_cmd(struct se_cmd *se_cmd);
void ixt_aborted_task(struct se_cmd *se_cmd);
struct ixt_cmd *ixt_cmd_alloc(struct ixt_conn *conn, itt_t itt);
struct ixt_tx_pdu *ixt_cmd_rsp_pdu(struct ixt_cmd *cmd);
void ixt_cmd_abort_write(struct ixt_cmd *cmd);
void ixt_cmd_execute(struct ixt_cmd *cmd);
void ixt_cmd_drop(struct ixt_conn *conn, struct ixt_cmd *cmd);
void ixt_cmd_shed_lines(struct ixt_cmd *cmd);

/* submit.c */
void ixt_submit(struct ixt_cmd *cmd);
void ixt_submit_execute(struct ixt_cmd *cmd);

/* bidi.c */
int ixt_bidi_setup(struct ixt_cmd *cmd, u32 len);
void ixt_bidi_free(struct ixt_cmd *cmd);

/* dataout.c */
int ixt_dataout_rx_hdr(struct ixt_conn *conn, struct ixt_rx_pdu *pdu);
void ixt_dataout_rx(struct ixt_conn *conn, struct ixt_rx_pdu *pdu);
void ixt_dataout_rx_gone(struct ixt_conn *conn);
int ixt_dataout_slot_get(struct ixt_conn *conn, struct ixt_cmd *cmd);
void ixt_dataout_slot_put(struct ixt_conn *conn, struct ixt_cmd *cmd);
void ixt_dataout_slots_free(struct ixt_conn *conn);
void ixt_dataout_start(struct ixt_cmd *cmd);
void ixt_dataout_settle(struct ixt_cmd *cmd);
void ixt_dataout_end(struct ixt_cmd *cmd);
void ixt_dataout_send_r2ts(struct ixt_cmd *cmd);
void ixt_dataout_fetched(struct ixt_cmd *cmd);

#endif /* _ISCSI_XT_CMD_H */
