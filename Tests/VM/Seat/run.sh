#!/bin/bash
# mouse3d as a desktop meets it: Debian 12 booted under QEMU with systemd as PID 1, udev, dbus, logind
# and Avahi; user "tester" logged in on tty1 by a getty autologin (so logind gives her an active
# session on seat0), user "other" never logged in. The project's .deb is installed with apt on the
# running system, emulated devices (the uhid DualSense, the HID sensor hub) are plugged after the
# session is up, the units are started by the user, the machine reboots, the package is purged.
# The checks run as root in the guest (Tests/VM/Seat/guest.sh, the device parts through the VM test
# runner's seat_* tests) and print "VMTEST-CASE NAME PASS|FAIL: why" lines, as Tests/VM/run.sh does.
#
#   Tests/VM/Seat/run.sh DEB          (DEB: scripts/build-deb.sh's package)
#
# Needs root once per image (debootstrap, chroot: the image is cached in $VM_CACHE/seat by a key of
# its package list and setup script) and this machine's apt mirror for that build; the boot needs
# neither. Environment: VM_CACHE (default .build/vm), VM_TIMEOUT (seconds for both boots and every
# check; default 900), VM_ACCEL (default tcg).
# Exit status: 0 all passed, 1 a check failed, 2 the VM never ran the checks or hung.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$root"
export PATH="/opt/swift/usr/bin:$PATH"
deb=$(realpath "${1:?usage: $0 DEB}")
cache=${VM_CACHE:-$root/.build/vm}/seat
timeout_seconds=${VM_TIMEOUT:-900}
mkdir -p "$cache"
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# 1. The image: a clean Debian 12 root (debootstrap minbase from this machine's apt mirror) with
# what a desktop has for this (systemd, udev, dbus, logind, Avahi) and the package's dependencies,
# but not the package: the test installs it on the running system, as a user does.
depends=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/(.*)//; s/|.*//; s/ //g' | grep -v '^$' | sort -u | paste -sd' ')
packages="systemd-sysv udev dbus dbus-user-session libpam-systemd acl kmod procps initramfs-tools zstd linux-image-amd64 iproute2 avahi-daemon $depends"
key=$({ cat Tests/VM/Seat/setup-root.sh; echo "$packages"; } | sha256sum | cut -c1-16)
image=$cache/image-$key
build_image() {
    [ "$(id -u)" = 0 ] || { echo "seat: building the image needs root (debootstrap, chroot)"; return 1; }
    command -v debootstrap >/dev/null || { echo "seat: debootstrap is missing (Tests/setup-debian.sh --vm installs it)"; return 1; }
    local mirror started build
    mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null | awk '$2 == "bookworm" { print $1; exit }')
    mirror=${mirror%/}
    [ -n "$mirror" ] || { echo "seat: apt on this machine has no bookworm source to bootstrap from (apt-get update first)"; return 1; }
    started=$(now)
    build=$cache/build
    rm -rf "$build" "$image.tmp"
    mkdir -p "$build" "$image.tmp" "$cache/debs"
    echo "seat: debootstrap bookworm (minbase) from $mirror with: $packages"
    if ! debootstrap --variant=minbase --cache-dir="$cache/debs" --include="${packages// /,}" bookworm "$build/root" "$mirror" \
        >"$build/debootstrap.log" 2>&1; then
        tail -n 30 "$build/debootstrap.log"
        return 1
    fi
    cp Tests/VM/Seat/setup-root.sh "$build/root/tmp/setup-root.sh"
    chroot "$build/root" /bin/sh /tmp/setup-root.sh >"$build/setup.log" 2>&1 || { tail -n 30 "$build/setup.log"; return 1; }
    rm -f "$build/root/tmp/setup-root.sh"
    local version used
    version=$(basename "$(ls "$build"/root/boot/vmlinuz-* | sort -V | tail -n 1)" | sed 's/^vmlinuz-//')
    cp "$build/root/boot/vmlinuz-$version" "$image.tmp/vmlinuz"
    cp "$build/root/boot/initrd.img-$version" "$image.tmp/initrd.img"
    used=$(du -sm "$build/root" | cut -f1)
    # No loop device and no mount: mkfs writes the folder into the image file (sparse).
    mkfs.ext4 -q -F -L seatroot -d "$build/root" "$image.tmp/root.img" "$((used * 12 / 10 + 512))M" >/dev/null
    echo "$version" > "$image.tmp/kernel.version"
    rm -rf "$build"
    for old in "$cache"/image-*; do [ "$old" = "$image.tmp" ] || rm -rf "$old"; done
    mv "$image.tmp" "$image"
    echo "seat: image built in $(secs "$started" "$(now)") s (kernel $version, ${used} MB of files)"
}
if [ ! -f "$image/root.img" ] && [ "$(id -u)" != 0 ]; then
    echo "seat: SKIP: the image ($image) is not built and building it needs root (debootstrap, chroot): run this once as root"
    exit 0
