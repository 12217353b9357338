/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iscsi_xt: login and text key negotiation (RFC 7143 sections 6 and 13,
 * RFC 7144 iSCSIProtocolLevel, RFC 7145 iSER keys).
 *
 * Four parts, used in this order by the login state machine:
 *
 * 1. Key descriptors: every standard key, with its type, result function,
 *    range, RFC default, the stages and senders it is allowed for, and when
 *    it is irrelevant. ixt_key_lookup() finds one by name.
 * 2. The TPG offer (&struct ixt_offer): what a TPG's configfs param/
 *    directory shows, with LIO's attribute names, defaults and syntax, and
 *    what the target negotiates with. ixt_offer_show() and
 *    ixt_offer_store() serve configfs.
 * 3. Text: ixt_text_check() validates a login or text data segment (the
 *    concatenation of the data segments of a PDU sequence), ixt_text_next()
 *    walks its key=value pairs; &struct ixt_text_buf collects a response
 *    and hands it out in chunks that fit the initiator's
 *    MaxRecvDataSegmentLength.
 * 4. The engine (&struct ixt_neg): one per connection, across all the PDUs
 *    of its login and, later, of its text negotiations. ixt_neg_process()
 *    takes a request's text, answers it into a response buffer and keeps
 *    the outcome in &struct ixt_params.
 *
 * Pure code: no allocation, locking, I/O or logging, so the same object
 * builds into the module and into the user-space unit tests. Errors are
 * negative errno values plus, for the login, the status the target sends.
 */
#ifndef _ISCSI_XT_PARAMS_H
#define _ISCSI_XT_PARAMS_H

#include <linux/bits.h>
#include <linux/types.h>
#include <scsi/iscsi_proto.h>

/* Longest key name, in bytes (RFC 7143: 63). */
#define IXT_KEY_MAX_LEN			63
/* Longest value unless a key says otherwise, in bytes (RFC 7143: 255). */
#define IXT_VALUE_MAX_LEN		VALUE_MAXLEN
/* Longest value of a list-of-values key or of a CHAP key, in bytes. */
#define IXT_VALUE_LONG_LEN		8192
/* Most text one request may carry, all its PDUs together, in bytes. */
#define IXT_TEXT_MAX_LEN		65536
/* Most key=value pairs one request may carry. */
#define IXT_TEXT_MAX_PAIRS		128
/* A response buffer of this size holds any response ixt_neg_process() makes. */
#define IXT_NEG_RSP_LEN			16384
/* Room for a TargetAlias or an InitiatorAlias and its NUL. */
#define IXT_ALIAS_LEN			(IXT_VALUE_MAX_LEN + 1)
/* Room for an obsolete IFMarkInt or OFMarkInt value ("65535~65535"). */
#define IXT_MARKINT_LEN			12
/* Most values in a list of an offer. */
#define IXT_VLIST_MAX			4

