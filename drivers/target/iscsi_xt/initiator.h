/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iscsi_xt: what one initiator (one InitiatorName) holds over every
 * target and TPG of the module.
 */
#ifndef _ISCSI_XT_INITIATOR_H
#define _ISCSI_XT_INITIATOR_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "iscsi_xt.h"

struct workqueue_struct;

/**
 * struct ixt_initiator - the shares of one InitiatorName, module-wide
 * @node: in the registry's hash table, under its mutex.
 * @ref: one per normal session of the name (ixt_initiator_get()), held
 *	from its login until the session is freed, so after its last
 *	command.
 * @nr_sessions: its normal sessions that hold a target core session, at
 *	most the sessions_per_initiator parameter (session.c); atomic.
 * @hole_lines: the cache lines of its SCSI Commands that came past a
 *	CmdSN hole, in all its sessions, from their header until they
 *	leave the CmdSN queue (ixt_cmdsn_hole_take()); atomic.
 * @submit_wq: the work items of its commands whose backend may block
 *	(submit.c): its own, so that its commands held by a slow or hung
 *	device never delay another initiator's.
 * @abort_lock: protects @abort_tokens and @abort_stamp.
 * @abort_tokens: the ABORT TASKs it may send the target core at once
 *	(ixt_initiator_abort_allowed()).
 * @abort_stamp: jiffies when @abort_tokens last grew.
 * @name: the InitiatorName, as the login gave it.
 */
struct ixt_initiator {
	struct hlist_node node;
	refcount_t ref;
	atomic_t nr_sessions;
	atomic_t hole_lines;
	struct workqueue_struct *submit_wq;
	spinlock_t abort_lock;	/* protects abort_tokens, abort_stamp */
	u32 abort_tokens;
	unsigned long abort_stamp;
	char name[ISCSI_NAME_LEN];
};

struct ixt_initiator *ixt_initiator_get(const char *name);
void ixt_initiator_put(struct ixt_initiator *ini);
bool ixt_initiator_abort_allowed(struct ixt_initiator *ini);

#endif /* _ISCSI_XT_INITIATOR_H */
