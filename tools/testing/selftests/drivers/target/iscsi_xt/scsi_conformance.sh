#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two behaviours of the SCSI layer that belong to the fabric, where LIO
# answers wrong (Documentation/admin-guide.rst, "Differences from LIO"):
#
# - Writes whose Expected Data Transfer Length differs from their CDB's
#   transfer length (RFC 7143 section 11.4.5.1): WRITE(6), WRITE(10),
#   WRITE(12), WRITE(16), WRITE AND VERIFY(10) and WRITE AND VERIFY(16) of
#   8 blocks, expecting 12 blocks, 4, 4 and a half, and none. Each answers
#   GOOD with U and residual EDTL - CDB length, or O and residual CDB
#   length - EDTL; the whole blocks the data covers (at most the CDB's)
#   read back as written, the others and 16 blocks past them as they were.
#   On a ramdisk LUN 0 and an iblock LUN 1 over a loop device, over TCP
#   (the raw initiator ixt_raw.py) and over iSER (ixt_iser_raw.py; SKIP
#   when the iSER transport, an RDMA device or pyverbs is missing).
# - A LUN mapped read-only (the ACL's lun_0/write_protect): WRITE(10),
#   WRITE(10) sent with R, WRITE SAME(16) and (10) sent with R, WRITE
#   SAME(16) with UNMAP or NDOB and no data, UNMAP, COMPARE AND WRITE
#   sent with R: each CHECK CONDITION, DATA PROTECT, WRITE PROTECTED
#   (07/27/00), and the blocks another ACL's session filled read back
#   unchanged. The target core checks the mapping only for commands sent
#   with W, so the fabric checks the operation code (before the fix, the
#   WRITE SAME sent with R zeroed the blocks and answered GOOD). Over
#   TCP: the check is in iscsi_xt's core, below either transport.
# - SPC-2 reservations: initiator a holds RESERVE(6) of LUN 0, b is
#   refused; a logs out, or loses its connection (ErrorRecoveryLevel=0,
#   DefaultTime2Retain=0: nothing to reinstate), and logs in again, with
#   its ISID or another: b's RESERVE(6) now succeeds and a's is refused;
#   and b's RESERVE(6) right after a's Logout Response succeeds. In demo
#   mode (cache_dynamic_acls=1) and with explicit ACLs for both
#   initiators.
#
# Afterwards every cache line is back in the pool, and once the
# configuration is removed, no object of the target's modules is left.
# IXT_TARGET=lio runs the same cases on LIO's iscsi_target_mod (+
# ib_isert), where the write cases fail with CHECK CONDITION, INVALID
# FIELD IN COMMAND INFORMATION UNIT (05/0e/03), writing nothing, and the
# reservation cases pass.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_cmd python3 losetup truncate
ixt_require_initiator
ixt_require_module

tgt=iqn.2026-11.org.example.conformance:t
portal=$IXT_ADDR4_T:3260
tpg=$IXT_FABRIC/$tgt/tpgt_1
rd=$IXT_CFS/core/rd_mcp_84/ixt_conf
ib=$IXT_CFS/core/iblock_84/ixt_conf_ib
initiator=iqn.2026-11.org.example:ixt-conformance
opcodes=(write6 write10 write12 write16 write_verify10 write_verify16)
resid_cases=("${opcodes[@]/#/resid_}")
spc2_cases=(spc2_release_on_logout spc2_release_on_logout_new_isid
	spc2_release_at_logout_response spc2_release_on_conn_loss)
owners=(iscsi_xt target_core_mod)
loop=

