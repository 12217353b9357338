# SPDX-License-Identifier: GPL-2.0
#
# Sourced by guest jobs: prepare the VM once for target and initiator tests.
#
# - /lib/modules/$(uname -r): the unpacked Debian kernel tree from the cache,
#   with the link to its headers that their package makes (build), which
#   DKMS builds against; IXT_KERNEL_DIR's instead when run.sh booted another
#   kernel (its siw.ko then the tree's own)
# - configfs, /etc/target/{pr,alua} (before target_core_mod loads: LIO and we
#   both fail every persistent-reservation command without them)
# - the system D-Bus (targetcli's backstore tree asks it)
# - iscsid with an initiator name
# - a veth pair (MTU 9000) with IPv4 and IPv6 addresses from the
#   documentation ranges, and soft-RoCE rxe0 on veth0 (soft-iWARP siw0
#   instead with IXT_RDMA=siw, which scripts/vm/run.sh passes on)
# - sd_mod, since there is no udev to load it
#
# The addresses are exported for tests: IXT_ADDR4_T/I, IXT_ADDR6_T/I,
# IXT_SIW_KO, soft-iWARP as scripts/setup.sh built it (lib.sh's
# ixt_use_siw puts siw0 in place of rxe0), and IXT_RDMA_DEV, the RDMA
# device on veth0.

ixt_env_die() {
	echo "guest-env: $*" >&2
	exit 1
}

ixt_env_setup() {
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
	echo "InitiatorName=iqn.2026-11.org.example.vm:initiator" \
		>/etc/iscsi/initiatorname.iscsi
	iscsid || ixt_env_die "cannot start iscsid"

	ip link set lo up
	ip link add veth0 mtu 9000 type veth peer name veth1 mtu 9000 ||
		ixt_env_die "cannot create veth pair"
	ip addr add "$IXT_ADDR4_T/24" dev veth0
	ip addr add "$IXT_ADDR4_I/24" dev veth1
	ip -6 addr add "$IXT_ADDR6_T/64" dev veth0 nodad
	ip -6 addr add "$IXT_ADDR6_I/64" dev veth1 nodad
	ip link set veth0 up
	ip link set veth1 up
	ixt_env_rdma "$IXT_RDMA" ||
		ixt_env_die "cannot create RDMA device $IXT_RDMA_DEV (IXT_RDMA=$IXT_RDMA: rxe or siw; scripts/setup.sh builds siw)"
}

# ixt_env_rdma TYPE: the RDMA device of TYPE (rxe: soft-RoCE rxe0, siw:
# soft-iWARP siw0, as scripts/setup.sh built it) on veth0, and no other
# one there: with two the RDMA CM's choice of device is ambiguous.
ixt_env_rdma() {
	local other

	case $1 in
	rxe)	other=siw0
		modprobe rdma_rxe ;;
	siw)	other=rxe0
		[ -d /sys/module/siw ] || ixt_insmod_ko "$IXT_SIW_KO" ;;
	*)	false ;;
	esac || return 1
	rdma link delete "$other" 2>/dev/null
	[ -d "/sys/class/infiniband/${1}0" ] ||
		rdma link add "${1}0" type "$1" netdev veth0
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

export IXT_ADDR4_T=192.0.2.1 IXT_ADDR4_I=192.0.2.2
export IXT_ADDR6_T=2001:db8::1 IXT_ADDR6_I=2001:db8::2
export IXT_IN_VM=1
if [ -n "${IXT_KERNEL_DIR:-}" ]; then
	export IXT_SIW_KO=$IXT_KERNEL_DIR/lib/modules/$(uname -r)/kernel/drivers/infiniband/sw/siw/siw.ko
else
	export IXT_SIW_KO=$IXT_BUILD/siw/siw.ko
fi
export IXT_RDMA=${IXT_RDMA:-rxe}
export IXT_RDMA_DEV=${IXT_RDMA}0
export IXT_KO=${IXT_KO:-$IXT_TOP/drivers/target/iscsi_xt/iscsi_xt.ko}
ixt_env_setup
