#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest job of make bench: for each round and each transport, LIO, then
# iscsi_xt, configured identically with targetcli, then tgt (Debian's
# user-space target, tgtd, configured with tgtadm: tgt_up), logged in
# with open-iscsi, each running the fio matrix on a LUN over null_blk
# and on a ramdisk LUN. The transports:
#   tcp   LIO's iscsi_target_mod against iscsi_xt and tgt, open-iscsi
#         over TCP
#   iser  iscsi_target_mod + ib_isert against iscsi_xt + iscsi_xt_iser
#         and tgt's iser driver, the portal on the test address with
#         enable_iser, open-iscsi's iser iface (ib_iser) over soft-RoCE
#         rxe0
#   iwarp iscsi_xt + iscsi_xt_iser and tgt, as iser but over soft-iWARP
#         siw0 in place of rxe0: LIO cannot serve it (ib_isert's
#         rdma_listen() fails with EADDRINUSE on the port its own TCP
#         listener holds)
# Then the bounds of this machine: the same matrix on the local null_blk
# device, raw TCP over the test veth pair (tcp) and RDMA with perftest
# over rxe0 (iser) and siw0 (iwarp).
#
# The scale job, over TCP, for LIO and then iscsi_xt in each round: 16
# targets of one LUN each over a null_blk device of its own, one open-iscsi
# session to each; the memory that 16 idle sessions take, then 4 KiB
# random reads at iodepth 8 from every session at once with 16, 4 and 1
# sessions logged in (cells randread-4k-qd8-xN), with 16 also 1 MiB
# writes at iodepth 32 (512 MiB in flight: pool pressure; each cell
# counts the IOs that took a second or more), then logins per second:
# login and logout in a loop to one more target, with CHAP.
#
# The noisy-neighbour job, over TCP, for LIO and then iscsi_xt in each
# round (scripts/bench/noisy.sh): a flooding and a light session share a
# LUN whose backend slows down and recovers under them.
#
#   guest.sh ROUNDS RUNTIME RAMP XT_PARAMS TRANSPORTS PROFILE COST JOBS SHORT [CELL...]
#
# XT_PARAMS: iscsi_xt module parameters, space-separated; may be empty.
# TRANSPORTS: "tcp", "iser", "iwarp", space-separated, in the order run.
# PROFILE: non-empty to record each cell with perf; the report, by module
# and by symbol, goes next to fio's JSON as *.perf.txt.
# COST: non-empty to count what each cell's IOs cost (bench.sh -C): the
# guest's context switches (/proc/stat ctxt) and softirqs (/proc/softirqs,
# all kinds and CPUs), before and after the cell, into *.cost0 and
# *.cost1 next to fio's JSON, with iscsi_xt's debugfs cost file when the
# module is loaded; perf stat -a counts work items run and slab
# allocations (tracepoints) over the cell into *.cost.
# JOBS: "matrix" (the fio matrix above), "scale", "noisy",
# space-separated.
# SHORT: non-empty for the short smoke test of make check (bench.sh -c):
# the matrix on the null_blk LUN only, and over iSER for LIO and
# iscsi_xt only; the scale job with 4 and 1 sessions (the pool pressure
# cell and the idle sessions' memory with 4) and 3 CHAP logins; the
# scale and noisy-neighbour jobs for iscsi_xt only; no bounds.
#
# One JSON object per measured cell is appended to $IXT_OUT/cells.jsonl;
# fio's JSON and messages per cell are kept in $IXT_OUT/fio/, perftest's
# output in $IXT_OUT/ib_*.log.

set -uo pipefail

. "$IXT_TOP/scripts/vm/guest-env.sh"

rounds=$1 runtime=$2 ramp=$3 xt_params=$4 transports=$5 profile=$6 cost=$7
jobs=$8 short=$9
shift 9
all_cells="randread-4k-qd1 randread-4k-qd32 randwrite-4k-qd32 read-64k-qd8 read-1m-qd4 write-1m-qd4"
cells=${*:-$all_cells}
wwn=iqn.2026-11.org.example:bench
portal=$IXT_ADDR4_T
out=$IXT_OUT/cells.jsonl
pending=/run/bench-cells
hz=$(getconf CLK_TCK)
cfs=/sys/kernel/config/target/iscsi
: >"$out"
: >"$pending"
mkdir -p "$IXT_OUT/fio"

# listed WORD LIST: whether WORD is one of LIST's words.
listed() {
	case " $2 " in *" $1 "*) return 0 ;; esac
	return 1
}

# Also into the kernel log, so that dmesg.log shows which phase logged what.
log() {
	echo "bench: $*"
	echo "bench: $*" >/dev/kmsg
}

