// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: the target side of CHAP (RFC 7143 section 12.1.3, RFC 1994):
 * choosing the algorithm, challenging the initiator, checking its
 * response and, in mutual CHAP, answering its challenge.
 *
 * Nothing is logged here (see chap.h); secrets and challenges are wiped
 * from memory once used.
 */

#include <crypto/hash.h>
#include <crypto/md5.h>
#include <crypto/sha1.h>
#include <crypto/sha2.h>
#include <crypto/sha3.h>
#include <crypto/utils.h>
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/hex.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sprintf.h>
#include <linux/string.h>
#include <linux/types.h>

#include <iscsi_xt/chap.h>

#include "fault.h"

/* Prefixes of the binary-value encodings (RFC 7143 section 6.1). */
#define IXT_CHAP_PREFIX_LEN	2
/* Bits one base64 character carries, and most '=' that may end a value. */
#define IXT_CHAP_B64_BITS	6
#define IXT_CHAP_B64_MAX_PAD	2

/**
 * struct ixt_chap_hash - a CHAP algorithm as the crypto API knows it
 * @name: name for crypto_alloc_shash().
 * @digest_len: length of its digest in bytes.
 */
struct ixt_chap_hash {
	const char *name;
	u8 digest_len;
};

static const struct ixt_chap_hash ixt_chap_hashes[] = {
	[IXT_CHAP_MD5]		= { "md5",	MD5_DIGEST_SIZE },
	[IXT_CHAP_SHA1]		= { "sha1",	SHA1_DIGEST_SIZE },
	[IXT_CHAP_SHA256]	= { "sha256",	SHA256_DIGEST_SIZE },
	[IXT_CHAP_SHA3_256]	= { "sha3-256",	SHA3_256_DIGEST_SIZE },
};

static const char * const ixt_chap_reasons[IXT_CHAP_ERR_NR] = {
	[IXT_CHAP_ERR_STATE]		= "CHAP keys out of order",
	[IXT_CHAP_ERR_ALG]		= "no acceptable CHAP_A",
	[IXT_CHAP_ERR_IDS]		= "no CHAP identifier left in session",
	[IXT_CHAP_ERR_CREDS]		= "CHAP credentials not configured",
	[IXT_CHAP_ERR_MISSING]		= "CHAP key missing",
	[IXT_CHAP_ERR_NAME]		= "unknown CHAP_N",
	[IXT_CHAP_ERR_RESPONSE_FORMAT]	= "malformed CHAP_R",
	[IXT_CHAP_ERR_RESPONSE]		= "wrong CHAP_R",
	[IXT_CHAP_ERR_MUTUAL_UNSET]	= "mutual CHAP not configured",
	[IXT_CHAP_ERR_SAME_SECRET]	= "mutual secret equals initiator secret",
	[IXT_CHAP_ERR_MUTUAL_ID]	= "malformed CHAP_I",
	[IXT_CHAP_ERR_MUTUAL_CHALLENGE]	= "malformed CHAP_C",
	[IXT_CHAP_ERR_REFLECTION]	= "CHAP_C reflects the target's challenge",
	[IXT_CHAP_ERR_INTERNAL]		= "internal error",
};

static_assert(MD5_DIGEST_SIZE <= IXT_CHAP_DIGEST_MAX);
static_assert(SHA1_DIGEST_SIZE <= IXT_CHAP_DIGEST_MAX);
static_assert(SHA256_DIGEST_SIZE <= IXT_CHAP_DIGEST_MAX);
static_assert(SHA3_256_DIGEST_SIZE <= IXT_CHAP_DIGEST_MAX);

/* Records why the exchange failed and returns @err, for a tail call. */
static int ixt_chap_fail(enum ixt_chap_reason *why, enum ixt_chap_reason r,
			 int err)
{
	*why = r;
	return err;
}

static bool ixt_chap_is_set(const char *cred)
{
	return cred && *cred;
}

/* Whether @value starts with "0" and @lower or @upper, as "0x" or "0X". */
static bool ixt_chap_has_prefix(const char *value, char lower, char upper)
{
	return value[0] == '0' && (value[1] == lower || value[1] == upper);
}

