// SPDX-License-Identifier: GPL-2.0
/*
 * iscsi_xt: writes whose Expected Data Transfer Length differs from the
 * transfer length of their CDB (RFC 7143 11.4.5.1, SAM-5 5.4.3).
 *
 * The target core refuses every such WRITE with CHECK CONDITION
 * (target_cmd_size_check()): it cannot take less data than the CDB
 * names, and a fabric buffer cannot hold more than the initiator sends.
 * iSCSI says what to do instead, and the fabric can do it, because it
 * knows both lengths before the core sees the command:
 *
 * - The initiator expects to send more than the CDB names (underflow):
 *   all of it is taken, the CDB's blocks are written from its start,
 *   the rest is dropped; U bit, residual = EDTL - CDB length.
 * - It expects to send less (overflow): the whole blocks its data holds
 *   are written, none past them; O bit, residual = CDB length - EDTL.
 *   The core gets the CDB with its transfer length lowered to those
 *   blocks, so the backend never sees a length the data does not cover.
 *
 * The core gets a data length equal to what its CDB names, and the
 * fabric sets the residual itself. Only the WRITE-family CDBs the core
 * parses for a block device are fitted; everything else keeps the core's
 * check. A CDB whose range runs past the end of the LUN is left as it is,
 * for the core to answer LOGICAL BLOCK ADDRESS OUT OF RANGE.
 *
 * The lookup of a session's LUN that fitting needs also tells
 * ixt_cmd_rx() which LUNs a session maps, and which read-only: it looks
 * a LUN up once (ixt_lun_get()) for both.
 */

#include <linux/percpu-refcount.h>
#include <linux/rculist.h>
#include <linux/unaligned.h>
#include <scsi/scsi_proto.h>
#include <target/target_core_backend.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>

#include "cmd.h"

/* The WRITE-family CDBs the target core parses for a block device. */
static bool ixt_resid_is_write(u8 opcode)
{
	switch (opcode) {
	case WRITE_6:
	case WRITE_10:
	case WRITE_VERIFY:
	case WRITE_12:
	case WRITE_16:
	case WRITE_VERIFY_16:
		return true;
	default:
		return false;
	}
}

/* The transfer length of a WRITE-family CDB, in blocks, and its LBA. */
static u32 ixt_resid_get_blocks(const u8 *cdb, u64 *lba)
{
	switch (cdb[0]) {
	case WRITE_6:
		*lba = get_unaligned_be24(&cdb[1]) & 0x1fffff;
		return cdb[4] ?: 256;
	case WRITE_10:
	case WRITE_VERIFY:
		*lba = get_unaligned_be32(&cdb[2]);
		return get_unaligned_be16(&cdb[7]);
	case WRITE_12:
		*lba = get_unaligned_be32(&cdb[2]);
		return get_unaligned_be32(&cdb[6]);
	default:
		*lba = get_unaligned_be64(&cdb[2]);
		return get_unaligned_be32(&cdb[10]);
	}
}

/*
 * Lowers the transfer length of @cdb to @blocks. WRITE(6) cannot say 0
 * blocks (0 means 256): it becomes the WRITE(10) of the same blocks.
 */
static void ixt_resid_set_blocks(u8 *cdb, u32 blocks)
{
	u32 lba;
	u8 control;

	switch (cdb[0]) {
	case WRITE_6:
		if (blocks) {
			cdb[4] = blocks;	/* 256 wraps to 0, as it should */
			return;
		}
		lba = get_unaligned_be24(&cdb[1]) & 0x1fffff;
		control = cdb[5];
		memset(cdb, 0, 10);
		cdb[0] = WRITE_10;
		put_unaligned_be32(lba, &cdb[2]);
		cdb[9] = control;
		return;
	case WRITE_10:
	case WRITE_VERIFY:
		put_unaligned_be16(blocks, &cdb[7]);
		return;
	case WRITE_12:
		put_unaligned_be32(blocks, &cdb[6]);
		return;
	default:
		put_unaligned_be32(blocks, &cdb[10]);
	}
}

