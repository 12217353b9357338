#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make dkms-abi: DKMS builds the package made by make deb for a second
# kernel ABI too, the 6.12 ABI whose headers scripts/setup.sh unpacked into
# BUILD_DIR/kernel-abi2/ (the newest other than the VM's). On the host, in
# a scratch DKMS tree under BUILD_DIR/dkms-abi/ (the package's files
# unpacked there, dkms add, build and install with --dkmstree,
# --sourcetree, --installtree and --kernelsourcedir, modules signed with
# a key of that tree): nothing of the host's own DKMS, module tree or
# package state changes, and the build runs at native speed rather than
# under TCG (the kselftest dkms_package.sh builds for the VM's kernel in
# the VM). Prints how long the build took; fails unless both modules were
# built and installed for that kernel with the package's version.
#
#   scripts/dkms-abi.sh [BUILD_DIR]

set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
version=$(cat "$top/VERSION")
deb=$build/deb/iscsi-xt-dkms_${version}_all.deb
abi2=$build/kernel-abi2
work=$build/dkms-abi

kver=$(cat "$abi2/KVER" 2>/dev/null) || {
	echo "dkms-abi: SKIP: no second 6.12 ABI's headers in $abi2 (scripts/setup.sh found none in the archive)"
	exit 0
}
[ -f "$deb" ] || { echo "dkms-abi: $deb is missing: run make deb" >&2; exit 1; }
command -v dkms >/dev/null || { echo "dkms-abi: dkms is not installed (scripts/setup.sh)" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work/root" "$work/dkms" "$work/modules/$kver"
dpkg-deb -x "$deb" "$work/root" || exit 1
trees=(--dkmstree "$work/dkms" --sourcetree "$work/root/usr/src"
	--installtree "$work/modules" -k "$kver"
	--kernelsourcedir "$abi2/usr/src/linux-headers-$kver")
# dkms reads these from the environment when /etc/dkms does not set them:
# the key and certificate it generates stay in the scratch tree, and
# sign-file is the unpacked linux-kbuild's.
export mok_signing_key=$work/mok.key mok_certificate=$work/mok.pub
export sign_file=$abi2/usr/lib/linux-kbuild-${kver%-amd64}/scripts/sign-file

log=$work/dkms.log
dkms add -m iscsi_xt -v "$version" --dkmstree "$work/dkms" \
	--sourcetree "$work/root/usr/src" >"$log" 2>&1 || { cat "$log"; exit 1; }
start=$SECONDS
if ! dkms build -m iscsi_xt -v "$version" "${trees[@]}" >>"$log" 2>&1; then
	cat "$log"
	find "$work/dkms" -name make.log -exec tail -n 30 {} \;
	echo "dkms-abi: the DKMS build for $kver failed"
	exit 1
fi
secs=$((SECONDS - start))
dkms install -m iscsi_xt -v "$version" "${trees[@]}" --no-depmod >>"$log" 2>&1 ||
	{ cat "$log"; echo "dkms-abi: dkms install for $kver failed"; exit 1; }

rc=0
for m in iscsi_xt iscsi_xt_iser; do
	ko=$(find "$work/modules/$kver" -name "$m.ko*" | head -n 1)
	magic=$(modinfo -F vermagic "$ko" 2>/dev/null | cut -d' ' -f1)
	ver=$(modinfo -F version "$ko" 2>/dev/null)
	signer=$(modinfo -F signer "$ko" 2>/dev/null)
	if [ "$magic" = "$kver" ] && [ "$ver" = "$version" ]; then
		echo "dkms-abi: ${ko#"$work"/}: vermagic $magic, version $ver, signer ${signer:-none}"
	else
		echo "dkms-abi: $m for $kver: ${ko:-not installed}, vermagic ${magic:-?}, version ${ver:-?}"
		rc=1
	fi
done
dkms status -m iscsi_xt -v "$version" --dkmstree "$work/dkms" \
	--sourcetree "$work/root/usr/src" --installtree "$work/modules"
echo "dkms-abi: DKMS built iscsi_xt $version for $kver in $secs s on the host"
exit $rc
