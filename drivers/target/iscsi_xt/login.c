// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: the login phase (RFC 7143 sections 6.2 and 11.12-11.13):
 * stages, continuation, target and ACL checks, CHAP, session creation.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>
#include <iscsi_xt/chap.h>
#include <iscsi_xt/params.h>

#include "conn.h"
#include "fault.h"
#include "session.h"

/* Login status: class in the high byte, detail in the low one. */
#define IXT_LS(class, detail)	(((class) << 8) | (detail))
#define IXT_LS_INIT(detail)	IXT_LS(ISCSI_STATUS_CLS_INITIATOR_ERR, \
				       ISCSI_LOGIN_STATUS_##detail)
#define IXT_LS_TARGET(detail)	IXT_LS(ISCSI_STATUS_CLS_TARGET_ERR, \
				       ISCSI_LOGIN_STATUS_##detail)

/*
 * How long a failed authentication's Login Response waits, the
 * connection holding its place in login meanwhile: with at most
 * max_login_conns (64) of them at once, that is 32 guesses of a CHAP
 * secret a second over every peer, where the round trip alone let one
 * host try thousands.
 */
#define IXT_LOGIN_AUTH_FAIL_DELAY	(2 * HZ)

/**
 * struct ixt_login - state of a connection's login phase
 * @first: the first Login Request's BHS: ISID, TSIH, CID and ITT must not
 *	change afterwards (ixt_login_check_hdr()); its CmdSN is the
 *	session's first.
 * @started: @first is valid.
 * @stage: current stage (CSG): %ISCSI_SECURITY_NEGOTIATION_STAGE or
 *	%ISCSI_OP_PARMS_NEGOTIATION_STAGE.
 * @leading_done: the leading keys were seen, the target and the ACL
 *	checked, and @neg set up.
 * @tpg: the TPG of a normal session: the connection's, which holds
 *	the reference.
 * @join: the session a connection with a TSIH joins, with a reference;
 *	%NULL for a leading login.
 * @auth: CHAP is required.
 * @authenticated: CHAP succeeded, or AuthMethod=None was agreed while
 *	CHAP is not required.
 * @chap: the CHAP exchange.
 * @chal_entry: on ixt_login_challenges while @chap's challenge waits for
 *	the initiator's response; empty otherwise.
 * @ids: CHAP identifiers used.
 * @creds: copy of the credentials the initiator is checked against.
 * @initiator: InitiatorName, for messages.
 * @req: request text, reassembled over Login Requests with C set.
 * @rsp: response text, sent over several Login Responses when long.
 * @rsp_flags: T, CSG and NSG bits of the response's last part.
 * @neg: the key negotiation; handed to the connection when the login
 *	succeeds, for its Text Requests.
 * @conn: the connection.
 * @fail_rsp: the Login Response of a failed authentication, until
 *	@fail_work sends it.
 * @fail_work: sends @fail_rsp %IXT_LOGIN_AUTH_FAIL_DELAY after the failure.
 *
 * Owned by the connection, used only by its receive path, and by
 * @fail_work once the receive path has failed the login and stopped;
 * ixt_login_free() cancels it.
 */
struct ixt_login {
	struct iscsi_login_req first;
	bool started;
	u8 stage;
	bool leading_done;
	struct ixt_tpg *tpg;
	struct ixt_sess *join;
	bool auth;
	bool authenticated;
	struct ixt_chap chap;
	struct list_head chal_entry;
	struct ixt_chap_ids ids;
	char creds[IXT_AUTH_NR][IXT_AUTH_LEN];
	char initiator[ISCSI_NAME_LEN];
	struct ixt_reqbuf req;
	struct ixt_text_buf rsp;
	u8 rsp_flags;
	struct ixt_neg *neg;
	struct ixt_conn *conn;
	struct ixt_tx_pdu *fail_rsp;
	struct delayed_work fail_work;
};

/*
 * The challenges the target has sent and awaits a response to, in every
 * login: an initiator's own challenge (mutual CHAP) may be none of them.
 * CHAP itself refuses the login's own (RFC 7143 section 12.1.3); another
 * login's, relayed, would have the target answer it, and a peer that
 * knows one initiator's secret but not another's would log in as the
 * second wherever a secret serves both (one ACL's mutual secret,
 * another's initiator secret), against the RFC but not refused by the
 * configuration. Entries are the logins themselves (@chal_entry); their
 * challenge does not change while they are on the list. At most one per
 * connection in login: max_login_conns, 64 by default, over TCP and iSER.
 */
static LIST_HEAD(ixt_login_challenges);
static DEFINE_SPINLOCK(ixt_login_challenges_lock);