/**
 * enum ixt_key - the standard keys, in the order the engine computes them
 * @IXT_KEY_SESSION_TYPE: SessionType.
 * @IXT_KEY_INITIATOR_NAME: InitiatorName.
 * @IXT_KEY_TARGET_NAME: TargetName.
 * @IXT_KEY_INITIATOR_ALIAS: InitiatorAlias.
 * @IXT_KEY_TARGET_ALIAS: TargetAlias.
 * @IXT_KEY_TARGET_ADDRESS: TargetAddress.
 * @IXT_KEY_TPGT: TargetPortalGroupTag.
 * @IXT_KEY_SEND_TARGETS: SendTargets.
 * @IXT_KEY_AUTH_METHOD: AuthMethod.
 * @IXT_KEY_HEADER_DIGEST: HeaderDigest.
 * @IXT_KEY_DATA_DIGEST: DataDigest.
 * @IXT_KEY_RDMA_EXTENSIONS: RDMAExtensions (RFC 7145).
 * @IXT_KEY_MAX_RECV_DSL: MaxRecvDataSegmentLength.
 * @IXT_KEY_TARGET_RDSL: TargetRecvDataSegmentLength (RFC 7145).
 * @IXT_KEY_INITIATOR_RDSL: InitiatorRecvDataSegmentLength (RFC 7145).
 * @IXT_KEY_MAX_OUT_UNEXP_PDUS: MaxOutstandingUnexpectedPDUs (RFC 7145).
 * @IXT_KEY_MAX_CONNECTIONS: MaxConnections.
 * @IXT_KEY_INITIAL_R2T: InitialR2T.
 * @IXT_KEY_IMMEDIATE_DATA: ImmediateData.
 * @IXT_KEY_MAX_BURST: MaxBurstLength.
 * @IXT_KEY_FIRST_BURST: FirstBurstLength.
 * @IXT_KEY_TIME2WAIT: DefaultTime2Wait.
 * @IXT_KEY_TIME2RETAIN: DefaultTime2Retain.
 * @IXT_KEY_DATA_PDU_IN_ORDER: DataPDUInOrder.
 * @IXT_KEY_DATA_SEQ_IN_ORDER: DataSequenceInOrder.
 * @IXT_KEY_ERL: ErrorRecoveryLevel.
 * @IXT_KEY_MAX_R2T: MaxOutstandingR2T.
 * @IXT_KEY_TASK_REPORTING: TaskReporting.
 * @IXT_KEY_PROTOCOL_LEVEL: iSCSIProtocolLevel (RFC 7144).
 * @IXT_KEY_OF_MARKER: OFMarker (obsolete).
 * @IXT_KEY_IF_MARKER: IFMarker (obsolete).
 * @IXT_KEY_OF_MARK_INT: OFMarkInt (obsolete).
 * @IXT_KEY_IF_MARK_INT: IFMarkInt (obsolete).
 * @IXT_KEY_NR: number of keys; not a key.
 *
 * A key's outcome may depend on the outcomes of keys before it in this
 * order, never after: FirstBurstLength on InitialR2T, ImmediateData and
 * MaxBurstLength, MaxOutstandingR2T on DataSequenceInOrder and
 * ErrorRecoveryLevel, all on SessionType and RDMAExtensions.
 */
enum ixt_key {
	IXT_KEY_SESSION_TYPE,
	IXT_KEY_INITIATOR_NAME,
	IXT_KEY_TARGET_NAME,
	IXT_KEY_INITIATOR_ALIAS,
	IXT_KEY_TARGET_ALIAS,
	IXT_KEY_TARGET_ADDRESS,
	IXT_KEY_TPGT,
	IXT_KEY_SEND_TARGETS,
	IXT_KEY_AUTH_METHOD,
	IXT_KEY_HEADER_DIGEST,
	IXT_KEY_DATA_DIGEST,
	IXT_KEY_RDMA_EXTENSIONS,
	IXT_KEY_MAX_RECV_DSL,
	IXT_KEY_TARGET_RDSL,
	IXT_KEY_INITIATOR_RDSL,
	IXT_KEY_MAX_OUT_UNEXP_PDUS,
	IXT_KEY_MAX_CONNECTIONS,
	IXT_KEY_INITIAL_R2T,
	IXT_KEY_IMMEDIATE_DATA,
	IXT_KEY_MAX_BURST,
	IXT_KEY_FIRST_BURST,
	IXT_KEY_TIME2WAIT,
	IXT_KEY_TIME2RETAIN,
	IXT_KEY_DATA_PDU_IN_ORDER,
	IXT_KEY_DATA_SEQ_IN_ORDER,
	IXT_KEY_ERL,
	IXT_KEY_MAX_R2T,
	IXT_KEY_TASK_REPORTING,
	IXT_KEY_PROTOCOL_LEVEL,
	IXT_KEY_OF_MARKER,
	IXT_KEY_IF_MARKER,
	IXT_KEY_OF_MARK_INT,
	IXT_KEY_IF_MARK_INT,
	IXT_KEY_NR,
};

