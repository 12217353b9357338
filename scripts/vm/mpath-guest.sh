#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest job of scripts/vm/mpath.sh: two target nodes behind ALUA and
# dm-multipath, one VM per role (IXT_ROLE node1, node2, initiator).
#
# Each node serves the same LUN identity (one target IQN, a block
# backstore on the shared disk with the same unit serial, hence the same
# NAA) in the layout ceph-iscsi writes, with the unmodified targetcli:
# TPG 1 is node 1's port, TPG 2 node 2's, both on both nodes; a node
# enables its own TPG (its portal on its own address) and keeps the
# other's disabled (the peer's address, IP_FREEBIND, and
# tpg_enabled_sendtargets=0 so that discovery through either node lists
# both portals). ALUA groups tg1 (id 1, TPG 1's LUN) and tg2 (id 2) are
# Active/Optimized and Active/Non-optimized, implicit transitions only
# (explicit ones allowed for one part of the test);
# the relative target port ids are pinned to the TPG tags. Then a node
# runs what the initiator asks of it (ixt_mvm_serve) until it is done.
#
# The initiator runs udevd and multipathd (prio alua, group_by_prio,
# failback immediate, queue_if_no_path), discovers through node 1 and
# through node 2, logs in to both portals, and checks the one map, its
# priorities and REPORT TARGET PORT GROUPS through either path. Under fio
# (crc32c verify) through the map it moves the AO state from tg1 to tg2
# on both nodes (implicit transition: tg2 first, never a moment without
# an AO group), measures the time from the change to IO flowing on path
# B only, then moves it back and measures the failback. It checks that a
# node refuses SET TARGET PORT GROUPS while transitions are implicit
# only; then, with explicit ones allowed for a while, moves the AO state
# with sg_stpg through path B (node 2 changes, node 1 is told by
# configfs, as a cluster manager would) and back through path A, puts
# node 2's group in Standby (priority 1, READ refused through B, I/O on
# A only) and takes it out again. Over TCP it then
# does the same for three faults on path A: the path cut, node 1's TPG
# disabled, node 1's VM powered off (then booted again: a node whose
# IXT_BOOT is 2 configures itself again). The data is verified again
# after. Each VM prints "ok N - ROLE: ..." lines and stops
# at the first failure with a non-zero exit status; the initiator writes
# the times into failover.tsv.
#
#   mpath-guest.sh [tcp|iser]
#
# The argument is the transport of the sessions (tcp by default): over
# iser each node's portal serves iSER too (soft-RoCE on both paths), the
# initiator logs in through its iser iface (discovery stays on TCP), and
# only the ALUA transitions and Standby run (see initiator()).

. "$IXT_TOP/scripts/vm/guest-multi.sh"

iqn=iqn.2026-11.org.example:mp
serial=6a1c3f2e-9b4d-4e5f-8a7b-1c2d3e4f5a6b
wwid=360014056a1c3f2e9b4d4e5f8a7b1c2d3
map=ixtmp
cfs=/sys/kernel/config/target
xport=${1:-tcp}

# --- the nodes ---

# The ALUA group G's directory of the backstore.
alua_dir() {
	echo "$cfs"/core/iblock_*/mpdisk/alua/"$1"
}

# alua_set G STATE: group G's access state (0 AO, 1 ANO, 2 Standby).
alua_set() {
	echo "$2" >"$(alua_dir "$1")/alua_access_state" &&
		[ "$(cat "$(alua_dir "$1")/alua_access_state")" = "$2" ]
}

# alua_type T: both groups' alua_access_type (1 implicit, 3 implicit and
# explicit), which the core reads back in words.
alua_type() {
	local g want=Implicit

	[ "$1" = 1 ] || want="Implicit and Explicit"
	for g in tg1 tg2; do
		echo "$1" >"$(alua_dir $g)/alua_access_type" &&
			[ "$(cat "$(alua_dir $g)/alua_access_type")" = "$want" ] || return
	done
}

