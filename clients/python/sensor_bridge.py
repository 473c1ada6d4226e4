#!/usr/bin/python3
"""sensor_bridge: any sensor that sends lines of numbers over UDP or TCP onto the
simulator's bus as sensor.<name> (docs/instruments.md).

    python3 clients/python/sensor_bridge.py --name ecg --channels ecg:mV,eda:uS \\
        (--udp 127.0.0.1:9000 | --tcp-listen 127.0.0.1:9000 | --tcp-connect HOST:PORT) [--clock ...]

Each UDP datagram, or each line of a TCP stream, is one sample in CSV: the device's
time stamp first (unless --clock arrival), then one value per channel of --channels,
in order ("12.345,0.41,3.2"). Several lines in one datagram are several samples.
--clock says what the time stamp is:
  wall     Unix seconds on the session's clock (a device synchronised by NTP/PTP)
  device   the device's own clock: the bridge maps it onto the wall clock with the
           smallest (arrival - stamp) seen so far (the least-delayed sample), so
           transmission delay is taken out and clock drift follows; the first
           second of samples is held back until that delay is known
  arrival  no time stamp in the line: the sample is stamped when it arrives
  sim      simulation seconds (a device driven by the simulation's clock)
A line that does not parse is counted as dropped and said on stderr (at most once a
second), never fatal. Listening elsewhere than loopback needs --listen-token: each
datagram, and the first line of each TCP connection, must then start with it
("TOKEN," / "TOKEN"). bridge.status goes out once a second.
"""

import argparse
import ipaddress
import math
import os
import selectors
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simbus  # noqa: E402
import simbridge  # noqa: E402


WARMUP_S = 1.0  # --clock device: samples held at the start while the delay is learnt
WARMUP_N = 2000


def parse_addr(text, what):
    host, _, port = text.rpartition(":")
    try:
        return host or "127.0.0.1", int(port)
    except ValueError:
        raise SystemExit("sensor_bridge: %s %r: expected HOST:PORT" % (what, text))


def loopback(host):
    try:
        return ipaddress.ip_address(socket.gethostbyname(host)).is_loopback
    except (OSError, ValueError):
        return False


