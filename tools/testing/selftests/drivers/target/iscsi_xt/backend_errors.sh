#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Backend errors under IO, over each transport of $IXT_TRANSPORTS ("tcp
# iser" by default; iSER SKIPs with the reason when it cannot run): while
# fio writes and verifies LUN 1 (a ramdisk), commands to the other LUNs
# fail in the backend, sent with sg_raw through open-iscsi's disks (SG_IO:
# no retries, the status and sense as the target sent them):
#
# - LUN 0, iblock over null_blk with bad blocks: READ(10) and WRITE(10) of
#   them get CHECK CONDITION; iblock reports no sense of its own, so the
#   target core's NOT READY, LOGICAL UNIT COMMUNICATION FAILURE (04/08/00)
#   is what the initiator sees. The blocks around them read and write.
# - LUN 2, iblock over dm-flakey over a loop device: with error_writes a
#   write gets CHECK CONDITION and a read still works; with drop_writes a
#   write gets GOOD and never lands: only reading it back shows it. The
#   target cannot see a write its backend drops and acknowledges; data
#   verification above it (fio --verify, a file system's checksums) can.
# - LUN 3, pscsi over a scsi_debug disk reporting medium errors: a READ of
#   the bad blocks gets CHECK CONDITION with the device's own sense,
#   MEDIUM ERROR, UNRECOVERED READ ERROR (03/11/00); LUN 4, iblock over a
#   second scsi_debug disk of the same store: the core's sense instead,
#   as on LUN 0.
#
# Throughout, the session stays up (the same session id before and
# after), fio verifies every run, and no I/O error reaches the healthy
# LUN; afterwards every cache line is back in the pool and no object of
# the target's modules is left behind.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_cmd sg_raw dmsetup losetup truncate fio cmp
ixt_require_initiator
ixt_require_module

tgt=iqn.2026-11.org.example.backend:errors
portal=$IXT_ADDR4_T:3260
tpg=$IXT_FABRIC/$tgt/tpgt_1
core=$IXT_CFS/core
nullb=/sys/kernel/config/nullb/ixt_bad
flaky=ixt_flaky
transports=${IXT_TRANSPORTS:-tcp iser}
# dmsetup creates the device node itself: there is no udev in the VM.
export DM_DISABLE_UDEV=1
owners=(iscsi_xt target_core_mod)
bad_lba=8192		# null_blk's bad blocks: 8 from here
medium_lba=1024		# scsi_debug's medium errors: 8 from here
loop=

# devices_gone: the devices under the backstores removed, once the
# target core lets go of them (a memory-backed null_blk keeps pages the
# target's writes allocated), and null_blk unloaded: the tests after
# this one in the same boot may want its default device.
devices_gone() {
	dmsetup remove "$flaky"
	[ -n "$loop" ] && losetup -d "$loop" && loop=
	[ -d "$nullb" ] && echo 0 >"$nullb/power" && rmdir "$nullb"
	[ ! -d /sys/module/null_blk ] || rmmod null_blk
	[ ! -d /sys/module/scsi_debug ] || rmmod scsi_debug
} 2>/dev/null

cleanup() {
	ixt_fio_loop_stop
	ixt_cleanup
	devices_gone
}
trap cleanup EXIT

# flaky MODE: dm-flakey's table over the loop device, down all the time
# with MODE (error_writes, drop_writes), or linear for "up".
flaky() {
	local sectors table

	sectors=$(blockdev --getsz "$loop")
	if [ "$1" = up ]; then
		table="0 $sectors linear $loop 0"
	else
		table="0 $sectors flakey $loop 0 0 1 1 $1"
	fi
	dmsetup suspend "$flaky" && dmsetup load "$flaky" --table "$table" &&
		dmsetup resume "$flaky"
}

