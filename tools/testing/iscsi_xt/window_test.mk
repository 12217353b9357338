# SPDX-License-Identifier: GPL-2.0
TESTS += window_test
window_test-objs := window_test.o ixt_test.o kernel/window.o
