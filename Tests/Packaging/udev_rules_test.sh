#!/bin/bash
# What the udev rules grant, read from their rule lines (comments aside). Needs no build and no udev.
#   udev/70-mouse3d.rules (shipped): /dev/uinput by the seat only (TAG+="uaccess"; no GROUP, so
#     being in group input is not enough); motion event nodes and IIO devices by uaccess; each IIO
#     rule requires an acceleration or angular-velocity channel (not every iio:device*: ADCs, DACs,
#     light sensors), and both kinds, buffered and polled, are covered;
#   udev/70-mouse3d-group.rules.example: the same devices to group mouse3d, without uaccess, and
#     its header has the commands that set it up.
# (The VM tests run udevd with both files and check /dev/uinput's group and who may open it.)
#   Tests/Packaging/udev_rules_test.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
shipped=udev/70-mouse3d.rules
alternative=udev/70-mouse3d-group.rules.example
failures=0
check() {  # check DESCRIPTION COMMAND...
    local description=$1; shift
    if "$@"; then echo "udev: ok: $description"; else echo "udev: FAIL: $description"; failures=$((failures + 1)); fi
}
rules() { grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$1"; }
none() { ! grep -q "$@"; }
# Every line of FILE matching PATTERN also matches each of the further patterns (and there is one).
every() {  # every FILE PATTERN REQUIRED...
    local lines pattern
    lines=$(rules "$1" | grep -e "$2" || true)
    [ -n "$lines" ] || return 1
    shift 2
    for pattern in "$@"; do
        ! grep -v -q -e "$pattern" <<<"$lines" || return 1
    done
}
iio_channel='\(TEST\|ATTR{[^}]*}\)=="\(scan_elements/\)\{0,1\}in_\(accel\|anglvel\)_x_\(raw\|en\)"'

uinput=$(rules "$shipped" | grep 'KERNEL=="uinput"' || true)
echo "udev: $shipped, /dev/uinput: $uinput"
check "$shipped: /dev/uinput is tagged for the seat (uaccess)" every "$shipped" 'KERNEL=="uinput"' 'TAG+="uaccess"'
check "$shipped: /dev/uinput gets no group (membership in input must not grant it)" none 'GROUP=' <<<"$uinput"
check "$shipped: /dev/uinput is not opened to everyone" none 'MODE="0\{0,1\}[0-7][0-7][1-7]"' <<<"$uinput"
check "$shipped: no rule gives anything to group input" none 'GROUP="input"' < <(rules "$shipped")
check "$shipped: motion event nodes (ID_INPUT_ACCELEROMETER) are tagged for the seat" \
    every "$shipped" 'ENV{ID_INPUT_ACCELEROMETER}=="1"' 'TAG+="uaccess"'
for file in "$shipped" "$alternative"; do
    check "$file: every IIO rule requires an acceleration or angular-velocity channel" every "$file" 'SUBSYSTEM=="iio"' "$iio_channel"
    for channel in scan_elements/in_accel_x_en scan_elements/in_anglvel_x_en in_accel_x_raw in_anglvel_x_raw; do
        check "$file: an IIO rule matches devices with $channel" bash -c "grep -v '^#' '$file' | grep 'SUBSYSTEM==\"iio\"' | grep -q '\"$channel\"'"
    done
done
check "$alternative: uinput, motion event nodes and IIO sensors go to group mouse3d, 0660" \
    every "$alternative" 'KERNEL==\|SUBSYSTEM==' 'GROUP="mouse3d"' 'MODE="0660"'
check "$alternative: nothing is tagged for the seat (it replaces the seat rule)" none 'uaccess' < <(rules "$alternative")
check "$alternative: /dev/uinput is one of its devices" every "$alternative" 'KERNEL=="uinput"' 'GROUP="mouse3d"'
check "$alternative: its header says how to set it up (groupadd, usermod, install as 70-mouse3d.rules)" \
    bash -c "grep -q '^#.*groupadd .*mouse3d' '$alternative' && grep -q '^#.*usermod -aG mouse3d' '$alternative' \
             && grep -q '^#.*install -m 644 .*70-mouse3d-group.rules.example /etc/udev/rules.d/70-mouse3d.rules' '$alternative'"
echo "udev: $failures failure(s)"
[ "$failures" = 0 ]
