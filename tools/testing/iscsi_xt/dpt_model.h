/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Brute-force model of drivers/target/iscsi_xt/dpt.c, shared by the unit
 * tests (dpt_test.c) and the fuzzer (fuzz/dpt_fuzz.c): a random layout
 * and the initiator's side of a write, unsolicited data and R2Ts answered
 * in random PDU orders, hostile Data-Out PDUs mixed in, with every step
 * checked: each byte placed exactly once where the lines say, each R2T a
 * burst of MaxBurstLength (the last one shorter), its tag naming the
 * first entry of its run, MaxOutstandingR2T respected,
 * every Data-Out accepted exactly when the model says it may be.
 *
 * Not a header of the usual kind: it defines static functions, and the
 * file that includes it must define first, after "ixt_test.h",
 *
 *	static u64 rng(void);			a random number
 *	static u32 rng_range(u32 lo, u32 hi);	a random number in [lo, hi]
 *
 * which the unit tests draw from a fixed seed and the fuzzer from its
 * input. The checks use MEXPECT_*() and MASSERT_*(): the unit tests count
 * a failure and stop the run, the fuzzer aborts on it.
 */
#ifndef _IXT_DPT_MODEL_H
#define _IXT_DPT_MODEL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <iscsi_xt/dpt.h>
#include <iscsi_xt/holes.h>
#include <iscsi_xt/pdu.h>

#include "ixt_test.h"

/* The model's own reading of RFC 7143's unsolicited-data rules. */
static int model_unsol_len(u32 xfer, u32 imm, bool final,
			   const struct ixt_pdu_limits *lim, u32 *unsol)
{
	u32 cap = min(lim->first_burst_length, xfer);

	if (imm > 0 && !lim->immediate_data)
		return -EPROTO;
	if (imm > cap)
		return -EPROTO;
	if (final) {
		*unsol = imm;
		return 0;
	}
	if (lim->initial_r2t)
		return -EPROTO;
	if (imm >= cap)
		return -EPROTO;
	*unsol = cap;
	return 0;
}

/* The PDUs of a sequence, in the order the initiator sends them. */
struct model_plan {
	u32 *start, *len;
	u32 nr, next;
};

/* An R2T as the initiator keeps it. */
struct model_r2t {
	u32 ttt, offset, end, sent;
	struct model_plan plan;
};

#define MODEL_MAX_R2T	4

struct model {
	struct ixt_dpt_geom g;
	struct ixt_dpt t;
	struct ixt_dpt_line *lines;
	struct ixt_dpt_entry *entries;
	u32 nr_lines, nr_entries;
	u8 *seen;		/* times each byte was placed */
	u32 mrdsl;		/* largest Data-Out */
	u32 imm;		/* immediate data, the first unsolicited PDU */
	bool ooo;		/* DataPDUInOrder=No */
	struct ixt_ranges ranges;
	struct ixt_range *range;
	struct model_plan unsol_plan;
	u32 unsol_sent;
	u32 next_sol;		/* offset the next R2T must start at */
	struct model_r2t r2t[MODEL_MAX_R2T];
	u32 nr_r2t;
	u32 r2ts;
};

static u64 model_addr(const struct model *m, u32 offset)
{
	u64 pos = (u64)m->g.first_off + offset;

	return m->lines[pos >> m->g.line_shift].addr +
	       (pos & ((1ULL << m->g.line_shift) - 1));
}

/* Bytes from @offset to the end of its line. */
static u64 model_line_room(const struct model *m, u32 offset)
{
	u64 pos = (u64)m->g.first_off + offset;

	return (1ULL << m->g.line_shift) -
	       (pos & ((1ULL << m->g.line_shift) - 1));
}

