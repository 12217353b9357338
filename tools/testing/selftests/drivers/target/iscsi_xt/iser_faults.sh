#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Faults during IO over iSER: faults.sh iser, which says what it checks.
exec bash "$(dirname "$0")/faults.sh" iser
