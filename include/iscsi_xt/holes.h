/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iscsi_xt: in-order delivery per hole. Items that arrive out of order are
 * held behind the hole they wait for and released in order, as one batch
 * per closed hole; byte ranges that arrive in any order are tracked until
 * no hole is left.
 *
 * Pure code: no allocation, locking, I/O or logging, so the same library
 * builds into the module and into the user-space unit tests.
 */
#ifndef _ISCSI_XT_HOLES_H
#define _ISCSI_XT_HOLES_H

#include <linux/types.h>

#include <iscsi_xt/pdu.h>

/**
 * DOC: Sequence-number queue
 *
 * A &struct ixt_snq puts items keyed by a 32-bit serial number back in
 * order. In the module its one user is cmdsn.c, which keeps one queue per
 * session, for CmdSN; StatSN needs no queue, as responses take their
 * StatSN in the order they are queued (conn.c). The number it waits for
 * is ixt_snq_expected(). An item with that number, and every item held in
 * the run right behind it, becomes *ready*: ixt_snq_insert() reports them
 * as one &struct ixt_snq_batch, and ixt_snq_pop() hands them out in order.
 * An item that arrives early is *held*. A *hole* is a maximal range of
 * missing numbers below the highest held one; the held items form runs,
 * and each run waits behind exactly one hole. Per hole the queue counts
 * what is held behind it by kind (an opaque number below
 * %IXT_SNQ_NR_KINDS that the caller attaches to each item, e.g. "SCSI
 * Command" and "other request"), so that closing the hole tells how many
 * of each kind it releases, in one batch. A hole closed in the middle
 * merges the two runs and their counts; nothing is released then.
 *
 * Storage and bound: the caller supplies an array of @nr_slots pointers
 * (at most %IXT_SNQ_MAX_SLOTS), a ring indexed by serial number: the queue
 * holds at most that many items, ready ones not yet popped included, and
 * refuses a number that does not fit (-ENOSPC). Optionally a window
 * [ixt_snq_expected(), max] (the CmdSN window [ExpCmdSN, MaxCmdSN]) is
 * enforced too; it may not be larger than the ring. Numbers outside the
 * window or already seen are refused and counted in &struct ixt_snq_stats.
 * The items are &struct ixt_snq_node members embedded in the caller's
 * objects: the queue never allocates.
 *
 * Complexity: insert O(1) in every case (in order, small or large gap,
 * closing a hole in the middle or at the head), each pop O(1), so a batch
 * of n items costs O(n). Only ixt_snq_init(), which clears the ring, and
 * ixt_snq_hole_first()/ixt_snq_hole_next() and ixt_snq_flush(), which are
 * not for the data path, scan it: at most @nr_slots slots for a whole walk.
 *
 * Why a ring and not an rb-tree as in tcp_data_queue_ofo(): the window
 * already bounds what may be held, and a ring of that size finds both
 * neighbours of a number without a search. The first and last node of each
 * run point to each other and the first keeps the run's counters, so
 * joining runs is O(1) too. The price is one pointer per slot: 8 KiB for a
 * window of 1024 commands.
 *
 * Immediate commands carry a CmdSN but do not take one: they bypass the
 * queue, as RFC 7143 says.
 *
 * Locking: none inside. All calls on one queue, its nodes and its slot
 * array must be serialised by one lock of the caller: in cmdsn.c the
 * session's rx_lock, which every connection's receive path takes. The
 * calls never sleep and take no lock, so they add no lockdep dependency
 * and may run in any context the caller's lock allows (take it with the
 * _bh variants if a softirq completion handler inserts). Callers should
 * lockdep_assert_held() that lock at the call sites. A node belongs to the queue from a successful
 * ixt_snq_insert() until ixt_snq_pop() or ixt_snq_flush() returns it.
 */

/* Number of item kinds a queue counts per hole. */
#define IXT_SNQ_NR_KINDS	4

/* Largest ring: per-hole counters are 16 bits wide. */
#define IXT_SNQ_MAX_SLOTS	65536U

