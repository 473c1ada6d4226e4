#!/usr/bin/env python3
"""A lockstep participant: an odometer that integrates the ego car's speed.

Every sim.tick it publishes odometer.state {distance (m), speed (m/s)} for that tick
and acknowledges the tick in the same write, so the simulation never steps ahead of
it. With --until S it stops at simulated time S, prints what it saw and leaves (the
session then runs on without waiting for it).

    python3 clients/python/examples/lockstep_participant.py --bus 127.0.0.1:7700 --until 60
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import simbus  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bus", default="127.0.0.1:7700", help="dispatcher HOST:PORT")
    ap.add_argument("--token", help="dispatcher token")
    ap.add_argument("--name", default="odometer", help="module name")
    ap.add_argument("--until", type=float, help="leave at this simulated time (s)")
    args = ap.parse_args()
    host, _, port = args.bus.rpartition(":")

    state = {"speed": 0.0, "distance": 0.0, "ticks": 0}

    def on_message(bus, msg):
        if msg["topic"] == "vehicle.state":
            state["speed"] = msg["speed"]

    def on_tick(bus, tick):
        state["distance"] += state["speed"] * tick.get("dt", 0.0)
        state["ticks"] += 1
        if state["ticks"] == 1:
            state["wall0"] = time.monotonic()
        bus.publish("odometer.state", distance=round(state["distance"], 3), speed=state["speed"])
        return args.until is None or tick["t"] < args.until - 1e-9

    with simbus.Bus(args.name, host=host, port=int(port), token=args.token, lockstep=True,
                    subscribe=["sim.tick", "vehicle.state"]) as bus:
        last = bus.run_lockstep(on_tick, on_message)
    wall = time.monotonic() - state.get("wall0", time.monotonic())
    if last is None:
        print("odometer: the bus closed before the first tick", file=sys.stderr)
        return 1
    print("odometer: t=%.2f s ticks=%d distance=%.1f m wall=%.3f s" %
          (last["t"], state["ticks"], state["distance"], wall))
    return 0


if __name__ == "__main__":
    sys.exit(main())
