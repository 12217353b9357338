// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of drivers/target/iscsi_xt/pdu.c: arbitrary bytes as
 * a BHS and its AHSs, checked in every phase and session state.
 *
 * The input is a 48-byte BHS, then the connection's limits
 * (MaxRecvDataSegmentLength and FirstBurstLength, four bytes each), two
 * serial numbers and a length for the helpers, and the AHS bytes: as
 * many as TotalAHSLength says, zeros where the input runs out.
 *
 * Invariants: ixt_pdu_check_bhs() in each of the 16 combinations of
 * login phase, discovery session, ImmediateData and InitialR2T, with the
 * input's limits, the RFC 7143 defaults and no room for data, returns
 * what a reference reading of its rules returns, with the same reject
 * reason, which it leaves alone on success; ixt_pdu_parse_ahs() agrees
 * with a reference walk of the AHSs and points inside them; the length
 * helpers agree with 64-bit arithmetic; the serial-number comparisons
 * are consistent with each other. ASan sees the BHS and the AHSs in
 * buffers of their exact size.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <asm/byteorder.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/unaligned.h>
#include <iscsi_xt/pdu.h>

#include "fuzz.h"

/* RFC 7143 opcodes and flag bits, as the reference reads the RFC. */
#define REF_NOOP_OUT	0x00
#define REF_SCSI_CMD	0x01
#define REF_TMF		0x02
#define REF_LOGIN	0x03
#define REF_TEXT	0x04
#define REF_DATA_OUT	0x05
#define REF_LOGOUT	0x06
#define REF_SNACK	0x10
#define REF_F		0x80	/* F, and T in a Login Request */
#define REF_R		0x40
#define REF_W		0x20
#define REF_C		0x40	/* Login and Text Requests */
#define REF_I		0x40	/* in the opcode byte */

/* The reason and error ixt_pdu_check_bhs() should give, or 0. */
static int ref_check_bhs(const u8 *b, const struct ixt_pdu_limits *lim,
			 u8 *reason)
{
	u8 op = b[0] & 0x3f, flags = b[1], hlength = b[4];
	u32 dlength = get_unaligned_be24(b + 5);
	bool reserved_itt = get_unaligned_be32(b + 16) == 0xffffffff;
	bool f = flags & REF_F;

	*reason = ISCSI_REASON_PROTOCOL_ERROR;
	if (dlength > lim->max_recv_dlength)
		return -EMSGSIZE;
	switch (op) {
	case REF_NOOP_OUT: case REF_SCSI_CMD: case REF_TMF: case REF_LOGIN:
	case REF_TEXT: case REF_DATA_OUT: case REF_LOGOUT: case REF_SNACK:
		break;
	default:
		*reason = ISCSI_REASON_CMD_NOT_SUPPORTED;
		return -EOPNOTSUPP;
	}
	*reason = ISCSI_REASON_PROTOCOL_ERROR;
	if (lim->login ? op != REF_LOGIN :
	    op == REF_LOGIN ||
	    (lim->discovery && op != REF_TEXT && op != REF_LOGOUT))
		return -EPROTO;
	*reason = IXT_REASON_INVALID_PDU_FIELD;
	if ((hlength && op != REF_SCSI_CMD) ||
	    (dlength && (op == REF_TMF || op == REF_LOGOUT ||
			 op == REF_SNACK)))
		return -EPROTO;
	*reason = IXT_REASON_INVALID_PDU_FIELD;
	if (reserved_itt && op != REF_NOOP_OUT && op != REF_SNACK)
		return -EPROTO;
	if (op == REF_SCSI_CMD) {
		u32 edtl = get_unaligned_be32(b + 20);
		bool r = flags & REF_R, w = flags & REF_W;

		if ((!w && !f) || (edtl && !r && !w))
			return -EPROTO;
		*reason = ISCSI_REASON_PROTOCOL_ERROR;
		if (!f && lim->initial_r2t)
			return -EPROTO;
		if (dlength && (!w || !lim->immediate_data ||
				dlength > lim->first_burst_length ||
				dlength > edtl))
			return -EPROTO;
		return !f && dlength == edtl ? -EPROTO : 0;
	}
	*reason = ISCSI_REASON_PROTOCOL_ERROR;
	switch (op) {
	case REF_NOOP_OUT:
		return f && (!reserved_itt || (b[0] & REF_I)) ? 0 : -EPROTO;
	case REF_LOGIN: {
		u8 csg = (flags >> 2) & 3, nsg = flags & 3;

		if ((f && (flags & REF_C)) || csg >= 2 || (f && nsg == 2))
			return -EPROTO;
		return 0;
	}
	case REF_TEXT:
		return f && (flags & REF_C) ? -EPROTO : 0;
	case REF_LOGOUT:
		return (flags & 0x7f) > 2 ? -EPROTO : 0;
	case REF_SNACK:
		return (flags & 0x0f) > 3 ? -EPROTO : 0;
	default:
		return 0;
	}
}

