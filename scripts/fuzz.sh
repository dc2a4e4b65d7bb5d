#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fuzzes the wire decoder and the scheduler together (Sources/toast-fuzz).
#
#   bash scripts/fuzz.sh [SECONDS] [--trace-cmp]       default 60
#   bash scripts/fuzz.sh --runs N [--jobs J] [--without-asan] [--trace-cmp]
#                                      the long mode: N executions, however
#                                      long they take, in J processes
#                                      (docs/BENCHMARKS.md, "Fuzzing",
#                                      documents a run of 10^7)
#
# Builds toast-fuzz with libFuzzer and AddressSanitizer, starts from the
# seed corpus in fuzz/corpus (the protocol examples) plus whatever earlier
# runs found (fuzz-artifacts/corpus, not committed), and stops after
# SECONDS. Exits non-zero on any crash, trap, sanitizer report or broken
# scheduler invariant; the input that caused it is written to
# fuzz-artifacts/. Copy it into fuzz/regressions/ and it becomes a
# regression test (Tests/ToastFuzzingTests/FuzzRegressionTests.swift).
#
# --without-asan builds with libFuzzer's coverage alone (about 3.5 times as
# many executions a second): Swift's own checks (bounds, overflow,
# exclusivity, force-unwraps) and the scheduler's invariants still stop
# the run; only AddressSanitizer's reports on unsafe pointers go.
#
# Coverage is edges (inline 8-bit counters) without comparison tracing:
# the callbacks on every comparison were a third of an execution, and in
# two runs of 300 s from the seeds, side by side, the build without them
# made 44% more executions and reached more edges (4,892 against 4,868;
# 4,924 against 4,884; docs/BENCHMARKS.md, "Fuzzing"). The protocol's
# words come from the dictionary instead. --trace-cmp builds with
# -sanitize=fuzzer's full default (trace-cmp included). Each build has a
# scratch directory of its own: SwiftPM does not recompile a module whose
# coverage flags alone changed, so two builds in one directory would mix.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() {
    echo "usage: bash scripts/fuzz.sh [SECONDS] [--trace-cmp] | --runs N [--jobs J] [--without-asan] [--trace-cmp]" >&2
    exit 2
}
limit=(-max_total_time=60)
sanitizers=(--sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address)
coverage=(-Xswiftc -sanitize-coverage=edge,indirect-calls,pc-table,inline-8bit-counters)
scratch=.build-fuzz-edge
parallel=()
runs=""
jobs=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --runs) [[ "${2:-}" =~ ^[0-9]+$ ]] || usage; runs="$2"; shift 2 ;;
        --jobs) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || usage; jobs="$2"; shift 2 ;;
        --without-asan) sanitizers=(--sanitize=fuzzer); without_asan=1; shift ;;
        --trace-cmp) coverage=(); trace_cmp=1; shift ;;
        *) [[ "$1" =~ ^[0-9]+$ && -z "$runs" ]] || usage; limit=(-max_total_time="$1"); shift ;;
    esac
done
if [[ -n "$runs" ]]; then
    # Each of J processes runs N/J executions.
    limit=(-runs="$(((runs + jobs - 1) / jobs))")
    [[ "$jobs" -gt 1 ]] && parallel=(-jobs="$jobs" -workers="$jobs")
elif [[ "$jobs" -gt 1 || -n "${without_asan:-}" ]]; then
    usage  # --jobs and --without-asan belong to the long mode
fi
[[ -n "${trace_cmp:-}" ]] && scratch=.build-fuzz-trace-cmp
[[ -n "${without_asan:-}" ]] && scratch="$scratch-noasan"

swift build -c release --scratch-path "$scratch" --product toast-fuzz "${sanitizers[@]}" "${coverage[@]}"
mkdir -p fuzz-artifacts/corpus
export SWIFT_BACKTRACE=enable=no
# -max_len: longer than any seed; -rss_limit_mb: a leak or blow-up fails the run.
"$scratch/release/toast-fuzz" fuzz-artifacts/corpus fuzz/corpus fuzz/regressions \
    -dict=fuzz/toast.dict "${limit[@]}" "${parallel[@]}" -max_len=4096 -rss_limit_mb=2048 \
    -timeout=10 -artifact_prefix=fuzz-artifacts/ -print_final_stats=1
