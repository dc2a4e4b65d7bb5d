#!/usr/bin/env python3
"""Writes fuzz/corpus/<name>.seed from each protocol/examples transcript:
its requests as lines, and its clock moves as relative '@N' lines (the
format of Sources/ToastFuzzing/FuzzInput.swift)."""
import pathlib

root = pathlib.Path(__file__).resolve().parent.parent
for transcript in sorted((root / "protocol" / "examples").glob("*.transcript")):
    lines, now = [], 0
    for line in transcript.read_text().splitlines():
        if line.startswith("@"):
            target = int(line[1:])
            if target > now:
                lines.append(f"@{target - now}")
            now = max(now, target)
        elif line.startswith("> "):
            lines.append(line[2:])
    out = root / "fuzz" / "corpus" / (transcript.stem + ".seed")
    out.write_text("\n".join(lines) + "\n")
    print(out.relative_to(root))