# fio parameters of a cell name "rw-bs-qdN" or "rw-bs-qdN-xSESSIONS".
cell_args() {
	local cell=${1%-x*}
	local rw=${cell%%-*} rest=${cell#*-}
	local bs=${rest%%-*} qd=${rest##*-qd}

	echo "--rw=$rw --bs=$bs --iodepth=$qd"
}

cpu_busy() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat
}

# TCP retransmissions and retransmission timeouts since the last call:
# stalls of a cell that the IOPS alone do not explain.
tcp_trouble() {
	nstat -z TcpRetransSegs TcpExtTCPTimeouts 2>/dev/null |
		awk '/TcpRetransSegs/ { r = $2 } /TCPTimeouts/ { t = $2 }
		     END { print r + 0, t + 0 }'
}

# cost_snapshot FILE DEVICE...: what bench.sh -C divides by the IOs of a
# cell, counted since boot: "ios N" (the reads and writes the initiator's
# DEVICEs completed: fio's ramp included, which its own counts leave
# out), "ctxt N", "softirqs N", and iscsi_xt's cost file ("cmds N",
# "payload_bytes N"...) while iscsi_xt is loaded.
cost_snapshot() {
	local f=$1 dev n=0 s

	shift
	for dev in "$@"; do
		dev=$(readlink -f "$dev")
		read -ra s <"/sys/class/block/${dev##*/}/stat" || return
		n=$((n + s[0] + s[4]))
	done
	{
		echo "ios $n"
		awk '/^ctxt / { print "ctxt", $2 }' /proc/stat
		awk 'NR > 1 { for (i = 2; i <= NF; i++) n += $i }
		     END { print "softirqs", n }' /proc/softirqs
		cat /sys/kernel/debug/iscsi_xt/cost 2>/dev/null
	} >"$f"
}

# The tracepoints bench.sh -C counts with perf stat: work items run, slab
# allocations (from a cache and kmalloc's).
cost_events=workqueue:workqueue_execute_start,kmem:kmem_cache_alloc,kmem:kmalloc

# run_cell TARGET TRANSPORT BACKSTORE CELL ROUND DEVICE...: one fio run,
# a job per DEVICE, all at once and reported as one; its JSON kept in
# $IXT_OUT/fio/ and queued for flush_cells with the guest's CPU time and
# the TCP trouble it met.
run_cell() {
	local target=$1 tp=$2 bs=$3 cell=$4 round=$5 b0 b1 tcp rc dev
	local f=$IXT_OUT/fio/$1-$2-$3-$4-r$5 perf=() files=()

	shift 5
	for dev in "$@"; do
		files+=(--name="${dev##*/}" --filename="$dev")
	done
	[ -n "$cost" ] &&
		perf=(perf stat -a -x ";" -o "$f.cost" -e "$cost_events" --)
	[ -n "$profile" ] &&
		perf+=(perf stat -a -x ";" -o "$f.stat" -e "$perf_events" --
		       perf record -q -a -F 250 -e cpu-clock -o "/run/$(basename "$f").perf" --)
	tcp_trouble >/dev/null
	[ -n "$cost" ] && cost_snapshot "$f.cost0" "$@"
	b0=$(cpu_busy)
	# A target that stops answering fails the cell once the initiator
	# gives up (SCSI timeout, then the session's replacement timeout);
	# the timeout only bounds whatever would outlast that.
	# shellcheck disable=SC2046
	timeout -k 30 $((runtime + ramp + 300)) "${perf[@]}" \
		fio --ioengine=libaio --direct=1 --group_reporting \
		--time_based --runtime="$runtime" --ramp_time="$ramp" \
		--output-format=json --output="$f.json" $(cell_args "$cell") \
		"${files[@]}" >"$f.log" 2>&1
	rc=$?
	b1=$(cpu_busy)
	[ -n "$cost" ] && cost_snapshot "$f.cost1" "$@"
	tcp=$(tcp_trouble)
	[ -n "$profile" ] && perf_report "/run/$(basename "$f").perf" "$f.perf.txt"
	echo "$target $tp $bs $cell $round $((b1 - b0)) $tcp $rc $f.json" >>"$pending"
}

# What the profile counts besides the samples: the scheduling an IO costs.
perf_events=context-switches,cpu-migrations,workqueue:workqueue_execute_start,irq:softirq_entry
# The iSCSI targets' own modules, whose symbols a profile lists in full.
target_mods=" [iscsi_target_mod] [ib_isert] [iscsi_xt] [iscsi_xt_iser] tgtd "

# perf_report DATA TEXT: where the guest's CPU went during a cell, self
# time by module, by symbol, and every symbol of the targets' modules.
# Each sample line becomes "PERCENT MODULE SYMBOL": perf puts modules
# loaded from outside /lib/modules under [kernel.kallsyms], so a kernel
# symbol's module comes from /proc/kallsyms.
perf_report() {
	perf report -i "$1" --stdio --no-children --sort dso,sym -g none \
		2>/dev/null | grep '%' |
		awk 'NR == FNR { if ($4 ~ /^\[/) mod[$3] = $4; next }
		     { m = $2
		       if ($3 == "[k]") m = ($4 in mod) ? mod[$4] : "[kernel]"
		       print $1, m, $4 }' /proc/kallsyms - >"$1.syms"
	{
		echo "== by module"
		awk '{ p = $1; sub("%", "", p); sum[$2] += p }
		     END { for (m in sum) if (sum[m] >= 0.1)
				printf "%7.2f%%  %s\n", sum[m], m }' \
			"$1.syms" | sort -rn
		echo "== by symbol"
		awk '$1 + 0 >= 0.2 { printf "%8s  %-18s %s\n", $1, $2, $3 }' \
			"$1.syms"
		echo "== the targets' own modules, by symbol"
		awk -v mods="$target_mods" 'index(mods, " " $2 " ") {
			printf "%8s  %-18s %s\n", $1, $2, $3 }' "$1.syms"
	} >"$2"
	rm -f "$1" "$1.syms"
}

