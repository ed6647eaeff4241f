#!/bin/bash
# Runs the project's device tests inside a QEMU VM that boots Debian's own kernel, so evdev, uinput,
# uhid (hid-playstation, hid-sensor-hub) and IIO are the real drivers.
#
#   Tests/VM/run.sh                  every VM test
#   Tests/VM/run.sh NAME [NAME ...]  only these (see Tests/VM/Runner/main.swift for the names)
#
# Environment: VM_CACHE (downloads and build products; default .build/vm), VM_TIMEOUT (seconds the
# whole boot may take; default 1800: a bound on a hang, not a speed target; beside a CPU-bound job on
# every core the tests took over 600 s), VM_MEMORY (MiB; default 768), VM_UDEV (1: run systemd-udevd),
# VM_CPUS (virtual CPUs, each a host thread under multi-threaded TCG; default 2: with one, an
# emulated controller streaming at 250 Hz and the mouse3d under test took turns, and a debug
# build of `run` needed 9-20 s to start), VM_SHARDS (how many VMs boot at once, each running every
# Nth test; default 1).
# Prints each test's result and a closing line "vm: N passed, N failed". Exit status: 0 all passed,
# 1 a test failed, 2 the VM crashed, panicked, hung past the limit or never ran the tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
export PATH="/opt/swift/usr/bin:$PATH"
cache=${VM_CACHE:-$root/.build/vm}
timeout_seconds=${VM_TIMEOUT:-1800}
memory=${VM_MEMORY:-768}
use_udev=${VM_UDEV:-1}
modules="evdev uinput uhid hid-generic hid-playstation hid-sony hid-nintendo hid-sensor-hub hid-sensor-accel-3d hid-sensor-gyro-3d veth sch_netem"
mkdir -p "$cache/debs" "$cache/logs"

Tests/setup-debian.sh --vm

# 1. Debian's kernel and udev, unpacked (not installed) into the cache.
if [ ! -f "$cache/kernel.version" ]; then
    package=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
    [ -n "$package" ] || { apt-get update -q >/dev/null; package=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}'); }
    (cd "$cache/debs" && apt-get download "$package" udev >/dev/null 2>&1)
    rm -rf "$cache/kernel" "$cache/udev"
    dpkg -x "$cache"/debs/"$package"_*.deb "$cache/kernel"
    dpkg -x "$cache"/debs/udev_*.deb "$cache/udev"
    version=$(ls "$cache/kernel/lib/modules")
    depmod -b "$cache/kernel" "$version"
    # The uncompressed kernel boots through its PVH entry, skipping slow in-guest decompression.
    image="$cache/kernel/boot/vmlinuz-$version"
    # The first match, without a pipe (grep | head -1 can end grep with SIGPIPE under pipefail).
    offset=$(LC_ALL=C grep -m1 -aboP '\xfd7zXZ\x00' "$image" || true)
    offset=${offset%%:*}
    tail -c +$((offset + 1)) "$image" | xz -dq > "$cache/vmlinux" 2>/dev/null || true
    file "$cache/vmlinux" | grep -q ELF || rm -f "$cache/vmlinux"
    echo "$version" > "$cache/kernel.version"
fi
version=$(cat "$cache/kernel.version")
# spacenavd (the 6-DoF daemon Blender and FreeCAD use) and the X libraries it links, unpacked too.
if [ ! -x "$cache/spacenavd/usr/bin/spacenavd" ]; then
    (cd "$cache/debs" && apt-get download spacenavd libx11-6 libxi6 libxtst6 libxext6 libxcb1 libxau6 libxdmcp6 >/dev/null 2>&1)
    rm -rf "$cache/spacenavd"
    for deb in "$cache"/debs/spacenavd_*.deb "$cache"/debs/libx*.deb; do dpkg -x "$deb" "$cache/spacenavd"; done
fi

