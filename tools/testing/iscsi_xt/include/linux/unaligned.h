/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/unaligned.h>: big-endian byte access. */
#ifndef _IXT_SHIM_LINUX_UNALIGNED_H
#define _IXT_SHIM_LINUX_UNALIGNED_H

#include <linux/types.h>

static inline u16 get_unaligned_be16(const void *p)
{
	const u8 *b = p;

	return (u16)(b[0] << 8 | b[1]);
}

static inline u32 get_unaligned_be24(const void *p)
{
	const u8 *b = p;

	return (u32)b[0] << 16 | (u32)b[1] << 8 | b[2];
}

static inline u32 get_unaligned_be32(const void *p)
{
	const u8 *b = p;

	return (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | b[3];
}

static inline void put_unaligned_be16(u16 val, void *p)
{
	u8 *b = p;

	b[0] = val >> 8;
	b[1] = val;
}

static inline void put_unaligned_be24(u32 val, void *p)
{
	u8 *b = p;

	b[0] = val >> 16;
	b[1] = val >> 8;
	b[2] = val;
}

static inline void put_unaligned_be32(u32 val, void *p)
{
	u8 *b = p;

	b[0] = val >> 24;
	b[1] = val >> 16;
	b[2] = val >> 8;
	b[3] = val;
}

#endif /* _IXT_SHIM_LINUX_UNALIGNED_H */
