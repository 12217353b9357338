#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# No byte one initiator receives was written by another (Documentation/
# design.rst, "Read buffers"). The cache lines of the pool go from
# command to command; the target core fills the Data-In of most commands
# other than READ and WRITE only in part (RECEIVE COPY RESULTS writes some
# 46 bytes of a megabyte), so the fabric zeroes such a buffer before the
# core runs the command, as LIO does for the buffers it allocates.
#
# With a pool shrunk to 17 MiB (pool_mb), initiator a, its own ACL and
# LUN 0 on ramdisk a, writes 1 MiB of a marker (an 8-byte magic repeated)
# before each command of initiator b, another ACL whose LUN 0 is ramdisk
# b, never written: RECEIVE COPY RESULTS (also with an expected length
# below its allocation length, residual overflow, and above it,
# underflow), REQUEST SENSE, INQUIRY and its VPD pages, MODE SENSE(6) and
# (10), LOG SENSE, REPORT LUNS, READ CAPACITY(10) and (16), GET LBA
# STATUS, REPORT TARGET PORT GROUPS, REPORT SUPPORTED OPERATION CODES,
# PERSISTENT RESERVE IN (4 service actions), each with the largest
# allocation length its CDB takes up to 1 MiB and as much Expected Data
# Transfer Length (MaxBurstLength 1 MiB), a 1 MiB READ(10) of b's LUN,
# and a COMPARE AND WRITE sent with R=1 and W=0 of a block b filled with
# the marker, twice each, and READ(10) and READ(16) of LUN 0 from
# initiator c, whose ACL maps no LUN: the target core's virtual LUN 0, a
# ramdisk with rd_nullio=1 that completes a READ without writing its
# buffer. a writes 61 MiB per transport, three times the pool. Not one
# 8-byte stretch b or c receives equals the magic (before the fixes,
# RECEIVE COPY RESULTS sent it from its second page on, and c's READs
# sent the lines as a left them), and the COMPARE AND WRITE answers
# MISCOMPARE at offset 0: it compared the block with zeroes, not with
# a's lines (before, GOOD, and a's marker sent). Over TCP and over iSER
# (the raw clients ixt_iscsi.py and ixt_iser_raw.py driven by
# ixt_isolation.py; the iSER half SKIPs when the iSER transport, an RDMA
# device or pyverbs is missing). Afterwards every cache line is back in the pool and the
# target unloads.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_cmd python3
ixt_require_initiator
ixt_require_module
[ "$IXT_TARGET" = xt ] || ixt_skip_all "tenant_isolation.sh shrinks iscsi_xt's pool"

tgt=iqn.2026-11.org.example.isolation:t
portal=$IXT_ADDR4_T:3260
tpg=$IXT_FABRIC/$tgt/tpgt_1
rd_a=$IXT_CFS/core/rd_mcp_93/ixt_tenant_a
rd_b=$IXT_CFS/core/rd_mcp_93/ixt_tenant_b
ini_a=iqn.2026-11.org.example:ixt-tenant-a
ini_b=iqn.2026-11.org.example:ixt-tenant-b
ini_c=iqn.2026-11.org.example:ixt-tenant-c
mapfile -t cases < <(python3 "$ixt_libdir/ixt_isolation.py" --list)

trap ixt_cleanup EXIT

# raw CASE...: the cases over the transport $raw_client, their lines in
# $raw_out (for ixt_raw_cases).
raw_client=tcp
raw() {
	raw_out=$(cd "$ixt_libdir" && timeout $((600 * IXT_SLOW)) "$ixt_py" ixt_isolation.py \
		--target "$tgt" --host "$IXT_ADDR4_T" --transport "$raw_client" \
		--initiator-a "$ini_a" --initiator-b "$ini_b" --initiator-c "$ini_c" \
		--rounds 2 "$@" 2>&1)
}

# acl INITIATOR LUN: INITIATOR's ACL, its LUN 0 the TPG's LUN.
acl() {
	mkdir -p "$tpg/acls/$1/lun_0" &&
		ln -s "$tpg/lun/lun_$2" "$tpg/acls/$1/lun_0/lun0"
}

iser=$(ixt_iser_raw_missing)
ixt_begin $((2 * ${#cases[@]} + 2))
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
ixt_load pool_mb=17 || ktap_exit_fail_msg "cannot load iscsi_xt with pool_mb=17"
if [ -z "$iser" ]; then
	ixt_target_load || ktap_exit_fail_msg "cannot load the iSER transport"
fi
ktap_print_msg "pool: $(tr '\n' ' ' </sys/kernel/debug/iscsi_xt/pool)"
{
	ixt_rd_lun0 "$tpg" "$rd_a" 2048 &&
		mkdir -p "$rd_b" && echo "rd_pages=512" >"$rd_b/control" &&
		echo 1 >"$rd_b/enable" && mkdir -p "$tpg/lun/lun_1" &&
		ln -s "$rd_b" "$tpg/lun/lun_1/rd" &&
		ixt_demo_tpg "$tpg" "$portal" &&
		echo 0 >"$tpg/attrib/generate_node_acls" &&
		echo 1048576 >"$tpg/param/MaxBurstLength" &&
		acl "$ini_a" 0 && acl "$ini_b" 1 && mkdir "$tpg/acls/$ini_c"
} || ktap_exit_fail_msg "cannot configure the target"

ixt_raw_cases_tcp_iser "$tpg/np/$portal" "$iser" "${cases[@]}"

ixt_check "every cache line is back in the pool" ixt_pool_all_free
ixt_cfs_clear
ixt_check "the target unloads" ixt_target_unload
ixt_finish
