// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: SCSI commands without Data-Out: submission to the target
 * core, Data-In, SCSI Response, and the task management answer.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/minmax.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/unaligned.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_proto.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "conn.h"

/**
 * struct ixt_cmd - a SCSI command of a session
 * @se_cmd: the target core's command; freed through ixt_release_cmd().
 * @conn: the connection the command came on. The connection's release
 *	waits for every command of its session, so it outlives them.
 * @itt: Initiator Task Tag.
 * @sense: sense buffer for the target core.
 */
struct ixt_cmd {
	struct se_cmd se_cmd;
	struct ixt_conn *conn;
	itt_t itt;
	unsigned char sense[TRANSPORT_SENSE_BUFFER];
};

static inline struct ixt_cmd *to_ixt_cmd(struct se_cmd *se_cmd)
{
	return container_of(se_cmd, struct ixt_cmd, se_cmd);
}

static int ixt_cmd_task_attr(u8 flags)
{
	switch (flags & ISCSI_FLAG_CMD_ATTR_MASK) {
	case ISCSI_ATTR_ORDERED:
		return TCM_ORDERED_TAG;
	case ISCSI_ATTR_HEAD_OF_QUEUE:
		return TCM_HEAD_TAG;
	case ISCSI_ATTR_ACA:
		return TCM_ACA_TAG;
	default:
		return TCM_SIMPLE_TAG;
	}
}

/* A SCSI Response built here, for what never reaches the target core. */
static void ixt_cmd_respond(struct ixt_conn *conn, itt_t itt, u8 status,
			    const u8 *sense, u32 sense_len)
{
	struct iscsi_scsi_rsp *rsp;
	struct ixt_tx_pdu *pdu;

	pdu = ixt_tx_pdu_alloc(sense_len ? sense_len + 2 : 0, GFP_KERNEL);
	if (!pdu) {
		ixt_conn_close(conn);
		return;
	}
	if (sense_len) {
		put_unaligned_be16(sense_len, pdu->data);
		memcpy(pdu->data + 2, sense, sense_len);
	}
	rsp = (struct iscsi_scsi_rsp *)&pdu->hdr;
	rsp->opcode = ISCSI_OP_SCSI_CMD_RSP;
	rsp->flags = ISCSI_FLAG_CMD_FINAL;
	rsp->cmd_status = status;
	rsp->itt = itt;
	ixt_conn_queue_resp(conn, pdu, true);
}

/* Writes need Data-Out, which is not received yet: refuse them. */
static void ixt_cmd_refuse(struct ixt_conn *conn, itt_t itt)
{
	u8 sense[18];

	/* ILLEGAL REQUEST, INVALID COMMAND OPERATION CODE */
	scsi_build_sense_buffer(0, sense, ILLEGAL_REQUEST, 0x20, 0x00);
	ixt_cmd_respond(conn, itt, SAM_STAT_CHECK_CONDITION, sense,
			sizeof(sense));
}

/**
 * ixt_cmd_rx() - submit a SCSI Command PDU to the target core
 * @conn: the connection, in full feature phase of a normal session.
 * @pdu: the SCSI Command, its BHS and CmdSN checked.
 *
 * Context: Process context (the connection's receive path).
 */
void ixt_cmd_rx(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	struct iscsi_scsi_req *req = (struct iscsi_scsi_req *)&pdu->hdr;
	u32 edtl = be32_to_cpu(req->data_length);
	int dir = DMA_NONE;
	struct ixt_cmd *cmd;

	if (req->flags & ISCSI_FLAG_CMD_WRITE || pdu->ahs) {
		ixt_cmd_refuse(conn, req->itt);
		return;
	}
	if (req->flags & ISCSI_FLAG_CMD_READ)
		dir = DMA_FROM_DEVICE;

	cmd = kzalloc(sizeof(*cmd), GFP_KERNEL);
	if (!cmd) {
		ixt_conn_close(conn);
		return;
	}
	cmd->conn = conn;
	cmd->itt = req->itt;
	if (target_init_cmd(&cmd->se_cmd, conn->sess->se_sess, cmd->sense,
			    scsilun_to_int(&req->lun), edtl,
			    ixt_cmd_task_attr(req->flags), dir, 0)) {
		/* The session is stopping: nobody waits for an answer. */
		kfree(cmd);
		return;
	}
	/* On failure the core answers through ixt_queue_status(). */
	if (target_submit_prep(&cmd->se_cmd, req->cdb, NULL, 0, NULL, 0,
			       NULL, 0, GFP_KERNEL))
		return;
	target_submit(&cmd->se_cmd);
}

/* U and O bits and the residual count, for Data-In and SCSI Response. */
static u8 ixt_cmd_residual(struct se_cmd *se_cmd, __be32 *residual)
{
	*residual = cpu_to_be32(se_cmd->residual_count);
	if (se_cmd->se_cmd_flags & SCF_UNDERFLOW_BIT)
		return ISCSI_FLAG_CMD_UNDERFLOW;
	if (se_cmd->se_cmd_flags & SCF_OVERFLOW_BIT)
		return ISCSI_FLAG_CMD_OVERFLOW;
	return 0;
}

/**
 * ixt_queue_status() - send the SCSI Response of a command
 * @se_cmd: the command.
 *
 * Context: Any context the target core completes commands in.
 * Return: 0.
 */
