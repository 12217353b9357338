#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Faults during IO lose no data. open-iscsi over TCP (initiator and target
# share the VM: the traffic runs over lo) runs fio with CRC32C
# verification (random 64 KiB writes, libaio, O_DIRECT, each batch read
# back while later ones are written) on ramdisk LUNs, again and again
# while faults strike; every run must end without an error or a mismatch:
# (1) the connection is cut twice with ss -K, once the initiator's socket,
#     once the target's: the initiator logs in again each time, and the
#     kernel log shows the drops and the target ending those sessions;
# (2) a second session, to another target, logs out and in three times,
#     writing and verifying its own LUN each time;
# (3) the TPG is disabled for 3 s and enabled again: the disable returns
#     within 5 s and the initiator logs in again;
# (4) rmmod iscsi_xt is refused while a session is logged in, and the
#     session still works.
# (5) A stuck backend, next to a ramdisk LUN in the same TPG: an iblock
#     LUN over dm-delay over null_blk holds reads past its first MiB for
#     20 s (its first MiB is linear, so that the initiator's partition
#     scan is quick). With a direct read held there, the connection is
#     cut (ss -K), then the TPG disabled and enabled: the disable returns
#     within 5 s, the target closes and releases its socket of the
#     connection within 5 s of the cut and within 10 s of the disable
#     (its Logout waits up to 5 s for the retried read the new
#     connection holds), the initiator logs in again each time and the
#     ramdisk LUN writes and verifies while the read is still held; rmmod
#     is refused meanwhile. The read completes once the backend lets it
#     go.
# At the end no I/O error reached the initiator's block layer, every
# cache line is back in the pool and the module unloads.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd fio ss dmsetup dd
ixt_require_initiator
modprobe -q target_core_iblock || ixt_skip_all "target_core_iblock unavailable"
modprobe -n -q null_blk || ixt_skip_all "null_blk unavailable"
modprobe -q dm-delay || ixt_skip_all "dm-delay unavailable"

pre=iqn.2026-11.org.example.faults
tgt_a=$pre:a
tgt_b=$pre:b
tgt_c=$pre:c
portal=$IXT_ADDR4_T:3260
hba_rd=$IXT_CFS/core/rd_mcp_80
hba_ib=$IXT_CFS/core/iblock_80
slow=ixt_faults_slow
delay_ms=$((20000 * IXT_SLOW))
ixt_work
# dmsetup creates the device node itself: there is no udev in the VM.
export DM_DISABLE_UDEV=1

node() {
	local t=$1

	shift
	iscsiadm -m node -T "$t" -p "$portal" "$@" >/dev/null 2>&1
}

# add_target TARGET BACKSTORE...: a demo-mode target with one TPG on
# $portal whose LUNs are the backstores in order, and its node record.
add_target() {
	local t=$1 tpg=$IXT_FABRIC/$1/tpgt_1 lun=0 bs

	shift
	mkdir -p "$tpg/np/$portal" || return 1
	for bs in "$@"; do
		mkdir "$tpg/lun/lun_$lun" &&
			ln -s "$bs" "$tpg/lun/lun_$lun/${bs##*/}" || return 1
		lun=$((lun + 1))
	done
	echo 0 >"$tpg/attrib/authentication" &&
		echo 1 >"$tpg/attrib/generate_node_acls" &&
		echo 0 >"$tpg/attrib/demo_mode_write_protect" &&
		echo 1 >"$tpg/enable" &&
		node "$t" -o new &&
		node "$t" -o update -n node.session.timeo.replacement_timeout -v 120
}

# rd_store NAME PAGES: a ramdisk backstore.
rd_store() {
	mkdir -p "$hba_rd/$1" && echo "rd_pages=$2" >"$hba_rd/$1/control" &&
		echo 1 >"$hba_rd/$1/enable"
}

