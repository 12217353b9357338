# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the iscsi_xt kselftests: KTAP output, requirements that
# SKIP with a reason, loading the module, and the kernel-log watch that
# fails a test whose run left a BUG, WARNING, Oops, KFENCE report, list
# corruption or hung task in the kernel log.
#
# The module is taken from $IXT_KO when set (the VM harness points it at
# the freshly built iscsi_xt.ko), else from the installed module tree.

ixt_libdir=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
# shellcheck source=/dev/null
. "$ixt_libdir/../../../kselftest/ktap_helpers.sh"

IXT_CFS=/sys/kernel/config/target
IXT_FABRIC=$IXT_CFS/iscsi
IXT_KLOG_MARK=
# How many times slower than Debian's kernel the kernel under test runs
# (make check-debug's: KASAN, lockdep, kmemleak under TCG): tests that
# hold a command for a time and check things while it is held scale
# that time by it, so the steps in between stay inside it, and so do
# the bounds on how long the target may keep a request waiting; the raw
# clients' timeouts too (ixt_iscsi.py reads it from the environment).
export IXT_SLOW=${IXT_SLOW:-1}

ixt_skip_all() {
	ktap_print_header
	ktap_skip_all "$*"
	exit "$KSFT_SKIP"
}

# ixt_skip_n N REASON: N subtests of the plan skipped, each for REASON
# (a transport this machine cannot run, say).
ixt_skip_n() {
	local i

	for ((i = 0; i < $1; i++)); do
		ktap_test_skip "$2"
	done
}

ixt_require_root() {
	[ "$(id -u)" -eq 0 ] || ixt_skip_all "needs root"
}

ixt_require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || ixt_skip_all "needs $c"
	done
}

ixt_require_module() {
	if [ -n "${IXT_KO:-}" ]; then
		[ -f "$IXT_KO" ] || ixt_skip_all "IXT_KO=$IXT_KO does not exist"
	else
		modinfo -n iscsi_xt >/dev/null 2>&1 ||
			ixt_skip_all "iscsi_xt is neither built (IXT_KO) nor installed"
	fi
	[ -d "$IXT_CFS" ] || modprobe target_core_mod ||
		ixt_skip_all "target_core_mod unavailable"
	mountpoint -q /sys/kernel/config ||
		ixt_skip_all "configfs is not mounted"
}

# An open-iscsi initiator on the VM's test network, with neither target
# module loaded: sets IXT_INITIATOR to its name. In the test VM (IXT_OUT
# set), an iscsi_xt still loaded is the leftover of a test before this
# one that ended early (killed at its timeout, its cleanup never run):
# it is cleared as that cleanup would have, and said, rather than
# skipping every test after it.
ixt_require_initiator() {
	ixt_require_cmd iscsiadm
	if ixt_loaded && [ -n "${IXT_OUT:-}" ]; then
		echo "# iscsi_xt is still loaded, left by a test that ended early: its sessions, configuration and module go"
		ixt_cleanup
	fi
	ixt_loaded && ixt_skip_all "iscsi_xt is already loaded"
	[ -d /sys/module/iscsi_target_mod ] &&
		ixt_skip_all "iscsi_target_mod is loaded"
	[ -n "${IXT_ADDR4_T:-}" ] ||
		ixt_skip_all "needs the VM test network (guest-env.sh)"
	pgrep -x iscsid >/dev/null || ixt_skip_all "needs iscsid"
	# iscsiadm locks its node records there, and fails without it.
	mkdir -p /run/lock/iscsi
	IXT_INITIATOR=$(sed -n 's/^InitiatorName=//p' /etc/iscsi/initiatorname.iscsi)
}

# The disks of the open-iscsi sessions, /dev/sdX one per line in LUN
# order, once COUNT of them exist (waiting up to 60 s: the VM is slow);
# fails otherwise. Like the guest environment's helper of the same name,
# which the tests cannot see: run_kselftest.sh starts each in a new shell.
ixt_session_disks() {
	local count=$1 disks i

	for ((i = 0; i < 300; i++)); do
		disks=$(iscsiadm -m session -P 3 2>/dev/null |
			awk '/Lun: / { lun = $NF } /Attached scsi disk/ { print lun, $4 }' |
			sort -n | awk '{ print "/dev/" $2 }' |
			while read -r d; do [ -b "$d" ] && echo "$d"; done)
		if [ -n "$disks" ] && [ "$(wc -l <<<"$disks")" -ge "$count" ]; then
			echo "$disks"
			return 0
		fi
		sleep 0.2
	done
	return 1
}

