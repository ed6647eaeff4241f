#!/bin/bash
# Builds a Debian package of mouse3d: the static release binary, manual page, completions, udev
# rule (and the uinput module loaded at boot), systemd user units and the default configuration (a
# conffile), with maintainer scripts that apply the rule at once and stop the units on removal. Depends lists the packages of the C libraries the binary links or opens (dpkg -S).
#
#   scripts/build-deb.sh [--no-build]     writes .build/deb/mouse3d_VERSION_ARCH.deb and prints its path
#
# Install with: sudo apt install ./.build/deb/mouse3d_VERSION_ARCH.deb
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="/opt/swift/usr/bin:$PATH"
umask 022  # the package's folders and control files as every user must read them, whatever root's umask
build=()
case "${1:-}" in
    --no-build) build=(--no-build) ;;
    "") ;;
    *) echo "build-deb.sh: unknown option '$1' (only --no-build)" >&2; exit 2 ;;
esac

out=.build/deb
stage=$root/$out/stage  # absolute: install.sh takes no relative --destdir
rm -rf -- "$stage"
mkdir -p -- "$stage/DEBIAN"
scripts/install.sh --prefix /usr --destdir "$stage" ${build[@]+"${build[@]}"} >/dev/null
# dpkg keeps its own list of what it installed.
rm -rf "$stage/usr/share/mouse3d/installed-files" "$stage/usr/share/mouse3d/installed-files.dirs"
rmdir "$stage/usr/share/mouse3d" 2>/dev/null || true

version=$("$stage/usr/bin/mouse3d" --version)
arch=$(dpkg --print-architecture)
# The libraries the binary links, and those it opens when first needed (OpenSSL for the phone page's
# TLS: each shim under Sources/C*/ names them). Avahi is reached over D-Bus, with no library of its own.
opened=$(sed -n 's/^#define M3D_LIB[A-Z_]* "\(.*\)"$/\1/p' Sources/C*/shim.h)
[ -n "$opened" ] || { echo "build-deb.sh: no library names found in Sources/C*/shim.h" >&2; exit 1; }
depends=$({ objdump -p "$stage/usr/bin/mouse3d" | awk '/NEEDED/ {print $2}'; echo "$opened"; } | while read -r lib; do
    dpkg -S "*/$lib" 2>/dev/null | head -1 | cut -d: -f1
done | sort -u | { grep -v '^libc6$' || true; } | paste -sd, | sed 's/,/, /g')
cat > "$stage/DEBIAN/control" <<CONTROL
Package: mouse3d
Version: $version
Architecture: $arch
Maintainer: mouse3d developers <mouse3d@localhost>
Depends: libc6 (>= 2.36)${depends:+, $depends}
Recommends: avahi-daemon
Suggests: spacenavd
Section: utils
Priority: optional
Installed-Size: $(du -sk "$stage" | cut -f1)
Description: motion sensor as a 3D mouse
 Reads gyroscope and accelerometer samples from Linux IIO sensors or gamepad
 motion devices, fuses them into an attitude, streams it sealed to paired
 receivers over UDP, and drives virtual pointer, joystick or 6-DoF devices.
CONTROL
echo /etc/mouse3d/config.toml > "$stage/DEBIAN/conffiles"
# The maintainer scripts: the rule and the uinput module take effect at install for the user already
# logged in; the units stop in every user's manager at removal (scripts/debian/, each says why).
for script in postinst prerm postrm; do
    install -m 755 "scripts/debian/$script" "$stage/DEBIAN/$script"
done
deb=$out/mouse3d_${version}_${arch}.deb
dpkg-deb --root-owner-group --build "$stage" "$deb" >/dev/null
echo "$deb"
