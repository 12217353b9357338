// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/iscsi_xt/pdu.c and the inline helpers of
 * include/iscsi_xt/pdu.h: RFC 7143 header vectors, lengths, every reject
 * path of ixt_pdu_check_bhs(), AHS parsing, and RFC 1982 serial-number
 * arithmetic against a 64-bit reference model.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <asm/byteorder.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <iscsi_xt/pdu.h>

#include "ixt_test.h"

/* A BHS, aligned as a receive buffer is, seen as bytes or as any header. */
union bhs {
	u8 b[ISCSI_HDR_LEN];
	struct iscsi_hdr hdr;
	struct iscsi_scsi_req cmd;
	struct iscsi_data data;
	struct iscsi_nopout nop;
	struct iscsi_tm tm;
	struct iscsi_text text;
	struct iscsi_login_req login;
	struct iscsi_logout logout;
	struct iscsi_snack snack;
};

static union bhs bhs_of(const u8 *bytes)
{
	union bhs u;

	memcpy(u.b, bytes, sizeof(u.b));
	return u;
}

static u32 itt_of(itt_t itt)
{
	return be32_to_cpu((__force __be32)itt);
}

static void set_dlength(union bhs *u, u32 dlength)
{
	u->b[5] = dlength >> 16;
	u->b[6] = dlength >> 8;
	u->b[7] = dlength;
}

#define LIMITS(mrdsl, fbl, imm, r2t) {					\
	.max_recv_dlength = (mrdsl), .first_burst_length = (fbl),	\
	.immediate_data = (imm), .initial_r2t = (r2t),			\
}

/* Full feature phase of a normal session, LIO's default parameters. */
static const struct ixt_pdu_limits ffp = LIMITS(8192, 65536, true, true);

/* Login phase: MaxRecvDataSegmentLength is still the default. */
static const struct ixt_pdu_limits login = {
	.max_recv_dlength = ISCSI_DEF_MAX_RECV_SEG_LEN,
	.login = true,
};

/* Full feature phase of a discovery session. */
static const struct ixt_pdu_limits discovery = {
	.max_recv_dlength = 8192,
	.discovery = true,
};

/* What ixt_pdu_check_bhs() must leave in @reason when it accepts. */
#define UNTOUCHED	0xee

#define EXPECT_VERDICT(u, lim, err, why)				\
	do {								\
		int __err = (err);					\
		u8 __reason = UNTOUCHED;				\
		EXPECT_EQ(ixt_pdu_check_bhs(&(u)->hdr, (lim), &__reason), \
			  __err);					\
		EXPECT_EQ(__reason, __err ? (why) : UNTOUCHED);		\
	} while (0)
#define EXPECT_ACCEPT(u, lim)	EXPECT_VERDICT(u, lim, 0, 0)
#define EXPECT_REJECT(u, lim, why) EXPECT_VERDICT(u, lim, -EPROTO, why)

/*
 * RFC 7143 header vectors, byte by byte as the RFC draws them (byte
 * offsets on the left), with the values open-iscsi would send.
 */
static const u8 v_scsi_write[ISCSI_HDR_LEN] = {
/*  0 */	0x01, 0xa1, 0x00, 0x00,	/* SCSI Command; F, W, ATTR simple */
/*  4 */	0x00, 0x00, 0x02, 0x00,	/* TotalAHSLength 0, DSL 512 */
/*  8 */	0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* LUN 1 */
/* 16 */	0x00, 0x00, 0x00, 0x2a,	/* ITT */
/* 20 */	0x00, 0x00, 0x02, 0x00,	/* Expected Data Transfer Length */
/* 24 */	0x00, 0x00, 0x00, 0x07,	/* CmdSN */
/* 28 */	0x00, 0x00, 0x00, 0x03,	/* ExpStatSN */
/* 32 */	0x2a, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, /* WRITE(10) */
/* 40 */	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* 1 block */
};

static const u8 v_scsi_read[ISCSI_HDR_LEN] = {
/*  0 */	0x41, 0xc1, 0x00, 0x00,	/* I, SCSI Command; F, R, simple */
/*  4 */	0x00, 0x00, 0x00, 0x00,	/* no AHS, no data */
/*  8 */	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* LUN 0 */
/* 16 */	0x00, 0x00, 0x00, 0x2b,	/* ITT */
/* 20 */	0x00, 0x00, 0x10, 0x00,	/* EDTL 4096 */
/* 24 */	0x00, 0x00, 0x00, 0x08,	/* CmdSN */
/* 28 */	0x00, 0x00, 0x00, 0x03,	/* ExpStatSN */
/* 32 */	0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* READ(10) */
/* 40 */	0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* 8 blocks */
};

static const u8 v_data_out[ISCSI_HDR_LEN] = {
/*  0 */	0x05, 0x80, 0x00, 0x00,	/* SCSI Data-Out; F */
/*  4 */	0x00, 0x00, 0x20, 0x00,	/* DSL 8192 */
/*  8 */	0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* LUN 1 */
/* 16 */	0x00, 0x00, 0x00, 0x2a,	/* ITT */
/* 20 */	0x00, 0x10, 0x01, 0x23,	/* TTT */
/* 24 */	0x00, 0x00, 0x00, 0x00,	/* reserved */
/* 28 */	0x00, 0x00, 0x00, 0x03,	/* ExpStatSN */
/* 32 */	0x00, 0x00, 0x00, 0x00,	/* reserved */
/* 36 */	0x00, 0x00, 0x00, 0x01,	/* DataSN */
/* 40 */	0x00, 0x00, 0x40, 0x00,	/* Buffer Offset */
/* 44 */	0x00, 0x00, 0x00, 0x00,	/* reserved */
};

