/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/overflow.h>: the same compiler builtins. */
#ifndef _IXT_SHIM_LINUX_OVERFLOW_H
#define _IXT_SHIM_LINUX_OVERFLOW_H

#include <linux/types.h>

static inline bool __attribute__((warn_unused_result))
__ixt_must_check_overflow(bool overflow)
{
	return overflow;
}

#define check_add_overflow(a, b, d) \
	__ixt_must_check_overflow(__builtin_add_overflow(a, b, d))
#define check_sub_overflow(a, b, d) \
	__ixt_must_check_overflow(__builtin_sub_overflow(a, b, d))
#define check_mul_overflow(a, b, d) \
	__ixt_must_check_overflow(__builtin_mul_overflow(a, b, d))

#endif /* _IXT_SHIM_LINUX_OVERFLOW_H */
