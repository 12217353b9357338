#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything the build and the test VM need, idempotently.
#
#   scripts/setup.sh [BUILD_DIR]
#
# - Debian packages (only those missing; apt-get update only when needed);
# - the Debian 6.12 kernel for the VM: the newest ABI for which both
#   linux-headers-<ver>-amd64 and linux-image-<ver>-amd64-unsigned exist,
#   unpacked into BUILD_DIR/kernel/ (git ignores build/); the choice is
#   recorded in BUILD_DIR/kernel/KVER and kept on later runs;
# - checkpatch.pl and the kselftest framework, taken from Debian's
#   linux-source-6.12 tarball into BUILD_DIR/tools/ (never committed);
# - soft-iWARP (siw), which Debian's kernel lacks, built from the same
#   tarball against the VM kernel's headers into BUILD_DIR/siw/siw.ko;
# - the headers of a second 6.12 ABI (the newest other than the VM's),
#   for make dkms-abi: their packages unpacked into BUILD_DIR/kernel-abi2/
#   (not installed: the host's DKMS never sees that kernel), the choice
#   recorded in BUILD_DIR/kernel-abi2/KVER and kept on later runs.
#
# A second run finds everything in place and returns within seconds.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
kdir_cache=$build/kernel
tools=$build/tools

packages=(
	build-essential kmod cpio xz-utils
	# make unit and make fuzz: the <crypto/hash.h> shim digests with
	# OpenSSL (libssl-dev, else only a Recommends of linux-source-6.12);
	# make fuzz: libFuzzer and the sanitizer runtimes are in
	# libclang-rt-14-dev, which clang-14 only recommends.
	libssl-dev clang-14 libclang-rt-14-dev
	sparse linux-source-6.12
	qemu-system-x86 busybox-static
	targetcli-fb python3-rtslib-fb dbus
	open-iscsi rdma-core ibverbs-providers ibverbs-utils python3-pyverbs
	fio sg3-utils e2fsprogs iproute2 util-linux procps rsync dmsetup
	iperf3 perftest gnuplot-nox linux-perf
	# make bench's third target: Debian's user-space tgt (tgtd, tgtadm),
	# started in the VM only (see tgt_quiet below).
	tgt
	# make check-multi's two-node ALUA test: dm-multipath's multipathd
	# and the nft that cuts a path, both run in the VMs only (see
	# mpath_quiet below).
	multipath-tools nftables
	# make check-ha's (scripts/vm/ha.sh) cluster: corosync, pacemaker,
	# crmsh (pcs needs pcsd and systemd), the stock resource agents and
	# DRBD's tools (the kernel's drbd 8.4), run in the VMs only (see
	# ha_quiet below).
	corosync pacemaker crmsh resource-agents drbd-utils
	# make deb: debhelper with its DKMS add-on (dh-dkms); dkms itself is
	# what the package depends on, installed here so that the VM, which
	# has the host's root file system, can install the package offline
	# (the host's DKMS tree stays empty: nothing is registered there).
	debhelper dh-dkms dkms
)

log() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (apt-get and depmod need it)"

apt_updated=
apt_update_once() {
	[ -n "$apt_updated" ] && return
	log "apt-get update"
	apt-get update -qq
	apt_updated=1
}

missing_packages() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$p"
	done
}

install_packages() {
	local missing
	missing=$(missing_packages "$@")
	[ -z "$missing" ] && return
	apt_update_once
	log "installing:" $missing
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null
}

# tgt_quiet WAS_MISSING: after tgt's first install, no tgtd left running
# on the host and none started at boot. Its postinst enables tgt.service
# and starts it where systemd runs, through invoke-rc.d otherwise (which
# a policy-rc.d may refuse, as in containers: then nothing started): that
# tgtd would hold port 3260 and serve whatever /etc/tgt configures. The
# bench starts a tgtd of its own in the VM, whose network is its own. A
# tgtd the host runs by choice, on later runs, is left alone.
tgt_quiet() {
	[ -n "$1" ] || return 0
	if [ -d /run/systemd/system ]; then
		systemctl disable --now tgt.service >/dev/null 2>&1 || true
	else
		update-rc.d tgt disable >/dev/null 2>&1 || true
	fi
	# A tgtd that systemd did not stop: the init script's stop removes
	# its targets and then tgtd itself (which ignores SIGTERM).
	if pidof tgtd >/dev/null; then
		log "stopping the tgtd that installing tgt started"
		/etc/init.d/tgt stop >/dev/null 2>&1 || true
		! pidof tgtd >/dev/null || log "warning: tgtd still runs on this host"
	fi
}

