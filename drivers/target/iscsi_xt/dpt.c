// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: the data-pointer table: a command's buffer as pieces of cache
 * lines, the R2Ts that solicit them a run of pieces each, and the checks
 * that place every byte an initiator sends inside its pieces or refuse it.
 *
 * Pure code (see dpt.h): errors are returned, never logged.
 */

#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/overflow.h>
#include <linux/types.h>

#include <iscsi_xt/dpt.h>
#include <iscsi_xt/holes.h>
#include <iscsi_xt/pdu.h>

/**
 * ixt_dpt_unsol_len() - how much of a write arrives unsolicited
 * @xfer_len: Expected Data Transfer Length of the command.
 * @imm_len: bytes of immediate data the command carries.
 * @final: the command's F bit: no unsolicited Data-Out PDU follows.
 * @lim: the session's ImmediateData, InitialR2T and FirstBurstLength.
 * @unsol_len: where to store the result. Left alone on error.
 *
 * With F set, the immediate data is all the unsolicited data. Without it
 * (InitialR2T=No), unsolicited Data-Out PDUs follow until the unsolicited
 * data, immediate data included, reaches FirstBurstLength or the whole
 * transfer, whichever is less (RFC 7143, "Unsolicited Data"). R2Ts solicit
 * the rest.
 *
 * Context: Any context.
 * Return: 0, or -EPROTO if the command breaks the negotiated rules:
 * immediate data not allowed or beyond either limit, unsolicited Data-Out
 * announced under InitialR2T=Yes or with no room left for it.
 */
int ixt_dpt_unsol_len(u32 xfer_len, u32 imm_len, bool final,
		      const struct ixt_pdu_limits *lim, u32 *unsol_len)
{
	u32 room = lim->first_burst_length;

	if (room > xfer_len)
		room = xfer_len;
	if (imm_len && (!lim->immediate_data || imm_len > room))
		return -EPROTO;
	if (final) {
		*unsol_len = imm_len;
		return 0;
	}
	if (lim->initial_r2t || imm_len == room)
		return -EPROTO;
	*unsol_len = room;
	return 0;
}

static int ixt_dpt_check_geom(const struct ixt_dpt_geom *g)
{
	if (g->line_shift < IXT_DPT_MIN_LINE_SHIFT ||
	    g->line_shift > IXT_DPT_MAX_LINE_SHIFT)
		return -EINVAL;
	if (g->first_off >> g->line_shift)
		return -EINVAL;
	if (!g->xfer_len || g->unsol_len > g->xfer_len)
		return -EINVAL;
	if (!g->max_burst || !g->max_r2t || g->slot >= IXT_DPT_MAX_SLOTS)
		return -EINVAL;
	return 0;
}

/*
 * Bytes of the next entry at buffer offset @off, @line_off into its line:
 * up to the end of the line, not across the unsolicited/solicited border,
 * and, when solicited, not across the end of its burst: the bursts are
 * MaxBurstLength each from the border on, one R2T each.
 */
static u32 ixt_dpt_entry_len(const struct ixt_dpt_geom *g, u32 off,
			     u64 line_off)
{
	u64 len = BIT_ULL(g->line_shift) - line_off;
	u32 border = off < g->unsol_len ? g->unsol_len : g->xfer_len;
	u32 burst_left;

	if (len > border - off)
		len = border - off;
	if (off >= g->unsol_len) {
		burst_left = g->max_burst - (off - g->unsol_len) % g->max_burst;
		if (len > burst_left)
			len = burst_left;
	}
	return len;
}

/*
 * Cuts the buffer into entries and returns how many there are, counting
 * no further than %IXT_DPT_MAX_ENTRIES + 1. Fills @entries when given:
 * the caller has checked that it has room for all of them.
 */
static u32 ixt_dpt_layout(const struct ixt_dpt_geom *g,
			  const struct ixt_dpt_line *lines,
			  struct ixt_dpt_entry *entries)
{
	u64 line_off = g->first_off;
	u32 off = 0, line = 0, n = 0;

