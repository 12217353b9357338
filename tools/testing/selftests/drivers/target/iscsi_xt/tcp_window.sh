#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The command window adapts to the backend (debugfs "sessions" shows it).
# On a ramdisk LUN, 4 KiB reads at iodepth 32 keep the window at the
# ACL's queue depth (with a goal of 100 ms, which a ramdisk stays far
# below however loaded the host). On iblock over a null_blk that serves
# one command at a time in 5 ms, the same load makes the backend's
# response time grow with the window, and the window shrinks until it
# meets the 10 ms goal (MaxCmdSN follows, and the ACL's info shows it in
# LIO's columns: CmdSN/WR the window, CmdSN/WC MaxCmdSN - ExpCmdSN + 1),
# with no I/O error: the commands wait in the initiator instead. The
# raw initiator's writes that wait for their data each take a place of
# the window: the room MaxCmdSN leaves shrinks by one with each, and
# their responses give it back, and the place of one of a full window
# aborted (no response of its own) is announced by an unsolicited
# NOP-In. Immediate commands take a place each too: with the window
# full of immediate writes held, the next immediate one is answered TASK
# SET FULL. With window_goal_us=0 the window stays at the queue depth, as
# LIO's. With a small cache-line pool (20 MiB), 1 MiB writes at iodepth
# 32 run it dry: the pool counts it, the pressure caps the window to what
# fits in the pool and lifts the cap once the writes are done, and fio
# verifies every byte. Pool pressure caps every session's window: a
# raw session that only idles is capped at its share too, and lifted
# with the other once its 8 MiB writes are answered. Through the same
# pool, the raw initiator's third 8 MiB write, sent while two wait for
# the Data-Out their R2Ts asked for, is answered TASK SET FULL at once
# (put off, it would stall that data behind it); all three then complete
# and read back equal. Eight 8 MiB writes aborted in turn while their
# R2Ts go unanswered give their lines back at once: each gets its R2T,
# all lines are free with the connection up, late Data-Out is dropped,
# and another session's 8 MiB write goes through. Three 8 MiB writes
# past a CmdSN hole hold the lines of one only (an eighth of the pool,
# at least one maximal command); the two others are answered TASK SET
# FULL at once, and the first completes once the hole closes. The share
# is the initiator's: in a second session of the same initiator an 8 MiB
# write past a hole of its own is answered TASK SET FULL, while another
# initiator's is held; both held ones complete. So it is over TPGs: in a
# second TPG of the target, the same initiator's write past a hole is
# answered TASK SET FULL while one of TPG 1 holds the share, and
# sessions_per_initiator (set to 2) counts its sessions of both TPGs. The data of NOP-Outs
# past a hole, which the target copies, is bounded too: four 64 KiB
# pings are held and echoed in order once the hole closes, and past a
# second hole the fifth closes the connection (256 KiB a session).
# Commands
# of other sessions that find the pool short wait in turn: a 4 KiB write
# does not overtake a 1 MiB one that waits before it. The session's
# statistics count each SCSI Command PDU once however often the pool put
# it off (as the debugfs cost file does). R2Ts keep to the send queue's
# bound: with MaxBurstLength 512, TCP send buffers of 4 KiB and a peer
# that reads nothing but answers R2T after R2T blind, the PDUs queued
# (debugfs "sessions") stay within 256 and a few. At the end every line
# is back in the pool and the module unloads.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd fio python3
ixt_require_initiator
modprobe -q target_core_iblock || ixt_skip_all "target_core_iblock unavailable"
modprobe -n -q null_blk || ixt_skip_all "null_blk unavailable"

tgt=iqn.2026-11.org.example.window:t
portal=$IXT_ADDR4_T:3260
tpg=$IXT_FABRIC/$tgt/tpgt_1
# A second TPG of the target, in demo mode, LUN 0 the same ramdisk: the
# initiator's shares are over every TPG (ffp_pool_hole_share_tpgs,
# sessions_per_initiator_tpgs).
tpg2=$IXT_FABRIC/$tgt/tpgt_2
portal2=$IXT_ADDR4_T:3261
rd=$IXT_CFS/core/rd_mcp_79/ixt_win_rd
ib=$IXT_CFS/core/iblock_79/ixt_win_slow
dbg=/sys/kernel/debug/iscsi_xt
me=$(sed -n 's/^InitiatorName=//p' /etc/iscsi/initiatorname.iscsi)
# The raw initiator's ACL, with a dataout_timeout of 30 s: the timeout is
# each write's, and the cases that hold writes waiting for Data-Out (a
# window full of them, four in turn behind two other sessions) may keep
# one waiting past the default 3 s under TCG, the more so on a debug
# kernel.
raw_ini=iqn.2026-11.org.example:ixt-raw

node() {
	iscsiadm -m node -T $tgt -p "$portal" "$@" >/dev/null 2>&1
}

# Field NAME of the one session in debugfs "sessions".
sess_field() {
	awk -v f="$1" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		       { print $col[f]; exit }' "$dbg/sessions"
}

