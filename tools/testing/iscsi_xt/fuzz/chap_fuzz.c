// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of drivers/target/iscsi_xt/chap.c: one CHAP exchange
 * per input, with every algorithm (MD5, SHA-1, SHA-256, SHA3-256), the
 * binary values in hex and base64 of every length, and failures of the
 * crypto API and of the allocator injected through the shims' hooks.
 *
 * The input chooses: the algorithms the target allows and the CHAP_A
 * list; the identifiers the session has used; the challenge (the
 * <linux/random.h> shim's hook takes it from the input); the faults; the
 * four credentials (absent, empty or text); then the initiator's CHAP_N
 * (absent, right or text), CHAP_R (absent, right, one bit wrong, or
 * text; right ones in any of the encodings RFC 7143 allows), and for
 * mutual CHAP its CHAP_I and CHAP_C (absent, a challenge of 1 to 1100
 * bytes, the target's own challenge reflected, or text). Then, on other
 * bytes, ixt_chap_decode_binary() alone.
 *
 * Invariants: ixt_chap_start() chooses the first algorithm of CHAP_A
 * that is allowed and available or answers Reject, takes an identifier
 * the session had not used, and sends a challenge of the digest's
 * length; ixt_chap_verify() accepts exactly the right response to the
 * configured credentials, answers a mutual challenge with the right
 * digest, and frees the hash in every case; a failure comes with a
 * reason; ixt_chap_decode_binary() decodes every encoding of any bytes
 * back to them, refuses values too long without writing, and decodes
 * whatever it accepts to bytes whose canonical encoding decodes the
 * same. Buffers have their exact size, for ASan.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>

#include <crypto/hash.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/hex.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <iscsi_xt/chap.h>

#include "fuzz.h"

#define FZ_STR_MAX	96
#define FZ_BIN_MAX	(IXT_CHAP_BINARY_MAX + 76)

static const struct {
	const char *shash;
	const char *evp;
	u8 len;
} algs[] = {
	[IXT_CHAP_MD5]		= { "md5", "MD5", 16 },
	[IXT_CHAP_SHA1]		= { "sha1", "SHA1", 20 },
	[IXT_CHAP_SHA256]	= { "sha256", "SHA256", 32 },
	[IXT_CHAP_SHA3_256]	= { "sha3-256", "SHA3-256", 32 },
};

/* The <linux/random.h> shim's hook: random bytes from the input. */
static void fz_random(void *buf, size_t len)
{
	u8 *p = buf;

	while (len--)
		*p++ = fz_u8();
}

/* H(@id || @secret || @c) with OpenSSL, into @out. */
static void ref_digest(unsigned int alg, u8 id, const char *secret,
		       const u8 *c, size_t len, u8 *out)
{
	const EVP_MD *md = EVP_get_digestbyname(algs[alg].evp);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	if (!md || !ctx || !EVP_DigestInit_ex(ctx, md, NULL) ||
	    !EVP_DigestUpdate(ctx, &id, 1) ||
	    !EVP_DigestUpdate(ctx, secret, strlen(secret)) ||
	    !EVP_DigestUpdate(ctx, c, len) ||
	    !EVP_DigestFinal_ex(ctx, out, NULL))
		abort();
	EVP_MD_CTX_free(ctx);
}

/*
 * @len bytes as a binary value into @out, in the encoding @how picks:
 * hex or base64, either case of the prefix, hex digits in either case
 * and without the leading zero of an odd count, base64 with or without
 * its padding.
 */
static void encode(char *out, const u8 *b, size_t len, u8 how)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const char *hex = how & 2 ? "0123456789ABCDEF" : "0123456789abcdef";
	size_t i, n = 0;

	out[n++] = '0';
	if (!(how & 1)) {
		out[n++] = how & 4 ? 'X' : 'x';
		for (i = 0; i < len; i++) {
			if (i || (b[i] >> 4) || !(how & 8))
				out[n++] = hex[b[i] >> 4];
			out[n++] = hex[b[i] & 15];
		}
	} else {
		out[n++] = how & 4 ? 'B' : 'b';
		for (i = 0; i < len; i += 3) {
			u32 v = b[i] << 16 | (i + 1 < len ? b[i + 1] << 8 : 0) |
				(i + 2 < len ? b[i + 2] : 0);

			out[n++] = b64[v >> 18];
			out[n++] = b64[(v >> 12) & 63];
			if (i + 1 < len)
				out[n++] = b64[(v >> 6) & 63];
			else if (!(how & 8))
				out[n++] = '=';
			if (i + 2 < len)
				out[n++] = b64[v & 63];
			else if (!(how & 8))
				out[n++] = '=';
		}
	}
	out[n] = '\0';
}

/* Room for the longest encoding of @len bytes. */
#define ENC_SIZE(len)	(2 + 2 * (len) + 4 + 1)

/* Absent, empty, or a string of the input (stored in @buf). */
static const char *fz_cred(char *buf)
{
	switch (fz_u8() % 4) {
	case 0:
		return NULL;
	case 1:
		return "";
	default:
		return fz_str(buf, FZ_STR_MAX);
	}
}

static bool is_set(const char *s)
{
	return s && *s;
}

/* The algorithm ixt_chap_start() should take from @list, or 0. */
static unsigned int ref_choose(const char *list, unsigned long allowed,
			       int fail_alg, int fail_err, bool *nomem)
{
	*nomem = false;
	for (;;) {
		size_t len = strcspn(list, ","), i = 0;
		unsigned int v = 0, base = 10;
		bool ok = len > 0;

		if (len > 2 && list[0] == '0' &&
		    (list[1] == 'x' || list[1] == 'X')) {
			base = 16;
			i = 2;
		}
		for (; ok && i < len; i++) {
			int d = hex_to_bin(list[i]);

			ok = d >= 0 && (unsigned int)d < base;
			v = v * base + d;
			if (v > 255)
				ok = false;
		}
		if (ok && v >= IXT_CHAP_MD5 && v <= IXT_CHAP_SHA3_256 &&
		    (allowed & BIT(v))) {
			if ((int)v != fail_alg)
				return v;
			if (fail_err == -ENOMEM) {
				*nomem = true;
				return 0;
			}
		}
		if (!list[len])
			return 0;
		list += len + 1;
	}
}

static void exchange(void)
{
	char chap_a[FZ_STR_MAX], cred[4][FZ_STR_MAX], n_buf[FZ_STR_MAX];
	char r_buf[ENC_SIZE(IXT_CHAP_DIGEST_MAX) + FZ_STR_MAX];
	char i_buf[FZ_STR_MAX], *c_buf = NULL;
	u8 want[IXT_CHAP_DIGEST_MAX], c_bin[FZ_BIN_MAX];
	struct ixt_chap_ids ids, ids_before;
	struct ixt_chap chap = { 0 };
	struct ixt_chap_challenge ch;
	struct ixt_chap_creds creds;
	struct ixt_chap_response in = { 0 };
	struct ixt_chap_reply out;
	enum ixt_chap_reason why = IXT_CHAP_ERR_NR;
	unsigned long allowed;
	unsigned int alg, id = 0, mutual_id = 0;
	size_t c_len = 0, bytes;
	bool nomem, kfail, right = true, mutual_right = true;
	int fail_alg = -1, fail_err = 0, ret;
	u8 faults, b;

	b = fz_u8();
	allowed = b & 0x10 ? IXT_CHAP_ALGS_ALL : (b & 0xfUL) << IXT_CHAP_MD5;
	fz_str(chap_a, sizeof(chap_a));
	switch (fz_u8() % 4) {
	case 0:
		memset(&ids, 0, sizeof(ids));
		break;
	case 1:
		memset(&ids, 0xff, sizeof(ids));
		break;
	default:
		fz_random(&ids, sizeof(ids));
	}
	faults = fz_u8();
	if (faults & 3) {
		fail_alg = IXT_CHAP_MD5 + fz_u8() % 4;
		fail_err = faults & 1 ? -ENOMEM : -ENOENT;
		ixt_shash_fail_name = algs[fail_alg].shash;
		ixt_shash_fail_err = fail_err;
	}
	ixt_shash_update_err = faults & 4 ? -EIO : 0;
	kfail = faults & 8;
	ixt_kmalloc_fail = kfail ? 1 : 0;
	creds.userid = fz_cred(cred[0]);
	creds.secret = fz_cred(cred[1]);
	creds.userid_mutual = fz_cred(cred[2]);
	creds.secret_mutual = fz_cred(cred[3]);

	ids_before = ids;
	memset(&ch, 0x5a, sizeof(ch));
	ret = ixt_chap_start(&chap, &ids, chap_a, allowed, &ch, &why);
	alg = ref_choose(chap_a, allowed, fail_alg, fail_err, &nomem);
	if (ret) {
		FZ_CHECK(!chap.tfm && chap.state == IXT_CHAP_DONE);
		FZ_CHECK(ixt_shash_live == 0);
		FZ_CHECK(why < IXT_CHAP_ERR_NR);
		if (ret == -EACCES) {
			FZ_CHECK(why == IXT_CHAP_ERR_ALG && !alg && !nomem);
			FZ_CHECK(!strcmp(ch.a, "Reject") && !ch.i[0] &&
				 !ch.c[0]);
		} else if (ret == -ENOMEM) {
			FZ_CHECK(why == IXT_CHAP_ERR_INTERNAL && nomem);
		} else {
			FZ_CHECK(ret == -ENOSPC && why == IXT_CHAP_ERR_IDS);
			FZ_CHECK(alg);
			memset(&ids_before, 0xff, sizeof(ids_before));
		}
		FZ_CHECK(!memcmp(&ids, &ids_before, sizeof(ids)));
		return;
	}
	/* The algorithm, a fresh identifier, a challenge of its length. */
	FZ_CHECK(alg && chap.alg == alg && chap.tfm);
	FZ_CHECK(chap.state == IXT_CHAP_CHALLENGED);
	FZ_CHECK(chap.digest_len == algs[alg].len);
	FZ_CHECK(strtoul(ch.a, NULL, 10) == alg);
	id = strtoul(ch.i, NULL, 10);
	FZ_CHECK(id == chap.id);
	FZ_CHECK(!test_bit(id, ids_before.used) && test_bit(id, ids.used));
	__atomic_fetch_or(&ids_before.used[id / BITS_PER_LONG],
			  BIT(id % BITS_PER_LONG), __ATOMIC_RELAXED);
	FZ_CHECK(!memcmp(&ids, &ids_before, sizeof(ids)));
	FZ_CHECK(strlen(ch.c) == 2 + 2U * chap.digest_len);
	encode(r_buf, chap.challenge, chap.digest_len, 0);
	FZ_CHECK(!strcmp(ch.c, r_buf));

	/* CHAP_N */
	switch (fz_u8() % 3) {
	case 0:
		in.n = NULL;
		break;
	case 1:
		in.n = creds.userid ? creds.userid : "";
		break;
	default:
		in.n = fz_str(n_buf, sizeof(n_buf));
	}
	right = in.n && is_set(creds.userid) && !strcmp(in.n, creds.userid);

	/* CHAP_R */
	ref_digest(alg, id, creds.secret ? creds.secret : "",
		   chap.challenge, chap.digest_len, want);
	b = fz_u8();
	switch (b % 4) {
	case 0:
		in.r = NULL;
		right = false;
		break;
	case 1:
		encode(r_buf, want, chap.digest_len, b >> 2);
		in.r = r_buf;
		break;
	case 2: {
		u8 wrong[IXT_CHAP_DIGEST_MAX];
		unsigned int bit = fz_u16() % (8 * chap.digest_len);

		memcpy(wrong, want, chap.digest_len);
		wrong[bit / 8] ^= 1 << (bit % 8);
		encode(r_buf, wrong, chap.digest_len, b >> 2);
		in.r = r_buf;
		right = false;
		break;
	}
	default:
		in.r = fz_str(r_buf, FZ_STR_MAX);
		right = false;
	}
	right = right && is_set(creds.secret);

	/* CHAP_I and CHAP_C: mutual CHAP. */
	switch (fz_u8() % 4) {
	case 0:
		break;
	case 1:
		mutual_id = fz_u8();
		snprintf(i_buf, sizeof(i_buf), "%u", mutual_id);
		in.i = i_buf;
		fz_random(&bytes, sizeof(bytes));
		c_len = 1 + bytes % FZ_BIN_MAX;
		fz_random(c_bin, c_len);
		c_buf = malloc(ENC_SIZE(c_len));
		if (!c_buf)
			abort();
		encode(c_buf, c_bin, c_len, fz_u8());
		in.c = c_buf;
		mutual_right = c_len <= IXT_CHAP_BINARY_MAX &&
			       (c_len != chap.digest_len ||
				memcmp(c_bin, chap.challenge, c_len));
		break;
	case 2:
		/* The target's own challenge, reflected. */
		in.i = "0";
		c_len = chap.digest_len;
		memcpy(c_bin, chap.challenge, c_len);
		c_buf = malloc(ENC_SIZE(c_len));
		if (!c_buf)
			abort();
		encode(c_buf, c_bin, c_len, fz_u8());
		in.c = c_buf;
		mutual_right = false;
		break;
	default:
		/* Text, or CHAP_C without CHAP_I. */
		in.i = fz_bool() ? fz_str(i_buf, sizeof(i_buf)) : NULL;
		c_buf = malloc(FZ_STR_MAX);
		if (!c_buf)
			abort();
		in.c = fz_str(c_buf, FZ_STR_MAX);
		mutual_right = false;
	}
	if (in.c)
		mutual_right = mutual_right && is_set(creds.userid_mutual) &&
			       is_set(creds.secret_mutual) &&
			       is_set(creds.secret) &&
			       strcmp(creds.secret, creds.secret_mutual);

	memset(&out, 0x5a, sizeof(out));
	ret = ixt_chap_verify(&chap, &creds, &in, &out, &why);
	FZ_CHECK(!chap.tfm && chap.state == IXT_CHAP_DONE);
	FZ_CHECK(ixt_shash_live == 0);
	if (ret) {
		FZ_CHECK(why < IXT_CHAP_ERR_NR);
		FZ_CHECK(ixt_chap_reason_str(why));
		/* A right exchange fails only for an injected fault. */
		FZ_CHECK(!right || (in.c && !mutual_right) ||
			 why == IXT_CHAP_ERR_INTERNAL);
		FZ_CHECK(why != IXT_CHAP_ERR_INTERNAL ||
			 ixt_shash_update_err || (kfail && in.c));
	} else {
		u8 got[IXT_CHAP_DIGEST_MAX];
		size_t len;

		/* Accepted: the name and the response were right. */
		FZ_CHECK(is_set(creds.userid) && is_set(creds.secret));
		FZ_CHECK(!strcmp(in.n, creds.userid));
		FZ_CHECK(!ixt_chap_decode_binary(in.r, got, sizeof(got),
						 &len));
		FZ_CHECK(len == algs[alg].len && !memcmp(got, want, len));
		FZ_CHECK(!ixt_shash_update_err);
		if (!in.c) {
			FZ_CHECK(!out.n && !out.r[0]);
		} else {
			u8 digest[IXT_CHAP_DIGEST_MAX];
			char hex[ENC_SIZE(IXT_CHAP_DIGEST_MAX)];

			FZ_CHECK(out.n == creds.userid_mutual);
			FZ_CHECK(is_set(creds.userid_mutual) &&
				 is_set(creds.secret_mutual) &&
				 strcmp(creds.secret, creds.secret_mutual));
			if (!c_len) {
				/* Text the decoder took: decode it again. */
				FZ_CHECK(!ixt_chap_decode_binary(in.c, c_bin,
								 FZ_BIN_MAX,
								 &c_len));
				mutual_id = in.i[0] == '0' &&
					    (in.i[1] == 'x' || in.i[1] == 'X') ?
					    strtoul(in.i + 2, NULL, 16) :
					    strtoul(in.i, NULL, 10);
			}
			ref_digest(alg, mutual_id, creds.secret_mutual, c_bin,
				   c_len, digest);
			encode(hex, digest, algs[alg].len, 0);
			FZ_CHECK(!strcmp(out.r, hex));
		}
	}
	if (right && (!in.c || mutual_right) && !ixt_shash_update_err &&
	    !(in.c && kfail))
		FZ_CHECK(!ret);
	free(c_buf);
}

/* Every encoding of some bytes decodes back to them. */
static void round_trip(void)
{
	u8 bin[FZ_BIN_MAX], *dec;
	char enc[ENC_SIZE(FZ_BIN_MAX)];
	size_t len, size, got = 0xdead, i;
	const u8 *p = fz_bytes(FZ_BIN_MAX, &len);
	int ret;

	if (!len)
		return;
	memcpy(bin, p, len);
	encode(enc, bin, len, fz_u8());
	size = fz_u16() % (FZ_BIN_MAX + 1);
	dec = malloc(size ? size : 1);
	if (!dec)
		abort();
	memset(dec, 0xa5, size);
	ret = ixt_chap_decode_binary(enc, dec, size, &got);
	if (len <= size) {
		FZ_CHECK(!ret && got == len && !memcmp(dec, bin, len));
	} else {
		FZ_CHECK(ret == -EMSGSIZE && got == 0xdead);
		for (i = 0; i < size; i++)
			FZ_CHECK(dec[i] == 0xa5);
	}
	free(dec);
}

/* Whatever decodes has a canonical encoding that decodes the same. */
static void any_value(void)
{
	char *value, enc[ENC_SIZE(FZ_BIN_MAX)];
	u8 bin[FZ_BIN_MAX], again[FZ_BIN_MAX];
	size_t len, n, n2;
	const u8 *p = fz_bytes(4 * FZ_BIN_MAX, &len);
	int ret;

	value = malloc(len + 1);
	if (!value)
		abort();
	memcpy(value, p, len);
	value[len] = '\0';
	ret = ixt_chap_decode_binary(value, bin, sizeof(bin), &n);
	free(value);
	if (ret) {
		FZ_CHECK(ret == -EINVAL || ret == -EMSGSIZE);
		return;
	}
	FZ_CHECK(n >= 1 && n <= sizeof(bin));
	encode(enc, bin, n, 0);
	FZ_CHECK(!ixt_chap_decode_binary(enc, again, sizeof(again), &n2));
	FZ_CHECK(n2 == n && !memcmp(bin, again, n));
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	fz_begin(data, size);
	ixt_random_hook = fz_random;
	ixt_shash_fail_name = NULL;
	ixt_shash_fail_err = 0;
	ixt_shash_update_err = 0;
	ixt_kmalloc_fail = 0;
	exchange();
	ixt_shash_fail_name = NULL;
	ixt_shash_update_err = 0;
	ixt_kmalloc_fail = 0;
	round_trip();
	any_value();
	return 0;
}
