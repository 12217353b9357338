/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/hex.h>, with the kernel's semantics. */
#ifndef _IXT_SHIM_LINUX_HEX_H
#define _IXT_SHIM_LINUX_HEX_H

#include <stddef.h>
#include <linux/types.h>

/* The value of a hex digit, either case, or -1 for any other character. */
static inline int hex_to_bin(unsigned char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Lowercase hex of @count bytes, not NUL-terminated; returns the end. */
static inline char *bin2hex(char *dst, const void *src, size_t count)
{
	static const char digits[] = "0123456789abcdef";
	const u8 *s = src;

	while (count--) {
		*dst++ = digits[*s >> 4];
		*dst++ = digits[*s++ & 0xf];
	}
	return dst;
}

#endif /* _IXT_SHIM_LINUX_HEX_H */
