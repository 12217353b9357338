#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Turning iSER on for a portal (echo 1 >np/PORTAL/iser) fails the same
# way on iscsi_xt as on LIO. The same writes run once on LIO's
# iscsi_target_mod + ib_isert and once on iscsi_xt + iscsi_xt_iser, each
# freshly loaded in the same boot; each write's outcome (the shell's
# error text, what iser reads back afterwards, how many RDMA CM ids of
# the target listen on the address) must be the same on both:
# (1) the iSER module fails to load (a modprobe.d "install MODULE
#     /bin/false" rule in the VM's writable overlay, removed again);
# (2) after the module is loaded, the same write succeeds;
# (3) an IPv4 address no RDMA device has (the initiator's end of the
#     veth pair), (4) an IPv6 one, (5) 127.0.0.1;
# (6) a port an RDMA CM listener of user space holds on the same address
#     (pyverbs, /usr/bin/python3), (7) one it holds on 0.0.0.0;
# (8) the same write as (6) once that listener is gone.
# The outcomes of both are printed; a difference fails the case.
# Each target's teardown must succeed and leave no module loaded.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_cmd rdma
ixt_loaded && ixt_skip_all "iscsi_xt is already loaded"
[ -d /sys/module/iscsi_target_mod ] && ixt_skip_all "iscsi_target_mod is loaded"
modinfo -n iscsi_target_mod ib_isert >/dev/null 2>&1 ||
	ixt_skip_all "LIO's iscsi_target_mod and ib_isert are not available"
[ -f "${IXT_KO%/*}/iscsi_xt_iser.ko" ] || modinfo -n iscsi_xt_iser >/dev/null 2>&1 ||
	ixt_skip_all "iscsi_xt's iSER transport is not built"
[ -n "${IXT_ADDR4_T:-}" ] ||
	ixt_skip_all "needs the VM test network (guest-env.sh)"
