#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest job of scripts/vm/ha.sh: an active/passive pair of target nodes
# run by the stock cluster stack (issue 34), one VM per role (IXT_ROLE
# node1, node2, initiator).
#
# Each node installs iscsi_xt as an admin does (ha.sh ran "make install"
# into a copy of the VM's module tree, with depmod: "modprobe
# iscsi_target_mod" loads iscsi_xt), replicates its own disk
# ($IXT_OWN_DISK) to the other node with DRBD (the kernel's drbd 8.4,
# drbd-utils; resource r0 on the wire between the nodes, protocol C;
# the initial sync skipped, both disks being zeros), starts corosync
# (two_node, on that same wire) and pacemaker by hand (the VMs have no
# systemd), and node 1 loads the resources with crmsh: a promotable
# clone of ocf:linbit:drbd, and a group of ocf:heartbeat:iSCSITarget
# and iSCSILogicalUnit (implementation lio-t: targetcli) on /dev/drbd0
# and ocf:heartbeat:IPaddr2 with the floating address, colocated with
# and ordered after DRBD's promotion, preferring node 1. Fencing is on:
# the fence agent fence_ixt, written here, has the host power a node off
# and on (multi.sh; guest-multi.sh's ixt_mvm_power). Then a node runs
# what the initiator asks of it (ixt_mvm_serve) until it is done. A node
# booted again after it was fenced (IXT_BOOT 2) sets up what its tmpfs
# lost (the module tree, the configuration files; DRBD's metadata is on
# its disk), starts corosync and pacemaker and rejoins the cluster.
#
# The initiator bridges its two NICs (one client network, as a switch
# would make it) and holds an address beside the floating one; it
# discovers and logs in through the floating address and runs fio
# (crc32c verify) on the disk through two faults, for each waiting for
# the target on the other node, for its session to log in again and for
# I/O to resume, and writing the time from the fault to I/O resuming
# (failover.tsv): first node 1 is put in standby ("crm node standby
# node1"), and comes back online as DRBD secondary, the target staying
# on node 2; then node 2 is powered off (a pulled plug), the cluster
# fences it (the host boots it again), runs the target on node 1, and
# node 2 rejoins as DRBD secondary, in sync. fio must end each fault
# without a verify error, and the whole region verify after; then the
# resources stop, the cluster stops, and every kernel log is clean. Each
# VM prints "ok N - ROLE: ..." lines and stops at its first failure,
# with a non-zero exit status.
#
#   ha-guest.sh [tcp]

. "$IXT_TOP/scripts/vm/guest-multi.sh"

iqn=iqn.2026-11.org.example:ha
init_iqn=iqn.2026-11.org.example.vm:initiator
vip=203.0.113.10
cip=203.0.113.100
serial=5f0e1d2c
cfs=/sys/kernel/config/target
xport=${1:-tcp}

# --- the nodes ---

# addr NODE: NODE's address on the wire between the nodes.
addr() {
	local v

	if [ "$1" = "$IXT_ROLE" ]; then
		v=IXT_LOCAL_${other^^}_ADDR4
	else
		v=IXT_PEER_${1^^}_ADDR4
	fi
	echo "${!v}"
}

# The modules as "make install" put them (ha.sh ran it into a copy of
# the VM's module tree, with depmod), and its modprobe.d snippet:
# "modprobe iscsi_target_mod" then loads iscsi_xt.
install_modules() {
	local tree=$IXT_BUILD/vm/ha-modules kver

	kver=$(uname -r)
	mount --bind "$tree/lib/modules/$kver" "/lib/modules/$kver" &&
		cp "$tree/etc/modprobe.d/iscsi_xt.conf" /etc/modprobe.d/ &&
		modprobe iscsi_target_mod && [ -d /sys/module/iscsi_xt ] &&
		[ ! -d /sys/module/iscsi_target_mod ]
}

