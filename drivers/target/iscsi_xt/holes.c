// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: in-order delivery per hole: a sequence-number queue that holds
 * early items behind their hole and releases one batch per closed hole
 * (CmdSN per session, in cmdsn.c), and a byte-range tracker for Data-Out
 * that arrives in any order.
 *
 * Pure code (see holes.h): errors are returned, never logged.
 */

#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/overflow.h>
#include <linux/string.h>
#include <linux/types.h>

#include <iscsi_xt/holes.h>
#include <iscsi_xt/pdu.h>

/*
 * A run is shorter than the ring, which leaves room for its hole: its
 * per-kind counts fit in the u16 of struct ixt_snq_node.
 */
static_assert(IXT_SNQ_MAX_SLOTS - 1 <= (u16)~0U);

/*
 * The ring covers [q->next, q->next + q->nr_slots): ready nodes in
 * [next, expected), held ones after. Index of @sn, which must be in it.
 */
static u32 ixt_snq_index(const struct ixt_snq *q, u32 sn)
{
	u32 i = q->head + (sn - q->next);

	return i < q->nr_slots ? i : i - q->nr_slots;
}

/* The node held with number @sn, or NULL if none is (or it can't be). */
static struct ixt_snq_node *ixt_snq_held_at(const struct ixt_snq *q, u32 sn)
{
	if (sn - q->expected >= q->nr_slots - ixt_snq_ready(q))
		return NULL;
	return q->slot[ixt_snq_index(q, sn)];
}

/**
 * ixt_snq_init() - initialise a sequence-number queue
 * @q: the queue.
 * @slot: the ring: an array of @nr_slots pointers that the queue uses
 *	until it is no longer needed; its contents do not matter.
 * @nr_slots: how many nodes the queue may hold, ready ones not popped yet
 *	included: 1..%IXT_SNQ_MAX_SLOTS, e.g. the session's queue depth.
 * @first: the first number expected, e.g. ExpCmdSN after login.
 *
 * The queue starts without a window: only @nr_slots bounds it. Nodes
 * still in the ring are forgotten: ixt_snq_flush() them first.
 *
 * Context: Any context. Clears the ring, O(@nr_slots).
 * Return: 0, or -EINVAL (and a warning: a caller bug) if @nr_slots is out
 * of range.
 */
int ixt_snq_init(struct ixt_snq *q, struct ixt_snq_node **slot,
		 u32 nr_slots, u32 first)
{
	if (WARN_ON_ONCE(!nr_slots || nr_slots > IXT_SNQ_MAX_SLOTS))
		return -EINVAL;
	memset(slot, 0, nr_slots * sizeof(*slot));
	*q = (struct ixt_snq) {
		.slot = slot,
		.nr_slots = nr_slots,
		.next = first,
		.expected = first,
	};
	return 0;
}

/**
 * ixt_snq_set_max() - set the last number of the window
 * @q: the queue.
 * @max: the last number accepted, e.g. MaxCmdSN. ixt_snq_expected() - 1
 *	closes the window.
 *
 * From now on numbers after @max are refused with -ERANGE. The window
 * [ixt_snq_expected(), @max] may not hold more numbers than the ring, so
 * that every number in it fits: size the ring for the largest window. A
 * @max before the current one changes nothing: an initiator ignores such a
 * MaxCmdSN (RFC 7143, 4.2.2.1) and may still send up to the current one.
 * The first call must come before any node is held: held nodes were
 * accepted without a window and could lie after @max.
 *
 * Context: Any context; under the queue's lock.
 * Return: 0, or -EINVAL (and a warning: a caller bug) if the window would
 * be larger than the ring, if it is the first window and @max is before
 * ixt_snq_expected() - 1 or nodes are held; the window is then unchanged.
 */
int ixt_snq_set_max(struct ixt_snq *q, u32 max)
{
	if (q->windowed && ixt_sn_lt(max, q->max))
		return 0;
	if (WARN_ON_ONCE(max + 1 - q->expected > q->nr_slots))
		return -EINVAL;
	if (WARN_ON_ONCE(!q->windowed && q->nr_held))
		return -EINVAL;
	q->max = max;
	q->windowed = true;
	return 0;
}

/* Refuses, and counts, a number outside the window, the ring or seen. */
static int ixt_snq_check(struct ixt_snq *q, u32 sn)
{
	if (ixt_sn_lt(sn, q->expected)) {
		q->stats.old++;
		return -EALREADY;
	}
	/* The window holds max + 1 - expected numbers, 0..nr_slots. */
	if (q->windowed && sn - q->expected >= q->max + 1 - q->expected) {
		q->stats.beyond++;
		return -ERANGE;
	}
	if (sn - q->next >= q->nr_slots) {
		q->stats.full++;
		return -ENOSPC;
	}
	if (q->slot[ixt_snq_index(q, sn)]) {
		q->stats.dup++;
		return -EEXIST;
	}
	return 0;
}

