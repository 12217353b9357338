/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/bitops.h> and the bitmap declaration of
 * <linux/types.h>: atomic bit operations on arrays of unsigned long.
 */
#ifndef _IXT_SHIM_LINUX_BITOPS_H
#define _IXT_SHIM_LINUX_BITOPS_H

#include <limits.h>
#include <linux/bits.h>
#include <linux/types.h>

#define BITS_PER_BYTE		CHAR_BIT
#define BITS_PER_LONG		(BITS_PER_BYTE * (int)sizeof(long))
#define BITS_TO_LONGS(nr)	(((nr) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define DECLARE_BITMAP(name, bits) unsigned long name[BITS_TO_LONGS(bits)]

static inline bool test_bit(long nr, const volatile unsigned long *addr)
{
	return __atomic_load_n(addr + nr / BITS_PER_LONG, __ATOMIC_RELAXED) &
	       BIT(nr % BITS_PER_LONG);
}

static inline bool test_and_set_bit(long nr, volatile unsigned long *addr)
{
	unsigned long mask = BIT(nr % BITS_PER_LONG);

	return __atomic_fetch_or(addr + nr / BITS_PER_LONG, mask,
				 __ATOMIC_SEQ_CST) & mask;
}

#endif /* _IXT_SHIM_LINUX_BITOPS_H */
