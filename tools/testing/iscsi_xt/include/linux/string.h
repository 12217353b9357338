/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/string.h>: the C library's functions. */
#ifndef _IXT_SHIM_LINUX_STRING_H
#define _IXT_SHIM_LINUX_STRING_H

#include <string.h>

#endif /* _IXT_SHIM_LINUX_STRING_H */