/**
 * enum ixt_key_type - syntax of a key's value
 * @IXT_KT_BOOL: "Yes" or "No"; stored as 1 or 0.
 * @IXT_KT_NUMBER: a numerical-value: decimal, or hex with "0x"; u32.
 * @IXT_KT_LIST: a list-of-values: comma-separated names; stored as the
 *	index of the chosen name in &ixt_key_desc.values.
 * @IXT_KT_ENUM: one name of &ixt_key_desc.values; stored as its index.
 * @IXT_KT_NAME: an iSCSI name: at most 223 bytes of UTF-8, no space or
 *	control character.
 * @IXT_KT_TEXT: UTF-8 text without control characters.
 * @IXT_KT_RANGE: a numeric-range "min~max" or a number (obsolete keys).
 */
enum ixt_key_type {
	IXT_KT_BOOL,
	IXT_KT_NUMBER,
	IXT_KT_LIST,
	IXT_KT_ENUM,
	IXT_KT_NAME,
	IXT_KT_TEXT,
	IXT_KT_RANGE,
};

/**
 * enum ixt_key_func - how a key's outcome follows from the two sides' values
 * @IXT_RF_AND: Boolean AND: "Yes" only if both say "Yes".
 * @IXT_RF_OR: Boolean OR: "Yes" if either says "Yes".
 * @IXT_RF_MIN: the smaller number; for MaxOutstandingUnexpectedPDUs, 0
 *	means "no limit" and is larger than any other value.
 * @IXT_RF_MAX: the larger number.
 * @IXT_RF_SELECT: the first value of the proposer's list that the acceptor
 *	supports.
 * @IXT_RF_DECLARE: declarative: each side states its own value; no answer.
 * @IXT_RF_REJECT: obsolete key whose every offer is answered "Reject".
 */
enum ixt_key_func {
	IXT_RF_AND,
	IXT_RF_OR,
	IXT_RF_MIN,
	IXT_RF_MAX,
	IXT_RF_SELECT,
	IXT_RF_DECLARE,
	IXT_RF_REJECT,
};

/* &ixt_key_desc.flags: stages in which the initiator may send the key. */
#define IXT_KF_SECURITY		BIT(0)	/* login, security stage */
#define IXT_KF_OPERATIONAL	BIT(1)	/* login, operational stage */
#define IXT_KF_FFP		BIT(2)	/* Text Request, full feature phase */
/* Who may send it. */
#define IXT_KF_INITIATOR	BIT(3)
#define IXT_KF_TARGET		BIT(4)
/* Use and scope. */
#define IXT_KF_LO		BIT(5)	/* leading connection only (LO) */
#define IXT_KF_FIRST		BIT(6)	/* first Login Request only */
#define IXT_KF_SESSION		BIT(7)	/* session-wide (SW), else per conn */
/* When it is irrelevant. */
#define IXT_KF_NORMAL		BIT(8)	/* irrelevant in a discovery session */
#define IXT_KF_RDMA		BIT(9)	/* irrelevant when RDMAExtensions=No */
#define IXT_KF_NOT_RDMA		BIT(10)	/* irrelevant when RDMAExtensions=Yes */
#define IXT_KF_OBSOLETE		BIT(11)	/* obsoleted by RFC 7143 */
/* Answered, never offered: initiators that predate it fail on it. */
#define IXT_KF_NO_OFFER		BIT(12)

/**
 * struct ixt_key_desc - what RFC 7143/7144/7145 say about one key
 * @name: the key name, as on the wire.
 * @values: for %IXT_KT_LIST and %IXT_KT_ENUM, the names the target
 *	supports, indexed by stored value; %NULL otherwise.
 * @nr_values: number of names in @values.
 * @type: syntax of the value, an &enum ixt_key_type.
 * @func: result function, an &enum ixt_key_func.
 * @flags: IXT_KF_* bits: stages, senders, use, scope, irrelevance.
 * @max_len: longest value accepted, in bytes.
 * @def: RFC default, in the stored form of @type; the outcome when the
 *	key is not negotiated.
 * @min: smallest number accepted (%IXT_KT_NUMBER, %IXT_KT_RANGE).
 * @max: largest number accepted (%IXT_KT_NUMBER, %IXT_KT_RANGE).
 */
struct ixt_key_desc {
	const char *name;
	const char * const *values;
	u8 nr_values;
	u8 type;
	u8 func;
	u16 flags;
	u16 max_len;
	u32 def;
	u32 min;
	u32 max;
};

