// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: iSCSI PDU header helpers: lengths on the wire, opcode
 * classification and the checks a target makes on every header an
 * initiator sends (RFC 7143) before it trusts any of its fields.
 *
 * Pure code (see pdu.h): errors are returned, never logged.
 */

#include <asm/byteorder.h>
#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/overflow.h>
#include <linux/types.h>
#include <linux/unaligned.h>
#include <scsi/iscsi_proto.h>

#include <iscsi_xt/pdu.h>

/* Every AHS starts with AHSLength (2 bytes) and AHSType (1 byte). */
#define IXT_AHS_HDR_LEN			3
/* AHSType: the low six bits are the AHS code, the top two are reserved. */
#define IXT_AHS_CODE_MASK		0x3f
/* AHS codes 60..63 are non-iSCSI extensions, which we skip. */
#define IXT_AHS_CODE_EXT		60
/* AHSLength of a Bidirectional Read EDTL AHS: reserved byte + length. */
#define IXT_AHS_RLENGTH_LEN		5
/* The AHS-specific part of both AHSs we know starts with a reserved byte. */
#define IXT_AHS_RSVD_LEN		1

/* Login stage code 2 is reserved; 3 (full feature) is only a next stage. */
#define IXT_LOGIN_STAGE_RESERVED	2

/*
 * A variable-length CDB (SPC-4 4.2.3): operation code 7Fh, and its byte 7
 * (ADDITIONAL CDB LENGTH) counts the bytes after the first 8. Any other
 * operation code's group gives the CDB at most 16 bytes.
 */
#define IXT_CDB_VARLEN_OPCODE		0x7f
#define IXT_CDB_VARLEN_ADDL		7
#define IXT_CDB_VARLEN_HDR		8U

/* Logout reason codes: 0..2 are defined, the rest reserved. */
#define IXT_LOGOUT_REASON_LAST		ISCSI_LOGOUT_REASON_RECOVERY
/* SNACK types: 0..3 are defined, the rest reserved. */
#define IXT_SNACK_TYPE_LAST		ISCSI_FLAG_SNACK_TYPE_RDATA

/* Per-opcode rules of ixt_op_rules[]. */
#define IXT_OP_SUPPORTED		BIT(0)	/* we handle it */
#define IXT_OP_AHS			BIT(1)	/* may carry AHSs */
#define IXT_OP_DATA			BIT(2)	/* may carry a data segment */
#define IXT_OP_ITT			BIT(3)	/* ITT may not be reserved */
#define IXT_OP_DISCOVERY		BIT(4)	/* allowed in discovery */

/*
 * What each initiator opcode may carry. Only the SCSI Command defines AHSs;
 * TMF, Logout and SNACK Requests have no data segment; NOP-Out and SNACK
 * may use the reserved ITT 0xffffffff. A discovery session accepts only
 * Text and Logout Requests. Unlisted opcodes, the vendor-specific ones
 * included, are not supported.
 */
static const u8 ixt_op_rules[ISCSI_OPCODE_MASK + 1] = {
	[ISCSI_OP_NOOP_OUT]	= IXT_OP_SUPPORTED | IXT_OP_DATA,
	[ISCSI_OP_SCSI_CMD]	= IXT_OP_SUPPORTED | IXT_OP_AHS | IXT_OP_DATA |
				  IXT_OP_ITT,
	[ISCSI_OP_SCSI_TMFUNC]	= IXT_OP_SUPPORTED | IXT_OP_ITT,
	[ISCSI_OP_LOGIN]	= IXT_OP_SUPPORTED | IXT_OP_DATA | IXT_OP_ITT,
	[ISCSI_OP_TEXT]		= IXT_OP_SUPPORTED | IXT_OP_DATA | IXT_OP_ITT |
				  IXT_OP_DISCOVERY,
	[ISCSI_OP_SCSI_DATA_OUT] = IXT_OP_SUPPORTED | IXT_OP_DATA | IXT_OP_ITT,
	[ISCSI_OP_LOGOUT]	= IXT_OP_SUPPORTED | IXT_OP_ITT |
				  IXT_OP_DISCOVERY,
	[ISCSI_OP_SNACK]	= IXT_OP_SUPPORTED,
};

