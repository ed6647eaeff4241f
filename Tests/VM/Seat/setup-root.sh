#!/bin/sh
# Runs inside the seat test's Debian 12 root (chroot, as root) while Tests/VM/Seat/run.sh builds its
# image: users, the tty1 autologin, the unit that runs the checks, a small initramfs, no slow units.
set -eu
# tester logs in on tty1 (logind: an active session on seat0); other never logs in (the control).
useradd --create-home --shell /bin/bash tester
useradd --create-home --shell /bin/bash other
echo seatvm > /etc/hostname
printf '127.0.0.1\tlocalhost\n127.0.1.1\tseatvm\n' > /etc/hosts
printf '/dev/vda\t/\text4\trw,noatime\t0\t0\n' > /etc/fstab

# The autologin, as a desktop's display manager would log her in: a VT, so the session is on seat0.
mkdir -p /etc/systemd/system/getty@tty1.service.d
cat > /etc/systemd/system/getty@tty1.service.d/autologin.conf <<'UNIT'
[Service]
ExecStart=
ExecStart=-/sbin/agetty -o '-p -f -- \\u' --noclear --autologin tester %I $TERM
Type=simple
UNIT
# ttyS0 is the log, ttyS1 the checks' output: no login prompt on either.
ln -sf /dev/null /etc/systemd/system/serial-getty@ttyS0.service
ln -sf /dev/null /etc/systemd/system/serial-getty@ttyS1.service

# The checks: root's side, after the getty has started (each boot; guest.sh knows which boot it is).
cat > /etc/systemd/system/seat-test.service <<'UNIT'
[Unit]
Description=mouse3d seat test (the payload's guest.sh)
After=getty@tty1.service systemd-user-sessions.service avahi-daemon.service
[Service]
Type=simple
ExecStartPre=/bin/mkdir -p /vmtest
ExecStartPre=/bin/mount -o ro /dev/vdb /vmtest
ExecStart=/bin/sh -c 'exec /vmtest/guest.sh >/dev/ttyS1 2>&1 </dev/null'
[Install]
WantedBy=multi-user.target
UNIT
systemctl enable seat-test.service

# Boot time: no rebuild of hwdb.bin and ld.so.cache at every boot of the never-written image, no timers.
for unit in systemd-hwdb-update.service ldconfig.service e2scrub_reap.service systemd-pstore.service \
    apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer fstrim.timer; do
    ln -sf /dev/null "/etc/systemd/system/$unit"
done
mkdir -p /etc/systemd/journald.conf.d
printf '[Journal]\nStorage=volatile\n' > /etc/systemd/journald.conf.d/seat-test.conf
# A small initramfs: what finds and mounts a virtio ext4 root (udev loads the rest from the root).
printf 'MODULES=list\n' > /etc/initramfs-tools/conf.d/seat-test.conf
printf 'virtio_pci\nvirtio_blk\next4\ncrc32c_generic\n' > /etc/initramfs-tools/modules
update-initramfs -u -k all
apt-get clean
rm -rf /var/lib/apt/lists/* /usr/share/doc/* /usr/share/locale/*
