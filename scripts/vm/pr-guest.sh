#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest job of scripts/vm/pr.sh: SCSI-3 persistent reservations through
# the ports of two target nodes, one VM per role (IXT_ROLE node1, node2,
# initiator).
#
# Both nodes export one target IQN with two LUNs to two initiators of
# the initiator's VM, X (its own name, open-iscsi's default iface) and Y
# (an iface of another initiator name): node 1 through two TPGs, ports 1
# and 3 (portal :3260 and :3261), node 2 through one, port 2.
#
# - LUN 0 is a block backstore on the disk both nodes share, its PR state
#   emulated by each node's target core: a registration or reservation
#   made through node 1 holds across node 1's ports (ALL_TG_PT), and
#   node 2 knows nothing of it.
# - LUN 1 is a block backstore with pgr_support=0 on a SCSI disk both
#   nodes reach: PR commands pass through to that disk (iblock's pr_ops),
#   one PR state for both nodes, kept by the disk, which sees each node
#   as one initiator. The disk is a LUN the initiator's VM also serves,
#   as the dual-ported array behind the nodes would: iscsi_xt with a
#   ramdisk, which node 1 and node 2 log in to over TCP.
#
# The initiator runs sg_persist and sg_raw through each path's disk and
# checks what each path sees. Each VM prints "ok N - ROLE: ..." lines
# and stops at the first failure with a non-zero exit status.
#
#   pr-guest.sh [tcp|iser]
#
# The argument is the transport of X's and Y's sessions (tcp by
# default); the nodes' sessions to the array are TCP.

. "$IXT_TOP/scripts/vm/guest-multi.sh"

iqn=iqn.2026-11.org.example:pr
array=iqn.2026-11.org.example:prarray
x=iqn.2026-11.org.example.vm:initiator
y=iqn.2026-11.org.example.vm:y
serial0=4d2b7e61-0c3a-4f58-9e17-2a6b8c0d1e2f
serial1=5e3c8f72-1d4b-4a69-8f28-3b7c9d1e2f30
cfs=/sys/kernel/config/target
xport=${1:-tcp}
kx=0xa1
ky=0xb2

# The target core writes the PR state of every LUN into
# /etc/rtslib-fb-target/pr (rtslib's dbroot) at each PERSISTENT RESERVE
# OUT, and fails the command when it cannot: make install and the
# package make the folder; here the VM's overlay gets it.
pr_dir() {
	mkdir -p /etc/rtslib-fb-target/pr
}

# --- the array, in the initiator's VM ---

array_config() {
	local n

	targetcli <<-EOT || return
	/backstores/ramdisk create name=prarray size=64M wwn=$serial1
	/iscsi create $array
	/iscsi/$array/tpg1/luns create /backstores/ramdisk/prarray lun=0
	/iscsi/$array/tpg1 set attribute authentication=0
	EOT
	for n in node1 node2; do
		targetcli "/iscsi/$array/tpg1/acls" create \
			"iqn.2026-11.org.example.vm:$n" || return
	done
}

array_teardown() {
	targetcli clearconfig confirm=true && rmdir "$cfs/iscsi" &&
		rmmod iscsi_xt_iser && rmmod iscsi_xt
}

# --- the nodes ---

# The array's disk, once the node is logged in to it.
array_disk() {
	ixt_session_disks 1 | head -n 1
}

array_login() {
	local p=$IXT_PEER_INITIATOR_ADDR4:3260

	iscsiadm -m discovery -t st -p "$p" &&
		iscsiadm -m node -T "$array" -p "$p" --login
}

# tpg T ADDR PORT: TPG T with its portal, both LUNs and both initiators'
# ACLs.
tpg() {
	local t=$1 i

	[ -d "$cfs/iscsi/$iqn/tpgt_$t" ] ||
		targetcli "/iscsi/$iqn" create tag="$t" || return
	targetcli <<-EOT || return
	/iscsi/$iqn/tpg$t/luns create /backstores/block/prshared lun=0
	/iscsi/$iqn/tpg$t/luns create /backstores/block/prarray lun=1
	/iscsi/$iqn/tpg$t set attribute authentication=0
	EOT
	targetcli "/iscsi/$iqn/tpg$t/portals" delete 0.0.0.0 3260 || true
	targetcli "/iscsi/$iqn/tpg$t/portals" create "$2" "$3" || return
	[ "$xport" = tcp ] ||
		targetcli "/iscsi/$iqn/tpg$t/portals/$2:$3" enable_iser true ||
		return
	for i in "$x" "$y"; do
		targetcli "/iscsi/$iqn/tpg$t/acls" create "$i" || return
	done
}

