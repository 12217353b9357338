/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <crypto/md5.h>: the digest size. */
#ifndef _IXT_SHIM_CRYPTO_MD5_H
#define _IXT_SHIM_CRYPTO_MD5_H

#define MD5_DIGEST_SIZE		16

#endif /* _IXT_SHIM_CRYPTO_MD5_H */
