#!/bin/bash
# The house rules, checked on the source tree (run by Tests/run-all.sh; prints one line per breach).
#  - Sources/mouse3d parses options and assembles pipelines: no C or Glibc imports, no waits, no
#    signal handling, no sockets.
#  - One readiness wait: `poll(` appears in the event loop alone.
#  - Layers point one way: Core imports no other layer and nothing with I/O; Linux imports Core only;
#    Network and Config import Core and Linux; Bench imports those below it.
set -uo pipefail
cd "$(dirname "$0")/.."
failures=0
fail() { echo "architecture: $1"; failures=$((failures + 1)); }

cli=Sources/mouse3d
hits=$(grep -rnE '^\s*(@preconcurrency )?import (CLinux|Glibc|CEvdev|CUdev|CAvahi|CSodium|COpenSSL|CQRencode|SystemPackage|Foundation)\b' "$cli")
[ -n "$hits" ] && fail "the executable imports C, Glibc or Foundation:"$'\n'"$hits"
hits=$(grep -rnE '\b(poll|ppoll|epoll_wait|select)\(|PollSet|EventLoop\.waitUntilReadable' "$cli")
[ -n "$hits" ] && fail "the executable waits on descriptors itself:"$'\n'"$hits"
hits=$(grep -rnE '\b(sigaction|signal|signalfd|pthread_sigmask|sigprocmask|kill)\(|SignalDescriptor' "$cli")
[ -n "$hits" ] && fail "the executable handles signals itself:"$'\n'"$hits"
hits=$(grep -rnE '(^|[^.[:alnum:]_])(socket|bind|sendto|recvfrom|sendmsg|recvmsg|connect|accept)\(|UDPSocket|AF_INET' "$cli")
[ -n "$hits" ] && fail "the executable makes socket calls:"$'\n'"$hits"

files=$(grep -rlE 'poll\(' Sources | sort)
[ "$files" != "Sources/Mouse3DLinux/System/EventLoop.swift" ] && fail "'poll(' must appear in the event loop alone; found in: $files"

layer() {  # layer MODULE ALLOWED-IMPORT-REGEX
    local bad
    bad=$(grep -rhoE '^\s*(@preconcurrency )?import [A-Za-z0-9_]+' "Sources/$1" | awk '{print $NF}' | sort -u | grep -vxE "$2")
    [ -n "$bad" ] && fail "Sources/$1 imports what its layer may not: $(echo $bad)"
}
layer Mouse3DCore 'RealModule'
layer Mouse3DLinux 'Mouse3DCore|CLinux|Glibc|CEvdev|CUdev|CSodium|CAvahi|COpenSSL|CQRencode|SystemPackage|Synchronization'
layer Mouse3DNetwork 'Mouse3DCore|Mouse3DLinux|Histogram|SystemPackage'
layer Mouse3DConfig 'Mouse3DCore|Mouse3DLinux|TOMLKit|Foundation'
layer Mouse3DView 'Mouse3DCore|Mouse3DLinux'
layer Mouse3DPhone 'Mouse3DCore|Mouse3DLinux'
layer Mouse3DBench 'Mouse3DCore|Mouse3DLinux|Mouse3DNetwork'
layer Mouse3DDoctor 'Mouse3DCore|Mouse3DLinux|Mouse3DNetwork|Mouse3DConfig|SystemPackage'
layer mouse3d 'ArgumentParser|Mouse3DCore|Mouse3DLinux|Mouse3DNetwork|Mouse3DConfig|Mouse3DBench|Mouse3DView|Mouse3DDoctor|Mouse3DPhone'

if [ "$failures" -gt 0 ]; then
    echo "architecture: $failures rule(s) broken"
    exit 1
fi
echo "architecture: ok (thin executable, one event loop, layers point one way)"
