/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for the parts of <linux/kernel.h> pure files use. */
#ifndef _IXT_SHIM_LINUX_KERNEL_H
#define _IXT_SHIM_LINUX_KERNEL_H

#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/overflow.h>
#include <linux/types.h>

#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#endif /* _IXT_SHIM_LINUX_KERNEL_H */