# drop_from NIC: every packet that arrives on NIC dropped (nftables
# table ixtcut). A cut drops at both ends' input, never output: soft-RoCE
# puts a QP whose packet the local stack refuses in the error state, the
# RDMA CM's QP1 too, and the device then makes no connection again.
drop_from() {
	nft -f - <<-EOT
	table inet ixtcut {
		chain in { type filter hook input priority -10; iifname "$1" drop; }
	}
	EOT
}

# tpg_enable 0|1: this node's own TPG disabled or enabled; then prints
# the target's logouts so far (requests.log): a disable returns once its
# sessions are gone, so they tell whether the initiator logged out when
# asked.
tpg_enable() {
	local st=$cfs/iscsi/$iqn/fabric_statistics/iscsi_logout_stats

	echo "$1" >"$cfs/iscsi/$iqn/tpgt_${IXT_ROLE#node}/enable" &&
		echo "logouts: normal $(cat "$st/normal_logouts"), abnormal $(cat "$st/abnormal_logouts")"
}

# The session's command window open: CmdSN/WC (the room MaxCmdSN leaves
# beyond ExpCmdSN) in the ACL's info, at least 1; prints the info.
window_open() {
	local info w

	info=$cfs/iscsi/$iqn/tpgt_${IXT_ROLE#node}/acls/iqn.2026-11.org.example.vm:initiator/info
	cat "$info" || return
	w=$(awk '/CmdSN\/WR/ { getline; print $2 }' "$info")
	[ -n "$w" ] && [ $((w)) -ge 1 ]
}

node_config() {
	local t me peer tag=${IXT_ROLE#node}

	me=$(cat "$IXT_SHARED/$IXT_ROLE/portal") &&
		peer=$(cat "$IXT_SHARED/node$((3 - tag))/portal") || return
	targetcli <<-EOT || return
	/backstores/block create name=mpdisk dev=$IXT_SHARED_DISK wwn=$serial
	/backstores/block/mpdisk/alua create name=tg1 tag=1
	/backstores/block/mpdisk/alua create name=tg2 tag=2
	/iscsi create $iqn
	/iscsi/$iqn create tag=2
	EOT
	for t in 1 2; do
		targetcli /backstores/block/mpdisk/alua/tg$t set alua \
			alua_access_type=1 nonop_delay_msecs=0 preferred=0 &&
			targetcli /backstores/block/mpdisk/alua/tg$t set alua \
				alua_access_state=$((t - 1)) || return
		targetcli "/iscsi/$iqn/tpg$t/portals" delete 0.0.0.0 3260 ||
			true
		targetcli <<-EOT || return
		/iscsi/$iqn/tpg$t disable
		/iscsi/$iqn/tpg$t/luns create /backstores/block/mpdisk lun=0
		/iscsi/$iqn/tpg$t/luns/lun0 set alua alua_tg_pt_gp_name=tg$t
		/iscsi/$iqn/tpg$t/acls create iqn.2026-11.org.example.vm:initiator
		/iscsi/$iqn/tpg$t set attribute authentication=0
		EOT
		echo $t >"$cfs/iscsi/$iqn/tpgt_$t/rtpi" || return
	done
	targetcli <<-EOT || return
	/iscsi/$iqn/tpg$tag/portals create $me 3260
	/iscsi/$iqn/tpg$((3 - tag))/portals create $peer 3260
	/iscsi/$iqn/tpg$((3 - tag)) set attribute tpg_enabled_sendtargets=0
	/iscsi/$iqn/tpg$tag enable
	EOT
	[ "$xport" = tcp ] ||
		targetcli "/iscsi/$iqn/tpg$tag/portals/$me:3260" enable_iser true ||
		return
	[ "$(cat "$cfs/iscsi/$iqn/tpgt_1/rtpi")" = 0x1 ] &&
		[ "$(cat "$cfs/iscsi/$iqn/tpgt_2/rtpi")" = 0x2 ] &&
		grep -q "tpgt_1/lun_0" "$(alua_dir tg1)/members" &&
		grep -q "tpgt_2/lun_0" "$(alua_dir tg2)/members"
}

# request ACTION: one request of the initiator (ixt_mvm_serve).
request() {
	case $1 in
	alua\ *)
		# shellcheck disable=SC2086
		alua_set ${1#alua } ;;
	alua-type\ *)	alua_type "${1#alua-type }" ;;
	tpg-disable)	tpg_enable 0 ;;
	tpg-enable)	tpg_enable 1 ;;
	window)		window_open ;;
	save-log)	dmesg >"$IXT_OUT/dmesg.boot$IXT_BOOT.log" ;;
	cut)		drop_from initiator ;;
	uncut)		nft delete table inet ixtcut ;;
	*)		return 2 ;;
	esac
}