node_config() {
	local me=$IXT_LOCAL_INITIATOR_ADDR4 disk

	disk=$(array_disk) || return
	targetcli <<-EOT || return
	/backstores/block create name=prshared dev=$IXT_SHARED_DISK wwn=$serial0
	/backstores/block create name=prarray dev=$disk wwn=$serial1
	/backstores/block/prarray set attribute pgr_support=0
	/iscsi create $iqn
	EOT
	# targetcli made TPG 1: node 2's port is 2.
	[ "$IXT_ROLE" = node1 ] || targetcli "/iscsi/$iqn" delete tag=1 || return
	if [ "$IXT_ROLE" = node1 ]; then
		tpg 1 "$me" 3260 && tpg 3 "$me" 3261 || return
	else
		tpg 2 "$me" 3260 || return
	fi
	[ "$(cat "$cfs"/core/iblock_*/prarray/attrib/pgr_support)" = 0 ] &&
		[ "$(cat "$cfs"/core/iblock_*/prshared/attrib/pgr_support)" = 1 ]
}

node_teardown() {
	targetcli clearconfig confirm=true && rmdir "$cfs/iscsi" &&
		iscsiadm -m node -T "$array" --logout &&
		rmmod iscsi_xt_iser && rmmod iscsi_xt
}

node() {
	ixt_mvm_step "iscsi_xt and iscsi_xt_iser loaded" eval 'ixt_insmod && ixt_insmod_iser'
	ixt_mvm_step "the PR folder of the target core made" pr_dir
	ixt_mvm_step "the array is up" ixt_mvm_wait initiator array 900
	ixt_mvm_step "logged in to the array over TCP" array_login
	ixt_mvm_step "the array's disk is here" array_disk
	ixt_mvm_step "LUN 0 on the shared disk, LUN 1 on the array's, pgr_support=0" \
		node_config
	ixt_mvm_signal configured
	ixt_mvm_step "the initiator is done" ixt_mvm_wait initiator finished 1800
	ixt_mvm_step "configuration cleared, logged out, modules unloaded" node_teardown
	ixt_mvm_signal released
	ixt_mvm_step "kernel log clean" ixt_mvm_klog_clean
}

# --- the initiator ---

# Y: an iface of its own initiator name, on the transport of the test.
iface_y() {
	iscsiadm -m iface -I ixty -o new &&
		iscsiadm -m iface -I ixty -o update -n iface.initiatorname -v "$y" &&
		iscsiadm -m iface -I ixty -o update -n iface.transport_name -v "$xport"
}

# login IFACE ADDR PORT: a session through IFACE to the portal.
login() {
	iscsiadm -m node -T "$iqn" -p "$2:$3" -I "$1" -o new &&
		iscsiadm -m node -T "$iqn" -p "$2:$3" -I "$1" --login
}

login_all() {
	local xi=default n1=$IXT_PEER_NODE1_ADDR4 n2=$IXT_PEER_NODE2_ADDR4

	[ "$xport" = tcp ] || xi=iser
	login "$xi" "$n1" 3260 && login "$xi" "$n1" 3261 &&
		login "$xi" "$n2" 3260 && login ixty "$n1" 3260 &&
		login ixty "$n2" 3260 || return
	[ "$(iscsiadm -m session -P 1 | grep -cx "[[:space:]]*Iface Transport: $xport")" = 5 ]
}

# disk_of INITIATOR ADDR PORT LUN: the SCSI disk of LUN in INITIATOR's
# session to the portal ADDR:PORT.
disk_of() {
	local s c d

	for s in /sys/class/iscsi_session/session*; do
		[ "$(cat "$s/initiatorname")" = "$1" ] || continue
		c=$(echo "$s"/device/connection*/iscsi_connection/connection*)
		[ "$(cat "$c/persistent_address"):$(cat "$c/persistent_port")" = "$2:$3" ] ||
			continue
		for d in "$s"/device/target*/*:"$4"/block/*; do
			[ -b "/dev/${d##*/}" ] && echo "/dev/${d##*/}" && return
		done
	done
	return 1
}

