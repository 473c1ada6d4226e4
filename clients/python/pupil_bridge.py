#!/usr/bin/python3
"""pupil_bridge: Pupil Core / Pupil Capture's network API onto the simulator's bus
(docs/instruments.md).

    python3 clients/python/pupil_bridge.py [--pupil tcp://127.0.0.1:50020] [--bus 127.0.0.1:7700]

It asks Pupil Remote (a ZeroMQ REQ socket, by default port 50020) for the IPC
backbone's SUB_PORT, subscribes to "gaze." (and to "notify.calibration." for the
calibration's age), and publishes each gaze datum (msgpack: confidence, norm_pos,
gaze_point_3d, timestamp) as gaze.sample:

  valid       confidence >= --min-confidence (default 0.6, Pupil's own threshold)
  confidence  Pupil's
  yaw_deg,    the direction of gaze_point_3d (Pupil's world camera: x right, y down,
  pitch_deg   z forward) as yaw left + and pitch up +, plus --yaw-offset and
              --pitch-offset: the world camera's direction in the vehicle frame (with a
              head-mounted camera, the driver's head pose when looking at the road
              ahead; --zero-at-start measures it from the first second of gaze)
  t_src       Pupil's timestamp (its own clock)
  wall        the same moment on the session's wall clock: Pupil's clock is measured
              against the wall clock with Pupil Remote's "t" command at start and
              every 10 s
  sim_t       with --clock sim instead of wall: Pupil's clock IS simulation time (set
              with Pupil Remote's "T" command from a lockstep rig); samples land
              exactly

With --surfaces it also subscribes to Pupil's surface tracker ("surfaces.<name>": name,
gaze_on_surfaces [{norm_pos, on_surf, confidence, timestamp, base_data}, ...], one
message per world frame with the gaze mapped since the previous one) and names the
screen a gaze datum lands on: each gaze datum is held back --surface-hold seconds
(default 0.25) for its surface verdict; one that lands on a surface (on_surf, valid)
goes out with area and target = the surface's area of interest (--surface
"Surface 1=center_display" maps Pupil's surface name onto the vehicle file's area; an
unmapped surface keeps its own name), its direction as above, and surface_x, surface_y
= norm_pos (the point on the screen, 0..1 from its bottom left corner, as Pupil gives
it). A surface datum whose gaze datum never came (the gaze topic lost, or already sent)
goes out alone, with the area and no direction.

bridge.status (name, connected, rate_hz, dropped, calibration_age_s) goes out once a
second. It stops on SIGINT/SIGTERM or when the session's control.stop comes.
Needs Debian's python3-zmq and python3-msgpack (scripts/deps.sh installs them).
"""

import argparse
import math
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simbus  # noqa: E402
import simbridge  # noqa: E402

try:
    import msgpack
    import zmq
except ImportError as e:  # pragma: no cover - said plainly, with the fix
    sys.exit("pupil_bridge: %s: install Debian's python3-zmq and python3-msgpack "
             "(sh scripts/deps.sh as root does) and run it with /usr/bin/python3" % e)

RESYNC_S = 10.0


def direction(p):
    """gaze_point_3d (world camera: x right, y down, z forward) as (yaw left +, pitch up +)
    in degrees; None for a point that is not a direction."""
    try:
        x, y, z = (float(v) for v in p)
    except (TypeError, ValueError):
        return None
    if not all(math.isfinite(v) for v in (x, y, z)) or (x == 0 and y == 0 and z == 0):
        return None
    yaw = math.degrees(math.atan2(-x, z))
    pitch = math.degrees(math.atan2(-y, math.hypot(x, z)))
    return yaw, pitch


def wrap180(a):
    return (a + 180.0) % 360.0 - 180.0