# 2. The test runner (a debug build, shared with the host tests) and mouse3d itself as users get it:
# the static release build the package ships (run-all.sh has built it already; its start-up takes a
# second or two under TCG where the debug build's took 9-20 s, and up to a minute beside other work).
# Quiet when they succeed; a failed build shows its errors.
swift build --product mouse3d-vmtests > "$cache/logs/build-mouse3d-vmtests.log" 2>&1 || { grep -E "error:" -A3 "$cache/logs/build-mouse3d-vmtests.log" | head -40; echo "vm: the mouse3d-vmtests build failed"; exit 2; }
swift build -c release --static-swift-stdlib --product mouse3d > "$cache/logs/build-mouse3d.log" 2>&1 || { grep -E "error:" -A3 "$cache/logs/build-mouse3d.log" | head -40; echo "vm: the mouse3d release build failed"; exit 2; }
runner=$(swift build --show-bin-path)/mouse3d-vmtests
bin=$(swift build -c release --show-bin-path)

# 3. The initramfs: busybox, modules with their dependencies, udevd, the runner and its libraries.
# Each run's own (the run-all harness self-check boots while the device tests run).
rootfs="$cache/rootfs-$$"
initramfs="$cache/initramfs-$$.cpio"
trap 'rm -rf "$rootfs" "$initramfs"' EXIT
rm -rf "$rootfs"
mkdir -p "$rootfs"/{bin,dev,proc,sys,run,tmp,lib/modules,etc}
cp /bin/busybox "$rootfs/bin/"
for applet in $(/bin/busybox --list); do [ "$applet" = busybox ] || ln -sf busybox "$rootfs/bin/$applet"; done
ln -s bin "$rootfs/sbin"
install -m 755 Tests/VM/init.sh "$rootfs/init"
: > "$rootfs/lib/modules/order"
for module in $modules; do
    modprobe -d "$cache/kernel" -S "$version" --show-depends "$module" | awk '$1 == "insmod" {print $2}'
done | awk '!seen[$0]++' | while read -r ko; do
    name=$(basename "$ko" .ko)
    cp "$ko" "$rootfs/lib/modules/$name.ko"
    echo "$name" >> "$rootfs/lib/modules/order"
done
copy_with_libraries() {  # FILE DEST: the file and every shared library ldd lists, at their own paths
    install -m 755 "$1" "$rootfs$2"
    ldd "$1" | grep -oE '/[^ ]+' | while read -r lib; do
        mkdir -p "$rootfs$(dirname "$lib")"
        [ -e "$rootfs$lib" ] || cp -L "$lib" "$rootfs$lib"
    done
}
copy_with_libraries "$runner" /mouse3d-vmtests
copy_with_libraries "$bin/mouse3d" /mouse3d
# And those it opens when first needed (OpenSSL: each shim under Sources/C*/ names them).
# The cache is read once; awk leaving at its match no longer ends a still-writing ldconfig with
# SIGPIPE (exit 141, which pipefail made the whole run's failure).
libraries=$(/sbin/ldconfig -p)
for name in $(sed -n 's/^#define M3D_LIB[A-Z_]* "\(.*\)"$/\1/p' Sources/C*/shim.h); do
    lib=$(awk -v n="$name" '$1 == n && /x86-64/ {print $NF; exit}' <<<"$libraries")
    [ -n "$lib" ] || { echo "vm: $name is not on this machine (Tests/setup-debian.sh installs it)" >&2; exit 1; }
    copy_with_libraries "$lib" "$lib"
