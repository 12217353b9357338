#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Logins of open-iscsi over TCP: a permitted initiator logs in over IPv4
# and IPv6 and out again, its ACL shows the session; an unknown target
# (0x0203), an initiator no ACL admits (0x0202) and a wrong CHAP secret
# (0x0201) are refused with the right status; CHAP succeeds with the
# right secret; disabling the TPG makes the initiator log out and retry
# until it is enabled again; deleting the ACL ends its session; the
# module unloads
# under a live session. The initiator does not scan LUNs (scan=manual):
# this test is about the login phase.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_initiator

ini=$IXT_INITIATOR
pre=iqn.2026-11.org.example.login
p4=$IXT_ADDR4_T:3260
p6=[$IXT_ADDR6_T]:3260

# tpg TARGET AUTH ACL: an enabled tpgt_1 on both portals.
tpg() {
	local d=$IXT_FABRIC/$1/tpgt_1

	mkdir -p "$d" &&
		mkdir "$d/np/$p4" "$d/np/$p6" &&
		echo "$2" >"$d/attrib/authentication" || return 1
	[ "$3" = acl ] && { mkdir "$d/acls/$ini" || return 1; }
	echo 1 >"$d/enable"
}

node() {
	local t=$1 p=$2

	shift 2
	iscsiadm -m node -T "$t" -p "$p" "$@" >/dev/null 2>&1
}

new_node() {
	node "$1" "$2" -o new &&
		node "$1" "$2" -o update -n node.session.scan -v manual &&
		node "$1" "$2" -o update -n node.session.initial_login_retry_max -v 1
}

login() {
	new_node "$1" "$2" && node "$1" "$2" --login
}

logged_in() {
	iscsiadm -m session 2>/dev/null | grep -q " $1 "
}

# status_logged STATUS: the target logged a failed login with STATUS.
status_logged() {
	ixt_klog_since_mark | grep -q "login of $ini failed, status $1"
}

ixt_begin 20
ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"

tpg $pre:acl 0 acl
tpg $pre:no-acl 0 none
tpg $pre:chap 1 acl
cd "$IXT_FABRIC/$pre:chap/tpgt_1/acls/$ini/auth" &&
	echo chapuser >userid && echo chapsecret1234 >password && cd - >/dev/null

ixt_check "a permitted initiator logs in over IPv4" login $pre:acl "$p4"
ixt_check "the session is up" logged_in $pre:acl
ixt_check "the ACL's info shows the session" \
	grep -q "^InitiatorName: $ini" "$IXT_FABRIC/$pre:acl/tpgt_1/acls/$ini/info"
ixt_check "it logs out" node $pre:acl "$p4" --logout
ixt_check "the ACL's info shows no session" \
	grep -q "^No active iSCSI Session" "$IXT_FABRIC/$pre:acl/tpgt_1/acls/$ini/info"
ixt_check "it logs in over IPv6 and out" \
	eval 'login $pre:acl "$p6" && node $pre:acl "$p6" --logout'

ixt_check "an unknown target is refused with 0x0203" \
	eval '! login $pre:nonexistent "$p4" && status_logged 0x0203'
ixt_check "an initiator without ACL is refused with 0x0202" \
	eval '! login $pre:no-acl "$p4" && status_logged 0x0202'

new_node $pre:chap "$p4"
node $pre:chap "$p4" -o update -n node.session.auth.authmethod -v CHAP
node $pre:chap "$p4" -o update -n node.session.auth.username -v chapuser
node $pre:chap "$p4" -o update -n node.session.auth.password -v wrongsecret99
ixt_check "a wrong CHAP secret is refused with 0x0201" \
	eval '! node $pre:chap "$p4" --login && status_logged 0x0201'
node $pre:chap "$p4" -o update -n node.session.auth.password -v chapsecret1234
ixt_check "the right CHAP secret logs in" node $pre:chap "$p4" --login
ls_dir=$IXT_FABRIC/$pre:chap/fabric_statistics/iscsi_login_stats
ixt_check "the target's login statistics count the accept and the CHAP failure" \
	eval '[ "$(cat "$ls_dir/accepts")" = 1 ] && [ "$(cat "$ls_dir/authenticate_fails")" = 1 ]'
ixt_check "and the no-ACL target counts an authorization failure" \
	[ "$(cat "$IXT_FABRIC/$pre:no-acl/fabric_statistics/iscsi_login_stats/authorize_fails")" = 1 ]
node $pre:chap "$p4" --logout

# A disabled TPG: its sessions are asked to log out (Async Message),
# the disable does not wait for them, and logins get "service
# unavailable" (0x0301), which the initiator retries until the TPG is
# enabled again.
login $pre:acl "$p4"
lo=$IXT_FABRIC/$pre:acl/fabric_statistics/iscsi_logout_stats/normal_logouts
en=$IXT_FABRIC/$pre:acl/tpgt_1/enable
logouts=$(cat "$lo")
ixt_check "disabling the TPG returns within 5 s" \
	timeout 5 sh -c "echo 0 >$en"
ixt_check "its initiator logged out when asked" \
	ixt_wait 10 eval '[ "$(cat "$lo")" -gt "$logouts" ]'
ixt_check "logins to the disabled TPG get 0x0301, and are retried" \
	ixt_wait 20 status_logged 0x0301
echo 1 >"$en"
ixt_check "the session is back once the TPG is enabled again" \
	ixt_wait 30 grep -q "^InitiatorName: $ini" \
	"$IXT_FABRIC/$pre:acl/tpgt_1/acls/$ini/info"

closed=$(ixt_klog_since_mark | grep -c "normal session of $ini, TSIH [0-9]*, closed")
ixt_check "deleting the ACL ends its session" \
	eval 'timeout 30 rmdir "$IXT_FABRIC/$pre:acl/tpgt_1/acls/$ini" &&
	      [ "$(ixt_klog_since_mark | grep -c "normal session of $ini, TSIH [0-9]*, closed")" -gt "$closed" ]'
node $pre:acl "$p4" --logout

# Demo mode, so that no ACL deletion ends the session before the unload.
echo 1 >"$IXT_FABRIC/$pre:no-acl/tpgt_1/attrib/generate_node_acls"
ixt_check "a demo-mode TPG admits the initiator" login $pre:no-acl "$p4"
for t in "$IXT_FABRIC"/$pre:*; do
	rmdir "$t"/tpgt_1/acls/* "$t"/tpgt_1/np/* 2>/dev/null
	rmdir "$t/tpgt_1" "$t"
done
ixt_check "iscsi_xt unloads under a live session" \
	eval 'rmdir "$IXT_FABRIC" && timeout 60 rmmod iscsi_xt && [ ! -d /sys/module/iscsi_xt ]'
node $pre:no-acl "$p4" --logout
iscsiadm -m node -o delete >/dev/null 2>&1
ixt_check "no session is left on the initiator" \
	eval '! iscsiadm -m session >/dev/null 2>&1'
ixt_finish
