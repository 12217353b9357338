#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug kernel for the test VM (KASAN, KFENCE, lockdep, list and
# object debugging, kmemleak, UBSAN) from Debian's linux-source-6.12, the
# same version as the Debian kernel scripts/setup.sh puts in build/kernel.
#
#   scripts/debug-kernel.sh [-c] [BUILD_DIR]
#
#   -c  configure only: extract the source, write the .config and verify
#       it, then stop (no compile)
#
# Steps, each logged with its duration:
# - /usr/src/linux-source-6.12.tar.xz (scripts/setup.sh installs it)
#   extracted once into BUILD_DIR/debug-kernel/src, kept pristine: every
#   build happens in an object tree of its own (O=);
# - x86_64 "make defconfig", two fragments merged on top
#   (scripts/kconfig/merge_config.sh): scripts/debug-kernel.config and
#   the kselftests' own tools/testing/selftests/drivers/target/iscsi_xt/
#   config; then "make olddefconfig";
# - every line of the fragments checked against the final .config: an
#   option Kconfig dropped or changed (a dependency missing) is named and
#   the script fails before compiling anything;
# - bzImage and modules (make -j$(nproc)), the log in the object tree;
# - installed as BUILD_DIR/debug-kernel/KEY/, laid out like build/kernel:
#   KVER, boot/vmlinuz-KVER (with config-KVER and System.map-KVER), and
#   lib/modules/KVER/ with depmod's files and a "build" link to the object
#   tree, against which out-of-tree modules (iscsi_xt) build.
#
# KEY is a short hash of the fragments and of the linux-source-6.12
# package's version: a second run with the same key finds the kernel in
# place and returns at once; a changed fragment or source package builds
# a new one (object tree BUILD_DIR/debug-kernel/obj-KEY/), and once it is
# installed the other keys' trees are removed. Runs on one BUILD_DIR
# take turns (flock). Progress goes to stderr; the one line on stdout is
# the installed tree's path, for the scripts that boot it
# (IXT_KERNEL_DIR=PATH scripts/vm/run.sh ...).

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
config_only=

while getopts "c" opt; do
	case "$opt" in
	c)	config_only=1 ;;
	*)	echo "usage: $0 [-c] [BUILD_DIR]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

build=$(realpath -m "${1:-$top/build}")
dk=$build/debug-kernel
src=$dk/src
fragments=(
	"$top/scripts/debug-kernel.config"
	"$top/tools/testing/selftests/drivers/target/iscsi_xt/config"
)
jobs=$(nproc)
name=debug-kernel

# kmake ARGS...: make in the object tree of this key, the release without
# a local version suffix (debug-kernel.config's CONFIG_LOCALVERSION names
# it).
kmake() {
	make -C "$src" O="$obj" ARCH=x86_64 LOCALVERSION= --no-print-directory "$@"
}

check_tools() {
	local t f

	for f in "${fragments[@]}"; do
		[ -f "$f" ] || die "$f not found"
	done
	for t in make gcc flex bison bc perl xz depmod sha256sum flock; do
		command -v "$t" >/dev/null || die "$t not found (apt-get install build-essential flex bison bc kmod xz-utils)"
	done
	[ -f /usr/include/libelf.h ] || die "libelf.h not found (apt-get install libelf-dev: objtool needs it)"
	[ -f /usr/include/openssl/opensslv.h ] || die "OpenSSL headers not found (apt-get install libssl-dev)"
}

