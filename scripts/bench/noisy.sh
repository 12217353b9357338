# SPDX-License-Identifier: GPL-2.0
#
# The noisy-neighbour job of make bench, sourced by guest.sh (whose log,
# target_load, target_down, record_error, $runtime, $wwn, $portal, $cfs
# and $out it uses), over TCP, LIO and then iscsi_xt in each round.
#
# One LUN, shared by two sessions: a flood (4 KiB random writes at
# iodepth 128, the initiator's queue depth raised to match) and a light
# one (4 KiB random reads at iodepth 1). The sessions go to two targets
# that export the same backstore, one ACL each, so that each ACL's "info"
# file shows its session's command window (CmdSN/WR: LIO's is its static
# queue depth, iscsi_xt's adapts) and the room the last MaxCmdSN leaves
# (CmdSN/WC, MaxCmdSN - ExpCmdSN + 1: 0 while a flood fills the window).
#
# The backstore is a device-mapper linear device that points at one of
# two null_blk devices, and the job switches it under the running IO (a
# table loaded, then resumed): fast (as the matrix's null_blk), then
# slow, then fast again. The slow device completes each IO after 2 ms and
# serves at most noisy_mbps MiB/s, with a queue deep enough that nothing
# blocks its submitters: what a busy shared array looks like to the
# target, whose commands then wait in the device's queue in arrival
# order. Its scheduler is "none", so that the block layer does not serve
# reads before writes (mq-deadline would, and would hide the flood from
# a light reader with either target).
#
# Each run's logs (fio's per-IO latency of the light session, both
# sessions' IOPS per second, the windows sampled four times a second, the
# phases' times) go to $IXT_OUT/noisy/, one Python run turns them into a
# time series (TARGET-rROUND.tsv, seconds from the start of the slow
# phase) and one record for cells.jsonl: the light session's
# latency, both sessions' IOPS and the flood's window, per phase.

noisy_mbps=4
noisy_slow_ns=2000000
noisy_dir=$IXT_OUT/noisy
noisy_nbcfs=/sys/kernel/config/nullb
noisy_dm=noisy
# The flood and the light session, each a target of its own.
noisy_flood=$wwn-flood
noisy_light=$wwn-light
# dmsetup makes the device node itself: there is no udev in the VM.
export DM_DISABLE_UDEV=1

# noisy_nullb NAME ATTR=VALUE...: a null_blk device NAME of 4 GiB (not
# memory-backed: the job never reads back what it wrote) made through
# null_blk's configfs, with ATTRs, and its scheduler set to none.
noisy_nullb() {
	local d=$noisy_nbcfs/$1 kv

	shift
	mkdir "$d" || return 1
	for kv in size=4096 hw_queue_depth=1024 "$@" power=1; do
		echo "${kv#*=}" >"$d/${kv%%=*}" || return 1
	done
	[ -b "/dev/${d##*/}" ] &&
		echo none >"/sys/block/${d##*/}/queue/scheduler"
}

# noisy_table fast|slow: the linear table of the shared device.
noisy_table() {
	echo "0 $((4096 * 2048)) linear /dev/nb$1 0"
}

# noisy_backend: the two null_blk devices and the shared device, fast.
noisy_backend() {
	[ -b "/dev/mapper/$noisy_dm" ] && return 0
	noisy_nullb nbfast &&
		noisy_nullb nbslow irqmode=2 completion_nsec=$noisy_slow_ns \
			mbps=$noisy_mbps &&
		noisy_table fast | dmsetup create "$noisy_dm"
}

# noisy_switch fast|slow: point the shared device at that null_blk device
# under the running IO. The resume of a device with a new table loaded
# suspends it, swaps the tables and resumes it in one call: it holds new
# IO only while the IO in flight drains, not while dmsetup starts up
# three times (which under TCG took a second).
noisy_switch() {
	dmsetup load "$noisy_dm" --table "$(noisy_table "$1")" &&
		dmsetup resume "$noisy_dm"
}

# noisy_up TARGET: TARGET's modules over TCP, the two targets over the
# shared device with an ACL each, and the flood's session logged in with
# a queue depth of 128.
noisy_up() {
	local me w

	noisy_backend || { log "noisy: cannot make the backend"; return 1; }
	target_load "$1" tcp || return 1
	me=$(sed -n 's/^InitiatorName=//p' /etc/iscsi/initiatorname.iscsi)
	{
		echo "/backstores/block create name=noisy dev=/dev/mapper/$noisy_dm"
		for w in "$noisy_flood" "$noisy_light"; do
			echo "/iscsi create $w"
			echo "/iscsi/$w/tpg1/luns create /backstores/block/noisy lun=0"
			echo "/iscsi/$w/tpg1/acls create $me"
			echo "/iscsi/$w/tpg1 set attribute authentication=0 generate_node_acls=0"
		done
	} | targetcli >/dev/null
	[ -d "$cfs/$noisy_light/tpgt_1/acls/$me" ] &&
		iscsiadm -m discovery -t st -p "$portal" >/dev/null &&
		iscsiadm -m node -T "$noisy_flood" -p "$portal" -o update \
			-n node.session.queue_depth -v 128 >/dev/null &&
		iscsiadm -m node -T "$noisy_flood" -p "$portal" --login >/dev/null
}

