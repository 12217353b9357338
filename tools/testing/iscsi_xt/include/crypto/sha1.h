/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <crypto/sha1.h>: the digest size. */
#ifndef _IXT_SHIM_CRYPTO_SHA1_H
#define _IXT_SHIM_CRYPTO_SHA1_H

#define SHA1_DIGEST_SIZE	20

#endif /* _IXT_SHIM_CRYPTO_SHA1_H */
