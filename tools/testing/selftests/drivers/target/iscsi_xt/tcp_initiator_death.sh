#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Initiators that die in the middle of a write, over TCP:
#
# - the raw initiator (ixt_raw.py, case hang_mid_write) sends a 1 MiB
#   WRITE(10), answers its first R2T with half a Data-Out and is killed
#   with SIGKILL there: the kernel closes its socket, and the target ends
#   the session and frees the write and its cache lines at once;
# - open-iscsi writing with dd when iscsid is killed (SIGKILL) and the
#   initiator's socket cut (ss -K): nothing is left to recover the
#   session, the target ends it and frees its commands and lines. iscsid,
#   started again, recovers the session, which reads the LUN.
#
# Each time the target's session is gone within seconds and every cache
# line is back in the pool; at the end no object of the module or the
# target core is left behind. Over iSER the same deaths (a process gone,
# its queue pair destroyed; the RDMA device gone) are iser_badinput.sh's
# write_cut_conn and iser_faults.sh's device removal.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd python3 ss pkill dd
ixt_require_initiator

tgt=iqn.2026-11.org.example.death:t
portal=$IXT_ADDR4_T:3260
rd=$IXT_CFS/core/rd_mcp_86/ixt_death
tpg=$IXT_FABRIC/$tgt/tpgt_1
owners=(iscsi_xt target_core_mod)
writer=

# No iscsiadm call may hang the test (a session left in recovery).
cleanup() {
	[ -n "$writer" ] && kill "$writer" 2>/dev/null
	pgrep -x iscsid >/dev/null || ixt_iscsid_start
	timeout -k 5 30 iscsiadm -m session -u >/dev/null 2>&1
	ixt_cleanup
}
trap cleanup EXIT

no_session() {
	[ -z "$(tr -d '\n' <"$tpg/dynamic_sessions")" ]
}

# gone_within WHAT: the target's session ends within 15 s of $t0; says
# when.
gone_within() {
	ixt_wait 15 no_session || return 1
	ktap_print_msg "$1: the target's session ended $((SECONDS - t0)) s later"
}

# state: the open-iscsi session's state ("LOGGED_IN", "FAILED"...).
state() {
	iscsiadm -m session -P 1 2>/dev/null |
		awk '/iSCSI Session State:/ { print $NF; exit }'
}

# relogin: iscsid, started again, finds the failed session and recovers
# it (what it does for any session it finds at start), the LUN reads,
# and the session logs out.
relogin() {
	ixt_iscsid_start
	if ! ixt_wait 60 eval '[ "$(state)" = LOGGED_IN ]'; then
		ktap_print_msg "session state: $(state)"
		return 1
	fi
	ixt_relogged "$tgt" 2 && d=$(ixt_target_disk "$tgt" 0) &&
		dd if="$d" of=/dev/null bs=1M count=16 iflag=direct 2>/dev/null &&
		timeout -k 5 30 iscsiadm -m session -u >/dev/null 2>&1
}

ixt_begin 9
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
ixt_work || ktap_exit_fail_msg "no work directory"
ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"
{
	ixt_rd_lun0 "$tpg" "$rd" 16384 && ixt_demo_tpg "$tpg" "$portal"
} || ktap_exit_fail_msg "cannot configure the target"
ixt_owned_mark "${owners[@]}"

python3 "$ixt_libdir/ixt_raw.py" --target "$tgt" --host "$IXT_ADDR4_T" \
	hang_mid_write >"$IXT_WORK/raw.log" 2>&1 &
raw=$!
ixt_check "a raw initiator stops in the middle of a write's Data-Out" \
	ixt_wait 30 grep -q '^hanging' "$IXT_WORK/raw.log"
t0=$SECONDS
kill -KILL "$raw"
wait "$raw" 2>/dev/null
ixt_check "killed there: the target ends its session" gone_within "SIGKILL"
ixt_check "... and every cache line is back in the pool" ixt_pool_all_free

ixt_check "open-iscsi logs in" ixt_login default "$tgt" "$portal" \
	node.session.timeo.replacement_timeout=5
d=$(ixt_target_disk "$tgt" 0) || ktap_exit_fail_msg "no disk"
dd if=/dev/urandom of="$d" bs=1M count=256 oflag=direct 2>/dev/null &
writer=$!
ixt_writing "$d"
t0=$SECONDS
ixt_check "iscsid killed and the initiator's socket cut in the middle of the writes" \
	eval 'pkill -KILL -x iscsid &&
	      [ -n "$(ss -K -tnH state established "( dport = :3260 )")" ]'
ixt_check "... the target ends the session" gone_within "iscsid dead, socket cut"
ixt_check "... and every cache line is back in the pool" ixt_pool_all_free
wait "$writer" 2>/dev/null
writer=
ixt_check "iscsid again: it recovers the session, which reads the LUN" relogin
timeout -k 5 30 iscsiadm -m session -u >/dev/null 2>&1
ixt_node default "$tgt" "$portal" -o delete
ixt_cfs_clear
ixt_owned_check "by the deaths, once the configuration is gone (demo mode keeps its ACLs until then)" \
	"${owners[@]}"
ixt_unload
ixt_finish
