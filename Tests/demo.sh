#!/bin/bash
# The main job on the bundled sample, no hardware needed: build, then fuse the recorded log.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
Tests/setup-debian.sh
swift build -c release
sample=Tests/Mouse3DCoreTests/Fixtures/sample-motion.csv
.build/release/mouse3d replay "$sample"