/* Stored values of the list and enumeration keys. */
#define IXT_DIGEST_NONE			0	/* HeaderDigest, DataDigest */
#define IXT_DIGEST_CRC32C		1
#define IXT_AUTH_NONE			0	/* AuthMethod */
#define IXT_AUTH_CHAP			1
#define IXT_SESSION_NORMAL		0	/* SessionType */
#define IXT_SESSION_DISCOVERY		1
#define IXT_TASK_REPORTING_RFC3720	0	/* TaskReporting */

/* iSCSIProtocolLevel of RFC 7143 and of this target (RFC 7144). */
#define IXT_PROTOCOL_LEVEL		1

/**
 * struct ixt_vlist - an ordered list of values, for list-of-values keys
 * @nr: number of values in @v.
 * @v: the values, as indexes in the key's &ixt_key_desc.values, preferred
 *	first and each at most once.
 */
struct ixt_vlist {
	u8 nr;
	u8 v[IXT_VLIST_MAX];
};

/**
 * struct ixt_offer - what a TPG offers, and its configfs param/ directory
 * @auth_method: AuthMethod: the methods the target accepts.
 * @header_digest: HeaderDigest: the digests the target accepts.
 * @data_digest: DataDigest: the digests the target accepts.
 * @max_connections: MaxConnections.
 * @target_alias: TargetAlias declared to normal sessions; empty: none.
 * @initial_r2t: InitialR2T.
 * @immediate_data: ImmediateData.
 * @max_recv_dlength: MaxRecvDataSegmentLength the target declares: the
 *	longest data segment it receives.
 * @max_xmit_dlength: MaxXmitDataSegmentLength, a LIO knob and not a key:
 *	the longest data segment the target sends, whatever larger value the
 *	initiator declares.
 * @max_burst_length: MaxBurstLength.
 * @first_burst_length: FirstBurstLength.
 * @default_time2wait: DefaultTime2Wait.
 * @default_time2retain: DefaultTime2Retain.
 * @max_outstanding_r2t: MaxOutstandingR2T.
 * @data_pdu_in_order: DataPDUInOrder.
 * @data_sequence_in_order: DataSequenceInOrder.
 * @error_recovery_level: ErrorRecoveryLevel: the highest level offered.
 * @if_marker: IFMarker, kept for configfs only: markers are obsolete and
 *	always negotiated to "No".
 * @of_marker: OFMarker, as @if_marker.
 * @if_mark_int: IFMarkInt as configured ("Reject" or a range), for
 *	configfs only: always answered "Reject".
 * @of_mark_int: OFMarkInt, as @if_mark_int.
 * @target_recv_dlength: TargetRecvDataSegmentLength (iSER): longest data
 *	segment of a control-type PDU the target receives. Not in param/.
 * @initiator_recv_dlength: InitiatorRecvDataSegmentLength (iSER) the
 *	target offers. Not in param/.
 * @tpgt: TargetPortalGroupTag declared in the first login response.
 *
 * ixt_offer_init() fills it with LIO's defaults; the members up to
 * @of_mark_int are the attributes of param/, in LIO's order (see &enum
 * ixt_offer_param). A negotiation works on its own copy (see
 * ixt_neg_init()), which the login code may adjust first: AuthMethod
 * None when the initiator need not authenticate, ErrorRecoveryLevel from
 * the ACL, ImmediateData=No with T10 PI over iSER.
 */
struct ixt_offer {
	struct ixt_vlist auth_method;
	struct ixt_vlist header_digest;
	struct ixt_vlist data_digest;
	u32 max_connections;
	char target_alias[IXT_ALIAS_LEN];
	bool initial_r2t;
	bool immediate_data;
	u32 max_recv_dlength;
	u32 max_xmit_dlength;
	u32 max_burst_length;
	u32 first_burst_length;
	u32 default_time2wait;
	u32 default_time2retain;
	u32 max_outstanding_r2t;
	bool data_pdu_in_order;
	bool data_sequence_in_order;
	u32 error_recovery_level;
	bool if_marker;
	bool of_marker;
	char if_mark_int[IXT_MARKINT_LEN];
	char of_mark_int[IXT_MARKINT_LEN];
	u32 target_recv_dlength;
	u32 initiator_recv_dlength;
	u16 tpgt;
};

