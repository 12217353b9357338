/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iscsi_xt: the data-pointer table of one command. Its buffer is an ordered
 * list of fixed-size cache lines, the first used from some offset on; the
 * table cuts it into entries, one contiguous piece of one line each, hands
 * out one R2T per run of solicited entries (a burst of up to
 * MaxBurstLength bytes) with the index of the run's first entry in the
 * Target Transfer Tag, and places every Data-Out in O(1) from that tag and
 * its Buffer Offset.
 *
 * Pure code: no allocation, locking, I/O or logging. The caller owns the
 * lines (the cache-line pool), the entry array, the byte-range tracker of
 * out-of-order data and the serialisation of the calls on one table.
 */
#ifndef _ISCSI_XT_DPT_H
#define _ISCSI_XT_DPT_H

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

struct ixt_pdu_limits;
struct ixt_ranges;

/* Cache lines are powers of two, from one 4 KiB page to 1 GiB. */
#define IXT_DPT_MIN_LINE_SHIFT		12
#define IXT_DPT_MAX_LINE_SHIFT		30

/*
 * A Target Transfer Tag is (entry field << IXT_DPT_TTT_SLOT_BITS) | slot:
 * the slot names the command in the caller's table of commands, the entry
 * field its entry, offset by the table's @ttt_base.
 */
#define IXT_DPT_TTT_SLOT_BITS		16
#define IXT_DPT_TTT_ENTRY_BITS		(32 - IXT_DPT_TTT_SLOT_BITS)
#define IXT_DPT_TTT_SLOT_MASK		GENMASK(IXT_DPT_TTT_SLOT_BITS - 1, 0)
#define IXT_DPT_TTT_ENTRY_MASK		GENMASK(IXT_DPT_TTT_ENTRY_BITS - 1, 0)

/* The reserved tag: "no TTT", as in unsolicited Data-Out PDUs. */
#define IXT_DPT_TTT_RESERVED		0xffffffffU

/*
 * The all-ones slot is never used, so that no entry field can turn a tag
 * into the reserved one.
 */
#define IXT_DPT_MAX_SLOTS		IXT_DPT_TTT_SLOT_MASK
#define IXT_DPT_MAX_ENTRIES		BIT(IXT_DPT_TTT_ENTRY_BITS)

/*
 * Room the split must leave: a command table of 4096 commands (well above
 * any CmdSN window we advertise), and a 32 MiB command in 4 KiB lines, its
 * first one partly used, with MaxBurstLength at least one line: an entry
 * for each line, and one more for each burst that starts inside a line.
 */
#define IXT_DPT_ROOM_SLOTS		4096
#define IXT_DPT_ROOM_XFER		(32U << 20)

static_assert(IXT_DPT_TTT_SLOT_BITS + IXT_DPT_TTT_ENTRY_BITS == 32);
static_assert(IXT_DPT_MAX_SLOTS >= IXT_DPT_ROOM_SLOTS);
static_assert(IXT_DPT_MAX_ENTRIES >=
	      2 * ((IXT_DPT_ROOM_XFER >> IXT_DPT_MIN_LINE_SHIFT) + 1));
static_assert(((IXT_DPT_TTT_ENTRY_MASK << IXT_DPT_TTT_SLOT_BITS) |
	       (IXT_DPT_MAX_SLOTS - 1)) != IXT_DPT_TTT_RESERVED);

/**
 * struct ixt_dpt_line - one cache line of a command's buffer
 * @addr: data pointer of the first byte of the line: whatever address the
 *	pool gives (a kernel virtual address, a DMA address). The table
 *	only adds offsets below the line size to it.
 * @handle: the pool's name for the line; the table does not look at it.
 */
struct ixt_dpt_line {
	u64 addr;
	u32 handle;
};

/**
 * struct ixt_dpt_geom - how a command's buffer is laid out and solicited
 * @xfer_len: bytes of the buffer (Expected Data Transfer Length), not 0.
 * @first_off: where byte 0 of the buffer lies in the first line, below
 *	the line size.
 * @unsol_len: bytes [0, @unsol_len) arrive unsolicited (immediate data
 *	and unsolicited Data-Out, see ixt_dpt_unsol_len()); the rest is
 *	solicited by R2Ts. Set it to @xfer_len for a read.
 * @max_burst: MaxBurstLength: what one R2T solicits (the last one of a
 *	command may ask for less); not 0.
 * @max_r2t: MaxOutstandingR2T: the most R2Ts not yet fully answered; not 0.
 * @slot: the command's slot in the caller's command table, below
 *	%IXT_DPT_MAX_SLOTS: the low bits of its Target Transfer Tags.
 * @ttt_base: added, modulo 2^%IXT_DPT_TTT_ENTRY_BITS, to entry indexes in
 *	Target Transfer Tags. Give each new command of a slot another base,
 *	and a stale tag of the slot's previous command most likely misses.
 * @line_shift: log2 of the cache-line size, %IXT_DPT_MIN_LINE_SHIFT ..
 *	%IXT_DPT_MAX_LINE_SHIFT.
 * @data_pdu_in_order: DataPDUInOrder=Yes: the data of each R2T, and the
 *	unsolicited data, arrive in order, and a counter per entry tracks
 *	them. With No, a &struct ixt_ranges tracks which bytes arrived.
 */
