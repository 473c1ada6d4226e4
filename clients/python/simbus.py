"""simbus: the simulator's bus from Python, standard library only (docs/protocol.md).

    import simbus
    with simbus.Bus("hmi", subscribe=["vehicle.state"]) as bus:
        for msg in bus.messages():
            bus.publish("hud.text", area="bottom", text="%.0f km/h" % (msg["speed"] * 3.6))

Bus is a module on the dispatcher's NDJSON bus: it says hello (name, token,
subscriptions, lockstep, durable), hands out the messages it receives as dicts,
publishes with src/seq/t filled in, answers sim.tick in lockstep (whatever the tick
callback publishes goes out in the same write as the sim.ack), and reconnects with
backoff when the dispatcher goes away. Its socket has TCP_NODELAY (and TCP_QUICKACK
after reads where there is one), so small messages are never held back.

Control talks to the operator endpoint, which is nanomsg REQ/REP: it speaks the
scalability protocol over TCP itself (the 8-byte SP header, 64-bit big-endian length
prefixes, a 32-bit request id in front of each request), so it needs no nanomsg
binding.

Not thread-safe: use one Bus or Control from one thread.
"""

import collections
import json
import os
import random
import socket
import struct
import time

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 7700
DEFAULT_CONTROL = "tcp://127.0.0.1:7701"
CLOSE_DRAIN_S = 1.0  # the longest close() waits for the dispatcher's end of file
MAX_LINE = 65536  # bytes per message, newline excluded (longer ones close the connection)

__all__ = ["Bus", "Control", "BusError", "CommandError", "DEFAULT_HOST", "DEFAULT_PORT",
           "DEFAULT_CONTROL", "MAX_LINE"]

_RESERVED = ("topic", "src", "seq", "t")
_ENCODE = json.JSONEncoder(separators=(",", ":"), allow_nan=False, ensure_ascii=False).encode


class BusError(Exception):
    """The dispatcher or the control endpoint refused, or could not be reached."""


class CommandError(BusError):
    """The control endpoint answered {"ok": false, "error": ...}; .reply holds it."""

    def __init__(self, reply):
        super().__init__(reply.get("error", "refused"))
        self.reply = reply


def _tune(sock):
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _quickack(sock):
    # Linux leaves quick-ack mode by itself, so this is re-armed after every read:
    # a peer without TCP_NODELAY then never waits for our delayed ACK.
    if _QUICKACK is not None:
        try:
            sock.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)
        except OSError:
            pass


_QUICKACK = getattr(socket, "TCP_QUICKACK", None)