cleanup() {
	ixt_cleanup
	[ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
}
trap cleanup EXIT

# raw ARGS...: the cases ARGS against the TPG, their lines in $raw_out,
# through the raw initiator of the transport $raw_client (tcp, iser), on
# LUN $raw_lun.
raw_client=tcp
raw_lun=0
raw() {
	local client=("$ixt_py" "$ixt_libdir/ixt_iser_raw.py")

	[ "$raw_client" = tcp ] && client=(python3 "$ixt_libdir/ixt_raw.py")
	raw_out=$(timeout $((300 * IXT_SLOW)) "${client[@]}" --target "$tgt" \
		--host "$IXT_ADDR4_T" --initiator "$initiator" --lun "$raw_lun" \
		"$@" 2>&1)
}

# resid TRANSPORT LUN: the write cases over TRANSPORT on LUN.
resid() {
	raw_client=$1 raw_lun=$2
	ktap_print_msg "writes with other expected lengths, $1, LUN $2"
	ixt_raw_cases "${resid_cases[@]}"
	raw_lun=0
}

# acls on|off: explicit ACLs for initiators a and b, mapping LUN 0, or
# demo mode.
acls() {
	local n

	if [ "$1" = off ]; then
		for n in a b; do
			rm -f "$tpg/acls/$initiator-$n/lun_0/lun0" &&
				rmdir "$tpg/acls/$initiator-$n/lun_0" \
				      "$tpg/acls/$initiator-$n" || return 1
		done
		echo 1 >"$tpg/attrib/generate_node_acls"
		return
	fi
	echo 0 >"$tpg/attrib/generate_node_acls" || return 1
	for n in a b; do
		mkdir -p "$tpg/acls/$initiator-$n/lun_0" &&
			ln -s "$tpg/lun/lun_0" "$tpg/acls/$initiator-$n/lun_0/lun0" ||
			return 1
	done
}

# ro_acls on|off: ACLs for initiators rw, mapping LUN 0, and ro, mapping
# LUN 0 write-protected and LUN 1; or none.
ro_acls() {
	local a=$tpg/acls/$initiator-rw b=$tpg/acls/$initiator-ro

	if [ "$1" = off ]; then
		rm -f "$a/lun_0/lun0" "$b/lun_0/lun0" "$b/lun_1/lun1" &&
			rmdir "$a/lun_0" "$a" "$b/lun_0" "$b/lun_1" "$b"
		return
	fi
	mkdir -p "$a/lun_0" "$b/lun_0" "$b/lun_1" &&
		ln -s "$tpg/lun/lun_0" "$a/lun_0/lun0" &&
		ln -s "$tpg/lun/lun_0" "$b/lun_0/lun0" &&
		echo 1 >"$b/lun_0/write_protect" &&
		ln -s "$tpg/lun/lun_1" "$b/lun_1/lun1"
}

iser=$(ixt_iser_raw_missing)
ixt_begin $((2 * ${#resid_cases[@]} * 2 + 2 * ${#spc2_cases[@]} + 4))
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
ixt_work || ktap_exit_fail_msg "no work directory"
if [ "$IXT_TARGET" = lio ] || [ -z "$iser" ]; then
	ixt_target_load
else
	ixt_load
fi || ktap_exit_fail_msg "cannot load the target ($IXT_TARGET)"
[ -z "$iser" ] && owners+=(iscsi_xt_iser)
modprobe -q loop
{
	ixt_rd_lun0 "$tpg" "$rd" 2048 &&
		truncate -s 4M "$IXT_WORK/ib.img" &&
		loop=$(losetup -f --show "$IXT_WORK/ib.img") &&
		mkdir -p "$ib" && echo "udev_path=$loop" >"$ib/control" &&
		echo 1 >"$ib/enable" && mkdir -p "$tpg/lun/lun_1" &&
		ln -s "$ib" "$tpg/lun/lun_1/ib" && ixt_demo_tpg "$tpg" "$portal"
} || ktap_exit_fail_msg "cannot configure the target"
ixt_owned_mark "${owners[@]}"

resid tcp 0
resid tcp 1
if [ -n "$iser" ]; then
	for c in "${resid_cases[@]}" "${resid_cases[@]}"; do
		ktap_test_skip "$c over iSER: $iser"
	done
else
	echo 1 >"$tpg/np/$portal/iser" ||
		ktap_exit_fail_msg "cannot turn iSER on at $portal"
	resid iser 0
	resid iser 1
	echo 0 >"$tpg/np/$portal/iser"
fi

raw_client=tcp
ro_acls on || ktap_exit_fail_msg "cannot create the read-only mapping"
ktap_print_msg "a LUN mapped read-only, over TCP"
ixt_raw_cases ro_mapping
ro_acls off || ktap_exit_fail_msg "cannot remove the read-only mapping"

echo 1 >"$tpg/attrib/cache_dynamic_acls"
ktap_print_msg "SPC-2 reservations, demo mode"
ixt_raw_cases "${spc2_cases[@]}"
acls on || ktap_exit_fail_msg "cannot create the ACLs"
ktap_print_msg "SPC-2 reservations, explicit ACLs"
ixt_raw_cases "${spc2_cases[@]}"
acls off || ktap_exit_fail_msg "cannot remove the ACLs"

if [ "$IXT_TARGET" = xt ]; then
	ixt_check "every cache line is back in the pool" ixt_pool_all_free
	ixt_cfs_clear
	ixt_owned_check "once the configuration is gone (demo mode keeps the ACLs it made until then)" \
		"${owners[@]}"
else
	ixt_cfs_clear
	ktap_test_skip "every cache line back: iscsi_xt's pool"
	ktap_test_skip "no object left behind: iscsi_xt's check"
fi
ixt_check "the target unloads" ixt_target_unload
ixt_finish