/*
 * A hex-constant: digits after "0x", the first byte taking a single digit
 * when their number is odd (RFC 7143: n digits make (n + 1) / 2 bytes).
 */
static int ixt_chap_decode_hex(const char *hex, u8 *buf, size_t size,
			       size_t *len)
{
	size_t digits = strlen(hex);
	size_t n = (digits + 1) / 2;
	size_t i;
	int hi = 0, lo;

	if (!digits)
		return -EINVAL;
	if (n > size)
		return -EMSGSIZE;
	for (i = 0; i < n; i++) {
		if (i || !(digits & 1))
			hi = hex_to_bin(*hex++);
		lo = hex_to_bin(*hex++);
		if (hi < 0 || lo < 0)
			return -EINVAL;
		buf[i] = hi << 4 | lo;
	}
	*len = n;
	return 0;
}

static int ixt_chap_b64_value(char ch)
{
	if (ch >= 'A' && ch <= 'Z')
		return ch - 'A';
	if (ch >= 'a' && ch <= 'z')
		return ch - 'a' + 26;
	if (ch >= '0' && ch <= '9')
		return ch - '0' + 52;
	if (ch == '+')
		return 62;
	if (ch == '/')
		return 63;
	return -EINVAL;
}

/*
 * A base64-constant: RFC 4648 base64 after "0b", padded with '=' to a
 * multiple of 4 characters or not padded at all. A lone last character
 * (which cannot make a byte) and non-zero bits after the last byte are
 * refused, so that each value has one encoding.
 */
static int ixt_chap_decode_b64(const char *b64, u8 *buf, size_t size,
			       size_t *len)
{
	size_t chars = strlen(b64);
	size_t pad = 0, data, n, i;
	unsigned int acc = 0, bits = 0;

	while (pad < chars && b64[chars - pad - 1] == '=')
		pad++;
	data = chars - pad;
	if (!data || data % 4 == 1 || pad > IXT_CHAP_B64_MAX_PAD ||
	    (pad && chars % 4))
		return -EINVAL;
	n = data / 4 * 3 + (data % 4 ? data % 4 - 1 : 0);
	if (n > size)
		return -EMSGSIZE;

	n = 0;
	for (i = 0; i < data; i++) {
		int v = ixt_chap_b64_value(b64[i]);

		if (v < 0)
			return -EINVAL;
		acc = acc << IXT_CHAP_B64_BITS | v;
		bits += IXT_CHAP_B64_BITS;
		if (bits >= BITS_PER_BYTE) {
			bits -= BITS_PER_BYTE;
			buf[n++] = acc >> bits;
			acc &= BIT(bits) - 1;
		}
	}
	if (acc)
		return -EINVAL;
	*len = n;
	return 0;
}

/**
 * ixt_chap_decode_binary() - decode a binary value: CHAP_R or CHAP_C
 * @value: the value as received, NUL-terminated.
 * @buf: where to store the bytes.
 * @size: room at @buf in bytes.
 * @len: where to store the number of bytes decoded. Left alone on error.
 *
 * A binary value is "0x" or "0X" and hex digits, an odd number of them
 * meaning a leading zero digit, or "0b" or "0B" and base64 (RFC 4648,
 * with or without its '=' padding). Anything else is refused: no empty
 * value, no whitespace, no other prefix. Nothing is written beyond
 * @size bytes.
 *
 * Context: Any context.
 * Return:
 * * 0 - @buf holds *@len bytes, at least 1.
 * * -EINVAL - @value is not a binary value; @buf may have been written.
 * * -EMSGSIZE - @value decodes to more than @size bytes; @buf is untouched.
 */
int ixt_chap_decode_binary(const char *value, u8 *buf, size_t size,
			   size_t *len)
{
	if (ixt_chap_has_prefix(value, 'x', 'X'))
		return ixt_chap_decode_hex(value + IXT_CHAP_PREFIX_LEN, buf,
					   size, len);
	if (ixt_chap_has_prefix(value, 'b', 'B'))
		return ixt_chap_decode_b64(value + IXT_CHAP_PREFIX_LEN, buf,
					   size, len);
	return -EINVAL;
}