ls /sys/class/infiniband/*/ports >/dev/null 2>&1 ||
	ixt_skip_all "needs an RDMA device (soft-RoCE rxe0: guest-env.sh)"
ixt_require_pyverbs
# Only in the VM: the rule goes to its overlay, not to the host's /etc.
[ -n "${IXT_IN_VM:-}" ] || ixt_skip_all "writes /etc/modprobe.d: VM only"

t=iqn.2026-11.org.example.iserr:t
tpg=$IXT_FABRIC/$t/tpgt_1
conf=/etc/modprobe.d/ixt-iser-errors.conf
work=$(mktemp -d)
busy=$IXT_ADDR4_T:3271
busy_any=0.0.0.0:3272
pids=()

cases=(
	"failed_load	$IXT_ADDR4_T:3270	the iSER module fails to load"
	"loaded	$IXT_ADDR4_T:3270	the same portal, the module loaded"
	"no_rdma4	$IXT_ADDR4_I:3270	an IPv4 address no RDMA device has"
	"no_rdma6	[$IXT_ADDR6_I]:3270	an IPv6 address no RDMA device has"
	"loopback	127.0.0.1:3270	127.0.0.1"
	"busy	$busy	a port an RDMA CM listener holds on the address"
	"busy_any	$IXT_ADDR4_T:3272	a port an RDMA CM listener holds on 0.0.0.0"
	"freed	$busy	the port of (busy) once its listener is gone"
)

listener_stop() {
	local p

	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	pids=()
}

cleanup() {
	listener_stop
	rm -f "$conf"
	teardown
	for m in ib_isert iscsi_target_mod iscsi_xt_iser iscsi_xt; do
		[ -d "/sys/module/$m" ] && rmmod "$m"
	done
	rm -rf "$work"
} 2>/dev/null
trap cleanup EXIT

# listen ADDR PORT: an RDMA CM id of user space listening on ADDR:PORT,
# until killed; waits (up to 30 s) until "rdma res" shows it.
listen() {
	local lsn=$1:$2

	"$ixt_py" -c '
import sys, time
from pyverbs.cmid import CMID, AddrInfo
import pyverbs.cm_enums as ce
cmid = CMID(creator=AddrInfo(src=sys.argv[1], src_service=sys.argv[2],
                             port_space=ce.RDMA_PS_TCP, flags=ce.RAI_PASSIVE))
cmid.listen()
time.sleep(3600)' "$1" "$2" &
	pids+=($!)
	ixt_wait 30 eval '[ -n "$(ixt_rdma_cm LISTEN "$lsn")" ]'
}

# target_ids PORTAL: how many RDMA CM ids of the target (not of user
# space) listen on PORTAL.
target_ids() {
	local a=$1

	a=${a/\[/}
	a=${a/\]/}
	ixt_rdma_cm LISTEN "$a" | grep -vc ' pid [0-9]'
}

# try PORTAL: echo 1 >PORTAL's iser; prints the outcome: the shell's
# error text (or "ok"), the value read back, the target's listeners.
try() {
	local f=$tpg/np/$1/iser msg

	if msg=$( { echo 1 >"$f"; } 2>&1 ); then
		msg=ok
	else
		msg=${msg##*: }
	fi
	echo "$msg; iser reads $(cat "$f" 2>&1); $(target_ids "$1") listening cm_id"
}

load_fabric() {
	case $1 in
	lio)	modprobe --ignore-install iscsi_target_mod ;;
	xt)	modprobe rdma_cm && ixt_load ;;
	esac
}

iser_mod() {
	case $1 in
	lio)	echo ib_isert ;;
	xt)	echo iscsi_xt_iser ;;
	esac
}

load_iser() {
	case $1 in
	lio)	modprobe --ignore-install ib_isert ;;
	xt)	if [ -n "${IXT_KO:-}" ]; then
			ixt_insmod_deps "${IXT_KO%/*}/iscsi_xt_iser.ko" &&
				insmod "${IXT_KO%/*}/iscsi_xt_iser.ko"
		else
			modprobe --ignore-install iscsi_xt_iser
		fi ;;
	esac
}

teardown() {
	local np

	[ -d "$tpg" ] || return 0
	for np in "$tpg"/np/*; do
		[ -d "$np" ] || continue
		echo 0 >"$np/iser"
		rmdir "$np" || return 1
	done
	rmdir "$tpg" "$IXT_FABRIC/$t" && rmdir "$IXT_FABRIC"
}

# side lio|xt: every case on that target, outcomes to $work/SIDE.
side() {
	local s=$1 c name portal rest

	: >"$work/$s"
	load_fabric "$s" || { echo "cannot load the $s fabric" >"$work/$s.err"; return 1; }
	mkdir -p "$tpg" || return 1
	for c in "${cases[@]}"; do
		IFS=$'\t' read -r name portal rest <<<"$c"
		[ -d "$tpg/np/$portal" ] || mkdir "$tpg/np/$portal" ||
			echo "mkdir np/$portal failed" >>"$work/$s.err"
	done
	for c in "${cases[@]}"; do
		IFS=$'\t' read -r name portal rest <<<"$c"
		case $name in
		failed_load)
			echo "install $(iser_mod "$s") /bin/false" >"$conf"
			;;
		loaded)
			rm -f "$conf"
			load_iser "$s" ||
				echo "cannot load $(iser_mod "$s")" >>"$work/$s.err"
			;;
		freed)
			listener_stop
			;;
		esac
		printf '%s\t%s\n' "$name" "$(try "$portal")" >>"$work/$s"
	done
	teardown || echo "teardown failed" >>"$work/$s.err"
	for m in $(iser_mod "$s") $([ "$s" = lio ] && echo iscsi_target_mod || echo iscsi_xt); do
		[ -d "/sys/module/$m" ] && rmmod "$m"
		[ -d "/sys/module/$m" ] && echo "$m still loaded" >>"$work/$s.err"
	done
}

ixt_begin $((${#cases[@]} + 2))

for s in lio xt; do
	rm -f "$work/$s.err"
	listener_stop
	listen "${busy%:*}" "${busy##*:}" && listen "${busy_any%:*}" "${busy_any##*:}" ||
		ktap_exit_fail_msg "the user-space RDMA CM listeners do not start"
	side "$s"
done

for c in "${cases[@]}"; do
	IFS=$'\t' read -r name portal rest <<<"$c"
	l=$(awk -F'\t' -v n="$name" '$1 == n { print $2 }' "$work/lio")
	x=$(awk -F'\t' -v n="$name" '$1 == n { print $2 }' "$work/xt")
	ktap_print_msg "$name ($portal): LIO: ${l:-?}"
	ktap_print_msg "$name ($portal): iscsi_xt: ${x:-?}"
	ixt_check "echo 1 >iser, $rest: the same outcome on both" \
		eval '[ -n "$l" ] && [ "$l" = "$x" ]'
done
for s in lio xt; do
	[ -s "$work/$s.err" ] && while read -r line; do
		ktap_print_msg "$s: $line"
	done <"$work/$s.err"
	ixt_check "$s: set up, torn down and unloaded without an error" \
		[ ! -s "$work/$s.err" ]
done
ixt_finish
