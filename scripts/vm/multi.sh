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
		ixt_vm_run "$out" "$name/$role" "$cpus" "$mem" "$timeout" "$role" "${qargs[@]}"
		[ -z "$timed_out" ] || : >"$out/timed-out"
		: >"$shared/$role.ended"
		echo "vm: $name/$role: ended after ${SECONDS}s" >&2
	) &
	pids+=($!)
}

# kill_vms: the VMs' subshells first (else they would boot again), then
# their QEMUs.
kill_vms() {
	local f pid

	kill "${pids[@]}" 2>/dev/null || true
	for f in "$run"/*/qemu.pid; do
		pid=$(cat "$f" 2>/dev/null) || continue
		if grep -qF "$run/" "/proc/$pid/cmdline" 2>/dev/null; then
			kill "$pid"
		fi
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
mkdir -p "$shared"
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
