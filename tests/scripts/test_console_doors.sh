#!/bin/sh
# The console's doors (issue 45; docs/console.md, "Threats and defences"), by raw HTTP:
# a WebSocket from another origin (another site, a file:// page's "null", another port)
# or through a DNS-rebinding name is refused with 403 before the upgrade; one without an
# Origin needs the token; the console's own page is upgraded (101); every answer carries
# Referrer-Policy, nosniff and a Content-Security-Policy of its own origin; a token of
# 400 characters is accepted; a console that cannot bind its port exits 1 naming it.
# The operator's page (/) comes with an HttpOnly, SameSite=Strict cookie, no other page
# does, and console.command is refused to a WebSocket without it (an HMI page's). Page
# roles (?role=): the operator's needs the cookie, an unknown one is refused, and an HMI
# or questionnaire page may send only its own topics (an HMI page with the cookie too).
. "$(dirname "$0")/lib.sh"
T=$(free_port)
K=$(free_port)
B=$(free_port)                                  # a silent stand-in for the dispatcher (below)
long=$(python3 -c 'print("k" * 400)')
"$bin/console" --listen 127.0.0.1:$T --bus 127.0.0.1:$B >"$tmp/open.log" 2>&1 &
pids="$pids $!"
SIM_BUS_TOKEN=$long "$bin/console" --listen 127.0.0.1:$K --bus 127.0.0.1:$B >"$tmp/tok.log" 2>&1 &
pids="$pids $!"
python3 - "$T" "$K" "$long" "$B" <<'PY' || exit 1
import socket, sys, time
T, K, long, B = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
def wait(port):
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close(); return
        except OSError: time.sleep(0.05)
    print("FAIL console on port %d never listened" % port); sys.exit(1)
