// SPDX-License-Identifier: GPL-2.0
/* iscsi_xt: Text Requests in full feature phase, and SendTargets. */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <linux/string.h>
#include <net/ipv6.h>
#include <target/target_core_fabric.h>

#include "conn.h"
#include "fault.h"
#include "session.h"

/* Most (target, portal) pairs a SendTargets answer lists. */
#define IXT_ST_MAX_ENTRIES	1024

/* Room for "[IPv6 address]:port,tag". */
#define IXT_ST_ADDR_LEN	\
	sizeof("[ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255]:65535,65535")

/**
 * struct ixt_st_entry - one TargetAddress of a SendTargets answer
 * @tiqn: the target; an identity to group by, not dereferenced once the
 *	portals are unlocked.
 * @name: the target's name.
 * @addr: the TargetAddress value.
 */
struct ixt_st_entry {
	const struct ixt_tiqn *tiqn;
	char name[ISCSI_NAME_LEN];
	char addr[IXT_ST_ADDR_LEN];
};

/**
 * struct ixt_st_ctx - what a SendTargets walk collects
 * @conn: the connection asking.
 * @filter: list only the target of this name; %NULL for all.
 * @entries: the pairs found.
 * @nr: number of pairs at @entries.
 * @max: room at @entries: as many as there are pairs, at most
 *	%IXT_ST_MAX_ENTRIES.
 */
struct ixt_st_ctx {
	struct ixt_conn *conn;
	const char *filter;
	struct ixt_st_entry *entries;
	u32 nr;
	u32 max;
};

/* May the initiator see this TPG? Its ACL, or demo mode discovery. */
static bool ixt_st_visible(struct ixt_tpg *tpg, const char *initiator)
{
	struct se_node_acl *se_nacl;

	if (!tpg->se_tpg.enabled &&
	    ixt_tpg_attrib(tpg, IXT_TA_TPG_ENABLED_SENDTARGETS))
		return false;
	if (ixt_tpg_attrib(tpg, IXT_TA_GENERATE_NODE_ACLS) &&
	    ixt_tpg_attrib(tpg, IXT_TA_DEMO_MODE_DISCOVERY))
		return true;
	se_nacl = core_tpg_get_initiator_node_acl(&tpg->se_tpg,
						  (unsigned char *)initiator);
	if (!se_nacl)
		return false;
	target_put_nacl(se_nacl);
	return true;
}

static bool ixt_addr_is_any(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ipv6_addr_any(&((const struct sockaddr_in6 *)ss)->sin6_addr);
	return ((const struct sockaddr_in *)ss)->sin_addr.s_addr ==
	       htonl(INADDR_ANY);
}

/*
 * Formats a portal as a TargetAddress value. A wildcard portal is named
 * by the address the initiator reached; it is skipped when the initiator
 * came over the other IP version, which that listener does not accept.
 */
static bool ixt_st_format(struct ixt_conn *conn, const struct ixt_np *np,
			  u16 tpgt, char *buf)
{
	const struct sockaddr_storage *ss = &np->addr;
	u16 port = ntohs(((const struct sockaddr_in *)ss)->sin_port);

	if (ixt_addr_is_any(ss)) {
		if (conn->local.ss_family != ss->ss_family)
			return false;
		ss = &conn->local;
	}
	if (ss->ss_family == AF_INET6)
		snprintf(buf, IXT_ST_ADDR_LEN, "[%pI6c]:%u,%u",
			 &((const struct sockaddr_in6 *)ss)->sin6_addr, port,
			 tpgt);
	else
		snprintf(buf, IXT_ST_ADDR_LEN, "%pI4:%u,%u",
			 &((const struct sockaddr_in *)ss)->sin_addr, port,
			 tpgt);
	return true;
}

/*
 * Room for every pair there is, under the portals' lock, which keeps
 * their number: a few hundred bytes a portal of a TPG, not the 292 KiB
 * of the most pairs an answer lists.
 */
static int ixt_st_alloc(u32 nr_pairs, void *arg)
{
	struct ixt_st_ctx *ctx = arg;

	if (!nr_pairs)
		return 0;
	ctx->max = min(nr_pairs, IXT_ST_MAX_ENTRIES);
	ctx->entries = ixt_fault(IXT_FAULT_ST_ENTRIES) ? NULL :
		       kvcalloc(ctx->max, sizeof(*ctx->entries), GFP_KERNEL);
	return ctx->entries ? 0 : -ENOMEM;
}