# mpath_quiet WAS_MISSING: after multipath-tools' first install, no
# multipathd on the host, as for tgt: it would take the host's disks into
# maps. Its package enables multipathd.service and .socket (and starts
# them where systemd runs), or the multipath-tools init script.
mpath_quiet() {
	[ -n "$1" ] || return 0
	if [ -d /run/systemd/system ]; then
		systemctl disable --now multipathd.service multipathd.socket \
			>/dev/null 2>&1 || true
	else
		update-rc.d multipath-tools disable >/dev/null 2>&1 || true
	fi
	if pidof multipathd >/dev/null; then
		log "stopping the multipathd that installing multipath-tools started"
		multipathd shutdown >/dev/null 2>&1 || true
		! pidof multipathd >/dev/null ||
			log "warning: multipathd still runs on this host"
	fi
}

# ha_quiet WAS_MISSING: after the cluster stack's first install, nothing
# of it runs on the host or starts at boot, as for tgt: corosync and
# pacemaker are enabled by their packages (started where systemd runs,
# through invoke-rc.d otherwise), drbd's init script too. The VMs start
# their own.
ha_quiet() {
	local s

	[ -n "$1" ] || return 0
	for s in pacemaker corosync drbd; do
		if [ -d /run/systemd/system ]; then
			systemctl disable --now "$s.service" >/dev/null 2>&1 || true
		else
			update-rc.d "$s" disable >/dev/null 2>&1 || true
		fi
	done
	if pidof pacemakerd corosync >/dev/null; then
		log "stopping the pacemaker and corosync that installing them started"
		/etc/init.d/pacemaker stop >/dev/null 2>&1 || true
		/etc/init.d/corosync stop >/dev/null 2>&1 || true
		! pidof pacemakerd corosync >/dev/null ||
			log "warning: pacemaker or corosync still runs on this host"
	fi
}

# The newest 6.12 ABI with both an unsigned image and headers for amd64.
pick_kver() {
	local v
	apt-cache search --names-only \
		'^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' |
		sed -n 's/^linux-image-\(6\.12\.[0-9]*+deb12-amd64\)-unsigned .*/\1/p' |
		sort -V -r |
		while read -r v; do
			if apt-cache show "linux-headers-$v" >/dev/null 2>&1; then
				echo "$v"
				break
			fi
		done
}

# Every module modules.dep names is there (a "make clean" with M= pointing
# above build/ would delete them).
modules_complete() {
	local dir=$kdir_cache/lib/modules/$1

	[ -f "$dir/modules.dep" ] || return 1
	cut -d: -f1 "$dir/modules.dep" | (cd "$dir" && xargs ls >/dev/null 2>&1)
}

