# SPDX-License-Identifier: GPL-2.0
#
# Sourced by scripts/vm/run.sh (one VM) and scripts/vm/multi.sh (several):
# the kernel to boot, the job a VM runs, and its boots under QEMU.
#
#   ixt_vm_kernel DEBUG            sets ktree, kver, kernel, initrd and debug
#                                  (the kernel options of -d when DEBUG is
#                                  set) and builds the initramfs
#   ixt_vm_job OUT EXTRA SCRIPT [ARGS...]
#                                  writes OUT/job.sh: the variables passed
#                                  on, the lines of EXTRA, then SCRIPT
#   ixt_vm_run OUT NAME SMP MEM TIMEOUT PREFIX [QEMU_ARGS...]
#                                  boots (again when the kernel died before
#                                  the job started); sets timed_out
#
# The caller sets top and build. ixt_vm_run prints the job's output as it
# comes, each line after "[PREFIX] " when PREFIX is not empty; each boot is
# killed after TIMEOUT seconds, or at vm_deadline (a value of $SECONDS)
# when that comes first.

# shellcheck disable=SC2154 # top and build: set by the caller
vm_deadline=

ixt_vm_kernel() {
	ktree=$build/kernel
	[ -z "${IXT_KERNEL_DIR:-}" ] || ktree=$(realpath "$IXT_KERNEL_DIR")
	kver=$(cat "$ktree/KVER")
	kernel=$ktree/boot/vmlinuz-$kver
	initrd=$build/vm/initramfs${IXT_KERNEL_DIR:+-$kver}.cpio.gz
	# -d: SLUB's red zones, poisoning, checks and allocation traces, KFENCE,
	# memory cleared when freed. A KASAN kernel checks every access with red
	# zones and a quarantine of its own: SLUB keeps only its traces there
	# (alloc_fail.sh and tcp_session_memory.sh read them), a KASAN kernel
	# under TCG being slow enough. It also boots with four-level page tables
	# (no5lvl; QEMU's "max" CPU has LA57): with five, an interrupt that came
	# before the boot CPU was identified met a KASAN shadow check that took
	# a direct-map address for a wild one ("BUG: KASAN: wild-memory-access
	# in do_raw_spin_lock", from handle_edge_irq), which turned lockdep off
	# for the whole boot. And KASAN reports every bad access, not only the
	# boot's first (kasan_multi_shot): one test's report must not hide the
	# next test's.
	debug=
	if [ -n "$1" ]; then
		if grep -qx CONFIG_KASAN=y "$ktree/boot/config-$kver" 2>/dev/null; then
			debug="slub_debug=U kfence.sample_interval=10 no5lvl kasan_multi_shot"
		else
			debug="slub_debug=FZPU kfence.sample_interval=10 init_on_free=1"
		fi
	fi
	"$top/scripts/vm/mkinitramfs.sh" "$ktree" "$initrd"
}

