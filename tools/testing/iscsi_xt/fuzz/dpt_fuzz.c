// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of drivers/target/iscsi_xt/dpt.c: the data-pointer
 * table of one write driven by random operations that the input decodes
 * to, against the brute-force model of ../dpt_model.h, which the unit
 * tests use too.
 *
 * The input chooses the layout, either as the model draws it (line size,
 * first offset, transfer length, MaxBurstLength, MaxOutstandingR2T,
 * slot, TTT base, DataPDUInOrder, the unsolicited-data rules) or raw
 * (any value, invalid ones included, up to 256 KiB of data), then every
 * step of the initiator the model plays: unsolicited data, R2Ts asked
 * for, Data-Outs answering them in random PDU orders, hostile Data-Outs
 * (wrong tags, offsets, lengths, F bits), and walks over random ranges.
 * Only the first FZ_DPT_INPUT bytes steer; the rest of a run comes from
 * the generator of fuzz.h, so that the model's check that each run makes
 * progress (a stall of 1000 steps fails) only fails on a real stall.
 *
 * Invariants: an invalid layout is refused, a valid one accepted unless
 * it needs too many entries; the entries cover the buffer exactly once,
 * cut at line ends, at the end of the unsolicited data and every
 * MaxBurstLength bytes of the solicited data; every R2T, placement and
 * walk is where the lines say; no R2T crosses a line or exceeds
 * MaxBurstLength; at most MaxOutstandingR2T are outstanding; every
 * Data-Out is accepted exactly when the model accepts it; at the end
 * every byte was placed exactly once and the table is complete.
 */
#include "fuzz.h"
#include "../dpt_model.h"

#define FZ_DPT_INPUT	2048
#define FZ_DPT_MAX_XFER	(256 * 1024)

/* A layout of any values, and whether ixt_dpt_count() must take it. */
static bool raw_geom(struct model *m)
{
	struct ixt_dpt_geom *g = &m->g;

	g->line_shift = rng_range(IXT_DPT_MIN_LINE_SHIFT - 1,
				  IXT_DPT_MAX_LINE_SHIFT + 1);
	g->first_off = rng_below(4) ? rng_below(1U << min(g->line_shift, 31)) :
				      (u32)rng();
	g->xfer_len = rng_range(0, FZ_DPT_MAX_XFER);
	g->unsol_len = rng_below(4) ? rng_range(0, g->xfer_len) :
				      rng_range(0, g->xfer_len + 1);
	g->max_burst = rng_below(4) ? rng_range(512, 1U << 24) :
				      rng_range(0, 4096);
	g->max_r2t = rng_range(0, MODEL_MAX_R2T);
	g->slot = rng_below(4) ? rng() : IXT_DPT_MAX_SLOTS - rng_below(2);
	g->ttt_base = rng();
	m->ooo = rng_below(2);
	g->data_pdu_in_order = !m->ooo;
	m->mrdsl = rng_range(512, 65536);
	m->imm = rng_below(2) ? rng_range(0, min(g->unsol_len, m->mrdsl)) : 0;
	return g->line_shift >= IXT_DPT_MIN_LINE_SHIFT &&
	       g->line_shift <= IXT_DPT_MAX_LINE_SHIFT &&
	       !(g->first_off >> g->line_shift) && g->xfer_len &&
	       g->unsol_len <= g->xfer_len && g->max_burst && g->max_r2t &&
	       g->slot < IXT_DPT_MAX_SLOTS;
}

/* Walks of random ranges, piece by piece, where the lines say. */
static void walks(struct model *m)
{
	unsigned int i, n = rng_below(8);

	for (i = 0; i < n && !ixt_model_failed; i++) {
		u32 off = rng_range(0, m->g.xfer_len);
		u32 len = rng_range(0, m->g.xfer_len - off), at = off, nr = 0;
		struct ixt_dpt_piece pc;
		struct ixt_dpt_iter it;

		MASSERT_EQ(ixt_dpt_iter_init(&it, &m->t, off, len), 0);
		while (ixt_dpt_iter_next(&it, &pc)) {
			MEXPECT_EQ(pc.offset, at);
			MEXPECT_EQ(pc.addr, model_addr(m, at));
			MEXPECT_EQ(pc.len, min(model_line_room(m, at),
					       off + len - at));
			at += pc.len;
			nr++;
		}
		MEXPECT_EQ(at, off + len);
		MEXPECT_EQ(nr, ixt_dpt_nr_pieces(&m->t, off, len));
		MEXPECT_EQ(ixt_dpt_iter_init(&it, &m->t, off,
					     m->g.xfer_len - off + 1),
			   -EPROTO);
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct model m = { 0 };
	u32 nr_lines, nr_entries;
	bool valid = true;
	int ret;

	fz_begin(data, size < FZ_DPT_INPUT ? size : FZ_DPT_INPUT);
	if (rng_below(4))
		model_random_geom(&m);
	else
		valid = raw_geom(&m);
	ret = ixt_dpt_count(&m.g, &nr_lines, &nr_entries);
	if (!valid)
		FZ_CHECK(ret == -EINVAL);
	else
		FZ_CHECK(!ret || (ret == -E2BIG &&
				  m.g.xfer_len > IXT_DPT_MAX_ENTRIES));
	if (ret)
		return 0;
	if (model_setup(&m)) {
		m.next_sol = m.g.unsol_len;
		model_run(&m);
		walks(&m);
	} else {
		FZ_FAIL("ixt_dpt_init() refuses a valid layout");
	}
	model_free(&m);
	return 0;
}