/*
 * Holds @node, already in its slot, behind its hole: it joins the run that
 * ends right before it, the one that starts right after it, both (the hole
 * between them closes) or neither (a new hole opens before it). The first
 * node of the joined run keeps the counts and the number of the last, and
 * the last the number of the first.
 */
static void ixt_snq_hold(struct ixt_snq *q, struct ixt_snq_node *node)
{
	struct ixt_snq_node *left = ixt_snq_held_at(q, node->sn - 1);
	struct ixt_snq_node *right = ixt_snq_held_at(q, node->sn + 1);
	struct ixt_snq_node *first, *last;
	unsigned int k;

	first = left ? q->slot[ixt_snq_index(q, left->end)] : node;
	last = right ? q->slot[ixt_snq_index(q, right->end)] : node;

	if (first == node)
		memset(node->count, 0, sizeof(node->count));
	if (right) {
		for (k = 0; k < IXT_SNQ_NR_KINDS; k++)
			first->count[k] += right->count[k];
	}
	first->count[node->kind]++;
	first->end = last->sn;
	last->end = first->sn;

	if (!left && !right)
		q->nr_holes++;
	else if (left && right)
		q->nr_holes--;
	q->nr_held++;
}

/*
 * @node, already in its slot, is the one the queue waited for: it and the
 * run held right behind it, if any, become ready as one batch.
 */
static u32 ixt_snq_release(struct ixt_snq *q, struct ixt_snq_node *node,
			   struct ixt_snq_batch *batch)
{
	struct ixt_snq_node *run = ixt_snq_held_at(q, node->sn + 1);
	u32 nr = 1;
	unsigned int k;

	if (batch) {
		batch->first = node->sn;
		batch->count[node->kind] = 1;
	}
	if (run) {
		nr += run->end - run->sn + 1;
		q->nr_held -= nr - 1;
		q->nr_holes--;
		for (k = 0; batch && k < IXT_SNQ_NR_KINDS; k++)
			batch->count[k] += run->count[k];
	}
	q->expected += nr;
	if (batch)
		batch->nr = nr;
	return nr;
}

/**
 * ixt_snq_insert() - insert a node, releasing what became contiguous
 * @q: the queue.
 * @node: the node, embedded in the caller's object; not in any queue.
 * @sn: its serial number.
 * @kind: its kind, below %IXT_SNQ_NR_KINDS: what the per-hole counters
 *	count it as.
 * @batch: where to describe what became ready, or %NULL. Zeroed when
 *	nothing did.
 *
 * If @sn is ixt_snq_expected(), @node and every node held in the run
 * right behind it become ready, in order, for ixt_snq_pop(): the hole they
 * waited behind is closed. If @sn is later, @node is held. A refused
 * @node is not touched and stays the caller's; the refusal is counted in
 * @q->stats (RFC 7143: a command outside the CmdSN window is ignored).
 *
 * Context: Any context; under the queue's lock.
 * Return: the number of nodes that became ready (1 plus those held behind
 * the closed hole), 0 if @node is held, or a negative errno:
 * -EALREADY if @sn was received before (or is before the window),
 * -ERANGE if it is after the window, -EEXIST if a node with @sn is held,
 * -ENOSPC if @sn does not fit in the ring (the hard bound),
 * -EINVAL (and a warning: a caller bug) if @kind is out of range.
 */
int ixt_snq_insert(struct ixt_snq *q, struct ixt_snq_node *node, u32 sn,
		   unsigned int kind, struct ixt_snq_batch *batch)
{
	int ret;

	if (batch)
		memset(batch, 0, sizeof(*batch));
	if (WARN_ON_ONCE(kind >= IXT_SNQ_NR_KINDS))
		return -EINVAL;
	ret = ixt_snq_check(q, sn);
	if (ret)
		return ret;

	node->sn = sn;
	node->kind = kind;
	q->slot[ixt_snq_index(q, sn)] = node;
	if (sn != q->expected) {
		ixt_snq_hold(q, node);
		return 0;
	}
	return ixt_snq_release(q, node, batch);
}

/**
 * ixt_snq_find() - the node held with a number
 * @q: the queue.
 * @sn: the number.
 *
 * Finds a request held behind a hole, e.g. the task an ABORT TASK names
 * by its RefCmdSN. The node stays in the queue.
 *
 * Context: Any context; under the queue's lock. O(1).
 * Return: the node held with @sn, or %NULL if @sn is not held: missing,
 * ready or popped, or out of the ring.
 */
