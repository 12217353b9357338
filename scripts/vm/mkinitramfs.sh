#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the VM's tiny initramfs: busybox-static, the 9p and overlay modules
# (decompressed, since busybox insmod takes plain .ko files) and our /init.
#
#   scripts/vm/mkinitramfs.sh KERNEL_TREE OUTPUT
#
# KERNEL_TREE is the unpacked Debian kernel (holding KVER, lib/modules/).
# The image is rebuilt only when one of its inputs is newer than it.

set -euo pipefail

ktree=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
kver=$(cat "$ktree/KVER")
mods="netfs 9pnet 9pnet_virtio 9p overlay"

if [ -f "$out" ] && [ "$out" -nt "$here/initramfs-init" ] &&
   [ "$out" -nt "$ktree/KVER" ] && [ "$out" -nt /bin/busybox ]; then
	exit 0
fi

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT

mkdir -p "$staging"/{bin,dev,proc,sys,lower,rw,newroot,lib/modules}
cp /bin/busybox "$staging/bin/busybox"
cp "$here/initramfs-init" "$staging/init"
chmod 0755 "$staging/init"

for m in $mods; do
	path=$(find "$ktree/lib/modules/$kver/kernel" -name "$m.ko*" | head -n 1)
	[ -n "$path" ] || { echo "mkinitramfs: module $m not found" >&2; exit 1; }
	case "$path" in
	*.xz)	xz -dc "$path" >"$staging/lib/modules/$m.ko" ;;
	*)	cp "$path" "$staging/lib/modules/$m.ko" ;;
	esac
done
echo "$mods" >"$staging/lib/modules/order"

mkdir -p "$(dirname "$out")"
(cd "$staging" && find . | cpio -o -H newc --quiet | gzip -1) >"$out.$$"
mv "$out.$$" "$out"
