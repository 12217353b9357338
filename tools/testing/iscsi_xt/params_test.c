// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/iscsi_xt/params.c: the key table against
 * RFC 7143/7144/7145, the TPG offer against LIO's param/ attributes, text
 * splitting (malformed input included) and response chunking, every
 * result function with edge values, Irrelevant/Reject/NotUnderstood,
 * duplicates, stage and session-type rules, the target's own offers, and
 * whole logins as open-iscsi 2.1.8 makes them, over TCP and iSER.
 *
 * Texts are written "key=value|key=value|": each '|' stands for the NUL
 * that ends a pair on the wire. Responses are shown the same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/errno.h>
#include <linux/kernel.h>
#include <iscsi_xt/params.h>

#include "ixt_test.h"

#define SEC		ISCSI_SECURITY_NEGOTIATION_STAGE
#define OP		ISCSI_OP_PARMS_NEGOTIATION_STAGE
#define FFP		ISCSI_FULL_FEATURE_PHASE
#define LEAD		IXT_NEG_LEADING
#define ISER		IXT_NEG_ISER

#define INAME		"iqn.2005-03.org.open-iscsi:a1b2c3d4e5f6"
#define TNAME		"iqn.2003-01.org.linux-iscsi.target.x8664:sn.0123456789ab"
/* What every first request carries, for the tests of one key. */
#define NAMES		"InitiatorName=" INAME "|TargetName=" TNAME "|"

/* An untouched login status, to see that success leaves it alone. */
#define UNTOUCHED	0xee

/* Compares strings, either of which may be NULL, and shows both. */
static bool expect_str(const char *got, const char *want, const char *file,
		       int line, const char *what)
{
	bool ok = got && want ? !strcmp(got, want) : got == want;

	if (!ixt_test_check(ok, file, line, what))
		printf("#   got \"%s\", want \"%s\"\n", got ? got : "(null)",
		       want ? want : "(null)");
	return ok;
}

#define EXPECT_STR(got, want)						\
	expect_str((got), (want), __FILE__, __LINE__, #got " == " #want)

/* Turns a "k=v|" spec into wire text at @buf; returns its length. */
static u32 wire(char *buf, const char *spec)
{
	u32 len = strlen(spec), i;

	memcpy(buf, spec, len);
	for (i = 0; i < len; i++)
		if (buf[i] == '|')
			buf[i] = '\0';
	return len;
}

/* Sets param/ attributes of @offer from "Name=value|" pairs. */
static void offer_set(struct ixt_offer *offer, const char *spec)
{
	char buf[1024];
	u32 len = wire(buf, spec ? spec : ""), pos = 0;

	while (pos < len) {
		char *pair = buf + pos, *eq = strchr(pair, '=');
		int param;

		pos += strlen(pair) + 1;
		*eq = '\0';
		param = ixt_offer_param_find(pair);
		if (!EXPECT_TRUE(param >= 0) ||
		    !EXPECT_EQ(ixt_offer_store(offer, param, eq + 1,
					       strlen(eq + 1)), 0))
			printf("#   offer %s=%s refused\n", pair, eq + 1);
	}
}

/*
 * A conversation: the negotiation state of a connection and the last
 * response, as raw bytes and as a "k=v|" string.
 */
static struct conv {
	struct ixt_offer offer;
	struct ixt_neg neg;
	char req[IXT_TEXT_MAX_LEN + 2];
	char rsp_data[IXT_NEG_RSP_LEN];
	struct ixt_text_buf rsp;
	char shown[IXT_NEG_RSP_LEN + 1];
	struct ixt_login_status status;
} cv;

/* A new connection to a TPG whose offer is LIO's default with @spec. */
static void conv_start(const char *spec, unsigned int flags)
{
	ixt_offer_init(&cv.offer, 1);
	offer_set(&cv.offer, spec);
	ixt_neg_init(&cv.neg, &cv.offer, flags);
}

/* Processes one request written as a spec; the response is in cv.shown. */
static int conv_step(u8 stage, const char *spec)
{
	u32 len = wire(cv.req, spec), i;
	int ret;

	ixt_text_buf_init(&cv.rsp, cv.rsp_data, sizeof(cv.rsp_data));
	cv.status.status_class = UNTOUCHED;
	cv.status.status_detail = UNTOUCHED;
	ret = ixt_neg_process(&cv.neg, stage, cv.req, len, &cv.rsp,
			      &cv.status);
	memcpy(cv.shown, cv.rsp_data, cv.rsp.len);
	for (i = 0; i < cv.rsp.len; i++)
		if (cv.shown[i] == '\0')
			cv.shown[i] = '|';
	cv.shown[cv.rsp.len] = '\0';
	return ret;
}

/* The value of the first @key in the last response, or NULL. */
static const char *rsp_value(const char *key)
{
	struct ixt_text_pair pair;
	u32 pos = 0;

	while (ixt_text_next(cv.rsp_data, cv.rsp.len, &pos, &pair))
		if (pair.key_len == strlen(key) &&
		    !memcmp(pair.key, key, pair.key_len))
			return pair.value;
	return NULL;
}

#define EXPECT_STATUS(cls, detail)					\
	do {								\
		EXPECT_EQ(cv.status.status_class, (cls));		\
		EXPECT_EQ(cv.status.status_detail, (detail));		\
	} while (0)
#define EXPECT_INIT_ERR()						\
	EXPECT_STATUS(ISCSI_STATUS_CLS_INITIATOR_ERR,			\
		      ISCSI_LOGIN_STATUS_INIT_ERR)
#define EXPECT_UNTOUCHED()	EXPECT_STATUS(UNTOUCHED, UNTOUCHED)

/*
 * Key table
 */

/* What RFC 7143 section 13, RFC 7144 and RFC 7145 section 6 say. */
static const struct {
	const char *name;
	u8 type;
	u8 func;
	u16 flags;
	u32 def;
	u32 min;
	u32 max;
} rfc_keys[] = {
#define S	IXT_KF_SECURITY
#define O	IXT_KF_OPERATIONAL
#define F	IXT_KF_FFP
#define I	IXT_KF_INITIATOR
#define T	IXT_KF_TARGET
#define LO	IXT_KF_LO
#define IO	IXT_KF_FIRST
#define SW	IXT_KF_SESSION
#define N	IXT_KF_NORMAL
#define NO	IXT_KF_NO_OFFER
	{ "HeaderDigest", IXT_KT_LIST, IXT_RF_SELECT, O | I | T,
	  IXT_DIGEST_NONE, 0, 0 },
	{ "DataDigest", IXT_KT_LIST, IXT_RF_SELECT, O | I | T,
	  IXT_DIGEST_NONE, 0, 0 },
	{ "MaxConnections", IXT_KT_NUMBER, IXT_RF_MIN, O | I | T | LO | SW | N,
	  1, 1, 65535 },
	{ "SendTargets", IXT_KT_TEXT, IXT_RF_DECLARE, F | I | SW, 0, 0, 0 },
	{ "TargetName", IXT_KT_NAME, IXT_RF_DECLARE, S | O | I | IO | SW, 0, 0, 0 },
	{ "InitiatorName", IXT_KT_NAME, IXT_RF_DECLARE, S | O | I | IO | SW, 0, 0, 0 },
	{ "TargetAlias", IXT_KT_TEXT, IXT_RF_DECLARE, S | O | F | T | SW, 0, 0, 0 },
	{ "InitiatorAlias", IXT_KT_TEXT, IXT_RF_DECLARE, S | O | F | I | SW, 0, 0, 0 },
	{ "TargetAddress", IXT_KT_TEXT, IXT_RF_DECLARE, S | O | F | T | SW, 0, 0, 0 },
	{ "TargetPortalGroupTag", IXT_KT_NUMBER, IXT_RF_DECLARE,
	  S | O | T | SW, 0, 0, 65535 },
	{ "InitialR2T", IXT_KT_BOOL, IXT_RF_OR, O | I | T | LO | SW | N, 1, 0, 0 },
	{ "ImmediateData", IXT_KT_BOOL, IXT_RF_AND, O | I | T | LO | SW | N,
	  1, 0, 0 },
	{ "MaxRecvDataSegmentLength", IXT_KT_NUMBER, IXT_RF_DECLARE,
	  O | F | I | T | IXT_KF_NOT_RDMA, 8192, 512, 16777215 },
	{ "MaxBurstLength", IXT_KT_NUMBER, IXT_RF_MIN, O | I | T | LO | SW | N,
	  262144, 512, 16777215 },
	{ "FirstBurstLength", IXT_KT_NUMBER, IXT_RF_MIN,
	  O | I | T | LO | SW | N, 65536, 512, 16777215 },
	{ "DefaultTime2Wait", IXT_KT_NUMBER, IXT_RF_MAX, O | I | T | LO | SW,
	  2, 0, 3600 },
	{ "DefaultTime2Retain", IXT_KT_NUMBER, IXT_RF_MIN, O | I | T | LO | SW,
	  20, 0, 3600 },
	{ "MaxOutstandingR2T", IXT_KT_NUMBER, IXT_RF_MIN,
	  O | I | T | LO | SW | N, 1, 1, 65535 },
	{ "DataPDUInOrder", IXT_KT_BOOL, IXT_RF_OR, O | I | T | LO | SW | N,
	  1, 0, 0 },
	{ "DataSequenceInOrder", IXT_KT_BOOL, IXT_RF_OR,
	  O | I | T | LO | SW | N, 1, 0, 0 },
	{ "ErrorRecoveryLevel", IXT_KT_NUMBER, IXT_RF_MIN, O | I | T | LO | SW,
	  0, 0, 2 },
	{ "SessionType", IXT_KT_ENUM, IXT_RF_DECLARE, S | O | I | LO | IO | SW,
	  IXT_SESSION_NORMAL, 0, 0 },
	{ "TaskReporting", IXT_KT_LIST, IXT_RF_SELECT,
	  O | I | T | LO | SW | N | NO, IXT_TASK_REPORTING_RFC3720, 0, 0 },
	{ "iSCSIProtocolLevel", IXT_KT_NUMBER, IXT_RF_MIN,
	  O | I | T | LO | SW | NO, 0, 0, 31 },
	{ "AuthMethod", IXT_KT_LIST, IXT_RF_SELECT, S | I | T, IXT_AUTH_NONE, 0, 0 },
	{ "OFMarker", IXT_KT_BOOL, IXT_RF_AND, O | I | T | IXT_KF_OBSOLETE, 0, 0, 0 },
	{ "IFMarker", IXT_KT_BOOL, IXT_RF_AND, O | I | T | IXT_KF_OBSOLETE, 0, 0, 0 },
	{ "OFMarkInt", IXT_KT_RANGE, IXT_RF_REJECT,
	  O | I | T | IXT_KF_OBSOLETE, 0, 1, 65535 },
	{ "IFMarkInt", IXT_KT_RANGE, IXT_RF_REJECT,
	  O | I | T | IXT_KF_OBSOLETE, 0, 1, 65535 },
	{ "RDMAExtensions", IXT_KT_BOOL, IXT_RF_AND, O | I | T | LO | SW | N,
	  0, 0, 0 },
	{ "TargetRecvDataSegmentLength", IXT_KT_NUMBER, IXT_RF_MIN,
	  O | I | T | IXT_KF_RDMA, 8192, 512, 16777215 },
	{ "InitiatorRecvDataSegmentLength", IXT_KT_NUMBER, IXT_RF_MIN,
	  O | I | T | IXT_KF_RDMA, 8192, 512, 16777215 },
	{ "MaxOutstandingUnexpectedPDUs", IXT_KT_NUMBER, IXT_RF_MIN,
	  O | I | T | LO | SW | IXT_KF_RDMA | NO, 0, 0, 0xffffffff },
#undef S
#undef O
#undef F
#undef I
#undef T
#undef LO
#undef IO
#undef SW
#undef N
#undef NO
};

TEST(key_table_matches_rfc)
{
	size_t i;

	ASSERT_EQ(ARRAY_SIZE(rfc_keys), IXT_KEY_NR);
	for (i = 0; i < ARRAY_SIZE(rfc_keys); i++) {
		int k = ixt_key_lookup(rfc_keys[i].name,
				       strlen(rfc_keys[i].name));
		const struct ixt_key_desc *d;

		IXT_CASE("%s", rfc_keys[i].name);
		if (!EXPECT_TRUE(k >= 0))
			continue;
		d = ixt_key_get(k);
		EXPECT_STR(d->name, rfc_keys[i].name);
		EXPECT_EQ(d->type, rfc_keys[i].type);
		EXPECT_EQ(d->func, rfc_keys[i].func);
		EXPECT_EQ(d->flags, rfc_keys[i].flags);
		EXPECT_EQ(d->def, rfc_keys[i].def);
		if (d->type == IXT_KT_NUMBER || d->type == IXT_KT_RANGE) {
			EXPECT_EQ(d->min, rfc_keys[i].min);
			EXPECT_EQ(d->max, rfc_keys[i].max);
		}
	}
}

TEST(key_table_consistent)
{
	int k, j;

	for (k = 0; k < IXT_KEY_NR; k++) {
		const struct ixt_key_desc *d = ixt_key_get(k);

		IXT_CASE("%s", d->name);
		EXPECT_EQ(ixt_key_lookup(d->name, strlen(d->name)), k);
		EXPECT_TRUE(strlen(d->name) <= IXT_KEY_MAX_LEN);
		EXPECT_TRUE(d->flags & (IXT_KF_SECURITY | IXT_KF_OPERATIONAL |
					IXT_KF_FFP));
		EXPECT_TRUE(d->flags & (IXT_KF_INITIATOR | IXT_KF_TARGET));
		EXPECT_TRUE(d->max_len >= 1);
		if (d->type == IXT_KT_LIST || d->type == IXT_KT_ENUM) {
			EXPECT_TRUE(d->values && d->nr_values);
			EXPECT_TRUE(d->def < d->nr_values);
		}
		if (d->type == IXT_KT_NUMBER && d->func != IXT_RF_DECLARE)
			EXPECT_TRUE(d->min <= d->def && d->def <= d->max);
		for (j = 0; j < k; j++)
			EXPECT_TRUE(strcmp(ixt_key_get(j)->name, d->name));
	}
	EXPECT_WARNS(1, EXPECT_TRUE(!ixt_key_get(IXT_KEY_NR)));
}

TEST(key_lookup_exact)
{
	EXPECT_EQ(ixt_key_lookup("MaxBurstLength", 14), IXT_KEY_MAX_BURST);
	/* Names are case-sensitive and compared whole. */
	EXPECT_EQ(ixt_key_lookup("maxburstlength", 14), -ENOENT);
	EXPECT_EQ(ixt_key_lookup("MaxBurstLength", 13), -ENOENT);
	EXPECT_EQ(ixt_key_lookup("MaxBurstLengthX", 15), -ENOENT);
	EXPECT_EQ(ixt_key_lookup("MaxXmitDataSegmentLength", 24), -ENOENT);
	EXPECT_EQ(ixt_key_lookup("CHAP_A", 6), -ENOENT);
	EXPECT_TRUE(ixt_key_is_auth("CHAP_A", 6));
	EXPECT_TRUE(ixt_key_is_auth("CHAP_R", 6));
	EXPECT_FALSE(ixt_key_is_auth("CHAP", 4));
	EXPECT_FALSE(ixt_key_is_auth("CHAP_", 5));
	EXPECT_FALSE(ixt_key_is_auth("CHAP_X", 6));
	EXPECT_FALSE(ixt_key_is_auth("CHAP_AB", 7));
	EXPECT_FALSE(ixt_key_is_auth("AuthMethod", 10));
	EXPECT_FALSE(ixt_key_is_auth("SRP_U", 5));
}

/*
 * The TPG offer: configfs param/
 */

/* LIO 6.12's param/: iscsi_target_configfs.c and INITIAL_* values. */
static const struct {
	const char *name;
	const char *def;
} lio_params[] = {
	{ "AuthMethod", "CHAP" },
	{ "HeaderDigest", "CRC32C,None" },
	{ "DataDigest", "CRC32C,None" },
	{ "MaxConnections", "1" },
	{ "TargetAlias", "LIO Target" },
	{ "InitialR2T", "Yes" },
	{ "ImmediateData", "Yes" },
	{ "MaxRecvDataSegmentLength", "8192" },
	{ "MaxXmitDataSegmentLength", "262144" },
	{ "MaxBurstLength", "262144" },
	{ "FirstBurstLength", "65536" },
	{ "DefaultTime2Wait", "2" },
	{ "DefaultTime2Retain", "20" },
	{ "MaxOutstandingR2T", "1" },
	{ "DataPDUInOrder", "Yes" },
	{ "DataSequenceInOrder", "Yes" },
	{ "ErrorRecoveryLevel", "0" },
	{ "IFMarker", "No" },
	{ "OFMarker", "No" },
	{ "IFMarkInt", "Reject" },
	{ "OFMarkInt", "Reject" },
};

TEST(offer_param_set_is_lio)
{
	struct ixt_offer offer;
	char buf[IXT_ALIAS_LEN];
	size_t i;

	ixt_offer_init(&offer, 7);
	EXPECT_EQ(offer.tpgt, 7);
	ASSERT_EQ(ARRAY_SIZE(lio_params), IXT_PARAM_NR);
	for (i = 0; i < ARRAY_SIZE(lio_params); i++) {
		IXT_CASE("%s", lio_params[i].name);
		EXPECT_STR(ixt_offer_param_name(i), lio_params[i].name);
		EXPECT_EQ(ixt_offer_param_find(lio_params[i].name), i);
		EXPECT_EQ(ixt_offer_show(&offer, i, buf, sizeof(buf)),
			  strlen(lio_params[i].def));
		EXPECT_STR(buf, lio_params[i].def);
	}
	EXPECT_EQ(ixt_offer_param_find("maxburstlength"), -ENOENT);
	EXPECT_EQ(ixt_offer_param_find("RDMAExtensions"), -ENOENT);
	EXPECT_EQ(ixt_offer_param_find("TargetRecvDataSegmentLength"),
		  -ENOENT);
	EXPECT_WARNS(1, EXPECT_TRUE(!ixt_offer_param_name(IXT_PARAM_NR)));
	EXPECT_WARNS(1, EXPECT_EQ(ixt_offer_show(&offer, IXT_PARAM_NR, buf,
						 sizeof(buf)), -EINVAL));
	/* The iSER lengths, not in param/, follow LIO's INITIAL_ values. */
	EXPECT_EQ(offer.target_recv_dlength, 8192);
	EXPECT_EQ(offer.initiator_recv_dlength, 262144);
}

static const struct {
	const char *param;
	const char *written;
	const char *shown;
} store_ok[] = {
	{ "AuthMethod", "CHAP,None", "CHAP,None" },
	{ "AuthMethod", "None", "None" },
	{ "AuthMethod", "None,CHAP\n", "None,CHAP" },
	{ "AuthMethod", "CHAP,CHAP", "CHAP" },
	{ "HeaderDigest", "CRC32C,None", "CRC32C,None" },
	{ "HeaderDigest", "None", "None" },
	{ "HeaderDigest", "None,CRC32C", "None,CRC32C" },
	{ "DataDigest", "CRC32C", "CRC32C" },
	{ "DataDigest", "None ", "None" },
	{ "MaxConnections", "65535", "65535" },
	{ "MaxConnections", "1", "1" },
	{ "TargetAlias", "Bob-s Disk", "Bob-s Disk" },
	{ "TargetAlias", "Database Server 1 Log Disk\n",
	  "Database Server 1 Log Disk" },
	{ "TargetAlias", "Web Server 3 Disk 20", "Web Server 3 Disk 20" },
	{ "TargetAlias", "disk, the first", "disk, the first" },
	{ "TargetAlias", "Z\xc3\xbcrich", "Z\xc3\xbcrich" },
	{ "TargetAlias", "", "" },
	{ "InitialR2T", "No", "No" },
	{ "ImmediateData", "No\n", "No" },
	{ "MaxRecvDataSegmentLength", "512", "512" },
	{ "MaxRecvDataSegmentLength", "16777215", "16777215" },
	{ "MaxRecvDataSegmentLength", "0x40000", "262144" },
	{ "MaxXmitDataSegmentLength", "0X2000", "8192" },
	{ "MaxBurstLength", "1048576\n", "1048576" },
	{ "FirstBurstLength", "512", "512" },
	{ "DefaultTime2Wait", "0", "0" },
	{ "DefaultTime2Wait", "3600", "3600" },
	{ "DefaultTime2Retain", "0", "0" },
	{ "MaxOutstandingR2T", "65535", "65535" },
	{ "DataPDUInOrder", "No", "No" },
	{ "DataSequenceInOrder", "No", "No" },
	{ "ErrorRecoveryLevel", "2", "2" },
	{ "IFMarker", "Yes", "Yes" },
	{ "OFMarker", "No", "No" },
	{ "IFMarkInt", "2048~8192", "2048~8192" },
	{ "IFMarkInt", "1", "1" },
	{ "OFMarkInt", "65535~65535", "65535~65535" },
	{ "OFMarkInt", "0x800~0x2000\n", "2048~8192" },
	{ "OFMarkInt", "Reject", "Reject" },
};

TEST(offer_store_accepts)
{
	char buf[IXT_ALIAS_LEN];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(store_ok); i++) {
		struct ixt_offer offer;
		int p = ixt_offer_param_find(store_ok[i].param);

		IXT_CASE("%s=%s", store_ok[i].param, store_ok[i].written);
		ixt_offer_init(&offer, 1);
		ASSERT_TRUE(p >= 0);
		EXPECT_EQ(ixt_offer_store(&offer, p, store_ok[i].written,
					  strlen(store_ok[i].written)), 0);
		EXPECT_TRUE(ixt_offer_show(&offer, p, buf, sizeof(buf)) >= 0);
		EXPECT_STR(buf, store_ok[i].shown);
	}
}

