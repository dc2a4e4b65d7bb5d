#!/usr/bin/env bash
# Fuzzes the wire decoder and the scheduler together (Sources/toast-fuzz).
#
#   bash scripts/fuzz.sh [SECONDS]     default 60
#   bash scripts/fuzz.sh --runs N [--jobs J] [--without-asan]
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
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: bash scripts/fuzz.sh [SECONDS] | --runs N [--jobs J] [--without-asan]" >&2; exit 2; }
limit=(-max_total_time="${1:-60}")
sanitizers=(--sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address)
scratch=.build-fuzz
parallel=()
if [[ "${1:-}" == "--runs" ]]; then
    [[ "${2:-}" =~ ^[0-9]+$ ]] || usage
    runs="$2"
    shift 2
    jobs=1
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --jobs) [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || usage; jobs="$2"; shift 2 ;;
            --without-asan) sanitizers=(--sanitize=fuzzer); scratch=.build-fuzz-noasan; shift ;;
            *) usage ;;
        esac
    done
    # Each of J processes runs N/J executions.
    limit=(-runs="$(((runs + jobs - 1) / jobs))")
    [[ "$jobs" -gt 1 ]] && parallel=(-jobs="$jobs" -workers="$jobs")
elif [[ -n "${1:-}" && ! "$1" =~ ^[0-9]+$ ]]; then
    usage
fi

swift build -c release --scratch-path "$scratch" --product toast-fuzz "${sanitizers[@]}"
mkdir -p fuzz-artifacts/corpus
export SWIFT_BACKTRACE=enable=no
# -max_len: longer than any seed; -rss_limit_mb: a leak or blow-up fails the run.
"$scratch/release/toast-fuzz" fuzz-artifacts/corpus fuzz/corpus fuzz/regressions \
    -dict=fuzz/toast.dict "${limit[@]}" "${parallel[@]}" -max_len=4096 -rss_limit_mb=2048 \
    -timeout=10 -artifact_prefix=fuzz-artifacts/ -print_final_stats=1