int ixt_queue_status(struct se_cmd *se_cmd)
{
	struct ixt_cmd *cmd = to_ixt_cmd(se_cmd);
	u32 sense_len = se_cmd->scsi_sense_length;
	struct iscsi_scsi_rsp *rsp;
	struct ixt_tx_pdu *pdu;

	pdu = ixt_tx_pdu_alloc(sense_len ? sense_len + 2 : 0, GFP_KERNEL);
	if (!pdu) {
		ixt_conn_close(cmd->conn);
		return 0;
	}
	if (sense_len) {
		put_unaligned_be16(sense_len, pdu->data);
		memcpy(pdu->data + 2, se_cmd->sense_buffer, sense_len);
	}
	rsp = (struct iscsi_scsi_rsp *)&pdu->hdr;
	rsp->opcode = ISCSI_OP_SCSI_CMD_RSP;
	rsp->flags = ISCSI_FLAG_CMD_FINAL |
		     ixt_cmd_residual(se_cmd, &rsp->residual_count);
	rsp->cmd_status = se_cmd->scsi_status;
	rsp->itt = cmd->itt;
	ixt_conn_queue_resp(cmd->conn, pdu, true);
	return 0;
}

/**
 * ixt_queue_data_in() - send the data of a read, then its status
 * @se_cmd: the command, its data in @se_cmd->t_data_sg.
 *
 * The data goes in Data-In PDUs of at most the initiator's
 * MaxRecvDataSegmentLength; the last one carries the status (S bit)
 * unless there is sense data, which a SCSI Response then carries.
 *
 * Context: Any context the target core completes commands in.
 * Return: 0.
 */
int ixt_queue_data_in(struct se_cmd *se_cmd)
{
	struct ixt_cmd *cmd = to_ixt_cmd(se_cmd);
	struct ixt_conn *conn = cmd->conn;
	u32 max = conn->sess->params.max_xmit_dlength;
	u32 len = se_cmd->data_length, off = 0, sn = 0;
	bool status = !se_cmd->scsi_sense_length;
	struct iscsi_data_rsp *hdr;
	struct ixt_tx_pdu *pdu;
	u32 n;

	if (!len)
		return ixt_queue_status(se_cmd);
	do {
		n = min(len - off, max);
		pdu = ixt_tx_pdu_alloc(n, GFP_KERNEL);
		if (!pdu) {
			ixt_conn_close(conn);
			return 0;
		}
		sg_pcopy_to_buffer(se_cmd->t_data_sg, se_cmd->t_data_nents,
				   pdu->data, n, off);
		hdr = (struct iscsi_data_rsp *)&pdu->hdr;
		hdr->opcode = ISCSI_OP_SCSI_DATA_IN;
		hdr->itt = cmd->itt;
		hdr->ttt = cpu_to_be32(ISCSI_RESERVED_TAG);
		hdr->datasn = cpu_to_be32(sn++);
		hdr->offset = cpu_to_be32(off);
		off += n;
		if (off == len) {
			hdr->flags = ISCSI_FLAG_CMD_FINAL;
			if (status) {
				hdr->flags |= ISCSI_FLAG_DATA_STATUS |
					ixt_cmd_residual(se_cmd,
							 &hdr->residual_count);
				hdr->cmd_status = se_cmd->scsi_status;
			}
		}
		ixt_conn_queue_resp(conn, pdu, off == len && status);
	} while (off < len);

	return status ? 0 : ixt_queue_status(se_cmd);
}

/**
 * ixt_write_pending() - the target core wants a write's data
 * @se_cmd: the command.
 *
 * Never called: writes are refused before they reach the core.
 *
 * Context: Any context.
 * Return: -EOPNOTSUPP.
 */
int ixt_write_pending(struct se_cmd *se_cmd)
{
	WARN_ON_ONCE(1);
	return -EOPNOTSUPP;
}

/**
 * ixt_check_stop_free() - the target core is done with a command
 * @se_cmd: the command.
 *
 * Context: Any context.
 * Return: what target_put_sess_cmd() returns.
 */
int ixt_check_stop_free(struct se_cmd *se_cmd)
{
	return target_put_sess_cmd(se_cmd);
}

/**
 * ixt_release_cmd() - free a command
 * @se_cmd: the command, no longer referenced.
 *
 * Context: Any context.
 */
void ixt_release_cmd(struct se_cmd *se_cmd)
{
	kfree(to_ixt_cmd(se_cmd));
}

/**
 * ixt_aborted_task() - the target core aborted a command
 * @se_cmd: the command; nothing of it is queued here.
 *
 * Context: Any context.
 */
void ixt_aborted_task(struct se_cmd *se_cmd)
{
}

/**
 * ixt_queue_tm_rsp() - answer a task management function
 * @se_cmd: never one of ours: task management is answered in
 *	ixt_cmd_tmf_rx() without the target core.
 *
 * Context: Any context.
 */
void ixt_queue_tm_rsp(struct se_cmd *se_cmd)
{
	WARN_ON_ONCE(1);
}

/**
 * ixt_cmd_tmf_rx() - answer a Task Management Function Request
 * @conn: the connection.
 * @pdu: the request.
 *
 * Task management is not implemented yet: every function is answered
 * "Task Management function not supported".
 *
 * Context: Process context (the connection's receive path).
 */
void ixt_cmd_tmf_rx(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	struct iscsi_tm_rsp *rsp;
	struct ixt_tx_pdu *tx;

	tx = ixt_tx_pdu_alloc(0, GFP_KERNEL);
	if (!tx) {
		ixt_conn_close(conn);
		return;
	}
	rsp = (struct iscsi_tm_rsp *)&tx->hdr;
	rsp->opcode = ISCSI_OP_SCSI_TMFUNC_RSP;
	rsp->flags = ISCSI_FLAG_CMD_FINAL;
	rsp->response = ISCSI_TMF_RSP_NOT_SUPPORTED;
	rsp->itt = pdu->hdr.itt;
	ixt_conn_queue_resp(conn, tx, true);
}
