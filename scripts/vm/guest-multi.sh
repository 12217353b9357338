# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the guest jobs of scripts/vm/multi.sh: prepare one VM of
# several. What scripts/vm/guest-lib.sh prepares (the module tree,
# configfs, D-Bus, iscsid as iqn.2026-11.org.example.vm:ROLE...), then:
#
# - the host name ROLE
# - each wire's NIC renamed to the role at its other end, its MTU and
#   addresses set, and an RDMA device on it: soft-RoCE rxe_PEER, or
#   soft-iWARP siw_PEER with IXT_RDMA=siw
# - the rendezvous folder $IXT_SHARED, 9p without caching: a file another
#   VM made is seen at once
# - the shared disk, when multi.sh attached one, at $IXT_SHARED_DISK
#   (/dev/disk/by-id/virtio-ixt-shared), and the VM's own disk (-p) at
#   $IXT_OWN_DISK (/dev/disk/by-id/virtio-ixt-own)
#
# multi.sh's job.sh exports IXT_ROLE, IXT_ROLES (every role of the run),
# IXT_NICS (the roles wired to this one) and, for each such PEER (upper
# case in names): IXT_NIC_PEER, IXT_MAC_PEER, IXT_LOCAL_PEER_ADDR4/6,
# IXT_PEER_PEER_ADDR4/6; this adds IXT_RDMA_DEV_PEER.
#
# ixt_mvm_signal NAME tells the other VMs this one reached NAME;
# ixt_mvm_wait ROLE NAME SECONDS waits for ROLE to reach NAME, and fails
# when SECONDS pass or ROLE's VM ended first. ixt_mvm_ask and
# ixt_mvm_serve carry requests from one VM (the initiator) to another;
# ixt_mvm_power asks the host to power a VM off or on. IXT_BOOT is the
# number of this boot of the VM: 1, then 2 after a power off and on.

. "$IXT_TOP/scripts/vm/guest-lib.sh"

# ixt_mvm_step DESCRIPTION COMMAND...: COMMAND as the job's next test:
# "ok N - ROLE: DESCRIPTION", or "not ok ..." with the end of its output
# (all of which goes to steps.log) and the job's end, status 1.
ixt_mvm_steps=0
ixt_mvm_step() {
	local desc=$1

	shift
	ixt_mvm_steps=$((ixt_mvm_steps + 1))
	echo "== $ixt_mvm_steps $desc" >>"$IXT_OUT/steps.log"
	if "$@" >>"$IXT_OUT/steps.log" 2>&1; then
		echo "ok $ixt_mvm_steps - $IXT_ROLE: $desc"
		return
	fi
	echo "not ok $ixt_mvm_steps - $IXT_ROLE: $desc"
	tail -n 20 "$IXT_OUT/steps.log" | sed 's/^/# /'
	exit 1
}

# The kernel log has no Oops, WARNING and the like (the kselftests' list,
# lib.sh's, but for the workqueue warning of open-iscsi's iscsi_ctrl it
# explains).
ixt_mvm_klog_clean() {
	! dmesg | grep -E '(^|\] )(BUG[: ]|WARNING:|Oops|KFENCE: |UBSAN: |kernel BUG|general protection fault|INFO: task .* blocked for more than|.*list_(add|del) corruption|Kernel panic)' |
		grep -v check_flush_dependency
}

ixt_mvm_setup() {
	local peer

	ixt_env_base "iqn.2026-11.org.example.vm:$IXT_ROLE"
	hostname "$IXT_ROLE"
	mkdir -p "$IXT_SHARED"
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288,cache=none \
		ixtshared "$IXT_SHARED" || ixt_env_die "cannot mount the rendezvous folder"
	modprobe virtio_net
	[ -z "$IXT_NICS" ] || ixt_env_rdma_load "$IXT_RDMA" ||
		ixt_env_die "cannot load the RDMA driver (IXT_RDMA=$IXT_RDMA: rxe or siw)"
	for peer in $IXT_NICS; do
		ixt_mvm_nic "$peer" || ixt_env_die "cannot set up the NIC to $peer"
	done
	[ -z "${IXT_SHARED_DISK:-}" ] || ixt_mvm_disk ixt-shared "$IXT_SHARED_DISK" ||
		ixt_env_die "no virtio disk with serial ixt-shared"
	[ -z "${IXT_OWN_DISK:-}" ] || ixt_mvm_disk ixt-own "$IXT_OWN_DISK" ||
		ixt_env_die "no virtio disk with serial ixt-own"
}

# ixt_mvm_var PEER NAME: the value of IXT_NAME with PEER (upper case) in it,
# NAME being NIC, MAC, LOCAL_ADDR4 and so on.
ixt_mvm_var() {
	local v=${2/PEER/${1^^}}

	echo "${!v}"
}

# ixt_mvm_nic PEER: the NIC of the wire to PEER, found by its MAC address.
ixt_mvm_nic() {
	local peer=$1 mac dev nic

	mac=$(ixt_mvm_var "$peer" IXT_MAC_PEER)
	nic=$(ixt_mvm_var "$peer" IXT_NIC_PEER)
	dev=$(grep -lx "$mac" /sys/class/net/*/address) || return 1
	dev=${dev%/address}
	ip link set "${dev##*/}" name "$nic" || return 1
	ip addr add "$(ixt_mvm_var "$peer" IXT_LOCAL_PEER_ADDR4)/28" dev "$nic" &&
		ip -6 addr add "$(ixt_mvm_var "$peer" IXT_LOCAL_PEER_ADDR6)/64" dev "$nic" nodad &&
		ip link set "$nic" up &&
		rdma link add "${IXT_RDMA}_$peer" type "$IXT_RDMA" netdev "$nic" || return 1
	export "IXT_RDMA_DEV_${peer^^}=${IXT_RDMA}_$peer"
}