/**
 * struct ixt_snq_node - an item of a sequence-number queue
 * @sn: its serial number.
 * @end: while held, in the first node of a run the serial number of the
 *	last one, and in the last node that of the first (a run of one
 *	points to itself).
 * @count: while held, in the first node of a run: how many nodes of the
 *	run are of each kind.
 * @kind: its kind, below %IXT_SNQ_NR_KINDS.
 *
 * Embed it in the object to order and get back with container_of(). The
 * queue owns it from ixt_snq_insert() to ixt_snq_pop(); only @sn and
 * @kind (through ixt_snq_node_sn() and ixt_snq_node_kind()) are meant to
 * be read by the caller.
 */
struct ixt_snq_node {
	u32 sn;
	u32 end;
	u16 count[IXT_SNQ_NR_KINDS];
	u8 kind;
};

/**
 * struct ixt_snq_stats - what a sequence-number queue refused
 * @old: numbers before ixt_snq_expected(): already received (ready or
 *	popped), or before the window (-EALREADY).
 * @beyond: numbers after the window (-ERANGE).
 * @dup: numbers already held behind a hole (-EEXIST).
 * @full: numbers that do not fit in the ring, the hard bound (-ENOSPC).
 *
 * Counters only grow; ixt_snq_init() zeroes them.
 */
struct ixt_snq_stats {
	u64 old;
	u64 beyond;
	u64 dup;
	u64 full;
};

/**
 * struct ixt_snq - a sequence-number queue
 * @slot: the ring supplied to ixt_snq_init(): the node of each number in
 *	[@next, @next + @nr_slots), %NULL where none is.
 * @nr_slots: size of @slot, the most nodes the queue holds.
 * @head: index in @slot of @next.
 * @next: number of the oldest ready node, the next ixt_snq_pop() returns;
 *	equal to @expected when none is ready.
 * @expected: the number the queue waits for: every number before it has
 *	been received.
 * @max: last number of the window, if @windowed.
 * @nr_held: nodes held behind holes.
 * @nr_holes: holes, i.e. runs of held nodes.
 * @windowed: numbers after @max are refused; otherwise only the ring
 *	bounds them.
 * @stats: what was refused.
 *
 * The caller's lock protects all of it (see the DOC section above); read
 * it through the accessors.
 */
struct ixt_snq {
	struct ixt_snq_node **slot;
	u32 nr_slots;
	u32 head;
	u32 next;
	u32 expected;
	u32 max;
	u32 nr_held;
	u32 nr_holes;
	bool windowed;
	struct ixt_snq_stats stats;
};

/**
 * struct ixt_snq_batch - what one ixt_snq_insert() made ready
 * @first: number of the first ready node: the one inserted.
 * @nr: number of nodes made ready: 1 plus those held behind the hole it
 *	closed; 0 when the node was held or refused.
 * @count: how many of the @nr are of each kind.
 *
 * A caller may handle a batch as a whole (one wake-up for all of it):
 * @count[k] is exactly the number of its nodes of kind k.
 */
struct ixt_snq_batch {
	u32 first;
	u32 nr;
	u32 count[IXT_SNQ_NR_KINDS];
};

/**
 * struct ixt_snq_hole - one hole of a sequence-number queue
 * @first: its first missing number.
 * @missing: how many numbers are missing, at least 1.
 * @held: how many nodes are held right behind it, at least 1.
 * @count: how many of the @held are of each kind.
 */
struct ixt_snq_hole {
	u32 first;
	u32 missing;
	u32 held;
	u32 count[IXT_SNQ_NR_KINDS];
};

int ixt_snq_init(struct ixt_snq *q, struct ixt_snq_node **slot,
		 u32 nr_slots, u32 first);
int ixt_snq_set_max(struct ixt_snq *q, u32 max);
int ixt_snq_insert(struct ixt_snq *q, struct ixt_snq_node *node, u32 sn,
		   unsigned int kind, struct ixt_snq_batch *batch);
struct ixt_snq_node *ixt_snq_find(const struct ixt_snq *q, u32 sn);
struct ixt_snq_node *ixt_snq_pop(struct ixt_snq *q);
struct ixt_snq_node *ixt_snq_flush(struct ixt_snq *q);
bool ixt_snq_hole_first(const struct ixt_snq *q, struct ixt_snq_hole *hole);
bool ixt_snq_hole_next(const struct ixt_snq *q, struct ixt_snq_hole *hole);

/**
 * ixt_snq_expected() - the number a queue waits for
 * @q: the queue.
 *
 * For CmdSN this is ExpCmdSN.
 *
 * Return: the first number not received yet.
 */
