#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# iSER over iWARP: soft-iWARP siw0 on veth0 in place of soft-RoCE rxe0
# (siw.ko as scripts/setup.sh builds it). An iWARP connection is a TCP
# connection and siw listens on the portal's own address and port, which
# the portal's TCP listener holds: iscsi_xt lends the port to the iWARP
# listener while iser is 1.
# (1) LIO first, the reference, in the same boot: the real targetcli
#     creates the portal and "enable_iser true" fails (ib_isert logs
#     "rdma_listen() failed: -98"), iser reads 0.
# (2) iscsi_xt, the same targetcli script: iser reads 1, the kernel log
#     says the TCP listener gave the port to the iWARP listener, and an
#     RDMA CM id of siw0 listens on the portal.
# (3) open-iscsi (ib_iser) logs in over iWARP: the session runs over
#     iSER on a connected RDMA CM id of siw0; fio writes 8 MiB with
#     CRC32C verification.
# (4) The raw iSER initiator (pyverbs) logs in and out, writes 64 KiB
#     and reads them back.
# (5) Meanwhile a TCP portal of the address on another port serves a
#     TCP session, whose 1 MiB written reads back through the iSER
#     session; SendTargets over TCP on the iSER port fails (siw has it).
# (6) targetcli "enable_iser false": the TCP listener is back (kernel
#     log), an open-iscsi TCP login on that port works and the iSER
#     session, still up, reads what it wrote.
# (7) iser 1 again, then the device goes and comes: siw0 deleted, the
#     port is TCP's again; soft-RoCE rxe0 in its place, the iSER listener
#     is back on rxe0 and TCP keeps the port (RoCE needs no TCP port);
#     siw0 again, the iWARP listener takes the port again and the raw
#     initiator logs in.
# (8) The wildcard portal 0.0.0.0:3262 (configfs): iser 1 lends the port
#     while an iWARP device exists (siw's socket is bound to veth0), the
#     raw initiator writes and reads through it; iser 0 gives it back:
#     SendTargets over TCP through 127.0.0.1, which siw never served.
# (9) Everything logs out, the configuration is cleared, the target's
#     modules unload and rxe0 is back.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_cmd targetcli fio ss
[ -S /run/dbus/system_bus_socket ] || ixt_skip_all "targetcli needs the system D-Bus"
[ "$IXT_TARGET" = xt ] ||
	ixt_skip_all "runs LIO (the reference) and iscsi_xt side by side itself"
ixt_require_initiator
ixt_require_iser
modinfo -n iscsi_target_mod ib_isert >/dev/null 2>&1 ||
	ixt_skip_all "LIO's iscsi_target_mod and ib_isert are not available"
[ -f "${IXT_SIW_KO:-}" ] ||
	ixt_skip_all "soft-iWARP is not built (${IXT_SIW_KO:-IXT_SIW_KO unset}): scripts/setup.sh builds it"
ixt_require_pyverbs

t=iqn.2026-11.org.example.iwarp:t
a=$IXT_ADDR4_T
p=$a:3260
p2=$a:3261
pw=0.0.0.0:3262
np=$IXT_FABRIC/$t/tpgt_1/np
ixt_work
work=$IXT_WORK

cleanup() {
	ixt_cleanup
	for m in ib_isert iscsi_target_mod; do
		[ -d "/sys/module/$m" ] && rmmod "$m"
	done
	ixt_use_rxe
} >/dev/null 2>&1
trap cleanup EXIT
ixt_use_siw || ixt_skip_all "cannot put soft-iWARP siw0 on veth0"

# The target, in one targetcli run: a ramdisk LUN in demo mode, portals
# on ports 3260 and 3261 of the address, iSER on the first.
setup_script() {
	local g=/iscsi/$t/tpg1

	echo "/backstores/ramdisk create name=ixt_iwarp_rd size=64M"
	echo "/iscsi create $t"
	echo "$g/luns create /backstores/ramdisk/ixt_iwarp_rd"
	echo "$g/portals create $a 3260"
	echo "$g/portals create $a 3261"
	echo "$g set attribute generate_node_acls=1 authentication=0 demo_mode_write_protect=0"
	echo "$g/portals/$p enable_iser true"
}