# The scsi_debug disks, "H:C:T:L /dev/sdX" per line.
scsi_debug_disks() {
	local d

	for d in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*:*/block/*; do
		[ -e "$d" ] || continue
		echo "$(basename "$(dirname "$(dirname "$d")")") /dev/$(basename "$d")"
	done | sort
}

# backstores: LUN 0 iblock over null_blk with bad blocks, LUN 1 ramdisk,
# LUN 2 iblock over dm-flakey, LUN 3 pscsi and LUN 4 iblock over two
# scsi_debug disks with medium errors.
backstores() {
	local hctl dev dev2 nbdev

	ixt_null_blk nr_devices=0 &&
		mkdir "$nullb" && echo 1 >"$nullb/memory_backed" &&
		echo 64 >"$nullb/size" &&
		echo "+$bad_lba-$((bad_lba + 7))" >"$nullb/badblocks" &&
		echo 1 >"$nullb/power" || return 1
	nbdev=/dev/${nullb##*/}	# a configfs null_blk is named after its folder
	modprobe -q loop && modprobe -q dm_flakey &&
		truncate -s 16M "$IXT_WORK/flaky.img" &&
		loop=$(losetup -f --show "$IXT_WORK/flaky.img") &&
		dmsetup create "$flaky" --table "0 32768 linear $loop 0" || return 1
	modprobe scsi_debug dev_size_mb=8 max_luns=2 opts=2 \
		medium_error_start=$medium_lba medium_error_count=8 || return 1
	ixt_wait 10 eval '[ "$(scsi_debug_disks | wc -l)" -eq 2 ]' || return 1
	read -r hctl dev < <(scsi_debug_disks | sed -n 1p)
	read -r _ dev2 < <(scsi_debug_disks | sed -n 2p)
	[ -b "$dev" ] && [ -b "$dev2" ] || return 1
	IFS=: read -r h c t l <<<"$hctl"
	mkdir -p "$core/iblock_90/bad" &&
		echo "udev_path=$nbdev" >"$core/iblock_90/bad/control" &&
		echo 1 >"$core/iblock_90/bad/enable" &&
		mkdir -p "$core/rd_mcp_90/good" &&
		echo rd_pages=8192 >"$core/rd_mcp_90/good/control" &&
		echo 1 >"$core/rd_mcp_90/good/enable" &&
		mkdir -p "$core/iblock_91/flaky" &&
		echo "udev_path=/dev/mapper/$flaky" >"$core/iblock_91/flaky/control" &&
		echo 1 >"$core/iblock_91/flaky/enable" &&
		mkdir -p "$core/pscsi_90/medium" &&
		echo "scsi_host_id=$h,scsi_channel_id=$c,scsi_target_id=$t,scsi_lun_id=$l" \
			>"$core/pscsi_90/medium/control" &&
		echo "$dev" >"$core/pscsi_90/medium/udev_path" &&
		echo 1 >"$core/pscsi_90/medium/enable" &&
		mkdir -p "$core/iblock_92/medium" &&
		echo "udev_path=$dev2" >"$core/iblock_92/medium/control" &&
		echo 1 >"$core/iblock_92/medium/enable" || return 1
	lun 0 "$core/iblock_90/bad" && lun 1 "$core/rd_mcp_90/good" &&
		lun 2 "$core/iblock_91/flaky" && lun 3 "$core/pscsi_90/medium" &&
		lun 4 "$core/iblock_92/medium"
}

lun() {
	mkdir -p "$tpg/lun/lun_$1" && ln -s "$2" "$tpg/lun/lun_$1/${2##*/}"
}