# Append the cells run_cell queued to cells.jsonl: one Python start-up
# per target rather than per cell, which under TCG costs seconds.
flush_cells() {
	[ -s "$pending" ] || return 0
	python3 - "$hz" "$runtime" "$ramp" "$pending" >>"$out" <<'PY'
import json, sys
hz, runtime, ramp, pending = sys.argv[1:]


def counts(path):
    """NAME VALUE lines, or perf stat's VALUE;UNIT;EVENT lines, as a dict."""
    out = {}
    with open(path) as f:
        for line in f:
            v = line.split(";")
            if len(v) > 2 and v[0].isdigit():
                out[v[2].split(":")[-1]] = int(v[0])
                continue
            v = line.split()
            if len(v) == 2 and v[1].isdigit():
                out[v[0]] = int(v[1])
    return out


def cost_per_io(base):
    """bench.sh -C's figures of a cell, divided by the IOs of its whole
    run, ramp included, as the initiator's block devices counted them:
    the counters cover the same span."""
    try:
        c0, c1 = counts(base + ".cost0"), counts(base + ".cost1")
    except OSError:
        return {}
    d = {k: c1[k] - c0[k] for k in c1 if k in c0}
    runs_ios = d.get("ios")
    if not runs_ios:
        return {}
    try:
        perf = counts(base + ".cost")
    except OSError:
        perf = {}
    rec = {}
    for key, val in (("ctx", d.get("ctxt")), ("softirq", d.get("softirqs")),
                     ("work", perf.get("workqueue_execute_start")),
                     ("slab", None if "kmalloc" not in perf or
                      "kmem_cache_alloc" not in perf else
                      perf["kmalloc"] + perf["kmem_cache_alloc"]),
                     ("xt_cmds", d.get("cmds")), ("xt_lines", d.get("lines"))):
        if val is not None:
            rec["cost_%s_per_io" % key] = round(val / runs_ios, 3)
    if d.get("payload_bytes"):
        rec["cost_xt_copied_per_byte"] = round(d["copied_bytes"] / d["payload_bytes"], 3)
    return rec

with open(pending) as f:
    queued = [line.rstrip("\n").split(" ", 9) for line in f if line.strip()]
for target, tp, bs, cell, rnd, busy, retrans, rto, rc, path in queued:
    rec = {"target": target, "transport": tp, "backstore": bs, "cell": cell,
           "round": int(rnd), "tcp_retrans": int(retrans), "tcp_timeouts": int(rto)}
    try:
        if rc == "124":
            raise RuntimeError("timed out")
        with open(path) as f:
            job = json.load(f)["jobs"][0]
        if job.get("error"):
            raise RuntimeError("IO errors (errno %d)" % job["error"])
        ios = bw = 0
        lat = {}
        for d in ("read", "write"):
            ios += job[d]["total_ios"]
            bw += job[d]["bw_bytes"]
            if job[d]["total_ios"]:
                lat = job[d]["clat_ns"]["percentile"]
        secs = int(runtime)
        # CPU time of the whole guest, pro rata over the measured part.
        busy_s = int(busy) / int(hz) * secs / (secs + int(ramp))
        # Stalls: the IOs that took a second or more (fio's latency
        # histogram, in percent of all IOs), and the longest.
        hist = job.get("latency_ms", {})
        slow = lambda *keys: round(sum(hist.get(k, 0) for k in keys) * ios / 100)
        rec.update(iops=ios / secs, bw=bw, p50_us=lat.get("50.000000", 0) / 1000,
                   p99_us=lat.get("99.000000", 0) / 1000,
                   cpu_us_per_io=busy_s * 1e6 / ios if ios else None,
                   ios_ge_1s=slow("2000", ">=2000"), ios_ge_2s=slow(">=2000"),
                   max_ms=max(job[d]["clat_ns"]["max"] for d in ("read", "write")) / 1e6)
        # With -P: what perf stat counted, per IO, pro rata as the CPU.
        try:
            with open(path[:-len(".json")] + ".stat") as f:
                for line in f:
                    v = line.split(";")
                    if len(v) > 2 and v[0].replace(".", "").isdigit() and ios:
                        rec["per_io_" + v[2].split(":")[-1]] = round(
                            float(v[0]) * secs / (secs + int(ramp)) / ios, 2)
        except OSError:
            pass
        # With -C: the cost of an IO, and iscsi_xt's own counts.
        rec.update(cost_per_io(path[:-len(".json")]))
    except Exception as e:
        rec["error"] = "fio: %s" % e
    print(json.dumps(rec))
PY
	: >"$pending"
}

