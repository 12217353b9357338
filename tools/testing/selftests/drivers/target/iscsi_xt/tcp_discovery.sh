#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# SendTargets discovery with open-iscsi: every enabled TPG the initiator
# may see is listed with each of its portals (IPv6 in brackets, wildcard
# portals under the address the initiator reached), TPGs its ACLs or
# demo_mode_discovery hide are not, an answer longer than one PDU
# arrives whole, and enforce_discovery_auth requires the discovery_auth
# CHAP secret.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_initiator

ini=$IXT_INITIATOR
pre=iqn.2026-11.org.example.disc
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# tpg TARGET TAG ENABLE DEMO PORTAL...: a TPG with its portals.
tpg() {
	local d=$IXT_FABRIC/$1/tpgt_$2 enable=$3 demo=$4 p

	shift 4
	mkdir -p "$d" || return 1
	echo 0 >"$d/attrib/authentication"
	echo "$demo" >"$d/attrib/generate_node_acls"
	for p in "$@"; do
		mkdir "$d/np/$p" || return 1
	done
	echo "$enable" >"$d/enable"
}

discover() {
	iscsiadm -m discovery -t st -p "$1" 2>&1 | tee "$out" | sort
}

listed() {
	grep -qxF "$1" "$out"
}

ixt_begin 12
ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"

tpg $pre:a 1 1 1 "$IXT_ADDR4_T:3260" "[$IXT_ADDR6_T]:3260"
tpg $pre:b 1 1 0 "0.0.0.0:3262"
mkdir "$IXT_FABRIC/$pre:b/tpgt_1/acls/$ini"
tpg $pre:hidden-no-acl 1 1 0 "$IXT_ADDR4_T:3260"
tpg $pre:hidden-disabled 1 0 1 "$IXT_ADDR4_T:3260"
tpg $pre:hidden-no-demo-discovery 1 1 1 "$IXT_ADDR4_T:3260"
echo 0 >"$IXT_FABRIC/$pre:hidden-no-demo-discovery/tpgt_1/attrib/demo_mode_discovery"

discover "$IXT_ADDR4_T" >/dev/null
ixt_check "a demo-mode TPG is listed with its IPv4 portal" \
	listed "$IXT_ADDR4_T:3260,1 $pre:a"
ixt_check "and with its IPv6 portal, in brackets" \
	listed "[$IXT_ADDR6_T]:3260,1 $pre:a"
ixt_check "a wildcard portal is listed under the address reached" \
	listed "$IXT_ADDR4_T:3262,1 $pre:b"
ixt_check "TPGs hidden by ACLs, enable or demo_mode_discovery are not listed" \
	eval '! grep -q hidden "$out"'
ixt_check "nothing else is listed" [ "$(wc -l <"$out")" -eq 3 ]

discover "[$IXT_ADDR6_T]" >/dev/null
ixt_check "discovery over IPv6 lists the same target" \
	eval 'listed "[$IXT_ADDR6_T]:3260,1 $pre:a" && listed "$IXT_ADDR4_T:3260,1 $pre:a"'

# 12 targets of ~130-byte names: about 2 KiB of text, which an initiator
# that takes 512 bytes per PDU receives in five Text Responses.
for ((i = 0; i < 12; i++)); do
	tpg "$pre:long-$(printf '%0100d' "$i")" 1 1 1 "$IXT_ADDR4_T:3263" ||
		break
done
dp=$IXT_ADDR4_T:3263
iscsiadm -m discoverydb -t st -p "$dp" -o new >/dev/null 2>&1
iscsiadm -m discoverydb -t st -p "$dp" -o update \
	-n discovery.sendtargets.iscsi.MaxRecvDataSegmentLength -v 512 >/dev/null
iscsiadm -m discoverydb -t st -p "$dp" --discover >"$out" 2>&1
ixt_check "a SendTargets answer in 512-byte parts arrives whole" \
	[ "$(grep -c ":long-" "$out")" -eq 12 ]
iscsiadm -m discoverydb -t st -p "$dp" -o delete >/dev/null 2>&1

# Discovery authentication: with enforce_discovery_auth=1 an initiator
# without CHAP is refused, one with the discovery_auth secret gets in,
# one with a wrong secret is refused (0x0201, logged).
da=$IXT_FABRIC/discovery_auth
echo disc-user >"$da/userid"
echo disc-secret-0123 >"$da/password"
echo 1 >"$da/enforce_discovery_auth"
chap_discover() {
	iscsiadm -m discoverydb -t st -p "$IXT_ADDR4_T" -o delete >/dev/null 2>&1
	iscsiadm -m discoverydb -t st -p "$IXT_ADDR4_T" -o new >/dev/null 2>&1
	if [ -n "$1" ]; then
		iscsiadm -m discoverydb -t st -p "$IXT_ADDR4_T" -o update \
			-n discovery.sendtargets.auth.authmethod -v CHAP >/dev/null
		iscsiadm -m discoverydb -t st -p "$IXT_ADDR4_T" -o update \
			-n discovery.sendtargets.auth.username -v disc-user >/dev/null
		iscsiadm -m discoverydb -t st -p "$IXT_ADDR4_T" -o update \
			-n discovery.sendtargets.auth.password -v "$1" >/dev/null
	fi
	iscsiadm -m discoverydb -t st -p "$IXT_ADDR4_T" --discover >"$out" 2>&1
}
! chap_discover ""
ixt_check "enforced discovery auth refuses an initiator without CHAP" [ $? -eq 0 ]
chap_discover wrong-secret-0123
rc=$?
ixt_check "and one with a wrong secret, with a log line" \
	eval '[ $rc -ne 0 ] && ixt_klog_since_mark | grep -q "$ini: CHAP failed"'
chap_discover disc-secret-0123
ixt_check "the discovery_auth secret gets the target list" \
	listed "$IXT_ADDR4_T:3260,1 $pre:a"
iscsiadm -m discoverydb -t st -p "$IXT_ADDR4_T" -o delete >/dev/null 2>&1
echo 0 >"$da/enforce_discovery_auth"

ixt_check "no PDU of the discovery sessions was rejected" \
	eval '! ixt_klog_since_mark | grep -q "rejecting"'

iscsiadm -m node -o delete >/dev/null 2>&1
for d in "$IXT_FABRIC"/$pre:*/tpgt_*; do
	rmdir "$d"/acls/* "$d"/np/* 2>/dev/null
	rmdir "$d" "$(dirname "$d")"
done
ixt_unload
ixt_check "iscsi_xt unloads" [ ! -d /sys/module/iscsi_xt ]
ixt_finish
