#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest job of scripts/vm/multi-smoke.sh, one per VM, its part chosen by
# IXT_ROLE. The target loads iscsi_xt and iscsi_xt_iser, serves a ramdisk
# LUN with targetcli on its address on the wire to the initiator, iSER on
# port 3260, TCP on 3261 (over iWARP, IXT_RDMA=siw, the iSER listener
# takes its port from TCP: Documentation/admin-guide.rst), and unloads once the initiator is done. The initiator discovers
# it, logs in over TCP, writes and verifies 16 MiB with fio (crc32c), logs
# out, logs in over iSER, verifies the data written over TCP, writes and
# verifies 16 MiB more, and logs out. Each prints "ok N - ROLE: ..." lines
# and stops at the first failure, with a non-zero exit status.
#
#   multi-smoke-guest.sh

. "$IXT_TOP/scripts/vm/guest-multi.sh"

wwn=iqn.2026-11.org.example:multi-smoke
cfs=/sys/kernel/config/target/iscsi

# The counters of every RDMA device (retransmissions, sequence errors...)
# into rdma-stats.log when the job ends.
rdma_stats() {
	rdma statistic show >"$IXT_OUT/rdma-stats.log" 2>&1
}

target_config() {
	local portal=$IXT_LOCAL_INITIATOR_ADDR4

	targetcli <<-EOT || return
	/backstores/ramdisk create name=rd0 size=64M
	/iscsi create $wwn
	/iscsi/$wwn/tpg1/luns create /backstores/ramdisk/rd0 lun=0
	/iscsi/$wwn/tpg1/portals delete 0.0.0.0 3260
	/iscsi/$wwn/tpg1/portals create $portal 3261
	/iscsi/$wwn/tpg1/portals create $portal 3260
	/iscsi/$wwn/tpg1/portals/$portal:3260 enable_iser true
	/iscsi/$wwn/tpg1/acls create iqn.2026-11.org.example.vm:initiator
	/iscsi/$wwn/tpg1 set attribute authentication=0
	EOT
	[ "$(cat "$cfs/$wwn/tpgt_1/np/$portal:3260/iser")" = 1 ]
}

target_teardown() {
	targetcli clearconfig confirm=true && rmdir "$cfs" &&
		rmmod iscsi_xt_iser && rmmod iscsi_xt
}

target() {
	ixt_mvm_step "iscsi_xt and iscsi_xt_iser loaded" eval 'ixt_insmod && ixt_insmod_iser'
	ixt_mvm_step "ramdisk LUN on $IXT_LOCAL_INITIATOR_ADDR4, TCP on 3261, iSER on 3260" target_config
	ixt_mvm_signal ready
	ixt_mvm_step "the initiator is done" ixt_mvm_wait initiator finished 900
	ixt_mvm_step "configuration cleared, modules unloaded" target_teardown
	rdma_stats
	ixt_mvm_step "kernel log clean" ixt_mvm_klog_clean
}

discover() {
	iscsiadm -m discovery -t st -p "$addr:3261" -I default | grep -F "$wwn"
}

# login IFACE TRANSPORT PORTAL: log in through IFACE to PORTAL, the
# session's transport TRANSPORT; sets disk. The node record of iSER comes from the discovery
# over TCP (demo-guest.sh says why). NOP-Out pings every 15 s, 30 s to
# answer, not 5 and 5: two single-vCPU VMs under TCG on a busy host
# missed the 5 s now and then over iSER, and the session started over.
login() {
	local kv portal=$3

	[ "$1" = default ] || iscsiadm -m node -T "$wwn" -p "$portal" -I "$1" -o new
	for kv in noop_out_interval=15 noop_out_timeout=30; do
		iscsiadm -m node -T "$wwn" -p "$portal" -I "$1" -o update \
			-n "node.conn[0].timeo.${kv%=*}" -v "${kv#*=}" || return
	done
	iscsiadm -m node -T "$wwn" -p "$portal" -I "$1" --login &&
		iscsiadm -m session -P 1 | grep -x "[[:space:]]*Iface Transport: $2" &&
		disk=$(ixt_session_disks 1)
}

logout() {
	iscsiadm -m node -T "$wwn" -p "$2" -I "$1" --logout
}

# fio_io OFFSET [FIO_ARGS...]: 16 MiB at OFFSET written and verified.
fio_io() {
	fio --name="smoke$1" --filename="$disk" --direct=1 --ioengine=libaio \
		--iodepth=8 --rw=write --bs=64k --offset="$1" --size=16M \
		--verify=crc32c --verify_fatal=1 "${@:2}"
}

initiator() {
	addr=$IXT_PEER_TARGET_ADDR4
	trap 'rdma_stats; ixt_mvm_signal finished' EXIT
	modprobe ib_iser
	ixt_mvm_step "the target is ready" ixt_mvm_wait target ready 900
	ixt_mvm_step "discovery over TCP finds $wwn at $addr:3261" discover
	ixt_mvm_step "login over TCP" login default tcp "$addr:3261"
	ixt_mvm_step "16 MiB written and verified (fio crc32c) over TCP" fio_io 0
	ixt_mvm_step "logout over TCP" logout default "$addr:3261"
	ixt_mvm_step "login over iSER ($IXT_RDMA_DEV_TARGET)" login iser iser "$addr:3260"
	ixt_mvm_step "the data written over TCP reads back over iSER" fio_io 0 --verify_only
	ixt_mvm_step "16 MiB written and verified (fio crc32c) over iSER" fio_io 32M
	ixt_mvm_step "logout over iSER" logout iser "$addr:3260"
	ixt_mvm_step "kernel log clean" ixt_mvm_klog_clean
}

case $IXT_ROLE in
target|initiator)	"$IXT_ROLE" ;;
*)	echo "multi-smoke-guest: no part for role $IXT_ROLE" >&2; exit 1 ;;
esac