# drbd_files: DRBD's configuration (on the tmpfs: written at each boot).
drbd_files() {
	mkdir -p /run/drbd /run/resource-agents
	cat >/etc/drbd.d/global_common.conf <<-EOT
	global { usage-count no; }
	common { net { protocol C; } }
	EOT
	cat >/etc/drbd.d/r0.res <<-EOT
	resource r0 {
		device /dev/drbd0;
		disk $(readlink -f "$IXT_OWN_DISK");
		meta-disk internal;
		on node1 { address $(addr node1):7789; }
		on node2 { address $(addr node2):7789; }
	}
	EOT
}

# drbd_config: DRBD's metadata made on the node's disk, r0 up.
drbd_config() {
	drbd_files &&
		modprobe drbd && drbdadm -- --force create-md r0 && drbdadm up r0
}

# drbd_state CS DS: r0's connection state is CS and its disk states DS
# (extended regular expressions).
drbd_state() {
	cat /proc/drbd
	grep -Eq "cs:($1) .* ds:($2) " /proc/drbd
}

# The initial sync skipped: both disks hold zeros. Should DRBD refuse,
# a full sync from node 1 instead.
drbd_skip_sync() {
	if drbdadm -- --clear-bitmap new-current-uuid r0; then
		ixt_wait_for 60 'drbd_state Connected UpToDate/UpToDate'
		return
	fi
	echo "new-current-uuid --clear-bitmap refused: a full sync"
	drbdadm primary --force r0 &&
		ixt_wait_for 600 'drbd_state Connected UpToDate/UpToDate' &&
		drbdadm secondary r0
}

# corosync.conf: two nodes on the wire between them, votequorum with
# two_node (which implies wait_for_all), no encryption (a private wire),
# a 10 s token: single-vCPU VMs under TCG answer late at times, and a
# lost token with fencing off is a split brain.
corosync_config() {
	cat >/etc/corosync/corosync.conf <<-EOT
	totem {
		version: 2
		cluster_name: ixtha
		transport: knet
		crypto_cipher: none
		crypto_hash: none
		token: 10000
	}
	nodelist {
		node {
			ring0_addr: $(addr node1)
			name: node1
			nodeid: 1
		}
		node {
			ring0_addr: $(addr node2)
			name: node2
			nodeid: 2
		}
	}
	quorum {
		provider: corosync_votequorum
		two_node: 1
	}
	logging {
		to_logfile: yes
		logfile: /var/log/corosync/corosync.log
		to_syslog: no
		to_stderr: no
		timestamp: on
	}
	EOT
	# crmsh pings a node by its name before "crm node standby NODE".
	printf '%s node1\n%s node2\n' "$(addr node1)" "$(addr node2)" >>/etc/hosts
}

# fence_agent: /usr/sbin/fence_ixt, a fence agent of the kind
# pacemaker's fencer runs (fence-agents' interface: "name=value" lines
# on its standard input, "action" and the node in "port" or "plug"),
# which asks the host to power the node off, on, or both (multi.sh's
# power requests: a VM's plug pulled, then a new boot). "status" and
# "monitor" answer that the device works: the host is always there.
fence_agent() {
	cat >/usr/sbin/fence_ixt <<-EOT
	#!/bin/bash
	# Written by ha-guest.sh: the host's power switch of the test's VMs.
	shared=$(printf %q "$IXT_SHARED")
	asker=$(printf %q "$IXT_ROLE")
	EOT
	cat >>/usr/sbin/fence_ixt <<-'EOT'
	action=reboot port=
	while IFS== read -r k v; do
		case $k in
		action|option)	action=$v ;;
		port|plug)	port=$v ;;
		esac
	done
	power() {
		local req end=$((SECONDS + 50))

		req=$shared/power/$asker.fence-${EPOCHREALTIME/./}
		echo "$1 $2" >"$shared/power/.${req##*/}" &&
			mv "$shared/power/.${req##*/}" "$req" || return 1
		until [ -e "$req.status" ]; do
			[ "$SECONDS" -lt "$end" ] || return 1
			sleep 0.5
		done
		[ "$(cat "$req.status")" = 0 ]
	}
	case $action in
	metadata)
		cat <<-EOM
		<?xml version="1.0" ?>
		<resource-agent name="fence_ixt" shortdesc="The power switch of iscsi_xt's test VMs">
		<longdesc>Asks the host that runs the VMs (scripts/vm/multi.sh) to power a VM off, on, or both.</longdesc>
		<parameters>
		<parameter name="action" unique="0" required="1"><getopt mixed="-o, --action=[action]"/><content type="string" default="reboot"/><shortdesc lang="en">Fencing action</shortdesc></parameter>
		<parameter name="port" unique="0" required="0"><getopt mixed="-n, --plug=[id]"/><content type="string"/><shortdesc lang="en">The VM's role</shortdesc></parameter>
		</parameters>
		<actions>
		<action name="on"/><action name="off"/><action name="reboot"/><action name="status"/>
		<action name="list"/><action name="monitor"/><action name="metadata"/>
		</actions>
		</resource-agent>
		EOM
		;;
	monitor|status)	exit 0 ;;
	list)	printf 'node1