static void ixt_login_chal_add(struct ixt_login *login)
{
	spin_lock(&ixt_login_challenges_lock);
	list_add_tail(&login->chal_entry, &ixt_login_challenges);
	spin_unlock(&ixt_login_challenges_lock);
}

static void ixt_login_chal_del(struct ixt_login *login)
{
	spin_lock(&ixt_login_challenges_lock);
	list_del_init(&login->chal_entry);
	spin_unlock(&ixt_login_challenges_lock);
}

/*
 * Whether the initiator's decoded CHAP_C, @c of @len bytes, is the
 * challenge of another login (&struct ixt_chap_response.is_challenge):
 * this login's own left the list when its response came.
 */
static bool ixt_login_chal_pending(const u8 *c, size_t len)
{
	struct ixt_login *other;
	bool found = false;

	spin_lock(&ixt_login_challenges_lock);
	list_for_each_entry(other, &ixt_login_challenges, chal_entry) {
		if (other->chap.digest_len == len &&
		    !memcmp(other->chap.challenge, c, len)) {
			found = true;
			break;
		}
	}
	spin_unlock(&ixt_login_challenges_lock);
	return found;
}

static void ixt_login_fail_work(struct work_struct *work)
{
	struct ixt_login *login = container_of(to_delayed_work(work),
					       struct ixt_login, fail_work);

	ixt_conn_queue(login->conn, login->fail_rsp);
	login->fail_rsp = NULL;
}

/**
 * ixt_login_init() - allocate the login state of a new connection
 * @conn: the connection.
 *
 * Context: Process context.
 * Return: 0 or -ENOMEM.
 */
int ixt_login_init(struct ixt_conn *conn)
{
	struct ixt_login *login;

	login = ixt_fault(IXT_FAULT_LOGIN) ? NULL :
		kzalloc(sizeof(*login), GFP_KERNEL);
	if (!login)
		return -ENOMEM;
	login->neg = ixt_fault(IXT_FAULT_LOGIN_NEG) ? NULL :
		     kzalloc(sizeof(*login->neg), GFP_KERNEL);
	if (!login->neg)
		goto err_free;
	if (ixt_rsp_alloc(&login->rsp, IXT_NEG_RSP_LEN))
		goto err_free;
	INIT_LIST_HEAD(&login->chal_entry);
	INIT_DELAYED_WORK(&login->fail_work, ixt_login_fail_work);
	login->conn = conn;
	conn->login = login;
	return 0;

err_free:
	kfree(login->neg);
	kfree(login);
	return -ENOMEM;
}

/**
 * ixt_login_free() - free the login state of a connection
 * @conn: the connection; nothing happens if its login state is gone.
 *
 * Context: Process context.
 */
void ixt_login_free(struct ixt_conn *conn)
{
	struct ixt_login *login = conn->login;

	if (!login)
		return;
	cancel_delayed_work_sync(&login->fail_work);
	if (login->fail_rsp)
		ixt_tx_pdu_free(login->fail_rsp);
	if (login->join)
		ixt_sess_put(login->join);
	ixt_login_chal_del(login);
	ixt_chap_destroy(&login->chap);
	memzero_explicit(login->creds, sizeof(login->creds));
	ixt_reqbuf_free(&login->req);
	ixt_rsp_free(&login->rsp);
	kfree(login->neg);
	kfree(login);
	conn->login = NULL;
}

static struct ixt_tx_pdu *ixt_login_rsp_alloc(struct ixt_conn *conn, u32 len)
{
	struct ixt_login *login = conn->login;
	struct iscsi_login_rsp *rsp;
	struct ixt_tx_pdu *pdu;

	pdu = ixt_tx_pdu_alloc(len, GFP_KERNEL);
	if (!pdu)
		return NULL;
	rsp = (struct iscsi_login_rsp *)&pdu->hdr;
	rsp->opcode = ISCSI_OP_LOGIN_RSP;
	rsp->max_version = ISCSI_DRAFT20_VERSION;
	rsp->active_version = ISCSI_DRAFT20_VERSION;
	memcpy(rsp->isid, login->first.isid, sizeof(rsp->isid));
	rsp->tsih = login->first.tsih;
	rsp->itt = login->first.itt;
	rsp->statsn = cpu_to_be32(conn->stat_sn++);
	rsp->exp_cmdsn = login->first.cmdsn;
	rsp->max_cmdsn = login->first.cmdsn;
	return pdu;
}

