#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Names what lives in each page a request touched (bench/page-split.c).

    python3 bench/page-attribution.py PAGES BINARY

PAGES has one line per referenced mapping of a toastd split page by page:
"START-END PERMS OFFSET PATH-or-anon REFERENCED-KiB". BINARY is the
unstripped executable of the same link. The executable's own mappings are
told from the libraries' by being the path most lines name; an anonymous
mapping is its .bss when it lies inside its image. For each kind of page (code, read-only data, writable
data, .bss, heap) it prints how many were touched, and for each page the
module whose symbols fill most of it: a Swift module from the mangled
name, "Swift" for the standard library, or the C or C++ symbol.
"""
import bisect
import collections
import re
import subprocess
import sys

PAGE = 4096


def load_segments(binary):
    """(file offset, size in file, virtual address, size in memory) of each PT_LOAD."""
    out = subprocess.run(["readelf", "-l", "-W", binary], capture_output=True, text=True, check=True).stdout
    segments = []
    for line in out.splitlines():
        fields = line.split()
        if fields and fields[0] == "LOAD":
            offset, vaddr, _, filesz, memsz = (int(x, 16) for x in fields[1:6])
            segments.append((offset, filesz, vaddr, memsz))
    return segments


def symbols(binary):
    out = subprocess.run(["nm", "-n", "-S", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 4:
            found.append((int(fields[0], 16), max(int(fields[1], 16), 1), fields[3]))
    found.sort()
    return found


def module(name):
    # $ss...: the Swift module; $sS and a letter: a standard type's
    # shorthand (String, Array, BinaryInteger...) opening the name.
    if name.startswith("$ss") or re.match(r"\$sS[A-Za-z]", name):
        return "Swift"
    mangled = re.match(r"\$s(\d+)([A-Za-z_]\w*)", name)
    if mangled:
        return mangled.group(2)[: int(mangled.group(1))]
    if name.startswith(("_ZN5swift", "_ZL", "swift_", "_swift")):
        return "the Swift runtime"
    if name.startswith(("_ZNSt", "_ZSt", "_ZNKSt", "__cxa", "_ZN9__gnu_cxx")):
        return "the C++ library"
    return name[:40]


def main(pages_path, binary):
    segments = load_segments(binary)
    table = symbols(binary)
    starts = [s[0] for s in table]
    rows = [line.split()[:5] for line in open(pages_path) if line.strip()]
    paths = collections.Counter(row[3] for row in rows if row[3].startswith("/"))
    executable = paths.most_common(1)[0][0] if paths else None
    image_end = max(vaddr + memsz for _, _, vaddr, memsz in segments)
    # The load bias: any mapping of the executable gives it.
    bias = None
    for start_end, perms, offset, path, _ in rows:
        if path == executable:
            start = int(start_end.split("-")[0], 16)
            offset = int(offset, 16)
            for seg_offset, filesz, vaddr, _ in segments:
                if seg_offset <= offset < seg_offset + filesz:
                    bias = start - (vaddr + offset - seg_offset)
                    break
            if bias is not None:
                break
    if bias is None:
        sys.exit("page-attribution: no page of the executable in " + pages_path)
    kinds = collections.defaultdict(collections.Counter)
    for start_end, perms, offset, path, referenced in rows:
        start, end = (int(x, 16) for x in start_end.split("-"))
        touched = int(referenced) * 1024 // PAGE
        kind = {"r-xp": "code", "r--p": "read-only data", "rw-p": "writable data"}.get(perms, perms)
        if path == "anon" and 0 <= start - bias < image_end:
            kind = ".bss"
        elif path != executable:
            where = "heap" if path == "[heap]" else "libraries" if path.startswith("/") else "other anonymous"
            kinds[where][path if path.startswith("/") else "(unsplit)"] += touched
            continue
        if end - start > PAGE:
            kinds[kind]["(unsplit)"] += touched
            continue
        for page_start in range(start, end, PAGE):
            address = page_start - bias
            if address < 0:
                continue
            weight = collections.Counter()
            first = max(bisect.bisect_right(starts, address) - 1, 0)
            last = bisect.bisect_right(starts, address + PAGE)
            for symbol_start, size, name in table[first:last]:
                overlap = min(symbol_start + size, address + PAGE) - max(symbol_start, address)
                if overlap > 0:
                    weight[module(name)] += overlap
            kinds[kind][weight.most_common(1)[0][0] if weight else "(no symbol)"] += 1
    for kind in ["code", "read-only data", "writable data", ".bss", "heap", "other anonymous", "libraries"]:
        counts = kinds.get(kind)
        if not counts:
            continue
        listed = ", ".join(f"{name} {count}" for name, count in counts.most_common(10))
        print(f"{kind}: {sum(counts.values())} pages ({listed})")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