# ixt_target_disk TARGET LUN: the disk (/dev/sdX) of LUN of the open-iscsi
# session to TARGET, once it exists (waiting up to 60 s); fails otherwise.
ixt_target_disk() {
	local d i

	for ((i = 0; i < 300; i++)); do
		d=$(iscsiadm -m session -P 3 2>/dev/null |
			awk -v t="$1" -v l="$2" '
				/^Target: / { cur = $2 }
				/Lun: / { lun = $NF }
				/Attached scsi disk/ && cur == t && lun == l { print $4; exit }')
		[ -n "$d" ] && [ -b "/dev/$d" ] && echo "/dev/$d" && return 0
		sleep 0.2
	done
	return 1
}

# Loads null_blk with the parameters given, unloading first the one an
# earlier test may have left loaded with others.
ixt_null_blk() {
	if [ -d /sys/module/null_blk ]; then
		rmmod null_blk || return 1
	fi
	modprobe null_blk "$@"
}

# ixt_pool_field NAME: the figure NAME of iscsi_xt's cache-line pool
# (debugfs "pool": lines, free, exhausted, set_full...).
ixt_pool_field() {
	awk -v n="$1" '$1 == n { print $2 }' /sys/kernel/debug/iscsi_xt/pool
}

# ixt_cost_field NAME: the counter NAME of iscsi_xt's cost file (debugfs
# "cost": cmds, payload_bytes, copied_bytes, lines...).
ixt_cost_field() {
	awk -v n="$1" '$1 == n { print $2 }' /sys/kernel/debug/iscsi_xt/cost
}

# Resets iscsi_xt's cost file once the target is idle: once no command
# came in the second after a reset (up to 10 tries), so that what the
# kernel's scan of new disks still sends is not counted.
ixt_cost_reset() {
	local i

	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	for ((i = 0; i < 10; i++)); do
		echo 0 >/sys/kernel/debug/iscsi_xt/cost || return 1
		sleep 1
		[ "$(ixt_cost_field cmds)" = 0 ] && return 0
	done
	ktap_print_msg "cost: commands keep coming: $(tr '\n' ' ' </sys/kernel/debug/iscsi_xt/cost)"
	return 1
}

# ixt_cost_is NAME=VALUE...: whether each counter of the cost file has
# its VALUE; prints the file as a KTAP diagnostic when not.
ixt_cost_is() {
	local kv

	for kv in "$@"; do
		[ "$(ixt_cost_field "${kv%%=*}")" = "${kv#*=}" ] && continue
		ktap_print_msg "cost: ${kv%%=*} $(ixt_cost_field "${kv%%=*}"), expected ${kv#*=}; $(tr '\n' ' ' </sys/kernel/debug/iscsi_xt/cost)"
		return 1
	done
}

# Whether every cache line of iscsi_xt's pool is free, waiting up to 10 s
# for the network stack to let go of the pages of the last Data-In sent.
# Prints the pool's figures as a KTAP diagnostic when not.
ixt_pool_all_free() {
	local f=/sys/kernel/debug/iscsi_xt/pool i

	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	for ((i = 0; i < 50; i++)); do
		awk '/^lines/ {l = $2} /^free/ {f = $2} /^waiters/ {w = $2}
		     END {exit !(l > 0 && f == l && w == 0)}' "$f" && return 0
		sleep 0.2
	done
	ktap_print_msg "pool: $(tr '\n' ' ' <"$f")"
	return 1
}

ixt_loaded() {
	[ -d /sys/module/iscsi_xt ]
}

# insmod resolves no dependency: load those modinfo names first.
ixt_insmod_deps() {
	local dep

	for dep in $(modinfo -F depends "$1" | tr , ' '); do
		[ -d "/sys/module/$dep" ] || modprobe -q "$dep" || return 1
	done
}

ixt_load() {
	if [ -n "${IXT_KO:-}" ]; then
		ixt_insmod_deps "$IXT_KO" && insmod "$IXT_KO" "$@"
	else
		modprobe --ignore-install iscsi_xt "$@"
	fi
}

# Remove the fabric directory (it pins the module) and unload.
ixt_unload() {
	[ -d "$IXT_FABRIC" ] && rmdir "$IXT_FABRIC"
	rmmod iscsi_xt
}

# Kernel-log watch: ixt_begin writes a marker into the kernel log and
# arranges for ixt_klog_check to run as the last subtest; it reports every
# suspicious line logged after the marker: an Oops, a WARNING (lockdep's
# reports and DEBUG_OBJECTS' are WARNINGs too), a KASAN report ("BUG:
# KASAN: ..."), KFENCE's and UBSAN's, list corruption, a hung task, and
# lockdep finding a lock it was never told of. On a kernel with kmemleak
# (the debug kernel, scripts/debug-kernel.sh) it also scans for
# unreferenced objects: ixt_kmemleak_check.
ixt_klog_bad='(^|\] )(BUG[: ]|WARNING:|Oops|KFENCE: |UBSAN: |kernel BUG|general protection fault|INFO: task .* blocked for more than|INFO: trying to register non-static key|.*list_(add|del) corruption|.*list corruption|Kernel panic)'

ixt_begin() {
	local plan=$1

	ktap_print_header
	ktap_set_plan $((plan + 1))
	IXT_KLOG_MARK="ixt-selftest: begin $(basename "$0") $$ $RANDOM"
	echo "$IXT_KLOG_MARK" >/dev/kmsg
}

# ixt_klog_since_mark [MARK]: the kernel log from the line MARK on, the
# test's own start marker by default.
ixt_klog_since_mark() {
	dmesg | sed -n "/${1:-$IXT_KLOG_MARK}/,\$p"
}

# A warning of the initiator's side, not the target's: when open-iscsi
# removes a session, scsi_transport_iscsi's WQ_MEM_RECLAIM iscsi_ctrl
# workqueue may flush a runtime-PM work item of the SCSI target device
# (pm_runtime_work on the !WQ_MEM_RECLAIM pm workqueue), and the
# workqueue code warns once per boot. ixt_klog_check leaves it out when
# the kernel log names exactly that flush.
ixt_klog_known='workqueue: WQ_MEM_RECLAIM iscsi_ctrl_[0-9:]+:__iscsi_unbind_session \[scsi_transport_iscsi\] is flushing !WQ_MEM_RECLAIM pm:pm_runtime_work'

ixt_klog_check() {
	local log bad

	log=$(ixt_klog_since_mark)
	if [ -z "$log" ]; then
		ktap_print_msg "the kernel log lost the test's start marker"
		ktap_test_fail "kernel log clean"
		return
	fi
	if grep -qE "$ixt_klog_known" <<<"$log"; then
		ktap_print_msg "initiator-side warning left out: $(grep -oE "$ixt_klog_known" <<<"$log" | head -n 1)"
		log=$(grep -v 'WARNING: .* at kernel/workqueue.c:[0-9]* check_flush_dependency' <<<"$log")
	fi
	bad=$({ grep -E "$ixt_klog_bad" <<<"$log" | head -n 20
		ixt_kmemleak_check; })
	if [ -n "$bad" ]; then
		while read -r line; do
			ktap_print_msg "klog: $line"
		done <<<"$bad"
		ktap_test_fail "kernel log clean"
	else
		ktap_test_pass "kernel log clean"
	fi
}

# ixt_kmemleak_check: on a kernel with kmemleak, the objects it finds
# unreferenced now, a header and a backtrace's first lines each, then
# forgotten (cleared), so that the next test reports only its own. Objects
# younger than kmemleak's minimum age (5 s) wait for a later scan: hence
# the pause. Nothing on a kernel without kmemleak.
ixt_kmemleak_check() {
	local f=/sys/kernel/debug/kmemleak

	mountpoint -q /sys/kernel/debug ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	[ -w "$f" ] || return 0
	sleep 6
	echo scan >"$f" 2>/dev/null || return 0
	awk '/^unreferenced object/ { n++; k = 0 }
	     n && n <= 5 && k++ < 12 { print "kmemleak: " $0 }' "$f"
	echo clear >"$f"
}

ixt_finish() {
	ixt_klog_check
	ktap_finished
}

# ixt_check DESCRIPTION COMMAND...: one subtest from a command's status.
ixt_check() {
	local desc=$1

	shift
	if "$@"; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
	fi
}

# ixt_fio_verify DISK OFFSET KIB BS IODEPTH [FIO-OPTION...]: random writes
# of BS over KIB KiB from OFFSET of DISK, libaio, O_DIRECT, each block read
# back with its CRC32C checked (fatal at the first mismatch); fails on any
# error, a non-zero exit, or unless KIB KiB were written and read back,
# printing fio's findings. Each run takes the next seed after
# $ixt_fio_seed.
ixt_fio_seed=$((0x1c5e0000 + RANDOM))
ixt_fio_verify() {
	local dev=$1 off=$2 kib=$3 bs=$4 qd=$5 out rc err rkib wkib line

	shift 5
	ixt_fio_seed=$((ixt_fio_seed + 1))
	out=$(timeout $((300 * IXT_SLOW)) fio --name=ixt --filename="$dev" --ioengine=libaio \
		--direct=1 --rw=randwrite --bs="$bs" --iodepth="$qd" \
		--offset="$off" --size="${kib}k" --randseed=$ixt_fio_seed \
		--verify=crc32c --do_verify=1 --verify_fatal=1 \
		--verify_state_save=0 "$@" \
		--output-format=terse --terse-version=3 2>&1)
	rc=$?
	# Terse version 3: field 5 is the error, 6 KiB read, 47 KiB written.
	read -r err rkib wkib < <(awk -F';' '$1 == 3 { print $5, $6, $47 }' <<<"$out")
	[ "$rc" -eq 0 ] && [ "$err" = 0 ] && [ "$rkib" = "$kib" ] &&
		[ "$wkib" = "$kib" ] && return 0
	ktap_print_msg "fio on $dev bs=$bs iodepth=$qd offset=$off size=${kib}k randseed=$ixt_fio_seed: exit $rc, error ${err:-?}, ${wkib:-?} KiB written, ${rkib:-?} KiB verified"
	grep -v '^3;' <<<"$out" | head -n 20 | while read -r line; do
		ktap_print_msg "fio: $line"
	done
	return 1
}

# The fuzzer tests' steps (mutate.sh, statefuzz.sh): a LUN of LUN_MIB MiB
# written with a random PATTERN file, a fuzzer writing only to its blocks
# [FUZZ_MIB, FUZZ_END_MIB) MiB, then the pattern checked outside them.

# ixt_logout IFACE TARGET PORTAL: open-iscsi logged out of TARGET at
# PORTAL through IFACE, its node record deleted.
ixt_logout() {
	ixt_node "$1" "$2" "$3" --logout
	ixt_node "$1" "$2" "$3" -o delete
}

# ixt_pattern_written DISK PATTERN: the whole of PATTERN written over DISK.
ixt_pattern_written() {
	dd if="$2" of="$1" bs=1M oflag=direct conv=fsync status=none
}

# ixt_pattern_kept DISK PATTERN LUN_MIB FUZZ_MIB FUZZ_END_MIB: DISK's
# LUN_MIB MiB hold PATTERN outside [FUZZ_MIB, FUZZ_END_MIB) MiB (read back
# into $IXT_WORK/back); fails when DISK is no block device.
ixt_pattern_kept() {
	local disk=$1 pattern=$2 back=$IXT_WORK/back

	[ -b "$disk" ] || return 1
	dd if="$disk" of="$back" bs=1M count="$3" iflag=direct \
		status=none || return 1
	cmp -n $(($4 << 20)) "$pattern" "$back" &&
		cmp -i $(($5 << 20)) "$pattern" "$back"
}

# ixt_fio_verified DISK FIO_MIB: ixt_fio_verify's 8 MiB of random 64 KiB
# writes at FIO_MIB MiB of DISK, verified; fails when DISK is no block
# device.
ixt_fio_verified() {
	[ -b "$1" ] && ixt_fio_verify "$1" "${2}M" 8192 64k 8
}

# ixt_fuzz SCRIPT TARGET SEED SECONDS FUZZ_MIB FUZZ_END_MIB [ARG...]: the
# fuzzer SCRIPT (ixt_mutate.py, ixt_statefuzz.py) run against TARGET at
# $IXT_ADDR4_T with SEED for SECONDS, writing to [FUZZ_MIB, FUZZ_END_MIB)
# MiB, with the ARGs added; given SECONDS + 120 s at most. Its output is
# shown as KTAP diagnostics, and kept in $IXT_WORK/fuzz.out; fails if it
# broke.
ixt_fuzz() {
	local script=$1 tgt=$2 seed=$3 seconds=$4 from=$5 to=$6 out rc line

	shift 6
	out=$(timeout $((seconds + 120)) "$ixt_py" "$ixt_libdir/$script" \
		--target "$tgt" --host "$IXT_ADDR4_T" \
		--seed "$seed" --seconds "$seconds" \
		--lba-range $((from << 11)):$((to << 11)) \
		"$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" >"$IXT_WORK/fuzz.out"
	while read -r line; do
		ktap_print_msg "$line"
	done <<<"$out"
	[ "$rc" -eq 0 ]
}

# ixt_cell_kib KIB BS: the KiB a matrix cell of BS requests moves: KIB on
# Debian's kernel, KIB / IXT_SLOW on a slower one (the debug kernel), in
# whole requests, at least four (KIB at most). A cell's worth lies in
# its paths (request size, depth, settings), which the debug kernel
# watches at every access whatever the volume; the full volume there
# took iser_data.sh past an hour.
ixt_cell_kib() {
	local kib=$1 g n

	g=$(($(numfmt --from=iec "${2^^}") / 1024))
	[ "$g" -ge 1 ] || g=1
	n=$((kib / IXT_SLOW / g * g))
	[ "$n" -ge $((4 * g)) ] || n=$((4 * g))
	[ "$n" -le "$kib" ] || n=$kib
	echo "$n"
}

# ixt_fio_cell LUN BS IODEPTH KIB: ixt_fio_verify of BS at IODEPTH over
# KIB KiB (8 MiB at most; ixt_cell_kib scales it on a slow kernel) at the
# start of the next unused 8 MiB region of LUN, whose disk is the
# caller's ${disk[LUN]} and next region its ${region[LUN]}.
ixt_fio_cell() {
	local lun=$1

	ixt_fio_verify "${disk[$lun]}" "$((region[lun]++ * 8))M" \
		"$(ixt_cell_kib "$4" "$2")" "$2" "$3"
}

# ixt_negotiated "Key: Value"...: iscsiadm shows each of them for the
# open-iscsi session; prints what it shows instead when not.
ixt_negotiated() {
	local p kv

	p=$(iscsiadm -m session -P2 2>/dev/null)
	for kv in "$@"; do
		grep -qx "[[:space:]]*$kv" <<<"$p" && continue
		ktap_print_msg "want $kv, have: $(grep -m1 "^[[:space:]]*${kv%%:*}:" <<<"$p" | tr -d '\t')"
		return 1
	done
}

# ixt_write_tree DIR SUMS: a tree of some 24 MiB under DIR/tree, one file
# of 12 MiB and two hundred smaller ones, half in nested directories;
# their sha256 sums go to SUMS, for "sha256sum -c" from DIR.
ixt_write_tree() {
	local dir=$1 sums=$2 i

	mkdir -p "$dir/tree/big" "$dir/tree/small/a/b" || return 1
	head -c 12M /dev/urandom >"$dir/tree/big/12M.bin" || return 1
	for ((i = 1; i <= 100; i++)); do
		head -c $((i * 997)) /dev/urandom >"$dir/tree/small/f$i"
		head -c $((i * 1499)) /dev/urandom >"$dir/tree/small/a/b/g$i"
	done
	(cd "$dir" && find tree -type f -exec sha256sum {} + | sort -k2) >"$sums"
	[ "$(wc -l <"$sums")" -eq 201 ]
}

# ixt_show_tail FILE: the end of a command's output, as KTAP diagnostics.
ixt_show_tail() {
	local line

	tail -n 20 "$1" | while read -r line; do
		ktap_print_msg "$line"
	done
}

# ixt_tcli DIR: one targetcli run for a whole script read from standard
# input, with preferences of its own in DIR (no default portal, no saving
# at exit), its output appended to DIR/targetcli.log. One run costs some
# 10 s in the VM: batch the commands.
ixt_tcli() {
	{
		echo "set global auto_save_on_exit=false auto_add_default_portal=false"
		cat
		echo "exit"
	} | TARGETCLI_HOME=$1/targetcli targetcli >>"$1/targetcli.log" 2>&1
}

# ixt_mini_modtree BASE MODULE...: a module tree under BASE for the
# running kernel (BASE/lib/modules/KVER) holding only the dependency
# closure of the MODULEs, the builtin lists and the link to the kernel's
# headers, with its depmod files: under emulation depmod's scan of the
# whole tree takes minutes, and make install and DKMS run it. Tests
# bind-mount it over the real tree while they install into it.
ixt_mini_modtree() {
	local base=$1 kver moddir tree f m

	shift
	kver=$(uname -r)
	moddir=/lib/modules/$kver
	tree=$base$moddir
	mkdir -p "$tree" &&
		cp "$moddir"/modules.builtin* "$moddir/modules.order" "$tree/" ||
		return 1
	# The kernel tree make install runs modules_install in: the module
	# tree's own (the debug kernel's), else Debian's headers.
	if [ -e "$moddir/build" ]; then
		cp -P "$moddir/build" "$tree/build"
	elif [ -d "/usr/src/linux-headers-$kver" ]; then
		ln -s "/usr/src/linux-headers-$kver" "$tree/build"
	fi
	for m in "$@"; do
		modprobe --ignore-install --show-depends "$m"
	done | awk '$1 == "insmod" { print $2 }' | sort -u | while read -r f; do
		mkdir -p "$(dirname "$tree/${f#"$moddir"/}")"
		cp "$f" "$tree/${f#"$moddir"/}"
	done
	depmod -b "$base" "$kver"
}

# ixt_sessions_gone SECONDS: within SECONDS the module lists no session
# (its debugfs "sessions" file only its header); prints those left
# otherwise.
ixt_sessions_gone() {
	local f=/sys/kernel/debug/iscsi_xt/sessions

	ixt_wait "$1" eval '[ "$(wc -l <"$f")" -eq 1 ]' && return 0
	ktap_print_msg "sessions left: $(tail -n +2 "$f" | tr '\n' ';')"
	return 1
}

# ixt_saveconfig_canon FILE [FABRIC]: the configuration targetcli saved
# in FILE (or only FABRIC's targets and fabric module) in a canonical
# order: keys and lists sorted (rtslib lists TPGs, LUNs and ACLs in
# directory order, which a restore may change), without the LUN aliases
# (random names rtslib gives the links).
ixt_saveconfig_canon() {
	python3 -c '
import json, sys
def canon(x):
    if isinstance(x, dict):
        return {k: canon(v) for k, v in x.items() if k != "alias"}
    if isinstance(x, list):
        return sorted((canon(v) for v in x), key=lambda v: json.dumps(v, sort_keys=True))
    return x
cfg = json.load(open(sys.argv[1]))
if len(sys.argv) > 2:
    cfg = {"targets": [t for t in cfg.get("targets", []) if t.get("fabric") == sys.argv[2]],
           "fabric_modules": [f for f in cfg.get("fabric_modules", []) if f.get("name") == sys.argv[2]]}
print(json.dumps(canon(cfg), sort_keys=True, indent=1))' "$@"
}

# ixt_daemon COMMAND [ARG...]: exec COMMAND with no descriptor above 2 (in
# a subshell: it replaces the shell that calls it),
# for a process that outlives the command that started it (iscsid,
# a targetcli shell): those it would inherit include the test harness's
# output pipes, which would then never close.
ixt_daemon() {
	local fd

	for fd in /proc/"$BASHPID"/fd/*; do
		fd=${fd##*/}
		[ "$fd" -gt 2 ] && eval "exec $fd>&-"
	done
	exec "$@"
}

# A targetcli shell kept open, as an admin keeps one, so that each command
# runs at once (a start costs some 10 s in the VM). ixt_tcli_open DIR
# starts it, with preferences of its own in DIR (no default portal, no
# saving at exit), reading its commands from the FIFO DIR/in, its output
# appended to DIR/targetcli.log. ixt_tcli_do SECONDS COMMAND... sends the
# COMMANDs and waits up to SECONDS (times IXT_SLOW: targetcli's start
# outlasted 120 s on the debug kernel) for the shell to have run them: each
# call ends with a harmless preference change (tree_max_depth, to a value
# of its own) whose confirmation marks the end; fails if it does not come
# in time (a command hangs). The COMMANDs' effects are the caller's to
# check. ixt_tcli_close ends the shell.
ixt_tcli_open() {
	mkdir -p "$1" && rm -f "$1/in" && mkfifo "$1/in" || return 1
	IXT_TCLI_DIR=$1
	IXT_TCLI_N=0
	PYTHONUNBUFFERED=1 TARGETCLI_HOME=$1/targetcli \
		ixt_daemon targetcli <"$1/in" >>"$1/targetcli.log" 2>&1 &
	IXT_TCLI_PID=$!
	exec {IXT_TCLI_FD}>"$1/in"
	ixt_tcli_do 120 "set global auto_save_on_exit=false auto_add_default_portal=false"
}

ixt_tcli_do() {
	local secs=$(($1 * IXT_SLOW)) c mark

	shift
	IXT_TCLI_N=$((IXT_TCLI_N + 1))
	mark="tree_max_depth is now '$((IXT_TCLI_N + 1000))'"
	for c in "$@"; do
		echo "$c" >&"$IXT_TCLI_FD"
	done
	echo "set global tree_max_depth=$((IXT_TCLI_N + 1000))" >&"$IXT_TCLI_FD"
	ixt_wait "$secs" grep -qF "$mark" "$IXT_TCLI_DIR/targetcli.log" && return 0
	ktap_print_msg "targetcli did not finish within $secs s: $*"
	return 1
}

ixt_tcli_close() {
	[ -n "${IXT_TCLI_PID:-}" ] || return 0
	echo exit >&"$IXT_TCLI_FD"
	exec {IXT_TCLI_FD}>&-
	timeout 30 tail --pid="$IXT_TCLI_PID" -f /dev/null ||
		kill "$IXT_TCLI_PID"
	wait "$IXT_TCLI_PID" 2>/dev/null
	IXT_TCLI_PID=
}

# ixt_rd_lun0 TPG RD PAGES: the ramdisk backstore RD of PAGES pages, LUN 0
# of TPG.
ixt_rd_lun0() {
	mkdir -p "$2" && echo "rd_pages=$3" >"$2/control" &&
		echo 1 >"$2/enable" &&
		mkdir -p "$1/lun/lun_0" && ln -s "$2" "$1/lun/lun_0/rd"
}

# ixt_data_target TPG RD IB RD_PAGES PORTAL [ISER]: the target of the data
# tests: TPG in demo mode (no authentication, writable), LUN 0 on the
# ramdisk backstore RD of RD_PAGES pages, LUN 1 on the iblock backstore
# IB over /dev/nullb0, a portal on PORTAL serving iSER too when ISER is 1,
# enabled.
ixt_data_target() {
	local tpg=$1 rd=$2 ib=$3 pages=$4 portal=$5 iser=${6:-0}

	ixt_rd_lun0 "$tpg" "$rd" "$pages" &&
		mkdir -p "$ib" && echo udev_path=/dev/nullb0 >"$ib/control" &&
		echo 1 >"$ib/enable" &&
		mkdir -p "$tpg/lun/lun_1" && ln -s "$ib" "$tpg/lun/lun_1/nb" &&
		ixt_demo_tpg "$tpg" "$portal" "$iser"
}

# ixt_demo_tpg TPG PORTAL [ISER]: a portal on PORTAL (serving iSER too
# when ISER is 1), demo mode (no authentication, writable), and TPG
# enabled; its LUNs are the caller's.
ixt_demo_tpg() {
	mkdir "$1/np/$2" && { [ "${3:-0}" = 0 ] || echo 1 >"$1/np/$2/iser"; } &&
		echo 0 >"$1/attrib/authentication" &&
		echo 1 >"$1/attrib/generate_node_acls" &&
		echo 0 >"$1/attrib/demo_mode_write_protect" &&
		echo 1 >"$1/enable"
}

# ixt_wait SECONDS COMMAND...: run COMMAND every half second until it
# succeeds (status 0) or SECONDS have passed (status 1).
ixt_wait() {
	local end=$((SECONDS + $1))

	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.5
	done
}

# Every slab cache shrunk: per-CPU slabs flushed, so that counts are
# exact, and the objects KASAN holds in its quarantine freed (allocated
# to SLUB's eyes, and in alloc_traces, until it recycles them: thousands
# after a test on the debug kernel).
ixt_slab_shrink() {
	local f

	for f in /sys/kernel/slab/*/shrink; do
		echo 1 >"$f"
	done 2>/dev/null
}

# Active objects of the slab caches the module allocates from (the kmalloc
# caches, and any cache of its own, named ixt_*), after flushing per-CPU
# slabs so that the counts are exact: "name count" lines, sorted by name.
# Caches of processes and files (vm_area_struct, dentry...) move with
# whatever else the system does and would only add noise.
ixt_slab_snapshot() {
	ixt_slab_shrink
	awk 'NR > 2 && $1 ~ /^(kmalloc-|ixt_)/ { print $1, $2 }' /proc/slabinfo |
		sort
}

# ixt_slab_growth BEFORE AFTER LIMIT: print the caches that grew by LIMIT
# objects or more; succeed when there are none.
ixt_slab_growth() {
	join "$1" "$2" | awk -v limit="$3" '
		$3 - $2 >= limit { print $1, "+" ($3 - $2); grown = 1 }
		END { exit grown }'
}

# Faults under IO: what the tests that strike while fio writes share
# (tcp_faults.sh, iser_faults.sh).

# ixt_work: make the test's scratch folder $IXT_WORK, once; ixt_work_rm,
# from the test's EXIT trap, stops an fio loop still running and removes
# the folder.
IXT_WORK=
IXT_FIO_LOOP=
ixt_work() {
	[ -n "$IXT_WORK" ] && [ -d "$IXT_WORK" ] && return 0
	IXT_WORK=$(mktemp -d)
}

ixt_work_rm() {
	ixt_fio_loop_stop
	[ -n "$IXT_WORK" ] && rm -rf "$IXT_WORK"
	IXT_WORK=
}

# ixt_iser_res: the RDMA resources iscsi_xt_iser holds, by kind: "pd N cq
# N ...". (Counting every resource would count the CQ pool that ib_iser's
# connections leave in rxe0 until the device goes.)
ixt_iser_res() {
	local k

	for k in pd cq qp cm_id mr; do
		echo "$k $(rdma res show "$k" 2>/dev/null | grep -cF '[iscsi_xt_iser]')"
	done | paste -sd ' '
}

# ixt_cleanup: what a test's EXIT trap undoes: every open-iscsi session
# logged out (by session: "--logoutall" skips a session whose node record
# is gone, and "ixt_login default T P" deletes T at P of every iface) and
# node record deleted, the configuration cleared, the
# target unloaded, the work folder removed.
ixt_cleanup() {
	iscsiadm -m session -u
	iscsiadm -m node -o delete
	[ -d "$IXT_FABRIC" ] && ixt_cfs_clear
	ixt_target_unload
	ixt_work_rm
} >/dev/null 2>&1

# ixt_rw_1m DISK_W DISK_R MIB: 1 MiB of random data written to DISK_W at
# MIB MiB with O_DIRECT reads back equal from DISK_R (the same LUN, seen
# through the same or another session) with O_DIRECT.
ixt_rw_1m() {
	ixt_work || return 1
	head -c 1M /dev/urandom >"$IXT_WORK/rw.out" &&
		dd if="$IXT_WORK/rw.out" of="$1" bs=1M seek="$3" count=1 \
			oflag=direct conv=fsync status=none &&
		dd if="$2" of="$IXT_WORK/rw.in" bs=1M skip="$3" count=1 \
			iflag=direct status=none &&
		cmp "$IXT_WORK/rw.out" "$IXT_WORK/rw.in"
}

# ixt_accepts TARGET: the logins TARGET accepted.
ixt_accepts() {
	cat "$IXT_FABRIC/$1/fabric_statistics/iscsi_login_stats/accepts"
}

# ixt_logins_counted TARGET N: TARGET counted N logins and N normal
# logouts.
ixt_logins_counted() {
	local s=$IXT_FABRIC/$1/fabric_statistics

	[ "$(ixt_accepts "$1")" -eq "$2" ] &&
		[ "$(cat "$s/iscsi_logout_stats/normal_logouts")" -eq "$2" ]
}

# ixt_sess_logged_in TARGET: an open-iscsi session to TARGET is logged in.
ixt_sess_logged_in() {
	local s

	for s in /sys/class/iscsi_session/session*; do
		[ "$(cat "$s/targetname" 2>/dev/null)" = "$1" ] &&
			[ "$(cat "$s/state" 2>/dev/null)" = LOGGED_IN ] && return 0
	done
	return 1
}

# ixt_relogged TARGET N: wait (up to 60 s) until TARGET has accepted N
# logins and the initiator's session to it is logged in.
ixt_relogged() {
	local i t0=$SECONDS

	for ((i = 0; i < 300; i++)); do
		if [ "$(ixt_accepts "$1")" -ge "$2" ] && ixt_sess_logged_in "$1"; then
			ktap_print_msg "$1 logged in again after $((SECONDS - t0)) s"
			return 0
		fi
		sleep 0.2
	done
	ktap_print_msg "$1: $(ixt_accepts "$1") logins accepted, want $2"
	return 1
}

# ixt_fio_verify_64k DISK OFFSET SIZE: ixt_fio_verify of 64 KiB writes
# over SIZE (numfmt --from=iec: 8M) at OFFSET of DISK, iodepth 8, each
# batch of 16 read back while later ones are written.
ixt_fio_verify_64k() {
	ixt_fio_verify "$1" "$2" "$(($(numfmt --from=iec "$3") / 1024))" 64k 8 \
		--verify_backlog=16
}

# ixt_fio_loop DISK: ixt_fio_verify_64k on DISK's first 8 MiB again and
# again, each run with another seed, until $IXT_WORK/stop exists or a
# run fails. ixt_fio_loop_start runs it in the background, its output
# to a file; ixt_fio_loop_end stops it after its current run and shows
# that output, with the loop's status.
ixt_fio_loop() {
	local runs=0

	until [ -e "$IXT_WORK/stop" ]; do
		runs=$((runs + 1))
		ixt_fio_verify_64k "$1" 0 8M || {
			ktap_print_msg "fio run $runs on $1 failed"
			return 1
		}
	done
	ktap_print_msg "fio on $1: $runs runs verified"
}

ixt_fio_loop_start() {
	ixt_work || return 1
	rm -f "$IXT_WORK/stop"
	ixt_fio_loop "$1" >"$IXT_WORK/fio.log" 2>&1 &
	IXT_FIO_LOOP=$!
	# The loop takes its seeds in a subshell: the next loop, other ones.
	ixt_fio_seed=$((ixt_fio_seed + 1000))
}

ixt_fio_loop_end() {
	local rc

	touch "$IXT_WORK/stop"
	wait "$IXT_FIO_LOOP"
	rc=$?
	IXT_FIO_LOOP=
	cat "$IXT_WORK/fio.log"
	return $rc
}

# ixt_fio_loop_stop: stop a loop still running, quietly (EXIT traps).
ixt_fio_loop_stop() {
	[ -n "$IXT_FIO_LOOP" ] || return 0
	touch "$IXT_WORK/stop"
	wait "$IXT_FIO_LOOP" 2>/dev/null
	IXT_FIO_LOOP=
}

# ixt_writing DISK: wait (up to 60 s) until DISK has written 1 MiB more,
# so that a fault strikes IO in flight.
ixt_writing() {
	local s=/sys/block/${1#/dev/}/stat w0 i

	w0=$(awk '{ print $7 }' "$s")
	for ((i = 0; i < 300; i++)); do
		[ "$(awk '{ print $7 }' "$s")" -ge $((w0 + 2048)) ] && return 0
		sleep 0.2
	done
	ktap_print_msg "no write on $1 for 60 s"
	return 1
}

# ixt_timed_write VALUE FILE: write VALUE into FILE and wait up to 60 s
# for the write to return; sets IXT_TOOK_MS. Fails if it failed or did
# not return.
IXT_TOOK_MS=0
ixt_timed_write() {
	local t0 pid i

	t0=$(date +%s%N)
	(echo "$1" >"$2") &
	pid=$!
	for ((i = 0; i < 600; i++)); do
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	IXT_TOOK_MS=$((($(date +%s%N) - t0) / 1000000))
	if kill -0 $pid 2>/dev/null; then
		ktap_print_msg "echo $1 >${2#"$IXT_FABRIC"/} still blocked after ${IXT_TOOK_MS} ms"
		return 1
	fi
	wait $pid
}

# ixt_disabled_in_time RC: the ixt_timed_write of status RC succeeded
# within 5 s.
ixt_disabled_in_time() {
	[ "$1" -eq 0 ] && [ "$IXT_TOOK_MS" -le 5000 ]
}

# ixt_no_io_error: no I/O error reached a block device since the start
# (the kernel log); prints the first ones otherwise.
ixt_no_io_error() {
	local bad line

	bad=$(ixt_klog_since_mark | grep -E "I/O error|critical medium error" | head -n 5)
	[ -z "$bad" ] && return 0
	while read -r line; do
		ktap_print_msg "klog: $line"
	done <<<"$bad"
	return 1
}

# ixt_klog_count PATTERN: kernel log lines with PATTERN since the start.
ixt_klog_count() {
	ixt_klog_since_mark | grep -c "$1"
}

# ixt_klog_grew PATTERN N...: the kernel log has at least N lines with
# PATTERN since the start, for each pair.
ixt_klog_grew() {
	local n

	while [ $# -ge 2 ]; do
		n=$(ixt_klog_count "$1")
		[ "$n" -ge "$2" ] ||
			{ ktap_print_msg "klog: $n lines of \"$1\", want $2"; return 1; }
		shift 2
	done
}

# ixt_rmmod_refused MODULE: rmmod MODULE fails and leaves it loaded.
ixt_rmmod_refused() {
	! rmmod "$1" 2>/dev/null && [ -d "/sys/module/$1" ]
}

# iSER. The iSER tests run against one of two targets, chosen by
# $IXT_TARGET:
#   xt   (the default) iscsi_xt with its iSER transport, iscsi_xt_iser.ko,
#        taken from beside $IXT_KO (else the installed module);
#   lio  LIO's iscsi_target_mod + ib_isert, the reference the tests were
#        proved against.
# The initiator is open-iscsi's iser iface (ib_iser) on the VM's soft-RoCE
# device rxe0.
IXT_TARGET=${IXT_TARGET:-xt}

# The iSER module of iscsi_xt: beside $IXT_KO, else the installed one.
ixt_iser_ko() {
	if [ -n "${IXT_KO:-}" ]; then
		echo "${IXT_KO%/*}/iscsi_xt_iser.ko"
	else
		modinfo -n iscsi_xt_iser 2>/dev/null
	fi
}

# ixt_require_pyverbs: rdma-core's Python bindings (python3-pyverbs) for
# $ixt_py, Debian's python3 (the host's python3 may be another one,
# pyenv's, without them), and the modules user-space RDMA CM and verbs
# need; or SKIP. For the raw iSER initiator and RDMA CM probes.
ixt_py=/usr/bin/python3
ixt_require_pyverbs() {
	local m

	"$ixt_py" -c 'import pyverbs.cmid' 2>/dev/null ||
		ixt_skip_all "needs rdma-core's pyverbs for $ixt_py (python3-pyverbs)"
	for m in ib_uverbs rdma_ucm; do
		modprobe -q $m || ixt_skip_all "needs $m (RDMA from user space)"
	done
}

# ixt_use_siw: soft-iWARP siw0 on veth0 instead of soft-RoCE rxe0, one
# RDMA device per address (with two the RDMA CM's choice is ambiguous).
# siw.ko is what scripts/setup.sh built ($IXT_SIW_KO, set by the VM's
# environment): Debian's kernel has no siw. ixt_use_rxe brings rxe0 back.
ixt_use_siw() {
	[ -f "${IXT_SIW_KO:-}" ] || return 1
	if [ ! -d /sys/module/siw ]; then
		ixt_insmod_deps "$IXT_SIW_KO" && insmod "$IXT_SIW_KO" || return 1
	fi
	rdma link delete rxe0 2>/dev/null
	[ -d /sys/class/infiniband/siw0 ] ||
		rdma link add siw0 type siw netdev veth0
}

ixt_use_rxe() {
	rdma link delete siw0 2>/dev/null
	[ -d /sys/class/infiniband/rxe0 ] ||
		rdma link add rxe0 type rxe netdev veth0
}

# The target's modules, the fabric module last: the order rmmod needs.
ixt_target_modules() {
	case $IXT_TARGET in
	lio)	echo ib_isert iscsi_target_mod ;;
	*)	echo iscsi_xt_iser iscsi_xt ;;
	esac
}

# What an iSER test needs besides ixt_require_initiator: the target's
# modules (SKIP for IXT_TARGET=xt while iscsi_xt_iser.ko is not built),
# an RDMA device and the iSER initiator.
ixt_require_iser() {
	local ko

	case $IXT_TARGET in
	xt)
		ixt_require_module
		ko=$(ixt_iser_ko)
		if [ -z "$ko" ] || [ ! -f "$ko" ]; then
			ixt_skip_all "iscsi_xt's iSER transport is not built (${ko:-no iscsi_xt_iser module}); IXT_TARGET=lio runs this test on LIO"
		fi
		;;
	lio)
		if ! modinfo -n iscsi_target_mod ib_isert >/dev/null 2>&1; then
			ixt_skip_all "LIO's iscsi_target_mod and ib_isert are not available"
		fi
		[ -d "$IXT_CFS" ] || modprobe target_core_mod ||
			ixt_skip_all "target_core_mod unavailable"
		mountpoint -q /sys/kernel/config ||
			ixt_skip_all "configfs is not mounted"
		;;
	*)
		ixt_skip_all "IXT_TARGET=$IXT_TARGET: xt or lio expected"
		;;
	esac
	ls /sys/class/infiniband/*/ports >/dev/null 2>&1 ||
		ixt_skip_all "needs an RDMA device (soft-RoCE rxe0: guest-env.sh)"
	ixt_require_cmd rdma
	modprobe -q ib_iser || ixt_skip_all "the iSER initiator ib_iser is unavailable"
}

# ixt_iser_missing: why iscsi_xt's iSER cannot run here (its module not
# built, no RDMA device, no iSER initiator), or nothing when it can.
ixt_iser_missing() {
	local ko

	ko=$(ixt_iser_ko)
	[ -n "$ko" ] && [ -f "$ko" ] ||
		{ echo "iscsi_xt_iser is not built"; return; }
	ls /sys/class/infiniband/*/ports >/dev/null 2>&1 ||
		{ echo "no RDMA device"; return; }
	modprobe -q ib_iser || echo "no iSER initiator (ib_iser)"
}

# ixt_iser_raw_missing: why the raw iSER initiator (ixt_iser_raw.py, over
# pyverbs) cannot reach the target under test here (iscsi_xt's iSER
# transport, or LIO's ib_isert with IXT_TARGET=lio), or nothing when it can.
ixt_iser_raw_missing() {
	local ko

	if [ "$IXT_TARGET" = lio ]; then
		modinfo -n ib_isert >/dev/null 2>&1 ||
			{ echo "LIO's ib_isert is not available"; return; }
	else
		ko=$(ixt_iser_ko)
		[ -n "$ko" ] && [ -f "$ko" ] ||
			{ echo "iscsi_xt_iser is not built"; return; }
	fi
	ls /sys/class/infiniband/*/ports >/dev/null 2>&1 ||
		{ echo "no RDMA device"; return; }
	"$ixt_py" -c 'import pyverbs.cmid' 2>/dev/null ||
		{ echo "no pyverbs for $ixt_py"; return; }
	modprobe -q ib_uverbs && modprobe -q rdma_ucm ||
		echo "no RDMA from user space (ib_uverbs, rdma_ucm)"
}

# iscsi_xt and its iSER transport, after the RDMA modules it needs.
ixt_insmod_iser() {
	local ko

	modprobe rdma_cm && modprobe ib_core || return 1
	ixt_loaded || ixt_load || return 1
	if [ -n "${IXT_KO:-}" ]; then
		ko=$(ixt_iser_ko)
		ixt_insmod_deps "$ko" && insmod "$ko"
	else
		modprobe --ignore-install iscsi_xt_iser
	fi
}

# Load the target chosen by $IXT_TARGET, iSER included.
ixt_target_load() {
	case $IXT_TARGET in
	lio)
		modprobe --ignore-install iscsi_target_mod &&
			modprobe --ignore-install ib_isert
		;;
	*)
		ixt_insmod_iser
		;;
	esac
}

