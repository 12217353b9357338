/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for the parts of <linux/log2.h> pure files use. */
#ifndef _IXT_SHIM_LINUX_LOG2_H
#define _IXT_SHIM_LINUX_LOG2_H

#include <linux/types.h>

static inline bool is_power_of_2(unsigned long n)
{
	return n && !(n & (n - 1));
}

#endif /* _IXT_SHIM_LINUX_LOG2_H */