done
# Debian's SDL 2 and the libudev it opens at run time (as a game has them), for the gamepad tests.
sdl=$(awk '$1 == "libSDL2-2.0.so.0" && /x86-64/ {print $NF; exit}' <<<"$libraries")
[ -n "$sdl" ] || { echo "vm: libSDL2-2.0.so.0 is not on this machine (Tests/setup-debian.sh --vm installs libsdl2-2.0-0)" >&2; exit 1; }
copy_with_libraries "$sdl" "$sdl"
udevlib=$(awk '$1 == "libudev.so.1" && /x86-64/ {print $NF; exit}' <<<"$libraries")
[ -z "$udevlib" ] || copy_with_libraries "$udevlib" "$udevlib"
# iproute2's ip (with netns) and tc for the impaired-network tests, beside busybox's own ip (recipes/netem-vm.md).
mkdir -p "$rootfs/opt/iproute"
copy_with_libraries "$(command -v ip)" /opt/iproute/ip
copy_with_libraries "$(command -v tc)" /opt/iproute/tc
if [ -x "$cache/spacenavd/usr/bin/spacenavd" ]; then
    LD_LIBRARY_PATH="$cache/spacenavd/usr/lib/x86_64-linux-gnu" ldd "$cache/spacenavd/usr/bin/spacenavd" | grep -oE '/[^ ]+' | while read -r lib; do
        target="/usr/lib/x86_64-linux-gnu/$(basename "$lib")"
        case "$lib" in /lib64/*|/lib/x86_64-linux-gnu/libc.so*|/lib/x86_64-linux-gnu/libm.so*) target=$lib ;; esac
        mkdir -p "$rootfs$(dirname "$target")"
        [ -e "$rootfs$target" ] || cp -L "$lib" "$rootfs$target"
    done
    mkdir -p "$rootfs/usr/sbin" "$rootfs/var"
    install -m 755 "$cache/spacenavd/usr/bin/spacenavd" "$rootfs/usr/sbin/spacenavd"
    ln -sfn /run "$rootfs/var/run"
fi
if [ "$use_udev" = 1 ]; then
    mkdir -p "$rootfs/lib/systemd" "$rootfs/lib/udev/rules.d"
    copy_with_libraries "$cache/udev/bin/udevadm" /bin/udevadm
    ln -s /bin/udevadm "$rootfs/lib/systemd/systemd-udevd"
    for rules in 50-udev-default 60-input-id 60-persistent-input 60-sensor 70-joystick 70-mouse; do
        [ -f "$cache/udev/lib/udev/rules.d/$rules.rules" ] && cp "$cache/udev/lib/udev/rules.d/$rules.rules" "$rootfs/lib/udev/rules.d/"
    done
    # The project's rules as a user installs them: the shipped one, whose uaccess tag needs
    # systemd-logind (not in this VM), and beside it the alternative that grants the devices to
    # group mouse3d (gid 101), tested for a user in that group and one not
    # (uinput_permissions_group_rule). Group input (gid 102) gives no one /dev/uinput.
    mkdir -p "$rootfs/etc/udev/rules.d"
    cp udev/70-mouse3d.rules "$rootfs/etc/udev/rules.d/"
    cp udev/70-mouse3d-group.rules.example "$rootfs/etc/udev/rules.d/71-mouse3d-group.rules"
    # guest is in no device group: a device node is hers only when the test gives it to her
    # (replug_unreadable_says_why).
    printf 'root:x:0:0:root:/:/bin/sh\nplayer:x:1000:1000::/tmp:/bin/sh\nstranger:x:1001:1001::/tmp:/bin/sh\nguest:x:1002:1002::/tmp:/bin/sh\n' > "$rootfs/etc/passwd"
    printf 'root:x:0:\nmouse3d:x:101:player\ninput:x:102:stranger\nplayer:x:1000:\nstranger:x:1001:\nguest:x:1002:\n' > "$rootfs/etc/group"
fi
(cd "$rootfs" && find . | cpio -o -H newc -R 0:0 --quiet) > "$initramfs"

# 4. Boot, with a hard time limit; the serial console is the log. With VM_SHARDS=N, N VMs boot at
# once from the same initramfs, each running every Nth test (the tests are mostly real time:
# scripted motion and rests, so two VMs take about the time of the longer half).
kernel="$cache/vmlinux"
[ -f "$kernel" ] || kernel="$cache/kernel/boot/vmlinuz-$version"
append="console=ttyS0 quiet panic=-1 oops=panic mitigations=off"
[ $# -gt 0 ] && append="$append vmtest.only=$(IFS=,; echo "$*")"
shards=${VM_SHARDS:-1}
case "$shards" in [1-9]) ;; *) echo "vm: VM_SHARDS must be 1 to 9, not '$shards'" >&2; exit 2 ;; esac
stamp="$(date +%Y%m%d-%H%M%S)-$$"
logs=() pids=()
started=$(date +%s.%N)
for shard in $(seq 0 $((shards - 1))); do
    log="$cache/logs/boot-$stamp$([ "$shards" = 1 ] || echo "-shard$shard").log"
    logs+=("$log")
    timeout --kill-after=5 "$timeout_seconds" qemu-system-x86_64 -accel tcg,thread=multi -m "$memory" -smp ${VM_CPUS:-2} \
        -nodefaults -no-user-config -nographic -serial "file:$log" -monitor none -net none -no-reboot \
        -kernel "$kernel" -initrd "$initramfs" -append "$append vmtest.shard=$shard/$shards" </dev/null >/dev/null 2>&1 &
    pids+=($!)
done
statuses=()
for pid in "${pids[@]}"; do
    status=0
    wait "$pid" || status=$?
    statuses+=("$status")
done
elapsed=$(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $started}")

# 5. Results, each VM's in turn.
passed=0 failed=0 problems=0
for shard in "${!logs[@]}"; do
    log=${logs[$shard]} qemu_status=${statuses[$shard]}
    passed=$((passed + $(grep -ac '^VMTEST-CASE .* PASS' "$log" || true)))
    shard_failed=$(grep -ac '^VMTEST-CASE .* FAIL' "$log" || true)
    grep -a '^VMTEST-CASE' "$log" | sed 's/^VMTEST-CASE /vm: /' || true
    # A figure a test could not judge (the VM itself stalled) is said, never passed over in silence.
    grep -a '^VMTEST-SKIP' "$log" | sed 's/^VMTEST-SKIP /vm: skipped: /' || true
    problem=""
    if ! grep -aq '^VMTEST-DONE' "$log"; then
        if [ "$qemu_status" = 124 ] || [ "$qemu_status" = 137 ]; then problem="the VM hung past ${timeout_seconds} s"
        elif grep -aq 'Kernel panic' "$log"; then problem="the kernel panicked"
        else problem="the VM stopped before the tests finished (qemu exit $qemu_status)"; fi
        [ "$shards" = 1 ] || problem="$problem (VM $((shard + 1)) of $shards)"
        # A test that started but never reported crashed the runner.
        # (The serial console ends lines with CR LF: without the CR a name matches its result line.)
        started_tests=$(grep -a '^VMTEST-START' "$log" | tr -d '\r' | awk '{print $2}')
        for name in $started_tests; do
            grep -aq "^VMTEST-CASE $name " "$log" || { echo "vm: $name FAIL: did not finish ($problem)"; shard_failed=$((shard_failed + 1)); }
        done
        echo "vm: $problem"
        problems=$((problems + 1))
    fi
    if [ -n "$problem" ] || [ "$shard_failed" != 0 ]; then
        echo "---- serial log ($log), last 60 lines:"
        tail -n 60 "$log" | sed 's/^/    /'
    fi
    failed=$((failed + shard_failed))
done
echo "VM boot and tests took ${elapsed} s (kernel $version$([ "$shards" = 1 ] || echo ", $shards VMs at once"))"
echo "vm: $passed passed, $failed failed"
[ "$problems" = 0 ] || exit 2
[ "$failed" = 0 ] || exit 1
[ "$passed" -gt 0 ] || { echo "vm: no test ran"; exit 2; }
exit 0
