# SPDX-License-Identifier: GPL-2.0
TESTS += params_test
params_test-objs := params_test.o ixt_test.o kernel/params.o