# Every cache line of the pool free, none held by a command.
pool_whole() {
	awk '$1 == "lines" { l = $2 } $1 == "free" { f = $2 }
	     END { exit !(l > 0 && f == l) }' /sys/kernel/debug/iscsi_xt/pool
}

# One normal session logged in through the whole run: the faults of
# path A never reached path B's.
one_session() {
	[ "$(dmesg | grep -c "normal session TSIH [0-9]* logged in")" = 1 ]
}

node_teardown() {
	targetcli clearconfig confirm=true && rmdir "$cfs/iscsi" &&
		rmmod iscsi_xt_iser && rmmod iscsi_xt
}

node() {
	local other=node$((3 - ${IXT_ROLE#node}))

	mkdir -p "$IXT_SHARED/$IXT_ROLE"
	echo "$IXT_LOCAL_INITIATOR_ADDR4" >"$IXT_SHARED/$IXT_ROLE/portal"
	ixt_mvm_signal published
	ixt_mvm_step "iscsi_xt and iscsi_xt_iser loaded" eval 'ixt_insmod && ixt_insmod_iser'
	ixt_mvm_step "the other node's portal address is known" \
		ixt_mvm_wait "$other" published 600
	ixt_mvm_step "two TPGs, ALUA groups tg1 AO and tg2 ANO, RTPIs 1 and 2" \
		node_config
	# A boot after the host powered the node off and on says so.
	if [ "$IXT_BOOT" = 1 ]; then
		ixt_mvm_signal configured
	else
		ixt_mvm_signal "configured.$IXT_BOOT"
	fi
	ixt_mvm_step "the initiator's requests served" ixt_mvm_serve request
	ixt_mvm_step "every cache line back in the pool once the initiator logged out" \
		ixt_wait_for 10 pool_whole
	[ "$IXT_ROLE" != node2 ] ||
		ixt_mvm_step "one session through every fault of path A" one_session
	ixt_mvm_step "configuration cleared, modules unloaded" node_teardown
	ixt_mvm_step "kernel log clean" ixt_mvm_klog_clean
}

# --- the initiator ---

multipath_conf() {
	cat >/etc/multipath.conf <<-EOT
	defaults {
		user_friendly_names no
		find_multipaths no
		polling_interval 2
		max_polling_interval 8
	}
	blacklist {
		devnode "^(vd|ram|loop|nbd|sr|zram|nullb)"
	}
	devices {
		device {
			vendor "LIO-ORG"
			product ".*"
			hardware_handler "1 alua"
			path_grouping_policy group_by_prio
			prio alua
			path_checker tur
			path_selector "service-time 0"
			failback immediate
			no_path_retry queue
			fast_io_fail_tmo 10
		}
	}
	multipaths {
		multipath {
			wwid $wwid
			alias $map
		}
	}
	EOT
}

# udevd (ID_SERIAL for multipath's WWIDs, uevents for multipathd, the
# /dev/mapper nodes), then multipathd in the foreground of a background
# job, its output in multipathd.log.
mpath_start() {
	modprobe -a dm_multipath scsi_dh_alua || return
	[ "$xport" = tcp ] || modprobe ib_iser || return
	multipath_conf
	/lib/systemd/systemd-udevd --daemon </dev/null >/dev/null 2>&1 || return
	udevadm trigger --action=add --subsystem-match=block \
		--subsystem-match=scsi && udevadm settle -t 30 || return
	stdbuf -oL -eL multipathd -d -s -v3 </dev/null \
		>"$IXT_OUT/multipathd.log" 2>&1 &
	ixt_wait_for 30 'multipathd show daemon | grep -q "pid [0-9]* \(idle\|running\)"'
}

mpath_stop() {
	multipathd shutdown
	wait
	udevadm control --exit
}

# discover ADDR: SendTargets through ADDR lists both nodes' portals, each
# with its tag.
discover() {
	local out

	out=$(iscsiadm -m discovery -t st -p "$1:3260") || return
	echo "$out"
	grep -qx "$IXT_PEER_NODE1_ADDR4:3260,1 $iqn" <<<"$out" &&
		grep -qx "$IXT_PEER_NODE2_ADDR4:3260,2 $iqn" <<<"$out" &&
		[ "$(wc -l <<<"$out")" = 2 ]
}

# Both portals logged in through the iface of $xport (default for TCP;
# iser, its node records made by hand: discovery ran over TCP), each
# session on that transport.
login_both() {
	local p kv iface=default

	[ "$xport" = tcp ] || iface=iser
	for p in "$IXT_PEER_NODE1_ADDR4" "$IXT_PEER_NODE2_ADDR4"; do
		[ "$iface" = default ] ||
			iscsiadm -m node -T "$iqn" -p "$p:3260" -I "$iface" -o new ||
			return
		for kv in node.session.timeo.replacement_timeout=10 \
			node.conn[0].timeo.noop_out_interval=5 \
			node.conn[0].timeo.noop_out_timeout=10; do
			iscsiadm -m node -T "$iqn" -p "$p:3260" -I "$iface" \
				-o update -n "${kv%=*}" -v "${kv#*=}" || return
		done
		iscsiadm -m node -T "$iqn" -p "$p:3260" -I "$iface" --login ||
			return
	done
	[ "$(iscsiadm -m session -P 1 | grep -cx "[[:space:]]*Iface Transport: $xport")" = 2 ]
}

# The SCSI disk of the session to portal ADDR.
path_disk() {
	local s

	for s in /sys/class/iscsi_session/session*; do
		grep -qx "$1" "$s/device/connection"*/iscsi_connection/*/persistent_address 2>/dev/null ||
			continue
		basename "$(echo "$s"/device/target*/*/block/*)"
		return
	done
	return 1
}

# find_paths: sda and sdb, the disks of path A (to node 1) and B.
find_paths() {
	ixt_wait_for 30 "path_disk $IXT_PEER_NODE1_ADDR4 && path_disk $IXT_PEER_NODE2_ADDR4" &&
		sda=$(path_disk "$IXT_PEER_NODE1_ADDR4") &&
		sdb=$(path_disk "$IXT_PEER_NODE2_ADDR4")
}

# map_paths: "DEV PRIO CHECKER-STATE" for each path of the map.
map_paths() {
	multipathd show paths raw format "%d %p %t %T %w" | awk -v w="$wwid" '$5 == w'
}

# The map with both paths, path A's priority (node 1) PA, B's PB.
map_ready() {
	local pa=$1 pb=$2

	map_paths | grep -q "^$sda $pa " && map_paths | grep -q "^$sdb $pb " &&
		[ -b "/dev/mapper/$map" ]
}

map_check() {
	ixt_wait_for 60 "map_ready 50 10" || { multipath -ll; map_paths; return 1; }
	multipath -ll "$map"
	[ "$(cat /sys/block/"$sda"/device/wwid)" = "$(cat /sys/block/"$sdb"/device/wwid)" ] &&
		[ "$(cat /sys/block/"$sda"/device/access_state)" = active/optimized ] &&
		[ "$(cat /sys/block/"$sdb"/device/access_state)" = active/non-optimized ]
}

# rtpg DISK [S1 S2]: REPORT TARGET PORT GROUPS through DISK lists group
# 1 in state S1 (an awk pattern of sg_rtpg's words, lower case;
# Active/optimized by default) with relative port 1 and group 2 in S2
# (Active/non-optimized) with relative port 2.
rtpg() {
	local out s1=${2:-active/optimized} s2=${3:-active/non.optimized}

	out=$(sg_rtpg -d "/dev/$1") || return
	echo "$out"
	awk -v s1="$s1" -v s2="$s2" 'function n(v) {sub(/^0x0*/, "", v); return v}
	     /target port group id :/ {g = n($6); ports = 0}
	     /asymmetric access state/ {s[g] = tolower($0)}
	     ports && /^ *0x[0-9a-f]+ *$/ {p[g] = p[g] " " n($1); next}
	     /Relative target port ids/ {ports = 1; next}
	     {ports = 0}
	     END {exit !(s[1] ~ s1 && s[2] ~ s2 &&
			 p[1] == " 1" && p[2] == " 2")}' <<<"$out"
}

# The completed I/Os (reads + writes) of block device $1.
ios() {
	local f

	read -ra f <"/sys/block/$1/stat"
	echo $((f[0] + f[4]))
}

# Every 0.1 s: the time and the completed I/Os of the map and of each
# path, with builtins only (a process costs tenths of a second under TCG).
sampler() {
	local m a b fd

	exec {fd}<> <(:)
	while :; do
		read -ra m <"/sys/block/$dm/stat"
		read -ra a <"/sys/block/$sda/stat"
		read -ra b <"/sys/block/$sdb/stat"
		echo "$EPOCHREALTIME $((m[0] + m[4])) $((a[0] + a[4])) $((b[0] + b[4]))"
		read -r -t 0.1 -u "$fd"
	done
}

# stall FROM TO: the longest time from FROM, or from a sample that saw
# the map complete I/O, to the next such sample, up to TO (seconds since
# the epoch).
stall() {
	awk -v from="$1" -v to="$2" 'BEGIN { t = from }
		$1 >= from && $1 <= to && $2 > last {
			if ($1 - t > g) g = $1 - t; t = $1 }
		{ last = $2 } END { printf "%.1f\n", g }' "$IXT_OUT/iostat.log"
}

fio_start() {
	fio --name=mpath --filename="/dev/mapper/$map" --direct=1 \
		--ioengine=libaio --iodepth=8 --rw=randwrite --bs=64k \
		--size=128M --verify=crc32c --verify_fatal=1 \
		--verify_backlog=256 --time_based --runtime="$1" \
		</dev/null >"$IXT_OUT/fio-$2.log" 2>&1 &
	fio_pid=$!
}

fio_wait() {
	wait "$fio_pid" && grep -q "err= 0" "$IXT_OUT/fio-$1.log"
}

# fio_stop NAME: fio stopped (SIGINT, after which it exits with 128), its
# log showing no error.
fio_stop() {
	local rc=0

	kill -INT "$fio_pid" && wait "$fio_pid" || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 128 ] && grep -q "err= 0" "$IXT_OUT/fio-$1.log"
}

