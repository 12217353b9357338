/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iscsi_xt: iSCSI PDU header helpers (RFC 7143) and serial-number
 * arithmetic (RFC 1982) for the receive path of every transport.
 *
 * Pure code: no allocation, locking, I/O or logging, so the same helpers
 * build into the module and into the user-space unit tests.
 */
#ifndef _ISCSI_XT_PDU_H
#define _ISCSI_XT_PDU_H

#include <linux/bits.h>
#include <linux/types.h>
#include <scsi/iscsi_proto.h>

/* Largest DataSegmentLength: the field is 24 bits wide. */
#define IXT_PDU_MAX_DLENGTH		0xffffffU

/* Largest TotalAHSLength in bytes: 255 four-byte words. */
#define IXT_PDU_MAX_AHS_LEN		(255U * ISCSI_PAD_LEN)

/* Most CDB bytes an Extended CDB AHS adds to the 16 in the BHS. */
#define IXT_PDU_MAX_ECDB_LEN \
	(SCSI_MAX_VARLEN_CDB_SIZE - ISCSI_CDB_SIZE)

/* Digests negotiated on a connection (HeaderDigest, DataDigest = CRC32C). */
#define IXT_PDU_HDIGEST			BIT(0)
#define IXT_PDU_DDIGEST			BIT(1)

/*
 * Reject reasons that <scsi/iscsi_proto.h> names after the RFC 3720 drafts,
 * under their RFC 7143 names (Reject PDU, Reason field).
 */
#define IXT_REASON_INVALID_PDU_FIELD	ISCSI_REASON_BOOKMARK_INVALID
#define IXT_REASON_LONG_OP_REJECT	ISCSI_REASON_BOOKMARK_NO_RESOURCES
#define IXT_REASON_WAITING_FOR_LOGOUT	0x0c

/**
 * struct ixt_pdu_limits - what a connection accepts, for ixt_pdu_check_bhs()
 * @max_recv_dlength: MaxRecvDataSegmentLength the target declared: the
 *	longest data segment of any PDU it receives. Until it is negotiated,
 *	during login, the RFC 7143 default %ISCSI_DEF_MAX_RECV_SEG_LEN applies.
 * @first_burst_length: FirstBurstLength: the most unsolicited data,
 *	immediate data included, one SCSI command may carry.
 * @login: the connection is in the login phase: only Login Requests are
 *	accepted. Otherwise it is in full feature phase and they are refused.
 * @discovery: the session is a discovery session (SessionType=Discovery):
 *	only Text and Logout Requests are accepted in full feature phase.
 * @immediate_data: ImmediateData=Yes: SCSI commands may carry data.
 * @initial_r2t: InitialR2T=Yes: no unsolicited Data-Out PDUs may follow a
 *	SCSI command.
 *
 * Fill it from the values negotiated so far; a zeroed structure accepts no
 * data segment at all.
 */
struct ixt_pdu_limits {
	u32 max_recv_dlength;
	u32 first_burst_length;
	bool login;
	bool discovery;
	bool immediate_data;
	bool initial_r2t;
};

/**
 * struct ixt_pdu_ahs - what the AHSs of a SCSI Command PDU carry
 * @ecdb: the CDB bytes that follow the 16 in the BHS, pointing into the
 *	AHS buffer given to ixt_pdu_parse_ahs(); %NULL without an Extended
 *	CDB AHS.
 * @ecdb_len: number of bytes at @ecdb, at most %IXT_PDU_MAX_ECDB_LEN.
 * @bidi_read_len: Bidirectional Read Expected Data Transfer Length; 0 when
 *	@has_bidi_read_len is false.
 * @has_bidi_read_len: a Bidirectional Read Expected Data Transfer Length
 *	AHS was present.
 */
struct ixt_pdu_ahs {
	const u8 *ecdb;
	u32 ecdb_len;
	u32 bidi_read_len;
	bool has_bidi_read_len;
};

/**
 * ixt_pdu_opcode() - opcode of a PDU, without the I bit
 * @hdr: the BHS.
 *
 * Return: one of the ISCSI_OP_* values, in 0..%ISCSI_OPCODE_MASK.
 */
static inline u8 ixt_pdu_opcode(const struct iscsi_hdr *hdr)
{
	return hdr->opcode & ISCSI_OPCODE_MASK;
}

/**
 * ixt_pdu_is_immediate() - whether the I bit (immediate delivery) is set
 * @hdr: the BHS.
 *
 * Return: true if the I bit is set.
 */
static inline bool ixt_pdu_is_immediate(const struct iscsi_hdr *hdr)
{
	return hdr->opcode & ISCSI_OP_IMMEDIATE;
}

/**
 * ixt_pdu_is_final() - whether a PDU is the last of its sequence
 * @hdr: the BHS.
 *
 * The bit is called F in most PDUs and T (transit) in Login Requests.
 *
 * Return: true if the F bit is set.
 */
static inline bool ixt_pdu_is_final(const struct iscsi_hdr *hdr)
{
	return hdr->flags & ISCSI_FLAG_CMD_FINAL;
}

