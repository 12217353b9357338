// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: the cache-line pool.
 *
 * Every line is allocated when the module loads, as one compound page of
 * line_size bytes. Free lines sit in small per-CPU caches and in a global
 * stack; a command takes all the lines it needs at once or none.
 *
 * A line whose pages the network stack still references when it comes
 * back (Data-In is sent with MSG_SPLICE_PAGES, and TCP holds the pages
 * until the peer acknowledges them) is parked as "in flight" and reused
 * only once the stack has let go, so that a retransmission never sends
 * the data of a later command.
 *
 * Commands that find too few lines wait in turn: their connections join
 * a queue of waiters (ixt_pool_get_fair()), and while it is not empty
 * only its first may take lines, however many others come free; the
 * rest keep their place. Otherwise whichever connection asked first
 * after lines came back would get them, and under pool pressure one
 * connection could lose to the others again and again, for seconds. The
 * first is woken (its waiter's wake callback, which runs its receive path
 * again) when lines come back, and when the one before it leaves: lines
 * kept for it must not sit idle until it looks again by itself.
 *
 * Locking: each per-CPU cache has its own spinlock; the global stack, the
 * in-flight lines, the waiters and the statistics are under
 * ixt_pool.lock. When both are needed, the global lock is taken first.
 * Every lock is taken with interrupts off: lines come back from whatever
 * context frees a command. Wake callbacks run under ixt_pool.lock, so
 * once ixt_pool_waiter_stop() has returned none runs or will run for
 * that waiter.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bvec.h>
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "iscsi_xt.h"
#include "fault.h"
#include "pool.h"
#include "transport.h"

/* Lines one CPU keeps for itself. */
#define IXT_POOL_CACHE		64

static unsigned int line_size = 32768;
module_param(line_size, uint, 0444);
MODULE_PARM_DESC(line_size,
		 "Bytes per cache line of command buffers: a power of two, from PAGE_SIZE to the largest page block the buddy allocator gives (4 MiB on x86) (default 32768)");

static unsigned int pool_mb = 64;
module_param(pool_mb, uint, 0444);
MODULE_PARM_DESC(pool_mb,
		 "MiB of cache lines allocated at load for command buffers (default 64, at least twice the largest command)");

struct ixt_pool_cache {
	spinlock_t lock;	/* protects nr, idx */
	u32 nr;
	u32 idx[IXT_POOL_CACHE];
};

static struct {
	spinlock_t lock;	/* all below but pages, nr, shift and cache */
	struct page **pages;
	u32 nr;
	u8 shift;
	u32 *free;
	u32 nr_free;
	u32 *busy;
	u32 nr_busy;
	struct list_head waiters;
	u32 nr_waiters;
	unsigned long short_at;
	u64 exhausted;
	u64 set_full;
	struct ixt_pool_cache __percpu *cache;
} ixt_pool;

static bool ixt_pool_line_busy(u32 idx)
{
	return page_count(ixt_pool.pages[idx]) != 1;
}

static void ixt_pool_fill(struct ixt_dpt_line *line, u32 idx)
{
	line->addr = (u64)(uintptr_t)page_address(ixt_pool.pages[idx]);
	line->handle = idx;
}

/* Moves the in-flight lines the network stack let go of back to free. */
static void ixt_pool_reclaim(void)
{
	u32 i = 0;

	lockdep_assert_held(&ixt_pool.lock);
	while (i < ixt_pool.nr_busy) {
		u32 idx = ixt_pool.busy[i];

		if (ixt_pool_line_busy(idx)) {
			i++;
			continue;
		}
		ixt_pool.free[ixt_pool.nr_free++] = idx;
		ixt_pool.busy[i] = ixt_pool.busy[--ixt_pool.nr_busy];
	}
}