# Remove the fabric directory (it pins the fabric module) and unload the
# target's modules; succeeds when none of them is left.
ixt_target_unload() {
	local m

	[ -d "$IXT_FABRIC" ] && rmdir "$IXT_FABRIC"
	for m in $(ixt_target_modules); do
		[ -d "/sys/module/$m" ] && rmmod "$m"
	done
	for m in $(ixt_target_modules); do
		[ ! -d "/sys/module/$m" ] || return 1
	done
}

# ixt_node IFACE TARGET PORTAL ISCSIADM-ARG...: iscsiadm on the node
# record of TARGET at PORTAL bound to IFACE ("default": TCP; "iser"),
# quietly. Records of one target and portal through different ifaces are
# different records, and each can have its session.
ixt_node() {
	local iface=$1 t=$2 p=$3

	shift 3
	iscsiadm -m node -T "$t" -p "$p" -I "$iface" "$@" >/dev/null 2>&1
}

# ixt_login IFACE TARGET PORTAL [NAME=VALUE...]: a fresh node record of
# TARGET at PORTAL through IFACE, with one login attempt (a refusal comes
# back at once) and the settings given, and log in; returns iscsiadm's
# status (24: authentication or authorization failure).
#
# libiscsi (6.12) hands a Login Response to iscsid (netlink RECV_PDU)
# before it frees the login task that response completes; when iscsid
# sends its next Login Request in between, on another vCPU, the kernel
# refuses it ("Login/Text in progress. Cannot start new task.") and the
# login times out. iscsid sends a request only once it holds the answer
# to the one before, so the message proves the target answered: an
# initiator race (seen in iser_login.sh's mutual CHAP login under TCG)
# that no target can avoid. A login that failed with that message in
# the log runs once more, the retry logged.
ixt_login() {
	local iface=$1 t=$2 p=$3 kv mark rc

	shift 3
	ixt_node "$iface" "$t" "$p" -o delete
	ixt_node "$iface" "$t" "$p" -o new || return
	ixt_node "$iface" "$t" "$p" -o update \
		-n node.session.initial_login_retry_max -v 1 || return
	for kv in "$@"; do
		ixt_node "$iface" "$t" "$p" -o update \
			-n "${kv%%=*}" -v "${kv#*=}" || return
	done
	mark="ixt-login: $$ $RANDOM"
	echo "$mark" >/dev/kmsg
	ixt_node "$iface" "$t" "$p" --login && return
	rc=$?
	ixt_klog_since_mark "$mark" |
		grep -q 'Login/Text in progress. Cannot start new task' || return $rc
	ktap_print_msg "login to $t at $p: the initiator's login task race (libiscsi); once more"
	ixt_node "$iface" "$t" "$p" --login
}