# The slow device: null_blk whose first MiB dm maps linearly and the rest
# through dm-delay, reads held $delay_ms, writes and flushes not.
slow_store() {
	local sz

	ixt_null_blk nr_devices=1 memory_backed=1 gb=1 || return 1
	sz=$(cat /sys/block/nullb0/size)
	printf '0 2048 linear /dev/nullb0 0\n2048 %d delay /dev/nullb0 2048 %d /dev/nullb0 2048 0\n' \
		$((sz - 2048)) $delay_ms | dmsetup create "$slow" || return 1
	mkdir -p "$hba_ib/$slow" &&
		echo "udev_path=/dev/mapper/$slow" >"$hba_ib/$slow/control" &&
		echo 1 >"$hba_ib/$slow/enable"
}

# Undoes everything, whatever got done; the EXIT trap runs it again.
teardown() {
	local t tpg l

	for t in $tgt_a $tgt_b $tgt_c; do
		node "$t" --logout
		node "$t" -o delete
		tpg=$IXT_FABRIC/$t/tpgt_1
		[ -d "$tpg" ] || continue
		echo 0 >"$tpg/enable"
		for l in "$tpg"/lun/lun_*/*; do
			[ -L "$l" ] && rm "$l"
		done
		for l in "$tpg"/lun/lun_*; do
			[ -d "$l" ] && rmdir "$l"
		done
		rmdir "$tpg/np/$portal" "$tpg" "$IXT_FABRIC/$t"
	done
	for l in "$hba_rd"/* "$hba_ib"/*; do
		[ -d "$l" ] && rmdir "$l"
	done
	for l in "$hba_rd" "$hba_ib"; do
		[ -d "$l" ] && rmdir "$l"
	done
	dmsetup info "$slow" >/dev/null 2>&1 && dmsetup remove "$slow"
	[ -d /sys/module/null_blk ] && rmmod null_blk
} 2>/dev/null

cleanup() {
	ixt_fio_loop_stop
	wait
	teardown
	ixt_loaded && ixt_unload 2>/dev/null
	ixt_work_rm
}
trap cleanup EXIT

# cut FILTER: ss -K the established TCP sockets FILTER matches; fails
# unless it killed one.
cut() {
	local killed

	killed=$(ss -K -tnH state established "$1")
	[ -n "$killed" ] || ktap_print_msg "ss -K killed no socket ($1)"
	[ -n "$killed" ]
}

# The initiator's local port of its (only) connection to port 3260.
ini_port() {
	ss -tnH state established '( dport = :3260 )' |
		awk '{ n = split($3, a, ":"); print a[n]; exit }'
}

# target_sock_released PORT SECS: within SECS seconds (wall clock, times
# IXT_SLOW) the target has closed and released its socket of the
# connection from the initiator's PORT: no socket of it is left but
# orphans (ino:0), which the kernel finishes closing with the initiator
# (FIN-WAIT-2 until the initiator closes its end: open-iscsi may take its
# time there), and TIME-WAIT ones.
target_sock_released() {
	local end left f="( sport = :3260 and dport = :$1 )"

	[ -n "$1" ] || return 1
	end=$(($(date +%s%N) + $2 * IXT_SLOW * 1000000000))
	while :; do
		left=$(ss -tnHe state connected exclude time-wait "$f")
		if [ -z "$left" ] || ! grep -Eqv ' ino:0( |$)' <<<"$left"; then
			[ -z "$left" ] || ktap_print_msg "released, closing: $left"
			return 0
		fi
		[ "$(date +%s%N)" -lt "$end" ] || break
		sleep 0.2
	done
	ktap_print_msg "still held: $left"
	return 1
}

# login TARGET VAR LUN...: log in to TARGET and set VAR[i] to the disk of
# the i-th LUN given.
login() {
	local t=$1 l

	node "$t" --login || return 1
	declare -n disks=$2
	shift 2
	disks=()
	for l in "$@"; do
		disks+=("$(ixt_target_disk "$t" "$l")") || return 1
	done
}

# held: the read of the slow LUN started in (5) is still waiting.
held() {
	kill -0 "$reader" 2>/dev/null && return 0
	ktap_print_msg "the read of the slow LUN is no longer held"
	return 1
}

# (1) The connection cut with ss -K twice under IO, on either side.
case_cut() {
	local acc drops closed

	acc=$(ixt_accepts "$tgt_a")
	drops=$(ixt_klog_count "detected conn error")
	closed=$(ixt_klog_count "normal session of .*closed")
	ixt_fio_loop_start "${da[0]}"
	ixt_writing "${da[0]}"
	ixt_check "cut 1: ss -K kills the initiator's socket while fio writes" \
		cut '( dport = :3260 )'
	ixt_relogged "$tgt_a" $((acc + 1)) && ixt_writing "${da[0]}"
	ixt_check "cut 2: ss -K kills the target's socket while fio writes" \
		cut '( sport = :3260 )'
	ixt_relogged "$tgt_a" $((acc + 2)) && ixt_writing "${da[0]}"
	ixt_check "the initiator logged in again after each cut" \
		[ "$(ixt_accepts "$tgt_a")" -ge $((acc + 2)) ]
	ixt_check "the kernel log shows both drops and the target ending both sessions" \
		ixt_klog_grew "detected conn error" $((drops + 2)) \
		"normal session of .*closed" $((closed + 2))
	ixt_check "fio write+verify runs across both cuts: no error, no mismatch" \
		ixt_fio_loop_end
}

# Session B's part of (2): three rounds of login, write+verify, logout.
b_rounds() {
	local i db

	for i in 1 2 3; do
		login "$tgt_b" db 0 || { ktap_print_msg "B: login $i failed"; return 1; }
		ixt_fio_verify_64k "${db[0]}" 0 2M || return 1
		node "$tgt_b" --logout || { ktap_print_msg "B: logout $i failed"; return 1; }
	done
}

# (2) Another session logs out and in while A writes.
case_logout_loop() {
	ixt_fio_loop_start "${da[0]}"
	ixt_writing "${da[0]}"
	ixt_check "session B logs in, writes and verifies 2 MiB, logs out, 3 times" \
		b_rounds
	ixt_check "target B counted 3 logins and 3 normal logouts" \
		ixt_logins_counted "$tgt_b" 3
	ixt_check "session A's fio runs meanwhile: no error, no mismatch" \
		ixt_fio_loop_end
}

# (3) The TPG disabled for 3 s and enabled again under IO.
case_tpg_disable() {
	local acc rc

	acc=$(ixt_accepts "$tgt_a")
	ixt_fio_loop_start "${da[0]}"
	ixt_writing "${da[0]}"
	ixt_timed_write 0 "$IXT_FABRIC/$tgt_a/tpgt_1/enable"
	rc=$?
	ixt_check "disabling TPG A under IO returns in $IXT_TOOK_MS ms (5 s at most)" \
		ixt_disabled_in_time $rc
	sleep 3
	echo 1 >"$IXT_FABRIC/$tgt_a/tpgt_1/enable"
	ixt_check "the initiator logs in again once TPG A is enabled" \
		ixt_relogged "$tgt_a" $((acc + 1))
	ixt_writing "${da[0]}"
	ixt_check "fio write+verify runs across the disable: no error, no mismatch" \
		ixt_fio_loop_end
}

# (4) rmmod with a session logged in.
case_rmmod() {
	ixt_check "rmmod iscsi_xt is refused while a session is logged in" \
		ixt_rmmod_refused iscsi_xt
	ixt_check "... and the session still writes and verifies" \
		ixt_fio_verify_64k "${da[0]}" 16M 2M
	ixt_check "the initiator logs out of target A" node "$tgt_a" --logout
}

read_waits() {
	held && [ "$(awk '{ print $1 }' "/sys/block/${dc[0]#/dev/}/inflight")" -ge 1 ]
}

cut_and_gone() {
	cut '( dport = :3260 )' && target_sock_released "$1" 5
}

relogged_held() {
	ixt_relogged "$tgt_c" "$1" && held
}

# rd_verified_held OFFSET: 2 MiB of C's ramdisk LUN written and verified,
# with the read of the slow LUN still held.
rd_verified_held() {
	ixt_fio_verify_64k "${dc[1]}" "$1" 2M && held
}

read_completes() {
	wait "$reader" && return 0
	ktap_print_msg "dd: $(cat "$IXT_WORK/dd.err")"
	return 1
}

# (5) A read held in a stuck backend, the connection cut, then the TPG
# disabled and enabled.
case_stuck() {
	local acc port rc t0=$SECONDS

	ixt_check "the initiator logs in to target C: the slow LUN and the ramdisk LUN show up" \
		login "$tgt_c" dc 0 1
	[ -n "${dc[1]}" ] || return
	# Retries of the held read restart the SCSI command timer: keep it
	# well above the backend's delay.
	echo $((120 * IXT_SLOW)) >"/sys/block/${dc[0]#/dev/}/device/timeout"
	acc=$(ixt_accepts "$tgt_c")
	timeout $((200 * IXT_SLOW)) dd if="${dc[0]}" of=/dev/null bs=4k count=1 skip=2048 \
		iflag=direct 2>"$IXT_WORK/dd.err" &
	reader=$!
	sleep 2
	ixt_check "a direct read of the slow LUN is held in the backend" read_waits

	port=$(ini_port)
	ixt_check "ss -K cuts the connection; the target releases its socket within 5 s" \
		cut_and_gone "$port"
	ixt_check "the initiator logs in again, the read still held" \
		relogged_held $((acc + 1))
	ixt_check "the ramdisk LUN next to it writes and verifies meanwhile" \
		rd_verified_held 0

	port=$(ini_port)
	ixt_timed_write 0 "$IXT_FABRIC/$tgt_c/tpgt_1/enable"
	rc=$?
	ixt_check "disabling TPG C with the read held returns in $IXT_TOOK_MS ms (5 s at most)" \
		ixt_disabled_in_time $rc
	# The initiator logs out; the Logout waits up to 5 s for the read
	# the new connection holds (IXT_REINSTATE_WAIT_SECS), and its
	# response closes the connection.
	ixt_check "the target releases its socket of that connection within 10 s (the Logout's 5 s wait for the held read, and 5 s)" \
		target_sock_released "$port" 10
	ixt_check "rmmod iscsi_xt is refused with a command held" \
		ixt_rmmod_refused iscsi_xt
	sleep 1
	echo 1 >"$IXT_FABRIC/$tgt_c/tpgt_1/enable"
	ixt_check "the initiator logs in again once TPG C is enabled, the read still held" \
		relogged_held $((acc + 2))
	ixt_check "the ramdisk LUN writes and verifies meanwhile" \
		rd_verified_held 4M
	ixt_check "the held read completes once the backend lets it go" \
		read_completes
	ktap_print_msg "the read took $((SECONDS - t0)) s"
	ixt_check "the initiator logs out of target C" node "$tgt_c" --logout
}

ixt_begin 30
# shellcheck disable=SC2119 # no module parameters
ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"
{
	rd_store ixt_faults_a 16384 && rd_store ixt_faults_b 1024 &&
		rd_store ixt_faults_c 2048 && slow_store &&
		add_target "$tgt_a" "$hba_rd/ixt_faults_a" &&
		add_target "$tgt_b" "$hba_rd/ixt_faults_b" &&
		add_target "$tgt_c" "$hba_ib/$slow" "$hba_rd/ixt_faults_c"
} || ktap_exit_fail_msg "cannot configure the targets"

# The disks of targets A and C.
da=()
dc=()
reader=
ixt_check "the initiator logs in to target A, its LUN shows up" \
	login "$tgt_a" da 0
[ -n "${da[0]}" ] || ktap_exit_fail_msg "no session to target A"
case_cut
case_logout_loop
case_tpg_disable
case_rmmod
case_stuck

ixt_check "no I/O error reached the initiator's block layer" ixt_no_io_error
teardown
ixt_check "every cache line is back in the pool" ixt_pool_all_free
ixt_unload
ixt_check "iscsi_xt unloads" [ ! -d /sys/module/iscsi_xt ]
ixt_finish