struct ixt_snq_node *ixt_snq_find(const struct ixt_snq *q, u32 sn)
{
	return ixt_snq_held_at(q, sn);
}

/**
 * ixt_snq_pop() - take the next ready node
 * @q: the queue.
 *
 * Pop every ready node before the lock is dropped, to hand them on in
 * order: ready nodes take ring slots until they are popped.
 *
 * Context: Any context; under the queue's lock.
 * Return: the ready node with the lowest number, now the caller's again,
 * or %NULL if none is ready.
 */
struct ixt_snq_node *ixt_snq_pop(struct ixt_snq *q)
{
	struct ixt_snq_node *node;

	if (q->next == q->expected)
		return NULL;
	node = q->slot[q->head];
	q->slot[q->head] = NULL;
	if (++q->head == q->nr_slots)
		q->head = 0;
	q->next++;
	return node;
}

/**
 * ixt_snq_flush() - take any node, for teardown
 * @q: the queue.
 *
 * Returns the ready nodes, then the held ones, in order; call it until it
 * returns %NULL to empty the queue, e.g. when the session ends. When no
 * node is ready, the first hole is skipped, as if its numbers had been
 * received: ixt_snq_expected() moves past it and past the run behind it.
 * The queue stays consistent and usable.
 *
 * Context: Any context; under the queue's lock. Emptying a queue scans
 * its ring once, O(@nr_slots).
 * Return: a node, now the caller's again, or %NULL if the queue is empty.
 */
struct ixt_snq_node *ixt_snq_flush(struct ixt_snq *q)
{
	struct ixt_snq_hole hole;

	if (!ixt_snq_ready(q) && ixt_snq_hole_first(q, &hole)) {
		q->head = ixt_snq_index(q, hole.first + hole.missing);
		q->next = hole.first + hole.missing;
		q->expected = q->next + hole.held;
		q->nr_held -= hole.held;
		q->nr_holes--;
	}
	return ixt_snq_pop(q);
}

/*
 * Describes the hole that starts at @sn, in the held part of the ring and
 * not in a run, if a run follows it.
 */
static bool ixt_snq_hole_at(const struct ixt_snq *q, u32 sn,
			    struct ixt_snq_hole *hole)
{
	u32 room = q->nr_slots - ixt_snq_ready(q);
	struct ixt_snq_node *run = NULL;
	u32 d = sn - q->expected;
	unsigned int k;

	if (!q->nr_held)
		return false;
	for (; d < room; d++) {
		run = q->slot[ixt_snq_index(q, q->expected + d)];
		if (run)
			break;
	}
	if (!run)
		return false;
	hole->first = sn;
	hole->missing = run->sn - sn;
	hole->held = run->end - run->sn + 1;
	for (k = 0; k < IXT_SNQ_NR_KINDS; k++)
		hole->count[k] = run->count[k];
	return true;
}

/**
 * ixt_snq_hole_first() - describe the first hole of a queue
 * @q: the queue.
 * @hole: where to describe it.
 *
 * The first hole starts at ixt_snq_expected(); it is the one whose closing
 * releases a batch, @hole->held + 1 nodes. For diagnostics and configfs,
 * not for the data path: it scans the ring up to the first held node.
 *
 * Context: Any context; under the queue's lock.
 * Return: true if @q holds nodes and @hole describes the first hole, false
 * if nothing is held (@hole is then untouched).
 */
bool ixt_snq_hole_first(const struct ixt_snq *q, struct ixt_snq_hole *hole)
{
	return ixt_snq_hole_at(q, q->expected, hole);
}

/**
 * ixt_snq_hole_next() - describe the hole after another
 * @q: the queue, unchanged since @hole was filled in.
 * @hole: a hole from ixt_snq_hole_first() or ixt_snq_hole_next(),
 *	replaced with the next one.
 *
 * Walking all holes this way scans the ring once.
 *
 * Context: Any context; under the queue's lock.
 * Return: true if there is a next hole and @hole now describes it, false
 * if @hole was the last (@hole is then untouched).
 */
bool ixt_snq_hole_next(const struct ixt_snq *q, struct ixt_snq_hole *hole)
{
	return ixt_snq_hole_at(q, hole->first + hole->missing + hole->held,
			       hole);
}

/**
 * ixt_ranges_init() - initialise a byte-range tracker
 * @rs: the tracker.
 * @range: an array of @max islands the tracker uses until it is no longer
 *	needed; its contents do not matter.
 * @max: the most islands of received bytes the tracker may hold, at
 *	least 1.
 * @total: the number of bytes expected; 0 makes a complete tracker.
 *
 * Context: Any context.
 * Return: 0, or -EINVAL (and a warning: a caller bug) if @max is 0.
 */
