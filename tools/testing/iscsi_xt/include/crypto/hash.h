/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for the synchronous message-digest part of
 * <crypto/hash.h>, on OpenSSL's EVP digests, for the algorithms CHAP
 * uses. Test hooks make an algorithm unavailable or the digest fail, and
 * count the live transforms so that a test can check they are freed.
 */
#ifndef _IXT_SHIM_CRYPTO_HASH_H
#define _IXT_SHIM_CRYPTO_HASH_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>

#include <linux/err.h>
#include <linux/string.h>
#include <linux/types.h>

/* Test hooks: crypto_alloc_shash() of this name fails with that error. */
__attribute__((weak)) const char *ixt_shash_fail_name;
__attribute__((weak)) int ixt_shash_fail_err;
/* Test hook: when non-zero, crypto_shash_update() fails with it. */
__attribute__((weak)) int ixt_shash_update_err;
/* Transforms allocated and not yet freed. */
__attribute__((weak)) long ixt_shash_live;
/* Calls of crypto_alloc_shash(), each a module lookup in the kernel. */
__attribute__((weak)) long ixt_shash_allocs;

struct crypto_shash {
	const EVP_MD *md;
};

struct shash_desc {
	struct crypto_shash *tfm;
	EVP_MD_CTX *ctx;
};

/* As in the kernel, the second argument is only a name for the reader. */
#define SHASH_DESC_ON_STACK(shash, ctx)					\
	struct shash_desc __##shash##_desc = { NULL, NULL };		\
	struct shash_desc *shash = &__##shash##_desc

static inline struct crypto_shash *crypto_alloc_shash(const char *alg_name,
						      u32 type, u32 mask)
{
	static const char * const names[][2] = {
		{ "md5", "MD5" },
		{ "sha1", "SHA1" },
		{ "sha256", "SHA256" },
		{ "sha3-256", "SHA3-256" },
	};
	const EVP_MD *md = NULL;
	struct crypto_shash *tfm;
	size_t i;

	(void)type;
	(void)mask;
	ixt_shash_allocs++;
	if (ixt_shash_fail_name && !strcmp(alg_name, ixt_shash_fail_name))
		return ERR_PTR(ixt_shash_fail_err);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(alg_name, names[i][0]))
			md = EVP_get_digestbyname(names[i][1]);
	if (!md)
		return ERR_PTR(-ENOENT);
	tfm = malloc(sizeof(*tfm));
	if (!tfm)
		return ERR_PTR(-ENOMEM);
	tfm->md = md;
	ixt_shash_live++;
	return tfm;
}

static inline void crypto_free_shash(struct crypto_shash *tfm)
{
	if (IS_ERR_OR_NULL(tfm))
		return;
	ixt_shash_live--;
	free(tfm);
}

static inline unsigned int crypto_shash_digestsize(struct crypto_shash *tfm)
{
	return EVP_MD_get_size(tfm->md);
}

static inline int crypto_shash_init(struct shash_desc *desc)
{
	desc->ctx = EVP_MD_CTX_new();
	if (!desc->ctx)
		return -ENOMEM;
	return EVP_DigestInit_ex(desc->ctx, desc->tfm->md, NULL) ? 0 : -EINVAL;
}

static inline int crypto_shash_update(struct shash_desc *desc, const u8 *data,
				      unsigned int len)
{
	if (ixt_shash_update_err)
		return ixt_shash_update_err;
	return EVP_DigestUpdate(desc->ctx, data, len) ? 0 : -EINVAL;
}

static inline int crypto_shash_finup(struct shash_desc *desc, const u8 *data,
				     unsigned int len, u8 *out)
{
	int ret = crypto_shash_update(desc, data, len);

	if (!ret && !EVP_DigestFinal_ex(desc->ctx, out, NULL))
		ret = -EINVAL;
	EVP_MD_CTX_free(desc->ctx);
	desc->ctx = NULL;
	return ret;
}

/* Frees what the digest holds and wipes the descriptor. */
static inline void shash_desc_zero(struct shash_desc *desc)
{
	EVP_MD_CTX_free(desc->ctx);
	memzero_explicit(desc, sizeof(*desc));
}

#endif /* _IXT_SHIM_CRYPTO_HASH_H */
