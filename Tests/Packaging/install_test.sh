#!/bin/bash
# scripts/install.sh with the release binary already built (--no-build), into empty places, then
# --uninstall. Each check prints what it checked:
#   --user into an empty prefix and configuration directory: every documented file, the units name
#     the installed binary, doctor's fix names the installed rule; --uninstall leaves nothing;
#   --destdir naming a directory that does not exist yet (--prefix /usr/local): finishes (60 s at
#     most) and installs; --uninstall leaves the staged root empty: no file, no directory;
#   --prefix /tmp/x#y&z (characters a sed expression would break on): systemd reads each unit's
#     ExecStart as exactly that prefix's bin/mouse3d; one installed file deleted by hand, then
#     --uninstall succeeds and leaves nothing;
#   --prefix with a space, installed twice: the units name it; --uninstall leaves nothing;
#   the units as installed under those prefixes still rate 4.5 or less (units_security_test.sh);
#   the group rule put in place of the installed seat rule, and an edited configuration: a second
#     install keeps both, and --uninstall leaves them (and nothing else);
#   a relative --prefix or --destdir: refused, saying to give an absolute path; nothing made;
#   as root under sudo (SUDO_USER=nobody, who cannot write the work tree): refused before anything
#     is built, instead of building as root.
#   Tests/Packaging/install_test.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
repository=$PWD
command -v systemd-analyze >/dev/null \
    || { echo "install: FAIL: systemd-analyze is missing (apt-get install systemd; Tests/setup-debian.sh --vm installs it)"; exit 1; }
place=$(mktemp -d /tmp/mouse3d-install-test-XXXXXX)
trap 'rm -rf "$place"' EXIT
failures=0
ok() { echo "install: ok: $*"; }
bad() { echo "install: FAIL: $*"; failures=$((failures + 1)); }
check() {  # check DESCRIPTION COMMAND...
    local description=$1; shift
    if "$@"; then ok "$description"; else bad "$description"; fi
}
# Everything under a directory, one path a line ("" when it is empty or gone).
contents() { [ ! -d "$1" ] || (cd "$1" && find . -mindepth 1 | sort); }
quietly() { "$@" >/dev/null 2>&1; }
# ExecStart's executable as systemd reads it: the staged units name a path that does not exist on
# this machine, and systemd-analyze verify says which ("Command PATH is not executable").
executable_read_by_systemd() {  # UNIT
    local said
    said=$(XDG_RUNTIME_DIR=$runtime systemd-analyze verify --user "$1" 2>&1 || true)
    sed -n 's/^.*: Command \(.*\) is not executable: .*$/\1/p' <<<"$said" | head -1
}
runtime=$place/runtime
mkdir -p "$runtime"
units="mouse3d-receive.service mouse3d-send.service mouse3d-run.service"

# 1. --user into an empty prefix (the first run also builds the manual page's plugin: no time limit).
export XDG_CONFIG_HOME=$place/user/config
scripts/install.sh --user --prefix "$place/user/prefix" --no-build >/dev/null
missing=""
for f in prefix/bin/mouse3d prefix/share/man/man1/mouse3d.1 prefix/share/bash-completion/completions/mouse3d \
         prefix/share/zsh/site-functions/_mouse3d prefix/share/fish/vendor_completions.d/mouse3d.fish \
         prefix/share/mouse3d/70-mouse3d.rules prefix/share/mouse3d/70-mouse3d-group.rules.example \
         config/systemd/user/mouse3d-receive.service config/mouse3d/config.toml; do
    [ -f "$place/user/$f" ] || missing="$missing $f"
done
check "--user: every documented file installed${missing:+ (missing:$missing)}" test -z "$missing"
check "--user: the unit names the installed binary" \
    grep -q "^ExecStart=$place/user/prefix/bin/mouse3d receive$" "$place/user/config/systemd/user/mouse3d-receive.service"
check "--user: the installed binary runs" quietly "$place/user/prefix/bin/mouse3d" --version
# Where no rule is installed on this machine, doctor's fix copies the installed one, by its full path.
doctor=$("$place/user/prefix/bin/mouse3d" doctor --json --offline 2>/dev/null || true)
if grep -q '"name":"udev rule","status":"ok"' <<<"$doctor"; then
    echo "install: (this machine has the udev rule installed; doctor's fix for a missing one is not shown)"