static_assert(sizeof(struct iscsi_hdr) == ISCSI_HDR_LEN);
static_assert(sizeof(struct iscsi_scsi_req) == ISCSI_HDR_LEN);
static_assert(sizeof(struct iscsi_data) == ISCSI_HDR_LEN);
static_assert(sizeof(struct iscsi_nopout) == ISCSI_HDR_LEN);
static_assert(sizeof(struct iscsi_tm) == ISCSI_HDR_LEN);
static_assert(sizeof(struct iscsi_text) == ISCSI_HDR_LEN);
static_assert(sizeof(struct iscsi_login_req) == ISCSI_HDR_LEN);
static_assert(sizeof(struct iscsi_logout) == ISCSI_HDR_LEN);
static_assert(sizeof(struct iscsi_snack) == ISCSI_HDR_LEN);
static_assert(IXT_REASON_INVALID_PDU_FIELD == 0x09);
static_assert(IXT_REASON_LONG_OP_REJECT == 0x0a);

/**
 * ixt_pdu_set_dlength() - store the DataSegmentLength of a PDU
 * @hdr: the BHS to update.
 * @dlength: length of the data segment in bytes, padding excluded.
 *
 * Context: Any context.
 * Return: 0, or -EINVAL (and a warning: a caller bug) if @dlength does
 * not fit in 24 bits.
 */
int ixt_pdu_set_dlength(struct iscsi_hdr *hdr, u32 dlength)
{
	if (WARN_ON_ONCE(dlength > IXT_PDU_MAX_DLENGTH))
		return -EINVAL;
	hton24(hdr->dlength, dlength);
	return 0;
}

/**
 * ixt_pdu_hdr_len() - bytes of a PDU before its data segment
 * @hdr: the BHS.
 * @digests: %IXT_PDU_HDIGEST if a header digest follows the header; other
 *	bits are ignored.
 *
 * The BHS, the AHSs and the header digest: what a receiver reads, and the
 * header digest covers, before the data segment.
 *
 * Context: Any context.
 * Return: the length in bytes, at most %ISCSI_HDR_LEN +
 * %IXT_PDU_MAX_AHS_LEN + %ISCSI_CRC_LEN.
 */
u32 ixt_pdu_hdr_len(const struct iscsi_hdr *hdr, unsigned int digests)
{
	u32 len = ISCSI_HDR_LEN + ixt_pdu_ahs_len(hdr);

	if (digests & IXT_PDU_HDIGEST)
		len += ISCSI_CRC_LEN;
	return len;
}

/**
 * ixt_pdu_data_len() - bytes a data segment takes on the wire
 * @dlength: length of the data segment in bytes, padding excluded.
 * @digests: %IXT_PDU_DDIGEST if a data digest follows a non-empty data
 *	segment; other bits are ignored.
 * @len: where to store the result: @dlength, its padding and its digest.
 *	Left alone on error.
 *
 * An empty data segment has neither padding nor digest. @dlength is not
 * limited to 24 bits, so that a transport may size other segments with it.
 *
 * Context: Any context.
 * Return: 0, or -EOVERFLOW if the result does not fit in 32 bits.
 */
int ixt_pdu_data_len(u32 dlength, unsigned int digests, u32 *len)
{
	u32 n = 0;

	if (dlength) {
		if (check_add_overflow(dlength, ixt_pdu_pad_len(dlength), &n))
			return -EOVERFLOW;
		if ((digests & IXT_PDU_DDIGEST) &&
		    check_add_overflow(n, ISCSI_CRC_LEN, &n))
			return -EOVERFLOW;
	}
	*len = n;
	return 0;
}

