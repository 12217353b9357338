/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <scsi/scsi.h>, which <scsi/iscsi_proto.h>
 * includes: only the two definitions it needs, as <scsi/scsi_proto.h>
 * has them.
 */
#ifndef _IXT_SHIM_SCSI_SCSI_H
#define _IXT_SHIM_SCSI_SCSI_H

#include <linux/types.h>

#define SCSI_MAX_VARLEN_CDB_SIZE	260

struct scsi_lun {
	__u8 scsi_lun[8];
};

#endif /* _IXT_SHIM_SCSI_SCSI_H */
