#!/usr/bin/env python3
"""Reference-count operations a frame, by the function that asks for them.

Each swift_retain/swift_release is an atomic read-modify-write: a few instructions for callgrind,
but about 20 ns each on this machine's receiver (perf samples), so they are counted apart from
instructions. Reads a callgrind file that Tools/perf/receive-instructions.sh kept (KEEP=1), e.g.

    KEEP=1 Tools/perf/receive-instructions.sh .build/release/mouse3d
    Tools/perf/retains-per-frame.py /tmp/tmp.XXXX/cg.sealed 1201

and prints, for every caller of ours (a Mouse3D module's function) that made at least `minimum` calls
(default: the frame count less 10 %, so one-off calls are left out), the calls a frame and their total.
Start-up's calls (argument parsing, the runtime's own) are not the receive path's and are left out.
"""
import re
import subprocess
import sys

OPERATIONS = ("swift_retain", "swift_release", "swift_retain_n", "swift_release_n",
              "swift_bridgeObjectRetain", "swift_bridgeObjectRelease")


def main() -> int:
    if len(sys.argv) < 3:
        print(__doc__.strip().split("\n\n")[0], file=sys.stderr)
        print("usage: retains-per-frame.py CALLGRIND-FILE FRAMES [MINIMUM-CALLS]", file=sys.stderr)
        return 2
    path, frames = sys.argv[1], int(sys.argv[2])
    minimum = int(sys.argv[3]) if len(sys.argv) > 3 else frames * 9 // 10
    tree = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", "--tree=caller", path],
        capture_output=True, text=True, check=True).stdout
    total = 0
    rows = []
    for block in tree.split("\n\n"):
        lines = block.strip().split("\n")
        callee = next((l for l in lines if "  *  " in l), None)
        if callee is None:
            continue
        name = re.search(r"\?\?\?:(\S+)", callee)
        if not name or name.group(1) not in OPERATIONS:
            continue
        for line in lines:
            if "  <  " not in line and not re.search(r"\s<\s", line):
                continue
            count = re.search(r"\(([\d,]+)x\)", line)
            caller = re.search(r"\?\?\?:(\S+)", line)
            if not count or not caller:
                continue
            calls = int(count.group(1).replace(",", ""))
            if calls < minimum or "Mouse3D" not in caller.group(1):
                continue
            total += calls
            rows.append((calls / frames, name.group(1), caller.group(1)))
    for per_frame, operation, caller in sorted(rows, reverse=True):
        print(f"{per_frame:6.2f}  {operation:26} {caller[:150]}")
    print(f"{total / frames:6.2f}  a frame in all (our callers with at least {minimum} calls)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