	while (off < g->xfer_len && n <= IXT_DPT_MAX_ENTRIES) {
		u32 len = ixt_dpt_entry_len(g, off, line_off);

		if (entries) {
			entries[n].addr = lines[line].addr + line_off;
			entries[n].offset = off;
			entries[n].length = len;
			entries[n].received = 0;
			entries[n].line = line;
		}
		n++;
		off += len;
		line_off += len;
		if (line_off >> g->line_shift) {
			line++;
			line_off = 0;
		}
	}
	return n;
}

/**
 * ixt_dpt_count() - how many lines and entries a command's table needs
 * @g: the layout of the buffer.
 * @nr_lines: where to store the number of cache lines the buffer touches.
 * @nr_entries: where to store the number of entries of its table.
 *
 * Both are left alone on error. The caller takes @nr_lines lines from the
 * pool and an array of @nr_entries &struct ixt_dpt_entry, then calls
 * ixt_dpt_init().
 *
 * Context: Any context. Takes time linear in the number of entries.
 * Return: 0, -EINVAL if @g is not a valid layout, or -E2BIG if the buffer
 * needs more than %IXT_DPT_MAX_ENTRIES entries.
 */
int ixt_dpt_count(const struct ixt_dpt_geom *g, u32 *nr_lines,
		  u32 *nr_entries)
{
	u32 n;
	int ret;

	ret = ixt_dpt_check_geom(g);
	if (ret)
		return ret;
	n = ixt_dpt_layout(g, NULL, NULL);
	if (n > IXT_DPT_MAX_ENTRIES)
		return -E2BIG;
	*nr_lines = (((u64)g->first_off + g->xfer_len - 1) >> g->line_shift) + 1;
	*nr_entries = n;
	return 0;
}

/**
 * ixt_dpt_init() - set up the data-pointer table of a command
 * @t: the table to set up.
 * @g: the layout of the buffer.
 * @lines: the cache lines of the buffer, in buffer order; they must stay
 *	as they are while @t is in use.
 * @nr_lines: number of @lines, as ixt_dpt_count() gave it.
 * @entries: room for the entries; it must stay valid while @t is in use.
 * @nr_entries: number of @entries, as ixt_dpt_count() gave it.
 * @ranges: with DataPDUInOrder=No, a byte-range tracker set up by
 *	ixt_ranges_init() for @g->xfer_len bytes and still empty, which
 *	must stay valid while @t is in use; %NULL with DataPDUInOrder=Yes.
 *	Its bound on islands bounds how scattered the data may arrive.
 *
 * Context: Any context. Takes time linear in the number of entries.
 * Return: 0, or as ixt_dpt_count(); also -EINVAL if @nr_lines or
 * @nr_entries is not what @g needs, if a line's address plus the line
 * size does not fit in 64 bits, or if @ranges is missing, not wanted,
 * not empty or not sized for the buffer.
 */
int ixt_dpt_init(struct ixt_dpt *t, const struct ixt_dpt_geom *g,
		 const struct ixt_dpt_line *lines, u32 nr_lines,
		 struct ixt_dpt_entry *entries, u32 nr_entries,
		 struct ixt_ranges *ranges)
{
	u32 want_lines, want_entries, i;
	u64 end;
	int ret;

	ret = ixt_dpt_count(g, &want_lines, &want_entries);
	if (ret)
		return ret;
	if (nr_lines != want_lines || nr_entries != want_entries)
		return -EINVAL;
	if (g->data_pdu_in_order ? !!ranges :
	    !ranges || ranges->total != g->xfer_len || ranges->received)
		return -EINVAL;
	for (i = 0; i < nr_lines; i++)
		if (check_add_overflow(lines[i].addr, BIT_ULL(g->line_shift),
				       &end))
			return -EINVAL;

