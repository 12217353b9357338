// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of drivers/target/iscsi_xt/chap.c: known answers for every
 * algorithm (published "abc" digests, and responses computed beforehand
 * with Python's hashlib), binary-value decoding, algorithm choice,
 * identifier use, one-way and mutual CHAP with every failure path, and
 * the wiping of what an exchange held.
 *
 * The digests are real: the crypto/hash.h shim runs OpenSSL's. Its hooks
 * make random bytes predictable, algorithms unavailable, allocations and
 * digests fail.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <crypto/hash.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <iscsi_xt/chap.h>

#include "ixt_test.h"

#define USERID		"iqn.1994-05.com.redhat:client"
#define SECRET		"0123456789ab"
#define USERID_MUTUAL	"iqn.2003-01.org.linux-iscsi.target:t1"
#define SECRET_MUTUAL	"mutual-secret-xyz"

/* The random bytes of fixed_random(): SEED, SEED + 1, ... in each call. */
#define SEED		0x10

/* Marks bytes a decoder must not touch. */
#define GUARD		0xee

static const struct ixt_chap_creds one_way = {
	.userid = USERID,
	.secret = SECRET,
};

static const struct ixt_chap_creds mutual = {
	.userid = USERID,
	.secret = SECRET,
	.userid_mutual = USERID_MUTUAL,
	.secret_mutual = SECRET_MUTUAL,
};

/**
 * struct vector - known answers for one algorithm
 * @alg: the algorithm.
 * @chap_a: its CHAP_A value.
 * @len: its digest length.
 * @r_hex: H(SEED || SECRET || SEED, SEED + 1, ...): the initiator's
 *	response to the challenge fixed_random() makes, from hashlib.
 * @r_b64: the same in base64.
 * @abc: H("abc"), published with each algorithm (RFC 1321, FIPS 180-2,
 *	FIPS 202), which mutual CHAP yields for CHAP_I=0x61 ('a'), mutual
 *	secret "b" and CHAP_C=0x63 ('c').
 * @mutual: H(200 || SECRET_MUTUAL || 0x40..0x4f), from hashlib.
 */
struct vector {
	enum ixt_chap_alg alg;
	const char *chap_a;
	size_t len;
	const char *r_hex;
	const char *r_b64;
	const char *abc;
	const char *mutual;
};

static const struct vector vectors[] = {
	{
		IXT_CHAP_MD5, "5", 16,
		"da3a4dc801c28f950f5930cccaf3a2c9",
		"2jpNyAHCj5UPWTDMyvOiyQ==",
		"900150983cd24fb0d6963f7d28e17f72",
		"b82ec82ec3fcc247a556c637f446c277",
	},
	{
		IXT_CHAP_SHA1, "6", 20,
		"272230c8cdc11c86bdd69f06a7e519a98ebf9641",
		"JyIwyM3BHIa91p8Gp+UZqY6/lkE=",
		"a9993e364706816aba3e25717850c26c9cd0d89d",
		"3006e6c4daa96f65df80a34ea113bb83ceb5690e",
	},
	{
		IXT_CHAP_SHA256, "7", 32,
		"f16d584689b10d8dd652974130c4130f06f72e7e09d20070953fe55e1cd7c435",
		"8W1YRomxDY3WUpdBMMQTDwb3Ln4J0gBwlT/lXhzXxDU=",
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		"3087927945c683d96ae612dbcd7ff901e525cb3de87c2ad4f1fc41666d77cc2e",
	},
	{
		IXT_CHAP_SHA3_256, "8", 32,
		"63176184d1c18142dd0fd3d3c2a479d7c9517ebb78f96a1dd3e71a65e3d945ac",
		"YxdhhNHBgULdD9PTwqR518lRfrt4+Wod0+caZePZRaw=",
		"3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532",
		"1657bffa8192e00c5e712cbea172feaf7b4c165eeed78454276ef6c6a337a433",
	},
};

/* CHAP_C 0x40..0x4f of the mutual vectors, both ways. */
#define MUTUAL_C_HEX	"0x404142434445464748494a4b4c4d4e4f"
#define MUTUAL_C_B64	"0bQEFCQ0RFRkdISUpLTE1OTw=="

static void fixed_random(void *buf, size_t len)
{
	u8 *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = SEED + i;
}

/* Every test starts from real randomness and no fault. */
static void reset_hooks(void)
{
	ixt_random_hook = NULL;
	ixt_shash_fail_name = NULL;
	ixt_shash_fail_err = 0;
	ixt_shash_update_err = 0;
	ixt_kmalloc_fail = 0;
}

static char *prefixed(char *buf, const char *prefix, const char *digits)
{
	strcpy(buf, prefix);
	strcat(buf, digits);
	return buf;
}

/*
 * Starts an exchange offering @chap_a with the predictable challenge of
 * fixed_random() and a fresh session: the identifier is SEED.
 */
static int start_fixed(struct ixt_chap *chap, const char *chap_a,
		       struct ixt_chap_challenge *out,
		       enum ixt_chap_reason *why)
{
	struct ixt_chap_ids ids = { };
	int ret;

	ixt_random_hook = fixed_random;
	ret = ixt_chap_start(chap, &ids, chap_a, IXT_CHAP_ALGS_ALL, out, why);
	ixt_random_hook = NULL;
	return ret;
}

/* Starts an MD5 exchange that the md5 vector answers. */
static bool start_md5(struct ixt_chap *chap)
{
	struct ixt_chap_challenge out;
	enum ixt_chap_reason why;

	return EXPECT_EQ(start_fixed(chap, "5", &out, &why), 0);
}

#define MD5_R		"0xda3a4dc801c28f950f5930cccaf3a2c9"

/* Verifies with @in against @creds and expects @err for reason @reason. */
#define EXPECT_VERIFY(chap, creds, in, err, reason)			\
	do {								\
		struct ixt_chap_reply __out;				\
		enum ixt_chap_reason __why = IXT_CHAP_ERR_NR;		\
		EXPECT_EQ(ixt_chap_verify((chap), (creds), (in), &__out, \
					  &__why), (err));		\
		EXPECT_EQ(__why, (err) ? (reason) : IXT_CHAP_ERR_NR);	\
	} while (0)

/* Runs one MD5 exchange with the keys @in and expects @err, @reason. */
static void md5_exchange(const struct ixt_chap_creds *creds,
			 const struct ixt_chap_response *in, int err,
			 enum ixt_chap_reason reason)
{
	struct ixt_chap chap = { };

	if (start_md5(&chap))
		EXPECT_VERIFY(&chap, creds, in, err, reason);
	ixt_chap_destroy(&chap);
	EXPECT_EQ(ixt_shash_live, 0);
}

static bool all_zero(const void *p, size_t len)
{
	const u8 *b = p;

	while (len--)
		if (*b++)
			return false;
	return true;
}

/* What ixt_chap_verify() leaves: a wiped exchange, marked done. */
static bool is_wiped_done(const struct ixt_chap *chap)
{
	struct ixt_chap want;

	memset(&want, 0, sizeof(want));
	want.state = IXT_CHAP_DONE;
	return !memcmp(chap, &want, sizeof(want));
}

TEST(chap_one_way_known_answers)
{
	size_t i;

	reset_hooks();
	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		const struct vector *v = &vectors[i];
		const char *forms[3];
		char hex[80], upper[80], b64[80], chal[80];
		size_t f, k;

		forms[0] = prefixed(hex, "0x", v->r_hex);
		forms[1] = prefixed(upper, "0X", v->r_hex);
		for (k = 2; upper[k]; k++)
			if (upper[k] >= 'a' && upper[k] <= 'f')
				upper[k] -= 'a' - 'A';
		forms[2] = prefixed(b64, "0b", v->r_b64);

		strcpy(chal, "0x");
		for (k = 0; k < v->len; k++)
			sprintf(chal + 2 + 2 * k, "%02x", SEED + (unsigned)k);

		for (f = 0; f < ARRAY_SIZE(forms); f++) {
			struct ixt_chap_response in = {
				.n = USERID, .r = forms[f],
			};
			struct ixt_chap chap = { };
			struct ixt_chap_challenge out;
			struct ixt_chap_reply reply;
			enum ixt_chap_reason why = IXT_CHAP_ERR_NR;

			IXT_CASE("CHAP_A=%s CHAP_R=%s", v->chap_a, forms[f]);
			ASSERT_EQ(start_fixed(&chap, v->chap_a, &out, &why), 0);
			EXPECT_EQ(chap.alg, v->alg);
			EXPECT_EQ(strcmp(out.a, v->chap_a), 0);
			EXPECT_EQ(strcmp(out.i, "16"), 0);
			EXPECT_EQ(strcmp(out.c, chal), 0);
			EXPECT_EQ(ixt_chap_verify(&chap, &one_way, &in, &reply,
						  &why), 0);
			EXPECT_EQ(why, IXT_CHAP_ERR_NR);
			EXPECT_TRUE(!reply.n);
			EXPECT_EQ(reply.r[0], '\0');
			ixt_chap_destroy(&chap);
		}
	}
	EXPECT_EQ(ixt_shash_live, 0);
}