# The ten disks: X and Y through each port, LUN 0 and LUN 1; X1_0 is X's
# disk of LUN 0 through port 1, and so on.
find_disks() {
	local who i p addr port l v

	for who in X Y; do
		[ "$who" = X ] && i=$x || i=$y
		for p in 1 2 3; do
			[ "$who$p" != Y3 ] || continue
			addr=$IXT_PEER_NODE1_ADDR4 port=3260
			[ "$p" != 2 ] || addr=$IXT_PEER_NODE2_ADDR4
			[ "$p" != 3 ] || port=3261
			for l in 0 1; do
				v=$(disk_of "$i" "$addr" "$port" "$l") || return
				printf -v "$who${p}_$l" %s "$v"
				echo "$who${p}_$l $v"
			done
		done
	done
}

# keys DISK KEY...: READ KEYS through DISK lists exactly the KEYs, one
# per registration, that is per I_T nexus (none: no registration).
keys() {
	local disk=$1 out got

	shift
	out=$(sg_persist -n -i -k "$disk") || return
	echo "$out"
	got=$(grep -oE '^ +0x[0-9a-f]+$' <<<"$out" | tr -d ' ' | sort | xargs)
	[ "$got" = "$(printf '%s\n' "$@" | sort | xargs)" ]
}

# holder DISK KEY: READ RESERVATION through DISK shows a Write Exclusive,
# registrants only reservation of KEY; "holder DISK" shows none.
holder() {
	local out

	out=$(sg_persist -n -i -r "$1") || return
	echo "$out"
	if [ $# = 1 ]; then
		grep -q "there is NO reservation held" <<<"$out"
	else
		grep -qx " *Key=$2" <<<"$out" &&
			grep -q "type: Write Exclusive, registrants only" <<<"$out"
	fi
}

# One block written through the disk: 0 on GOOD, 24 (sg3_utils'
# reservation conflict) when the reservation refuses it.
write_block() {
	sg_raw -s 512 -i /dev/zero "$1" 2a 00 00 00 00 40 00 00 01 00
}

writes() {
	write_block "$1"
}

refused() {
	local rc=0

	write_block "$1" || rc=$?
	[ "$rc" = 24 ]
}

# ua_is DISK TEXT: the next command through DISK (TEST UNIT READY)
# reports a Unit Attention of TEXT (the additional sense).
ua_is() {
	local out

	out=$(sg_raw -v "$1" 00 00 00 00 00 00 2>&1) && return 1
	echo "$out"
	grep -q "Unit Attention" <<<"$out" && grep -qi "$2" <<<"$out"
}

# A PR OUT through DISK: register KEY (ALL_TG_PT with -Y), and so on.
register() {
	sg_persist -n -o -G -S "$@"
}

reserve() {
	sg_persist -n -o -R -T 5 -K "$2" "$1"
}

preempt_abort() {
	sg_persist -n -o -A -T 5 -K "$2" -S "$3" "$1"
}

clear_pr() {
	sg_persist -n -o -C -K "$2" "$1"
}

# LUN 0: every node's own state.
emulated() {
	ixt_mvm_step "LUN 0: X registers $kx through port 1, ALL_TG_PT" \
		register "$kx" -Y "$X1_0"
	ixt_mvm_step "LUN 0: through port 3 the key is listed twice, once per port of node 1" \
		keys "$X3_0" "$kx" "$kx"
	ixt_mvm_step "LUN 0: no key through port 2 (node 2's own state)" keys "$X2_0"
	ixt_mvm_step "LUN 0: X reserves through port 1, Write Exclusive Registrants Only" \
		reserve "$X1_0" "$kx"
	ixt_mvm_step "LUN 0: the reservation is seen through port 3" holder "$X3_0" "$kx"
	ixt_mvm_step "LUN 0: no reservation through port 2" holder "$Y2_0"
	ixt_mvm_step "LUN 0: X writes through ports 1 and 3" \
		eval "writes $X1_0 && writes $X3_0"
	ixt_mvm_step "LUN 0: Y, not registered, is refused writes through port 1" \
		refused "$Y1_0"
	ixt_mvm_step "LUN 0: Y writes through port 2: node 2 knows no reservation" \
		writes "$Y2_0"
	ixt_mvm_step "LUN 0: Y registers $ky through port 1, then preempts and aborts X" \
		eval "register $ky $Y1_0 && preempt_abort $Y1_0 $ky $kx"
	ixt_mvm_step "LUN 0: X's next command through ports 1 and 3 reports a Unit Attention, registrations preempted" \
		eval "ua_is $X1_0 'registrations preempted' && ua_is $X3_0 'registrations preempted'"
	ixt_mvm_step "LUN 0: X is fenced: refused writes through ports 1 and 3" \
		eval "refused $X1_0 && refused $X3_0"
	ixt_mvm_step "LUN 0: Y holds the reservation, only its key is left" \
		eval "holder $Y1_0 $ky && keys $X3_0 $ky"
	ixt_mvm_step "LUN 0: Y writes through port 1" writes "$Y1_0"
	ixt_mvm_step "LUN 0: Y clears the PR state; X writes again" \
		eval "clear_pr $Y1_0 $ky && keys $X1_0 && holder $X1_0 && writes $X1_0"
}

# LUN 1: the array's state, one for both nodes, an initiator per node.
passthrough() {
	ixt_mvm_step "LUN 1: X registers $kx through port 1" register "$kx" "$X1_1"
	ixt_mvm_step "LUN 1: the key is listed through port 2 (node 2): one state" \
		keys "$Y2_1" "$kx"
	ixt_mvm_step "LUN 1: X reserves through port 1, Write Exclusive Registrants Only" \
		reserve "$X1_1" "$kx"
	ixt_mvm_step "LUN 1: the reservation is seen through port 2" holder "$Y2_1" "$kx"
	ixt_mvm_step "LUN 1: X writes through ports 1 and 3" \
		eval "writes $X1_1 && writes $X3_1"
	ixt_mvm_step "LUN 1: Y and X are refused writes through port 2 (node 2 not registered)" \
		eval "refused $Y2_1 && refused $X2_1"
	ixt_mvm_step "LUN 1: Y writes through port 1: the array sees node 1, registered" \
		writes "$Y1_1"
	ixt_mvm_step "LUN 1: Y registers $ky through port 2, then preempts and aborts X's key" \
		eval "register $ky $Y2_1 && preempt_abort $Y2_1 $ky $kx"
	ixt_mvm_step "LUN 1: X is fenced on node 1: refused writes through ports 1 and 3" \
		eval "refused $X1_1 && refused $X3_1"
	ixt_mvm_step "LUN 1: Y holds the reservation through node 2, seen through port 1" \
		eval "holder $X1_1 $ky && keys $X1_1 $ky && writes $Y2_1"
	ixt_mvm_step "LUN 1: Y clears the PR state; X writes again through port 1" \
		eval "clear_pr $Y2_1 $ky && keys $X1_1 && holder $X1_1 && writes $X1_1"
}

initiator() {
	mkdir -p "$IXT_SHARED/initiator"
	trap 'ixt_mvm_signal finished' EXIT
	ixt_mvm_step "iscsi_xt loaded (the array)" ixt_insmod
	ixt_mvm_step "iscsi_xt_iser loaded" ixt_insmod_iser
	ixt_mvm_step "the PR folder of the target core made" pr_dir
	ixt_mvm_step "the array serves a ramdisk to node 1 and node 2" array_config
	ixt_mvm_signal array
	[ "$xport" = tcp ] || ixt_mvm_step "ib_iser loaded" modprobe ib_iser
	ixt_mvm_step "Y's iface, initiator name $y" iface_y
	ixt_mvm_step "node 1 configured" ixt_mvm_wait node1 configured 900
	ixt_mvm_step "node 2 configured" ixt_mvm_wait node2 configured 900
	ixt_mvm_step "X through ports 1, 2 and 3, Y through 1 and 2, over $xport" login_all
	ixt_mvm_step "the ten disks found" find_disks
	emulated
	passthrough
	ixt_mvm_step "logged out of every session" iscsiadm -m node -T "$iqn" --logout
	ixt_mvm_signal finished
	ixt_mvm_step "node 1 released the array" ixt_mvm_wait node1 released 300
	ixt_mvm_step "node 2 released the array" ixt_mvm_wait node2 released 300
	ixt_mvm_step "the array cleared, modules unloaded" array_teardown
	ixt_mvm_step "kernel log clean" ixt_mvm_klog_clean
}

case $IXT_ROLE in
node1|node2)	node ;;
initiator)	initiator ;;
*)	echo "pr-guest: no part for role $IXT_ROLE" >&2; exit 1 ;;
esac