node2
' ;;
	off|on)	power "$action" "$port" ;;
	reboot)	power off "$port" && power on "$port" ;;
	*)	exit 1 ;;
	esac
	EOT
	chmod 0755 /usr/sbin/fence_ixt
}

# corosync and pacemakerd in the foreground of background jobs, as their
# systemd units run them.
cluster_start() {
	# What the packages' tmpfiles.d and units would make in /run (a
	# tmpfs here).
	mkdir -p /var/log/corosync /var/log/pacemaker /run/resource-agents /run/crm
	chown hacluster:haclient /run/crm && chmod 0750 /run/crm
	corosync -f </dev/null >"$IXT_OUT/corosync.out" 2>&1 &
	ixt_wait_for 60 'corosync-cfgtool -s >/dev/null 2>&1' || return
	PCMK_logfile=/var/log/pacemaker/pacemaker.log \
		pacemakerd </dev/null >"$IXT_OUT/pacemakerd.out" 2>&1 &
	ixt_wait_for 30 'pidof pacemaker-controld >/dev/null'
}

quorate() {
	corosync-quorumtool -s | tee /dev/stderr | grep -q '^Quorate: *Yes'
}

both_online() {
	crm_mon -1 2>&1 | tee /dev/stderr | grep -q 'Online: \[ node1 node2 \]'
}

crm_config() {
	cat >/tmp/ha.crm <<-EOT
	property cib-bootstrap-options: stonith-enabled=true stonith-timeout=120s \\
		cluster-recheck-interval=60s
	rsc_defaults rsc-options: resource-stickiness=200 migration-threshold=3
	op_defaults op-options: timeout=120s
	primitive st_ixt stonith:fence_ixt params pcmk_host_list="node1 node2" \\
		op monitor interval=60s
	primitive p_drbd ocf:linbit:drbd params drbd_resource=r0 \\
		op monitor interval=15s role=Promoted timeout=60s \\
		op monitor interval=20s role=Unpromoted timeout=60s \\
		op start timeout=240s op stop timeout=120s \\
		op promote timeout=120s op demote timeout=120s op notify timeout=120s
	clone ms_drbd p_drbd meta promotable=true promoted-max=1 promoted-node-max=1 \\
		clone-max=2 clone-node-max=1 notify=true
	primitive p_target ocf:heartbeat:iSCSITarget params implementation=lio-t \\
		iqn=$iqn portals=$vip:3260 allowed_initiators=$init_iqn \\
		op start timeout=240s op stop timeout=240s \\
		op monitor interval=10s timeout=60s
	primitive p_lu ocf:heartbeat:iSCSILogicalUnit params implementation=lio-t \\
		target_iqn=$iqn lun=0 path=/dev/drbd0 scsi_sn=$serial \\
		op start timeout=240s op stop timeout=240s \\
		op monitor interval=10s timeout=60s
	primitive p_ip ocf:heartbeat:IPaddr2 params ip=$vip cidr_netmask=24 nic=initiator \\
		op monitor interval=10s timeout=60s
	group g_iscsi p_target p_lu p_ip
	colocation c_iscsi_with_drbd inf: g_iscsi ms_drbd:Promoted
	order o_drbd_before_iscsi Mandatory: ms_drbd:promote g_iscsi:start
	location l_drbd_prefers_node1 ms_drbd role=Promoted 50: node1
	EOT
	crm configure load update /tmp/ha.crm && crm configure show
}