/*
 * A number (CHAP_A item, CHAP_I): a decimal-constant or a hex-constant,
 * @len characters at @s, at most @max.
 */
static int ixt_chap_parse_number(const char *s, size_t len, unsigned int max,
				 unsigned int *val)
{
	unsigned int base = 10, v = 0;
	size_t i = 0;

	if (len > IXT_CHAP_PREFIX_LEN && ixt_chap_has_prefix(s, 'x', 'X')) {
		base = 16;
		i = IXT_CHAP_PREFIX_LEN;
	}
	if (i == len)
		return -EINVAL;
	for (; i < len; i++) {
		int d = hex_to_bin(s[i]);

		if (d < 0 || (unsigned int)d >= base)
			return -EINVAL;
		v = v * base + d;
		if (v > max)
			return -ERANGE;
	}
	*val = v;
	return 0;
}

/* Holds the hash of @alg in @chap if it is allowed and available. */
static int ixt_chap_try_alg(struct ixt_chap *chap, unsigned int alg,
			    unsigned long allowed)
{
	const struct ixt_chap_hash *hash;
	struct crypto_shash *tfm;

	if (alg >= ARRAY_SIZE(ixt_chap_hashes) || !ixt_chap_hashes[alg].name ||
	    !(allowed & BIT(alg)))
		return -ENOENT;
	hash = &ixt_chap_hashes[alg];
	tfm = ixt_fault(IXT_FAULT_CHAP_TFM) ? ERR_PTR(-ENOMEM) :
	      crypto_alloc_shash(hash->name, 0, 0);
	if (IS_ERR(tfm))
		/* Only a lack of memory is not "unavailable, try the next". */
		return PTR_ERR(tfm) == -ENOMEM ? -ENOMEM : -ENOENT;
	chap->tfm = tfm;
	chap->alg = alg;
	chap->digest_len = hash->digest_len;
	return 0;
}

/*
 * Takes the first algorithm of the comma-separated CHAP_A list that
 * ixt_chap_try_alg() accepts. Items that are not numbers are skipped, as
 * unknown values of a list are. Each algorithm is tried once: for one the
 * kernel lacks, a try is a module lookup, and a list of 8 KiB names it
 * 4096 times.
 */
static int ixt_chap_choose_alg(struct ixt_chap *chap, const char *list,
			       unsigned long allowed)
{
	for (;;) {
		size_t len = strcspn(list, ",");
		unsigned int alg;
		int ret;

		if (!ixt_chap_parse_number(list, len, U8_MAX, &alg)) {
			ret = ixt_chap_try_alg(chap, alg, allowed);
			if (ret != -ENOENT)
				return ret;
			if (alg < BITS_PER_LONG)
				allowed &= ~BIT(alg);
		}
		if (!list[len])
			return -ENOENT;
		list += len + 1;
	}
}

/*
 * Takes an identifier the session has not used: the first free one from
 * a random start, so that identifiers do not follow a pattern.
 */
static int ixt_chap_take_id(struct ixt_chap_ids *ids, u8 *id)
{
	unsigned int i;
	u8 start;

	get_random_bytes(&start, sizeof(start));
	for (i = 0; i < IXT_CHAP_NR_IDS; i++) {
		unsigned int cand = (start + i) % IXT_CHAP_NR_IDS;

		if (!test_and_set_bit(cand, ids->used)) {
			*id = cand;
			return 0;
		}
	}
	return -ENOSPC;
}

/* Writes @len bytes as a hex-constant: "0x" and lowercase digits. */
static void ixt_chap_to_hex(char *dst, const u8 *src, size_t len)
{
	dst[0] = '0';
	dst[1] = 'x';
	*bin2hex(dst + IXT_CHAP_PREFIX_LEN, src, len) = '\0';
}

