/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iscsi_xt: the target side of CHAP authentication (RFC 7143 section
 * 12.1.3, RFC 1994), one-way and mutual, with the algorithms of the IANA
 * iSCSI CHAP registry: MD5, SHA-1, SHA-256 and SHA3-256.
 *
 * The login code splits the keys and calls, for one connection:
 *
 * 1. ixt_chap_start() with the initiator's CHAP_A list; it sends back the
 *    CHAP_A, CHAP_I and CHAP_C values of &struct ixt_chap_challenge;
 * 2. ixt_chap_verify() with the initiator's CHAP_N and CHAP_R, and CHAP_I
 *    and CHAP_C when it asks for mutual CHAP; it sends back the CHAP_N and
 *    CHAP_R of &struct ixt_chap_reply, if any;
 * 3. ixt_chap_destroy(), always, once the exchange is over.
 *
 * The hash transform is allocated per login, in ixt_chap_start() (so an
 * algorithm the kernel cannot provide is passed over while choosing), and
 * freed as soon as ixt_chap_verify() returns: logins are rare, and no
 * module-wide state needs setting up or tearing down.
 *
 * No logging: failures come back as a negative errno and an
 * &enum ixt_chap_reason, and logging them, rate-limited and without
 * secrets, is the caller's job.
 */
#ifndef _ISCSI_XT_CHAP_H
#define _ISCSI_XT_CHAP_H

#include <linux/bitops.h>
#include <linux/types.h>

struct crypto_shash;

/**
 * enum ixt_chap_alg - CHAP algorithms: the values of CHAP_A
 * @IXT_CHAP_MD5: CHAP with MD5 (RFC 1994), the one RFC 7143 mandates.
 * @IXT_CHAP_SHA1: CHAP with SHA-1.
 * @IXT_CHAP_SHA256: CHAP with SHA-256.
 * @IXT_CHAP_SHA3_256: CHAP with SHA3-256.
 *
 * Numbered as IANA registers CHAP algorithms for CHAP_A.
 */
enum ixt_chap_alg {
	IXT_CHAP_MD5 = 5,
	IXT_CHAP_SHA1 = 6,
	IXT_CHAP_SHA256 = 7,
	IXT_CHAP_SHA3_256 = 8,
};

/* Mask of every algorithm, for the @allowed argument of ixt_chap_start(). */
#define IXT_CHAP_ALGS_ALL	(BIT(IXT_CHAP_MD5) | BIT(IXT_CHAP_SHA1) | \
				 BIT(IXT_CHAP_SHA256) | BIT(IXT_CHAP_SHA3_256))

/* Longest digest of the algorithms above, in bytes (SHA-256, SHA3-256). */
#define IXT_CHAP_DIGEST_MAX	32

/* RFC 7143: CHAP_C and CHAP_R hold at most 1024 bytes once decoded. */
#define IXT_CHAP_BINARY_MAX	1024

/* CHAP_I is one byte: there are 256 identifiers. */
#define IXT_CHAP_NR_IDS		256

/* Room for "0x", two hex digits per byte and the NUL, for @n bytes. */
#define IXT_CHAP_HEX_SIZE(n)	(2 + 2 * (n) + 1)