static void model_random_geom(struct model *m)
{
	static const u32 bursts[] = { 512, 4096, 8192, 65536, 262144,
				      16777215 };
	struct ixt_pdu_limits lim;
	u32 line, imm, cap;
	bool final;

	m->g.line_shift = rng_range(12, 17);
	line = 1U << m->g.line_shift;
	switch (rng() % 4) {
	case 0:
		m->g.first_off = 0;
		break;
	case 1:
		m->g.first_off = rng_range(0, line - 1) & ~511U;
		break;
	default:
		m->g.first_off = rng_range(0, line - 1);
	}
	m->g.xfer_len = rng() % 8 ? rng_range(1, 4 * line) :
				    rng_range(1, 1 << 20);
	m->g.max_burst = rng() % 2 ? bursts[rng() % ARRAY_SIZE(bursts)] :
				     rng_range(512, 16777215);
	m->g.max_r2t = rng_range(1, MODEL_MAX_R2T);
	m->g.slot = rng_range(0, IXT_DPT_MAX_SLOTS - 1);
	m->g.ttt_base = rng();
	m->ooo = rng() % 2;
	m->g.data_pdu_in_order = !m->ooo;
	m->mrdsl = rng() % 2 ? 8192 : rng_range(512, 65536);

	lim = (struct ixt_pdu_limits) {
		.immediate_data = rng() % 2,
		.initial_r2t = rng() % 2,
		.first_burst_length = rng() % 2 ? 65536 :
						  rng_range(512, 1 << 20),
	};
	cap = min3(lim.first_burst_length, m->g.xfer_len, m->mrdsl);
	imm = lim.immediate_data && rng() % 2 ? rng_range(0, cap) : 0;
	if (rng() % 8 == 0)
		imm = rng_range(0, m->g.xfer_len);	/* maybe too much */
	final = rng() % 2;
	{
		u32 got = 0xdead, want = 0xdead;
		int ret = ixt_dpt_unsol_len(m->g.xfer_len, imm, final, &lim,
					    &got);

		MEXPECT_EQ(ret, model_unsol_len(m->g.xfer_len, imm, final,
						&lim, &want));
		MEXPECT_EQ(got, want);
		m->g.unsol_len = ret ? 0 : got;
		m->imm = ret ? 0 : imm;
	}
}

/* Lines at distinct random places, so that a wrong line shows. */
/*
 * Cuts [@from, @to) into PDUs of at most MaxRecvDataSegmentLength, the
 * first one @first bytes if not 0; shuffled but for that first one when
 * out of order.
 */
static void model_plan(const struct model *m, struct model_plan *pl,
		       u32 from, u32 to, u32 first)
{
	u32 min_len = m->mrdsl / 4 ? m->mrdsl / 4 : 1;
	u32 max_nr = (to - from) / min_len + 2;
	u32 i, j, fixed = first ? 1 : 0;

	pl->start = calloc(max_nr, sizeof(u32));
	pl->len = calloc(max_nr, sizeof(u32));
	if (!pl->start || !pl->len)
		abort();
	pl->nr = 0;
	pl->next = 0;
	while (from < to) {
		u32 len = first ? first : rng_range(min_len, m->mrdsl);

		first = 0;
		len = min(len, to - from);
		pl->start[pl->nr] = from;
		pl->len[pl->nr++] = len;
		from += len;
	}
	if (!m->ooo)
		return;
	for (i = pl->nr; i > fixed + 1; i--) {
		u32 tmp;

		j = fixed + rng() % (i - fixed);
		tmp = pl->start[i - 1];
		pl->start[i - 1] = pl->start[j];
		pl->start[j] = tmp;
		tmp = pl->len[i - 1];
		pl->len[i - 1] = pl->len[j];
		pl->len[j] = tmp;
	}
}

static void model_plan_free(struct model_plan *pl)
{
	free(pl->start);
	free(pl->len);
	pl->start = NULL;
	pl->len = NULL;
}

