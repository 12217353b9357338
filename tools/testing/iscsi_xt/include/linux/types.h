/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for the kernel's fixed-width and wire-order types. */
#ifndef _IXT_SHIM_LINUX_TYPES_H
#define _IXT_SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* sparse annotations: sparse checks the kernel build, not this one. */
#define __bitwise
#define __force

/*
 * <linux/compiler_types.h>, which the kernel build includes everywhere;
 * glibc's <sys/cdefs.h> has it too.
 */
#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

typedef u8 __u8;
typedef u16 __u16;
typedef u32 __u32;
typedef u64 __u64;

typedef u16 __bitwise __be16;
typedef u32 __bitwise __be32;
typedef u64 __bitwise __be64;
typedef u16 __bitwise __le16;
typedef u32 __bitwise __le32;
typedef u64 __bitwise __le64;

#endif /* _IXT_SHIM_LINUX_TYPES_H */