ixt_vm_job() {
	local out=$1 extra=$2 script=$3

	shift 3
	{
		echo "export IXT_TOP=$(printf %q "$top") IXT_OUT=$(printf %q "$out")"
		echo "export IXT_BUILD=$(printf %q "$build") IXT_KVER=$(printf %q "$kver")"
		echo "export IXT_RDMA=$(printf %q "${IXT_RDMA:-rxe}")"
		echo "export IXT_ALLOC_FULL=$(printf %q "${IXT_ALLOC_FULL:-}")" \
			"IXT_ALLOC_OWNED=$(printf %q "${IXT_ALLOC_OWNED:-}")"
		echo "export IXT_KSFT_TIMEOUT=$(printf %q "${IXT_KSFT_TIMEOUT:-}")" \
			"IXT_SOAK_SECONDS=$(printf %q "${IXT_SOAK_SECONDS:-}")" \
			"IXT_SOAK_SEED=$(printf %q "${IXT_SOAK_SEED:-}")" \
			"IXT_SOAK_KINDS=$(printf %q "${IXT_SOAK_KINDS:-}")"
		echo "export IXT_TRANSPORTS=$(printf %q "${IXT_TRANSPORTS:-}")" \
			"IXT_MUTATE_SECONDS=$(printf %q "${IXT_MUTATE_SECONDS:-}")" \
			"IXT_MUTATE_SEED=$(printf %q "${IXT_MUTATE_SEED:-}")" \
			"IXT_MUTATE_ARGS=$(printf %q "${IXT_MUTATE_ARGS:-}")"
		echo "export IXT_STATEFUZZ_SECONDS=$(printf %q "${IXT_STATEFUZZ_SECONDS:-}")" \
			"IXT_STATEFUZZ_SEED=$(printf %q "${IXT_STATEFUZZ_SEED:-}")" \
			"IXT_STATEFUZZ_ARGS=$(printf %q "${IXT_STATEFUZZ_ARGS:-}")"
		[ -z "${IXT_KERNEL_DIR:-}" ] ||
			echo "export IXT_KERNEL_DIR=$(printf %q "$ktree")"
		[ -z "${IXT_SLOW:-}" ] ||
			echo "export IXT_SLOW=$(printf %q "$IXT_SLOW")"
		[ -z "${IXT_KO:-}" ] ||
			echo "export IXT_KO=$(printf %q "$(realpath "$IXT_KO")")"
		[ -z "$extra" ] || echo "$extra"
		echo "cd \"\$IXT_TOP\""
		printf 'exec %q' "$script"
		printf ' %q' "$@"
		echo
	} >"$out/job.sh"
	: >"$out/output.log"
}

# ixt_vm_tail OUT QEMU_PID PREFIX: the job's output until QEMU ends.
ixt_vm_tail() {
	if [ -z "$3" ]; then
		exec tail -n +1 -F "$1/output.log" --pid="$2" 2>/dev/null
	fi
	tail -n +1 -F "$1/output.log" --pid="$2" 2>/dev/null |
		sed -u "s|^|[$3] |"
}

# ixt_vm_boot OUT SMP MEM TIMEOUT PREFIX [QEMU_ARGS...]: one run of the VM;
# sets timed_out when it was killed.
ixt_vm_boot() {
	local out=$1 smp=$2 mem=$3 timeout=$4 prefix=$5 cmdline qemu tailer end

	shift 5
	cmdline="console=ttyS0 loglevel=5 log_buf_len=4M panic=-1 ixt.out=$out"
	cmdline+=" ixt.run=$top/scripts/vm/guest-run.sh $debug"
	qemu-system-x86_64 \
		-machine q35 -cpu max -smp "$smp" -m "$mem" \
		-kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
		-fsdev local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
		-fsdev local,id=hostout,path="$out",security_model=none \
		-device virtio-9p-pci,fsdev=hostout,mount_tag=hostout \
		-display none -monitor none -serial "file:$out/console.log" \
		-nic none -no-reboot "$@" &
	qemu=$!

	ixt_vm_tail "$out" $qemu "$prefix" &
	tailer=$!

	end=$((SECONDS + timeout))
	[ -z "$vm_deadline" ] || [ "$vm_deadline" -ge "$end" ] || end=$vm_deadline
	timed_out=
	while kill -0 $qemu 2>/dev/null; do
		if [ "$SECONDS" -ge "$end" ]; then
			timed_out=1
			kill $qemu 2>/dev/null || true
			break
		fi
		sleep 1
	done
	wait $qemu 2>/dev/null || true
	sleep 1
	kill $tailer 2>/dev/null || true
	wait $tailer 2>/dev/null || true
}

ixt_vm_run() {
	local out=$1 name=$2

	ixt_vm_boot "$out" "${@:3}"
	# Under TCG the guest kernel rarely dies while it boots (an int3 Oops in
	# code being patched, before any module of ours is loaded): one more
	# boot, the first console log kept. A death after the job started is
	# the test's and is reported as it is.
	if [ -z "$timed_out" ] && [ ! -e "$out/started" ]; then
		echo "vm: $name: the kernel died before the job started; booting again (first console log: $out/console-boot1.log)" >&2
		tail -n 40 "$out/console.log" >&2
		mv "$out/console.log" "$out/console-boot1.log"
		ixt_vm_boot "$out" "${@:3}"
	fi
}