/* The iSCSI MIB's kind of a failed login, from its status. */
static enum ixt_login_fail ixt_login_fail_type(u16 status)
{
	if (status >> 8 != ISCSI_STATUS_CLS_INITIATOR_ERR)
		return IXT_LOGIN_FAIL_OTHER;
	switch (status & 0xff) {
	case ISCSI_LOGIN_STATUS_AUTH_FAILED:
		return IXT_LOGIN_FAIL_AUTHENTICATE;
	case ISCSI_LOGIN_STATUS_TGT_FORBIDDEN:
		return IXT_LOGIN_FAIL_AUTHORIZE;
	default:
		return IXT_LOGIN_FAIL_NEGOTIATE;
	}
}

/*
 * Fails the login with @status and closes the connection once it is out.
 * A login to a known target counts in its fabric_statistics.
 */
static void ixt_login_fail(struct ixt_conn *conn, u16 status)
{
	struct ixt_login *login = conn->login;
	struct iscsi_login_rsp *rsp;
	struct ixt_tx_pdu *pdu;

	if (login->tpg)
		ixt_stat_login_fail(login->tpg->tiqn,
				    ixt_login_fail_type(status),
				    login->initiator[0] ? login->initiator : NULL,
				    &conn->head.peer);

	pr_warn_ratelimited("%pISpc: login of %s failed, status 0x%04x\n",
			    &conn->head.peer,
			    login->initiator[0] ? login->initiator : "(unnamed)",
			    status);
	WRITE_ONCE(conn->state, IXT_CONN_LOGOUT);
	pdu = ixt_login_rsp_alloc(conn, 0);
	if (!pdu) {
		ixt_conn_close(conn);
		return;
	}
	rsp = (struct iscsi_login_rsp *)&pdu->hdr;
	rsp->flags = login->stage << 2;
	rsp->status_class = status >> 8;
	rsp->status_detail = status & 0xff;
	pdu->close = true;
	if (status != IXT_LS_INIT(AUTH_FAILED)) {
		ixt_conn_queue(conn, pdu);
		return;
	}
	login->fail_rsp = pdu;
	queue_delayed_work(ixt_wq, &login->fail_work,
			   IXT_LOGIN_AUTH_FAIL_DELAY);
}

/*
 * Sends the next part of the response text, the last one with the flags
 * decided for the response, and moves to the next stage after it.
 */
static int ixt_login_send_part(struct ixt_conn *conn)
{
	struct ixt_login *login = conn->login;
	struct iscsi_login_rsp *rsp;
	struct ixt_tx_pdu *pdu;
	const char *chunk;
	bool more;
	u32 len;

	len = ixt_text_chunk(&login->rsp, ISCSI_DEF_MAX_RECV_SEG_LEN, &chunk,
			     &more);
	pdu = ixt_login_rsp_alloc(conn, len);
	if (!pdu)
		return -ENOMEM;
	memcpy(pdu->data, chunk, len);
	rsp = (struct iscsi_login_rsp *)&pdu->hdr;
	if (more) {
		rsp->flags = ISCSI_FLAG_LOGIN_CONTINUE | login->stage << 2;
		ixt_conn_queue(conn, pdu);
		return 0;
	}
	rsp->flags = login->rsp_flags;
	if (login->rsp_flags & ISCSI_FLAG_LOGIN_TRANSIT)
		login->stage = ISCSI_LOGIN_NEXT_STAGE(login->rsp_flags);
	if (login->stage == ISCSI_FULL_FEATURE_PHASE) {
		struct ixt_sess *sess = conn->sess;

		rsp->tsih = cpu_to_be16(sess->tsih);
		rsp->max_cmdsn = cpu_to_be32(sess->max_cmd_sn);
	}
	ixt_conn_queue(conn, pdu);
	return 0;
}

/* Checks a Login Request's BHS against the first one and the stage. */
static u16 ixt_login_check_hdr(struct ixt_login *login,
			       const struct iscsi_login_req *req)
{
	u8 csg = ISCSI_LOGIN_CURRENT_STAGE(req->flags);
	u8 nsg = ISCSI_LOGIN_NEXT_STAGE(req->flags);

	if (!login->started) {
		login->first = *req;
		login->started = true;
		login->stage = csg;
		if (req->min_version > ISCSI_DRAFT20_VERSION)
			return IXT_LS_INIT(NO_VERSION);
	}
	if (memcmp(req->isid, login->first.isid, sizeof(req->isid)) ||
	    req->tsih != login->first.tsih || req->cid != login->first.cid ||
	    req->itt != login->first.itt)
		return IXT_LS_INIT(INIT_ERR);
	if (csg != login->stage)
		return IXT_LS_INIT(INIT_ERR);
	if (req->flags & ISCSI_FLAG_LOGIN_TRANSIT && nsg <= csg)
		return IXT_LS_INIT(INIT_ERR);
	return 0;
}

