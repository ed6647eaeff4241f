#!/bin/bash
# The house rules, checked on the source tree (run by Tests/run-all.sh; prints one line per breach).
#  - Sources/mouse3d parses options and assembles pipelines: no C or Glibc imports, no waits, no
#    signal handling, no sockets.
#  - One readiness wait: `poll(` appears in the event loop alone.
#  - Layers point one way: Core imports no other layer and nothing with I/O; Linux imports Core only;
#    Network and Config import Core and Linux; Bench imports those below it; Assembly (where a
#    command streams and listens, its parts) imports the features, and only the executable imports it.
#  - No Foundation in the product; one TOML reader (Mouse3DCore/Text/TOML); one JSON escaper
#    (Mouse3DCore/Text/JSONText.swift); benchmarks and their loops in Mouse3DBench (the
#    executable's bench files time nothing and run no filter); the system-call shim's test-only face
#    (@_spi) used by the device emulators under Tests/ only.
# With --self-test: plants one breach of each rule in a copy of the tree and checks that each is
# reported (a rule that cannot fail checks nothing).
set -uo pipefail
script="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
if [ "${1:-}" = "--self-test" ]; then
    root=$(mktemp -d); trap 'rm -rf "$root"' EXIT
    ok=0
    copy() {
        rm -rf "$root/tree"; mkdir -p "$root/tree/Tests"; cp -r "$(dirname "$script")/../Sources" "$root/tree/"
        cp "$script" "$root/tree/Tests/"
    }
    plant() {  # plant NAME FILE CONTENT EXPECTED-MESSAGE
        copy
        printf '%s\n' "$3" > "$root/tree/$2"
        if out=$("$root/tree/Tests/$(basename "$script")" 2>&1); then
            echo "architecture self-test: $1 was not reported"; ok=1
        elif ! grep -qF "$4" <<<"$out"; then
            echo "architecture self-test: $1 failed the check but not with '$4':"; echo "$out"; ok=1
        fi
    }
    copy
    if ! "$root/tree/Tests/$(basename "$script")" >/dev/null 2>&1; then
        echo "architecture self-test: the unplanted copy already fails; fix the tree first"; exit 1
    fi
    plant "a second JSON escaper" Sources/Mouse3DView/Escape.swift 'func e(_ c: Character) -> String { switch c { case "\"": return "\\\""; default: return "" } }' "a second JSON escaper"
    plant "a benchmark loop in the executable" Sources/mouse3d/BenchExtra.swift 'let clock = ContinuousClock()' "a benchmark loop in the executable"
    plant "a public top-level type too many" Sources/Mouse3DCore/Twins.swift $'public struct A {}\npublic struct B {}' "more than one public top-level type"
    plant "an output flag outside the shared group" Sources/mouse3d/Extra.swift $'struct X {\n    @Flag(help: "x")\n    var print = false\n}' "an output flag declared outside"
    plant "an entry's flag declared again, its help over lines" Sources/mouse3d/Extra.swift $'struct X {\n    @Option(\n        help: ArgumentHelp(\n            "x", valueName: "y"))\n    var opentrack: String?\n}' "an output flag declared outside"
    plant "a setting named by a string path" Sources/mouse3d/Extra.swift 'let p = c["network.port"]' "a setting named by a string path"
    plant "an output made by a command" Sources/mouse3d/Extra.swift 'let p = PrintOutput(format: .text)' "an output made outside the output catalog"
    plant "the emulators' shim outside Tests" Sources/Mouse3DNetwork/Shim.swift '@_spi(DeviceEmulators) import Mouse3DLinux' "@_spi"
    plant "Foundation in the product" Sources/Mouse3DLinux/F.swift 'import Foundation' "Foundation (or a package built on it)"
    plant "a second key = value reader" Sources/Mouse3DCore/KV.swift $'func r(_ t: String) { for l in t.split(separator: "\\n") { _ = l.firstIndex(of: "=") } }' "a second key = value reader"
    plant "a default for every output" Sources/Mouse3DCore/Defaults.swift $'extension AttitudeOutput {\n    public func finish() {}\n}' "a default for every AttitudeOutput"
    plant "OpenSSL linked" Sources/COpenSSL/module.modulemap $'module COpenSSL [system] {\n    header "shim.h"\n    link "ssl"\n}' "a library opened on first use is linked"
    plant "libudev linked" Sources/CUdev/module.modulemap $'module CUdev [system] {\n    header "shim.h"\n    link "udev"\n}' "a library opened on first use is linked"
    plant "Avahi's library" Sources/CLinux/avahi.h '#include <avahi-client/client.h>' "a D-Bus or Avahi library"
    plant "libdbus opened" Sources/COpenSSL/dbus.h '#define M3D_LIBDBUS "libdbus-1.so.3"' "a D-Bus or Avahi library"
    plant "a second connection engine" Sources/Mouse3DView/Server2.swift 'func f(_ b: inout [UInt8], _ s: inout Int) { _ = HTTPRequestHead.take(from: &b, scanned: &s) }' "a second HTTP/WebSocket connection engine"
    plant "an epoll wait outside the loop" Sources/Mouse3DNetwork/Wait.swift 'func w(_ fd: Int32) { _ = epoll_wait(fd, nil, 0, 0) }' "must be the event loop's alone"
    plant "a select outside the loop" Sources/Mouse3DLinux/Sel.swift 'func s() { _ = select(0, nil, nil, nil, nil) }' "must be the event loop's alone"
    plant "an import across the layers" Sources/Mouse3DCore/Up.swift 'import Mouse3DLinux' "imports what its layer may not"
    [ "$ok" = 0 ] && echo "architecture self-test: every planted breach was reported"
    exit "$ok"
