#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The target's own memory per idle TCP session, iscsi_xt's against LIO's
# iscsi_target_mod, each loaded in turn in the same boot: $n targets, each
# a ramdisk LUN in demo mode on one portal; open-iscsi logs in a session
# to each, its LUN scanned, and leaves them idle for a few seconds. What
# the fabric module and the target core hold then, less what they held
# with the targets and no session, divided by $n, is the memory of a
# session; counted are
# - the slab objects whose allocation stack names either module (SLUB's
#   user tracking, slub_debug=U: lib.sh's ixt_owned_objects), each at
#   its cache's object size (an object KFENCE samples is not SLUB's: a
#   site may count one short);
# - kmalloc's large allocations (over 8 KiB: whole pages, which SLUB does
#   not track) whose stack names either module, from the kmem trace
#   events of pages allocated and freed meanwhile, in the test's own
#   trace instance (LIO's command map of a session is one);
# - vmalloc areas (kvmalloc's fallback) of callers in either module
#   (/proc/vmallocinfo).
# Not counted: other pages (socket buffers and the sockets' page
# fragments are the network stack's, alike for both), per-CPU memory,
# and kernel threads, which kthreadd makes (LIO runs two a connection,
# each with a 16 KiB stack). iscsi_xt's cache-line pool is allocated
# whole at load, for no session in particular.
# Both targets log their sessions in and out, the configuration clears
# and the module unloads; the sites that grew are printed per session,
# the largest first; iscsi_xt's memory per session must be below LIO's.

. "$(dirname "$0")/lib.sh"

ixt_require_root
ixt_require_module
ixt_require_initiator
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
compgen -G '/sys/kernel/debug/slab/*/alloc_traces' >/dev/null ||
	ixt_skip_all "needs SLUB's allocation tracking (slub_debug=U) in debugfs"
trace=/sys/kernel/tracing
[ -d $trace/instances ] || mount -t tracefs none $trace 2>/dev/null ||
	ixt_skip_all "needs tracefs"
lio=1
modinfo -n iscsi_target_mod >/dev/null 2>&1 || lio=

n=8
pre=iqn.2026-11.org.example.mem
portal=$IXT_ADDR4_T:3260
tr=$trace/instances/ixt_session_memory
ixt_work
work=$IXT_WORK

cleanup() {
	ixt_cleanup
	[ -d /sys/module/iscsi_target_mod ] && rmmod iscsi_target_mod
	[ -d "$tr" ] && rmdir "$tr"
} >/dev/null 2>&1
trap cleanup EXIT

# held MODULE...: what the MODULEs hold now, "SITE COUNT BYTES" lines:
# slab objects by cache and site, vmalloc areas by caller.
held() {
	local re

	re="[[]($(IFS='|'; echo "$*"))[]]"
	ixt_owned_objects "$@" | awk '{
		c = $1
		sub(/:.*/, "", c)
		if (!(c in size)) {
			f = "/sys/kernel/slab/" c "/object_size"
			if ((getline size[c] <f) <= 0) {
				print "# no object size for " c >"/dev/stderr"
				bad = 1
			}
			close(f)
		}
		printf "%s %d %d\n", $1, $2, $2 * size[c]
	} END { exit bad }' || return 1
	awk -v re="$re" '$0 ~ re && match($0, / pages=[0-9]+/) {
		printf "vmalloc:%s 1 %d\n", $3, substr($0, RSTART + 7, RLENGTH - 7) * 4096
	}' /proc/vmallocinfo
}

# Allocations of four pages or more (order 2: kmalloc's large ones are
# above 8 KiB), each with its stack, and their frees, in the trace
# instance $tr from pages_start on.
pages_start() {
	local e=$tr/events/kmem

	mkdir "$tr" && echo 4096 >"$tr/buffer_size_kb" &&
		echo 1 >"$tr/options/sym-offset" &&
		echo "order >= 2" >"$e/mm_page_alloc/filter" &&
		echo "stacktrace if order >= 2" >"$e/mm_page_alloc/trigger" &&
		echo "order >= 2" >"$e/mm_page_free/filter" &&
		echo 1 >"$e/mm_page_alloc/enable" &&
		echo 1 >"$e/mm_page_free/enable"
}