static const struct {
	const char *param;
	const char *written;
} store_bad[] = {
	{ "AuthMethod", "KRB5" },
	{ "AuthMethod", "SRP,CHAP" },
	{ "AuthMethod", "" },
	{ "AuthMethod", "CHAP," },
	{ "AuthMethod", ",CHAP" },
	{ "AuthMethod", "chap" },
	{ "AuthMethod", "CHAP None" },
	{ "AuthMethod", "CHAP\n\n" },
	{ "HeaderDigest", "CRC32" },
	{ "HeaderDigest", "Irrelevant" },
	{ "DataDigest", "None,,CRC32C" },
	{ "MaxConnections", "0" },
	{ "MaxConnections", "65536" },
	{ "MaxConnections", "NotUnderstood" },
	{ "TargetAlias", "tab\there" },
	{ "TargetAlias", "bad \xff utf-8" },
	{ "TargetAlias", "overlong \xc0\xaf" },
	{ "InitialR2T", "yes" },
	{ "ImmediateData", "1" },
	{ "ImmediateData", "True" },
	{ "MaxRecvDataSegmentLength", "511" },
	{ "MaxRecvDataSegmentLength", "16777216" },
	{ "MaxRecvDataSegmentLength", "8192abc" },
	{ "MaxRecvDataSegmentLength", "08192" },
	{ "MaxRecvDataSegmentLength", "-1" },
	{ "MaxRecvDataSegmentLength", "0x" },
	{ "MaxRecvDataSegmentLength", "" },
	{ "MaxRecvDataSegmentLength", " 8192" },
	{ "MaxRecvDataSegmentLength", "Irrelevant" },
	{ "MaxXmitDataSegmentLength", "4294967296" },
	{ "MaxBurstLength", "18446744073709551616" },
	{ "FirstBurstLength", "100" },
	{ "DefaultTime2Wait", "3601" },
	{ "DefaultTime2Retain", "-0" },
	{ "MaxOutstandingR2T", "0" },
	{ "DataPDUInOrder", "" },
	{ "ErrorRecoveryLevel", "3" },
	{ "IFMarker", "Reject" },
	{ "IFMarkInt", "0" },
	{ "IFMarkInt", "8192~2048" },
	{ "IFMarkInt", "1~65536" },
	{ "OFMarkInt", "~" },
	{ "OFMarkInt", "Reject~1" },
	{ "OFMarkInt", "2048~" },
};

TEST(offer_store_refuses)
{
	struct ixt_offer offer, before;
	char alias[300];
	size_t i;
	int p;

	for (i = 0; i < ARRAY_SIZE(store_bad); i++) {
		p = ixt_offer_param_find(store_bad[i].param);
		IXT_CASE("%s=%s", store_bad[i].param, store_bad[i].written);
		ixt_offer_init(&offer, 1);
		before = offer;
		ASSERT_TRUE(p >= 0);
		EXPECT_EQ(ixt_offer_store(&offer, p, store_bad[i].written,
					  strlen(store_bad[i].written)),
			  -EINVAL);
		EXPECT_FALSE(memcmp(&offer, &before, sizeof(offer)));
	}

	IXT_CASE("TargetAlias of 255 and 256 bytes");
	memset(alias, 'a', sizeof(alias));
	ixt_offer_init(&offer, 1);
	EXPECT_EQ(ixt_offer_store(&offer, IXT_PARAM_TARGET_ALIAS, alias, 255),
		  0);
	EXPECT_EQ(strlen(offer.target_alias), 255);
	EXPECT_EQ(ixt_offer_store(&offer, IXT_PARAM_TARGET_ALIAS, alias, 256),
		  -EINVAL);
	/* 256 bytes of which the last is a newline: stripped, accepted. */
	alias[255] = '\n';
	EXPECT_EQ(ixt_offer_store(&offer, IXT_PARAM_TARGET_ALIAS, alias, 256),
		  0);

	IXT_CASE("embedded NUL");
	EXPECT_EQ(ixt_offer_store(&offer, IXT_PARAM_MAX_BURST, "512\0", 4),
		  -EINVAL);
	EXPECT_EQ(ixt_offer_store(&offer, IXT_PARAM_MAX_BURST, "51\0002", 4),
		  -EINVAL);
	EXPECT_WARNS(1, EXPECT_EQ(ixt_offer_store(&offer, IXT_PARAM_NR, "1",
						  1), -EINVAL));
}

TEST(offer_show_small_buffer)
{
	struct ixt_offer offer;
	char buf[12];

	ixt_offer_init(&offer, 1);
	/* "CRC32C,None" needs 11 bytes and its NUL. */
	EXPECT_EQ(ixt_offer_show(&offer, IXT_PARAM_HEADER_DIGEST, buf, 12),
		  11);
	EXPECT_EQ(ixt_offer_show(&offer, IXT_PARAM_HEADER_DIGEST, buf, 11),
		  -ENOSPC);
	EXPECT_EQ(ixt_offer_show(&offer, IXT_PARAM_MAX_BURST, buf, 7), 6);
	EXPECT_EQ(ixt_offer_show(&offer, IXT_PARAM_MAX_BURST, buf, 6),
		  -ENOSPC);
	EXPECT_EQ(ixt_offer_show(&offer, IXT_PARAM_TARGET_ALIAS, buf, 10),
		  -ENOSPC);
	EXPECT_EQ(ixt_offer_show(&offer, IXT_PARAM_INITIAL_R2T, buf, 3),
		  -ENOSPC);
}

/*
 * Text
 */

static char big[2 * IXT_TEXT_MAX_LEN];

/* Fills @big with @nr pairs "X-k<i>=<value of vlen bytes>"; returns len. */
static u32 many_pairs(u32 nr, u32 vlen)
{
	u32 len = 0, i;

	for (i = 0; i < nr; i++) {
		len += sprintf(big + len, "X-k%u=", i);
		memset(big + len, 'v', vlen);
		len += vlen;
		big[len++] = '\0';
	}
	return len;
}

/* One pair "key=value" with a value of @vlen bytes of @c. */
static u32 one_pair(const char *key, u32 vlen, char c)
{
	u32 len = sprintf(big, "%s=", key);

	memset(big + len, c, vlen);
	len += vlen;
	big[len++] = '\0';
	return len;
}