class Bus:
    """One module's connection to the dispatcher.

    name: module name (1..64 bytes). subscribe: topic prefixes to receive (None: every
    topic, []: none). lockstep: answer every sim.tick (run_lockstep does it; "sim.tick"
    is added to subscribe when missing). durable: see docs/protocol.md. reconnect:
    after a lost connection, connect again with backoff (backoff_min doubling to
    backoff_max seconds); messages published meanwhile are dropped and counted in
    .dropped, as in the C client. on_state(bus, welcome): called after every
    (re)connection with the dispatcher.welcome dict, and with None when it is lost.
    hello: further fields for the hello (a dict), for fields this module does not
    know by name.

    Attributes: id (ours, from the welcome), peers {id: name} of the modules joined,
    t (the newest simulation time seen in sim.tick or vehicle.state, the default t of
    publish), seq (the last sequence number used), dropped, reconnects.
    """

    def __init__(self, name, host=DEFAULT_HOST, port=DEFAULT_PORT, subscribe=None,
                 token=None, lockstep=False, durable=False, reconnect=True,
                 backoff_min=0.1, backoff_max=2.0, connect_timeout=10.0, on_state=None,
                 hello=None):
        if not isinstance(name, str) or not 1 <= len(name.encode()) <= 64:
            raise ValueError("Bus: name must be a string of 1 to 64 bytes")
        hello = dict(hello or {})
        for key in ("topic", "name", "subscribe", "lockstep", "durable", "token"):
            if key in hello:
                raise ValueError("Bus: hello field %r has its own parameter" % key)
        subscribe = None if subscribe is None else list(subscribe)
        if lockstep and subscribe is not None and not any("sim.tick".startswith(p) for p in subscribe):
            subscribe.append("sim.tick")
        self.name, self.host, self.port, self.token = name, host, int(port), token
        self.subscribe, self.lockstep, self.durable = subscribe, bool(lockstep), bool(durable)
        self.reconnect, self.backoff_min, self.backoff_max = reconnect, backoff_min, backoff_max
        self.connect_timeout, self.on_state, self.hello = connect_timeout, on_state, hello
        self.id, self.peers, self.t, self.seq = None, {}, 0.0, 0
        self.dropped, self.reconnects = 0, 0
        self._sock, self._buf, self._pos, self._pending = None, b"", 0, collections.deque()
        self._batch, self._closed, self._next_request = None, False, 0
        self._timeout, self._delay = None, backoff_min

    # ---- connection ----

    def connect(self):
        """Connects and says hello; returns the welcome. Retries with backoff for up to
        connect_timeout seconds while the dispatcher is not there (when reconnect is
        on); raises BusError when it refuses (e.g. a wrong token) or cannot be reached."""
        deadline = time.monotonic() + self.connect_timeout
        delay = self.backoff_min
        while True:
            try:
                return self._connect_once()
            except OSError as e:
                if not self.reconnect or time.monotonic() + delay > deadline:
                    raise BusError("cannot reach the dispatcher at %s:%d: %s" % (self.host, self.port, e)) from e
                time.sleep(delay)
                delay = min(delay * 2, self.backoff_max)

    def _connect_once(self):
        sock = socket.create_connection((self.host, self.port), timeout=self.connect_timeout)
        _tune(sock)
        hello = {"topic": "hello", "name": self.name}
        if self.subscribe is not None:
            hello["subscribe"] = self.subscribe
        if self.lockstep:
            hello["lockstep"] = True
        if self.durable:
            hello["durable"] = True
        if self.token is not None:
            hello["token"] = self.token
        # In a simctl run session lockstep and durable clients need the session's secret
        # (docs/protocol.md, "Who may publish what"): given as SIM_BUS_SECRET, as to modules.
        if (self.lockstep or self.durable) and os.environ.get("SIM_BUS_SECRET"):
            hello["secret"] = os.environ["SIM_BUS_SECRET"]
        hello.update(self.hello)
        self._sock, self._buf, self._pos, self._timeout = sock, b"", 0, self.connect_timeout
        try:
            sock.sendall(_ENCODE(hello).encode() + b"\n")
            while True:
                msg = self._read(self.connect_timeout)
                if msg is None:
                    raise BusError("the dispatcher closed the connection before welcoming us")
                topic = msg.get("topic")
                if topic == "dispatcher.welcome":
                    break
                if topic == "dispatcher.error":
                    raise BusError("dispatcher refused hello: %s" % msg.get("error"))
                self._pending.append(msg)
        except BaseException:
            self._drop_socket()
            raise
        sock.settimeout(None)
        self._timeout = None
        self.id = msg.get("id")
        self.peers = {p.get("id"): p.get("name") for p in msg.get("peers", [])}
        if self.on_state:
            self.on_state(self, msg)
        return msg

    def _drop_socket(self):
        if self._sock is not None:
            try:
                self._sock.close()
            finally:
                self._sock = None

    def _lost(self):
        self._drop_socket()
        self.peers = {}
        if self.on_state:
            self.on_state(self, None)

    def _ensure(self, deadline=None):
        """Connected after this, or False: closed, lost with reconnect off, or still
        away at deadline (time.monotonic(); None: keep trying)."""
        if self._sock is not None:
            return True
        if self._closed or not self.reconnect:
            return False
        while not self._closed:
            try:
                self._connect_once()
                self.reconnects += 1
                self._delay = self.backoff_min
                return True
            except OSError:
                pass
            wait = self._delay
            self._delay = min(self._delay * 2, self.backoff_max)
            if deadline is not None:
                wait = min(wait, deadline - time.monotonic())
                if wait <= 0:
                    return False
            time.sleep(wait)
        return False

    @property
    def connected(self):
        return self._sock is not None

    def close(self):
        """Ends the connection gracefully: what was published still reaches the
        dispatcher. Closing a socket with unread data in it sends a reset, and a reset
        can make the dispatcher drop lines it has not read yet (a script that publishes
        and exits at once lost its last ones), so this shuts down the write side and
        reads (and drops) until the dispatcher closes too, at most CLOSE_DRAIN_S."""
        self._closed = True
        sock = self._sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_WR)
                deadline = time.monotonic() + CLOSE_DRAIN_S
                while True:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        break
                    sock.settimeout(left)
                    if not sock.recv(65536):
                        break
            except OSError:  # lost or timed out: nothing more to save
                pass
        self._drop_socket()

    def __enter__(self):
        if self._sock is None:
            self.connect()
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- receiving ----

    def _read(self, timeout):
        """The next message from the socket (a dict), None when the connection ended,
        or raises socket.timeout."""
        sock = self._sock
        while True:
            # _buf[_pos:] is unread: lines are cut by position, so a read holding many
            # messages is not copied once per message.
            nl = self._buf.find(b"\n", self._pos)
            if nl >= 0:
                line, self._pos = self._buf[self._pos:nl], nl + 1
                if not line.strip():
                    continue
                msg = json.loads(line)
                topic = msg.get("topic")
                if topic in ("sim.tick", "vehicle.state"):
                    t = msg.get("t")
                    if isinstance(t, (int, float)):
                        self.t = t
                elif topic == "dispatcher.joined":
                    self.peers[msg.get("id")] = msg.get("name")
                elif topic == "dispatcher.left":
                    self.peers.pop(msg.get("id"), None)
                return msg
            if timeout != self._timeout:
                sock.settimeout(timeout)
                self._timeout = timeout
            chunk = sock.recv(262144)
            if not chunk:
                return None
            _quickack(sock)
            self._buf, self._pos = self._buf[self._pos:] + chunk, 0

    def recv(self, timeout=None):
        """The next message (a dict), or None after timeout seconds (None: wait) or when
        the bus is closed (or lost with reconnect off). Reconnects when lost."""
        if self._pending:
            return self._pending.popleft()
        deadline = None if timeout is None else time.monotonic() + timeout
        while self._ensure(deadline):
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                msg = self._read(left)
            except (socket.timeout, BlockingIOError):
                # BlockingIOError: the deadline had passed (left 0 makes the socket
                # non-blocking): nothing to read is a timeout, not a lost connection
                return None
            except OSError:
                msg = None
            if msg is not None:
                return msg
            self._lost()
        return None

    def messages(self, timeout=None):
        """Iterates over received messages; ends when none came for timeout seconds
        (None: never) or the bus is closed."""
        while True:
            msg = self.recv(timeout)
            if msg is None:
                return
            yield msg

    # ---- publishing ----

    def encode(self, topic, fields=None, t=None, **kw):
        """The line publish would send (bytes, with the newline); advances seq."""
        if not isinstance(topic, str) or not topic or topic.startswith("dispatcher."):
            raise ValueError("publish: topic must be a non-empty string not starting with 'dispatcher.'")
        msg = {"topic": topic, "src": self.name, "seq": self.seq + 1, "t": self.t if t is None else t}
        for extra in (fields, kw):
            if extra:
                for key in _RESERVED:
                    if key in extra:
                        raise ValueError("publish %s: field %r is set by the bus, not the payload" % (topic, key))
                msg.update(extra)
        line = _ENCODE(msg).encode()
        if len(line) > MAX_LINE:
            raise ValueError("publish %s: %d bytes, more than the bus's %d per message" % (topic, len(line), MAX_LINE))
        self.seq += 1
        return line + b"\n"

    def publish(self, topic, fields=None, t=None, **kw):
        """Publishes topic with the payload fields (a dict and/or keywords) after
        topic, src, seq and t (default: self.t). Inside a lockstep tick callback the
        message goes out together with the tick's sim.ack. Returns False when not
        connected (the message is dropped and counted)."""
        line = self.encode(topic, fields, t, **kw)
        if self._batch is not None:
            self._batch.append(line)
            return True
        return self._send(line)

    def _send(self, data):
        if self._sock is None:
            self.dropped += 1
            return False
        try:
            self._sock.sendall(data)
            return True
        except OSError:
            self._lost()
            self.dropped += 1
            return False

    def ack(self, command, ok=True, error=None):
        """Answers a control.<cmd> message (the dict received) with control.ack
        {cmd, id, ok, error}: ok only for what this module did; a refusal says why."""
        topic = command.get("topic", "")
        if not topic.startswith("control.") or topic == "control.ack":
            raise ValueError("ack: %r is not a control command" % topic)
        if not ok and not error:
            raise ValueError("ack: a refusal needs the reason")
        return self.publish("control.ack", cmd=topic[len("control."):], id=command.get("id"), ok=bool(ok),
                            error=None if ok else error)

    # ---- lockstep ----

    def run_lockstep(self, on_tick, on_message=None):
        """Answers every sim.tick until on_tick returns False or the bus is closed.

        on_tick(bus, tick) is called with each sim.tick dict ({n, t, dt, run, paused});
        what it publishes is sent in one write followed by the sim.ack of that tick.
        Other messages go to on_message(bus, msg) when given. Returns the last tick
        answered (None if none)."""
        if not self.lockstep:
            raise BusError("run_lockstep: the Bus was not opened with lockstep=True")
        last = None
        while True:
            msg = self.recv()
            if msg is None:
                return last
            if msg.get("topic") != "sim.tick":
                if on_message:
                    on_message(self, msg)
                continue
            self._batch = batch = []
            try:
                go_on = on_tick(self, msg)
            finally:
                self._batch = None
            batch.append(self.encode("sim.ack", t=msg.get("t"), n=msg.get("n")))
            self._send(b"".join(batch))
            last = msg
            if go_on is False:
                return last

    # ---- request/reply over the bus ----

    def request(self, topic, reply_topic, timeout=5.0, **fields):
        """Publishes topic with a fresh "id" and the fields, and returns the first
        reply_topic message carrying that id (reply_topic must be subscribed). Other
        messages received meanwhile stay queued for recv/messages. Raises BusError
        after timeout seconds without the reply."""
        self._next_request += 1
        rid = "%s-%d-%d" % (self.name, os.getpid(), self._next_request)
        if not self.publish(topic, id=rid, **fields):
            raise BusError("%s: not connected to the dispatcher" % topic)
        deadline = time.monotonic() + timeout
        held = []
        try:
            while True:
                left = deadline - time.monotonic()
                msg = self.recv(left) if left > 0 else None
                if msg is None:
                    raise BusError("%s: no %s with id %s within %g s" % (topic, reply_topic, rid, timeout))
                if msg.get("topic") == reply_topic and msg.get("id") == rid:
                    return msg
                held.append(msg)
        finally:
            self._pending.extend(held)