/* Copies the credentials of @auth, the unset ones as empty strings. */
static void ixt_login_copy_creds(struct ixt_login *login,
				 struct ixt_auth *auth)
{
	int i;

	mutex_lock(&auth->lock);
	for (i = 0; i < IXT_AUTH_NR; i++)
		if (ixt_auth_cred_is_set(auth->cred[i]))
			strscpy(login->creds[i], auth->cred[i],
				sizeof(login->creds[i]));
	mutex_unlock(&auth->lock);
}

/*
 * The ACL admits the initiator, or the TPG is in demo mode. As in LIO,
 * an explicit ACL's authentication attribute, unless it is -1, decides
 * whether CHAP is required; otherwise the TPG's does. The ACL a demo-mode
 * login left behind (dynamic, kept with cache_dynamic_acls) is no
 * explicit ACL: the TPG's credentials and attribute apply.
 */
static u16 ixt_login_check_acl(struct ixt_login *login)
{
	struct se_portal_group *se_tpg = &login->tpg->se_tpg;
	struct ixt_node_acl *nacl = NULL;
	struct se_node_acl *se_nacl;
	int auth = -1;

	se_nacl = core_tpg_get_initiator_node_acl(se_tpg, login->initiator);
	if (se_nacl && se_nacl->dynamic_node_acl) {
		target_put_nacl(se_nacl);
		se_nacl = NULL;
	}
	if (!se_nacl && !ixt_tpg_attrib(login->tpg,
					IXT_TA_GENERATE_NODE_ACLS))
		return IXT_LS_INIT(TGT_FORBIDDEN);
	if (se_nacl) {
		nacl = to_ixt_nacl(se_nacl);
		auth = ixt_nacl_attrib(nacl, IXT_NA_AUTHENTICATION);
	}
	ixt_login_copy_creds(login, nacl ? &nacl->auth : &login->tpg->auth);
	if (se_nacl)
		target_put_nacl(se_nacl);
	login->auth = auth >= 0 ? auth :
		      ixt_tpg_attrib(login->tpg, IXT_TA_AUTHENTICATION);
	return 0;
}

/* Discovery sessions authenticate against discovery_auth/, as in LIO. */
static void ixt_login_check_discovery(struct ixt_login *login)
{
	bool enforce;

	ixt_login_copy_creds(login, ixt_discovery_auth(&enforce));
	login->auth = enforce;
}

/*
 * What the TPG offers (its param/; LIO's defaults for discovery), with
 * AuthMethod following whether this initiator must authenticate: without
 * None when it must, with None last when it need not and the offer is
 * CHAP only. ErrorRecoveryLevel is 0 whatever param/ says: the target
 * recovers at that level only (no SNACK, no task reassignment), and an
 * initiator told more would count on them.
 */
static void ixt_login_offer(struct ixt_login *login, struct ixt_offer *offer)
{
	struct ixt_vlist *am = &offer->auth_method;
	u8 i, n = 0;

	if (login->tpg) {
		mutex_lock(&login->tpg->lock);
		*offer = login->tpg->offer;
		mutex_unlock(&login->tpg->lock);
		if (offer->error_recovery_level)
			pr_warn_once("ErrorRecoveryLevel %u in a TPG's param/: logins get 0, the only level iscsi_xt implements\n",
				     offer->error_recovery_level);
		offer->error_recovery_level = 0;
	} else {
		/*
		 * Discovery: LIO's defaults, but for the 256 KiB of
		 * MaxXmitDataSegmentLength that LIO declares as its
		 * MaxRecvDataSegmentLength to an initiator that declares
		 * first: a Text Request is 64 KiB at most anyway.
		 */
		ixt_offer_init(offer, 0);
		offer->max_xmit_dlength = ISCSI_DEF_MAX_RECV_SEG_LEN;
	}

	for (i = 0; i < am->nr; i++)
		if (!login->auth || am->v[i] != IXT_AUTH_NONE)
			am->v[n++] = am->v[i];
	am->nr = n;
	if (login->auth && !am->nr) {
		am->v[am->nr++] = IXT_AUTH_CHAP;
	} else if (!login->auth) {
		for (i = 0; i < am->nr && am->v[i] != IXT_AUTH_NONE; i++)
			;
		if (i == am->nr && am->nr < IXT_VLIST_MAX)
			am->v[am->nr++] = IXT_AUTH_NONE;
	}
}

/* Copies a value of the request into a string; false if it is absent. */
static bool ixt_login_find(const char *text, u32 len, const char *key,
			   char *buf, size_t size)
{
	struct ixt_text_pair pair;

	if (ixt_text_find(text, len, key, &pair))
		return false;
	strscpy(buf, pair.value, size);
	return true;
}

