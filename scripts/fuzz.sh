#!/usr/bin/env bash
# Fuzzes the wire decoder and the scheduler together (Sources/toast-fuzz).
#
#   bash scripts/fuzz.sh [SECONDS]     default 60
#   bash scripts/fuzz.sh --runs N      the long mode: N executions, however
#                                      long they take (docs/BENCHMARKS.md,
#                                      "Fuzzing", documents a run of 10^7)
#
# Builds toast-fuzz with libFuzzer and AddressSanitizer, starts from the
# seed corpus in fuzz/corpus (the protocol examples) plus whatever earlier
# runs found (fuzz-artifacts/corpus, not committed), and stops after
# SECONDS. Exits non-zero on any crash, trap, sanitizer report or broken
# scheduler invariant; the input that caused it is written to
# fuzz-artifacts/. Copy it into fuzz/regressions/ and it becomes a
# regression test (Tests/ToastFuzzingTests/FuzzRegressionTests.swift).
set -euo pipefail
cd "$(dirname "$0")/.."
limit=(-max_total_time="${1:-60}")
if [[ "${1:-}" == "--runs" ]]; then
    [[ "${2:-}" =~ ^[0-9]+$ ]] || { echo "usage: bash scripts/fuzz.sh [SECONDS] | --runs N" >&2; exit 2; }
    limit=(-runs="$2")
fi

swift build -c release --scratch-path .build-fuzz --product toast-fuzz \
    --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address
mkdir -p fuzz-artifacts/corpus
export SWIFT_BACKTRACE=enable=no
# -max_len: longer than any seed; -rss_limit_mb: a leak or blow-up fails the run.
.build-fuzz/release/toast-fuzz fuzz-artifacts/corpus fuzz/corpus fuzz/regressions \
    -dict=fuzz/toast.dict "${limit[@]}" -max_len=4096 -rss_limit_mb=2048 \
    -timeout=10 -artifact_prefix=fuzz-artifacts/ -print_final_stats=1