# record_error TARGET TRANSPORT BACKSTORE CELL ROUND MESSAGE
record_error() {
	printf '{"target": "%s", "transport": "%s", "backstore": "%s", "cell": "%s", "round": %d, "error": "%s"}\n' \
		"$1" "$2" "$3" "$4" "$5" "$6" >>"$out"
}

# The modules of TARGET over TRANSPORT, in the order rmmod needs (tgt:
# none, it runs in user space; the RDMA user-space access it loads
# stays).
target_modules() {
	case "$1 $2" in
	"lio tcp")	echo iscsi_target_mod ;;
	"lio iser")	echo ib_isert iscsi_target_mod ;;
	"xt tcp")	echo iscsi_xt ;;
	"xt "*)		echo iscsi_xt_iser iscsi_xt ;;
	esac
}

# The targets measured over TRANSPORT, in the order run: tgt also over
# iWARP, where LIO cannot listen (see tgt_up); the short smoke leaves
# tgt's iSER driver out.
targets_of() {
	case "$1 $short" in
	"iwarp "*)	echo xt tgt ;;
	"iser "?*)	echo lio xt ;;
	*)		echo lio xt tgt ;;
	esac
}

# The type of RDMA device TRANSPORT runs on (ixt_env_rdma).
rdma_type() {
	case "$1" in
	iwarp)	echo siw ;;
	*)	echo rxe ;;
	esac
}

# target_load TARGET TRANSPORT: load the target's modules. LIO's come
# with --ignore-install, so that an installed iscsi_xt.conf cannot stand
# iscsi_xt in for them; LIO would load ib_isert itself on enable_iser,
# through the install lines. tgt's iSER driver reaches the RDMA device
# from user space: verbs and the RDMA CM's character devices.
target_load() {
	case "$1 $2" in
	"tgt tcp")	;;
	"tgt "*)	modprobe ib_uverbs && modprobe rdma_ucm ;;
	"lio tcp")	modprobe --ignore-install iscsi_target_mod ;;
	"lio iser")	modprobe --ignore-install iscsi_target_mod &&
				modprobe --ignore-install ib_isert ;;
	"xt "*)		# shellcheck disable=SC2086 # one word per parameter
			ixt_insmod $xt_params &&
				{ [ "$2" = tcp ] || ixt_insmod_iser; } ;;
	esac
}

# target_up TARGET TRANSPORT: load the target's modules and configure it.
target_up() {
	local tgt=$1 tp=$2 iser_cmds=

	target_load "$tgt" "$tp" || return 1
	[ "$tgt" = tgt ] && { tgt_up "$tp"; return; }
	# iSER: the RDMA CM listener needs the address of the RDMA device's
	# netdev, not the wildcard of targetcli's default portal, which the
	# TCP listener of the same address would collide with.
	[ "$tp" != tcp ] && iser_cmds="/iscsi/$wwn/tpg1/portals delete 0.0.0.0 3260
/iscsi/$wwn/tpg1/portals create $portal 3260
/iscsi/$wwn/tpg1/portals/$portal:3260 enable_iser true"
	targetcli >/dev/null <<EOT
/backstores/block create name=nullb dev=/dev/nullb0
/backstores/ramdisk create name=rd0 size=1G
/iscsi create $wwn
/iscsi/$wwn/tpg1/luns create /backstores/block/nullb lun=0
/iscsi/$wwn/tpg1/luns create /backstores/ramdisk/rd0 lun=1
/iscsi/$wwn/tpg1 set attribute authentication=0 generate_node_acls=1 demo_mode_write_protect=0 cache_dynamic_acls=1
$iser_cmds
EOT
	# targetcli reads on after a failed command: check what came of it.
	[ "$tp" = tcp ] ||
		[ "$(cat "$cfs/$wwn/tpgt_1/np/$portal:3260/iser" 2>/dev/null)" = 1 ]
}

# target_down TARGET TRANSPORT: clear the configuration and unload the
# target's modules, retrying a while for connections still going away.
# What "targetcli clearconfig" does, without the start-up of its shell.
target_down() {
	local m

	[ "$1" = tgt ] && { tgt_down "$2"; return; }
	python3 -c 'import rtslib_fb; rtslib_fb.RTSRoot().clear_existing(confirm=True)' \
		>/dev/null 2>&1
	[ -d "$cfs" ] && rmdir "$cfs"
	for m in $(target_modules "$1" "$2"); do
		for _ in $(seq 50); do
			[ -d "/sys/module/$m" ] || break
			rmmod "$m" 2>/dev/null && break
			sleep 0.2
		done
		[ -d "/sys/module/$m" ] && log "cannot unload $m"
	done
}

# tgt, Debian's user-space target: tgtd, configured with tgtadm, serving
# the same two LUNs to the same login as LIO and iscsi_xt. Its messages
# go to $IXT_OUT/tgtd-TRANSPORT.log, this run's from line tgt_log_from on.
tgt_rd=/run/bench-tgt-rd0.img
tgtd_pid=
tgt_log_from=1

# tgt_lld TRANSPORT: tgt's driver for TRANSPORT.
tgt_lld() {
	if [ "$1" = tcp ]; then echo iscsi; else echo iser; fi
}

