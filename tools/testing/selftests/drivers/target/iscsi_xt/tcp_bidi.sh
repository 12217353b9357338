#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bidirectional commands over TCP (RFC 7143: R and W set, with a
# Bidirectional Read Expected Data Transfer Length AHS), sent by the raw
# client (open-iscsi sends none) to a LUN of a TCMU backstore served from
# user space by ixt_tcmu.py: besides pscsi, the only backstore the target
# core runs them on. XDWRITEREAD(10) of 8 KiB and of 512 KiB, its write
# data solicited by R2Ts or partly immediate, returns in Data-In the old
# blocks XOR the data sent and a SCSI Response without residuals, and
# writes the data unless DISABLE_WRITE is set; READ(10) reads back what
# was written. R and W without the AHS, and the AHS without both, are
# refused with CHECK CONDITION, the session going on, and so is
# XDWRITEREAD on a ramdisk LUN, which runs none. Afterwards every cache
# line is back in the pool and the module unloads.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd python3
ixt_require_initiator
modprobe target_core_user 2>/dev/null ||
	ixt_skip_all "needs the TCMU backstore (target_core_user)"

tgt=iqn.2026-11.org.example.bidi:tcmu
portal=$IXT_ADDR4_T:3260
dev=$IXT_CFS/core/user_79/ixt_bidi
rd=$IXT_CFS/core/rd_mcp_79/ixt_bidi_rd
tpg=$IXT_FABRIC/$tgt/tpgt_1
blocks=8192
log=$(mktemp)
handler=

cleanup() {
	[ -n "$handler" ] && kill "$handler" 2>/dev/null && wait "$handler"
	rm -f "$log"
}
trap cleanup EXIT

ixt_begin 6
ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"

mkdir -p "$dev" && echo "dev_size=$((blocks * 512))" >"$dev/control" &&
	echo 1 >"$dev/enable"
python3 "$ixt_libdir/ixt_tcmu.py" ixt_bidi $blocks >"$log" 2>&1 &
handler=$!
ixt_check "the TCMU handler serves the backstore" \
	ixt_wait 60 grep -q '^ready$' "$log"

mkdir -p "$tpg/lun/lun_0" && ln -s "$dev" "$tpg/lun/lun_0/ixt_bidi"
mkdir -p "$rd" && echo rd_pages=256 >"$rd/control" && echo 1 >"$rd/enable"
mkdir -p "$tpg/lun/lun_1" && ln -s "$rd" "$tpg/lun/lun_1/ixt_bidi_rd"
mkdir "$tpg/np/$portal"
echo 0 >"$tpg/attrib/authentication"
echo 1 >"$tpg/attrib/generate_node_acls"
echo 0 >"$tpg/attrib/demo_mode_write_protect"
echo 1 >"$tpg/enable"

out=$(python3 "$ixt_libdir/ixt_raw.py" --target "$tgt" \
	--host "$IXT_ADDR4_T" ffp_bidi 2>&1)
while read -r line; do
	[ -n "$line" ] && ktap_print_msg "$line"
done <<<"$out"
ixt_check "XDWRITEREAD(10) both ways through TCMU, and refusals" \
	grep -q '^ok ffp_bidi: ' <<<"$out"
while read -r line; do
	[ -n "$line" ] && ktap_print_msg "ixt_tcmu.py: $line"
done <"$log"

echo 0 >"$tpg/enable"
rm "$tpg/lun/lun_0/ixt_bidi" "$tpg/lun/lun_1/ixt_bidi_rd"
rmdir "$tpg/lun/lun_0" "$tpg/lun/lun_1" "$tpg/np/$portal" "$tpg" \
	"$IXT_FABRIC/$tgt"
rmdir "$rd" "$(dirname "$rd")"
ixt_check "every cache line is back in the pool" ixt_pool_all_free
kill "$handler" && wait "$handler"
handler=
ixt_check "the TCMU backstore goes" rmdir "$dev" "$(dirname "$dev")"
ixt_unload
ixt_check "iscsi_xt unloads" [ ! -d /sys/module/iscsi_xt ]
ixt_check "nothing was rejected" \
	eval '! ixt_klog_since_mark | grep -q "rejecting"'
ixt_finish