static const struct {
	const char *what;
	const char *text;
	u32 len;
	int ret;
} text_cases[] = {
#define TXT(what, s, ret)	{ what, s, sizeof(s) - 1, ret }
	TXT("empty", "", 0),
	TXT("one pair", "InitiatorName=iqn.x\0", 1),
	TXT("two pairs", "A=1\0B=2\0", 2),
	TXT("empty value", "InitiatorAlias=\0", 1),
	TXT("'=' in the value", "X-com.example.a=b=c\0", 1),
	TXT("X- key", "X-com.example.foo=bar\0", 1),
	TXT("X# key", "X#IANA.key=1\0", 1),
	TXT("key chars", "A.b-c+d@e_f9=1\0", 1),
	TXT("UTF-8 value", "InitiatorAlias=\xe6\x97\xa5\xf0\x9f\x92\xbe\0", 1),
	TXT("no '='", "InitiatorName\0", -EINVAL),
	TXT("no final NUL", "InitiatorName=iqn.x", -EINVAL),
	TXT("no final NUL after pairs", "A=1\0B=2", -EINVAL),
	TXT("empty key", "=x\0", -EINVAL),
	TXT("empty pair", "A=1\0\0", -EINVAL),
	TXT("lone NUL", "\0", -EINVAL),
	TXT("lower-case start", "initiatorName=x\0", -EINVAL),
	TXT("digit start", "9Key=x\0", -EINVAL),
	TXT("space in key", "Key Name=x\0", -EINVAL),
	TXT("control in key", "Key\x01=x\0", -EINVAL),
	TXT("colon in key", "Key:Name=x\0", -EINVAL),
	TXT("'#' not after X", "A#b=1\0", -EINVAL),
	TXT("'#' later", "X-a#b=1\0", -EINVAL),
	TXT("byte 0xff", "A=\xff\0", -EINVAL),
	TXT("lone continuation", "A=\x80\0", -EINVAL),
	TXT("overlong '/'", "A=\xc0\xaf\0", -EINVAL),
	TXT("overlong 3-byte", "A=\xe0\x80\xaf\0", -EINVAL),
	TXT("surrogate", "A=\xed\xa0\x80\0", -EINVAL),
	TXT("above U+10FFFF", "A=\xf4\x90\x80\x80\0", -EINVAL),
	TXT("truncated", "A=\xe2\x82\0", -EINVAL),
	TXT("bad continuation", "A=\xe2\x28\xa1\0", -EINVAL),
#undef TXT
};

TEST(text_check_table)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(text_cases); i++) {
		IXT_CASE("%s", text_cases[i].what);
		EXPECT_EQ(ixt_text_check(text_cases[i].text,
					 text_cases[i].len),
			  text_cases[i].ret);
	}
}

TEST(text_check_lengths)
{
	char key[IXT_KEY_MAX_LEN + 2];

	IXT_CASE("key of 63 and 64 bytes");
	memset(key, 'K', sizeof(key));
	key[IXT_KEY_MAX_LEN] = '\0';
	EXPECT_EQ(ixt_text_check(big, one_pair(key, 1, 'v')), 1);
	key[IXT_KEY_MAX_LEN] = 'K';
	key[IXT_KEY_MAX_LEN + 1] = '\0';
	EXPECT_EQ(ixt_text_check(big, one_pair(key, 1, 'v')), -EMSGSIZE);

	IXT_CASE("value of 255 and 256 bytes");
	EXPECT_EQ(ixt_text_check(big, one_pair("InitiatorAlias", 255, 'a')),
		  1);
	EXPECT_EQ(ixt_text_check(big, one_pair("InitiatorAlias", 256, 'a')),
		  -EMSGSIZE);
	EXPECT_EQ(ixt_text_check(big, one_pair("X-foo", 256, 'a')),
		  -EMSGSIZE);

	IXT_CASE("iSCSI names: 223 and 224 bytes");
	EXPECT_EQ(ixt_text_check(big, one_pair("InitiatorName", 223, 'a')),
		  1);
	EXPECT_EQ(ixt_text_check(big, one_pair("TargetName", 224, 'a')),
		  -EMSGSIZE);

	IXT_CASE("long values: lists and CHAP, 8192 and 8193 bytes");
	EXPECT_EQ(ixt_text_check(big, one_pair("HeaderDigest", 8192, 'N')),
		  1);
	EXPECT_EQ(ixt_text_check(big, one_pair("AuthMethod", 8193, 'N')),
		  -EMSGSIZE);
	EXPECT_EQ(ixt_text_check(big, one_pair("CHAP_C", 8192, 'f')), 1);
	EXPECT_EQ(ixt_text_check(big, one_pair("CHAP_R", 8193, 'f')),
		  -EMSGSIZE);

	IXT_CASE("128 and 129 pairs");
	EXPECT_EQ(ixt_text_check(big, many_pairs(128, 1)), 128);
	EXPECT_EQ(ixt_text_check(big, many_pairs(129, 1)), -E2BIG);

	IXT_CASE("64 KiB of keys");
	EXPECT_EQ(ixt_text_check(big, many_pairs(6000, 1)), -E2BIG);
	IXT_CASE("64 KiB + 1 of text");
	memset(big, 'A', IXT_TEXT_MAX_LEN + 1);
	big[IXT_TEXT_MAX_LEN] = '\0';
	EXPECT_EQ(ixt_text_check(big, IXT_TEXT_MAX_LEN + 1), -EMSGSIZE);
	IXT_CASE("exactly 64 KiB: eight pairs of 8 KiB");
	{
		u32 len = 0, i;

		/*
		 * "CHAP_A=" and the other CHAP keys (ixt_text_check() does not
		 * look for repeats), a value, a NUL: 8192 bytes.
		 */
		for (i = 0; i < 8; i++) {
			len += sprintf(big + len, "CHAP_%c=", "AICNR"[i % 5]);
			memset(big + len, 'f', 8192 - 8);
			len += 8192 - 8;
			big[len++] = '\0';
		}
		EXPECT_EQ(len, IXT_TEXT_MAX_LEN);
		EXPECT_EQ(ixt_text_check(big, len), 8);
		/* Other values may hold 255 bytes only. */
		memcpy(big, "X-keyA", 6);
		EXPECT_EQ(ixt_text_check(big, len), -EMSGSIZE);
	}
}

TEST(text_next_and_find)
{
	static const char text[] = "InitiatorName=iqn.x\0SessionType=Normal\0"
				   "X-e=\0";
	struct ixt_text_pair pair;
	u32 len = sizeof(text) - 1, pos = 0;

	ASSERT_EQ(ixt_text_check(text, len), 3);
	ASSERT_TRUE(ixt_text_next(text, len, &pos, &pair));
	EXPECT_EQ(pair.key_len, 13);
	EXPECT_FALSE(memcmp(pair.key, "InitiatorName", 13));
	EXPECT_STR(pair.value, "iqn.x");
	EXPECT_EQ(pair.value_len, 5);
	ASSERT_TRUE(ixt_text_next(text, len, &pos, &pair));
	EXPECT_STR(pair.value, "Normal");
	ASSERT_TRUE(ixt_text_next(text, len, &pos, &pair));
	EXPECT_EQ(pair.key_len, 3);
	EXPECT_EQ(pair.value_len, 0);
	EXPECT_EQ(pos, len);
	EXPECT_FALSE(ixt_text_next(text, len, &pos, &pair));

	EXPECT_EQ(ixt_text_find(text, len, "SessionType", &pair), 0);
	EXPECT_STR(pair.value, "Normal");
	EXPECT_EQ(ixt_text_find(text, len, "TargetName", &pair), -ENOENT);
	EXPECT_EQ(ixt_text_find(text, len, "Session", &pair), -ENOENT);

	/* An unchecked text is a caller bug. */
	pos = 0;
	EXPECT_WARNS(1, EXPECT_FALSE(ixt_text_next("A=1", 3, &pos, &pair)));
	pos = 0;
	EXPECT_WARNS(1, EXPECT_FALSE(ixt_text_next("A1\0", 3, &pos, &pair)));
}

TEST(name_check)
{
	static const struct {
		const char *s;
		bool ok;
	} cases[] = {
		{ "iqn.2005-03.org.example:x", true },
		{ "eui.02004567A425678D", true },
		{ "iqn.2005-03.org.example:caf\xc3\xa9", true },
		{ "iqn.2005-03.org.example:\xc2\xa0", true },
		{ "", false },
		{ "iqn.x y", false },
		{ "iqn.x\ny", false },
		{ "iqn.x\x1b" "[2J", false },
		{ "iqn.x\x7f", false },
		{ "iqn.x\xc2\x85", false },
		{ "iqn.x\xc2\x9b", false },
	};
	char name[ISCSI_NAME_LEN];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		IXT_CASE("%s", cases[i].s);
		EXPECT_EQ(ixt_name_check(cases[i].s, strlen(cases[i].s)),
			  cases[i].ok);
	}
	/* 223 bytes at most. */
	memset(name, 'a', sizeof(name));
	EXPECT_TRUE(ixt_name_check(name, ISCSI_NAME_LEN - 1));
	EXPECT_FALSE(ixt_name_check(name, ISCSI_NAME_LEN));
}

TEST(text_buf_add)
{
	char data[24];
	struct ixt_text_buf buf;

	ixt_text_buf_init(&buf, data, sizeof(data));
	EXPECT_EQ(ixt_text_add(&buf, "Key", "Value"), 0);
	EXPECT_EQ(buf.len, 10);
	EXPECT_EQ(ixt_text_add_u32(&buf, "N", 4294967295U), 0);
	EXPECT_EQ(buf.len, 23);
	EXPECT_FALSE(memcmp(data, "Key=Value\0N=4294967295\0", 23));
	/* The pair needs 2 bytes; 1 is left: nothing is written. */
	EXPECT_EQ(ixt_text_add(&buf, "", ""), -ENOSPC);
	EXPECT_EQ(buf.len, 23);
	EXPECT_EQ(ixt_text_add_u32(&buf, "Z", 0), -ENOSPC);
	EXPECT_EQ(buf.len, 23);
	ixt_text_buf_init(&buf, data, 4);
	EXPECT_EQ(ixt_text_add_u32(&buf, "Z", 0), 0);
	EXPECT_FALSE(memcmp(data, "Z=0", 4));
}

TEST(text_buf_chunks)
{
	static const u32 maxes[] = { 1, 7, 8, 9, 29, 30, 31, 8192 };
	char data[64], out[64];
	struct ixt_text_buf buf;
	const char *chunk;
	size_t i;
	bool more;

	for (i = 0; i < ARRAY_SIZE(maxes); i++) {
		u32 got = 0, n, pieces = 0;

		IXT_CASE("max %u", maxes[i]);
		ixt_text_buf_init(&buf, data, sizeof(data));
		ASSERT_EQ(ixt_text_add(&buf, "TargetAlias", "LIO Target"), 0);
		ASSERT_EQ(ixt_text_add(&buf, "TargetPortalGroupTag", "1"), 0);
		do {
			n = ixt_text_chunk(&buf, maxes[i], &chunk, &more);
			EXPECT_TRUE(n <= maxes[i]);
			EXPECT_TRUE(n > 0);
			memcpy(out + got, chunk, n);
			got += n;
			pieces++;
			/* C bit set on all pieces but the last. */
			EXPECT_EQ(more, got < buf.len);
		} while (more && pieces < 100);
		EXPECT_EQ(got, 46);
		EXPECT_EQ(pieces, (46 + maxes[i] - 1) / maxes[i]);
		EXPECT_FALSE(memcmp(out, data, got));
		/* Everything was handed out. */
		EXPECT_EQ(ixt_text_chunk(&buf, maxes[i], &chunk, &more), 0);
		EXPECT_FALSE(more);
	}

	IXT_CASE("empty response: one empty piece");
	ixt_text_buf_init(&buf, data, sizeof(data));
	EXPECT_EQ(ixt_text_chunk(&buf, 8192, &chunk, &more), 0);
	EXPECT_FALSE(more);

	IXT_CASE("max 0");
	ixt_text_add(&buf, "A", "1");
	EXPECT_WARNS(1, EXPECT_EQ(ixt_text_chunk(&buf, 0, &chunk, &more), 0));
	EXPECT_TRUE(more);
}

/*
 * The engine: every result function with edge values
 */

