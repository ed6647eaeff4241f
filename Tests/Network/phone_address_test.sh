#!/bin/bash
# The phone page's address URL where HOST.local does not resolve: in a network namespace of its own
# (unshare -n, a veth pair, 10.77.0.2/24 with the default route, no Avahi), `mouse3d run --source
# phone` on every address prints a URL with the LAN address first and puts that address in its
# certificate; a client reaching that URL gets the page over TLS, and the certificate covers it.
# usage: phone_address_test.sh MOUSE3D
# Prints one line per check; exits 1 on a failure. Skips (exit 0, with the reason) where network
# namespaces cannot be made (no CAP_SYS_ADMIN).
set -euo pipefail
mouse3d=$(readlink -f "$1")
if [ -z "${MOUSE3D_IN_NETNS:-}" ]; then
    if ! unshare -n true 2>/dev/null; then
        echo "phone address: SKIP: cannot make a network namespace here (unshare -n needs CAP_SYS_ADMIN)"
        exit 0
    fi
    exec env MOUSE3D_IN_NETNS=1 unshare -n "$0" "$@"
fi
fail() { echo "phone address: FAIL: $*"; exit 1; }
ip link set lo up
ip link add v0 type veth peer name v1
ip addr add 10.77.0.2/24 dev v0
ip link set v0 up
ip link set v1 up
ip route add default via 10.77.0.1
home=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; rm -rf "$home"' EXIT
host=$(hostname)
if getent hosts "$host.local" >/dev/null 2>&1; then
    fail "$host.local resolves in the namespace: the test means nothing"
fi
echo "phone address: in a namespace with 10.77.0.2/24 and no mDNS: $host.local does not resolve"
HOME=$home XDG_CONFIG_HOME=$home/config XDG_DATA_HOME=$home/data "$mouse3d" run --source phone:0.0.0.0:0 --print \
    >"$home/out" 2>"$home/err" &
pid=$!
for _ in $(seq 200); do grep -q "running phone" "$home/err" && break; sleep 0.05; done
grep -q "running phone" "$home/err" || fail "mouse3d did not start: $(cat "$home/err")"
url=$(grep -o 'https://[^ ]*#[^ ]*' "$home/err" | grep -m1 '10\.77\.0\.2' || true)
first=$(grep -m1 -o 'phone: https://[^ ]*' "$home/err" | sed 's/phone: //')
[ -n "$url" ] || fail "no URL with the LAN address 10.77.0.2: $(cat "$home/err")"
[ "$first" = "$url" ] || fail "the URL to scan is $first, not the LAN address's $url"
echo "phone address: the URL to scan (the one in the QR code) is $first"
# The page over TLS at that address, and the certificate it was served with.
/usr/bin/python3 - "$url" "$home/cert.pem" <<'PY' || exit 1
import socket, ssl, sys
url, cert_path = sys.argv[1], sys.argv[2]
hostport = url.split("//", 1)[1].split("/", 1)[0]
host, port = hostport.rsplit(":", 1)
context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE
with socket.create_connection((host, int(port)), timeout=5) as raw, context.wrap_socket(raw) as tls:
    der = tls.getpeercert(binary_form=True)
    tls.sendall(f"GET / HTTP/1.1\r\nHost: {hostport}\r\n\r\n".encode())
    answer = b""
    while b"</html>" not in answer:
        chunk = tls.recv(65536)
        if not chunk:
            break
        answer += chunk
open(cert_path, "w").write(ssl.DER_cert_to_PEM_cert(der))
if not answer.startswith(b"HTTP/1.1 200") or b"mouse3d phone" not in answer:
    print(f"phone address: FAIL: the page at {hostport} answered {answer[:60]!r}")
    sys.exit(1)
print(f"phone address: GET / over TLS at {hostport}: 200, the phone page ({len(answer)} bytes)")
PY
sans=$(openssl x509 -in "$home/cert.pem" -noout -ext subjectAltName | tail -n +2 | tr -d ' ')
echo "phone address: the certificate served is for $sans"
echo "$sans" | tr ',' '\n' | grep -qx 'IPAddress:10.77.0.2' || fail "the certificate does not cover 10.77.0.2: $sans"
echo "phone address: PASS"