/**
 * ixt_chap_start() - choose the algorithm and challenge the initiator
 * @chap: the exchange, zeroed or destroyed.
 * @ids: the identifiers the session has used; one more is taken.
 * @chap_a: value of the initiator's CHAP_A: algorithms in its order of
 *	preference, comma-separated.
 * @allowed: the algorithms the target accepts: bit N allows
 *	&enum ixt_chap_alg N; %IXT_CHAP_ALGS_ALL for all of them.
 * @out: where to store the keys to send. On failure, only an
 *	%IXT_CHAP_ERR_ALG failure fills it: CHAP_A=Reject.
 * @why: where to store the reason of a failure. Left alone on success.
 *
 * Chooses the first algorithm of @chap_a that @allowed holds and the
 * kernel provides, takes an identifier that @ids has not seen, and draws
 * a random challenge as long as the digest. Any failure ends the
 * exchange.
 *
 * Context: Process context; may sleep (the crypto API may load a module).
 * Return:
 * * 0 - @out holds CHAP_A, CHAP_I and CHAP_C; call ixt_chap_verify()
 *   with the initiator's answer.
 * * -EACCES - no algorithm is acceptable (%IXT_CHAP_ERR_ALG).
 * * -ENOSPC - the session used all identifiers (%IXT_CHAP_ERR_IDS).
 * * -ENOMEM - no memory for the hash (%IXT_CHAP_ERR_INTERNAL).
 * * -EPROTO - @chap was already started (%IXT_CHAP_ERR_STATE).
 */
int ixt_chap_start(struct ixt_chap *chap, struct ixt_chap_ids *ids,
		   const char *chap_a, unsigned long allowed,
		   struct ixt_chap_challenge *out, enum ixt_chap_reason *why)
{
	int ret;

	if (chap->state != IXT_CHAP_IDLE)
		return ixt_chap_fail(why, IXT_CHAP_ERR_STATE, -EPROTO);
	chap->state = IXT_CHAP_DONE;

	ret = ixt_chap_choose_alg(chap, chap_a, allowed);
	if (ret == -ENOENT) {
		strscpy(out->a, "Reject");
		out->i[0] = '\0';
		out->c[0] = '\0';
		return ixt_chap_fail(why, IXT_CHAP_ERR_ALG, -EACCES);
	}
	if (ret)
		return ixt_chap_fail(why, IXT_CHAP_ERR_INTERNAL, ret);
	ret = ixt_chap_take_id(ids, &chap->id);
	if (ret)
		goto out_destroy;
	get_random_bytes(chap->challenge, chap->digest_len);

	snprintf(out->a, sizeof(out->a), "%u", chap->alg);
	snprintf(out->i, sizeof(out->i), "%u", chap->id);
	ixt_chap_to_hex(out->c, chap->challenge, chap->digest_len);
	chap->state = IXT_CHAP_CHALLENGED;
	return 0;

out_destroy:
	ixt_chap_destroy(chap);
	chap->state = IXT_CHAP_DONE;
	return ixt_chap_fail(why, IXT_CHAP_ERR_IDS, ret);
}

/* @out = H(@id || @secret || @challenge), the CHAP response (RFC 1994). */
static int ixt_chap_digest(struct crypto_shash *tfm, u8 id, const char *secret,
			   const u8 *challenge, size_t len, u8 *out)
{
	SHASH_DESC_ON_STACK(desc, tfm);
	int ret;

	desc->tfm = tfm;
	ret = crypto_shash_init(desc) ?:
	      crypto_shash_update(desc, &id, 1) ?:
	      crypto_shash_update(desc, (const u8 *)secret, strlen(secret)) ?:
	      crypto_shash_finup(desc, challenge, len, out);
	shash_desc_zero(desc);
	return ret;
}

/* Whether two secrets are equal, in time that depends on their length. */
static bool ixt_chap_same_secret(const char *a, const char *b)
{
	size_t len = strlen(a);

	return len == strlen(b) && !crypto_memneq(a, b, len);
}