/**
 * ixt_pdu_wire_len() - bytes a whole PDU takes on the wire
 * @hdr: the BHS.
 * @digests: %IXT_PDU_HDIGEST and/or %IXT_PDU_DDIGEST, as negotiated.
 * @len: where to store the result. Left alone on error.
 *
 * The sum of ixt_pdu_hdr_len() and ixt_pdu_data_len(): the receiver has
 * read %ISCSI_HDR_LEN bytes of it when it has the BHS in hand.
 *
 * Context: Any context.
 * Return: 0, or -EOVERFLOW if the result does not fit in 32 bits (which a
 * valid BHS cannot cause).
 */
int ixt_pdu_wire_len(const struct iscsi_hdr *hdr, unsigned int digests,
		     u32 *len)
{
	u32 data_len;
	int ret;

	ret = ixt_pdu_data_len(ixt_pdu_dlength(hdr), digests, &data_len);
	if (ret)
		return ret;
	if (check_add_overflow(ixt_pdu_hdr_len(hdr, digests), data_len, len))
		return -EOVERFLOW;
	return 0;
}

/**
 * ixt_pdu_opcode_is_initiator() - whether an opcode is for initiators
 * @opcode: the opcode; the I bit and the reserved top bit are ignored.
 *
 * The initiator opcodes are NOP-Out, SCSI Command, Task Management
 * Function, Login, Text, SCSI Data-Out, Logout and SNACK Requests, and the
 * vendor-specific codes 0x1c..0x1e. Target opcodes (0x20 and up) and
 * reserved codes are not.
 *
 * Context: Any context.
 * Return: true for an initiator opcode.
 */
bool ixt_pdu_opcode_is_initiator(u8 opcode)
{
	switch (opcode & ISCSI_OPCODE_MASK) {
	case ISCSI_OP_NOOP_OUT:
	case ISCSI_OP_SCSI_CMD:
	case ISCSI_OP_SCSI_TMFUNC:
	case ISCSI_OP_LOGIN:
	case ISCSI_OP_TEXT:
	case ISCSI_OP_SCSI_DATA_OUT:
	case ISCSI_OP_LOGOUT:
	case ISCSI_OP_SNACK:
	case ISCSI_OP_VENDOR1_CMD:
	case ISCSI_OP_VENDOR2_CMD:
	case ISCSI_OP_VENDOR3_CMD:
		return true;
	default:
		return false;
	}
}

/* Records why a PDU is refused and returns @err, for a tail call. */
static int ixt_pdu_reject(u8 *reason, u8 why, int err)
{
	*reason = why;
	return err;
}

/*
 * SCSI Command: the R, W and F bits must agree with each other, with the
 * Expected Data Transfer Length and with the immediate data, and the
 * unsolicited data must stay within what the session negotiated.
 */
static int ixt_pdu_check_scsi_cmd(const struct iscsi_hdr *hdr,
				  const struct ixt_pdu_limits *lim, u8 *reason)
{
	const struct iscsi_scsi_req *req = (const struct iscsi_scsi_req *)hdr;
	bool final = req->flags & ISCSI_FLAG_CMD_FINAL;
	bool read = req->flags & ISCSI_FLAG_CMD_READ;
	bool write = req->flags & ISCSI_FLAG_CMD_WRITE;
	u32 edtl = be32_to_cpu(req->data_length);
	u32 dlength = ntoh24(req->dlength);

	/* Only a write can be followed by unsolicited Data-Out PDUs. */
	if (!write && !final)
		return ixt_pdu_reject(reason, IXT_REASON_INVALID_PDU_FIELD,
				      -EPROTO);
	if (edtl && !read && !write)
		return ixt_pdu_reject(reason, IXT_REASON_INVALID_PDU_FIELD,
				      -EPROTO);
	if (!final && lim->initial_r2t)
		return ixt_pdu_reject(reason, ISCSI_REASON_PROTOCOL_ERROR,
				      -EPROTO);
	/* Immediate data: allowed, for a write, and within both limits. */
	if (dlength && (!write || !lim->immediate_data ||
			dlength > lim->first_burst_length || dlength > edtl))
		return ixt_pdu_reject(reason, ISCSI_REASON_PROTOCOL_ERROR,
				      -EPROTO);
	/* Nothing is left to send unsolicited, so F must say so. */
	if (!final && dlength == edtl)
		return ixt_pdu_reject(reason, ISCSI_REASON_PROTOCOL_ERROR,
				      -EPROTO);
	return 0;
}