# tgt_up TRANSPORT: tgtd started and its target configured.
tgt_up() {
	local tp=$1 lld me log=$IXT_OUT/tgtd-$1.log args=()

	lld=$(tgt_lld "$tp")
	me=$(sed -n 's/^InitiatorName=//p' /etc/iscsi/initiatorname.iscsi)
	# Over iSER, tgt takes each command's data into one buffer of a pool
	# it registers per RDMA device, 512 KiB by default: a larger command
	# ends its connection ("rdma-rd size:1048576 too big", -E2BIG), so
	# 1 MiB buffers for the 1 MiB cells, and 256 of them rather than the
	# default 1 GiB of pinned memory. tgtd's own TCP portal leaves port
	# 3260 for loopback: on iWARP the iSER listener needs that port of
	# the TCP stack (siw listens with kernel TCP sockets: with both on
	# it, rdma_listen fails with EADDRINUSE and tgt's iser driver stays in
	# state "error", as LIO's ib_isert fails there); on RoCE it changes
	# nothing.
	[ "$tp" = tcp ] ||
		args=(--iser "pool_sz_mb=256,buf_sz_kb=1024" --iscsi portal=127.0.0.1:3261)
	: >>"$log"
	tgt_log_from=$(($(wc -l <"$log") + 1))
	# In the foreground as our job, not as a daemon: its messages land in
	# the log (a daemon's go to a syslog the VM does not run), and
	# tgt_down has its pid.
	tgtd -f "${args[@]}" >>"$log" 2>&1 </dev/null &
	tgtd_pid=$!
	for _ in $(seq 50); do
		tgtadm --op show --mode system >/dev/null 2>&1 && break
		sleep 0.2
	done
	# tgtd runs on when a driver fails to start; "iser: error" then.
	tgtadm --op show --mode system 2>/dev/null | grep -q "^ *$lld: ready" ||
		return 1
	# LUN 0 is tgt's own controller LUN (peripheral type 0x0c, which sd
	# leaves alone: no disk), so LUN 1 is null_blk and LUN 2 the
	# ramdisk, listed in that order by ixt_session_disks as LIO's 0
	# and 1. Both backing stores are aio: libaio on a file opened with
	# O_DIRECT (always: aio refuses --bsoflags direct as redundant), IO
	# submitted from tgtd's event loop without a thread in between and
	# no page cache, the closest tgt has to LIO's iblock. rdwr, tgt's
	# default, hands each command to a pool of 16 threads doing pread
	# and pwrite: in a trial here its 4 KiB reads at iodepth 32 ran at
	# 58 % (null_blk, with direct) and 47 % (ramdisk) of aio's. The
	# ramdisk is a 1 GiB file on tmpfs, allocated up front as LIO's
	# rd_mcp allocates its pages; tmpfs takes O_DIRECT (since 6.6), so
	# aio copies straight from its pages, as rd_mcp copies from its own.
	fallocate -l 1G "$tgt_rd" &&
		tgtadm --lld "$lld" --op new --mode target --tid 1 -T "$wwn" &&
		tgtadm --lld "$lld" --op new --mode logicalunit --tid 1 --lun 1 \
			-b /dev/nullb0 --bstype aio &&
		tgtadm --lld "$lld" --op new --mode logicalunit --tid 1 --lun 2 \
			-b "$tgt_rd" --bstype aio &&
		# Every initiator, by address (ALL) and by name: tgt 1.0.85 lets
		# a TCP login in when either ACL matches, an iSER login only
		# when both do (iser_text.c checks ip_acl() and iqn_acl() in
		# turn, and iqn_acl() refuses when there is no name to match):
		# with ALL alone every iSER login fails, "target not found"
		# (status 0x0203), with nothing in tgtd's log.
		tgtadm --lld "$lld" --op bind --mode target --tid 1 -I ALL &&
		tgtadm --lld "$lld" --op bind --mode target --tid 1 -Q "$me"
}

# tgt_down TRANSPORT: tgtd stopped, port 3260 free for the next target.
# The target is deleted once its session is gone, without --force: right
# after an iSER logout the session is still there, and a forced delete
# then kills tgtd (SIGSEGV at address 0: it closes the connection with
# the generic conn_close(), and tgt's iSER transport has no ep_close).
# Over iWARP the session never goes: tgt frees an iSER connection on the
# RDMA CM's TIMEWAIT_EXIT event, which iWARP connections do not have;
# tgtd is killed then.
tgt_down() {
	local lld rc killed=

	lld=$(tgt_lld "$1")
	if [ -n "$tgtd_pid" ]; then
		for _ in $(seq 50); do
			tgtadm --lld "$lld" --op show --mode target 2>/dev/null |
				grep -q 'I_T nexus: ' || break
			sleep 0.2
		done
		tgtadm --lld "$lld" --op delete --mode target --tid 1 >/dev/null 2>&1
		# Ends tgtd, once it has no target left.
		tgtadm --op delete --mode system >/dev/null 2>&1
		for _ in $(seq 50); do
			kill -0 "$tgtd_pid" 2>/dev/null || break
			sleep 0.2
		done
		# Still there (a session that stayed): tgtd ignores SIGTERM.
		if kill -0 "$tgtd_pid" 2>/dev/null; then
			killed=1
			kill -KILL "$tgtd_pid"
		fi
		wait "$tgtd_pid" 2>/dev/null
		rc=$?
		if [ -n "$killed" ]; then
			log "tgtd did not exit: killed"
		elif [ "$rc" -ne 0 ]; then
			log "tgtd ended with status $rc (see tgtd-$1.log)"
		fi
		tgtd_pid=
	fi
	rm -f "$tgt_rd"
}

