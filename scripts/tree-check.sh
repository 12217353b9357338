#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-full's tree step: the module laid into Debian's
# linux-source-6.12 by scripts/tree.sh (make tree) and built there from
# Kconfig, as =m, with W=1, failing on any message of the build.
#
#   scripts/tree-check.sh [BUILD_DIR]
#
# Steps, each logged with its duration:
# - /usr/src/linux-source-6.12.tar.xz extracted once into
#   BUILD_DIR/tree/src, marked with the package's version when complete
#   (.ixt-source-version; another version extracts again). Nothing but
#   scripts/tree.sh changes that tree: every build is in BUILD_DIR/tree/obj
#   (O=). BUILD_DIR/debug-kernel/, which other runs use, is not touched;
# - x86_64 "make defconfig" in the object tree, TARGET_CORE=m,
#   INFINIBAND=m and INFINIBAND_ADDR_TRANS=y on top (scripts/config);
# - scripts/tree.sh SRC OBJ: the module laid in, hooked into
#   drivers/target/Kconfig and Makefile, ISCSI_XT=m and ISCSI_XT_ISER=m
#   set and make olddefconfig run;
# - the .config checked: those options as set, what ISCSI_XT selects
#   there, ISCSI_TARGET off;
# - scripts/tree.sh run again, which must change no byte and no time
#   stamp of the tree, nor the .config;
# - ISCSI_TARGET=m on a copy of the .config (in BUILD_DIR/tree/obj-lio),
#   where olddefconfig must drop ISCSI_XT (see its Kconfig);
# - make modules_prepare, then the two modules as single targets
#   (make drivers/target/iscsi_xt/iscsi_xt.ko ...), with W=1; their
#   modinfo version must be VERSION's.
#
# The modules are built without vmlinux and the target core's and RDMA's
# modules, whose compilation is most of a kernel build (over half an
# hour on two cores). modpost then knows no kernel symbol: it stops on
# each ("undefined!"), or, with KBUILD_MODPOST_WARN=1, warns. Those
# warnings, and the notice that vmlinux.o is missing, are the only
# messages let through; any other compiler, modpost or objtool
# message fails the check. Symbols the two modules export to each other
# are resolved, both being in the same modpost run.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath -m "${1:-$top/build}")
dir=$build/tree
src=$dir/src
obj=$dir/obj
jobs=$(nproc)
start=$SECONDS
name=tree-check

kmake() {
	make -C "$src" O="$obj" ARCH=x86_64 --no-print-directory "$@"
}

configure() {
	mkdir -p "$obj"
	{
		kmake defconfig &&
		"$src/scripts/config" --file "$obj/.config" \
			--module TARGET_CORE --module INFINIBAND \
			--enable INFINIBAND_ADDR_TRANS
	} >"$dir/config.log" 2>&1 ||
		{ cat "$dir/config.log" >&2; die "configuring $obj failed"; }
}

lay_in() {
	"$top/scripts/tree.sh" "$src" "$obj"
}

# want LINE...: each "CONFIG_X=V" in the .config, "CONFIG_X=ym" as y
# or m, "CONFIG_X=n" not set there.
want() {
	local line opt val have bad=0

	for line in "$@"; do
		opt=${line%%=*}
		val=${line#*=}
		have=$(grep -E "^$opt=" "$obj/.config" || true)
		case "$val" in
		n)	[ -z "$have" ] && continue ;;
		ym)	[[ $have == "$opt="[ym] ]] && continue ;;
		*)	[ "$have" = "$line" ] && continue ;;
		esac
		log "not in $obj/.config: $line (have: ${have:-not set})"
		bad=$((bad + 1))
	done
	[ "$bad" -eq 0 ] || die "$bad option(s) not as wanted"
}

verify() {
	want CONFIG_TARGET_CORE=m CONFIG_INET=y CONFIG_INFINIBAND=m \
		CONFIG_INFINIBAND_ADDR_TRANS=y CONFIG_ISCSI_XT=m \
		CONFIG_ISCSI_XT_ISER=m CONFIG_ISCSI_TARGET=n \
		CONFIG_CRYPTO_MD5=ym CONFIG_LIBCRC32C=ym
	grep -qxF 'source "drivers/target/iscsi_xt/Kconfig"' "$src/drivers/target/Kconfig" ||
		die "drivers/target/Kconfig does not source ours"
	grep -qxF $'obj-$(CONFIG_ISCSI_XT)\t\t+= iscsi_xt/' "$src/drivers/target/Makefile" ||
		die "drivers/target/Makefile does not descend into iscsi_xt/"
}

