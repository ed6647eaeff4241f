#!/bin/bash
# The main job on the bundled sample, no hardware needed: build, then stream the recorded motion log
# through `mouse3d send` to `mouse3d receive --print` over loopback UDP.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
Tests/setup-debian.sh
swift build -c release
mouse3d=.build/release/mouse3d
sample=Tests/Mouse3DCoreTests/Fixtures/sample-motion.csv
work=$(mktemp -d)
trap 'kill "${receiver:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

"$mouse3d" receive --listen 127.0.0.1:0 --print 2>"$work/receiver.log" &
receiver=$!
for _ in $(seq 100); do grep -q "listening on" "$work/receiver.log" && break; sleep 0.05; done
port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/receiver.log")
[ -n "$port" ] || { cat "$work/receiver.log"; exit 1; }

"$mouse3d" send --source "replay:$sample" --to "127.0.0.1:$port" --speed 4
sleep 0.3
kill -TERM "$receiver"
wait "$receiver"
cat "$work/receiver.log" >&2