fi
cd "$(dirname "$0")/.."
failures=0
fail() { echo "architecture: $1"; failures=$((failures + 1)); }

cli=Sources/mouse3d
hits=$(grep -rnE '^\s*(@preconcurrency )?import (CLinux|Glibc|CEvdev|CUdev|CSodium|COpenSSL|CQRencode|SystemPackage|Foundation)\b' "$cli")
[ -n "$hits" ] && fail "the executable imports C, Glibc or Foundation:"$'\n'"$hits"
hits=$(grep -rnE '\b(poll|ppoll|epoll_wait|select)\(|PollSet|EventLoop\.waitUntilReadable' "$cli")
[ -n "$hits" ] && fail "the executable waits on descriptors itself:"$'\n'"$hits"
hits=$(grep -rnE '\b(sigaction|signal|signalfd|pthread_sigmask|sigprocmask|kill)\(|SignalDescriptor' "$cli")
[ -n "$hits" ] && fail "the executable handles signals itself:"$'\n'"$hits"
hits=$(grep -rnE '(^|[^.[:alnum:]_])(socket|bind|sendto|recvfrom|sendmsg|recvmsg|connect|accept)\(|UDPSocket|AF_INET' "$cli")
[ -n "$hits" ] && fail "the executable makes socket calls:"$'\n'"$hits"

# One event loop: every wait on descriptors (poll, ppoll, select, pselect, epoll_wait, epoll_pwait,
# epoll_pwait2) is in EventLoop.swift. An epoll set of its own that the loop watches (discovery's)
# creates and fills a set but never waits on it. A method named so, called as `x.poll(`, is not
# the system call.
files=$(grep -rlE '(^|[^A-Za-z0-9_.])(ppoll|poll|p?select|epoll_(wait|pwait2?))\(' Sources | sort)
[ "$files" != "Sources/Mouse3DLinux/System/EventLoop.swift" ] \
    && fail "waiting on descriptors (poll, select, epoll) must be the event loop's alone; found in: $files"

layer() {  # layer MODULE ALLOWED-IMPORT-REGEX
    local bad
    bad=$(grep -rhoE '^\s*(@preconcurrency )?import [A-Za-z0-9_]+' "Sources/$1" | awk '{print $NF}' | sort -u | grep -vxE "$2")
    [ -n "$bad" ] && fail "Sources/$1 imports what its layer may not: $(echo $bad)"
}
layer Mouse3DCore 'RealModule'
layer Mouse3DLinux 'Mouse3DCore|CLinux|Glibc|CEvdev|CUdev|CSodium|COpenSSL|CQRencode|SystemPackage|Synchronization'
layer Mouse3DNetwork 'Mouse3DCore|Mouse3DLinux|Histogram|SystemPackage'
layer Mouse3DConfig 'Mouse3DCore|Mouse3DLinux'
layer Mouse3DView 'Mouse3DCore|Mouse3DLinux'
layer Mouse3DPhone 'Mouse3DCore|Mouse3DLinux'
layer Mouse3DBench 'Mouse3DCore|Mouse3DLinux|Mouse3DNetwork|RealModule'
layer Mouse3DDoctor 'Mouse3DCore|Mouse3DLinux|Mouse3DNetwork|Mouse3DConfig|Mouse3DPhone|SystemPackage'
layer Mouse3DAssembly 'Mouse3DCore|Mouse3DLinux|Mouse3DNetwork|Mouse3DPhone|Mouse3DView'
layer mouse3d 'ArgumentParser|Mouse3DCore|Mouse3DLinux|Mouse3DNetwork|Mouse3DConfig|Mouse3DBench|Mouse3DView|Mouse3DDoctor|Mouse3DPhone|Mouse3DAssembly'

