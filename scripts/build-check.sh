#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check the transport contract (Documentation/design.rst): a transport
# file (tcp.c, tcp_listen.c, iser*.[ch], rdma_desc.c) includes from the
# driver only transport.h and fault.h, and the iSER files their own
# iser.h. Then rebuild the module from clean with W=1 and sparse on every
# file (C=2), without and with allocation fault injection
# (IXT_FAULT_INJECT=1, as make kselftest builds it); fail on any compiler,
# sparse or modpost message.
#
#   scripts/build-check.sh KDIR BUILD_DIR

set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
kdir=$1
log=$2/build-check.log

mkdir -p "$2"
drv=$top/drivers/target/iscsi_xt
bad=$(cd "$drv" && grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' \
	tcp.c tcp_listen.c iser*.[ch] rdma_desc.c |
	grep -vE ':[[:space:]]*#[[:space:]]*include[[:space:]]*"(transport|fault)\.h"' |
	grep -vE '^iser[^:]*:[0-9]+:#include "iser\.h"')
if [ -n "$bad" ]; then
	echo "$bad"
	echo "build-check: a transport file includes a core header (only transport.h and fault.h)"
	exit 1
fi
for fault in "" 1; do
	make -s -C "$top" KDIR="$kdir" clean-module >/dev/null
	if ! make -C "$kdir" M="$top" W=1 C=2 IXT_FAULT_INJECT=$fault \
		modules >"$log" 2>&1; then
		cat "$log"
		echo "build-check: the build failed (IXT_FAULT_INJECT=$fault)"
		exit 1
	fi
	msgs=$(grep -E '(warning|error|note):|WARNING:' "$log")
	if [ -n "$msgs" ]; then
		echo "$msgs"
		echo "build-check: W=1/sparse/modpost messages above (IXT_FAULT_INJECT=$fault)"
		exit 1
	fi
done
echo "build-check: transport includes right; W=1 and sparse clean, with and without IXT_FAULT_INJECT"
