#!/bin/bash
# The Debian package on a real, clean Debian 12 (bookworm) root, as a new user's machine has it:
# debootstrap's minimal base from this machine's own apt mirror, plus man-db and bash-completion (a
# Debian 12 install's standard tools). Inside it, through chroot:
#   apt install ./mouse3d_*.deb   (apt resolves the Depends from the archive: nothing else is there)
#   mouse3d --help; man mouse3d; bash completion of `mouse3d re<TAB>` through bash-completion's own
#   on-demand loader; mouse3d doctor --json naming /dev/uinput (this root has none);
# then apt purge mouse3d and autoremove: no file or folder is left that was not there before.
#   Tests/Packaging/debian12_root_test.sh DEB
# Needs root (chroot, mounting /proc), debootstrap and the network to the Debian archive that apt on
# this machine uses. Without root it skips and says why; any other failure fails the test.
set -euo pipefail
cd "$(dirname "$0")/../.."
deb=${1:?usage: $0 DEB}
deb=$(realpath "$deb")
if [ "$(id -u)" != 0 ]; then
    echo "debian12: SKIP: needs root for debootstrap and chroot (run it as root or in CI)"
    exit 0
fi
command -v debootstrap >/dev/null || { echo "debian12: FAIL: debootstrap is missing (Tests/setup-debian.sh --vm installs it)"; exit 1; }

# The archive apt on this machine already uses (no host named here): its bookworm main suite.
mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null | awk '$2 == "bookworm" { print $1; exit }')
mirror=${mirror%/}
[ -n "$mirror" ] || { echo "debian12: FAIL: apt on this machine has no bookworm source to bootstrap from (apt-get update first)"; exit 1; }

root=$(mktemp -d /tmp/mouse3d-debian12-XXXXXX)
chmod 755 "$root"  # it becomes /, which every user must be able to enter
cleanup() {
    umount "$root/proc" 2>/dev/null || true
    umount "$root/dev/pts" 2>/dev/null || true
    rm -rf --one-file-system "$root"
}
trap cleanup EXIT
failures=0
check() {  # check DESCRIPTION COMMAND...
    local description=$1; shift
    if "$@"; then echo "debian12: ok: $description"; else echo "debian12: FAIL: $description"; failures=$((failures + 1)); fi
}
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }
as_user() { in_root /usr/sbin/runuser -u player -- /usr/bin/env HOME=/home/player USER=player "$@"; }

started=$(date +%s)
echo "debian12: debootstrap --variant=minbase bookworm from this machine's apt mirror"
if ! debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1; then
    tail -20 "$root.log"; rm -f "$root.log"
    echo "debian12: FAIL: debootstrap did not finish (its log's end is above)"
    exit 1
fi
rm -f "$root.log"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
mount -t proc proc "$root/proc"
mount -t devpts -o newinstance,ptmxmode=0666 devpts "$root/dev/pts" 2>/dev/null || true  # apt's log wants a terminal
in_root apt-get update -q >/dev/null
in_root apt-get install -y -q --no-install-recommends man-db bash-completion >/dev/null
in_root /usr/sbin/useradd --create-home --shell /bin/bash player
echo "debian12: root ready in $(( $(date +%s) - started )) s: $(cat "$root/etc/debian_version"), $(in_root dpkg-query -W -f='.\n' | wc -l) packages"

# Everything in the root before the package, less what apt, dpkg, man-db and logs keep for themselves.
snapshot() {
    (cd "$root" && find . -xdev \( -path ./proc -o -path ./var/lib/dpkg -o -path ./var/lib/apt -o -path ./var/cache \
        -o -path ./var/log -o -path ./tmp -o -path ./home/player -o -path ./root -o -path ./run \) -prune -o -print) | sort
}
snapshot > "$root.before"

cp "$deb" "$root/tmp/"
echo "debian12: apt install ./$(basename "$deb")"
if in_root apt-get install -y -q "/tmp/$(basename "$deb")" > "$root.apt" 2>&1; then
    check "apt installs the package and its dependencies from the archive" true
    grep -E "^(The following NEW packages|  )" "$root.apt" | head -6 | sed 's/^/debian12:   /'
else
    cat "$root.apt"
    check "apt installs the package and its dependencies from the archive" false
fi
rm -f "$root.apt"
check "ldd finds every library the binary needs in the clean root" \
    bash -c "! chroot '$root' /usr/bin/ldd /usr/bin/mouse3d | grep -q 'not found'"
help=$(as_user mouse3d --help 2>&1 || true)
check "mouse3d --help, as a user, lists the commands" grep -q "doctor" <<<"$help"
manual=$(as_user env MANWIDTH=80 man -P cat mouse3d 2>/dev/null || true)
check "man mouse3d finds and renders the manual page" grep -q "SYNOPSIS" <<<"$manual"
# An interactive shell loads completions on demand: bash-completion's loader looks the command up in
# its completions folder when the first <TAB> is pressed. This does the same without a terminal.
completion=$(as_user bash -c 'source /usr/share/bash-completion/bash_completion
    _completion_loader mouse3d
    spec=$(complete -p mouse3d) || { echo "no completion loaded for mouse3d"; exit 0; }
    function=$(sed -E "s/.*-F ([^ ]+).*/\1/" <<<"$spec")
    COMP_WORDS=(mouse3d re); COMP_CWORD=1; COMP_LINE="mouse3d re"; COMP_POINT=${#COMP_LINE}
    "$function" mouse3d re mouse3d
    printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' 2>&1 || true)
echo "debian12: completion of 'mouse3d re<TAB>': $completion"
check "bash completes 'mouse3d re' to receive, record and replay" test "$completion" = "receive record replay "
doctor=$(as_user mouse3d doctor --json --offline 2>/dev/null || true)
check "mouse3d doctor --json names /dev/uinput (absent in this root)" grep -q '"name":"uinput".*/dev/uinput' <<<"$doctor"
check "doctor finds the udev rule the package installed" grep -q '70-mouse3d.rules' <<<"$doctor"
check "doctor reads the installed default configuration (/etc/mouse3d/config.toml) as valid" \
    grep -q '"name":"configuration","status":"ok","detail":"[^"]*/etc/mouse3d/config.toml' <<<"$doctor"
listed=$(in_root dpkg -L mouse3d | wc -l)
echo "debian12: the package owns $listed paths"

in_root apt-get purge -y -q mouse3d >/dev/null
in_root apt-get autoremove --purge -y -q >/dev/null
rm -f "$root/tmp/$(basename "$deb")"
snapshot > "$root.after"
left=$(diff "$root.before" "$root.after" || true)
rm -f "$root.before" "$root.after"
check "apt purge and autoremove leave nothing that was not there before" test -z "$left"
[ -n "$left" ] && echo "$left" | head -20
check "the binary is gone" test ! -e "$root/usr/bin/mouse3d"
echo "debian12: $failures failure(s) in $(( $(date +%s) - started )) s"
[ "$failures" = 0 ]