# pages_live MODULE...: of those, the ones kmalloc made for the MODULEs
# (not new slabs) still allocated: "pages:SITE 1 BYTES" lines, SITE the
# first frame of the MODULEs in the stack. Fails if the trace lost
# events.
pages_live() {
	local re lost

	re="[[]($(IFS='|'; echo "$*"))[]]"
	echo 0 >"$tr/tracing_on"
	lost=$(awk '/^overrun:/ { n += $2 } END { print n + 0 }' "$tr"/per_cpu/cpu*/stats)
	[ "$lost" -eq 0 ] || { ktap_print_msg "the trace lost $lost events"; return 1; }
	awk -v re="$re" '
		function cpu() {
			match($0, / \[[0-9]+\] /)
			return substr($0, RSTART, RLENGTH)
		}
		function page() {
			match($0, /pfn=0x[0-9a-f]+ order=[0-9]+/)
			split(substr($0, RSTART, RLENGTH), f, /[= ]/)
			pfn = f[2]
			order = f[4]
		}
		/ mm_page_alloc: / {
			page()
			pend[cpu()] = pfn
			bytes[pfn] = 4096 * 2 ^ order
			site[pfn] = kmalloc[pfn] = slab[pfn] = ""
			next
		}
		/ mm_page_free: / { page(); delete bytes[pfn]; next }
		/ <stack trace>$/ { cur = pend[cpu()]; next }
		/^ => / {
			if ($2 ~ /kmalloc/)
				kmalloc[cur] = 1
			if ($2 ~ /slab/)
				slab[cur] = 1
			if (site[cur] == "" && $0 ~ re)
				site[cur] = $2
			next
		}
		{ cur = "" }
		END {
			for (p in bytes)
				if (kmalloc[p] && !slab[p] && site[p] != "")
					printf "pages:%s 1 %d\n", site[p], bytes[p]
		}' "$tr/trace"
}

# sessions SIDE MODULE...: $n targets, the memory the MODULEs hold
# before and after $n idle sessions to them in $work/SIDE.before and
# .after.
sessions() {
	local s=$1 i tpg

	shift
	for ((i = 0; i < n; i++)); do
		tpg=$IXT_FABRIC/$pre:m$i/tpgt_1
		ixt_rd_lun0 "$tpg" "$IXT_CFS/core/rd_mcp_86/m$i" 256 &&
			ixt_demo_tpg "$tpg" "$portal" || return 1
	done
	held "$@" >"$work/$s.before" && pages_start || return 1
	for ((i = 0; i < n; i++)); do
		ixt_login default "$pre:m$i" "$portal" || return 1
	done
	ixt_session_disks $n >/dev/null || return 1
	sleep 3
	held "$@" >"$work/$s.after" && pages_live "$@" >>"$work/$s.after"
}

# teardown FABRIC: the sessions logged out and their node records
# deleted, the configuration cleared, FABRIC unloaded.
teardown() {
	local i rc=0

	for ((i = 0; i < n; i++)); do
		ixt_node default "$pre:m$i" "$portal" --logout || rc=1
		ixt_node default "$pre:m$i" "$portal" -o delete
	done
	[ -d "$tr" ] && rmdir "$tr"
	ixt_cfs_clear && rmdir "$IXT_FABRIC" && rmmod "$1" && return $rc
}

# measure xt|lio FABRIC: sessions on that target, then teardown; no
# $work/SIDE.after if the sessions failed.
measure() {
	local rc=0

	case $1 in
	lio)	modprobe --ignore-install iscsi_target_mod ;;
	xt)	ixt_load ;;
	esac || return 1
	sessions "$1" "$2" target_core_mod || { rc=1; rm -f "$work/$1.after"; }
	teardown "$2" && return $rc
}

# per_session SIDE: what each session of SIDE holds, from its listings:
# "SITE OBJECTS BYTES" of each site that changed, and "total OBJECTS
# BYTES".
per_session() {
	awk -v n=$n 'FNR == NR { c[$1] -= $2; b[$1] -= $3; next }
		{ c[$1] += $2; b[$1] += $3 }
		END {
			for (s in c) {
				if (c[s] || b[s])
					printf "%s %.1f %d\n", s, c[s] / n, b[s] / n
				tc += c[s]
				tb += b[s]
			}
			printf "total %.1f %d\n", tc / n, tb / n
		}' "$work/$1.before" "$work/$1.after"
}

kib() {
	awk -v b="$1" 'BEGIN { printf "%.1f", b / 1024 }'
}

# report SIDE NAME: NAME's memory per session and the sites that grew
# most, as KTAP diagnostics; sets $bytes to the memory per session.
report() {
	local site objs b

	bytes=
	[ -s "$work/$1.after" ] || return
	per_session "$1" >"$work/$1.session"
	read -r _ objs bytes < <(grep '^total ' "$work/$1.session")
	ktap_print_msg "$2: $(kib "$bytes") KiB in $objs objects per idle session, the most at:"
	grep -v '^total ' "$work/$1.session" | sort -k3,3nr | head -n 12 |
		while read -r site objs b; do
			ktap_print_msg "$2: $site: $objs objects, $(kib "$b") KiB"
		done
}

ixt_begin 3
ixt_check "iscsi_xt: $n sessions log in and out, the module unloads" \
	measure xt iscsi_xt
report xt iscsi_xt
xt=$bytes
if [ -n "$lio" ]; then
	ixt_check "LIO: $n sessions log in and out, the module unloads" \
		measure lio iscsi_target_mod
	report lio LIO
	ixt_check "iscsi_xt's own memory per idle session ($(kib "${xt:-0}") KiB) is below LIO's ($(kib "${bytes:-0}") KiB)" \
		eval '[ -n "$xt" ] && [ -n "$bytes" ] && [ "$xt" -lt "$bytes" ]'
else
	ixt_skip_n 2 "LIO's iscsi_target_mod is not available"
fi
ixt_finish
