# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by the scripts that build from Debian's linux-source-6.12
# (debug-kernel.sh, tree-check.sh). The sourcing script sets
#   name     its name, for the log lines;
#   src      where the source tree is (or goes);
# and gets
#   tarball  /usr/src/linux-source-6.12.tar.xz;
#   version  the linux-source-6.12 package's version (it fails without
#            the package);
#   log, die, step   its progress lines on stderr;
#   ksrc_extract     the source extracted into $src once per package
#            version ($src/.ixt-source-version); true when it extracted.

tarball=/usr/src/linux-source-6.12.tar.xz

log() { printf '%s: %s\n' "$name" "$*" >&2; }
die() { printf '%s: error: %s\n' "$name" "$*" >&2; exit 1; }

# step DESCRIPTION COMMAND...: run COMMAND, logging its start and its
# duration.
step() {
	local desc=$1 t=$SECONDS

	shift
	log "$desc ..."
	"$@"
	log "$desc: done in $((SECONDS - t))s"
}

[ -f "$tarball" ] || die "$tarball not found: run scripts/setup.sh"
version=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
	die "linux-source-6.12 is not installed: run scripts/setup.sh"

ksrc_unpack() {
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xf "$tarball" -C "$src.tmp" --strip-components=1
	echo "$version" >"$src.tmp/.ixt-source-version"
	mv "$src.tmp" "$src"
}

# ksrc_extract: the source in $src, extracted unless it is this version's
# already; succeeds only when it extracted (a new tree).
ksrc_extract() {
	if [ "$(cat "$src/.ixt-source-version" 2>/dev/null)" = "$version" ]; then
		log "reusing $src (linux-source-6.12 $version)"
		return 1
	fi
	step "extracting ${tarball##*/} ($version) into $src" ksrc_unpack
}
