# SPDX-License-Identifier: GPL-2.0
TESTS += holes_test
holes_test-objs := holes_test.o ixt_test.o kernel/holes.o
