#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# faults.sh tcp|iser: faults during IO lose no data, leak nothing, and
# neither oops nor hang; run as tcp_faults.sh and iser_faults.sh
# (ib_iser on soft-RoCE rxe0, or on soft-iWARP siw0 with IXT_RDMA=siw as
# make check-full runs it). Initiator and target share the VM.
#
# open-iscsi runs fio with CRC32C verification (random 64 KiB writes,
# libaio, O_DIRECT, iodepth 8, each batch read back while later ones are
# written) on a ramdisk LUN of target A, again and again while faults
# strike; every run must end without an error or a mismatch.
#
# The same on both transports:
# - a second session, to target B, logs in, writes and verifies 2 MiB of
#   its own LUN and logs out, three times;
# - the TPG is disabled for 3 s and enabled again: the disable returns
#   within 5 s and the initiator logs in again;
# - rmmod iscsi_xt is refused while a session is logged in, and the
#   session still writes and verifies;
# - at the end no I/O error reached the initiator's block layer, every
#   cache line is back in the pool and the modules unload.
#
# Over TCP only:
# - the connection is cut twice with ss -K, once the initiator's socket,
#   once the target's: the initiator logs in again each time, and the
#   kernel log shows the drops and the target ending those sessions;
# - a stuck backend, next to a ramdisk LUN in the same TPG: an iblock
#   LUN over dm-delay over null_blk holds reads past its first MiB for
#   20 s (its first MiB is linear, so that the initiator's partition
#   scan is quick). With a direct read held there, the connection is
#   cut (ss -K), then the TPG disabled and enabled: the disable returns
#   within 5 s, the target closes and releases its socket of the
#   connection within 5 s of the cut and within 10 s of the disable (its
#   Logout waits up to 5 s for the retried read the new connection
#   holds), the initiator logs in again each time and the ramdisk LUN
#   writes and verifies while the read is still held; rmmod is refused
#   meanwhile. The read completes once the backend lets it go.
#
# Over iSER only (it reads iscsi_xt's own state: not with
# IXT_TARGET=lio):
# - the RDMA device goes (rdma link delete rxe0): the target closes the
#   connection (no connected RDMA CM id of iscsi_xt_iser is left on the
#   portal, target A has no session in configfs or in debugfs); the
#   device comes back (rdma link add rxe0): the target listens on the
#   portal again and says so in the kernel log, and the initiator logs
#   in again by itself (replacement_timeout 120 s: the block layer sees
#   no error meanwhile);
# - two LUN resets (sg_reset -d) succeed and the target carries them
#   out;
# - rmmod iscsi_xt_iser is refused while a portal serves iSER, and after
#   the logout no RDMA connection of the target is left;
# - at the end the target's RDMA resources (PDs, CQs, QPs, cm_ids, MRs)
#   are back to what they were before the first login, and no slab
#   object of the target's modules is left behind once the configuration
#   is cleared (with slub_debug=U).

. "$(dirname "$0")/lib.sh"

transport=${1:-}
case $transport in
tcp)	iface=default ;;
iser)	iface=iser ;;
*)	echo "usage: faults.sh tcp|iser" >&2; exit 2 ;;
esac

ixt_require_root
ixt_require_cmd fio
ixt_require_initiator
if [ "$transport" = iser ]; then
	ixt_require_cmd sg_reset numfmt
	ixt_require_iser
	[ "$IXT_TARGET" = xt ] ||
		ixt_skip_all "iser_faults.sh reads iscsi_xt's own state (debugfs, the pool)"
else
	ixt_require_module
	ixt_require_cmd ss dmsetup dd
	modprobe -q target_core_iblock || ixt_skip_all "target_core_iblock unavailable"
	modprobe -n -q null_blk || ixt_skip_all "null_blk unavailable"
	modprobe -q dm-delay || ixt_skip_all "dm-delay unavailable"
fi

pre=iqn.2026-11.org.example.faults.$transport
tgt_a=$pre:a
tgt_b=$pre:b
tgt_c=$pre:c
portal=$IXT_ADDR4_T:3260
hba_rd=$IXT_CFS/core/rd_mcp_80
hba_ib=$IXT_CFS/core/iblock_80
dbg_sessions=/sys/kernel/debug/iscsi_xt/sessions
slow=ixt_faults_slow
delay_ms=$((20000 * IXT_SLOW))
# The VM's RDMA device: soft-RoCE rxe0, or siw0 with IXT_RDMA=siw.
rxe=${IXT_RDMA_DEV:-rxe0}
rxe_type=${IXT_RDMA:-rxe}
rxe_netdev=veth0
ixt_work
# dmsetup creates the device node itself: there is no udev in the VM.
export DM_DISABLE_UDEV=1

