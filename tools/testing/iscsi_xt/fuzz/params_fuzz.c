// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of drivers/target/iscsi_xt/params.c: the login and
 * text negotiation engine over arbitrary key=value text, as a login and
 * the Text Requests after it send it.
 *
 * The input: a flags byte (leading connection, iSER, LIO's
 * login_keys_workaround), the TPG tag, up to 8 configfs writes to the
 * offer (attribute number, value), then up to 8 requests: the stage
 * (security, operational or full feature phase), the number of PDUs the
 * text is cut into (C bit), the text, the cut points, and the most bytes
 * of a response PDU (the initiator's MaxRecvDataSegmentLength). The
 * PDUs are reassembled as the login and text code do (ixt_reqbuf_append:
 * at most IXT_TEXT_MAX_LEN bytes) into a buffer of the exact size, and
 * answered into a response buffer of exactly IXT_NEG_RSP_LEN bytes.
 * Requests follow the login's order: the engine is set up on the first
 * one (after ixt_text_find() of the keys that pick the TPG), a failure
 * ends the negotiation, ixt_neg_finish() comes before the first Text
 * Request, and each Text Request starts with ixt_neg_text_begin().
 *
 * Invariants: a configfs write is refused without changing the offer or
 * shows as text that, with the newline configfs adds, writes back to the
 * same value; ixt_text_next() walks
 * as many pairs as ixt_text_check() counts; a failure is one of the
 * documented errors (never -ENOSPC: IXT_NEG_RSP_LEN holds any response)
 * with a login status; a response is well-formed text without a key
 * twice, handed out by ixt_text_chunk() in pieces of at most the
 * initiator's size that make it up exactly; the outcome is consistent
 * (FirstBurstLength within MaxBurstLength, MaxOutstandingR2T 1 with
 * DataSequenceInOrder=Yes and ErrorRecoveryLevel above 0, lengths within
 * the RFC's ranges, no digests over iSER, one connection in discovery,
 * NUL-terminated names).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/errno.h>
#include <linux/kernel.h>
#include <iscsi_xt/params.h>

#include "fuzz.h"

#define FZ_MAX_STORES	8
#define FZ_MAX_REQUESTS	8
#define FZ_MAX_PDUS	8

static const u8 stages[] = {
	ISCSI_SECURITY_NEGOTIATION_STAGE,
	ISCSI_OP_PARMS_NEGOTIATION_STAGE,
	ISCSI_FULL_FEATURE_PHASE,
};

/* A copy of @len bytes at @p in a buffer of exactly that size. */
static char *dup_exact(const void *p, size_t len)
{
	char *d = malloc(len ? len : 1);

	if (!d)
		abort();
	memcpy(d, p, len);
	return d;
}

/* A configfs write, and what it must leave behind. */
static void store_one(struct ixt_offer *offer)
{
	enum ixt_offer_param param = fz_u8() % IXT_PARAM_NR;
	char shown[512], again[512];
	struct ixt_offer before = *offer;
	const u8 *val;
	size_t len;
	char *buf;
	int ret, n;

	val = fz_bytes(300, &len);
	buf = dup_exact(val, len);
	ret = ixt_offer_store(offer, param, buf, len);
	free(buf);
	if (ret) {
		FZ_CHECK(ret == -EINVAL);
		FZ_CHECK(!memcmp(&before, offer, sizeof(before)));
		return;
	}
	n = ixt_offer_show(offer, param, shown, sizeof(shown) - 1);
	FZ_CHECK(n >= 0 && (size_t)n == strlen(shown));
	/* What "cat attr > attr" writes back: configfs adds a newline. */
	shown[n] = '\n';
	before = *offer;
	FZ_CHECK(!ixt_offer_store(offer, param, shown, n + 1));
	shown[n] = '\0';
	FZ_CHECK(!memcmp(&before, offer, sizeof(before)));
	FZ_CHECK(ixt_offer_show(offer, param, again, sizeof(again)) == n &&
		 !strcmp(shown, again));
	/* Too small a buffer is refused, not overrun. */
	FZ_CHECK(ixt_offer_show(offer, param, again, n) == -ENOSPC);
}

/*
 * The request text as the PDUs that carry it arrive: cut at points the
 * input chooses, appended one by one as ixt_reqbuf_append() does, into a
 * buffer resized to the exact length each time. NULL if it grows past
 * IXT_TEXT_MAX_LEN, which the login and text code refuse.
 */
static char *reassemble(const u8 *text, size_t len, unsigned int nr_pdus)
{
	u32 cut[FZ_MAX_PDUS + 1], n = 0, i, j;
	char *buf = NULL;
	u32 have = 0;

	cut[n++] = 0;
	for (i = 1; i < nr_pdus; i++) {
		u32 c = fz_u16() % (len + 1);

		/* Insertion sort: the cuts in order. */
		for (j = n; j > 1 && cut[j - 1] > c; j--)
			cut[j] = cut[j - 1];
		cut[j] = c;
		n++;
	}
	cut[n] = len;
	for (i = 0; i < n; i++) {
		u32 piece = cut[i + 1] - cut[i];

		if (!piece)
			continue;
		if (piece > IXT_TEXT_MAX_LEN - have) {
			free(buf);
			return NULL;
		}
		buf = realloc(buf, have + piece);
		if (!buf)
			abort();
		memcpy(buf + have, text + cut[i], piece);
		have += piece;
	}
	FZ_CHECK(have == len);
	return buf ? buf : dup_exact("", 0);
}

/* ixt_text_next() walks what ixt_text_check() counted. */
static void check_walk(const char *text, u32 len, int nr)
{
	struct ixt_text_pair pair;
	u32 pos = 0;
	int n = 0;

	while (ixt_text_next(text, len, &pos, &pair)) {
		FZ_CHECK(pair.key_len >= 1 && pair.key_len <= IXT_KEY_MAX_LEN);
		FZ_CHECK(pair.key[pair.key_len] == '=');
		FZ_CHECK(pair.value[pair.value_len] == '\0');
		FZ_CHECK(pair.value + pair.value_len < text + len);
		n++;
	}
	FZ_CHECK(pos == len && n == nr);
}

/* A response: well-formed, no key twice, sent in pieces that fit. */
static void check_response(struct ixt_text_buf *rsp, u32 max)
{
	struct ixt_text_pair a, b;
	u32 pos = 0, pos2, got = 0, n;
	const char *chunk;
	int nr;
	bool more;

	FZ_CHECK(rsp->len <= rsp->size && rsp->sent == 0);
	nr = ixt_text_check(rsp->data, rsp->len);
	if (nr < 0)
		FZ_FAIL("ixt_text_check() refuses a response: %d", nr);
	check_walk(rsp->data, rsp->len, nr);
	while (ixt_text_next(rsp->data, rsp->len, &pos, &a)) {
		pos2 = pos;
		while (ixt_text_next(rsp->data, rsp->len, &pos2, &b)) {
			if (a.key_len == b.key_len &&
			    !memcmp(a.key, b.key, a.key_len))
				FZ_FAIL("key %.*s twice in a response",
					(int)a.key_len, a.key);
		}
	}
	do {
		n = ixt_text_chunk(rsp, max, &chunk, &more);
		FZ_CHECK(n <= max && chunk == rsp->data + got);
		got += n;
		FZ_CHECK(more == (got < rsp->len));
	} while (more);
	FZ_CHECK(got == rsp->len && rsp->sent == rsp->len);
	FZ_CHECK(ixt_text_chunk(rsp, max, &chunk, &more) == 0 && !more);
}

static void check_params(const struct ixt_neg *neg)
{
	const struct ixt_params *p = &neg->params;

	FZ_CHECK(p->first_burst_length <= p->max_burst_length);
	FZ_CHECK(!(p->data_sequence_in_order && p->error_recovery_level) ||
		 p->max_outstanding_r2t == 1);
	FZ_CHECK(p->max_outstanding_r2t >= 1 &&
		 p->max_outstanding_r2t <= U16_MAX);
	FZ_CHECK(p->max_burst_length >= 512 &&
		 p->max_burst_length <= ISCSI_MAX_MAX_RECV_SEG_LEN);
	FZ_CHECK(p->target_recv_dlength >= 512 &&
		 p->target_recv_dlength <= ISCSI_MAX_MAX_RECV_SEG_LEN);
	FZ_CHECK(p->initiator_recv_dlength >= 512 &&
		 p->initiator_recv_dlength <= ISCSI_MAX_MAX_RECV_SEG_LEN);
	FZ_CHECK(p->max_xmit_dlength <= p->initiator_recv_dlength &&
		 p->max_xmit_dlength <= neg->offer.max_xmit_dlength);
	FZ_CHECK(p->error_recovery_level <= 2);
	FZ_CHECK(p->default_time2wait <= 3600 &&
		 p->default_time2retain <= 3600);
	FZ_CHECK(p->max_connections >= 1 && p->max_connections <= U16_MAX);
	FZ_CHECK(!p->discovery || p->max_connections == 1);
	FZ_CHECK(p->auth_method == IXT_AUTH_NONE ||
		 p->auth_method == IXT_AUTH_CHAP);
	FZ_CHECK(!p->rdma_extensions || (neg->flags & IXT_NEG_ISER));
	FZ_CHECK(!(neg->flags & IXT_NEG_ISER) ||
		 (!p->header_digest && !p->data_digest));
	FZ_CHECK(p->protocol_level <= 31);
	FZ_CHECK(strnlen(p->initiator_name, ISCSI_NAME_LEN) < ISCSI_NAME_LEN);
	FZ_CHECK(strnlen(p->target_name, ISCSI_NAME_LEN) < ISCSI_NAME_LEN);
	FZ_CHECK(strnlen(p->initiator_alias, IXT_ALIAS_LEN) < IXT_ALIAS_LEN);
	FZ_CHECK(strnlen(neg->send_targets, ISCSI_NAME_LEN) < ISCSI_NAME_LEN);
	FZ_CHECK(!neg->has_send_targets || !neg->auth_keys);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct ixt_neg neg;
	struct ixt_login_status st;
	struct ixt_text_buf rsp;
	struct ixt_text_pair pair;
	struct ixt_offer offer;
	unsigned int flags, i, nr;
	bool started = false, ffp = false;
	char *rsp_data;

	fz_begin(data, size);
	flags = fz_u8() & (IXT_NEG_LEADING | IXT_NEG_ISER |
			   IXT_NEG_KEYS_WORKAROUND);
	ixt_offer_init(&offer, fz_u16());
	nr = fz_u8() % (FZ_MAX_STORES + 1);
	for (i = 0; i < nr; i++)
		store_one(&offer);

	rsp_data = malloc(IXT_NEG_RSP_LEN);
	if (!rsp_data)
		abort();
	for (i = 0; i < FZ_MAX_REQUESTS && fz_left(); i++) {
		u8 stage = stages[fz_u8() % ARRAY_SIZE(stages)];
		unsigned int nr_pdus = 1 + fz_u8() % FZ_MAX_PDUS;
		const u8 *text;
		size_t len;
		char *req;
		u32 max;
		int ret;

		text = fz_bytes(IXT_TEXT_MAX_LEN + 1, &len);
		req = reassemble(text, len, nr_pdus);
		max = 1 + fz_u16() % ISCSI_DEF_MAX_RECV_SEG_LEN;
		if (!req)
			break;
		/* No login stage comes after full feature phase. */
		if (ffp)
			stage = ISCSI_FULL_FEATURE_PHASE;

		ret = ixt_text_check(req, len);
		if (ret >= 0)
			check_walk(req, len, ret);
		if (!started) {
			if (ret < 0) {
				free(req);
				break;
			}
			/* What the login looks up before the engine starts. */
			ixt_text_find(req, len, "InitiatorName", &pair);
			ixt_text_find(req, len, "SessionType", &pair);
			ixt_text_find(req, len, "TargetName", &pair);
			ixt_neg_init(&neg, &offer, flags);
			started = true;
		}
		if (stage == ISCSI_FULL_FEATURE_PHASE) {
			if (!ffp) {
				memset(&st, 0, sizeof(st));
				if (ixt_neg_finish(&neg, &st)) {
					FZ_CHECK(st.status_class);
					free(req);
					break;
				}
				ffp = true;
			}
			ixt_neg_text_begin(&neg);
		}

		ixt_text_buf_init(&rsp, rsp_data, IXT_NEG_RSP_LEN);
		memset(&st, 0, sizeof(st));
		ret = ixt_neg_process(&neg, stage, req, len, &rsp, &st);
		free(req);
		if (ret) {
			FZ_CHECK(ret == -EINVAL || ret == -EMSGSIZE ||
				 ret == -E2BIG || ret == -EPERM ||
				 ret == -EPROTO);
			FZ_CHECK(st.status_class);
			break;
		}
		check_response(&rsp, max);
		check_params(&neg);
		ixt_neg_pending(&neg);
		ixt_neg_has_offers(&neg);
	}
	free(rsp_data);
	return 0;
}