# flowing_on DISK SECONDS: within SECONDS, I/O completes on DISK and the
# map while the other path completes none for 2 s; prints the time it
# took.
flowing_on() {
	local disk=$1 other a0 b0 start=$EPOCHREALTIME end

	[ "$disk" = "$sda" ] && other=$sdb || other=$sda
	end=$((SECONDS + $2))
	while [ "$SECONDS" -lt "$end" ]; do
		a0=$(ios "$disk") b0=$(ios "$other")
		sleep 2
		if [ "$(ios "$disk")" -gt "$a0" ] && [ "$(ios "$other")" = "$b0" ]; then
			echo "$start $EPOCHREALTIME" | awk '{printf "%.1f\n", $2 - $1 - 2}'
			return 0
		fi
	done
	return 1
}

# move_ao FROM TO: group TO becomes Active/optimized and FROM
# Active/non-optimized, on both nodes (configfs: implicit transitions).
# Each node's state is its own, and an initiator told of a change (a
# unit attention on its paths to the changed group's port) reads every
# group's state through that path, the other node's group's too. So
# each node first changes the other node's group, which no initiator
# is logged in to there (nobody is told), then its own: every report an
# initiator reads after a unit attention already holds the new states.
# In the other order, a node's stale view of the other group could be
# the last one the initiator reads, and stay (seen: both paths kept at
# priority 50).
move_ao() {
	local n g own

	for n in node1 node2; do
		own=tg${n#node}
		for g in "$2" "$1"; do
			[ "$g" = "$own" ] || alua_ask "$n" "$g" "$2" || return
		done
	done
	for n in node1 node2; do
		alua_ask "$n" "tg${n#node}" "$2" || return
	done
}

# alua_ask NODE G AO: NODE sets group G Active/optimized if it is AO,
# else Active/non-optimized.
alua_ask() {
	local state=1

	[ "$2" != "$3" ] || state=0
	ixt_mvm_ask "$1" 60 alua "$2" "$state"
}

# switch CASE DIRECTION FROM TO DISK: move the AO state from group FROM
# to TO, then wait for I/O on DISK only; notes the time that took, and
# the time at the move, in switches.
switch() {
	local t0=$EPOCHREALTIME t

	move_ao "$3" "$4" || return
	t=$(flowing_on "$5" 30) || { map_paths; multipath -ll; return 1; }
	echo "$1 $2: IO on $5 only after $t s"
	echo "$1 $2 $t $t0" >>"$IXT_OUT/switches"
}

# cut CASE: fault CASE on path A (node 1): cut (nftables on the
# initiator and on node 1 drop every packet either receives from the
# other: a partition, drop_from), tpg (node 1's TPG disabled), stop
# (node 1's VM powered off, a pulled plug); uncut CASE ends it (node 1
# boots again and is configured as before).
cut() {
	case $1 in
	cut)	drop_from node1 && ixt_mvm_ask node1 60 cut ;;
	tpg)	ixt_mvm_ask node1 60 tpg-disable ;;
	stop)	ixt_mvm_ask node1 60 save-log && ixt_mvm_power off node1 ;;
	esac
}

