#!/bin/bash
# Root's side of the seat test, inside the booted Debian 12 (seat-test.service; output on ttyS1).
# Boot 1: apt install of the package on the running system with tester logged in; the ACLs logind
# gives; mouse3d run as tester; doctor and its fixes; the three units under their sandboxes; then a
# reboot. Boot 2: the enabled unit back by itself with its pairing; SIGKILL and replayed datagrams;
# logout; the group rule; apt purge. Each check prints "VMTEST-CASE NAME PASS" or "... FAIL: why".
set -uo pipefail
export PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 SYSTEMD_PAGER= SYSTEMD_COLORS=0 HOME=/root
state=/var/lib/seat-test
mkdir -p "$state"
boot=$(( $(cat "$state/boots" 2>/dev/null || echo 0) + 1 ))
echo "$boot" > "$state/boots"
uid=$(id -u tester)
failures=0
pass() { echo "VMTEST-CASE $1 PASS"; }
fail() { echo "VMTEST-CASE $1 FAIL: $2"; failures=$((failures + 1)); }
info() { echo "VMTEST-INFO $*"; }
check() {  # check NAME WHY-IF-NOT COMMAND...: passes when COMMAND succeeds
    local name=$1 why=$2; shift 2
    if "$@"; then pass "$name"; else fail "$name" "$why"; fi
}
# tester's environment as her session has it, without a login (setpriv execs: signals reach the command).
as_tester() {
    setpriv --reuid=tester --regid=tester --init-groups --reset-env \
        env XDG_RUNTIME_DIR=/run/user/$uid DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/$uid/bus "$@"
}
as_other() { setpriv --reuid=other --regid=other --init-groups --reset-env "$@"; }
runner() {  # the VM test runner's seat tests, mouse3d as the package installed it, run as tester
    LD_LIBRARY_PATH=/vmtest/lib VMTEST_MOUSE3D=/usr/bin/mouse3d VMTEST_AS_USER=tester /vmtest/mouse3d-vmtests "$@"
    local status=$?
    [ "$status" = 0 ] || failures=$((failures + 1))
}
not() { ! "$@"; }
contains() { grep -qF -- "$2" <<<"$1"; }
wait_until() {  # wait_until SECONDS COMMAND...: true as soon as COMMAND is
    local end=$(( $(date +%s) + $1 )); shift
    until "$@"; do [ "$(date +%s)" -lt "$end" ] || return 1; sleep 0.2; done
}
session_active() { [ "$(loginctl show-user tester -p State --value 2>/dev/null)" = active ]; }
acl_names() { getfacl -cp "$1" 2>/dev/null | grep -q "^user:$2:"; }
finish() {
    echo "VMTEST-INFO boot $boot ends with $failures failed"
    echo "$failures" >> "$state/failures"
    "$@"
}
info "boot $boot, uptime $(cut -d' ' -f1 /proc/uptime) s, $(uname -r)"
if ! wait_until 120 session_active; then
    fail "seat_session_boot$boot" "tester has no active session after 120 s: $(loginctl list-sessions --no-legend)"
    echo VMTEST-DONE
    systemctl poweroff
    exit 0
fi
session=$(loginctl show-user tester -p Display --value)
info "tester's session $session: $(loginctl show-session "$session" -p Seat -p TTY -p Active -p State | paste -sd' ')"

