/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the libFuzzer targets of iscsi_xt's pure files share: reading the
 * fuzzer's input as numbers, bytes and strings, and the random numbers
 * the shared brute-force models (../holes_model.h, ../dpt_model.h,
 * ../rdma_desc_model.h) draw, taken from the input.
 *
 * Each target calls fz_begin() with its input first. Reads past the end
 * of the input do not fail: numbers then come from a splitmix64 generator
 * seeded with the input's length, so that a short input still drives a
 * model to the end of its run, the same way every time it is replayed.
 *
 * Failed checks of the models (EXPECT_*(), MEXPECT_*() and friends) and
 * unexpected WARN_ON()s abort: ../ixt_test.c is built with IXT_TEST_FUZZ.
 * A target's own invariants use FZ_CHECK() and FZ_FAIL(), which abort
 * too.
 */
#ifndef _IXT_FUZZ_H
#define _IXT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/types.h>

#include "../ixt_test.h"

/**
 * struct fz_input - the input being read
 * @data: the bytes not read yet.
 * @size: how many.
 * @tail: state of the generator that takes over at the end of the input.
 */
struct fz_input {
	const u8 *data;
	size_t size;
	u64 tail;
};

extern struct fz_input fz_in;

/* Aborts with a message and its place: an invariant does not hold. */
#define FZ_FAIL(fmt, ...)						\
	do {								\
		fprintf(stderr, "%s:%d: check failed: " fmt "\n",	\
			__FILE__, __LINE__, ##__VA_ARGS__);		\
		abort();						\
	} while (0)

/* Aborts with the condition and its place unless @cond holds. */
#define FZ_CHECK(cond)							\
	do {								\
		if (!(cond))						\
			FZ_FAIL("%s", #cond);				\
	} while (0)

static inline void fz_begin(const u8 *data, size_t size)
{
	fz_in.data = data;
	fz_in.size = size;
	fz_in.tail = 0x1de5c0ffeeULL + size;
}

static inline size_t fz_left(void)
{
	return fz_in.size;
}

/*
 * The next @n bytes of the input, little-endian, as a number; past the
 * end, the generator's.
 */
static inline u64 fz_num(unsigned int n)
{
	u64 v = 0;
	unsigned int i;

	if (!fz_in.size)
		return ixt_rng(&fz_in.tail);
	for (i = 0; i < n && fz_in.size; i++) {
		v |= (u64)*fz_in.data++ << (8 * i);
		fz_in.size--;
	}
	return v;
}

static inline u8 fz_u8(void)
{
	return fz_num(1);
}

static inline u16 fz_u16(void)
{
	return fz_num(2);
}

static inline u32 fz_u32(void)
{
	return fz_num(4);
}

static inline bool fz_bool(void)
{
	return fz_u8() & 1;
}

/* A number in [lo, hi], from as few input bytes as the range needs. */
static inline u32 fz_range(u32 lo, u32 hi)
{
	u64 span = (u64)hi - lo + 1;
	unsigned int n = span <= 0x100 ? 1 : span <= 0x10000 ? 2 : 4;

	return lo + fz_num(n) % span;
}

/*
 * Up to @max bytes of the input, as they are: the count comes first, in
 * two bytes. Returns the bytes and stores their number in @len; past the
 * end of the input, none.
 */
static inline const u8 *fz_bytes(size_t max, size_t *len)
{
	const u8 *p;
	size_t n = fz_in.size ? fz_u16() : 0;

	if (n > max)
		n = max;
	if (n > fz_in.size)
		n = fz_in.size;
	p = fz_in.data;
	fz_in.data += n;
	fz_in.size -= n;
	*len = n;
	return p;
}

/*
 * A NUL-terminated string of at most @size - 1 bytes in @buf, from the
 * input up to its next NUL byte or its end.
 */
static inline char *fz_str(char *buf, size_t size)
{
	size_t n = 0;

	while (fz_in.size && n + 1 < size) {
		u8 c = *fz_in.data++;

		fz_in.size--;
		if (!c)
			break;
		buf[n++] = c;
	}
	buf[n] = '\0';
	return buf;
}

/*
 * The random numbers of the shared models: from the input, four bytes a
 * number, so that the fuzzer steers every decision; then the generator.
 */
static inline u64 rng(void)
{
	return fz_num(4);
}

static inline u32 rng_below(u32 n)
{
	return n ? (u32)(rng() % n) : 0;
}

static inline u32 rng_range(u32 lo, u32 hi)
{
	return lo + rng() % ((u64)hi - lo + 1);
}

#endif /* _IXT_FUZZ_H */