/* Checks CHAP_N and CHAP_R: whether the initiator knows the secret. */
static int ixt_chap_check_response(struct ixt_chap *chap,
				   const struct ixt_chap_creds *creds,
				   const struct ixt_chap_response *in,
				   enum ixt_chap_reason *why)
{
	u8 want[IXT_CHAP_DIGEST_MAX], got[IXT_CHAP_DIGEST_MAX];
	size_t len;
	int ret;

	if (!ixt_chap_is_set(creds->userid) || !ixt_chap_is_set(creds->secret))
		return ixt_chap_fail(why, IXT_CHAP_ERR_CREDS, -EACCES);
	if (!in->n || !in->r || !in->i != !in->c)
		return ixt_chap_fail(why, IXT_CHAP_ERR_MISSING, -EPROTO);
	if (strcmp(in->n, creds->userid))
		return ixt_chap_fail(why, IXT_CHAP_ERR_NAME, -EACCES);
	if (ixt_chap_decode_binary(in->r, got, sizeof(got), &len) ||
	    len != chap->digest_len)
		return ixt_chap_fail(why, IXT_CHAP_ERR_RESPONSE_FORMAT, -EINVAL);

	ret = ixt_chap_digest(chap->tfm, chap->id, creds->secret,
			      chap->challenge, chap->digest_len, want);
	if (ret)
		ret = ixt_chap_fail(why, IXT_CHAP_ERR_INTERNAL, ret);
	else if (crypto_memneq(want, got, chap->digest_len))
		ret = ixt_chap_fail(why, IXT_CHAP_ERR_RESPONSE, -EACCES);
	memzero_explicit(want, sizeof(want));
	return ret;
}

/* Answers the initiator's decoded challenge @c of @len bytes. */
static int ixt_chap_answer(struct ixt_chap *chap,
			   const struct ixt_chap_creds *creds,
			   const struct ixt_chap_response *in, u8 id,
			   const u8 *c, size_t len, struct ixt_chap_reply *out,
			   enum ixt_chap_reason *why)
{
	u8 digest[IXT_CHAP_DIGEST_MAX];
	int ret;

	if ((len == chap->digest_len && !memcmp(c, chap->challenge, len)) ||
	    (in->is_challenge && in->is_challenge(c, len)))
		return ixt_chap_fail(why, IXT_CHAP_ERR_REFLECTION, -EACCES);
	ret = ixt_chap_digest(chap->tfm, id, creds->secret_mutual, c, len,
			      digest);
	if (ret)
		return ixt_chap_fail(why, IXT_CHAP_ERR_INTERNAL, ret);
	out->n = creds->userid_mutual;
	ixt_chap_to_hex(out->r, digest, chap->digest_len);
	memzero_explicit(digest, sizeof(digest));
	return 0;
}

/* Once the initiator is authenticated: mutual CHAP, if it is due. */
static int ixt_chap_mutual(struct ixt_chap *chap,
			   const struct ixt_chap_creds *creds,
			   const struct ixt_chap_response *in,
			   struct ixt_chap_reply *out, enum ixt_chap_reason *why)
{
	bool configured = ixt_chap_is_set(creds->userid_mutual) &&
			  ixt_chap_is_set(creds->secret_mutual);
	unsigned int id;
	size_t len;
	u8 *c;
	int ret;

	/*
	 * Whether to authenticate the target is the initiator's choice, as
	 * in LIO: mutual credentials only answer an initiator that asks.
	 */
	if (!in->c) {
		out->n = NULL;
		out->r[0] = '\0';
		return 0;
	}
	if (!configured)
		return ixt_chap_fail(why, IXT_CHAP_ERR_MUTUAL_UNSET, -EACCES);
	if (ixt_chap_same_secret(creds->secret, creds->secret_mutual))
		return ixt_chap_fail(why, IXT_CHAP_ERR_SAME_SECRET, -EACCES);
	if (ixt_chap_parse_number(in->i, strlen(in->i), U8_MAX, &id))
		return ixt_chap_fail(why, IXT_CHAP_ERR_MUTUAL_ID, -EINVAL);

