#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The data path over TCP: data.sh tcp, which says what it checks.
exec bash "$(dirname "$0")/data.sh" tcp