/**
 * enum ixt_offer_param - the attributes of a TPG's param/ directory
 * @IXT_PARAM_AUTH_METHOD: AuthMethod: "CHAP", "None", or both in either
 *	order, comma-separated.
 * @IXT_PARAM_HEADER_DIGEST: HeaderDigest: "CRC32C", "None", or both.
 * @IXT_PARAM_DATA_DIGEST: DataDigest: as @IXT_PARAM_HEADER_DIGEST.
 * @IXT_PARAM_MAX_CONNECTIONS: MaxConnections: 1..65535.
 * @IXT_PARAM_TARGET_ALIAS: TargetAlias: UTF-8 text, at most 255 bytes.
 * @IXT_PARAM_INITIAL_R2T: InitialR2T: "Yes" or "No".
 * @IXT_PARAM_IMMEDIATE_DATA: ImmediateData: "Yes" or "No".
 * @IXT_PARAM_MAX_RECV_DSL: MaxRecvDataSegmentLength: 512..16777215.
 * @IXT_PARAM_MAX_XMIT_DSL: MaxXmitDataSegmentLength: 512..16777215.
 * @IXT_PARAM_MAX_BURST: MaxBurstLength: 512..16777215.
 * @IXT_PARAM_FIRST_BURST: FirstBurstLength: 512..16777215.
 * @IXT_PARAM_TIME2WAIT: DefaultTime2Wait: 0..3600.
 * @IXT_PARAM_TIME2RETAIN: DefaultTime2Retain: 0..3600.
 * @IXT_PARAM_MAX_R2T: MaxOutstandingR2T: 1..65535.
 * @IXT_PARAM_DATA_PDU_IN_ORDER: DataPDUInOrder: "Yes" or "No".
 * @IXT_PARAM_DATA_SEQ_IN_ORDER: DataSequenceInOrder: "Yes" or "No".
 * @IXT_PARAM_ERL: ErrorRecoveryLevel: 0..2.
 * @IXT_PARAM_IF_MARKER: IFMarker: "Yes" or "No".
 * @IXT_PARAM_OF_MARKER: OFMarker: "Yes" or "No".
 * @IXT_PARAM_IF_MARK_INT: IFMarkInt: "Reject", N or N~M in 1..65535.
 * @IXT_PARAM_OF_MARK_INT: OFMarkInt: as @IXT_PARAM_IF_MARK_INT.
 * @IXT_PARAM_NR: number of attributes; not an attribute.
 *
 * The set, names and order of LIO's param/ in Linux 6.12. Numbers are
 * written in decimal or in hex with "0x", and shown in decimal.
 */
enum ixt_offer_param {
	IXT_PARAM_AUTH_METHOD,
	IXT_PARAM_HEADER_DIGEST,
	IXT_PARAM_DATA_DIGEST,
	IXT_PARAM_MAX_CONNECTIONS,
	IXT_PARAM_TARGET_ALIAS,
	IXT_PARAM_INITIAL_R2T,
	IXT_PARAM_IMMEDIATE_DATA,
	IXT_PARAM_MAX_RECV_DSL,
	IXT_PARAM_MAX_XMIT_DSL,
	IXT_PARAM_MAX_BURST,
	IXT_PARAM_FIRST_BURST,
	IXT_PARAM_TIME2WAIT,
	IXT_PARAM_TIME2RETAIN,
	IXT_PARAM_MAX_R2T,
	IXT_PARAM_DATA_PDU_IN_ORDER,
	IXT_PARAM_DATA_SEQ_IN_ORDER,
	IXT_PARAM_ERL,
	IXT_PARAM_IF_MARKER,
	IXT_PARAM_OF_MARKER,
	IXT_PARAM_IF_MARK_INT,
	IXT_PARAM_OF_MARK_INT,
	IXT_PARAM_NR,
};

/**
 * struct ixt_text_pair - one key=value pair of a request
 * @key: the key name; not NUL-terminated ('=' follows it).
 * @value: the value; NUL-terminated.
 * @key_len: length of @key in bytes, 1..%IXT_KEY_MAX_LEN.
 * @value_len: length of @value in bytes, without its NUL.
 *
 * Both point into the text given to ixt_text_next().
 */