/**
 * enum ixt_chap_reason - why ixt_chap_start() or ixt_chap_verify() failed
 * @IXT_CHAP_ERR_STATE: called out of order: a second CHAP_A, or CHAP_N
 *	and CHAP_R before or after their turn (-EPROTO).
 * @IXT_CHAP_ERR_ALG: no algorithm of CHAP_A is both allowed and
 *	available; CHAP_A=Reject goes back (-EACCES).
 * @IXT_CHAP_ERR_IDS: the session has used all 256 identifiers (-ENOSPC).
 * @IXT_CHAP_ERR_CREDS: the user name or secret the initiator must prove
 *	is not configured (-EACCES).
 * @IXT_CHAP_ERR_MISSING: CHAP_N or CHAP_R is missing, or only one of
 *	CHAP_I and CHAP_C is there (-EPROTO).
 * @IXT_CHAP_ERR_NAME: CHAP_N is not the configured user name (-EACCES).
 * @IXT_CHAP_ERR_RESPONSE_FORMAT: CHAP_R is not a binary value of the
 *	digest's length (-EINVAL).
 * @IXT_CHAP_ERR_RESPONSE: CHAP_R is wrong: the initiator does not know
 *	the secret (-EACCES).
 * @IXT_CHAP_ERR_MUTUAL_UNSET: the initiator asks for mutual CHAP but no
 *	mutual credentials are configured (-EACCES).
 * @IXT_CHAP_ERR_SAME_SECRET: the mutual secret is the initiator's secret,
 *	which RFC 7143 forbids: the target's CHAP_R would equal the
 *	initiator's for the same challenge (-EACCES).
 * @IXT_CHAP_ERR_MUTUAL_ID: CHAP_I is not a number in 0..255 (-EINVAL).
 * @IXT_CHAP_ERR_MUTUAL_CHALLENGE: CHAP_C is not a binary value of 1 to
 *	%IXT_CHAP_BINARY_MAX bytes (-EINVAL).
 * @IXT_CHAP_ERR_REFLECTION: CHAP_C is the challenge the target sent, in
 *	this login or (&struct ixt_chap_response.is_challenge) another
 *	still waiting for its response: a reflection attack (-EACCES).
 * @IXT_CHAP_ERR_INTERNAL: the target ran out of memory or the hash
 *	failed (-ENOMEM or the crypto API's error).
 * @IXT_CHAP_ERR_NR: number of reasons; not a reason.
 *
 * The errno each reason comes with is given in brackets. All but
 * %IXT_CHAP_ERR_IDS and %IXT_CHAP_ERR_INTERNAL are authentication
 * failures (login status 0x0201); those two are target errors.
 */
enum ixt_chap_reason {
	IXT_CHAP_ERR_STATE,
	IXT_CHAP_ERR_ALG,
	IXT_CHAP_ERR_IDS,
	IXT_CHAP_ERR_CREDS,
	IXT_CHAP_ERR_MISSING,
	IXT_CHAP_ERR_NAME,
	IXT_CHAP_ERR_RESPONSE_FORMAT,
	IXT_CHAP_ERR_RESPONSE,
	IXT_CHAP_ERR_MUTUAL_UNSET,
	IXT_CHAP_ERR_SAME_SECRET,
	IXT_CHAP_ERR_MUTUAL_ID,
	IXT_CHAP_ERR_MUTUAL_CHALLENGE,
	IXT_CHAP_ERR_REFLECTION,
	IXT_CHAP_ERR_INTERNAL,
	IXT_CHAP_ERR_NR,
};

/**
 * enum ixt_chap_state - where a CHAP exchange stands
 * @IXT_CHAP_IDLE: nothing happened yet: the zeroed state.
 * @IXT_CHAP_CHALLENGED: the challenge is out; waiting for CHAP_N and
 *	CHAP_R.
 * @IXT_CHAP_DONE: the exchange is over, successfully or not; only
 *	ixt_chap_destroy() is left to call.
 */
enum ixt_chap_state {
	IXT_CHAP_IDLE,
	IXT_CHAP_CHALLENGED,
	IXT_CHAP_DONE,
};

/**
 * struct ixt_chap_ids - CHAP identifiers a set of challenges has used
 * @used: bit N is set once identifier N has been sent.
 *
 * RFC 1994 asks for a new identifier with every challenge: the challenges
 * made with one &struct ixt_chap_ids never repeat one, each drawn from a
 * random start. The login keeps one for its challenge (login.c: one per
 * login, zeroed with it), so identifiers of different logins differ only
 * by chance. ixt_chap_start() updates it atomically, so concurrent users
 * need no lock around it.
 */
struct ixt_chap_ids {
	DECLARE_BITMAP(used, IXT_CHAP_NR_IDS);
};

/**
 * struct ixt_chap - the CHAP exchange of one login
 * @tfm: hash transform of @alg, from ixt_chap_start() until the end of
 *	ixt_chap_verify(); %NULL otherwise.
 * @state: where the exchange stands.
 * @alg: the algorithm chosen, an &enum ixt_chap_alg.
 * @id: the identifier sent in CHAP_I.
 * @digest_len: digest length of @alg in bytes, which is also the length of
 *	@challenge.
 * @challenge: the random challenge sent in CHAP_C.
 *
 * The caller embeds or allocates it zeroed, uses it from one thread at a
 * time (the login's), and calls ixt_chap_destroy() when the login ends,
 * which frees @tfm and wipes the whole structure. The challenge is as long
 * as the digest (16 bytes for MD5, as LIO sends, 20 for SHA-1, 32 for the
 * others): at least 128 random bits make it unpredictable and, in
 * practice, never repeated, longer adds nothing to what the hash
 * provides, and initiators already accept exactly these lengths from LIO.
 */
