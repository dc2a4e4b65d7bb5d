#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs every test of toastd. Installs what the tests need first, so that it
# works on a fresh machine (Debian, Swift 6.3 toolchain on PATH).
#
# After the test suite: the fuzzer for 60 s (scripts/fuzz.sh) and a 20 s
# soak of a release toastd (scripts/soak.sh). TOASTD_FUZZ_SECONDS and
# TOASTD_SOAK_SECONDS change the times; 0 skips the step. Arguments go to
# `swift test` (e.g. --filter).
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/ensure-packages.sh
ensure_packages build tests package
# protocol/validate.py checks the protocol files against their JSON Schemas.
python3 -c "import jsonschema, referencing" 2>/dev/null || python3 -m pip install -q jsonschema
# Clients of the freedesktop bridge from PyPI, for the conformance tests
# (beside the system's dbus-python, which notify2 uses).
[ -e .build/pyclients/notify2.py ] && [ -d .build/pyclients/desktop_notifier ] \
    || /usr/bin/python3 -m pip install -q --disable-pip-version-check --target .build/pyclients notify2 desktop-notifier 2>/dev/null \
    || echo "note: notify2 and desktop-notifier could not be installed; their test is skipped" >&2

swift build --build-tests
# Whatever the tests make in /tmp (sockets, state and config directories,
# a desktop's runtime directory) they remove: a run that leaves any of it
# behind fails, naming it. (SwiftPM's own TemporaryDirectory.* are not ours.)
ours() { find /tmp -mindepth 1 -maxdepth 1 \( -name 'toast*' -o -name 'libnotify-client*' \) | sort; }
before="$(ours)"
swift test --skip-build "$@"
left="$(comm -13 <(echo "$before") <(ours))"
if [ -n "$left" ]; then
    echo "the tests left these behind in /tmp:" >&2
    echo "$left" >&2
    exit 1
fi

fuzz_seconds="${TOASTD_FUZZ_SECONDS:-60}"
soak_seconds="${TOASTD_SOAK_SECONDS:-20}"
if [ "$fuzz_seconds" != 0 ]; then
    echo "== fuzzing the decoder and the scheduler for ${fuzz_seconds} s"
    log="$(mktemp)"
    status=0
    bash scripts/fuzz.sh "$fuzz_seconds" >"$log" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
        tail -n 60 "$log"
        echo "fuzzing failed (exit $status); the input is in fuzz-artifacts/" >&2
        exit "$status"
    fi
    grep -E '^(Done|stat::)' "$log" || true
    rm -f "$log"
fi
if [ "$soak_seconds" != 0 ]; then
    echo "== soaking a release toastd for ${soak_seconds} s"
    bash scripts/soak.sh "$soak_seconds"
fi
# Last, as it changes /usr: the Debian package installed, tested and purged (as root).
if [ "${TOASTD_PACKAGE_TEST:-1}" != 0 ] && [ "$(id -u)" = 0 ]; then
    echo "== the Debian package, installed as a user would, then purged"
    bash scripts/package-test.sh
fi
