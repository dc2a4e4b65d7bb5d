#!/usr/bin/env bash
# Fuzzes the wire decoder and the scheduler together (Sources/toast-fuzz).
#
#   bash scripts/fuzz.sh [SECONDS]     default 60
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
seconds="${1:-60}"

swift build -c release --scratch-path .build-fuzz --product toast-fuzz \
    --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address
mkdir -p fuzz-artifacts/corpus
export SWIFT_BACKTRACE=enable=no
# -max_len: longer than any seed; -rss_limit_mb: a leak or blow-up fails the run.
.build-fuzz/release/toast-fuzz fuzz-artifacts/corpus fuzz/corpus fuzz/regressions \
    -dict=fuzz/toast.dict -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=2048 \
    -timeout=10 -artifact_prefix=fuzz-artifacts/ -print_final_stats=1