def req(port, path="/bus", host=None, origin=None, ws=True, cookie=None, frame=None):
    h = ["GET %s HTTP/1.1" % path, "Host: %s" % (host or "127.0.0.1:%d" % port)]
    if origin is not None: h.append("Origin: " + origin)
    if cookie is not None: h.append("Cookie: " + cookie)
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
    head = data.decode("latin-1").split("\r\n\r\n")[0]
    status = int(head.split(" ")[1]) if head.startswith("HTTP/") else 0
    if frame is not None and status == 101:
        # one masked text frame, then the console's first answer (a text frame)
        body = frame.encode(); mask = b"\x01\x02\x03\x04"
        s.sendall(bytes([0x81, 0x80 | len(body)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(body)))
        rest = data.split(b"\r\n\r\n", 1)[1]
        while len(rest) < 2 or len(rest) < 2 + (rest[1] & 0x7f):
            c = s.recv(4096)
            if not c: return status, "(closed without an answer)"
            rest += c
        n = rest[1] & 0x7f
        if n == 126:
            while len(rest) < 4: rest += s.recv(4096)
            n = int.from_bytes(rest[2:4], "big"); off = 4
            while len(rest) < off + n: rest += s.recv(4096)
        else: off = 2
        head = rest[off:off + n].decode()
    s.close()
    return status, head
# a stand-in dispatcher at B that takes each page's bus connection and says nothing
# (so a page stays connected and not welcomed)
import threading
held = []
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", B)); srv.listen(64)
def hold():
    while True:
        c, _ = srv.accept(); held.append(c)
threading.Thread(target=hold, daemon=True).start()
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
st, head = req(T, path="/", ws=False)
cookie = [l.split(":", 1)[1].strip() for l in head.split("\r\n") if l.lower().startswith("set-cookie:")]
check("the operator's page sets one cookie", len(cookie), 1, head)
check("its cookie is HttpOnly, SameSite=Strict", cookie and "HttpOnly; SameSite=Strict" in cookie[0], True, head)
st, hh = req(T, path="/hmi.html", ws=False)
check("the HMI page sets no cookie", "set-cookie" in hh.lower(), False, hh)
cmd = '{"topic":"console.command","cmd":"pause","req":1}'
st, ans = req(T, origin=own, frame=cmd)
check("console.command without the operator cookie is refused", "operator commands come only from the console's operator page" in ans, True, ans)
st, ans = req(T, path="/bus?role=operator", origin=own, frame=cmd, cookie=cookie[0].split(";")[0] if cookie else "")
check("as the operator with the cookie it goes on (to the hello check)", "say hello first" in ans, True, ans)
st, ans = req(T, origin=own, frame=cmd, cookie=cookie[0].split(";")[0] if cookie else "")
check("a page naming no role is no operator, even with the cookie", "operator commands come only" in ans, True, ans)
st, ans = req(T, origin=own, frame=cmd, cookie="sim_operator_%d=%s" % (T, "0" * 32))
check("a guessed cookie is refused", "operator commands come only" in ans, True, ans)
# page roles: ?role= names what a page is; the operator's role needs the cookie, and an
# HMI page may neither command nor publish another role's topics, even with the cookie
oc = cookie[0].split(";")[0] if cookie else ""
for name, kw, want in [
    ("role=operator without the cookie", dict(path="/bus?role=operator", origin=own), 403),
    ("role=operator with the cookie", dict(path="/bus?role=operator", origin=own, cookie=oc), 101),
    ("an unknown role", dict(path="/bus?role=admin", origin=own, cookie=oc), 403),
    ("role=questionnaire", dict(path="/bus?role=questionnaire", origin=own), 101),
]:
    st, head = req(T, **kw)
    check(name, st, want, head)
st, ans = req(T, path="/bus?role=hmi", origin=own, frame=cmd, cookie=oc)
check("an HMI page with the operator's cookie cannot command", "this is an hmi page" in ans, True, ans)
st, ans = req(T, path="/bus?role=hmi", origin=own, frame='{"topic":"log.mark","name":"x"}')
check("an HMI page cannot mark the log", "an hmi page may send hmi.* and context requests" in ans, True, ans)
st, ans = req(T, path="/bus?role=questionnaire", origin=own, frame='{"topic":"study.go","study":"s"}')
check("a questionnaire page may only answer", "a questionnaire page may send study.answer" in ans, True, ans)
st, ans = req(T, origin=own, frame='{"topic":"hmi.touch","page":"x"}')
check("a page without a role or cookie publishes nothing", "a page page may send nothing but context requests" in ans, True, ans)
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
# a page asked for with the token gets the token cookie; the WebSocket then needs none in its URL
st, head = req(K, path="/join.html?token=" + long, ws=False)
tc = [l.split(":", 1)[1].strip().split(";")[0] for l in head.split("\r\n")
      if l.lower().startswith("set-cookie:") and "sim_token_" in l]
check("a page asked for with the token sets the token cookie", len(tc), 1, head)
st, head = req(K, path="/join.html?token=wrong", ws=False)
check("a wrong token sets none", "sim_token_" in head, False, head)
st, head = req(K, origin=ko, cookie=tc[0] if tc else "")
check("own page with the token cookie, no token in the URL", st, 101, head)
st, head = req(K, origin=ko, cookie="sim_token_%d=%s" % (K, "0" * 32))
check("a guessed token cookie", st, 403, head)
sys.exit(1 if fails else 0)
PY
n=$(grep -c "refused (403)" "$tmp/open.log")
[ "$n" -eq 10 ] || { echo "FAIL $n refusals logged, expected 10 (8 doors and 2 roles)"; cat "$tmp/open.log"; exit 1; }
grep -q 'WebSocket refused (403): WebSocket from a page of another origin .*Origin "http://evil.example.com"' "$tmp/open.log" ||
    { echo "FAIL the foreign origin's refusal is not logged by name"; cat "$tmp/open.log"; exit 1; }
# The port is taken (by the first console): the second exits 1 at once, naming it.
timeout 10 "$bin/console" --listen 127.0.0.1:$T --bus 127.0.0.1:$B >"$tmp/bind.log" 2>&1
rc=$?
[ $rc -eq 1 ] || { echo "FAIL a console that cannot bind exited $rc, expected 1"; cat "$tmp/bind.log"; exit 1; }
grep -q "console: cannot listen on 127.0.0.1:$T" "$tmp/bind.log" || { echo "FAIL no word of the address"; cat "$tmp/bind.log"; exit 1; }
grep -q "console: http://" "$tmp/bind.log" && { echo "FAIL a console that cannot bind printed its URL"; exit 1; }
echo "ok   a console that cannot bind exits 1: $(grep 'cannot listen' "$tmp/bind.log")"
