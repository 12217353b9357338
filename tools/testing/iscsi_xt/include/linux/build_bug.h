/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/build_bug.h>: compile-time checks. */
#ifndef _IXT_SHIM_LINUX_BUILD_BUG_H
#define _IXT_SHIM_LINUX_BUILD_BUG_H

/* As in the kernel: the message is optional. */
#define static_assert(expr, ...) __static_assert(expr, ##__VA_ARGS__, #expr)
#define __static_assert(expr, msg, ...) _Static_assert(expr, msg)

#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), #cond)

#endif /* _IXT_SHIM_LINUX_BUILD_BUG_H */