setup_kernel() {
	local kver deb
	kver=$(cat "$kdir_cache/KVER" 2>/dev/null || true)
	if [ -n "$kver" ] && [ -f "$kdir_cache/boot/vmlinuz-$kver" ] &&
	   [ -d "/usr/src/linux-headers-$kver" ] && modules_complete "$kver"; then
		return
	fi
	if [ -z "$kver" ]; then
		kver=$(pick_kver)
		if [ -z "$kver" ]; then
			apt_update_once
			kver=$(pick_kver)
		fi
		[ -n "$kver" ] || die "no Debian 6.12 kernel with headers found"
	fi
	install_packages "linux-headers-$kver"
	log "fetching linux-image-$kver-unsigned"
	rm -rf "$kdir_cache.tmp"
	mkdir -p "$kdir_cache.tmp/deb"
	(cd "$kdir_cache.tmp/deb" && apt-get download -q "linux-image-$kver-unsigned" >/dev/null) ||
		{ apt_update_once; (cd "$kdir_cache.tmp/deb" && apt-get download -q "linux-image-$kver-unsigned" >/dev/null); }
	deb=$(ls "$kdir_cache.tmp"/deb/*.deb)
	dpkg-deb -x "$deb" "$kdir_cache.tmp"
	rm -rf "$kdir_cache.tmp/deb"
	depmod -b "$kdir_cache.tmp" "$kver"
	echo "$kver" >"$kdir_cache.tmp/KVER"
	rm -rf "$kdir_cache"
	mv "$kdir_cache.tmp" "$kdir_cache"
	log "kernel $kver ready in $kdir_cache"
}

source_tarball() {
	local tarball

	tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n 1)
	[ -n "$tarball" ] || die "linux-source-6.12 tarball not found in /usr/src"
	echo "$tarball"
}

# checkpatch.pl with its data files, kernel-doc, and the kselftest framework
# (lib.mk, runner, KTAP helpers), all from the 6.12 source tarball.
tool_files=(
	scripts/checkpatch.pl scripts/spelling.txt
	scripts/const_structs.checkpatch scripts/kernel-doc
	tools/testing/selftests/lib.mk tools/testing/selftests/run_kselftest.sh
	tools/testing/selftests/kselftest
)

setup_tools() {
	local tarball f missing=

	for f in "${tool_files[@]}"; do
		[ -e "$tools/$f" ] || missing=1
	done
	[ -z "$missing" ] && return
	tarball=$(source_tarball)
	log "extracting checkpatch, kernel-doc and kselftest from $(basename "$tarball")"
	rm -rf "$tools"
	mkdir -p "$tools"
	tar -xf "$tarball" -C "$tools" --strip-components=1 \
		"${tool_files[@]/#/linux-source-6.12/}"
}

# drivers/infiniband/sw/siw builds out of tree unchanged; kept as long as
# it was built for the VM's kernel.
setup_siw() {
	local kver dir=$build/siw tarball

	kver=$(cat "$kdir_cache/KVER")
	[ -f "$dir/siw.ko" ] &&
		[ "$(modinfo -F vermagic "$dir/siw.ko" | cut -d' ' -f1)" = "$kver" ] &&
		return
	tarball=$(source_tarball)
	log "building siw for $kver from $(basename "$tarball")"
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -xf "$tarball" -C "$dir" --strip-components=5 \
		linux-source-6.12/drivers/infiniband/sw/siw
	make -s -C "/usr/src/linux-headers-$kver" M="$dir" CONFIG_RDMA_SIW=m \
		modules >"$dir/build.log" 2>&1 ||
		{ cat "$dir/build.log" >&2; die "siw did not build"; }
}

# The newest 6.12 ABI with headers for amd64 other than the VM's ($1).
pick_abi2() {
	apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' |
		sed -n 's/^linux-headers-\(6\.12\.[0-9]*+deb12-amd64\) .*/\1/p' |
		grep -vxF "$1" | sort -V -r | head -n 1
}

# fetch_abi2 DIR KVER2: the three packages below, downloaded into DIR.
fetch_abi2() {
	local v=${2%-amd64}

	(cd "$1" && apt-get download -q "linux-headers-$2" \
		"linux-headers-$v-common" "linux-kbuild-$v")
}

# The headers package of KVER2 with the two it needs to build a module
# (the common headers and linux-kbuild's fixdep, modpost, sign-file),
# unpacked side by side: their links (scripts -> ../../lib/linux-kbuild-*)
# are relative; the one absolute include of the common Makefile is bent
# to the unpacked copy.
setup_abi2() {
	local dir=$build/kernel-abi2 kver kver2 deb

	kver=$(cat "$kdir_cache/KVER")
	kver2=$(cat "$dir/KVER" 2>/dev/null || true)
	[ -n "$kver2" ] && [ -f "$dir/usr/src/linux-headers-$kver2/Makefile" ] && return
	kver2=$(pick_abi2 "$kver")
	if [ -z "$kver2" ]; then
		apt_update_once
		kver2=$(pick_abi2 "$kver")
	fi
	if [ -z "$kver2" ]; then
		log "no second 6.12 ABI's headers in the archive: make dkms-abi will skip"
		return
	fi
	log "fetching the headers of $kver2 (second ABI for make dkms-abi)"
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp/deb"
	if ! fetch_abi2 "$dir.tmp/deb" "$kver2" >/dev/null 2>&1; then
		apt_update_once
		if ! fetch_abi2 "$dir.tmp/deb" "$kver2" >/dev/null; then
			rm -rf "$dir.tmp"
			log "could not fetch the headers of $kver2: make dkms-abi will skip"
			return
		fi
	fi
	for deb in "$dir.tmp"/deb/*.deb; do
		dpkg-deb -x "$deb" "$dir.tmp"
	done
	rm -rf "$dir.tmp/deb"
	sed -i "s#^include /usr/src/#include $dir/usr/src/#" \
		"$dir.tmp/usr/src/linux-headers-$kver2/Makefile"
	echo "$kver2" >"$dir.tmp/KVER"
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
}

tgt_missing=$(missing_packages tgt)
mpath_missing=$(missing_packages multipath-tools)
ha_missing=$(missing_packages corosync pacemaker drbd-utils)
install_packages "${packages[@]}"
tgt_quiet "$tgt_missing"
mpath_quiet "$mpath_missing"
ha_quiet "$ha_missing"
setup_kernel
setup_tools
setup_siw
setup_abi2
log "ok (kernel $(cat "$kdir_cache/KVER"))"
