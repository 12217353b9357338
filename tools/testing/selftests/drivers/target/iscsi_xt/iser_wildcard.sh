#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Wildcard iSER portals, discovery authentication over iSER, and Send
# with Invalidate as the initiator sees it. Through configfs, one target
# (a ramdisk LUN, demo mode) with the portals 0.0.0.0:3260 and [::]:3260
# serving iSER (iser = 1) and a TCP-only portal 192.0.2.1:3263:
# (1) an RDMA CM id listens on each wildcard;
# (2) SendTargets discovery over iSER (iscsiadm -I iser) through the
#     IPv4 address of rxe0 lists the target at that address, port 3260;
#     through the IPv6 address, at the IPv6 one; the TCP-only portal is
#     not listed over iSER;
# (3) open-iscsi logs in over iSER through the wildcards, at the IPv4
#     and at the IPv6 address of rxe0: the session runs over iSER on a
#     connected RDMA CM id of that address, 1 MiB written with O_DIRECT
#     reads back equal;
# (4) Send with Invalidate: with ib_iser's debug_level at 3 the
#     initiator logs that it negotiated remote invalidation, and every
#     one of 16 direct reads ends in a SCSI Response that invalidated the
#     read's STag ("remote invalidation for rkey", ib_iser's completion
#     handler), none of them unexpected or bogus;
# (5) discovery authentication (discovery_auth: CHAP userid and
#     password, enforce_discovery_auth=1): over iSER, the right secret
#     lists the target, no secret or a wrong one fails with the status
#     iscsiadm gives over TCP for the same discovery;
# (6) everything logs out, the configuration is cleared and the modules
#     unload.
#
# IXT_TARGET=lio runs it on LIO's iscsi_target_mod + ib_isert, where
# three things differ: LIO's TCP listener on [::] takes IPv4 too, so it
# refuses [::]:3260 beside 0.0.0.0:3260 (mkdir fails, EINVAL) and the
# IPv6 wildcard is [::]:3261 there; LIO's SendTargets answer names every
# wildcard portal by the address and port the connection reached, so it
# lists the target twice at the same TargetAddress (iscsi_xt names a
# wildcard by its own port and leaves out the other IP version's): the
# test looks for the expected line and prints the whole answer; and LIO
# tears the connection down right after a Login reject, so a refused
# discovery only has to fail there.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_cmd dd cmp
ixt_require_initiator
ixt_require_iser

t=iqn.2026-11.org.example.iserwild:t
rd=$IXT_CFS/core/rd_mcp_83/ixt_wild
tpg=$IXT_FABRIC/$t/tpgt_1
da=$IXT_FABRIC/discovery_auth
a4=$IXT_ADDR4_T
a6=$IXT_ADDR6_T
port6=3260
[ "$IXT_TARGET" = lio ] && port6=3261
any4=0.0.0.0:3260
any6="[::]:$port6"
p4=$a4:3260
p6=[$a6]:$port6
tcp_only=$a4:3263
dbg=/sys/module/ib_iser/parameters/debug_level
work=$(mktemp -d)

cleanup() {
	echo 0 >"$dbg"
	for p in "$a4" "$p6"; do
		iscsiadm -m discoverydb -t st -p "$p" -o delete >/dev/null 2>&1
	done
	[ -d "$da" ] && echo 0 >"$da/enforce_discovery_auth"
	ixt_cleanup
	rm -rf "$work"
} 2>/dev/null
trap cleanup EXIT

show_file() {
	local line

	head -n 40 "$1" | while IFS= read -r line; do
		ktap_print_msg "$line"
	done
}

# listens ADDR:PORT: a listening RDMA CM id has that source address, as
# "rdma res" writes it (IPv6 without brackets).
listens() {
	[ -n "$(ixt_rdma_cm LISTEN "$1")" ] && return 0
	ktap_print_msg "no RDMA CM id listens on $1: $(rdma res show cm_id 2>&1 | tr '\n' ';')"
	return 1
}

# discover IFACE ADDR [NAME=VALUE...]: SendTargets through IFACE at ADDR
# (ixt_discover), the output to $work/disc; iscsiadm's status.
discover() {
	ixt_discover "$work/disc" "$@"
}

