#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make tree: lay the module into a kernel source tree, where it builds
# as the kernel's own drivers do, from Kconfig.
#
#   scripts/tree.sh KSRC [OBJ]
#
# - KSRC/drivers/target/iscsi_xt/: the sources, Kconfig and Kbuild of
#   drivers/target/iscsi_xt/, the shared headers in include/iscsi_xt/
#   below it and the file VERSION beside the Kbuild, which finds both
#   there;
# - drivers/target/Kconfig sources its Kconfig, after LIO's iSCSI
#   target's (inside "if TARGET_CORE");
# - drivers/target/Makefile descends into it for CONFIG_ISCSI_XT (the
#   directory holds both modules, and ISCSI_XT_ISER depends on
#   ISCSI_XT).
#
# A file is copied only when its content differs (install -C keeps the
# rest untouched, their time stamps with them), a source file of an
# earlier run that the repository no longer has is removed, and each
# hook goes in once: a second run changes nothing.
#
# Then, if the tree is configured (OBJ/.config, or KSRC/.config without
# OBJ), ISCSI_XT and ISCSI_XT_ISER are set to m in that .config
# (scripts/config, then make olddefconfig), and the values that Kconfig
# kept are shown: ISCSI_XT stays off with ISCSI_TARGET set (which fails
# the script), ISCSI_XT_ISER without INFINIBAND_ADDR_TRANS (a warning).
# Building is then the kernel's own make: "make modules", or for these
# two alone, once the tree has been built, "make M=drivers/target/iscsi_xt".

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)

die() { printf 'tree: error: %s\n' "$*" >&2; exit 1; }
log() { printf 'tree: %s\n' "$*" >&2; }

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 KSRC [OBJ]" >&2
	exit 2
fi
ksrc=$(realpath -e "$1") || die "$1: no such directory"
obj=
[ $# -eq 2 ] && { obj=$(realpath -e "$2") || die "$2: no such directory"; }
for f in Makefile Kconfig drivers/target/Kconfig drivers/target/Makefile scripts/config; do
	[ -f "$ksrc/$f" ] || die "$ksrc is not a kernel source tree (no $f)"
done
[ -s "$top/VERSION" ] || die "$top/VERSION is missing or empty"

dest=$ksrc/drivers/target/iscsi_xt
kconfig=$ksrc/drivers/target/Kconfig
makefile=$ksrc/drivers/target/Makefile
src_hook='source "drivers/target/iscsi_xt/Kconfig"'
obj_hook=$'obj-$(CONFIG_ISCSI_XT)\t\t+= iscsi_xt/'
changed=0

# put FILE DIR: FILE into DIR, unless DIR holds it already.
put() {
	if ! cmp -s "$1" "$2/${1##*/}"; then
		install -m 0644 "$1" "$2/"
		changed=$((changed + 1))
	fi
}

# prune DIR NAME...: remove DIR's C sources and headers other than the
# NAMEs (no object or generated *.mod.c of a build in KSRC).
prune() {
	local dir=$1 f n keep

	shift
	for f in "$dir"/*.[ch]; do
		[ -f "$f" ] || continue
		n=${f##*/}
		[[ $n == *.mod.c ]] && continue
		keep=
		for k in "$@"; do
			[ "$k" = "$n" ] && keep=1 && break
		done
		[ -n "$keep" ] && continue
		rm -f "$f"
		log "removed $f (no longer in the repository)"
		changed=$((changed + 1))
	done
}

# The module's directory.
sources=()
for f in "$top"/drivers/target/iscsi_xt/*.[ch]; do
	[[ $f == *.mod.c ]] || sources+=("$f")
done
headers=("$top"/include/iscsi_xt/*.h)
mkdir -p "$dest/include/iscsi_xt"
for f in "${sources[@]}" "$top/drivers/target/iscsi_xt/Kbuild" \
	 "$top/drivers/target/iscsi_xt/Kconfig" "$top/VERSION"; do
	put "$f" "$dest"
done
for f in "${headers[@]}"; do
	put "$f" "$dest/include/iscsi_xt"
done
prune "$dest" "${sources[@]##*/}"
prune "$dest/include/iscsi_xt" "${headers[@]##*/}"

# The hooks, each after LIO's iSCSI target's line.
# hook FILE LINE AFTER: LINE into FILE after the line AFTER (an ERE
# without "#"), unless FILE has LINE already.
hook() {
	grep -qxF "$2" "$1" && return 0
	grep -qE "$3" "$1" || die "$1: no line matching '$3' to add '$2' after"
	sed -i -E "\\#$3#a $2" "$1"
	grep -qxF "$2" "$1" || die "$1: could not add '$2'"
	log "hooked into $1"
	changed=$((changed + 1))
}
hook "$kconfig" "$src_hook" '^source[[:space:]]+"drivers/target/iscsi/Kconfig"$'
hook "$makefile" "$obj_hook" '^obj-\$\(CONFIG_ISCSI_TARGET\)[[:space:]]*\+=[[:space:]]*iscsi/$'
log "iscsi_xt $(cat "$top/VERSION") laid into $dest ($changed change(s))"

# The configuration, if there is one.
cfgdir=${obj:-$ksrc}
cfg=$cfgdir/.config
if [ ! -f "$cfg" ]; then
	if [ -n "$obj" ]; then
		die "$cfg not found: configure OBJ first (make -C $ksrc O=$obj defconfig)"
	fi
	log "$ksrc is not configured: set ISCSI_XT in its configuration"
	log "(Device Drivers > Generic Target Core Mod > iSCSI target fabric)"
	exit 0
fi
"$ksrc/scripts/config" --file "$cfg" --module ISCSI_XT --module ISCSI_XT_ISER
make -s -C "$ksrc" ${obj:+O="$obj"} olddefconfig >/dev/null
xt=$(grep -E '^CONFIG_ISCSI_XT=' "$cfg" || true)
iser=$(grep -E '^CONFIG_ISCSI_XT_ISER=' "$cfg" || true)
log "$cfg: ${xt:-CONFIG_ISCSI_XT not set} ${iser:-CONFIG_ISCSI_XT_ISER not set}"
if [ "$xt" != CONFIG_ISCSI_XT=m ]; then
	grep -qE '^CONFIG_ISCSI_TARGET=' "$cfg" &&
		die "ISCSI_TARGET (LIO) is set in $cfg: see ISCSI_XT's help"
	die "ISCSI_XT did not stay m in $cfg: TARGET_CORE or INET missing?"
fi
[ "$iser" = CONFIG_ISCSI_XT_ISER=m ] ||
	log "warning: no iscsi_xt_iser: it needs INFINIBAND and INFINIBAND_ADDR_TRANS"
log "build with: make -C $ksrc${obj:+ O=$obj} modules"
