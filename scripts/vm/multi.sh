#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot several VMs at once, each with a role and a job of its own, joined
# by point-to-point wires: datagrams between two QEMU processes over Unix
# sockets in the results folder (no bridge, no tap, no privilege, no port
# to choose; a full socket holds the sender back where UDP would drop).
#
#   scripts/vm/multi.sh [-d] [-t SECONDS] [-m MEM] [-c CPUS] [-s SIZE[:ROLES]]
#                       [-p SIZE[:ROLES]] -n NAME [-w ROLE1:ROLE2]...
#                       ROLE=SCRIPT[,ARG...]...
#
#   -d          boot with run.sh's cheap debug options
#   -t SECONDS  kill every VM still running after this long (default 1200)
#   -m MEM      each guest's memory (default 1536M)
#   -c CPUS     each guest's vCPUs (default 1)
#   -s SIZE     a raw disk of SIZE (truncate's units), attached to every VM,
#               or only to ROLES (comma-separated)
#   -p SIZE     a raw disk of SIZE of its own for every VM, or only for
#               ROLES: build/vm/NAME/ROLE.img, serial ixt-own
#   -n NAME     results folder build/vm/NAME (required)
#   -w R1:R2    a wire between roles R1 and R2, at most one per pair; each
#               role's NICs come in the order of its wires
#
# ROLE (a lower-case letter, then up to 11 letters or digits) runs SCRIPT
# with the ARGs as root, as run.sh runs its script; the job sources
# scripts/vm/guest-multi.sh, which names each NIC after the role at its
# other end and gives it an RDMA device, and exports what the job needs
# to know (IXT_ROLE, IXT_PEER_<ROLE>_ADDR4... Documentation/testing.rst).
# Wire N (from 0) is 198.51.100.16N/28 and 2001:db8:0:N+1::/64, its first
# role .16N+1 and ::1, its second .16N+2 and ::2; MTU 9000. Each VM's results go to
# build/vm/NAME/ROLE/ as run.sh's do; the rendezvous folder shared by
# all is build/vm/NAME/shared/, the disk build/vm/NAME/shared.img (each
# VM's own disk, -p, build/vm/NAME/ROLE.img). The
# job's output lines come prefixed with [ROLE]. The exit status is 0 when
# every job exited 0, 124 when a VM was killed at the bound, 125 when one
# ended without an exit status, 1 when a job failed.
#
# A job may ask the host to power a VM off, as a pulled plug (its QEMU
# killed), and on again: a new boot of the same job, with IXT_BOOT 2, 3...
# (guest-multi.sh's ixt_mvm_power). The output of boot N goes on in
# ROLE/; the files of the boots before it move to ROLE/bootN-1/.

set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${IXT_BUILD:-$top/build}
debug=
timeout=1200
mem=1536M
cpus=1
disk=
own=
name=
wires=()

die() {
	echo "multi: $*" >&2
	exit 2
}

