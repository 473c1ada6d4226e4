"""Tests of clients/python/simbus.py and its examples against real sessions:
bin/dispatcher, bin/physics-node and bin/input-node (scripted driver) on loopback,
in lockstep. Run by tests/scripts/test_pyclient.sh (make test).

Everything waits for events with deadlines; the deadlines are generous and only end
a test that would otherwise hang."""
import json
import math
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

ROOT = os.environ.get("SIM_ROOT") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BIN = os.environ.get("SIM_BIN") or os.path.join(ROOT, "bin")
EXAMPLES = os.path.join(ROOT, "clients", "python", "examples")
SCENARIO = os.path.join(ROOT, "scenarios", "motorway.json")
TOWN = os.path.join(ROOT, "scenarios", "town.json")
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
import simbus  # noqa: E402

DEADLINE = 120.0  # seconds; a 60 s lockstep drive takes about 2 s


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, proc, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError("dispatcher exited with %s before listening" % proc.returncode)
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.02)
    raise AssertionError("dispatcher not listening on %d within %g s" % (port, timeout))


def example(name, *args):
    return [sys.executable, os.path.join(EXAMPLES, name)] + [str(a) for a in args]


class Session:
    """A dispatcher, and with participants given, physics-node and the scripted
    input-node in lockstep, the clock held until those participants have joined."""

    def __init__(self, participants=None, token=None, scenario=SCENARIO):
        self.port, self.cport = free_port(), free_port()
        self.bus = "127.0.0.1:%d" % self.port
        self.control = "tcp://127.0.0.1:%d" % self.cport
        self.token = token
        self.procs = []
        extra = ["--token", token] if token else []
        self.dispatcher = self.spawn([os.path.join(BIN, "dispatcher"), "--listen", self.bus,
                                      "--control", self.control] + extra)
        wait_port(self.port, self.dispatcher)
        if participants is not None:
            self.spawn([os.path.join(BIN, "physics-node"), "--bus", self.bus, "--lockstep",
                        "--scenario", scenario, "--wait-for", ",".join(["input"] + participants)] + extra)
            self.spawn([os.path.join(BIN, "input-node"), "--bus", self.bus, "--driver", "script",
                        "--lockstep", "--scenario", scenario] + extra)

    def spawn(self, argv, **kw):
        p = subprocess.Popen(argv, stdout=kw.pop("stdout", subprocess.DEVNULL), **kw)
        self.procs.append(p)
        return p

    def stop(self):
        """Stops everything still running; returns [(argv0, status)] of those that
        did not exit with 0 (a sanitizer's report, a crash, a hang)."""
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        bad = []
        for p in self.procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            if p.returncode != 0:
                bad.append((os.path.basename(p.args[1] if p.args[0] == sys.executable else p.args[0]), p.returncode))
        return bad


class SessionTest(unittest.TestCase):
    def session(self, *args, **kw):
        s = Session(*args, **kw)
        self.addCleanup(lambda: self.assertEqual(s.stop(), [], "exit statuses"))
        return s

    def bus(self, session, name, **kw):
        b = simbus.Bus(name, port=session.port, token=session.token, **kw)
        b.connect()
        self.addCleanup(b.close)
        return b


class Encoding(unittest.TestCase):
    def test_publish_line_is_exact(self):
        b = simbus.Bus("hmi")
        self.assertEqual(b.encode("hud.text", t=1.5, area="top", text="87 km/h"),
                         b'{"topic":"hud.text","src":"hmi","seq":1,"t":1.5,"area":"top","text":"87 km/h"}\n')
        self.assertEqual(b.encode("x.y", {"a": [1, 2]}, t=0), b'{"topic":"x.y","src":"hmi","seq":2,"t":0,"a":[1,2]}\n')

    def test_refuses_what_the_bus_would_refuse(self):
        b = simbus.Bus("m")
        with self.assertRaisesRegex(ValueError, "field 'seq' is set by the bus"):
            b.encode("x.y", seq=3)
        with self.assertRaisesRegex(ValueError, "more than the bus's 65536"):
            b.encode("x.y", blob="x" * 65536)
        with self.assertRaisesRegex(ValueError, "dispatcher."):
            b.encode("dispatcher.welcome")
        with self.assertRaises(ValueError):
            b.encode("x.y", v=float("nan"))
        self.assertEqual(b.seq, 0)

    def test_hello_fields(self):
        with self.assertRaisesRegex(ValueError, "hello field 'name' has its own parameter"):
            simbus.Bus("m", hello={"name": "other"})
        self.assertEqual(simbus.Bus("m", hello={"x": [1]}).hello, {"x": [1]})

    def test_lockstep_adds_sim_tick(self):
        self.assertEqual(simbus.Bus("m", lockstep=True, subscribe=["vehicle.state"]).subscribe,
                         ["vehicle.state", "sim.tick"])
        self.assertIsNone(simbus.Bus("m", lockstep=True).subscribe)