listed() {
	grep -qxF "$1" "$work/disc"
}

# session_at PORTAL CM_ADDR: an open-iscsi session to $t over iSER at
# PORTAL, and a connected RDMA CM id of CM_ADDR. (The "Current Portal"
# iscsiadm shows is ib_iser's, an IPv6 address written out in full.)
session_at() {
	local sid

	sid=$(ixt_sid iser "$t") || { ktap_print_msg "no iSER session"; return 1; }
	[ "$(ixt_sid_transport "$sid")" = iser ] || return 1
	iscsiadm -m session -r "$sid" -P 1 2>/dev/null |
		grep -qF "Persistent Portal: $1,1" ||
		{ ktap_print_msg "$(iscsiadm -m session -r "$sid" -P 1 2>&1 | grep Portal | tr -d '\t' | tr '\n' ' ')"; return 1; }
	[ -n "$(ixt_rdma_cm CONNECT "$2")" ] && return 0
	ktap_print_msg "no connected RDMA CM id on $2: $(rdma res show cm_id 2>&1 | tr '\n' ';')"
	return 1
}

# chap_discover IFACE [SECRET]: discovery at the IPv4 address through
# IFACE, with CHAP and SECRET when given; iscsiadm's status.
chap_discover() {
	local auth=discovery.sendtargets.auth

	if [ -n "${2:-}" ]; then
		discover "$1" "$a4" "$auth.authmethod=CHAP" \
			"$auth.username=disc-user" "$auth.password=$2"
	else
		discover "$1" "$a4"
	fi
}

# same_status WHAT ISER TCP: a refused discovery failed over iSER with
# the status it failed with over TCP; against LIO, it failed.
same_status() {
	ktap_print_msg "$1: iscsiadm exited with $2 over iSER, $3 over TCP"
	[ "$2" -ne 0 ] && [ "$3" -ne 0 ] || return 1
	[ "$IXT_TARGET" = lio ] && return 0
	[ "$2" -eq "$3" ]
}

# The initiator's kernel log lines with PATTERN since the start.
klog_n() {
	ixt_klog_since_mark | grep -c "$1"
}

ixt_begin 19
ixt_target_load || ktap_exit_fail_msg "cannot load the $IXT_TARGET target"

{
	ixt_rd_lun0 "$tpg" "$rd" 4096 &&
		mkdir "$tpg/np/$any4" && echo 1 >"$tpg/np/$any4/iser" &&
		mkdir "$tpg/np/$tcp_only" &&
		echo 0 >"$tpg/attrib/authentication" &&
		echo 1 >"$tpg/attrib/generate_node_acls" &&
		echo 0 >"$tpg/attrib/demo_mode_write_protect" &&
		echo 1 >"$tpg/enable"
} || ktap_exit_fail_msg "cannot set up the target"
mkdir "$tpg/np/$any6" 2>"$work/mkdir6" && echo 1 >"$tpg/np/$any6/iser"
rc=$?

# (1) The listeners.
ixt_check "$any4 serves iSER: iser reads 1, an RDMA CM id listens on it" \
	eval '[ "$(cat "$tpg/np/$any4/iser")" = 1 ] && listens "$any4"'
ixt_check "$any6 serves iSER beside it: iser reads 1, an RDMA CM id listens on it" \
	eval '[ $rc -eq 0 ] && [ "$(cat "$tpg/np/$any6/iser")" = 1 ] &&
	      listens ":::$port6" || { show_file "$work/mkdir6"; false; }'
if [ "$IXT_TARGET" = lio ]; then
	mkdir "$tpg/np/[::]:3260" 2>"$work/mkdir6"
	ktap_print_msg "LIO: mkdir np/[::]:3260 beside $any4: $(cat "$work/mkdir6")"
	[ -d "$tpg/np/[::]:3260" ] && rmdir "$tpg/np/[::]:3260"
fi