# fio_run DISK FIO-OPTION...: libaio, O_DIRECT, iodepth 32 over 32 MiB;
# fails on any I/O or verify error.
fio_run() {
	local disk=$1 out

	shift
	out=$(timeout 180 fio --name=ixt --filename="$disk" --ioengine=libaio \
		--direct=1 --iodepth=32 --size=32M "$@" \
		--output-format=terse --terse-version=3 2>&1) || {
		ktap_print_msg "fio: $(tail -n 3 <<<"$out" | tr '\n' ' ')"
		return 1
	}
	[ "$(tail -n 1 <<<"$out" | cut -d';' -f5)" = 0 ]
}

# fio_load DISK SECONDS: 4 KiB random reads for SECONDS (times IXT_SLOW:
# on the debug kernel the window needs that long to settle).
fio_load() {
	fio_run "$1" --rw=randread --bs=4k --time_based --runtime=$(($2 * IXT_SLOW))
}

login() {
	node -o new && node --login && mapfile -t disk < <(ixt_session_disks 2) &&
		[ -n "${disk[1]}" ]
}

logout() {
	node --logout
	node -o delete
}

# On a slow kernel (IXT_SLOW), the raw client's NOP-In timeouts at their
# most: it serves its sessions one after another, and on the debug kernel
# one it left alone while the others' writes went through missed a NOP-In
# for the 30 s of the default (ffp_pool_caps_every_session).
slow_nopin() {
	[ "$IXT_SLOW" -gt 1 ] || return 0
	echo 60 >"$tpg/acls/$raw_ini/attrib/nopin_timeout" &&
		echo 60 >"$tpg/acls/$raw_ini/attrib/nopin_response_timeout"
}

setup() {
	mkdir -p "$rd" && echo rd_pages=16384 >"$rd/control" &&
		echo 1 >"$rd/enable" || return 1
	mkdir -p "$ib" && echo udev_path=/dev/nullb0 >"$ib/control" &&
		echo 1 >"$ib/enable" || return 1
	mkdir -p "$tpg/lun/lun_0" "$tpg/lun/lun_1" &&
		ln -s "$rd" "$tpg/lun/lun_0/rd" &&
		ln -s "$ib" "$tpg/lun/lun_1/slow" &&
		mkdir "$tpg/np/$portal" &&
		for ini in "$me" "$raw_ini"; do
			mkdir -p "$tpg/acls/$ini/lun_0" "$tpg/acls/$ini/lun_1" &&
			ln -s "$tpg/lun/lun_0" "$tpg/acls/$ini/lun_0/map" &&
			ln -s "$tpg/lun/lun_1" "$tpg/acls/$ini/lun_1/map" ||
			return 1
		done &&
		echo 30 >"$tpg/acls/$raw_ini/attrib/dataout_timeout" &&
		slow_nopin &&
		echo 0 >"$tpg/attrib/authentication" &&
		echo 1 >"$tpg/attrib/generate_node_acls" &&
		echo 0 >"$tpg/attrib/demo_mode_write_protect" &&
		echo 1 >"$tpg/enable" || return 1
	mkdir -p "$tpg2/lun/lun_0" && ln -s "$rd" "$tpg2/lun/lun_0/rd" &&
		mkdir "$tpg2/np/$portal2" &&
		echo 0 >"$tpg2/attrib/authentication" &&
		echo 1 >"$tpg2/attrib/generate_node_acls" &&
		echo 0 >"$tpg2/attrib/demo_mode_write_protect" &&
		echo 1 >"$tpg2/enable"
}

teardown() {
	rm -f "$tpg/acls/$me"/lun_*/map "$tpg/acls/$raw_ini"/lun_*/map \
		"$tpg/lun/lun_0/rd" "$tpg/lun/lun_1/slow"
	rmdir "$tpg/acls/$me"/lun_* "$tpg/acls/$me" "$tpg/acls/$raw_ini"/lun_* \
		"$tpg/acls/$raw_ini" "$tpg/lun/lun_0" "$tpg/lun/lun_1" \
		"$tpg/np/$portal" "$tpg"
	rm -f "$tpg2/lun/lun_0/rd"
	rmdir "$tpg2/lun/lun_0" "$tpg2/np/$portal2" "$tpg2" "$IXT_FABRIC/$tgt"
	rmdir "$rd" "$(dirname "$rd")" "$ib" "$(dirname "$ib")"
	ixt_unload
}

ixt_begin 29
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
ixt_null_blk nr_devices=1 irqmode=2 completion_nsec=5000000 \
	hw_queue_depth=1 submit_queues=1 ||
	ktap_exit_fail_msg "cannot load null_blk"
ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"
setup || ktap_exit_fail_msg "cannot configure the target"
# The ACL's info, "WR WC EXP MAX" in decimal, from the line under its
# "CmdSN/WR : CmdSN/WC : ExpCmdSN : MaxCmdSN" header.
info_window() {
	local line wr wc exp max

	while read -r line; do
		[[ $line == *CmdSN/WR* ]] || continue
		read -r wr wc exp max _ || break
		echo $((wr)) $((wc)) $((exp)) $((max))
		return
	done <"$tpg/acls/$me/info"
}