# Every file below drivers/target, with its time stamp, and the .config.
snapshot() {
	(cd "$src" && find drivers/target -type f -printf '%p %T@\n' | sort |
		while read -r f t; do echo "$(sha256sum <"$f") $f $t"; done)
	sha256sum <"$obj/.config"
}

idempotent() {
	local before after

	before=$(snapshot)
	"$top/scripts/tree.sh" "$src" "$obj" 2>"$dir/tree-again.log" ||
		{ cat "$dir/tree-again.log" >&2; die "scripts/tree.sh failed on its second run"; }
	after=$(snapshot)
	if [ "$before" != "$after" ]; then
		diff <(echo "$before") <(echo "$after") >&2 || true
		die "a second scripts/tree.sh changed the tree or the .config"
	fi
	grep -q '(0 change(s))' "$dir/tree-again.log" ||
		{ cat "$dir/tree-again.log" >&2; die "a second scripts/tree.sh reported changes"; }
}

conflict() {
	local lio=$dir/obj-lio

	rm -rf "$lio"
	mkdir -p "$lio"
	cp "$obj/.config" "$lio/.config"
	"$src/scripts/config" --file "$lio/.config" --module ISCSI_TARGET
	make -C "$src" O="$lio" ARCH=x86_64 --no-print-directory olddefconfig \
		>"$dir/conflict.log" 2>&1 ||
		{ cat "$dir/conflict.log" >&2; die "olddefconfig with ISCSI_TARGET=m failed"; }
	grep -qxF CONFIG_ISCSI_TARGET=m "$lio/.config" ||
		die "ISCSI_TARGET=m did not hold in $lio/.config"
	if grep -qE '^CONFIG_ISCSI_XT(_ISER)?=' "$lio/.config"; then
		die "ISCSI_XT stayed set beside ISCSI_TARGET=m in $lio/.config"
	fi
	rm -rf "$lio"
}

# Messages the build may print without vmlinux.o (see above); anything
# else that looks like a message fails.
expected_lines=(
	'WARNING: vmlinux\.o is missing\.'
	'         Modules may not have dependencies or modversions\.'
	'         You may get many unresolved symbol errors\.'
	'         You can set KBUILD_MODPOST_WARN=1 to turn errors into warning'
	'         if you want to proceed at your own risk\.'
	'WARNING: modpost: "[A-Za-z0-9_.]+" \[drivers/target/iscsi_xt/[a-z_]+\.ko\] undefined!'
	'WARNING: modpost: suppressed [0-9]+ unresolved symbol warnings because .*'
)
expected="^($(IFS='|'; echo "${expected_lines[*]}"))$"

compile() {
	local log=$dir/build.log msgs ko v

	if ! { kmake -j"$jobs" W=1 modules_prepare &&
	       kmake -j"$jobs" W=1 KBUILD_MODPOST_WARN=1 \
			drivers/target/iscsi_xt/iscsi_xt.ko \
			drivers/target/iscsi_xt/iscsi_xt_iser.ko; } >"$log" 2>&1; then
		tail -n 40 "$log" >&2
		die "the build failed (log: $log)"
	fi
	msgs=$(grep -vE "$expected" "$log" |
		grep -E '(warning|error|note):|WARNING|ERROR|undefined!' || true)
	if [ -n "$msgs" ]; then
		echo "$msgs" >&2
		die "the build printed the messages above (log: $log)"
	fi
	for ko in iscsi_xt iscsi_xt_iser; do
		v=$(modinfo -F version "$obj/drivers/target/iscsi_xt/$ko.ko")
		[ "$v" = "$(cat "$top/VERSION")" ] ||
			die "$ko.ko: version '$v', VERSION says '$(cat "$top/VERSION")'"
	done
	log "built iscsi_xt.ko and iscsi_xt_iser.ko in $obj/drivers/target/iscsi_xt (version $v)"
}

# shellcheck source=scripts/kernel-src.sh
. "$top/scripts/kernel-src.sh"
mkdir -p "$dir"
# One run at a time per build directory.
exec 9>"$dir/.lock"
flock 9

# A new source tree: nothing of an object tree built from the old.
ksrc_extract && rm -rf "$obj" "$dir/obj-lio"
step "configuring $obj (defconfig, TARGET_CORE=m, INFINIBAND=m)" configure
step "laying the module in (scripts/tree.sh)" lay_in
step "checking the .config and the hooks" verify
step "running scripts/tree.sh again (nothing may change)" idempotent
step "checking that ISCSI_TARGET=m rules ISCSI_XT out" conflict
step "building modules_prepare and both modules, W=1, $jobs jobs (log: $dir/build.log)" compile
log "passed in $((SECONDS - start))s"