/* Mutual CHAP yields the published H("abc") of each algorithm. */
TEST(chap_mutual_abc_known_answers)
{
	static const struct ixt_chap_creds abc = {
		.userid = USERID,
		.secret = SECRET,
		.userid_mutual = "t",
		.secret_mutual = "b",
	};
	static const char * const ids[] = { "97", "0x61", "0X61", "097" };
	size_t i, k;

	reset_hooks();
	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		const struct vector *v = &vectors[i];
		char r[80], want[80];

		prefixed(r, "0x", v->r_hex);
		prefixed(want, "0x", v->abc);
		for (k = 0; k < ARRAY_SIZE(ids); k++) {
			struct ixt_chap_response in = {
				.n = USERID, .r = r, .i = ids[k], .c = "0x63",
			};
			struct ixt_chap chap = { };
			struct ixt_chap_challenge out;
			struct ixt_chap_reply reply;
			enum ixt_chap_reason why = IXT_CHAP_ERR_NR;

			IXT_CASE("CHAP_A=%s CHAP_I=%s", v->chap_a, ids[k]);
			ASSERT_EQ(start_fixed(&chap, v->chap_a, &out, &why), 0);
			EXPECT_EQ(ixt_chap_verify(&chap, &abc, &in, &reply,
						  &why), 0);
			EXPECT_EQ(why, IXT_CHAP_ERR_NR);
			EXPECT_TRUE(reply.n == abc.userid_mutual);
			EXPECT_EQ(strcmp(reply.r, want), 0);
			ixt_chap_destroy(&chap);
		}
	}
	EXPECT_EQ(ixt_shash_live, 0);
}

/* A 16-byte initiator challenge, in hex and in base64. */
TEST(chap_mutual_known_answers)
{
	static const char * const cs[] = { MUTUAL_C_HEX, MUTUAL_C_B64 };
	size_t i, k;

	reset_hooks();
	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		const struct vector *v = &vectors[i];
		char r[80], want[80];

		prefixed(r, "0x", v->r_hex);
		prefixed(want, "0x", v->mutual);
		for (k = 0; k < ARRAY_SIZE(cs); k++) {
			struct ixt_chap_response in = {
				.n = USERID, .r = r, .i = "200", .c = cs[k],
			};
			struct ixt_chap chap = { };
			struct ixt_chap_challenge out;
			struct ixt_chap_reply reply;
			enum ixt_chap_reason why = IXT_CHAP_ERR_NR;

			IXT_CASE("CHAP_A=%s CHAP_C=%s", v->chap_a, cs[k]);
			ASSERT_EQ(start_fixed(&chap, v->chap_a, &out, &why), 0);
			EXPECT_EQ(ixt_chap_verify(&chap, &mutual, &in, &reply,
						  &why), 0);
			EXPECT_EQ(strcmp(reply.n, USERID_MUTUAL), 0);
			EXPECT_EQ(strcmp(reply.r, want), 0);
			ixt_chap_destroy(&chap);
		}
	}
}

/**
 * struct decode_case - one binary value and what it decodes to
 * @in: the value.
 * @err: expected return value with room for 8 bytes.
 * @len: expected length on success.
 * @out: expected bytes on success.
 */
struct decode_case {
	const char *in;
	int err;
	size_t len;
	u8 out[8];
};

#define BAD(value, error)	{ .in = (value), .err = (error) }

static void expect_decode(const struct decode_case *cases, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct decode_case *t = &cases[i];
		u8 buf[8 + 4];
		size_t len = 12345;

		IXT_CASE("\"%s\"", t->in);
		memset(buf, GUARD, sizeof(buf));
		EXPECT_EQ(ixt_chap_decode_binary(t->in, buf, 8, &len), t->err);
		EXPECT_EQ(buf[8], GUARD);
		if (t->err) {
			EXPECT_EQ(len, 12345);
			continue;
		}
		EXPECT_EQ(len, t->len);
		EXPECT_EQ(memcmp(buf, t->out, t->len), 0);
	}
}