# noisy_disks: the light session logged in, the disks of the flood and
# of the light session on one line; the flood's session is the only
# one when this starts.
noisy_disks() {
	local flood disks

	flood=$(ixt_session_disks 1) &&
		iscsiadm -m node -T "$noisy_light" -p "$portal" --login >/dev/null &&
		disks=$(ixt_session_disks 2) || return 1
	echo "$flood" "$(grep -vx "$flood" <<<"$disks")"
}

# noisy_window FILE: "WINDOW ROOM" of the session an ACL's info FILE
# shows (its CmdSN/WR and CmdSN/WC); "NaN NaN" without a session.
noisy_window() {
	local line wr wc

	while read -r line; do
		[[ $line == *CmdSN/WR* ]] || continue
		read -r wr wc _ || break
		echo $((wr)) $((wc))
		return
	done <"$1"
	echo NaN NaN
}

# noisy_sample FLOOD_INFO LIGHT_INFO STOP: "EPOCH_MS WINDOW ROOM WINDOW
# ROOM" of the flood and the light session four times a second until the
# file STOP exists.
noisy_sample() {
	local t

	while [ ! -e "$3" ]; do
		t=${EPOCHREALTIME/./}
		echo "$((t / 1000)) $(noisy_window "$1") $(noisy_window "$2")"
		sleep 0.25
	done
}

# noisy_started FLOOD LIGHT: whether both disks (sdX) have completed IO
# since the STATS ("writes reads") noisy_stats gave, waiting up to 60 s:
# fio starts in seconds under TCG, and the phases are timed from here.
noisy_started() {
	local w0 r0 w r

	read -r w0 r0 <<<"$3"
	for _ in $(seq 300); do
		read -r w r <<<"$(noisy_stats "$1" "$2")"
		[ "$w" -gt "$w0" ] && [ "$r" -gt "$r0" ] && return 0
		sleep 0.2
	done
	return 1
}

# noisy_stats FLOOD LIGHT: "WRITES READS", the writes of the flood's disk
# and the reads of the light session's completed so far.
noisy_stats() {
	local f l

	read -ra f <"/sys/block/${1#/dev/}/stat"
	read -ra l <"/sys/block/${2#/dev/}/stat"
	echo "${f[4]} ${l[0]}"
}

noisy_ms() {
	local t=${EPOCHREALTIME/./}

	echo $((t / 1000))
}

# noisy_fio NAME DISK RUNTIME ARGS...: one session's fio in the
# background, its logs with epoch times in $noisy_dir/NAME*. SIGINT to
# the job (timeout passes it on) ends fio early, its logs written.
noisy_fio() {
	local name=$1 disk=$2 secs=$3

	shift 3
	timeout -k 30 $((secs + 300)) \
		fio --name="$name" --filename="$disk" --ioengine=libaio \
		--direct=1 --bs=4k --time_based --runtime="$secs" \
		--log_unix_epoch=1 --output-format=json \
		--output="$noisy_dir/$name.json" "$@" >"$noisy_dir/$name.log" 2>&1 &
}

# noisy_round TARGET ROUND: the job for TARGET; its record is appended to
# cells.jsonl, its time series left in $noisy_dir.
noisy_round() {
	local target=$1 round=$2 me flood light sampler pids stats t0 on off end
	local fast=$((runtime < 2 ? 2 : runtime))
	local slow=$((2 * fast)) tag=$1-r$2 err=
	local f=$noisy_dir/$1-r$2

	log "round $round: noisy neighbour, $target"
	mkdir -p "$noisy_dir"
	me=$(sed -n 's/^InitiatorName=//p' /etc/iscsi/initiatorname.iscsi)
	if ! noisy_up "$target"; then
		err="configuration or login failed"
	elif ! read -r flood light < <(noisy_disks) || [ -z "$light" ]; then
		err="login or disks failed"
	fi
	if [ -z "$err" ]; then
		rm -f "$f".stop
		noisy_sample "$cfs/$noisy_flood/tpgt_1/acls/$me/info" \
			"$cfs/$noisy_light/tpgt_1/acls/$me/info" "$f.stop" \
			>"$f-windows.txt" &
		sampler=$!
		stats=$(noisy_stats "$flood" "$light")
		noisy_fio "$tag-flood" "$flood" $((2 * fast + slow + 60)) \
			--rw=randwrite --iodepth=128 --write_iops_log="$f-flood" \
			--log_avg_msec=1000
		pids=$!
		noisy_fio "$tag-light" "$light" $((2 * fast + slow + 60)) \
			--rw=randread --iodepth=1 --write_lat_log="$f-light"
		pids+=" $!"
		noisy_started "$flood" "$light" "$stats" ||
			err="fio did not start within 60 s"
		t0=$(noisy_ms)
		sleep $((fast + 1))
		noisy_switch slow || err="cannot switch to the slow device"
		on=$(noisy_ms)
		sleep "$slow"
		noisy_switch fast || err="cannot switch back to the fast device"
		off=$(noisy_ms)
		sleep "$fast"
		end=$(noisy_ms)
		# shellcheck disable=SC2086 # one word per pid
		kill -INT $pids
		# shellcheck disable=SC2086
		wait $pids
		touch "$f.stop"
		wait "$sampler"
		echo "$t0 $on $off $end" >"$f-phases.txt"
	fi
	if [ -n "$err" ]; then
		log "$target: noisy neighbour: $err"
		record_error "$target" tcp noisy noisy "$round" "$err"
	else
		noisy_parse "$target" "$round" "$f" >>"$out"
	fi
	iscsiadm -m node -T "$noisy_flood" -p "$portal" --logout >/dev/null 2>&1
	iscsiadm -m node -T "$noisy_light" -p "$portal" --logout >/dev/null 2>&1
	iscsiadm -m node -o delete >/dev/null 2>&1
	target_down "$target" tcp
	# The switch leaves the device fast even after a failure above.
	noisy_switch fast >/dev/null 2>&1
}

