#!/bin/bash
# The Debian package, installed into a fresh, empty root as a new machine would get it
# (dpkg --root: its own dpkg database, nothing else installed there; the binary then runs with this
# machine's C libraries, which its Depends name): mouse3d --help, man mouse3d, bash completion of
# `mouse3d re<TAB>`, `mouse3d doctor --json` naming /dev/uinput; then purged, and nothing left.
#   Tests/Packaging/deb_test.sh [DEB]      (builds it with scripts/build-deb.sh when not given)
set -euo pipefail
cd "$(dirname "$0")/../.."
deb=${1:-$(scripts/build-deb.sh)}
fresh=$(mktemp -d /tmp/mouse3d-fresh-root-XXXXXX)
trap 'rm -rf "$fresh"' EXIT
mkdir -p "$fresh/var/lib/dpkg/info" "$fresh/var/lib/dpkg/updates" "$fresh/var/log"
touch "$fresh/var/lib/dpkg/status"
failures=0
check() {  # check DESCRIPTION COMMAND...
    local description=$1; shift
    if "$@"; then echo "deb: ok: $description"; else echo "deb: FAIL: $description"; failures=$((failures + 1)); fi
}
dpkg_root() { dpkg --root="$fresh" --force-script-chrootless --force-not-root --log=/dev/null "$@"; }

echo "deb: $(dpkg-deb -f "$deb" Package Version Depends | tr '\n' ' ')"
# A fresh root has none of the dependencies as far as its own database knows; they are this
# machine's libraries (the check below runs the binary against them).
dpkg_root --force-depends -i "$deb" >/dev/null
check "installed: binary, manual page, completions, udev rule, units, configuration" \
    test -x "$fresh/usr/bin/mouse3d" -a -f "$fresh/usr/share/man/man1/mouse3d.1" \
    -a -f "$fresh/usr/share/bash-completion/completions/mouse3d" -a -f "$fresh/usr/share/zsh/site-functions/_mouse3d" \
    -a -f "$fresh/usr/share/fish/vendor_completions.d/mouse3d.fish" -a -f "$fresh/usr/lib/udev/rules.d/70-mouse3d.rules" \
    -a -f "$fresh/usr/lib/systemd/user/mouse3d-receive.service" -a -f "$fresh/etc/mouse3d/config.toml"
check "the package's libraries are all on this machine (ldd finds every one)" \
    bash -c "! ldd '$fresh/usr/bin/mouse3d' | grep -q 'not found'"
check "Depends names OpenSSL, which the binary opens at run time, and not Avahi's client or libstdc++ (D-Bus spoken itself, C++ library linked in)" \
    bash -c "dpkg-deb -f '$deb' Depends | grep -q 'libssl3' && ! dpkg-deb -f '$deb' Depends | grep -qE 'libavahi|libdbus|libstdc'"
check "mouse3d --help lists the commands" bash -c "'$fresh/usr/bin/mouse3d' --help | grep -q 'doctor'"
check "man mouse3d renders" bash -c "MANWIDTH=80 man -l '$fresh/usr/share/man/man1/mouse3d.1' 2>/dev/null | grep -q 'SYNOPSIS'"
completion=$(bash -c "source '$fresh/usr/share/bash-completion/completions/mouse3d'
    COMP_WORDS=(mouse3d re); COMP_CWORD=1; COMP_LINE='mouse3d re'; COMP_POINT=\${#COMP_LINE}
    _mouse3d mouse3d re mouse3d; echo \"\${COMPREPLY[*]}\"" 2>&1)
echo "deb: completion of 'mouse3d re<TAB>': $completion"
check "bash completes 'mouse3d re' to receive, record and replay" \
    bash -c "echo '$completion' | tr ' ' '\n' | sort | tr '\n' ' ' | grep -q '^receive record replay $'"
doctor=$(HOME="$fresh/home" XDG_CONFIG_HOME="$fresh/home/.config" MOUSE3D_SYSTEM_CONFIG_DIR="$fresh/etc/mouse3d" \
    "$fresh/usr/bin/mouse3d" doctor --json --offline || true)
# (Here-strings: doctor's text has quotes of its own.)
check "mouse3d doctor --json names /dev/uinput" grep -q '"name":"uinput".*/dev/uinput' <<<"$doctor"
check "doctor finds the installed udev rule's name" grep -q 'udev rule' <<<"$doctor"

dpkg_root --purge mouse3d >/dev/null
left=$(find "$fresh" -mindepth 1 -not -path "$fresh/var/lib/dpkg*" -not -path "$fresh/var/log*" -not -path "$fresh/var" -not -path "$fresh/home*" -type f)
check "purged: no file left outside dpkg's own database" test -z "$left"
[ -n "$left" ] && echo "$left"
echo "deb: $failures failure(s)"
[ "$failures" = 0 ]