int ixt_ranges_init(struct ixt_ranges *rs, struct ixt_range *range, u32 max,
		    u32 total)
{
	if (WARN_ON_ONCE(!max))
		return -EINVAL;
	*rs = (struct ixt_ranges) {
		.range = range,
		.max = max,
		.total = total,
	};
	return 0;
}

/* Index of the first island that starts after @offset (binary search). */
static u32 ixt_ranges_after(const struct ixt_ranges *rs, u32 offset)
{
	u32 lo = 0, hi = rs->nr;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (rs->range[mid].start > offset)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * Records [offset, end), known to be in [0, total), not empty, and to
 * start at or after the start of the last island. The common case of
 * in-order data: O(1).
 */
static int ixt_ranges_add_tail(struct ixt_ranges *rs, u32 offset, u32 end)
{
	struct ixt_range *last = &rs->range[rs->nr - 1];

	if (offset < last->end)
		return -EPROTO;
	if (offset == last->end) {
		last->end = end;
		return 0;
	}
	if (rs->nr == rs->max)
		return -ENOSPC;
	rs->range[rs->nr++] = (struct ixt_range) { offset, end };
	return 0;
}

/*
 * Records [offset, end), known to be in [0, total) and not empty, between
 * the islands i - 1 and i: it extends either, merges both, or becomes a
 * new island i.
 */
static int ixt_ranges_add_at(struct ixt_ranges *rs, u32 i, u32 offset,
			     u32 end)
{
	struct ixt_range *left = i ? &rs->range[i - 1] : NULL;
	struct ixt_range *right = i < rs->nr ? &rs->range[i] : NULL;
	bool join_left, join_right;

	if ((left && offset < left->end) || (right && end > right->start))
		return -EPROTO;
	join_left = left && offset == left->end;
	join_right = right && end == right->start;

	if (join_left && join_right) {
		left->end = right->end;
		memmove(right, right + 1,
			(rs->nr - i - 1) * sizeof(rs->range[0]));
		rs->nr--;
	} else if (join_left) {
		left->end = end;
	} else if (join_right) {
		right->start = offset;
	} else {
		if (rs->nr == rs->max)
			return -ENOSPC;
		memmove(&rs->range[i + 1], &rs->range[i],
			(rs->nr - i) * sizeof(rs->range[0]));
		rs->range[i] = (struct ixt_range) { offset, end };
		rs->nr++;
	}
	return 0;
}

/**
 * ixt_ranges_add() - record a range of received bytes
 * @rs: the tracker.
 * @offset: the first byte, e.g. a Data-Out's BufferOffset.
 * @len: how many bytes, e.g. its DataSegmentLength. A zero-length range at
 *	or before the end of the data records nothing.
 *
 * [@offset, @offset + @len) joins the islands of received bytes, merged
 * with the ones it touches. Check ixt_ranges_complete() afterwards.
 *
 * Context: Any context; under the tracker's lock.
 * Return: 0 on success. Otherwise the tracker is unchanged and the error
 * is -EPROTO if the range overlaps bytes already received, ends after the
 * data (or @offset + @len overflows), or -ENOSPC if it would make more
 * islands than the tracker holds, the hard bound.
 */
int ixt_ranges_add(struct ixt_ranges *rs, u32 offset, u32 len)
{
	u32 end;
	int ret;

	if (check_add_overflow(offset, len, &end) || end > rs->total)
		return -EPROTO;
	if (!len)
		return 0;
	if (rs->nr && offset >= rs->range[rs->nr - 1].start)
		ret = ixt_ranges_add_tail(rs, offset, end);
	else
		ret = ixt_ranges_add_at(rs, ixt_ranges_after(rs, offset),
					offset, end);
	if (!ret)
		rs->received += len;
	return ret;
}

/**
 * ixt_ranges_hole() - find the first hole at or after an offset
 * @rs: the tracker.
 * @from: where to start looking; 0 for the first hole.
 * @offset: where to store the hole's first byte.
 * @len: where to store its length.
 *
 * For recovery (an R2T for the missing data) and diagnostics. O(log
 * @max).
 *
 * Context: Any context; under the tracker's lock.
 * Return: true if a byte at or after @from is missing, with the hole that
 * holds the first such byte, cut at @from, in @offset and @len; false if
 * none is (@offset and @len are then untouched).
 */
bool ixt_ranges_hole(const struct ixt_ranges *rs, u32 from, u32 *offset,
		     u32 *len)
{
	u32 i = ixt_ranges_after(rs, from);
	u32 start = from, end = rs->total;

	if (i && rs->range[i - 1].end > from)
		start = rs->range[i - 1].end;
	if (start >= rs->total)
		return false;
	if (i < rs->nr)
		end = rs->range[i].start;
	*offset = start;
	*len = end - start;
	return true;
}