class Bridge:
    def __init__(self, args):
        self.args = args
        self.ctx = zmq.Context.instance()
        self.remote = self.ctx.socket(zmq.REQ)
        self.remote.setsockopt(zmq.RCVTIMEO, int(args.timeout * 1000))
        self.remote.setsockopt(zmq.LINGER, 0)
        self.remote.connect(args.pupil)
        host = args.pupil.rsplit(":", 1)[0]
        sub_port = self.ask("SUB_PORT")
        try:
            int(sub_port)
        except ValueError:
            raise SystemExit("pupil_bridge: Pupil Remote at %s answered SUB_PORT with %r, expected a port number"
                             % (args.pupil, sub_port))
        self.sub = self.ctx.socket(zmq.SUB)
        self.sub.setsockopt(zmq.LINGER, 0)
        self.sub.connect("%s:%s" % (host, sub_port))
        self.sub.setsockopt_string(zmq.SUBSCRIBE, "gaze.")
        self.sub.setsockopt_string(zmq.SUBSCRIBE, "notify.calibration.")
        if args.surfaces:
            self.sub.setsockopt_string(zmq.SUBSCRIBE, "surfaces.")
        self.pending = {}  # --surfaces: Pupil timestamp -> [fields, monotonic arrival]
        self.clock = simbridge.ClockOffset()
        if args.clock == "wall":
            self.clock.measure(lambda: float(self.ask("t")))
        self.bus = simbus.Bus(args.name, host=args.bus_host, port=args.bus_port, token=args.token,
                              subscribe=["control.stop"])
        self.bus.connect()
        self.status = simbridge.Status(self.bus, args.name, "pupil", "gaze.sample")
        self.yaw0, self.pitch0 = args.yaw_offset, args.pitch_offset
        self.zeroing = [] if args.zero_at_start else None
        self.zero_until = None
        self.stop = False
        self.bad = 0

    def ask(self, cmd):
        try:
            self.remote.send_string(cmd)
            return self.remote.recv_string()
        except zmq.error.Again:
            raise SystemExit("pupil_bridge: Pupil Remote at %s did not answer %r within %g s: is Pupil Capture "
                             "running with its Network API plugin on that port?"
                             % (self.args.pupil, cmd, self.args.timeout))

    def gaze(self, topic, d):
        ts = d.get("timestamp")
        conf = d.get("confidence")
        if not isinstance(ts, (int, float)) or not isinstance(conf, (int, float)):
            self.bad += 1
            self.status.sample(False)
            return
        conf = min(1.0, max(0.0, float(conf)))
        fields = {"valid": conf >= self.args.min_confidence, "confidence": conf, "t_src": float(ts)}
        if self.args.clock == "sim":
            fields["sim_t"] = float(ts)
        else:
            fields["wall"] = self.clock.wall(float(ts))
        dirn = direction(d.get("gaze_point_3d"))
        if dirn is not None:
            yaw, pitch = dirn
            if self.zeroing is not None and fields["valid"]:
                # the first second of confident gaze is the road ahead: its median zeroes
                now = time.monotonic()
                self.zero_until = self.zero_until or now + 1.0
                self.zeroing.append((yaw, pitch))
                if now >= self.zero_until:
                    ys = sorted(p[0] for p in self.zeroing)
                    ps = sorted(p[1] for p in self.zeroing)
                    self.yaw0 -= ys[len(ys) // 2]
                    self.pitch0 -= ps[len(ps) // 2]
                    self.zeroing = None
            fields["yaw_deg"] = wrap180(yaw + self.yaw0)
            fields["pitch_deg"] = max(-90.0, min(90.0, pitch + self.pitch0))
        elif fields["valid"]:
            fields["valid"] = False  # no direction: nothing to say where the driver looks
        if self.args.surfaces:
            self.pending[float(ts)] = [fields, time.monotonic()]
        else:
            self.publish(fields)

    def publish(self, fields):
        self.status.sample(self.bus.publish("gaze.sample", fields))

    def flush(self, everything=False):
        """Sends the held gaze datums whose surface verdict had its time (all at the end)."""
        if not self.pending:
            return
        due = time.monotonic() - self.args.surface_hold
        for ts in sorted(self.pending):
            fields, arrived = self.pending[ts]
            if not everything and arrived > due:
                break
            del self.pending[ts]
            self.publish(fields)

    def surface(self, topic, d):
        """A surface tracker message: the screen each of its gaze datums landed on."""
        name = d.get("name")
        if not isinstance(name, str) or not name:
            name = topic[len("surfaces."):]
        area = self.args.surface_map.get(name, name)[:31]
        on = d.get("gaze_on_surfaces")
        if not isinstance(on, (list, tuple)):
            self.bad += 1
            return
        for g in on:
            if not isinstance(g, dict) or g.get("on_surf") is not True:
                continue
            ts, pos = g.get("timestamp"), g.get("norm_pos")
            try:
                x, y = (float(v) for v in pos)
                ts = float(ts)
            except (TypeError, ValueError):
                self.bad += 1
                continue
            held = self.pending.get(ts)
            if held is not None:
                fields = held[0]
                if not fields["valid"] or "area" in fields:
                    continue  # a doubtful datum names no screen; the first surface wins
            else:
                conf = g.get("confidence")
                conf = min(1.0, max(0.0, float(conf))) if isinstance(conf, (int, float)) else None
                valid = conf is None or conf >= self.args.min_confidence
                if not valid:
                    continue
                fields = {"valid": True, "t_src": ts}
                if conf is not None:
                    fields["confidence"] = conf
                if self.args.clock == "sim":
                    fields["sim_t"] = ts
                else:
                    fields["wall"] = self.clock.wall(ts)
            fields["area"] = area
            fields["target"] = area
            fields["surface_x"], fields["surface_y"] = x, y
            if held is None:
                self.publish(fields)

    def notify(self, topic, d):
        if topic.startswith("notify.calibration.successful"):
            ts = d.get("timestamp")
            wall = self.clock.wall(float(ts)) if isinstance(ts, (int, float)) and self.args.clock == "wall" else None
            self.status.calibrated_at = wall if wall is not None else time.time()

    def run(self):
        poller = zmq.Poller()
        poller.register(self.sub, zmq.POLLIN)
        next_sync = time.monotonic() + RESYNC_S
        while not self.stop:
            for sock, _ in poller.poll(100):
                while True:
                    try:
                        frames = sock.recv_multipart(zmq.NOBLOCK)
                    except zmq.error.Again:
                        break
                    if len(frames) < 2:
                        self.bad += 1
                        continue
                    topic = frames[0].decode("utf-8", "replace")
                    try:
                        d = msgpack.unpackb(frames[1], raw=False)
                    except Exception:  # a corrupt payload is counted, never fatal
                        self.bad += 1
                        self.status.sample(False)
                        continue
                    if not isinstance(d, dict):
                        self.bad += 1
                        continue
                    if topic.startswith("gaze."):
                        self.gaze(topic, d)
                    elif topic.startswith("notify."):
                        self.notify(topic, d)
                    elif topic.startswith("surfaces."):
                        self.surface(topic, d)
            self.flush()
            msg = self.bus.recv(0.0005)
            while msg is not None:
                if msg.get("topic") == "control.stop":
                    self.stop = True
                msg = self.bus.recv(0.0005)
            if self.args.clock == "wall" and time.monotonic() >= next_sync:
                self.clock.measure(lambda: float(self.ask("t")), tries=3)
                next_sync = time.monotonic() + RESYNC_S
            self.status.tick()
        self.flush(everything=True)
        self.status.tick(force=True)
        self.bus.close()


def main(argv=None):
    ap = argparse.ArgumentParser(description="Pupil Core / Pupil Capture gaze onto the simulator's bus "
                                             "as gaze.sample (docs/instruments.md).")
    ap.add_argument("--pupil", default="tcp://127.0.0.1:50020", help="Pupil Remote's address (default %(default)s)")
    ap.add_argument("--bus", default="127.0.0.1:7700", help="the dispatcher, HOST:PORT (default %(default)s)")
    ap.add_argument("--token", help="the dispatcher's token")
    ap.add_argument("--name", default="pupil", help="bus name, also the gaze rows' source (default %(default)s)")
    ap.add_argument("--clock", choices=("wall", "sim"), default="wall",
                    help="Pupil's clock: measured against the wall clock (default), or simulation time")
    ap.add_argument("--min-confidence", type=float, default=0.6, help="valid from this confidence on (default 0.6)")
    ap.add_argument("--yaw-offset", type=float, default=0.0, help="degrees added to yaw (left +)")
    ap.add_argument("--pitch-offset", type=float, default=0.0, help="degrees added to pitch (up +)")
    ap.add_argument("--zero-at-start", action="store_true",
                    help="take the first second of confident gaze as straight ahead (the road)")
    ap.add_argument("--surfaces", action="store_true",
                    help="name the screen a gaze lands on from Pupil's surface tracker (surfaces.<name>)")
    ap.add_argument("--surface", action="append", default=[], metavar="SURFACE=AREA",
                    help="Pupil's surface SURFACE is the vehicle file's area AREA (repeatable; default: same name)")
    ap.add_argument("--surface-hold", type=float, default=0.25,
                    help="seconds a gaze datum waits for its surface verdict with --surfaces (default 0.25)")
    ap.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for Pupil Remote (default 5)")
    args = ap.parse_args(argv)
    host, _, port = args.bus.rpartition(":")
    try:
        args.bus_host, args.bus_port = host or "127.0.0.1", int(port)
    except ValueError:
        ap.error("--bus %r: expected HOST:PORT" % args.bus)
    args.surface_map = {}
    for m in args.surface:
        name, eq, area = m.rpartition("=")
        if not eq or not name or not area:
            ap.error("--surface %r: expected SURFACE=AREA, e.g. \"Surface 1=center_display\"" % m)
        args.surface_map[name] = area
    if args.surface and not args.surfaces:
        ap.error("--surface maps surfaces: give --surfaces too")
    if not 0 <= args.surface_hold <= 5:
        ap.error("--surface-hold %g: expected 0..5 s" % args.surface_hold)
    if not 0 <= args.min_confidence <= 1:
        ap.error("--min-confidence %g: expected 0..1" % args.min_confidence)
    bridge = Bridge(args)

    def on_signal(*_):
        bridge.stop = True
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    print("pupil_bridge: %s -> gaze.sample on %s (clock %s%s)" % (
        args.pupil, args.bus, args.clock,
        ", offset %.6f s, known to %.1f ms" % (bridge.clock.offset, bridge.clock.delay * 500)
        if bridge.clock.offset is not None else ""), file=sys.stderr)
    bridge.run()
    print("pupil_bridge: stopped, %d samples forwarded, %d lost (%d while the dispatcher was away, e.g. after the "
          "session ended), %d unreadable" % (bridge.status.forwarded, bridge.status.lost, bridge.bus.dropped,
                                             bridge.bad), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
