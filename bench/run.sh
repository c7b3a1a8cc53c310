#!/usr/bin/env bash
# `make bench`: measures LinkRunway beside a limit measured in the same run; results go to bench/results/.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 bench/bench.py "$@"
