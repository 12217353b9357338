// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: login and text key negotiation: the key table, the TPG offer
 * behind configfs param/, text splitting and building, and the engine that
 * answers an initiator's keys (RFC 7143 sections 6 and 13, RFC 7144,
 * RFC 7145 section 6).
 *
 * Pure code (see params.h): errors are returned, never logged.
 */

#include <linux/array_size.h>
#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/types.h>
#include <scsi/iscsi_proto.h>

#include <iscsi_xt/params.h>

/* Largest data segment length a key may carry: 2^24 - 1. */
#define IXT_DSL_MAX		ISCSI_MAX_MAX_RECV_SEG_LEN
/* Room for a u32 in decimal and its NUL. */
#define IXT_U32_DEC_LEN		11

/* Values with a meaning of their own in answers (RFC 7143 section 6.2). */
#define IXT_IRRELEVANT		"Irrelevant"
#define IXT_NOT_UNDERSTOOD	"NotUnderstood"
#define IXT_REJECT		"Reject"

/*
 * Bound of a response: an answer to each pair of the request (the longest
 * being NotUnderstood), an offer or declaration of each key (the longest
 * being a list or a number), and the TargetAlias.
 */
#define IXT_ANSWER_MAX_LEN	(sizeof(IXT_NOT_UNDERSTOOD) - 1)
#define IXT_OFFER_MAX_LEN	32
static_assert(IXT_TEXT_MAX_PAIRS * (IXT_KEY_MAX_LEN + 2 + IXT_ANSWER_MAX_LEN) +
	      IXT_KEY_NR * (IXT_KEY_MAX_LEN + 2 + IXT_OFFER_MAX_LEN) +
	      IXT_ALIAS_LEN <= IXT_NEG_RSP_LEN);

/* &ixt_neg_key.state bits. */
#define IXT_KS_RECEIVED		BIT(0)	/* initiator offered or declared it */
#define IXT_KS_NEW		BIT(1)	/* ... in the request at hand */
#define IXT_KS_OFFERED		BIT(2)	/* target offered it */
#define IXT_KS_ANSWERED		BIT(3)	/* initiator answered that offer */
#define IXT_KS_OPTIONAL		BIT(4)	/* that offer needs no answer */
#define IXT_KS_DECLARED		BIT(5)	/* target declared it */
#define IXT_KS_RESULT		BIT(6)	/* res holds the outcome */

/* &ixt_neg_key.reply: what the response says about a key just received. */
#define IXT_REPLY_NONE		0
#define IXT_REPLY_VALUE		1
#define IXT_REPLY_IRRELEVANT	2
#define IXT_REPLY_REJECT	3

/*
 * The key table
 */

static const char * const ixt_digest_names[] = {
	[IXT_DIGEST_NONE]		= "None",
	[IXT_DIGEST_CRC32C]		= "CRC32C",
};

static const char * const ixt_auth_names[] = {
	[IXT_AUTH_NONE]			= "None",
	[IXT_AUTH_CHAP]			= "CHAP",
};

static const char * const ixt_session_names[] = {
	[IXT_SESSION_NORMAL]		= "Normal",
	[IXT_SESSION_DISCOVERY]		= "Discovery",
};

static const char * const ixt_task_reporting_names[] = {
	[IXT_TASK_REPORTING_RFC3720]	= "RFC3720",
};

/* Who sends what, and when. */
#define IXT_LOGIN		(IXT_KF_SECURITY | IXT_KF_OPERATIONAL)
#define IXT_BOTH		(IXT_KF_INITIATOR | IXT_KF_TARGET)
#define IXT_LO_SESSION		(IXT_KF_OPERATIONAL | IXT_BOTH | IXT_KF_LO | \
				 IXT_KF_SESSION)
#define IXT_CONN		(IXT_KF_OPERATIONAL | IXT_BOTH)

static const struct ixt_key_desc ixt_keys[IXT_KEY_NR] = {
	[IXT_KEY_SESSION_TYPE] = {
		.name = "SessionType", .type = IXT_KT_ENUM,
		.func = IXT_RF_DECLARE,
		.values = ixt_session_names,
		.nr_values = ARRAY_SIZE(ixt_session_names),
		.flags = IXT_LOGIN | IXT_KF_INITIATOR | IXT_KF_LO |
			 IXT_KF_FIRST | IXT_KF_SESSION,
		.max_len = IXT_VALUE_MAX_LEN, .def = IXT_SESSION_NORMAL,
	},
	[IXT_KEY_INITIATOR_NAME] = {
		.name = "InitiatorName", .type = IXT_KT_NAME,
		.func = IXT_RF_DECLARE,
		.flags = IXT_LOGIN | IXT_KF_INITIATOR | IXT_KF_FIRST |
			 IXT_KF_SESSION,
		.max_len = ISCSI_NAME_LEN - 1,
	},
	[IXT_KEY_TARGET_NAME] = {
		.name = "TargetName", .type = IXT_KT_NAME,
		.func = IXT_RF_DECLARE,
		.flags = IXT_LOGIN | IXT_KF_INITIATOR | IXT_KF_FIRST |
			 IXT_KF_SESSION,
		.max_len = ISCSI_NAME_LEN - 1,
	},
	[IXT_KEY_INITIATOR_ALIAS] = {
		.name = "InitiatorAlias", .type = IXT_KT_TEXT,
		.func = IXT_RF_DECLARE,
		.flags = IXT_LOGIN | IXT_KF_FFP | IXT_KF_INITIATOR |
			 IXT_KF_SESSION,
		.max_len = IXT_VALUE_MAX_LEN,
	},
	[IXT_KEY_TARGET_ALIAS] = {
		.name = "TargetAlias", .type = IXT_KT_TEXT,
		.func = IXT_RF_DECLARE,
		.flags = IXT_LOGIN | IXT_KF_FFP | IXT_KF_TARGET |
			 IXT_KF_SESSION,
		.max_len = IXT_VALUE_MAX_LEN,
	},
	[IXT_KEY_TARGET_ADDRESS] = {
		.name = "TargetAddress", .type = IXT_KT_TEXT,
		.func = IXT_RF_DECLARE,
		.flags = IXT_LOGIN | IXT_KF_FFP | IXT_KF_TARGET |
			 IXT_KF_SESSION,
		.max_len = IXT_VALUE_MAX_LEN,
	},
	[IXT_KEY_TPGT] = {
		.name = "TargetPortalGroupTag", .type = IXT_KT_NUMBER,
		.func = IXT_RF_DECLARE,
		.flags = IXT_LOGIN | IXT_KF_TARGET | IXT_KF_SESSION,
		.max_len = IXT_VALUE_MAX_LEN, .max = U16_MAX,
	},
	[IXT_KEY_SEND_TARGETS] = {
		.name = "SendTargets", .type = IXT_KT_TEXT,
		.func = IXT_RF_DECLARE,
		.flags = IXT_KF_FFP | IXT_KF_INITIATOR | IXT_KF_SESSION,
		.max_len = IXT_VALUE_MAX_LEN,
	},
	[IXT_KEY_AUTH_METHOD] = {
		.name = "AuthMethod", .type = IXT_KT_LIST,
		.func = IXT_RF_SELECT,
		.values = ixt_auth_names,
		.nr_values = ARRAY_SIZE(ixt_auth_names),
		.flags = IXT_KF_SECURITY | IXT_BOTH,
		.max_len = IXT_VALUE_LONG_LEN, .def = IXT_AUTH_NONE,
	},
	[IXT_KEY_HEADER_DIGEST] = {
		.name = "HeaderDigest", .type = IXT_KT_LIST,
		.func = IXT_RF_SELECT,
		.values = ixt_digest_names,
		.nr_values = ARRAY_SIZE(ixt_digest_names),
		.flags = IXT_CONN,
		.max_len = IXT_VALUE_LONG_LEN, .def = IXT_DIGEST_NONE,
	},
	[IXT_KEY_DATA_DIGEST] = {
		.name = "DataDigest", .type = IXT_KT_LIST,
		.func = IXT_RF_SELECT,
		.values = ixt_digest_names,
		.nr_values = ARRAY_SIZE(ixt_digest_names),
		.flags = IXT_CONN,
		.max_len = IXT_VALUE_LONG_LEN, .def = IXT_DIGEST_NONE,
	},
	[IXT_KEY_RDMA_EXTENSIONS] = {
		.name = "RDMAExtensions", .type = IXT_KT_BOOL,
		.func = IXT_RF_AND,
		.flags = IXT_LO_SESSION | IXT_KF_NORMAL,
		.max_len = IXT_VALUE_MAX_LEN, .def = false,
	},
	[IXT_KEY_MAX_RECV_DSL] = {
		.name = "MaxRecvDataSegmentLength", .type = IXT_KT_NUMBER,
		.func = IXT_RF_DECLARE,
		.flags = IXT_CONN | IXT_KF_FFP | IXT_KF_NOT_RDMA,
		.max_len = IXT_VALUE_MAX_LEN,
		.def = ISCSI_DEF_MAX_RECV_SEG_LEN, .min = 512, .max = IXT_DSL_MAX,
	},
	[IXT_KEY_TARGET_RDSL] = {
		.name = "TargetRecvDataSegmentLength", .type = IXT_KT_NUMBER,
		.func = IXT_RF_MIN,
		.flags = IXT_CONN | IXT_KF_RDMA,
		.max_len = IXT_VALUE_MAX_LEN,
		.def = ISCSI_DEF_MAX_RECV_SEG_LEN, .min = 512, .max = IXT_DSL_MAX,
	},
	[IXT_KEY_INITIATOR_RDSL] = {
		.name = "InitiatorRecvDataSegmentLength", .type = IXT_KT_NUMBER,
		.func = IXT_RF_MIN,
		.flags = IXT_CONN | IXT_KF_RDMA,
		.max_len = IXT_VALUE_MAX_LEN,
		.def = ISCSI_DEF_MAX_RECV_SEG_LEN, .min = 512, .max = IXT_DSL_MAX,
	},
	[IXT_KEY_MAX_OUT_UNEXP_PDUS] = {
		.name = "MaxOutstandingUnexpectedPDUs", .type = IXT_KT_NUMBER,
		.func = IXT_RF_MIN,
		.flags = IXT_LO_SESSION | IXT_KF_RDMA | IXT_KF_NO_OFFER,
		.max_len = IXT_VALUE_MAX_LEN, .def = 0, .max = U32_MAX,
	},
	[IXT_KEY_MAX_CONNECTIONS] = {
		.name = "MaxConnections", .type = IXT_KT_NUMBER,
		.func = IXT_RF_MIN,
		.flags = IXT_LO_SESSION | IXT_KF_NORMAL,
		.max_len = IXT_VALUE_MAX_LEN, .def = 1, .min = 1, .max = U16_MAX,
	},
	[IXT_KEY_INITIAL_R2T] = {
		.name = "InitialR2T", .type = IXT_KT_BOOL, .func = IXT_RF_OR,
		.flags = IXT_LO_SESSION | IXT_KF_NORMAL,
		.max_len = IXT_VALUE_MAX_LEN, .def = true,
	},
	[IXT_KEY_IMMEDIATE_DATA] = {
		.name = "ImmediateData", .type = IXT_KT_BOOL,
		.func = IXT_RF_AND,
		.flags = IXT_LO_SESSION | IXT_KF_NORMAL,
		.max_len = IXT_VALUE_MAX_LEN, .def = true,
	},
	[IXT_KEY_MAX_BURST] = {
		.name = "MaxBurstLength", .type = IXT_KT_NUMBER,
		.func = IXT_RF_MIN,
		.flags = IXT_LO_SESSION | IXT_KF_NORMAL,
		.max_len = IXT_VALUE_MAX_LEN,
		.def = ISCSI_DEF_MAX_BURST_LEN, .min = 512, .max = IXT_DSL_MAX,
	},
	[IXT_KEY_FIRST_BURST] = {
		.name = "FirstBurstLength", .type = IXT_KT_NUMBER,
		.func = IXT_RF_MIN,
		.flags = IXT_LO_SESSION | IXT_KF_NORMAL,
		.max_len = IXT_VALUE_MAX_LEN,
		.def = ISCSI_DEF_FIRST_BURST_LEN, .min = 512, .max = IXT_DSL_MAX,
	},
	[IXT_KEY_TIME2WAIT] = {
		.name = "DefaultTime2Wait", .type = IXT_KT_NUMBER,
		.func = IXT_RF_MAX, .flags = IXT_LO_SESSION,
		.max_len = IXT_VALUE_MAX_LEN, .def = 2, .max = 3600,
	},
	[IXT_KEY_TIME2RETAIN] = {
		.name = "DefaultTime2Retain", .type = IXT_KT_NUMBER,
		.func = IXT_RF_MIN, .flags = IXT_LO_SESSION,
		.max_len = IXT_VALUE_MAX_LEN, .def = 20, .max = 3600,
	},
	[IXT_KEY_DATA_PDU_IN_ORDER] = {
		.name = "DataPDUInOrder", .type = IXT_KT_BOOL,
		.func = IXT_RF_OR,
		.flags = IXT_LO_SESSION | IXT_KF_NORMAL,
		.max_len = IXT_VALUE_MAX_LEN, .def = true,
	},
	[IXT_KEY_DATA_SEQ_IN_ORDER] = {
		.name = "DataSequenceInOrder", .type = IXT_KT_BOOL,
		.func = IXT_RF_OR,
		.flags = IXT_LO_SESSION | IXT_KF_NORMAL,
		.max_len = IXT_VALUE_MAX_LEN, .def = true,
	},
	[IXT_KEY_ERL] = {
		.name = "ErrorRecoveryLevel", .type = IXT_KT_NUMBER,
		.func = IXT_RF_MIN, .flags = IXT_LO_SESSION,
		.max_len = IXT_VALUE_MAX_LEN, .def = 0, .max = 2,
	},
	[IXT_KEY_MAX_R2T] = {
		.name = "MaxOutstandingR2T", .type = IXT_KT_NUMBER,
		.func = IXT_RF_MIN,
		.flags = IXT_LO_SESSION | IXT_KF_NORMAL,
		.max_len = IXT_VALUE_MAX_LEN, .def = 1, .min = 1, .max = U16_MAX,
	},
	[IXT_KEY_TASK_REPORTING] = {
		.name = "TaskReporting", .type = IXT_KT_LIST,
		.func = IXT_RF_SELECT,
		.values = ixt_task_reporting_names,
		.nr_values = ARRAY_SIZE(ixt_task_reporting_names),
		.flags = IXT_LO_SESSION | IXT_KF_NORMAL | IXT_KF_NO_OFFER,
		.max_len = IXT_VALUE_LONG_LEN,
		.def = IXT_TASK_REPORTING_RFC3720,
	},
	[IXT_KEY_PROTOCOL_LEVEL] = {
		.name = "iSCSIProtocolLevel", .type = IXT_KT_NUMBER,
		.func = IXT_RF_MIN, .flags = IXT_LO_SESSION | IXT_KF_NO_OFFER,
		.max_len = IXT_VALUE_MAX_LEN, .def = 0, .max = 31,
	},
	[IXT_KEY_OF_MARKER] = {
		.name = "OFMarker", .type = IXT_KT_BOOL, .func = IXT_RF_AND,
		.flags = IXT_CONN | IXT_KF_OBSOLETE,
		.max_len = IXT_VALUE_MAX_LEN, .def = false,
	},
	[IXT_KEY_IF_MARKER] = {
		.name = "IFMarker", .type = IXT_KT_BOOL, .func = IXT_RF_AND,
		.flags = IXT_CONN | IXT_KF_OBSOLETE,
		.max_len = IXT_VALUE_MAX_LEN, .def = false,
	},
	[IXT_KEY_OF_MARK_INT] = {
		.name = "OFMarkInt", .type = IXT_KT_RANGE,
		.func = IXT_RF_REJECT,
		.flags = IXT_CONN | IXT_KF_OBSOLETE,
		.max_len = IXT_VALUE_MAX_LEN, .min = 1, .max = U16_MAX,
	},
	[IXT_KEY_IF_MARK_INT] = {
		.name = "IFMarkInt", .type = IXT_KT_RANGE,
		.func = IXT_RF_REJECT,
		.flags = IXT_CONN | IXT_KF_OBSOLETE,
		.max_len = IXT_VALUE_MAX_LEN, .min = 1, .max = U16_MAX,
	},
};