if [ "$boot" = 1 ]; then
    # ---- install on the running system, tester logged in (what a user does after downloading it)
    before_acl=$(getfacl -cp /dev/uinput 2>&1 | paste -sd' ')
    info "before the package: uinput module $( [ -d /sys/module/uinput ] && echo loaded || echo 'not loaded'); /dev/uinput: $before_acl"
    if apt-get install -y -q /vmtest/mouse3d.deb > "$state/apt-install.log" 2>&1; then
        pass install_apt
    else
        fail install_apt "apt install ./mouse3d.deb: $(tail -n 5 "$state/apt-install.log" | paste -sd' ')"
    fi
    check install_uinput_acl_at_once \
        "right after apt install, /dev/uinput: $(getfacl -cp /dev/uinput 2>&1 | paste -sd' '), module $(ls -d /sys/module/uinput 2>&1)" \
        wait_until 10 acl_names /dev/uinput tester
    check install_uinput_acl_not_other "the ACL names other, who is not logged in: $(getfacl -cp /dev/uinput | paste -sd' ')" \
        not acl_names /dev/uinput other
    check install_uinput_loaded_at_boot "no modules-load.d file of the package names uinput: $(dpkg -L mouse3d | grep modules-load)" \
        bash -c 'grep -qx uinput $(dpkg -L mouse3d | grep "modules-load.d/.*\.conf$")'
    check install_tester_opens_uinput "tester cannot open /dev/uinput read-write" as_tester sh -c 'exec 3<>/dev/uinput'

    # ---- devices plugged after the session is up: the ACLs logind gives (and not to other)
    runner seat_device_acls
    # ---- mouse3d run as tester, no root, no group: the DualSense's 90° turn moves the pointer 1800 px
    id -nG tester | grep -qw -e input -e mouse3d && fail run_as_tester_groups "tester is in a device group: $(id -nG tester)"
    runner seat_run_pointer_from_dualsense

    # ---- doctor as tester: every line ok or a note, and each problem's fix works
    runner seat_doctor_fixes

    # ---- the units, started by tester under their sandboxes
    runner seat_receive_unit seat_send_unit seat_run_unit
    # Left enabled for the reboot: mouse3d-receive (and its pairing with root's sender).
    check units_receive_enabled "mouse3d-receive is not enabled for the reboot" \
        as_tester systemctl --user is-enabled --quiet mouse3d-receive.service
    finish systemctl reboot
    exit 0
fi

# ---- boot 2: nobody starts anything; the enabled unit comes back with the session
# systemd-modules-load says "Inserted module 'uinput'" (early: through the kernel's log when journald
# is not up yet, so the whole journal is searched, not the unit's).
check reboot_uinput_loaded_by_modules_load \
    "no 'Inserted module' line for uinput this boot: $(journalctl -b --no-pager -q -o cat | grep -i uinput | head -n 5 | paste -sd' ')" \
    bash -c "journalctl -b --no-pager -q -o cat | grep -q \"Inserted module 'uinput'\""
check reboot_receive_unit_active "mouse3d-receive after the reboot: $(as_tester systemctl --user is-active mouse3d-receive.service)" \
    wait_until 60 as_tester systemctl --user is-active --quiet mouse3d-receive.service
runner seat_receive_after_reboot

# ---- logout: the ACL goes with the session
systemctl stop getty@tty1.service
loginctl terminate-user tester
check logout_acl_gone "after logout /dev/uinput still names tester: $(getfacl -cp /dev/uinput | paste -sd' ')" \
    wait_until 20 not acl_names /dev/uinput tester

# ---- the group rule instead of the seat's: the group is used, and doctor says which rule applies
groupadd --system mouse3d
usermod -aG mouse3d other
install -m 644 /usr/share/mouse3d/70-mouse3d-group.rules.example /etc/udev/rules.d/70-mouse3d.rules
udevadm control --reload
udevadm trigger --subsystem-match=misc --sysname-match=uinput --settle
info "the group rule installed over the seat's (udev's work done): /dev/uinput $(stat -c '%G %a' /dev/uinput), ACL $(getfacl -cp /dev/uinput | paste -sd' ')"
check group_rule_stale_acl_denies "other (in group mouse3d) opens /dev/uinput though the seat's ACL still has group::---" \
    not as_other sh -c 'exec 3<>/dev/uinput'
# The example's own step for a switch from the seat rule.
setfacl --remove-all /dev/uinput /dev/input/event* && udevadm trigger --subsystem-match=misc --subsystem-match=input --subsystem-match=iio --settle
check group_rule_node "/dev/uinput with the group rule: $(stat -c '%G %a' /dev/uinput)" \
    bash -c '[ "$(stat -c "%G %a" /dev/uinput)" = "mouse3d 660" ]'
