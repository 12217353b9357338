#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest job of make bench: for each round, LIO's iscsi_target_mod and then
# iscsi_xt, configured identically with targetcli, logged in with
# open-iscsi over TCP, each running the fio matrix on an iblock LUN over
# null_blk and on a ramdisk LUN. Then the bounds of this machine: the same
# matrix on the local null_blk device and raw TCP over the test veth pair.
#
#   guest.sh ROUNDS RUNTIME RAMP XT_PARAMS [CELL...]
#
# XT_PARAMS: iscsi_xt module parameters, space-separated; may be empty.
#
# One JSON object per measured cell is appended to $IXT_OUT/cells.jsonl.

set -uo pipefail

. "$IXT_TOP/scripts/vm/guest-env.sh"

rounds=$1 runtime=$2 ramp=$3 xt_params=$4
shift 4
all_cells="randread-4k-qd1 randread-4k-qd32 randwrite-4k-qd32 read-64k-qd8 read-1m-qd4 write-1m-qd4"
cells=${*:-$all_cells}
wwn=iqn.2026-11.org.example:bench
portal=$IXT_ADDR4_T
out=$IXT_OUT/cells.jsonl
fio_json=/run/bench-fio.json
: >"$out"

log() { echo "bench: $*"; }

# fio parameters of a cell name "rw-bs-qdN".
cell_args() {
	local rw=${1%%-*} rest=${1#*-}
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

# run_cell TARGET BACKSTORE CELL DEVICE ROUND
run_cell() {
	local target=$1 bs=$2 cell=$3 dev=$4 round=$5 b0 b1 tcp

	tcp_trouble >/dev/null
	b0=$(cpu_busy)
	# shellcheck disable=SC2046
	fio --name=bench --filename="$dev" --ioengine=libaio --direct=1 \
		--time_based --runtime="$runtime" --ramp_time="$ramp" \
		--output-format=json --output="$fio_json" $(cell_args "$cell") \
		>/dev/null 2>&1
	b1=$(cpu_busy)
	tcp=$(tcp_trouble)
	python3 - "$target" "$bs" "$cell" "$round" "$((b1 - b0))" \
		"$(getconf CLK_TCK)" "$runtime" "$ramp" "$fio_json" $tcp >>"$out" <<'PY'
import json, sys
target, bs, cell, rnd, busy, hz, runtime, ramp, path, retrans, rto = sys.argv[1:]
rec = {"target": target, "backstore": bs, "cell": cell, "round": int(rnd),
       "tcp_retrans": int(retrans), "tcp_timeouts": int(rto)}
try:
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
    rec.update(iops=ios / secs, bw=bw, p50_us=lat.get("50.000000", 0) / 1000,
               p99_us=lat.get("99.000000", 0) / 1000,
               cpu_us_per_io=busy_s * 1e6 / ios if ios else None)
except Exception as e:
    rec["error"] = "fio: %s" % e
print(json.dumps(rec))
PY
}

record_error() {
	printf '{"target": "%s", "backstore": "%s", "cell": "%s", "round": %d, "error": "%s"}\n' \
		"$1" "$2" "$3" "$4" "$5" >>"$out"
}

target_up() {
	case "$1" in
	lio)	modprobe --ignore-install iscsi_target_mod ;;
	xt)	# shellcheck disable=SC2086 # one word per parameter
		ixt_insmod $xt_params ;;
	esac || return 1
	targetcli >/dev/null <<EOT
/backstores/block create name=nullb dev=/dev/nullb0
/backstores/ramdisk create name=rd0 size=1G
/iscsi create $wwn
/iscsi/$wwn/tpg1/luns create /backstores/block/nullb lun=0
/iscsi/$wwn/tpg1/luns create /backstores/ramdisk/rd0 lun=1
/iscsi/$wwn/tpg1 set attribute authentication=0 generate_node_acls=1 demo_mode_write_protect=0 cache_dynamic_acls=1
EOT
}

target_down() {
	targetcli clearconfig confirm=true >/dev/null 2>&1
	[ -d /sys/kernel/config/target/iscsi ] && rmdir /sys/kernel/config/target/iscsi
	case "$1" in
	lio)	rmmod iscsi_target_mod ;;
	xt)	rmmod iscsi_xt ;;
	esac
}

login() {
	iscsiadm -m discovery -t st -p "$portal" >/dev/null &&
		iscsiadm -m node -T "$wwn" -p "$portal" --login >/dev/null &&
		ixt_session_disks 2 >/dev/null
}

logout() {
	iscsiadm -m node -T "$wwn" -p "$portal" --logout >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
}

modprobe null_blk nr_devices=1 max_sectors=2048 gb=4 ||
	{ log "cannot load null_blk"; exit 1; }

for ((round = 1; round <= rounds; round++)); do
	for target in lio xt; do
		log "round $round: $target"
		if ! target_up "$target" || ! login; then
			for bs in nullb rd; do
				for cell in $cells; do
					record_error "$target" "$bs" "$cell" "$round" "configuration or login failed"
				done
			done
			logout
			target_down "$target"
			continue
		fi
		mapfile -t disks < <(ixt_session_disks 2)
		for cell in $cells; do
			run_cell "$target" nullb "$cell" "${disks[0]}" "$round"
			run_cell "$target" rd "$cell" "${disks[1]}" "$round"
		done
		logout
		target_down "$target"
	done
done

log "bounds: local null_blk"
for cell in $cells; do
	run_cell local nullb "$cell" /dev/nullb0 1
done

log "bounds: TCP over the veth pair"
iperf3 -s -D -B "$IXT_ADDR4_T" >/dev/null 2>&1
sleep 1
iperf3 -c "$IXT_ADDR4_T" -B "$IXT_ADDR4_I" -t "$runtime" -J 2>/dev/null |
	python3 -c '
import json, sys
try:
    bw = json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 8
    print(json.dumps({"target": "tcp", "backstore": "-", "cell": "iperf3", "round": 1, "bw": bw}))
except Exception as e:
    print(json.dumps({"target": "tcp", "backstore": "-", "cell": "iperf3", "round": 1, "error": str(e)}))
' >>"$out"
pkill iperf3
log "done"