static const u8 v_nop_ping[ISCSI_HDR_LEN] = {
/*  0 */	0x40, 0x80, 0x00, 0x00,	/* I, NOP-Out; F */
/*  4 */	0x00, 0x00, 0x00, 0x05,	/* DSL 5: ping data */
/*  8 */	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* LUN */
/* 16 */	0x00, 0x00, 0x01, 0x00,	/* ITT: a NOP-In is wanted */
/* 20 */	0xff, 0xff, 0xff, 0xff,	/* TTT: not an answer */
/* 24 */	0x00, 0x00, 0x00, 0x09,	/* CmdSN */
/* 28 */	0x00, 0x00, 0x00, 0x03,	/* ExpStatSN */
/* 32 */	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
/* 40 */	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const u8 v_nop_reply[ISCSI_HDR_LEN] = {
/*  0 */	0x40, 0x80, 0x00, 0x00,	/* I, NOP-Out; F */
/*  4 */	0x00, 0x00, 0x00, 0x00,
/*  8 */	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
/* 16 */	0xff, 0xff, 0xff, 0xff,	/* ITT: no NOP-In wanted */
/* 20 */	0x00, 0x00, 0x00, 0x77,	/* TTT of the NOP-In answered */
/* 24 */	0x00, 0x00, 0x00, 0x09,	/* CmdSN */
/* 28 */	0x00, 0x00, 0x00, 0x04,	/* ExpStatSN */
/* 32 */	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
/* 40 */	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const u8 v_login[ISCSI_HDR_LEN] = {
/*  0 */	0x43, 0x87, 0x00, 0x00,	/* I, Login; T, CSG 1, NSG 3; vers */
/*  4 */	0x00, 0x00, 0x01, 0x23,	/* DSL 291 */
/*  8 */	0x00, 0x02, 0x3d, 0x00, 0x00, 0x01, /* ISID (OUI format) */
/* 14 */	0x00, 0x00,		/* TSIH: new session */
/* 16 */	0x00, 0x00, 0x00, 0x00,	/* ITT */
/* 20 */	0x00, 0x01, 0x00, 0x00,	/* CID, reserved */
/* 24 */	0x00, 0x00, 0x00, 0x01,	/* CmdSN */
/* 28 */	0x00, 0x00, 0x00, 0x00,	/* ExpStatSN */
/* 32 */	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
/* 40 */	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const u8 v_text[ISCSI_HDR_LEN] = {
/*  0 */	0x04, 0x80, 0x00, 0x00,	/* Text; F */
/*  4 */	0x00, 0x00, 0x00, 0x10,	/* DSL 16: "SendTargets=All" */
/*  8 */	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
/* 16 */	0x00, 0x00, 0x00, 0x11,	/* ITT */
/* 20 */	0xff, 0xff, 0xff, 0xff,	/* TTT */
/* 24 */	0x00, 0x00, 0x00, 0x02,	/* CmdSN */
/* 28 */	0x00, 0x00, 0x00, 0x02,	/* ExpStatSN */
/* 32 */	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
/* 40 */	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const u8 v_logout[ISCSI_HDR_LEN] = {
/*  0 */	0x46, 0x80, 0x00, 0x00,	/* I, Logout; F, close the session */
/*  4 */	0x00, 0x00, 0x00, 0x00,
/*  8 */	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
/* 16 */	0x00, 0x00, 0x00, 0x12,	/* ITT */
/* 20 */	0x00, 0x01, 0x00, 0x00,	/* CID, reserved */
/* 24 */	0x00, 0x00, 0x00, 0x03,	/* CmdSN */
/* 28 */	0x00, 0x00, 0x00, 0x03,	/* ExpStatSN */
/* 32 */	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
/* 40 */	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const u8 v_tmf[ISCSI_HDR_LEN] = {
/*  0 */	0x42, 0x81, 0x00, 0x00,	/* I, TMF Request; F, ABORT TASK */
/*  4 */	0x00, 0x00, 0x00, 0x00,
/*  8 */	0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* LUN 1 */
/* 16 */	0x00, 0x00, 0x00, 0x30,	/* ITT */
/* 20 */	0x00, 0x00, 0x00, 0x2a,	/* Referenced Task Tag */
/* 24 */	0x00, 0x00, 0x00, 0x0a,	/* CmdSN */
/* 28 */	0x00, 0x00, 0x00, 0x03,	/* ExpStatSN */
/* 32 */	0x00, 0x00, 0x00, 0x07,	/* RefCmdSN */
/* 36 */	0x00, 0x00, 0x00, 0x00,	/* ExpDataSN */
/* 40 */	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static const u8 v_snack[ISCSI_HDR_LEN] = {
/*  0 */	0x10, 0x81, 0x00, 0x00,	/* SNACK; F, type 1: Status */
/*  4 */	0x00, 0x00, 0x00, 0x00,
/*  8 */	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
/* 16 */	0xff, 0xff, 0xff, 0xff,	/* ITT: reserved for Status SNACK */
/* 20 */	0x00, 0x00, 0x00, 0x00,	/* TTT / SNACK Tag */
/* 24 */	0x00, 0x00, 0x00, 0x00,	/* reserved */
/* 28 */	0x00, 0x00, 0x00, 0x05,	/* ExpStatSN */
/* 32 */	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
/* 40 */	0x00, 0x00, 0x00, 0x03,	/* BegRun */
/* 44 */	0x00, 0x00, 0x00, 0x02,	/* RunLength */
};

/* Every vector, with the limits under which it is valid. */
static const struct {
	const char *name;
	const u8 *bytes;
	const struct ixt_pdu_limits *lim;
} vectors[] = {
	{ "scsi_write", v_scsi_write, &ffp },
	{ "scsi_read", v_scsi_read, &ffp },
	{ "data_out", v_data_out, &ffp },
	{ "nop_ping", v_nop_ping, &ffp },
	{ "nop_reply", v_nop_reply, &ffp },
	{ "login", v_login, &login },
	{ "text", v_text, &ffp },
	{ "logout", v_logout, &ffp },
	{ "tmf", v_tmf, &ffp },
	{ "snack", v_snack, &ffp },
};

static u32 wire_len(const union bhs *u, unsigned int digests)
{
	u32 len = 0xdeadbeef;

	EXPECT_EQ(ixt_pdu_wire_len(&u->hdr, digests, &len), 0);
	return len;
}

TEST(bhs_layout_matches_rfc7143)
{
	EXPECT_EQ(offsetof(struct iscsi_hdr, hlength), 4);
	EXPECT_EQ(offsetof(struct iscsi_hdr, dlength), 5);
	EXPECT_EQ(offsetof(struct iscsi_hdr, lun), 8);
	EXPECT_EQ(offsetof(struct iscsi_hdr, itt), 16);
	EXPECT_EQ(offsetof(struct iscsi_scsi_req, data_length), 20);
	EXPECT_EQ(offsetof(struct iscsi_scsi_req, cmdsn), 24);
	EXPECT_EQ(offsetof(struct iscsi_scsi_req, exp_statsn), 28);
	EXPECT_EQ(offsetof(struct iscsi_scsi_req, cdb), 32);
	EXPECT_EQ(offsetof(struct iscsi_data, ttt), 20);
	EXPECT_EQ(offsetof(struct iscsi_data, datasn), 36);
	EXPECT_EQ(offsetof(struct iscsi_data, offset), 40);
	EXPECT_EQ(offsetof(struct iscsi_login_req, isid), 8);
	EXPECT_EQ(offsetof(struct iscsi_login_req, tsih), 14);
	EXPECT_EQ(offsetof(struct iscsi_login_req, cid), 20);
	EXPECT_EQ(offsetof(struct iscsi_tm, rtt), 20);
	EXPECT_EQ(offsetof(struct iscsi_tm, refcmdsn), 32);
	EXPECT_EQ(offsetof(struct iscsi_logout, cid), 20);
	EXPECT_EQ(offsetof(struct iscsi_snack, begrun), 40);
	EXPECT_EQ(offsetof(struct iscsi_snack, runlength), 44);
	EXPECT_EQ(sizeof(union bhs), ISCSI_HDR_LEN);
}

TEST(vector_scsi_command_write)
{
	union bhs u = bhs_of(v_scsi_write);

	EXPECT_EQ(ixt_pdu_opcode(&u.hdr), ISCSI_OP_SCSI_CMD);
	EXPECT_FALSE(ixt_pdu_is_immediate(&u.hdr));
	EXPECT_TRUE(ixt_pdu_is_final(&u.hdr));
	EXPECT_EQ(ixt_pdu_dlength(&u.hdr), 512);
	EXPECT_EQ(ixt_pdu_ahs_len(&u.hdr), 0);
	EXPECT_EQ(u.cmd.lun.scsi_lun[1], 1);
	EXPECT_EQ(itt_of(u.cmd.itt), 0x2a);
	EXPECT_EQ(be32_to_cpu(u.cmd.data_length), 512);
	EXPECT_EQ(be32_to_cpu(u.cmd.cmdsn), 7);
	EXPECT_EQ(be32_to_cpu(u.cmd.exp_statsn), 3);
	EXPECT_EQ(u.cmd.cdb[0], 0x2a);
	EXPECT_EQ(u.cmd.flags & ISCSI_FLAG_CMD_ATTR_MASK, ISCSI_ATTR_SIMPLE);
	EXPECT_EQ(wire_len(&u, 0), 48 + 512);
	EXPECT_EQ(wire_len(&u, IXT_PDU_HDIGEST | IXT_PDU_DDIGEST),
		  48 + 4 + 512 + 4);
	EXPECT_ACCEPT(&u, &ffp);
}

TEST(vector_scsi_command_read_immediate)
{
	union bhs u = bhs_of(v_scsi_read);

	EXPECT_EQ(ixt_pdu_opcode(&u.hdr), ISCSI_OP_SCSI_CMD);
	EXPECT_TRUE(ixt_pdu_is_immediate(&u.hdr));
	EXPECT_TRUE(ixt_pdu_is_final(&u.hdr));
	EXPECT_TRUE(u.cmd.flags & ISCSI_FLAG_CMD_READ);
	EXPECT_EQ(ixt_pdu_dlength(&u.hdr), 0);
	EXPECT_EQ(be32_to_cpu(u.cmd.data_length), 4096);
	EXPECT_EQ(u.cmd.cdb[0], 0x28);
	EXPECT_EQ(wire_len(&u, IXT_PDU_DDIGEST), 48);
	EXPECT_EQ(wire_len(&u, IXT_PDU_HDIGEST | IXT_PDU_DDIGEST), 52);
	EXPECT_ACCEPT(&u, &ffp);
}

TEST(vector_data_out)
{
	union bhs u = bhs_of(v_data_out);

	EXPECT_EQ(ixt_pdu_opcode(&u.hdr), ISCSI_OP_SCSI_DATA_OUT);
	EXPECT_TRUE(ixt_pdu_is_final(&u.hdr));
	EXPECT_EQ(ixt_pdu_dlength(&u.hdr), 8192);
	EXPECT_EQ(itt_of(u.data.itt), 0x2a);
	EXPECT_EQ(be32_to_cpu(u.data.ttt), 0x00100123);
	EXPECT_EQ(be32_to_cpu(u.data.exp_statsn), 3);
	EXPECT_EQ(be32_to_cpu(u.data.datasn), 1);
	EXPECT_EQ(be32_to_cpu(u.data.offset), 0x4000);
	EXPECT_EQ(wire_len(&u, IXT_PDU_DDIGEST), 48 + 8192 + 4);
	EXPECT_ACCEPT(&u, &ffp);
}

TEST(vector_nop_out_ping)
{
	union bhs u = bhs_of(v_nop_ping);

	EXPECT_EQ(ixt_pdu_opcode(&u.hdr), ISCSI_OP_NOOP_OUT);
	EXPECT_TRUE(ixt_pdu_is_immediate(&u.hdr));
	EXPECT_EQ(ixt_pdu_dlength(&u.hdr), 5);
	EXPECT_EQ(itt_of(u.nop.itt), 0x100);
	EXPECT_EQ(be32_to_cpu(u.nop.ttt), ISCSI_RESERVED_TAG);
	EXPECT_EQ(be32_to_cpu(u.nop.cmdsn), 9);
	/* 5 bytes of ping data take 8 on the wire. */
	EXPECT_EQ(wire_len(&u, 0), 48 + 8);
	EXPECT_EQ(wire_len(&u, IXT_PDU_HDIGEST), 48 + 4 + 8);
	EXPECT_EQ(wire_len(&u, IXT_PDU_DDIGEST), 48 + 8 + 4);
	EXPECT_EQ(wire_len(&u, IXT_PDU_HDIGEST | IXT_PDU_DDIGEST), 64);
	EXPECT_ACCEPT(&u, &ffp);
}

TEST(vector_nop_out_reply)
{
	union bhs u = bhs_of(v_nop_reply);

	EXPECT_TRUE(u.nop.itt == RESERVED_ITT);
	EXPECT_EQ(be32_to_cpu(u.nop.ttt), 0x77);
	EXPECT_EQ(be32_to_cpu(u.nop.exp_statsn), 4);
	EXPECT_EQ(wire_len(&u, IXT_PDU_DDIGEST), 48);
	EXPECT_ACCEPT(&u, &ffp);
}

TEST(vector_login)
{
	union bhs u = bhs_of(v_login);

	EXPECT_EQ(ixt_pdu_opcode(&u.hdr), ISCSI_OP_LOGIN);
	EXPECT_TRUE(ixt_pdu_is_immediate(&u.hdr));
	EXPECT_TRUE(ixt_pdu_is_final(&u.hdr));	/* the T bit */
	EXPECT_EQ(ISCSI_LOGIN_CURRENT_STAGE(u.login.flags),
		  ISCSI_OP_PARMS_NEGOTIATION_STAGE);
	EXPECT_EQ(ISCSI_LOGIN_NEXT_STAGE(u.login.flags),
		  ISCSI_FULL_FEATURE_PHASE);
	EXPECT_EQ(ixt_pdu_dlength(&u.hdr), 291);
	EXPECT_EQ(u.login.isid[2], 0x3d);
	EXPECT_EQ(u.login.isid[5], 0x01);
	EXPECT_EQ(be16_to_cpu(u.login.tsih), 0);
	EXPECT_EQ(be16_to_cpu(u.login.cid), 1);
	EXPECT_EQ(be32_to_cpu(u.login.cmdsn), 1);
	EXPECT_EQ(wire_len(&u, 0), 48 + 292);
	EXPECT_ACCEPT(&u, &login);
}

TEST(vector_text)
{
	union bhs u = bhs_of(v_text);

	EXPECT_EQ(ixt_pdu_opcode(&u.hdr), ISCSI_OP_TEXT);
	EXPECT_FALSE(ixt_pdu_is_immediate(&u.hdr));
	EXPECT_EQ(ixt_pdu_dlength(&u.hdr), 16);
	EXPECT_EQ(itt_of(u.text.itt), 0x11);
	EXPECT_EQ(be32_to_cpu(u.text.ttt), ISCSI_RESERVED_TAG);
	EXPECT_EQ(be32_to_cpu(u.text.cmdsn), 2);
	EXPECT_EQ(wire_len(&u, IXT_PDU_HDIGEST | IXT_PDU_DDIGEST),
		  48 + 4 + 16 + 4);
	EXPECT_ACCEPT(&u, &ffp);
	EXPECT_ACCEPT(&u, &discovery);
}

TEST(vector_logout)
{
	union bhs u = bhs_of(v_logout);

	EXPECT_EQ(ixt_pdu_opcode(&u.hdr), ISCSI_OP_LOGOUT);
	EXPECT_EQ(u.logout.flags & ISCSI_FLAG_LOGOUT_REASON_MASK,
		  ISCSI_LOGOUT_REASON_CLOSE_SESSION);
	EXPECT_EQ(itt_of(u.logout.itt), 0x12);
	EXPECT_EQ(be16_to_cpu(u.logout.cid), 1);
	EXPECT_EQ(be32_to_cpu(u.logout.cmdsn), 3);
	EXPECT_EQ(wire_len(&u, IXT_PDU_DDIGEST), 48);
	EXPECT_ACCEPT(&u, &ffp);
	EXPECT_ACCEPT(&u, &discovery);
}

TEST(vector_task_management)
{
	union bhs u = bhs_of(v_tmf);

	EXPECT_EQ(ixt_pdu_opcode(&u.hdr), ISCSI_OP_SCSI_TMFUNC);
	EXPECT_TRUE(ixt_pdu_is_immediate(&u.hdr));
	EXPECT_EQ(ISCSI_TM_FUNC_VALUE(&u.tm), ISCSI_TM_FUNC_ABORT_TASK);
	EXPECT_EQ(itt_of(u.tm.itt), 0x30);
	EXPECT_EQ(itt_of(u.tm.rtt), 0x2a);
	EXPECT_EQ(be32_to_cpu(u.tm.refcmdsn), 7);
	EXPECT_EQ(wire_len(&u, IXT_PDU_HDIGEST), 52);
	EXPECT_ACCEPT(&u, &ffp);
}

TEST(vector_snack)
{
	union bhs u = bhs_of(v_snack);

	EXPECT_EQ(ixt_pdu_opcode(&u.hdr), ISCSI_OP_SNACK);
	EXPECT_EQ(u.snack.flags & ISCSI_FLAG_SNACK_TYPE_MASK,
		  ISCSI_FLAG_SNACK_TYPE_STATUS);
	EXPECT_TRUE(u.snack.itt == RESERVED_ITT);
	EXPECT_EQ(be32_to_cpu(u.snack.exp_statsn), 5);
	EXPECT_EQ(be32_to_cpu(u.snack.begrun), 3);
	EXPECT_EQ(be32_to_cpu(u.snack.runlength), 2);
	EXPECT_EQ(wire_len(&u, 0), 48);
	EXPECT_ACCEPT(&u, &ffp);
}

TEST(dlength_24bit_edges)
{
	static const struct {
		u8 b[3];
		u32 len;
	} cases[] = {
		{ { 0x00, 0x00, 0x00 }, 0 },
		{ { 0x00, 0x00, 0x01 }, 1 },
		{ { 0x00, 0x01, 0x00 }, 0x100 },
		{ { 0x01, 0x00, 0x00 }, 0x10000 },
		{ { 0x80, 0x00, 0x00 }, 0x800000 },
		{ { 0x12, 0x34, 0x56 }, 0x123456 },
		{ { 0xff, 0xff, 0xff }, 0xffffff },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		union bhs u = bhs_of(v_nop_reply);
		union bhs w = bhs_of(v_nop_reply);

		IXT_CASE("%#x", cases[i].len);
		memcpy(u.hdr.dlength, cases[i].b, 3);
		EXPECT_EQ(ixt_pdu_dlength(&u.hdr), cases[i].len);
		/* Setting writes the same three bytes and nothing else. */
		EXPECT_EQ(ixt_pdu_set_dlength(&w.hdr, cases[i].len), 0);
		EXPECT_EQ(memcmp(u.b, w.b, sizeof(u.b)), 0);
	}
	EXPECT_EQ(IXT_PDU_MAX_DLENGTH, ISCSI_MAX_MAX_RECV_SEG_LEN);
}

TEST(set_dlength_refuses_25_bits)
{
	union bhs u = bhs_of(v_nop_ping);
	int ret = 0;

	EXPECT_WARNS(1, ret = ixt_pdu_set_dlength(&u.hdr, 0x1000000));
	EXPECT_EQ(ret, -EINVAL);
	EXPECT_WARNS(1, ret = ixt_pdu_set_dlength(&u.hdr, U32_MAX));
	EXPECT_EQ(ret, -EINVAL);
	EXPECT_EQ(memcmp(u.b, v_nop_ping, sizeof(u.b)), 0);
}

TEST(pad_len)
{
	static const u32 cases[][2] = {
		{ 0, 0 }, { 1, 3 }, { 2, 2 }, { 3, 1 }, { 4, 0 }, { 5, 3 },
		{ 291, 1 }, { 0xffffff, 1 }, { 0xfffffffc, 0 },
		{ 0xfffffffd, 3 }, { U32_MAX, 1 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		IXT_CASE("%#x", cases[i][0]);
		EXPECT_EQ(ixt_pdu_pad_len(cases[i][0]), cases[i][1]);
	}
}

TEST(ahs_len_in_words)
{
	union bhs u = bhs_of(v_scsi_read);

	EXPECT_EQ(ixt_pdu_ahs_len(&u.hdr), 0);
	u.hdr.hlength = 1;
	EXPECT_EQ(ixt_pdu_ahs_len(&u.hdr), 4);
	u.hdr.hlength = 255;
	EXPECT_EQ(ixt_pdu_ahs_len(&u.hdr), 1020);
	EXPECT_EQ(ixt_pdu_ahs_len(&u.hdr), IXT_PDU_MAX_AHS_LEN);
}

TEST(hdr_len_digests)
{
	union bhs u = bhs_of(v_scsi_read);

	EXPECT_EQ(ixt_pdu_hdr_len(&u.hdr, 0), 48);
	EXPECT_EQ(ixt_pdu_hdr_len(&u.hdr, IXT_PDU_HDIGEST), 52);
	EXPECT_EQ(ixt_pdu_hdr_len(&u.hdr, IXT_PDU_DDIGEST), 48);
	EXPECT_EQ(ixt_pdu_hdr_len(&u.hdr, 0x4), 48);	/* unknown bit */
	u.hdr.hlength = 2;
	EXPECT_EQ(ixt_pdu_hdr_len(&u.hdr, 0), 56);
	EXPECT_EQ(ixt_pdu_hdr_len(&u.hdr, IXT_PDU_HDIGEST), 60);
	u.hdr.hlength = 255;
	EXPECT_EQ(ixt_pdu_hdr_len(&u.hdr, IXT_PDU_HDIGEST), 48 + 1020 + 4);
}

TEST(data_len_digests)
{
	static const struct {
		u32 dlength;
		unsigned int digests;
		u32 len;
	} cases[] = {
		{ 0, 0, 0 },
		/* An empty data segment has no digest either. */
		{ 0, IXT_PDU_DDIGEST, 0 },
		{ 1, 0, 4 },
		{ 1, IXT_PDU_DDIGEST, 8 },
		{ 1, IXT_PDU_HDIGEST, 4 },
		{ 4, IXT_PDU_DDIGEST, 8 },
		{ 5, IXT_PDU_HDIGEST | IXT_PDU_DDIGEST, 12 },
		{ 8192, IXT_PDU_DDIGEST, 8196 },
		{ 0xffffff, 0, 0x1000000 },
		{ 0xffffff, IXT_PDU_DDIGEST, 0x1000004 },
		{ 0xfffffff8, IXT_PDU_DDIGEST, 0xfffffffc },
		{ 0xfffffffc, 0, 0xfffffffc },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		u32 len = 0xdeadbeef;

		IXT_CASE("%#x/%u", cases[i].dlength, cases[i].digests);
		EXPECT_EQ(ixt_pdu_data_len(cases[i].dlength, cases[i].digests,
					   &len), 0);
		EXPECT_EQ(len, cases[i].len);
	}
}

TEST(data_len_overflow)
{
	static const struct {
		u32 dlength;
		unsigned int digests;
	} cases[] = {
		{ U32_MAX, 0 },			/* padding overflows */
		{ 0xfffffffd, 0 },
		{ 0xfffffffc, IXT_PDU_DDIGEST },	/* digest overflows */
		{ 0xfffffff9, IXT_PDU_DDIGEST },	/* both together */
		{ U32_MAX, IXT_PDU_DDIGEST },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		u32 len = 0xdeadbeef;

		IXT_CASE("%#x/%u", cases[i].dlength, cases[i].digests);
		EXPECT_EQ(ixt_pdu_data_len(cases[i].dlength, cases[i].digests,
					   &len), -EOVERFLOW);
		EXPECT_EQ(len, 0xdeadbeef);
	}
}

TEST(wire_len_largest_pdu)
{
	union bhs u = bhs_of(v_scsi_write);
	u64 want = 48 + 1020 + 4 + 0xffffffULL + 1 + 4;

	u.hdr.hlength = 255;
	set_dlength(&u, 0xffffff);
	EXPECT_EQ(wire_len(&u, IXT_PDU_HDIGEST | IXT_PDU_DDIGEST), want);
	EXPECT_EQ(wire_len(&u, 0), 48 + 1020 + 0x1000000);
	EXPECT_EQ(wire_len(&u, 0),
		  ixt_pdu_hdr_len(&u.hdr, 0) + 0xffffff + 1);
}

TEST(opcode_classification)
{
	unsigned int v;

	for (v = 0; v <= 0xff; v++) {
		u8 op = v & ISCSI_OPCODE_MASK;
		bool want = op <= ISCSI_OP_LOGOUT || op == ISCSI_OP_SNACK ||
			    (op >= ISCSI_OP_VENDOR1_CMD &&
			     op <= ISCSI_OP_VENDOR3_CMD);

		IXT_CASE("%#x", v);
		EXPECT_EQ(ixt_pdu_opcode_is_initiator(v), want);
	}
	EXPECT_FALSE(ixt_pdu_opcode_is_initiator(ISCSI_OP_VENDOR4_CMD));
	EXPECT_FALSE(ixt_pdu_opcode_is_initiator(ISCSI_OP_NOOP_IN));
	EXPECT_FALSE(ixt_pdu_opcode_is_initiator(ISCSI_OP_REJECT));
}

TEST(immediate_and_final_bits)
{
	union bhs u = bhs_of(v_nop_reply);

	u.hdr.opcode = ISCSI_OP_SCSI_CMD;
	EXPECT_FALSE(ixt_pdu_is_immediate(&u.hdr));
	u.hdr.opcode = ISCSI_OP_SCSI_CMD | ISCSI_OP_IMMEDIATE;
	EXPECT_TRUE(ixt_pdu_is_immediate(&u.hdr));
	EXPECT_EQ(ixt_pdu_opcode(&u.hdr), ISCSI_OP_SCSI_CMD);
	/* The reserved top bit is neither I nor part of the opcode. */
	u.hdr.opcode = 0x80 | ISCSI_OP_TEXT;
	EXPECT_FALSE(ixt_pdu_is_immediate(&u.hdr));
	EXPECT_EQ(ixt_pdu_opcode(&u.hdr), ISCSI_OP_TEXT);
	u.hdr.flags = 0x80;
	EXPECT_TRUE(ixt_pdu_is_final(&u.hdr));
	u.hdr.flags = 0x7f;
	EXPECT_FALSE(ixt_pdu_is_final(&u.hdr));
}

TEST(reject_unsupported_opcodes)
{
	static const struct ixt_pdu_limits *lims[] = {
		&ffp, &login, &discovery,
	};
	unsigned int op;
	size_t l;

	for (op = 0; op <= ISCSI_OPCODE_MASK; op++) {
		bool ours = op <= ISCSI_OP_LOGOUT || op == ISCSI_OP_SNACK;

		for (l = 0; l < ARRAY_SIZE(lims); l++) {
			union bhs u = bhs_of(v_nop_reply);
			u8 reason = UNTOUCHED;
			int ret;

			IXT_CASE("opcode %#x, limits %zu", op, l);
			u.hdr.opcode = op | ISCSI_OP_IMMEDIATE;
			ret = ixt_pdu_check_bhs(&u.hdr, lims[l], &reason);
			if (ours) {
				EXPECT_NE(ret, -EOPNOTSUPP);
				continue;
			}
			EXPECT_EQ(ret, -EOPNOTSUPP);
			EXPECT_EQ(reason, ISCSI_REASON_CMD_NOT_SUPPORTED);
		}
	}
}

TEST(reject_wrong_phase)
{
	struct ixt_pdu_limits login_disc = login;
	size_t i;

	login_disc.discovery = true;
	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		union bhs u = bhs_of(vectors[i].bytes);
		u8 op = ixt_pdu_opcode(&u.hdr);
		bool is_login = op == ISCSI_OP_LOGIN;
		bool disc_ok = op == ISCSI_OP_TEXT || op == ISCSI_OP_LOGOUT;

		IXT_CASE("%s", vectors[i].name);
		if (is_login) {
			EXPECT_REJECT(&u, &ffp, ISCSI_REASON_PROTOCOL_ERROR);
			EXPECT_REJECT(&u, &discovery,
				      ISCSI_REASON_PROTOCOL_ERROR);
			EXPECT_ACCEPT(&u, &login_disc);
			continue;
		}
		EXPECT_REJECT(&u, &login, ISCSI_REASON_PROTOCOL_ERROR);
		EXPECT_REJECT(&u, &login_disc, ISCSI_REASON_PROTOCOL_ERROR);
		if (disc_ok)
			EXPECT_ACCEPT(&u, &discovery);
		else
			EXPECT_REJECT(&u, &discovery,
				      ISCSI_REASON_PROTOCOL_ERROR);
	}
}

TEST(reject_ahs_where_none_is_defined)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		union bhs u = bhs_of(vectors[i].bytes);

		IXT_CASE("%s", vectors[i].name);
		u.hdr.hlength = 1;
		if (ixt_pdu_opcode(&u.hdr) == ISCSI_OP_SCSI_CMD)
			EXPECT_ACCEPT(&u, vectors[i].lim);
		else
			EXPECT_REJECT(&u, vectors[i].lim,
				      IXT_REASON_INVALID_PDU_FIELD);
		u.hdr.hlength = 255;
		if (ixt_pdu_opcode(&u.hdr) != ISCSI_OP_SCSI_CMD)
			EXPECT_REJECT(&u, vectors[i].lim,
				      IXT_REASON_INVALID_PDU_FIELD);
	}
}

TEST(reject_data_where_none_is_defined)
{
	const u8 *none[] = { v_tmf, v_logout, v_snack };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(none); i++) {
		union bhs u = bhs_of(none[i]);

		IXT_CASE("opcode %#x", ixt_pdu_opcode(&u.hdr));
		set_dlength(&u, 1);
		EXPECT_REJECT(&u, &ffp, IXT_REASON_INVALID_PDU_FIELD);
		set_dlength(&u, 8192);
		EXPECT_REJECT(&u, &ffp, IXT_REASON_INVALID_PDU_FIELD);
		/* Over MaxRecvDataSegmentLength: that rule comes first. */
		set_dlength(&u, 0xffffff);
		EXPECT_VERDICT(&u, &ffp, -EMSGSIZE,
			       ISCSI_REASON_PROTOCOL_ERROR);
	}
}

TEST(reject_data_beyond_max_recv_dlength)
{
	/* Lax limits elsewhere, so that only MaxRecvDataSegmentLength bites. */
	struct ixt_pdu_limits lim = LIMITS(8192, U32_MAX, true, false);
	const u8 *with_data[] = { v_scsi_write, v_data_out, v_nop_ping,
				  v_text };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(with_data) + 1; i++) {
		bool is_login = i == ARRAY_SIZE(with_data);
		union bhs u = bhs_of(is_login ? v_login : with_data[i]);

		lim.login = is_login;
		IXT_CASE("opcode %#x", ixt_pdu_opcode(&u.hdr));
		/* EDTL of the SCSI Command; a tag or reserved elsewhere. */
		u.cmd.data_length = cpu_to_be32(U32_MAX);
		set_dlength(&u, 8192);
		EXPECT_ACCEPT(&u, &lim);
		set_dlength(&u, 8193);
		EXPECT_VERDICT(&u, &lim, -EMSGSIZE,
			       ISCSI_REASON_PROTOCOL_ERROR);
		set_dlength(&u, 0xffffff);
		EXPECT_VERDICT(&u, &lim, -EMSGSIZE,
			       ISCSI_REASON_PROTOCOL_ERROR);
		lim.max_recv_dlength = ISCSI_MAX_MAX_RECV_SEG_LEN;
		EXPECT_ACCEPT(&u, &lim);
		lim.max_recv_dlength = 0;
		set_dlength(&u, 1);
		EXPECT_VERDICT(&u, &lim, -EMSGSIZE,
			       ISCSI_REASON_PROTOCOL_ERROR);
		lim.max_recv_dlength = 8192;
	}
}

TEST(reject_reserved_itt)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		union bhs u = bhs_of(vectors[i].bytes);
		u8 op = ixt_pdu_opcode(&u.hdr);

		IXT_CASE("%s", vectors[i].name);
		u.hdr.itt = RESERVED_ITT;
		if (op == ISCSI_OP_NOOP_OUT || op == ISCSI_OP_SNACK)
			EXPECT_ACCEPT(&u, vectors[i].lim);
		else
			EXPECT_REJECT(&u, vectors[i].lim,
				      IXT_REASON_INVALID_PDU_FIELD);
	}
}

