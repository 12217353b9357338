/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <crypto/sha3.h>: the SHA3-256 digest size. */
#ifndef _IXT_SHIM_CRYPTO_SHA3_H
#define _IXT_SHIM_CRYPTO_SHA3_H

#define SHA3_256_DIGEST_SIZE	(256 / 8)

#endif /* _IXT_SHIM_CRYPTO_SHA3_H */
