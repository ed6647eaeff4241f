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
# --destdir DIR  stage everything under DIR, created if missing (packaging; see scripts/build-deb.sh)
# --no-build     use the binary already built (.build/release/mouse3d)
# DIRs are absolute (spaces are fine; no quote or backslash in the prefix). Under sudo the build
# runs as the user who ran sudo. Every installed path is listed in PREFIX/share/mouse3d/installed-files,
# which --uninstall reads; installing again keeps that list whole.
set -euo pipefail
caller=$PWD
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="/opt/swift/usr/bin:$PATH"

fail() { echo "install.sh: $*" >&2; exit 2; }
prefix="" prefix_given=0 user=0 destdir="" uninstall=0 build=1
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) [ -n "${2:-}" ] || fail "--prefix needs a directory"; prefix=$2 prefix_given=1; shift 2 ;;
        --user) user=1; shift ;;
        --destdir) [ -n "${2:-}" ] || fail "--destdir needs a directory"; destdir=$2; shift 2 ;;
        --uninstall) uninstall=1; shift ;;
        --no-build) build=0; shift ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) fail "unknown option '$1' (see --help)" ;;
    esac
done

# A directory from the command line: absolute, one line; trailing slashes dropped. Sets $checked.
check_directory() {  # check_directory OPTION VALUE EXAMPLE
    checked=$2
    case $checked in
        /*) ;;
        *) fail "$1 must be an absolute path, e.g. $1 $3 or $1 $(printf '%q' "$caller/$checked") (got '$checked')" ;;
    esac
    case $checked in
        *[[:cntrl:]]*) fail "$1 must not contain a newline or other control character" ;;
    esac
    while [ "${#checked}" -gt 1 ] && [ "${checked%/}" != "$checked" ]; do checked=${checked%/}; done
}
if [ "$prefix_given" = 1 ]; then
    check_directory --prefix "$prefix" /usr/local; prefix=$checked
    [ "$prefix" != / ] || fail "--prefix / would put share/ and lib/ at the root: use --prefix /usr"
fi
if [ -n "$destdir" ]; then
    check_directory --destdir "$destdir" /tmp/mouse3d-stage; destdir=$checked
    [ "$destdir" != / ] || destdir=""
fi

if [ "$user" = 1 ]; then
    [ "$prefix_given" = 1 ] || prefix=$HOME/.local
    config_home=${XDG_CONFIG_HOME:-}
    case $config_home in /*) ;; *) config_home=$HOME/.config ;; esac  # a relative one is ignored, as mouse3d does
    unit_dir=$config_home/systemd/user
    config_dir=$config_home/mouse3d
    rule_dir=""
else
    [ "$prefix_given" = 1 ] || prefix=/usr/local
    unit_dir=$prefix/lib/systemd/user
    config_dir=/etc/mouse3d
    rule_dir=/etc/udev/rules.d
    [ "$prefix" = /usr ] && rule_dir=/usr/lib/udev/rules.d
    umask 022  # for every user: a root umask of 077 would make the man page and completions unreadable
fi
case $prefix in
    *[\\\"\']*) fail "the prefix $prefix has a quote or a backslash, which systemd does not accept in the units' ExecStart: choose another with --prefix" ;;
esac
manifest=$prefix/share/mouse3d/installed-files

# The manifest: "file PATH" for each installed file, "config SHA256 PATH" for the configuration
# (removed only if unchanged); the .dirs file lists the directories this script made, parents first.
# Paths are as installed (without DESTDIR); any character but a newline.
manifest_files=() manifest_configs=() manifest_dirs=()
read_manifest() {
    local line kind rest
    manifest_files=() manifest_configs=() manifest_dirs=()
    [ -f "$destdir$manifest" ] || return 0
    while IFS= read -r line || [ -n "$line" ]; do
        kind=${line%% *} rest=${line#* }
        case $kind in
            file) manifest_files+=("$rest") ;;
            config) manifest_configs+=("$rest") ;;
        esac
    done < "$destdir$manifest"
    if [ -f "$destdir$manifest.dirs" ]; then
        while IFS= read -r line || [ -n "$line" ]; do
            [ -n "$line" ] && manifest_dirs+=("$line")
        done < "$destdir$manifest.dirs"
    fi
    return 0
}
# Only paths this script could have written: absolute, without "." or ".." components.
safe_path() {
    case $1 in /*) ;; *) return 1 ;; esac
    case $1/ in */./*|*/../*) return 1 ;; esac
    return 0
}
sha256_of() { sha256sum < "$1" | cut -d' ' -f1; }

if [ "$uninstall" = 1 ]; then
    [ -f "$destdir$manifest" ] || { echo "install.sh: nothing to uninstall: $destdir$manifest does not exist" >&2; exit 1; }
    read_manifest
    # Files first (only regular files and links, never a directory), then the directories this
    # script made, deepest first, if they are empty.
    for path in ${manifest_files[@]+"${manifest_files[@]}"}; do
        safe_path "$path" || { echo "skipped '$path' (not a path install.sh writes)" >&2; continue; }
        if [ -f "$destdir$path" ] || [ -L "$destdir$path" ]; then
            rm -f -- "$destdir$path" && echo "removed $path"
        else
            echo "already gone: $path"
        fi
    done
    for entry in ${manifest_configs[@]+"${manifest_configs[@]}"}; do
        sum=${entry%% *} path=${entry#* }
        safe_path "$path" || { echo "skipped '$path' (not a path install.sh writes)" >&2; continue; }
        if [ ! -f "$destdir$path" ]; then
            echo "already gone: $path"
        elif [ "$(sha256_of "$destdir$path")" = "$sum" ]; then
            rm -f -- "$destdir$path" && echo "removed $path"
        else
            echo "kept $path (changed since it was installed)"
        fi
    done
    rm -f -- "$destdir$manifest" "$destdir$manifest.dirs"
    for ((i = ${#manifest_dirs[@]} - 1; i >= 0; i--)); do
        dir=${manifest_dirs[i]}
        safe_path "$dir" || continue
        rmdir -- "$destdir$dir" 2>/dev/null && echo "removed $dir/" || true
    done
    [ -n "$rule_dir" ] && [ -z "$destdir" ] && command -v udevadm >/dev/null && udevadm control --reload 2>/dev/null || true
    exit 0
fi

# Under sudo, the build (swift build, and the manual page's plugin, which builds in debug) runs as
# the user who ran sudo, in their own work tree; only installing needs root. As root without sudo
# (CI, a root shell), everything runs as root.
builder=""
if [ "$(id -u)" = 0 ] && [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then
    builder=$SUDO_USER
    id -u "$builder" >/dev/null 2>&1 || fail "SUDO_USER '$builder' is not a user of this machine"
    foreign=$(find "$root/.build" ! -user "$builder" -print -quit 2>/dev/null || true)
    if ! runuser -u "$builder" -- test -w "$root" || [ -n "$foreign" ]; then
        fail "under sudo the build runs as $builder (who ran sudo), but $builder cannot write ${foreign:-$root}. Give the work tree back (sudo chown -R $builder $(printf '%q' "$root")), or build as root on purpose: sudo env -u SUDO_USER scripts/install.sh"
    fi
    echo "building as $builder (who ran sudo), installing as root"
fi
as_builder() {
    if [ -n "$builder" ]; then runuser -u "$builder" -- env "PATH=$PATH" "$@"; else "$@"; fi
}

if [ "$build" = 1 ]; then
    Tests/setup-debian.sh
    as_builder swift build -c release --static-swift-stdlib --product mouse3d
fi
binary=.build/release/mouse3d
[ -x "$binary" ] || { echo "install.sh: $binary is not built (run without --no-build)" >&2; exit 1; }

# Generated from the command definitions, never edited by hand; outside the work tree, so that
# nothing in .build belongs to root after a sudo install.
generated=$(mktemp -d "${TMPDIR:-/tmp}/mouse3d-install-XXXXXX")
trap 'rm -rf -- "$generated"' EXIT
mkdir -p "$generated/completions"
# The manual page: swift-argument-parser's generate-manual plugin (it builds the package's
# executables in debug and reads their --experimental-dump-help).
# Debug products: the static release binary below is left as it is.
as_builder swift package generate-manual --configuration debug >/dev/null
cp .build/plugins/GenerateManual/outputs/mouse3d/mouse3d.1 "$generated/mouse3d.1"
as_builder "$binary" --generate-completion-script bash > "$generated/completions/mouse3d.bash"
as_builder "$binary" --generate-completion-script zsh > "$generated/completions/_mouse3d"
as_builder "$binary" --generate-completion-script fish > "$generated/completions/mouse3d.fish"

# An earlier install's list is kept whole: what it installed and the directories it made are still
# removed by --uninstall.
[ -z "$destdir" ] || mkdir -p -- "$destdir"
read_manifest
files=() dirs=() configs=()
for path in ${manifest_files[@]+"${manifest_files[@]}"}; do files+=("$path"); done
for dir in ${manifest_dirs[@]+"${manifest_dirs[@]}"}; do dirs+=("$dir"); done
for entry in ${manifest_configs[@]+"${manifest_configs[@]}"}; do configs+=("$entry"); done
write_manifest() {
    {
        for path in ${files[@]+"${files[@]}"}; do printf 'file %s\n' "$path"; done
        for entry in ${configs[@]+"${configs[@]}"}; do printf 'config %s\n' "$entry"; done
    } > "$destdir$manifest.new"
    mv -f -- "$destdir$manifest.new" "$destdir$manifest"
    printf '%s\n' ${dirs[@]+"${dirs[@]}"} > "$destdir$manifest.dirs"
}
listed() {  # listed PATH: already in files
    local path
    for path in ${files[@]+"${files[@]}"}; do [ "$path" = "$1" ] && return 0; done
    return 1
}
recorded() {  # recorded DIR: already in dirs
    local dir
    for dir in ${dirs[@]+"${dirs[@]}"}; do [ "$dir" = "$1" ] && return 0; done
    return 1
}
make_directory() {  # make_directory DIR: with every missing parent, each recorded
    local missing=() d=$1
    while [ ! -d "$destdir$d" ]; do
        case $d in /|.|'') break ;; esac
        missing=("$d" ${missing[@]+"${missing[@]}"})
        d=$(dirname -- "$d")
    done
    for d in ${missing[@]+"${missing[@]}"}; do
        mkdir -p -- "$destdir$d"
        recorded "$d" || dirs+=("$d")
    done
}
make_directory "$(dirname -- "$manifest")"
write_manifest  # now, so that an install that stops half-way can still be uninstalled
place() {  # place MODE SOURCE DESTINATION
    make_directory "$(dirname -- "$3")"
    install -m "$1" -- "$2" "$destdir$3"
    listed "$3" || files+=("$3")
    write_manifest
    echo "installed $3"
}
# place_editable MODE SOURCE DESTINATION [OLD]: a file its owner may edit or replace (the
# configuration; the udev rule in /etc, which the group rule may replace). Installed where there is
# none, or over what an earlier install put there if it is unchanged (with OLD, also over what an
# install.sh from before checksums listed); else kept, and the function fails. Listed with its
# checksum: --uninstall removes it only if it is still unchanged.
place_editable() {
    local entry ours="" path
    for entry in ${manifest_configs[@]+"${manifest_configs[@]}"}; do
        if [ "${entry#* }" = "$3" ] && [ -f "$destdir$3" ] && [ "$(sha256_of "$destdir$3")" = "${entry%% *}" ]; then ours=1; fi
    done
    if [ -n "${4:-}" ]; then
        for path in ${manifest_files[@]+"${manifest_files[@]}"}; do [ "$path" = "$3" ] && ours=1; done
    fi
    if [ -e "$destdir$3" ] && [ -z "$ours" ]; then return 1; fi
    make_directory "$(dirname -- "$3")"
    install -m "$1" -- "$2" "$destdir$3"
    local kept=()
    for path in ${files[@]+"${files[@]}"}; do [ "$path" = "$3" ] || kept+=("$path"); done
    files=(${kept[@]+"${kept[@]}"})
    configs+=("$(sha256_of "$destdir$3") $3")
    write_manifest
    echo "installed $3"
}
# A path as the first word of an Exec line (systemd.service(5)): % doubled (specifiers), in double
# quotes where it has anything but the plainest characters. ($ is literal there; ", ' and \ are
# refused above: systemd will not run an executable whose path has them.)
unit_word() {
    local word=${1//%/%%}
    case $word in
        *[!A-Za-z0-9/._+,:@=~-]*) printf '"%s"' "$word" ;;
        *) printf '%s' "$word" ;;
    esac
}

# Installed stripped, as Debian's packages are (dh_strip): 17 MB instead of 37 MB of which 20 are
# debug sections and symbol names no process maps (.build/release/mouse3d keeps them for gdb).
installed_binary=$binary
if command -v strip >/dev/null 2>&1; then
    strip -o "$generated/mouse3d" -- "$binary" && installed_binary=$generated/mouse3d
else
    echo "install.sh: strip (binutils) not found; installing the binary with its debug sections" >&2
fi
place 755 "$installed_binary" "$prefix/bin/mouse3d"
place 644 "$generated/mouse3d.1" "$prefix/share/man/man1/mouse3d.1"
place 644 "$generated/completions/mouse3d.bash" "$prefix/share/bash-completion/completions/mouse3d"
place 644 "$generated/completions/_mouse3d" "$prefix/share/zsh/site-functions/_mouse3d"
place 644 "$generated/completions/mouse3d.fish" "$prefix/share/fish/vendor_completions.d/mouse3d.fish"
executable=$(unit_word "$prefix/bin/mouse3d")
for unit in Config/mouse3d-receive.service Config/mouse3d-send.service Config/mouse3d-run.service; do
    # The units name the binary by its installed path (text, not a sed expression: any prefix).
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in
            Exec[A-Za-z]*=/usr/local/bin/mouse3d|Exec[A-Za-z]*=/usr/local/bin/mouse3d" "*)
                line="${line%%=*}=$executable${line#*=/usr/local/bin/mouse3d}" ;;
        esac
        printf '%s\n' "$line"
    done < "$unit" > "$generated/$(basename "$unit")"
    place 644 "$generated/$(basename "$unit")" "$unit_dir/$(basename "$unit")"
done
unlist_editable() {  # unlist_editable DESTINATION: its entry goes (place_editable adds it back if it installs it)
    local entry kept=()
    for entry in ${configs[@]+"${configs[@]}"}; do [ "${entry#* }" = "$1" ] || kept+=("$entry"); done
    configs=(${kept[@]+"${kept[@]}"})
}
# The configuration is the user's once they change it.
config="$config_dir/config.toml"
unlist_editable "$config"
if ! place_editable 644 Config/mouse3d.toml "$config"; then
    echo "kept $config (yours); the defaults are in $prefix/share/mouse3d/config.toml"
    place 644 Config/mouse3d.toml "$prefix/share/mouse3d/config.toml"
fi
# Copies beside the binary's other files: the rule, which doctor and permission errors name in
# their fix, and the alternative that grants the devices to group mouse3d instead of the seat.
place 644 udev/70-mouse3d.rules "$prefix/share/mouse3d/70-mouse3d.rules"
place 644 udev/70-mouse3d-group.rules.example "$prefix/share/mouse3d/70-mouse3d-group.rules.example"
if [ -n "$rule_dir" ]; then
    # /dev/uinput exists before its module is loaded (a static node), but without the device udev
    # has nothing to apply the rule to: the module is loaded at every boot (and below, now).
    modules_dir=/etc/modules-load.d
    [ "$prefix" = /usr ] && modules_dir=/usr/lib/modules-load.d
    printf '# mouse3d: /dev/uinput for its virtual devices, so the udev rule applies from boot on\nuinput\n' > "$generated/mouse3d.conf"
    place 644 "$generated/mouse3d.conf" "$modules_dir/mouse3d.conf"
    unlist_editable "$rule_dir/70-mouse3d.rules"
    place_editable 644 udev/70-mouse3d.rules "$rule_dir/70-mouse3d.rules" old \
        || echo "kept $rule_dir/70-mouse3d.rules (not the rule an earlier install put there: yours, e.g. the group rule); the shipped one is $prefix/share/mouse3d/70-mouse3d.rules"
fi
if [ -z "$destdir" ]; then
    if [ -n "$rule_dir" ]; then
        command -v udevadm >/dev/null && { udevadm control --reload && { modprobe uinput 2>/dev/null || true; } && udevadm trigger --subsystem-match=misc --subsystem-match=input --subsystem-match=iio || true; }
    else
        echo "for /dev/uinput and the motion sensors without root, install the udev rule (needs root):"
        echo "  sudo install -m 644 $(printf '%q' "$prefix/share/mouse3d/70-mouse3d.rules") /etc/udev/rules.d/ && sudo udevadm control --reload && sudo udevadm trigger"
    fi
    case ":$PATH:" in
        *":$prefix/bin:"*) echo "next: mouse3d doctor" ;;
        *) echo "$prefix/bin is not on your PATH: add it (export PATH=$(printf '%q' "$prefix/bin"):\$PATH in ~/.profile), then: mouse3d doctor" ;;
    esac
fi