/*
 * Copies an iSCSI name of the request, checked before anything logs or
 * stores it (a newline would forge kernel log lines).
 */
static u16 ixt_login_find_name(const char *text, u32 len, const char *key,
			       char buf[ISCSI_NAME_LEN])
{
	struct ixt_text_pair pair;

	if (ixt_text_find(text, len, key, &pair))
		return IXT_LS_INIT(MISSING_FIELDS);
	if (!ixt_name_check(pair.value, pair.value_len))
		return IXT_LS_INIT(INIT_ERR);
	memcpy(buf, pair.value, pair.value_len);
	buf[pair.value_len] = '\0';
	return 0;
}

/*
 * No TPG to log in to. A target whose TPGs on this portal are all
 * disabled is "service unavailable", which the initiator retries, as
 * after a TPG disable it should: LIO answers the same.
 */
static u16 ixt_login_no_tpg(struct ixt_login *login, const char *target,
			    int err)
{
	switch (err) {
	case -EAGAIN:
		pr_warn_ratelimited("%s: login to %s, whose TPG is disabled\n",
				    login->initiator, target);
		return IXT_LS_TARGET(SVC_UNAVAILABLE);
	case -ENOMEM:
		return IXT_LS_TARGET(NO_RESOURCES);
	default:
		pr_warn_ratelimited("%s: login to unknown target %s\n",
				    login->initiator, target);
		return IXT_LS_INIT(TGT_NOT_FOUND);
	}
}

/*
 * A login with a TSIH adds a connection to that session (MC/S). It is
 * looked for once the login has authenticated, so that a peer learns
 * nothing of which sessions exist before.
 */
static u16 ixt_login_find_join(struct ixt_login *login)
{
	login->join = ixt_sess_find_get(login->tpg, login->initiator,
					login->first.isid,
					be16_to_cpu(login->first.tsih));
	if (login->join)
		return 0;
	pr_warn_ratelimited("%s: no session TSIH %u to add a connection to\n",
			    login->initiator, be16_to_cpu(login->first.tsih));
	return IXT_LS_INIT(NO_SESSION);
}

/* The first request: find the target and the ACL, set up the engine. */
static u16 ixt_login_leading(struct ixt_conn *conn)
{
	struct ixt_login *login = conn->login;
	const char *text = login->req.buf;
	u32 len = login->req.len;
	struct ixt_offer offer;
	char type[16] = "Normal";
	char target[ISCSI_NAME_LEN];
	unsigned int flags = IXT_NEG_LEADING;
	struct ixt_tpg *tpg;
	u16 status;

	status = ixt_login_find_name(text, len, "InitiatorName",
				     login->initiator);
	if (status)
		return status;
	ixt_login_find(text, len, "SessionType", type, sizeof(type));
	if (!strcmp(type, "Normal")) {
		status = ixt_login_find_name(text, len, "TargetName", target);
		if (status)
			return status;
		tpg = ixt_portal_find_tpg_get(conn->portal, target);
		if (IS_ERR(tpg))
			return ixt_login_no_tpg(login, target, PTR_ERR(tpg));
		WRITE_ONCE(conn->tpg, tpg);
		login->tpg = tpg;
		ixt_conn_set_login_deadline(conn,
					    ixt_tpg_attrib(login->tpg,
							   IXT_TA_LOGIN_TIMEOUT));
		if (ixt_login_check_acl(login)) {
			pr_warn_ratelimited("%s: no ACL admits it to %s tpgt_%u\n",
					    login->initiator, target,
					    login->tpg->tpgt);
			return IXT_LS_INIT(TGT_FORBIDDEN);
		}
		if (login->first.tsih)
			flags &= ~IXT_NEG_LEADING;
		if (ixt_tpg_attrib(login->tpg, IXT_TA_LOGIN_KEYS_WORKAROUND))
			flags |= IXT_NEG_KEYS_WORKAROUND;
	} else if (!strcmp(type, "Discovery")) {
		/* MaxConnections is 1: no connection joins a discovery. */
		if (login->first.tsih)
			return IXT_LS_INIT(CONN_ADD_FAILED);
		ixt_login_check_discovery(login);
	} else {
		return IXT_LS_INIT(NO_SESSION_TYPE);
	}
	/* CHAP must not be skipped by starting in the operational stage. */
	if (login->auth && login->stage != ISCSI_SECURITY_NEGOTIATION_STAGE)
		return IXT_LS_INIT(AUTH_FAILED);

	ixt_login_offer(login, &offer);
	if (conn->ops->flags & IXT_XPRT_F_RDMA)
		flags |= IXT_NEG_ISER;
	/* Receive buffers of an iSER connection are posted in advance. */
	if (conn->ops->max_recv_dlength)
		offer.target_recv_dlength = min(offer.target_recv_dlength,
						conn->ops->max_recv_dlength);
	/* A Send carries a PDU whole: Text Responses go in parts of that. */
	if (conn->ops->max_send_dlength)
		offer.max_xmit_dlength = min(offer.max_xmit_dlength,
					     conn->ops->max_send_dlength);
	ixt_neg_init(login->neg, &offer, flags);
	login->leading_done = true;
	return 0;
}