check group_rule_member_opens "other (in group mouse3d) cannot open /dev/uinput: $(getfacl -cp /dev/uinput | paste -sd' ')" as_other sh -c 'exec 3<>/dev/uinput'
doctor_other=$(as_other mouse3d doctor --offline 2>&1)
check group_rule_doctor_says_group "doctor as other: $(grep -i 'udev rule\|uinput' <<<"$doctor_other" | paste -sd' ')" \
    contains "$doctor_other" "the group rule: /dev/uinput and motion sensors for the members of group 'mouse3d'"
rm /etc/udev/rules.d/70-mouse3d.rules
udevadm control --reload
udevadm trigger --subsystem-match=misc --sysname-match=uinput --settle

# ---- purge, with tester logged in again and her receive unit running
systemctl start getty@tty1.service
wait_until 60 session_active || fail purge_login "tester did not log in again"
wait_until 60 as_tester systemctl --user is-active --quiet mouse3d-receive.service ||
    fail purge_unit_running_before "mouse3d-receive did not start at the new login"
config_sum=$(find /home/tester/.config/mouse3d -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum)
files=$(dpkg -L mouse3d | while read -r f; do [ -f "$f" ] && echo "$f"; done)
if apt-get purge -y -q mouse3d > "$state/apt-purge.log" 2>&1; then pass purge_apt; else fail purge_apt "$(tail -n 5 "$state/apt-purge.log" | paste -sd' ')"; fi
check purge_no_process "a mouse3d process is left: $(pgrep -a mouse3d | paste -sd' ')" wait_until 10 not pgrep -x mouse3d
check purge_unit_not_running "mouse3d-receive still $(as_tester systemctl --user is-active mouse3d-receive.service)" \
    not as_tester systemctl --user is-active --quiet mouse3d-receive.service
left=$(for f in $files; do [ -e "$f" ] && echo "$f"; done; ls /etc/mouse3d 2>/dev/null)
check purge_no_file_left "left by purge: $left" test -z "$left"
check purge_user_config_untouched "tester's ~/.config/mouse3d changed or went" \
    bash -c '[ "$(find /home/tester/.config/mouse3d -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum)" = "$0" ]' "$config_sum"
check purge_no_acl_rule "/usr/lib/udev/rules.d/70-mouse3d.rules is still there" test ! -e /usr/lib/udev/rules.d/70-mouse3d.rules

# ---- doctor in the state users met before the package loaded the module: the rule in place
# (the package unpacked, its scripts not run), the module not loaded, /dev/uinput not granted. Its
# fix must be one that works here.
modprobe -r uinput || info "uinput could not be unloaded: $(lsmod | grep uinput)"
# Whether /dev/uinput outlives the module depends on who made the node at boot (devtmpfs removes
# only its own; a static node from tmpfiles stays, with the ACLs it had): made as a fresh boot has
# it, root's 0600 and no ACL, so the user is denied until the module's device appears.
if [ -e /dev/uinput ]; then setfacl --remove-all /dev/uinput; chown root:root /dev/uinput; chmod 600 /dev/uinput; fi
if dpkg --unpack /vmtest/mouse3d.deb > "$state/unpack.log" 2>&1; then
    info "unpacked again without its scripts; uinput $( [ -d /sys/module/uinput ] && echo loaded || echo 'not loaded'); /dev/uinput: $(getfacl -cp /dev/uinput 2>&1 | paste -sd' ')"
    VMTEST_EXPECT_PROBLEM=uinput runner seat_doctor_fixes
else
    fail doctor_unpacked_state "dpkg --unpack: $(tail -n 3 "$state/unpack.log" | paste -sd' ')"
fi

total=$(( $(paste -sd+ "$state/failures" 2>/dev/null || echo 0) + failures ))
info "both boots: $total failed"
echo VMTEST-DONE
systemctl poweroff