# noisy_parse TARGET ROUND PREFIX: the run's record on stdout, its time
# series in PREFIX.tsv: per second from the start of the slow phase, the
# light session's p50 and p99 latency (us) and IOPS, the flood's IOPS,
# the flood's window and room and the light session's window (medians of
# the samples).
noisy_parse() {
	python3 - "$@" <<'PY'
import json
import statistics
import sys

target, rnd, pre = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rec = {"target": target, "transport": "tcp", "backstore": "noisy",
       "cell": "noisy", "round": rnd}


def rows(path, n=3):
    with open(path) as f:
        return [[float(v) for v in line.replace(",", " ").split()[:n]]
                for line in f if line.strip()]


def pct(vals, p):
    vals = sorted(vals)
    return vals[min(len(vals) - 1, int(p / 100 * len(vals)))] if vals else None


try:
    with open(pre + "-phases.txt") as f:
        t0, on, off, end = (float(v) for v in f.read().split())
    lat = [(t, ns / 1000) for t, ns, _ in rows(pre + "-light_lat.1.log")]
    iops = [(t - 500, v) for t, v, _ in rows(pre + "-flood_iops.1.log")]
    # The flood's window and room, the light session's window.
    win = [(t, a, b, c) for t, a, b, c, _ in rows(pre + "-windows.txt", 5)]
    # The phases, in epoch ms: the first second is fio's start-up.
    phases = {"fast": (t0 + 1000, on), "slow": (on, off), "rec": (off, end)}
    rec["slow_s"] = (off - on) / 1000
    for name, (a, b) in phases.items():
        us = [v for t, v in lat if a <= t < b]
        secs = (b - a) / 1000
        rec[f"light_p50_{name}_us"] = pct(us, 50)
        rec[f"light_p99_{name}_us"] = pct(us, 99)
        rec[f"light_iops_{name}"] = len(us) / secs if secs > 0 else None
        fl = [v for t, v in iops if a <= t < b]
        rec[f"flood_iops_{name}"] = statistics.mean(fl) if fl else None
        wf = [w for t, w, _, _ in win if a <= t < b and w == w]
        rec[f"win_flood_{name}"] = statistics.median(wf) if wf else None
        rec[f"win_flood_{name}_min"] = min(wf) if wf else None
        rf = [r for t, _, r, _ in win if a <= t < b and r == r]
        rec[f"room_flood_{name}"] = statistics.median(rf) if rf else None
        wl = [w for t, _, _, w in win if a <= t < b and w == w]
        rec[f"win_light_{name}"] = statistics.median(wl) if wl else None
    if rec["flood_iops_slow"] is not None:
        rec["total_iops_slow"] = rec["flood_iops_slow"] + rec["light_iops_slow"]
    # The time series, a row per second, 0 = the slow phase's start.
    with open(pre + ".tsv", "w") as f:
        f.write("# s light_p50_us light_p99_us light_iops flood_iops "
                "win_flood room_flood win_light\n")
        for s in range(int((t0 - on) // 1000), int((end - on) // 1000) + 1):
            a, b = on + s * 1000, on + (s + 1) * 1000
            us = [v for t, v in lat if a <= t < b]
            fl = [v for t, v in iops if a <= t < b]
            cols = [pct(us, 50), pct(us, 99), len(us),
                    statistics.mean(fl) if fl else None]
            for i in (1, 2, 3):
                ws = [r[i] for r in win if a <= r[0] < b and r[i] == r[i]]
                cols.append(statistics.median(ws) if ws else None)
            f.write(" ".join([str(s)] + ["NaN" if v is None else f"{v:.1f}"
                                         for v in cols]) + "\n")
    rec["series"] = pre.rsplit("/", 1)[-1] + ".tsv"
except Exception as e:
    rec["error"] = "noisy: %s" % e
print(json.dumps(rec))
PY
}
