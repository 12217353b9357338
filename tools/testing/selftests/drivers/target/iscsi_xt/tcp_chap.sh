#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# CHAP with open-iscsi over TCP: one-way CHAP per ACL with each algorithm
# alone (MD5, SHA-1, SHA-256, SHA3-256), the one the target answers in
# CHAP_A read off the wire, and the initiator's preference order kept;
# a wrong secret refused with 0x0201; mutual CHAP per ACL (the right
# target secret logs in, a wrong one is refused by the initiator while
# the target logs nothing and keeps no connection; no mutual credentials,
# or a mutual secret equal to the initiator's, refused with 0x0201); per
# TPG CHAP in demo mode, one-way and mutual, at the first login and at
# later ones (the TPG's credentials still apply once a dynamic ACL is
# cached); discovery authentication,
# one-way and mutual; AuthMethod=None where no authentication is
# required, refused with 0x0201 where it is. Each refusal by the target
# leaves a log line naming the initiator.
#
# No log line names the algorithm: a packet socket on the loopback device
# (where the guest's veth addresses talk to each other) reads the CHAP
# keys of the Login Responses.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_initiator
ixt_require_cmd python3 ss

ini=$IXT_INITIATOR
pre=iqn.2026-11.org.example.chap
t_acl=$pre:acl
t_demo=$pre:demo
t_none=$pre:none
p4=$IXT_ADDR4_T:3260
cap=$(mktemp)
disc_out=$(mktemp)
sniffer=

cleanup() {
	[ -n "$sniffer" ] && kill "$sniffer" 2>/dev/null
	rm -f "$cap" "$disc_out"
}
trap cleanup EXIT

# Prints, one line per iSCSI Login PDU that crosses the loopback device
# to or from port 3260, who sent it ("tgt" or "ini"), its stage
# ("csg=0": security, "csg=1": operational) and its AuthMethod and CHAP
# keys, CHAP_C and CHAP_R as their length in bytes ("32B").
sniff_prog='
import socket, struct, sys

s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind(("lo", 0))
print("ready", flush=True)
while True:
    pkt, addr = s.recvfrom(262144)
    if addr[2] == socket.PACKET_OUTGOING:
        continue
    eth = struct.unpack("!H", pkt[12:14])[0]
    if eth == 0x0800:
        proto, l4 = pkt[23], 14 + (pkt[14] & 15) * 4
    elif eth == 0x86DD:
        proto, l4 = pkt[20], 14 + 40
    else:
        continue
    if proto != 6:
        continue
    sport, dport = struct.unpack("!HH", pkt[l4:l4 + 4])
    if 3260 not in (sport, dport):
        continue
    pdu = pkt[l4 + (pkt[l4 + 12] >> 4) * 4:]
    if len(pdu) < 48 or (pdu[0] & 0x3F) not in (0x03, 0x23):
        continue
    dlen = int.from_bytes(pdu[5:8], "big")
    text = pdu[48 + pdu[4] * 4:][:dlen]
    keys = ["csg=%d" % ((pdu[1] >> 2) & 3)]
    for kv in text.split(b"\0"):
        k, _, v = kv.decode(errors="replace").partition("=")
        if not k.startswith("CHAP_") and k != "AuthMethod":
            continue
        if k in ("CHAP_C", "CHAP_R") and v[:2] in ("0x", "0X"):
            v = "%dB" % ((len(v) - 1) // 2)
        keys.append(k + "=" + v)
    print("tgt" if sport == 3260 else "ini", *keys, flush=True)
'

cap_mark=0
mark_cap() {
	cap_mark=$(wc -l <"$cap")
}

# The capture's lines since mark_cap.
cap_new() {
	tail -n +$((cap_mark + 1)) "$cap"
}

# The CHAP_A and CHAP_C the target sent since mark_cap, on one line.
tgt_alg() {
	cap_new | awk '$1 == "tgt" { for (i = 2; i <= NF; i++)
		if ($i ~ /^CHAP_[AC]=/) printf "%s ", $i }'
}