TEST(chap_decode_hex)
{
	static const struct decode_case cases[] = {
		{ "0x00", 0, 1, { 0x00 } },
		{ "0xf", 0, 1, { 0x0f } },
		{ "0xabc", 0, 2, { 0x0a, 0xbc } },
		{ "0x12345", 0, 3, { 0x01, 0x23, 0x45 } },
		{ "0XAbCdEf", 0, 3, { 0xab, 0xcd, 0xef } },
		{ "0x0001", 0, 2, { 0x00, 0x01 } },
		{ "0x0123456789abcdef", 0, 8,
		  { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef } },
		BAD("0x", -EINVAL),
		BAD("0X", -EINVAL),
		BAD("0xg0", -EINVAL),
		BAD("0x0g", -EINVAL),
		BAD("0xab ", -EINVAL),
		BAD(" 0xab", -EINVAL),
		BAD("0x-1", -EINVAL),
		BAD("0x0x12", -EINVAL),
		BAD("0x12\n", -EINVAL),
		BAD("1234", -EINVAL),
		BAD("abcd", -EINVAL),
		BAD("0", -EINVAL),
		BAD("0a12", -EINVAL),
		BAD("", -EINVAL),
		BAD("0x0123456789abcdef0", -EMSGSIZE),
		BAD("0x0123456789abcdef01", -EMSGSIZE),
	};

	expect_decode(cases, ARRAY_SIZE(cases));
}

TEST(chap_decode_base64)
{
	static const struct decode_case cases[] = {
		{ "0bYWJj", 0, 3, "abc" },
		{ "0BYWJj", 0, 3, "abc" },
		{ "0bYQ==", 0, 1, "a" },
		{ "0bYWI=", 0, 2, "ab" },
		{ "0bYQ", 0, 1, "a" },
		{ "0bYWI", 0, 2, "ab" },
		{ "0bYWJjZA==", 0, 4, "abcd" },
		{ "0b+/+/", 0, 3, { 0xfb, 0xff, 0xbf } },
		{ "0bAAAA", 0, 3, { 0, 0, 0 } },
		{ "0bAAECAwQFBgc=", 0, 8, { 0, 1, 2, 3, 4, 5, 6, 7 } },
		BAD("0b", -EINVAL),
		BAD("0B", -EINVAL),
		BAD("0b=", -EINVAL),
		BAD("0b==", -EINVAL),
		BAD("0b====", -EINVAL),
		BAD("0bY", -EINVAL),
		BAD("0bA", -EINVAL),
		BAD("0bYWJjA", -EINVAL),
		BAD("0bYWJjA==", -EINVAL),
		BAD("0bYWJj====", -EINVAL),
		BAD("0bYWJjZ", -EINVAL),
		BAD("0bY===", -EINVAL),
		BAD("0bYQ=", -EINVAL),
		BAD("0bYQ===", -EINVAL),
		BAD("0bYWI==", -EINVAL),
		BAD("0bYR==", -EINVAL),
		BAD("0bYWJ=", -EINVAL),
		BAD("0bYW=J", -EINVAL),
		BAD("0bYQ==YQ==", -EINVAL),
		BAD("0bYW J", -EINVAL),
		BAD("0bYWJj\n", -EINVAL),
		BAD("0bYW-_", -EINVAL),
		BAD("0bYW*j", -EINVAL),
		BAD("YWJj", -EINVAL),
		BAD("0cYWJj", -EINVAL),
		BAD("0bAAECAwQFBgcI", -EMSGSIZE),
		BAD("0bAAECAwQFBgcICQ==", -EMSGSIZE),
	};

	expect_decode(cases, ARRAY_SIZE(cases));
}

/* Values just within and just beyond the room given, and far beyond it. */
TEST(chap_decode_bounds)
{
	static const struct {
		const char *in;
		size_t fits;
	} cases[] = {
		{ "0x12345", 3 },
		{ "0x123456", 3 },
		{ "0bYWJjZA==", 4 },
		{ "0bYWJjZA", 4 },
		{ "0bYWJjZGU", 5 },
	};
	char *huge;
	u8 buf[IXT_CHAP_BINARY_MAX + 1];
	size_t i, len;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		IXT_CASE("\"%s\" in %zu", cases[i].in, cases[i].fits);
		memset(buf, GUARD, sizeof(buf));
		EXPECT_EQ(ixt_chap_decode_binary(cases[i].in, buf,
						 cases[i].fits - 1, &len),
			  -EMSGSIZE);
		EXPECT_TRUE(buf[0] == GUARD && buf[cases[i].fits - 1] == GUARD);
		EXPECT_EQ(ixt_chap_decode_binary(cases[i].in, buf,
						 cases[i].fits, &len), 0);
		EXPECT_EQ(len, cases[i].fits);
		EXPECT_EQ(buf[cases[i].fits], GUARD);
	}

	/* 5000 bytes of hex, then of base64, into a 1024-byte buffer. */
	huge = malloc(2 + 10000 + 1);
	ASSERT_TRUE(huge);
	strcpy(huge, "0x");
	memset(huge + 2, 'a', 10000);
	huge[10002] = '\0';
	IXT_CASE("10000 hex digits");
	memset(buf, GUARD, sizeof(buf));
	EXPECT_EQ(ixt_chap_decode_binary(huge, buf, IXT_CHAP_BINARY_MAX, &len),
		  -EMSGSIZE);
	EXPECT_EQ(buf[IXT_CHAP_BINARY_MAX], GUARD);
	huge[1] = 'b';
	IXT_CASE("10000 base64 characters");
	EXPECT_EQ(ixt_chap_decode_binary(huge, buf, IXT_CHAP_BINARY_MAX, &len),
		  -EMSGSIZE);
	EXPECT_EQ(buf[IXT_CHAP_BINARY_MAX], GUARD);
	free(huge);
}