uncut() {
	case $1 in
	cut)	nft delete table inet ixtcut && ixt_mvm_ask node1 60 uncut ;;
	tpg)	ixt_mvm_ask node1 60 tpg-enable ;;
	stop)	ixt_mvm_power on node1 && ixt_mvm_wait node1 configured.2 900 ;;
	esac
}

# fault CASE: under fio, CASE on path A, until I/O runs on path B only;
# then CASE ends, until I/O runs on path A only again.
fault() {
	local t0=$EPOCHREALTIME t

	cut "$1" || return
	t=$(flowing_on "$sdb" 60) || { map_paths; multipath -ll; return 1; }
	echo "$1 failover: IO on $sdb only after $t s"
	echo "$1 failover $t $t0" >>"$IXT_OUT/switches"
	sleep 5
	t0=$EPOCHREALTIME
	uncut "$1" || return
	# Node 1's boot is not the failback's.
	[ "$1" != stop ] || t0=$EPOCHREALTIME
	t=$(flowing_on "$sda" 60) || { map_paths; multipath -ll; return 1; }
	echo "$1 failback: IO on $sda only after $t s"
	echo "$1 failback $t $t0" >>"$IXT_OUT/switches"
}

# stpg DISK AO: SET TARGET PORT GROUPS through DISK makes group AO
# (tg1 or tg2) Active/optimized and the other Active/non-optimized on
# DISK's node (sg_stpg: an explicit transition), and prints what
# sg_stpg printed. sg_stpg exits 0 on a CHECK CONDITION too: the sense
# it prints tells.
stpg() {
	local st=ao,an

	[ "$2" = tg1 ] || st=an,ao
	sg_stpg -v -t 1,2 -S "$st" "/dev/$1" 2>&1
}