# ixt_iser_login TARGET PORTAL [NAME=VALUE...]: ixt_login over iSER.
ixt_iser_login() {
	ixt_login iser "$@"
}

# ixt_iser_logout TARGET PORTAL: log the iSER session to TARGET out.
ixt_iser_logout() {
	ixt_node iser "$1" "$2" --logout
}

# ixt_discover OUT IFACE PORTAL [NAME=VALUE...]: SendTargets discovery at
# PORTAL through IFACE ("default": TCP; "iser"), from a new discoverydb
# record with the settings given; iscsiadm's output (the targets found)
# goes to OUT, and its status is returned (24: authentication failure).
#
# Over iSER, iscsiadm (open-iscsi 2.1.8) now and then misses the Login or
# Text Response it waits for, against iscsi_xt and LIO alike (5 of 400
# discoveries in a loop in the VM). It sends a request through the
# kernel (netlink SEND_PDU); when the response's RECV_PDU event reaches
# it before the reply to SEND_PDU, it sets the response aside while it
# reads on for that reply, then polls its socket for a response it
# already has until it times out. The reconnect iscsiadm then makes by
# itself crashed it (a segfault in libc), which left its discovery
# session behind. So the iSER record asks for no reconnect and 10 s
# timeouts, and ib_iser logs each request and response (debug_level 3):
# a discovery that timed out although every request it sent was answered
# in the initiator's kernel runs again, 3 times at most, each retry
# logged. One whose request found no response fails as it is.
ixt_discover() {
	local out=$1 iface=$2 p=$3 kv rc try mark klog sent got
	local dp=(-m discoverydb -t st -p "$p" -I "$iface")
	local dbg=/sys/module/ib_iser/parameters/debug_level level

	shift 3
	[ "$iface" = iser ] && set -- discovery.sendtargets.reopen_max=0 \
		discovery.sendtargets.timeo.login_timeout=10 \
		discovery.sendtargets.timeo.active_timeout=10 "$@"
	iscsiadm "${dp[@]}" -o delete >/dev/null 2>&1
	iscsiadm "${dp[@]}" -o new >/dev/null || return
	for kv in "$@"; do
		iscsiadm "${dp[@]}" -o update -n "${kv%%=*}" -v "${kv#*=}" \
			>/dev/null || return
	done
	[ "$iface" = iser ] && level=$(cat "$dbg") && echo 3 >"$dbg"
	for try in 1 2 3; do
		mark="ixt-discover: $$ $RANDOM try $try"
		echo "$mark" >/dev/kmsg
		iscsiadm "${dp[@]}" --discover >"$out" 2>&1
		rc=$?
		[ "$iface" = iser ] && [ $rc -ne 0 ] &&
			grep -q "timed out\|response timeout" "$out" || break
		klog=$(ixt_klog_since_mark "$mark")
		sent=$(grep -c "iser_send_control: op" <<<"$klog")
		got=$(grep -c "iser_login_rsp: op" <<<"$klog")
		ktap_print_msg "discovery over iSER at $p, try $try: $(tr '\n' ' ' <"$out")(ib_iser: $sent requests, $got responses)"
		[ "$sent" -gt 0 ] && [ "$sent" = "$got" ] || break
	done
	[ "$iface" = iser ] && echo "$level" >"$dbg"
	return "$rc"
}

