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

ixt_skip_all() {
	ktap_print_header
	ktap_skip_all "$*"
	exit "$KSFT_SKIP"
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
# module loaded: sets IXT_INITIATOR to its name.
ixt_require_initiator() {
	ixt_require_cmd iscsiadm
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

# Whether every cache line of iscsi_xt's pool is free, waiting up to 10 s
# for the network stack to let go of the pages of the last Data-In sent.
# Prints the pool's figures as a KTAP diagnostic when not.
ixt_pool_all_free() {
	local f=/sys/kernel/debug/iscsi_xt/pool i

	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	for ((i = 0; i < 50; i++)); do
		awk '/^lines/ {l = $2} /^free/ {f = $2}
		     END {exit !(l > 0 && f == l)}' "$f" && return 0
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
# suspicious line logged after the marker.
ixt_klog_bad='(^|\] )(BUG[: ]|WARNING:|Oops|KFENCE: |kernel BUG|general protection fault|INFO: task .* blocked for more than|.*list_(add|del) corruption|.*list corruption|Kernel panic)'

ixt_begin() {
	local plan=$1

	ktap_print_header
	ktap_set_plan $((plan + 1))
	IXT_KLOG_MARK="ixt-selftest: begin $(basename "$0") $$ $RANDOM"
	echo "$IXT_KLOG_MARK" >/dev/kmsg
}

ixt_klog_since_mark() {
	dmesg | sed -n "/$IXT_KLOG_MARK/,\$p"
}

ixt_klog_check() {
	local log bad

	log=$(ixt_klog_since_mark)
	if [ -z "$log" ]; then
		ktap_print_msg "the kernel log lost the test's start marker"
		ktap_test_fail "kernel log clean"
		return
	fi
	bad=$(grep -E "$ixt_klog_bad" <<<"$log" | head -n 20)
	if [ -n "$bad" ]; then
		while read -r line; do
			ktap_print_msg "klog: $line"
		done <<<"$bad"
		ktap_test_fail "kernel log clean"
	else
		ktap_test_pass "kernel log clean"
	fi
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
	out=$(timeout 300 fio --name=ixt --filename="$dev" --ioengine=libaio \
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

# Active objects of the slab caches the module allocates from (the kmalloc
# caches, and any cache of its own, named ixt_*), after flushing per-CPU
# slabs so that the counts are exact: "name count" lines, sorted by name.
# Caches of processes and files (vm_area_struct, dentry...) move with
# whatever else the system does and would only add noise.
ixt_slab_snapshot() {
	local f

	for f in /sys/kernel/slab/*/shrink; do
		echo 1 >"$f" 2>/dev/null
	done
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
