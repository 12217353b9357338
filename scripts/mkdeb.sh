#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: the Debian package iscsi-xt-dkms (architecture all), built
# with debhelper and its DKMS add-on (dh_dkms) from a copy of the module
# source and debian/, into BUILD_DIR/deb/.
#
#   scripts/mkdeb.sh [BUILD_DIR]
#
# The version is the file VERSION's, as in modinfo and the fabric's
# version string: it becomes debian/changelog's (the one file of
# debian/ that is not kept in git, for that reason), and dh_dkms writes
# it into the packaged dkms.conf. Only the files DKMS builds from are
# copied: no object of a build in the tree ends up in the package.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
out=$build/deb
version=$(cat "$top/VERSION")
stage=$out/iscsi-xt-$version

[[ $version =~ ^[0-9][0-9A-Za-z.+~]*$ ]] ||
	{ echo "mkdeb: VERSION '$version' is not a Debian version" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$stage"
cd "$top"
files=(Kbuild VERSION COPYING dkms.conf README.md Documentation/admin-guide.rst
	scripts/modprobe.d/iscsi_xt.conf drivers/target/iscsi_xt/Kbuild)
for f in drivers/target/iscsi_xt/*.[ch] include/iscsi_xt/*.h; do
	[[ $f == *.mod.c ]] || files+=("$f")
done
cp --parents "${files[@]}" "$stage/"
cp -r debian "$stage/"
rm -f "$stage/debian/changelog"

# The changelog's date is the last commit's, so that the same tree builds
# the same package.
when=$(git -C "$top" log -1 --format=%ct 2>/dev/null || date +%s)
cat >"$stage/debian/changelog" <<EOC
iscsi-xt ($version) bookworm; urgency=medium

  * iscsi_xt $version, packaged by make deb.

 -- iscsi_xt developers <iscsi-xt@example.org>  $(date -R -u -d "@$when")
EOC

(cd "$stage" && SOURCE_DATE_EPOCH=$when dpkg-buildpackage -b -us -uc) \
	>"$out/build.log" 2>&1 ||
	{ tail -n 40 "$out/build.log" >&2; echo "mkdeb: dpkg-buildpackage failed (log: $out/build.log)" >&2; exit 1; }
deb=$out/iscsi-xt-dkms_${version}_all.deb
[ -f "$deb" ] || { echo "mkdeb: $deb was not built" >&2; exit 1; }
echo "mkdeb: $deb"