TEST(chap_alg_choice)
{
	static const struct {
		const char *chap_a;
		unsigned long allowed;
		const char *want;	/* CHAP_A sent back; NULL: Reject */
	} cases[] = {
		{ "8,7,6,5", IXT_CHAP_ALGS_ALL, "8" },
		{ "5", IXT_CHAP_ALGS_ALL, "5" },
		{ "5,6,7,8", IXT_CHAP_ALGS_ALL, "5" },
		{ "6,7", IXT_CHAP_ALGS_ALL, "6" },
		{ "7,5", BIT(IXT_CHAP_MD5), "5" },
		{ "8,7,6,5", BIT(IXT_CHAP_SHA1) | BIT(IXT_CHAP_SHA256), "7" },
		{ "7,8", BIT(IXT_CHAP_SHA3_256), "8" },
		{ "foo,6", IXT_CHAP_ALGS_ALL, "6" },
		{ ",,6", IXT_CHAP_ALGS_ALL, "6" },
		{ "6,", IXT_CHAP_ALGS_ALL, "6" },
		{ "0x07", IXT_CHAP_ALGS_ALL, "7" },
		{ "0X8", IXT_CHAP_ALGS_ALL, "8" },
		{ "05", IXT_CHAP_ALGS_ALL, "5" },
		{ "261,6", IXT_CHAP_ALGS_ALL, "6" },
		{ "0x105,6", IXT_CHAP_ALGS_ALL, "6" },
		{ "99999999999999999999,5", IXT_CHAP_ALGS_ALL, "5" },
		{ "4294967301,6", IXT_CHAP_ALGS_ALL, "6" },
		{ "0x100000005,6", IXT_CHAP_ALGS_ALL, "6" },
		{ "-5,6", IXT_CHAP_ALGS_ALL, "6" },
		{ "0x,7", IXT_CHAP_ALGS_ALL, "7" },
		{ "6", BIT(IXT_CHAP_MD5), NULL },
		{ "8,7", BIT(IXT_CHAP_SHA1) | BIT(IXT_CHAP_MD5), NULL },
		{ "5", 0, NULL },
		{ "1,2,3,4,9,255", IXT_CHAP_ALGS_ALL, NULL },
		{ "", IXT_CHAP_ALGS_ALL, NULL },
		{ ",", IXT_CHAP_ALGS_ALL, NULL },
		{ " 5", IXT_CHAP_ALGS_ALL, NULL },
		{ "5 ", IXT_CHAP_ALGS_ALL, NULL },
		{ "5;6", IXT_CHAP_ALGS_ALL, NULL },
		{ "None", IXT_CHAP_ALGS_ALL, NULL },
		{ "0b5", IXT_CHAP_ALGS_ALL, NULL },
	};
	size_t i;

	reset_hooks();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct ixt_chap_ids ids = { };
		struct ixt_chap chap = { };
		struct ixt_chap_challenge out;
		enum ixt_chap_reason why = IXT_CHAP_ERR_NR;
		int ret;

		IXT_CASE("CHAP_A=%s allowed %#lx", cases[i].chap_a,
			 cases[i].allowed);
		ret = ixt_chap_start(&chap, &ids, cases[i].chap_a,
				     cases[i].allowed, &out, &why);
		if (cases[i].want) {
			EXPECT_EQ(ret, 0);
			EXPECT_EQ(strcmp(out.a, cases[i].want), 0);
			EXPECT_EQ(strlen(out.c), 2 + 2 * (size_t)chap.digest_len);
		} else {
			EXPECT_EQ(ret, -EACCES);
			EXPECT_EQ(why, IXT_CHAP_ERR_ALG);
			EXPECT_EQ(strcmp(out.a, "Reject"), 0);
			EXPECT_EQ(out.i[0], '\0');
			EXPECT_EQ(out.c[0], '\0');
			/* A Reject takes no identifier and holds no hash. */
			EXPECT_TRUE(all_zero(&ids, sizeof(ids)));
			EXPECT_EQ(ixt_shash_live, 0);
		}
		ixt_chap_destroy(&chap);
	}
	EXPECT_EQ(ixt_shash_live, 0);
}

/* An algorithm the kernel lacks is passed over; no memory is fatal. */
TEST(chap_alg_unavailable)
{
	struct ixt_chap_ids ids = { };
	struct ixt_chap chap = { };
	struct ixt_chap_challenge out;
	enum ixt_chap_reason why = IXT_CHAP_ERR_NR;

	reset_hooks();
	ixt_shash_fail_name = "sha3-256";
	ixt_shash_fail_err = -ENOENT;
	EXPECT_EQ(ixt_chap_start(&chap, &ids, "8,7", IXT_CHAP_ALGS_ALL, &out,
				 &why), 0);
	EXPECT_EQ(strcmp(out.a, "7"), 0);
	ixt_chap_destroy(&chap);

	EXPECT_EQ(ixt_chap_start(&chap, &ids, "8", IXT_CHAP_ALGS_ALL, &out,
				 &why), -EACCES);
	EXPECT_EQ(why, IXT_CHAP_ERR_ALG);
	ixt_chap_destroy(&chap);

	ixt_shash_fail_err = -ENOMEM;
	EXPECT_EQ(ixt_chap_start(&chap, &ids, "8,7", IXT_CHAP_ALGS_ALL, &out,
				 &why), -ENOMEM);
	EXPECT_EQ(why, IXT_CHAP_ERR_INTERNAL);
	EXPECT_EQ(chap.state, IXT_CHAP_DONE);
	ixt_chap_destroy(&chap);
	EXPECT_EQ(ixt_shash_live, 0);
	reset_hooks();
}

/*
 * An algorithm the kernel lacks costs a module lookup (two modprobe runs)
 * each time it is tried: however often CHAP_A names it, it is tried once.
 */
TEST(chap_alg_tried_once)
{
	struct ixt_chap_ids ids = { };
	struct ixt_chap chap = { };
	struct ixt_chap_challenge out;
	enum ixt_chap_reason why = IXT_CHAP_ERR_NR;
	char list[8192];
	size_t i;

	for (i = 0; i + 4 < sizeof(list); i += 2)
		memcpy(list + i, "8,", 2);
	memcpy(list + i, "7", 2);
	reset_hooks();
	ixt_shash_fail_name = "sha3-256";
	ixt_shash_fail_err = -ENOENT;
	ixt_shash_allocs = 0;
	EXPECT_EQ(ixt_chap_start(&chap, &ids, list, IXT_CHAP_ALGS_ALL, &out,
				 &why), 0);
	EXPECT_EQ(strcmp(out.a, "7"), 0);
	EXPECT_EQ(ixt_shash_allocs, 2);
	ixt_chap_destroy(&chap);
	EXPECT_EQ(ixt_shash_live, 0);
	reset_hooks();
}

/* 256 challenges in a session take 256 different identifiers, then no more. */
TEST(chap_ids_never_reused)
{
	struct ixt_chap_ids ids = { }, other = { };
	bool seen[IXT_CHAP_NR_IDS] = { };
	struct ixt_chap_challenge out;
	enum ixt_chap_reason why = IXT_CHAP_ERR_NR;
	struct ixt_chap chap = { };
	unsigned int n, id;

	reset_hooks();
	for (n = 0; n < IXT_CHAP_NR_IDS; n++) {
		IXT_CASE("start %u", n);
		ASSERT_EQ(ixt_chap_start(&chap, &ids, "5", IXT_CHAP_ALGS_ALL,
					 &out, &why), 0);
		id = atoi(out.i);
		EXPECT_EQ(id, chap.id);
		EXPECT_FALSE(seen[id]);
		seen[id] = true;
		ixt_chap_destroy(&chap);
	}
	for (n = 0; n < IXT_CHAP_NR_IDS; n++)
		EXPECT_TRUE(test_bit(n, ids.used));

	IXT_CASE("start %u", n);
	memset(&out, GUARD, sizeof(out));
	EXPECT_EQ(ixt_chap_start(&chap, &ids, "5", IXT_CHAP_ALGS_ALL, &out,
				 &why), -ENOSPC);
	EXPECT_EQ(why, IXT_CHAP_ERR_IDS);
	EXPECT_EQ((u8)out.a[0], GUARD);
	EXPECT_TRUE(is_wiped_done(&chap));
	EXPECT_EQ(ixt_shash_live, 0);
	ixt_chap_destroy(&chap);

	IXT_CASE("another session");
	EXPECT_EQ(ixt_chap_start(&chap, &other, "5", IXT_CHAP_ALGS_ALL, &out,
				 &why), 0);
	ixt_chap_destroy(&chap);
}

