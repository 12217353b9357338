# SPDX-License-Identifier: GPL-2.0
#
# iscsi_xt: out-of-tree build, install, checks, demo and benchmark.
#
#   make               build drivers/target/iscsi_xt/iscsi_xt.ko and
#                      iscsi_xt_iser.ko (the iSER transport)
#   make install       install what make built into /lib/modules/$(KVER)/extra, depmod,
#                      and the modprobe.d snippet that makes iscsi_xt stand
#                      in for iscsi_target_mod
#   make deb           the Debian package iscsi-xt-dkms (DKMS source, architecture
#                      all) in build/deb/, version from the file VERSION
#   make dkms-abi      DKMS builds that package for a second 6.12 ABI, on the host
#                      in a scratch DKMS tree (scripts/dkms-abi.sh)
#   make kselftest-dkms  the package installed in the VM, DKMS building there,
#                      boot-time restore, removal (dkms_package.sh; check-full)
#   make check         everything below, ending with "N passed, N failed"
#   make unit          the user-space unit tests of the pure files
#   make fuzz          the libFuzzer targets over the pure files, FUZZ_TIME
#                      seconds each (60 by default), ending with
#                      "N passed, N failed"; new corpus entries and crash
#                      reproducers go to tools/testing/iscsi_xt/fuzz/build/
#   make fuzz-smoke    the same, FUZZ_SMOKE_TIME seconds each (5), as
#                      make check runs it
#   make demo          boot the VM and drive the module with targetcli
#   make soak          fio write+verify on several sessions while faults
#                      strike, DURATION seconds (600 by default), ending with
#                      a verdict (scripts/soak.sh); not part of make check
#   make bench         iscsi_xt against LIO's iscsi_target_mod, side by side,
#                      over TCP and over iSER (ib_isert against iscsi_xt_iser)
#   make bench-check   make bench's harness in its short smoke mode, ending
#                      with "N passed, N failed" (scripts/bench/smoke.sh -c;
#                      make check-full runs the full smoke mode instead)
#   make debug-kernel  the VM's debug kernel (KASAN, KFENCE, lockdep, kmemleak,
#                      UBSAN...) built once from linux-source-6.12 with
#                      scripts/debug-kernel.config into build/debug-kernel/KEY/
#                      (scripts/debug-kernel.sh; long: not part of make check)
#   make check-multi   initiator and target in two VMs joined by a wire
#                      (scripts/vm/multi.sh): discovery, login, fio write and
#                      verify over TCP, then over iSER (scripts/vm/multi-
#                      smoke.sh); then two target nodes behind ALUA and
#                      dm-multipath, an ALUA transition under fio
#                      (scripts/vm/mpath.sh); each ends with "N passed, N
#                      failed" (not part of make check)
#   make check-ha      two target nodes under Pacemaker, Corosync and DRBD
#                      with the stock iSCSITarget/iSCSILogicalUnit agents
#                      (lio-t) and a floating IP, a planned switchover
#                      and a node powered off and fenced, under fio
#                      (scripts/vm/ha.sh; part of check-full)
#   make check-debug   every kselftest on that kernel, the modules built against
#                      it, failing on any KASAN, lockdep, KFENCE, DEBUG_OBJECTS,
#                      UBSAN or kmemleak report (scripts/check-debug.sh; part of
#                      make check-full, not of make check)
#   make tree KSRC=DIR [KOBJ=DIR]  lay the module into a kernel source tree
#                      (drivers/target/iscsi_xt, hooked into drivers/target's
#                      Kconfig and Makefile) and, if that tree (or KOBJ) is
#                      configured, set ISCSI_XT=m and ISCSI_XT_ISER=m in its
#                      .config (scripts/tree.sh); the kernel's make builds it
#   make tree-check    make tree into linux-source-6.12 in build/tree/, built
#                      there with W=1 (scripts/tree-check.sh; part of make
#                      check-full)
#
# IXT_FAULT_INJECT=1 builds the modules with allocation fault injection
# (drivers/target/iscsi_xt/fault.c), as make kselftest does; make, make
# bench and make demo build without it (make install warns about it).
#
# KVER defaults to the kernel the test VM boots (build/kernel/KVER, written
# by scripts/setup.sh) and, on a machine without it, to the running kernel;
# KDIR overrides the kernel tree.

BUILD	?= $(CURDIR)/build
KVER	?= $(shell cat $(BUILD)/kernel/KVER 2>/dev/null || uname -r)
KDIR	?= /lib/modules/$(KVER)/build
ifeq ($(wildcard $(KDIR)),)
KDIR	:= /usr/src/linux-headers-$(KVER)
endif
DESTDIR	?=
IXT_FAULT_INJECT ?=

