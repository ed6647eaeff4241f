#!/bin/bash
# scripts/install.sh --user into an empty prefix and configuration directory, then --uninstall:
# every documented file is installed, and afterwards nothing it made is left.
#   Tests/Packaging/install_test.sh     (uses the release binary already built)
set -euo pipefail
cd "$(dirname "$0")/../.."
place=$(mktemp -d /tmp/mouse3d-install-test-XXXXXX)
trap 'rm -rf "$place"' EXIT
export XDG_CONFIG_HOME=$place/config
scripts/install.sh --user --prefix "$place/prefix" --no-build >/dev/null
failures=0
for f in prefix/bin/mouse3d prefix/share/man/man1/mouse3d.1 prefix/share/bash-completion/completions/mouse3d \
         prefix/share/zsh/site-functions/_mouse3d prefix/share/fish/vendor_completions.d/mouse3d.fish \
         prefix/share/mouse3d/70-mouse3d.rules config/systemd/user/mouse3d-receive.service config/mouse3d/config.toml; do
    [ -f "$place/$f" ] || { echo "install: FAIL: $f not installed"; failures=$((failures + 1)); }
done
grep -q "ExecStart=$place/prefix/bin/mouse3d receive" "$place/config/systemd/user/mouse3d-receive.service" \
    || { echo "install: FAIL: the unit does not name the installed binary"; failures=$((failures + 1)); }
"$place/prefix/bin/mouse3d" --version >/dev/null || { echo "install: FAIL: the installed binary does not run"; failures=$((failures + 1)); }
# Where no rule is installed on this machine, doctor's fix copies the installed one, by its full path.
doctor=$("$place/prefix/bin/mouse3d" doctor --json --offline 2>/dev/null || true)
if grep -q '"name":"udev rule","status":"ok"' <<<"$doctor"; then
    echo "install: (this machine has the udev rule installed; doctor's fix for a missing one is not shown)"
else
    grep -q "\"name\":\"udev rule\".*sudo install -m 644 $place/prefix/share/mouse3d/70-mouse3d.rules /etc/udev/rules.d/" <<<"$doctor" \
        || { echo "install: FAIL: doctor's udev fix does not name the installed copy: $doctor"; failures=$((failures + 1)); }
fi
scripts/install.sh --user --prefix "$place/prefix" --uninstall >/dev/null
# What swift package itself keeps under XDG_CONFIG_HOME (its caches) is not the installer's.
left=$(cd "$place" && find . -mindepth 1 -not -path './config/swiftpm*' -not -path ./config | sort)
[ -z "$left" ] || { echo "install: FAIL: left after --uninstall:"; echo "$left"; failures=$((failures + 1)); }
echo "install: $failures failure(s) (--user install of 8 files and the units' paths, then --uninstall leaving nothing)"
[ "$failures" = 0 ]
