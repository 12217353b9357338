#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The write data path with open-iscsi over TCP, proved by fio: two LUNs on
# one demo-mode TPG, a ramdisk (rd_mcp) and iblock over a memory-backed
# null_blk, take random writes of 512 bytes, 4 KiB, 64 KiB and 1 MiB at
# iodepth 1 and 32, and read every block back with its CRC32C right (each
# cell writes an 8 MiB region of its own, so that data an earlier cell
# left cannot pass). Then ext4 on the iblock LUN: mkfs, a tree of files
# written and synced, and after a fresh login fsck finds it clean and
# every file reads back with its sha256. Four more logins negotiate other
# settings, and fio verifies 64 KiB and 1 MiB writes under each: (a)
# header and data digests; (b) ImmediateData=No, InitialR2T=Yes (every
# byte solicited);
# (c) MaxBurstLength 16 KiB, FirstBurstLength 8 KiB, InitialR2T=No and
# ImmediateData=No (unsolicited Data-Out, then many R2Ts per command);
# (d) the TPG's MaxXmitDataSegmentLength 4 KiB (which the target declares
# as its MaxRecvDataSegmentLength, as LIO does) with InitialR2T=No
# (immediate data, unsolicited and solicited Data-Out all in 4 KiB PDUs).
# iscsiadm shows each negotiated value. At the end the session logs out,
# the module unloads with every cache line back in the pool, and the
# target rejected no PDU.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd fio mkfs.ext4 fsck.ext4 sha256sum
ixt_require_initiator
modprobe -q target_core_iblock || ixt_skip_all "target_core_iblock unavailable"
modprobe -n -q null_blk || ixt_skip_all "null_blk unavailable"

tgt=iqn.2026-11.org.example.data:fio
portal=$IXT_ADDR4_T:3260
tpg=$IXT_FABRIC/$tgt/tpgt_1
rd=$IXT_CFS/core/rd_mcp_78/ixt_data_rd
ib=$IXT_CFS/core/iblock_78/ixt_data_nb
rd_pages=24576
mnt=$(mktemp -d)
work=$(mktemp -d)
# The disks of LUN 0 and LUN 1 in the current session, and the next
# unused 8 MiB region of each.
disk=()
region=(0 0)

# The TPG's offer for the login, as the TPG starts: restored before each
# login, which then changes only what it names.
params="HeaderDigest DataDigest InitialR2T ImmediateData MaxRecvDataSegmentLength
	MaxXmitDataSegmentLength MaxBurstLength FirstBurstLength"
declare -A param0

cleanup() {
	mountpoint -q "$mnt" && umount "$mnt"
	rm -rf "$mnt" "$work"
}
trap cleanup EXIT

node() {
	iscsiadm -m node -T $tgt -p "$portal" "$@" >/dev/null 2>&1
}

# login TARGET_SETTINGS INITIATOR_SETTINGS: log out if logged in, offer the
# TPG's defaults changed by TARGET_SETTINGS ("Key=Value ..."), make a new
# node record changed by INITIATOR_SETTINGS ("node.name=value ...") and log
# in; sets disk[] to the disks of LUN 0 and LUN 1.
login() {
	local kv

	node --logout
	node -o delete
	for kv in $params; do
		echo "${param0[$kv]}" >"$tpg/param/$kv" || return 1
	done
	for kv in $1; do
		echo "${kv#*=}" >"$tpg/param/${kv%%=*}" || return 1
	done
	node -o new || return 1
	for kv in $2; do
		node -o update -n "${kv%%=*}" -v "${kv#*=}" || return 1
	done
	node --login || return 1
	mapfile -t disk < <(ixt_session_disks 2)
	[ -n "${disk[0]}" ] && [ -n "${disk[1]}" ]
}

ixt_begin 43
ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"
ixt_null_blk nr_devices=1 memory_backed=1 gb=1 max_sectors=2048 ||
	ktap_exit_fail_msg "cannot load null_blk"

ixt_data_target "$tpg" "$rd" "$ib" $rd_pages "$portal" ||
	ktap_exit_fail_msg "cannot configure the target"
for p in $params; do
	param0[$p]=$(cat "$tpg/param/$p")
done

ixt_check "the initiator logs in, both LUNs show up as disks" login "" ""
ixt_check "their sizes are the ramdisk's and the null_blk's (${disk[*]})" \
	eval '[ "$(cat /sys/block/${disk[0]#/dev/}/size)" -eq $((rd_pages * 8)) ] &&
	      [ "$(cat /sys/block/${disk[1]#/dev/}/size)" -eq $((1 << 21)) ]'