/* Empties every CPU's cache into the global stack. */
static void ixt_pool_steal(void)
{
	int cpu;

	lockdep_assert_held(&ixt_pool.lock);
	for_each_possible_cpu(cpu) {
		struct ixt_pool_cache *c = per_cpu_ptr(ixt_pool.cache, cpu);

		spin_lock(&c->lock);
		while (c->nr)
			ixt_pool.free[ixt_pool.nr_free++] = c->idx[--c->nr];
		spin_unlock(&c->lock);
	}
}

/* Takes @n lines from the global stack, gathering what it can first. */
static int ixt_pool_take(struct ixt_dpt_line *lines, u32 n)
{
	u32 i;

	lockdep_assert_held(&ixt_pool.lock);
	if (ixt_pool.nr_free < n)
		ixt_pool_reclaim();
	if (ixt_pool.nr_free < n)
		ixt_pool_steal();
	if (ixt_pool.nr_free < n)
		return -EAGAIN;
	for (i = 0; i < n; i++)
		ixt_pool_fill(&lines[i], ixt_pool.free[--ixt_pool.nr_free]);
	ixt_cost_add(IXT_COST_LINES, n);
	return 0;
}

static int ixt_pool_get_slow(struct ixt_dpt_line *lines, u32 n)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&ixt_pool.lock, flags);
	ret = ixt_pool_take(lines, n);
	if (ret)
		ixt_pool.exhausted++;
	spin_unlock_irqrestore(&ixt_pool.lock, flags);
	return ret;
}

/* From this CPU's cache, or else from the global stack. */
static int ixt_pool_grab(struct ixt_dpt_line *lines, u32 n)
{
	struct ixt_pool_cache *c;
	unsigned long flags;
	u32 i;

	local_irq_save(flags);
	c = this_cpu_ptr(ixt_pool.cache);
	spin_lock(&c->lock);
	if (c->nr >= n) {
		for (i = 0; i < n; i++)
			ixt_pool_fill(&lines[i], c->idx[--c->nr]);
		spin_unlock(&c->lock);
		ixt_cost_add(IXT_COST_LINES, n);
		local_irq_restore(flags);
		return 0;
	}
	spin_unlock(&c->lock);
	local_irq_restore(flags);
	return ixt_pool_get_slow(lines, n);
}

/**
 * ixt_pool_get() - take cache lines for a command
 * @lines: where to store them.
 * @n: how many; at most ixt_pool_max_lines().
 *
 * All or nothing: on failure no line is taken. It does not wait in turn
 * (see ixt_pool_get_fair()).
 *
 * Context: Any context.
 * Return: 0, -EAGAIN when fewer than @n lines are free now (lines come
 * back as commands complete: try again later), or -E2BIG when @n exceeds
 * what one command may take.
 */
int ixt_pool_get(struct ixt_dpt_line *lines, u32 n)
{
	if (n > ixt_pool_max_lines())
		return -E2BIG;
	if (ixt_fault(IXT_FAULT_POOL_GET))
		return -EAGAIN;
	return ixt_pool_grab(lines, n);
}

/* Wakes the first waiter, unless it was woken and has not looked since. */
static void ixt_pool_wake_first(void)
{
	struct ixt_pool_waiter *w;

	lockdep_assert_held(&ixt_pool.lock);
	w = list_first_entry_or_null(&ixt_pool.waiters,
				     struct ixt_pool_waiter, entry);
	if (w && !w->woken) {
		w->woken = true;
		w->wake(w);
	}
}

/* @w leaves the queue of waiters; the next one, now first, is woken. */
static void ixt_pool_dequeue(struct ixt_pool_waiter *w)
{
	lockdep_assert_held(&ixt_pool.lock);
	list_del_init(&w->entry);
	WRITE_ONCE(ixt_pool.nr_waiters, ixt_pool.nr_waiters - 1);
	ixt_pool_wake_first();
}

/**
 * ixt_pool_waiter_init() - set up a place in the queue for lines
 * @w: the place, not in the queue.
 * @wake: called when @w is first in the queue and lines came back, or it
 *	just became first: it should ask again soon. Called with the pool's
 *	lock held and interrupts off, so it may only queue work.
 *
 * Context: Any context.
 */
