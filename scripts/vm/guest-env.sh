# SPDX-License-Identifier: GPL-2.0
#
# Sourced by guest jobs: prepare the VM once for target and initiator tests
# in one kernel. What scripts/vm/guest-lib.sh prepares (the module tree,
# configfs, D-Bus, iscsid...), then:
#
# - a veth pair (MTU 9000) with IPv4 and IPv6 addresses from the
#   documentation ranges, and soft-RoCE rxe0 on veth0 (soft-iWARP siw0
#   instead with IXT_RDMA=siw, which scripts/vm/run.sh passes on)
#
# The addresses are exported for tests: IXT_ADDR4_T/I, IXT_ADDR6_T/I, and
# IXT_RDMA_DEV, the RDMA device on veth0 (and guest-lib.sh's variables).

. "$IXT_TOP/scripts/vm/guest-lib.sh"

ixt_env_setup() {
	ixt_env_base "iqn.2026-11.org.example.vm:initiator"
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
	rxe)	other=siw0 ;;
	siw)	other=rxe0 ;;
	esac
	ixt_env_rdma_load "$1" || return 1
	rdma link delete "$other" 2>/dev/null
	[ -d "/sys/class/infiniband/${1}0" ] ||
		rdma link add "${1}0" type "$1" netdev veth0
}

export IXT_ADDR4_T=192.0.2.1 IXT_ADDR4_I=192.0.2.2
export IXT_ADDR6_T=2001:db8::1 IXT_ADDR6_I=2001:db8::2
export IXT_RDMA_DEV=${IXT_RDMA}0
ixt_env_setup
