// SPDX-License-Identifier: GPL-2.0
/* The input every libFuzzer target reads through fuzz.h. */
#include "fuzz.h"

struct fz_input fz_in;