struct ixt_dpt_geom {
	u32 xfer_len;
	u32 first_off;
	u32 unsol_len;
	u32 max_burst;
	u32 max_r2t;
	u16 slot;
	u16 ttt_base;
	u8 line_shift;
	bool data_pdu_in_order;
};

/**
 * struct ixt_dpt_entry - one piece of one cache line
 * @addr: data pointer of the piece's first byte: its line's address plus
 *	the offset of the piece in the line.
 * @offset: buffer offset of the piece's first byte in the command.
 * @length: bytes in the piece, not 0.
 * @received: bytes of the piece received so far; with DataPDUInOrder=Yes,
 *	all from its start.
 * @line: index of the piece's line in the command's lines.
 */
struct ixt_dpt_entry {
	u64 addr;
	u32 offset;
	u32 length;
	u32 received;
	u32 line;
};

/**
 * struct ixt_dpt - the data-pointer table of one command
 * @lines: the command's cache lines, in buffer order.
 * @entries: the pieces, in buffer order, covering [0, @xfer_len) exactly
 *	once. Entries below @first_r2t hold unsolicited data and are cut at
 *	line boundaries only, one per line; the others are cut at line
 *	boundaries and every @max_burst bytes from @unsol_len on. The
 *	entries between two such burst boundaries are a run, which one R2T
 *	solicits.
 * @ranges: the bytes received so far, for DataPDUInOrder=No; %NULL with
 *	DataPDUInOrder=Yes.
 * @nr_lines: number of @lines.
 * @nr_entries: number of @entries.
 * @xfer_len: bytes of the buffer.
 * @first_off: where byte 0 of the buffer lies in the first line.
 * @unsol_len: bytes that arrive unsolicited, from offset 0.
 * @received: bytes received so far, unsolicited and solicited.
 * @unsol_received: unsolicited bytes received so far; with
 *	DataPDUInOrder=Yes, all from offset 0.
 * @max_burst: MaxBurstLength: the length of each run but the last.
 * @first_r2t: index of the first solicited entry; @nr_entries if none.
 * @next_r2t: index of the first entry of the run the next R2T solicits.
 * @outstanding: R2Ts sent whose runs are not complete yet.
 * @max_r2t: the most R2Ts that may be outstanding.
 * @slot: the command's slot, in every Target Transfer Tag.
 * @ttt_base: added to entry indexes in Target Transfer Tags.
 * @line_shift: log2 of the cache-line size.
 *
 * Set up by ixt_dpt_init(); the members are read-only for the caller.
 */
struct ixt_dpt {
	const struct ixt_dpt_line *lines;
	struct ixt_dpt_entry *entries;
	struct ixt_ranges *ranges;
	u32 nr_lines;
	u32 nr_entries;
	u32 xfer_len;
	u32 first_off;
	u32 unsol_len;
	u32 received;
	u32 unsol_received;
	u32 max_burst;
	u32 first_r2t;
	u32 next_r2t;
	u32 outstanding;
	u32 max_r2t;
	u16 slot;
	u16 ttt_base;
	u8 line_shift;
};

/**
 * struct ixt_dpt_r2t - what one R2T asks for: one run
 * @ttt: Target Transfer Tag, never %IXT_DPT_TTT_RESERVED.
 * @offset: Buffer Offset.
 * @length: Desired Data Transfer Length, at most MaxBurstLength.
 * @entry: index of the first entry of the run it solicits.
 */
struct ixt_dpt_r2t {
	u32 ttt;
	u32 offset;
	u32 length;
	u32 entry;
};