# ixt_sid TRANSPORT TARGET: the id of the open-iscsi session to TARGET
# over TRANSPORT ("tcp" or "iser"), as "iscsiadm -m session" lists it
# ("iser: [3] 192.0.2.1:3260,1 iqn... (non-flash)"); fails without one.
ixt_sid() {
	iscsiadm -m session 2>/dev/null | awk -v x="$1:" -v t="$2" '
		$1 == x && $4 == t { gsub(/[][]/, "", $2); print $2; found = 1; exit }
		END { exit !found }'
}

# ixt_sid_disk SID LUN: the disk (/dev/sdX) of LUN in open-iscsi session
# SID, once it exists (waiting up to 60 s); fails otherwise.
ixt_sid_disk() {
	local d i

	for ((i = 0; i < 300; i++)); do
		d=$(iscsiadm -m session -r "$1" -P 3 2>/dev/null |
			awk -v l="$2" '/Lun: / { lun = $NF }
				/Attached scsi disk/ && lun == l { print $4; exit }')
		[ -n "$d" ] && [ -b "/dev/$d" ] && echo "/dev/$d" && return 0
		sleep 0.2
	done
	return 1
}

# ixt_sid_transport SID: the transport of open-iscsi session SID, from
# its "Iface Transport:" line.
ixt_sid_transport() {
	iscsiadm -m session -r "$1" -P 1 2>/dev/null |
		awk '/Iface Transport:/ { print $NF; exit }'
}

# ixt_rdma_cm STATE ADDR:PORT: the RDMA CM ids in STATE (LISTEN, CONNECT)
# whose source or destination is ADDR:PORT, as "rdma res show cm_id"
# lists them, one line each.
ixt_rdma_cm() {
	rdma res show cm_id 2>/dev/null |
		awk -v s="$1" -v a="$2" '
			{ st = sa = da = "" }
			{ for (i = 1; i < NF; i++) {
				if ($i == "state") st = $(i + 1)
				if ($i == "src-addr") sa = $(i + 1)
				if ($i == "dst-addr") da = $(i + 1)
			} }
			st == s && (sa == a || da == a)'
}

# Remove what targetcli would with "clearconfig", without its start-up
# time (some 10 s in the VM): every target of the fabric (ACLs and their
# mapped LUNs, LUNs, portals, TPGs), then every backstore of target
# core. Succeeds when none is left.
ixt_cfs_clear() {
	local t g d

	for g in "$IXT_FABRIC"/*/tpgt_*; do
		[ -d "$g" ] || continue
		for d in "$g"/acls/*/lun_* "$g"/lun/lun_*; do
			[ -d "$d" ] || continue
			find "$d" -maxdepth 1 -type l -exec rm {} +
			rmdir "$d"
		done
		for d in "$g"/acls/* "$g"/np/*; do
			[ -d "$d" ] && rmdir "$d"
		done
		rmdir "$g"
	done
	for t in "$IXT_FABRIC"/*; do
		[ -d "$t" ] && [ "${t##*/}" != discovery_auth ] && rmdir "$t"
	done
	for d in "$IXT_CFS"/core/*_[0-9]*/*; do
		[ -d "$d" ] && rmdir "$d"
	done
	for d in "$IXT_CFS"/core/*_[0-9]*; do
		[ -d "$d" ] && rmdir "$d"
	done
	! ls -d "$IXT_FABRIC"/*/tpgt_* "$IXT_CFS"/core/*_[0-9]*/* >/dev/null 2>&1
}