class Lockstep(SessionTest):
    def test_naive_participant_completes_a_60_s_drive(self):
        # The plain-socket participant of docs/protocol.md: two writes per tick and no
        # socket options. Without the dispatcher's quick ACKs each tick waited ~40 ms
        # (60 s took ~4 min); the wall time is recorded by bench_lockstep, here the
        # session must just reach t = 60 s within the generous deadline.
        s = self.session(["naive"])
        out = subprocess.run(example("naive_lockstep.py", s.bus, 60), capture_output=True, text=True,
                             timeout=DEADLINE)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertRegex(out.stdout, r"^naive: t=60\.00 s ticks=6001 wall=")

    def test_example_participant_state_arrives_before_its_ack(self):
        s = self.session(["odometer", "checker"])
        odo = s.spawn(example("lockstep_participant.py", "--bus", s.bus, "--until", 60), stdout=subprocess.PIPE)
        checker = self.bus(s, "checker", lockstep=True, subscribe=["sim.tick", "vehicle.state", "odometer.state"])
        seen = {"odo_t": None, "prev_t": None, "late": [], "pos": None, "path": 0.0, "odo": None}

        def on_message(bus, msg):
            if msg["topic"] == "odometer.state" and msg["src"] == "odometer":
                seen["odo_t"], seen["odo"] = msg["t"], msg
            elif msg["topic"] == "vehicle.state" and msg["t"] <= 60:
                if seen["pos"] is not None:
                    seen["path"] += math.dist(seen["pos"][:2], msg["pos"][:2])
                seen["pos"] = msg["pos"]

        def on_tick(bus, tick):
            # Tick n+1 exists only after the odometer's ack of tick n, which followed
            # its odometer.state of tick n in the same write.
            if seen["prev_t"] is not None and seen["odo_t"] != seen["prev_t"]:
                seen["late"].append((tick["n"], seen["odo_t"], seen["prev_t"]))
            seen["prev_t"] = tick["t"]
            return tick["t"] < 60 - 1e-9

        last = checker.run_lockstep(on_tick, on_message)
        self.assertEqual(last["t"], 60)
        self.assertEqual(seen["late"], [])
        out, _ = odo.communicate(timeout=DEADLINE)
        m = re.search(rb"odometer: t=60\.00 s ticks=6001 distance=([0-9.]+) m", out)
        self.assertIsNotNone(m, out)
        # The odometer's integral of the speed matches the path of the car's positions.
        self.assertGreater(seen["path"], 500)
        self.assertAlmostEqual(float(m.group(1)) / seen["path"], 1.0, delta=0.01, msg=seen["path"])
        self.assertEqual(list(seen["odo"])[:4], ["topic", "src", "seq", "t"])