static u16 ixt_login_chap_fail(struct ixt_login *login,
			       enum ixt_chap_reason why)
{
	pr_warn_ratelimited("%s: CHAP failed: %s\n", login->initiator,
			    ixt_chap_reason_str(why));
	if (why == IXT_CHAP_ERR_IDS || why == IXT_CHAP_ERR_INTERNAL)
		return IXT_LS_TARGET(TARGET_ERROR);
	return IXT_LS_INIT(AUTH_FAILED);
}

static const char *ixt_login_value(const char *text, u32 len, const char *key)
{
	struct ixt_text_pair pair;

	return ixt_text_find(text, len, key, &pair) ? NULL : pair.value;
}

/* CHAP_A starts the exchange; CHAP_N and CHAP_R end it. */
static u16 ixt_login_chap(struct ixt_login *login)
{
	const char *text = login->req.buf;
	u32 len = login->req.len;
	struct ixt_chap_creds creds = {
		.userid = login->creds[IXT_AUTH_USERID],
		.secret = login->creds[IXT_AUTH_PASSWORD],
		.userid_mutual = login->creds[IXT_AUTH_USERID_MUTUAL],
		.secret_mutual = login->creds[IXT_AUTH_PASSWORD_MUTUAL],
	};
	struct ixt_chap_response in = {
		.n = ixt_login_value(text, len, "CHAP_N"),
		.r = ixt_login_value(text, len, "CHAP_R"),
		.i = ixt_login_value(text, len, "CHAP_I"),
		.c = ixt_login_value(text, len, "CHAP_C"),
		.is_challenge = ixt_login_chal_pending,
	};
	const char *chap_a = ixt_login_value(text, len, "CHAP_A");
	struct ixt_chap_challenge ch;
	struct ixt_chap_reply reply;
	enum ixt_chap_reason why;

	if (login->neg->params.auth_method != IXT_AUTH_CHAP ||
	    login->stage != ISCSI_SECURITY_NEGOTIATION_STAGE)
		return IXT_LS_INIT(INIT_ERR);
	if (chap_a) {
		if (ixt_chap_start(&login->chap, &login->ids, chap_a,
				   IXT_CHAP_ALGS_ALL, &ch, &why))
			return ixt_login_chap_fail(login, why);
		ixt_login_chal_add(login);
		if (ixt_text_add(&login->rsp, "CHAP_A", ch.a) ||
		    ixt_text_add(&login->rsp, "CHAP_I", ch.i) ||
		    ixt_text_add(&login->rsp, "CHAP_C", ch.c))
			return IXT_LS_TARGET(NO_RESOURCES);
		return 0;
	}
	/* The exchange ends here, whatever the outcome. */
	ixt_login_chal_del(login);
	if (ixt_chap_verify(&login->chap, &creds, &in, &reply, &why))
		return ixt_login_chap_fail(login, why);
	login->authenticated = true;
	if (reply.n &&
	    (ixt_text_add(&login->rsp, "CHAP_N", reply.n) ||
	     ixt_text_add(&login->rsp, "CHAP_R", reply.r)))
		return IXT_LS_TARGET(NO_RESOURCES);
	return 0;
}

static u16 ixt_login_status(const struct ixt_login_status *st)
{
	if (!st->status_class)
		return IXT_LS_INIT(INIT_ERR);
	return IXT_LS(st->status_class, st->status_detail);
}

/* One complete request text: the keys of the current stage. */
static u16 ixt_login_keys(struct ixt_conn *conn)
{
	struct ixt_login *login = conn->login;
	struct ixt_login_status st = { };
	u16 status;

	if (ixt_text_check(login->req.buf, login->req.len) < 0)
		return IXT_LS_INIT(INIT_ERR);
	if (!login->leading_done) {
		status = ixt_login_leading(conn);
		if (status)
			return status;
	}
	if (ixt_neg_process(login->neg, login->stage, login->req.buf,
			    login->req.len, &login->rsp, &st))
		return ixt_login_status(&st);
	if (login->neg->auth_keys)
		return ixt_login_chap(login);
	if (login->stage == ISCSI_SECURITY_NEGOTIATION_STAGE && !login->auth &&
	    login->neg->params.auth_method == IXT_AUTH_NONE)
		login->authenticated = true;
	/* Without a security stage, nothing was negotiated: None applies. */
	if (login->stage != ISCSI_SECURITY_NEGOTIATION_STAGE && !login->auth)
		login->authenticated = true;
	return 0;
}