/*
 * Small parsers and formatters, shared by the wire and configfs
 */

static bool ixt_str_eq(const char *s, u32 len, const char *lit)
{
	return strlen(lit) == len && !memcmp(s, lit, len);
}

static bool ixt_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The value of digit @c in @base (10 or 16), or -EINVAL. */
static int ixt_digit(char c, unsigned int base)
{
	if (ixt_is_digit(c))
		return c - '0';
	if (base != 16)
		return -EINVAL;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -EINVAL;
}

/*
 * A numerical-value: a decimal-constant (no leading zero) or a
 * hex-constant ("0x" or "0X" and hex digits), below 2^64.
 */
static int ixt_parse_u64(const char *s, u32 len, u64 *val)
{
	unsigned int base = 10;
	u64 v = 0;
	u32 i = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	} else if (!len || (s[0] == '0' && len > 1)) {
		return -EINVAL;
	}
	for (; i < len; i++) {
		int d = ixt_digit(s[i], base);

		if (d < 0)
			return -EINVAL;
		if (check_mul_overflow(v, (u64)base, &v) ||
		    check_add_overflow(v, (u64)d, &v))
			return -ERANGE;
	}
	*val = v;
	return 0;
}

/* A numerical-value within [@min, @max]. */
static int ixt_parse_u32(const char *s, u32 len, u32 min, u32 max, u32 *val)
{
	u64 v;
	int ret;

	ret = ixt_parse_u64(s, len, &v);
	if (ret)
		return ret;
	if (v < min || v > max)
		return -ERANGE;
	*val = v;
	return 0;
}

/*
 * Writes @v in decimal and a NUL at @buf, which has room for
 * %IXT_U32_DEC_LEN bytes; returns the digits written.
 */
