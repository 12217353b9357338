/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/random.h>: get_random_bytes() from the
 * kernel's getrandom(), unless a test installs ixt_random_hook to make
 * the bytes predictable.
 */
#ifndef _IXT_SHIM_LINUX_RANDOM_H
#define _IXT_SHIM_LINUX_RANDOM_H

#include <stddef.h>
#include <stdlib.h>
#include <sys/random.h>

/* Test hook: when set, it provides every random byte. */
__attribute__((weak)) void (*ixt_random_hook)(void *buf, size_t len);

static inline void get_random_bytes(void *buf, size_t len)
{
	char *p = buf;

	if (ixt_random_hook) {
		ixt_random_hook(buf, len);
		return;
	}
	while (len) {
		ssize_t n = getrandom(p, len, 0);

		if (n <= 0)
			abort();
		p += n;
		len -= n;
	}
}

#endif /* _IXT_SHIM_LINUX_RANDOM_H */