TEST(reject_scsi_command_flags)
{
	enum { F = ISCSI_FLAG_CMD_FINAL, R = ISCSI_FLAG_CMD_READ,
	       W = ISCSI_FLAG_CMD_WRITE };
	static const struct {
		const char *name;
		u8 flags;
		u32 dlength;
		u32 edtl;
		struct ixt_pdu_limits lim;
		u8 reason;	/* 0: accepted */
	} cases[] = {
		{ "read", F | R, 0, 4096, LIMITS(8192, 65536, true, true), 0 },
		{ "write, all immediate", F | W, 512, 512,
		  LIMITS(8192, 65536, true, true), 0 },
		{ "write, all solicited", F | W, 0, 4096,
		  LIMITS(8192, 65536, true, true), 0 },
		{ "write, part immediate", F | W, 512, 4096,
		  LIMITS(8192, 65536, true, true), 0 },
		{ "write, unsolicited Data-Out follows", W, 512, 4096,
		  LIMITS(8192, 65536, true, false), 0 },
		{ "no data (Test Unit Ready)", F, 0, 0,
		  LIMITS(8192, 65536, true, true), 0 },
		{ "R and W with EDTL 0", F | R | W, 0, 0,
		  LIMITS(8192, 65536, true, true), 0 },
		{ "immediate data == FirstBurstLength", F | W, 512, 4096,
		  LIMITS(8192, 512, true, true), 0 },
		{ "read without F", R, 0, 4096,
		  LIMITS(8192, 65536, true, false),
		  IXT_REASON_INVALID_PDU_FIELD },
		{ "neither R nor W without F", 0, 0, 0,
		  LIMITS(8192, 65536, true, false),
		  IXT_REASON_INVALID_PDU_FIELD },
		{ "EDTL without R or W", F, 0, 512,
		  LIMITS(8192, 65536, true, true),
		  IXT_REASON_INVALID_PDU_FIELD },
		{ "unsolicited Data-Out with InitialR2T=Yes", W, 512, 4096,
		  LIMITS(8192, 65536, true, true),
		  ISCSI_REASON_PROTOCOL_ERROR },
		{ "immediate data on a read", F | R, 512, 4096,
		  LIMITS(8192, 65536, true, true),
		  ISCSI_REASON_PROTOCOL_ERROR },
		{ "immediate data with ImmediateData=No", F | W, 512, 4096,
		  LIMITS(8192, 65536, false, true),
		  ISCSI_REASON_PROTOCOL_ERROR },
		{ "immediate data > FirstBurstLength", F | W, 513, 4096,
		  LIMITS(8192, 512, true, true),
		  ISCSI_REASON_PROTOCOL_ERROR },
		{ "immediate data > EDTL", F | W, 1024, 512,
		  LIMITS(8192, 65536, true, true),
		  ISCSI_REASON_PROTOCOL_ERROR },
		{ "all data immediate, F clear", W, 512, 512,
		  LIMITS(8192, 65536, true, false),
		  ISCSI_REASON_PROTOCOL_ERROR },
		{ "empty write, F clear", W, 0, 0,
		  LIMITS(8192, 65536, true, false),
		  ISCSI_REASON_PROTOCOL_ERROR },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		union bhs u = bhs_of(v_scsi_write);

		IXT_CASE("%s", cases[i].name);
		u.cmd.flags = cases[i].flags | ISCSI_ATTR_SIMPLE;
		set_dlength(&u, cases[i].dlength);
		u.cmd.data_length = cpu_to_be32(cases[i].edtl);
		if (cases[i].reason)
			EXPECT_REJECT(&u, &cases[i].lim, cases[i].reason);
		else
			EXPECT_ACCEPT(&u, &cases[i].lim);
	}
}