	c = ixt_fault(IXT_FAULT_CHAP_MUTUAL) ? NULL :
	    kmalloc(IXT_CHAP_BINARY_MAX, GFP_KERNEL);
	if (!c)
		return ixt_chap_fail(why, IXT_CHAP_ERR_INTERNAL, -ENOMEM);
	if (ixt_chap_decode_binary(in->c, c, IXT_CHAP_BINARY_MAX, &len))
		ret = ixt_chap_fail(why, IXT_CHAP_ERR_MUTUAL_CHALLENGE, -EINVAL);
	else
		ret = ixt_chap_answer(chap, creds, in, id, c, len, out, why);
	kfree_sensitive(c);
	return ret;
}

/**
 * ixt_chap_verify() - check the initiator's response, answer its challenge
 * @chap: the exchange, started by ixt_chap_start().
 * @creds: the credentials to check the initiator against and, in mutual
 *	CHAP, to answer with.
 * @in: the keys the initiator sent.
 * @out: where to store the keys to send back; meaningful only on success.
 * @why: where to store the reason of a failure. Left alone on success.
 *
 * Checks, and stops at the first failure: the credentials are configured;
 * CHAP_N and CHAP_R are there, and CHAP_I and CHAP_C both or neither;
 * CHAP_N is the user name; CHAP_R decodes to exactly a digest and equals
 * H(CHAP_I || secret || CHAP_C) of the target's challenge, compared in
 * constant time. Then mutual CHAP, the initiator's choice as in LIO: it
 * asks for it by sending CHAP_I and CHAP_C, which it may do only when
 * mutual credentials are configured. When it does, the mutual secret must
 * differ from the
 * initiator's, CHAP_I must be a number in 0..255 and CHAP_C 1 to
 * %IXT_CHAP_BINARY_MAX bytes other than the target's challenge (this
 * login's, or one @in->is_challenge knows of), and @out gets the mutual
 * user name and H(CHAP_I || mutual secret || CHAP_C).
 *
 * Success or not, this ends the exchange: the hash is freed and the
 * challenge wiped; only ixt_chap_destroy() may follow.
 *
 * Context: Process context; may sleep (allocates).
 * Return:
 * * 0 - the initiator is authenticated; send @out if @out->n is set.
 * * -EACCES - authentication failed.
 * * -EINVAL - CHAP_R, CHAP_I or CHAP_C is malformed.
 * * -EPROTO - a key is missing, or @chap is not waiting for a response.
 * * -ENOMEM or another crypto API error - %IXT_CHAP_ERR_INTERNAL.
 */
int ixt_chap_verify(struct ixt_chap *chap, const struct ixt_chap_creds *creds,
		    const struct ixt_chap_response *in,
		    struct ixt_chap_reply *out, enum ixt_chap_reason *why)
{
	int ret;

	if (chap->state != IXT_CHAP_CHALLENGED)
		return ixt_chap_fail(why, IXT_CHAP_ERR_STATE, -EPROTO);
	ret = ixt_chap_check_response(chap, creds, in, why);
	if (!ret)
		ret = ixt_chap_mutual(chap, creds, in, out, why);
	ixt_chap_destroy(chap);
	chap->state = IXT_CHAP_DONE;
	return ret;
}

/**
 * ixt_chap_destroy() - free the hash and wipe an exchange
 * @chap: the exchange, in any state.
 *
 * Leaves @chap zeroed, as for a new exchange. Calling it twice is safe.
 *
 * Context: Process context.
 */
void ixt_chap_destroy(struct ixt_chap *chap)
{
	crypto_free_shash(chap->tfm);
	memzero_explicit(chap, sizeof(*chap));
}

/**
 * ixt_chap_reason_str() - describe why CHAP failed, for a log message
 * @why: the reason.
 *
 * Context: Any context.
 * Return: a short description in English; never %NULL.
 */
const char *ixt_chap_reason_str(enum ixt_chap_reason why)
{
	if ((unsigned int)why >= IXT_CHAP_ERR_NR)
		return "unknown CHAP failure";
	return ixt_chap_reasons[why];
}
