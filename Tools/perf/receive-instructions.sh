#!/bin/bash
# User-space instructions a receiver spends per frame on the way from the socket to its printed
# line (everything inside AttitudeReceiver.drain: recvmmsg, the checks, the opener, stream tracking,
# the jsonl line), counted by valgrind's callgrind: noise-free, so it can compare two builds on a
# busy machine where `bench stream`'s CPU figures cannot. Each format's receiver is fed the bundled
# log (1201 frames at its 1 kHz) by a sender outside valgrind.
#
# usage: Tools/perf/receive-instructions.sh [MOUSE3D...]   (default .build/release/mouse3d; valgrind)
# Prints, per binary and format (sealed and plain printing jsonl, sealed printing text): frames,
# instructions per frame inside drain, and per frame in the whole receiver (its start-up included).
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/../.."
[ $# -gt 0 ] || set -- .build/release/mouse3d
sample=Tests/Mouse3DCoreTests/Fixtures/sample-motion.csv
command -v valgrind >/dev/null || { echo "receive-instructions.sh: valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
port=$((40000 + RANDOM % 20000))

measure() {  # BINARY FORMAT-NAME RECEIVER-FLAGS... -- SENDER-FLAGS...
    local m=$1 name=$2; shift 2
    local receiver=() sender=()
    while [ "$1" != -- ]; do receiver+=("$1"); shift; done
    shift
    sender=("$@")
    XDG_CONFIG_HOME="$work/r" valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/cg.$name" \
        "$m" receive --listen "127.0.0.1:$port" "${receiver[@]}" >/dev/null 2>"$work/$name.err" &
    local rp=$!
    for _ in $(seq 300); do grep -q "listening on" "$work/$name.err" 2>/dev/null && break; sleep 0.1; done
    XDG_CONFIG_HOME="$work/s" "$m" send --to "127.0.0.1:$port" --source "replay:$sample" --quiet "${sender[@]}" \
        >/dev/null 2>"$work/$name.send.err"
    sleep 3  # what is queued is read (valgrind is slow)
    kill -INT $rp
    wait $rp || true
    local frames drain total
    frames=$(grep -oE 'summary: frames [0-9]+' "$work/$name.err" | head -1 | grep -oE '[0-9]+$' || true)
    drain=$(callgrind_annotate --inclusive=yes --threshold=100 "$work/cg.$name" 2>/dev/null \
        | grep -F 'AttitudeReceiverC5drain' | head -1 | awk '{gsub(",", "", $1); print $1}')
    total=$(callgrind_annotate "$work/cg.$name" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
    if [ "${frames:-0}" -gt 0 ] && [ -n "$drain" ]; then
        printf '%-28s %-8s frames %5d  drain %7d instr/frame  whole receiver %8d instr/frame\n' \
            "$(basename "$m")" "$name" "$frames" \
            $((drain / frames)) $((total / frames))
    else
        echo "$m $name: no figure (frames '${frames:-}', drain '${drain:-}'): see $work/$name.err" >&2
        tail -5 "$work/$name.err" >&2
        KEEP=1
    fi
}

for given in "$@"; do
    # valgrind 3.19 cannot read DWARF 5: a copy without debug information (symbols stay).
    m="$work/$(basename "$given")"
    strip --strip-debug -o "$m" "$given"
    rm -rf "$work/r" "$work/s"; mkdir -p "$work/r" "$work/s"
    XDG_CONFIG_HOME="$work/r" "$m" pair --listen "127.0.0.1:$((port + 1))" --stream-port "$port" --timeout 20 \
        >"$work/pair.out" 2>&1 &
    for _ in $(seq 50); do grep -q '^pairing code:' "$work/pair.out" 2>/dev/null && break; sleep 0.1; done
    code=$(awk '/^pairing code:/ {print $3}' "$work/pair.out")
    XDG_CONFIG_HOME="$work/s" "$m" pair "127.0.0.1:$((port + 1))" "$code" >/dev/null
    wait
    measure "$m" sealed --print --format jsonl -- 
    measure "$m" plain --insecure --print --format jsonl -- --insecure
    # The text line (what `receive` prints by default, and the bench's 64-sender receiver).
    measure "$m" text --print --format text -- 
done