static const struct {
	const char *offer;	/* param/ changes to LIO's default offer */
	unsigned int flags;	/* besides IXT_NEG_LEADING */
	u8 stage;
	const char *req;	/* after NAMES */
	const char *key;
	const char *want;	/* value of @key in the response */
} answers[] = {
	/* InitialR2T: OR. RFC 7143 13.10: I->InitialR2T=No T->No. */
	{ NULL, 0, OP, "InitialR2T=No|", "InitialR2T", "Yes" },
	{ "InitialR2T=No|", 0, OP, "InitialR2T=No|", "InitialR2T", "No" },
	{ NULL, 0, OP, "InitialR2T=Yes|", "InitialR2T", "Yes" },
	{ "InitialR2T=No|", 0, OP, "InitialR2T=Yes|", "InitialR2T", "Yes" },
	{ NULL, 0, OP, "InitialR2T=yes|", "InitialR2T", "Reject" },
	/* ImmediateData: AND. */
	{ NULL, 0, OP, "ImmediateData=Yes|", "ImmediateData", "Yes" },
	{ NULL, 0, OP, "ImmediateData=No|", "ImmediateData", "No" },
	{ "ImmediateData=No|", 0, OP, "ImmediateData=Yes|", "ImmediateData",
	  "No" },
	{ NULL, 0, OP, "ImmediateData=|", "ImmediateData", "Reject" },
	/* DataPDUInOrder, DataSequenceInOrder: OR. */
	{ NULL, 0, OP, "DataPDUInOrder=No|", "DataPDUInOrder", "Yes" },
	{ "DataPDUInOrder=No|", 0, OP, "DataPDUInOrder=No|", "DataPDUInOrder",
	  "No" },
	{ "DataPDUInOrder=No|", 0, OP, "DataPDUInOrder=Yes|",
	  "DataPDUInOrder", "Yes" },
	{ NULL, 0, OP, "DataSequenceInOrder=No|", "DataSequenceInOrder",
	  "Yes" },
	{ "DataSequenceInOrder=No|", 0, OP, "DataSequenceInOrder=No|",
	  "DataSequenceInOrder", "No" },
	/* MaxBurstLength: minimum, 512..2^24-1. */
	{ NULL, 0, OP, "MaxBurstLength=16776192|", "MaxBurstLength",
	  "262144" },
	{ NULL, 0, OP, "MaxBurstLength=512|", "MaxBurstLength", "512" },
	{ "MaxBurstLength=16777215|", 0, OP, "MaxBurstLength=16777215|",
	  "MaxBurstLength", "16777215" },
	{ NULL, 0, OP, "MaxBurstLength=511|", "MaxBurstLength", "Reject" },
	{ NULL, 0, OP, "MaxBurstLength=16777216|", "MaxBurstLength",
	  "Reject" },
	{ NULL, 0, OP, "MaxBurstLength=0x1000|", "MaxBurstLength", "4096" },
	{ NULL, 0, OP, "MaxBurstLength=0X1000|", "MaxBurstLength", "4096" },
	{ NULL, 0, OP, "MaxBurstLength=0262144|", "MaxBurstLength",
	  "Reject" },
	{ NULL, 0, OP, "MaxBurstLength=|", "MaxBurstLength", "Reject" },
	{ NULL, 0, OP, "MaxBurstLength=8k|", "MaxBurstLength", "Reject" },
	{ NULL, 0, OP, "MaxBurstLength=-512|", "MaxBurstLength", "Reject" },
	{ NULL, 0, OP, "MaxBurstLength=18446744073709551616|",
	  "MaxBurstLength", "Reject" },
	{ NULL, 0, OP, "MaxBurstLength=0xffffffffffffffff|",
	  "MaxBurstLength", "Reject" },
	{ NULL, 0, OP, "MaxBurstLength=Irrelevant|", "MaxBurstLength",
	  "Reject" },
	/* FirstBurstLength: minimum, never above MaxBurstLength. */
	{ NULL, 0, OP, "FirstBurstLength=262144|", "FirstBurstLength",
	  "65536" },
	{ NULL, 0, OP, "FirstBurstLength=512|", "FirstBurstLength", "512" },
	{ "FirstBurstLength=1048576|MaxBurstLength=262144|", 0, OP,
	  "FirstBurstLength=524288|", "FirstBurstLength", "262144" },
	{ "FirstBurstLength=1048576|MaxBurstLength=1048576|", 0, OP,
	  "MaxBurstLength=8192|FirstBurstLength=65536|", "FirstBurstLength",
	  "8192" },
	/* MaxConnections: minimum, 1..65535. */
	{ NULL, 0, OP, "MaxConnections=8|", "MaxConnections", "1" },
	{ "MaxConnections=4|", 0, OP, "MaxConnections=2|", "MaxConnections",
	  "2" },
	{ "MaxConnections=4|", 0, OP, "MaxConnections=65535|",
	  "MaxConnections", "4" },
	{ NULL, 0, OP, "MaxConnections=0|", "MaxConnections", "Reject" },
	{ NULL, 0, OP, "MaxConnections=65536|", "MaxConnections", "Reject" },
	/* DefaultTime2Wait: maximum; DefaultTime2Retain: minimum; 0..3600. */
	{ NULL, 0, OP, "DefaultTime2Wait=0|", "DefaultTime2Wait", "2" },
	{ NULL, 0, OP, "DefaultTime2Wait=3600|", "DefaultTime2Wait", "3600" },
	{ NULL, 0, OP, "DefaultTime2Wait=3601|", "DefaultTime2Wait",
	  "Reject" },
	{ NULL, 0, OP, "DefaultTime2Retain=0|", "DefaultTime2Retain", "0" },
	{ NULL, 0, OP, "DefaultTime2Retain=3600|", "DefaultTime2Retain",
	  "20" },
	{ NULL, 0, OP, "DefaultTime2Retain=3601|", "DefaultTime2Retain",
	  "Reject" },
	/* MaxOutstandingR2T: minimum, 1..65535. */
	{ NULL, 0, OP, "MaxOutstandingR2T=4|", "MaxOutstandingR2T", "1" },
	{ "MaxOutstandingR2T=8|", 0, OP, "MaxOutstandingR2T=4|",
	  "MaxOutstandingR2T", "4" },
	{ NULL, 0, OP, "MaxOutstandingR2T=0|", "MaxOutstandingR2T",
	  "Reject" },
	/* ErrorRecoveryLevel: minimum, 0..2. */
	{ NULL, 0, OP, "ErrorRecoveryLevel=2|", "ErrorRecoveryLevel", "0" },
	{ "ErrorRecoveryLevel=2|", 0, OP, "ErrorRecoveryLevel=1|",
	  "ErrorRecoveryLevel", "1" },
	{ NULL, 0, OP, "ErrorRecoveryLevel=3|", "ErrorRecoveryLevel",
	  "Reject" },
	/* Digests: the first of the proposer's values we accept. */
	{ NULL, 0, OP, "HeaderDigest=None|", "HeaderDigest", "None" },
	{ NULL, 0, OP, "HeaderDigest=CRC32C,None|", "HeaderDigest",
	  "CRC32C" },
	{ NULL, 0, OP, "HeaderDigest=None,CRC32C|", "HeaderDigest", "None" },
	{ "HeaderDigest=None|", 0, OP, "HeaderDigest=CRC32C|", "HeaderDigest",
	  "Reject" },
	{ "HeaderDigest=CRC32C|", 0, OP, "HeaderDigest=None,CRC32C|",
	  "HeaderDigest", "CRC32C" },
	{ NULL, 0, OP, "HeaderDigest=Y-com.example.md5,CRC32C|",
	  "HeaderDigest", "CRC32C" },
	{ NULL, 0, OP, "HeaderDigest=CRC32C,,None|", "HeaderDigest",
	  "Reject" },
	{ NULL, 0, OP, "HeaderDigest=crc32c|", "HeaderDigest", "Reject" },
	{ NULL, 0, OP, "DataDigest=CRC32C|", "DataDigest", "CRC32C" },
	{ "DataDigest=None|", 0, OP, "DataDigest=CRC32C,None|", "DataDigest",
	  "None" },
	/* AuthMethod, in the security stage. */
	{ NULL, 0, SEC, "AuthMethod=CHAP,None|", "AuthMethod", "CHAP" },
	{ NULL, 0, SEC, "AuthMethod=None|", "AuthMethod", "Reject" },
	{ NULL, 0, SEC, "AuthMethod=KRB5,SRP,CHAP|", "AuthMethod", "CHAP" },
	{ "AuthMethod=None|", 0, SEC, "AuthMethod=CHAP,None|", "AuthMethod",
	  "None" },
	{ "AuthMethod=CHAP,None|", 0, SEC, "AuthMethod=None,CHAP|",
	  "AuthMethod", "None" },
	/* TaskReporting: RFC3720 only. iSCSIProtocolLevel: minimum. */
	{ NULL, 0, OP, "TaskReporting=ResponseFence,RFC3720|",
	  "TaskReporting", "RFC3720" },
	{ NULL, 0, OP, "TaskReporting=FastAbort|", "TaskReporting",
	  "Reject" },
	{ NULL, 0, OP, "iSCSIProtocolLevel=2|", "iSCSIProtocolLevel", "1" },
	{ NULL, 0, OP, "iSCSIProtocolLevel=0|", "iSCSIProtocolLevel", "0" },
	{ NULL, 0, OP, "iSCSIProtocolLevel=32|", "iSCSIProtocolLevel",
	  "Reject" },
	/* Obsolete markers: No whatever is configured; intervals Reject. */
	{ NULL, 0, OP, "IFMarker=Yes|", "IFMarker", "No" },
	{ "OFMarker=Yes|", 0, OP, "OFMarker=Yes|", "OFMarker", "No" },
	{ NULL, 0, OP, "OFMarker=No|", "OFMarker", "No" },
	{ NULL, 0, OP, "IFMarkInt=2048~8192|", "IFMarkInt", "Reject" },
	{ "OFMarkInt=1~65535|", 0, OP, "OFMarkInt=1|", "OFMarkInt",
	  "Reject" },
	/* iSER keys over TCP. */
	{ NULL, 0, OP, "RDMAExtensions=Yes|", "RDMAExtensions", "No" },
	{ NULL, 0, OP, "InitiatorRecvDataSegmentLength=65536|",
	  "InitiatorRecvDataSegmentLength", "Irrelevant" },
	{ NULL, 0, OP, "TargetRecvDataSegmentLength=65536|",
	  "TargetRecvDataSegmentLength", "Irrelevant" },
	{ NULL, 0, OP, "MaxOutstandingUnexpectedPDUs=16|",
	  "MaxOutstandingUnexpectedPDUs", "Irrelevant" },
	/* iSER keys over iSER, in either order. */
	{ NULL, ISER, OP, "RDMAExtensions=Yes|", "RDMAExtensions", "Yes" },
	{ NULL, ISER, OP, "RDMAExtensions=No|", "RDMAExtensions", "No" },
	{ NULL, ISER, OP,
	  "TargetRecvDataSegmentLength=262144|RDMAExtensions=Yes|",
	  "TargetRecvDataSegmentLength", "8192" },
	{ NULL, ISER, OP,
	  "RDMAExtensions=Yes|InitiatorRecvDataSegmentLength=1048576|",
	  "InitiatorRecvDataSegmentLength", "262144" },
	{ NULL, ISER, OP,
	  "RDMAExtensions=Yes|InitiatorRecvDataSegmentLength=4096|",
	  "InitiatorRecvDataSegmentLength", "4096" },
	{ NULL, ISER, OP, "RDMAExtensions=Yes|MaxRecvDataSegmentLength=8192|",
	  "MaxRecvDataSegmentLength", "Irrelevant" },
	{ NULL, ISER, OP, "RDMAExtensions=Yes|HeaderDigest=CRC32C,None|",
	  "HeaderDigest", "None" },
	{ NULL, ISER, OP, "RDMAExtensions=Yes|DataDigest=CRC32C|",
	  "DataDigest", "Reject" },
	{ NULL, ISER, OP, "RDMAExtensions=Yes|MaxOutstandingUnexpectedPDUs=16|",
	  "MaxOutstandingUnexpectedPDUs", "16" },
	{ NULL, ISER, OP, "RDMAExtensions=Yes|MaxOutstandingUnexpectedPDUs=0|",
	  "MaxOutstandingUnexpectedPDUs", "0" },
	/*
	 * MaxRecvDataSegmentLength is declared, not answered; as LIO, the
	 * target declares its MaxXmitDataSegmentLength once the initiator
	 * has declared.
	 */
	{ NULL, 0, OP, "MaxRecvDataSegmentLength=262144|",
	  "MaxRecvDataSegmentLength", "262144" },
	{ "MaxXmitDataSegmentLength=4096|", 0, OP,
	  "MaxRecvDataSegmentLength=262144|",
	  "MaxRecvDataSegmentLength", "4096" },
	{ NULL, 0, OP, "MaxRecvDataSegmentLength=511|",
	  "MaxRecvDataSegmentLength", "Reject" },
	/* Keys we do not know. */
	{ NULL, 0, OP, "X-com.example.foo=bar|", "X-com.example.foo",
	  "NotUnderstood" },
	{ NULL, 0, OP, "X#IANA.key=1|", "X#IANA.key", "NotUnderstood" },
	{ NULL, 0, SEC, "FutureKey=1|", "FutureKey", "NotUnderstood" },
	{ NULL, 0, OP, "SRP_U=1|", "SRP_U", "NotUnderstood" },
};

TEST(result_functions)
{
	char spec[512];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(answers); i++) {
		IXT_CASE("%s%s -> %s=%s", answers[i].offer ?
			 answers[i].offer : "", answers[i].req,
			 answers[i].key, answers[i].want);
		conv_start(answers[i].offer, LEAD | answers[i].flags);
		snprintf(spec, sizeof(spec), NAMES "%s", answers[i].req);
		EXPECT_EQ(conv_step(answers[i].stage, spec), 0);
		EXPECT_UNTOUCHED();
		if (!EXPECT_STR(rsp_value(answers[i].key), answers[i].want))
			printf("#   response: %s\n", cv.shown);
	}
}

/*
 * The engine: a request, then its outcome
 */

/* For neg_cases[]: a member of cv.neg, by name and place, and its value. */
#define NEG(member, value)	{ #member, &cv.neg.member, value }

/*
 * A connection to a TPG whose offer is LIO's default with @offer: it
 * processes @before.req if there is one, which must succeed, then @req.
 * Only the fields given are checked: @ret always, then @shown, @rsp,
 * @bools, @u32s, @finish and @init_err.
 */