void ixt_pool_waiter_init(struct ixt_pool_waiter *w,
			  void (*wake)(struct ixt_pool_waiter *w))
{
	INIT_LIST_HEAD(&w->entry);
	w->wake = wake;
	w->woken = false;
	w->stopped = false;
}

/**
 * ixt_pool_get_fair() - take cache lines for a command, in turn
 * @w: the place in the queue of the connection that asks.
 * @lines: where to store them.
 * @n: how many; at most ixt_pool_max_lines().
 *
 * As ixt_pool_get(), but when lines are short the asker joins the queue
 * of waiters (the first time; the pool counts it as exhausted), and while
 * anyone waits only the first in the queue gets lines: the others, and
 * newcomers, are told to try again. The first leaves the queue when it
 * gets its lines; one that gives up must leave with ixt_pool_leave().
 * A waiter is woken (see ixt_pool_waiter_init()) when it may succeed;
 * the caller still asks again now and then by itself, as lines the
 * network stack lets go of come back without a call that could wake it.
 *
 * Context: Any context.
 * Return: 0, -EAGAIN (call again later, keeping the place; also for good
 * once @w is stopped), or -E2BIG when @n exceeds what one command may
 * take.
 */
int ixt_pool_get_fair(struct ixt_pool_waiter *w, struct ixt_dpt_line *lines,
		      u32 n)
{
	bool counted = false;
	unsigned long flags;
	int ret;

	if (n > ixt_pool_max_lines())
		return -E2BIG;
	if (ixt_fault(IXT_FAULT_POOL_GET))
		return -EAGAIN;
	if (!READ_ONCE(ixt_pool.nr_waiters)) {
		ret = ixt_pool_grab(lines, n);
		if (ret != -EAGAIN)
			return ret;
		counted = true;
	}
	spin_lock_irqsave(&ixt_pool.lock, flags);
	if (w->stopped) {
		spin_unlock_irqrestore(&ixt_pool.lock, flags);
		return -EAGAIN;
	}
	w->woken = false;
	if (list_empty(&w->entry)) {
		list_add_tail(&w->entry, &ixt_pool.waiters);
		WRITE_ONCE(ixt_pool.nr_waiters, ixt_pool.nr_waiters + 1);
		if (!counted)
			ixt_pool.exhausted++;
	}
	ret = -EAGAIN;
	if (list_first_entry(&ixt_pool.waiters, struct ixt_pool_waiter,
			     entry) == w) {
		ret = ixt_pool_take(lines, n);
		if (!ret)
			ixt_pool_dequeue(w);
	}
	if (ret)
		WRITE_ONCE(ixt_pool.short_at, jiffies | 1);
	spin_unlock_irqrestore(&ixt_pool.lock, flags);
	return ret;
}

/*
 * How long after a command last found the pool short it still counts as
 * short: a command refused TASK SET FULL leaves the queue, and its
 * initiator sends it again a moment later.
 */
#define IXT_POOL_SHORT_HOLD	(2 * HZ)

/**
 * ixt_pool_short() - whether commands go without lines now
 *
 * Context: Any context.
 * Return: true while a command waits for lines, and for 2 s after one
 * last found none.
 */
bool ixt_pool_short(void)
{
	unsigned long at = READ_ONCE(ixt_pool.short_at);

	return READ_ONCE(ixt_pool.nr_waiters) ||
	       (at && time_before(jiffies, at + IXT_POOL_SHORT_HOLD));
}

/* @w leaves the queue, if in it; @stop: and never joins it again. */
static void ixt_pool_quit(struct ixt_pool_waiter *w, bool stop)
{
	unsigned long flags;

	spin_lock_irqsave(&ixt_pool.lock, flags);
	w->stopped |= stop;
	if (!list_empty(&w->entry))
		ixt_pool_dequeue(w);
	spin_unlock_irqrestore(&ixt_pool.lock, flags);
}