# stpg_refused DISK: with implicit transitions only, the node refuses
# SET TARGET PORT GROUPS (Illegal Request, invalid opcode).
stpg_refused() {
	local out

	out=$(stpg "$1" tg2)
	echo "$out"
	grep -qi "illegal request" <<<"$out"
}

# stpg_done DISK AO: stpg, which the node took: no sense in its output,
# and REPORT TARGET PORT GROUPS through DISK shows the new states.
stpg_done() {
	local out

	out=$(stpg "$1" "$2")
	echo "$out"
	! grep -qiE "sense|illegal|error" <<<"$out" || return
	if [ "$2" = tg1 ]; then
		rtpg "$1" active/optimized active/non.optimized
	else
		rtpg "$1" active/non.optimized active/optimized
	fi
}

# explicit CASE DIRECTION FROM TO DISK: the initiator's sg_stpg through
# DISK moves the AO state from group FROM to TO on DISK's node; the
# other node follows by configfs (a cluster manager's job: each node's
# ALUA state is its own), its other group first, then its own (move_ao).
# Then, as switch does, waits for I/O on DISK only.
explicit() {
	local t0=$EPOCHREALTIME t n=node1

	[ "$5" = "$sda" ] && n=node2
	stpg_done "$5" "$4" || return
	if [ $n = node1 ]; then
		alua_ask node1 tg2 "$4" && alua_ask node1 tg1 "$4" || return
	else
		alua_ask node2 tg1 "$4" && alua_ask node2 tg2 "$4" || return
	fi
	t=$(flowing_on "$5" 30) || { map_paths; multipath -ll; return 1; }
	echo "$1 $2: IO on $5 only after $t s"
	echo "$1 $2 $t $t0" >>"$IXT_OUT/switches"
}

