#!/usr/bin/env bash
# ab_calibration_memcached.sh: the memcached pools of ab_calibration.sh
# (PROGRAM=memcached; see there), kept so the documented command works.
#
#   bash bench/real/ab_calibration_memcached.sh OUT_DIR
exec env PROGRAM=memcached bash "$(dirname "$0")/ab_calibration.sh" "$@"
