#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A command the backend holds does not hold up its session
# (ixt_slowcmd.py, a raw initiator over TCP). LUN 0: iblock over dm-delay
# over null_blk, its first MiB linear, every write and discard past it
# held 2 s (times IXT_SLOW); UNMAP waits for the discard inside the call
# to the backend. LUN 1: fileio over dm-delay holding every read and
# write; fileio reads and writes inside the call. Behind such a command
# on the same connection: a NOP-Out is answered first (the parameter
# list immediate, or solicited by an R2T), and so are a fileio READ's and
# WRITE's; a SIMPLE READ of the linear MiB passes a SIMPLE UNMAP, an
# ORDERED one waits for it (SAM task attributes); of 12 immediate
# UNMAPs, at most the queue depth (4 here) take a place of the command
# window and reach the backend, the others are answered TASK SET FULL at
# once, and so is the NOP-Out behind them; a connection closed
# with an UNMAP held leaves the next session reading; the TPG disabled
# with an UNMAP held still answers the Logout its Async Message asked
# for before it closes the connection. Over TCP: 300
# UNMAPs of a session of queue depth 320 held at once, more than a
# workqueue runs at once on a CPU, and another session's NOP-Out is
# answered at once; 600 of one initiator's, in two sessions, more than a
# workqueue runs at all, and another initiator's TEST UNIT READY (which
# runs in a work item too) is answered at once. The same cases run
# over iSER (SKIP without pyverbs or an RDMA device). Over iSER only:
# 160 writes of 4 KiB, all immediate data, held at once: 128 keep the
# receive buffer their data came in (the most a connection lends), 32
# are copied, all read back; 8 more are lent again. Then every cache
# line is back in the pool and the module unloads.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd python3 dmsetup
modprobe -q target_core_iblock || ixt_skip_all "target_core_iblock unavailable"
modprobe -q target_core_file || ixt_skip_all "target_core_file unavailable"
modprobe -n -q null_blk || ixt_skip_all "null_blk unavailable"
modprobe -q dm-delay || ixt_skip_all "dm-delay unavailable"

tgt=iqn.2026-11.org.example.slowbackend:t
portal=$IXT_ADDR4_T:3260
tpg=$IXT_FABRIC/$tgt/tpgt_1
ib=$IXT_CFS/core/iblock_86/ixt_sb_unmap
fd=$IXT_CFS/core/fileio_86/ixt_sb_file
# held_fills_no_queue's ACL: a queue depth of 320.
deep=$tpg/acls/iqn.2026-11.org.example:ixt-slowcmd-deep
delay_ms=$((2000 * IXT_SLOW))
# held_fills_no_queue's and held_other_initiator's: their UNMAPs, held
# far longer than a loaded machine may keep another session's answer,
# and at most 15 s: the raw client reads no connection but the one it
# waits on, and the target closes one that leaves its NOP-In unanswered
# for 15 + 30 s (the defaults), while held_other_initiator's last
# UNMAPs (past the 512 a workqueue runs) end at twice the hold.
long_ms=$((12000 * IXT_SLOW))
[ "$long_ms" -le 15000 ] || long_ms=15000
cases=(unmap_nop unmap_r2t_nop unmap_read_passes unmap_then_ordered
	fileio_read_nop fileio_write_nop held_bounded close_while_held
	logout_asked_while_held)
# dmsetup creates the device node itself: there is no udev in the VM.
export DM_DISABLE_UDEV=1

cleanup() {
	ixt_cleanup
	dmsetup remove ixt_sb_unmap
	dmsetup remove ixt_sb_file
	[ -d /sys/module/null_blk ] && rmmod null_blk
} >/dev/null 2>&1
trap cleanup EXIT