/*
 * Login Requests belong to the login phase and nothing else does; a
 * discovery session then accepts only the opcodes marked for it.
 */
static bool ixt_pdu_phase_allows(u8 op, u8 rules,
				 const struct ixt_pdu_limits *lim)
{
	if (lim->login)
		return op == ISCSI_OP_LOGIN;
	return op != ISCSI_OP_LOGIN &&
	       (!lim->discovery || (rules & IXT_OP_DISCOVERY));
}

/* Login Request: T and C are exclusive; stage codes must not be reserved. */
static bool ixt_pdu_login_flags_valid(u8 flags)
{
	u8 csg = ISCSI_LOGIN_CURRENT_STAGE(flags);
	u8 nsg = ISCSI_LOGIN_NEXT_STAGE(flags);
	bool transit = flags & ISCSI_FLAG_LOGIN_TRANSIT;

	if (transit && (flags & ISCSI_FLAG_LOGIN_CONTINUE))
		return false;
	if (csg == IXT_LOGIN_STAGE_RESERVED || csg == ISCSI_FULL_FEATURE_PHASE)
		return false;
	return !transit || nsg != IXT_LOGIN_STAGE_RESERVED;
}

/*
 * The flags each opcode but the SCSI Command defines, and for a NOP-Out
 * the I bit that goes with a reserved ITT.
 */
static bool ixt_pdu_flags_valid(const struct iscsi_hdr *hdr)
{
	u8 flags = hdr->flags;

	switch (ixt_pdu_opcode(hdr)) {
	case ISCSI_OP_NOOP_OUT:
		/* F is always 1; a NOP-Out that wants no reply is immediate. */
		return (flags & ISCSI_FLAG_CMD_FINAL) &&
		       (hdr->itt != RESERVED_ITT || ixt_pdu_is_immediate(hdr));
	case ISCSI_OP_LOGIN:
		return ixt_pdu_login_flags_valid(flags);
	case ISCSI_OP_TEXT:
		return !((flags & ISCSI_FLAG_CMD_FINAL) &&
			 (flags & ISCSI_FLAG_TEXT_CONTINUE));
	case ISCSI_OP_LOGOUT:
		return (flags & ISCSI_FLAG_LOGOUT_REASON_MASK) <=
		       IXT_LOGOUT_REASON_LAST;
	case ISCSI_OP_SNACK:
		return (flags & ISCSI_FLAG_SNACK_TYPE_MASK) <=
		       IXT_SNACK_TYPE_LAST;
	default:
		return true;
	}
}

