#!/usr/bin/env python3
"""Which of mouse3d's code a running process keeps resident, by 64 kB fault-around window.

usage: Tools/link/resident-text.py PID [BINARY]   (run as the process's user or root)

Reads /proc/PID/maps and /proc/PID/pagemap (the "present" bit of each page of the binary's
executable mapping) and names each present page by the symbol it holds (`nm`), grouped by the
Swift module or C/C++ origin of that symbol. The kernel maps code 64 kB at a time around each page
a process touches (fault-around), so the number of windows is what the order list
(Tools/link/mouse3d.order) and the link flags in Package.swift try to keep small. Used for
docs/measurements.md, "Footprint, fourth step".
"""
import bisect
import collections
import os
import re
import struct
import subprocess
import sys

PAGE, WINDOW = 4096, 65536


def origin(name):
    """The module a symbol belongs to, from its mangling."""
    m = re.match(r"\$s(\d+)([A-Za-z_]\w*)", name)
    if m:
        return "swift " + m.group(2)[: int(m.group(1))]
    if name.startswith("$s"):
        return "swift standard library"
    if name.startswith("_Z"):
        return "C++"
    if name.startswith("swift_") or name.startswith("_swift"):
        return "Swift runtime"
    return "C"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    pid = int(sys.argv[1])
    binary = os.path.realpath(sys.argv[2] if len(sys.argv) > 2 else f"/proc/{pid}/exe")
    symbols = []
    nm = subprocess.run(["nm", "-n", "--defined-only", binary], capture_output=True, text=True, check=True)
    for line in nm.stdout.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[1] in "tTwW":
            symbols.append((int(parts[0], 16), parts[2]))
    addresses = [a for a, _ in symbols]
    maps = [line.split() for line in open(f"/proc/{pid}/maps")]
    mine = [m for m in maps if len(m) >= 6 and os.path.realpath(m[5]) == binary]
    if not mine:
        sys.exit(f"resident-text: {binary} is not mapped by process {pid}")
    base = min(int(m[0].split("-")[0], 16) - int(m[2], 16) for m in mine)
    by_origin, windows = collections.Counter(), collections.defaultdict(collections.Counter)
    with open(f"/proc/{pid}/pagemap", "rb") as pagemap:
        for m in mine:
            if "x" not in m[1]:
                continue
            low, high = (int(x, 16) for x in m[0].split("-"))
            pagemap.seek(low // PAGE * 8)
            entries = pagemap.read((high - low) // PAGE * 8)
            for i in range(0, len(entries), 8):
                if struct.unpack_from("<Q", entries, i)[0] >> 63:  # present
                    address = low + i // 8 * PAGE
                    j = bisect.bisect_right(addresses, address - base + PAGE // 2) - 1
                    who = origin(symbols[j][1]) if j >= 0 else "?"
                    by_origin[who] += 1
                    windows[address // WINDOW][who] += 1
    total = sum(by_origin.values())
    print(f"resident code: {total * PAGE // 1024} kB in {len(windows)} windows of 64 kB (load address % 64 kB = "
          f"{base % WINDOW:#x})")
    for who, pages in by_origin.most_common(12):
        print(f"  {pages * PAGE // 1024:6d} kB  {who}")
    print("windows (offset in the binary: pages present, main origins):")
    for w in sorted(windows):
        top = ", ".join(f"{k} {v}" for k, v in windows[w].most_common(3))
        print(f"  {w * WINDOW - base:#09x}: {sum(windows[w].values()):2d}  {top}")


if __name__ == "__main__":
    main()
