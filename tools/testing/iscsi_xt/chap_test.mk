# SPDX-License-Identifier: GPL-2.0
TESTS += chap_test
chap_test-objs := chap_test.o ixt_test.o kernel/chap.o
# The <crypto/hash.h> shim computes the digests with OpenSSL's libcrypto.
chap_test-ldlibs := -lcrypto