static const struct neg_case {
	const char *name;
	const char *offer;
	unsigned int flags;
	struct {
		u8 stage;
		const char *req;
	} before;
	u8 stage;
	const char *req;
	int ret;		/* what processing @req returns */
	const char *shown;	/* the whole response to @req */
	struct {
		const char *key;
		const char *value;	/* NULL: @key is not in it */
	} rsp[2];		/* values in the response to @req */
	/* Members of cv.neg after @req, and their values. */
	struct {
		const char *name;
		const bool *member;
		bool value;
	} bools[2];
	struct {
		const char *name;
		const u32 *member;
		u32 value;
	} u32s[2];
	bool finish;		/* then ixt_neg_finish(), which returns... */
	int finish_ret;		/* ...this */
	bool init_err;		/* the status at the end: initiator error */
} neg_cases[] = {
	/* FirstBurstLength: Irrelevant without unsolicited data. */
	{
		.name = "no unsolicited data: FirstBurstLength Irrelevant",
		.flags = LEAD, .stage = OP,
		.req = NAMES "InitialR2T=Yes|ImmediateData=No|"
		       "FirstBurstLength=4096|",
		.rsp = { { "FirstBurstLength", "Irrelevant" } },
		.bools = { NEG(params.initial_r2t, true),
			   NEG(params.immediate_data, false) },
	},
	{
		.name = "ImmediateData=No offered: FirstBurstLength Irrelevant",
		.offer = "ImmediateData=No|",
		.flags = LEAD, .stage = OP,
		.req = NAMES "FirstBurstLength=4096|InitialR2T=Yes|"
		       "ImmediateData=Yes|",
		.rsp = { { "FirstBurstLength", "Irrelevant" } },
	},
	{
		.name = "unsolicited Data-Out: FirstBurstLength relevant",
		.offer = "InitialR2T=No|",
		.flags = LEAD, .stage = OP,
		.req = NAMES "InitialR2T=No|ImmediateData=No|"
		       "FirstBurstLength=4096|",
		.rsp = { { "FirstBurstLength", "4096" } },
		.u32s = { NEG(params.first_burst_length, 4096) },
	},
	{
		.name = "FirstBurstLength within MaxBurstLength, same request",
		.offer = "FirstBurstLength=1048576|MaxBurstLength=1048576|",
		.flags = LEAD, .stage = OP,
		.req = NAMES "FirstBurstLength=262144|MaxBurstLength=65536|",
		.rsp = { { "MaxBurstLength", "65536" },
			 { "FirstBurstLength", "65536" } },
		.u32s = { NEG(params.max_burst_length, 65536),
			  NEG(params.first_burst_length, 65536) },
	},
	/* Identity keys belong to the first request only. */
	{
		.name = "SessionType after the first request",
		.flags = LEAD, .before = { SEC, NAMES },
		.stage = OP, .req = "SessionType=Normal|", .ret = -EPERM,
		.init_err = true,
	},
	{
		.name = "InitiatorName after the first request",
		.flags = LEAD, .before = { SEC, NAMES },
		.stage = SEC, .req = "InitiatorName=" INAME "|", .ret = -EPROTO,
		.init_err = true,
	},
	{
		.name = "different extension keys, then one of them again",
		.flags = LEAD,
		.before = { OP, NAMES "X-com.example.a=1|X-com.example.b=1|" },
		.stage = OP, .req = "X-com.example.a=1|",
		.shown = "X-com.example.a=NotUnderstood|",
	},
	{
		.name = "the target's offer applies once decided",
		.offer = "ImmediateData=No|MaxRecvDataSegmentLength=65536|",
		.flags = LEAD, .stage = OP, .req = NAMES,
		.bools = { NEG(params.immediate_data, false) },
		.u32s = { NEG(params.target_recv_dlength, 65536) },
		.finish = true,
	},
	{
		.name = "discovery: the session keys are not offered",
		.offer = "ImmediateData=No|MaxBurstLength=65536|"
			 "DataDigest=CRC32C|",
		.flags = LEAD, .stage = OP,
		.req = "InitiatorName=" INAME "|SessionType=Discovery|",
		.shown = "MaxRecvDataSegmentLength=8192|DataDigest=CRC32C|",
	},
	/* A connection that does not lead its session. */
	{
		.name = "joining a session: session keys are the session's",
		.offer = "ImmediateData=No|",
		.flags = 0, .stage = OP,
		.req = NAMES "SessionType=Normal|HeaderDigest=None|"
		       "MaxBurstLength=1000|MaxRecvDataSegmentLength=65536|",
		.shown = "HeaderDigest=None|MaxBurstLength=Irrelevant|"
			 "TargetPortalGroupTag=1|"
			 "MaxRecvDataSegmentLength=262144|",
		.u32s = { NEG(params.initiator_recv_dlength, 65536) },
		.finish = true,
	},
	{
		.name = "joining over iSER: RDMA lengths, no RDMAExtensions",
		.flags = ISER, .stage = OP,
		.req = NAMES "TargetRecvDataSegmentLength=4096|"
		       "MaxRecvDataSegmentLength=65536|RDMAExtensions=Yes|",
		.shown = "TargetRecvDataSegmentLength=4096|"
			 "MaxRecvDataSegmentLength=Irrelevant|"
			 "RDMAExtensions=Irrelevant|TargetPortalGroupTag=1|"
			 "InitiatorRecvDataSegmentLength=262144|",
		.bools = { NEG(params.rdma_extensions, true) },
		.u32s = { NEG(params.target_recv_dlength, 4096) },
	},
	{
		.name = "AuthMethod=CHAP without CHAP keys: none handed over",
		.flags = LEAD, .stage = SEC, .req = NAMES "AuthMethod=CHAP|",
		.bools = { NEG(auth_keys, false) },
	},
	/* iSER without RDMAExtensions=Yes: the login fails. */
	{
		.name = "iSER, RDMAExtensions=No",
		.offer = "AuthMethod=None|",
		.flags = LEAD | ISER, .stage = OP,
		.req = NAMES "RDMAExtensions=No|",
		/* Declared once the outcome is No: TCP lengths apply. */
		.rsp = { { "RDMAExtensions", "No" },
			 { "MaxRecvDataSegmentLength", "8192" } },
		.bools = { NEG(params.rdma_extensions, false) },
		.finish = true, .finish_ret = -EPROTO,
		.init_err = true,
	},
	{
		.name = "iSER, the offer answered Irrelevant settles nothing",
		.offer = "AuthMethod=None|",
		.flags = LEAD | ISER, .before = { OP, NAMES },
		.stage = OP,
		.req = "RDMAExtensions=Irrelevant|"
		       "InitiatorRecvDataSegmentLength=8192|",
		.finish = true, .finish_ret = -EPROTO,
	},
	{
		.name = "iSER discovery session: no RDMAExtensions needed",
		.offer = "AuthMethod=None|",
		.flags = LEAD | ISER, .stage = OP,
		.req = "InitiatorName=" INAME "|SessionType=Discovery|"
		       "MaxRecvDataSegmentLength=16384|",
		.shown = "MaxRecvDataSegmentLength=262144|",
		.bools = { NEG(params.rdma_extensions, false) },
		.finish = true,
	},
};

TEST(negotiate_then_check)
{
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(neg_cases); i++) {
		const struct neg_case *c = &neg_cases[i];

		IXT_CASE("%s", c->name);
		conv_start(c->offer, c->flags);
		if (c->before.req)
			EXPECT_EQ(conv_step(c->before.stage, c->before.req), 0);
		EXPECT_EQ(conv_step(c->stage, c->req), c->ret);
		if (c->shown)
			EXPECT_STR(cv.shown, c->shown);
		for (j = 0; j < ARRAY_SIZE(c->rsp) && c->rsp[j].key; j++)
			if (!EXPECT_STR(rsp_value(c->rsp[j].key),
					c->rsp[j].value))
				printf("#   response: %s\n", cv.shown);
		for (j = 0; j < ARRAY_SIZE(c->bools) && c->bools[j].name; j++)
			if (!EXPECT_EQ(*c->bools[j].member, c->bools[j].value))
				printf("#   cv.neg.%s\n", c->bools[j].name);
		for (j = 0; j < ARRAY_SIZE(c->u32s) && c->u32s[j].name; j++)
			if (!EXPECT_EQ(*c->u32s[j].member, c->u32s[j].value))
				printf("#   cv.neg.%s\n", c->u32s[j].name);
		if (c->finish) {
			/* To see that a failure sets the status. */
			cv.status.status_class = UNTOUCHED;
			cv.status.status_detail = UNTOUCHED;
			EXPECT_EQ(ixt_neg_finish(&cv.neg, &cv.status),
				  c->finish_ret);
		}
		if (c->init_err)
			EXPECT_INIT_ERR();
	}
}

/*
 * The engine: consistency rules
 */

/*
 * MaxBurstLength in a later request clamps the FirstBurstLength outcome
 * (in the same request: negotiate_then_check).
 */
TEST(first_burst_within_max_burst)
{
	conv_start("FirstBurstLength=1048576|MaxBurstLength=1048576|", LEAD);
	EXPECT_EQ(conv_step(OP, NAMES "FirstBurstLength=262144|"), 0);
	EXPECT_STR(rsp_value("FirstBurstLength"), "262144");
	EXPECT_EQ(conv_step(OP, "MaxBurstLength=16384|"), 0);
	EXPECT_EQ(cv.neg.params.max_burst_length, 16384);
	EXPECT_EQ(cv.neg.params.first_burst_length, 16384);
}

TEST(max_r2t_one_with_erl_and_sequence_in_order)
{
	static const struct {
		const char *offer;
		const char *req;
		const char *want;
	} cases[] = {
		{ "ErrorRecoveryLevel=2|MaxOutstandingR2T=8|",
		  "ErrorRecoveryLevel=1|DataSequenceInOrder=Yes|"
		  "MaxOutstandingR2T=4|", "1" },
		{ "ErrorRecoveryLevel=2|MaxOutstandingR2T=8|"
		  "DataSequenceInOrder=No|",
		  "ErrorRecoveryLevel=1|DataSequenceInOrder=No|"
		  "MaxOutstandingR2T=4|", "4" },
		{ "ErrorRecoveryLevel=2|MaxOutstandingR2T=8|",
		  "ErrorRecoveryLevel=0|DataSequenceInOrder=Yes|"
		  "MaxOutstandingR2T=4|", "4" },
		{ "MaxOutstandingR2T=8|",
		  "ErrorRecoveryLevel=1|MaxOutstandingR2T=4|", "4" },
	};
	char spec[512];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		IXT_CASE("%s%s", cases[i].offer, cases[i].req);
		conv_start(cases[i].offer, LEAD);
		snprintf(spec, sizeof(spec), NAMES "%s", cases[i].req);
		EXPECT_EQ(conv_step(OP, spec), 0);
		EXPECT_STR(rsp_value("MaxOutstandingR2T"), cases[i].want);
		EXPECT_EQ(cv.neg.params.max_outstanding_r2t,
			  atoi(cases[i].want));
	}
}

/*
 * The engine: declarations, names, the first request
 */

TEST(declarations_recorded_not_answered)
{
	/* RFC 7143 13.4, 13.5, 13.7 examples. */
	static const struct {
		const char *iname;
		const char *tname;
		const char *alias;
	} cases[] = {
		{ "iqn.1992-04.com.os-vendor.plan9:cdrom.12345",
		  "iqn.1993-11.com.disk-vendor:diskarrays.sn.45678",
		  "Web Server 4" },
		{ "iqn.2001-02.com.ssp.users:customer235.host90",
		  "eui.020000023B040506", "spyalley.nsa.gov" },
		{ INAME, TNAME, "Exchange Server" },
	};
	char spec[512];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		IXT_CASE("%s", cases[i].iname);
		conv_start("AuthMethod=None|", LEAD);
		snprintf(spec, sizeof(spec), "InitiatorName=%s|"
			 "InitiatorAlias=%s|SessionType=Normal|TargetName=%s|"
			 "AuthMethod=None|", cases[i].iname, cases[i].alias,
			 cases[i].tname);
		EXPECT_EQ(conv_step(SEC, spec), 0);
		EXPECT_STR(cv.shown, "AuthMethod=None|"
			   "TargetPortalGroupTag=1|TargetAlias=LIO Target|");
		EXPECT_STR(cv.neg.params.initiator_name, cases[i].iname);
		EXPECT_STR(cv.neg.params.target_name, cases[i].tname);
		EXPECT_STR(cv.neg.params.initiator_alias, cases[i].alias);
		EXPECT_FALSE(cv.neg.params.discovery);
	}
}

TEST(names_malformed)
{
	static const char * const bad[] = {
		"InitiatorName=|TargetName=" TNAME "|",
		"InitiatorName=iqn.2005-03.org x|TargetName=" TNAME "|",
		"InitiatorName=iqn.\x7f|TargetName=" TNAME "|",
		"InitiatorName=" INAME "|TargetName=iqn.\t|",
		"InitiatorName=iqn.\xc2\x9b" "2J|TargetName=" TNAME "|",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		IXT_CASE("%s", bad[i]);
		conv_start(NULL, LEAD);
		EXPECT_EQ(conv_step(SEC, bad[i]), -EPROTO);
		EXPECT_INIT_ERR();
	}

	/* A malformed alias is refused, the login goes on. */
	conv_start(NULL, LEAD);
	EXPECT_EQ(conv_step(SEC, NAMES "InitiatorAlias=a\x01z|"), 0);
	EXPECT_STR(rsp_value("InitiatorAlias"), "Reject");
	EXPECT_STR(cv.neg.params.initiator_alias, "");
}