	ixt_dpt_layout(g, lines, entries);
	*t = (struct ixt_dpt) {
		.lines = lines,
		.entries = entries,
		.ranges = ranges,
		.nr_lines = nr_lines,
		.nr_entries = nr_entries,
		.xfer_len = g->xfer_len,
		.first_off = g->first_off,
		.unsol_len = g->unsol_len,
		.max_burst = g->max_burst,
		.max_r2t = g->max_r2t,
		.slot = g->slot,
		.ttt_base = g->ttt_base,
		.line_shift = g->line_shift,
	};
	/* An entry ends exactly at @unsol_len: the solicited ones follow. */
	t->first_r2t = nr_entries;
	for (i = 0; i < nr_entries; i++) {
		if (entries[i].offset >= g->unsol_len) {
			t->first_r2t = i;
			break;
		}
	}
	t->next_r2t = t->first_r2t;
	return 0;
}

/**
 * ixt_dpt_ttt_slot() - the command slot a Target Transfer Tag names
 * @ttt: the tag, from a Data-Out PDU.
 * @nr_slots: size of the caller's command table, at most
 *	%IXT_DPT_MAX_SLOTS.
 * @slot: where to store the slot. Left alone on error.
 *
 * The first half of the lookup of a Data-Out: the caller finds the command
 * in slot @slot and hands the tag on to ixt_dpt_place(), which checks the
 * rest of it against that command's table.
 *
 * Context: Any context.
 * Return: 0, or -EPROTO if the tag is the reserved one or its slot is not
 * below @nr_slots.
 */
int ixt_dpt_ttt_slot(u32 ttt, u32 nr_slots, u32 *slot)
{
	u32 s = ttt & IXT_DPT_TTT_SLOT_MASK;

	/* The reserved tag has the all-ones slot, which is never used. */
	if (s >= nr_slots || s >= IXT_DPT_MAX_SLOTS)
		return -EPROTO;
	*slot = s;
	return 0;
}

/* Where the byte at buffer offset @offset lies; @offset < @t->xfer_len. */
static void ixt_dpt_locate(const struct ixt_dpt *t, u32 offset,
			   struct ixt_dpt_piece *pc)
{
	u64 pos = (u64)t->first_off + offset;

	pc->offset = offset;
	pc->line = pos >> t->line_shift;
	pc->line_off = pos & (BIT_ULL(t->line_shift) - 1);
	pc->addr = t->lines[pc->line].addr + pc->line_off;
}

/* Index of the line that holds the byte at buffer offset @offset. */
static u32 ixt_dpt_line_of(const struct ixt_dpt *t, u32 offset)
{
	return ((u64)t->first_off + offset) >> t->line_shift;
}

/*
 * End of the burst that starts at solicited offset @start: MaxBurstLength
 * on, or the end of the buffer.
 */
static u32 ixt_dpt_run_end(const struct ixt_dpt *t, u32 start)
{
	u64 end = (u64)start + t->max_burst;

	return end < t->xfer_len ? end : t->xfer_len;
}

/**
 * ixt_dpt_next_r2t() - the next R2T of a command
 * @t: the table.
 * @r2t: where to store the R2T. Left alone on error.
 *
 * R2Ts solicit the entries from @t->first_r2t on, in buffer order, a run
 * of entries each: one burst of MaxBurstLength bytes (the last one
 * shorter), over as many lines as it touches. At most MaxOutstandingR2T of
 * them are outstanding: an R2T stops being so when the last byte of its
 * run is committed. Call it again after each commit that completes a run.
 *
 * Context: Any context.
 * Return: 0 with @r2t filled in, -EAGAIN if MaxOutstandingR2T R2Ts are
 * outstanding, or -ENODATA if every entry has been solicited.
 */
int ixt_dpt_next_r2t(struct ixt_dpt *t, struct ixt_dpt_r2t *r2t)
{
	const struct ixt_dpt_entry *e;
	u32 end;

	if (t->next_r2t >= t->nr_entries)
		return -ENODATA;
	if (t->outstanding >= t->max_r2t)
		return -EAGAIN;
	e = &t->entries[t->next_r2t];
	end = ixt_dpt_run_end(t, e->offset);
	r2t->ttt = ixt_dpt_ttt(t, t->next_r2t);
	r2t->offset = e->offset;
	r2t->length = end - e->offset;
	r2t->entry = t->next_r2t;
	/* Inside a run, entries are cut at line boundaries only. */
	t->next_r2t += ixt_dpt_line_of(t, end - 1) - e->line + 1;
	t->outstanding++;
	return 0;
}