/* When the random start is taken, the next free identifier is, wrapping. */
TEST(chap_ids_probe)
{
	struct ixt_chap_ids ids = { };
	struct ixt_chap chap = { };
	struct ixt_chap_challenge out;
	enum ixt_chap_reason why;
	unsigned int n;

	reset_hooks();
	ixt_random_hook = fixed_random;
	for (n = 0; n < IXT_CHAP_NR_IDS; n++) {
		IXT_CASE("start %u", n);
		ASSERT_EQ(ixt_chap_start(&chap, &ids, "6", IXT_CHAP_ALGS_ALL,
					 &out, &why), 0);
		EXPECT_EQ(chap.id, (SEED + n) % IXT_CHAP_NR_IDS);
		ixt_chap_destroy(&chap);
	}
	reset_hooks();
}

/* Challenges are random, as long as the digest, and sent in lowercase hex. */
TEST(chap_challenge)
{
	size_t i;

	reset_hooks();
	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		struct ixt_chap_ids ids = { };
		struct ixt_chap a = { }, b = { };
		struct ixt_chap_challenge out_a, out_b;
		enum ixt_chap_reason why;
		u8 bin[IXT_CHAP_DIGEST_MAX];
		size_t len, k;

		IXT_CASE("CHAP_A=%s", vectors[i].chap_a);
		ASSERT_EQ(ixt_chap_start(&a, &ids, vectors[i].chap_a,
					 IXT_CHAP_ALGS_ALL, &out_a, &why), 0);
		ASSERT_EQ(ixt_chap_start(&b, &ids, vectors[i].chap_a,
					 IXT_CHAP_ALGS_ALL, &out_b, &why), 0);
		EXPECT_EQ(a.digest_len, vectors[i].len);
		EXPECT_EQ(strlen(out_a.c), 2 + 2 * vectors[i].len);
		EXPECT_EQ(strncmp(out_a.c, "0x", 2), 0);
		for (k = 2; out_a.c[k]; k++)
			EXPECT_TRUE(strchr("0123456789abcdef", out_a.c[k]));
		EXPECT_EQ(ixt_chap_decode_binary(out_a.c, bin, sizeof(bin),
						 &len), 0);
		EXPECT_EQ(len, vectors[i].len);
		EXPECT_EQ(memcmp(bin, a.challenge, len), 0);
		EXPECT_NE(memcmp(a.challenge, b.challenge, len), 0);
		EXPECT_NE(a.id, b.id);
		ixt_chap_destroy(&a);
		ixt_chap_destroy(&b);
	}
}

TEST(chap_wrong_response)
{
	static const struct {
		const char *r;
		int err;
		enum ixt_chap_reason why;
	} cases[] = {
		/* Right length, wrong value; 31 digits make 16 bytes. */
		{ "0xda3a4dc801c28f950f5930cccaf3a2c8", -EACCES,
		  IXT_CHAP_ERR_RESPONSE },
		{ "0x00000000000000000000000000000000", -EACCES,
		  IXT_CHAP_ERR_RESPONSE },
		{ "0xa3a4dc801c28f950f5930cccaf3a2c9", -EACCES,
		  IXT_CHAP_ERR_RESPONSE },
		/* The SHA-1 answer to an MD5 challenge. */
		{ "0x272230c8cdc11c86bdd69f06a7e519a98ebf9641", -EINVAL,
		  IXT_CHAP_ERR_RESPONSE_FORMAT },
		/* One byte short, one byte long, the digest in a longer value. */
		{ "0xda3a4dc801c28f950f5930cccaf3a2", -EINVAL,
		  IXT_CHAP_ERR_RESPONSE_FORMAT },
		{ "0xda3a4dc801c28f950f5930cccaf3a2c900", -EINVAL,
		  IXT_CHAP_ERR_RESPONSE_FORMAT },
		{ "0x00da3a4dc801c28f950f5930cccaf3a2c9", -EINVAL,
		  IXT_CHAP_ERR_RESPONSE_FORMAT },
		{ "0b2jpNyAHCj5UPWTDMyvOi", -EINVAL,
		  IXT_CHAP_ERR_RESPONSE_FORMAT },
		{ "0b2jpNyAHCj5UPWTDMyvOiyQA=", -EINVAL,
		  IXT_CHAP_ERR_RESPONSE_FORMAT },
		{ "0x", -EINVAL, IXT_CHAP_ERR_RESPONSE_FORMAT },
		{ "", -EINVAL, IXT_CHAP_ERR_RESPONSE_FORMAT },
		{ "da3a4dc801c28f950f5930cccaf3a2c9", -EINVAL,
		  IXT_CHAP_ERR_RESPONSE_FORMAT },
		{ "0xda3a4dc801c28f950f5930cccaf3a2cz", -EINVAL,
		  IXT_CHAP_ERR_RESPONSE_FORMAT },
	};
	size_t i;

	reset_hooks();
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct ixt_chap_response in = { .n = USERID, .r = cases[i].r };

		IXT_CASE("CHAP_R=%s", cases[i].r);
		md5_exchange(&one_way, &in, cases[i].err, cases[i].why);
	}
}

/* A wrong name or secret fails even when the rest is right. */
TEST(chap_wrong_credentials)
{
	static const struct ixt_chap_creds other_secret = {
		.userid = USERID, .secret = SECRET "x",
	};
	static const char * const names[] = {
		"", "iqn.1994-05.com.redhat:clien", USERID "x",
		"IQN.1994-05.COM.REDHAT:CLIENT",
	};
	struct ixt_chap_response in = { .n = USERID, .r = MD5_R };
	size_t i;

	reset_hooks();
	IXT_CASE("right");
	md5_exchange(&one_way, &in, 0, IXT_CHAP_ERR_NR);
	IXT_CASE("other secret");
	md5_exchange(&other_secret, &in, -EACCES, IXT_CHAP_ERR_RESPONSE);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		in.n = names[i];
		IXT_CASE("CHAP_N=%s", names[i]);
		md5_exchange(&one_way, &in, -EACCES, IXT_CHAP_ERR_NAME);
	}
}