# The RDMA device, back if a failed step left it deleted.
rxe_back() {
	rdma link show "$rxe/1" >/dev/null 2>&1 ||
		rdma link add "$rxe" type "$rxe_type" netdev "$rxe_netdev"
}

node() {
	ixt_node $iface "$@"
}

# add_target TARGET BACKSTORE...: a demo-mode target with one TPG on
# $portal (serving iSER too over iSER) whose LUNs are the backstores in
# order.
add_target() {
	local t=$1 tpg=$IXT_FABRIC/$1/tpgt_1 lun=0 bs

	shift
	mkdir -p "$tpg/np/$portal" || return 1
	if [ "$transport" = iser ]; then
		echo 1 >"$tpg/np/$portal/iser" || return 1
	fi
	for bs in "$@"; do
		mkdir "$tpg/lun/lun_$lun" &&
			ln -s "$bs" "$tpg/lun/lun_$lun/${bs##*/}" || return 1
		lun=$((lun + 1))
	done
	echo 0 >"$tpg/attrib/authentication" &&
		echo 1 >"$tpg/attrib/generate_node_acls" &&
		echo 0 >"$tpg/attrib/demo_mode_write_protect" &&
		echo 1 >"$tpg/enable"
}

# rd_store NAME PAGES: a ramdisk backstore.
rd_store() {
	mkdir -p "$hba_rd/$1" && echo "rd_pages=$2" >"$hba_rd/$1/control" &&
		echo 1 >"$hba_rd/$1/enable"
}

# The slow device: null_blk whose first MiB dm maps linearly and the rest
# through dm-delay, reads held $delay_ms, writes and flushes not.
slow_store() {
	local sz

	ixt_null_blk nr_devices=1 memory_backed=1 gb=1 || return 1
	sz=$(cat /sys/block/nullb0/size)
	printf '0 2048 linear /dev/nullb0 0\n2048 %d delay /dev/nullb0 2048 %d /dev/nullb0 2048 0\n' \
		$((sz - 2048)) $delay_ms | dmsetup create "$slow" || return 1
	mkdir -p "$hba_ib/$slow" &&
		echo "udev_path=/dev/mapper/$slow" >"$hba_ib/$slow/control" &&
		echo 1 >"$hba_ib/$slow/enable"
}

# Undoes everything, whatever got done; the EXIT trap runs it again.
teardown() {
	local t

	[ "$transport" = iser ] && rxe_back
	for t in $tgt_a $tgt_b $tgt_c; do
		node "$t" "$portal" --logout
		node "$t" "$portal" -o delete
	done
	[ -d "$IXT_FABRIC" ] && ixt_cfs_clear
	dmsetup info "$slow" >/dev/null 2>&1 && dmsetup remove "$slow"
	[ -d /sys/module/null_blk ] && rmmod null_blk
} 2>/dev/null

cleanup() {
	ixt_fio_loop_stop
	wait
	teardown
	ixt_target_unload 2>/dev/null
	ixt_work_rm
}
trap cleanup EXIT

# login TARGET VAR LUN...: log in to TARGET (its session must run over
# the transport) and set VAR[i] to the disk of the i-th LUN given.
login() {
	local t=$1 l sid

	ixt_login $iface "$t" "$portal" node.session.timeo.replacement_timeout=120 &&
		sid=$(ixt_sid "$transport" "$t") &&
		[ "$(ixt_sid_transport "$sid")" = "$transport" ] || return 1
	declare -n disks=$2
	shift 2
	disks=()
	for l in "$@"; do
		disks+=("$(ixt_sid_disk "$sid" "$l")") || return 1
	done
}

# Session B's part of the logout loop: three rounds of login,
# write+verify, logout.
b_rounds() {
	local i db

	for i in 1 2 3; do
		login "$tgt_b" db 0 || { ktap_print_msg "B: login $i failed"; return 1; }
		ixt_fio_verify_64k "${db[0]}" 0 2M || return 1
		node "$tgt_b" "$portal" --logout ||
			{ ktap_print_msg "B: logout $i failed"; return 1; }
	done
}