# One JSON escaper: a `case "\"":` (escaping a quote) is JSONText's alone (the key files' TOML strings
# are written by it too).
files=$(grep -rlF 'case "\"":' Sources | sort | grep -vxE 'Sources/Mouse3DCore/Text/JSONText.swift')
[ -n "$files" ] && fail "a second JSON escaper (use Mouse3DCore's JSONText): $(echo $files)"

# No Foundation in the product: it brings ICU's data (37 MB) into the static binary. The TOML reader
# is Core's; a package that reads TOML (or anything) through Foundation is refused here too.
hits=$(grep -rnE '^\s*(@preconcurrency )?import (Foundation|FoundationEssentials|FoundationInternationalization|FoundationNetworking|TOMLKit)\b' Sources)
[ -n "$hits" ] && fail "Foundation (or a package built on it) in the product:"$'\n'"$hits"

# One TOML reader: Core's TOMLReader. A file that splits text into lines and looks for '=' in them
# is a second `key = value` reader (environ, TXT records and URL queries are not split by lines).
hits=$(grep -rlE 'split\(separator: "\\n"' Sources | grep -v '^Sources/Mouse3DCore/Text/TOML/' \
    | xargs -r grep -lE 'firstIndex\(of: "="\)|split\(separator: "="')
[ -n "$hits" ] && fail "a second key = value reader (use Mouse3DCore's TOMLReader): $(echo $hits)"

# Benchmarks live in Mouse3DBench: the executable's bench files parse options, call and print.
hits=$(grep -nE 'ContinuousClock|SuspendingClock|MonotonicClock|AttitudeEstimator\(|[eE]stimator\.update\(' Sources/mouse3d/Bench*.swift)
[ -n "$hits" ] && fail "a benchmark loop in the executable (move it to Mouse3DBench):"$'\n'"$hits"