/**
 * ixt_pdu_check_bhs() - validate the BHS of a PDU received from an initiator
 * @hdr: the BHS, all %ISCSI_HDR_LEN bytes of it.
 * @lim: what the connection accepts now.
 * @reason: where to store the reject reason (ISCSI_REASON_* or
 *	IXT_REASON_*) on error. Left alone on success.
 *
 * Checks, in this order, and stops at the first rule broken:
 *
 * 1. the data segment fits MaxRecvDataSegmentLength, else
 *    %ISCSI_REASON_PROTOCOL_ERROR and -EMSGSIZE, whatever the opcode:
 *    the receiver cannot skip what it will not buffer, so it closes the
 *    connection before allocating anything for that data segment;
 * 2. the opcode is an initiator opcode we support (vendor-specific ones
 *    are not), else %ISCSI_REASON_CMD_NOT_SUPPORTED;
 * 3. Login Requests in the login phase and nothing else; in a discovery
 *    session, only Text and Logout Requests, else
 *    %ISCSI_REASON_PROTOCOL_ERROR;
 * 4. TotalAHSLength is 0 but for a SCSI Command and DataSegmentLength is 0
 *    for PDUs without a data segment (TMF, Logout, SNACK), else
 *    %IXT_REASON_INVALID_PDU_FIELD;
 * 5. the ITT is not the reserved 0xffffffff, but in NOP-Out and SNACK,
 *    else %IXT_REASON_INVALID_PDU_FIELD;
 * 6. opcode-specific bits: for a SCSI Command the R, W and F bits agree
 *    with each other and with the Expected Data Transfer Length
 *    (else %IXT_REASON_INVALID_PDU_FIELD), F is 0 only if InitialR2T=No,
 *    and immediate data is allowed, for a write, within FirstBurstLength
 *    and the Expected Data Transfer Length, with F set when it is all
 *    the data; a NOP-Out has F set and, if its ITT is reserved, the I
 *    bit; a Login Request has not both T and C set and no reserved stage
 *    code; a Text Request has not both F and C set; Logout reason and
 *    SNACK type codes are not reserved. Else %ISCSI_REASON_PROTOCOL_ERROR.
 *
 * Reserved bits are ignored, as RFC 7143 asks of receivers. Checks that
 * need session state (CmdSN window, tags in use, login stage
 * transitions, ErrorRecoveryLevel) are the caller's. In the login phase,
 * the caller answers a failure with a Login Response (status class
 * Initiator Error) rather than a Reject PDU.
 *
 * Context: Any context.
 * Return:
 * * 0 - the header may be processed.
 * * -EOPNOTSUPP - the opcode is unknown, a target opcode or not supported.
 * * -EMSGSIZE - the data segment exceeds @lim->max_recv_dlength.
 * * -EPROTO - any other violation.
 */
int ixt_pdu_check_bhs(const struct iscsi_hdr *hdr,
		      const struct ixt_pdu_limits *lim, u8 *reason)
{
	u8 op = ixt_pdu_opcode(hdr);
	u8 rules = ixt_op_rules[op];
	u32 dlength = ixt_pdu_dlength(hdr);

	if (dlength > lim->max_recv_dlength)
		return ixt_pdu_reject(reason, ISCSI_REASON_PROTOCOL_ERROR,
				      -EMSGSIZE);
	if (!(rules & IXT_OP_SUPPORTED))
		return ixt_pdu_reject(reason, ISCSI_REASON_CMD_NOT_SUPPORTED,
				      -EOPNOTSUPP);
	if (!ixt_pdu_phase_allows(op, rules, lim))
		return ixt_pdu_reject(reason, ISCSI_REASON_PROTOCOL_ERROR,
				      -EPROTO);
	if ((hdr->hlength && !(rules & IXT_OP_AHS)) ||
	    (dlength && !(rules & IXT_OP_DATA)))
		return ixt_pdu_reject(reason, IXT_REASON_INVALID_PDU_FIELD,
				      -EPROTO);
	if ((rules & IXT_OP_ITT) && hdr->itt == RESERVED_ITT)
		return ixt_pdu_reject(reason, IXT_REASON_INVALID_PDU_FIELD,
				      -EPROTO);
	if (op == ISCSI_OP_SCSI_CMD)
		return ixt_pdu_check_scsi_cmd(hdr, lim, reason);
	if (!ixt_pdu_flags_valid(hdr))
		return ixt_pdu_reject(reason, ISCSI_REASON_PROTOCOL_ERROR,
				      -EPROTO);
	return 0;
}

/*
 * Records what the AHS at @ahs carries, once the caller has checked that
 * all its AHSLength + 3 bytes are there. Each kind may appear once.
 */
