# SPDX-License-Identifier: GPL-2.0
TESTS += dpt_test
dpt_test-objs := dpt_test.o ixt_test.o kernel/dpt.o kernel/holes.o
