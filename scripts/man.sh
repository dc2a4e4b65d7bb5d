#!/usr/bin/env bash
# Regenerates docs/man/*.1 with swift-argument-parser's generate-manual
# plugin (it builds the tools for release first). install.sh installs the
# pages from docs/man, so an install needs no plugin run; a test checks
# that every option of every tool is in its page.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package generate-manual >/dev/null
for tool in toastd toastctl toast-tail toast-notify toast-overlay; do
    install -m 644 ".build/plugins/GenerateManual/outputs/$tool/$tool.1" "docs/man/$tool.1"
done
echo "docs/man: $(ls docs/man | tr '\n' ' ')"
