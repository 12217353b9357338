#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Task management over TCP with open-iscsi. On a LUN over a slow null_blk
# (every command takes 3 s), a LOGICAL UNIT RESET sent with sg_reset
# while a read is in the backend waits for it and completes, and the
# session stays usable. LUN resets sent while a write runs on a ramdisk
# LUN lose no data. At the end every cache line is back in the pool and
# the module unloads. (open-iscsi sends ABORT TASK only when a timed-out
# command's connection looks dead, so the raw client tests that one.)

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd dd sg_reset cmp
ixt_require_initiator

tgt=iqn.2026-11.org.example.tmf:t
portal=$IXT_ADDR4_T:3260
rd=$IXT_CFS/core/rd_mcp_78/ixt_tmf_rd
ib=$IXT_CFS/core/iblock_78/ixt_tmf_slow
tpg=$IXT_FABRIC/$tgt/tpgt_1

node() {
	iscsiadm -m node -T $tgt -p "$portal" "$@" >/dev/null 2>&1
}

# The disk of LUN $1 of our session.
lun_disk() {
	local h

	for h in /sys/class/scsi_disk/*:*:*:"$1"; do
		[ -e "$h" ] || continue
		grep -q "$tgt" "$h/device/../../iscsi_session/"*/targetname 2>/dev/null ||
			continue
		ls "$h/device/block" 2>/dev/null | head -n 1
		return 0
	done
	return 1
}

wait_lun_disk() {
	local i d

	for ((i = 0; i < 60; i++)); do
		d=$(lun_disk "$1") && [ -b "/dev/$d" ] && echo "$d" && return 0
		sleep 1
	done
	return 1
}

ixt_begin 9
ixt_null_blk nr_devices=1 irqmode=2 completion_nsec=3000000000 ||
	ktap_exit_fail_msg "cannot load null_blk"
ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"

mkdir -p "$rd" && echo rd_pages=2048 >"$rd/control" && echo 1 >"$rd/enable"
mkdir -p "$ib" && echo udev_path=/dev/nullb0 >"$ib/control" &&
	echo 1 >"$ib/enable"
mkdir -p "$tpg/lun/lun_0" "$tpg/lun/lun_1"
ln -s "$ib" "$tpg/lun/lun_0/slow"
ln -s "$rd" "$tpg/lun/lun_1/rd"
mkdir "$tpg/np/$portal"
echo 0 >"$tpg/attrib/authentication"
echo 1 >"$tpg/attrib/generate_node_acls"
echo 0 >"$tpg/attrib/demo_mode_write_protect"
echo 1 >"$tpg/enable"

node -o new
node -o update -n node.session.err_timeo.abort_timeout -v 10
node -o update -n node.session.err_timeo.lu_reset_timeout -v 10
ixt_check "the initiator logs in" node --login
slow=$(wait_lun_disk 0)
fast=$(wait_lun_disk 1)
ixt_check "both LUNs show up ($slow, $fast)" eval '[ -n "$slow" ] && [ -n "$fast" ]'

dd if="/dev/$slow" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null &
reader=$!
sleep 1
sg_reset -d "/dev/$slow" >/dev/null 2>&1
ixt_check "a LUN reset with a read in the backend completes" \
	eval 'ixt_klog_since_mark | grep -q "task management function 5 on LUN 0"'
ixt_check "... and the read completes" wait $reader


pat=$(mktemp)
head -c 4M /dev/urandom >"$pat"
dd if="$pat" of="/dev/$fast" bs=64k oflag=direct 2>/dev/null &
writer=$!
for i in 1 2 3; do
	sg_reset -d "/dev/$fast" >/dev/null 2>&1
	sleep 0.3
done
wait $writer
ixt_check "LUN resets under a write are carried out" \
	eval 'ixt_klog_since_mark | grep -q "task management function 5 on LUN 1"'
ixt_check "the data written across the resets reads back equal" \
	eval 'dd if="$pat" of="/dev/$fast" bs=64k oflag=direct 2>/dev/null;
	      cmp <(dd if="/dev/$fast" bs=1M count=4 iflag=direct 2>/dev/null) "$pat"'
rm -f "$pat"
ixt_check "the initiator logs out" node --logout
node -o delete
ixt_check "every cache line is back in the pool" ixt_pool_all_free
rm "$tpg/lun/lun_0/slow" "$tpg/lun/lun_1/rd"
rmdir "$tpg/lun/lun_0" "$tpg/lun/lun_1" "$tpg/np/$portal" "$tpg" \
	"$IXT_FABRIC/$tgt"
rmdir "$rd" "$(dirname "$rd")" "$ib" "$(dirname "$ib")"
ixt_unload
rmmod null_blk
ixt_check "iscsi_xt unloads" [ ! -d /sys/module/iscsi_xt ]
ixt_finish