/**
 * ixt_pool_leave() - give up a place in the queue for lines
 * @w: the place; nothing happens if it is not in the queue.
 *
 * Context: Any context.
 */
void ixt_pool_leave(struct ixt_pool_waiter *w)
{
	ixt_pool_quit(w, false);
}

/**
 * ixt_pool_waiter_stop() - leave the queue for lines for good
 * @w: the place.
 *
 * After it, @w's wake callback does not run (nor is it running), and
 * ixt_pool_get_fair() on @w never takes a place again: its owner may then
 * stop what the callback would wake, and free @w.
 *
 * Context: Any context.
 */
void ixt_pool_waiter_stop(struct ixt_pool_waiter *w)
{
	ixt_pool_quit(w, true);
}

/**
 * ixt_pool_count_set_full() - count a command refused for want of lines
 *
 * A command that found the pool short was answered TASK SET FULL, at
 * once or after waiting in vain (debugfs ``set_full``).
 *
 * Context: Any context.
 */
void ixt_pool_count_set_full(void)
{
	unsigned long flags;

	spin_lock_irqsave(&ixt_pool.lock, flags);
	ixt_pool.set_full++;
	spin_unlock_irqrestore(&ixt_pool.lock, flags);
}

/**
 * ixt_pool_put() - give back the cache lines of a command
 * @lines: the lines, as ixt_pool_get() gave them.
 * @n: how many.
 *
 * Context: Any context.
 */
void ixt_pool_put(const struct ixt_dpt_line *lines, u32 n)
{
	bool waiters = READ_ONCE(ixt_pool.nr_waiters);
	struct ixt_pool_cache *c;
	unsigned long flags;
	u32 i = 0;

	local_irq_save(flags);
	if (!waiters) {
		c = this_cpu_ptr(ixt_pool.cache);
		spin_lock(&c->lock);
		while (i < n && c->nr < IXT_POOL_CACHE &&
		       !ixt_pool_line_busy(lines[i].handle))
			c->idx[c->nr++] = lines[i++].handle;
		spin_unlock(&c->lock);
	}
	/* With a queue, lines go where its first will look, and wake it. */
	if (i < n || waiters) {
		spin_lock(&ixt_pool.lock);
		for (; i < n; i++) {
			u32 idx = lines[i].handle;

			if (ixt_pool_line_busy(idx))
				ixt_pool.busy[ixt_pool.nr_busy++] = idx;
			else
				ixt_pool.free[ixt_pool.nr_free++] = idx;
		}
		ixt_pool_wake_first();
		spin_unlock(&ixt_pool.lock);
	}
	local_irq_restore(flags);
}

/**
 * ixt_pool_page() - the first page of a cache line
 * @line: the line, as ixt_pool_get() gave it.
 *
 * Context: Any context.
 * Return: the head of the line's compound page.
 */
struct page *ixt_pool_page(const struct ixt_dpt_line *line)
{
	return ixt_pool.pages[line->handle];
}

/**
 * ixt_pool_map() - describe a buffer of cache lines to the transports and
 *	to the target core
 * @lines: the buffer's lines, as ixt_pool_get() gave them, in order.
 * @nr_lines: number of @lines.
 * @off: where the buffer starts in the first line.
 * @len: bytes of the buffer, all within @lines.
 * @per_line: one scatterlist entry per line; else one per page, the way
 *	target core emulations and pass-through backends map a buffer.
 * @bvec: filled with one bio_vec per line.
 * @sgl: filled in order, from its first entry; initialised by the caller
 *	(sg_init_table()) with as many entries as the mapping takes.
 *
 * Context: Any context.
 */
