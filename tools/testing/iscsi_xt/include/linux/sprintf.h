/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/sprintf.h>: the C library's. */
#ifndef _IXT_SHIM_LINUX_SPRINTF_H
#define _IXT_SHIM_LINUX_SPRINTF_H

#include <stdio.h>

#endif /* _IXT_SHIM_LINUX_SPRINTF_H */
