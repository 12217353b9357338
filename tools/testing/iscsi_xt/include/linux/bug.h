/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/bug.h>. A warning is a counting assert:
 * ixt_warn() (test framework) counts it and fails the running test unless
 * the test said it expects it. Every hit counts, not only the first: the
 * kernel's "once" is about logging. No BUG_ON(): new code must not use it.
 */
#ifndef _IXT_SHIM_LINUX_BUG_H
#define _IXT_SHIM_LINUX_BUG_H

#include <linux/build_bug.h>
#include <linux/types.h>

void ixt_warn(const char *file, int line, const char *cond);

#define WARN_ON(cond) ({						\
	bool __ixt_warned = !!(cond);					\
	if (__ixt_warned)						\
		ixt_warn(__FILE__, __LINE__, #cond);			\
	__ixt_warned;							\
})

#define WARN_ON_ONCE(cond)	WARN_ON(cond)

#endif /* _IXT_SHIM_LINUX_BUG_H */
