#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Soaks a release toastd (docs/BENCHMARKS.md, "Soak"): 200 clients adding and
# updating, 20 subscribers of which 5 never read, hostile clients and connect
# loops, all at once, then checks that toastd came through whole. Loopback
# only; bounded in time and memory.
#
#   bash scripts/soak.sh [SECONDS] [toast-bench soak options]
#
# SECONDS defaults to 20 (what CI runs); run 600 or more by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
shift || true
source scripts/ensure-packages.sh
ensure_packages build
for product in toastd toast-bench; do
    swift build -c release --product "$product" 2>&1 | grep -Ev '^\[|^Building|^Compiling|^Write|^Planning' || true
done
bin="$(swift build -c release --show-bin-path)"
exec "$bin/toast-bench" soak --toastd "$bin/toastd" --seconds "$seconds" "$@"