static inline u32 ixt_snq_expected(const struct ixt_snq *q)
{
	return q->expected;
}

/**
 * ixt_snq_ready() - how many nodes wait for ixt_snq_pop()
 * @q: the queue.
 *
 * Return: the number of ready nodes not popped yet.
 */
static inline u32 ixt_snq_ready(const struct ixt_snq *q)
{
	return q->expected - q->next;
}

/**
 * ixt_snq_held() - how many nodes wait behind holes
 * @q: the queue.
 *
 * Return: the number of held nodes.
 */
static inline u32 ixt_snq_held(const struct ixt_snq *q)
{
	return q->nr_held;
}

/**
 * ixt_snq_holes() - how many holes a queue has
 * @q: the queue.
 *
 * Return: the number of holes, 0 when nothing is held.
 */
static inline u32 ixt_snq_holes(const struct ixt_snq *q)
{
	return q->nr_holes;
}

/**
 * ixt_snq_node_sn() - serial number of a node
 * @node: a node that was inserted.
 *
 * Return: the number it was inserted with.
 */
static inline u32 ixt_snq_node_sn(const struct ixt_snq_node *node)
{
	return node->sn;
}

/**
 * ixt_snq_node_kind() - kind of a node
 * @node: a node that was inserted.
 *
 * Return: the kind it was inserted with.
 */
static inline unsigned int ixt_snq_node_kind(const struct ixt_snq_node *node)
{
	return node->kind;
}

/**
 * DOC: Byte-range tracker
 *
 * A &struct ixt_ranges records which bytes of [0, total) have arrived,
 * for the Data-Out PDUs of one command when DataPDUInOrder=No or
 * DataSequenceInOrder=No: ranges [offset, offset + len) fill in any order,
 * and the tracker is complete when no hole is left. Overlapping ranges
 * (data received twice) and ranges reaching past total are protocol
 * errors (-EPROTO): the tracker is then left as it was.
 *
 * Storage and bound: a caller-supplied array of @max &struct ixt_range,
 * kept sorted; adjacent ranges are merged as they arrive, so an entry is
 * an island of received bytes, and @max bounds the number of islands (the
 * holes are at most @max + 1). A range that would make one island more
 * than @max is refused with -ENOSPC. In-order data is always one island.
 * Data in any order, cut into n PDUs, never needs more than (n + 1) / 2:
 * each island is at least one PDU received and each hole between two
 * islands at least one PDU still missing. Size @max from the number of
 * PDUs a command (or, with DataSequenceInOrder=Yes, a burst) may take.
 *
 * Complexity: a range at or after the end of the last island (in-order
 * data, and a hole left behind) costs O(1); any other a binary search,
 * O(log @max), plus, when an island is created or two are merged, a
 * memmove() of the islands after it: at most @max entries of 8 bytes.
 *
 * Locking: none inside; the caller serialises all calls on one tracker,
 * usually with the lock of the command it belongs to.
 */

/**
 * struct ixt_range - an island of received bytes
 * @start: its first byte.
 * @end: the byte after its last one.
 */
struct ixt_range {
	u32 start;
	u32 end;
};

/**
 * struct ixt_ranges - a byte-range tracker
 * @range: the islands, sorted by @start, neither empty, overlapping nor
 *	adjacent: the array supplied to ixt_ranges_init().
 * @nr: islands in use.
 * @max: size of @range.
 * @total: bytes expected, e.g. the Expected Data Transfer Length.
 * @received: bytes received so far, the sum of the islands' lengths.
 */
struct ixt_ranges {
	struct ixt_range *range;
	u32 nr;
	u32 max;
	u32 total;
	u32 received;
};

int ixt_ranges_init(struct ixt_ranges *rs, struct ixt_range *range, u32 max,
		    u32 total);
int ixt_ranges_add(struct ixt_ranges *rs, u32 offset, u32 len);
bool ixt_ranges_hole(const struct ixt_ranges *rs, u32 from, u32 *offset,
		     u32 *len);

/**
 * ixt_ranges_complete() - whether every byte has arrived
 * @rs: the tracker.
 *
 * Return: true when no hole is left in [0, total).
 */
static inline bool ixt_ranges_complete(const struct ixt_ranges *rs)
{
	return rs->received == rs->total;
}

#endif /* _ISCSI_XT_HOLES_H */
