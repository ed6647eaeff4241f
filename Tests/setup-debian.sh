#!/bin/sh
# Installs the Debian packages mouse3d builds and tests with (idempotent; needs root or sudo).
# Swift itself is expected at /opt/swift or on PATH.
set -eu
# libavahi-client-dev to build; avahi-daemon and dbus-daemon for the discovery tests, which start
# their own private system bus and a daemon restricted to the loopback interface. gnuplot-nox draws
# `bench accuracy|gyro-mouse --plot` (tested on the host).
packages="libevdev-dev libudev-dev libsodium-dev libavahi-client-dev libssl-dev libqrencode-dev avahi-daemon dbus-daemon pkg-config gnuplot-nox"
# The whole suite (--vm) also boots a kernel under QEMU, drives the live view in headless Chromium and
# installs the Debian package into an empty root.
# man-db and binutils for the package test (man -l, objdump for the package's Depends); debootstrap
# for the package's test on a clean Debian 12 root; systemd for systemd-analyze, which rates the
# units' sandboxes and reads their ExecStart (the packaging tests; nothing is started).
[ "${1:-}" = "--vm" ] && packages="$packages qemu-system-x86 busybox-static cpio kmod xz-utils file iproute2 chromium chromium-driver python3-selenium man-db binutils debootstrap systemd"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
echo "installing:$missing" >&2
$sudo apt-get update -q >/dev/null
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends $missing >/dev/null
