#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Logins of open-iscsi over iSER (ib_iser on soft-RoCE rxe0), the target
# set up by the real targetcli in one run: a ramdisk LUN, portals on the
# test network's IPv4 and IPv6 addresses with "enable_iser true", an ACL;
# the CHAP targets are set up through configfs.
# (1) Each iSER portal has a listening RDMA CM id on its address and its
#     np's iser attribute reads 1 (IPv6 only if rxe0 has that address).
# (2) SendTargets discovery over iSER lists the target at its portal.
# (3) An initiator its ACL admits logs in over iSER without CHAP: the
#     session runs over iSER, the LUN's disk appears, 1 MiB written with
#     O_DIRECT reads back equal.
# (4) CHAP over iSER: one-way and mutual per ACL log in; a wrong secret
#     (24, counted by the target), a wrong target secret (the initiator
#     gives up), an initiator without ACL where generate_node_acls=0 (24,
#     counted) and an unknown target name (19: the Login reject 0x0203
#     is final) are refused, and after each the target accepts a good
#     login.
# (5) A TCP and an iSER session to one target at once: both listed by
#     iscsiadm, data written through either reads back through the other,
#     the target counts two sessions and the ACL's info shows both.
# (6) Ten rounds of iSER login, read and logout: the target counts ten
#     logins and ten logouts, no RDMA connection is left and the RDMA
#     resources (PDs, CQs, QPs, cm_ids, MRs) are back to what they were,
#     no slab object of the target's modules is left behind and every
#     cache line is back in the pool. How many logouts the initiator saw
#     as a connection error (the disconnect before the Logout Response)
#     is printed.
# (7) Everything logs out, the configuration is cleared and the target's
#     modules unload.
#
# IXT_TARGET=lio runs it on LIO's iscsi_target_mod + ib_isert, the
# reference, where two things differ: LIO tears the connection down
# right after a Login reject and open-iscsi often sees that first, so a
# refusal only has to fail there (8, 11 and 24 were seen), and
# LIO's ACL info shows one session of the initiator, the last one. LIO
# has no cache-line pool.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_cmd targetcli dd cmp python3
[ -S /run/dbus/system_bus_socket ] || ixt_skip_all "targetcli needs the system D-Bus"
ixt_require_initiator
ixt_require_iser

ini=$IXT_INITIATOR
pre=iqn.2026-11.org.example.iser
t1=$pre:t1
t_chap=$pre:chap
t_mutual=$pre:mutual
t_noacl=$pre:noacl
t_unknown=$pre:unknown
p4=$IXT_ADDR4_T:3260
p6=[$IXT_ADDR6_T]:3260
rounds=10
work=$(mktemp -d)

case $IXT_TARGET in
lio)	owners=(iscsi_target_mod ib_isert target_core_mod) ;;
*)	owners=(iscsi_xt iscsi_xt_iser target_core_mod) ;;
esac

cleanup() {
	ixt_cleanup
	rm -rf "$work"
} 2>/dev/null
trap cleanup EXIT

show_file() {
	local line

	head -n 60 "$1" | while IFS= read -r line; do
		ktap_print_msg "$line"
	done
}