# Another session logs in and out while A writes.
case_logout_loop() {
	ixt_fio_loop_start "${da[0]}"
	ixt_writing "${da[0]}"
	ixt_check "session B logs in over $transport, writes and verifies 2 MiB, logs out, 3 times" \
		b_rounds
	ixt_check "target B counted 3 logins and 3 normal logouts" \
		ixt_logins_counted "$tgt_b" 3
	ixt_check "session A's fio runs meanwhile: no error, no mismatch" \
		ixt_fio_loop_end
}

# The TPG disabled for 3 s and enabled again under IO.
case_tpg_disable() {
	local acc rc

	acc=$(ixt_accepts "$tgt_a")
	ixt_fio_loop_start "${da[0]}"
	ixt_writing "${da[0]}"
	ixt_timed_write 0 "$IXT_FABRIC/$tgt_a/tpgt_1/enable"
	rc=$?
	ixt_check "disabling TPG A under IO returns in $IXT_TOOK_MS ms (5 s at most)" \
		ixt_disabled_in_time $rc
	sleep 3
	echo 1 >"$IXT_FABRIC/$tgt_a/tpgt_1/enable"
	ixt_check "the initiator logs in again once TPG A is enabled" \
		ixt_relogged "$tgt_a" $((acc + 1))
	ixt_writing "${da[0]}"
	ixt_check "fio write+verify runs across the disable: no error, no mismatch" \
		ixt_fio_loop_end
}

# rmmod with a session logged in (and over iSER a portal serving it).
case_rmmod() {
	if [ "$transport" = iser ]; then
		ixt_check "rmmod iscsi_xt_iser is refused while a portal serves iSER" \
			ixt_rmmod_refused iscsi_xt_iser
	fi
	ixt_check "rmmod iscsi_xt is refused while a session is logged in" \
		ixt_rmmod_refused iscsi_xt
	ixt_check "... and the session still writes and verifies" \
		ixt_fio_verify_64k "${da[0]}" 16M 2M
	if [ "$transport" = iser ]; then
		ixt_check "the initiator logs out of target A, no connected cm_id of iscsi_xt_iser is left" \
			a_logged_out
	else
		ixt_check "the initiator logs out of target A" node "$tgt_a" "$portal" --logout
	fi
}