configure() {
	mkdir -p "$obj"
	kmake defconfig >"$obj/config.log" 2>&1 ||
		{ cat "$obj/config.log" >&2; die "make defconfig failed"; }
	# merge_config.sh writes its temporary files in the working directory.
	(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/.config" "${fragments[@]}") >>"$obj/config.log" 2>&1 ||
		{ cat "$obj/config.log" >&2; die "merge_config.sh failed"; }
	kmake olddefconfig >>"$obj/config.log" 2>&1 ||
		{ cat "$obj/config.log" >&2; die "make olddefconfig failed"; }
}

# Every "CONFIG_X=V" of the fragments is in the .config as it is, every
# "# CONFIG_X is not set" has no CONFIG_X= line there.
verify() {
	local line opt want have bad=0 n

	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*)
			opt=${line%%=*}
			want=$line
			grep -qxF "$want" "$obj/.config" && continue
			;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			want="not set"
			grep -q "^$opt=" "$obj/.config" || continue
			;;
		*)	continue ;;
		esac
		have=$(grep -E "^$opt=|^# $opt is not set" "$obj/.config" || true)
		log "not in the final .config: $line (have: ${have:-nothing, a dependency is missing})"
		bad=$((bad + 1))
	done < <(cat "${fragments[@]}")
	[ "$bad" -eq 0 ] ||
		die "$bad option(s) of the fragments did not survive olddefconfig (full log: $obj/config.log)"
	n=$(cat "${fragments[@]}" | grep -cE '^CONFIG_|^# CONFIG_.* is not set')
	log "all $n options of the fragments are in $obj/.config"
}

compile() {
	kmake -j"$jobs" bzImage modules >"$obj/build.log" 2>&1 ||
		{ tail -n 40 "$obj/build.log" >&2; die "the build failed (log: $obj/build.log)"; }
}

# Into KEY.tmp, then renamed: KVER exists only in a complete tree.
install_tree() {
	local kver tmp=$dk/$key.tmp

	kver=$(kmake -s kernelrelease)
	rm -rf "$tmp"
	mkdir -p "$tmp/boot"
	cp "$obj/arch/x86/boot/bzImage" "$tmp/boot/vmlinuz-$kver"
	cp "$obj/System.map" "$tmp/boot/System.map-$kver"
	cp "$obj/.config" "$tmp/boot/config-$kver"
	kmake INSTALL_MOD_PATH="$tmp" modules_install >"$obj/install.log" 2>&1 ||
		{ cat "$obj/install.log" >&2; die "modules_install failed"; }
	[ -f "$tmp/lib/modules/$kver/modules.dep" ] ||
		die "no modules.dep in $tmp/lib/modules/$kver (depmod missing?)"
	# modules_install links build to the object tree.
	[ -f "$tmp/lib/modules/$kver/build/Makefile" ] ||
		die "no build link to $obj in $tmp/lib/modules/$kver"
	echo "$kver" >"$tmp/KVER"
	rm -rf "${dk:?}/$key"
	mv "$tmp" "$dk/$key"
}

# The trees of other keys (an older fragment or source package), once
# this one is in place: one debug kernel per build directory.
prune() {
	local d

	for d in "$dk"/obj-* "$dk"/*/KVER; do
		d=${d%/KVER}
		case "${d##*/}" in
		"$key"|"obj-$key"|"obj-*"|"*") continue ;;
		esac
		log "removing $d (another key)"
		rm -rf "$d"
	done
}

# shellcheck source=scripts/kernel-src.sh
. "$top/scripts/kernel-src.sh"
check_tools
mkdir -p "$dk"
# One run at a time per build directory.
exec 9>"$dk/.lock"
flock 9
key=$({ echo "linux-source-6.12 $version"; cat "${fragments[@]}"; } |
	sha256sum | cut -c1-12)
obj=$dk/obj-$key
start=$SECONDS

if [ -f "$dk/$key/KVER" ] &&
   [ -f "$dk/$key/boot/vmlinuz-$(cat "$dk/$key/KVER")" ]; then
	log "kernel $(cat "$dk/$key/KVER") (key $key) already built"
	echo "$dk/$key"
	exit 0
fi

log "key $key: linux-source-6.12 $version and ${fragments[*]#"$top"/}"
ksrc_extract || true
step "configuring (defconfig + fragments + olddefconfig) in $obj" configure
step "verifying the fragments' options" verify
if [ -n "$config_only" ]; then
	log "configured only (-c) in $((SECONDS - start))s: $obj/.config"
	exit 0
fi
step "building bzImage and modules with $jobs jobs (log: $obj/build.log)" compile
step "installing into $dk/$key" install_tree
prune
log "kernel $(cat "$dk/$key/KVER") ready in $((SECONDS - start))s"
echo "$dk/$key"
