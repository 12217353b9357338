// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: Task Management Function Requests, carried out by the target
 * core (target_submit_tmr()) and answered when it is done.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <scsi/scsi_proto.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "cmd.h"
#include "conn.h"
#include "initiator.h"
#include "session.h"

/* The target core's function for an iSCSI one; TMR_UNKNOWN if none. */
static u8 ixt_tmf_type(u8 function)
{
	switch (function) {
	case ISCSI_TM_FUNC_ABORT_TASK:
		return TMR_ABORT_TASK;
	case ISCSI_TM_FUNC_ABORT_TASK_SET:
		return TMR_ABORT_TASK_SET;
	case ISCSI_TM_FUNC_CLEAR_ACA:
		return TMR_CLEAR_ACA;
	case ISCSI_TM_FUNC_CLEAR_TASK_SET:
		return TMR_CLEAR_TASK_SET;
	case ISCSI_TM_FUNC_LOGICAL_UNIT_RESET:
		return TMR_LUN_RESET;
	case ISCSI_TM_FUNC_TARGET_WARM_RESET:
		return TMR_TARGET_WARM_RESET;
	case ISCSI_TM_FUNC_TARGET_COLD_RESET:
		return TMR_TARGET_COLD_RESET;
	default:
		return TMR_UNKNOWN;
	}
}

/* The iSCSI response for what the target core answered. */
static u8 ixt_tmf_response(u8 core)
{
	switch (core) {
	case TMR_FUNCTION_COMPLETE:
		return ISCSI_TMF_RSP_COMPLETE;
	case TMR_TASK_DOES_NOT_EXIST:
		return ISCSI_TMF_RSP_NO_TASK;
	case TMR_LUN_DOES_NOT_EXIST:
		return ISCSI_TMF_RSP_NO_LUN;
	case TMR_TASK_MGMT_FUNCTION_NOT_SUPPORTED:
		return ISCSI_TMF_RSP_NOT_SUPPORTED;
	default:
		return ISCSI_TMF_RSP_REJECTED;
	}
}

/* An answer given here, without the target core. */
static void ixt_tmf_respond(struct ixt_conn *conn, itt_t itt, u8 response)
{
	struct iscsi_tm_rsp *rsp;
	struct ixt_tx_pdu *tx;

	tx = ixt_conn_pdu_alloc(conn, ISCSI_OP_SCSI_TMFUNC_RSP, itt, 0);
	if (!tx)
		return;
	rsp = (struct iscsi_tm_rsp *)&tx->hdr;
	rsp->response = response;
	ixt_conn_queue_resp(conn, tx, true);
}

/*
 * The writes of one connection of the session that wait for Data-Out and
 * that the function aborts: the target core would wait for their data
 * forever, so they stop waiting for it (ixt_cmd_abort_write()).
 */
static void ixt_tmf_abort_conn_writes(struct ixt_conn *conn, void *arg)
{
	const struct ixt_tmf_scope *scope = arg;
	struct ixt_cmd *cmd;
	u32 i;

	for (i = 0; i < conn->nr_slots; i++) {
		cmd = conn->slots[i];
		if (!cmd || cmd->se_cmd.orig_fe_lun != scope->lun ||
		    !test_bit(IXT_CMD_F_WRITE_PENDING, &cmd->head.flags))
			continue;
		/*
		 * ABORT TASK names one task by its ITT and its CmdSN: a peer
		 * that gives several tasks one ITT aborts one of them.
		 */
		if (scope->type == TMR_ABORT_TASK &&
		    (cmd->head.itt != scope->rtt ||
		     cmd->cmd_sn != scope->ref_cmd_sn))
			continue;
		ixt_cmd_abort_write(cmd);
	}
}

/*
 * What the fabric aborts itself, for the functions the target core
 * carries out (it answers the others "not supported"): requests held
 * behind a CmdSN hole, and writes waiting for Data-Out. With several
 * connections (MC/S), the task may be on another one than the function:
 * all the session's connections are looked at. Returns true when ABORT
 * TASK is done here.
 */
static bool ixt_tmf_abort_held(struct ixt_conn *conn, struct iscsi_tm *req,
			       u8 type)
{
	struct ixt_tmf_scope scope = {
		.lun = scsilun_to_int(&req->lun),
		.type = type,
		.rtt = req->rtt,
		.ref_cmd_sn = be32_to_cpu(req->refcmdsn),
		.cmd_sn = be32_to_cpu(req->cmdsn),
	};

	if (type != TMR_ABORT_TASK && type != TMR_LUN_RESET)
		return false;
	if (ixt_cmdsn_tmf(conn, &scope))
		return true;
	ixt_sess_each_conn(conn->sess, ixt_tmf_abort_conn_writes, &scope);
	return false;
}