fi
if [ ! -f "$image/root.img" ]; then
    exec 9>"$cache/build.lock"
    flock 9
    [ -f "$image/root.img" ] || build_image || { echo "seat: the image build failed"; exit 2; }
    exec 9>&-
fi

# 2. The payload (/dev/vdb, read-only on /vmtest): the package, the root side's script, and the VM
# test runner (a debug build) with the Swift libraries it links, which Debian does not have.
swift build --product mouse3d-vmtests > "$cache/build-runner.log" 2>&1 || { grep -E "error:" -A3 "$cache/build-runner.log" | head -40; echo "seat: the runner build failed"; exit 2; }
runner=$(swift build --show-bin-path)/mouse3d-vmtests
run=$cache/run
rm -rf "$run"
mkdir -p "$run/payload/lib"
cp "$deb" "$run/payload/mouse3d.deb"
install -m 755 Tests/VM/Seat/guest.sh "$run/payload/guest.sh"
install -m 755 "$runner" "$run/payload/mouse3d-vmtests"
ldd "$runner" | grep -oE '/opt/[^ ]+' | while read -r lib; do cp -L "$lib" "$run/payload/lib/"; done
mkfs.ext4 -q -F -L vmtest -d "$run/payload" "$run/payload.img" "$(( $(du -sm "$run/payload" | cut -f1) * 12 / 10 + 16 ))M" >/dev/null

# 3. Boot. ttyS0: kernel and systemd messages; ttyS1: the checks' lines. The guest reboots itself
# once (-no-reboot is not given; the root disk's snapshot lives as long as QEMU, so what the first
# boot wrote is there after the reboot) and powers off at the end.
: > "$run/console.log"
: > "$run/results.log"
# TCG, as the other VM tests: a /dev/kvm that is there is not always one that works (nested
# virtualisation on this project's machines hangs at the first instruction). VM_ACCEL=kvm to choose it.
accel=${VM_ACCEL:-tcg,thread=multi}
started=$(now)
set +e
timeout -k 5 "$timeout_seconds" qemu-system-x86_64 -accel "$accel" -m 1536 -smp 2 \
    -nodefaults -no-user-config -display none -vga std -monitor none -nic none \
    -kernel "$image/vmlinuz" -initrd "$image/initrd.img" -append "root=/dev/vda rw console=ttyS0 panic=-1 mitigations=off" \
    -drive file="$image/root.img",if=virtio,format=raw,snapshot=on \
    -drive file="$run/payload.img",if=virtio,format=raw,readonly=on \
    -chardev file,id=console,path="$run/console.log",append=on -serial chardev:console \
    -chardev file,id=results,path="$run/results.log",append=on -serial chardev:results \
    </dev/null >"$run/qemu.log" 2>&1 &
qemu=$!
tail -n +1 -f --pid="$qemu" "$run/results.log" | grep --line-buffered -a '^VMTEST-\|^seat' &
wait "$qemu"
qemu_status=$?
set -e
sleep 0.2  # tail's last lines (it follows until QEMU is gone)
elapsed=$(secs "$started" "$(now)")

passed=$(grep -ac '^VMTEST-CASE .* PASS' "$run/results.log" || true)
failed=$(grep -ac '^VMTEST-CASE .* FAIL' "$run/results.log" || true)
problem=""
if ! grep -aq '^VMTEST-DONE' "$run/results.log"; then
    if [ "$qemu_status" = 124 ] || [ "$qemu_status" = 137 ]; then problem="the VM hung past ${timeout_seconds} s"
    else problem="the VM stopped before the checks finished (qemu exit $qemu_status)"; fi
fi
if [ -n "$problem" ] || [ "$failed" != 0 ]; then
    echo "---- the checks' full output ($run/results.log), last 80 lines:"
    tail -n 80 "$run/results.log" | sed 's/^/    /'
    echo "---- console ($run/console.log), last 40 lines:"
    tail -n 40 "$run/console.log" | sed 's/^/    /'
fi
echo "seat: both boots and the checks took $elapsed s"
echo "seat: $passed passed, $failed failed${problem:+; $problem}"
[ -n "$problem" ] && exit 2
[ "$failed" = 0 ] && [ "$passed" -gt 0 ] || exit 1
exit 0
