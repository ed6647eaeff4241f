#!/bin/bash
# Builds the network decoders for libFuzzer (with AddressSanitizer) and runs every target:
#   Tests/Fuzz/run.sh [SECONDS-PER-TARGET] [TARGET ...]   (default 150 s each: 10 minutes in all)
# Targets (see DatagramFuzzer.swift): datagrams, sealed (valid tags, mutated plaintext), pairing, probes,
# view, phone.
# Each target's corpus grows in .build-fuzz/corpus/TARGET; a crash leaves crash-* in the current
# directory, which `MOUSE3D_FUZZ_TARGET=TARGET .build/debug/DatagramFuzzer crash-*` replays in an
# ordinary build. Prints one line per target (executions, crashes) and exits 1 if any crashed.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="/opt/swift/usr/bin:$PATH"
seconds=${1:-150}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(datagrams sealed pairing probes view phone)
swift build --scratch-path .build-fuzz -c release --product DatagramFuzzer \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DFUZZING
# One target a core at a time (each fuzzer is one process on one core): CI's 10 s each take 30 s
# on two cores instead of 60. Each target's lines come in the targets' order.
fuzz() {  # fuzz TARGET LOG: runs the target, leaves its output and exit status in LOG and LOG.status
    local corpus=.build-fuzz/corpus/$1 status=0
    mkdir -p "$corpus"
    # Seeds: a plain datagram and a key file line (the mutator finds the rest).
    printf 'M3\x01\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' >"$corpus/plain"
    printf 'name = "x"\nepoch = 3\n' >"$corpus/keyfile"
    MOUSE3D_FUZZ_TARGET=$1 .build-fuzz/release/DatagramFuzzer "$corpus" -max_total_time="$seconds" \
        -print_final_stats=1 -max_len=2048 >"$2" 2>&1 || status=$?
    echo "$status" >"$2.status"
}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
parallel=$(nproc)
for i in "${!targets[@]}"; do
    fuzz "${targets[$i]}" "$logs/$i" &
    # At most one running a core.
    while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
done
wait
failed=0
for i in "${!targets[@]}"; do
    target=${targets[$i]} log=$logs/$i
    status=$(cat "$log.status" 2>/dev/null || echo "?")
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    crashes=$(grep -c "^==[0-9]*==ERROR\|deadly signal\|Test unit written to" "$log" || true)
    echo "fuzz $target: ${executions:-0} executions in $seconds s, crashes: $crashes (exit $status)"
    if [ "$status" != 0 ] || [ "$crashes" != 0 ]; then
        tail -40 "$log"
        failed=1
    fi
done
exit "$failed"
