#!/bin/bash
# The project's whole test suite: host unit tests, then the kernel VM suite.
# Installs what it needs (Debian packages) itself. Exit status 0 only if everything passed.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
Tests/setup-debian.sh
echo "== host tests"
swift build --build-tests
swift test --skip-build