/*
 * Adds the connection to the session it joins: the session-wide values
 * are the session's, the connection's own (digests, data segment
 * lengths) its login's.
 */
static u16 ixt_login_join(struct ixt_conn *conn)
{
	struct ixt_login *login = conn->login;
	const struct ixt_params *neg = &login->neg->params;
	struct ixt_sess *sess = login->join;
	struct ixt_params *p = &conn->params;
	int ret;

	*p = sess->params;
	p->header_digest = neg->header_digest;
	p->data_digest = neg->data_digest;
	p->target_recv_dlength = neg->target_recv_dlength;
	p->initiator_recv_dlength = neg->initiator_recv_dlength;
	p->max_xmit_dlength = neg->max_xmit_dlength;
	p->auth_method = neg->auth_method;
	/*
	 * A joining iSER connection posts receives for the session's
	 * window; if it could post fewer, the window comes down to them.
	 */
	if (conn->ops->ffp_prepare) {
		u32 depth = sess->cmdsn_depth;

		conn->ops->ffp_prepare(conn, &depth);
		ixt_sess_window_limit(sess, depth);
	}
	ret = ixt_sess_join(sess, conn);
	if (ret) {
		pr_warn_ratelimited("%s: connection CID %u cannot join session TSIH %u: %d\n",
				    login->initiator, conn->cid, sess->tsih,
				    ret);
		switch (ret) {
		case -ENOENT:
			return IXT_LS_INIT(NO_SESSION);
		case -EMLINK:
			return IXT_LS_INIT(ISID_ERROR);
		default:
			return IXT_LS_TARGET(SVC_UNAVAILABLE);
		}
	}
	ixt_stat_login_accept(login->tpg->tiqn);
	pr_info_ratelimited("%s: connection CID %u joined session TSIH %u from %pISpc\n",
			    sess->initiator, conn->cid, sess->tsih,
			    &conn->head.peer);
	return 0;
}

/* Makes the session live; the final response then carries its TSIH. */
static u16 ixt_login_finish(struct ixt_conn *conn)
{
	struct ixt_login *login = conn->login;
	struct ixt_login_status st = { };
	struct ixt_sess *sess;
	u16 status;
	u32 depth;
	int ret;

	if (ixt_neg_finish(login->neg, &st))
		return ixt_login_status(&st);
	conn->cid = be16_to_cpu(login->first.cid);
	if (login->first.tsih) {
		status = ixt_login_find_join(login);
		return status ?: ixt_login_join(conn);
	}
	if (!login->neg->params.discovery)
		ixt_sess_reinstate(login->tpg, login->initiator,
				   login->first.isid);
	sess = ixt_sess_alloc(login->initiator, login->first.isid);
	if (!sess)
		return IXT_LS_TARGET(NO_RESOURCES);
	sess->discovery = login->neg->params.discovery;
	sess->tpg = login->tpg;
	sess->params = login->neg->params;
	conn->params = login->neg->params;
	sess->exp_cmd_sn = be32_to_cpu(login->first.cmdsn);
	ixt_sess_window_start(sess, 1);

	ret = ixt_sess_register(sess, conn);
	if (ret) {
		ixt_sess_put(sess);
		/* A bound that refused it has said which. */
		if (ret != -EBUSY)
			pr_warn_ratelimited("%s: session setup failed: %d\n",
					    login->initiator, ret);
		return ret == -EACCES ? IXT_LS_INIT(TGT_FORBIDDEN) :
					IXT_LS_TARGET(NO_RESOURCES);
	}
	depth = sess->se_sess ? sess->se_sess->se_node_acl->queue_depth : 1;
	if (conn->ops->ffp_prepare)
		conn->ops->ffp_prepare(conn, &depth);
	if (sess->se_sess)
		ixt_sess_window_start(sess, depth);
	if (login->tpg)
		ixt_stat_login_accept(login->tpg->tiqn);
	/* Apart, so that discovery sessions cannot crowd normal ones out. */
	if (sess->discovery)
		pr_info_ratelimited("%s: discovery session TSIH %u logged in from %pISpc\n",
				    sess->initiator, sess->tsih,
				    &conn->head.peer);
	else
		pr_info_ratelimited("%s: normal session TSIH %u logged in from %pISpc\n",
				    sess->initiator, sess->tsih,
				    &conn->head.peer);
	return 0;
}