class Bridge:
    def __init__(self, args):
        self.args = args
        self.channels = []
        for item in args.channels.split(","):
            name, _, unit = item.partition(":")
            if not name:
                raise SystemExit("sensor_bridge: --channels %r: expected NAME[:UNIT],..." % args.channels)
            self.channels.append((name, unit))
        self.topic = "sensor." + args.name
        self.bus = simbus.Bus(args.bus_name or "bridge-" + args.name, host=args.bus_host, port=args.bus_port,
                              token=args.token, subscribe=["control.stop"])
        self.status = simbridge.Status(self.bus, self.bus.name, args.kind, self.topic)
        self.min_delay = None  # --clock device: smallest arrival - stamp seen
        self.warmup = [] if args.clock == "device" else None  # the first samples, held
        self.warmup_start = time.time()
        self.stop = False
        self.last_complaint = 0.0
        self.sent_units = 0.0

    def complain(self, what):
        now = time.monotonic()
        if now - self.last_complaint >= 1.0:
            self.last_complaint = now
            print("sensor_bridge: %s (%d dropped so far)" % (what, self.status.lost), file=sys.stderr)

    def line(self, text, arrival):
        text = text.strip()
        if not text:
            return
        parts = [p.strip() for p in text.split(",")]
        stamped = self.args.clock != "arrival"
        want = len(self.channels) + (1 if stamped else 0)
        try:
            nums = [float(p) for p in parts]
        except ValueError:
            nums = None
        if nums is None or len(nums) != want or not all(math.isfinite(v) for v in nums):
            self.status.sample(False)
            self.complain("line %r: expected %d numbers (%s%s)" % (
                text[:80], want, "time stamp, " if stamped else "", ", ".join(c for c, _ in self.channels)))
            return
        fields = {"values": {c: v for (c, _), v in zip(self.channels, nums[1:] if stamped else nums)}}
        # units once a second: the recorder keeps them per channel
        if arrival - self.sent_units >= 1.0:
            self.sent_units = arrival
            units = {c: u for c, u in self.channels if u}
            if units:
                fields["units"] = units
        clock = self.args.clock
        if clock == "arrival":
            fields["wall"] = arrival
        else:
            stamp = nums[0]
            fields["t_src"] = stamp
            if clock == "wall":
                fields["wall"] = stamp
            elif clock == "sim":
                fields["sim_t"] = stamp
            else:
                delay = arrival - stamp
                if self.min_delay is None or delay < self.min_delay:
                    self.min_delay = delay
                if self.warmup == []:
                    self.warmup_start = arrival
                if self.warmup is not None:
                    # the first samples wait until the smallest delay is known: a device
                    # that started before the bridge read it would map them late
                    self.warmup.append(fields)
                    if arrival - self.warmup_start >= WARMUP_S or len(self.warmup) >= WARMUP_N:
                        self.flush_warmup()
                    return
                fields["wall"] = stamp + self.min_delay
        self.status.sample(self.bus.publish(self.topic, fields))

    def flush_warmup(self):
        held, self.warmup = self.warmup or [], None
        for f in held:
            f["wall"] = f["t_src"] + self.min_delay
            self.status.sample(self.bus.publish(self.topic, f))

    def token_ok(self, text):
        tok = self.args.listen_token
        if tok is None:
            return True, text
        head, sep, rest = text.partition(",")
        return (head.strip() == tok and bool(sep)), rest

    def run(self):
        a = self.args
        sel = selectors.DefaultSelector()
        if a.udp:
            host, port = parse_addr(a.udp, "--udp")
            if not loopback(host) and a.listen_token is None:
                raise SystemExit("sensor_bridge: --udp %s is not loopback: give --listen-token" % a.udp)
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind((host, port))
            sel.register(s, selectors.EVENT_READ, "udp")
        elif a.tcp_listen:
            host, port = parse_addr(a.tcp_listen, "--tcp-listen")
            if not loopback(host) and a.listen_token is None:
                raise SystemExit("sensor_bridge: --tcp-listen %s is not loopback: give --listen-token" % a.tcp_listen)
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((host, port))
            s.listen(4)
            sel.register(s, selectors.EVENT_READ, "accept")
        else:
            host, port = parse_addr(a.tcp_connect, "--tcp-connect")
            s = socket.create_connection((host, port), timeout=a.timeout)
            sel.register(s, selectors.EVENT_READ, ["stream", b"", True])
        self.bus.connect()
        print("sensor_bridge: %s -> %s on %s:%d (clock %s)" % (
            a.udp or a.tcp_listen or a.tcp_connect, self.topic, a.bus_host, a.bus_port, a.clock), file=sys.stderr)
        while not self.stop:
            for key, _ in sel.select(0.1):
                arrival = time.time()
                kind = key.data
                if kind == "udp":
                    data, _ = key.fileobj.recvfrom(65536)
                    text = data.decode("utf-8", "replace")
                    ok, text = self.token_ok(text) if a.listen_token is not None else (True, text)
                    if not ok:
                        self.status.sample(False)
                        self.complain("a datagram without the token")
                        continue
                    for ln in text.splitlines():
                        self.line(ln, arrival)
                elif kind == "accept":
                    conn, _ = key.fileobj.accept()
                    sel.register(conn, selectors.EVENT_READ, ["stream", b"", a.listen_token is None])
                else:
                    st = key.data
                    data = key.fileobj.recv(65536)
                    if not data:
                        sel.unregister(key.fileobj)
                        key.fileobj.close()
                        if a.tcp_connect:
                            self.stop = True
                        continue
                    st[1] += data
                    *lines, st[1] = st[1].split(b"\n")
                    for raw in lines:
                        ln = raw.decode("utf-8", "replace")
                        if not st[2]:
                            st[2] = ln.strip() == a.listen_token
                            if not st[2]:
                                sel.unregister(key.fileobj)
                                key.fileobj.close()
                                self.complain("a TCP connection without the token")
                                break
                            continue
                        self.line(ln, arrival)
            if self.warmup and time.time() - self.warmup_start >= WARMUP_S:
                self.flush_warmup()
            msg = self.bus.recv(0.0005)
            while msg is not None:
                if msg.get("topic") == "control.stop":
                    self.stop = True
                msg = self.bus.recv(0.0005)
            self.status.tick()
        if self.warmup:
            self.flush_warmup()
        self.status.tick(force=True)
        self.bus.close()


def main(argv=None):
    ap = argparse.ArgumentParser(description="Lines of numbers over UDP or TCP onto the simulator's bus as "
                                             "sensor.NAME (docs/instruments.md).")
    ap.add_argument("--name", required=True, help="the sensor's name: the topic is sensor.NAME")
    ap.add_argument("--channels", required=True, help="NAME[:UNIT],... in the order of the line's values")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--udp", metavar="HOST:PORT", help="listen for datagrams")
    src.add_argument("--tcp-listen", metavar="HOST:PORT", help="accept TCP connections sending lines")
    src.add_argument("--tcp-connect", metavar="HOST:PORT", help="connect to a device serving lines")
    ap.add_argument("--clock", choices=("wall", "device", "arrival", "sim"), default="device",
                    help="what the line's time stamp is (default device)")
    ap.add_argument("--listen-token", help="required of senders when listening elsewhere than loopback")
    ap.add_argument("--bus", default="127.0.0.1:7700", help="the dispatcher, HOST:PORT (default %(default)s)")
    ap.add_argument("--bus-name", help="bus name (default bridge-NAME)")
    ap.add_argument("--token", help="the dispatcher's token")
    ap.add_argument("--timeout", type=float, default=5.0)
    args = ap.parse_args(argv)
    args.kind = "udp" if args.udp else "tcp"
    args.bus_host, args.bus_port = parse_addr(args.bus, "--bus")
    bridge = Bridge(args)

    def on_signal(*_):
        bridge.stop = True
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    bridge.run()
    print("sensor_bridge: stopped, %d samples forwarded, %d dropped (%d while the dispatcher was away)" % (
        bridge.status.forwarded, bridge.status.lost, bridge.bus.dropped), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