# ixt_owned_objects MODULE...: the slab objects in use that MODULEs (or
# the target core on their behalf: name it) allocated, by cache and
# allocation site ("site count" lines), from SLUB's user tracking
# (slub_debug=U, debugfs): exact, unlike /proc/slabinfo, which counts
# whole per-CPU slabs as in use. A site is the allocator's caller, or
# the first frame of those modules in the allocation's stack. Left out:
# socket buffers, which the network stack frees when it is done (ACKs,
# sends in flight), whoever allocated them; the TCP bind buckets of a
# port, which live while any socket on it does (an iWARP listener's
# accepted connections sit in TIME_WAIT for a minute after they close),
# and those TIME_WAIT sockets themselves (tw_sock_TCP*: a connection the
# target closed first leaves one, its stack through the module);
# vmap_area, which vmalloc frees lazily, long after vfree(); the
# radix tree nodes of __radix_tree_preload(), a per-CPU reserve kept for
# later inserts (null_blk's pages fill it); and TCP's metrics cache
# (tcp_get_metrics()), an entry per address pair that the first socket
# of the pair to close allocates (the target's, when it closes first)
# and that is reused, never freed, until its namespace goes; and
# SELinux's access vector cache (avc_node, where SELinux runs: the debug
# kernel), an entry per permission decision (the RDMA CM's pkey check at
# listen, say) kept until the cache reclaims it. One awk
# reads every cache: a process per cache costs minutes in the VM. Fails
# when the kernel does not track allocations.
ixt_owned_objects() {
	local mods

	mods=$(IFS='|'; echo "$*")
	ixt_traced_objects "[[]($mods)[]]"
}