iser_of() {
	cat "$np/$1/iser" 2>/dev/null
}

# cm_on STATE PORTAL DEV: an RDMA CM id of the target on DEV is in STATE
# on PORTAL.
cm_on() {
	ixt_rdma_cm "$1" "$2" | grep -q "link $3/" && return 0
	ktap_print_msg "no $1 RDMA CM id of $3 on $2: $(rdma res show cm_id 2>&1 | tr '\n' ';')"
	return 1
}

# sendtargets PORTAL: SendTargets over TCP at PORTAL lists the target.
sendtargets() {
	timeout 60 iscsiadm -m discovery -t st -p "$1" -o nonpersistent 2>&1 |
		grep -q " $t\$"
}

# klog_at_least N PATTERN: ixt_klog_grew PATTERN N, within 30 s; what is
# missing shown once.
klog_at_least() {
	ixt_wait 30 ixt_klog_grew "$2" "$1" >/dev/null || ixt_klog_grew "$2" "$1"
}

raw_port=3260
raw() {
	raw_out=$(timeout $((300 * IXT_SLOW)) "$ixt_py" "$ixt_libdir/ixt_iser_raw.py" --target "$t" \
		--host "$a" --port "$raw_port" "$@" 2>&1)
}

# session_disk TRANSPORT: the LUN's disk in the session to the target
# over TRANSPORT.
session_disk() {
	local sid

	sid=$(ixt_sid "$1" "$t") && ixt_sid_disk "$sid" 0
}

lent="TCP listener stopped: the iWARP listener (iSER) takes the port"
back="TCP listener back from the iWARP listener"

ixt_begin 26

# (1) LIO.
mkdir -p "$work/lio" "$work/xt"
{ modprobe --ignore-install iscsi_target_mod &&
	modprobe --ignore-install ib_isert; } ||
	ktap_exit_fail_msg "cannot load iscsi_target_mod and ib_isert"
setup_script | ixt_tcli "$work/lio"
lio_iser=$(iser_of "$p")
ktap_print_msg "LIO: iser reads ${lio_iser:-nothing}; targetcli: $(grep -i iser "$work/lio/targetcli.log" | tr '\n' ' ')"
ixt_check "LIO: targetcli enable_iser true on siw0 fails, ib_isert: rdma_listen() failed: -98" \
	eval '[ "$lio_iser" = 0 ] &&
	      klog_at_least 1 "isert_setup_id: rdma_listen() failed: -98"'
ixt_check "LIO: the configuration cleared and its modules unloaded" \
	eval 'ixt_cfs_clear && rmdir "$IXT_FABRIC" && rmmod ib_isert iscsi_target_mod'

# (2) iscsi_xt.
ixt_insmod_iser || ktap_exit_fail_msg "cannot load iscsi_xt and iscsi_xt_iser"
setup_script | ixt_tcli "$work/xt"
ixt_check "targetcli enable_iser true on siw0 succeeds: iser reads 1" \
	eval '[ "$(iser_of "$p")" = 1 ] || { ixt_show_tail "$work/xt/targetcli.log"; false; }'
ixt_check "the TCP listener lends $p to the iWARP listener (kernel log)" \
	klog_at_least 1 "$p: $lent"
ixt_check "an RDMA CM id of siw0 listens on $p" cm_on LISTEN "$p" siw0

# (3) open-iscsi over iWARP.
ixt_check "open-iscsi logs in over iSER through siw0" \
	eval 'ixt_iser_login "$t" "$p" &&
	      [ "$(ixt_sid_transport "$(ixt_sid iser "$t")")" = iser ] &&
	      cm_on CONNECT "$p" siw0'
# shellcheck disable=SC2034 # the checks eval it
iser_disk=$(session_disk iser)
ixt_check "fio writes 8 MiB over iWARP, CRC32C verified" \
	eval '[ -n "$iser_disk" ] && ixt_fio_verify "$iser_disk" 0 8192 64k 8'