/**
 * ixt_pdu_dlength() - DataSegmentLength of a PDU
 * @hdr: the BHS.
 *
 * Return: the length of the data segment in bytes, padding and digest
 * excluded, in 0..%IXT_PDU_MAX_DLENGTH.
 */
static inline u32 ixt_pdu_dlength(const struct iscsi_hdr *hdr)
{
	return ntoh24(hdr->dlength);
}

/**
 * ixt_pdu_ahs_len() - TotalAHSLength of a PDU in bytes
 * @hdr: the BHS.
 *
 * Return: the length of all AHSs, their padding included, in bytes: a
 * multiple of 4 in 0..%IXT_PDU_MAX_AHS_LEN.
 */
static inline u32 ixt_pdu_ahs_len(const struct iscsi_hdr *hdr)
{
	return hdr->hlength * ISCSI_PAD_LEN;
}

/**
 * ixt_pdu_pad_len() - padding that follows a segment on the wire
 * @len: length of the segment in bytes.
 *
 * Return: the number of pad bytes, 0..3, that round @len up to a multiple
 * of 4.
 */
static inline u32 ixt_pdu_pad_len(u32 len)
{
	return -len & (ISCSI_PAD_LEN - 1);
}

int ixt_pdu_set_dlength(struct iscsi_hdr *hdr, u32 dlength);
u32 ixt_pdu_hdr_len(const struct iscsi_hdr *hdr, unsigned int digests);
int ixt_pdu_data_len(u32 dlength, unsigned int digests, u32 *len);
int ixt_pdu_wire_len(const struct iscsi_hdr *hdr, unsigned int digests,
		     u32 *len);
bool ixt_pdu_opcode_is_initiator(u8 opcode);
int ixt_pdu_check_bhs(const struct iscsi_hdr *hdr,
		      const struct ixt_pdu_limits *lim, u8 *reason);
int ixt_pdu_parse_ahs(const u8 *ahs, u32 len, struct ixt_pdu_ahs *out,
		      u8 *reason);
bool ixt_pdu_cdb_complete(const u8 *cdb, u32 ecdb_len);
bool ixt_cdb_writes_medium(const u8 *cdb);

/*
 * Serial-number arithmetic on 32-bit sequence numbers (CmdSN, StatSN,
 * DataSN, R2TSN), as RFC 1982 defines it and RFC 7143 requires. Two
 * numbers exactly 2^31 apart are not ordered: none of the comparisons
 * below holds for them, so !ixt_sn_lt(a, b) does not imply
 * ixt_sn_ge(a, b). Unlike iscsi_sna_lt() and friends, which call such a
 * pair "less than" in both directions.
 */

/**
 * ixt_sn_lt() - serial-number "less than"
 * @s1: first sequence number.
 * @s2: second sequence number.
 *
 * Return: true if @s1 precedes @s2, i.e. @s2 is 1..2^31 - 1 ahead of @s1
 * modulo 2^32.
 */
static inline bool ixt_sn_lt(u32 s1, u32 s2)
{
	return s1 != s2 && s2 - s1 < BIT(31);
}

/**
 * ixt_sn_gt() - serial-number "greater than"
 * @s1: first sequence number.
 * @s2: second sequence number.
 *
 * Return: true if @s1 follows @s2, i.e. @s1 is 1..2^31 - 1 ahead of @s2
 * modulo 2^32.
 */
static inline bool ixt_sn_gt(u32 s1, u32 s2)
{
	return ixt_sn_lt(s2, s1);
}

/**
 * ixt_sn_le() - serial-number "less than or equal"
 * @s1: first sequence number.
 * @s2: second sequence number.
 *
 * Return: true if @s1 equals or precedes @s2.
 */
static inline bool ixt_sn_le(u32 s1, u32 s2)
{
	return s1 == s2 || ixt_sn_lt(s1, s2);
}

/**
 * ixt_sn_ge() - serial-number "greater than or equal"
 * @s1: first sequence number.
 * @s2: second sequence number.
 *
 * Return: true if @s1 equals or follows @s2.
 */
static inline bool ixt_sn_ge(u32 s1, u32 s2)
{
	return s1 == s2 || ixt_sn_lt(s2, s1);
}

/**
 * ixt_sn_in_window() - whether a sequence number lies in a window
 * @sn: the sequence number to test.
 * @first: first number of the window (e.g. ExpCmdSN).
 * @last: last number of the window, inclusive (e.g. MaxCmdSN).
 *
 * The window holds @last - @first + 1 numbers modulo 2^32. As for the
 * CmdSN window of RFC 7143, @last == @first - 1 is the empty (closed)
 * window; a window of more than 2^31 numbers cannot be ordered and is
 * treated as empty too.
 *
 * Return: true if ixt_sn_le(@first, @sn) and ixt_sn_le(@sn, @last) in a
 * window of at most 2^31 numbers.
 */
static inline bool ixt_sn_in_window(u32 sn, u32 first, u32 last)
{
	return last - first < BIT(31) && sn - first <= last - first;
}

#endif /* _ISCSI_XT_PDU_H */
