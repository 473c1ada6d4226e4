#!/usr/bin/env python3
"""An HMI prototype: the ego car's speed on the head-up display.

Reads vehicle.state and publishes hud.text {area, text}: the speed in km/h in the
"bottom" area whenever the shown value changes ("top" is the operator's), and a
warning in the "center" area while the car is faster than --limit-kmh (cleared with
an empty text). render-node shows hud.text; any module may publish it
(docs/protocol.md).

    python3 clients/python/examples/hmi_speed.py --bus 127.0.0.1:7700 --limit-kmh 100
"""
import argparse
import os
import signal
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import simbus  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bus", default="127.0.0.1:7700", help="dispatcher HOST:PORT")
    ap.add_argument("--token", help="dispatcher token")
    ap.add_argument("--limit-kmh", type=float, default=100.0, help="warn above this speed")
    args = ap.parse_args()
    host, _, port = args.bus.rpartition(":")

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # leave the bus cleanly when stopped
    shown, warning = None, False
    with simbus.Bus("hmi", host=host, port=int(port), token=args.token,
                    subscribe=["vehicle.state"]) as bus:
        for msg in bus.messages():
            if msg["topic"] != "vehicle.state":
                continue
            kmh = msg["speed"] * 3.6
            text = "%.0f km/h" % kmh
            if text != shown:
                bus.publish("hud.text", area="bottom", text=text, t=msg["t"])
                shown = text
            if (kmh > args.limit_kmh) != warning:
                warning = not warning
                bus.publish("hud.text", area="center", text="Slow down" if warning else "",
                            color=[1.0, 0.2, 0.1], t=msg["t"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