TEST(chap_missing_keys_and_credentials)
{
	static const struct ixt_chap_creds no_userid = { .secret = SECRET };
	static const struct ixt_chap_creds empty_userid = {
		.userid = "", .secret = SECRET,
	};
	static const struct ixt_chap_creds no_secret = { .userid = USERID };
	static const struct ixt_chap_creds empty_secret = {
		.userid = USERID, .secret = "",
	};
	static const struct ixt_chap_creds short_secret = {
		.userid = USERID, .secret = "s",
	};
	struct ixt_chap_response in;

	reset_hooks();
	in = (struct ixt_chap_response){ .r = MD5_R };
	IXT_CASE("no CHAP_N");
	md5_exchange(&one_way, &in, -EPROTO, IXT_CHAP_ERR_MISSING);
	in = (struct ixt_chap_response){ .n = USERID };
	IXT_CASE("no CHAP_R");
	md5_exchange(&one_way, &in, -EPROTO, IXT_CHAP_ERR_MISSING);
	in = (struct ixt_chap_response){ .n = USERID, .r = MD5_R, .i = "1" };
	IXT_CASE("CHAP_I alone");
	md5_exchange(&mutual, &in, -EPROTO, IXT_CHAP_ERR_MISSING);
	in = (struct ixt_chap_response){
		.n = USERID, .r = MD5_R, .c = MUTUAL_C_HEX,
	};
	IXT_CASE("CHAP_C alone");
	md5_exchange(&mutual, &in, -EPROTO, IXT_CHAP_ERR_MISSING);

	in = (struct ixt_chap_response){ .n = USERID, .r = MD5_R };
	IXT_CASE("no user name configured");
	md5_exchange(&no_userid, &in, -EACCES, IXT_CHAP_ERR_CREDS);
	md5_exchange(&empty_userid, &in, -EACCES, IXT_CHAP_ERR_CREDS);
	IXT_CASE("no secret configured");
	md5_exchange(&no_secret, &in, -EACCES, IXT_CHAP_ERR_CREDS);
	md5_exchange(&empty_secret, &in, -EACCES, IXT_CHAP_ERR_CREDS);
	/* Short secrets are weak but accepted; "s" is not SECRET. */
	IXT_CASE("short secret");
	md5_exchange(&short_secret, &in, -EACCES, IXT_CHAP_ERR_RESPONSE);
}

TEST(chap_mutual_failures)
{
	static const struct ixt_chap_creds userid_mutual_only = {
		.userid = USERID, .secret = SECRET,
		.userid_mutual = USERID_MUTUAL,
	};
	static const struct ixt_chap_creds secret_mutual_only = {
		.userid = USERID, .secret = SECRET,
		.secret_mutual = SECRET_MUTUAL,
	};
	static const struct ixt_chap_creds same_secret = {
		.userid = USERID, .secret = SECRET,
		.userid_mutual = USERID_MUTUAL, .secret_mutual = SECRET,
	};
	static const struct ixt_chap_creds prefix_secret = {
		.userid = USERID, .secret = SECRET,
		.userid_mutual = USERID_MUTUAL, .secret_mutual = SECRET "0",
	};
	const struct ixt_chap_response ask = {
		.n = USERID, .r = MD5_R, .i = "200", .c = MUTUAL_C_HEX,
	};
	const struct ixt_chap_response no_ask = { .n = USERID, .r = MD5_R };
	struct ixt_chap_response bad = ask;

	reset_hooks();
	IXT_CASE("configured, not asked: one-way is the initiator's choice");
	md5_exchange(&mutual, &no_ask, 0, IXT_CHAP_ERR_NR);
	IXT_CASE("asked, not configured");
	md5_exchange(&one_way, &ask, -EACCES, IXT_CHAP_ERR_MUTUAL_UNSET);
	IXT_CASE("asked, only the mutual name configured");
	md5_exchange(&userid_mutual_only, &ask, -EACCES,
		     IXT_CHAP_ERR_MUTUAL_UNSET);
	IXT_CASE("not asked, only the mutual secret configured");
	md5_exchange(&secret_mutual_only, &no_ask, 0, IXT_CHAP_ERR_NR);
	IXT_CASE("same secret both ways");
	md5_exchange(&same_secret, &ask, -EACCES, IXT_CHAP_ERR_SAME_SECRET);
	IXT_CASE("secrets differing in length only");
	md5_exchange(&prefix_secret, &ask, 0, IXT_CHAP_ERR_NR);

	/* The initiator's own proof comes first. */
	bad.r = "0x00000000000000000000000000000000";
	IXT_CASE("asked, wrong response");
	md5_exchange(&mutual, &bad, -EACCES, IXT_CHAP_ERR_RESPONSE);
	bad = no_ask;
	bad.r = "0x00000000000000000000000000000000";
	IXT_CASE("configured, not asked, wrong response");
	md5_exchange(&mutual, &bad, -EACCES, IXT_CHAP_ERR_RESPONSE);
}

TEST(chap_mutual_bad_keys)
{
	static const char * const bad_ids[] = {
		"256", "-1", "", "0x", "0x100", "1a", " 1", "1 ", "+1",
		"0b1", "99999999999999999999", "4294967296", "0x100000000",
	};
	static const char * const bad_cs[] = {
		"0x", "0b", "", "zz", "1234", "0bYR==", "0xabcg",
	};
	struct ixt_chap_response in = {
		.n = USERID, .r = MD5_R, .i = "255", .c = MUTUAL_C_HEX,
	};
	char *c;
	size_t i;

	reset_hooks();
	IXT_CASE("CHAP_I=255");
	md5_exchange(&mutual, &in, 0, IXT_CHAP_ERR_NR);
	in.i = "0";
	IXT_CASE("CHAP_I=0");
	md5_exchange(&mutual, &in, 0, IXT_CHAP_ERR_NR);
	for (i = 0; i < ARRAY_SIZE(bad_ids); i++) {
		in.i = bad_ids[i];
		IXT_CASE("CHAP_I=%s", bad_ids[i]);
		md5_exchange(&mutual, &in, -EINVAL, IXT_CHAP_ERR_MUTUAL_ID);
	}
	in.i = "1";
	for (i = 0; i < ARRAY_SIZE(bad_cs); i++) {
		in.c = bad_cs[i];
		IXT_CASE("CHAP_C=%s", bad_cs[i]);
		md5_exchange(&mutual, &in, -EINVAL,
			     IXT_CHAP_ERR_MUTUAL_CHALLENGE);
	}

	/* 1 byte and 1024 bytes are accepted, 1025 bytes are not. */
	in.c = "0x5a";
	IXT_CASE("1-byte CHAP_C");
	md5_exchange(&mutual, &in, 0, IXT_CHAP_ERR_NR);
	c = malloc(2 + 2 * (IXT_CHAP_BINARY_MAX + 1) + 1);
	ASSERT_TRUE(c);
	strcpy(c, "0x");
	memset(c + 2, '7', 2 * IXT_CHAP_BINARY_MAX);
	c[2 + 2 * IXT_CHAP_BINARY_MAX] = '\0';
	in.c = c;
	IXT_CASE("1024-byte CHAP_C");
	md5_exchange(&mutual, &in, 0, IXT_CHAP_ERR_NR);
	strcat(c, "7");
	IXT_CASE("1024.5-byte CHAP_C");
	md5_exchange(&mutual, &in, -EINVAL, IXT_CHAP_ERR_MUTUAL_CHALLENGE);
	strcat(c, "7");
	IXT_CASE("1025-byte CHAP_C");
	md5_exchange(&mutual, &in, -EINVAL, IXT_CHAP_ERR_MUTUAL_CHALLENGE);
	free(c);
}