# The target runs here: the cluster says so, its TPG is enabled with the
# LUN on /dev/drbd0, and the floating address is up.
serving() {
	crm_resource --locate --resource p_ip 2>&1 | grep -q "running on: $IXT_ROLE" &&
		[ "$(cat "$cfs/iscsi/$iqn/tpgt_1/enable" 2>/dev/null)" = 1 ] &&
		grep -qx /dev/drbd0 "$cfs"/iscsi/"$iqn"/tpgt_1/lun/lun_0/*/udev_path &&
		ip -4 addr show dev initiator | grep -qF " $vip/"
}

# serving_within SECONDS: serving within SECONDS; the cluster's view
# into the step's log every 30 s meanwhile, and pacemaker's log into the
# results.
serving_within() {
	local end=$((SECONDS + $1)) next=0

	until serving; do
		if [ "$SECONDS" -ge "$next" ]; then
			crm_mon -1 -rf 2>&1
			cat /proc/drbd
			cp /var/log/pacemaker/pacemaker.log "$IXT_OUT/" 2>/dev/null
			next=$((SECONDS + 30))
		fi
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 1
	done
}

# Nothing of the target left here, DRBD down.
stopped() {
	[ ! -d "$cfs/iscsi/$iqn" ] && ! grep -q '^ *0: cs:' /proc/drbd &&
		! ip -4 addr show dev initiator | grep -qF " $vip/"
}

# A session of the initiator's on this node's iscsi_xt.
has_session() {
	grep -q "$init_iqn" /sys/kernel/debug/iscsi_xt/sessions
}

# request ACTION: one request of the initiator (ixt_mvm_serve).
request() {
	case $1 in
	standby)	crm node standby "$IXT_ROLE" ;;
	online)		crm node online "$IXT_ROLE" ;;
	serving)	serving_within 600 ;;
	session)	ixt_wait_for 120 has_session ;;
	synced)		ixt_wait_for 300 'drbd_state Connected UpToDate/UpToDate' ;;
	secondary)	ixt_wait_for 300 'grep -q " ro:Secondary/Primary " /proc/drbd' ;;
	stop-all)	crm configure property stop-all-resources=true ;;
	stopped)	ixt_wait_for 600 stopped ;;
	*)		false ;;
	esac
}

# pacemakerd stops the daemons it started, then corosync stops.
cluster_stop() {
	local p

	p=$(pidof pacemakerd) && kill "$p" &&
		ixt_wait_for 180 '! pidof pacemakerd >/dev/null' || return
	corosync-cfgtool -H --force || kill "$(pidof corosync)"
	ixt_wait_for 60 '! pidof corosync >/dev/null'
}

node_unload() {
	[ ! -d "$cfs/iscsi/$iqn" ] && { [ ! -d "$cfs/iscsi" ] || rmdir "$cfs/iscsi"; } &&
		rmmod iscsi_xt && rmmod drbd
}

# The cluster's view and logs into the results, whatever happened.
node_logs() {
	! pidof pacemakerd >/dev/null || crm_mon -1 -rf >"$IXT_OUT/crm_mon.log" 2>&1
	cat /proc/drbd >"$IXT_OUT/drbd.log" 2>&1
	cp /var/log/pacemaker/pacemaker.log /var/log/corosync/corosync.log \
		"$IXT_OUT/" 2>/dev/null
}

# A node fenced and booted again: what the tmpfs lost, then the cluster.
node_rejoin() {
	ixt_mvm_step "booted again (boot $IXT_BOOT): iscsi_xt installed" install_modules
	ixt_mvm_step "DRBD's configuration written, drbd loaded" \
		eval 'drbd_files && modprobe drbd'
	fence_agent
	corosync_config
	ixt_mvm_step "corosync and pacemaker started" cluster_start
	ixt_mvm_step "pacemaker: both nodes online" ixt_wait_for 600 both_online
	ixt_mvm_signal "rejoined.$IXT_BOOT"
}

node() {
	other=node$((3 - ${IXT_ROLE#node}))
	mkdir -p "$IXT_SHARED/$IXT_ROLE"
	trap node_logs EXIT
	if [ "$IXT_BOOT" = 1 ]; then
		node_first
	else
		node_rejoin
	fi
	ixt_mvm_step "the initiator's requests served" ixt_mvm_serve request
	node_logs
	ixt_mvm_step "pacemaker and corosync stopped" cluster_stop
	ixt_mvm_step "iscsi_xt and drbd unloaded" node_unload
	ixt_mvm_step "kernel log clean" ixt_mvm_klog_clean
}

# The first boot: DRBD's metadata, the initial sync skipped, DRBD handed
# to the cluster, which node 1 configures.
node_first() {
	ixt_mvm_step "iscsi_xt installed: modprobe iscsi_target_mod loads it" install_modules
	ixt_mvm_step "DRBD r0 on $IXT_OWN_DISK: metadata made, up" drbd_config
	# Node 1 skips the initial sync as soon as it sees the two connected:
	# node 2 may see them only after, both UpToDate.
	ixt_mvm_step "DRBD r0 connected to $other" \
		ixt_wait_for 120 'drbd_state Connected "Inconsistent/Inconsistent|UpToDate/UpToDate"'
	if [ "$IXT_ROLE" = node1 ]; then
		ixt_mvm_step "DRBD initial sync skipped, UpToDate on both" drbd_skip_sync
		ixt_mvm_signal synced
	else
		ixt_mvm_step "DRBD UpToDate on both" eval \
			'ixt_mvm_wait node1 synced 700 && grep -q " ds:UpToDate/" /proc/drbd'
	fi
	ixt_mvm_signal drbd-ready
	ixt_mvm_step "DRBD down on both, for pacemaker to bring up" eval \
		"ixt_mvm_wait $other drbd-ready 120 && drbdadm down r0"
	fence_agent
	corosync_config
	ixt_mvm_step "corosync and pacemaker started" cluster_start
	ixt_mvm_step "corosync quorate with both nodes" ixt_wait_for 180 quorate
	ixt_mvm_step "pacemaker: both nodes online" ixt_wait_for 300 both_online
	if [ "$IXT_ROLE" = node1 ]; then
		ixt_mvm_step "resources loaded (crm configure load update)" crm_config
		ixt_mvm_step "the cluster started the target here" serving_within 600
		ixt_mvm_signal serving
	fi
}

# --- the initiator ---

# One client network: the NICs to both nodes in a bridge (as a switch
# would join them), this VM's address beside the floating one on it.
client_net() {
	local n

	ip link add br0 mtu 9000 type bridge forward_delay 0 stp_state 0 || return
	for n in node1 node2; do
		ip addr flush dev "$n" && ip link set "$n" master br0 || return
	done
	ip addr add "$cip/24" dev br0 && ip link set br0 up
}

discover() {
	iscsiadm -m discovery -t st -p "$vip:3260" | tee /dev/stderr |
		grep -qx "$vip:3260,1 $iqn"
}

# Logged in through the floating address: NOP-Out every 5 s, 10 s to
# answer (a dead node is noticed within 15 s, well before the SCSI
# command timeout of 30 s), and the session's commands held up to 600 s
# while it logs in again (a failover under TCG takes minutes).
login() {
	local kv

	for kv in node.session.timeo.replacement_timeout=600 \
		node.conn[0].timeo.noop_out_interval=5 \
		node.conn[0].timeo.noop_out_timeout=10; do
		iscsiadm -m node -T "$iqn" -p "$vip:3260" -o update \
			-n "${kv%=*}" -v "${kv#*=}" || return
	done
	iscsiadm -m node -T "$iqn" -p "$vip:3260" --login &&
		disk=$(ixt_session_disks 1) && echo "$disk"
}

logged_in() {
	iscsiadm -m session -P 1 | grep -q 'iSCSI Session State: LOGGED_IN'
}

# The completed I/Os (reads + writes) of the disk.
ios() {
	local f

	read -ra f <"/sys/block/${disk#/dev/}/stat"
	echo $((f[0] + f[4]))
}

# Every 0.1 s: the time and the disk's completed I/Os, with builtins
# only (a process costs tenths of a second under TCG).
sampler() {
	local s fd

	exec {fd}<> <(:)
	while :; do
		read -ra s <"/sys/block/${disk#/dev/}/stat"
		echo "$EPOCHREALTIME $((s[0] + s[4]))"
		read -r -t 0.1 -u "$fd"
	done
}

fio_start() {
	fio --name=ha --filename="$disk" --direct=1 --ioengine=libaio \
		--iodepth=8 --rw=randwrite --bs=64k --size=128M \
		--verify=crc32c --verify_fatal=1 --verify_backlog=256 \
		--time_based --runtime=1800 \
		</dev/null >"$IXT_OUT/fio-$1.log" 2>&1 &
	fio_pid=$!
}

# fio_stop NAME: fio stopped (SIGINT), its log showing no error.
fio_stop() {
	local rc=0

	kill -INT "$fio_pid" && wait "$fio_pid" || rc=$?
	cat "$IXT_OUT/fio-$1.log"
	[ "$rc" = 0 ] || [ "$rc" = 128 ] && grep -q "err= 0" "$IXT_OUT/fio-$1.log"
}

io_started() {
	[ "$(ios)" -gt 100 ]
}

# flowing SECONDS: I/O completes, within SECONDS, in a 2 s window.
flowing() {
	local end=$((SECONDS + $1)) a

	while [ "$SECONDS" -lt "$end" ]; do
		a=$(ios)
		sleep 2
		[ "$(ios)" -le "$a" ] || return 0
	done
	return 1
}

# fault CASE NODE ACTION: under fio, NODE runs ACTION; then the target
# runs on the other node, the session logs in again, I/O flows; the
# times go to switches: the request's, and when I/O resumed.
fault() {
	local t0 other=node$((3 - ${2#node}))

	ixt_wait_for 60 io_started && sleep 10 || return
	t0=$EPOCHREALTIME
	ixt_mvm_ask "$2" 120 "$3" || return
	since "$t0" "$1: $2 ran \"crm node $3\""
	ixt_mvm_ask "$other" 900 serving || return
	since "$t0" "$1: the cluster runs the target on $other"
	ixt_wait_for 400 logged_in && ixt_mvm_ask "$other" 120 session || return
	since "$t0" "$1: the session logged in again, to $other"
	flowing 120 || return
	since "$t0" "$1: I/O flows"
	echo "$1 $xport $t0 $EPOCHREALTIME" >>"$IXT_OUT/switches"
}

# hard_stop NODE: under fio, NODE's VM powered off (a pulled plug); the
# cluster fences it (fence_ixt: the host boots it again) and runs the
# target on the other node, the session logs in again, I/O flows; the
# times go to switches as fault's do.
hard_stop() {
	local t0 other=node$((3 - ${1#node}))

	ixt_wait_for 60 io_started && sleep 10 || return
	t0=$EPOCHREALTIME
	ixt_mvm_power off "$1" || return
	since "$t0" "hardstop: $1 powered off"
	ixt_mvm_ask "$other" 900 serving || return
	since "$t0" "hardstop: the cluster runs the target on $other"
	ixt_wait_for 400 logged_in && ixt_mvm_ask "$other" 120 session || return
	since "$t0" "hardstop: the session logged in again, to $other"
	flowing 120 || return
	since "$t0" "hardstop: I/O flows"
	echo "hardstop $xport $t0 $EPOCHREALTIME" >>"$IXT_OUT/switches"
}

# since T0 WHAT: "WHAT after N s" (since T0) into fault.log.
since() {
	awk -v a="$1" -v b="$EPOCHREALTIME" -v w="$2" \
		'BEGIN { printf "%s after %.1f s\n", w, b - a }' | tee -a "$IXT_OUT/fault.log"
}

# failover.tsv: for each fault, from the request: when I/O stopped, when
# it resumed (the end of the longest time without a completed I/O), and
# that stall, in seconds.
fault_times() {
	local c x t0 t1

	while read -r c x t0 t1; do
		awk -v c="$c" -v x="$x" -v from="$t0" -v to="$t1" '
			BEGIN { t = from }
			$1 >= from && $1 <= to && $2 > last {
				if ($1 - t > g) { g = $1 - t; gs = t; ge = $1 }
				t = $1 }
			{ last = $2 }
			END { printf "%s\t%s\t%.1f\t%.1f\t%.1f\n", c, x,
				gs - from, ge - from, g }' "$IXT_OUT/iostat.log"
	done <"$IXT_OUT/switches" | tee "$IXT_OUT/failover.tsv"
}

verify_all() {
	fio --name=verify --filename="$disk" --direct=1 --ioengine=libaio \
		--iodepth=8 --rw=randwrite --bs=64k --size=128M \
		--verify=crc32c --verify_fatal=1 --verify_only \
		>"$IXT_OUT/fio-verify.log" 2>&1
}

no_io_errors() {
	! dmesg | grep -E "I/O error|rejecting I/O to offline"
}

initiator() {
	mkdir -p "$IXT_SHARED/initiator"
	trap 'ixt_mvm_ask node1 60 finish; ixt_mvm_ask node2 60 finish; ixt_mvm_signal finished' EXIT
	ixt_mvm_step "bridge br0 over the NICs to node1 and node2, $cip/24" client_net
	ixt_mvm_step "node1 serves the target" ixt_mvm_wait node1 serving 1800
	ixt_mvm_step "discovery through $vip lists $iqn" discover
	ixt_mvm_step "logged in through $vip over $xport" login
	ixt_mvm_step "node1 has the session" ixt_mvm_ask node1 120 session
	sampler >"$IXT_OUT/iostat.log" 2>&1 &
	sampler_pid=$!
	fio_start standby
	ixt_mvm_step "crm node standby node1 under fio: the target moves to node2, the session logs in again, I/O resumes" \
		fault standby node1 standby
	sleep 20
	ixt_mvm_step "fio verified every block it wrote (crc32c), no error" fio_stop standby
	ixt_mvm_step "node1 online again: DRBD secondary there, in sync" eval \
		'ixt_mvm_ask node1 120 online && ixt_mvm_ask node1 300 secondary && ixt_mvm_ask node2 300 synced'
	ixt_mvm_step "the target stays on node2" ixt_mvm_ask node2 60 serving
	fio_start hardstop
	ixt_mvm_step "node2 powered off under fio: fenced, the target moves to node1, the session logs in again, I/O resumes" \
		hard_stop node2
	sleep 20
	ixt_mvm_step "fio verified every block it wrote (crc32c), no error" fio_stop hardstop
	sed 's/^/# /' "$IXT_OUT/fault.log"
	ixt_mvm_step "node2 fenced: booted again, it rejoins as DRBD secondary, in sync" eval \
		'ixt_mvm_wait node2 rejoined.2 900 && ixt_mvm_ask node2 300 secondary && ixt_mvm_ask node1 300 synced'
	ixt_mvm_step "the target stays on node1" ixt_mvm_ask node1 60 serving
	kill "$sampler_pid"
	ixt_mvm_step "failover times written" fault_times
	echo "# failover (case, transport, s from the fault until I/O stopped, until it resumed, the stall):"
	sed 's/^/#   /' "$IXT_OUT/failover.tsv"
	ixt_mvm_step "the whole region verifies" verify_all
	ixt_mvm_step "no I/O error on the disk" no_io_errors
	ixt_mvm_step "logged out" iscsiadm -m node -T "$iqn" --logout
	ixt_mvm_step "the cluster stops every resource" eval \
		'ixt_mvm_ask node1 120 stop-all && ixt_mvm_ask node1 600 stopped && ixt_mvm_ask node2 600 stopped'
	ixt_mvm_step "kernel log clean" ixt_mvm_klog_clean
}

case $IXT_ROLE in
node1|node2)	node ;;
initiator)	initiator ;;
*)	echo "ha-guest: no part for role $IXT_ROLE" >&2; exit 1 ;;
esac