class Hmi(SessionTest):
    def test_speed_and_warning_on_the_hud(self):
        s = self.session(["hmi", "checker"])
        s.spawn(example("hmi_speed.py", "--bus", s.bus, "--limit-kmh", 50))
        checker = self.bus(s, "checker", lockstep=True, subscribe=["sim.tick", "vehicle.state", "hud.text"])
        shown_speeds, tops, centers, bad = set(), [], [], []

        def on_message(bus, msg):
            if msg["topic"] == "vehicle.state":
                shown_speeds.add("%.0f km/h" % (msg["speed"] * 3.6))
            elif msg["topic"] == "hud.text":
                if msg["src"] != "hmi" or list(msg)[:6] != ["topic", "src", "seq", "t", "area", "text"]:
                    bad.append(msg)
                elif msg["area"] == "bottom":
                    tops.append(msg)
                    if msg["text"] not in shown_speeds:  # every shown speed was a real one
                        bad.append(msg)
                else:
                    centers.append(msg)

        def on_tick(bus, tick):
            return not (len(tops) >= 10 and centers) and tick["t"] < 60

        checker.run_lockstep(on_tick, on_message)
        self.assertEqual(bad, [])
        self.assertGreaterEqual(len(tops), 10)
        self.assertEqual([(c["area"], c["text"], c["color"]) for c in centers],
                         [("center", "Slow down", [1.0, 0.2, 0.1])])
        self.assertGreater(float(tops[-1]["text"].split()[0]), 50)
        seqs = [m["seq"] for m in tops]
        self.assertEqual(seqs, sorted(seqs))


class Control(SessionTest):
    def test_commands_through_the_endpoint(self):
        s = self.session()
        watcher = self.bus(s, "watcher", subscribe=["control."], hello={"acts_on": ["hud"]})
        seen = []

        def act():
            # The module that shows HUD text acts on control.hud and acknowledges it;
            # the endpoint replies once every module that declared acts_on has.
            msg = watcher.recv(10)
            seen.append(msg)
            if msg is not None:
                watcher.ack(msg)

        with simbus.Control(s.control) as ctl:
            status = ctl.status()
            self.assertEqual([(m["name"], m["acts_on"]) for m in status["modules"]], [("watcher", ["hud"])])
            actor = threading.Thread(target=act)
            actor.start()
            reply = ctl.hud("Turn left")
            actor.join(10)
            self.assertEqual((reply["ok"], reply["cmd"], reply["acted"]), (True, "hud", ["watcher"]))
            with self.assertRaisesRegex(simbus.CommandError, "no module acts on light"):
                ctl.light("night")
            with self.assertRaisesRegex(simbus.CommandError, 'unknown command "bogus"'):
                ctl.command("bogus")
            self.assertIs(ctl.request("speed_limit", kmh=-5)["ok"], False)
        self.assertEqual([(m["topic"], m["src"], m["text"]) for m in seen], [("control.hud", "dispatcher", "Turn left")])
        with self.assertRaisesRegex(ValueError, "not a control command"):
            watcher.ack({"topic": "vehicle.state"})
        out = subprocess.run(example("operator.py", "--control", s.control, "status"), capture_output=True,
                             text=True, timeout=DEADLINE)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn('"ok": true', out.stdout)

    def test_token(self):
        s = self.session(token="s3cret")
        with self.assertRaisesRegex(simbus.BusError, "token"):
            simbus.Bus("intruder", port=s.port, reconnect=False).connect()
        self.bus(s, "insider")
        with simbus.Control(s.control) as ctl:
            self.assertRegex(ctl.request("status")["error"], "token")
        with simbus.Control(s.control, token="s3cret") as ctl:
            self.assertEqual([m["name"] for m in ctl.status()["modules"]], ["insider"])


