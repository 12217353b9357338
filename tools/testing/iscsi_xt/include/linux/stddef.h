/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/stddef.h>: offsetof() and NULL. */
#ifndef _IXT_SHIM_LINUX_STDDEF_H
#define _IXT_SHIM_LINUX_STDDEF_H

#include <stddef.h>

#endif /* _IXT_SHIM_LINUX_STDDEF_H */
