#!/bin/sh
# The console's doors (issue 45; docs/console.md, "Threats and defences"), by raw HTTP:
# a WebSocket from another origin (another site, a file:// page's "null", another port)
# or through a DNS-rebinding name is refused with 403 before the upgrade; one without an
# Origin needs the token; the console's own page is upgraded (101); every answer carries
# Referrer-Policy, nosniff and a Content-Security-Policy of its own origin; a token of
# 400 characters is accepted; a console that cannot bind its port exits 1 naming it.
. "$(dirname "$0")/lib.sh"
T=$(free_port)
K=$(free_port)
B=$(free_port)                                  # no dispatcher there: the doors come first
long=$(python3 -c 'print("k" * 400)')
"$bin/console" --listen 127.0.0.1:$T --bus 127.0.0.1:$B >"$tmp/open.log" 2>&1 &
pids="$pids $!"
SIM_BUS_TOKEN=$long "$bin/console" --listen 127.0.0.1:$K --bus 127.0.0.1:$B >"$tmp/tok.log" 2>&1 &
pids="$pids $!"
python3 - "$T" "$K" "$long" <<'PY' || exit 1
import socket, sys, time
T, K, long = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def wait(port):
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close(); return
        except OSError: time.sleep(0.05)
    print("FAIL console on port %d never listened" % port); sys.exit(1)
def req(port, path="/bus", host=None, origin=None, ws=True):
    h = ["GET %s HTTP/1.1" % path, "Host: %s" % (host or "127.0.0.1:%d" % port)]
    if origin is not None: h.append("Origin: " + origin)
    if ws: h += ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                 "Sec-WebSocket-Version: 13", "Sec-WebSocket-Protocol: simbus"]
    s = socket.create_connection(("127.0.0.1", port), 5)
    s.sendall(("\r\n".join(h) + "\r\n\r\n").encode())
    data = b""
    s.settimeout(5)
    while b"\r\n\r\n" not in data:
        c = s.recv(4096)
        if not c: break
        data += c
    s.close()
    head = data.decode("latin-1").split("\r\n\r\n")[0]
    status = int(head.split(" ")[1]) if head.startswith("HTTP/") else 0
    return status, head
wait(T); wait(K)
fails = 0
def check(name, got, want, head=""):
    global fails
    if got == want: print("ok   %s: %s" % (name, got))
    else:
        fails += 1; print("FAIL %s: %s, expected %s\n%s" % (name, got, want, head))
own = "http://127.0.0.1:%d" % T
for name, kw, want in [
    ("own page's WebSocket", dict(origin=own), 101),
    ("own page by localhost", dict(origin="http://localhost:%d" % T, host="localhost:%d" % T), 101),
    ("foreign Origin http://evil.example.com", dict(origin="http://evil.example.com"), 403),
    ("file:// page (Origin null)", dict(origin="null"), 403),
    ("another port's page", dict(origin="http://127.0.0.1:%d" % (T + 1)), 403),
    ("https twin of its origin", dict(origin="https://127.0.0.1:%d" % T), 403),
    ("Host evil.example.com (DNS rebinding)", dict(host="evil.example.com:%d" % T, origin="http://evil.example.com:%d" % T), 403),
    ("Host with another port", dict(host="127.0.0.1:%d" % (T + 1), origin="http://127.0.0.1:%d" % (T + 1)), 403),
    ("no Origin, no token", dict(), 403),
    ("page over Host evil.example.com", dict(path="/", host="evil.example.com:%d" % T, ws=False), 403),
    ("page over its own address", dict(path="/", ws=False), 200),
]:
    st, head = req(T, **kw)
    check(name, st, want, head)
st, head = req(T, path="/index.html", ws=False)
for h in ["Referrer-Policy: no-referrer", "X-Content-Type-Options: nosniff",
          "Content-Security-Policy: default-src 'self'; connect-src 'self'"]:
    check("header " + h.split(":")[0], h.lower() in head.lower(), True, head)
ko = "http://127.0.0.1:%d" % K
for name, kw, want in [
    ("400-character token, no Origin", dict(path="/bus?token=" + long), 101),
    ("wrong token, no Origin", dict(path="/bus?token=" + long[:-1] + "x"), 403),
    ("own page with the token", dict(path="/bus?token=" + long, origin=ko), 101),
    ("own page without the token", dict(origin=ko), 403),
    ("foreign page with the token", dict(path="/bus?token=" + long, origin="http://evil.example.com"), 403),
]:
    st, head = req(K, **kw)
    check(name, st, want, head)
sys.exit(1 if fails else 0)
PY
n=$(grep -c "refused (403)" "$tmp/open.log")
[ "$n" -eq 8 ] || { echo "FAIL $n refusals logged, expected 8"; cat "$tmp/open.log"; exit 1; }
grep -q 'WebSocket refused (403): WebSocket from a page of another origin .*Origin "http://evil.example.com"' "$tmp/open.log" ||
    { echo "FAIL the foreign origin's refusal is not logged by name"; cat "$tmp/open.log"; exit 1; }
# The port is taken (by the first console): the second exits 1 at once, naming it.
timeout 10 "$bin/console" --listen 127.0.0.1:$T --bus 127.0.0.1:$B >"$tmp/bind.log" 2>&1
rc=$?
[ $rc -eq 1 ] || { echo "FAIL a console that cannot bind exited $rc, expected 1"; cat "$tmp/bind.log"; exit 1; }
grep -q "console: cannot listen on 127.0.0.1:$T" "$tmp/bind.log" || { echo "FAIL no word of the address"; cat "$tmp/bind.log"; exit 1; }
grep -q "console: http://" "$tmp/bind.log" && { echo "FAIL a console that cannot bind printed its URL"; exit 1; }
echo "ok   a console that cannot bind exits 1: $(grep 'cannot listen' "$tmp/bind.log")"
