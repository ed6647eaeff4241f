#!/bin/bash
# Builds the datagram decoders for libFuzzer and runs them: Tests/Fuzz/run.sh [SECONDS] (default 600).
# The corpus grows in .build-fuzz/corpus; a crash leaves crash-* in the current directory, which
# `.build/debug/DatagramFuzzer crash-*` replays in an ordinary build.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
seconds=${1:-600}
swift build --scratch-path .build-fuzz -c release --product DatagramFuzzer \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DFUZZING
mkdir -p .build-fuzz/corpus
# Seeds: a plain datagram, a pairing hello and a key file line.
printf 'M3\x01\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' >.build-fuzz/corpus/plain
printf 'name = "x"\nepoch = 3\n' >.build-fuzz/corpus/keyfile
.build-fuzz/release/DatagramFuzzer .build-fuzz/corpus -max_total_time="$seconds" -print_final_stats=1 -max_len=2048