# raw ARGS...: ixt_slowcmd.py's cases ARGS, their lines in $raw_out, over
# the transport $raw_client.
raw_client=tcp
raw() {
	local over=()

	[ "$raw_client" = tcp ] || over=(--iser)
	raw_out=$(timeout $((600 * IXT_SLOW)) "$ixt_py" "$ixt_libdir/ixt_slowcmd.py" \
		--target "$tgt" --host "$IXT_ADDR4_T" "${over[@]}" \
		--delay $((delay_ms / 1000)) --long-delay $((long_ms / 1000)) \
		--depth 4 "$@" 2>&1)
}

# The two held devices: nullb0's first MiB linear, the rest of its first
# half holding writes and discards delay_ms, its second half long_ms;
# nullb1 holding everything.
slow_devices() {
	local sz half

	ixt_null_blk nr_devices=2 memory_backed=1 gb=1 discard=1 || return 1
	sz=$(cat /sys/block/nullb0/size)
	half=$((sz / 2))
	printf '0 2048 linear /dev/nullb0 0\n2048 %d delay /dev/nullb0 2048 0 /dev/nullb0 2048 %d\n%d %d delay /dev/nullb0 %d 0 /dev/nullb0 %d %d\n' \
		$((half - 2048)) $delay_ms $half $((sz - half)) $half $half \
		$long_ms | dmsetup create ixt_sb_unmap &&
		echo "0 $sz delay /dev/nullb1 0 $delay_ms" |
		dmsetup create ixt_sb_file
}

iser=$(ixt_iser_raw_missing)
ixt_begin $((2 * ${#cases[@]} + 6))
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
if [ -z "$iser" ]; then
	ixt_insmod_iser
else
	ixt_load
fi || ktap_exit_fail_msg "cannot load iscsi_xt"
slow_devices || ktap_exit_fail_msg "cannot set up the held devices"
{
	mkdir -p "$ib" && echo udev_path=/dev/mapper/ixt_sb_unmap >"$ib/control" &&
		echo 1 >"$ib/enable" && echo 1 >"$ib/attrib/emulate_tpu" &&
		mkdir -p "$fd" &&
		echo "fd_dev_name=/dev/mapper/ixt_sb_file,fd_dev_size=$((1 << 30))" \
			>"$fd/control" && echo 1 >"$fd/enable" &&
		mkdir -p "$tpg/lun/lun_0" "$tpg/lun/lun_1" &&
		ln -s "$ib" "$tpg/lun/lun_0/ib" && ln -s "$fd" "$tpg/lun/lun_1/fd" &&
		echo 4 >"$tpg/attrib/default_cmdsn_depth" &&
		mkdir -p "$deep/lun_0" "$deep/lun_1" &&
		ln -s "$tpg/lun/lun_0" "$deep/lun_0/map" &&
		ln -s "$tpg/lun/lun_1" "$deep/lun_1/map" &&
		echo 320 >"$deep/cmdsn_depth" &&
		ixt_demo_tpg "$tpg" "$portal"
} || ktap_exit_fail_msg "cannot configure the target"

ixt_raw_cases_tcp_iser "$tpg/np/$portal" "$iser" "${cases[@]}"
# An iSER connection takes fewer commands than its receive buffers.
raw_client=tcp
ixt_raw_cases held_fills_no_queue held_other_initiator
# iSER lends a write its receive buffer, at most 128 a connection.
if [ -z "$iser" ]; then
	echo 1 >"$tpg/np/$portal/iser" || ktap_exit_fail_msg "cannot turn iSER on"
	raw_client=iser
	ixt_raw_cases lend_bounded
	echo 0 >"$tpg/np/$portal/iser"
else
	ktap_test_skip "lend_bounded: $iser"
fi
ixt_check "every cache line is back in the pool" ixt_pool_all_free
ixt_cfs_clear
ixt_check "the held devices are let go" \
	eval 'dmsetup remove ixt_sb_unmap && dmsetup remove ixt_sb_file'
ixt_check "iscsi_xt unloads" ixt_target_unload
ixt_finish
