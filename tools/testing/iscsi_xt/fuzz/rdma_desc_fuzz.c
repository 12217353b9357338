// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of drivers/target/iscsi_xt/rdma_desc.c: the
 * coalesce/divide builder of RDMA work requests on transfers the input
 * decodes to, against the brute-force model and the rules of
 * ../rdma_desc_model.h, which the unit tests use too.
 *
 * The input chooses a transfer of one of three kinds: plain and page-list
 * transfers as the unit tests draw them (up to 64 pieces, contiguous
 * runs, empty pieces, addresses at the top of the 64-bit space), or a
 * small one of any values (pieces up to 256 bytes, work requests of 1 to
 * 64 bytes and 1 to 8 SGEs, pages of 1 byte to 4 KiB); then how many work
 * requests each call of ixt_rd_build() may build. Transfers of more than
 * about 65536 work requests are skipped.
 *
 * Invariants (check_chain(), check_xfer(), check_rejects()): every byte
 * of the pieces is moved exactly once and in order, from the remote
 * address on; each work request has 1 to max_sge SGEs, none empty, at
 * most max_wr_len bytes and, in page-list mode, no gap in its pages and
 * at most max_pages of them; each is as full as the limits allow; the
 * chain is the model's however the calls cut it, and its length is known
 * before the first call; each call builds what it may into arrays of
 * exactly its size and moves the state on by that; transfers that break
 * the limits or overflow are refused.
 */
#include "fuzz.h"
#include "../rdma_desc_model.h"

/* A small transfer of any values. */
static void raw_xfer(struct xfer *x, struct ixt_rd_piece *pieces)
{
	u64 sum = 0;
	u32 i;

	x->lim.max_sge = rng_range(1, 8);
	x->lim.max_wr_len = rng_range(1, 64);
	x->lim.page_size = rng_below(2) ? 1U << rng_range(0, 12) : 0;
	x->lim.max_pages = rng_range(1, 8);
	x->nr_pieces = rng_range(0, MAX_PIECES);
	for (i = 0; i < x->nr_pieces; i++) {
		u64 addr = (u64)rng() << 32 | (u32)rng();
		u32 len = rng_range(0, 256);

		if (i && rng_below(4) == 0)
			addr = pieces[i - 1].addr + pieces[i - 1].len;
		if (addr > U64_MAX - len)
			addr = U64_MAX - len;
		pieces[i].addr = addr;
		pieces[i].len = len;
		sum += len;
	}
	x->pieces = pieces;
	x->len = sum;
	x->raddr = (u64)rng() << 32 | (u32)rng();
	if (x->raddr > U64_MAX - x->len)
		x->raddr = U64_MAX - x->len;
}

/*
 * Transfers of millions of work requests, which the unit tests draw now
 * and then, would slow the fuzzer down to a crawl and take gigabytes:
 * about FZ_RD_MAX_WRS work requests at most.
 */
#define FZ_RD_MAX_WRS	65536

static bool too_big(const struct xfer *x)
{
	u64 per_wr = x->lim.max_wr_len;

	if (x->lim.page_size)
		per_wr = min(per_wr, (u64)x->lim.page_size * x->lim.max_pages);
	return x->len / per_wr + x->nr_pieces > FZ_RD_MAX_WRS;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct ixt_rd_piece pieces[MAX_PIECES];
	struct chain want = { 0 };
	struct xfer x;

	fz_begin(data, size);
	switch (rng_below(3)) {
	case 0:
		random_xfer(&x, pieces);
		break;
	case 1:
		random_page_xfer(&x, pieces);
		break;
	default:
		raw_xfer(&x, pieces);
	}
	if (too_big(&x))
		return 0;
	model_build(&x, &want, x.len <= 64 * KIB);
	check_chain(&x, &want);
	check_xfer(&x, &want, 1 + rng_below(8));
	check_xfer(&x, &want, 0);
	check_rejects(&x);
	chain_free(&want);
	return 0;
}
