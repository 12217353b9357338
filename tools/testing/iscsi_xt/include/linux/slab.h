/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/slab.h>: the C library's allocator, and
 * a test hook, ixt_kmalloc_fail, to make one allocation fail.
 */
#ifndef _IXT_SHIM_LINUX_SLAB_H
#define _IXT_SHIM_LINUX_SLAB_H

#include <malloc.h>
#include <stdlib.h>
#include <linux/string.h>

typedef unsigned int gfp_t;

#define GFP_KERNEL	0U

/* Test hook: when N > 0, the Nth kmalloc() from now returns NULL. */
__attribute__((weak)) int ixt_kmalloc_fail;

static inline void *kmalloc(size_t size, gfp_t flags)
{
	(void)flags;
	if (ixt_kmalloc_fail > 0 && !--ixt_kmalloc_fail)
		return NULL;
	return malloc(size);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

/* Wipes the whole allocation before freeing it, as the kernel does. */
static inline void kfree_sensitive(const void *p)
{
	if (!p)
		return;
	memzero_explicit((void *)p, malloc_usable_size((void *)p));
	free((void *)p);
}

#endif /* _IXT_SHIM_LINUX_SLAB_H */
