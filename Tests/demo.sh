#!/bin/bash
# The main job on the bundled sample, no hardware needed: build, pair a sender with a receiver on
# this machine (each with its own configuration directory, as two machines would have), then stream
# the recorded motion log, sealed, through `mouse3d send` to `mouse3d receive --print` over loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
Tests/setup-debian.sh
swift build -c release --static-swift-stdlib
mouse3d=$PWD/.build/release/mouse3d
sample=Tests/Mouse3DCoreTests/Fixtures/sample-motion.csv
work=$(mktemp -d)
trap 'kill "${receiver:-}" "${pairing:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/receiver-home" "$work/sender-home"
as_sender() { XDG_CONFIG_HOME="$work/sender-home" "$mouse3d" "$@"; }
wait_for() { for _ in $(seq 200); do grep -q "$1" "$2" && return 0; sleep 0.05; done; cat "$2" >&2; return 1; }

XDG_CONFIG_HOME="$work/receiver-home" "$mouse3d" receive --listen 127.0.0.1:0 --print 2>"$work/receiver.log" &
receiver=$!
wait_for "listening on" "$work/receiver.log"
port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/receiver.log")

# Pairing: the receiver shows a code; the sender enters it.
XDG_CONFIG_HOME="$work/receiver-home" "$mouse3d" pair --listen 127.0.0.1:0 --stream-port "$port" >"$work/pair.log" 2>&1 &
pairing=$!
wait_for "pairing on" "$work/pair.log"
code=$(sed -n 's/^pairing code: \([0-9-]*\).*/\1/p' "$work/pair.log")
pair_port=$(sed -n 's/.*pairing on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/pair.log")
as_sender pair "127.0.0.1:$pair_port" "$code"
wait "$pairing"
cat "$work/pair.log" >&2
wait_for "added" "$work/receiver.log"

as_sender send --source "replay:$sample" --speed 4
sleep 0.3
kill -TERM "$receiver"
wait "$receiver"
cat "$work/receiver.log" >&2
