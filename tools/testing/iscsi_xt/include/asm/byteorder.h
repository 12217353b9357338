/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <asm/byteorder.h>: CPU <-> wire byte order. */
#ifndef _IXT_SHIM_ASM_BYTEORDER_H
#define _IXT_SHIM_ASM_BYTEORDER_H

#include <linux/types.h>

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define __ixt_be16(x)	__builtin_bswap16(x)
#define __ixt_be32(x)	__builtin_bswap32(x)
#define __ixt_be64(x)	__builtin_bswap64(x)
#define __ixt_le16(x)	((u16)(x))
#define __ixt_le32(x)	((u32)(x))
#define __ixt_le64(x)	((u64)(x))
#elif __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define __ixt_be16(x)	((u16)(x))
#define __ixt_be32(x)	((u32)(x))
#define __ixt_be64(x)	((u64)(x))
#define __ixt_le16(x)	__builtin_bswap16(x)
#define __ixt_le32(x)	__builtin_bswap32(x)
#define __ixt_le64(x)	__builtin_bswap64(x)
#else
#error "unknown byte order"
#endif

#define cpu_to_be16(x)	((__force __be16)__ixt_be16(x))
#define cpu_to_be32(x)	((__force __be32)__ixt_be32(x))
#define cpu_to_be64(x)	((__force __be64)__ixt_be64(x))
#define be16_to_cpu(x)	__ixt_be16((__force u16)(x))
#define be32_to_cpu(x)	__ixt_be32((__force u32)(x))
#define be64_to_cpu(x)	__ixt_be64((__force u64)(x))
#define cpu_to_le16(x)	((__force __le16)__ixt_le16(x))
#define cpu_to_le32(x)	((__force __le32)__ixt_le32(x))
#define cpu_to_le64(x)	((__force __le64)__ixt_le64(x))
#define le16_to_cpu(x)	__ixt_le16((__force u16)(x))
#define le32_to_cpu(x)	__ixt_le32((__force u32)(x))
#define le64_to_cpu(x)	__ixt_le64((__force u64)(x))

#endif /* _IXT_SHIM_ASM_BYTEORDER_H */