# (2) Discovery over iSER through the wildcards.
discover iser "$a4"
rc=$?
ktap_print_msg "over iSER at $a4: $(tr '\n' ';' <"$work/disc")"
ixt_check "discovery over iSER at $a4 lists the target at $p4" \
	eval '[ $rc -eq 0 ] && listed "$p4,1 $t"'
ixt_check "... and not the TCP-only portal $tcp_only" \
	eval '! grep -q ":3263," "$work/disc"'
discover iser "$p6"
rc=$?
ktap_print_msg "over iSER at $p6: $(tr '\n' ';' <"$work/disc")"
ixt_check "discovery over iSER at $p6 lists the target at $p6" \
	eval '[ $rc -eq 0 ] && listed "$p6,1 $t"'
iscsiadm -m node -o delete >/dev/null 2>&1

# (3) and (4): logins through the wildcards, Send with Invalidate.
echo 3 >"$dbg"
ixt_iser_login "$t" "$p4"
ixt_check "a login over iSER at $p4 through $any4 runs on an RDMA connection of $p4" \
	session_at "$p4" "$p4"
d=$(ixt_sid_disk "$(ixt_sid iser "$t")" 0)
ixt_check "1 MiB written with O_DIRECT reads back equal ($d)" ixt_rw_1m "$d" "$d" 0
ixt_check "the initiator negotiated remote invalidation" \
	eval '[ "$(klog_n "negotiated remote invalidation")" -ge 1 ]'
inv0=$(klog_n "remote invalidation for rkey")
dd if="$d" of=/dev/null bs=64k count=16 iflag=direct status=none
inv=$(($(klog_n "remote invalidation for rkey") - inv0))
ktap_print_msg "16 reads of 64 KiB: $inv SCSI Responses with remote invalidation"
ixt_check "every read's SCSI Response invalidated its STag (Send with Invalidate)" \
	[ "$inv" -ge 16 ]
ixt_check "... none unexpected or bogus" \
	eval '[ "$(klog_n "unexpected remote invalidation\|Bogus remote invalidation")" -eq 0 ]'
echo 0 >"$dbg"
ixt_check "the session logs out" ixt_iser_logout "$t" "$p4"

ixt_iser_login "$t" "$p6"
ixt_check "a login over iSER at $p6 through $any6 runs on an RDMA connection of it" \
	session_at "$p6" "$a6:$port6"
d=$(ixt_sid_disk "$(ixt_sid iser "$t")" 0)
ixt_check "1 MiB written with O_DIRECT reads back equal ($d)" ixt_rw_1m "$d" "$d" 1
ixt_check "the session logs out" ixt_iser_logout "$t" "$p6"
iscsiadm -m node -o delete >/dev/null 2>&1

# (5) Discovery authentication over iSER, compared with TCP.
printf %s disc-user >"$da/userid"
printf %s disc-secret-0123 >"$da/password"
echo 1 >"$da/enforce_discovery_auth"
chap_discover iser disc-secret-0123
rc=$?
ixt_check "enforced discovery auth: the right secret over iSER lists the target" \
	eval '[ $rc -eq 0 ] && listed "$p4,1 $t" || { show_file "$work/disc"; false; }'
chap_discover iser
rc_iser=$?
chap_discover default
rc_tcp=$?
ixt_check "no secret: refused over iSER as over TCP" \
	same_status "no CHAP" "$rc_iser" "$rc_tcp"
chap_discover iser wrong-secret-0123
rc_iser=$?
chap_discover default wrong-secret-0123
rc_tcp=$?
ixt_check "a wrong secret: refused over iSER as over TCP" \
	same_status "wrong secret" "$rc_iser" "$rc_tcp"
echo 0 >"$da/enforce_discovery_auth"
for p in "$a4" "$p6"; do
	iscsiadm -m discoverydb -t st -p "$p" -o delete >/dev/null 2>&1
done
iscsiadm -m node -o delete >/dev/null 2>&1

# (6) Teardown.
ixt_check "no session is left, the configuration is cleared" \
	eval '! iscsiadm -m session >/dev/null 2>&1 && ixt_cfs_clear'
ixt_check "the target's modules unload ($(ixt_target_modules))" ixt_target_unload
ixt_finish