TEST(reject_nop_out_flags)
{
	union bhs u = bhs_of(v_nop_ping);

	u.nop.flags = 0;
	EXPECT_REJECT(&u, &ffp, ISCSI_REASON_PROTOCOL_ERROR);
	u = bhs_of(v_nop_reply);
	u.nop.flags = 0;
	EXPECT_REJECT(&u, &ffp, ISCSI_REASON_PROTOCOL_ERROR);

	/* No NOP-In wanted: then it must be immediate. */
	u = bhs_of(v_nop_reply);
	u.nop.opcode = ISCSI_OP_NOOP_OUT;
	EXPECT_REJECT(&u, &ffp, ISCSI_REASON_PROTOCOL_ERROR);
	/* A ping that wants a NOP-In may go either way. */
	u = bhs_of(v_nop_ping);
	u.nop.opcode = ISCSI_OP_NOOP_OUT;
	EXPECT_ACCEPT(&u, &ffp);
}

TEST(reject_login_flags)
{
	static const struct {
		u8 flags;
		bool ok;
	} cases[] = {
		{ 0x81, true },		/* T, security -> operational */
		{ 0x83, true },		/* T, security -> full feature */
		{ 0x87, true },		/* T, operational -> full feature */
		{ 0x00, true },		/* security, staying */
		{ 0x44, true },		/* C, operational */
		{ 0x06, true },		/* NSG is ignored without T */
		{ 0xc7, false },	/* T and C */
		{ 0x89, false },	/* CSG 2 is reserved */
		{ 0x08, false },
		{ 0x0c, false },	/* CSG full feature */
		{ 0x8f, false },
		{ 0x86, false },	/* T to reserved NSG 2 */
		{ 0x82, false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		union bhs u = bhs_of(v_login);

		IXT_CASE("%#x", cases[i].flags);
		u.login.flags = cases[i].flags;
		if (cases[i].ok)
			EXPECT_ACCEPT(&u, &login);
		else
			EXPECT_REJECT(&u, &login, ISCSI_REASON_PROTOCOL_ERROR);
	}
}

TEST(reject_text_flags)
{
	union bhs u = bhs_of(v_text);

	u.text.flags = ISCSI_FLAG_CMD_FINAL | ISCSI_FLAG_TEXT_CONTINUE;
	EXPECT_REJECT(&u, &ffp, ISCSI_REASON_PROTOCOL_ERROR);
	EXPECT_REJECT(&u, &discovery, ISCSI_REASON_PROTOCOL_ERROR);
	u.text.flags = ISCSI_FLAG_TEXT_CONTINUE;
	EXPECT_ACCEPT(&u, &ffp);
	u.text.flags = 0;
	EXPECT_ACCEPT(&u, &ffp);
}

TEST(reject_logout_reason)
{
	unsigned int code;

	for (code = 0; code <= ISCSI_FLAG_LOGOUT_REASON_MASK; code++) {
		union bhs u = bhs_of(v_logout);

		IXT_CASE("%u", code);
		u.logout.flags = ISCSI_FLAG_CMD_FINAL | code;
		if (code <= ISCSI_LOGOUT_REASON_RECOVERY)
			EXPECT_ACCEPT(&u, &ffp);
		else
			EXPECT_REJECT(&u, &ffp, ISCSI_REASON_PROTOCOL_ERROR);
	}
}

TEST(reject_snack_type)
{
	unsigned int type;

	for (type = 0; type <= ISCSI_FLAG_SNACK_TYPE_MASK; type++) {
		union bhs u = bhs_of(v_snack);

		IXT_CASE("%u", type);
		u.snack.flags = ISCSI_FLAG_CMD_FINAL | type;
		if (type <= ISCSI_FLAG_SNACK_TYPE_RDATA)
			EXPECT_ACCEPT(&u, &ffp);
		else
			EXPECT_REJECT(&u, &ffp, ISCSI_REASON_PROTOCOL_ERROR);
	}
}

TEST(reserved_bits_are_ignored)
{
	union bhs u = bhs_of(v_scsi_write);

	u.hdr.opcode |= 0x80;	/* reserved bit of byte 0 */
	EXPECT_ACCEPT(&u, &ffp);
	u = bhs_of(v_tmf);
	u.tm.flags &= ~ISCSI_FLAG_CMD_FINAL;	/* F is always 1 in a TMF */
	memset(u.tm.rsvd2, 0xff, sizeof(u.tm.rsvd2));
	EXPECT_ACCEPT(&u, &ffp);
	u = bhs_of(v_logout);
	u.logout.flags &= ~ISCSI_FLAG_CMD_FINAL;
	EXPECT_ACCEPT(&u, &ffp);
}

TEST(check_order_first_rule_wins)
{
	union bhs u = bhs_of(v_login);

	/*
	 * 1 before anything: too long a data segment is never buffered,
	 * whatever else is wrong with its header (an unknown opcode, the
	 * wrong phase, data or AHS where none is defined).
	 */
	u.hdr.opcode = ISCSI_OP_VENDOR1_CMD;
	set_dlength(&u, 0xffffff);
	EXPECT_VERDICT(&u, &login, -EMSGSIZE, ISCSI_REASON_PROTOCOL_ERROR);
	u = bhs_of(v_scsi_write);
	set_dlength(&u, 8193);
	EXPECT_VERDICT(&u, &login, -EMSGSIZE, ISCSI_REASON_PROTOCOL_ERROR);
	u = bhs_of(v_tmf);
	u.hdr.hlength = 1;
	set_dlength(&u, 0xffffff);
	EXPECT_VERDICT(&u, &ffp, -EMSGSIZE, ISCSI_REASON_PROTOCOL_ERROR);
	/* 2 before 3 and 4: an unknown opcode with AHS, in login phase. */
	u = bhs_of(v_login);
	u.hdr.opcode = ISCSI_OP_VENDOR1_CMD;
	u.hdr.hlength = 1;
	set_dlength(&u, 8192);
	EXPECT_VERDICT(&u, &login, -EOPNOTSUPP,
		       ISCSI_REASON_CMD_NOT_SUPPORTED);
	/* 3 before 4: a Login Request with AHS in full feature phase. */
	u = bhs_of(v_login);
	u.hdr.hlength = 1;
	EXPECT_REJECT(&u, &ffp, ISCSI_REASON_PROTOCOL_ERROR);
	/* 4 before 5: a TMF with AHS and the reserved ITT. */
	u = bhs_of(v_tmf);
	u.hdr.hlength = 1;
	u.hdr.itt = RESERVED_ITT;
	EXPECT_REJECT(&u, &ffp, IXT_REASON_INVALID_PDU_FIELD);
	/* 5 before 6: reserved ITT on a read with immediate data. */
	u = bhs_of(v_scsi_read);
	set_dlength(&u, 512);
	EXPECT_REJECT(&u, &ffp, ISCSI_REASON_PROTOCOL_ERROR);
	u.cmd.itt = RESERVED_ITT;
	EXPECT_REJECT(&u, &ffp, IXT_REASON_INVALID_PDU_FIELD);
}

/* A copy of @n bytes in a buffer of exactly that size, for ASan. */
static u8 *ahs_dup(const u8 *bytes, size_t n)
{
	u8 *p = malloc(n ? n : 1);

	if (p && n)
		memcpy(p, bytes, n);
	return p;
}

static int parse(const u8 *bytes, u32 len, struct ixt_pdu_ahs *out,
		 u8 *reason, long *ecdb_off)
{
	u8 *buf = ahs_dup(bytes, len);
	int ret;

	*reason = UNTOUCHED;
	memset(out, 0xa5, sizeof(*out));
	ret = ixt_pdu_parse_ahs(buf, len, out, reason);
	*ecdb_off = out->ecdb ?
		    (long)((uintptr_t)out->ecdb - (uintptr_t)buf) : -1;
	free(buf);
	return ret;
}

TEST(parse_ahs_extended_cdb)
{
	/* A 32-byte CDB: AHSLength = 32 - 15, then 16 more CDB bytes. */
	u8 ahs[20] = { 0x00, 17, ISCSI_AHSTYPE_CDB, 0x00 };
	struct ixt_pdu_ahs out;
	u8 reason;
	long off;
	int i;

	for (i = 0; i < 16; i++)
		ahs[4 + i] = 0x10 + i;
	ASSERT_EQ(parse(ahs, sizeof(ahs), &out, &reason, &off), 0);
	EXPECT_EQ(off, 4);
	EXPECT_EQ(out.ecdb_len, 16);
	EXPECT_FALSE(out.has_bidi_read_len);
	EXPECT_EQ(out.bidi_read_len, 0);
	EXPECT_EQ(reason, UNTOUCHED);

	/* The content is where the pointer says. */
	{
		u8 *buf = ahs_dup(ahs, sizeof(ahs));

		ASSERT_EQ(ixt_pdu_parse_ahs(buf, sizeof(ahs), &out, &reason),
			  0);
		EXPECT_EQ(out.ecdb[0], 0x10);
		EXPECT_EQ(out.ecdb[15], 0x1f);
		free(buf);
	}
}

TEST(parse_ahs_padding_and_sizes)
{
	/* An 18-byte CDB: AHSLength 3, 6 bytes padded to 8. */
	static const u8 cdb18[8] = { 0x00, 3, ISCSI_AHSTYPE_CDB, 0, 1, 2 };
	/* Reserved AHSType bits are ignored; AHSLength 1: no extra byte. */
	static const u8 cdb16[4] = { 0x00, 1, 0xc0 | ISCSI_AHSTYPE_CDB, 0 };
	/* The largest CDB, 260 bytes: AHSLength 245, 248 bytes. */
	u8 cdb260[248] = { 0x00, 245, ISCSI_AHSTYPE_CDB, 0 };
	struct ixt_pdu_ahs out;
	u8 reason;
	long off;

	EXPECT_EQ(parse(cdb18, sizeof(cdb18), &out, &reason, &off), 0);
	EXPECT_EQ(out.ecdb_len, 2);
	EXPECT_EQ(parse(cdb16, sizeof(cdb16), &out, &reason, &off), 0);
	EXPECT_EQ(out.ecdb_len, 0);
	EXPECT_EQ(off, 4);
	EXPECT_EQ(parse(cdb260, sizeof(cdb260), &out, &reason, &off), 0);
	EXPECT_EQ(out.ecdb_len, IXT_PDU_MAX_ECDB_LEN);
	EXPECT_EQ(out.ecdb_len, 244);
}

TEST(parse_ahs_bidi_and_extensions)
{
	static const u8 ahs[] = {
		/* a non-iSCSI extension (code 60), skipped */
		0x00, 0x01, 60, 0xaa,
		/* Bidirectional Read EDTL 0x12345678 */
		0x00, 0x05, ISCSI_AHSTYPE_RLENGTH, 0x00,
		0x12, 0x34, 0x56, 0x78,
		/* Extended CDB, 20-byte CDB: AHSLength 5, padded to 8 */
		0x00, 0x05, ISCSI_AHSTYPE_CDB, 0x00, 0xc1, 0xc2, 0xc3, 0xc4,
		/* code 63, 5 bytes padded to 8 */
		0x00, 0x05, 63, 0, 0, 0, 0, 0,
	};
	struct ixt_pdu_ahs out;
	u8 reason;
	long off;

	ASSERT_EQ(parse(ahs, sizeof(ahs), &out, &reason, &off), 0);
	EXPECT_TRUE(out.has_bidi_read_len);
	EXPECT_EQ(out.bidi_read_len, 0x12345678);
	EXPECT_EQ(off, 16);
	EXPECT_EQ(out.ecdb_len, 4);
}

TEST(parse_ahs_empty)
{
	struct ixt_pdu_ahs out;
	u8 reason;
	long off;

	EXPECT_EQ(parse(NULL, 0, &out, &reason, &off), 0);
	EXPECT_EQ(off, -1);
	EXPECT_EQ(out.ecdb_len, 0);
	EXPECT_FALSE(out.has_bidi_read_len);
	EXPECT_EQ(out.bidi_read_len, 0);
	EXPECT_EQ(reason, UNTOUCHED);
}

TEST(parse_ahs_malformed)
{
	static const struct {
		const char *name;
		u8 bytes[16];
		u32 len;
	} cases[] = {
		{ "reserved code 0", { 0, 1, 0, 0 }, 4 },
		{ "reserved code 3", { 0, 1, 3, 0 }, 4 },
		{ "reserved code 59", { 0, 1, 59, 0 }, 4 },
		{ "ECDB without its reserved byte", { 0, 0, 1, 0 }, 4 },
		{ "ECDB twice", { 0, 1, 1, 0, 0, 1, 1, 0 }, 8 },
		{ "BiDi length 4", { 0, 4, 2, 0, 1, 2, 3, 4 }, 8 },
		{ "BiDi length 6", { 0, 6, 2, 0, 1, 2, 3, 4, 5 }, 12 },
		{ "BiDi twice", { 0, 5, 2, 0, 0, 0, 0, 1,
				  0, 5, 2, 0, 0, 0, 0, 2 }, 16 },
		{ "AHS longer than TotalAHSLength", { 0, 17, 1, 0 }, 16 },
		{ "AHSLength 0xffff", { 0xff, 0xff, 60, 0 }, 16 },
		{ "second AHS overruns", { 0, 1, 60, 0, 0, 5, 60, 0 }, 8 },
	};
	/* An Extended CDB beyond the largest CDB: 261 bytes. */
	u8 cdb261[252] = { 0x00, 246, ISCSI_AHSTYPE_CDB, 0 };
	struct ixt_pdu_ahs out;
	u8 reason;
	long off;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		IXT_CASE("%s", cases[i].name);
		EXPECT_EQ(parse(cases[i].bytes, cases[i].len, &out, &reason,
				&off), -EPROTO);
		EXPECT_EQ(reason, ISCSI_REASON_PROTOCOL_ERROR);
	}
	IXT_CASE("ECDB of a 261-byte CDB");
	EXPECT_EQ(parse(cdb261, sizeof(cdb261), &out, &reason, &off),
		  -EPROTO);
	EXPECT_EQ(reason, ISCSI_REASON_PROTOCOL_ERROR);
}