/* Whether none of [@offset, @offset + @len) has arrived yet (out of order). */
static bool ixt_dpt_fresh(const struct ixt_dpt *t, u32 offset, u32 len)
{
	u32 hole, hole_len;

	return ixt_ranges_hole(t->ranges, offset, &hole, &hole_len) &&
	       hole == offset && hole_len >= len;
}

/* Whether a byte of [@from, @to) has not arrived yet (out of order). */
static bool ixt_dpt_missing(const struct ixt_dpt *t, u32 from, u32 to)
{
	u32 hole, hole_len;

	return from < to &&
	       ixt_ranges_hole(t->ranges, from, &hole, &hole_len) && hole < to;
}

/*
 * The placement of @len bytes from the byte @pc locates on, in @entry and,
 * solicited (@entry past the unsolicited ones), in the run of R2T @run.
 */
static void ixt_dpt_set_place(const struct ixt_dpt *t,
			      const struct ixt_dpt_piece *pc, u32 len,
			      u32 entry, u32 run, struct ixt_dpt_place *p)
{
	u64 room = BIT_ULL(t->line_shift) - pc->line_off;

	*p = (struct ixt_dpt_place) {
		.addr = pc->addr,
		.offset = pc->offset,
		.len = len,
		.contig = room < len ? room : len,
		.line = pc->line,
		.line_off = pc->line_off,
		.entry = entry,
		.run = run,
		.solicited = entry >= t->first_r2t,
	};
}

/**
 * ixt_dpt_place() - check a solicited Data-Out and find where it goes
 * @t: the table of the command its tag names (see ixt_dpt_ttt_slot()).
 * @ttt: its Target Transfer Tag.
 * @offset: its Buffer Offset.
 * @len: its DataSegmentLength.
 * @final: its F bit.
 * @p: where to store the placement. Left alone on error.
 *
 * The run comes straight from the tag, and the entry of @offset from the
 * run's first entry and the lines between them: O(1). The data must lie
 * inside that run, be the next bytes of it (DataPDUInOrder=Yes) or bytes
 * of it not received yet (DataPDUInOrder=No), and complete it exactly
 * when @final is set: the F bit marks the last PDU sent for the R2T, and
 * one connection delivers it last. It may cross lines: @p->contig bytes
 * go to @p->addr, and ixt_dpt_iter_init() on @offset and @len walks all
 * the pieces. Nothing changes until ixt_dpt_commit(): the caller receives
 * the @len bytes, then commits them.
 *
 * Context: Any context.
 * Return: 0, or -EPROTO if the tag names another slot, not the first
 * entry of a run solicited by an R2T sent so far, or the data is empty,
 * out of order, outside the run, a duplicate, or its F bit is wrong.
 */
int ixt_dpt_place(const struct ixt_dpt *t, u32 ttt, u32 offset, u32 len,
		  bool final, struct ixt_dpt_place *p)
{
	const struct ixt_dpt_entry *r, *e;
	struct ixt_dpt_piece pc;
	u32 run, idx, end, run_end;
	bool last;

	if ((ttt & IXT_DPT_TTT_SLOT_MASK) != t->slot)
		return -EPROTO;
	run = ((ttt >> IXT_DPT_TTT_SLOT_BITS) - t->ttt_base) &
	      IXT_DPT_TTT_ENTRY_MASK;
	if (run < t->first_r2t || run >= t->next_r2t)
		return -EPROTO;
	r = &t->entries[run];
	if ((r->offset - t->unsol_len) % t->max_burst)
		return -EPROTO;
	run_end = ixt_dpt_run_end(t, r->offset);
	if (!len || check_add_overflow(offset, len, &end))
		return -EPROTO;
	if (offset < r->offset || end > run_end)
		return -EPROTO;
	ixt_dpt_locate(t, offset, &pc);
	idx = run + pc.line - r->line;
	e = &t->entries[idx];
	if (t->ranges) {
		if (!ixt_dpt_fresh(t, offset, len))
			return -EPROTO;
		/* This data is all the run misses. */
		last = !ixt_dpt_missing(t, r->offset, offset) &&
		       !ixt_dpt_missing(t, end, run_end);
	} else {
		/* The entries of the run before this one are full. */
		if (offset != e->offset + e->received ||
		    (idx > run && !e->received &&
		     e[-1].received != e[-1].length))
			return -EPROTO;
		last = end == run_end;
	}
	if (final != last)
		return -EPROTO;

	ixt_dpt_set_place(t, &pc, len, idx, run, p);
	return 0;
}