TEST(first_request_must_name)
{
	static const struct {
		const char *req;
		int ret;
		u8 detail;
	} cases[] = {
		{ "TargetName=" TNAME "|", -EPROTO,
		  ISCSI_LOGIN_STATUS_MISSING_FIELDS },
		{ "InitiatorName=" INAME "|", -EPROTO,
		  ISCSI_LOGIN_STATUS_MISSING_FIELDS },
		{ "InitiatorName=" INAME "|SessionType=Normal|", -EPROTO,
		  ISCSI_LOGIN_STATUS_MISSING_FIELDS },
		{ "", -EPROTO, ISCSI_LOGIN_STATUS_MISSING_FIELDS },
		{ NAMES "SessionType=Bogus|", -EPROTO,
		  ISCSI_LOGIN_STATUS_NO_SESSION_TYPE },
		{ NAMES "SessionType=discovery|", -EPROTO,
		  ISCSI_LOGIN_STATUS_NO_SESSION_TYPE },
		{ "InitiatorName=" INAME "|SessionType=Discovery|", 0, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		IXT_CASE("%s", cases[i].req);
		conv_start(NULL, LEAD);
		EXPECT_EQ(conv_step(SEC, cases[i].req), cases[i].ret);
		if (cases[i].ret)
			EXPECT_STATUS(ISCSI_STATUS_CLS_INITIATOR_ERR,
				      cases[i].detail);
		else
			EXPECT_UNTOUCHED();
	}
}

/*
 * The engine: duplicates, stages, senders
 */

TEST(key_offered_twice)
{
	static const struct {
		const char *first;
		u8 stage;
		const char *second;
	} cases[] = {
		{ NAMES "MaxBurstLength=512|MaxBurstLength=512|", 0, NULL },
		{ NAMES "X-com.example.a=1|X-com.example.a=2|", 0, NULL },
		{ NAMES "X-a=1|Y=2|X-a=3|", 0, NULL },
		{ NAMES "Zk=1|Z=2|Zk=3|", 0, NULL },
		{ NAMES "InitiatorAlias=a|InitiatorAlias=a|", 0, NULL },
		{ NAMES "MaxRecvDataSegmentLength=8192|", OP,
		  "MaxRecvDataSegmentLength=8192|" },
		{ NAMES "InitiatorAlias=a|", OP, "InitiatorAlias=a|" },
		{ NAMES "HeaderDigest=None|", OP, "HeaderDigest=None|" },
		{ NAMES "MaxBurstLength=Reject|", OP, "MaxBurstLength=512|" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		IXT_CASE("%s then %s", cases[i].first, cases[i].second);
		conv_start(NULL, LEAD);
		if (!cases[i].second) {
			EXPECT_EQ(conv_step(OP, cases[i].first), -EPROTO);
		} else {
			EXPECT_EQ(conv_step(OP, cases[i].first), 0);
			EXPECT_EQ(conv_step(cases[i].stage, cases[i].second),
				  -EPROTO);
		}
		EXPECT_INIT_ERR();
	}
}

/*
 * The most pairs a request may hold, all keys of one length that are no
 * standard key: each NotUnderstood; the same with the last a repeat of
 * the first (before, each such key rescanned the text before it).
 */
TEST(unknown_keys_most_pairs)
{
	static char spec[IXT_TEXT_MAX_PAIRS * 16];
	u32 len = sizeof(NAMES) - 1, i;

	memcpy(spec, NAMES, len);
	for (i = 2; i < IXT_TEXT_MAX_PAIRS; i++)
		len += sprintf(spec + len, "Zk%03u=%u|", i, i);
	conv_start(NULL, LEAD);
	EXPECT_EQ(conv_step(OP, spec), 0);
	EXPECT_STR(rsp_value("Zk002"), "NotUnderstood");
	EXPECT_STR(rsp_value("Zk127"), "NotUnderstood");
	memcpy(spec + len - strlen("Zk127=127|"), "Zk002", 5);
	conv_start(NULL, LEAD);
	EXPECT_EQ(conv_step(OP, spec), -EPROTO);
	EXPECT_INIT_ERR();
}

static const struct {
	u8 stage;
	const char *req;
} not_allowed[] = {
	/* Operational keys in the security stage. */
	{ SEC, "HeaderDigest=None|" },
	{ SEC, "MaxBurstLength=512|" },
	{ SEC, "MaxRecvDataSegmentLength=8192|" },
	{ SEC, "RDMAExtensions=Yes|" },
	{ SEC, "IFMarker=No|" },
	/* Security keys in the operational stage. */
	{ OP, "AuthMethod=None|" },
	{ OP, "CHAP_A=5|" },
	/* Full feature phase only. */
	{ SEC, "SendTargets=All|" },
	{ OP, "SendTargets=All|" },
	/* Keys only the target sends. */
	{ SEC, "TargetAlias=x|" },
	{ OP, "TargetPortalGroupTag=1|" },
	{ OP, "TargetAddress=10.0.0.1:3260,1|" },
};

TEST(key_not_allowed_fails_login)
{
	char spec[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(not_allowed); i++) {
		IXT_CASE("%u: %s", not_allowed[i].stage, not_allowed[i].req);
		conv_start(NULL, LEAD);
		snprintf(spec, sizeof(spec), NAMES "%s", not_allowed[i].req);
		EXPECT_EQ(conv_step(not_allowed[i].stage, spec), -EPERM);
		EXPECT_INIT_ERR();
	}
}

TEST(bad_stage_is_caller_bug)
{
	conv_start(NULL, LEAD);
	EXPECT_WARNS(1, EXPECT_EQ(conv_step(2, NAMES), -EINVAL));
	EXPECT_STATUS(ISCSI_STATUS_CLS_TARGET_ERR,
		      ISCSI_LOGIN_STATUS_TARGET_ERROR);
}

/*
 * The engine: malformed requests
 */

TEST(malformed_request_fails_login)
{
	static const struct {
		const char *text;
		u32 len;
		int ret;
	} cases[] = {
		{ "InitiatorName\0", 14, -EINVAL },
		{ "InitiatorName=iqn.x", 19, -EINVAL },
		{ "=iqn.x\0", 7, -EINVAL },
		{ "InitiatorAlias=\xc3\0", 17, -EINVAL },
	};
	size_t i;
	u32 len;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		IXT_CASE("%zu", i);
		conv_start(NULL, LEAD);
		ixt_text_buf_init(&cv.rsp, cv.rsp_data, sizeof(cv.rsp_data));
		EXPECT_EQ(ixt_neg_process(&cv.neg, SEC, cases[i].text,
					  cases[i].len, &cv.rsp, &cv.status),
			  cases[i].ret);
		EXPECT_INIT_ERR();
		EXPECT_EQ(cv.rsp.len, 0);
	}

	IXT_CASE("64 KiB of keys");
	conv_start(NULL, LEAD);
	len = many_pairs(6000, 1);
	ixt_text_buf_init(&cv.rsp, cv.rsp_data, sizeof(cv.rsp_data));
	EXPECT_EQ(ixt_neg_process(&cv.neg, OP, big, len, &cv.rsp, &cv.status),
		  -E2BIG);
	EXPECT_INIT_ERR();

	IXT_CASE("overlong key");
	{
		char spec[sizeof(NAMES) + IXT_KEY_MAX_LEN + 4] = NAMES "X-";

		memset(spec + strlen(spec), 'a', IXT_KEY_MAX_LEN - 1);
		strcat(spec, "=1|");
		conv_start(NULL, LEAD);
		EXPECT_EQ(conv_step(OP, spec), -EMSGSIZE);
		EXPECT_INIT_ERR();
	}
}

/*
 * The engine: the target's own offers
 */

static const struct {
	const char *offer;
	unsigned int flags;
	u8 stage;
	const char *key;
	const char *want;	/* offered value, NULL if not offered */
	bool pending;
} offers[] = {
	/* Defaults are what the RFC says: nothing to offer. */
	{ NULL, 0, OP, "ImmediateData", NULL, false },
	{ NULL, 0, OP, "HeaderDigest", NULL, false },
	{ NULL, 0, OP, "RDMAExtensions", NULL, false },
	{ NULL, 0, SEC, "AuthMethod", "CHAP", true },
	{ "AuthMethod=CHAP,None|", 0, SEC, "AuthMethod", NULL, false },
	/* AND offered No, OR offered Yes: decided, no answer due. */
	{ "ImmediateData=No|", 0, OP, "ImmediateData", "No", false },
	{ "InitialR2T=No|", 0, OP, "InitialR2T", "No", true },
	{ "DataPDUInOrder=No|", 0, OP, "DataPDUInOrder", "No", true },
	{ "HeaderDigest=CRC32C|", 0, OP, "HeaderDigest", "CRC32C", true },
	{ "DataDigest=CRC32C,None|", 0, OP, "DataDigest", NULL, false },
	{ "MaxBurstLength=65536|", 0, OP, "MaxBurstLength", "65536", true },
	{ "FirstBurstLength=4096|", 0, OP, "FirstBurstLength", "4096", true },
	{ "MaxConnections=4|", 0, OP, "MaxConnections", "4", true },
	{ "DefaultTime2Wait=5|", 0, OP, "DefaultTime2Wait", "5", true },
	{ "DefaultTime2Retain=0|", 0, OP, "DefaultTime2Retain", "0", true },
	{ "MaxOutstandingR2T=4|", 0, OP, "MaxOutstandingR2T", "4", true },
	{ "ErrorRecoveryLevel=1|", 0, OP, "ErrorRecoveryLevel", "1", true },
	/* A declaration: no answer due. */
	{ "MaxRecvDataSegmentLength=65536|", 0, OP,
	  "MaxRecvDataSegmentLength", "65536", false },
	/* Not in the security stage. */
	{ "AuthMethod=None|ImmediateData=No|", 0, SEC, "ImmediateData", NULL,
	  false },
	{ "AuthMethod=None|MaxRecvDataSegmentLength=65536|", 0, SEC,
	  "MaxRecvDataSegmentLength", NULL, false },
	/* LIO's login_keys_workaround. */
	{ "FirstBurstLength=4096|", IXT_NEG_KEYS_WORKAROUND, OP,
	  "FirstBurstLength", "4096", false },
	{ "MaxConnections=4|", IXT_NEG_KEYS_WORKAROUND, OP,
	  "MaxConnections", "4", false },
	{ "MaxBurstLength=65536|", IXT_NEG_KEYS_WORKAROUND, OP,
	  "MaxBurstLength", "65536", true },
	/* Obsolete keys are never offered. */
	{ "IFMarker=Yes|IFMarkInt=2048~8192|", 0, OP, "IFMarker", NULL,
	  false },
	{ "IFMarker=Yes|IFMarkInt=2048~8192|", 0, OP, "IFMarkInt", NULL,
	  false },
	/* iSER: RDMAExtensions, and what it makes relevant. */
	{ NULL, ISER, OP, "RDMAExtensions", "Yes", true },
	{ NULL, ISER, OP, "InitiatorRecvDataSegmentLength", "262144", true },
	{ NULL, ISER, OP, "TargetRecvDataSegmentLength", NULL, true },
	{ NULL, ISER, OP, "MaxRecvDataSegmentLength", NULL, true },
	{ "HeaderDigest=CRC32C|", ISER, OP, "HeaderDigest", NULL, true },
};

TEST(target_offers)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(offers); i++) {
		IXT_CASE("%s flags %u stage %u: %s", offers[i].offer,
			 offers[i].flags, offers[i].stage, offers[i].key);
		conv_start(offers[i].offer, LEAD | offers[i].flags);
		EXPECT_EQ(conv_step(offers[i].stage, NAMES), 0);
		if (!EXPECT_STR(rsp_value(offers[i].key), offers[i].want))
			printf("#   response: %s\n", cv.shown);
		EXPECT_EQ(ixt_neg_pending(&cv.neg), offers[i].pending);
	}
}

/*
 * MaxOutstandingR2T stays 1 when DataSequenceInOrder=Yes and an ERL above
 * 0 are settled after it: by the target's own offer in the same response,
 * or in a later request (found by fuzz/params_fuzz.c). Each case is a
 * conversation of up to three operational requests, then the outcome.
 */
TEST(max_r2t_one_when_erl_settles_later)
{
	static const struct {
		const char *offer;
		const char *req[3];
		const char *want;	/* MaxOutstandingR2T in the first answer */
		u32 r2t;		/* the outcome at the end */
		u32 erl;
		bool seq;
	} cases[] = {
		/* The target offers ERL=2 after answering MaxOutstandingR2T. */
		{ "ErrorRecoveryLevel=2|MaxOutstandingR2T=8|",
		  { NAMES "MaxOutstandingR2T=44|", "ErrorRecoveryLevel=2|" },
		  "1", 1, 2, true },
		/* DataSequenceInOrder settles Yes (OR), ERL in a later request. */
		{ "ErrorRecoveryLevel=2|MaxOutstandingR2T=8|",
		  { NAMES "DataSequenceInOrder=No|MaxOutstandingR2T=4|",
		    "ErrorRecoveryLevel=1|" },
		  "1", 1, 1, true },
		/* The target offers DataSequenceInOrder=No; answered Yes. */
		{ "ErrorRecoveryLevel=2|MaxOutstandingR2T=8|"
		  "DataSequenceInOrder=No|",
		  { NAMES "ErrorRecoveryLevel=1|MaxOutstandingR2T=4|",
		    "DataSequenceInOrder=Yes|" },
		  "1", 1, 1, true },
		/* The target's ERL is 0: ERL cannot end above it. */
		{ "MaxOutstandingR2T=8|",
		  { NAMES "MaxOutstandingR2T=4|", "ErrorRecoveryLevel=2|" },
		  "4", 4, 0, true },
		/* DataSequenceInOrder=No settled: any MaxOutstandingR2T. */
		{ "ErrorRecoveryLevel=2|MaxOutstandingR2T=8|"
		  "DataSequenceInOrder=No|",
		  { NAMES "DataSequenceInOrder=No|MaxOutstandingR2T=4|",
		    "ErrorRecoveryLevel=2|" },
		  "4", 4, 2, false },
	};
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		IXT_CASE("%s%s", cases[i].offer, cases[i].req[0]);
		conv_start(cases[i].offer, LEAD);
		for (j = 0; j < ARRAY_SIZE(cases[i].req) && cases[i].req[j];
		     j++) {
			ASSERT_EQ(conv_step(OP, cases[i].req[j]), 0);
			if (!j)
				EXPECT_STR(rsp_value("MaxOutstandingR2T"),
					   cases[i].want);
			/* Consistent after every request, not just at the end. */
			EXPECT_TRUE(!(cv.neg.params.data_sequence_in_order &&
				      cv.neg.params.error_recovery_level) ||
				    cv.neg.params.max_outstanding_r2t == 1);
		}
		EXPECT_EQ(ixt_neg_finish(&cv.neg, &cv.status), 0);
		EXPECT_EQ(cv.neg.params.max_outstanding_r2t, cases[i].r2t);
		EXPECT_EQ(cv.neg.params.error_recovery_level, cases[i].erl);
		EXPECT_EQ(cv.neg.params.data_sequence_in_order, cases[i].seq);
	}
}

/* How many times @key appears in the last response. */
static unsigned int rsp_count(const char *key)
{
	struct ixt_text_pair pair;
	unsigned int n = 0;
	u32 pos = 0;

	while (ixt_text_next(cv.rsp_data, cv.rsp.len, &pos, &pair))
		if (pair.key_len == strlen(key) &&
		    !memcmp(pair.key, key, pair.key_len))
			n++;
	return n;
}

/*
 * A malformed MaxRecvDataSegmentLength of the initiator is answered
 * Reject, and the response that says so holds the key once: the target
 * does not add its own declaration, then or later in the login, and both
 * sides keep the RFC default (found by fuzz/params_fuzz.c).
 */
TEST(rejected_mrdsl_not_declared)
{
	static const char * const reqs[] = {
		NAMES "MaxRecvDataSegmentLength=511|",
		NAMES "MaxRecvDataSegmentLength=262axC|",
		NAMES "ImmediateData=No|MaxRecvDataSegmentLength=|",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(reqs); i++) {
		IXT_CASE("%s", reqs[i]);
		conv_start("MaxRecvDataSegmentLength=65536|", LEAD);
		ASSERT_EQ(conv_step(OP, reqs[i]), 0);
		EXPECT_EQ(rsp_count("MaxRecvDataSegmentLength"), 1);
		EXPECT_STR(rsp_value("MaxRecvDataSegmentLength"), "Reject");
		ASSERT_EQ(conv_step(OP, "DefaultTime2Wait=2|"), 0);
		EXPECT_EQ(rsp_count("MaxRecvDataSegmentLength"), 0);
		EXPECT_EQ(cv.neg.params.target_recv_dlength,
			  ISCSI_DEF_MAX_RECV_SEG_LEN);
		EXPECT_EQ(cv.neg.params.initiator_recv_dlength,
			  ISCSI_DEF_MAX_RECV_SEG_LEN);
	}
	/* A well-formed one is not answered; the target declares its own. */
	conv_start("MaxRecvDataSegmentLength=65536|", LEAD);
	ASSERT_EQ(conv_step(OP, NAMES "MaxRecvDataSegmentLength=4096|"), 0);
	EXPECT_EQ(rsp_count("MaxRecvDataSegmentLength"), 1);
	EXPECT_STR(rsp_value("MaxRecvDataSegmentLength"), "262144");
}