static int ixt_st_collect(struct ixt_np *np, struct ixt_tpg *tpg, void *arg)
{
	struct ixt_st_ctx *ctx = arg;
	struct ixt_st_entry *e;

	if (ctx->nr == ctx->max)
		return -E2BIG;
	e = &ctx->entries[ctx->nr];
	if (ctx->filter && strcmp(ctx->filter, tpg->tiqn->name))
		return 0;
	/* Over iSER, only the portals that serve iSER; np->iser is read
	 * without the TPG lock: a portal being switched may go either way.
	 */
	if ((ctx->conn->ops->flags & IXT_XPRT_F_RDMA) && !READ_ONCE(np->iser))
		return 0;
	if (!ixt_st_visible(tpg, ctx->conn->sess->initiator))
		return 0;
	if (!ixt_st_format(ctx->conn, np, tpg->tpgt, e->addr))
		return 0;
	e->tiqn = tpg->tiqn;
	strscpy(e->name, tpg->tiqn->name, sizeof(e->name));
	ctx->nr++;
	return 0;
}

/* TargetName once per target, followed by all its TargetAddresses. */
static int ixt_st_emit(struct ixt_st_ctx *ctx, struct ixt_text_buf *rsp)
{
	u32 i, j;
	int ret;

	for (i = 0; i < ctx->nr; i++) {
		if (!ctx->entries[i].tiqn)
			continue;	/* listed with an earlier entry */
		ret = ixt_text_add(rsp, "TargetName", ctx->entries[i].name);
		for (j = i; j < ctx->nr && !ret; j++) {
			if (ctx->entries[j].tiqn != ctx->entries[i].tiqn ||
			    (j > i && !ctx->entries[j].tiqn))
				continue;
			ret = ixt_text_add(rsp, "TargetAddress",
					   ctx->entries[j].addr);
			if (j > i)
				ctx->entries[j].tiqn = NULL;
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* Answers SendTargets=@value into @rsp. */
static int ixt_send_targets(struct ixt_conn *conn, const char *value,
			    struct ixt_text_buf *rsp)
{
	struct ixt_sess *sess = conn->sess;
	struct ixt_st_ctx ctx = { .conn = conn };
	int ret;

	if (!strcmp(value, "All")) {
		if (!sess->discovery)
			return ixt_text_add(rsp, "SendTargets", "Reject");
	} else if (!value[0]) {
		if (sess->discovery)
			return ixt_text_add(rsp, "SendTargets", "Reject");
		ctx.filter = sess->tpg->tiqn->name;
	} else {
		ctx.filter = value;
	}

	ret = ixt_portals_walk(ixt_st_alloc, ixt_st_collect, &ctx);
	if (ret == -ENOMEM)
		return ret;
	if (ret == -E2BIG)
		pr_warn_ratelimited("%s: SendTargets answer cut at %u portals\n",
				    sess->initiator, IXT_ST_MAX_ENTRIES);
	ret = ixt_st_emit(&ctx, rsp);
	kvfree(ctx.entries);
	return ret;
}

/*
 * Sends the next part of conn->text_rsp in reply to @req. With @ack, the
 * reply only acknowledges part of a continued request: F stays clear.
 */
static void ixt_text_send_part(struct ixt_conn *conn,
			       const struct iscsi_text *req, bool ack)
{
	struct iscsi_text_rsp *rsp;
	struct ixt_tx_pdu *pdu;
	const char *chunk;
	bool more;
	u32 len;

	len = ixt_text_chunk(&conn->text_rsp,
			     READ_ONCE(conn->params.max_xmit_dlength), &chunk,
			     &more);
	pdu = ixt_conn_pdu_alloc(conn, ISCSI_OP_TEXT_RSP, req->itt, len);
	if (!pdu)
		return;
	memcpy(pdu->data, chunk, len);
	rsp = (struct iscsi_text_rsp *)&pdu->hdr;
	if (more || ack) {
		/*
		 * The initiator goes on quoting this tag: 1 to 0xfffffffe,
		 * neither "none" (0) nor the reserved tag.
		 */
		conn->text_ttt = conn->text_ttt % (ISCSI_RESERVED_TAG - 1) + 1;
		rsp->flags = more ? ISCSI_FLAG_TEXT_CONTINUE : 0;
		rsp->ttt = cpu_to_be32(conn->text_ttt);
	} else {
		rsp->ttt = cpu_to_be32(ISCSI_RESERVED_TAG);
	}
	ixt_conn_queue_resp(conn, pdu, true);
}

/*
 * A whole request is in: negotiate its keys and answer SendTargets. A new
 * MaxRecvDataSegmentLength of the initiator sizes the answer already.
 */
static int ixt_text_answer(struct ixt_conn *conn)
{
	struct ixt_neg *neg = conn->neg;
	struct ixt_login_status st;
	int ret;

	if (!conn->text_rsp.data) {
		ret = ixt_rsp_alloc(&conn->text_rsp, IXT_TEXT_MAX_LEN);
		if (ret)
			return ret;
	}
	ixt_text_buf_init(&conn->text_rsp, conn->text_rsp.data,
			  conn->text_rsp.size);
	ixt_neg_text_begin(neg);
	ret = ixt_neg_process(neg, ISCSI_FULL_FEATURE_PHASE, conn->text_req.buf,
			      conn->text_req.len, &conn->text_rsp, &st);
	if (ret)
		return ret;
	if (neg->params.max_xmit_dlength != conn->params.max_xmit_dlength) {
		pr_debug("%s: MaxRecvDataSegmentLength %u declared in full feature phase\n",
			 conn->sess->initiator, neg->params.max_xmit_dlength);
		WRITE_ONCE(conn->params.max_xmit_dlength,
			   neg->params.max_xmit_dlength);
	}
	if (!neg->has_send_targets)
		return 0;
	return ixt_send_targets(conn, neg->send_targets, &conn->text_rsp);
}

/**
 * ixt_text_rx() - handle a Text Request in full feature phase
 * @conn: the connection, with its session.
 * @pdu: the request, its BHS checked.
 *
 * Negotiates the keys a Text Request may carry in full feature phase
 * (RFC 7143 section 6.7: MaxRecvDataSegmentLength and aliases are taken,
 * keys of the login only are answered "Reject", unknown and extension
 * keys "NotUnderstood") and answers SendTargets (appendix C). A request
 * continued over several PDUs (C bit) is reassembled, each part
 * acknowledged with an empty response; an answer longer than the
 * initiator's MaxRecvDataSegmentLength goes out in parts, each one
 * fetched by an empty request quoting its Target Transfer Tag.
 *
 * Context: Process context (the connection's receive path).
 */
void ixt_text_rx(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	const struct iscsi_text *req = (const struct iscsi_text *)&pdu->hdr;
	u32 ttt = be32_to_cpu(req->ttt);
	int ret;

	if (ttt == ISCSI_RESERVED_TAG) {
		/* A new request: forget any earlier one. */
		conn->text_req.len = 0;
		conn->text_rsp.len = 0;
		conn->text_rsp.sent = 0;
	} else if (ttt != conn->text_ttt) {
		ixt_conn_send_reject(conn, &pdu->hdr,
				     IXT_REASON_INVALID_PDU_FIELD);
		return;
	} else if (conn->text_rsp.sent < conn->text_rsp.len) {
		/* The initiator fetches the next part of the answer. */
		if (pdu->dlength) {
			ixt_conn_send_reject(conn, &pdu->hdr,
					     ISCSI_REASON_PROTOCOL_ERROR);
			return;
		}
		ixt_text_send_part(conn, req, false);
		return;
	}

	ret = ixt_reqbuf_append(&conn->text_req, pdu->data, pdu->dlength);
	if (ret) {
		conn->text_req.len = 0;
		ixt_conn_send_reject(conn, &pdu->hdr,
				     IXT_REASON_LONG_OP_REJECT);
		return;
	}
	if (req->flags & ISCSI_FLAG_TEXT_CONTINUE) {
		ixt_text_send_part(conn, req, true);
		return;
	}
	ret = ixt_text_answer(conn);
	conn->text_req.len = 0;
	if (ret < 0) {
		pr_warn_ratelimited("%s: cannot answer a Text Request: %d\n",
				    conn->sess->initiator, ret);
		ixt_conn_send_reject(conn, &pdu->hdr,
				     ret == -ENOMEM ? IXT_REASON_LONG_OP_REJECT :
				     ISCSI_REASON_PROTOCOL_ERROR);
		return;
	}
	ixt_text_send_part(conn, req, false);
}