struct ixt_text_pair {
	const char *key;
	const char *value;
	u32 key_len;
	u32 value_len;
};

/**
 * struct ixt_text_buf - a response being built, then sent in chunks
 * @data: the caller's storage.
 * @size: bytes at @data.
 * @len: bytes of key=value pairs in @data so far.
 * @sent: bytes already handed out by ixt_text_chunk().
 */
struct ixt_text_buf {
	char *data;
	u32 size;
	u32 len;
	u32 sent;
};

/**
 * struct ixt_login_status - Status-Class and Status-Detail of a Login Response
 * @status_class: one of the ISCSI_STATUS_CLS_* values.
 * @status_detail: one of the ISCSI_LOGIN_STATUS_* values of that class.
 */
struct ixt_login_status {
	u8 status_class;
	u8 status_detail;
};

/**
 * struct ixt_params - the outcome of a negotiation, for the data path
 * @header_digest: HeaderDigest=CRC32C.
 * @data_digest: DataDigest=CRC32C.
 * @target_recv_dlength: longest data segment the target receives:
 *	the MaxRecvDataSegmentLength it declared (RFC default 8192 if it did
 *	not), or with iSER TargetRecvDataSegmentLength.
 * @initiator_recv_dlength: longest data segment the initiator receives:
 *	the MaxRecvDataSegmentLength it declared (default 8192), or with iSER
 *	InitiatorRecvDataSegmentLength.
 * @max_xmit_dlength: longest data segment the target sends: the smaller
 *	of @initiator_recv_dlength and the offer's MaxXmitDataSegmentLength.
 * @max_connections: MaxConnections; 1 in a discovery session.
 * @initial_r2t: InitialR2T.
 * @immediate_data: ImmediateData.
 * @max_burst_length: MaxBurstLength.
 * @first_burst_length: FirstBurstLength, never above @max_burst_length.
 * @default_time2wait: DefaultTime2Wait, in seconds.
 * @default_time2retain: DefaultTime2Retain, in seconds.
 * @max_outstanding_r2t: MaxOutstandingR2T.
 * @data_pdu_in_order: DataPDUInOrder.
 * @data_sequence_in_order: DataSequenceInOrder.
 * @error_recovery_level: ErrorRecoveryLevel.
 * @rdma_extensions: RDMAExtensions=Yes: the iSER data path.
 * @max_unexpected_pdus: MaxOutstandingUnexpectedPDUs (iSER); 0: no limit.
 * @protocol_level: iSCSIProtocolLevel.
 * @auth_method: AuthMethod chosen, %IXT_AUTH_NONE or %IXT_AUTH_CHAP.
 * @discovery: SessionType=Discovery.
 * @initiator_name: InitiatorName, NUL-terminated; empty until declared.
 * @initiator_alias: InitiatorAlias, NUL-terminated; empty if none.
 * @target_name: TargetName, NUL-terminated; empty if none.
 *
 * Every member holds the RFC default until its key is negotiated, and is
 * up to date after each ixt_neg_process(). On a connection that joins a
 * session, the session-wide members are not negotiated: take them from
 * the session.
 */
struct ixt_params {
	bool header_digest;
	bool data_digest;
	u32 target_recv_dlength;
	u32 initiator_recv_dlength;
	u32 max_xmit_dlength;
	u32 max_connections;
	bool initial_r2t;
	bool immediate_data;
	u32 max_burst_length;
	u32 first_burst_length;
	u32 default_time2wait;
	u32 default_time2retain;
	u32 max_outstanding_r2t;
	bool data_pdu_in_order;
	bool data_sequence_in_order;
	u32 error_recovery_level;
	bool rdma_extensions;
	u32 max_unexpected_pdus;
	u32 protocol_level;
	u8 auth_method;
	bool discovery;
	char initiator_name[ISCSI_NAME_LEN];
	char initiator_alias[IXT_ALIAS_LEN];
	char target_name[ISCSI_NAME_LEN];
};