explicit_failover() {
	ixt_mvm_ask node1 60 alua-type 3 && ixt_mvm_ask node2 60 alua-type 3 ||
		return
	explicit explicit failover tg1 tg2 "$sdb" || return
	sleep 5
	explicit explicit failback tg2 tg1 "$sda" || return
	ixt_mvm_ask node1 60 alua-type 1 && ixt_mvm_ask node2 60 alua-type 1
}

# standby_read_refused: a READ through path B, its port in Standby, is
# refused: Not Ready, target port in standby state.
standby_read_refused() {
	local out

	out=$(sg_raw -r 512 "/dev/$sdb" 28 00 00 00 00 00 00 00 01 00 2>&1) &&
		{ echo "$out"; return 1; }
	echo "$out"
	grep -qi "not ready" <<<"$out" && grep -qi "standby" <<<"$out"
}

# standby S: group 2 in state S (2 Standby, 1 back to
# Active/non-optimized) on both nodes, node 1 first (nobody is told
# there), until multipathd gives path B the priority of S.
standby() {
	local prio=10

	[ "$1" != 2 ] || prio=1
	ixt_mvm_ask node1 60 alua tg2 "$1" && ixt_mvm_ask node2 60 alua tg2 "$1" ||
		return
	if ! ixt_wait_for 60 "map_ready 50 $prio"; then
		map_paths
		multipath -ll
		return 1
	fi
	multipath -ll "$map"
}

failover() {
	ixt_wait_for 30 "[ \$(ios $sda) -gt 0 ]" || return
	sleep 5
	switch implicit failover tg1 tg2 "$sdb" || return
	sleep 5
	switch implicit failback tg2 tg1 "$sda"
}

# failover.tsv: for each switch, the seconds until I/O ran on the new
# path only, and the longest the map's I/O stood still around it.
switch_times() {
	local c d t t0

	while read -r c d t t0; do
		printf '%s\t%s\t%s\t%s\t%s\n' "$c" "$xport" "$d" "$t" \
			"$(stall "$t0" "$(awk -v a="$t0" -v b="$t" \
				'BEGIN { printf "%.3f", a + b + 10 }')")"
	done <"$IXT_OUT/switches" | tee "$IXT_OUT/failover.tsv"
}

verify_all() {
	fio --name=verify --filename="/dev/mapper/$map" --direct=1 \
		--ioengine=libaio --iodepth=8 --rw=randwrite --bs=64k \
		--size=128M --verify=crc32c --verify_fatal=1 --verify_only \
		>"$IXT_OUT/fio-verify.log" 2>&1
}

# No I/O error on the map: a path's errors (sda, sdb) are dm-multipath's
# to retry on the other path, and do when the path goes.
no_io_errors() {
	! dmesg | grep -E "I/O error,? (on )?dev dm-"
}

