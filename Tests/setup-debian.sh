#!/bin/sh
# Installs the Debian packages mouse3d builds and tests with (idempotent; needs root or sudo).
# Swift itself is expected at /opt/swift or on PATH.
set -eu
# libstdc++-12-dev for GCC's libstdc++.a, linked into release builds (Tools/link/static);
# avahi-daemon and dbus-daemon for the discovery tests (mouse3d speaks D-Bus itself), which start
# their own private system bus and a daemon restricted to the loopback interface. gnuplot-nox draws
# `bench accuracy|gyro-mouse --plot` (tested on the host).
packages="libstdc++-12-dev libevdev-dev libudev-dev libsodium-dev libssl-dev libqrencode-dev avahi-daemon dbus-daemon pkg-config gnuplot-nox"
# The whole suite (--vm) also boots a kernel under QEMU, drives the live view in headless Chromium and
# installs the Debian package into an empty root.
# man-db and binutils for the package test (man -l, objdump for the package's Depends); debootstrap
# for the package's test on a clean Debian 12 root; openssl (its s_client) makes the ClientHellos of the
# phone's attack test; tmux, zbar-tools and python3-pil read the phone's QR code off a terminal; systemd for systemd-analyze, which rates the
# units' sandboxes and reads their ExecStart (the packaging tests; nothing is started). libsdl2-2.0-0 is
# the SDL a game links: the VM tests copy it in and check that it takes the virtual gamepad as a game
# controller with no mapping supplied.
[ "${1:-}" = "--vm" ] && packages="$packages qemu-system-x86 busybox-static cpio kmod xz-utils file iproute2 chromium chromium-driver python3-selenium openssl tmux zbar-tools python3-pil man-db binutils debootstrap systemd libsdl2-2.0-0"
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