/**
 * ixt_dpt_place_unsol() - check unsolicited data and find where it goes
 * @t: the table.
 * @offset: Buffer Offset of the data: 0 for immediate data.
 * @len: bytes of data.
 * @final: the data ends the unsolicited data: the F bit of an unsolicited
 *	Data-Out, or the command's own F bit for immediate data.
 * @p: where to store the placement. Left alone on error.
 *
 * Immediate data and unsolicited Data-Out PDUs (tag %IXT_DPT_TTT_RESERVED)
 * fill [0, @t->unsol_len): in order with DataPDUInOrder=Yes, each byte
 * once in any order with No, the last PDU sent with @final set. The data
 * may cross lines, as for ixt_dpt_place(), and ixt_dpt_commit() follows.
 * The unsolicited entries are one per line, so the line of @offset is its
 * entry: O(1).
 *
 * Context: Any context.
 * Return: 0, or -EPROTO if the data is empty, out of order, beyond the
 * unsolicited data, a duplicate, or @final is wrong.
 */
int ixt_dpt_place_unsol(const struct ixt_dpt *t, u32 offset, u32 len,
			bool final, struct ixt_dpt_place *p)
{
	struct ixt_dpt_piece pc;
	u32 end;
	bool last;

	if (!len || check_add_overflow(offset, len, &end))
		return -EPROTO;
	if (end > t->unsol_len)
		return -EPROTO;
	if (t->ranges ? !ixt_dpt_fresh(t, offset, len) :
	    offset != t->unsol_received)
		return -EPROTO;
	last = t->unsol_received + len == t->unsol_len;
	if (final != last)
		return -EPROTO;

	ixt_dpt_locate(t, offset, &pc);
	/* The unsolicited entries are one per line. */
	ixt_dpt_set_place(t, &pc, len, pc.line, 0, p);
	return 0;
}

/* Counts @len bytes from buffer offset @pos on into @e and the entries after. */
static void ixt_dpt_fill(struct ixt_dpt_entry *e, u32 pos, u32 len)
{
	for (;;) {
		u32 n = e->offset + e->length - pos;

		if (n > len)
			n = len;
		e->received += n;
		pos += n;
		len -= n;
		if (!len)
			return;
		e++;
	}
}

/*
 * Checks that a placement is one ixt_dpt_place() or ixt_dpt_place_unsol()
 * could have given: its entry, its run and its bytes inside the end of
 * what it may fill (its run, or the unsolicited data), returned in @limit.
 */
static int ixt_dpt_check_place(const struct ixt_dpt *t,
			       const struct ixt_dpt_place *p, u32 *limit)
{
	const struct ixt_dpt_entry *e;
	bool solicited = p->entry >= t->first_r2t;

	if (p->entry >= t->nr_entries || p->solicited != solicited || !p->len)
		return -EINVAL;
	e = &t->entries[p->entry];
	if (p->offset - e->offset >= e->length)
		return -EINVAL;
	if (!solicited) {
		*limit = t->unsol_len;
	} else {
		if (p->run < t->first_r2t || p->run >= t->next_r2t ||
		    p->run > p->entry)
			return -EINVAL;
		*limit = ixt_dpt_run_end(t, t->entries[p->run].offset);
	}
	if (p->offset >= *limit || p->len > *limit - p->offset)
		return -EINVAL;
	return 0;
}