static u32 ixt_format_u32(char *buf, u32 v)
{
	char tmp[IXT_U32_DEC_LEN];
	u32 n = 0, i;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

/* Index of the name @s in the key's value names, or -ENOENT. */
static int ixt_value_index(const struct ixt_key_desc *desc, const char *s,
			   u32 len)
{
	int i;

	for (i = 0; i < desc->nr_values; i++)
		if (ixt_str_eq(s, len, desc->values[i]))
			return i;
	return -ENOENT;
}

/* A "Yes" or "No", or a number within the key's range. */
static int ixt_parse_value(const struct ixt_key_desc *desc, const char *s,
			   u32 len, u32 *val)
{
	if (desc->type == IXT_KT_NUMBER)
		return ixt_parse_u32(s, len, desc->min, desc->max, val);
	if (ixt_str_eq(s, len, "Yes"))
		*val = true;
	else if (ixt_str_eq(s, len, "No"))
		*val = false;
	else
		return -EINVAL;
	return 0;
}

/* Bytes in the UTF-8 sequence led by @c, or 0 if @c cannot lead one. */
static u32 ixt_utf8_seq_len(u8 c, u32 *cp, u32 *min_cp)
{
	if (c < 0x80) {
		*cp = c;
		*min_cp = 0;
		return 1;
	}
	if ((c & 0xe0) == 0xc0) {
		*cp = c & 0x1f;
		*min_cp = 0x80;
		return 2;
	}
	if ((c & 0xf0) == 0xe0) {
		*cp = c & 0x0f;
		*min_cp = 0x800;
		return 3;
	}
	if ((c & 0xf8) == 0xf0) {
		*cp = c & 0x07;
		*min_cp = 0x10000;
		return 4;
	}
	return 0;
}

/*
 * Well-formed UTF-8 (RFC 3629): no overlong form, no surrogate, nothing
 * above U+10FFFF, no truncated sequence.
 */
static bool ixt_utf8_valid(const char *str, u32 len)
{
	const u8 *s = (const u8 *)str;
	u32 i = 0;

	while (i < len) {
		u32 cp, min_cp, n, j;

		n = ixt_utf8_seq_len(s[i], &cp, &min_cp);
		if (!n || n > len - i)
			return false;
		for (j = 1; j < n; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if (cp < min_cp || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += n;
	}
	return true;
}

/* No ASCII control character; with @no_space, no space either. */
static bool ixt_printable(const char *s, u32 len, bool no_space)
{
	u32 i;

	for (i = 0; i < len; i++) {
		u8 c = s[i];

		if (c < ' ' || c == 0x7f || (no_space && c == ' '))
			return false;
	}
	return true;
}

/*
 * Key descriptors
 */

/**
 * ixt_key_get() - the descriptor of a standard key
 * @key: the key.
 *
 * Context: Any context.
 * Return: the descriptor, or %NULL (and a warning: a caller bug) if @key
 * is not a key.
 */
const struct ixt_key_desc *ixt_key_get(enum ixt_key key)
{
	if (WARN_ON_ONCE((unsigned int)key >= IXT_KEY_NR))
		return NULL;
	return &ixt_keys[key];
}

/**
 * ixt_key_lookup() - find a standard key by name
 * @name: the key name; need not be NUL-terminated.
 * @len: length of @name in bytes.
 *
 * Names are case-sensitive, as on the wire.
 *
 * Context: Any context.
 * Return: the &enum ixt_key of the key, or -ENOENT for any other name
 * (extension keys, authentication keys, unknown keys).
 */
int ixt_key_lookup(const char *name, u32 len)
{
	int k;

	for (k = 0; k < IXT_KEY_NR; k++)
		if (ixt_str_eq(name, len, ixt_keys[k].name))
			return k;
	return -ENOENT;
}

/**
 * ixt_key_is_auth() - whether a key belongs to the authentication exchange
 * @name: the key name; need not be NUL-terminated.
 * @len: length of @name in bytes.
 *
 * The CHAP keys (CHAP_A, CHAP_I, CHAP_C, CHAP_N, CHAP_R) are exchanged in
 * the security stage once AuthMethod=CHAP is chosen. The engine leaves
 * them to the authentication code; any other key, CHAP_ prefix or not,
 * is the engine's (an unknown one: "NotUnderstood").
 *
 * Context: Any context.
 * Return: true if @name is one of those five.
 */
bool ixt_key_is_auth(const char *name, u32 len)
{
	if (len != 6 || memcmp(name, "CHAP_", 5))
		return false;
	switch (name[5]) {
	case 'A':
	case 'I':
	case 'C':
	case 'N':
	case 'R':
		return true;
	default:
		return false;
	}
}

/* Longest value the key @name may carry. */
static u32 ixt_value_max_len(const char *name, u32 len)
{
	int k = ixt_key_lookup(name, len);

	if (k >= 0)
		return ixt_keys[k].max_len;
	return ixt_key_is_auth(name, len) ? IXT_VALUE_LONG_LEN :
	       IXT_VALUE_MAX_LEN;
}

/* A character of a standard-label after the first. */
static bool ixt_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       ixt_is_digit(c) || c == '.' || c == '-' || c == '+' ||
	       c == '@' || c == '_';
}

/*
 * A key name: a standard-label (a capital letter, then letters, digits,
 * dot, minus, plus, commercial at, underscore), where a public extension
 * key may have "X#" as its first two characters. RFC 7144 breaks the
 * capital letter rule with iSCSIProtocolLevel, a standard key.
 */
static int ixt_key_check(const char *key, u32 len)
{
	u32 i;

	if (!len || ((key[0] < 'A' || key[0] > 'Z') &&
		     ixt_key_lookup(key, len) < 0))
		return -EINVAL;
	if (len > IXT_KEY_MAX_LEN)
		return -EMSGSIZE;
	for (i = 1; i < len; i++)
		if (!ixt_key_char(key[i]) && !(i == 1 && key[0] == 'X' &&
					       key[1] == '#'))
			return -EINVAL;
	return 0;
}

/*
 * Text: splitting a request, building a response
 */

/* Checks the pair at @pair, @len bytes up to its NUL. */
static int ixt_text_check_pair(const char *pair, u32 len)
{
	const char *eq = memchr(pair, '=', len);
	u32 key_len, value_len;
	int ret;

	if (!eq)
		return -EINVAL;
	key_len = eq - pair;
	value_len = len - key_len - 1;
	ret = ixt_key_check(pair, key_len);
	if (ret)
		return ret;
	if (value_len > ixt_value_max_len(pair, key_len))
		return -EMSGSIZE;
	return ixt_utf8_valid(eq + 1, value_len) ? 0 : -EINVAL;
}

/**
 * ixt_text_check() - validate the text of a Login or Text Request
 * @text: the data segments of the request's PDUs, concatenated.
 * @len: length of @text in bytes.
 *
 * The text is a sequence of key=value pairs, each followed by one NUL,
 * the last included. A key is a standard-label (RFC 7143 section 6.1) of
 * 1..%IXT_KEY_MAX_LEN bytes; a value is well-formed UTF-8 of at most
 * %IXT_VALUE_MAX_LEN bytes, %IXT_VALUE_LONG_LEN for list-of-values and
 * CHAP keys. At most %IXT_TEXT_MAX_PAIRS pairs and %IXT_TEXT_MAX_LEN
 * bytes. An empty text has no pair.
 *
 * Context: Any context.
 * Return:
 * * >= 0 - the number of pairs: the text may be walked with
 *   ixt_text_next().
 * * -EINVAL - a pair without '=', an invalid key name, a value that is
 *   not UTF-8, or no NUL at the end.
 * * -EMSGSIZE - the text, a key or a value is too long.
 * * -E2BIG - too many pairs.
 */
int ixt_text_check(const char *text, u32 len)
{
	u32 pos = 0;
	int nr = 0;

	if (len > IXT_TEXT_MAX_LEN)
		return -EMSGSIZE;
	if (len && text[len - 1] != '\0')
		return -EINVAL;
	while (pos < len) {
		u32 pair_len = strlen(text + pos);
		int ret;

		if (++nr > IXT_TEXT_MAX_PAIRS)
			return -E2BIG;
		ret = ixt_text_check_pair(text + pos, pair_len);
		if (ret)
			return ret;
		pos += pair_len + 1;
	}
	return nr;
}

/**
 * ixt_text_next() - the next key=value pair of a checked text
 * @text: a text that ixt_text_check() accepted.
 * @len: length of @text in bytes.
 * @pos: offset of the next pair; 0 for the first. Advanced past it.
 * @pair: where to store the pair; points into @text.
 *
 * Context: Any context.
 * Return: true if a pair was stored; false at the end of @text, or (and a
 * warning: a caller bug) if @text was not checked.
 */
bool ixt_text_next(const char *text, u32 len, u32 *pos,
		   struct ixt_text_pair *pair)
{
	const char *start = text + *pos;
	const char *eq;
	u32 pair_len;

	if (*pos >= len)
		return false;
	pair_len = strnlen(start, len - *pos);
	eq = memchr(start, '=', pair_len);
	if (WARN_ON_ONCE(!eq || pair_len == len - *pos))
		return false;
	pair->key = start;
	pair->key_len = eq - start;
	pair->value = eq + 1;
	pair->value_len = pair_len - pair->key_len - 1;
	*pos += pair_len + 1;
	return true;
}

/**
 * ixt_text_find() - find a key in a checked text
 * @text: a text that ixt_text_check() accepted.
 * @len: length of @text in bytes.
 * @key: the key name, NUL-terminated.
 * @pair: where to store the first pair with that key.
 *
 * For the login code, which needs the TargetName and SessionType of a
 * first request to find the TPG whose offer the negotiation uses.
 *
 * Context: Any context.
 * Return: 0 if found, else -ENOENT.
 */
int ixt_text_find(const char *text, u32 len, const char *key,
		  struct ixt_text_pair *pair)
{
	u32 pos = 0;

	while (ixt_text_next(text, len, &pos, pair))
		if (ixt_str_eq(pair->key, pair->key_len, key))
			return 0;
	return -ENOENT;
}

/*
 * The keys of one request that are not standard keys (repeats of those
 * the key states catch), sorted, to find a repeat in a binary search:
 * at most IXT_TEXT_MAX_PAIRS keys, each of at most IXT_KEY_MAX_LEN
 * bytes, so about 900 comparisons of keys for the largest request. Each
 * entry is a key's offset in the text (less than IXT_TEXT_MAX_LEN) and
 * its length, in the low byte.
 */
struct ixt_keys_seen {
	const char *text;
	u32 nr;
	u32 at[IXT_TEXT_MAX_PAIRS];
};

static_assert(IXT_TEXT_MAX_LEN <= 1 << 24 && IXT_KEY_MAX_LEN < 256);

static int ixt_keys_seen_cmp(const struct ixt_keys_seen *seen, u32 at,
			     const struct ixt_text_pair *pair)
{
	u32 len = at & 0xff;
	int d = memcmp(seen->text + (at >> 8), pair->key,
		       min(len, pair->key_len));

	return d ? d : (int)len - (int)pair->key_len;
}

/* Adds the key of @pair; false if it was there already. */
static bool ixt_keys_seen_add(struct ixt_keys_seen *seen,
			      const struct ixt_text_pair *pair)
{
	u32 lo = 0, hi = seen->nr, mid;
	int d;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		d = ixt_keys_seen_cmp(seen, seen->at[mid], pair);
		if (!d)
			return false;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ixt_text_check() let no more pairs through. */
	if (WARN_ON_ONCE(seen->nr == IXT_TEXT_MAX_PAIRS))
		return false;
	memmove(&seen->at[lo + 1], &seen->at[lo],
		(seen->nr - lo) * sizeof(seen->at[0]));
	seen->at[lo] = (u32)(pair->key - seen->text) << 8 | pair->key_len;
	seen->nr++;
	return true;
}

/**
 * ixt_text_buf_init() - start an empty response
 * @buf: the response.
 * @data: storage for its text.
 * @size: bytes at @data; %IXT_NEG_RSP_LEN hold any negotiation response.
 *
 * Context: Any context.
 */
void ixt_text_buf_init(struct ixt_text_buf *buf, char *data, u32 size)
{
	buf->data = data;
	buf->size = size;
	buf->len = 0;
	buf->sent = 0;
}

static int ixt_text_add_n(struct ixt_text_buf *buf, const char *key,
			  u32 key_len, const char *value, u32 value_len)
{
	char *p = buf->data + buf->len;

	if (key_len + value_len + 2 > buf->size - buf->len)
		return -ENOSPC;
	memcpy(p, key, key_len);
	p[key_len] = '=';
	memcpy(p + key_len + 1, value, value_len);
	p[key_len + 1 + value_len] = '\0';
	buf->len += key_len + value_len + 2;
	return 0;
}

/**
 * ixt_text_add() - append a key=value pair to a response
 * @buf: the response.
 * @key: the key name, NUL-terminated.
 * @value: the value, NUL-terminated.
 *
 * Appends "key=value" and its NUL. The caller vouches for the syntax.
 *
 * Context: Any context.
 * Return: 0, or -ENOSPC if the pair does not fit; the response is then
 * left as it was.
 */
int ixt_text_add(struct ixt_text_buf *buf, const char *key,
		 const char *value)
{
	return ixt_text_add_n(buf, key, strlen(key), value, strlen(value));
}

/**
 * ixt_text_add_u32() - append a key with a decimal value to a response
 * @buf: the response.
 * @key: the key name, NUL-terminated.
 * @value: the value.
 *
 * Context: Any context.
 * Return: 0, or -ENOSPC if the pair does not fit; the response is then
 * left as it was.
 */
int ixt_text_add_u32(struct ixt_text_buf *buf, const char *key, u32 value)
{
	char dec[IXT_U32_DEC_LEN];
	u32 n = ixt_format_u32(dec, value);

	return ixt_text_add_n(buf, key, strlen(key), dec, n);
}

/**
 * ixt_text_chunk() - the next piece of a response to send
 * @buf: the response.
 * @max: the most bytes one PDU may carry: the initiator's
 *	MaxRecvDataSegmentLength (8192 during login).
 * @chunk: where to store the start of the piece.
 * @more: where to store whether bytes remain after this piece: the C
 *	(continue) bit of the PDU that carries it.
 *
 * Pieces split the text anywhere, pairs included, as RFC 7143 allows;
 * the initiator concatenates them. The first call on an empty response
 * returns an empty piece.
 *
 * Context: Any context.
 * Return: the length of the piece, at most @max; 0 with *@more false
 * once everything was handed out, and 0 with a warning if @max is 0.
 */
u32 ixt_text_chunk(struct ixt_text_buf *buf, u32 max, const char **chunk,
		   bool *more)
{
	u32 n = min(buf->len - buf->sent, max);

	*chunk = buf->data + buf->sent;
	buf->sent += n;
	*more = buf->sent < buf->len;
	WARN_ON_ONCE(!max && *more);
	return n;
}

/*
 * The TPG offer: configfs param/
 */

/* How a param/ attribute is stored in &struct ixt_offer. */
#define IXT_PK_LIST		0	/* struct ixt_vlist */
#define IXT_PK_BOOL		1	/* bool */
#define IXT_PK_U32		2	/* u32 */
#define IXT_PK_TEXT		3	/* char[IXT_ALIAS_LEN] */
#define IXT_PK_MARKINT		4	/* char[IXT_MARKINT_LEN] */

/**
 * struct ixt_param_desc - one attribute of param/
 * @name: attribute name, as in LIO.
 * @off: offset of its value in &struct ixt_offer.
 * @kind: storage and syntax, IXT_PK_*.
 * @key: the key whose syntax, range and value names apply.
 */
struct ixt_param_desc {
	const char *name;
	u16 off;
	u8 kind;
	u8 key;
};

#define IXT_PARAM(_name, _field, _kind, _key) {				\
	.name = _name, .off = offsetof(struct ixt_offer, _field),	\
	.kind = _kind, .key = _key,					\
}

static const struct ixt_param_desc ixt_params[IXT_PARAM_NR] = {
	[IXT_PARAM_AUTH_METHOD] = IXT_PARAM("AuthMethod", auth_method,
					    IXT_PK_LIST, IXT_KEY_AUTH_METHOD),
	[IXT_PARAM_HEADER_DIGEST] = IXT_PARAM("HeaderDigest", header_digest,
					      IXT_PK_LIST,
					      IXT_KEY_HEADER_DIGEST),
	[IXT_PARAM_DATA_DIGEST] = IXT_PARAM("DataDigest", data_digest,
					    IXT_PK_LIST, IXT_KEY_DATA_DIGEST),
	[IXT_PARAM_MAX_CONNECTIONS] = IXT_PARAM("MaxConnections",
						max_connections, IXT_PK_U32,
						IXT_KEY_MAX_CONNECTIONS),
	[IXT_PARAM_TARGET_ALIAS] = IXT_PARAM("TargetAlias", target_alias,
					     IXT_PK_TEXT,
					     IXT_KEY_TARGET_ALIAS),
	[IXT_PARAM_INITIAL_R2T] = IXT_PARAM("InitialR2T", initial_r2t,
					    IXT_PK_BOOL, IXT_KEY_INITIAL_R2T),
	[IXT_PARAM_IMMEDIATE_DATA] = IXT_PARAM("ImmediateData",
					       immediate_data, IXT_PK_BOOL,
					       IXT_KEY_IMMEDIATE_DATA),
	[IXT_PARAM_MAX_RECV_DSL] = IXT_PARAM("MaxRecvDataSegmentLength",
					     max_recv_dlength, IXT_PK_U32,
					     IXT_KEY_MAX_RECV_DSL),
	[IXT_PARAM_MAX_XMIT_DSL] = IXT_PARAM("MaxXmitDataSegmentLength",
					     max_xmit_dlength, IXT_PK_U32,
					     IXT_KEY_MAX_RECV_DSL),
	[IXT_PARAM_MAX_BURST] = IXT_PARAM("MaxBurstLength", max_burst_length,
					  IXT_PK_U32, IXT_KEY_MAX_BURST),
	[IXT_PARAM_FIRST_BURST] = IXT_PARAM("FirstBurstLength",
					    first_burst_length, IXT_PK_U32,
					    IXT_KEY_FIRST_BURST),
	[IXT_PARAM_TIME2WAIT] = IXT_PARAM("DefaultTime2Wait",
					  default_time2wait, IXT_PK_U32,
					  IXT_KEY_TIME2WAIT),
	[IXT_PARAM_TIME2RETAIN] = IXT_PARAM("DefaultTime2Retain",
					    default_time2retain, IXT_PK_U32,
					    IXT_KEY_TIME2RETAIN),
	[IXT_PARAM_MAX_R2T] = IXT_PARAM("MaxOutstandingR2T",
					max_outstanding_r2t, IXT_PK_U32,
					IXT_KEY_MAX_R2T),
	[IXT_PARAM_DATA_PDU_IN_ORDER] = IXT_PARAM("DataPDUInOrder",
						  data_pdu_in_order,
						  IXT_PK_BOOL,
						  IXT_KEY_DATA_PDU_IN_ORDER),
	[IXT_PARAM_DATA_SEQ_IN_ORDER] = IXT_PARAM("DataSequenceInOrder",
						  data_sequence_in_order,
						  IXT_PK_BOOL,
						  IXT_KEY_DATA_SEQ_IN_ORDER),
	[IXT_PARAM_ERL] = IXT_PARAM("ErrorRecoveryLevel",
				    error_recovery_level, IXT_PK_U32,
				    IXT_KEY_ERL),
	[IXT_PARAM_IF_MARKER] = IXT_PARAM("IFMarker", if_marker, IXT_PK_BOOL,
					  IXT_KEY_IF_MARKER),
	[IXT_PARAM_OF_MARKER] = IXT_PARAM("OFMarker", of_marker, IXT_PK_BOOL,
					  IXT_KEY_OF_MARKER),
	[IXT_PARAM_IF_MARK_INT] = IXT_PARAM("IFMarkInt", if_mark_int,
					    IXT_PK_MARKINT,
					    IXT_KEY_IF_MARK_INT),
	[IXT_PARAM_OF_MARK_INT] = IXT_PARAM("OFMarkInt", of_mark_int,
					    IXT_PK_MARKINT,
					    IXT_KEY_OF_MARK_INT),
};

/**
 * ixt_offer_init() - an offer with LIO's defaults
 * @offer: the offer to fill.
 * @tpgt: the tag of the TPG it belongs to.
 *
 * AuthMethod=CHAP, HeaderDigest and DataDigest CRC32C,None,
 * MaxConnections=1, TargetAlias "LIO Target", InitialR2T=Yes,
 * ImmediateData=Yes, MaxRecvDataSegmentLength=8192,
 * MaxXmitDataSegmentLength=262144, MaxBurstLength=262144,
 * FirstBurstLength=65536, DefaultTime2Wait=2, DefaultTime2Retain=20,
 * MaxOutstandingR2T=1, DataPDUInOrder=Yes, DataSequenceInOrder=Yes,
 * ErrorRecoveryLevel=0, IFMarker=No, OFMarker=No, IFMarkInt and OFMarkInt
 * Reject; for iSER, TargetRecvDataSegmentLength=8192 and
 * InitiatorRecvDataSegmentLength=262144.
 *
 * Context: Any context.
 */
void ixt_offer_init(struct ixt_offer *offer, u16 tpgt)
{
	*offer = (struct ixt_offer){
		.auth_method = { .nr = 1, .v = { IXT_AUTH_CHAP } },
		.header_digest = {
			.nr = 2, .v = { IXT_DIGEST_CRC32C, IXT_DIGEST_NONE },
		},
		.data_digest = {
			.nr = 2, .v = { IXT_DIGEST_CRC32C, IXT_DIGEST_NONE },
		},
		.max_connections = 1,
		.target_alias = "LIO Target",
		.initial_r2t = true,
		.immediate_data = true,
		.max_recv_dlength = ISCSI_DEF_MAX_RECV_SEG_LEN,
		.max_xmit_dlength = 262144,
		.max_burst_length = ISCSI_DEF_MAX_BURST_LEN,
		.first_burst_length = ISCSI_DEF_FIRST_BURST_LEN,
		.default_time2wait = 2,
		.default_time2retain = 20,
		.max_outstanding_r2t = 1,
		.data_pdu_in_order = true,
		.data_sequence_in_order = true,
		.if_mark_int = IXT_REJECT,
		.of_mark_int = IXT_REJECT,
		.target_recv_dlength = ISCSI_DEF_MAX_RECV_SEG_LEN,
		.initiator_recv_dlength = 262144,
		.tpgt = tpgt,
	};
}

/**
 * ixt_offer_param_name() - the configfs name of a param/ attribute
 * @param: the attribute.
 *
 * Context: Any context.
 * Return: the name, or %NULL (and a warning: a caller bug) if @param is
 * not an attribute.
 */
const char *ixt_offer_param_name(enum ixt_offer_param param)
{
	if (WARN_ON_ONCE((unsigned int)param >= IXT_PARAM_NR))
		return NULL;
	return ixt_params[param].name;
}

/**
 * ixt_offer_param_find() - find a param/ attribute by name
 * @name: the name, NUL-terminated, case-sensitive.
 *
 * Context: Any context.
 * Return: the &enum ixt_offer_param, or -ENOENT.
 */
int ixt_offer_param_find(const char *name)
{
	int i;

	for (i = 0; i < IXT_PARAM_NR; i++)
		if (!strcmp(name, ixt_params[i].name))
			return i;
	return -ENOENT;
}

/* Copies @len bytes and a NUL to @buf of @size bytes. */
static int ixt_show_str(char *buf, u32 size, const char *s, u32 len)
{
	if (len >= size)
		return -ENOSPC;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return len;
}

/* Writes the names of @list, comma-separated, and a NUL to @buf. */
static int ixt_show_list(char *buf, u32 size, const struct ixt_key_desc *desc,
			 const struct ixt_vlist *list)
{
	u32 len = 0, i;

	for (i = 0; i < list->nr; i++) {
		const char *name = desc->values[list->v[i]];
		u32 n = strlen(name);

		if (len + n + (i ? 1 : 0) >= size)
			return -ENOSPC;
		if (i)
			buf[len++] = ',';
		memcpy(buf + len, name, n);
		len += n;
	}
	if (len >= size)
		return -ENOSPC;
	buf[len] = '\0';
	return len;
}

/**
 * ixt_offer_show() - the text of a param/ attribute
 * @offer: the offer.
 * @param: the attribute.
 * @buf: where to write the text and a NUL; no newline.
 * @size: bytes at @buf.
 *
 * The format LIO shows: lists comma-separated ("CRC32C,None"), booleans
 * "Yes" or "No", numbers in decimal, TargetAlias and the marker intervals
 * as stored.
 *
 * Context: Any context. The caller keeps @offer from changing meanwhile.
 * Return: the length of the text, or -ENOSPC if it does not fit, or
 * -EINVAL (and a warning: a caller bug) if @param is not an attribute.
 */
int ixt_offer_show(const struct ixt_offer *offer, enum ixt_offer_param param,
		   char *buf, u32 size)
{
	const struct ixt_param_desc *pd;
	char dec[IXT_U32_DEC_LEN];
	const char *str;
	const void *p;

	if (WARN_ON_ONCE((unsigned int)param >= IXT_PARAM_NR))
		return -EINVAL;
	pd = &ixt_params[param];
	p = (const u8 *)offer + pd->off;
	switch (pd->kind) {
	case IXT_PK_LIST:
		return ixt_show_list(buf, size, &ixt_keys[pd->key], p);
	case IXT_PK_BOOL:
		str = *(const bool *)p ? "Yes" : "No";
		break;
	case IXT_PK_U32:
		ixt_format_u32(dec, *(const u32 *)p);
		str = dec;
		break;
	default:
		str = p;
	}
	return ixt_show_str(buf, size, str, strlen(str));
}

/* A comma-separated list of distinct value names, dropping repeats. */
static int ixt_store_list(const struct ixt_key_desc *desc, const char *s,
			  u32 len, struct ixt_vlist *list)
{
	struct ixt_vlist new = { };
	u32 pos = 0;

	while (pos <= len) {
		const char *comma = memchr(s + pos, ',', len - pos);
		u32 n = comma ? comma - (s + pos) : len - pos;
		int v = ixt_value_index(desc, s + pos, n);
		u32 i;

		if (v < 0)
			return -EINVAL;
		for (i = 0; i < new.nr && new.v[i] != v; i++)
			;
		if (i == new.nr)
			new.v[new.nr++] = v;
		pos += n + 1;
	}
	*list = new;
	return 0;
}

/*
 * An obsolete marker interval as LIO accepts it from configfs: "Reject",
 * a number, or a range "min~max", within 1..65535; stored canonical.
 */
static int ixt_store_markint(const struct ixt_key_desc *desc, const char *s,
			     u32 len, char *out)
{
	const char *tilde = memchr(s, '~', len);
	u32 lo, hi, n;

	if (ixt_str_eq(s, len, IXT_REJECT)) {
		memcpy(out, IXT_REJECT, sizeof(IXT_REJECT));
		return 0;
	}
	n = tilde ? tilde - s : len;
	if (ixt_parse_u32(s, n, desc->min, desc->max, &lo))
		return -EINVAL;
	hi = lo;
	if (tilde && ixt_parse_u32(tilde + 1, len - n - 1, lo, desc->max, &hi))
		return -EINVAL;
	n = ixt_format_u32(out, lo);
	if (tilde) {
		out[n++] = '~';
		ixt_format_u32(out + n, hi);
	}
	return 0;
}

/* Like isspace(), for the one character LIO strips off a written value. */
static bool ixt_is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static int ixt_store_value(const struct ixt_param_desc *pd, void *p,
			   const char *s, u32 len)
{
	const struct ixt_key_desc *desc = &ixt_keys[pd->key];
	u32 v;

	switch (pd->kind) {
	case IXT_PK_LIST:
		return ixt_store_list(desc, s, len, p);
	case IXT_PK_BOOL:
	case IXT_PK_U32:
		if (ixt_parse_value(desc, s, len, &v))
			return -EINVAL;
		if (pd->kind == IXT_PK_BOOL)
			*(bool *)p = v;
		else
			*(u32 *)p = v;
		return 0;
	case IXT_PK_TEXT:
		if (len > desc->max_len || !ixt_utf8_valid(s, len) ||
		    !ixt_printable(s, len, false))
			return -EINVAL;
		memcpy(p, s, len);
		((char *)p)[len] = '\0';
		return 0;
	default:
		return ixt_store_markint(desc, s, len, p);
	}
}

/**
 * ixt_offer_store() - set a param/ attribute from text an admin wrote
 * @offer: the offer.
 * @param: the attribute.
 * @buf: the text; need not be NUL-terminated.
 * @len: length of @buf in bytes.
 *
 * Accepts what LIO accepts, where that is sane (see &enum
 * ixt_offer_param), after stripping one trailing white-space character as
 * LIO does: list values among those the target implements, booleans
 * "Yes" and "No", numbers in decimal (no leading zero) or hex with "0x"
 * within the key's range, TargetAlias as UTF-8 without control
 * characters. Unlike LIO, the reserved words "Irrelevant" and
 * "NotUnderstood", AuthMethod values the target does not implement
 * (KRB5, SPKM1, SPKM2, SRP) and numbers with trailing junk are refused.
 *
 * Context: Any context. The caller serialises writers of @offer.
 * Return: 0, or -EINVAL if the text is refused (@offer is then left as
 * it was), or if @param is not an attribute (with a warning).
 */
int ixt_offer_store(struct ixt_offer *offer, enum ixt_offer_param param,
		    const char *buf, u32 len)
{
	union {
		struct ixt_vlist list;
		bool flag;
		u32 num;
		char str[IXT_ALIAS_LEN];
	} val = { };
	const struct ixt_param_desc *pd;
	u32 size;

	if (WARN_ON_ONCE((unsigned int)param >= IXT_PARAM_NR))
		return -EINVAL;
	pd = &ixt_params[param];
	if (len && ixt_is_space(buf[len - 1]))
		len--;
	if (memchr(buf, '\0', len) || ixt_store_value(pd, &val, buf, len))
		return -EINVAL;
	switch (pd->kind) {
	case IXT_PK_LIST:
		size = sizeof(val.list);
		break;
	case IXT_PK_BOOL:
		size = sizeof(val.flag);
		break;
	case IXT_PK_U32:
		size = sizeof(val.num);
		break;
	case IXT_PK_TEXT:
		size = IXT_ALIAS_LEN;
		break;
	default:
		size = IXT_MARKINT_LEN;
	}
	memcpy((u8 *)offer + pd->off, &val, size);
	return 0;
}

/*
 * The engine
 */

static int ixt_neg_fail(struct ixt_login_status *status, u8 status_class,
			u8 status_detail, int err)
{
	status->status_class = status_class;
	status->status_detail = status_detail;
	return err;
}

/* An initiator error with the generic detail: the usual protocol error. */
static int ixt_neg_init_err(struct ixt_login_status *status, int err)
{
	return ixt_neg_fail(status, ISCSI_STATUS_CLS_INITIATOR_ERR,
			    ISCSI_LOGIN_STATUS_INIT_ERR, err);
}

/* The IXT_KF_* stage bit of a login stage or of full feature phase. */
static u16 ixt_stage_flag(u8 stage)
{
	switch (stage) {
	case ISCSI_SECURITY_NEGOTIATION_STAGE:
		return IXT_KF_SECURITY;
	case ISCSI_OP_PARMS_NEGOTIATION_STAGE:
		return IXT_KF_OPERATIONAL;
	case ISCSI_FULL_FEATURE_PHASE:
		return IXT_KF_FFP;
	default:
		return 0;
	}
}

/* The outcome of a key so far: negotiated, offered, or the default. */
static u32 ixt_neg_outcome(const struct ixt_neg *neg, enum ixt_key k)
{
	const struct ixt_neg_key *nk = &neg->key[k];

	return nk->state & IXT_KS_RESULT ? nk->res : ixt_keys[k].def;
}

static bool ixt_neg_discovery(const struct ixt_neg *neg)
{
	return ixt_neg_outcome(neg, IXT_KEY_SESSION_TYPE) ==
	       IXT_SESSION_DISCOVERY;
}

/*
 * Whether the iSER data path applies: RDMAExtensions=Yes on an iSER
 * connection of a normal session. Until RDMAExtensions is settled on the
 * leading connection, an iSER connection assumes Yes (the target offers
 * it); a connection that joins a session takes the session's, which the
 * leading connection settled to Yes.
 */
static bool ixt_neg_rdma(const struct ixt_neg *neg)
{
	const struct ixt_neg_key *nk = &neg->key[IXT_KEY_RDMA_EXTENSIONS];

	if (!(neg->flags & IXT_NEG_ISER) || ixt_neg_discovery(neg))
		return false;
	return !(nk->state & IXT_KS_RESULT) || nk->res;
}

/* The list of values the target accepts for a list-of-values key. */
static const struct ixt_vlist *ixt_neg_list(const struct ixt_neg *neg,
					    enum ixt_key k)
{
	/* Index 0: None for the digests, RFC3720 for TaskReporting. */
	static const struct ixt_vlist first_only = { .nr = 1, .v = { 0 } };

	switch (k) {
	case IXT_KEY_AUTH_METHOD:
		return &neg->offer.auth_method;
	case IXT_KEY_HEADER_DIGEST:
		/* iSER has no digests: RDMA checks the data. */
		return neg->flags & IXT_NEG_ISER ? &first_only :
		       &neg->offer.header_digest;
	case IXT_KEY_DATA_DIGEST:
		return neg->flags & IXT_NEG_ISER ? &first_only :
		       &neg->offer.data_digest;
	default:
		return &first_only;
	}
}

static bool ixt_vlist_has(const struct ixt_vlist *list, u32 v)
{
	u32 i;

	for (i = 0; i < list->nr; i++)
		if (list->v[i] == v)
			return true;
	return false;
}

/*
 * MaxOutstandingR2T is 1 with DataSequenceInOrder=Yes and an ERL above 0
 * (RFC 7143 section 13.19), as long as they may still be the outcome:
 * the two may be settled after MaxOutstandingR2T, by an offer of the
 * target or in a later request. An ERL not settled ends at most at the
 * target's own; DataSequenceInOrder is Yes by default, and the target's
 * offer of No may be answered Yes.
 */
static u32 ixt_neg_max_r2t(const struct ixt_neg *neg)
{
	const struct ixt_neg_key *seq = &neg->key[IXT_KEY_DATA_SEQ_IN_ORDER];
	const struct ixt_neg_key *erl = &neg->key[IXT_KEY_ERL];
	bool seq_yes, erl_above_0;

	seq_yes = !(seq->state & IXT_KS_RESULT) || seq->res ||
		  (seq->state & (IXT_KS_OFFERED | IXT_KS_ANSWERED)) ==
		  IXT_KS_OFFERED;
	erl_above_0 = erl->state & IXT_KS_RESULT ? erl->res :
		      neg->offer.error_recovery_level;
	if (seq_yes && erl_above_0)
		return 1;
	return neg->offer.max_outstanding_r2t;
}

/*
 * The target's own value of a boolean or numerical key, under the
 * consistency rules: FirstBurstLength within MaxBurstLength,
 * MaxOutstandingR2T as above.
 */
static u32 ixt_neg_ours(const struct ixt_neg *neg, enum ixt_key k)
{
	const struct ixt_offer *o = &neg->offer;

	switch (k) {
	case IXT_KEY_TPGT:
		return o->tpgt;
	case IXT_KEY_RDMA_EXTENSIONS:
		return !!(neg->flags & IXT_NEG_ISER);
	case IXT_KEY_MAX_RECV_DSL:
		/*
		 * LIO answers an initiator's declaration with its
		 * MaxXmitDataSegmentLength, and receives up to that.
		 */
		return neg->key[k].state & IXT_KS_RECEIVED ?
		       o->max_xmit_dlength : o->max_recv_dlength;
	case IXT_KEY_TARGET_RDSL:
		return o->target_recv_dlength;
	case IXT_KEY_INITIATOR_RDSL:
		return o->initiator_recv_dlength;
	case IXT_KEY_MAX_CONNECTIONS:
		return o->max_connections;
	case IXT_KEY_INITIAL_R2T:
		return o->initial_r2t;
	case IXT_KEY_IMMEDIATE_DATA:
		return o->immediate_data;
	case IXT_KEY_MAX_BURST:
		return o->max_burst_length;
	case IXT_KEY_FIRST_BURST:
		return min3(o->first_burst_length, o->max_burst_length,
			    ixt_neg_outcome(neg, IXT_KEY_MAX_BURST));
	case IXT_KEY_TIME2WAIT:
		return o->default_time2wait;
	case IXT_KEY_TIME2RETAIN:
		return o->default_time2retain;
	case IXT_KEY_DATA_PDU_IN_ORDER:
		return o->data_pdu_in_order;
	case IXT_KEY_DATA_SEQ_IN_ORDER:
		return o->data_sequence_in_order;
	case IXT_KEY_ERL:
		return o->error_recovery_level;
	case IXT_KEY_MAX_R2T:
		return ixt_neg_max_r2t(neg);
	case IXT_KEY_PROTOCOL_LEVEL:
		return IXT_PROTOCOL_LEVEL;
	default:
		/* No limit of unexpected PDUs; no markers. */
		return ixt_keys[k].def;
	}
}

/*
 * Whether a key is irrelevant now: a leading-only key on a connection
 * that joins a session, a key of normal sessions in a discovery session,
 * an iSER key without iSER or a TCP key with it, FirstBurstLength without
 * unsolicited data (InitialR2T=Yes and ImmediateData=No).
 */
static bool ixt_neg_irrelevant(const struct ixt_neg *neg, enum ixt_key k)
{
	const struct ixt_key_desc *desc = &ixt_keys[k];
	bool rdma = ixt_neg_rdma(neg);

	if ((desc->flags & IXT_KF_LO) && desc->func != IXT_RF_DECLARE &&
	    !(neg->flags & IXT_NEG_LEADING))
		return true;
	if ((desc->flags & IXT_KF_NORMAL) && ixt_neg_discovery(neg))
		return true;
	if (((desc->flags & IXT_KF_RDMA) && !rdma) ||
	    ((desc->flags & IXT_KF_NOT_RDMA) && rdma))
		return true;
	return k == IXT_KEY_FIRST_BURST &&
	       ixt_neg_outcome(neg, IXT_KEY_INITIAL_R2T) &&
	       !ixt_neg_outcome(neg, IXT_KEY_IMMEDIATE_DATA);
}

/*
 * The first value of the proposer's list that the target accepts. An
 * empty or over-long item anywhere makes the list malformed; unknown ones
 * are skipped.
 */
static int ixt_neg_select(const struct ixt_neg *neg, enum ixt_key k,
			  const char *s, u32 len, u32 *val)
{
	const struct ixt_vlist *ours = ixt_neg_list(neg, k);
	int chosen = -ENOENT;
	u32 pos = 0;

	while (pos <= len) {
		const char *comma = memchr(s + pos, ',', len - pos);
		u32 n = comma ? comma - (s + pos) : len - pos;
		int v = ixt_value_index(&ixt_keys[k], s + pos, n);

		if (!n || n > IXT_VALUE_MAX_LEN)
			return -EINVAL;
		if (chosen < 0 && v >= 0 && ixt_vlist_has(ours, v))
			chosen = v;
		pos += n + 1;
	}
	if (chosen < 0)
		return chosen;
	*val = chosen;
	return 0;
}

/**
 * ixt_name_check() - whether a text value may be an iSCSI name
 * @s: the value, well-formed UTF-8 (ixt_text_check()), not NUL-terminated.
 * @len: its length in bytes.
 *
 * An iSCSI name (RFC 3720 section 3.2.6) has 1 to 223 bytes and neither
 * spaces nor control characters: ASCII ones, DEL, or the C1 controls
 * (U+0080 to U+009F), which a terminal showing the kernel log may act
 * on. Like LIO, nothing more is asked of it (RFC 3722's stringprep
 * output: lower case, no punctuation but '-', '.' and ':'), as
 * initiators send their names as the admin wrote them.
 *
 * Context: Any context.
 * Return: true when @s may be an iSCSI name, and so be logged.
 */
bool ixt_name_check(const char *s, u32 len)
{
	u32 i;

	if (!len || len >= ISCSI_NAME_LEN || !ixt_printable(s, len, true))
		return false;
	for (i = 0; i + 1 < len; i++)
		if ((u8)s[i] == 0xc2 && (u8)s[i + 1] < 0xa0)
			return false;
	return true;
}

static int ixt_neg_copy_name(char *dst, const char *s, u32 len,
			     struct ixt_login_status *status)
{
	if (!ixt_name_check(s, len))
		return ixt_neg_init_err(status, -EPROTO);
	memcpy(dst, s, len);
	dst[len] = '\0';
	return 0;
}

/* Declarations with text values: names, aliases, SessionType, SendTargets. */
static int ixt_neg_take_text(struct ixt_neg *neg, enum ixt_key k,
			     const struct ixt_text_pair *pair,
			     struct ixt_login_status *status)
{
	struct ixt_neg_key *nk = &neg->key[k];
	const char *s = pair->value;
	u32 len = pair->value_len;
	int v;

	switch (k) {
	case IXT_KEY_SESSION_TYPE:
		v = ixt_value_index(&ixt_keys[k], s, len);
		if (v < 0)
			return ixt_neg_fail(status,
					    ISCSI_STATUS_CLS_INITIATOR_ERR,
					    ISCSI_LOGIN_STATUS_NO_SESSION_TYPE,
					    -EPROTO);
		nk->val = v;
		return 0;
	case IXT_KEY_INITIATOR_NAME:
		return ixt_neg_copy_name(neg->params.initiator_name, s, len,
					 status);
	case IXT_KEY_TARGET_NAME:
		return ixt_neg_copy_name(neg->params.target_name, s, len,
					 status);
	case IXT_KEY_INITIATOR_ALIAS:
		if (!ixt_printable(s, len, false))
			break;
		memcpy(neg->params.initiator_alias, s, len);
		neg->params.initiator_alias[len] = '\0';
		return 0;
	default:
		/* SendTargets: "All", an iSCSI name, or empty. */
		if (len >= ISCSI_NAME_LEN || !ixt_printable(s, len, true))
			break;
		memcpy(neg->send_targets, s, len);
		neg->send_targets[len] = '\0';
		neg->has_send_targets = true;
		return 0;
	}
	nk->reply = IXT_REPLY_REJECT;
	return 0;
}

/* Records a key the initiator offers or declares; malformed: Reject. */
static int ixt_neg_take_offer(struct ixt_neg *neg, enum ixt_key k,
			      const struct ixt_text_pair *pair,
			      struct ixt_login_status *status)
{
	const struct ixt_key_desc *desc = &ixt_keys[k];
	struct ixt_neg_key *nk = &neg->key[k];
	int ret;

	switch (desc->type) {
	case IXT_KT_BOOL:
	case IXT_KT_NUMBER:
		ret = ixt_parse_value(desc, pair->value, pair->value_len,
				      &nk->val);
		break;
	case IXT_KT_LIST:
		ret = ixt_neg_select(neg, k, pair->value, pair->value_len,
				     &nk->val);
		break;
	case IXT_KT_RANGE:
		/* Obsolete marker interval: rejected whatever it says. */
		ret = 0;
		break;
	default:
		return ixt_neg_take_text(neg, k, pair, status);
	}
	if (ret)
		nk->reply = IXT_REPLY_REJECT;
	return 0;
}

/* Whether the initiator may answer @ans to the target's offer @ours. */
static bool ixt_answer_valid(const struct ixt_key_desc *desc, u32 ours,
			     u32 ans)
{
	switch (desc->func) {
	case IXT_RF_AND:
		return ours || !ans;
	case IXT_RF_OR:
		return !ours || ans;
	case IXT_RF_MIN:
		return ans <= ours;
	case IXT_RF_MAX:
		return ans >= ours;
	default:
		return true;
	}
}

/*
 * Records the initiator's answer to a key the target offered. Irrelevant
 * leaves the default; NotUnderstood, Reject, or a value the offer does
 * not allow fail the negotiation.
 */
static int ixt_neg_take_answer(struct ixt_neg *neg, enum ixt_key k,
			       const struct ixt_text_pair *pair)
{
	const struct ixt_key_desc *desc = &ixt_keys[k];
	struct ixt_neg_key *nk = &neg->key[k];
	u32 ans;
	int v;

	nk->state |= IXT_KS_ANSWERED;
	if (ixt_str_eq(pair->value, pair->value_len, IXT_IRRELEVANT)) {
		nk->state &= ~IXT_KS_RESULT;
		return 0;
	}
	if (desc->type == IXT_KT_LIST) {
		v = ixt_value_index(desc, pair->value, pair->value_len);
		if (v < 0 || !ixt_vlist_has(ixt_neg_list(neg, k), v))
			return -EPROTO;
		ans = v;
	} else if (ixt_parse_value(desc, pair->value, pair->value_len,
				   &ans)) {
		return -EPROTO;
	}
	if (!ixt_answer_valid(desc, nk->res, ans))
		return -EPROTO;
	nk->res = ans;
	return 0;
}

/*
 * Whether the initiator may send a key now: a key it may send, in this
 * stage, and a first-request-only key in the first request.
 */
static bool ixt_neg_allowed(const struct ixt_neg *neg, u16 stage,
			    const struct ixt_key_desc *desc)
{
	if (!(desc->flags & IXT_KF_INITIATOR) || !(desc->flags & stage))
		return false;
	return !(desc->flags & IXT_KF_FIRST) || neg->first;
}

static int ixt_neg_scan_key(struct ixt_neg *neg, u16 stage, enum ixt_key k,
			    const struct ixt_text_pair *pair,
			    struct ixt_login_status *status)
{
	struct ixt_neg_key *nk = &neg->key[k];

	/* Offered, declared or answered twice in one negotiation. */
	if (nk->state & (IXT_KS_RECEIVED | IXT_KS_ANSWERED))
		return ixt_neg_init_err(status, -EPROTO);
	if (!ixt_neg_allowed(neg, stage, &ixt_keys[k])) {
		if (stage != IXT_KF_FFP)
			return ixt_neg_init_err(status, -EPERM);
		/* A Text Request cannot fail a login: answer Reject. */
		nk->state |= IXT_KS_RECEIVED | IXT_KS_NEW;
		nk->reply = IXT_REPLY_REJECT;
		return 0;
	}
	if (nk->state & IXT_KS_OFFERED) {
		if (ixt_neg_take_answer(neg, k, pair))
			return ixt_neg_init_err(status, -EPROTO);
		return 0;
	}
	nk->state |= IXT_KS_RECEIVED | IXT_KS_NEW;
	return ixt_neg_take_offer(neg, k, pair, status);
}

/*
 * Keys that are not standard keys: authentication, extension, unknown.
 * None may come twice in a request (RFC 7143 section 6.2: a key
 * declared again is a protocol error), CHAP keys included.
 */
static int ixt_neg_scan_other(struct ixt_neg *neg, u16 stage,
			      struct ixt_keys_seen *seen,
			      const struct ixt_text_pair *pair,
			      struct ixt_login_status *status)
{
	if (ixt_key_is_auth(pair->key, pair->key_len) && stage != IXT_KF_FFP) {
		if (stage != IXT_KF_SECURITY)
			return ixt_neg_init_err(status, -EPERM);
		neg->auth_keys = true;
	}
	if (!ixt_keys_seen_add(seen, pair))
		return ixt_neg_init_err(status, -EPROTO);
	return 0;
}

/* First pass: record every pair, refuse what may not be sent. */
static int ixt_neg_scan(struct ixt_neg *neg, u16 stage, const char *text,
			u32 len, struct ixt_login_status *status)
{
	struct ixt_keys_seen seen = { .text = text };
	struct ixt_text_pair pair;
	u32 pos = 0;
	int ret, k;

	while (ixt_text_next(text, len, &pos, &pair)) {
		k = ixt_key_lookup(pair.key, pair.key_len);
		if (k >= 0)
			ret = ixt_neg_scan_key(neg, stage, k, &pair, status);
		else
			ret = ixt_neg_scan_other(neg, stage, &seen, &pair,
						 status);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The first request names the initiator and, for a normal session, the
 * target.
 */
static int ixt_neg_check_first(const struct ixt_neg *neg,
			       struct ixt_login_status *status)
{
	if (!(neg->key[IXT_KEY_INITIATOR_NAME].state & IXT_KS_RECEIVED) ||
	    (!ixt_neg_discovery(neg) &&
	     !(neg->key[IXT_KEY_TARGET_NAME].state & IXT_KS_RECEIVED)))
		return ixt_neg_fail(status, ISCSI_STATUS_CLS_INITIATOR_ERR,
				    ISCSI_LOGIN_STATUS_MISSING_FIELDS,
				    -EPROTO);
	return 0;
}

/* 0 means "no limit" for MaxOutstandingUnexpectedPDUs. */
static u32 ixt_neg_min(enum ixt_key k, u32 a, u32 b)
{
	if (k == IXT_KEY_MAX_OUT_UNEXP_PDUS && (!a || !b))
		return max(a, b);
	return min(a, b);
}

/* The outcome of a key the initiator offered, by its result function. */
static u32 ixt_neg_result(const struct ixt_neg *neg, enum ixt_key k)
{
	u32 theirs = neg->key[k].val;
	u32 ours = ixt_neg_ours(neg, k);

	switch (ixt_keys[k].func) {
	case IXT_RF_AND:
		return theirs && ours;
	case IXT_RF_OR:
		return theirs || ours;
	case IXT_RF_MIN:
		return ixt_neg_min(k, theirs, ours);
	case IXT_RF_MAX:
		return max(theirs, ours);
	default:
		/* IXT_RF_SELECT chose in ixt_neg_select(); declarations. */
		return theirs;
	}
}

/*
 * Second pass: decide the answer to each key received, in key order so
 * that dependent keys see the outcomes they depend on.
 */
static void ixt_neg_compute(struct ixt_neg *neg)
{
	int k;

	for (k = 0; k < IXT_KEY_NR; k++) {
		struct ixt_neg_key *nk = &neg->key[k];
		u8 func = ixt_keys[k].func;

		if (!(nk->state & IXT_KS_NEW) || nk->reply != IXT_REPLY_NONE)
			continue;
		if (func == IXT_RF_REJECT) {
			nk->reply = IXT_REPLY_REJECT;
			continue;
		}
		if (ixt_neg_irrelevant(neg, k)) {
			nk->reply = IXT_REPLY_IRRELEVANT;
			continue;
		}
		nk->res = ixt_neg_result(neg, k);
		nk->state |= IXT_KS_RESULT;
		/* Declarations need no answer. */
		if (func != IXT_RF_DECLARE)
			nk->reply = IXT_REPLY_VALUE;
	}
}

/* Appends "key=value" with @v in the key's syntax. */
static int ixt_neg_add(struct ixt_text_buf *rsp, enum ixt_key k, u32 v)
{
	const struct ixt_key_desc *desc = &ixt_keys[k];

	switch (desc->type) {
	case IXT_KT_BOOL:
		return ixt_text_add(rsp, desc->name, v ? "Yes" : "No");
	case IXT_KT_LIST:
	case IXT_KT_ENUM:
		return ixt_text_add(rsp, desc->name, desc->values[v]);
	default:
		return ixt_text_add_u32(rsp, desc->name, v);
	}
}

/* The answer to a key of the request, if it needs one. */
static int ixt_neg_reply_key(struct ixt_neg *neg, enum ixt_key k,
			     struct ixt_text_buf *rsp)
{
	struct ixt_neg_key *nk = &neg->key[k];
	u8 reply = nk->reply;

	/* Answers to the target's offers are not answered. */
	if (!(nk->state & IXT_KS_NEW))
		return 0;
	nk->state &= ~IXT_KS_NEW;
	nk->reply = IXT_REPLY_NONE;
	switch (reply) {
	case IXT_REPLY_VALUE:
		return ixt_neg_add(rsp, k, nk->res);
	case IXT_REPLY_IRRELEVANT:
		return ixt_text_add(rsp, ixt_keys[k].name, IXT_IRRELEVANT);
	case IXT_REPLY_REJECT:
		return ixt_text_add(rsp, ixt_keys[k].name, IXT_REJECT);
	default:
		return 0;
	}
}

/* Third pass: the answers, in the order of the request. */
static int ixt_neg_reply(struct ixt_neg *neg, u16 stage, const char *text,
			 u32 len, struct ixt_text_buf *rsp)
{
	struct ixt_text_pair pair;
	u32 pos = 0;
	int ret, k;

	while (ixt_text_next(text, len, &pos, &pair)) {
		k = ixt_key_lookup(pair.key, pair.key_len);
		if (k >= 0)
			ret = ixt_neg_reply_key(neg, k, rsp);
		else if (stage == IXT_KF_SECURITY &&
			 ixt_key_is_auth(pair.key, pair.key_len))
			ret = 0;
		else
			ret = ixt_text_add_n(rsp, pair.key, pair.key_len,
					     IXT_NOT_UNDERSTOOD,
					     IXT_ANSWER_MAX_LEN);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Declarations the target makes once per connection: TargetPortalGroupTag
 * in the first response when the initiator named the target,
 * TargetAlias to a normal session, MaxRecvDataSegmentLength in the
 * operational stage unless iSER makes it irrelevant or the target
 * rejected the initiator's: its response would hold the key twice, and
 * both sides keep the RFC default instead.
 */
static bool ixt_neg_declares(const struct ixt_neg *neg, u16 stage,
			     enum ixt_key k)
{
	u8 state = neg->key[k].state;

	if (state & IXT_KS_DECLARED)
		return false;
	switch (k) {
	case IXT_KEY_TPGT:
		return stage != IXT_KF_FFP &&
		       (neg->key[IXT_KEY_TARGET_NAME].state & IXT_KS_RECEIVED);
	case IXT_KEY_TARGET_ALIAS:
		return stage != IXT_KF_FFP && neg->offer.target_alias[0] &&
		       (neg->flags & IXT_NEG_LEADING) && !ixt_neg_discovery(neg);
	default:
		return stage == IXT_KF_OPERATIONAL && !ixt_neg_rdma(neg) &&
		       (state & (IXT_KS_RECEIVED | IXT_KS_RESULT)) !=
		       IXT_KS_RECEIVED;
	}
}

static int ixt_neg_declare(struct ixt_neg *neg, u16 stage,
			   struct ixt_text_buf *rsp)
{
	static const u8 keys[] = {
		IXT_KEY_TPGT, IXT_KEY_TARGET_ALIAS, IXT_KEY_MAX_RECV_DSL,
	};
	u32 i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		enum ixt_key k = keys[i];

		if (!ixt_neg_declares(neg, stage, k))
			continue;
		if (k == IXT_KEY_TARGET_ALIAS)
			ret = ixt_text_add(rsp, ixt_keys[k].name,
					   neg->offer.target_alias);
		else
			ret = ixt_neg_add(rsp, k, ixt_neg_ours(neg, k));
		if (ret)
			return ret;
		neg->key[k].state |= IXT_KS_DECLARED;
		if (k == IXT_KEY_MAX_RECV_DSL)
			neg->recv_dlength = ixt_neg_ours(neg, k);
	}
	return 0;
}

/*
 * Whether the target offers a key it did not receive: a negotiated key it
 * may send in this stage, relevant now, whose RFC default the target does
 * not accept or does not prefer (for lists: the default is not in the
 * target's list). Discovery sessions get offers of connection keys only.
 */
static bool ixt_neg_should_offer(const struct ixt_neg *neg, u16 stage,
				 enum ixt_key k)
{
	const struct ixt_key_desc *desc = &ixt_keys[k];

	if (neg->key[k].state & (IXT_KS_RECEIVED | IXT_KS_OFFERED))
		return false;
	if (!(desc->flags & IXT_KF_TARGET) || !(desc->flags & stage) ||
	    (desc->flags & (IXT_KF_OBSOLETE | IXT_KF_NO_OFFER)) ||
	    desc->func == IXT_RF_DECLARE)
		return false;
	if (((desc->flags & IXT_KF_SESSION) && ixt_neg_discovery(neg)) ||
	    ixt_neg_irrelevant(neg, k))
		return false;
	if (desc->type == IXT_KT_LIST)
		return ixt_neg_list(neg, k)->nr &&
		       !ixt_vlist_has(ixt_neg_list(neg, k), desc->def);
	return ixt_neg_ours(neg, k) != desc->def;
}

/*
 * An offer needs no answer when it decides the outcome alone (RFC 7143
 * section 6.2.2: AND offered No, OR offered Yes), and, with LIO's
 * login_keys_workaround, for the keys some boot initiators never answer.
 */
static bool ixt_neg_offer_optional(const struct ixt_neg *neg,
				   enum ixt_key k, u32 v)
{
	switch (ixt_keys[k].func) {
	case IXT_RF_AND:
		if (!v)
			return true;
		break;
	case IXT_RF_OR:
		if (v)
			return true;
		break;
	}
	if (!(neg->flags & IXT_NEG_KEYS_WORKAROUND))
		return false;
	return k == IXT_KEY_IMMEDIATE_DATA || k == IXT_KEY_FIRST_BURST ||
	       k == IXT_KEY_MAX_CONNECTIONS;
}

static int ixt_neg_offer(struct ixt_neg *neg, enum ixt_key k,
			 struct ixt_text_buf *rsp)
{
	const struct ixt_key_desc *desc = &ixt_keys[k];
	struct ixt_neg_key *nk = &neg->key[k];
	char list[IXT_OFFER_MAX_LEN];
	int ret;

	if (desc->type == IXT_KT_LIST) {
		const struct ixt_vlist *ours = ixt_neg_list(neg, k);

		ret = ixt_show_list(list, sizeof(list), desc, ours);
		if (ret >= 0)
			ret = ixt_text_add(rsp, desc->name, list);
		nk->res = ours->v[0];
	} else {
		nk->res = ixt_neg_ours(neg, k);
		ret = ixt_neg_add(rsp, k, nk->res);
	}
	if (ret < 0)
		return ret;
	/* Until answered, the outcome is what the target offered. */
	nk->state |= IXT_KS_OFFERED | IXT_KS_RESULT;
	if (ixt_neg_offer_optional(neg, k, nk->res))
		nk->state |= IXT_KS_OPTIONAL;
	return 0;
}

static int ixt_neg_propose(struct ixt_neg *neg, u16 stage,
			   struct ixt_text_buf *rsp)
{
	int k, ret;

	for (k = 0; k < IXT_KEY_NR; k++) {
		if (!ixt_neg_should_offer(neg, stage, k))
			continue;
		ret = ixt_neg_offer(neg, k, rsp);
		if (ret)
			return ret;
	}
	return 0;
}

/* The MaxRecvDataSegmentLength of each side, or the iSER lengths. */
static void ixt_neg_update_dlength(struct ixt_neg *neg)
{
	struct ixt_params *p = &neg->params;

	if (p->rdma_extensions) {
		p->target_recv_dlength =
			ixt_neg_outcome(neg, IXT_KEY_TARGET_RDSL);
		p->initiator_recv_dlength =
			ixt_neg_outcome(neg, IXT_KEY_INITIATOR_RDSL);
	} else {
		p->target_recv_dlength =
			neg->key[IXT_KEY_MAX_RECV_DSL].state & IXT_KS_DECLARED ?
			neg->recv_dlength : ISCSI_DEF_MAX_RECV_SEG_LEN;
		p->initiator_recv_dlength =
			ixt_neg_outcome(neg, IXT_KEY_MAX_RECV_DSL);
	}
	p->max_xmit_dlength = min(p->initiator_recv_dlength,
				  neg->offer.max_xmit_dlength);
}

/* Brings &ixt_neg.params up to date with the outcomes so far. */
static void ixt_neg_update(struct ixt_neg *neg)
{
	struct ixt_params *p = &neg->params;

	p->discovery = ixt_neg_discovery(neg);
	p->auth_method = ixt_neg_outcome(neg, IXT_KEY_AUTH_METHOD);
	p->header_digest = ixt_neg_outcome(neg, IXT_KEY_HEADER_DIGEST) ==
			   IXT_DIGEST_CRC32C;
	p->data_digest = ixt_neg_outcome(neg, IXT_KEY_DATA_DIGEST) ==
			 IXT_DIGEST_CRC32C;
	p->rdma_extensions = ixt_neg_rdma(neg);
	ixt_neg_update_dlength(neg);
	p->max_connections = p->discovery ? 1 :
			     ixt_neg_outcome(neg, IXT_KEY_MAX_CONNECTIONS);
	p->initial_r2t = ixt_neg_outcome(neg, IXT_KEY_INITIAL_R2T);
	p->immediate_data = ixt_neg_outcome(neg, IXT_KEY_IMMEDIATE_DATA);
	p->max_burst_length = ixt_neg_outcome(neg, IXT_KEY_MAX_BURST);
	p->first_burst_length = min(ixt_neg_outcome(neg, IXT_KEY_FIRST_BURST),
				    p->max_burst_length);
	p->default_time2wait = ixt_neg_outcome(neg, IXT_KEY_TIME2WAIT);
	p->default_time2retain = ixt_neg_outcome(neg, IXT_KEY_TIME2RETAIN);
	p->max_outstanding_r2t = ixt_neg_outcome(neg, IXT_KEY_MAX_R2T);
	p->data_pdu_in_order = ixt_neg_outcome(neg, IXT_KEY_DATA_PDU_IN_ORDER);
	p->data_sequence_in_order =
		ixt_neg_outcome(neg, IXT_KEY_DATA_SEQ_IN_ORDER);
	p->error_recovery_level = ixt_neg_outcome(neg, IXT_KEY_ERL);
	p->max_unexpected_pdus =
		ixt_neg_outcome(neg, IXT_KEY_MAX_OUT_UNEXP_PDUS);
	p->protocol_level = ixt_neg_outcome(neg, IXT_KEY_PROTOCOL_LEVEL);
}

/**
 * ixt_neg_init() - start the negotiation of a connection
 * @neg: the negotiation state.
 * @offer: the TPG's offer, copied; the caller may adjust the copy in
 *	@neg->offer before the first ixt_neg_process().
 * @flags: %IXT_NEG_LEADING if the login starts a session (TSIH 0),
 *	%IXT_NEG_ISER on an iSER connection, %IXT_NEG_KEYS_WORKAROUND for
 *	LIO's login_keys_workaround.
 *
 * The login code usually needs the TargetName of the first request to
 * find the TPG, hence the offer: ixt_text_check() and ixt_text_find()
 * give it before this is called.
 *
 * Context: Any context.
 */
void ixt_neg_init(struct ixt_neg *neg, const struct ixt_offer *offer,
		  unsigned int flags)
{
	memset(neg, 0, sizeof(*neg));
	neg->offer = *offer;
	neg->flags = flags;
	neg->first = true;
	ixt_neg_update(neg);
}

/**
 * ixt_neg_process() - answer the keys of one request
 * @neg: the negotiation state of the connection.
 * @stage: %ISCSI_SECURITY_NEGOTIATION_STAGE or
 *	%ISCSI_OP_PARMS_NEGOTIATION_STAGE (the CSG of a Login Request), or
 *	%ISCSI_FULL_FEATURE_PHASE for a Text Request.
 * @text: the request's text, all its PDUs (C bit) concatenated.
 * @len: length of @text in bytes.
 * @rsp: the response to append to; %IXT_NEG_RSP_LEN bytes hold any.
 * @status: where to store the login status to send on error.
 *
 * Checks the text (ixt_text_check()), then answers every key in the
 * order of the request:
 *
 * * a negotiated key gets the outcome of its result function against
 *   the offer; a boolean whose outcome the initiator's value decides is
 *   answered too, with that outcome, which RFC 7143 allows;
 * * a declaration (names, aliases, SessionType, the initiator's
 *   MaxRecvDataSegmentLength) is recorded and not answered;
 * * "Irrelevant" when the key does not apply: a key of normal sessions
 *   in a discovery session, iSER keys without RDMAExtensions=Yes and
 *   MaxRecvDataSegmentLength with it, FirstBurstLength with InitialR2T=Yes
 *   and ImmediateData=No, a leading-only key on a connection that joins
 *   a session;
 * * "Reject" for a malformed or out-of-range value, for a list with no
 *   value the target accepts, for IFMarkInt and OFMarkInt; IFMarker and
 *   OFMarker are answered "No";
 * * "NotUnderstood" for any other key, X- and X# extension keys included;
 * * CHAP_* keys in the security stage are left alone: @neg->auth_keys
 *   tells the caller to pass the request to the authentication code,
 *   which appends its own keys to @rsp.
 *
 * Then the target adds, once per connection, TargetPortalGroupTag (in
 * the first response, if the initiator named a target), TargetAlias (to
 * a normal session, if set) and its MaxRecvDataSegmentLength (operational
 * stage, TCP, unless it answered the initiator's with Reject), and offers
 * the keys the initiator did not send whose RFC default it does not take
 * (ixt_neg_pending() then tells whether answers are due). In full feature
 * phase, @neg->has_send_targets reports a SendTargets key.
 *
 * The outcome is in @neg->params, consistent: FirstBurstLength at most
 * MaxBurstLength, MaxOutstandingR2T 1 with DataSequenceInOrder=Yes and
 * ErrorRecoveryLevel above 0.
 *
 * Context: Any context.
 * Return:
 * * 0 - @rsp holds the answers.
 * * -EINVAL, -EMSGSIZE, -E2BIG - malformed text (see ixt_text_check()).
 * * -EPERM - a key the initiator may not send in this stage or session
 *   phase (in the login only; a Text Request gets "Reject").
 * * -EPROTO - a key offered twice, a bad answer to an offer of the
 *   target, a malformed iSCSI name, a missing InitiatorName or TargetName
 *   in the first request, an unknown SessionType.
 * * -ENOSPC - @rsp is full.
 * * -EINVAL (and a warning) - @stage is none of the three.
 *
 * On error, @status holds the Status-Class and Status-Detail of the
 * Login Response to send; the negotiation is then over.
 */
int ixt_neg_process(struct ixt_neg *neg, u8 stage, const char *text, u32 len,
		    struct ixt_text_buf *rsp, struct ixt_login_status *status)
{
	u16 sflag = ixt_stage_flag(stage);
	int ret;

	if (WARN_ON_ONCE(!sflag))
		return ixt_neg_fail(status, ISCSI_STATUS_CLS_TARGET_ERR,
				    ISCSI_LOGIN_STATUS_TARGET_ERROR, -EINVAL);
	neg->auth_keys = false;
	neg->has_send_targets = false;
	neg->send_targets[0] = '\0';
	ret = ixt_text_check(text, len);
	if (ret < 0)
		return ixt_neg_init_err(status, ret);
	ret = ixt_neg_scan(neg, sflag, text, len, status);
	if (ret)
		return ret;
	ixt_neg_compute(neg);
	if (neg->first && sflag != IXT_KF_FFP) {
		ret = ixt_neg_check_first(neg, status);
		if (ret)
			return ret;
	}
	ret = ixt_neg_reply(neg, sflag, text, len, rsp);
	if (!ret)
		ret = ixt_neg_declare(neg, sflag, rsp);
	if (!ret)
		ret = ixt_neg_propose(neg, sflag, rsp);
	if (ret)
		return ixt_neg_fail(status, ISCSI_STATUS_CLS_TARGET_ERR,
				    ISCSI_LOGIN_STATUS_NO_RESOURCES, ret);
	ixt_neg_update(neg);
	neg->first = false;
	return 0;
}

/**
 * ixt_neg_pending() - whether offers of the target await answers
 * @neg: the negotiation state.
 *
 * The login must not leave the stage (its response must have T=0) while
 * the initiator owes answers.
 *
 * Context: Any context.
 * Return: true if a key the target offered needs an answer not received.
 */
bool ixt_neg_pending(const struct ixt_neg *neg)
{
	int k;

	for (k = 0; k < IXT_KEY_NR; k++)
		if ((neg->key[k].state & (IXT_KS_OFFERED | IXT_KS_ANSWERED |
					  IXT_KS_OPTIONAL)) == IXT_KS_OFFERED)
			return true;
	return false;
}

/**
 * ixt_neg_has_offers() - whether the target needs the operational stage
 * @neg: the negotiation state.
 *
 * When an initiator asks to go from the security stage straight to full
 * feature phase, the target may answer with the operational stage as the
 * next stage instead; it should when the RFC defaults are not what it
 * offers.
 *
 * Context: Any context.
 * Return: true if, in the operational stage, the target would offer a key
 * or declare a MaxRecvDataSegmentLength other than the default.
 */
bool ixt_neg_has_offers(const struct ixt_neg *neg)
{
	int k;

	for (k = 0; k < IXT_KEY_NR; k++)
		if (ixt_neg_should_offer(neg, IXT_KF_OPERATIONAL, k))
			return true;
	return ixt_neg_declares(neg, IXT_KF_OPERATIONAL, IXT_KEY_MAX_RECV_DSL) &&
	       neg->offer.max_recv_dlength != ISCSI_DEF_MAX_RECV_SEG_LEN;
}

/**
 * ixt_neg_finish() - check that the login's negotiation may end
 * @neg: the negotiation state.
 * @status: where to store the login status to send on error.
 *
 * Call when the login is about to enter full feature phase. @neg->params
 * is then final for the connection.
 *
 * Context: Any context.
 * Return: 0, or -EPROTO if offers of the target are unanswered or if the
 * leading connection of a normal iSER session did not settle on
 * RDMAExtensions=Yes.
 */
int ixt_neg_finish(struct ixt_neg *neg, struct ixt_login_status *status)
{
	const struct ixt_neg_key *rdma = &neg->key[IXT_KEY_RDMA_EXTENSIONS];
	unsigned int iser_leading = IXT_NEG_ISER | IXT_NEG_LEADING;

	if (ixt_neg_pending(neg))
		return ixt_neg_init_err(status, -EPROTO);
	if ((neg->flags & iser_leading) == iser_leading &&
	    !ixt_neg_discovery(neg) &&
	    !((rdma->state & IXT_KS_RESULT) && rdma->res))
		return ixt_neg_init_err(status, -EPROTO);
	return 0;
}

/**
 * ixt_neg_text_begin() - start a text negotiation in full feature phase
 * @neg: the negotiation state of the connection, past its login.
 *
 * Each Text Request sequence is a negotiation of its own: a key may be
 * sent again (MaxRecvDataSegmentLength, SendTargets). Outcomes so far are
 * kept.
 *
 * Context: Any context.
 */
void ixt_neg_text_begin(struct ixt_neg *neg)
{
	int k;

	for (k = 0; k < IXT_KEY_NR; k++) {
		neg->key[k].state &= IXT_KS_DECLARED | IXT_KS_RESULT;
		neg->key[k].reply = IXT_REPLY_NONE;
	}
}