# KiB per cell: fewer small requests, which the VM is slow to carry.
declare -A cell_kib=([512]=1024 [4k]=4096 [64k]=8192 [1M]=8192)
for lun in 0 1; do
	for qd in 1 32; do
		for bs in 512 4k 64k 1M; do
			ixt_check "LUN $lun: fio random writes verified, bs=$bs iodepth=$qd" \
				ixt_fio_cell $lun $bs $qd "${cell_kib[$bs]}"
		done
	done
done

ixt_check "mkfs.ext4 on LUN 1" \
	eval 'mkfs.ext4 -q -F "${disk[1]}" >"$work/mkfs" 2>&1 || { ixt_show_tail "$work/mkfs"; false; }'
ixt_check "a tree of files written, synced and unmounted" \
	eval 'mount "${disk[1]}" "$mnt" && ixt_write_tree "$mnt" "$work/sums" && sync && umount "$mnt"'
# A new session, so that nothing below is read from the initiator's caches.
ixt_check "a fresh login shows both LUNs again" login "" ""
ixt_check "fsck.ext4 -n -f finds the file system clean" \
	eval 'fsck.ext4 -n -f "${disk[1]}" >"$work/fsck" 2>&1 || { ixt_show_tail "$work/fsck"; false; }'
ixt_check "remounted, every file has its sha256" \
	eval 'mount -o ro "${disk[1]}" "$mnt" && (cd "$mnt" && sha256sum --quiet -c "$work/sums") &&
	      umount "$mnt"'

# scenario NAME TARGET_SETTINGS INITIATOR_SETTINGS NEGOTIATED...: a login
# with those settings, iscsiadm shows the NEGOTIATED values, and fio
# verifies 64 KiB writes at iodepth 8 on LUN 0 and 1 MiB writes at iodepth
# 4 on LUN 1.
scenario() {
	local name=$1 tset=$2 iset=$3

	shift 3
	ixt_check "$name: a fresh login shows both LUNs" login "$tset" "$iset"
	ixt_check "$name: negotiated $(printf '%s, ' "$@" | sed 's/, $//')" \
		ixt_negotiated "$@"
	ixt_check "$name: LUN 0: fio random writes verified, bs=64k iodepth=8" \
		ixt_fio_cell 0 64k 8 8192
	ixt_check "$name: LUN 1: fio random writes verified, bs=1M iodepth=4" \
		ixt_fio_cell 1 1M 4 8192
}

scenario "digests" "" \
	"node.conn[0].iscsi.HeaderDigest=CRC32C node.conn[0].iscsi.DataDigest=CRC32C" \
	"HeaderDigest: CRC32C" "DataDigest: CRC32C"
scenario "solicited only" "ImmediateData=No InitialR2T=Yes" \
	"node.session.iscsi.ImmediateData=No node.session.iscsi.InitialR2T=Yes" \
	"ImmediateData: No" "InitialR2T: Yes"
scenario "small bursts" \
	"MaxBurstLength=16384 FirstBurstLength=8192 InitialR2T=No ImmediateData=No" \
	"node.session.iscsi.MaxBurstLength=16384 node.session.iscsi.FirstBurstLength=8192 node.session.iscsi.InitialR2T=No node.session.iscsi.ImmediateData=No" \
	"MaxBurstLength: 16384" "FirstBurstLength: 8192" "InitialR2T: No" "ImmediateData: No"
scenario "4 KiB PDUs" "MaxXmitDataSegmentLength=4096 InitialR2T=No" \
	"node.session.iscsi.InitialR2T=No node.session.iscsi.ImmediateData=Yes" \
	"MaxXmitDataSegmentLength: 4096" "InitialR2T: No" "ImmediateData: Yes"

ixt_check "the initiator logs out" node --logout
node -o delete
rm "$tpg/lun/lun_0/rd" "$tpg/lun/lun_1/nb"
rmdir "$tpg/lun/lun_0" "$tpg/lun/lun_1" "$tpg/np/$portal" "$tpg" "$IXT_FABRIC/$tgt"
rmdir "$rd" "$(dirname "$rd")" "$ib" "$(dirname "$ib")"
rmmod null_blk
ixt_check "every cache line is back in the pool" ixt_pool_all_free
ixt_unload
ixt_check "iscsi_xt unloads" [ ! -d /sys/module/iscsi_xt ]
ixt_check "nothing was rejected" eval '! ixt_klog_since_mark | grep -q "rejecting"'
ixt_finish