class Context(SessionTest):
    def start_context(self, s):
        """context-server on the town scenario, waited for until it has joined."""
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        watcher = self.bus(s, "context-watch", subscribe=[])
        s.spawn([os.path.join(BIN, "context-server"), "--scenario", TOWN, "--db", os.path.join(tmp, "context.db"),
                 "--bus", s.bus])
        deadline = time.monotonic() + DEADLINE
        while "context" not in watcher.peers.values():
            self.assertLess(time.monotonic(), deadline, "context-server did not join")
            watcher.recv(1)

    def query(self, s, *args):
        return subprocess.run(example("context_query.py", "--bus", s.bus, *args), capture_output=True, text=True,
                              timeout=DEADLINE)

    def test_nearest_fuel_station_to_a_point(self):
        s = self.session()
        self.start_context(s)
        out = self.query(s, "--x", 30, "--y", -1.5, "--category", "fuel", "--limit", 1)
        self.assertEqual(out.returncode, 0, out.stderr)
        # fuel_east at (309, 70) in scenarios/town.json: hypot(279, 71.5) = 288.02 m
        self.assertEqual(out.stdout, "fuel_east\tfuel\t288.0 m\tFuel station Ost\n")
        out = self.query(s, "--x", 30, "--y", -1.5, "--radius", 0)
        self.assertEqual((out.returncode, out.stdout), (1, ""))
        self.assertIn("refused: context.request: radius", out.stderr)

    def test_nearest_to_the_ego_car_in_a_session(self):
        s = self.session(["checker"], scenario=TOWN)
        self.start_context(s)
        checker = self.bus(s, "checker", lockstep=True, subscribe=["sim.tick"])
        # physics publishes vehicle.state before each sim.tick, and the dispatcher keeps
        # the order on the context server's connection: a request sent after tick 1
        # reaches it after the ego's position.
        checker.run_lockstep(lambda bus, tick: tick["n"] < 1)
        checker.close()
        out = self.query(s, "--radius", 100000, "--limit", 50)
        self.assertEqual(out.returncode, 0, out.stderr)
        rows = [line.split("\t") for line in out.stdout.splitlines()]
        with open(TOWN) as f:
            pois = sorted(p["id"] for p in json.load(f)["pois"])
        self.assertEqual(sorted(r[0] for r in rows), pois)  # all ten within 100 km, each once
        dists = [float(r[2].split()[0]) for r in rows]
        self.assertEqual(dists, sorted(dists))


class Streaming(SessionTest):
    def test_a_burst_arrives_whole_and_in_order(self):
        # Many messages per read, lines split across reads: every one arrives, once.
        # 5000 x ~400 bytes stays below the dispatcher's 4 MiB queue bound while the
        # listener is not yet reading.
        s = self.session()
        listener = self.bus(s, "listener", subscribe=["py."])
        talker = self.bus(s, "talker", subscribe=[])
        pad = "x" * 300
        for i in range(5000):
            self.assertTrue(talker.publish("py.burst", i=i, pad=pad, t=i * 0.01))
        got = []
        while len(got) < 5000:
            msg = listener.recv(10)
            self.assertIsNotNone(msg, "only %d of 5000 arrived" % len(got))
            if msg["topic"] == "py.burst":  # dispatcher.joined comes to everyone
                got.append((msg["seq"], msg["i"]))
        self.assertEqual(got, [(i + 1, i) for i in range(5000)])
        self.assertEqual(talker.dropped, 0)


    def test_request_returns_the_matching_reply_and_keeps_the_rest(self):
        s = self.session()
        asker = self.bus(s, "asker", subscribe=["py.reply", "py.news"])
        answerer = self.bus(s, "answerer", subscribe=["py.request"])

        def answer():
            msg = answerer.recv(10)
            while msg is not None and msg["topic"] != "py.request":
                msg = answerer.recv(10)
            answerer.publish("py.news", n=1)
            answerer.publish("py.reply", id="someone-else", ok=False)
            answerer.publish("py.reply", id=msg["id"], ok=True, sum=msg["a"] + msg["b"])
            answerer.publish("py.news", n=2)

        worker = threading.Thread(target=answer)
        worker.start()
        reply = asker.request("py.request", "py.reply", a=2, b=3)
        worker.join(10)
        self.assertEqual((reply["ok"], reply["sum"], reply["src"]), (True, 5, "answerer"))
        rest = [(m["topic"], m.get("n", m.get("id"))) for m in asker.messages(timeout=1)
                if m["topic"].startswith("py.")]
        self.assertEqual(rest, [("py.news", 1), ("py.reply", "someone-else"), ("py.news", 2)])
        with self.assertRaisesRegex(simbus.BusError, "no py.reply with id"):
            asker.request("py.request", "py.reply", timeout=0.2)


    def test_close_right_after_publishing_loses_nothing(self):
        # A script that publishes and closes at once while messages keep coming in:
        # closing with unread data would reset the connection, and the dispatcher
        # could then drop marks it had not read. Each marker's marks come to the tap
        # before its dispatcher.left, so the tap counts them without waiting on time.
        s = self.session()
        tap = self.bus(s, "tap", subscribe=["log.mark", "dispatcher.left"])
        noise = self.bus(s, "noise", subscribe=[])
        stop = threading.Event()

        def stream():
            while not stop.is_set():
                noise.publish("py.noise", pad="x" * 200)

        worker = threading.Thread(target=stream)
        worker.start()
        self.addCleanup(worker.join)
        self.addCleanup(stop.set)
        marks = 2000
        for round_ in range(5):
            name = "marker%d" % round_
            marker = simbus.Bus(name, port=s.port, subscribe=["py.noise"])
            marker.connect()
            for i in range(marks):
                marker.publish("log.mark", name="m%d" % i)
            marker.close()
            got = []
            while True:
                msg = tap.recv(30)
                self.assertIsNotNone(msg, "%s: no dispatcher.left" % name)
                if msg["topic"] == "log.mark" and msg["src"] == name:
                    got.append(msg["name"])
                elif msg["topic"] == "dispatcher.left" and msg.get("name") == name:
                    break
            self.assertEqual(len(got), marks, "%s: %d of %d marks arrived" % (name, len(got), marks))
            self.assertEqual(got, ["m%d" % i for i in range(marks)])
            self.assertEqual(marker.dropped, 0)