# target_why TARGET TRANSPORT: what the target said about its failure,
# for the error recorded: tgtd's last complaint since it started (the
# kernel targets' are in dmesg.log). Without pointers, which would make
# each round's message a different one, and quotes, for the JSON.
target_why() {
	[ "$1" = tgt ] || return 0
	tail -n +"$tgt_log_from" "$IXT_OUT/tgtd-$2.log" 2>/dev/null |
		grep -v 'shmget rdma pool' |
		grep -E 'fail|error|too big|in use|refused' | tail -n 1 |
		sed -E 's/ *(conn|cm_id|task):0x[0-9a-fx]+,?//g; s/["\\]//g;
			s/^tgtd: (.*)/ (tgtd: \1)/'
}

# login TRANSPORT: discovery and login through open-iscsi's iface for
# TRANSPORT ("default" for TCP, "iser" for iser and iwarp), then wait for
# both LUNs' disks.
# Over iSER the node record is made without a discovery, for LIO and
# iscsi_xt alike: in this VM open-iscsi's discovery over iSER now and
# then fails to send its SendTargets (seen with both targets in one boot,
# and iscsiadm once crashed retrying); iser_login.sh tests discovery.
login() {
	local iface=default

	if [ "$1" != tcp ]; then
		iface=iser
		iscsiadm -m node -o new -T "$wwn" -p "$portal" -I iser >/dev/null ||
			return 1
	else
		iscsiadm -m discovery -t st -p "$portal" -I "$iface" >/dev/null ||
			return 1
	fi
	iscsiadm -m node -T "$wwn" -p "$portal" -I "$iface" --login >/dev/null &&
		ixt_session_disks 2 >/dev/null
}

logout() {
	iscsiadm -m node -T "$wwn" -p "$portal" --logout >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
}

# rdma_bound DEV TOOL SIZE ITERATIONS: perftest's TOOL over DEV, through
# the RDMA CM as iSER goes, server and client on DEV; the client's output
# is kept in $IXT_OUT/DEV-TOOL.log for rdma_bounds_parse.
rdma_bound() {
	local dev=$1 tool=$2 size=$3 iters=$4 srv

	timeout 120 "$tool" -R -F -d "$dev" -s "$size" -n "$iters" \
		>"$IXT_OUT/$dev-$tool.server.log" 2>&1 &
	srv=$!
	for _ in $(seq 50); do
		rdma res show cm_id 2>/dev/null | grep -q 'LISTEN.*:18515 ' && break
		sleep 0.1
	done
	timeout 120 "$tool" -R -F -d "$dev" -s "$size" -n "$iters" "$IXT_ADDR4_T" \
		>"$IXT_OUT/$dev-$tool.log" 2>&1
	wait "$srv"
}

