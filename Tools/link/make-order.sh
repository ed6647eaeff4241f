#!/bin/bash
# Writes Tools/link/mouse3d.order: the functions that mouse3d's everyday commands run, one symbol a
# line, for the linker's --symbol-ordering-file (Package.swift, release builds).
#
# Why: the kernel maps a program's code 64 kB at a time around each page it touches (fault-around),
# so code that runs spread over 11 MB of text keeps most of it resident. Laid out together it is a
# few hundred kB. Resident memory of `send` and `receive` is what `mouse3d bench stream` reports.
#
# How: a release build runs under valgrind's callgrind for the commands below (send and receive
# sealed, plain and raw, print in both formats, sealed text with latency as `bench stream` runs it,
# `run` from a log); every function callgrind saw that the linker can move on its own (it has a
# section of its own: our modules are compiled with -function-sections, the Swift runtime's archives
# and GCC's libstdc++.a partly) goes in the list, in three groups (see the end), each sorted by name
# so that the file's diffs stay readable. A function that is not listed still links; a stale list
# only costs memory, never correctness. lld skips the group headings ('#' starts a comment).
#
# usage: Tools/link/make-order.sh [MOUSE3D]   (default .build/release/mouse3d; needs valgrind)
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/../.."
binary=${1:-.build/release/mouse3d}
sample=Tests/Mouse3DCoreTests/Fixtures/sample-motion.csv
command -v valgrind >/dev/null || { echo "make-order.sh: valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
[ -x "$binary" ] || { echo "make-order.sh: no $binary: run swift build -c release --static-swift-stdlib --product mouse3d" >&2; exit 1; }

work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
# valgrind 3.19 cannot read DWARF 5: profile a copy without debug information (symbols stay).
strip --strip-debug -o "$work/mouse3d" "$binary"
m="$work/mouse3d"
profile() { valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/cg.$1.%p" "${@:2}"; }

# A receiver and a sender paired in temporary configuration directories.
mkdir -p "$work/r" "$work/s"
XDG_CONFIG_HOME="$work/r" "$m" pair --listen 127.0.0.1:39931 --stream-port 39932 --timeout 20 >"$work/pair.out" 2>&1 &
for _ in $(seq 50); do grep -q '^pairing code:' "$work/pair.out" 2>/dev/null && break; sleep 0.1; done
code=$(awk '/^pairing code:/ {print $3}' "$work/pair.out")
XDG_CONFIG_HOME="$work/s" "$m" pair 127.0.0.1:39931 "$code" >/dev/null
wait

# stream NAME RECEIVER-FLAGS -- SENDER-FLAGS: one receiver and one sender, both profiled.
stream() {
    local name=$1; shift
    local receiver=() sender=()
    while [ "$1" != -- ]; do receiver+=("$1"); shift; done
    shift
    sender=("$@")
    XDG_CONFIG_HOME="$work/r" valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/cg.$name-receive" \
        "$m" receive --listen 127.0.0.1:39932 "${receiver[@]}" >/dev/null 2>"$work/$name.receive.err" &
    local rp=$!
    sleep 3  # valgrind's start-up
    XDG_CONFIG_HOME="$work/s" profile "$name-send" "$m" send --to 127.0.0.1:39932 --source "replay:$sample" \
        "${sender[@]}" >/dev/null 2>"$work/$name.send.err" || true
    kill -INT $rp
    wait $rp || true
}
stream sealed --print --format jsonl --latency -- --quiet
stream sealed-text --print --format text --latency -- --quiet
stream plain --insecure --print --format text -- --insecure --quiet
stream raw --raw --print --format jsonl -- --raw --quiet
XDG_CONFIG_HOME="$work/s" profile run "$m" run --source "replay:$sample" --print >/dev/null 2>"$work/run.err"

# The functions callgrind saw, by process (names are written in full the first time they appear).
seen() { cat "$@" | sed -n 's/^c\{0,1\}fn=([0-9]*) //p' | sort -u; }
seen "$work"/cg.* >"$work/seen"
seen "$work"/cg.*-send* "$work"/cg.run.* >"$work/seen.send"
seen "$work"/cg.*-receive* >"$work/seen.receive"
# Symbols that sit in a section of their own in the objects the binary is linked from.
objects=$(cat "$(dirname "$binary")/mouse3d.product/Objects.LinkFileList")
objdump -t $objects /opt/swift/usr/lib/swift_static/linux/*.a /usr/lib/gcc/x86_64-linux-gnu/12/libstdc++.a 2>/dev/null |
    awk '$0 ~ / F \.text\./ {print $NF}' | sort -u >"$work/movable"
comm -12 "$work/seen.send" "$work/movable" >"$work/send"
comm -12 "$work/seen.receive" "$work/movable" >"$work/receive"
# Laid out as: what only a sender runs, what both run, what only a receiver runs. Each process then
# touches one run of code (about 700 kB of the 920), not the whole list sorted together.
{
    echo "# what only send (and run) use"
    comm -23 "$work/send" "$work/receive"
    echo "# what send and receive both use"
    comm -12 "$work/send" "$work/receive"
    echo "# what only receive uses"
    comm -13 "$work/send" "$work/receive"
} >Tools/link/mouse3d.order
echo "make-order.sh: $(grep -vc '^#' Tools/link/mouse3d.order) functions of $(wc -l <"$work/seen") seen -> Tools/link/mouse3d.order"