# ixt_mvm_disk SERIAL LINK: the link LINK in /dev/disk/by-id/ that udev
# makes for the virtio disk of SERIAL, made without.
ixt_mvm_disk() {
	local s

	modprobe virtio_blk || return 1
	for s in /sys/block/vd*/serial; do
		[ "$(cat "$s" 2>/dev/null)" = "$1" ] || continue
		s=${s%/serial}
		mkdir -p "${2%/*}"
		ln -sf "/dev/${s##*/}" "$2"
		return 0
	done
	return 1
}

ixt_mvm_signal() {
	mkdir -p "$IXT_SHARED/$IXT_ROLE"
	: >"$IXT_SHARED/$IXT_ROLE/.$1" && mv "$IXT_SHARED/$IXT_ROLE/.$1" "$IXT_SHARED/$IXT_ROLE/$1"
}

ixt_mvm_wait() {
	local role=$1 name=$2 end=$((SECONDS + $3))

	until [ -e "$IXT_SHARED/$role/$name" ]; do
		if [ -e "$IXT_SHARED/$role.ended" ]; then
			[ ! -e "$IXT_SHARED/$role/$name" ] || return 0
			echo "guest: $role ended before it reached $name" >&2
			return 1
		fi
		if [ "$SECONDS" -ge "$end" ]; then
			echo "guest: $role did not reach $name within $3 s" >&2
			return 1
		fi
		sleep 0.5
	done
}

# ixt_mvm_power off|on ROLE: the host pulls ROLE's plug (its QEMU killed)
# or boots it again (multi.sh); fails if the host refused, or gave no
# answer within 60 s.
ixt_mvm_power_seq=0
ixt_mvm_power() {
	local req end=$((SECONDS + 60))

	ixt_mvm_power_seq=$((ixt_mvm_power_seq + 1))
	req=$IXT_SHARED/power/$IXT_ROLE.$ixt_mvm_power_seq
	echo "$1 $2" >"$IXT_SHARED/power/.$IXT_ROLE.$ixt_mvm_power_seq"
	mv "$IXT_SHARED/power/.$IXT_ROLE.$ixt_mvm_power_seq" "$req"
	until [ -e "$req.status" ]; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.5
	done
	[ "$(cat "$req.status")" = 0 ]
}

# ixt_wait_for SECONDS COMMAND: COMMAND (a shell string) succeeds within
# SECONDS, tried every 0.5 s.
ixt_wait_for() {
	local end=$((SECONDS + $1))

	until eval "$2"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.5
	done
}

# ixt_mvm_serve HANDLER: runs what the initiator asks (ixt_mvm_ask), one
# request after the other, until it asks to finish: each
# $IXT_SHARED/initiator/ask.ROLE.SEQ holds an action, which "HANDLER
# ACTION" runs (its output goes to requests.log); the exit status is the
# answer, in $IXT_SHARED/ROLE/answer.SEQ. Fails if the initiator's VM
# ends without asking to finish.
ixt_mvm_serve() {
	local handler=$1 seq=1 req action rc

	mkdir -p "$IXT_SHARED/$IXT_ROLE"
	# A VM booted again goes on after the requests it answered before.
	while [ -e "$IXT_SHARED/$IXT_ROLE/answer.$seq" ]; do
		seq=$((seq + 1))
	done
	while :; do
		req=$IXT_SHARED/initiator/ask.$IXT_ROLE.$seq
		if [ ! -e "$req" ]; then
			[ ! -e "$IXT_SHARED/initiator.ended" ] || return 1
			sleep 0.1
			continue
		fi
		read -r action <"$req"
		echo "request $seq: $action ($(date +%T.%N))" >>"$IXT_OUT/requests.log"
		if [ "$action" = finish ]; then
			rc=0
		else
			"$handler" "$action" >>"$IXT_OUT/requests.log" 2>&1
			rc=$?
		fi
		echo "request $seq: status $rc ($(date +%T.%N))" >>"$IXT_OUT/requests.log"
		echo "$rc" >"$IXT_SHARED/$IXT_ROLE/.answer.$seq"
		mv "$IXT_SHARED/$IXT_ROLE/.answer.$seq" \
			"$IXT_SHARED/$IXT_ROLE/answer.$seq"
		[ "$action" != finish ] || return 0
		seq=$((seq + 1))
	done
}

# ixt_mvm_ask NODE SECONDS ACTION...: NODE runs ACTION (ixt_mvm_serve);
# fails if it fails or gives no answer within SECONDS.
declare -A ixt_mvm_seqs
ixt_mvm_ask() {
	local node=$1 secs=$2 seq

	shift 2
	seq=$((${ixt_mvm_seqs[$node]:-0} + 1))
	ixt_mvm_seqs[$node]=$seq
	echo "$*" >"$IXT_SHARED/initiator/.ask.$node.$seq"
	mv "$IXT_SHARED/initiator/.ask.$node.$seq" \
		"$IXT_SHARED/initiator/ask.$node.$seq"
	ixt_mvm_wait "$node" "answer.$seq" "$secs" &&
		[ "$(cat "$IXT_SHARED/$node/answer.$seq")" = 0 ]
}

IXT_BOOT=$(cat "$IXT_OUT/boot" 2>/dev/null || echo 1)
export IXT_BOOT
ixt_mvm_setup