TEST(parse_ahs_warns_on_bad_length)
{
	static const u8 ahs[IXT_PDU_MAX_AHS_LEN + 4];
	struct ixt_pdu_ahs out;
	u8 reason = UNTOUCHED;
	int ret = 0;

	EXPECT_WARNS(1, ret = ixt_pdu_parse_ahs(ahs, 6, &out, &reason));
	EXPECT_EQ(ret, -EINVAL);
	EXPECT_WARNS(1, ret = ixt_pdu_parse_ahs(ahs, sizeof(ahs), &out,
						&reason));
	EXPECT_EQ(ret, -EINVAL);
	EXPECT_EQ(reason, UNTOUCHED);
}

/* The group of every operation code but 7Fh gives at most 16 bytes. */
TEST(cdb_complete_fixed_lengths)
{
	u8 cdb[ISCSI_CDB_SIZE] = { };
	unsigned int op;

	for (op = 0; op <= 0xff; op++) {
		if (op == 0x7f)
			continue;
		IXT_CASE("opcode %#x", op);
		cdb[0] = op;
		cdb[7] = 0xff;
		EXPECT_TRUE(ixt_pdu_cdb_complete(cdb, 0));
	}
}

TEST(cdb_complete_variable_length)
{
	static const struct {
		u8 addl;
		u32 ecdb_len;
		bool whole;
	} cases[] = {
		{ 0, 0, true },		/* 8 bytes */
		{ 8, 0, true },		/* 16: all in the BHS */
		{ 9, 0, false },
		{ 24, 16, true },	/* WRITE SAME(32) with its AHS */
		{ 24, 15, false },
		{ 24, 0, false },
		{ 24, 244, true },	/* more in the AHS than used */
		{ 252, 244, true },	/* 260, the most the core takes */
		{ 252, 4, false },	/* a short Extended CDB AHS */
		{ 252, 0, false },	/* none at all */
		{ 253, IXT_PDU_MAX_ECDB_LEN, false },
		{ 255, IXT_PDU_MAX_ECDB_LEN, false },
	};
	u8 cdb[ISCSI_CDB_SIZE] = { 0x7f };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		IXT_CASE("byte 7 %u, %u AHS bytes", cases[i].addl,
			 cases[i].ecdb_len);
		cdb[7] = cases[i].addl;
		EXPECT_EQ(ixt_pdu_cdb_complete(cdb, cases[i].ecdb_len),
			  cases[i].whole);
	}
}

