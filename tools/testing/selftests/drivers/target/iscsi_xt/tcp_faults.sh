#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Faults during IO over TCP: faults.sh tcp, which says what it checks.
exec bash "$(dirname "$0")/faults.sh" tcp
