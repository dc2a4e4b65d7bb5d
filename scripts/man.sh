#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Regenerates docs/man/*.1 with swift-argument-parser's generate-manual
# plugin (it builds the tools for release first). install.sh installs the
# pages from docs/man, so an install needs no plugin run; a test checks
# that every option of every tool is in its page.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package generate-manual >/dev/null
# What the generator cannot know is added from docs/man/extra/TOOL.mdoc:
# EXIT STATUS (its own statuses, not "0 on success"), ENVIRONMENT, FILES,
# EXAMPLES and SEE ALSO. A tool without subcommands loses the generator's
# `subcommand` synopsis word and its `help` pseudo-subcommand.
for tool in toastd toastctl toast-tail toast-notify toast-overlay; do
    page=".build/plugins/GenerateManual/outputs/$tool/$tool.1"
    python3 - "$page" "docs/man/extra/$tool.mdoc" "docs/man/$tool.1" "$tool" <<'PY'
import re, sys
page, extra, out, tool = sys.argv[1:5]
text = open(page).read()
if tool != "toastctl":
    text = text.replace(".Nm\n.Ar subcommand\n", ".Nm\n", 1)
    text = re.sub(r"\.It Em help\nShow subcommand help information\.\n\.Bl -tag -width 6n\n\.It Ar subcommands\.\.\.\n\.It Fl -version\nShow the version\.\n\.El\n", "", text)
text = text[: text.index('.Sh "EXIT STATUS"')] + open(extra).read()
# A blank line in a tool's discussion is a paragraph break, not an empty input line.
text = re.sub(r"\n\n+", "\n.Pp\n", text)
open(out, "w").write(text)
PY
done
echo "docs/man: $(ls docs/man | tr '\n' ' ')"