/* ixt_neg_init() flags. */
#define IXT_NEG_LEADING		BIT(0)	/* TSIH 0: the login starts a session */
#define IXT_NEG_ISER		BIT(1)	/* the connection is an iSER one */
#define IXT_NEG_KEYS_WORKAROUND	BIT(2)	/* TPG login_keys_workaround=1 */

/**
 * struct ixt_neg_key - negotiation state of one key (engine-private)
 * @val: the value the initiator sent, parsed.
 * @res: the outcome, once known, or the target's offer awaiting an answer.
 * @state: who sent the key and when, as bits private to the engine.
 * @reply: what the response being built says about the key.
 */
struct ixt_neg_key {
	u32 val;
	u32 res;
	u8 state;
	u8 reply;
};

/**
 * struct ixt_neg - negotiation state of one connection
 * @offer: the offer negotiated with, copied by ixt_neg_init(); the
 *	caller may adjust it before the first ixt_neg_process().
 * @params: the outcome so far.
 * @auth_keys: the last request carried keys for the authentication
 *	engine (CHAP_*), which the engine left alone: hand the request to it.
 * @has_send_targets: the last request (a Text Request) carried SendTargets.
 * @send_targets: its value ("All", an iSCSI name, or empty), NUL-terminated.
 * @flags: IXT_NEG_* flags given to ixt_neg_init().
 * @first: no request has been processed yet.
 * @recv_dlength: the MaxRecvDataSegmentLength the target declared, once
 *	it has: as LIO, the offer's MaxXmitDataSegmentLength when the
 *	initiator declared its own first, else the offer's
 *	MaxRecvDataSegmentLength.
 * @key: per-key state, indexed by &enum ixt_key; engine-private.
 *
 * Not shared: the login or text code of the connection serialises all
 * calls on it.
 */
struct ixt_neg {
	struct ixt_offer offer;
	struct ixt_params params;
	bool auth_keys;
	bool has_send_targets;
	char send_targets[ISCSI_NAME_LEN];
	unsigned int flags;
	bool first;
	u32 recv_dlength;
	struct ixt_neg_key key[IXT_KEY_NR];
};

/* Key descriptors */
const struct ixt_key_desc *ixt_key_get(enum ixt_key key);
int ixt_key_lookup(const char *name, u32 len);
bool ixt_key_is_auth(const char *name, u32 len);

/* The TPG offer */
void ixt_offer_init(struct ixt_offer *offer, u16 tpgt);
const char *ixt_offer_param_name(enum ixt_offer_param param);
int ixt_offer_param_find(const char *name);
int ixt_offer_show(const struct ixt_offer *offer, enum ixt_offer_param param,
		   char *buf, u32 size);
int ixt_offer_store(struct ixt_offer *offer, enum ixt_offer_param param,
		    const char *buf, u32 len);

/* Text */
int ixt_text_check(const char *text, u32 len);
bool ixt_name_check(const char *s, u32 len);
bool ixt_text_next(const char *text, u32 len, u32 *pos,
		   struct ixt_text_pair *pair);
int ixt_text_find(const char *text, u32 len, const char *key,
		  struct ixt_text_pair *pair);
void ixt_text_buf_init(struct ixt_text_buf *buf, char *data, u32 size);
int ixt_text_add(struct ixt_text_buf *buf, const char *key,
		 const char *value);
int ixt_text_add_u32(struct ixt_text_buf *buf, const char *key, u32 value);
u32 ixt_text_chunk(struct ixt_text_buf *buf, u32 max, const char **chunk,
		   bool *more);

/* The engine */
void ixt_neg_init(struct ixt_neg *neg, const struct ixt_offer *offer,
		  unsigned int flags);
int ixt_neg_process(struct ixt_neg *neg, u8 stage, const char *text, u32 len,
		    struct ixt_text_buf *rsp, struct ixt_login_status *status);
bool ixt_neg_pending(const struct ixt_neg *neg);
bool ixt_neg_has_offers(const struct ixt_neg *neg);
int ixt_neg_finish(struct ixt_neg *neg, struct ixt_login_status *status);
void ixt_neg_text_begin(struct ixt_neg *neg);

#endif /* _ISCSI_XT_PARAMS_H */