static const struct {
	const char *offer;
	const char *answer;
	int ret;
	const char *key;
	u32 outcome;
} offer_answers[] = {
	{ "MaxBurstLength=131072|", "MaxBurstLength=65536|", 0,
	  "MaxBurstLength", 65536 },
	{ "MaxBurstLength=65536|", "MaxBurstLength=65536|", 0,
	  "MaxBurstLength", 65536 },
	{ "MaxBurstLength=65536|", "MaxBurstLength=131072|", -EPROTO, NULL, 0 },
	{ "MaxBurstLength=65536|", "MaxBurstLength=Reject|", -EPROTO, NULL, 0 },
	{ "MaxBurstLength=65536|", "MaxBurstLength=NotUnderstood|", -EPROTO, NULL, 0 },
	{ "MaxBurstLength=65536|", "MaxBurstLength=64k|", -EPROTO, NULL, 0 },
	{ "MaxBurstLength=65536|", "MaxBurstLength=Irrelevant|", 0,
	  "MaxBurstLength", 262144 },
	{ "DefaultTime2Wait=5|", "DefaultTime2Wait=3|", -EPROTO, NULL, 0 },
	{ "DefaultTime2Wait=5|", "DefaultTime2Wait=10|", 0,
	  "DefaultTime2Wait", 10 },
	{ "InitialR2T=No|", "InitialR2T=Yes|", 0, "InitialR2T", 1 },
	{ "InitialR2T=No|", "InitialR2T=No|", 0, "InitialR2T", 0 },
	{ "ImmediateData=No|", "ImmediateData=Yes|", -EPROTO, NULL, 0 },
	{ "ImmediateData=No|", "ImmediateData=No|", 0, "ImmediateData", 0 },
	{ "HeaderDigest=CRC32C|", "HeaderDigest=CRC32C|", 0, "HeaderDigest",
	  1 },
	{ "HeaderDigest=CRC32C|", "HeaderDigest=None|", -EPROTO, NULL, 0 },
	{ "HeaderDigest=CRC32C|", "HeaderDigest=CRC32C,None|", -EPROTO, NULL, 0 },
	{ "ErrorRecoveryLevel=2|", "ErrorRecoveryLevel=2|", 0,
	  "ErrorRecoveryLevel", 2 },
	{ "ErrorRecoveryLevel=1|", "ErrorRecoveryLevel=2|", -EPROTO, NULL, 0 },
};

/* The outcome of @key in @p, by its name. */
static u32 param_of(const struct ixt_params *p, const char *key)
{
	if (!strcmp(key, "MaxBurstLength"))
		return p->max_burst_length;
	if (!strcmp(key, "DefaultTime2Wait"))
		return p->default_time2wait;
	if (!strcmp(key, "InitialR2T"))
		return p->initial_r2t;
	if (!strcmp(key, "ImmediateData"))
		return p->immediate_data;
	if (!strcmp(key, "HeaderDigest"))
		return p->header_digest;
	return p->error_recovery_level;
}

TEST(answers_to_target_offers)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(offer_answers); i++) {
		IXT_CASE("%s %s", offer_answers[i].offer,
			 offer_answers[i].answer);
		conv_start(offer_answers[i].offer, LEAD);
		ASSERT_EQ(conv_step(OP, NAMES), 0);
		EXPECT_EQ(conv_step(OP, offer_answers[i].answer),
			  offer_answers[i].ret);
		if (offer_answers[i].ret) {
			EXPECT_INIT_ERR();
			continue;
		}
		/* Answers are not answered. */
		EXPECT_STR(cv.shown, "");
		EXPECT_FALSE(ixt_neg_pending(&cv.neg));
		EXPECT_EQ(param_of(&cv.neg.params, offer_answers[i].key),
			  offer_answers[i].outcome);
		EXPECT_EQ(ixt_neg_finish(&cv.neg, &cv.status), 0);
		/* A second answer is a key sent twice. */
		EXPECT_EQ(conv_step(OP, offer_answers[i].answer), -EPROTO);
	}
}

TEST(unanswered_offer_fails_finish)
{
	conv_start("MaxBurstLength=65536|", LEAD);
	ASSERT_EQ(conv_step(OP, NAMES), 0);
	EXPECT_TRUE(ixt_neg_pending(&cv.neg));
	cv.status.status_class = UNTOUCHED;
	EXPECT_EQ(ixt_neg_finish(&cv.neg, &cv.status), -EPROTO);
	EXPECT_INIT_ERR();
	/* An unrelated request does not settle it; the answer does. */
	EXPECT_EQ(conv_step(OP, "X-com.example.a=1|"), 0);
	EXPECT_TRUE(ixt_neg_pending(&cv.neg));
	EXPECT_EQ(conv_step(OP, "MaxBurstLength=8192|"), 0);
	EXPECT_EQ(cv.neg.params.max_burst_length, 8192);
	EXPECT_EQ(cv.neg.params.first_burst_length, 8192);
	/* The default FirstBurstLength no longer fits: offered. */
	EXPECT_STR(cv.shown, "FirstBurstLength=8192|");
	EXPECT_TRUE(ixt_neg_pending(&cv.neg));
	EXPECT_EQ(conv_step(OP, "FirstBurstLength=4096|"), 0);
	EXPECT_FALSE(ixt_neg_pending(&cv.neg));
	EXPECT_EQ(cv.neg.params.first_burst_length, 4096);
	EXPECT_EQ(ixt_neg_finish(&cv.neg, &cv.status), 0);
	/* Offers are made once. */
	EXPECT_EQ(conv_step(OP, ""), 0);
	EXPECT_STR(cv.shown, "");
}

TEST(has_offers_decides_operational_stage)
{
	static const struct {
		const char *offer;
		const char *first;
		bool want;
	} cases[] = {
		{ NULL, NAMES, false },
		{ "AuthMethod=None|", NAMES "AuthMethod=None|", false },
		{ "ImmediateData=No|", NAMES, true },
		{ "HeaderDigest=CRC32C|", NAMES, true },
		{ "MaxRecvDataSegmentLength=65536|", NAMES, true },
		{ "ImmediateData=No|",
		  "InitiatorName=" INAME "|SessionType=Discovery|", false },
		{ "HeaderDigest=CRC32C|",
		  "InitiatorName=" INAME "|SessionType=Discovery|", true },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		IXT_CASE("%s%s", cases[i].offer, cases[i].first);
		conv_start(cases[i].offer, LEAD);
		EXPECT_EQ(conv_step(SEC, cases[i].first), 0);
		EXPECT_EQ(ixt_neg_has_offers(&cv.neg), cases[i].want);
		/* Once the operational stage made them: none left. */
		EXPECT_EQ(conv_step(OP, ""), 0);
		EXPECT_FALSE(ixt_neg_has_offers(&cv.neg));
	}
}

/*
 * The engine: session types, connections
 */

TEST(discovery_session_open_iscsi)
{
	conv_start("AuthMethod=None|", LEAD);
	EXPECT_EQ(conv_step(SEC, "InitiatorName=" INAME "|"
			    "InitiatorAlias=host|SessionType=Discovery|"
			    "AuthMethod=None|"), 0);
	/* No TargetName: no TargetPortalGroupTag; no alias either. */
	EXPECT_STR(cv.shown, "AuthMethod=None|");
	EXPECT_TRUE(cv.neg.params.discovery);
	EXPECT_FALSE(ixt_neg_has_offers(&cv.neg));

	EXPECT_EQ(conv_step(OP, "HeaderDigest=None|DataDigest=None|"
			    "DefaultTime2Wait=2|DefaultTime2Retain=0|"
			    "IFMarker=No|OFMarker=No|ErrorRecoveryLevel=0|"
			    "MaxRecvDataSegmentLength=32768|"), 0);
	EXPECT_STR(cv.shown, "HeaderDigest=None|DataDigest=None|"
		   "DefaultTime2Wait=2|DefaultTime2Retain=0|IFMarker=No|"
		   "OFMarker=No|ErrorRecoveryLevel=0|"
		   "MaxRecvDataSegmentLength=262144|");
	EXPECT_FALSE(ixt_neg_pending(&cv.neg));
	EXPECT_EQ(ixt_neg_finish(&cv.neg, &cv.status), 0);
	EXPECT_EQ(cv.neg.params.max_connections, 1);
	EXPECT_EQ(cv.neg.params.initiator_recv_dlength, 32768);
	EXPECT_EQ(cv.neg.params.target_recv_dlength, 262144);
	EXPECT_EQ(cv.neg.params.default_time2retain, 0);
}

TEST(discovery_session_irrelevant_keys)
{
	static const char * const keys[] = {
		"MaxConnections=4", "InitialR2T=No", "ImmediateData=Yes",
		"MaxBurstLength=65536", "FirstBurstLength=4096",
		"MaxOutstandingR2T=2", "DataPDUInOrder=No",
		"DataSequenceInOrder=No", "TaskReporting=RFC3720",
		"RDMAExtensions=Yes", "TargetRecvDataSegmentLength=4096",
	};
	char spec[128], key[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		IXT_CASE("%s", keys[i]);
		conv_start(NULL, LEAD | (i % 2 ? ISER : 0));
		ASSERT_EQ(conv_step(SEC, "InitiatorName=" INAME "|"
				    "SessionType=Discovery|"), 0);
		snprintf(spec, sizeof(spec), "%s|", keys[i]);
		EXPECT_EQ(conv_step(OP, spec), 0);
		snprintf(key, sizeof(key), "%.*s",
			 (int)(strchr(keys[i], '=') - keys[i]), keys[i]);
		EXPECT_STR(rsp_value(key), "Irrelevant");
	}
}

TEST(chap_keys_handed_over)
{
	conv_start(NULL, LEAD);
	EXPECT_EQ(conv_step(SEC, NAMES "AuthMethod=CHAP|CHAP_A=5,7|"), 0);
	EXPECT_STR(cv.shown, "AuthMethod=CHAP|TargetPortalGroupTag=1|"
		   "TargetAlias=LIO Target|");
	EXPECT_TRUE(cv.neg.auth_keys);
	EXPECT_EQ(cv.neg.params.auth_method, IXT_AUTH_CHAP);

	/*
	 * CHAP keys may come again in a later request: the CHAP engine
	 * judges them. Other CHAP_ keys are not CHAP's: NotUnderstood.
	 */
	EXPECT_EQ(conv_step(SEC, "CHAP_N=user|CHAP_R=0x0123456789abcdef|"
				 "CHAP_X=1|"),
		  0);
	EXPECT_STR(cv.shown, "CHAP_X=NotUnderstood|");
	EXPECT_TRUE(cv.neg.auth_keys);
	EXPECT_EQ(conv_step(SEC, "CHAP_N=user|CHAP_R=0x0123456789abcdef|"),
		  0);

	/* Not twice in one request (RFC 7143 section 6.2). */
	EXPECT_EQ(conv_step(SEC, "CHAP_N=user|CHAP_R=0x01|CHAP_R=0x02|"),
		  -EPROTO);
	EXPECT_INIT_ERR();
	conv_start(NULL, LEAD);
	EXPECT_EQ(conv_step(SEC, NAMES "AuthMethod=CHAP|CHAP_A=5|CHAP_A=7|"),
		  -EPROTO);
	EXPECT_INIT_ERR();
	conv_start(NULL, LEAD);
	EXPECT_EQ(conv_step(SEC, NAMES "CHAP_Y=1|CHAP_Y=2|"), -EPROTO);
	EXPECT_INIT_ERR();

	/* An unknown CHAP_ key is no security key in the operational stage. */
	conv_start(NULL, LEAD);
	EXPECT_EQ(conv_step(OP, NAMES "CHAP_X=1|"), 0);
	EXPECT_STR(rsp_value("CHAP_X"), "NotUnderstood");
	conv_start(NULL, LEAD);

	/* Not once the security stage is over. */
	EXPECT_EQ(conv_step(OP, NAMES "CHAP_N=user|"), -EPERM);
	EXPECT_INIT_ERR();
}

TEST(text_negotiation_in_full_feature_phase)
{
	conv_start("AuthMethod=None|", LEAD);
	ASSERT_EQ(conv_step(OP, NAMES "MaxRecvDataSegmentLength=8192|"), 0);
	ASSERT_EQ(ixt_neg_finish(&cv.neg, &cv.status), 0);

	ixt_neg_text_begin(&cv.neg);
	EXPECT_EQ(conv_step(FFP, "SendTargets=All|"), 0);
	EXPECT_STR(cv.shown, "");
	EXPECT_TRUE(cv.neg.has_send_targets);
	EXPECT_STR(cv.neg.send_targets, "All");

	ixt_neg_text_begin(&cv.neg);
	EXPECT_EQ(conv_step(FFP, "MaxRecvDataSegmentLength=65536|"
			    "X-com.example.a=1|CHAP_A=5|ImmediateData=No|"
			    "InitiatorAlias=renamed|"), 0);
	EXPECT_STR(cv.shown, "X-com.example.a=NotUnderstood|"
		   "CHAP_A=NotUnderstood|ImmediateData=Reject|");
	EXPECT_FALSE(cv.neg.has_send_targets);
	EXPECT_FALSE(cv.neg.auth_keys);
	EXPECT_EQ(cv.neg.params.initiator_recv_dlength, 65536);
	EXPECT_EQ(cv.neg.params.max_xmit_dlength, 65536);
	EXPECT_TRUE(cv.neg.params.immediate_data);
	EXPECT_STR(cv.neg.params.initiator_alias, "renamed");

	/* The same negotiation: a key again is an error... */
	EXPECT_EQ(conv_step(FFP, "MaxRecvDataSegmentLength=4096|"), -EPROTO);
	/* ...a new one may change it. */
	ixt_neg_text_begin(&cv.neg);
	EXPECT_EQ(conv_step(FFP, "MaxRecvDataSegmentLength=1048576|"
			    "SendTargets=|"), 0);
	EXPECT_EQ(cv.neg.params.max_xmit_dlength, 262144);
	EXPECT_TRUE(cv.neg.has_send_targets);
	EXPECT_STR(cv.neg.send_targets, "");

	ixt_neg_text_begin(&cv.neg);
	EXPECT_EQ(conv_step(FFP, "SendTargets=iqn.a b|"), 0);
	EXPECT_STR(cv.shown, "SendTargets=Reject|");
	EXPECT_FALSE(cv.neg.has_send_targets);
	/* Our MaxRecvDataSegmentLength is not declared again. */
	EXPECT_EQ(cv.neg.params.target_recv_dlength, 262144);
}

