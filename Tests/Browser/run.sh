#!/bin/bash
# The browser and terminal tests, one after the other: the live view, its layout, a phone as the
# source, the phone as a person meets it, its address and QR code, the phone surface attacked.
# Usage: Tests/Browser/run.sh [MOUSE3D]   (default .build/debug/mouse3d; Tests/run-all.sh runs it
# beside the host tests). Exit 0 only if all passed.
set -euo pipefail
cd "$(dirname "$0")/../.."
d=${1:-.build/debug/mouse3d}
sample=Tests/Mouse3DCoreTests/Fixtures/sample-motion.csv
python=/usr/bin/python3  # Debian's, with python3-selenium (Tests/setup-debian.sh)
SECONDS=0
title() { printf -- '-- [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$1"; }
title "live view in headless Chromium (Tests/Browser/view_test.py)"
$python Tests/Browser/view_test.py "$d" "$sample"
title "the live view's layout at 1280x800 and 360 px, the device drawn, a replay that ends (Tests/Browser/view_layout_test.py)"
$python Tests/Browser/view_layout_test.py "$d" "$sample" "$(mktemp -d)"
title "a phone as the source in headless Chromium, its motion from virtual sensors (Tests/Browser/phone_test.py)"
$python Tests/Browser/phone_test.py "$d" "$(mktemp -d)/phone.png"
title "the phone as a person meets it: old and mistyped codes, no sensors, landscape, an outage, http://, the certificate warning (Tests/Browser/phone_person_test.py)"
$python Tests/Browser/phone_person_test.py "$d" "$(mktemp -d)"
title "the phone page's address URL where HOST.local does not resolve (a network namespace; Tests/Network/phone_address_test.sh)"
Tests/Network/phone_address_test.sh "$d"
title "the phone's QR code read off an 80x24 and a 100x50 tmux pane by zbarimg (Tests/Terminal/qr_test.py)"
$python Tests/Terminal/qr_test.py "$d"
title "the phone surface attacked: ClientHello floods, a spent token, connect floods, button floods (Tests/Browser/phone_attack_test.py)"
$python Tests/Browser/phone_attack_test.py "$d" "$sample"
title "all passed"
