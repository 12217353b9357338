/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/string.h>: the C library's string
 * functions, and the kernel's memzero_explicit() and strscpy().
 */
#ifndef _IXT_SHIM_LINUX_STRING_H
#define _IXT_SHIM_LINUX_STRING_H

#include <errno.h>
#include <string.h>
#include <sys/types.h>

/* Zeroes memory even when the compiler sees it is never read again. */
static inline void memzero_explicit(void *s, size_t count)
{
	memset(s, 0, count);
	__asm__ __volatile__("" : : "r"(s) : "memory");
}

static inline ssize_t ixt_strscpy(char *dst, const char *src, size_t size)
{
	size_t len = strnlen(src, size);

	if (!size)
		return -E2BIG;
	if (len == size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dst, src, len + 1);
	return len;
}

/* The two-argument form only: @dst must be an array. */
#define strscpy(dst, src)	ixt_strscpy(dst, src, sizeof(dst))

#endif /* _IXT_SHIM_LINUX_STRING_H */
