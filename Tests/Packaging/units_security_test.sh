#!/bin/bash
# The systemd user units' sandboxes, as `systemd-analyze security --offline=yes --user` rates them:
# each unit's overall exposure must be 4.5 or less (10 is no sandbox at all). Needs no build.
#   Tests/Packaging/units_security_test.sh              the shipped units (Config/*.service)
#   Tests/Packaging/units_security_test.sh UNIT...      these unit files (e.g. as install.sh wrote them)
set -euo pipefail
cd "$(dirname "$0")/../.."
limit=4.5
command -v systemd-analyze >/dev/null \
    || { echo "units: FAIL: systemd-analyze is missing (apt-get install systemd; Tests/setup-debian.sh --vm installs it)"; exit 1; }
units=("$@")
[ "${#units[@]}" -gt 0 ] || units=(Config/*.service)
# The user manager's analysis wants a runtime directory, even offline.
runtime=$(mktemp -d /tmp/mouse3d-units-test-XXXXXX)
trap 'rm -rf "$runtime"' EXIT
failures=0
for unit in "${units[@]}"; do
    name=$(basename "$unit")
    said=$(XDG_RUNTIME_DIR=$runtime systemd-analyze security --offline=yes --user "$unit" 2>&1 || true)
    exposure=$(sed -n "s/.*Overall exposure level for .*: \([0-9][0-9.]*\) .*/\1/p" <<<"$said" | tail -1)
    if [ -z "$exposure" ]; then
        echo "units: FAIL: $name: no overall exposure level in systemd-analyze's output:"
        tail -5 <<<"$said" | sed 's/^/units:   /'
        failures=$((failures + 1))
    elif awk -v e="$exposure" -v l="$limit" 'BEGIN { exit !(e > l) }'; then
        echo "units: FAIL: $name: exposure $exposure, more than $limit; what counts most against it:"
        grep '✗' <<<"$said" | awk '{ print $NF "\t" $0 }' | sort -rn | head -8 | cut -f2- | sed 's/^/units:   /'
        failures=$((failures + 1))
    else
        echo "units: ok: $name: exposure $exposure (at most $limit)"
    fi
done
echo "units: $failures failure(s) in ${#units[@]} unit(s)"
[ "$failures" = 0 ]