# The RDMA bounds of DEV as cells (target "rdma", transport DEV):
# ib_write_bw of 64 KiB (bytes/s) and ib_read_lat of 4 KiB (typical and
# 99th percentile).
rdma_bounds_parse() {
	python3 - "$IXT_OUT" "$1" >>"$out" <<'PY'
import json, os, sys
dev = sys.argv[2]
for tool, size in (("ib_write_bw", "65536"), ("ib_read_lat", "4096")):
    cell = "%s-%dk" % (tool, int(size) // 1024)
    rec = {"target": "rdma", "transport": dev, "backstore": "-", "cell": cell, "round": 1}
    try:
        with open(os.path.join(sys.argv[1], "%s-%s.log" % (dev, tool))) as f:
            row = next(l.split() for l in f
                       if l.split()[:1] == [size] and len(l.split()) >= 4)
        if tool == "ib_write_bw":
            # bytes, iterations, peak and average MiB/s, Mpps
            rec["bw"] = float(row[3]) * 2**20
        else:
            # bytes, iterations, min, max, typical, avg, stdev, 99%, 99.9% us
            rec.update(p50_us=float(row[4]), p99_us=float(row[7]))
    except Exception as e:
        rec["error"] = "%s: %s" % (tool, str(e) or "no result")
    print(json.dumps(rec))
PY
}

# The scale job's targets: $wwn-sN for N from 1 to scale_max, and
# $wwn-chap for the logins.
scale_counts="16 4 1"
scale_max=16
# With 16 sessions also: far more than the default 64 MiB of cache lines.
pressure=write-1m-qd32
scale_logins=10
# The targets the scale and noisy-neighbour jobs measure, in the order run.
job_targets="lio xt"
# The backstores of the matrix.
backstores="nullb rd"
# The short smoke: each step of each job, once and small (128 MiB in
# flight in the pressure cell, still twice the cache lines).
if [ -n "$short" ]; then
	scale_counts="4 1"
	scale_max=4
	scale_logins=3
	job_targets=xt
	backstores=nullb
fi
chap_user=bench
chap_secret=bench-secret-1

# scale_up TARGET: TARGET's modules over TCP and the scale job's targets,
# in one targetcli run; discovery finds them all.
scale_up() {
	local i w me

	target_load "$1" tcp || return 1
	me=$(sed -n 's/^InitiatorName=//p' /etc/iscsi/initiatorname.iscsi)
	for ((i = 1; i <= scale_max; i++)); do
		w=$wwn-s$i
		echo "/backstores/block create name=nullb$i dev=/dev/nullb$i"
		echo "/iscsi create $w"
		echo "/iscsi/$w/tpg1/luns create /backstores/block/nullb$i lun=0"
		echo "/iscsi/$w/tpg1 set attribute authentication=0 generate_node_acls=1 demo_mode_write_protect=0 cache_dynamic_acls=1"
	done | {
		cat
		w=$wwn-chap
		cat <<EOT
/backstores/block create name=nullb dev=/dev/nullb0
/iscsi create $w
/iscsi/$w/tpg1/luns create /backstores/block/nullb lun=0
/iscsi/$w/tpg1/acls create $me
/iscsi/$w/tpg1/acls/$me set auth userid=$chap_user password=$chap_secret
/iscsi/$w/tpg1 set attribute authentication=1 generate_node_acls=0
EOT
	} | targetcli >/dev/null
	[ -d "$cfs/$wwn-chap/tpgt_1/acls/$me" ] &&
		iscsiadm -m discovery -t st -p "$portal" >/dev/null &&
		iscsiadm -m node -T "$wwn-chap" -p "$portal" -o update \
			-n node.session.auth.authmethod -v CHAP \
			-n node.session.auth.username -v "$chap_user" \
			-n node.session.auth.password -v "$chap_secret" >/dev/null
}

# scale_cells N: the scale job's fio cells with N sessions.
scale_cells() {
	echo "randread-4k-qd8-x$1"
	[ "$1" -ne "$scale_max" ] || echo "$pressure-x$1"
}

# scale_sessions N: log in or out until exactly the first N scale targets
# have a session, and print their disks.
scale_sessions() {
	local i op

	for ((i = 1; i <= scale_max; i++)); do
		op=--logout
		[ "$i" -le "$1" ] && op=--login
		iscsiadm -m node -T "$wwn-s$i" -p "$portal" "$op" >/dev/null 2>&1
	done
	[ "$1" -eq 0 ] || ixt_session_disks "$1"
}

# The kernel's memory in use, in KiB, "FREE SLAB", the caches dropped.
mem_used() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	awk '/^MemFree:/ { f = $2 } /^Slab:/ { s = $2 } END { print -f, s }' /proc/meminfo
}

# pool_set_full TARGET: iscsi_xt's count of commands answered TASK SET
# FULL for want of cache lines (debugfs), nothing for another target.
pool_set_full() {
	[ "$1" = xt ] || return 0
	awk '$1 == "set_full" { print $2 }' /sys/kernel/debug/iscsi_xt/pool
}

