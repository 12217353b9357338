/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/minmax.h>: min() and max() evaluate
 * their arguments once. The kernel's also refuse operands of different
 * signedness at compile time; its build checks that.
 */
#ifndef _IXT_SHIM_LINUX_MINMAX_H
#define _IXT_SHIM_LINUX_MINMAX_H

#define min(x, y) ({							\
	__typeof__(x) __ixt_x = (x);					\
	__typeof__(y) __ixt_y = (y);					\
	__ixt_x < __ixt_y ? __ixt_x : __ixt_y;				\
})

#define max(x, y) ({							\
	__typeof__(x) __ixt_x = (x);					\
	__typeof__(y) __ixt_y = (y);					\
	__ixt_x > __ixt_y ? __ixt_x : __ixt_y;				\
})

#define min3(x, y, z)	min(min(x, y), z)

#endif /* _IXT_SHIM_LINUX_MINMAX_H */
