/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/limits.h>: the fixed-width maxima. The
 * definitions are the same, token for token, as in the <linux/kernel.h>
 * stand-in, so that both may be included.
 */
#ifndef _IXT_SHIM_LINUX_LIMITS_H
#define _IXT_SHIM_LINUX_LIMITS_H

#include <linux/types.h>

#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)

#endif /* _IXT_SHIM_LINUX_LIMITS_H */