/**
 * ixt_lun_get() - look up a LUN of a session, and how it is mapped
 * @se_sess: the session.
 * @lun: the LUN, unpacked.
 * @access: set to %IXT_LUN_RW or %IXT_LUN_RO when @se_sess maps @lun
 *	(read-write, or read-only: its mapping's write_protect) and it is
 *	not going away; %IXT_LUN_UNMAPPED otherwise.
 *
 * The session's LUN entries are walked under RCU as the target core's
 * own lookup does (transport_lookup_cmd_lun(), whose helper is not
 * exported in a public header).
 *
 * Context: Process context.
 * Return: the LUN with a reference (lun_ref) that keeps its device, to
 * drop with ixt_lun_put(); %NULL when @access is %IXT_LUN_UNMAPPED.
 */
struct se_lun *ixt_lun_get(struct se_session *se_sess, u64 lun,
			   enum ixt_lun_access *access)
{
	struct se_dev_entry *deve;
	struct se_lun *se_lun = NULL;

	*access = IXT_LUN_UNMAPPED;
	rcu_read_lock();
	hlist_for_each_entry_rcu(deve, &se_sess->se_node_acl->lun_entry_hlist,
				 link) {
		if (deve->mapped_lun != lun)
			continue;
		if (percpu_ref_tryget_live(&deve->se_lun->lun_ref)) {
			se_lun = deve->se_lun;
			*access = deve->lun_access_ro ? IXT_LUN_RO : IXT_LUN_RW;
		}
		break;
	}
	rcu_read_unlock();
	return se_lun;
}

/**
 * ixt_lun_put() - drop the reference ixt_lun_get() took
 * @se_lun: the LUN.
 *
 * Context: Any context.
 */
void ixt_lun_put(struct se_lun *se_lun)
{
	percpu_ref_put(&se_lun->lun_ref);
}

/**
 * ixt_lun_any_ro() - whether a session maps some LUN read-only
 * @se_sess: the session.
 *
 * Context: Process context.
 * Return: true when one of the LUNs @se_sess maps is write-protected.
 */
bool ixt_lun_any_ro(struct se_session *se_sess)
{
	struct se_dev_entry *deve;
	bool ro = false;

	rcu_read_lock();
	hlist_for_each_entry_rcu(deve, &se_sess->se_node_acl->lun_entry_hlist,
				 link) {
		if (deve->lun_access_ro) {
			ro = true;
			break;
		}
	}
	rcu_read_unlock();
	return ro;
}

/**
 * ixt_resid_fit_write() - fit a write's CDB to its expected length
 * @se_lun: the LUN it names, from ixt_lun_get().
 * @cdb: its CDB, at least %ISCSI_CDB_SIZE bytes.
 * @edtl: its Expected Data Transfer Length.
 * @fit: filled in when the write needs fitting.
 *
 * The LUN's device is looked up only for its geometry, and its size is
 * read only when the lengths differ; the target core looks the LUN up
 * again for the command and checks the lengths it is given, so a LUN
 * changed in between cannot make a write go past what its data covers.
 *
 * Context: Process context.
 * Return: true when @fit holds the CDB, data length and residual the
 * command goes to the target core with; false to submit it unchanged.
 */
bool ixt_resid_fit_write(struct se_lun *se_lun, const u8 *cdb, u32 edtl,
			 struct ixt_resid_fit *fit)
{
	u32 block_size, blocks, fit_blocks;
	struct se_device *dev;
	u64 lba, len;

	if (!ixt_resid_is_write(cdb[0]))
		return false;
	/* A pass-through device parses its CDBs itself. */
	dev = rcu_dereference_raw(se_lun->lun_se_dev);
	if (dev->transport_flags & TRANSPORT_FLAG_PASSTHROUGH)
		return false;
	blocks = ixt_resid_get_blocks(cdb, &lba);
	block_size = dev->dev_attrib.block_size;
	len = (u64)blocks * block_size;
	/* The device's size is read only for a write that needs fitting. */
	if (len == edtl || len > U32_MAX || lba + blocks < lba ||
	    lba + blocks > dev->transport->get_blocks(dev) + 1)
		return false;

	memcpy(fit->cdb, cdb, sizeof(fit->cdb));
	if (edtl > len) {
		fit->data_length = len;
		fit->flag = SCF_UNDERFLOW_BIT;
		fit->residual = edtl - len;
	} else {
		fit_blocks = edtl / block_size;
		ixt_resid_set_blocks(fit->cdb, fit_blocks);
		fit->data_length = fit_blocks * block_size;
		fit->flag = SCF_OVERFLOW_BIT;
		fit->residual = len - edtl;
	}
	return true;
}