initiator() {
	mkdir -p "$IXT_SHARED/initiator"
	trap 'ixt_mvm_ask node1 60 finish; ixt_mvm_ask node2 60 finish; ixt_mvm_signal finished' EXIT
	ixt_mvm_step "udevd and multipathd running" mpath_start
	ixt_mvm_step "node 1 configured" ixt_mvm_wait node1 configured 900
	ixt_mvm_step "node 2 configured" ixt_mvm_wait node2 configured 900
	ixt_mvm_step "discovery through node 1 lists both portals, tags 1 and 2" \
		discover "$IXT_PEER_NODE1_ADDR4"
	ixt_mvm_step "discovery through node 2 lists both portals, tags 1 and 2" \
		discover "$IXT_PEER_NODE2_ADDR4"
	ixt_mvm_step "logged in through both portals over $xport" login_both
	ixt_mvm_step "a disk through each path" find_paths
	ixt_mvm_step "one map $map: path A (node 1) prio 50, path B prio 10" map_check
	dm=$(basename "$(readlink -f "/dev/mapper/$map")")
	ixt_mvm_step "RTPG through path A: group 1 AO (port 1), group 2 ANO (port 2)" rtpg "$sda"
	ixt_mvm_step "RTPG through path B: the same" rtpg "$sdb"
	sampler >"$IXT_OUT/iostat.log" 2>&1 &
	sampler_pid=$!
	fio_start 90 implicit
	ixt_mvm_step "implicit ALUA transition under fio: IO moves to path B and back" failover
	ixt_mvm_step "fio verified every block it wrote (crc32c), no error" fio_wait implicit
	ixt_mvm_step "SET TARGET PORT GROUPS refused while transitions are implicit only" \
		stpg_refused "$sdb"
	fio_start 600 explicit
	ixt_mvm_step "explicit ALUA transition (sg_stpg through path B, then A) under fio: IO moves to B and back" \
		eval 'sleep 5 && explicit_failover'
	ixt_mvm_step "node 2 Standby: path B at priority 1, access state standby" \
		eval 'standby 2 && [ "$(cat /sys/block/$sdb/device/access_state)" = standby ]'
	ixt_mvm_step "RTPG through path A: group 1 AO, group 2 Standby" \
		rtpg "$sda" active/optimized standby
	ixt_mvm_step "a READ through path B is refused: Not Ready, port in standby" \
		standby_read_refused
	ixt_mvm_step "IO runs on path A only while node 2 stands by" \
		eval 'flowing_on "$sda" 30'
	ixt_mvm_step "node 2 Active/non-optimized again: path B at priority 10" standby 1
	ixt_mvm_step "fio verified every block it wrote (crc32c), no error" fio_stop explicit
	fio_start 600 cut
	ixt_mvm_step "path A cut (nftables) under fio: IO moves to path B and back" \
		eval 'sleep 5 && fault cut'
	ixt_mvm_step "fio verified every block it wrote (crc32c), no error" fio_stop cut
	fio_start 600 tpg
	ixt_mvm_step "node 1's TPG disabled under fio: IO moves to path B and back" \
		eval 'sleep 5 && fault tpg'
	ixt_mvm_step "fio verified every block it wrote (crc32c), no error" fio_stop tpg
	fio_start 900 stop
	ixt_mvm_step "node 1 powered off under fio: IO moves to path B; booted again, back to A" \
		eval 'sleep 5 && fault stop'
	ixt_mvm_step "fio verified every block it wrote (crc32c), no error" fio_stop stop
	kill "$sampler_pid"
	ixt_mvm_step "switch and stall times written" switch_times
	ixt_mvm_step "the whole region verifies" verify_all
	ixt_mvm_step "node 2's command window still open after every fault" \
		ixt_mvm_ask node2 60 window
	ixt_mvm_step "no I/O error on the map" no_io_errors
	ixt_mvm_step "logged out of both" iscsiadm -m node -T "$iqn" --logout
	ixt_mvm_step "multipathd and udevd stopped" mpath_stop
	ixt_mvm_step "kernel log clean" ixt_mvm_klog_clean
}

case $IXT_ROLE in
node1|node2)	node ;;
initiator)	initiator ;;
*)	echo "mpath-guest: no part for role $IXT_ROLE" >&2; exit 1 ;;
esac