static bool ixt_pdu_parse_one_ahs(const u8 *ahs, struct ixt_pdu_ahs *out)
{
	u16 ahs_len = get_unaligned_be16(ahs);
	u8 code = ahs[2] & IXT_AHS_CODE_MASK;
	const u8 *spec = ahs + IXT_AHS_HDR_LEN + IXT_AHS_RSVD_LEN;

	switch (code) {
	case ISCSI_AHSTYPE_CDB:
		if (out->ecdb || ahs_len < IXT_AHS_RSVD_LEN ||
		    ahs_len - IXT_AHS_RSVD_LEN > IXT_PDU_MAX_ECDB_LEN)
			return false;
		out->ecdb = spec;
		out->ecdb_len = ahs_len - IXT_AHS_RSVD_LEN;
		return true;
	case ISCSI_AHSTYPE_RLENGTH:
		if (out->has_bidi_read_len || ahs_len != IXT_AHS_RLENGTH_LEN)
			return false;
		out->bidi_read_len = get_unaligned_be32(spec);
		out->has_bidi_read_len = true;
		return true;
	default:
		/* Skip non-iSCSI extensions; other codes are reserved. */
		return code >= IXT_AHS_CODE_EXT;
	}
}

/**
 * ixt_pdu_parse_ahs() - walk the AHSs of a SCSI Command PDU
 * @ahs: the AHSs, as received after the BHS.
 * @len: TotalAHSLength in bytes, from ixt_pdu_ahs_len().
 * @out: where to store what they carry; meaningful only on success.
 *	Its pointers point into @ahs.
 * @reason: where to store the reject reason on -EPROTO. Left alone
 *	otherwise.
 *
 * Each AHS takes AHSLength + 3 bytes, padded to a multiple of 4, and the
 * AHSs must fill @len exactly. An Extended CDB AHS holds at most
 * %IXT_PDU_MAX_ECDB_LEN CDB bytes, a Bidirectional Read Expected Data
 * Transfer Length AHS has AHSLength 5; each may appear once. AHSs of the
 * non-iSCSI extension codes (60..63) are skipped; reserved codes are
 * refused. An empty @len yields an empty @out.
 *
 * Context: Any context.
 * Return:
 * * 0 - @out describes the AHSs.
 * * -EPROTO - the AHSs are malformed; @reason is
 *   %ISCSI_REASON_PROTOCOL_ERROR.
 * * -EINVAL - @len is not a TotalAHSLength (a caller bug; warns).
 */
int ixt_pdu_parse_ahs(const u8 *ahs, u32 len, struct ixt_pdu_ahs *out,
		      u8 *reason)
{
	u32 off = 0;

	if (WARN_ON_ONCE(len % ISCSI_PAD_LEN || len > IXT_PDU_MAX_AHS_LEN))
		return -EINVAL;

	*out = (struct ixt_pdu_ahs){ };
	while (off < len) {
		const u8 *cur = ahs + off;
		u32 span = IXT_AHS_HDR_LEN + get_unaligned_be16(cur);

		span += ixt_pdu_pad_len(span);
		if (span > len - off || !ixt_pdu_parse_one_ahs(cur, out))
			return ixt_pdu_reject(reason,
					      ISCSI_REASON_PROTOCOL_ERROR,
					      -EPROTO);
		off += span;
	}
	return 0;
}

/**
 * ixt_pdu_cdb_complete() - whether a SCSI Command carries its whole CDB
 * @cdb: the %ISCSI_CDB_SIZE CDB bytes of the BHS.
 * @ecdb_len: CDB bytes an Extended CDB AHS adds (&ixt_pdu_ahs.ecdb_len),
 *	0 without one.
 *
 * A CDB says how long it is: 6 to 16 bytes by the group of its operation
 * code, or, for a variable-length CDB (7Fh), 8 bytes plus its ADDITIONAL
 * CDB LENGTH (byte 7), up to 263. The target core copies that many bytes
 * from the buffer it is given (scsi_command_size()), so a CDB that claims
 * more than the 16 + @ecdb_len bytes received must not reach it. Bytes
 * the AHS adds beyond the CDB's length are not a fault: they are unused.
 *
 * Context: Any context.
 * Return: true if the CDB's own length is at most %ISCSI_CDB_SIZE +
 * @ecdb_len bytes.
 */
