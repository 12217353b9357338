/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/bits.h>. */
#ifndef _IXT_SHIM_LINUX_BITS_H
#define _IXT_SHIM_LINUX_BITS_H

#define BIT(nr)			(1UL << (nr))
#define BIT_ULL(nr)		(1ULL << (nr))
#define GENMASK(h, l)		((~0UL << (l)) & (~0UL >> (63 - (h))))
#define GENMASK_ULL(h, l)	((~0ULL << (l)) & (~0ULL >> (63 - (h))))

#endif /* _IXT_SHIM_LINUX_BITS_H */