/**
 * struct ixt_dpt_place - where the data of one PDU goes
 * @addr: data pointer of the byte at @offset.
 * @offset: buffer offset of the data's first byte.
 * @len: bytes of data.
 * @contig: bytes from @addr on in the same line, at most @len. The data
 *	may cross lines: ixt_dpt_iter_init() on @offset and @len gives all
 *	its pieces.
 * @line: index of the line that holds the byte at @offset.
 * @line_off: offset of that byte in its line.
 * @entry: index of the entry that holds the byte at @offset.
 * @run: for solicited data, index of the first entry of the run of the
 *	R2T it answers (the R2T's name, e.g. for counting its DataSN); 0
 *	for unsolicited data.
 * @solicited: the data answers an R2T.
 */
struct ixt_dpt_place {
	u64 addr;
	u32 offset;
	u32 len;
	u32 contig;
	u32 line;
	u32 line_off;
	u32 entry;
	u32 run;
	bool solicited;
};

/**
 * struct ixt_dpt_piece - a contiguous piece of the buffer in one line
 * @addr: data pointer of its first byte.
 * @offset: buffer offset of its first byte.
 * @len: bytes in the piece.
 * @line: index of its line in the command's lines.
 * @line_off: offset of its first byte in the line.
 */
struct ixt_dpt_piece {
	u64 addr;
	u32 offset;
	u32 len;
	u32 line;
	u32 line_off;
};

/**
 * struct ixt_dpt_iter - walks a byte range of a buffer, line by line
 * @t: the table.
 * @offset: buffer offset of the next byte to visit.
 * @left: bytes left to visit.
 */
struct ixt_dpt_iter {
	const struct ixt_dpt *t;
	u32 offset;
	u32 left;
};

/**
 * ixt_dpt_ttt_make() - build a Target Transfer Tag
 * @slot: command slot, below %IXT_DPT_MAX_SLOTS.
 * @field: entry field; only its low %IXT_DPT_TTT_ENTRY_BITS bits are used.
 *
 * Return: the tag; never %IXT_DPT_TTT_RESERVED for a valid @slot.
 */
static inline u32 ixt_dpt_ttt_make(u32 slot, u32 field)
{
	return (field & IXT_DPT_TTT_ENTRY_MASK) << IXT_DPT_TTT_SLOT_BITS |
	       (slot & IXT_DPT_TTT_SLOT_MASK);
}

/**
 * ixt_dpt_ttt() - the Target Transfer Tag of an entry of a table
 * @t: the table.
 * @entry: index of the entry.
 *
 * Return: the tag: entry 1 of the command in slot 0x123 with base 0x10
 * is 0x0011_0123 (see "Data-pointer table over cache lines" in
 * Documentation/design.rst).
 */
static inline u32 ixt_dpt_ttt(const struct ixt_dpt *t, u32 entry)
{
	return ixt_dpt_ttt_make(t->slot, t->ttt_base + entry);
}

/**
 * ixt_dpt_is_complete() - whether every byte of a buffer arrived
 * @t: the table.
 *
 * Return: true when all @t->xfer_len bytes have been committed.
 */
static inline bool ixt_dpt_is_complete(const struct ixt_dpt *t)
{
	return t->received == t->xfer_len;
}

int ixt_dpt_unsol_len(u32 xfer_len, u32 imm_len, bool final,
		      const struct ixt_pdu_limits *lim, u32 *unsol_len);
int ixt_dpt_count(const struct ixt_dpt_geom *g, u32 *nr_lines,
		  u32 *nr_entries);
int ixt_dpt_init(struct ixt_dpt *t, const struct ixt_dpt_geom *g,
		 const struct ixt_dpt_line *lines, u32 nr_lines,
		 struct ixt_dpt_entry *entries, u32 nr_entries,
		 struct ixt_ranges *ranges);
int ixt_dpt_ttt_slot(u32 ttt, u32 nr_slots, u32 *slot);
int ixt_dpt_next_r2t(struct ixt_dpt *t, struct ixt_dpt_r2t *r2t);
int ixt_dpt_place(const struct ixt_dpt *t, u32 ttt, u32 offset, u32 len,
		  bool final, struct ixt_dpt_place *p);
int ixt_dpt_place_unsol(const struct ixt_dpt *t, u32 offset, u32 len,
			bool final, struct ixt_dpt_place *p);
int ixt_dpt_commit(struct ixt_dpt *t, const struct ixt_dpt_place *p);
int ixt_dpt_iter_init(struct ixt_dpt_iter *it, const struct ixt_dpt *t,
		      u32 offset, u32 len);
bool ixt_dpt_iter_next(struct ixt_dpt_iter *it, struct ixt_dpt_piece *pc);
u32 ixt_dpt_nr_pieces(const struct ixt_dpt *t, u32 offset, u32 len);

#endif /* _ISCSI_XT_DPT_H */