# ixt_init_objects: the same listing for the objects that module inits
# allocated (do_one_initcall() in the stack), or code without a name (a
# module gone). Those of a module whose init failed are found both ways.
ixt_init_objects() {
	ixt_traced_objects '[^a-z_]do_one_initcall[+]|(^| )0xffff[0-9a-f]+'
}

# ixt_traced_objects REGEX: ixt_owned_objects of the allocations whose
# stack has a line REGEX matches.
ixt_traced_objects() {
	local f files=()

	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	ixt_slab_shrink
	for f in /sys/kernel/debug/slab/*/alloc_traces; do
		case $f in
		*/skbuff_*|*/tcp_bind_bucket/*|*/tcp_bind2_bucket/*|*/tw_sock_TCP*|*/vmap_area/*|*/avc_node/*)
			continue ;;
		esac
		[ -e "$f" ] && files+=("$f")
	done
	[ ${#files[@]} -gt 0 ] || return 1
	awk -v re="$1" '
		function flush() {
			if (n && hit && site !~ /^radix_tree_node:__radix_tree_preload/ &&
			    site !~ /:tcp_get_metrics[+]/)
				sites[site] += n
			n = hit = 0
		}
		FNR == 1 {
			flush()
			k = split(FILENAME, part, "/")
			cache = part[k - 1]
		}
		/^ *[0-9]+ / {
			flush()
			n = $1
			site = cache ":" $2
			hit = $0 ~ re
			next
		}
		!hit && $0 ~ re {
			hit = 1
			site = site "<" $1
		}
		END {
			flush()
			for (s in sites)
				print s, sites[s]
		}' "${files[@]}"
}

# raw ARGS...: run the raw initiator with the cases ARGS, its output in
# $raw_out, its exit status its own. This one runs ixt_raw.py over TCP
# against the test's $tgt at the target's IPv4 address; the tests that
# need another client, address or option define their own
# (tcp_badinput.sh, iser_badinput.sh...).
raw() {
	raw_out=$(python3 "$ixt_libdir/ixt_raw.py" --target "$tgt" \
		--host "$IXT_ADDR4_T" "$@" 2>&1)
}

# ixt_raw_print REGEX: the lines of $raw_out that REGEX does not match, as
# KTAP messages.
ixt_raw_print() {
	local line

	grep -vE "$1" <<<"$raw_out" | while read -r line; do
		[ -n "$line" ] && ktap_print_msg "$line"
	done
}

# ixt_raw_cases CASE...: one subtest each, from its "ok CASE: ..." or
# "FAIL CASE: ..." line, all in one run of the raw initiator (a Python
# start-up costs seconds under TCG).
ixt_raw_cases() {
	local c line

	raw "$@"
	ixt_raw_print '^(ok|FAIL) [a-z0-9_]+: '	# a traceback, say
	for c in "$@"; do
		line=$(grep -m1 -E "^(ok|FAIL) $c: " <<<"$raw_out")
		ktap_print_msg "${line:-$c: no result}"
		if [ "${line%% *}" = ok ]; then
			ktap_test_pass "$c"
		else
			ktap_test_fail "$c"
		fi
	done
}

# ixt_raw_cases_tcp_iser NP WHY CASE...: ixt_raw_cases CASE... over TCP
# (raw_client=tcp), then over iSER (raw_client=iser) with iSER turned on
# at the portal directory NP for them, or each case skipped over iSER
# for the reason WHY when it is not empty (ixt_iser_raw_missing's).
ixt_raw_cases_tcp_iser() {
	local np=$1 why=$2 c

	shift 2
	ktap_print_msg "over TCP"
	raw_client=tcp
	ixt_raw_cases "$@"
	if [ -n "$why" ]; then
		for c; do
			ktap_test_skip "$c over iSER: $why"
		done
		return
	fi
	echo 1 >"$np/iser" ||
		ktap_exit_fail_msg "cannot turn iSER on at ${np##*/}"
	ktap_print_msg "over iSER"
	raw_client=iser
	ixt_raw_cases "$@"
	echo 0 >"$np/iser"
}