# faults TRANSPORT: the faults over one transport, fio on LUN 1 meanwhile.
faults() {
	# shellcheck disable=SC2034 # d0..d4 are used in the evals
	local t=$1 iface=${1/tcp/default} sid d0 d1 d2 d3 d4

	if [ "$t" = iser ] && [ -n "$iser" ]; then
		ixt_skip_n $per_transport "iSER: $iser"
		return
	fi
	ixt_check "$t: open-iscsi logs in and sees the 5 LUNs" \
		eval 'ixt_login "$iface" "$tgt" "$portal" && sid=$(ixt_sid "$t" "$tgt") &&
		      d0=$(ixt_sid_disk "$sid" 0) && d1=$(ixt_sid_disk "$sid" 1) &&
		      d2=$(ixt_sid_disk "$sid" 2) && d3=$(ixt_sid_disk "$sid" 3) &&
		      d4=$(ixt_sid_disk "$sid" 4)'
	if [ ! -b "$d4" ]; then
		for _ in $(seq $((per_transport - 1))); do
			ktap_test_fail "$t: no session"
		done
		return
	fi
	ixt_fio_loop_start "$d1"

	ixt_check "$t: null_blk bad blocks: READ and WRITE get CHECK CONDITION, NOT READY, LOGICAL UNIT COMMUNICATION FAILURE" \
		eval '! ixt_sg_read "$d0" $bad_lba &&
		      ixt_check_condition "not ready" "logical unit communication failure" &&
		      ! ixt_sg_write "$d0" $((bad_lba + 4)) "$IXT_WORK/pattern" &&
		      ixt_check_condition "not ready" "logical unit communication failure"'
	ixt_check "$t: null_blk: the blocks around the bad ones read and write" \
		eval 'ixt_sg_write "$d0" $((bad_lba - 8)) "$IXT_WORK/pattern" &&
		      ixt_sg_read "$d0" $((bad_lba - 8)) && cmp -s "$IXT_WORK/read" "$IXT_WORK/pattern" &&
		      ixt_sg_write "$d0" $((bad_lba + 8)) "$IXT_WORK/pattern" &&
		      ixt_sg_read "$d0" $((bad_lba + 8)) && cmp -s "$IXT_WORK/read" "$IXT_WORK/pattern"'

	ixt_check "$t: dm-flakey error_writes: a write gets CHECK CONDITION, a read GOOD" \
		eval 'ixt_sg_write "$d2" 64 "$IXT_WORK/zero" && flaky error_writes &&
		      ! ixt_sg_write "$d2" 64 "$IXT_WORK/pattern" &&
		      ixt_check_condition "not ready" "logical unit communication failure" &&
		      ixt_sg_read "$d2" 64 && cmp -s "$IXT_WORK/read" "$IXT_WORK/zero"'
	ixt_check "$t: dm-flakey drop_writes: a write gets GOOD and never lands (only a read-back shows it)" \
		eval 'flaky drop_writes && ixt_sg_write "$d2" 64 "$IXT_WORK/pattern" &&
		      ixt_sg_read "$d2" 64 && cmp -s "$IXT_WORK/read" "$IXT_WORK/zero"'
	ixt_check "$t: dm-flakey up again: the write lands" \
		eval 'flaky up && ixt_sg_write "$d2" 64 "$IXT_WORK/pattern" &&
		      ixt_sg_read "$d2" 64 && cmp -s "$IXT_WORK/read" "$IXT_WORK/pattern"'

	ixt_check "$t: pscsi over scsi_debug: CHECK CONDITION with the device's MEDIUM ERROR, UNRECOVERED READ ERROR" \
		eval '! ixt_sg_read "$d3" $medium_lba &&
		      ixt_check_condition "medium error" "unrecovered read error"'
	ixt_check "$t: iblock over scsi_debug: CHECK CONDITION with the core's NOT READY instead" \
		eval '! ixt_sg_read "$d4" $medium_lba &&
		      ixt_check_condition "not ready" "logical unit communication failure"'

	ixt_check "$t: fio verified every run on LUN 1 meanwhile" ixt_fio_loop_end
	ixt_check "$t: the session stayed up (same session id $sid)" \
		eval '[ "$(ixt_sid "$t" "$tgt")" = "$sid" ]'
	ixt_check "$t: logout" ixt_node "$iface" "$tgt" "$portal" --logout
	ixt_node "$iface" "$tgt" "$portal" -o delete
}

iser=$(ixt_iser_missing)
per_transport=11
read -ra tlist <<<"$transports"
ixt_begin $((per_transport * ${#tlist[@]} + 3))
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
ixt_work || ktap_exit_fail_msg "no work directory"
head -c 4096 /dev/urandom >"$IXT_WORK/pattern"
head -c 4096 /dev/zero >"$IXT_WORK/zero"
if [ -z "$iser" ]; then
	ixt_target_load
else
	ixt_load
fi || ktap_exit_fail_msg "cannot load iscsi_xt"
[ -z "$iser" ] && owners+=(iscsi_xt_iser)
iser_on=0
[ -z "$iser" ] && iser_on=1
backstores && ixt_demo_tpg "$tpg" "$portal" $iser_on ||
	ktap_exit_fail_msg "cannot set up the backstores and the target"
ixt_owned_mark "${owners[@]}"

for t in "${tlist[@]}"; do
	faults "$t"
done

ixt_check "every cache line is back in the pool" ixt_pool_all_free
ixt_cfs_clear
devices_gone
ixt_owned_check "by the faults, once the configuration and the devices are gone" \
	"${owners[@]}"
ixt_check "the target unloads" ixt_target_unload
ixt_finish
