#!/bin/bash
# Every receiver shape of wakeup-cost.c under SENDERS 1 kHz senders (default 64), SECONDS each
# (default 5), twice, interleaved. Needs gcc.
set -eu
senders=${1:-64}
seconds=${2:-5}
bin=$(mktemp /tmp/wakeup-cost.XXXXXX)
trap 'rm -f "$bin"' EXIT
gcc -O2 -o "$bin" "$(dirname "$0")/wakeup-cost.c"
for round in 1 2; do
    for mode in recv recvw mmsgw ppoll epoll; do
        "$bin" recv "$mode" "$(echo "$seconds + 1" | bc)" &
        sleep 0.3
        "$bin" gen "$senders" "$seconds" 2>/dev/null
        wait
    done
done