# A goal the ramdisk stays far below even on a loaded host (under TCG,
# with other VMs beside this one, its response time has passed 10 ms).
echo 100000 >/sys/module/iscsi_xt/parameters/window_goal_us
ixt_check "the initiator logs in" login

depth=$(sess_field max_window)
fio_load "${disk[0]}" 4
ixt_check "a fast backend keeps the window at the queue depth ($depth)" \
	eval '[ "$(sess_field window)" = "$depth" ] ||
	      { ktap_print_msg "window $(sess_field window), response time $(sess_field srt_us) us"; false; }'
logout

echo 10000 >/sys/module/iscsi_xt/parameters/window_goal_us
login
fio_load "${disk[1]}" 8
ok=$?
win=$(sess_field window)
ktap_print_msg "slow backend: window $win, response time $(sess_field srt_us) us"
ixt_check "a slow backend's load runs without I/O error" [ $ok = 0 ]
ixt_check "and shrinks the window to a few commands" \
	eval '[ "$win" -ge 1 ] && [ "$win" -le 4 ]'
ixt_check "MaxCmdSN follows the window" \
	eval '[ $(( $(sess_field max_cmd_sn) - $(sess_field exp_cmd_sn) + 1 )) -le 4 ]'
read -r wr wc exp max < <(info_window)
ktap_print_msg "ACL info: CmdSN/WR $wr, CmdSN/WC $wc, ExpCmdSN $exp, MaxCmdSN $max"
ixt_check "the ACL's info shows the window and the room MaxCmdSN leaves" \
	eval '[ "$wr" = "$win" ] && [ "$wc" = $(((max - exp + 1) & 0xffffffff)) ] &&
	      [ "$wc" -le 4 ]'
logout

echo 0 >/sys/module/iscsi_xt/parameters/window_goal_us
login
fio_load "${disk[1]}" 4
ixt_check "with window_goal_us=0 the window stays at the queue depth" \
	[ "$(sess_field window)" = "$depth" ]
logout
echo 10000 >/sys/module/iscsi_xt/parameters/window_goal_us
teardown

# pdus_counted BEFORE: the session's SCSI Command PDUs since BEFORE (the
# ACL's iscsi_sess_stats) are those the cost file counted since its
# reset: a command put off while the pool is short is set up again for
# the same PDU, which must not count again.
pdus_counted() {
	local n=$(($(cat "$pdus") - $1))

	[ "$n" = "$(ixt_cost_field cmds)" ] && return 0
	ktap_print_msg "cmd_pdus grew by $n, the cost file counted $(ixt_cost_field cmds)"
	return 1
}

ixt_load pool_mb=20 || ktap_exit_fail_msg "cannot load iscsi_xt"
pdus=$tpg/acls/$me/fabric_statistics/iscsi_sess_stats/cmd_pdus
setup || ktap_exit_fail_msg "cannot configure the target"
login
dry0=$(ixt_pool_field exhausted)
ixt_cost_reset
pdus0=$(cat "$pdus")
ixt_check "1 MiB writes at iodepth 32 through a 20 MiB pool verify" \
	fio_run "${disk[0]}" --rw=randwrite --bs=1M --verify=crc32c \
	--do_verify=1 --verify_fatal=1
ixt_check "the pool ran dry" \
	[ "$(ixt_pool_field exhausted)" -gt "$dry0" ]
ixt_check "the session's statistics count each command once, however long it waited for lines" \
	pdus_counted "$pdus0"
ixt_check "and the window shrank below the queue depth" \
	[ "$(sess_field window)" -lt "$depth" ]
ixt_check "once the writes are done, the pool's pressure lifts its cap" \
	ixt_wait 3 eval '[ "$(sess_field cap)" = "$depth" ]'
logout
ixt_raw_cases ffp_pool_dry_set_full ffp_pool_aborted_writes \
	ffp_pool_hole_share ffp_pool_hole_share_initiator \
	ffp_pool_hole_share_tpgs sessions_per_initiator_tpgs ffp_hole_ping_data \
	ffp_pool_waits_in_turn \
	ffp_pool_caps_every_session ffp_window_holds_commands \
	ffp_window_reopens ffp_window_immediate ffp_r2t_queue_bound
ixt_check "the kernel log says why the write was refused" \
	[ "$(ixt_klog_count "Data-Out queued behind: TASK SET FULL")" -gt 0 ]
ixt_check "the pool counts the commands answered TASK SET FULL" \
	[ "$(ixt_pool_field set_full)" -gt 0 ]
ixt_check "every cache line is back in the pool" ixt_pool_all_free
teardown
rmmod null_blk
ixt_check "iscsi_xt unloads" [ ! -d /sys/module/iscsi_xt ]
ixt_finish
