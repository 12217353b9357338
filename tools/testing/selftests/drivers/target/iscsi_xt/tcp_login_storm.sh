#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A storm of logins beside a busy session, over TCP: while open-iscsi's
# session writes and verifies with fio, and a prober reads one block
# every 0.1 s, the raw initiator (ixt_raw.py, case login_storm) logs in
# with CHAP 100 times, one session after another, each with a NOP and a
# Logout. Every login succeeds, fio verifies every run, no read of the
# prober waits longer than $stall_bound_ms (TCG makes a 4 KiB read take
# tens of milliseconds alone, and up to 2.6 s with four other VMs on the
# host's two CPUs; a storm holding a lock the session needs for its
# whole length would show as tens of seconds), and afterwards the slab objects of the module and the
# target core are what they were before the storm.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd python3 fio dd
ixt_require_initiator

tgt=iqn.2026-11.org.example.storm:t
portal=$IXT_ADDR4_T:3260
rd=$IXT_CFS/core/rd_mcp_87/ixt_storm
tpg=$IXT_FABRIC/$tgt/tpgt_1
storm_ini=iqn.2026-11.org.example:ixt-storm
storm=100
# The kernel under test may run IXT_SLOW times slower (lib.sh).
stall_bound_ms=$((5000 * IXT_SLOW))
owners=(iscsi_xt target_core_mod)

cleanup() {
	ixt_fio_loop_stop
	[ -n "${prober:-}" ] && kill "$prober" 2>/dev/null
	ixt_cleanup
}
trap cleanup EXIT

# probe DISK: one 4 KiB direct read at a random offset every 0.1 s until
# $IXT_WORK/stop exists; each read's time in ms, a line each.
probe() {
	local t0 t1

	until [ -e "$IXT_WORK/stop" ]; do
		t0=$(date +%s%N)
		dd if="$1" of=/dev/null bs=4k count=1 skip=$((RANDOM % 4096)) \
			iflag=direct 2>/dev/null
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000000))
		sleep 0.1
	done >"$IXT_WORK/probe"
}

ixt_begin 6
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
ixt_work || ktap_exit_fail_msg "no work directory"
ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"
{
	ixt_rd_lun0 "$tpg" "$rd" 16384 && mkdir "$tpg/np/$portal" &&
		echo 1 >"$tpg/attrib/authentication" &&
		ixt_chap_acl "$tpg" "$IXT_INITIATOR" fio-user fio-secret-0123 &&
		ixt_chap_acl "$tpg" "$storm_ini" storm-user storm-secret-0123 &&
		echo 1 >"$tpg/enable"
} || ktap_exit_fail_msg "cannot configure the target"

ixt_check "open-iscsi logs in with CHAP" \
	ixt_login default "$tgt" "$portal" node.session.auth.authmethod=CHAP \
	node.session.auth.username=fio-user \
	node.session.auth.password=fio-secret-0123
d=$(ixt_target_disk "$tgt" 0) || ktap_exit_fail_msg "no disk"
sleep 2
ixt_owned_mark "${owners[@]}"
ixt_fio_loop_start "$d"
probe "$d" &
prober=$!
ixt_writing "$d"

raw_out=$(timeout $((600 * IXT_SLOW)) python3 "$ixt_libdir/ixt_raw.py" --target "$tgt" \
	--host "$IXT_ADDR4_T" --initiator "$storm_ini" \
	--chap storm-user:storm-secret-0123 --storm $storm login_storm 2>&1)
ixt_raw_print '^ok '
ixt_check "$storm CHAP logins and logouts beside the busy session" \
	grep -q "^ok login_storm: $storm CHAP logins" <<<"$raw_out"
ixt_check "... each counted: $((storm + 1)) logins accepted, $storm normal logouts" \
	eval '[ "$(ixt_accepts "$tgt")" -eq $((storm + 1)) ] &&
	      [ "$(cat "$IXT_FABRIC/$tgt/fabric_statistics/iscsi_logout_stats/normal_logouts")" -eq $storm ]'
ixt_check "fio verified every run meanwhile" ixt_fio_loop_end
wait "$prober"
prober=
max=$(sort -n "$IXT_WORK/probe" | tail -n 1)
ktap_print_msg "prober: $(wc -l <"$IXT_WORK/probe") reads, the slowest ${max:-?} ms"
ixt_check "no read of the busy session waited over $stall_bound_ms ms" \
	eval '[ -n "$max" ] && [ "$max" -le $stall_bound_ms ]'
sleep 2
ixt_owned_check "by the storm" "${owners[@]}"
ixt_node default "$tgt" "$portal" --logout
ixt_node default "$tgt" "$portal" -o delete
ixt_cfs_clear
ixt_unload
ixt_finish