if [ "$transport" = tcp ]; then
	# cut FILTER: ss -K the established TCP sockets FILTER matches;
	# fails unless it killed one.
	cut() {
		local killed

		killed=$(ss -K -tnH state established "$1")
		[ -n "$killed" ] || ktap_print_msg "ss -K killed no socket ($1)"
		[ -n "$killed" ]
	}

	# The initiator's local port of its (only) connection to port 3260.
	ini_port() {
		ss -tnH state established '( dport = :3260 )' |
			awk '{ n = split($3, a, ":"); print a[n]; exit }'
	}

	# target_sock_released PORT SECS: within SECS seconds (wall clock,
	# times IXT_SLOW) the target has closed and released its socket of
	# the connection from the initiator's PORT: no socket of it is left
	# but orphans (ino:0), which the kernel finishes closing with the
	# initiator (FIN-WAIT-2 until the initiator closes its end:
	# open-iscsi may take its time there), and TIME-WAIT ones.
	target_sock_released() {
		local end left f="( sport = :3260 and dport = :$1 )"

		[ -n "$1" ] || return 1
		end=$(($(date +%s%N) + $2 * IXT_SLOW * 1000000000))
		while :; do
			left=$(ss -tnHe state connected exclude time-wait "$f")
			if [ -z "$left" ] || ! grep -Eqv ' ino:0( |$)' <<<"$left"; then
				[ -z "$left" ] || ktap_print_msg "released, closing: $left"
				return 0
			fi
			[ "$(date +%s%N)" -lt "$end" ] || break
			sleep 0.2
		done
		ktap_print_msg "still held: $left"
		return 1
	}

	# The connection cut with ss -K twice under IO, on either side.
	case_cut() {
		local acc drops closed

		acc=$(ixt_accepts "$tgt_a")
		drops=$(ixt_klog_count "detected conn error")
		closed=$(ixt_klog_count "normal session of .*closed")
		ixt_fio_loop_start "${da[0]}"
		ixt_writing "${da[0]}"
		ixt_check "cut 1: ss -K kills the initiator's socket while fio writes" \
			cut '( dport = :3260 )'
		ixt_relogged "$tgt_a" $((acc + 1)) && ixt_writing "${da[0]}"
		ixt_check "cut 2: ss -K kills the target's socket while fio writes" \
			cut '( sport = :3260 )'
		ixt_relogged "$tgt_a" $((acc + 2)) && ixt_writing "${da[0]}"
		ixt_check "the initiator logged in again after each cut" \
			[ "$(ixt_accepts "$tgt_a")" -ge $((acc + 2)) ]
		ixt_check "the kernel log shows both drops and the target ending both sessions" \
			ixt_klog_grew "detected conn error" $((drops + 2)) \
			"normal session of .*closed" $((closed + 2))
		ixt_check "fio write+verify runs across both cuts: no error, no mismatch" \
			ixt_fio_loop_end
	}

	# held: the read of the slow LUN started in case_stuck is still
	# waiting.
	held() {
		kill -0 "$reader" 2>/dev/null && return 0
		ktap_print_msg "the read of the slow LUN is no longer held"
		return 1
	}

	read_waits() {
		held && [ "$(awk '{ print $1 }' "/sys/block/${dc[0]#/dev/}/inflight")" -ge 1 ]
	}

	cut_and_gone() {
		cut '( dport = :3260 )' && target_sock_released "$1" 5
	}

	relogged_held() {
		ixt_relogged "$tgt_c" "$1" && held
	}

	# rd_verified_held OFFSET: 2 MiB of C's ramdisk LUN written and
	# verified, with the read of the slow LUN still held.
	rd_verified_held() {
		ixt_fio_verify_64k "${dc[1]}" "$1" 2M && held
	}

	read_completes() {
		wait "$reader" && return 0
		ktap_print_msg "dd: $(cat "$IXT_WORK/dd.err")"
		return 1
	}

	# A read held in a stuck backend, the connection cut, then the TPG
	# disabled and enabled.
	case_stuck() {
		local acc port rc t0=$SECONDS

		ixt_check "the initiator logs in to target C: the slow LUN and the ramdisk LUN show up" \
			login "$tgt_c" dc 0 1
		[ -n "${dc[1]}" ] || return
		# Retries of the held read restart the SCSI command timer:
		# keep it well above the backend's delay.
		echo $((120 * IXT_SLOW)) >"/sys/block/${dc[0]#/dev/}/device/timeout"
		acc=$(ixt_accepts "$tgt_c")
		timeout $((200 * IXT_SLOW)) dd if="${dc[0]}" of=/dev/null bs=4k count=1 skip=2048 \
			iflag=direct 2>"$IXT_WORK/dd.err" &
		reader=$!
		sleep 2
		ixt_check "a direct read of the slow LUN is held in the backend" read_waits

		port=$(ini_port)
		ixt_check "ss -K cuts the connection; the target releases its socket within 5 s" \
			cut_and_gone "$port"
		ixt_check "the initiator logs in again, the read still held" \
			relogged_held $((acc + 1))
		ixt_check "the ramdisk LUN next to it writes and verifies meanwhile" \
			rd_verified_held 0

		port=$(ini_port)
		ixt_timed_write 0 "$IXT_FABRIC/$tgt_c/tpgt_1/enable"
		rc=$?
		ixt_check "disabling TPG C with the read held returns in $IXT_TOOK_MS ms (5 s at most)" \
			ixt_disabled_in_time $rc
		# The initiator logs out; the Logout waits up to 5 s for the
		# read the new connection holds (IXT_REINSTATE_WAIT_SECS),
		# and its response closes the connection.
		ixt_check "the target releases its socket of that connection within 10 s (the Logout's 5 s wait for the held read, and 5 s)" \
			target_sock_released "$port" 10
		ixt_check "rmmod iscsi_xt is refused with a command held" \
			ixt_rmmod_refused iscsi_xt
		sleep 1
		echo 1 >"$IXT_FABRIC/$tgt_c/tpgt_1/enable"
		ixt_check "the initiator logs in again once TPG C is enabled, the read still held" \
			relogged_held $((acc + 2))
		ixt_check "the ramdisk LUN writes and verifies meanwhile" \
			rd_verified_held 4M
		ixt_check "the held read completes once the backend lets it go" \
			read_completes
		ktap_print_msg "the read took $((SECONDS - t0)) s"
		ixt_check "the initiator logs out of target C" node "$tgt_c" "$portal" --logout
	}
else
	# xt_cm STATE: the RDMA CM ids of iscsi_xt_iser in STATE on the
	# portal.
	xt_cm() {
		ixt_rdma_cm "$1" "$portal" | grep -F '[iscsi_xt_iser]'
	}

	show_cm_ids() {
		ktap_print_msg "cm_ids: $(rdma res show cm_id 2>&1 | tr '\n' ';')"
	}

	# a_closed: the target closed A's connection: no connected RDMA CM
	# id of iscsi_xt_iser on the portal, target A counts no session, its
	# TPG lists none, and debugfs lists no session of the initiator.
	a_closed() {
		[ -z "$(xt_cm CONNECT)" ] &&
			[ "$(cat "$IXT_FABRIC/$tgt_a/fabric_statistics/iscsi_instance/sessions")" = 0 ] &&
			[ -z "$(tr -d '\n' <"$IXT_FABRIC/$tgt_a/tpgt_1/dynamic_sessions")" ] &&
			! grep -q " $IXT_INITIATOR " "$dbg_sessions"
	}

	show_a() {
		show_cm_ids
		ktap_print_msg "target A: $(cat "$IXT_FABRIC/$tgt_a/fabric_statistics/iscsi_instance/sessions") sessions; dynamic_sessions: $(tr '\n' ' ' <"$IXT_FABRIC/$tgt_a/tpgt_1/dynamic_sessions")"
		ktap_print_msg "debugfs sessions: $(tr '\n' ';' <"$dbg_sessions")"
	}

	# listening_again: a listening RDMA CM id of iscsi_xt_iser on the
	# portal, and the kernel log line that says it came back.
	listening_again() {
		[ -n "$(xt_cm LISTEN)" ] &&
			ixt_klog_since_mark | grep -qF "listening on $portal again (iSER)"
	}

	# delete_under_io: A's connection shows as a connected cm_id of
	# iscsi_xt_iser (what a_closed looks for), and rdma link delete
	# returns within 60 s.
	delete_under_io() {
		local t0=$SECONDS

		[ -n "$(xt_cm CONNECT)" ] ||
			{ ktap_print_msg "A's connection is not seen"; show_cm_ids; return 1; }
		timeout 60 rdma link delete "$rxe" || return 1
		ktap_print_msg "rdma link delete took $((SECONDS - t0)) s"
	}

	# The RDMA device deleted under IO, and added again.
	case_rdma_gone() {
		local acc

		acc=$(ixt_accepts "$tgt_a")
		ixt_fio_loop_start "${da[0]}"
		ixt_writing "${da[0]}"
		ixt_check "rdma link delete $rxe while fio writes returns" delete_under_io
		ixt_check "the target closes the connection: no connected cm_id of iscsi_xt_iser, no session of A in configfs or debugfs" \
			eval 'ixt_wait 15 a_closed || { show_a; false; }'
		# An outage long enough for the initiator to try and fail.
		sleep 3
		ixt_check "rdma link add $rxe type $rxe_type netdev $rxe_netdev" \
			rdma link add "$rxe" type "$rxe_type" netdev "$rxe_netdev"
		ixt_check "the target listens on $portal again (LISTEN cm_id, kernel log)" \
			eval 'ixt_wait 15 listening_again || { show_cm_ids; false; }'
		ixt_check "the initiator logs in again by itself" \
			ixt_relogged "$tgt_a" $((acc + 1))
		ixt_writing "${da[0]}"
		ixt_check "fio write+verify runs across the outage: no error, no mismatch" \
			ixt_fio_loop_end
	}

	# resets N: N LUN resets of A's disk, each while it writes.
	resets() {
		local i out

		for ((i = 1; i <= $1; i++)); do
			ixt_writing "${da[0]}" || return 1
			out=$(timeout 120 sg_reset -d "${da[0]}" 2>&1) || {
				ktap_print_msg "sg_reset -d ${da[0]}, reset $i: $out"
				return 1
			}
		done
	}

	# LUN resets under IO.
	case_lun_reset() {
		local n

		n=$(ixt_klog_count "task management function 5 on LUN 0")
		ixt_fio_loop_start "${da[0]}"
		ixt_check "two LUN resets (sg_reset -d) while fio writes succeed" resets 2
		ixt_check "the target carried both out (task management function 5 on LUN 0)" \
			ixt_klog_grew "task management function 5 on LUN 0" $((n + 2))
		ixt_writing "${da[0]}"
		ixt_check "fio write+verify runs across the resets: no error, no mismatch" \
			ixt_fio_loop_end
	}

	no_xt_conn() {
		[ -z "$(xt_cm CONNECT)" ]
	}

	a_logged_out() {
		node "$tgt_a" "$portal" --logout || return 1
		ixt_wait 10 no_xt_conn && return 0
		show_cm_ids
		return 1
	}

	res_same() {
		[ "$(ixt_iser_res)" = "$res0" ]
	}

	res_back() {
		ixt_wait 10 res_same && return 0
		ktap_print_msg "iscsi_xt_iser's RDMA resources: before: $res0, after: $(ixt_iser_res)"
		ktap_print_msg "rdma res show: $(rdma res show 2>&1 | tr '\n' ';')"
		return 1
	}
fi

# The disks of targets A and C.
da=()
dc=()
reader=
if [ "$transport" = iser ]; then
	ixt_begin 26
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	ixt_target_load || ktap_exit_fail_msg "cannot load iscsi_xt and its iSER transport"
	owners=(iscsi_xt iscsi_xt_iser target_core_mod)
	# The first HBA loads the target core's backend modules, which
	# register for good: before the snapshot.
	mkdir -p "$hba_rd" || ktap_exit_fail_msg "cannot create $hba_rd"
	ixt_owned_mark "${owners[@]}"
	{
		rd_store ixt_faults_a 16384 && rd_store ixt_faults_b 1024 &&
			add_target "$tgt_a" "$hba_rd/ixt_faults_a" &&
			add_target "$tgt_b" "$hba_rd/ixt_faults_b"
	} || ktap_exit_fail_msg "cannot configure the targets"
	res0=$(ixt_iser_res)
else
	ixt_begin 30
	# shellcheck disable=SC2119 # no module parameters
	ixt_load || ktap_exit_fail_msg "cannot load iscsi_xt"
	{
		rd_store ixt_faults_a 16384 && rd_store ixt_faults_b 1024 &&
			rd_store ixt_faults_c 2048 && slow_store &&
			add_target "$tgt_a" "$hba_rd/ixt_faults_a" &&
			add_target "$tgt_b" "$hba_rd/ixt_faults_b" &&
			add_target "$tgt_c" "$hba_ib/$slow" "$hba_rd/ixt_faults_c"
	} || ktap_exit_fail_msg "cannot configure the targets"
fi

ixt_check "the initiator logs in to target A over $transport, its LUN shows up" \
	login "$tgt_a" da 0
[ -b "${da[0]}" ] || ktap_exit_fail_msg "no session to target A"

# run_case CASE: CASE run, and how long it took.
run_case() {
	local t0=$SECONDS

	"$1"
	ktap_print_msg "${1#case_} took $((SECONDS - t0)) s"
}

if [ "$transport" = tcp ]; then
	run_case case_cut
	run_case case_logout_loop
	run_case case_tpg_disable
	run_case case_rmmod
	run_case case_stuck
else
	run_case case_logout_loop
	run_case case_rdma_gone
	run_case case_tpg_disable
	run_case case_lun_reset
	run_case case_rmmod
fi

ixt_check "no I/O error reached the initiator's block layer" ixt_no_io_error
node "$tgt_a" "$portal" -o delete
node "$tgt_b" "$portal" -o delete
if [ "$transport" = iser ]; then
	ixt_check "iscsi_xt_iser holds the RDMA resources it held before the first login ($res0)" \
		res_back
	ixt_check "every cache line is back in the pool" ixt_pool_all_free
	ixt_check "the configuration is cleared" ixt_cfs_clear
	ixt_owned_check "once the configuration is cleared" "${owners[@]}"
else
	teardown
	ixt_check "every cache line is back in the pool" ixt_pool_all_free
fi
ixt_check "the target's modules unload" ixt_target_unload
ixt_finish