/* The target's own challenge, sent back in any encoding, is refused. */
TEST(chap_reflection)
{
	static const char * const fixed_cs[] = {
		"0x101112131415161718191a1b1c1d1e1f",
		"0X101112131415161718191A1B1C1D1E1F",
		"0bEBESExQVFhcYGRobHB0eHw==",
		"0bEBESExQVFhcYGRobHB0eHw",
	};
	static const char * const near_cs[] = {
		"0x101112131415161718191a1b1c1d1e",
		"0x101112131415161718191a1b1c1d1e1f20",
		"0x101112131415161718191a1b1c1d1e1e",
		"0x00101112131415161718191a1b1c1d1e1f",
	};
	struct ixt_chap_response in = { .n = USERID, .r = MD5_R, .i = "16" };
	size_t i, k;

	reset_hooks();
	for (i = 0; i < ARRAY_SIZE(fixed_cs); i++) {
		in.c = fixed_cs[i];
		IXT_CASE("CHAP_C=%s", fixed_cs[i]);
		md5_exchange(&mutual, &in, -EACCES, IXT_CHAP_ERR_REFLECTION);
	}
	for (i = 0; i < ARRAY_SIZE(near_cs); i++) {
		in.c = near_cs[i];
		IXT_CASE("CHAP_C=%s", near_cs[i]);
		md5_exchange(&mutual, &in, 0, IXT_CHAP_ERR_NR);
	}

	/* And with a random challenge, for every algorithm. */
	for (i = 0; i < ARRAY_SIZE(vectors); i++) {
		struct ixt_chap_ids ids = { };
		struct ixt_chap chap = { };
		struct ixt_chap_challenge out;
		struct ixt_chap_reply reply;
		enum ixt_chap_reason why = IXT_CHAP_ERR_NR;
		u8 want[IXT_CHAP_DIGEST_MAX];
		char r[80];

		IXT_CASE("random CHAP_A=%s", vectors[i].chap_a);
		ASSERT_EQ(ixt_chap_start(&chap, &ids, vectors[i].chap_a,
					 IXT_CHAP_ALGS_ALL, &out, &why), 0);
		/* Answer it right: H(id || secret || challenge) by OpenSSL. */
		{
			SHASH_DESC_ON_STACK(desc, chap.tfm);
			u8 id = chap.id;

			desc->tfm = chap.tfm;
			ASSERT_EQ(crypto_shash_init(desc), 0);
			ASSERT_EQ(crypto_shash_update(desc, &id, 1), 0);
			ASSERT_EQ(crypto_shash_update(desc, (const u8 *)SECRET,
						      strlen(SECRET)), 0);
			ASSERT_EQ(crypto_shash_finup(desc, chap.challenge,
						     chap.digest_len, want), 0);
			shash_desc_zero(desc);
		}
		strcpy(r, "0x");
		for (k = 0; k < chap.digest_len; k++)
			sprintf(r + 2 + 2 * k, "%02x", want[k]);
		in = (struct ixt_chap_response){
			.n = USERID, .r = r, .i = out.i, .c = out.c,
		};
		EXPECT_EQ(ixt_chap_verify(&chap, &mutual, &in, &reply, &why),
			  -EACCES);
		EXPECT_EQ(why, IXT_CHAP_ERR_REFLECTION);
		ixt_chap_destroy(&chap);
	}
}

/* Bytes of MUTUAL_C_HEX: the challenge of "another login" below. */
static const u8 elsewhere_c[16] = {
	0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47,
	0x48, 0x49, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f,
};
static unsigned int elsewhere_calls;

static bool elsewhere_is_challenge(const u8 *c, size_t len)
{
	elsewhere_calls++;
	return len == sizeof(elsewhere_c) && !memcmp(c, elsewhere_c, len);
}

/*
 * Another login's challenge, relayed as CHAP_C, is refused once CHAP_R is
 * right; before that, the other logins are not even asked about.
 */
TEST(chap_reflection_elsewhere)
{
	struct ixt_chap_response in = {
		.n = USERID, .r = MD5_R, .i = "16", .c = MUTUAL_C_HEX,
		.is_challenge = elsewhere_is_challenge,
	};

	reset_hooks();
	IXT_CASE("relayed challenge, right CHAP_R");
	elsewhere_calls = 0;
	md5_exchange(&mutual, &in, -EACCES, IXT_CHAP_ERR_REFLECTION);
	EXPECT_EQ(elsewhere_calls, 1);

	IXT_CASE("relayed challenge in base64, right CHAP_R");
	in.c = MUTUAL_C_B64;
	elsewhere_calls = 0;
	md5_exchange(&mutual, &in, -EACCES, IXT_CHAP_ERR_REFLECTION);
	EXPECT_EQ(elsewhere_calls, 1);

	IXT_CASE("relayed challenge, wrong CHAP_R");
	in.r = "0xda3a4dc801c28f950f5930cccaf3a2c8";
	elsewhere_calls = 0;
	md5_exchange(&mutual, &in, -EACCES, IXT_CHAP_ERR_RESPONSE);
	EXPECT_EQ(elsewhere_calls, 0);

	IXT_CASE("a challenge no login sent");
	in.r = MD5_R;
	in.c = "0x404142434445464748494a4b4c4d4e40";
	elsewhere_calls = 0;
	md5_exchange(&mutual, &in, 0, IXT_CHAP_ERR_NR);
	EXPECT_EQ(elsewhere_calls, 1);

	IXT_CASE("one-way CHAP: nothing to answer, nothing asked");
	in = (struct ixt_chap_response){
		.n = USERID, .r = MD5_R,
		.is_challenge = elsewhere_is_challenge,
	};
	elsewhere_calls = 0;
	md5_exchange(&mutual, &in, 0, IXT_CHAP_ERR_NR);
	EXPECT_EQ(elsewhere_calls, 0);
}