/* Login is over: the connection goes to full feature phase. */
static void ixt_login_enter_ffp(struct ixt_conn *conn)
{
	struct ixt_params *p = &conn->params;

	conn->head.limits = (struct ixt_pdu_limits){
		.max_recv_dlength = p->target_recv_dlength,
		.first_burst_length = p->first_burst_length,
		.discovery = p->discovery,
		.immediate_data = p->immediate_data,
		.initial_r2t = p->initial_r2t,
	};
	/* Digests start with the PDUs after the final Login Response. */
	conn->head.digests = (p->header_digest ? IXT_PDU_HDIGEST : 0) |
			(p->data_digest ? IXT_PDU_DDIGEST : 0);
	WRITE_ONCE(conn->state, IXT_CONN_FULL_FEATURE);
	ixt_conn_login_done(conn);
	conn->neg = conn->login->neg;
	conn->login->neg = NULL;
	ixt_login_free(conn);
	if (conn->sess->se_sess)
		ixt_watchdog_start(conn);
	else
		ixt_conn_discovery_start(conn);
}

/* Decides T and NSG of the response, once the keys of a request are done. */
static u16 ixt_login_transit(struct ixt_conn *conn,
			     const struct iscsi_login_req *req)
{
	struct ixt_login *login = conn->login;
	u8 nsg = ISCSI_LOGIN_NEXT_STAGE(req->flags);
	u16 status;

	login->rsp_flags = login->stage << 2;
	if (!(req->flags & ISCSI_FLAG_LOGIN_TRANSIT))
		return 0;
	if (!login->authenticated) {
		/* CHAP agreed on or under way: the initiator asks too early. */
		if (login->stage == ISCSI_SECURITY_NEGOTIATION_STAGE &&
		    login->neg->params.auth_method == IXT_AUTH_CHAP &&
		    login->chap.state != IXT_CHAP_DONE)
			return 0;
		return IXT_LS_INIT(AUTH_FAILED);
	}
	/* Keys the target offered still wait for an answer. */
	if (ixt_neg_pending(login->neg))
		return 0;
	/* Skipping the operational stage needs the RFC defaults to do. */
	if (nsg == ISCSI_FULL_FEATURE_PHASE &&
	    login->stage == ISCSI_SECURITY_NEGOTIATION_STAGE &&
	    ixt_neg_has_offers(login->neg))
		nsg = ISCSI_OP_PARMS_NEGOTIATION_STAGE;
	if (nsg == ISCSI_FULL_FEATURE_PHASE) {
		status = ixt_login_finish(conn);
		if (status)
			return status;
	}
	login->rsp_flags |= ISCSI_FLAG_LOGIN_TRANSIT | nsg;
	return 0;
}

/**
 * ixt_login_rx() - handle a PDU received in the login phase
 * @conn: the connection.
 * @pdu: the PDU: a Login Request unless @pdu->reject is set.
 *
 * Context: Process context (the connection's receive path).
 */
void ixt_login_rx(struct ixt_conn *conn, struct ixt_rx_pdu *pdu)
{
	const struct iscsi_login_req *req = (void *)&pdu->hdr;
	struct ixt_login *login = conn->login;
	u16 status;

	if (pdu->reject) {
		ixt_login_fail(conn, IXT_LS_INIT(INIT_ERR));
		return;
	}
	status = ixt_login_check_hdr(login, req);
	if (status)
		goto out_fail;

	/* The initiator fetches the rest of a long response. */
	if (login->rsp.sent < login->rsp.len) {
		if (pdu->dlength || req->flags & ISCSI_FLAG_LOGIN_CONTINUE) {
			status = IXT_LS_INIT(INIT_ERR);
			goto out_fail;
		}
		goto out_send;
	}

	if (ixt_reqbuf_append(&login->req, pdu->data, pdu->dlength)) {
		status = IXT_LS_INIT(INIT_ERR);
		goto out_fail;
	}
	ixt_text_buf_init(&login->rsp, login->rsp.data, login->rsp.size);
	login->rsp_flags = login->stage << 2;
	/* More request text follows: acknowledge with an empty response. */
	if (req->flags & ISCSI_FLAG_LOGIN_CONTINUE)
		goto out_send;

	status = ixt_login_keys(conn);
	if (!status)
		status = ixt_login_transit(conn, req);
	login->req.len = 0;
	if (status)
		goto out_fail;

out_send:
	if (ixt_login_send_part(conn)) {
		ixt_conn_close(conn);
		return;
	}
	if (login->stage == ISCSI_FULL_FEATURE_PHASE)
		ixt_login_enter_ffp(conn);
	return;

out_fail:
	ixt_login_fail(conn, status);
}