/*
 * Every operation code that may change the medium, and only those; the
 * variable-length CDB by its service action (bytes 8 and 9).
 */
TEST(cdb_writes_medium)
{
	static const u8 writes[] = {
		0x04, 0x07, 0x0a, 0x2a, 0x2e, 0x3f, 0x41, 0x42, 0x48, 0x53,
		0x83, 0x89, 0x8a, 0x8b, 0x8e, 0x93, 0x9a, 0x9c, 0x9f, 0xaa,
		0xae,
	};
	static const struct {
		u16 sa;
		bool writes;
	} varlen[] = {
		{ 0x0007, true },	/* XDWRITEREAD(32) */
		{ 0x0009, false },	/* READ(32) */
		{ 0x000a, false },	/* VERIFY(32) */
		{ 0x000b, true },	/* WRITE(32) */
		{ 0x000c, true },	/* WRITE AND VERIFY(32) */
		{ 0x000d, true },	/* WRITE SAME(32) */
		{ 0x000e, true },	/* ORWRITE(32) */
		{ 0x0000, false },
		{ 0xffff, false },
	};
	u8 cdb[ISCSI_CDB_SIZE] = { };
	unsigned int op;
	bool listed;
	size_t i;

	for (op = 0; op <= 0xff; op++) {
		if (op == 0x7f)
			continue;
		listed = false;
		for (i = 0; i < ARRAY_SIZE(writes); i++)
			listed |= writes[i] == op;
		IXT_CASE("opcode %#x", op);
		cdb[0] = op;
		EXPECT_EQ(ixt_cdb_writes_medium(cdb), listed);
	}
	cdb[0] = 0x7f;
	cdb[7] = 0x18;
	for (i = 0; i < ARRAY_SIZE(varlen); i++) {
		IXT_CASE("service action %#x", varlen[i].sa);
		cdb[8] = varlen[i].sa >> 8;
		cdb[9] = varlen[i].sa & 0xff;
		EXPECT_EQ(ixt_cdb_writes_medium(cdb), varlen[i].writes);
	}
}