# Output flags are declared once, in the shared groups (OutputOptions, its entries, DSUOptions): an
# @Option or @Flag for print, uinput, view or an entry's or DSU's flag anywhere else is a second
# declaration with its own rules. An entry's flags are read from the entry's file, so a new output
# needs no line here.
entry_files=$( (grep -lE ':\s*OutputEntry\b' "$cli"/*.swift; echo "$cli/DSUOptions.swift") | sort -u)
# FILE:LINE:NAME of every @Option/@Flag property (the first `var` after the attribute, however many
# lines its help takes).
flags_in() { awk '/@(Option|Flag)([^A-Za-z]|$)/ { wanted = 1 } wanted && match($0, /^[ \t]*var [A-Za-z0-9_]+/) {
    name = substr($0, RSTART, RLENGTH); sub(/^[ \t]*var /, "", name); print FILENAME ":" FNR ":" name; wanted = 0 }' "$@"; }
entry_flags=$(flags_in $entry_files | awk -F: '{print $3}' | sort -u | paste -sd'|')
hits=$(flags_in $(ls "$cli"/*.swift | grep -vxF -e "$cli/OutputOptions.swift" $(printf -- '-e %s ' $entry_files)) \
    | grep -E ":(print|uinput|view${entry_flags:+|$entry_flags})\$")
[ -n "$hits" ] && fail "an output flag declared outside the shared option groups (use OutputOptions):"$'\n'"$hits"

# Outputs are made by the output catalog (OutputOptions, its entries, DSUOptions), or by the
# assembly layer below it: a command file that makes one itself (any class that is an AttitudeSink
# or a SourceObserver) has grown a second way to add an output.
outputs=$(grep -rhoE 'class [A-Za-z0-9_]+: [^{]*\b(AttitudeSink|SourceObserver)\b' Sources | awk '{print $2}' | tr -d ':' \
    | sort -u | paste -sd'|')
catalog=$( (grep -lE ':\s*OutputEntry\b' "$cli"/*.swift; echo "$cli/OutputOptions.swift"; echo "$cli/DSUOptions.swift") \
    | sed 's/$/:/')
hits=$( [ -z "$outputs" ] || grep -nE "\b($outputs)\(" "$cli"/*.swift | grep -vF "$catalog")
[ -n "$hits" ] && fail "an output made outside the output catalog (an entry in OutputOptions, or Mouse3DAssembly):"$'\n'"$hits"

# A setting is named by its typed key (ConfigurationKey: `.networkPort`), whose mistype does not
# compile; a path in a string ("network.port") is a typo found at run time. Only the schema, the keys
# and the file reader (Core's Configuration, Mouse3DConfig) spell paths.
sections=$(grep -oE 'sections: \[[^]]*\]|sections = \[[^]]*\]' Sources/Mouse3DCore/Configuration/ConfigurationSchema.swift | grep -oE '"[a-z]+"' | tr -d '"' | paste -sd'|')
hits=$(grep -rnE "\"(${sections:-network|send|receive|pointer|filter|gamepad})\.[a-z_]+\"" Sources \
    | grep -vE '^Sources/(Mouse3DCore/Configuration|Mouse3DConfig)/' | grep -vE '^\S+:[0-9]+:\s*///')
[ -n "$hits" ] && fail "a setting named by a string path (use its ConfigurationKey):"$'\n'"$hits"

# Outputs: AttitudeOutput's requirements have no unconditional default (a wrapper would inherit a
# no-op for a requirement added later); defaults live in AttitudeSink and ForwardingOutput.
hits=$(grep -rnE '^(public )?extension AttitudeOutput\s*\{' Sources)
[ -n "$hits" ] && fail "a default for every AttitudeOutput (put it in AttitudeSink and ForwardingOutput):"$'\n'"$hits"

# The system-call shim's test-only face is for the device emulators under Tests/.
hits=$(grep -rn '@_spi(' Sources | grep -v '^Sources/Mouse3DLinux/System/SystemCall.swift:')
[ -n "$hits" ] && fail "@_spi outside the shim's declaration (only Tests/ may use it):"$'\n'"$hits"

# OpenSSL, libudev and libqrencode are opened when first needed, not linked (linked, they cost every
# process their tables and relocations: OpenSSL 1.7 MB resident, the other two 130 kB in a receiver):
# their modules link nothing, and the code reaches them through the shims' tables.
hits=$(grep -nE '^\s*link ' Sources/COpenSSL/module.modulemap Sources/CUdev/module.modulemap Sources/CQRencode/module.modulemap)
[ -n "$hits" ] && fail "a library opened on first use is linked (reach it through m3d_openssl(), m3d_udev(), m3d_qrencode()):"$'\n'"$hits"
# D-Bus and Avahi are spoken over the bus's socket (Mouse3DLinux/Discovery): no library of theirs is
# linked, included or opened (libavahi-client's chain cost a receiver 1.2 MB resident).
hits=$(grep -rniE 'avahi|dbus' Sources --include='*.h' --include='*.modulemap' --include='*.c')
[ -n "$hits" ] && fail "a D-Bus or Avahi library in C (speak D-Bus through Mouse3DLinux/Discovery/DBusConnection):"$'\n'"$hits"

# HTTP requests and WebSocket frames are taken off a connection in one place, the engine under the
# view and the phone page (Mouse3DLinux/Sockets/Web): a server of its own would be a second copy of
# its bounds, deadlines and close rules.
hits=$(grep -rnE 'HTTPRequestHead\.take\(|WebSocketFrame\.decodeClientHeader\(' Sources \
    | grep -vE '^Sources/(Mouse3DLinux/Sockets/Web/WebConnections|Mouse3DCore/Web/[A-Za-z]+)\.swift:')
[ -n "$hits" ] && fail "a second HTTP/WebSocket connection engine (serve through WebConnections):"$'\n'"$hits"

# One public top-level type per file (extensions and nested types do not count).
while IFS= read -r f; do
    n=$(grep -cE '^public (final )?(struct|class|enum|protocol|actor) ' "$f")
    [ "$n" -gt 1 ] && fail "$f has more than one public top-level type ($n): one main type per file"
done < <(find Sources -name '*.swift' | sort)

if [ "$failures" -gt 0 ]; then
    echo "architecture: $failures rule(s) broken"
    exit 1
fi
echo "architecture: ok (thin executable, one event loop, layers point one way)"
