/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/array_size.h>. The definition is the
 * same, token for token, as the one in the <linux/kernel.h> stand-in, so
 * that both may be included.
 */
#ifndef _IXT_SHIM_LINUX_ARRAY_SIZE_H
#define _IXT_SHIM_LINUX_ARRAY_SIZE_H

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#endif /* _IXT_SHIM_LINUX_ARRAY_SIZE_H */
