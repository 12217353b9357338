# SPDX-License-Identifier: GPL-2.0
#
# Sourced by scripts/vm/guest-env.sh (one VM, initiator and target in one
# kernel) and scripts/vm/guest-multi.sh (one VM of several): what every
# test VM prepares, whatever its network.
#
# ixt_env_base INITIATOR_NAME prepares:
# - /lib/modules/$(uname -r): the unpacked Debian kernel tree from the cache,
#   with the link to its headers that their package makes (build), which
#   DKMS builds against; IXT_KERNEL_DIR's instead when run.sh booted another
#   kernel (its siw.ko then the tree's own)
# - configfs, /etc/target/{pr,alua} (before target_core_mod loads: LIO and we
#   both fail every persistent-reservation command without them)
# - the system D-Bus (targetcli's backstore tree asks it)
# - iscsid with INITIATOR_NAME
# - sd_mod, since there is no udev to load it
# - lo up
#
# Exported for tests: IXT_SIW_KO, soft-iWARP as scripts/setup.sh built it
# (lib.sh's ixt_use_siw puts siw0 in place of rxe0), IXT_RDMA (rxe or
# siw), IXT_KO.

ixt_env_die() {
	echo "guest-env: $*" >&2
	exit 1
}

ixt_env_base() {
	local kver
	kver=$(uname -r)

	mkdir -p "/lib/modules/$kver"
	mount --bind "${IXT_KERNEL_DIR:-$IXT_BUILD/kernel}/lib/modules/$kver" "/lib/modules/$kver" ||
		ixt_env_die "cannot bind the module tree"
	# In the overlay: the host's copy stays as setup.sh unpacked it.
	[ -e "/lib/modules/$kver/build" ] || [ ! -d "/usr/src/linux-headers-$kver" ] ||
		ln -s "/usr/src/linux-headers-$kver" "/lib/modules/$kver/build"

	mkdir -p /etc/target/pr /etc/target/alua
	modprobe configfs
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config ||
		ixt_env_die "cannot mount configfs"

	mkdir -p /run/dbus
	dbus-daemon --system --fork || ixt_env_die "cannot start dbus"

	modprobe sd_mod
	modprobe iscsi_tcp
	mkdir -p /etc/iscsi
	echo "InitiatorName=$1" >/etc/iscsi/initiatorname.iscsi
	iscsid || ixt_env_die "cannot start iscsid"

	ip link set lo up
}

# ixt_env_rdma_load TYPE: the driver of RDMA devices of TYPE (rxe:
# soft-RoCE, siw: soft-iWARP as scripts/setup.sh built it).
ixt_env_rdma_load() {
	case $1 in
	rxe)	modprobe rdma_rxe ;;
	siw)	[ -d /sys/module/siw ] || ixt_insmod_ko "$IXT_SIW_KO" ;;
	*)	false ;;
	esac
}

# ixt_insmod_ko KO [PARAM...]: insmod a built module after the modules it
# depends on, which insmod does not load itself.
ixt_insmod_ko() {
	local ko=$1 dep

	shift
	for dep in $(modinfo -F depends "$ko" | tr , ' '); do
		[ -d "/sys/module/$dep" ] || modprobe "$dep" || return 1
	done
	insmod "$ko" "$@"
}

# ixt_insmod [PARAM...]: the built iscsi_xt.
ixt_insmod() {
	ixt_insmod_ko "$IXT_KO" "$@"
}

# ixt_insmod_iser [PARAM...]: the built iSER transport, iscsi_xt loaded.
ixt_insmod_iser() {
	ixt_insmod_ko "${IXT_KO%/*}/iscsi_xt_iser.ko" "$@"
}

# The disks of the open-iscsi sessions, /dev/sdX one per line in LUN
# order, once COUNT of them exist (waiting up to 10 s); fails otherwise.
ixt_session_disks() {
	local count=$1 disks

	for _ in $(seq 50); do
		disks=$(iscsiadm -m session -P 3 2>/dev/null |
			awk '/Lun: / { lun = $NF } /Attached scsi disk/ { print lun, $4 }' |
			sort -n | awk '{ print "/dev/" $2 }' |
			while read -r d; do [ -b "$d" ] && echo "$d"; done)
		if [ -n "$disks" ] && [ "$(wc -l <<<"$disks")" -ge "$count" ]; then
			echo "$disks"
			return 0
		fi
		sleep 0.2
	done
	return 1
}

export IXT_IN_VM=1
if [ -n "${IXT_KERNEL_DIR:-}" ]; then
	IXT_SIW_KO=$IXT_KERNEL_DIR/lib/modules/$(uname -r)/kernel/drivers/infiniband/sw/siw/siw.ko
else
	IXT_SIW_KO=$IXT_BUILD/siw/siw.ko
fi
export IXT_SIW_KO
export IXT_RDMA=${IXT_RDMA:-rxe}
export IXT_KO=${IXT_KO:-$IXT_TOP/drivers/target/iscsi_xt/iscsi_xt.ko}