# (4) The raw initiator.
ixt_raw_cases login_logout write_read

# (5) TCP beside iSER.
ixt_check "a TCP login at $p2 works while $p serves iSER" \
	eval 'ixt_login default "$t" "$p2" && tcp_disk=$(session_disk tcp)'
ixt_check "1 MiB written over TCP reads back equal over iWARP" \
	eval '[ -n "${tcp_disk:-}" ] && [ -n "$iser_disk" ] &&
	      ixt_rw_1m "$tcp_disk" "$iser_disk" 16'
ixt_check "SendTargets over TCP at $p fails: the iWARP listener has the port" \
	eval '! sendtargets "$p"'
ixt_node default "$t" "$p2" --logout

# (6) iSER off again.
echo "/iscsi/$t/tpg1/portals/$p enable_iser false" | ixt_tcli "$work/xt"
ixt_check "targetcli enable_iser false: iser reads 0, no RDMA CM id listens on $p" \
	eval '[ "$(iser_of "$p")" = 0 ] && [ -z "$(ixt_rdma_cm LISTEN "$p")" ]'
ixt_check "the TCP listener of $p is back (kernel log)" klog_at_least 1 "$p: $back"
ixt_check "a TCP login at $p works again" \
	eval 'ixt_login default "$t" "$p" && tcp_disk=$(session_disk tcp)'
ixt_check "the iSER session stays up and reads what TCP wrote" \
	eval '[ -n "${tcp_disk:-}" ] && ixt_rw_1m "$tcp_disk" "$iser_disk" 17'
# Every session (the iSER one's node record went with the TCP login at $p).
iscsiadm -m session -u >/dev/null 2>&1

# (7) The device goes and comes.
echo 1 >"$np/$p/iser"
ixt_check "iser 1 again: the iWARP listener takes $p again" \
	eval 'klog_at_least 2 "$p: $lent" && cm_on LISTEN "$p" siw0'
rdma link delete siw0
ixt_check "siw0 deleted: the TCP listener of $p is back and answers" \
	eval 'klog_at_least 2 "$p: $back" && sendtargets "$p"'
rdma link add rxe0 type rxe netdev veth0
ixt_check "rxe0 in its place: iSER listens on rxe0 again, TCP keeps $p" \
	eval 'klog_at_least 1 "listening on $p again (iSER)" &&
	      cm_on LISTEN "$p" rxe0 && sendtargets "$p"'
rdma link delete rxe0
rdma link add siw0 type siw netdev veth0
ixt_check "siw0 back: the iWARP listener takes $p again" \
	eval 'klog_at_least 2 "listening on $p again (iSER)" &&
	      klog_at_least 3 "$p: $lent" && cm_on LISTEN "$p" siw0'
ixt_raw_cases login_logout

# (8) The wildcard portal.
mkdir "$np/$pw"
ixt_check "$pw: iser 1 lends the port to siw0's listener (bound to veth0)" \
	eval 'echo 1 >"$np/$pw/iser" && klog_at_least 1 "$pw: $lent" &&
	      cm_on LISTEN "$pw" siw0 &&
	      ss -ltnH "sport = :${pw##*:}" | grep -q "%veth0:${pw##*:} "'
raw_port=${pw##*:}
ixt_raw_cases write_read
ixt_check "$pw: iser 0 gives the port back: SendTargets over TCP at 127.0.0.1" \
	eval 'echo 0 >"$np/$pw/iser" && klog_at_least 1 "$pw: $back" &&
	      sendtargets "127.0.0.1:${pw##*:}"'

# (9) Teardown.
ixt_check "everything logs out, the configuration is cleared, the modules unload" \
	eval 'iscsiadm -m session -u >/dev/null 2>&1;
	      ! iscsiadm -m session >/dev/null 2>&1 &&
	      iscsiadm -m node -o delete >/dev/null 2>&1 &&
	      ixt_cfs_clear && ixt_target_unload'
ixt_check "rxe0 is back on veth0" eval 'ixt_use_rxe && [ -d /sys/class/infiniband/rxe0 ]'
ixt_finish
