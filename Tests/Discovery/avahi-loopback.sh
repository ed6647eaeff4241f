#!/bin/bash
# A private D-Bus system bus and an avahi-daemon that publishes and resolves on the loopback
# interface only (allow-interfaces=lo: nothing is sent onto any other network), for the discovery
# tests. Nothing global is touched: the bus socket lives in DIR, and the daemon runs in its own
# mount namespace with a private /run/avahi-daemon (its pid file and socket), so a system's own
# Avahi, if any, is left alone.
#
#   avahi-loopback.sh start DIR   prints DBUS_SYSTEM_BUS_ADDRESS=... once the daemon answers
#   avahi-loopback.sh restart-daemon DIR   stops the Avahi daemon and starts it again on the same bus
#   avahi-loopback.sh stop DIR    stops both (by the PIDs kept in DIR)
#   avahi-loopback.sh check       exit 0 if this machine can run it (root, unshare, the daemons)
set -euo pipefail
exec 2>&1  # one stream for callers; the daemons started below inherit neither
command=${1:?usage: avahi-loopback.sh start|stop DIR, or check}

check() {
    [ "$(id -u)" = 0 ] || { echo "needs root (a private mount namespace for avahi-daemon)"; return 1; }
    for tool in dbus-daemon avahi-daemon unshare; do
        command -v "$tool" >/dev/null || { echo "$tool is not installed (Tests/setup-debian.sh installs it)"; return 1; }
    done
}

start_avahi() {  # start_avahi DIR: the daemon on DIR's bus; prints the bus address once it runs
    local dir=$1
    export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$dir/system_bus_socket"
    # unshare execs the shell, which execs the daemon: $! is the daemon's PID.
    unshare --mount sh -c 'mkdir -p /run/avahi-daemon && mount -t tmpfs tmpfs /run/avahi-daemon &&
        exec avahi-daemon --no-drop-root --no-chroot -f "$0"' "$dir/avahi-lo.conf" >"$dir/avahi.log" 2>&1 </dev/null &
    echo $! >"$dir/avahi.pid"
    for _ in $(seq 100); do
        grep -q "Server startup complete" "$dir/avahi.log" 2>/dev/null && { echo "DBUS_SYSTEM_BUS_ADDRESS=$DBUS_SYSTEM_BUS_ADDRESS"; exit 0; }
        kill -0 "$(cat "$dir/avahi.pid")" 2>/dev/null || break
        sleep 0.1
    done
    echo "avahi-daemon did not start:" >&2
    cat "$dir/avahi.log" >&2
    exit 1
}

stop_avahi() {  # stop_avahi DIR: the daemon, waited for
    local dir=$1
    [ -f "$dir/avahi.pid" ] && kill "$(cat "$dir/avahi.pid")" 2>/dev/null || true
    for _ in $(seq 50); do
        kill -0 "$(cat "$dir/avahi.pid" 2>/dev/null || echo 0)" 2>/dev/null || break
        sleep 0.1
    done
}

case "$command" in
check)
    check
    ;;
start)
    dir=${2:?DIR}
    check >&2
    mkdir -p "$dir"
    cat >"$dir/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$dir/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_type="method_return"/>
    <allow send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
  </policy>
</busconfig>
CONF
    cat >"$dir/avahi-lo.conf" <<CONF
[server]
allow-interfaces=lo
use-ipv4=yes
use-ipv6=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[publish]
publish-hinfo=no
publish-workstation=no
CONF
    dbus-daemon --config-file="$dir/bus.conf" --fork --print-pid >"$dir/bus.pid" 2>"$dir/bus.log" </dev/null
    start_avahi "$dir"
    ;;
restart-daemon)
    # The Avahi daemon alone stops, then starts again on the same bus (what a package upgrade does).
    dir=${2:?DIR}
    stop_avahi "$dir"
    start_avahi "$dir"
    ;;
stop)
    dir=${2:?DIR}
    for f in avahi.pid bus.pid; do
        [ -f "$dir/$f" ] && kill "$(cat "$dir/$f")" 2>/dev/null || true
    done
    for _ in $(seq 50); do
        kill -0 "$(cat "$dir/avahi.pid" 2>/dev/null || echo 0)" 2>/dev/null || break
        sleep 0.1
    done
    ;;
*)
    echo "usage: avahi-loopback.sh start|restart-daemon|stop DIR, or check" >&2
    exit 2
    ;;
esac