/**
 * ixt_dpt_commit() - record that placed data has arrived
 * @t: the table.
 * @p: the placement, from ixt_dpt_place() or ixt_dpt_place_unsol() on @t
 *	with nothing committed on @t since.
 *
 * Counts the bytes in their entries (and, with DataPDUInOrder=No, in the
 * byte-range tracker). When a solicited run is complete, its R2T stops
 * being outstanding: ixt_dpt_next_r2t() may give the next.
 *
 * Context: Any context.
 * Return: 0; -ENOSPC if the byte-range tracker holds as many islands as it
 * may and these bytes would make one more (the data is too scattered: a
 * protocol error for the caller); or -EINVAL (and a warning: a caller
 * bug) if @p is not the placement of bytes the table expects.
 */
int ixt_dpt_commit(struct ixt_dpt *t, const struct ixt_dpt_place *p)
{
	struct ixt_dpt_entry *e;
	u32 limit, start;
	bool done;
	int ret;

	if (WARN_ON_ONCE(ixt_dpt_check_place(t, p, &limit)))
		return -EINVAL;
	e = &t->entries[p->entry];
	if (t->ranges) {
		ret = ixt_ranges_add(t->ranges, p->offset, p->len);
		if (ret == -ENOSPC)
			return ret;
		if (WARN_ON_ONCE(ret))
			return -EINVAL;
	} else if (WARN_ON_ONCE(p->offset != e->offset + e->received ||
				(!p->solicited &&
				 p->offset != t->unsol_received))) {
		return -EINVAL;
	}

	ixt_dpt_fill(e, p->offset, p->len);
	t->received += p->len;
	if (!p->solicited) {
		t->unsol_received += p->len;
		return 0;
	}
	start = t->entries[p->run].offset;
	done = t->ranges ? !ixt_dpt_missing(t, start, limit) :
			   p->offset + p->len == limit;
	if (done)
		t->outstanding--;
	return 0;
}

/**
 * ixt_dpt_iter_init() - start a walk over a byte range of a buffer
 * @it: the iterator.
 * @t: the table.
 * @offset: buffer offset of the first byte.
 * @len: bytes to walk; 0 gives an empty walk.
 *
 * ixt_dpt_iter_next() then gives the range as pieces, one per line, in
 * buffer order: the scatter-gather list of the range, or the destinations
 * of data that crosses lines.
 *
 * Context: Any context.
 * Return: 0, or -EPROTO if the range does not lie inside the buffer.
 */
int ixt_dpt_iter_init(struct ixt_dpt_iter *it, const struct ixt_dpt *t,
		      u32 offset, u32 len)
{
	u32 end;

	if (check_add_overflow(offset, len, &end) || end > t->xfer_len)
		return -EPROTO;
	*it = (struct ixt_dpt_iter) {
		.t = t,
		.offset = offset,
		.left = len,
	};
	return 0;
}

/**
 * ixt_dpt_iter_next() - the next piece of a walk
 * @it: the iterator, from ixt_dpt_iter_init().
 * @pc: where to store the piece.
 *
 * Context: Any context.
 * Return: true with @pc filled in, false when the walk is over.
 */
bool ixt_dpt_iter_next(struct ixt_dpt_iter *it, struct ixt_dpt_piece *pc)
{
	u64 room;

	if (!it->left)
		return false;
	ixt_dpt_locate(it->t, it->offset, pc);
	room = BIT_ULL(it->t->line_shift) - pc->line_off;
	pc->len = room < it->left ? room : it->left;
	it->offset += pc->len;
	it->left -= pc->len;
	return true;
}

/**
 * ixt_dpt_nr_pieces() - how many pieces a walk gives
 * @t: the table.
 * @offset: buffer offset of the first byte.
 * @len: bytes to walk.
 *
 * To size a scatter-gather list before the walk.
 *
 * Context: Any context.
 * Return: the number of pieces ixt_dpt_iter_next() gives for the range,
 * or 0 if it is empty or does not lie inside the buffer.
 */
u32 ixt_dpt_nr_pieces(const struct ixt_dpt *t, u32 offset, u32 len)
{
	u64 first = (u64)t->first_off + offset;
	u32 end;

	if (!len || check_add_overflow(offset, len, &end) || end > t->xfer_len)
		return 0;
	return ((first + len - 1) >> t->line_shift) -
	       (first >> t->line_shift) + 1;
}
