// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: the read buffer of a bidirectional command (RFC 7143 11.2.1.2
 * and 11.3.1.1: R and W set, a Bidirectional Read Expected Data Transfer
 * Length AHS). The write side is an ordinary write buffer, cache lines
 * under the data-pointer table; the read side takes cache lines of its
 * own from the pool, handed to the target core as the command's bidi
 * scatterlist and sent from as Data-In, as a read's are.
 *
 * In the target core only pscsi and TCMU backends run bidirectional
 * commands (XDWRITEREAD and vendor commands); every other backend refuses
 * them at CDB parsing.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "cmd.h"
#include "fault.h"
#include "pool.h"

/**
 * ixt_bidi_setup() - give a bidirectional command its read buffer
 * @cmd: the command, not yet submitted.
 * @len: the Bidirectional Read Expected Data Transfer Length, 1 to
 *	%IXT_MAX_XFER_LEN.
 *
 * The buffer is described one page per scatterlist entry, the way the
 * backends that run such commands map it, and one bio_vec per line for
 * Data-In.
 *
 * Context: Process context (the connection's receive path).
 * Return: 0; -EAGAIN when the pool is short of lines; -ENOMEM.
 */
int ixt_bidi_setup(struct ixt_cmd *cmd, u32 len)
{
	u32 nr_lines = DIV_ROUND_UP(len, 1U << ixt_pool_line_shift());
	u32 nents = DIV_ROUND_UP(len, PAGE_SIZE);
	struct ixt_cmd_bidi *b;
	int ret;

	b = ixt_fault(IXT_FAULT_BIDI) ? NULL :
	    kvzalloc(struct_size(b, lines, nr_lines) +
		     nr_lines * sizeof(*b->bvec) + nents * sizeof(*b->sgl),
		     GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	ret = ixt_pool_get(b->lines, nr_lines);
	if (ret) {
		kvfree(b);
		return ret;
	}
	b->len = len;
	b->nr_lines = nr_lines;
	b->bvec = (struct bio_vec *)&b->lines[nr_lines];
	b->sgl = (struct scatterlist *)&b->bvec[nr_lines];
	b->sg_nents = nents;
	sg_init_table(b->sgl, nents);
	ixt_pool_map(b->lines, nr_lines, 0, len, false, b->bvec, b->sgl);
	cmd->bidi = b;
	return 0;
}

/**
 * ixt_bidi_free() - give back the read buffer of a bidirectional command
 * @cmd: the command, which the target core no longer uses.
 *
 * Context: Any context but hard IRQ.
 */
void ixt_bidi_free(struct ixt_cmd *cmd)
{
	struct ixt_cmd_bidi *b = cmd->bidi;

	if (!b)
		return;
	ixt_pool_put(b->lines, b->nr_lines);
	kvfree(b);
	cmd->bidi = NULL;
}