static void check_bhs(const struct iscsi_hdr *hdr, const u8 *b,
		      const struct ixt_pdu_limits *lim)
{
	u8 reason = 0xee, want_reason = 0xee;
	int ret = ixt_pdu_check_bhs(hdr, lim, &reason);
	int want = ref_check_bhs(b, lim, &want_reason);

	if (ret != want || (ret && reason != want_reason) ||
	    (!ret && reason != 0xee))
		FZ_FAIL("ixt_pdu_check_bhs() %d reason %#x, want %d reason %#x (login %d discovery %d imm %d r2t %d mrdsl %u fbl %u)",
			ret, reason, want, want_reason, lim->login,
			lim->discovery, lim->immediate_data, lim->initial_r2t,
			lim->max_recv_dlength, lim->first_burst_length);
	if (!ret)
		FZ_CHECK(ixt_pdu_opcode_is_initiator(hdr->opcode));
}

/* The AHSs as ixt_pdu_parse_ahs() should read them. */
static int ref_parse_ahs(const u8 *ahs, u32 len, struct ixt_pdu_ahs *out)
{
	u32 off = 0;

	memset(out, 0, sizeof(*out));
	while (off < len) {
		u32 ahs_len = get_unaligned_be16(ahs + off);
		u32 span = (3 + ahs_len + 3) / 4 * 4;
		u8 code = ahs[off + 2] & 0x3f;

		if (span > len - off)
			return -EPROTO;
		if (code == 1) {
			if (out->ecdb || !ahs_len || ahs_len - 1 > 260 - 16)
				return -EPROTO;
			out->ecdb = ahs + off + 4;
			out->ecdb_len = ahs_len - 1;
		} else if (code == 2) {
			if (out->has_bidi_read_len || ahs_len != 5)
				return -EPROTO;
			out->bidi_read_len = get_unaligned_be32(ahs + off + 4);
			out->has_bidi_read_len = true;
		} else if (code < 60) {
			return -EPROTO;
		}
		off += span;
	}
	return 0;
}

static void check_ahs(const u8 *ahs, u32 len)
{
	struct ixt_pdu_ahs got, want;
	u8 reason = 0xee;
	int ret = ixt_pdu_parse_ahs(ahs, len, &got, &reason);

	FZ_CHECK(ret == ref_parse_ahs(ahs, len, &want));
	if (ret) {
		FZ_CHECK(reason == ISCSI_REASON_PROTOCOL_ERROR);
		return;
	}
	FZ_CHECK(reason == 0xee);
	FZ_CHECK(got.ecdb == want.ecdb && got.ecdb_len == want.ecdb_len);
	FZ_CHECK(got.has_bidi_read_len == want.has_bidi_read_len &&
		 got.bidi_read_len == want.bidi_read_len);
	FZ_CHECK(got.ecdb_len <= IXT_PDU_MAX_ECDB_LEN);
	if (got.ecdb)
		FZ_CHECK(got.ecdb >= ahs &&
			 got.ecdb + got.ecdb_len <= ahs + len);
}

static void check_lengths(const struct iscsi_hdr *hdr, u32 dlength)
{
	unsigned int digests;

	for (digests = 0; digests < 4; digests++) {
		bool hd = digests & IXT_PDU_HDIGEST;
		bool dd = digests & IXT_PDU_DDIGEST;
		u64 data = dlength ? dlength + (-dlength & 3ULL) + 4 * dd : 0;
		u64 hlen = 48 + 4ULL * hdr->hlength + 4 * hd;
		u64 bhs_dlen = get_unaligned_be24(hdr->dlength);
		u64 wire = hlen + (bhs_dlen ? bhs_dlen + (-bhs_dlen & 3) +
				   4 * dd : 0);
		u32 len = 0xdeadbeef;
		int ret;

		FZ_CHECK(ixt_pdu_hdr_len(hdr, digests) == hlen);
		ret = ixt_pdu_data_len(dlength, digests, &len);
		FZ_CHECK(data > U32_MAX ? ret == -EOVERFLOW && len == 0xdeadbeef :
			 !ret && len == data);
		ret = ixt_pdu_wire_len(hdr, digests, &len);
		FZ_CHECK(!ret && len == wire);
	}
	FZ_CHECK(ixt_pdu_pad_len(dlength) == (-dlength & 3));
}

