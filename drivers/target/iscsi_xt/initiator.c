// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: the registry of initiators, by InitiatorName.
 *
 * The bounds an initiator is held to (its normal sessions, the cache
 * lines its commands past CmdSN holes may hold, the work items of its
 * commands whose backend may block) are the name's over the whole
 * module: an initiator with ACLs in several TPGs, or of several targets,
 * has one share, not one a TPG. Each normal session takes a reference
 * on its name's entry at its login (ixt_sess_register()) and drops it
 * when it is freed, after its last command; the entry goes with the
 * last reference.
 *
 * Each entry has a workqueue of its own for those work items: an
 * unbound workqueue runs at most WQ_MAX_ACTIVE (512) items at once, and
 * with one for the module an initiator whose commands a device held
 * could fill it and make every other initiator's TEST UNIT READY wait.
 * A workqueue costs an idle rescuer thread (WQ_MEM_RECLAIM: the items
 * must make progress under memory pressure); the workers come from the
 * kernel's shared pools, as many as run at once.
 *
 * The target core logs two lines for each ABORT TASK it carries out, and
 * one for each whose task it does not find, without a rate limit; the
 * command window does not hold back immediate functions. So an initiator
 * may send it IXT_ABORT_BURST ABORT TASKs at once and IXT_ABORT_PER_SEC
 * a second after that; the fabric answers the others "Function rejected"
 * (an initiator then resets the LUN, as for any abort that fails).
 *
 * Locking: ixt_initiators_mutex protects the hash table and the
 * entries' membership; the counters are atomic; an entry's abort_lock
 * its ABORT TASK tokens.
 */

#include <linux/hashtable.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringhash.h>
#include <linux/workqueue.h>

#include "fault.h"
#include "initiator.h"

#define IXT_ABORT_BURST		32
#define IXT_ABORT_PER_SEC	4

static DEFINE_HASHTABLE(ixt_initiators, 7);
static DEFINE_MUTEX(ixt_initiators_mutex);

static struct ixt_initiator *ixt_initiator_find(const char *name, u32 hash)
{
	struct ixt_initiator *ini;

	hash_for_each_possible(ixt_initiators, ini, node, hash)
		if (!strcmp(ini->name, name))
			return ini;
	return NULL;
}

static struct ixt_initiator *ixt_initiator_new(const char *name)
{
	struct ixt_initiator *ini;

	ini = ixt_fault(IXT_FAULT_INITIATOR) ? NULL :
	      kzalloc(sizeof(*ini), GFP_KERNEL);
	if (!ini)
		return NULL;
	ini->submit_wq = ixt_fault(IXT_FAULT_SUBMIT_WQ) ? NULL :
			 alloc_workqueue("iscsi_xt_submit",
					 WQ_MEM_RECLAIM | WQ_UNBOUND,
					 WQ_MAX_ACTIVE);
	if (!ini->submit_wq) {
		kfree(ini);
		return NULL;
	}
	refcount_set(&ini->ref, 1);
	spin_lock_init(&ini->abort_lock);
	ini->abort_tokens = IXT_ABORT_BURST;
	ini->abort_stamp = jiffies;
	strscpy(ini->name, name, sizeof(ini->name));
	return ini;
}

/**
 * ixt_initiator_get() - find or add the entry of an InitiatorName
 * @name: the InitiatorName.
 *
 * Context: Process context; takes ixt_initiators_mutex.
 * Return: the entry with a reference for the caller, or %NULL when out
 * of memory.
 */
struct ixt_initiator *ixt_initiator_get(const char *name)
{
	u32 hash = full_name_hash(NULL, name, strlen(name));
	struct ixt_initiator *ini;

	mutex_lock(&ixt_initiators_mutex);
	ini = ixt_initiator_find(name, hash);
	if (ini) {
		refcount_inc(&ini->ref);
	} else {
		ini = ixt_initiator_new(name);
		if (ini)
			hash_add(ixt_initiators, &ini->node, hash);
	}
	mutex_unlock(&ixt_initiators_mutex);
	return ini;
}

/**
 * ixt_initiator_put() - drop a reference on an initiator's entry
 * @ini: the entry; with the last reference it leaves the registry and
 *	is freed, its workqueue with it: each work item holds a command,
 *	which holds its session, which holds @ini, so the last work item
 *	has dropped its command and at most returns; destroy_workqueue()
 *	waits for that.
 *
 * Context: Process context, not a work item of @ini's workqueue; may
 * take ixt_initiators_mutex.
 */
void ixt_initiator_put(struct ixt_initiator *ini)
{
	if (!refcount_dec_and_mutex_lock(&ini->ref, &ixt_initiators_mutex))
		return;
	hash_del(&ini->node);
	mutex_unlock(&ixt_initiators_mutex);
	WARN_ON_ONCE(atomic_read(&ini->nr_sessions) ||
		     atomic_read(&ini->hole_lines));
	destroy_workqueue(ini->submit_wq);
	kfree(ini);
}

/**
 * ixt_initiator_abort_allowed() - take a token for an ABORT TASK
 * @ini: the initiator's entry.
 *
 * The tokens grow by %IXT_ABORT_PER_SEC a second up to %IXT_ABORT_BURST
 * (see the top of this file).
 *
 * Context: Process context (a receive path); takes @ini's abort_lock.
 * Return: true when the function may go to the target core.
 */
bool ixt_initiator_abort_allowed(struct ixt_initiator *ini)
{
	unsigned long now = jiffies;
	u64 grown;
	bool ok;

	spin_lock(&ini->abort_lock);
	grown = div_u64((u64)(now - ini->abort_stamp) * IXT_ABORT_PER_SEC, HZ);
	if (grown) {
		ini->abort_tokens = min_t(u64, IXT_ABORT_BURST,
					  ini->abort_tokens + grown);
		ini->abort_stamp = now;
	}
	ok = ini->abort_tokens;
	if (ok)
		ini->abort_tokens--;
	spin_unlock(&ini->abort_lock);
	return ok;
}