# scale_round TARGET ROUND: the scale job for TARGET, its cells appended.
scale_round() {
	local target=$1 round=$2 n m0 m1 t0 ok=0 i disks cell sf0
	local idle=idle-sessions-x$scale_max

	log "round $round: scale job, $target"
	if ! scale_up "$target"; then
		log "$target: scale job: configuration failed"
		for n in $scale_counts; do
			for cell in $(scale_cells "$n"); do
				record_error "$target" tcp nullb "$cell" "$round" "configuration failed"
			done
		done
		record_error "$target" tcp - "$idle" "$round" "configuration failed"
		record_error "$target" tcp nullb login-chap "$round" "configuration failed"
		scale_sessions 0
		iscsiadm -m node -o delete >/dev/null 2>&1
		target_down "$target" tcp
		return
	fi
	m0=$(mem_used)
	if mapfile -t disks < <(scale_sessions "$scale_max") &&
		[ "${#disks[@]}" -eq "$scale_max" ]; then
		sleep 2
		m1=$(mem_used)
		printf '{"target": "%s", "transport": "tcp", "backstore": "-", "cell": "%s", "round": %d, "mem_kib": %d, "slab_kib": %d}\n' \
			"$target" "$idle" "$round" \
			$(((${m1% *} - ${m0% *}) / scale_max)) \
			$(((${m1#* } - ${m0#* }) / scale_max)) >>"$out"
	else
		record_error "$target" tcp - "$idle" "$round" "login failed"
	fi
	for n in $scale_counts; do
		if mapfile -t disks < <(scale_sessions "$n") && [ "${#disks[@]}" -eq "$n" ]; then
			for cell in $(scale_cells "$n"); do
				sf0=$(pool_set_full "$target")
				run_cell "$target" tcp nullb "$cell" "$round" "${disks[@]}"
				[ -z "$sf0" ] || log "$target: $cell: $(($(pool_set_full "$target") - sf0)) commands answered TASK SET FULL for want of cache lines"
			done
		else
			for cell in $(scale_cells "$n"); do
				record_error "$target" tcp nullb "$cell" "$round" "login failed"
			done
		fi
	done
	flush_cells
	scale_sessions 0
	t0=$(date +%s.%N)
	for ((i = 0; i < scale_logins; i++)); do
		iscsiadm -m node -T "$wwn-chap" -p "$portal" --login >/dev/null 2>&1 &&
			iscsiadm -m node -T "$wwn-chap" -p "$portal" --logout >/dev/null 2>&1 &&
			ok=$((ok + 1))
	done
	if [ "$ok" -eq "$scale_logins" ]; then
		printf '{"target": "%s", "transport": "tcp", "backstore": "nullb", "cell": "login-chap", "round": %d, "logins_per_s": %s}\n' \
			"$target" "$round" "$(echo "$t0 $(date +%s.%N)" |
				awk -v n="$ok" '{ printf "%.2f", n / ($2 - $1) }')" >>"$out"
	else
		record_error "$target" tcp nullb login-chap "$round" "$((scale_logins - ok)) of $scale_logins CHAP logins failed"
	fi
	iscsiadm -m node -o delete >/dev/null 2>&1
	target_down "$target" tcp
}

# matrix_round ROUND: the fio matrix over each transport, for each target.
matrix_round() {
	local round=$1 tp target err bs cell disks

	for tp in $transports; do
		ixt_env_rdma "$(rdma_type "$tp")" ||
			log "cannot put $(rdma_type "$tp")0 on veth0"
		for target in $(targets_of "$tp"); do
			log "round $round: $target over $tp"
			err=
			if ! target_up "$target" "$tp"; then
				err="configuration failed$(target_why "$target" "$tp")"
			elif ! login "$tp"; then
				err="login failed$(target_why "$target" "$tp")"
			fi
			if [ -n "$err" ]; then
				log "$target over $tp: $err"
				for bs in $backstores; do
					for cell in $cells; do
						record_error "$target" "$tp" "$bs" "$cell" "$round" "$err"
					done
				done
				logout
				target_down "$target" "$tp"
				continue
			fi
			mapfile -t disks < <(ixt_session_disks 2)
			for cell in $cells; do
				run_cell "$target" "$tp" nullb "$cell" "$round" "${disks[0]}"
				listed rd "$backstores" &&
					run_cell "$target" "$tp" rd "$cell" "$round" "${disks[1]}"
			done
			flush_cells
			logout
			target_down "$target" "$tp"
		done
	done
}

. "$IXT_TOP/scripts/bench/noisy.sh"

# Device 0 for the matrix and the CHAP target, 1 to scale_max for the
# scale job.
modprobe null_blk nr_devices=$((scale_max + 1)) max_sectors=2048 gb=4 ||
	{ log "cannot load null_blk"; exit 1; }
# The iSER initiator's commands up to 1 MiB, as over TCP and null_blk
# (its default, 512 KiB, would split the 1 MiB cells).
case " $transports " in
*" iser "* | *" iwarp "*)
	modprobe ib_iser max_sectors=2048 || log "cannot load ib_iser"
	;;
esac

for ((round = 1; round <= rounds; round++)); do
	listed matrix "$jobs" && matrix_round "$round"
	if listed scale "$jobs" && listed tcp "$transports"; then
		for target in $job_targets; do
			scale_round "$target" "$round"
		done
	fi
	if listed noisy "$jobs" && listed tcp "$transports"; then
		for target in $job_targets; do
			noisy_round "$target" "$round"
		done
	fi
done

# The short smoke measures no bounds.
[ -z "$short" ] || { log "done"; exit 0; }

if listed matrix "$jobs"; then
	log "bounds: local null_blk"
	for cell in $cells; do
		run_cell local - nullb "$cell" 1 /dev/nullb0
	done
	flush_cells
fi

case " $transports " in
*" tcp "*)
	log "bounds: TCP over the veth pair"
	iperf3 -s -D -B "$IXT_ADDR4_T" >/dev/null 2>&1
	sleep 1
	iperf3 -c "$IXT_ADDR4_T" -B "$IXT_ADDR4_I" -t "$runtime" -J 2>/dev/null |
		python3 -c '
import json, sys
rec = {"target": "tcp", "transport": "-", "backstore": "-", "cell": "iperf3", "round": 1}
try:
    rec["bw"] = json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 8
except Exception as e:
    rec["error"] = str(e)
print(json.dumps(rec))
' >>"$out"
	pkill iperf3
	;;
esac

for tp in $transports; do
	[ "$tp" = tcp ] && continue
	dev=$(rdma_type "$tp")0
	log "bounds: RDMA over $dev"
	ixt_env_rdma "$(rdma_type "$tp")"
	# About RUNTIME seconds at 100 MB/s.
	rdma_bound "$dev" ib_write_bw 65536 $((1500 * runtime))
	rdma_bound "$dev" ib_read_lat 4096 1000
	rdma_bounds_parse "$dev"
done
ixt_env_rdma rxe
log "done"