/*
 * Whole logins
 */

/* open-iscsi 2.1.8: security stage, AuthMethod=None. */
#define OPEN_ISCSI_SEC							\
	"InitiatorName=" INAME "|InitiatorAlias=client|"		\
	"SessionType=Normal|TargetName=" TNAME "|AuthMethod=None|"

/* open-iscsi 2.1.8: operational stage, usr/login.c fill_op_params_text(). */
#define OPEN_ISCSI_OP							\
	"DefaultTime2Wait=2|DefaultTime2Retain=0|IFMarker=No|OFMarker=No|" \
	"ErrorRecoveryLevel=0|InitialR2T=No|ImmediateData=Yes|"	\
	"MaxBurstLength=16776192|FirstBurstLength=262144|"		\
	"MaxOutstandingR2T=1|MaxConnections=1|DataPDUInOrder=Yes|"	\
	"DataSequenceInOrder=Yes|"

TEST(open_iscsi_login_tcp)
{
	const struct ixt_params *p = &cv.neg.params;

	/* authentication=0: the login code offers None. */
	conv_start("AuthMethod=None|", LEAD);
	EXPECT_EQ(conv_step(SEC, OPEN_ISCSI_SEC), 0);
	EXPECT_UNTOUCHED();
	EXPECT_STR(cv.shown, "AuthMethod=None|TargetPortalGroupTag=1|"
		   "TargetAlias=LIO Target|");
	EXPECT_FALSE(cv.neg.auth_keys);
	EXPECT_FALSE(ixt_neg_has_offers(&cv.neg));

	EXPECT_EQ(conv_step(OP, "HeaderDigest=None|DataDigest=None|"
			    OPEN_ISCSI_OP
			    "MaxRecvDataSegmentLength=262144|"), 0);
	EXPECT_UNTOUCHED();
	EXPECT_STR(cv.shown, "HeaderDigest=None|DataDigest=None|"
		   "DefaultTime2Wait=2|DefaultTime2Retain=0|IFMarker=No|"
		   "OFMarker=No|ErrorRecoveryLevel=0|InitialR2T=Yes|"
		   "ImmediateData=Yes|MaxBurstLength=262144|"
		   "FirstBurstLength=65536|MaxOutstandingR2T=1|"
		   "MaxConnections=1|DataPDUInOrder=Yes|"
		   "DataSequenceInOrder=Yes|MaxRecvDataSegmentLength=262144|");
	EXPECT_FALSE(ixt_neg_pending(&cv.neg));
	EXPECT_EQ(ixt_neg_finish(&cv.neg, &cv.status), 0);

	EXPECT_FALSE(p->header_digest);
	EXPECT_FALSE(p->data_digest);
	EXPECT_EQ(p->target_recv_dlength, 262144);
	EXPECT_EQ(p->initiator_recv_dlength, 262144);
	EXPECT_EQ(p->max_xmit_dlength, 262144);
	EXPECT_EQ(p->max_connections, 1);
	EXPECT_TRUE(p->initial_r2t);
	EXPECT_TRUE(p->immediate_data);
	EXPECT_EQ(p->max_burst_length, 262144);
	EXPECT_EQ(p->first_burst_length, 65536);
	EXPECT_EQ(p->default_time2wait, 2);
	EXPECT_EQ(p->default_time2retain, 0);
	EXPECT_EQ(p->max_outstanding_r2t, 1);
	EXPECT_TRUE(p->data_pdu_in_order);
	EXPECT_TRUE(p->data_sequence_in_order);
	EXPECT_EQ(p->error_recovery_level, 0);
	EXPECT_FALSE(p->rdma_extensions);
	EXPECT_EQ(p->auth_method, IXT_AUTH_NONE);
	EXPECT_FALSE(p->discovery);
	EXPECT_STR(p->initiator_name, INAME);
	EXPECT_STR(p->initiator_alias, "client");
	EXPECT_STR(p->target_name, TNAME);
}

TEST(open_iscsi_login_tcp_digests_and_big_pdus)
{
	const struct ixt_params *p = &cv.neg.params;

	conv_start("AuthMethod=None|MaxRecvDataSegmentLength=262144|"
		   "MaxXmitDataSegmentLength=65536|InitialR2T=No|"
		   "MaxBurstLength=1048576|FirstBurstLength=262144|", LEAD);
	ASSERT_EQ(conv_step(SEC, OPEN_ISCSI_SEC), 0);
	EXPECT_TRUE(ixt_neg_has_offers(&cv.neg));
	EXPECT_EQ(conv_step(OP, "HeaderDigest=CRC32C,None|"
			    "DataDigest=CRC32C,None|" OPEN_ISCSI_OP
			    "MaxRecvDataSegmentLength=262144|"), 0);
	EXPECT_STR(rsp_value("HeaderDigest"), "CRC32C");
	EXPECT_STR(rsp_value("InitialR2T"), "No");
	EXPECT_STR(rsp_value("MaxBurstLength"), "1048576");
	EXPECT_STR(rsp_value("FirstBurstLength"), "262144");
	/* As LIO: MaxXmitDataSegmentLength is what the target declares. */
	EXPECT_STR(rsp_value("MaxRecvDataSegmentLength"), "65536");
	EXPECT_EQ(ixt_neg_finish(&cv.neg, &cv.status), 0);
	EXPECT_TRUE(p->header_digest);
	EXPECT_TRUE(p->data_digest);
	EXPECT_FALSE(p->initial_r2t);
	EXPECT_EQ(p->target_recv_dlength, 65536);
	EXPECT_EQ(p->initiator_recv_dlength, 262144);
	/* ...and it caps what the target sends. */
	EXPECT_EQ(p->max_xmit_dlength, 65536);
}

TEST(open_iscsi_login_iser)
{
	const struct ixt_params *p = &cv.neg.params;

	conv_start("AuthMethod=None|", LEAD | ISER);
	EXPECT_EQ(conv_step(SEC, OPEN_ISCSI_SEC), 0);
	EXPECT_STR(cv.shown, "AuthMethod=None|TargetPortalGroupTag=1|"
		   "TargetAlias=LIO Target|");
	/* usr/login.c: no digests, the RDMA keys after the others. */
	EXPECT_EQ(conv_step(OP, OPEN_ISCSI_OP
			    "InitiatorRecvDataSegmentLength=262144|"
			    "TargetRecvDataSegmentLength=262144|"
			    "RDMAExtensions=Yes|"), 0);
	EXPECT_UNTOUCHED();
	EXPECT_STR(cv.shown, "DefaultTime2Wait=2|DefaultTime2Retain=0|"
		   "IFMarker=No|OFMarker=No|ErrorRecoveryLevel=0|"
		   "InitialR2T=Yes|ImmediateData=Yes|MaxBurstLength=262144|"
		   "FirstBurstLength=65536|MaxOutstandingR2T=1|"
		   "MaxConnections=1|DataPDUInOrder=Yes|"
		   "DataSequenceInOrder=Yes|"
		   "InitiatorRecvDataSegmentLength=262144|"
		   "TargetRecvDataSegmentLength=8192|RDMAExtensions=Yes|");
	EXPECT_FALSE(ixt_neg_pending(&cv.neg));
	EXPECT_EQ(ixt_neg_finish(&cv.neg, &cv.status), 0);
	EXPECT_TRUE(p->rdma_extensions);
	EXPECT_FALSE(p->header_digest);
	EXPECT_EQ(p->target_recv_dlength, 8192);
	EXPECT_EQ(p->initiator_recv_dlength, 262144);
	EXPECT_EQ(p->max_xmit_dlength, 262144);
	EXPECT_EQ(p->max_unexpected_pdus, 0);
}

TEST(iser_target_offers_rdma_extensions)
{
	conv_start("AuthMethod=None|", LEAD | ISER);
	ASSERT_EQ(conv_step(SEC, OPEN_ISCSI_SEC), 0);
	EXPECT_TRUE(ixt_neg_has_offers(&cv.neg));
	EXPECT_EQ(conv_step(OP, OPEN_ISCSI_OP), 0);
	EXPECT_STR(rsp_value("RDMAExtensions"), "Yes");
	EXPECT_STR(rsp_value("InitiatorRecvDataSegmentLength"), "262144");
	EXPECT_STR(rsp_value("MaxRecvDataSegmentLength"), NULL);
	EXPECT_TRUE(ixt_neg_pending(&cv.neg));
	EXPECT_EQ(ixt_neg_finish(&cv.neg, &cv.status), -EPROTO);

	/* The initiator answers; open-iscsi then adds its digests. */
	EXPECT_EQ(conv_step(OP, "RDMAExtensions=Yes|"
			    "InitiatorRecvDataSegmentLength=131072|"
			    "HeaderDigest=None|DataDigest=None|"), 0);
	EXPECT_STR(cv.shown, "HeaderDigest=None|DataDigest=None|");
	EXPECT_FALSE(ixt_neg_pending(&cv.neg));
	EXPECT_EQ(ixt_neg_finish(&cv.neg, &cv.status), 0);
	EXPECT_TRUE(cv.neg.params.rdma_extensions);
	EXPECT_EQ(cv.neg.params.initiator_recv_dlength, 131072);
}

/*
 * Responses: overflow and chunking
 */

TEST(response_overflow)
{
	char small[16];

	conv_start(NULL, LEAD);
	wire(cv.req, NAMES "MaxBurstLength=512|");
	ixt_text_buf_init(&cv.rsp, small, sizeof(small));
	EXPECT_EQ(ixt_neg_process(&cv.neg, OP, cv.req,
				  strlen(NAMES "MaxBurstLength=512|"),
				  &cv.rsp, &cv.status), -ENOSPC);
	EXPECT_STATUS(ISCSI_STATUS_CLS_TARGET_ERR,
		      ISCSI_LOGIN_STATUS_NO_RESOURCES);
}

TEST(response_bound_holds_worst_case)
{
	u32 len = 0, i;

	/* 128 pairs of 63-byte unknown keys: all NotUnderstood. */
	conv_start("MaxBurstLength=65536|ImmediateData=No|"
		   "HeaderDigest=CRC32C|DataDigest=CRC32C|", LEAD);
	len += sprintf(big, "InitiatorName=%s", INAME) + 1;
	len += sprintf(big + len, "TargetName=%s", TNAME) + 1;
	for (i = 2; i < IXT_TEXT_MAX_PAIRS; i++)
		len += sprintf(big + len, "X-%060u=1", i) + 1;
	ixt_text_buf_init(&cv.rsp, cv.rsp_data, sizeof(cv.rsp_data));
	EXPECT_EQ(ixt_neg_process(&cv.neg, OP, big, len, &cv.rsp, &cv.status),
		  0);
	EXPECT_TRUE(cv.rsp.len > 126 * 77);
	EXPECT_TRUE(cv.rsp.len <= IXT_NEG_RSP_LEN);
}

TEST(response_sent_in_chunks)
{
	char out[IXT_NEG_RSP_LEN];
	const char *chunk;
	u32 len = 0, got = 0, n, pdus = 0, i;
	bool more;

	conv_start(NULL, LEAD);
	len += sprintf(big, "InitiatorName=%s", INAME) + 1;
	len += sprintf(big + len, "TargetName=%s", TNAME) + 1;
	for (i = 0; i < 100; i++)
		len += sprintf(big + len, "X-com.example.key%u=%u", i, i) + 1;
	ixt_text_buf_init(&cv.rsp, cv.rsp_data, sizeof(cv.rsp_data));
	ASSERT_EQ(ixt_neg_process(&cv.neg, OP, big, len, &cv.rsp, &cv.status),
		  0);
	ASSERT_TRUE(cv.rsp.len > 3 * 512);
	do {
		n = ixt_text_chunk(&cv.rsp, 512, &chunk, &more);
		EXPECT_TRUE(n <= 512);
		EXPECT_EQ(more, n == 512 && got + n < cv.rsp.len);
		memcpy(out + got, chunk, n);
		got += n;
		pdus++;
	} while (more && pdus < 100);
	EXPECT_EQ(got, cv.rsp.len);
	EXPECT_EQ(pdus, (cv.rsp.len + 511) / 512);
	EXPECT_FALSE(memcmp(out, cv.rsp_data, got));
	/* The initiator's view: a valid text, one answer per key. */
	EXPECT_EQ(ixt_text_check(out, got), 100 + 3);
}

TEST(params_start_at_rfc_defaults)
{
	const struct ixt_params *p = &cv.neg.params;

	conv_start(NULL, LEAD);
	EXPECT_FALSE(p->header_digest);
	EXPECT_FALSE(p->data_digest);
	EXPECT_EQ(p->target_recv_dlength, 8192);
	EXPECT_EQ(p->initiator_recv_dlength, 8192);
	EXPECT_EQ(p->max_xmit_dlength, 8192);
	EXPECT_EQ(p->max_connections, 1);
	EXPECT_TRUE(p->initial_r2t);
	EXPECT_TRUE(p->immediate_data);
	EXPECT_EQ(p->max_burst_length, 262144);
	EXPECT_EQ(p->first_burst_length, 65536);
	EXPECT_EQ(p->default_time2wait, 2);
	EXPECT_EQ(p->default_time2retain, 20);
	EXPECT_EQ(p->max_outstanding_r2t, 1);
	EXPECT_TRUE(p->data_pdu_in_order);
	EXPECT_TRUE(p->data_sequence_in_order);
	EXPECT_EQ(p->error_recovery_level, 0);
	EXPECT_FALSE(p->rdma_extensions);
	EXPECT_EQ(p->protocol_level, 0);
	EXPECT_EQ(p->auth_method, IXT_AUTH_NONE);
	EXPECT_FALSE(p->discovery);
	EXPECT_STR(p->initiator_name, "");
	EXPECT_TRUE(cv.neg.first);
	/* The offer is a copy. */
	cv.offer.max_burst_length = 512;
	EXPECT_EQ(cv.neg.offer.max_burst_length, 262144);
}