TEST(sn_order_basics)
{
	EXPECT_TRUE(ixt_sn_lt(1, 2));
	EXPECT_FALSE(ixt_sn_lt(2, 1));
	EXPECT_FALSE(ixt_sn_lt(5, 5));
	EXPECT_TRUE(ixt_sn_le(5, 5));
	EXPECT_TRUE(ixt_sn_ge(5, 5));
	EXPECT_FALSE(ixt_sn_gt(5, 5));
	EXPECT_TRUE(ixt_sn_gt(2, 1));
	EXPECT_TRUE(ixt_sn_ge(2, 1));
	EXPECT_FALSE(ixt_sn_le(2, 1));
}

TEST(sn_wraps_at_2_32)
{
	EXPECT_TRUE(ixt_sn_lt(0xffffffff, 0));
	EXPECT_TRUE(ixt_sn_gt(0, 0xffffffff));
	EXPECT_TRUE(ixt_sn_le(0xffffffff, 0));
	EXPECT_FALSE(ixt_sn_ge(0xffffffff, 0));
	EXPECT_TRUE(ixt_sn_lt(0xfffffff0, 0x10));
	EXPECT_FALSE(ixt_sn_lt(0x10, 0xfffffff0));
	EXPECT_TRUE(ixt_sn_lt(0xffffffff, 0x7ffffffe));
}