else
    check "--user: doctor's udev fix names the installed copy of the rule" \
        grep -q "\"name\":\"udev rule\".*sudo install -m 644 $place/user/prefix/share/mouse3d/70-mouse3d.rules /etc/udev/rules.d/" <<<"$doctor"
fi
scripts/install.sh --user --prefix "$place/user/prefix" --uninstall >/dev/null
# What swift package itself keeps under XDG_CONFIG_HOME (its caches) is not the installer's.
left=$(contents "$place/user" | grep -v -e '^\./config/swiftpm' -e '^\./config$' || true)
check "--user: --uninstall leaves nothing${left:+; left: $left}" test -z "$left"
unset XDG_CONFIG_HOME

# 2. --destdir naming a directory that does not exist yet.
stage=$place/staged/not/yet
if timeout 60 scripts/install.sh --prefix /usr/local --destdir "$stage" --no-build >/dev/null; then
    ok "--destdir that does not exist yet: created, and the install finished within 60 s"
else
    bad "--destdir that does not exist yet: install.sh failed or took more than 60 s (exit $?)"
fi
missing=""
for f in usr/local/bin/mouse3d usr/local/share/man/man1/mouse3d.1 usr/local/lib/systemd/user/mouse3d-receive.service \
         usr/local/share/mouse3d/70-mouse3d-group.rules.example etc/mouse3d/config.toml etc/udev/rules.d/70-mouse3d.rules; do
    [ -f "$stage/$f" ] || missing="$missing $f"
done
check "--destdir: binary, manual page, units, configuration and udev rule staged${missing:+ (missing:$missing)}" test -z "$missing"
timeout 60 scripts/install.sh --prefix /usr/local --destdir "$stage" --uninstall >/dev/null || bad "--destdir: --uninstall failed"
left=$(contents "$stage")
check "--destdir: --uninstall leaves the staged root empty, no file and no directory${left:+; left: $left}" test -z "$left"

# 3. A prefix with # and &, then an uninstall after one installed file was deleted.
hostile=/tmp/x#y\&z
stage=$place/hostile
mkdir -p "$stage"  # (an existing DESTDIR here: this case is about the prefix)
timeout 60 scripts/install.sh --prefix "$hostile" --destdir "$stage" --no-build >/dev/null || bad "prefix $hostile: install.sh failed (exit $?)"
for unit in $units; do
    read=$(executable_read_by_systemd "$stage$hostile/lib/systemd/user/$unit")
    check "prefix $hostile: systemd reads $unit's ExecStart as '$read'" test "$read" = "$hostile/bin/mouse3d"