static bool model_setup(struct model *m)
{
	u32 i, j;

	if (ixt_dpt_count(&m->g, &m->nr_lines, &m->nr_entries))
		return false;
	m->lines = calloc(m->nr_lines, sizeof(*m->lines));
	m->entries = calloc(m->nr_entries, sizeof(*m->entries));
	m->seen = calloc(m->g.xfer_len, 1);
	if (!m->lines || !m->entries || !m->seen)
		abort();
	for (i = 0; i < m->nr_lines; i++)
		m->lines[i].addr = (u64)i << m->g.line_shift;
	for (i = m->nr_lines; i > 1; i--) {
		struct ixt_dpt_line tmp;

		j = rng() % i;
		tmp = m->lines[i - 1];
		m->lines[i - 1] = m->lines[j];
		m->lines[j] = tmp;
	}
	for (i = 0; i < m->nr_lines; i++)
		m->lines[i].addr += 0x7f0000000000ULL;
	model_plan(m, &m->unsol_plan, 0, m->g.unsol_len, m->imm);
	if (m->ooo) {
		/* Islands and holes between them take a byte at least. */
		u32 max = m->g.xfer_len / 2 + 1;

		m->range = calloc(max, sizeof(*m->range));
		if (!m->range || ixt_ranges_init(&m->ranges, m->range, max,
						 m->g.xfer_len))
			abort();
	}
	return !ixt_dpt_init(&m->t, &m->g, m->lines, m->nr_lines,
			     m->entries, m->nr_entries,
			     m->ooo ? &m->ranges : NULL);
}

static void model_free(struct model *m)
{
	u32 i;

	for (i = 0; i < m->nr_r2t; i++)
		model_plan_free(&m->r2t[i].plan);
	model_plan_free(&m->unsol_plan);
	free(m->range);
	free(m->lines);
	free(m->entries);
	free(m->seen);
}

/* The table covers the buffer exactly once, as the model cuts it. */
static void model_check_entries(const struct model *m)
{
	u32 i, off = 0;

	for (i = 0; i < m->nr_entries; i++) {
		const struct ixt_dpt_entry *e = &m->entries[i];
		u64 want = model_line_room(m, off);

		if (off < m->g.unsol_len)
			want = min(want, m->g.unsol_len - off);
		else
			want = min3(want, m->g.max_burst -
				    (off - m->g.unsol_len) % m->g.max_burst,
				    m->g.xfer_len - off);
		want = min(want, m->g.xfer_len - off);
		if (!MEXPECT_EQ(e->offset, off) ||
		    !MEXPECT_EQ(e->length, want) ||
		    !MEXPECT_EQ(e->addr, model_addr(m, off)) ||
		    !MEXPECT_EQ(m->lines[e->line].addr +
			       (((u64)m->g.first_off + off) &
				((1ULL << m->g.line_shift) - 1)), e->addr))
			return;
		if (off < m->g.unsol_len)
			MEXPECT_TRUE(i < m->t.first_r2t);
		else
			MEXPECT_TRUE(i >= m->t.first_r2t);
		off += e->length;
	}
	MEXPECT_EQ(off, m->g.xfer_len);
}

/* Marks placed bytes, checking each piece against the lines. */
static void model_deliver(struct model *m, const struct ixt_dpt_place *p)
{
	struct ixt_dpt_piece pc;
	struct ixt_dpt_iter it;
	u32 b, total = 0;

	MEXPECT_EQ(p->addr, model_addr(m, p->offset));
	MEXPECT_EQ(p->contig, min(p->len, model_line_room(m, p->offset)));
	MASSERT_EQ(ixt_dpt_iter_init(&it, &m->t, p->offset, p->len), 0);
	while (ixt_dpt_iter_next(&it, &pc)) {
		MEXPECT_EQ(pc.offset, p->offset + total);
		MEXPECT_EQ(pc.addr, model_addr(m, pc.offset));
		MEXPECT_TRUE(pc.len <= model_line_room(m, pc.offset));
		MEXPECT_EQ(model_addr(m, pc.offset + pc.len - 1),
			   pc.addr + pc.len - 1);
		for (b = pc.offset; b < pc.offset + pc.len; b++)
			m->seen[b]++;
		total += pc.len;
	}
	MEXPECT_EQ(total, p->len);
}

