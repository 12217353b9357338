/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <crypto/utils.h>: crypto_memneq() on OpenSSL's
 * constant-time comparison.
 */
#ifndef _IXT_SHIM_CRYPTO_UTILS_H
#define _IXT_SHIM_CRYPTO_UTILS_H

#include <stddef.h>
#include <openssl/crypto.h>

static inline int crypto_memneq(const void *a, const void *b, size_t size)
{
	return CRYPTO_memcmp(a, b, size) != 0;
}

#endif /* _IXT_SHIM_CRYPTO_UTILS_H */