struct ixt_chap {
	struct crypto_shash *tfm;
	enum ixt_chap_state state;
	u8 alg;
	u8 id;
	u8 digest_len;
	u8 challenge[IXT_CHAP_DIGEST_MAX];
};

/**
 * struct ixt_chap_creds - the credentials a login is checked against
 * @userid: the name the initiator must send in CHAP_N.
 * @secret: the secret the initiator must prove it knows.
 * @userid_mutual: the name the target sends in CHAP_N, in mutual CHAP.
 * @secret_mutual: the secret the target proves, in mutual CHAP.
 *
 * NUL-terminated strings from the ACL, the TPG or the discovery
 * configuration; %NULL or empty means not configured. Mutual CHAP is
 * configured when both @userid_mutual and @secret_mutual are. Secrets
 * shorter than the 12 bytes RFC 7143 recommends are accepted, as LIO
 * accepts them.
 */
struct ixt_chap_creds {
	const char *userid;
	const char *secret;
	const char *userid_mutual;
	const char *secret_mutual;
};

/**
 * struct ixt_chap_challenge - the keys the target answers CHAP_A with
 * @a: value of CHAP_A: the algorithm chosen, in decimal, or "Reject".
 * @i: value of CHAP_I: the identifier in decimal; empty after a Reject.
 * @c: value of CHAP_C: the challenge, "0x" and lowercase hex; empty
 *	after a Reject.
 */
struct ixt_chap_challenge {
	char a[sizeof("Reject")];
	char i[sizeof("255")];
	char c[IXT_CHAP_HEX_SIZE(IXT_CHAP_DIGEST_MAX)];
};

/**
 * struct ixt_chap_response - the keys of the initiator's response
 * @n: value of CHAP_N: the initiator's user name.
 * @r: value of CHAP_R: its response, a binary value.
 * @i: value of CHAP_I, when the initiator asks for mutual CHAP: the
 *	identifier of its own challenge, a number.
 * @c: value of CHAP_C, when the initiator asks for mutual CHAP: its
 *	challenge, a binary value.
 * @is_challenge: optional; whether the decoded CHAP_C of @len bytes is a
 *	challenge the target sent in another login and awaits the answer
 *	to. ixt_chap_verify() asks only once CHAP_R is verified, so that a
 *	peer which does not know the secret learns nothing of the other
 *	logins' challenges, and refuses such a CHAP_C as a reflection.
 *	%NULL: only this login's challenge is refused.
 *
 * NUL-terminated values as received; %NULL for a key that was not sent.
 * Binary values are hex ("0x" or "0X") or base64 ("0b" or "0B"), numbers
 * decimal or hex, as RFC 7143 section 6.1 defines them.
 */
struct ixt_chap_response {
	const char *n;
	const char *r;
	const char *i;
	const char *c;
	bool (*is_challenge)(const u8 *c, size_t len);
};

/**
 * struct ixt_chap_reply - the keys the target answers the response with
 * @n: value of CHAP_N in mutual CHAP: &struct ixt_chap_creds.userid_mutual
 *	itself, valid as long as that string is. %NULL in one-way CHAP:
 *	nothing is sent.
 * @r: value of CHAP_R in mutual CHAP: "0x" and lowercase hex. Empty in
 *	one-way CHAP.
 */
struct ixt_chap_reply {
	const char *n;
	char r[IXT_CHAP_HEX_SIZE(IXT_CHAP_DIGEST_MAX)];
};

int ixt_chap_decode_binary(const char *value, u8 *buf, size_t size,
			   size_t *len);
int ixt_chap_start(struct ixt_chap *chap, struct ixt_chap_ids *ids,
		   const char *chap_a, unsigned long allowed,
		   struct ixt_chap_challenge *out, enum ixt_chap_reason *why);
int ixt_chap_verify(struct ixt_chap *chap, const struct ixt_chap_creds *creds,
		    const struct ixt_chap_response *in,
		    struct ixt_chap_reply *out, enum ixt_chap_reason *why);
void ixt_chap_destroy(struct ixt_chap *chap);
const char *ixt_chap_reason_str(enum ixt_chap_reason why);

#endif /* _ISCSI_XT_CHAP_H */
