#!/usr/bin/env bash
# Runs every test of toastd. Installs what the tests need first, so that it
# works on a fresh machine (Debian, Swift 6.3 toolchain on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v socat >/dev/null || need_apt+=(socat)
if ((${#need_apt[@]})) && command -v apt-get >/dev/null; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 "${need_apt[@]}" >/dev/null
fi
# protocol/validate.py checks the protocol files against their JSON Schemas.
python3 -c "import jsonschema, referencing" 2>/dev/null || python3 -m pip install -q jsonschema

swift build --build-tests
swift test --skip-build "$@"