# Whether an RDMA device has the IPv6 address of the test network.
rdma_has_v6() {
	local gid

	gid=$(python3 -c 'import ipaddress, sys
print(ipaddress.ip_address(sys.argv[1]).exploded)' "$IXT_ADDR6_T") || return 1
	cat /sys/class/infiniband/*/ports/*/gids/* 2>/dev/null | grep -qix "$gid"
}

# listening TARGET PORTAL CM_ADDR: the portal's iser attribute reads 1
# and a listening RDMA CM id has the source address CM_ADDR.
listening() {
	[ "$(cat "$IXT_FABRIC/$1/tpgt_1/np/$2/iser")" = 1 ] || return 1
	[ -n "$(ixt_rdma_cm LISTEN "$3")" ] && return 0
	ktap_print_msg "no RDMA CM id listens on $3: $(rdma res show cm_id 2>&1 | tr '\n' ';')"
	return 1
}

# status_is WHAT RC WANT: iscsiadm's status RC is WANT; against LIO, a
# failure (see above).
status_is() {
	local what=$1 rc=$2 want=$3

	if [ "$IXT_TARGET" = lio ] && [ "$rc" -ne 0 ]; then
		[ "$rc" -eq "$want" ] ||
			ktap_print_msg "$what: iscsiadm exited with $rc (LIO)"
		return 0
	fi
	[ "$rc" -eq "$want" ] && return 0
	ktap_print_msg "$what: iscsiadm exited with $rc, want $want"
	return 1
}

stat_of() {
	cat "$IXT_FABRIC/$1/fabric_statistics/$2"
}

# counted TARGET STAT BEFORE: TARGET's statistic STAT (under
# fabric_statistics/) grew past BEFORE, within 5 s.
counted() {
	local t=$1 s=$2 n=$3

	ixt_wait 5 eval '[ "$(stat_of "$t" "$s")" -gt "$n" ]' && return 0
	ktap_print_msg "$t: $s is still $(stat_of "$t" "$s")"
	return 1
}

# login_iser TARGET [NAME=VALUE...]: log in over iSER at the IPv4 portal;
# the session runs over iSER.
login_iser() {
	local sid

	ixt_iser_login "$1" "$p4" "${@:2}" || return 1
	sid=$(ixt_sid iser "$1") || return 1
	[ "$(ixt_sid_transport "$sid")" = iser ]
}

# cfs_target TARGET AUTH [acl]: through configfs, a target whose tpgt_1
# serves iSER on the IPv4 portal, without LUN, generate_node_acls=0,
# authentication AUTH, and with "acl" an ACL for the initiator.
cfs_target() {
	local g=$IXT_FABRIC/$1/tpgt_1

	mkdir -p "$g/np/$p4" && echo 1 >"$g/np/$p4/iser" &&
		echo 0 >"$g/attrib/generate_node_acls" &&
		echo "$2" >"$g/attrib/authentication" || return 1
	if [ "${3:-}" = acl ]; then
		mkdir "$g/acls/$ini" || return 1
	fi
	echo 1 >"$g/enable"
}

# creds TARGET USER SECRET [MUTUAL_USER MUTUAL_SECRET]: CHAP credentials
# of the initiator's ACL, written without a newline as rtslib writes
# them (LIO would keep it as part of the name).
creds() {
	local a=$IXT_FABRIC/$1/tpgt_1/acls/$ini/auth

	printf %s "$2" >"$a/userid" && printf %s "$3" >"$a/password" || return 1
	[ -z "${4:-}" ] ||
		{ printf %s "$4" >"$a/userid_mutual" && printf %s "$5" >"$a/password_mutual"; }
}

# good_login TARGET [NAME=VALUE...]: login_iser and log out again.
good_login() {
	login_iser "$@" && ixt_iser_logout "$1" "$p4"
}

# The targets without LUN need no scan.
chap=(node.session.scan=manual node.session.auth.authmethod=CHAP
      node.session.auth.username=ini-user)
chap_ok=("${chap[@]}" node.session.auth.password=ini-secret-0123)
mutual_ok=("${chap_ok[@]}" node.session.auth.username_in=tgt-user
	   node.session.auth.password_in=tgt-secret-4567)

iser_disk() {
	local sid

	sid=$(ixt_sid iser "$1") && ixt_sid_disk "$sid" 0
}

tcp_disk() {
	local sid

	sid=$(ixt_sid tcp "$1") && ixt_sid_disk "$sid" 0
}

# both_sessions TARGET: iscsiadm lists a TCP and an iSER session to it.
both_sessions() {
	local s

	s=$(iscsiadm -m session 2>/dev/null)
	grep -q "^tcp: .* $1 " <<<"$s" && grep -q "^iser: .* $1 " <<<"$s" &&
		return 0
	ktap_print_msg "sessions: $(tr '\n' ';' <<<"$s")"
	return 1
}

# info_shows_both: the ACL's info file lists two sessions of the
# initiator, one with an iSER connection, one with a TCP one; LIO's
# shows the last session only.
info_shows_both() {
	local f=$IXT_FABRIC/$t1/tpgt_1/acls/$ini/info

	if [ "$IXT_TARGET" = lio ]; then
		grep -q "^InitiatorName: $ini" "$f"
		return
	fi
	[ "$(grep -c "^InitiatorName: $ini$" "$f")" -eq 2 ] &&
		[ "$(grep -c "^CID: " "$f")" -eq 2 ] &&
		grep -q "^ *Address .* iSER " "$f" &&
		grep -q "^ *Address .* TCP " "$f" && return 0
	show_file "$f"
	return 1
}

# loop N: N rounds of iSER login to t1, a 64 KiB direct read of its LUN,
# logout.
loop() {
	local i d

	for ((i = 1; i <= $1; i++)); do
		login_iser "$t1" &&
			d=$(iser_disk "$t1") &&
			dd if="$d" of=/dev/null bs=64k count=1 iflag=direct status=none &&
			ixt_iser_logout "$t1" "$p4" ||
			{ ktap_print_msg "round $i failed"; return 1; }
	done
}

no_iser_conn() {
	[ -z "$(ixt_rdma_cm CONNECT "$p4")" ]
}

# res_back BEFORE: "rdma res show" counts what BEFORE counted (PDs, CQs,
# QPs, cm_ids, MRs of every device).
res_back() {
	[ "$(rdma res show 2>&1)" = "$1" ]
}

# The connection errors open-iscsi logged since the test began.
conn_errors() {
	ixt_klog_since_mark | grep -c "detected conn error"
}

ixt_begin 30
ixt_target_load || ktap_exit_fail_msg "cannot load the $IXT_TARGET target"

v6=
rdma_has_v6 && v6=1
g=/iscsi/$t1/tpg1
{
	echo "/backstores/ramdisk create name=ixt_iser_rd size=16M"
	echo "/iscsi create $t1"
	echo "$g/portals create $IXT_ADDR4_T 3260"
	echo "$g/portals/$p4 enable_iser true"
	if [ -n "$v6" ]; then
		echo "$g/portals create $IXT_ADDR6_T 3260"
		echo "$g/portals/$p6 enable_iser true"
	fi
	echo "$g/luns create /backstores/ramdisk/ixt_iser_rd"
	echo "$g set attribute generate_node_acls=0 authentication=0"
	echo "$g/acls create $ini"
} | ixt_tcli "$work"
{
	cfs_target "$t_chap" 1 acl &&
		creds "$t_chap" ini-user ini-secret-0123 &&
		cfs_target "$t_mutual" 1 acl &&
		creds "$t_mutual" ini-user ini-secret-0123 tgt-user tgt-secret-4567 &&
		cfs_target "$t_noacl" 0
} || ktap_exit_fail_msg "cannot set up the CHAP targets in configfs"

# (1) The listeners.
ixt_check "targetcli sets up the target, its LUN, portals and ACL in one run" \
	eval '[ -d "$IXT_FABRIC/$t1/tpgt_1/acls/$ini/lun_0" ] &&
	      [ "$(cat "$IXT_FABRIC/$t1/tpgt_1/enable")" = 1 ]'
ixt_check "the IPv4 portal has iser 1 and an RDMA CM id listens on $p4" \
	listening "$t1" "$p4" "$p4"
if [ -n "$v6" ]; then
	ixt_check "the IPv6 portal has iser 1 and an RDMA CM id listens on $p6" \
		listening "$t1" "$p6" "$IXT_ADDR6_T:3260"
else
	ktap_print_msg "no RDMA device has $IXT_ADDR6_T (rxe0's GIDs: $(cat /sys/class/infiniband/*/ports/*/gids/* 2>/dev/null | grep -v '^0000:0000:0000:0000' | tr '\n' ' '))"
	ktap_test_skip "the IPv6 portal listens over iSER (no RDMA device has the address)"
fi
if [ "$KTAP_CNT_FAIL" -gt 0 ]; then
	show_file "$work/targetcli.log"
fi

# (2) Discovery.
ixt_discover "$work/disc" iser "$IXT_ADDR4_T"
rc=$?
ixt_check "SendTargets discovery over iSER lists the target at $p4" \
	eval '[ $rc -eq 0 ] && grep -qxF "$p4,1 $t1" "$work/disc" ||
	      { show_file "$work/disc"; false; }'
iscsiadm -m discoverydb -t st -p "$IXT_ADDR4_T" -I iser -o delete >/dev/null 2>&1
iscsiadm -m node -o delete >/dev/null 2>&1

# (3) A login without CHAP, and data.
ixt_check "the initiator its ACL admits logs in over iSER without CHAP" \
	ixt_iser_login "$t1" "$p4"
sid=$(ixt_sid iser "$t1")
ixt_check "the session's transport is iser" \
	[ "$(ixt_sid_transport "$sid")" = iser ]
d_iser=$(ixt_sid_disk "$sid" 0)
ixt_check "the LUN's disk appears ($d_iser)" [ -b "$d_iser" ]
ixt_check "1 MiB written with O_DIRECT reads back equal" \
	ixt_rw_1m "$d_iser" "$d_iser" 0
ixt_iser_logout "$t1" "$p4"

# (4) CHAP, and refusals, each followed by a good login.
ixt_check "one-way CHAP over iSER logs in" good_login "$t_chap" "${chap_ok[@]}"
fails=$(stat_of "$t_chap" iscsi_login_stats/authenticate_fails)
ixt_iser_login "$t_chap" "$p4" "${chap[@]}" \
	node.session.auth.password=wrong-secret-89
rc=$?
ixt_check "a wrong CHAP secret is refused (24) and counted" \
	eval 'status_is "wrong secret" $rc 24 &&
	      counted "$t_chap" iscsi_login_stats/authenticate_fails $fails'
ixt_check "the right secret logs in after it" \
	good_login "$t_chap" "${chap_ok[@]}"

ixt_check "mutual CHAP over iSER logs in" good_login "$t_mutual" "${mutual_ok[@]}"
ixt_iser_login "$t_mutual" "$p4" "${chap_ok[@]}" \
	node.session.auth.username_in=tgt-user \
	node.session.auth.password_in=wrong-secret-89
rc=$?
ixt_check "a wrong target secret: the initiator gives up (19 or 24)" \
	eval '[ $rc -eq 19 ] || status_is "wrong target secret" $rc 24'
ixt_check "mutual CHAP logs in after it" \
	good_login "$t_mutual" "${mutual_ok[@]}"

fails=$(stat_of "$t_noacl" iscsi_login_stats/authorize_fails)
ixt_iser_login "$t_noacl" "$p4" node.session.scan=manual
rc=$?
ixt_check "no ACL for the initiator (generate_node_acls=0): refused (24) and counted" \
	eval 'status_is "no ACL" $rc 24 &&
	      counted "$t_noacl" iscsi_login_stats/authorize_fails $fails'
mkdir "$IXT_FABRIC/$t_noacl/tpgt_1/acls/$ini"
ixt_check "with an ACL created, the same target admits it" \
	good_login "$t_noacl" node.session.scan=manual

ixt_iser_login "$t_unknown" "$p4" node.session.scan=manual
rc=$?
ixt_check "an unknown target name is refused (19)" \
	status_is "unknown target" $rc 19
ixt_node iser "$t_unknown" "$p4" -o delete
ixt_check "a good login after it" good_login "$t1" node.session.scan=manual

# (5) A TCP and an iSER session to one target.
sess0=$(stat_of "$t1" iscsi_instance/sessions)
ixt_login default "$t1" "$p4" && login_iser "$t1"
ixt_check "a TCP and an iSER session to $t1 at once, both listed by iscsiadm" \
	both_sessions "$t1"
d_tcp=$(tcp_disk "$t1")
d_iser=$(iser_disk "$t1")
ixt_check "written through iSER, read back through TCP, and the other way ($d_iser, $d_tcp)" \
	eval 'ixt_rw_1m "$d_iser" "$d_tcp" 1 && ixt_rw_1m "$d_tcp" "$d_iser" 2'
ixt_check "the target counts two sessions" \
	[ "$(stat_of "$t1" iscsi_instance/sessions)" -eq $((sess0 + 2)) ]
ixt_check "the ACL's info shows both (iscsi_xt; LIO's shows the last)" \
	info_shows_both
ixt_node default "$t1" "$p4" --logout
ixt_iser_logout "$t1" "$p4"
ixt_node default "$t1" "$p4" -o delete

# (6) Logins and logouts in a loop leave nothing behind.
acc=$(stat_of "$t1" iscsi_login_stats/accepts)
lo=$(stat_of "$t1" iscsi_logout_stats/normal_logouts)
res0=$(rdma res show 2>&1)
errs0=$(conn_errors)
sleep 2
ixt_owned_objects "${owners[@]}" >"$work/owned.before"
tracked=$?
t0=$SECONDS
ixt_check "$rounds rounds of iSER login, 64 KiB read, logout" loop $rounds
ktap_print_msg "$rounds rounds in $((SECONDS - t0)) s"
ixt_check "the target counted $rounds logins and $rounds normal logouts" \
	eval '[ "$(stat_of "$t1" iscsi_login_stats/accepts)" -eq $((acc + rounds)) ] &&
	      [ "$(stat_of "$t1" iscsi_logout_stats/normal_logouts)" -eq $((lo + rounds)) ]'
ixt_check "no RDMA connection is left on $p4, the RDMA resources are back" \
	eval 'ixt_wait 10 no_iser_conn && ixt_wait 10 res_back "$res0"'
errs=$(($(conn_errors) - errs0))
[ "$errs" -gt 0 ] &&
	ktap_print_msg "the initiator logged \"detected conn error\" at $errs of the $rounds logouts"
sleep 3
if [ "$tracked" -ne 0 ]; then
	ktap_test_skip "no object of ${owners[*]} left behind (needs slub_debug=U and debugfs)"
else
	ixt_owned_objects "${owners[@]}" >"$work/owned.after"
	ktap_print_msg "objects of ${owners[*]} in use:" \
		"$(awk '{n += $2} END {print n + 0}' "$work/owned.before") before," \
		"$(awk '{n += $2} END {print n + 0}' "$work/owned.after") after"
	grown=$(ixt_owned_growth "$work/owned.before" "$work/owned.after" $rounds)
	[ -n "$grown" ] &&
		ktap_print_msg "allocation sites that grew: $(tr '\n' ' ' <<<"$grown")"
	ixt_check "no object of ${owners[*]} left behind: less than one a round" \
		eval 'ixt_owned_growth "$work/owned.before" "$work/owned.after" $rounds >/dev/null'
fi
if [ "$IXT_TARGET" = lio ]; then
	ktap_test_skip "every cache line is back in the pool (iscsi_xt's; LIO has none)"
else
	ixt_check "every cache line is back in the pool" ixt_pool_all_free
fi

# (7) Teardown.
login_iser "$t1"
ixt_check "iscsiadm logs every session out" \
	eval 'iscsiadm -m node --logoutall=all >/dev/null 2>&1 &&
	      ! iscsiadm -m session >/dev/null 2>&1'
iscsiadm -m node -o delete >/dev/null 2>&1
ixt_check "the configuration is cleared" ixt_cfs_clear
ixt_check "the target's modules unload ($(ixt_target_modules))" ixt_target_unload
ixt_finish