/* Whether the model would accept a solicited Data-Out. */
static bool model_accepts(const struct model *m, u32 ttt, u32 offset,
			  u32 len, bool final)
{
	u32 i, j;

	for (i = 0; i < m->nr_r2t; i++) {
		const struct model_r2t *r = &m->r2t[i];

		if (r->ttt != ttt)
			continue;
		if (!len || offset < r->offset || (u64)offset + len > r->end)
			return false;
		if (final != (r->sent + len == r->end - r->offset))
			return false;
		if (!m->ooo)
			return offset == r->offset + r->sent;
		for (j = offset; j < offset + len; j++)
			if (m->seen[j])
				return false;
		return true;
	}
	return false;
}

/* Random Data-Outs near the valid ones: accepted exactly as the model says. */
static void model_fuzz_data_out(struct model *m)
{
	struct ixt_dpt_place p;
	u32 ttt, offset, len;
	bool final, want;
	int ret;

	if (m->nr_r2t && rng() % 4) {
		const struct model_r2t *r = &m->r2t[rng() % m->nr_r2t];

		ttt = r->ttt;
		if (rng() % 4 == 0)
			ttt ^= 1U << (rng() % 32);
		offset = r->plan.start[r->plan.next];
		if (rng() % 2)
			offset += (int)rng_range(0, 2 * 8192) - 8192;
		switch (rng() % 3) {
		case 0:
			len = r->end - offset + rng_range(0, 2) - 1;
			break;
		case 1:
			len = r->plan.len[r->plan.next] + rng_range(0, 2) - 1;
			break;
		default:
			len = rng_range(0, 16384);
		}
	} else {
		ttt = rng() % 2 ? (u32)rng() : ixt_dpt_ttt(&m->t, rng() %
							  (m->nr_entries + 1));
		offset = rng() % 2 ? (u32)rng() : rng_range(0, m->g.xfer_len);
		len = rng() % 2 ? (u32)rng() : rng_range(0, 16384);
	}
	final = rng() % 2;
	want = model_accepts(m, ttt, offset, len, final);
	ret = ixt_dpt_place(&m->t, ttt, offset, len, final, &p);
	if (!MEXPECT_EQ(ret, want ? 0 : -EPROTO))
		printf("#   Data-Out ttt %#x offset %#x len %#x final %d\n",
		       ttt, offset, len, final);
}

/* Ask for R2Ts until refused; check each against the model. */
static void model_get_r2ts(struct model *m)
{
	struct ixt_dpt_r2t r2t;
	u32 slot;
	int ret;

	while (!(ret = ixt_dpt_next_r2t(&m->t, &r2t))) {
		u64 want = min(m->g.max_burst, m->g.xfer_len - m->next_sol);
		struct model_r2t *r;

		MASSERT_TRUE(m->nr_r2t < m->g.max_r2t);
		MASSERT_EQ(r2t.offset, m->next_sol);
		MASSERT_EQ(r2t.length, want);
		MASSERT_TRUE(r2t.entry < m->nr_entries);
		MEXPECT_EQ(m->entries[r2t.entry].offset, r2t.offset);
		MEXPECT_EQ(r2t.ttt, ixt_dpt_ttt(&m->t, r2t.entry));
		MEXPECT_NE(r2t.ttt, IXT_DPT_TTT_RESERVED);
		MEXPECT_EQ(ixt_dpt_ttt_slot(r2t.ttt, IXT_DPT_MAX_SLOTS, &slot),
			   0);
		MEXPECT_EQ(slot, m->g.slot);
		r = &m->r2t[m->nr_r2t++];
		*r = (struct model_r2t) {
			.ttt = r2t.ttt,
			.offset = r2t.offset,
			.end = r2t.offset + r2t.length,
		};
		model_plan(m, &r->plan, r->offset, r->end, 0);
		m->next_sol += r2t.length;
		m->r2ts++;
	}
	if (m->next_sol == m->g.xfer_len)
		MEXPECT_EQ(ret, -ENODATA);
	else
		MEXPECT_EQ(ret, -EAGAIN);
	if (ret == -EAGAIN)
		MEXPECT_EQ(m->nr_r2t, m->g.max_r2t);
}