done
if security=$(Tests/Packaging/units_security_test.sh "$stage$hostile"/lib/systemd/user/*.service 2>&1); then
    ok "prefix $hostile: the installed units rate 4.5 or less ($(grep -o 'exposure [0-9.]*' <<<"$security" | paste -sd, -))"
else
    bad "prefix $hostile: the installed units' sandbox"; echo "$security"
fi
rm -f "$stage$hostile/share/zsh/site-functions/_mouse3d"
if said=$(timeout 60 scripts/install.sh --prefix "$hostile" --destdir "$stage" --uninstall 2>&1); then
    ok "one installed file deleted by hand: --uninstall succeeds ($(grep -c '^removed' <<<"$said") paths removed, $(grep -c '^already gone' <<<"$said") already gone)"
else
    bad "one installed file deleted by hand: --uninstall failed: $said"
fi
left=$(contents "$stage")
check "one installed file deleted by hand: --uninstall leaves nothing${left:+; left: $left}" test -z "$left"

# 4. A prefix with a space, installed twice.
spaced="/opt/mouse 3d"
stage="$place/stage with space"
mkdir -p "$stage"
for round in first second; do
    if timeout 60 scripts/install.sh --prefix "$spaced" --destdir "$stage" --no-build >/dev/null; then
        ok "prefix '$spaced': the $round install succeeds"
    else
        bad "prefix '$spaced': the $round install failed (exit $?)"
    fi
done
read=$(executable_read_by_systemd "$stage$spaced/lib/systemd/user/mouse3d-send.service")
check "prefix '$spaced': systemd reads mouse3d-send.service's ExecStart as '$read'" test "$read" = "$spaced/bin/mouse3d"
check "prefix '$spaced': installed twice, the binary runs" quietly "$stage$spaced/bin/mouse3d" --version
if security=$(Tests/Packaging/units_security_test.sh "$stage$spaced"/lib/systemd/user/*.service 2>&1); then
    ok "prefix '$spaced': the installed units rate 4.5 or less ($(grep -o 'exposure [0-9.]*' <<<"$security" | paste -sd, -))"
else
    bad "prefix '$spaced': the installed units' sandbox"; echo "$security"
fi
timeout 60 scripts/install.sh --prefix "$spaced" --destdir "$stage" --uninstall >/dev/null || bad "prefix '$spaced': --uninstall failed"
left=$(contents "$stage")
check "prefix '$spaced': after two installs, --uninstall leaves nothing${left:+; left: $left}" test -z "$left"

# 5. What the administrator changed is theirs: the group rule installed in place of the seat rule
# (as its header says) and an edited configuration survive a second install and --uninstall.
stage=$place/edited
mkdir -p "$stage"
timeout 60 scripts/install.sh --prefix /usr/local --destdir "$stage" --no-build >/dev/null || bad "edited files: the first install failed"
cp udev/70-mouse3d-group.rules.example "$stage/etc/udev/rules.d/70-mouse3d.rules"
echo '# edited' >> "$stage/etc/mouse3d/config.toml"
timeout 60 scripts/install.sh --prefix /usr/local --destdir "$stage" --no-build >/dev/null || bad "edited files: the second install failed"
check "edited files: a second install keeps the group rule in place of the seat rule" \
    cmp -s udev/70-mouse3d-group.rules.example "$stage/etc/udev/rules.d/70-mouse3d.rules"
check "edited files: a second install keeps the edited configuration" grep -q '^# edited$' "$stage/etc/mouse3d/config.toml"
timeout 60 scripts/install.sh --prefix /usr/local --destdir "$stage" --uninstall >/dev/null || bad "edited files: --uninstall failed"
left=$(contents "$stage" | paste -sd' ' -)
check "edited files: --uninstall leaves them and nothing else (left: $left)" \
    test "$left" = "./etc ./etc/mouse3d ./etc/mouse3d/config.toml ./etc/udev ./etc/udev/rules.d ./etc/udev/rules.d/70-mouse3d.rules"

# 6. Relative directories are refused (install.sh works in the checkout, not where it is run from).
mkdir -p "$place/relative-prefix"
for arguments in "--prefix relative-$$/prefix --destdir $place/relative-prefix" "--destdir relative-stage-$$"; do
    # shellcheck disable=SC2086
    said=$(cd "$place" && timeout 60 "$repository/scripts/install.sh" $arguments --no-build 2>&1) && status=0 || status=$?
    made=$(contents "$place/relative-prefix"; ls -d "$place/relative-$$" "$place/relative-stage-$$" \
        "$repository/relative-$$" "$repository/relative-stage-$$" 2>/dev/null || true)
    if [ "$status" != 0 ] && grep -q "must be an absolute path" <<<"$said" && [ -z "$made" ]; then
        ok "$arguments: refused (exit $status): $said"
    else
        bad "$arguments: exit $status, made '${made}', said: $said"
    fi
    rm -rf "${repository:?}/relative-$$" "${repository:?}/relative-stage-$$"
done

# 7. Under sudo the build runs as the user who ran sudo, never as root. Here that user (nobody)
# cannot write the work tree, so install.sh must refuse before building anything.
if [ "$(id -u)" != 0 ]; then
    echo "install: (not root: the sudo check runs as root only)"
elif ! id -u nobody >/dev/null 2>&1 || runuser -u nobody -- test -w "$repository"; then
    echo "install: (no user 'nobody', or it can write the work tree: the sudo check is skipped)"
else
    mkdir -p "$place/sudo"
    said=$(SUDO_USER=nobody timeout 60 scripts/install.sh --prefix /usr/local --destdir "$place/sudo" --no-build 2>&1) && status=0 || status=$?
    made=$(contents "$place/sudo")
    if [ "$status" != 0 ] && grep -q "runs as nobody" <<<"$said" && [ -z "$made" ]; then
        ok "under sudo (SUDO_USER=nobody), nothing is built as root: refused, saying: $said"
    else
        bad "under sudo (SUDO_USER=nobody): exit $status, said: $said"
    fi
fi

echo "install: $failures failure(s)"
[ "$failures" = 0 ]
