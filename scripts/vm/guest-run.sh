#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the test VM, started by the initramfs after switch_root.
# Mounts the pseudo file systems, runs the job the host wrote into the
# results share, records its exit status there and powers the VM off.
#
#   guest-run.sh RESULTS_DIR

out=$1

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
ln -sf /proc/self/fd /dev/fd
ln -sf fd/0 /dev/stdin
ln -sf fd/1 /dev/stdout
ln -sf fd/2 /dev/stderr
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
# No tmpfs on /tmp: the repository, and with it the results share, may
# live there (CI clones anywhere); the overlay already makes /tmp writable.
mount -t tmpfs tmpfs /run
mkdir -p /run/lock
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8
hostname ixt-vm

# The host boots again when the kernel dies before this point.
: >"$out/started"
# Through a pipe: tools that reopen /dev/stdout (the kselftest runner does)
# then share one stream instead of overwriting each other in the file.
# A daemon the job started may keep the pipe open for good: once the job
# has exited, the copy gets 10 s to drain, then the processes still
# running are listed in ps-at-end.log and the guest goes down anyway.
exec 3> >(cat >"$out/output.log")
copier=$!
/bin/bash "$out/job.sh" >&3 2>&1 </dev/null 3>&-
echo $? >"$out/status"
exec 3>&-
for ((i = 0; i < 100; i++)); do
	kill -0 "$copier" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$copier" 2>/dev/null; then
	ps -eo pid,ppid,stat,args >"$out/ps-at-end.log"
	echo "guest: the job's output pipe is still held open (ps-at-end.log)" >/dev/console
fi
dmesg >"$out/dmesg.log"
sync

echo o >/proc/sysrq-trigger
sleep 600