void ixt_pool_map(const struct ixt_dpt_line *lines, u32 nr_lines, u32 off,
		  u32 len, bool per_line, struct bio_vec *bvec,
		  struct scatterlist *sgl)
{
	u32 line = 1U << ixt_pool_line_shift();
	struct scatterlist *sg = sgl;
	u32 i;

	for (i = 0; i < nr_lines; i++) {
		struct page *page = ixt_pool_page(&lines[i]);
		u32 n = min(line - off, len);
		u32 done;

		bvec_set_page(&bvec[i], page, n, off);
		if (per_line) {
			sg_set_page(sg, page, n, off);
			sg = sg_next(sg);
		} else {
			for (done = 0; done < n; ) {
				u32 in = (off + done) & ~PAGE_MASK;
				u32 piece = min_t(u32, PAGE_SIZE - in,
						  n - done);

				sg_set_page(sg, page +
					    ((off + done) >> PAGE_SHIFT),
					    piece, in);
				sg = sg_next(sg);
				done += piece;
			}
		}
		len -= n;
		off = 0;
	}
}

/**
 * ixt_pool_line_shift() - log2 of the cache-line size
 *
 * Context: Any context.
 * Return: the shift, as &struct ixt_dpt_geom wants it.
 */
u8 ixt_pool_line_shift(void)
{
	return ixt_pool.shift;
}

/**
 * ixt_pool_lines() - the lines in the pool
 *
 * Context: Any context.
 * Return: how many lines the pool was made of.
 */
u32 ixt_pool_lines(void)
{
	return ixt_pool.nr;
}

/**
 * ixt_pool_max_lines() - the most lines one command may take
 *
 * Enough for the largest transfer the fabric accepts
 * (%IXT_MAX_XFER_LEN), starting anywhere in a line.
 *
 * Context: Any context.
 * Return: the number of lines.
 */
u32 ixt_pool_max_lines(void)
{
	return (IXT_MAX_XFER_LEN >> ixt_pool.shift) + 1;
}

/**
 * ixt_pool_stats() - take a snapshot of the pool's use
 * @st: where to store it.
 *
 * Lines the network stack has let go of since they came back are moved
 * to the free ones first, so that @st->in_flight is exact.
 *
 * Context: Any context.
 */
void ixt_pool_stats(struct ixt_pool_stats *st)
{
	unsigned long flags;
	u32 cached = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		cached += READ_ONCE(per_cpu_ptr(ixt_pool.cache, cpu)->nr);
	spin_lock_irqsave(&ixt_pool.lock, flags);
	ixt_pool_reclaim();
	st->line_size = 1U << ixt_pool.shift;
	st->lines = ixt_pool.nr;
	st->free = ixt_pool.nr_free + cached;
	st->in_flight = ixt_pool.nr_busy;
	st->waiters = ixt_pool.nr_waiters;
	st->exhausted = ixt_pool.exhausted;
	st->set_full = ixt_pool.set_full;
	spin_unlock_irqrestore(&ixt_pool.lock, flags);
}

static int ixt_pool_show(struct seq_file *m, void *v)
{
	struct ixt_pool_stats st;

	ixt_pool_stats(&st);
	seq_printf(m, "line_size %u\nlines %u\nfree %u\nin_flight %u\nwaiters %u\nexhausted %llu\nset_full %llu\n",
		   st.line_size, st.lines, st.free, st.in_flight, st.waiters,
		   st.exhausted, st.set_full);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ixt_pool);

static void ixt_pool_free_lines(void)
{
	u32 i;

	for (i = 0; ixt_pool.pages && i < ixt_pool.nr; i++)
		if (ixt_pool.pages[i])
			__free_pages(ixt_pool.pages[i], ixt_pool.shift -
				     PAGE_SHIFT);
	kvfree(ixt_pool.pages);
	kvfree(ixt_pool.free);
	kvfree(ixt_pool.busy);
	free_percpu(ixt_pool.cache);
}

/*
 * Checks the module parameters and sizes the pool from them. A line is one
 * block of pages from the buddy allocator, so it is no larger than its
 * largest order, nor than the largest command.
 */
