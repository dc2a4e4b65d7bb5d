#!/usr/bin/env bash
# Runs every test of toastd. Installs what the tests need first, so that it
# works on a fresh machine (Debian, Swift 6.3 toolchain on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/ensure-packages.sh
ensure_packages build tests
# protocol/validate.py checks the protocol files against their JSON Schemas.
python3 -c "import jsonschema, referencing" 2>/dev/null || python3 -m pip install -q jsonschema

swift build --build-tests
swift test --skip-build "$@"