# ixt_traced_back WHAT BEFORE LISTING...: no more objects in use in the
# listing the command LISTING... prints (ixt_owned_objects,
# ixt_init_objects) than in the listing in the file BEFORE; some go only
# after an RCU grace period or a work item of the target core, which a
# loaded VM may delay: up to 10 s. Prints both totals, as objects WHAT,
# and the allocation sites that grew. Fails if LISTING fails.
ixt_traced_back() {
	local what=$1 before=$2 after=$2.after grown i

	shift 2
	for ((i = 0; i < 10; i++)); do
		"$@" >"$after" || return 1
		grown=$(ixt_owned_growth "$before" "$after" 1) && break
		sleep 1
	done
	ktap_print_msg "objects $what in use:" \
		"$(awk '{n += $2} END {print n + 0}' "$before") before," \
		"$(awk '{n += $2} END {print n + 0}' "$after") after"
	[ -z "$grown" ] && return 0
	ktap_print_msg "allocation sites that grew: $(tr '\n' ' ' <<<"$grown")"
	return 1
}

# ixt_owned_back OWNER...: ixt_traced_back of the OWNER modules' objects
# since ixt_owned_mark.
ixt_owned_back() {
	ixt_traced_back "of $*" "$IXT_WORK/owned.before" ixt_owned_objects "$@"
}

# ixt_owned_mark OWNER...: the ixt_owned_objects listing of the OWNER
# modules now, in $IXT_WORK/owned.before, for ixt_owned_check.
IXT_OWNED_TRACKED=1
ixt_owned_mark() {
	ixt_work || return 1
	ixt_owned_objects "$@" >"$IXT_WORK/owned.before"
	IXT_OWNED_TRACKED=$?
}

# ixt_owned_check WHEN OWNER...: one subtest, "no object of OWNERs left
# behind WHEN" (ixt_owned_back since ixt_owned_mark), or a SKIP if the
# kernel did not track allocations then.
ixt_owned_check() {
	local when=$1

	shift
	if [ "$IXT_OWNED_TRACKED" -ne 0 ]; then
		ktap_test_skip "no object of $* left behind (needs slub_debug=U and debugfs)"
	else
		ixt_check "no object of $* left behind $when" ixt_owned_back "$@"
	fi
}

# ixt_iser_stat NAME: a counter of the iSER transport (debugfs).
ixt_iser_stat() {
	awk -v n="$1" '$1 == n { print $2 }' /sys/kernel/debug/iscsi_xt_iser/stats
}

# ixt_owned_growth BEFORE AFTER LIMIT: from two ixt_owned_objects
# listings, print the sites that grew; succeed when all of them together
# grew by less than LIMIT objects.
ixt_owned_growth() {
	awk -v limit="$3" 'FNR == NR { b[$1] = $2; next }
		{ a[$1] = $2 }
		END {
			for (s in a)
				if (a[s] > b[s]) {
					print s, "+" (a[s] - b[s])
					g += a[s] - b[s]
				}
			exit g >= limit
		}' "$1" "$2"
}

# A bad network for the TCP sessions. Initiator and target share the VM,
# so a session's packets cross lo: ixt_netem OPTIONS... sends those of
# port 3260 through a prio qdisc's band with netem OPTIONS (the rest of
# lo's traffic through a plain band), or changes netem's OPTIONS when it
# is there already; ixt_netem_off removes it. soft-RoCE loops its
# packets inside the driver, where no qdisc sees them: iSER is immune.
ixt_netem() {
	if ! tc qdisc show dev lo | grep -q "qdisc netem 10:"; then
		tc qdisc add dev lo root handle 1: prio bands 4 \
			priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 &&
		tc filter add dev lo parent 1: protocol ip prio 1 u32 \
			match ip sport 3260 0xffff flowid 1:4 &&
		tc filter add dev lo parent 1: protocol ip prio 2 u32 \
			match ip dport 3260 0xffff flowid 1:4 &&
		tc qdisc add dev lo parent 1:4 handle 10: netem "$@"
	else
		tc qdisc change dev lo parent 1:4 handle 10: netem "$@"
	fi
}

ixt_netem_off() {
	tc qdisc del dev lo root 2>/dev/null
}

# ixt_netem_stat FIELD: netem's "dropped" or "sent ... pkt" count.
ixt_netem_stat() {
	tc -s qdisc show dev lo parent 1:4 | awk -v f="$1" '
		/Sent/ { for (i = 1; i <= NF; i++) {
			if (f == "pkt" && $(i + 1) == "pkt") print $i
			if (f == "dropped" && $i == "(dropped") { sub(/,/, "", $(i + 1)); print $(i + 1) }
		} }'
}

# ixt_sg_read DISK LBA: READ(10) of 8 blocks at LBA of DISK, by sg_raw
# (SG_IO: no retries, the status and sense as the target sent them), its
# output in $ixt_sg_out, the data in $IXT_WORK/read; ixt_sg_write DISK
# LBA FILE: WRITE(10) of FILE's 4 KiB there. Each succeeds when the
# command got GOOD.
ixt_sg_out=
ixt_sg_cdb() {
	printf '%s 00 %02x %02x %02x %02x 00 00 08 00' "$1" \
		$(($2 >> 24 & 255)) $(($2 >> 16 & 255)) $(($2 >> 8 & 255)) $(($2 & 255))
}

ixt_sg_read() {
	# shellcheck disable=SC2046 # the CDB's bytes are separate arguments
	ixt_sg_out=$(sg_raw -v -r 4096 -o "$IXT_WORK/read" "$1" $(ixt_sg_cdb 28 "$2") 2>&1)
}

ixt_sg_write() {
	# shellcheck disable=SC2046
	ixt_sg_out=$(sg_raw -v -s 4096 -i "$3" "$1" $(ixt_sg_cdb 2a "$2") 2>&1)
}

# ixt_check_condition KEY ASC: $ixt_sg_out reports CHECK CONDITION with
# sense key KEY ("Not Ready") and additional sense ASC ("Logical unit
# communication failure"), as sg_raw decodes them.
ixt_check_condition() {
	grep -qi "status: check condition" <<<"$ixt_sg_out" &&
		grep -qi "sense key: $1" <<<"$ixt_sg_out" &&
		grep -qi "additional sense: $2" <<<"$ixt_sg_out" && return 0
	ktap_print_msg "sg_raw: $(tr '\n' ' ' <<<"$ixt_sg_out" | cut -c1-400)"
	return 1
}

# ixt_chap_acl TPG NAME USER SECRET: an ACL of TPG for initiator NAME
# with LUN 0 and one-way CHAP.
ixt_chap_acl() {
	local a=$1/acls/$2

	mkdir -p "$a/lun_0" && ln -s "$1/lun/lun_0" "$a/lun_0/map" &&
		echo "$3" >"$a/auth/userid" && echo "$4" >"$a/auth/password"
}

# ixt_iscsid_start: iscsid started (again), without the caller's
# descriptors.
ixt_iscsid_start() {
	(ixt_daemon iscsid) </dev/null >/dev/null 2>&1
}