static int ixt_pool_size(void)
{
	u64 bytes = (u64)pool_mb << 20;
	u64 max = min_t(u64, PAGE_SIZE << MAX_PAGE_ORDER, IXT_MAX_XFER_LEN);

	if (!is_power_of_2(line_size) || line_size < PAGE_SIZE ||
	    line_size > max) {
		pr_err("line_size=%u: must be a power of two from %lu to %llu\n",
		       line_size, PAGE_SIZE, max);
		return -EINVAL;
	}
	ixt_pool.shift = ilog2(line_size);
	if (bytes < 2 * (u64)ixt_pool_max_lines() * line_size) {
		pr_err("pool_mb=%u: must hold twice the largest command, %u MiB\n",
		       pool_mb, (2 * ixt_pool_max_lines() * line_size) >> 20);
		return -EINVAL;
	}
	ixt_pool.nr = bytes >> ixt_pool.shift;
	return 0;
}

/**
 * ixt_pool_init() - allocate every cache line
 *
 * Context: Process context, module init.
 * Return: 0, -EINVAL for bad module parameters, or -ENOMEM.
 */
int ixt_pool_init(void)
{
	unsigned int order;
	int cpu, ret;
	u32 i;

	ret = ixt_pool_size();
	if (ret)
		return ret;
	order = ixt_pool.shift - PAGE_SHIFT;
	spin_lock_init(&ixt_pool.lock);
	INIT_LIST_HEAD(&ixt_pool.waiters);
	ixt_pool.pages = ixt_fault(IXT_FAULT_POOL_ARRAYS) ? NULL :
			 kvcalloc(ixt_pool.nr, sizeof(*ixt_pool.pages),
				  GFP_KERNEL);
	ixt_pool.free = ixt_fault(IXT_FAULT_POOL_ARRAYS) ? NULL :
			kvcalloc(ixt_pool.nr, sizeof(u32), GFP_KERNEL);
	ixt_pool.busy = ixt_fault(IXT_FAULT_POOL_ARRAYS) ? NULL :
			kvcalloc(ixt_pool.nr, sizeof(u32), GFP_KERNEL);
	ixt_pool.cache = ixt_fault(IXT_FAULT_POOL_CACHE) ? NULL :
			 alloc_percpu(struct ixt_pool_cache);
	if (!ixt_pool.pages || !ixt_pool.free || !ixt_pool.busy ||
	    !ixt_pool.cache)
		goto out_nomem;
	for_each_possible_cpu(cpu)
		spin_lock_init(&per_cpu_ptr(ixt_pool.cache, cpu)->lock);
	for (i = 0; i < ixt_pool.nr; i++) {
		ixt_pool.pages[i] = ixt_fault(IXT_FAULT_POOL_PAGES) ? NULL :
				    alloc_pages(GFP_KERNEL | __GFP_COMP |
						__GFP_NOWARN, order);
		if (!ixt_pool.pages[i])
			goto out_nomem;
		ixt_pool.free[ixt_pool.nr_free++] = i;
	}
	debugfs_create_file("pool", 0444, ixt_debugfs, NULL, &ixt_pool_fops);
	pr_info("cache-line pool: %u lines of %u bytes\n", ixt_pool.nr,
		line_size);
	return 0;

out_nomem:
	pr_err("cache-line pool: no memory for %u MiB in %u-byte lines\n",
	       pool_mb, line_size);
	ixt_pool_free_lines();
	return -ENOMEM;
}

/**
 * ixt_pool_exit() - free every cache line
 *
 * Every command is gone by then, and so is every socket that could hold
 * a line's pages.
 *
 * Context: Process context, module exit.
 */
void ixt_pool_exit(void)
{
	struct ixt_pool_stats st;

	ixt_pool_stats(&st);
	WARN_ON(st.free + st.in_flight != st.lines);
	ixt_pool_free_lines();
}