while getopts "dt:m:c:s:p:n:w:" opt; do
	case "$opt" in
	d)	debug=1 ;;
	t)	timeout=$OPTARG ;;
	m)	mem=$OPTARG ;;
	c)	cpus=$OPTARG ;;
	s)	disk=$OPTARG ;;
	p)	own=$OPTARG ;;
	n)	name=$OPTARG ;;
	w)	wires+=("$OPTARG") ;;
	*)	exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -n "$name" ] && [ $# -ge 1 ] ||
	die "usage: $0 [-d] [-t S] [-m MEM] [-c CPUS] [-s SIZE[:ROLES]] [-p SIZE[:ROLES]] -n NAME [-w R1:R2]... ROLE=SCRIPT[,ARG...]..."

declare -A jobs=()
roles=()
for spec in "$@"; do
	role=${spec%%=*}
	[[ $spec == *=* && $role =~ ^[a-z][a-z0-9]{0,11}$ && $role != lo ]] ||
		die "$spec: not ROLE=SCRIPT[,ARG...] with a ROLE like node1"
	[ -z "${jobs[$role]:-}" ] || die "role $role given twice"
	jobs[$role]=${spec#*=}
	roles+=("$role")
done
for w in "${wires[@]}"; do
	[[ $w =~ ^([a-z0-9]+):([a-z0-9]+)$ ]] && [ -n "${jobs[${w%:*}]:-}" ] &&
		[ -n "${jobs[${w#*:}]:-}" ] && [ "${w%:*}" != "${w#*:}" ] ||
		die "wire $w: not R1:R2 with two roles given"
	[ "$(printf '%s\n' "${wires[@]}" | grep -cx -e "$w" -e "${w#*:}:${w%:*}")" = 1 ] ||
		die "wire $w: two wires between the same roles"
done
[ ${#wires[@]} -le 16 ] || die "more than 16 wires: 198.51.100.0/24 holds 16"
run=$build/vm/$name
shared=$run/shared
# The wires' sockets are $run/wN-ROLE.sock: sun_path has room for 107 bytes.
[ ${#run} -le 80 ] || die "$run: too long a path for the wires' sockets"

# role_wires ROLE: one line "WIRE END PEER" per wire of ROLE, in order; END
# is 0 for the wire's first role, 1 for its second.
role_wires() {
	local i

	for i in "${!wires[@]}"; do
		case ${wires[i]} in
		"$1":*)	echo "$i 0 ${wires[i]#*:}" ;;
		*:"$1")	echo "$i 1 ${wires[i]%:*}" ;;
		esac
	done
}

# for_role SPEC ROLE: SPEC (-s's or -p's SIZE[:ROLES]) is given and names
# ROLE, or names no roles.
for_role() {
	[ -n "$1" ] && [[ $1 != *:* || ,${1#*:}, == *,$2,* ]]
}

# vm_args ROLE INDEX: sets qargs (QEMU's NICs, rendezvous share, disks) and
# extra (the job's variables) for ROLE, the INDEXth role given.
vm_args() {
	local role=$1 r=$2 i end peer mac nics=() v=() q

	qargs=(-pidfile "$run/$role/qemu.pid"
		-fsdev "local,id=shared,path=$shared,security_model=none"
		-device "virtio-9p-pci,fsdev=shared,mount_tag=ixtshared")
	while read -r i end peer; do
		mac=$(printf '52:54:00:ab:%02x:%02x' "$i" "$r")
		qargs+=(-netdev "dgram,id=w$i,local.type=unix,local.path=$run/w$i-$role.sock,remote.type=unix,remote.path=$run/w$i-$peer.sock"
			-device "virtio-net-pci,netdev=w$i,mac=$mac,host_mtu=9000")
		q=${peer^^}
		nics+=("$peer")
		v+=("IXT_NIC_$q=$peer" "IXT_MAC_$q=$mac"
			"IXT_LOCAL_${q}_ADDR4=198.51.100.$((16 * i + 1 + end))"
			"IXT_PEER_${q}_ADDR4=198.51.100.$((16 * i + 2 - end))"
			"IXT_LOCAL_${q}_ADDR6=2001:db8:0:$(printf %x $((i + 1)))::$((1 + end))"
			"IXT_PEER_${q}_ADDR6=2001:db8:0:$(printf %x $((i + 1)))::$((2 - end))")
	done < <(role_wires "$role")
	extra="export IXT_ROLE=$role IXT_ROLES=$(printf %q "${roles[*]}") IXT_SHARED=$(printf %q "$shared")"
	extra+=$'\n'"export IXT_NICS=$(printf %q "${nics[*]}")"
	[ ${#v[@]} = 0 ] || extra+=$'\n'"export$(printf ' %q' "${v[@]}")"
	if for_role "$disk" "$role"; then
		qargs+=(-drive "file=$run/shared.img,if=none,id=shared,format=raw,cache=none,file.locking=off"
			-device "virtio-blk-pci,drive=shared,share-rw=on,serial=ixt-shared")
		extra+=$'\n'"export IXT_SHARED_DISK=/dev/disk/by-id/virtio-ixt-shared"
	fi
	if for_role "$own" "$role"; then
		truncate -s "${own%%:*}" "$run/$role.img"
		qargs+=(-drive "file=$run/$role.img,if=none,id=own,format=raw,cache=none"
			-device "virtio-blk-pci,drive=own,serial=ixt-own")
		extra+=$'\n'"export IXT_OWN_DISK=/dev/disk/by-id/virtio-ixt-own"
	fi
}

# boots ROLE: the VM of ROLE, booted again each time the host powered it
# off and on (power_off, power_on); sets timed_out.
boots() {
	local role=$1 out=$run/$1 boot=1 f

	while :; do
		echo "$boot" >"$out/boot"
		ixt_vm_run "$out" "$name/$role" "$cpus" "$mem" "$timeout" "$role" "${qargs[@]}"
		[ -z "$timed_out" ] && [ -e "$out/powered-off" ] || return 0
		echo "vm: $name/$role: powered off after ${SECONDS}s" >&2
		until [ -e "$out/power-on" ]; do
			[ "$SECONDS" -lt "$vm_deadline" ] || { timed_out=1; return 0; }
			sleep 1
		done
		mkdir "$out/boot$boot"
		for f in output.log console.log console-boot1.log started status dmesg.log; do
			[ ! -e "$out/$f" ] || mv "$out/$f" "$out/boot$boot/"
		done
		rm -f "$out/powered-off" "$out/power-on"
		: >"$out/output.log"
		boot=$((boot + 1))
		echo "vm: $name/$role: powered on after ${SECONDS}s: boot $boot" >&2
	done
}

# start_vm ROLE INDEX: the VM of ROLE in the background; its subshell marks
# a VM killed at the bound (OUT/timed-out) and tells the others it ended.
start_vm() {
	local role=$1 out=$run/$1 script a=()

	vm_args "$role" "$2"
	mkdir -p "$out"
	IFS=, read -ra a <<<"${jobs[$role]}"
	script=$(realpath "${a[0]}")
	ixt_vm_job "$out" "$extra" "$script" "${a[@]:1}"
	(
		boots "$role"
		[ -z "$timed_out" ] || : >"$out/timed-out"
		: >"$shared/$role.ended"
		echo "vm: $name/$role: ended after ${SECONDS}s" >&2
	) &
	pids+=($!)
}

# qemu_pid ROLE: the pid of ROLE's QEMU, when it runs.
qemu_pid() {
	local pid

	pid=$(cat "$run/$1/qemu.pid" 2>/dev/null) &&
		grep -qF "$run/" "/proc/$pid/cmdline" 2>/dev/null && echo "$pid"
}

# power_off ROLE: ROLE's QEMU killed (SIGKILL: nothing of the guest runs
# on, its disks keep what they had), its subshell told to wait for
# power_on. A VM already off stays off: done.
power_off() {
	local pid i

	[ -n "${jobs[$1]:-}" ] && [ ! -e "$shared/$1.ended" ] || return 1
	[ ! -e "$run/$1/powered-off" ] || return 0
	pid=$(qemu_pid "$1") || return 1
	: >"$run/$1/powered-off"
	kill -KILL "$pid"
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}

# power_on ROLE: ROLE's subshell told to boot it again; a VM already on
# stays on: done.
power_on() {
	if [ -e "$run/$1/powered-off" ]; then
		: >"$run/$1/power-on"
	else
		qemu_pid "$1" >/dev/null
	fi
}

# power_requests: the jobs' requests (ixt_mvm_power), each
# shared/power/ASKER.SEQ holding "off ROLE" or "on ROLE", answered in
# ASKER.SEQ.status (0 when done).
power_requests() {
	local req action role rc

	for req in "$shared"/power/*; do
		[[ -e $req && $req != *.status && ! -e $req.status ]] || continue
		read -r action role <"$req"
		case $action in
		off)	power_off "$role" ;;
		on)	power_on "$role" ;;
		*)	false ;;
		esac
		rc=$?
		echo "vm: $name: power $action $role asked by ${req##*/}: status $rc" >&2
		echo "$rc" >"$req.status"
	done
}

# kill_vms: the VMs' subshells first (else they would boot again), then
# their QEMUs.
kill_vms() {
	local role pid

	kill "${pids[@]}" 2>/dev/null || true
	for role in "${roles[@]}"; do
		pid=$(qemu_pid "$role") && kill "$pid"
	done
}

# wait_vms: until every VM ended; says when every job had started.
wait_vms() {
	local pid alive ready='' role

	while :; do
		alive=
		for pid in "${pids[@]}"; do
			kill -0 "$pid" 2>/dev/null && alive=1
		done
		[ -n "$alive" ] || break
		power_requests
		if [ -z "$ready" ]; then
			ready=$SECONDS
			for role in "${roles[@]}"; do
				[ -e "$run/$role/started" ] || ready=
			done
			[ -z "$ready" ] ||
				echo "vm: $name: every job started ${ready}s after the start" >&2
		fi
		sleep 1
	done
	wait
}

# report: each VM's end, by name; sets rc.
report() {
	local role out crashed='' failed='' hung='' s

	for role in "${roles[@]}"; do
		out=$run/$role
		if [ -e "$out/timed-out" ]; then
			echo "vm: $name/$role timed out after ${timeout}s and was killed; console log: $out/console.log" >&2
			tail -n 30 "$out/console.log" >&2
			hung=1
		elif [ ! -s "$out/status" ]; then
			echo "vm: $name/$role ended without an exit status (crash or panic?); console log: $out/console.log" >&2
			tail -n 40 "$out/console.log" >&2
			crashed=1
		else
			s=$(cat "$out/status")
			echo "vm: $name/$role exited with status $s (logs in $out)" >&2
			[ "$s" = 0 ] || failed=1
		fi
	done
	rc=0
	[ -z "$failed" ] || rc=1
	[ -z "$crashed" ] || rc=125
	[ -z "$hung" ] || rc=124
}

. "$top/scripts/vm/qemu-lib.sh"
ixt_vm_kernel "$debug"
rm -rf "$run"
mkdir -p "$shared/power"
[ -z "$disk" ] || truncate -s "${disk%%:*}" "$run/shared.img"
# shellcheck disable=SC2034 # read by qemu-lib.sh's boots
vm_deadline=$((SECONDS + timeout))
pids=()
trap 'kill_vms; exit 130' INT TERM
for r in "${!roles[@]}"; do
	start_vm "${roles[r]}" "$r"
done
wait_vms
report
echo "vm: $name: $((SECONDS))s, exit status $rc" >&2
exit "$rc"