/* The next Data-Out of a random outstanding R2T. */
static void model_send_solicited(struct model *m)
{
	struct model_r2t *r = &m->r2t[rng() % m->nr_r2t];
	u32 offset = r->plan.start[r->plan.next];
	u32 len = r->plan.len[r->plan.next];
	bool final = r->plan.next + 1 == r->plan.nr;
	struct ixt_dpt_place p;

	MASSERT_EQ(ixt_dpt_place(&m->t, r->ttt, offset, len, !final, &p),
		   -EPROTO);
	if (r->plan.next)
		MASSERT_EQ(ixt_dpt_place(&m->t, r->ttt, r->plan.start[0],
					 r->plan.len[0], final, &p), -EPROTO);
	MASSERT_EQ(ixt_dpt_place(&m->t, r->ttt, offset, len, final, &p), 0);
	MEXPECT_TRUE(p.solicited);
	MEXPECT_EQ(ixt_dpt_ttt(&m->t, p.run), r->ttt);
	MEXPECT_EQ(m->entries[p.entry].offset <= offset &&
		   offset - m->entries[p.entry].offset <
		   m->entries[p.entry].length, true);
	model_deliver(m, &p);
	MASSERT_EQ(ixt_dpt_commit(&m->t, &p), 0);
	r->sent += len;
	r->plan.next++;
	if (final) {
		model_plan_free(&r->plan);
		*r = m->r2t[--m->nr_r2t];
	}
	MEXPECT_EQ(m->t.outstanding, m->nr_r2t);
}

/* The next unsolicited data: immediate data first, then Data-Outs. */
static void model_send_unsol(struct model *m)
{
	struct model_plan *pl = &m->unsol_plan;
	u32 offset = pl->start[pl->next], len = pl->len[pl->next];
	bool final = pl->next + 1 == pl->nr;
	struct ixt_dpt_place p;

	MASSERT_EQ(ixt_dpt_place_unsol(&m->t, offset, len, !final, &p),
		   -EPROTO);
	if (pl->next)
		MASSERT_EQ(ixt_dpt_place_unsol(&m->t, pl->start[0], pl->len[0],
					       final, &p), -EPROTO);
	MASSERT_EQ(ixt_dpt_place_unsol(&m->t, offset, len, final, &p), 0);
	MEXPECT_FALSE(p.solicited);
	model_deliver(m, &p);
	MASSERT_EQ(ixt_dpt_commit(&m->t, &p), 0);
	m->unsol_sent += len;
	pl->next++;
}

static void model_run(struct model *m)
{
	u32 b, received = 0, next_r2t = 0, stalled = 0;

	model_check_entries(m);
	while (!ixt_dpt_is_complete(&m->t) && !ixt_model_failed) {
		u64 r = rng() % 8;

		/* Each step has a fair chance to move things on. */
		if (m->t.received != received || m->t.next_r2t != next_r2t)
			stalled = 0;
		received = m->t.received;
		next_r2t = m->t.next_r2t;
		MASSERT_TRUE(++stalled < 1000);
		if (r == 0)
			model_fuzz_data_out(m);
		else if (r < 3 && m->unsol_sent < m->g.unsol_len)
			model_send_unsol(m);
		else if (r < 5 || !m->nr_r2t)
			model_get_r2ts(m);
		else
			model_send_solicited(m);
		MASSERT_TRUE(m->t.outstanding <= m->g.max_r2t);
		if (m->unsol_sent == m->g.unsol_len && !m->nr_r2t &&
		    m->next_sol == m->g.xfer_len)
			break;
	}
	if (ixt_model_failed)
		return;
	MEXPECT_TRUE(ixt_dpt_is_complete(&m->t));
	MEXPECT_EQ(m->next_sol, m->g.xfer_len);
	MEXPECT_EQ(m->r2ts, m->g.xfer_len == m->g.unsol_len ? 0 :
		   (m->g.xfer_len - m->g.unsol_len - 1) / m->g.max_burst + 1);
	for (b = 0; b < m->g.xfer_len; b++)
		if (!MEXPECT_EQ(m->seen[b], 1))
			break;
}

#endif /* _IXT_DPT_MODEL_H */