KO	:= drivers/target/iscsi_xt/iscsi_xt.ko
SOURCES	= $(filter-out %.mod.c,$(wildcard drivers/target/iscsi_xt/*.[ch] include/iscsi_xt/*.h))

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) IXT_FAULT_INJECT=$(IXT_FAULT_INJECT) modules

# Kbuild's clean deletes every *.ko* below M=, and build/ holds the VM's
# kernel modules: clean the module's own directory only.
clean-module:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/drivers/target/iscsi_xt clean
	rm -f Module.symvers modules.order .Module.symvers.cmd .modules.order.cmd

clean: clean-module
	$(MAKE) -C tools/testing/iscsi_xt clean
	$(MAKE) -C tools/testing/iscsi_xt/fuzz clean

# Debian's headers ask modules_install to sign with a key they do not ship:
# sign only where the kernel tree has its key, else leave signing to the
# admin (DKMS signs with the machine's MOK).
SIGN_KEY := $(wildcard $(KDIR)/output/signing_key.pem $(KDIR)/certs/signing_key.pem)

# Installs what "make" built (as root, nothing is compiled), without its
# debug information, as distributions install modules, and the folder
# the target core keeps persistent reservations in (rtslib's dbroot;
# uninstall leaves it and the state in it). MODDIR names
# another copy of the sources whose modules to install, built against
# KVER elsewhere (make check-debug's, for modprobe_install.sh).
MODDIR	?= $(CURDIR)
install:
	@test -f $(MODDIR)/$(KO) || { echo "$(MODDIR)/$(KO) is not built: run make first" >&2; exit 1; }
	@test -z "$$(modinfo -F ixt_fault_inject $(MODDIR)/$(KO))" || echo "warning: $(KO) is \
		built with IXT_FAULT_INJECT=1 (make kselftest): make rebuilds it without" >&2
	$(MAKE) -C $(KDIR) M=$(MODDIR) INSTALL_MOD_DIR=extra INSTALL_MOD_STRIP=1 \
		$(if $(SIGN_KEY),,CONFIG_MODULE_SIG_ALL=) \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) modules_install
	install -D -m 0644 scripts/modprobe.d/iscsi_xt.conf \
		$(DESTDIR)/etc/modprobe.d/iscsi_xt.conf
	install -d $(DESTDIR)/etc/rtslib-fb-target/pr
	$(if $(DESTDIR),,depmod -a $(KVER))

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KVER)/extra/drivers/target/iscsi_xt/iscsi_xt.ko* \
		$(DESTDIR)/lib/modules/$(KVER)/extra/drivers/target/iscsi_xt/iscsi_xt_iser.ko* \
		$(DESTDIR)/etc/modprobe.d/iscsi_xt.conf
	$(if $(DESTDIR),,depmod -a $(KVER))

setup:
	scripts/setup.sh $(BUILD)

debug-kernel:
	scripts/debug-kernel.sh $(BUILD)

# Build checks: W=1 and sparse (C=2 checks every file), checkpatch --strict
# and kernel-doc, each failing on any message about our files.
build-check:
	scripts/build-check.sh $(KDIR) $(BUILD)

checkpatch:
	$(BUILD)/tools/scripts/checkpatch.pl --strict --no-tree --quiet \
		--show-types -f $(SOURCES)

kdoc:
	@out=$$($(BUILD)/tools/scripts/kernel-doc -none -Wall $(SOURCES) 2>&1); \
	if [ -n "$$out" ]; then echo "$$out"; exit 1; fi

unit:
	$(MAKE) -C tools/testing/iscsi_xt run

FUZZ_TIME	?= 60
FUZZ_SMOKE_TIME	?= 5

fuzz:
	$(MAKE) -C tools/testing/iscsi_xt/fuzz run FUZZ_TIME=$(FUZZ_TIME)

fuzz-smoke:
	$(MAKE) -C tools/testing/iscsi_xt/fuzz run FUZZ_TIME=$(FUZZ_SMOKE_TIME)

deb:
	scripts/mkdeb.sh $(BUILD)

dkms-abi: deb
	scripts/dkms-abi.sh $(BUILD)

# The kselftests need the modules built with fault injection
# (alloc_fail.sh skips without it).
kselftest:
	$(MAKE) modules IXT_FAULT_INJECT=1
	scripts/kselftest.sh $(BUILD)

# dkms_package.sh, which make kselftest leaves out: the package, installed
# in the VM, where DKMS builds it under TCG (make check-full runs it),
# with a timeout of DKMS_TIMEOUT seconds rather than the tests' 600.
DKMS_TIMEOUT	?= 2400
kselftest-dkms: deb
	IXT_KSFT_NAME=kselftest-dkms IXT_KSFT_TIMEOUT=$(DKMS_TIMEOUT) \
		scripts/kselftest.sh $(BUILD) dkms_package.sh

check:
	scripts/check.sh

check-debug:
	scripts/check-debug.sh $(BUILD)

# Initiator and target in two kernels, the modules built as make kselftest
# builds them.
check-multi:
	$(MAKE) modules IXT_FAULT_INJECT=1
	scripts/vm/multi-smoke.sh $(BUILD)
	scripts/vm/mpath.sh $(BUILD)
	scripts/vm/pr.sh $(BUILD)

# The active/passive pair under Pacemaker, Corosync and DRBD, with
# fencing; check-full runs it too (step check-ha).
check-ha:
	$(MAKE) modules
	scripts/vm/ha.sh $(BUILD)

# The module in a kernel source tree, built from Kconfig there.
KSRC	?=
KOBJ	?=

tree:
	@test -n "$(KSRC)" || { echo "usage: make tree KSRC=DIR [KOBJ=DIR]" >&2; exit 2; }
	scripts/tree.sh $(KSRC) $(KOBJ)

tree-check:
	scripts/tree-check.sh $(BUILD)

# make check, then the slow tests it leaves out (scripts/check.sh says
# which), make check-debug among them.
check-full:
	IXT_CHECK_FULL=1 scripts/check.sh

demo:
	scripts/demo.sh

DURATION	?= 600

soak:
	scripts/soak.sh $(DURATION)

# iscsi_xt against LIO's target in one VM boot; BENCH_FLAGS=-q for a quick run,
# BENCH_FLAGS="-t tcp", "-t iser" or "-t iwarp" for one transport (scripts/bench/bench.sh).
bench:
	scripts/bench/bench.sh $(BENCH_FLAGS)

bench-check:
	scripts/bench/smoke.sh -c

.PHONY: all modules clean-module clean install uninstall deb dkms-abi setup debug-kernel \
	build-check checkpatch kdoc unit fuzz fuzz-smoke kselftest kselftest-dkms check \
	check-multi check-ha check-debug tree tree-check check-full demo soak bench bench-check