bool ixt_pdu_cdb_complete(const u8 *cdb, u32 ecdb_len)
{
	if (cdb[0] != IXT_CDB_VARLEN_OPCODE)
		return true;
	return IXT_CDB_VARLEN_HDR + cdb[IXT_CDB_VARLEN_ADDL] <=
	       ISCSI_CDB_SIZE + ecdb_len;
}

/*
 * Service actions of a variable-length CDB (SBC-4) that write the medium:
 * XDWRITEREAD(32), WRITE(32), WRITE AND VERIFY(32), WRITE SAME(32),
 * ORWRITE(32).
 */
static bool ixt_cdb_varlen_writes(u16 sa)
{
	switch (sa) {
	case 0x0007:
	case 0x000b:
	case 0x000c:
	case 0x000d:
	case 0x000e:
		return true;
	default:
		return false;
	}
}

/**
 * ixt_cdb_writes_medium() - whether a CDB may change what a LUN stores
 * @cdb: the CDB, at least %ISCSI_CDB_SIZE bytes, all of it there
 *	(ixt_pdu_cdb_complete()).
 *
 * The target core refuses a command on a LUN mapped read-only only when
 * the initiator announced data for the device (the W bit), and takes the
 * direction from the R and W bits alone: a WRITE SAME sent with R, or
 * with neither bit and its UNMAP or NDOB bit set, or a third-party copy,
 * would still write or discard. So the fabric refuses these itself, by
 * the operation code, whatever the bits say (SBC-4's commands that
 * modify the medium, and EXTENDED COPY, whose destination the core does
 * not check against the mapping; pass-through devices get the same list).
 *
 * Context: Any context.
 * Return: true for FORMAT UNIT, REASSIGN BLOCKS, WRITE(6/10/12/16/32),
 * WRITE AND VERIFY(10/12/16/32), WRITE LONG(10/16), WRITE SAME(10/16/32),
 * UNMAP, XDWRITEREAD(10/32), COMPARE AND WRITE, ORWRITE(16/32), WRITE
 * ATOMIC(16), WRITE STREAM(16), WRITE SCATTERED, SANITIZE and EXTENDED
 * COPY.
 */
bool ixt_cdb_writes_medium(const u8 *cdb)
{
	switch (cdb[0]) {
	case 0x04:	/* FORMAT UNIT */
	case 0x07:	/* REASSIGN BLOCKS */
	case 0x0a:	/* WRITE(6) */
	case 0x2a:	/* WRITE(10) */
	case 0x2e:	/* WRITE AND VERIFY(10) */
	case 0x3f:	/* WRITE LONG(10) */
	case 0x41:	/* WRITE SAME(10) */
	case 0x42:	/* UNMAP */
	case 0x48:	/* SANITIZE */
	case 0x53:	/* XDWRITEREAD(10) */
	case 0x83:	/* EXTENDED COPY */
	case 0x89:	/* COMPARE AND WRITE */
	case 0x8a:	/* WRITE(16) */
	case 0x8b:	/* ORWRITE(16) */
	case 0x8e:	/* WRITE AND VERIFY(16) */
	case 0x93:	/* WRITE SAME(16) */
	case 0x9a:	/* WRITE STREAM(16) */
	case 0x9c:	/* WRITE ATOMIC(16) */
	case 0x9f:	/* WRITE LONG(16), WRITE SCATTERED (SERVICE ACTION OUT(16)) */
	case 0xaa:	/* WRITE(12) */
	case 0xae:	/* WRITE AND VERIFY(12) */
		return true;
	case IXT_CDB_VARLEN_OPCODE:
		return ixt_cdb_varlen_writes(get_unaligned_be16(&cdb[8]));
	default:
		return false;
	}
}
