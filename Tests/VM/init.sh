#!/bin/sh
# PID 1 of the test VM (busybox sh): mount, load modules, start udevd, run the device tests, power off.
# Everything the host needs goes to the serial console as VMTEST-* lines.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /run /tmp
mount -t tmpfs tmpfs /run
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
echo "VMTEST-BOOT kernel $(uname -r), uptime $(cut -d' ' -f1 /proc/uptime) s"

while read -r module; do
    insmod "/lib/modules/$module.ko" 2>/dev/null || echo "VMTEST-WARN insmod $module failed"
done < /lib/modules/order

if [ -x /lib/systemd/systemd-udevd ]; then
    /lib/systemd/systemd-udevd --daemon --resolve-names=early 2>/dev/null
    udevadm trigger --action=add 2>/dev/null
    udevadm settle -t 10 2>/dev/null
    echo "VMTEST-UDEV up"
fi

selected=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^vmtest.only=//p' | tr ',' ' ')
shard=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^vmtest.shard=/--shard=/p')
echo "VMTEST-READY uptime $(cut -d' ' -f1 /proc/uptime) s"
# shellcheck disable=SC2086
/mouse3d-vmtests $shard $selected
status=$?
if [ "$status" != 0 ]; then
    echo "VMTEST-DMESG kernel messages (last 40):"
    dmesg | tail -n 40 | sed 's/^/VMTEST-DMESG /'
fi
echo "VMTEST-DONE rc=$status uptime $(cut -d' ' -f1 /proc/uptime) s"
reboot -f
