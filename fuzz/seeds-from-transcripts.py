#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes fuzz/corpus/<name>.seed from each protocol/examples transcript:
its requests as lines (each connection's in order: "N> " loses its
prefix), and its clock moves as relative '@N' lines (the format of
Sources/ToastFuzzing/FuzzInput.swift)."""
import pathlib
import re

REQUEST = re.compile(r"^[0-9]+> ")

root = pathlib.Path(__file__).resolve().parent.parent
for transcript in sorted((root / "protocol" / "examples").glob("*.transcript")):
    lines, now = [], 0
    for line in transcript.read_text().splitlines():
        if line.startswith("@"):
            target = int(line[1:])
            if target > now:
                lines.append(f"@{target - now}")
            now = max(now, target)
        elif REQUEST.match(line):
            lines.append(line.split(" ", 1)[1])
    out = root / "fuzz" / "corpus" / (transcript.stem + ".seed")
    out.write_text("\n".join(lines) + "\n")
    print(out.relative_to(root))
