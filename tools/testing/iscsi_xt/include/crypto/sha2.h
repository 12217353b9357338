/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <crypto/sha2.h>: the SHA-256 digest size. */
#ifndef _IXT_SHIM_CRYPTO_SHA2_H
#define _IXT_SHIM_CRYPTO_SHA2_H

#define SHA256_DIGEST_SIZE	32

#endif /* _IXT_SHIM_CRYPTO_SHA2_H */