/**
 * ixt_tmf_rx() - carry out a Task Management Function Request
 * @conn: the connection, in full feature phase of a normal session.
 * @pdu: the request.
 *
 * ABORT TASK, ABORT TASK SET, CLEAR ACA, CLEAR TASK SET, LOGICAL UNIT
 * RESET and TARGET WARM/COLD RESET go to the target core, which answers
 * through ixt_queue_tm_rsp(); aborted commands get no response. The core
 * carries out ABORT TASK and LOGICAL UNIT RESET only, and answers the
 * others "not supported" or "rejected". Tasks it has not got yet, held
 * behind a CmdSN hole or never received, are aborted here first
 * (ixt_cmdsn_tmf()); an ABORT TASK of such a task is answered here. TASK
 * REASSIGN needs ErrorRecoveryLevel 2: "allegiance reassignment not
 * supported".
 *
 * Context: Process context (the connection's receive path).
 */
void ixt_tmf_rx(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	struct iscsi_tm *req = (struct iscsi_tm *)&pdu->hdr;
	u8 function = req->flags & ISCSI_FLAG_TM_FUNC_MASK;
	u8 type = ixt_tmf_type(function);
	struct ixt_cmd *cmd;

	if (function == ISCSI_TM_FUNC_TASK_REASSIGN) {
		ixt_tmf_respond(conn, req->itt, ISCSI_TMF_RSP_NO_FAILOVER);
		return;
	}
	if (type == TMR_UNKNOWN) {
		ixt_tmf_respond(conn, req->itt, ISCSI_TMF_RSP_NOT_SUPPORTED);
		return;
	}
	pr_info_ratelimited("%s: task management function %u on LUN %llu, referenced ITT 0x%08x\n",
			    conn->sess->initiator, function,
			    scsilun_to_int(&req->lun),
			    ixt_itt(req->rtt));

	if (ixt_tmf_abort_held(conn, req, type)) {
		ixt_tmf_respond(conn, req->itt, ISCSI_TMF_RSP_COMPLETE);
		return;
	}
	if (type == TMR_ABORT_TASK &&
	    !ixt_initiator_abort_allowed(conn->sess->ini)) {
		pr_warn_ratelimited("%s: ABORT TASK rejected: more than the target core may log\n",
				    conn->sess->initiator);
		ixt_tmf_respond(conn, req->itt, ISCSI_TMF_RSP_REJECTED);
		return;
	}
	cmd = ixt_cmd_alloc(conn, req->itt);
	if (!cmd) {
		ixt_conn_close(conn);
		return;
	}
	if (target_submit_tmr(&cmd->se_cmd, conn->sess->se_sess, cmd->sense,
			      scsilun_to_int(&req->lun),
			      NULL, type, GFP_KERNEL, ixt_itt(req->rtt),
			      TARGET_SCF_ACK_KREF)) {
		ixt_cmd_put(cmd);
		ixt_tmf_respond(conn, req->itt, ISCSI_TMF_RSP_REJECTED);
	}
}

/**
 * ixt_queue_tm_rsp() - answer a task management function
 * @se_cmd: the function, carried out by the target core.
 *
 * Context: Any context the target core completes functions in.
 */
void ixt_queue_tm_rsp(struct se_cmd *se_cmd)
{
	struct ixt_cmd *cmd = to_ixt_cmd(se_cmd);
	struct ixt_tx_pdu *pdu = ixt_cmd_rsp_pdu(cmd);
	struct iscsi_tm_rsp *rsp = (struct iscsi_tm_rsp *)&pdu->hdr;

	rsp->opcode = ISCSI_OP_SCSI_TMFUNC_RSP;
	rsp->flags = ISCSI_FLAG_CMD_FINAL;
	rsp->response = ixt_tmf_response(se_cmd->se_tmr_req->response);
	rsp->itt = cmd->head.itt;
	ixt_conn_queue_resp(cmd->head.conn, pdu, true);
}

/**
 * ixt_tmf_aborted() - a LOGICAL UNIT RESET aborted a pending function
 * @cmd: the function, which the target core had not carried out when a
 *	reset of its LUN (from any session) drained it; the core asks for
 *	no response to it, and drops its reference itself.
 *
 * The answer is the one the core gives the function when it carries it
 * out, in a PDU of its own: without it the initiator waits for the
 * answer until it gives the session up (LIO sends none). An ABORT TASK,
 * the function the core can be busy with long enough to be drained,
 * gets "Function complete": the reset aborts its task as well (as for a
 * task already gone, RFC 7143 section 11.6.1). The others the core
 * answers at once, so they are drained only in the moment between their
 * submission and their work item: "not supported" for ABORT TASK SET,
 * CLEAR TASK SET and CLEAR ACA, "Function rejected" for TARGET WARM and
 * COLD RESET, not "Function complete" for a reset that reset nothing.
 *
 * Context: Process context (the target core's reset work).
 */
void ixt_tmf_aborted(struct ixt_cmd *cmd)
{
	u8 response;

	switch (cmd->se_cmd.se_tmr_req->function) {
	case TMR_ABORT_TASK:
		response = ISCSI_TMF_RSP_COMPLETE;
		break;
	case TMR_ABORT_TASK_SET:
	case TMR_CLEAR_TASK_SET:
	case TMR_CLEAR_ACA:
		response = ISCSI_TMF_RSP_NOT_SUPPORTED;
		break;
	default:
		response = ISCSI_TMF_RSP_REJECTED;
		break;
	}
	ixt_tmf_respond(cmd->head.conn, cmd->head.itt, response);
}