# target_chose ALG BYTES: since mark_cap, the target answered CHAP_A=ALG
# and a challenge of BYTES bytes, and nothing else (as often as iscsid
# asked: under load it starts a login again when the first is slow).
target_chose() {
	local want="CHAP_A=$1 CHAP_C=$2B "

	ixt_wait 5 eval '[ -n "$(tgt_alg)" ]'
	[ -n "$(tgt_alg)" ] && [ -z "$(tgt_alg | sed "s/$want//g")" ] && return 0
	ktap_print_msg "expected the target to send: $want"
	cap_new | while read -r l; do ktap_print_msg "wire: $l"; done
	return 1
}

# wire_is LINE...: since mark_cap, the capture holds these lines and no
# other (in any order, repeats ignored).
wire_is() {
	local want

	want=$(printf '%s\n' "$@" | sort -u)
	ixt_wait 5 eval '[ "$(cap_new | sort -u)" = "$want" ]' && return 0
	ktap_print_msg "expected on the wire: $(tr '\n' ';' <<<"$want")"
	cap_new | while read -r l; do ktap_print_msg "wire: $l"; done
	return 1
}

node() {
	local t=$1

	shift
	iscsiadm -m node -T "$t" -p "$p4" "$@" >/dev/null 2>&1
}

# set_node TARGET NAME VALUE...: update settings of TARGET's record.
set_node() {
	local t=$1 args=()

	shift
	while [ $# -ge 2 ]; do
		args+=(-n "$1" -v "$2")
		shift 2
	done
	node "$t" -o update "${args[@]}"
}

new_node() {
	node "$1" -o new &&
		set_node "$1" node.session.scan manual \
			node.session.initial_login_retry_max 1
}

# chap_node TARGET USER SECRET [ALGS]: one-way CHAP from the initiator.
chap_node() {
	set_node "$1" node.session.auth.authmethod CHAP \
		node.session.auth.username "$2" \
		node.session.auth.password "$3" \
		node.session.auth.chap_algs "${4:-MD5}"
}

# mutual_node TARGET USER SECRET: the initiator also authenticates the
# target.
mutual_node() {
	set_node "$1" node.session.auth.username_in "$2" \
		node.session.auth.password_in "$3"
}

# login TARGET: log in; on failure, show the target's last CHAP failure.
login() {
	node "$1" --login && return 0
	ktap_print_msg "login to $1 failed; target: $(ixt_klog_since_mark |
		grep "CHAP failed" | tail -n 1)"
	return 1
}

logout() {
	node "$1" --logout
}

logged_in() {
	iscsiadm -m session 2>/dev/null | grep -q " $1 "
}

kcount() {
	ixt_klog_since_mark | grep -c -- "$1"
}

# kgrew PATTERN COUNT: within 5 s, the kernel log has more than COUNT
# lines of PATTERN since the test's start.
kgrew() {
	local i

	for ((i = 0; i < 10; i++)); do
		[ "$(kcount "$1")" -gt "$2" ] && return 0
		sleep 0.5
	done
	return 1
}

# auth_failed STATUS: the iscsiadm status of an authentication failure.
auth_failed() {
	[ "$1" -eq 24 ] && return 0
	ktap_print_msg "iscsiadm exited with $1, not 24 (authentication failure)"
	return 1
}

# ini_refused STATUS: the iscsiadm status of a login the initiator gave
# up on: authentication failure (24) or non-retryable failure (19).
ini_refused() {
	[ "$1" -eq 24 ] || [ "$1" -eq 19 ] && return 0
	ktap_print_msg "iscsiadm exited with $1, not 19 or 24"
	return 1
}

# refused TARGET [REASON]: a login to TARGET fails as an authentication
# failure on the initiator, and the target logged status 0x0201 for this
# initiator and, if given, "CHAP failed: REASON".
refused() {
	local f0 r0 rc pat_f="login of $ini failed, status 0x0201"
	local pat_r="$ini: CHAP failed: ${2:-}"

	f0=$(kcount "$pat_f")
	r0=$(kcount "$pat_r")
	node "$1" --login
	rc=$?
	auth_failed $rc || return 1
	if ! kgrew "$pat_f" "$f0"; then
		ktap_print_msg "no \"$pat_f\" in the kernel log"
		return 1
	fi
	[ -z "${2:-}" ] && return 0
	[ "$(kcount "$pat_r")" -gt "$r0" ] && return 0
	ktap_print_msg "no \"$pat_r\" in the kernel log"
	return 1
}

no_conn() {
	[ -z "$(ss -Htn state established '( sport = :3260 or dport = :3260 )')" ]
}

# tpg TARGET AUTH DEMO [ACL]: an enabled tpgt_1 on the IPv4 portal.
tpg() {
	local d=$IXT_FABRIC/$1/tpgt_1

	mkdir -p "$d" && mkdir "$d/np/$p4" &&
		echo "$2" >"$d/attrib/authentication" &&
		echo "$3" >"$d/attrib/generate_node_acls" || return 1
	if [ "${4:-}" = acl ]; then
		mkdir "$d/acls/$ini" || return 1
	fi
	echo 1 >"$d/enable"
}

# creds DIR USER SECRET [MUTUAL_USER MUTUAL_SECRET]: CHAP credentials in
# an auth/ (or discovery_auth/) directory; "NULL" unsets, as rtslib does.
creds() {
	echo "$2" >"$1/userid" && echo "$3" >"$1/password" &&
		echo "${4:-NULL}" >"$1/userid_mutual" &&
		echo "${5:-NULL}" >"$1/password_mutual"
}

ixt_begin 24
ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"

python3 -u -c "$sniff_prog" >"$cap" 2>&1 &
sniffer=$!
ixt_wait $((10 * IXT_SLOW)) grep -qx ready "$cap" ||
	ktap_exit_fail_msg "the packet capture did not start: $(cat "$cap")"

tpg $t_acl 1 0 acl
acl_auth=$IXT_FABRIC/$t_acl/tpgt_1/acls/$ini/auth
creds "$acl_auth" acl-user acl-secret-0123
new_node $t_acl

# One-way CHAP per ACL, each algorithm alone (IANA numbers: MD5 5, SHA-1
# 6, SHA-256 7, SHA3-256 8; the challenge as long as the digest).
for a in "MD5 5 16" "SHA1 6 20" "SHA256 7 32" "SHA3-256 8 32"; do
	read -r name num len <<<"$a"
	chap_node $t_acl acl-user acl-secret-0123 "$name"
	mark_cap
	ixt_check "one-way CHAP per ACL with $name logs in, the target answering CHAP_A=$num" \
		eval 'login $t_acl && logged_in $t_acl && target_chose $num $len'
	logout $t_acl
done

chap_node $t_acl acl-user acl-secret-0123 SHA1,SHA3-256,MD5
mark_cap
ixt_check "offered SHA1,SHA3-256,MD5, the target takes the initiator's first" \
	eval 'login $t_acl && target_chose 6 20'
logout $t_acl

chap_node $t_acl acl-user wrong-secret-0123 SHA3-256
ixt_check "a wrong secret (SHA3-256) is refused with 0x0201 and a log line" \
	refused $t_acl "wrong CHAP_R"

# Mutual CHAP per ACL.
chap_node $t_acl acl-user acl-secret-0123 SHA256
mutual_node $t_acl acl-target acl-target-secret-4567
ixt_check "mutual CHAP without the ACL's mutual credentials is refused with 0x0201" \
	refused $t_acl "mutual CHAP not configured"

creds "$acl_auth" acl-user acl-secret-0123 acl-target acl-target-secret-4567
mark_cap
ixt_check "mutual CHAP per ACL logs in with the right target secret" \
	eval 'login $t_acl && logged_in $t_acl'
ixt_check "and the target proved it: CHAP_N and a 32-byte CHAP_R (SHA-256)" \
	eval 'cap_new | grep -q "^tgt csg=0 CHAP_N=acl-target CHAP_R=32B$"'
logout $t_acl
ixt_wait 10 no_conn

mutual_node $t_acl acl-target wrong-target-secret-89
bad0=$(kcount "$ini: CHAP failed\|login of $ini failed")
in0=$(kcount "$ini: normal session TSIH [0-9]* logged in")
node $t_acl --login
rc=$?
ixt_check "a wrong target secret: the initiator refuses the login" \
	eval 'ini_refused $rc && ! logged_in $t_acl'
ixt_check "the target logged no failure and no session, and kept no connection" \
	eval '[ "$(kcount "$ini: CHAP failed\|login of $ini failed")" -eq "$bad0" ] &&
	      [ "$(kcount "$ini: normal session TSIH [0-9]* logged in")" -eq "$in0" ] &&
	      ixt_wait 10 no_conn &&
	      grep -q "^No active iSCSI Session" "$IXT_FABRIC/$t_acl/tpgt_1/acls/$ini/info"'

creds "$acl_auth" acl-user acl-secret-0123 acl-target acl-secret-0123
mutual_node $t_acl acl-target acl-secret-0123
ixt_check "a mutual secret equal to the initiator's is refused with 0x0201" \
	refused $t_acl "mutual secret equals initiator secret"

# Per-TPG CHAP in demo mode: the TPG's credentials apply at every login,
# also once the first has left a dynamic ACL behind (demo mode keeps
# cache_dynamic_acls on).
tpg $t_demo 1 1
tpg_auth=$IXT_FABRIC/$t_demo/tpgt_1/auth
creds "$tpg_auth" demo-user demo-secret-0123 demo-target demo-target-secret-4567
new_node $t_demo
chap_node $t_demo demo-user wrong-secret-0123 SHA3-256
ixt_check "per-TPG CHAP in demo mode: a wrong secret is refused with 0x0201" \
	refused $t_demo "wrong CHAP_R"
chap_node $t_demo demo-user demo-secret-0123 SHA3-256
mark_cap
ixt_check "the TPG's secret logs in" \
	eval 'login $t_demo && logged_in $t_demo && target_chose 8 32'
logout $t_demo
ixt_check "and logs in again, after the first login's dynamic ACL" \
	eval 'login $t_demo && logged_in $t_demo'
logout $t_demo
chap_node $t_demo demo-user demo-secret-0123 MD5
mutual_node $t_demo demo-target demo-target-secret-4567
mark_cap
ixt_check "mutual per-TPG CHAP in demo mode logs in" \
	eval 'login $t_demo && logged_in $t_demo &&
	      cap_new | grep -q "^tgt csg=0 CHAP_N=demo-target CHAP_R=16B$"'
logout $t_demo

# AuthMethod=None: open-iscsi then starts in the operational stage, and
# no CHAP key crosses the wire.
tpg $t_none 0 0 acl
new_node $t_none
mark_cap
ixt_check "AuthMethod=None logs in where the TPG does not require CHAP" \
	eval 'login $t_none && logged_in $t_none &&
	      wire_is "ini csg=1" "tgt csg=1"'
logout $t_none
# open-iscsi does CHAP whenever a user name is set, whatever authmethod
# says: a fresh record.
node $t_acl -o delete
new_node $t_acl
mark_cap
ixt_check "AuthMethod=None is refused with 0x0201 where the ACL requires CHAP" \
	eval 'refused $t_acl && wire_is "ini csg=1" "tgt csg=1"'

# Discovery authentication (last: discovery rewrites node records).
da=$IXT_FABRIC/discovery_auth
creds "$da" disc-user disc-secret-0123
echo 1 >"$da/enforce_discovery_auth"
# discover SECRET [MUTUAL_USER MUTUAL_SECRET]
discover() {
	local dp=(-m discoverydb -t st -p "$IXT_ADDR4_T")
	local set=(-n discovery.sendtargets.auth.authmethod -v CHAP
		   -n discovery.sendtargets.auth.username -v disc-user
		   -n discovery.sendtargets.auth.password -v "$1")

	[ -n "${2:-}" ] &&
		set+=(-n discovery.sendtargets.auth.username_in -v "$2"
		      -n discovery.sendtargets.auth.password_in -v "$3")
	iscsiadm "${dp[@]}" -o delete >/dev/null 2>&1
	iscsiadm "${dp[@]}" -o new >/dev/null 2>&1
	iscsiadm "${dp[@]}" -o update "${set[@]}" >/dev/null || return 1
	iscsiadm "${dp[@]}" --discover >"$disc_out" 2>&1
}
listed() {
	grep -qxF "$p4,1 $t_acl" "$disc_out" && grep -qxF "$p4,1 $t_demo" "$disc_out"
}
ixt_check "enforced discovery auth: the right secret lists the targets" \
	eval 'discover disc-secret-0123 && listed'
f0=$(kcount "login of $ini failed, status 0x0201")
discover wrong-secret-0123
rc=$?
ixt_check "a wrong discovery secret fails, with 0x0201 logged" \
	eval '[ $rc -ne 0 ] && ! listed &&
	      kgrew "login of $ini failed, status 0x0201" $f0'
creds "$da" disc-user disc-secret-0123 disc-target disc-target-secret-4567
mark_cap
ixt_check "mutual discovery auth with the right target secret lists the targets" \
	eval 'discover disc-secret-0123 disc-target disc-target-secret-4567 && listed &&
	      cap_new | grep -q "^tgt csg=0 CHAP_N=disc-target CHAP_R=[0-9]*B$"'
bad0=$(kcount "$ini: CHAP failed\|login of $ini failed")
discover disc-secret-0123 disc-target wrong-target-secret-89
rc=$?
ixt_check "a wrong discovery target secret: the initiator gives up, the target logs nothing" \
	eval '[ $rc -ne 0 ] && ! listed &&
	      [ "$(kcount "$ini: CHAP failed\|login of $ini failed")" -eq "$bad0" ] &&
	      ixt_wait 10 no_conn'
iscsiadm -m discoverydb -t st -p "$IXT_ADDR4_T" -o delete >/dev/null 2>&1
echo 0 >"$da/enforce_discovery_auth"
creds "$da" NULL NULL

kill "$sniffer" 2>/dev/null
wait "$sniffer" 2>/dev/null
sniffer=

iscsiadm -m node -o delete >/dev/null 2>&1
ixt_check "no session is left on the initiator" \
	eval '! iscsiadm -m session >/dev/null 2>&1'
for t in "$IXT_FABRIC"/$pre:*; do
	rmdir "$t"/tpgt_1/acls/* "$t"/tpgt_1/np/* 2>/dev/null
	rmdir "$t/tpgt_1" "$t"
done
ixt_unload
ixt_check "iscsi_xt unloads" [ ! -d /sys/module/iscsi_xt ]
ixt_finish
