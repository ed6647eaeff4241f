#!/bin/bash
# Every one of the 2^32 Float bit patterns: ShortestFloat (Sources/Mouse3DCore/Text) writes the text
# of Float.description, byte for byte. The unit tests check every exponent and the attitudes' range;
# this is the whole space, about four minutes of a core (2 min 9 s on two cores here), split over the machine's cores.
#
# usage: Tools/float/check-shortest-float.sh     (Swift on PATH; prints the count checked and any that differ)
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
cat > "$work/main.swift" <<'SWIFT'
let from = UInt64(CommandLine.arguments[1])!
let to = UInt64(CommandLine.arguments[2])!
let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 32)
var differ = 0
var bits = from
while bits < to {
    let v = Float(bitPattern: UInt32(truncatingIfNeeded: bits))
    let n = ShortestFloat.write(v, to: buffer)
    var text = v.description
    let same = text.withUTF8 { u in u.count == n && (0..<n).allSatisfy { u[$0] == buffer[$0] } }
    if !same {
        differ += 1
        if differ <= 10 { print("differs: bits \(String(bits, radix: 16)): \(ShortestFloat.text(v)) for \(v.description)") }
    }
    bits += 1
}
print("\(from)..<\(to): \(to - from) checked, \(differ) differ")
SWIFT
swiftc -O -module-name check Sources/Mouse3DCore/Text/ShortestFloat.swift Sources/Mouse3DCore/Text/DecimalDigits.swift "$work/main.swift" -o "$work/check"
parts=$(nproc)
step=$(( (1 << 32) / parts ))
for ((i = 0; i < parts; i++)); do
    from=$((i * step))
    to=$(( i == parts - 1 ? 1 << 32 : (i + 1) * step ))
    "$work/check" "$from" "$to" > "$work/part.$i" &
done
wait
cat "$work"/part.*
! grep -q "differs:" "$work"/part.* && ! grep -qv " 0 differ$" "$work"/part.*
echo "check-shortest-float: all 2^32 bit patterns write Float.description's text"
