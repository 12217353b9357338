/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/errno.h>. The C library's <errno.h>
 * includes <linux/errno.h> itself and so lands here: pass on to the UAPI
 * header it wants, which defines every errno value the pure files use.
 */
#include_next <linux/errno.h>