class Reconnect(SessionTest):
    def test_back_after_the_dispatcher_restarts(self):
        s = self.session()
        states = []
        listener = self.bus(s, "listener", subscribe=["py."], backoff_min=0.05, backoff_max=0.2,
                            on_state=lambda bus, welcome: states.append(welcome is not None))
        s.dispatcher.send_signal(signal.SIGTERM)
        s.dispatcher.wait(10)
        self.assertIsNone(listener.recv(0.5))  # notices the loss, keeps trying
        self.assertEqual(states, [True, False])
        s.dispatcher = s.spawn([os.path.join(BIN, "dispatcher"), "--listen", s.bus, "--control", s.control])
        wait_port(s.port, s.dispatcher)
        talker = self.bus(s, "talker", subscribe=[])
        deadline = time.monotonic() + 30
        got = None
        while got is None and time.monotonic() < deadline:
            talker.publish("py.ping", n=1)
            msg = listener.recv(0.2)
            if msg and msg["topic"] == "py.ping":
                got = msg
        self.assertIsNotNone(got, "no py.ping after the dispatcher came back")
        self.assertEqual((got["src"], listener.reconnects, states), ("talker", 1, [True, False, True]))
        self.assertIn("talker", listener.peers.values())


class DrtTactile(SessionTest):
    """clients/python/examples/drt_tactile.py drives a vibrator on a serial line: here a
    pseudo-terminal, read on its other side. In a session of scenarios/drt.json (task-node
    and the scripted driver's responses) every tactile stimulus is "1" at its onset and
    "0" at its end, nothing for the visual and auditory ones."""

    def test_vibrator_follows_the_tactile_stimuli(self):
        scenario = os.path.join(ROOT, "scenarios", "drt.json")
        s = self.session(["task", "drt-tactile", "checker"], scenario=scenario)
        s.spawn([os.path.join(BIN, "task-node"), "--bus", s.bus, "--lockstep", "--scenario", scenario])
        master, slave = os.openpty()
        self.addCleanup(os.close, master)
        s.spawn(example("drt_tactile.py", "--bus", s.bus, "--device", os.ttyname(slave)))
        os.close(slave)
        checker = self.bus(s, "checker", lockstep=True, subscribe=["sim.tick", "drt.stimulus"])
        seen = []

        def on_message(bus, msg):
            if msg["topic"] == "drt.stimulus":
                seen.append((msg["modality"], msg["id"], msg["on"]))

        checker.run_lockstep(lambda bus, tick: tick["t"] < 40, on_message)
        tactile = [on for modality, _, on in seen if modality == "tactile"]
        self.assertGreaterEqual(tactile.count(True), 2, seen)
        self.assertGreater(len(seen), len(tactile))  # visual and auditory ones too
        want = b"".join(b"1" if on else b"0" for on in tactile)
        got, deadline = b"", time.monotonic() + 30
        while len(got) < len(want) and time.monotonic() < deadline:
            if select.select([master], [], [], 0.2)[0]:
                got += os.read(master, 64)
        self.assertEqual(got, want)


if __name__ == "__main__":
    unittest.main(verbosity=2)
