#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The target's NOP-In keepalive over iSER, with the ACLs' nopin_timeout
# and nopin_response_timeout at 3 s:
# (1) open-iscsi, sending no NOP-Out of its own (noop_out_interval 0),
#     gets a NOP-In every 3 s on its idle iSER session and answers: the
#     session stays 10 s, and rxe0 carried packets meanwhile (nothing
#     else runs);
# (2) a user-space iSER initiator (ixt_iser_raw.py's case silent, pyverbs
#     through /usr/bin/python3) logs in, answers the NOP-Ins for 6 s,
#     then goes silent with its queue pair up: the target drops the
#     connection within a few seconds, logs that the NOP-In went
#     unanswered, ends the session and counts a connection timeout;
# (3) the same initiator logs in again and answers: its session stays
#     8 s; open-iscsi's session was untouched throughout and reads.
#
# Why not a tc filter on the RoCE v2 traffic (UDP port 4791), as
# tcp_keepalive.sh drops port 3260 on lo: initiator and target share the
# VM and rxe0, and soft-RoCE hands a packet whose destination MAC is its
# own device's straight to its receive path (rxe_prepare() sets
# RXE_LOOPBACK_MASK, rxe_loopback() skips the net device): no packet of
# the session crosses veth0, veth1 or lo. Changing veth0's MAC address
# to defeat that makes the sends fail at once (the GIDs are rebuilt),
# which closes the connection as an error, not as a silence.
#
# LIO's ib_isert sends no NOP-In: this runs on iscsi_xt only.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_cmd dd
ixt_require_initiator
ixt_require_iser
[ "$IXT_TARGET" = xt ] ||
	ixt_skip_all "LIO's ib_isert sends no NOP-In over iSER"
ixt_require_pyverbs

tgt=iqn.2026-11.org.example.iserka:t
portal=$IXT_ADDR4_T:3260
rd=$IXT_CFS/core/rd_mcp_85/ixt_iserka
tpg=$IXT_FABRIC/$tgt/tpgt_1
acl=$tpg/acls/$IXT_INITIATOR
silent_ini=iqn.2026-11.org.example.vm:silent
cnt=/sys/class/infiniband/rxe0/ports/1/hw_counters
work=$(mktemp -d)
raw=

raw_stop() {
	[ -n "$raw" ] && kill "$raw" 2>/dev/null && wait "$raw" 2>/dev/null
	raw=
}

cleanup() {
	raw_stop
	ixt_cleanup
	rm -rf "$work"
} 2>/dev/null
trap cleanup EXIT

# raw_start ANSWER LOG: the user-space initiator, answering pings for
# ANSWER seconds; waits (up to 60 s) until it logged in.
raw_start() {
	"$ixt_py" "$ixt_libdir/ixt_iser_raw.py" --host "$IXT_ADDR4_T" --port 3260 \
		--initiator "$silent_ini" --target "$tgt" --answer "$1" silent \
		>"$2" 2>&1 &
	raw=$!
	ixt_wait 60 grep -q "^logged in" "$2" && return 0
	ixt_show_tail "$2"
	return 1
}

klog_count() {
	ixt_klog_since_mark | grep -c "$1"
}

cxn_errors() {
	cat "$IXT_FABRIC/$tgt/fabric_statistics/iscsi_sess_err/cxn_errors"
}

# ka_acl ACL: NOP-In every 3 s, 3 s for the answer.
ka_acl() {
	echo 3 >"$1/attrib/nopin_timeout" &&
		echo 3 >"$1/attrib/nopin_response_timeout"
}

ixt_begin 12
ixt_target_load || ktap_exit_fail_msg "cannot load the target"

{
	ixt_rd_lun0 "$tpg" "$rd" 1024 &&
		mkdir "$tpg/np/$portal" && echo 1 >"$tpg/np/$portal/iser" &&
		echo 0 >"$tpg/attrib/authentication" &&
		mkdir "$acl" "$acl/lun_0" &&
		ln -s "$tpg/lun/lun_0" "$acl/lun_0/map" && ka_acl "$acl" &&
		mkdir "$tpg/acls/$silent_ini" && ka_acl "$tpg/acls/$silent_ini" &&
		echo 1 >"$tpg/enable"
} || ktap_exit_fail_msg "cannot set up the target"

# (1) open-iscsi answers.
ixt_check "open-iscsi logs in over iSER, sending no NOP-Out of its own" \
	ixt_iser_login "$tgt" "$portal" \
		"node.conn[0].timeo.noop_out_interval=0" \
		"node.conn[0].timeo.noop_out_timeout=0"
d=$(ixt_sid_disk "$(ixt_sid iser "$tgt")" 0)
dd if="$d" of=/dev/null bs=64k count=16 iflag=direct status=none
sleep 1
p0=$(cat "$cnt/sent_pkts")
sleep 10
p1=$(cat "$cnt/sent_pkts")
ktap_print_msg "rxe0 sent $((p1 - p0)) packets in 10 s of an idle session"
ixt_check "NOP-Ins of an idle iSER session are answered: it stays 10 s" \
	eval '[ "$(klog_count "closing the connection")" -eq 0 ] &&
	      [ "$(klog_count "session of .*closed")" -eq 0 ] &&
	      ixt_sess_logged_in "$tgt"'
ixt_check "... and rxe0 carried them (sent_pkts grew)" [ "$p1" -gt "$p0" ]

# (2) A silent initiator.
ixt_check "the user-space iSER initiator logs in" raw_start 6 "$work/silent.log"
t0=$SECONDS
for ((i = 0; i < 60; i++)); do
	[ "$(klog_count "session of $silent_ini.*closed")" -ge 1 ] && break
	sleep 0.5
done
took=$((SECONDS - t0))
ktap_print_msg "the user-space initiator: $(sort "$work/silent.log" | uniq -c | tr -s ' \n' ' ')"
ixt_check "it answered the NOP-Ins for 6 s, then left them unanswered" \
	eval 'grep -q "^ping answered" "$work/silent.log" &&
	      grep -q "^ping left unanswered" "$work/silent.log"'
ixt_check "the silent initiator is dropped: NOP-In unanswered" \
	eval 'ixt_klog_since_mark |
	      grep -q "$silent_ini: no answer to NOP-In from .* in 3 s, closing the connection"'
ixt_check "... its session ended, $took s after it logged in (6 s answering)" \
	eval '[ "$(klog_count "session of $silent_ini.*closed")" -ge 1 ] && [ $took -le 20 ]'
ixt_check "... and counted as a connection timeout" [ "$(cxn_errors)" -eq 1 ]
raw_stop

# (3) The same initiator again, answering; open-iscsi untouched.
ixt_check "the same initiator logs in again" raw_start 3600 "$work/again.log"
sleep 8
ixt_check "... answers the NOP-Ins, and its session stays 8 s" \
	eval 'grep -q "^ping answered" "$work/again.log" &&
	      [ "$(klog_count "session of $silent_ini.*closed")" -eq 1 ] &&
	      [ "$(cxn_errors)" -eq 1 ]'
raw_stop
ixt_check "open-iscsi's session stayed logged in throughout and reads" \
	eval '[ "$(klog_count "session of $IXT_INITIATOR.*closed")" -eq 0 ] &&
	      ixt_sess_logged_in "$tgt" &&
	      dd if="$d" of=/dev/null bs=64k count=16 iflag=direct status=none'
ixt_check "open-iscsi logs out, the configuration is cleared, the modules unload" \
	eval 'ixt_iser_logout "$tgt" "$portal" && ixt_cfs_clear && ixt_target_unload'
ixt_finish
