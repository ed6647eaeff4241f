#!/bin/bash
# Builds mouse3d (static release binary) and installs it with its manual page, shell completions
# (bash, zsh, fish), udev rule, systemd user units and the documented default configuration.
#
#   scripts/install.sh [--prefix DIR] [--user] [--destdir DIR]   build and install
#   scripts/install.sh --uninstall [--prefix DIR] [--user]         remove exactly what was installed
#
# --prefix DIR   where bin/, share/ and lib/ go (default /usr/local; ~/.local with --user)
# --user         for this user only, no root: ~/.local, units in ~/.config/systemd/user, the
#                configuration in ~/.config/mouse3d; the udev rule needs root and is printed instead
# --destdir DIR  stage everything under DIR (packaging; see scripts/build-deb.sh)
# --no-build     use the binary already built (.build/release/mouse3d)
# Every installed path is listed in PREFIX/share/mouse3d/installed-files, which --uninstall reads.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="/opt/swift/usr/bin:$PATH"

prefix="" user=0 destdir="" uninstall=0 build=1
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
        --user) user=1; shift ;;
        --destdir) destdir=${2:?--destdir needs a directory}; shift 2 ;;
        --uninstall) uninstall=1; shift ;;
        --no-build) build=0; shift ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done
if [ "$user" = 1 ]; then
    prefix=${prefix:-$HOME/.local}
    config_home=${XDG_CONFIG_HOME:-$HOME/.config}
    unit_dir=$config_home/systemd/user
    config_dir=$config_home/mouse3d
    rule_dir=""
else
    prefix=${prefix:-/usr/local}
    unit_dir=$prefix/lib/systemd/user
    config_dir=/etc/mouse3d
    rule_dir=/etc/udev/rules.d
    [ "$prefix" = /usr ] && rule_dir=/usr/lib/udev/rules.d
fi
manifest=$prefix/share/mouse3d/installed-files

if [ "$uninstall" = 1 ]; then
    [ -f "$destdir$manifest" ] || { echo "install.sh: nothing to uninstall: $destdir$manifest does not exist" >&2; exit 1; }
    # Files first, then the directories this script made, deepest first, if they are empty.
    while read -r kind path; do
        [ "$kind" = file ] && rm -f "$destdir$path" && echo "removed $path"
    done < "$destdir$manifest"
    dirs_file=$(mktemp)
    mv "$destdir$manifest.dirs" "$dirs_file" 2>/dev/null || true
    rm -f "$destdir$manifest"
    rmdir "$destdir$prefix/share/mouse3d" 2>/dev/null || true
    tac "$dirs_file" | while read -r dir; do rmdir "$destdir$dir" 2>/dev/null && echo "removed $dir/" || true; done
    rm -f "$dirs_file"
    [ -n "$rule_dir" ] && [ -z "$destdir" ] && command -v udevadm >/dev/null && udevadm control --reload 2>/dev/null || true
    exit 0
fi

if [ "$build" = 1 ]; then
    Tests/setup-debian.sh
    swift build -c release --static-swift-stdlib --product mouse3d
fi
binary=.build/release/mouse3d
[ -x "$binary" ] || { echo "install.sh: $binary is not built (run without --no-build)" >&2; exit 1; }

# Generated from the command definitions, never edited by hand.
generated=.build/generated
rm -rf "$generated"
mkdir -p "$generated/completions"
# The manual page: swift-argument-parser's generate-manual plugin (it builds the package's
# executables in debug and reads their --experimental-dump-help).
# Debug products: the static release binary below is left as it is.
swift package generate-manual --configuration debug >/dev/null
cp .build/plugins/GenerateManual/outputs/mouse3d/mouse3d.1 "$generated/mouse3d.1"
"$binary" --generate-completion-script bash > "$generated/completions/mouse3d.bash"
"$binary" --generate-completion-script zsh > "$generated/completions/_mouse3d"
"$binary" --generate-completion-script fish > "$generated/completions/mouse3d.fish"

files=() dirs=()
place() {  # place MODE SOURCE DESTINATION
    local directory
    directory=$(dirname "$3")
    # The directories this script creates are recorded (and removed again if empty at --uninstall).
    local missing=() d=$directory
    while [ ! -d "$destdir$d" ]; do missing=("$d" "${missing[@]}"); d=$(dirname "$d"); done
    for d in "${missing[@]}"; do mkdir -p "$destdir$d"; dirs+=("$d"); done
    install -m "$1" "$2" "$destdir$3"
    files+=("$3")
}
place 755 "$binary" "$prefix/bin/mouse3d"
place 644 "$generated/mouse3d.1" "$prefix/share/man/man1/mouse3d.1"
place 644 "$generated/completions/mouse3d.bash" "$prefix/share/bash-completion/completions/mouse3d"
place 644 "$generated/completions/_mouse3d" "$prefix/share/zsh/site-functions/_mouse3d"
place 644 "$generated/completions/mouse3d.fish" "$prefix/share/fish/vendor_completions.d/mouse3d.fish"
for unit in Config/mouse3d-receive.service Config/mouse3d-send.service Config/mouse3d-run.service; do
    # The units name the binary by its installed path.
    sed "s#/usr/local/bin/mouse3d#$prefix/bin/mouse3d#g" "$unit" > "$generated/$(basename "$unit")"
    place 644 "$generated/$(basename "$unit")" "$unit_dir/$(basename "$unit")"
done
if [ -e "$destdir$config_dir/config.toml" ]; then
    echo "kept $config_dir/config.toml (yours); the defaults are in $prefix/share/mouse3d/config.toml"
    place 644 Config/mouse3d.toml "$prefix/share/mouse3d/config.toml"
else
    place 644 Config/mouse3d.toml "$config_dir/config.toml"
fi
# A copy beside the binary's other files, which doctor and permission errors name in their fix.
place 644 udev/70-mouse3d.rules "$prefix/share/mouse3d/70-mouse3d.rules"
if [ -n "$rule_dir" ]; then
    place 644 udev/70-mouse3d.rules "$rule_dir/70-mouse3d.rules"
fi
mkdir -p "$destdir$(dirname "$manifest")"
printf 'file %s\n' "${files[@]}" > "$destdir$manifest"
printf '%s\n' "${dirs[@]}" > "$destdir$manifest.dirs"
for f in "${files[@]}"; do echo "installed $f"; done
if [ -z "$destdir" ]; then
    if [ -n "$rule_dir" ]; then
        command -v udevadm >/dev/null && { udevadm control --reload && udevadm trigger --subsystem-match=misc --subsystem-match=input --subsystem-match=iio || true; }
    else
        echo "for /dev/uinput and the motion sensors without root, install the udev rule (needs root):"
        echo "  sudo install -m 644 $prefix/share/mouse3d/70-mouse3d.rules /etc/udev/rules.d/ && sudo udevadm control --reload && sudo udevadm trigger"
    fi
    case ":$PATH:" in
        *":$prefix/bin:"*) echo "next: mouse3d doctor" ;;
        *) echo "$prefix/bin is not on your PATH: add it (export PATH=\"$prefix/bin:\$PATH\" in ~/.profile), then: mouse3d doctor" ;;
    esac
fi