static void check_set_dlength(const struct iscsi_hdr *hdr, u32 dlength)
{
	struct iscsi_hdr h = *hdr;

	dlength &= IXT_PDU_MAX_DLENGTH;
	FZ_CHECK(!ixt_pdu_set_dlength(&h, dlength));
	FZ_CHECK(ixt_pdu_dlength(&h) == dlength);
	h.dlength[0] = hdr->dlength[0];
	h.dlength[1] = hdr->dlength[1];
	h.dlength[2] = hdr->dlength[2];
	FZ_CHECK(!memcmp(&h, hdr, sizeof(h)));
}

/* RFC 1982 against signed 32-bit distances; 2^31 apart: unordered. */
static void check_sn(u32 a, u32 b)
{
	u32 d = b - a;
	bool lt = d && d < 0x80000000U, gt = d > 0x80000000U;

	FZ_CHECK(ixt_sn_lt(a, b) == lt && ixt_sn_gt(a, b) == gt);
	FZ_CHECK(ixt_sn_le(a, b) == (lt || !d) &&
		 ixt_sn_ge(a, b) == (gt || !d));
	FZ_CHECK(ixt_sn_lt(b, a) == gt);
	/* A window [a, a + n - 1] holds b exactly when b - a < n. */
	FZ_CHECK(ixt_sn_in_window(b, a, a + (d & 0xffff)) ==
		 (d <= (d & 0xffff)));
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct ixt_pdu_limits lim;
	struct iscsi_hdr *hdr;
	u32 mrdsl, fbl, ahs_len, dlength, sn_a, sn_b;
	unsigned int state, i;
	size_t n, left;
	u8 *bhs, *ahs;

	fz_begin(data, size);
	/* The BHS in a buffer of its own size, zeros where the input ends. */
	bhs = calloc(1, ISCSI_HDR_LEN);
	if (!bhs)
		abort();
	for (i = 0; i < ISCSI_HDR_LEN && fz_left(); i++)
		bhs[i] = fz_u8();
	hdr = (struct iscsi_hdr *)bhs;
	mrdsl = fz_u32();
	fbl = fz_u32();
	dlength = fz_u32();
	sn_a = fz_u32();
	sn_b = fz_u32();

	for (state = 0; state < 16; state++) {
		static const u32 mrdsls[] = { 0, ISCSI_DEF_MAX_RECV_SEG_LEN,
					      IXT_PDU_MAX_DLENGTH };

		lim = (struct ixt_pdu_limits){
			.login = state & 1,
			.discovery = state & 2,
			.immediate_data = state & 4,
			.initial_r2t = state & 8,
		};
		lim.max_recv_dlength = mrdsl;
		lim.first_burst_length = fbl;
		check_bhs(hdr, bhs, &lim);
		for (i = 0; i < ARRAY_SIZE(mrdsls); i++) {
			lim.max_recv_dlength = mrdsls[i];
			lim.first_burst_length = ISCSI_DEF_FIRST_BURST_LEN;
			check_bhs(hdr, bhs, &lim);
		}
	}

	/* The AHSs TotalAHSLength announces, in a buffer of their size. */
	ahs_len = ixt_pdu_ahs_len(hdr);
	FZ_CHECK(ahs_len % 4 == 0 && ahs_len <= IXT_PDU_MAX_AHS_LEN);
	ahs = calloc(1, ahs_len ? ahs_len : 1);
	if (!ahs)
		abort();
	left = fz_left();
	n = left < ahs_len ? left : ahs_len;
	memcpy(ahs, fz_in.data, n);
	check_ahs(ahs, ahs_len);

	check_lengths(hdr, dlength);
	check_set_dlength(hdr, dlength);
	check_sn(sn_a, sn_b);

	free(ahs);
	free(bhs);
	return 0;
}