/* Keys out of order are refused and a finished exchange stays finished. */
TEST(chap_state)
{
	const struct ixt_chap_response in = { .n = USERID, .r = MD5_R };
	const struct ixt_chap_response none = { };
	struct ixt_chap_ids ids = { };
	struct ixt_chap chap = { };
	struct ixt_chap_challenge out;
	enum ixt_chap_reason why;

	reset_hooks();
	IXT_CASE("response before challenge");
	EXPECT_VERIFY(&chap, &one_way, &in, -EPROTO, IXT_CHAP_ERR_STATE);

	IXT_CASE("second CHAP_A");
	ASSERT_TRUE(start_md5(&chap));
	EXPECT_EQ(ixt_chap_start(&chap, &ids, "5", IXT_CHAP_ALGS_ALL, &out,
				 &why), -EPROTO);
	EXPECT_EQ(why, IXT_CHAP_ERR_STATE);
	EXPECT_TRUE(all_zero(&ids, sizeof(ids)));
	EXPECT_VERIFY(&chap, &one_way, &in, 0, IXT_CHAP_ERR_NR);

	IXT_CASE("second response after success");
	EXPECT_VERIFY(&chap, &one_way, &in, -EPROTO, IXT_CHAP_ERR_STATE);
	IXT_CASE("CHAP_A after success");
	EXPECT_EQ(ixt_chap_start(&chap, &ids, "5", IXT_CHAP_ALGS_ALL, &out,
				 &why), -EPROTO);
	ixt_chap_destroy(&chap);

	IXT_CASE("second response after failure");
	ASSERT_TRUE(start_md5(&chap));
	EXPECT_VERIFY(&chap, &one_way, &none, -EPROTO,
		      IXT_CHAP_ERR_MISSING);
	EXPECT_VERIFY(&chap, &one_way, &in, -EPROTO, IXT_CHAP_ERR_STATE);
	ixt_chap_destroy(&chap);

	IXT_CASE("CHAP_A after Reject");
	EXPECT_EQ(ixt_chap_start(&chap, &ids, "1", IXT_CHAP_ALGS_ALL, &out,
				 &why), -EACCES);
	EXPECT_EQ(ixt_chap_start(&chap, &ids, "5", IXT_CHAP_ALGS_ALL, &out,
				 &why), -EPROTO);
	EXPECT_EQ(why, IXT_CHAP_ERR_STATE);

	IXT_CASE("new exchange after destroy");
	ixt_chap_destroy(&chap);
	ixt_chap_destroy(&chap);
	EXPECT_TRUE(start_md5(&chap));
	EXPECT_VERIFY(&chap, &one_way, &in, 0, IXT_CHAP_ERR_NR);
	ixt_chap_destroy(&chap);
	EXPECT_EQ(ixt_shash_live, 0);
}

/* Challenges, identifiers and hashes do not outlive the exchange. */
TEST(chap_wiped)
{
	const struct ixt_chap_response good = { .n = USERID, .r = MD5_R };
	const struct ixt_chap_response wrong = {
		.n = USERID, .r = "0x00000000000000000000000000000000",
	};
	const struct ixt_chap_response ask = {
		.n = USERID, .r = MD5_R, .i = "200", .c = MUTUAL_C_HEX,
	};
	struct ixt_chap chap = { };
	struct ixt_chap_reply reply;
	enum ixt_chap_reason why;

	reset_hooks();
	IXT_CASE("destroy after start");
	ASSERT_TRUE(start_md5(&chap));
	EXPECT_FALSE(all_zero(chap.challenge, sizeof(chap.challenge)));
	EXPECT_EQ(ixt_shash_live, 1);
	ixt_chap_destroy(&chap);
	EXPECT_TRUE(all_zero(&chap, sizeof(chap)));
	EXPECT_EQ(ixt_shash_live, 0);

	IXT_CASE("success");
	ASSERT_TRUE(start_md5(&chap));
	EXPECT_EQ(ixt_chap_verify(&chap, &one_way, &good, &reply, &why), 0);
	EXPECT_TRUE(is_wiped_done(&chap));
	EXPECT_EQ(ixt_shash_live, 0);
	ixt_chap_destroy(&chap);

	IXT_CASE("mutual success");
	ASSERT_TRUE(start_md5(&chap));
	EXPECT_EQ(ixt_chap_verify(&chap, &mutual, &ask, &reply, &why), 0);
	EXPECT_TRUE(is_wiped_done(&chap));
	EXPECT_EQ(ixt_shash_live, 0);
	ixt_chap_destroy(&chap);

	IXT_CASE("failure");
	ASSERT_TRUE(start_md5(&chap));
	EXPECT_EQ(ixt_chap_verify(&chap, &one_way, &wrong, &reply, &why),
		  -EACCES);
	EXPECT_TRUE(is_wiped_done(&chap));
	EXPECT_EQ(ixt_shash_live, 0);
	ixt_chap_destroy(&chap);
	EXPECT_TRUE(all_zero(&chap, sizeof(chap)));
}

/* Allocation and digest failures are internal errors and leak nothing. */
TEST(chap_internal_errors)
{
	const struct ixt_chap_response ask = {
		.n = USERID, .r = MD5_R, .i = "200", .c = MUTUAL_C_HEX,
	};
	const struct ixt_chap_response good = { .n = USERID, .r = MD5_R };
	struct ixt_chap chap = { };

	reset_hooks();
	IXT_CASE("no memory for CHAP_C");
	ASSERT_TRUE(start_md5(&chap));
	ixt_kmalloc_fail = 1;
	EXPECT_VERIFY(&chap, &mutual, &ask, -ENOMEM, IXT_CHAP_ERR_INTERNAL);
	EXPECT_TRUE(is_wiped_done(&chap));
	ixt_chap_destroy(&chap);

	IXT_CASE("digest fails");
	ASSERT_TRUE(start_md5(&chap));
	ixt_shash_update_err = -EIO;
	EXPECT_VERIFY(&chap, &one_way, &good, -EIO, IXT_CHAP_ERR_INTERNAL);
	EXPECT_TRUE(is_wiped_done(&chap));
	ixt_chap_destroy(&chap);
	EXPECT_EQ(ixt_shash_live, 0);
	reset_hooks();
}

TEST(chap_reason_str)
{
	unsigned int i, k;

	for (i = 0; i < IXT_CHAP_ERR_NR; i++) {
		const char *s = ixt_chap_reason_str(i);

		IXT_CASE("reason %u", i);
		ASSERT_TRUE(s && *s);
		for (k = 0; k < i; k++)
			EXPECT_NE(strcmp(s, ixt_chap_reason_str(k)), 0);
	}
	EXPECT_EQ(strcmp(ixt_chap_reason_str(IXT_CHAP_ERR_NR),
			 "unknown CHAP failure"), 0);
}