TEST(sn_around_2_31)
{
	/* 2^31 - 1 apart: still ordered. */
	EXPECT_TRUE(ixt_sn_lt(0, 0x7fffffff));
	EXPECT_TRUE(ixt_sn_gt(0x7fffffff, 0));
	EXPECT_TRUE(ixt_sn_lt(0x80000000, 0xffffffff));
	EXPECT_TRUE(ixt_sn_lt(0x80000001, 0));
	/* 2^31 + 1 apart: the order flips. */
	EXPECT_FALSE(ixt_sn_lt(0, 0x80000001));
	EXPECT_TRUE(ixt_sn_gt(0, 0x80000001));
	EXPECT_TRUE(ixt_sn_lt(0x7ffffffe, 0xfffffffd));
	EXPECT_FALSE(ixt_sn_lt(0x7ffffffe, 0xffffffff));
	EXPECT_TRUE(ixt_sn_gt(0x7ffffffe, 0xffffffff));
}

TEST(sn_undefined_at_distance_2_31)
{
	static const u32 pairs[][2] = {
		{ 0, 0x80000000 }, { 0x80000000, 0 },
		{ 0x7fffffff, 0xffffffff }, { 0xffffffff, 0x7fffffff },
		{ 12345, 12345 + 0x80000000u }, { 1, 0x80000001 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pairs); i++) {
		u32 a = pairs[i][0], b = pairs[i][1];

		IXT_CASE("%#x vs %#x", a, b);
		EXPECT_FALSE(ixt_sn_lt(a, b));
		EXPECT_FALSE(ixt_sn_gt(a, b));
		EXPECT_FALSE(ixt_sn_le(a, b));
		EXPECT_FALSE(ixt_sn_ge(a, b));
		EXPECT_FALSE(ixt_sn_in_window(b, a, a));
		/* Where the kernel's helpers answer "less" both ways. */
		EXPECT_TRUE(iscsi_sna_lt(a, b) && iscsi_sna_lt(b, a));
	}
}

TEST(sn_in_window_edges)
{
	/* [10, 20] */
	EXPECT_FALSE(ixt_sn_in_window(9, 10, 20));
	EXPECT_TRUE(ixt_sn_in_window(10, 10, 20));
	EXPECT_TRUE(ixt_sn_in_window(20, 10, 20));
	EXPECT_FALSE(ixt_sn_in_window(21, 10, 20));
	/* One number. */
	EXPECT_TRUE(ixt_sn_in_window(7, 7, 7));
	EXPECT_FALSE(ixt_sn_in_window(8, 7, 7));
	/* Across the wrap. */
	EXPECT_TRUE(ixt_sn_in_window(0xfffffff0, 0xfffffff0, 0x0f));
	EXPECT_TRUE(ixt_sn_in_window(0xffffffff, 0xfffffff0, 0x0f));
	EXPECT_TRUE(ixt_sn_in_window(0, 0xfffffff0, 0x0f));
	EXPECT_TRUE(ixt_sn_in_window(0x0f, 0xfffffff0, 0x0f));
	EXPECT_FALSE(ixt_sn_in_window(0x10, 0xfffffff0, 0x0f));
	EXPECT_FALSE(ixt_sn_in_window(0xffffffef, 0xfffffff0, 0x0f));
	/* Closed window: MaxCmdSN == ExpCmdSN - 1. */
	EXPECT_FALSE(ixt_sn_in_window(5, 5, 4));
	EXPECT_FALSE(ixt_sn_in_window(4, 5, 4));
	EXPECT_FALSE(ixt_sn_in_window(6, 5, 4));
	EXPECT_FALSE(ixt_sn_in_window(0x80000004, 5, 4));
	EXPECT_FALSE(ixt_sn_in_window(0, 0, 0xffffffff));
	EXPECT_FALSE(ixt_sn_in_window(0xffffffff, 0, 0xffffffff));
	/* The largest window: 2^31 numbers. */
	EXPECT_TRUE(ixt_sn_in_window(0, 0, 0x7fffffff));
	EXPECT_TRUE(ixt_sn_in_window(0x7fffffff, 0, 0x7fffffff));
	EXPECT_FALSE(ixt_sn_in_window(0x80000000, 0, 0x7fffffff));
	EXPECT_FALSE(ixt_sn_in_window(0xffffffff, 0, 0x7fffffff));
	/* One more and it cannot be ordered: empty. */
	EXPECT_FALSE(ixt_sn_in_window(0, 0, 0x80000000));
	EXPECT_FALSE(ixt_sn_in_window(5, 0, 0x80000000));
	EXPECT_FALSE(ixt_sn_in_window(0x80000000, 0, 0x80000000));
}

/* splitmix64: a fixed seed makes every run test the same numbers. */
static u64 rng_state;

static u64 rng(void)
{
	return ixt_rng(&rng_state);
}

/*
 * A second number for @a: mostly near @a, near @a + 2^31 or exactly
 * there, where the edge cases are; otherwise anywhere.
 */
static u32 rng_partner(u32 a)
{
	u32 near = (u32)(rng() % 2001) - 1000;

	switch (rng() % 5) {
	case 0:
		return a + near;
	case 1:
		return a + 0x80000000u + near;
	case 2:
		return a + 0x80000000u;
	case 3:
		return a + 0x7fffffffu + (u32)(rng() % 3);
	default:
		return rng();
	}
}

/* RFC 1982 section 3.2, on integers wide enough not to wrap. */
static bool model_lt(u32 a, u32 b)
{
	s64 i1 = a, i2 = b, half = 1LL << 31;

	return (i1 < i2 && i2 - i1 < half) || (i1 > i2 && i1 - i2 > half);
}

static bool model_le(u32 a, u32 b)
{
	return a == b || model_lt(a, b);
}

#define RANDOM_ROUNDS	1000000

TEST(sn_random_against_rfc1982_model)
{
	unsigned long bad = 0;
	unsigned int i;

	rng_state = 0x1982ULL << 32 | 7143;
	IXT_CASE("seed %#llx", (unsigned long long)rng_state);
	for (i = 0; i < RANDOM_ROUNDS; i++) {
		u32 a = rng(), b = rng_partner(a);
		bool lt = model_lt(a, b), gt = model_lt(b, a);
		int held = (a == b) + lt + gt;

		bad += ixt_sn_lt(a, b) != lt;
		bad += ixt_sn_gt(a, b) != gt;
		bad += ixt_sn_le(a, b) != (a == b || lt);
		bad += ixt_sn_ge(a, b) != (a == b || gt);
		/* Exactly one relation holds, or none at distance 2^31. */
		bad += held != (b - a == 0x80000000u ? 0 : 1);
		if (bad && !EXPECT_EQ(bad, 0))
			return;
	}
}

TEST(sn_random_against_64bit_counters)
{
	unsigned long bad = 0;
	unsigned int i;

	rng_state = 0x64ULL << 32 | 7143;
	IXT_CASE("seed %#llx", (unsigned long long)rng_state);
	for (i = 0; i < RANDOM_ROUNDS; i++) {
		/* Counters that never wrap, and their 32-bit images. */
		u64 x = (rng() >> 8) + (1ULL << 32);
		s64 d = (s64)(rng() % 0xffffffffULL) - 0x7fffffffLL;
		u64 y = x + d;

		bad += ixt_sn_lt((u32)x, (u32)y) != (x < y);
		bad += ixt_sn_gt((u32)x, (u32)y) != (x > y);
		bad += ixt_sn_le((u32)x, (u32)y) != (x <= y);
		bad += ixt_sn_ge((u32)x, (u32)y) != (x >= y);
		if (bad && !EXPECT_EQ(bad, 0))
			return;
	}
}

TEST(sn_in_window_random_against_model)
{
	static const u32 spans[] = { 0, 1, 63, 0x7ffffffe, 0x7fffffff,
				     0x80000000, 0xfffffffe, 0xffffffff };
	unsigned long bad = 0;
	unsigned int i;

	rng_state = 0x3720ULL << 32 | 7143;
	IXT_CASE("seed %#llx", (unsigned long long)rng_state);
	for (i = 0; i < RANDOM_ROUNDS; i++) {
		u32 first = rng();
		u32 last = first + (i & 1 ? (u32)rng() :
				    spans[rng() % ARRAY_SIZE(spans)]);
		u32 sn = i & 2 ? rng_partner(first) : rng_partner(last);
		bool in = model_le(first, last) && model_le(first, sn) &&
			  model_le(sn, last);

		bad += ixt_sn_in_window(sn, first, last) != in;
		if (bad && !EXPECT_EQ(bad, 0))
			return;
	}
}