class Control:
    """A client of the dispatcher's operator endpoint (nanomsg REQ/REP over TCP,
    default tcp://127.0.0.1:7701). request() returns the reply dict; command() raises
    CommandError when the reply says ok:false. token: added to every request."""

    _SP_HEADER = b"\x00SP\x00"
    _REQ, _REP = 48, 49  # NN_REQ, NN_REP

    def __init__(self, url=DEFAULT_CONTROL, token=None, timeout=5.0):
        if not url.startswith("tcp://") or ":" not in url[6:]:
            raise ValueError("Control: url must be tcp://HOST:PORT, not %r" % url)
        host, _, port = url[6:].rpartition(":")
        self.url, self.host, self.port = url, host.strip("[]"), int(port)
        self.token, self.timeout = token, timeout
        self._sock = None
        self._id = random.getrandbits(31)

    def _connect(self):
        sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        try:
            _tune(sock)
            sock.sendall(self._SP_HEADER + struct.pack(">HH", self._REQ, 0))
            peer = self._recv_exact(sock, 8)
            if peer[:4] != self._SP_HEADER or struct.unpack(">H", peer[4:6])[0] != self._REP:
                raise BusError("%s: not a nanomsg REP endpoint (header %r)" % (self.url, peer))
        except BaseException:
            sock.close()
            raise
        self._sock = sock

    @staticmethod
    def _recv_exact(sock, n):
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("connection closed")
            data += chunk
        return data

    def request(self, cmd, **fields):
        """Sends {"cmd": cmd, ...fields} and returns the reply (a dict)."""
        req = dict(fields)
        req["cmd"] = cmd
        if self.token is not None:
            req["token"] = self.token
        body = _ENCODE(req).encode()
        for attempt in (1, 2):  # a kept connection may have gone stale: one fresh try
            try:
                if self._sock is None:
                    self._connect()
                return self._exchange(body)
            except (OSError, ConnectionError) as e:
                self.close()
                if attempt == 2 or isinstance(e, socket.timeout):
                    raise BusError("%s: %s: %s" % (self.url, cmd, e)) from e
        raise AssertionError("unreachable")

    def _exchange(self, body):
        self._id = (self._id + 1) & 0x7FFFFFFF
        rid = self._id | 0x80000000
        payload = struct.pack(">I", rid) + body
        self._sock.settimeout(self.timeout)
        self._sock.sendall(struct.pack(">Q", len(payload)) + payload)
        while True:
            size = struct.unpack(">Q", self._recv_exact(self._sock, 8))[0]
            if size > 64 << 20:
                raise BusError("%s: reply of %d bytes" % (self.url, size))
            msg = self._recv_exact(self._sock, size)
            # The reply starts with the backtrace; its last word (top bit set) is the
            # request id. Replies to an earlier, abandoned request are skipped.
            i = 0
            while i + 4 <= len(msg) and not msg[i] & 0x80:
                i += 4
            if i + 4 > len(msg):
                raise BusError("%s: malformed reply (no request id)" % self.url)
            if struct.unpack(">I", msg[i:i + 4])[0] == rid:
                return json.loads(msg[i + 4:])

    def command(self, cmd, **fields):
        reply = self.request(cmd, **fields)
        if not reply.get("ok"):
            raise CommandError(reply)
        return reply

    def status(self):
        return self.command("status")

    def pause(self):
        return self.command("pause")

    def resume(self):
        return self.command("resume")

    def restart(self, at):
        return self.command("restart", at=at)

    def speed_limit(self, kmh):
        return self.command("speed_limit", kmh=kmh)

    def hud(self, text):
        return self.command("hud", text=text)

    def traffic(self, density=None, freeze=None):
        fields = {k: v for k, v in (("density", density), ("freeze", freeze)) if v is not None}
        return self.command("traffic", **fields)

    def light(self, mode):
        return self.command("light", mode=mode)

    def signal(self, head=None, state=None, controller=None, phase=None):
        """A traffic light: signal(head="north", state="red"|"auto") or
        signal(controller="c1", phase=1) (docs/scenario.md "Traffic lights")."""
        if head is not None:
            return self.command("signal", head=head, state=state)
        return self.command("signal", controller=controller, phase=phase)

    def sound(self, on):
        return self.command("sound", on=bool(on))

    def seek(self, to):
        return self.command("seek", to=to)

    def stop(self):
        return self.command("stop")

    def close(self):
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
