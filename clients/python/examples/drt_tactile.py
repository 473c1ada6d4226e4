#!/usr/bin/env python3
"""A tactile DRT device on a serial line: the vibrator of ISO 17488's tactile DRT.

Reads drt.stimulus and writes --on (default "1") to the device when a tactile stimulus
starts and --off (default "0") when it ends (its response or its 1 s); visual and
auditory stimuli are left to render-node and sound-node. The device is what labs build
for the tactile DRT: a small vibration motor on the collarbone driven by a
microcontroller on a USB serial port that switches the motor on "1" and off "0".
task-node publishes the stimuli whatever devices listen (docs/tasks.md), so this runs
beside the wheel's vibration or instead of it.

    python3 clients/python/examples/drt_tactile.py --bus 127.0.0.1:7700 --device /dev/ttyACM0
"""
import argparse
import os
import signal
import sys
import termios
import tty

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import simbus  # noqa: E402

BAUDS = {9600: termios.B9600, 19200: termios.B19200, 38400: termios.B38400, 57600: termios.B57600,
         115200: termios.B115200}


def open_device(path, baud):
    """The device opened for writing; a terminal (a serial port) is set raw at baud."""
    fd = os.open(path, os.O_WRONLY | os.O_NOCTTY)
    if os.isatty(fd):
        tty.setraw(fd)
        attrs = termios.tcgetattr(fd)
        attrs[4] = attrs[5] = BAUDS[baud]
        termios.tcsetattr(fd, termios.TCSANOW, attrs)
    return fd


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bus", default="127.0.0.1:7700", help="dispatcher HOST:PORT")
    ap.add_argument("--token", help="dispatcher token")
    ap.add_argument("--name", default="drt-tactile", help="name on the bus")
    ap.add_argument("--device", required=True, help="serial port (or any file) of the vibrator")
    ap.add_argument("--baud", type=int, default=9600, choices=sorted(BAUDS), help="serial speed")
    ap.add_argument("--on", default="1", help="what switches the vibrator on (default 1)")
    ap.add_argument("--off", default="0", help="what switches it off (default 0)")
    args = ap.parse_args()
    host, _, port = args.bus.rpartition(":")
    try:
        fd = open_device(args.device, args.baud)
    except OSError as e:
        print("drt_tactile: --device %s: %s" % (args.device, e.strerror), file=sys.stderr)
        return 1
    on, off = args.on.encode(), args.off.encode()

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # leave the bus cleanly when stopped
    vibrating = None  # the id of the tactile stimulus being played
    try:
        with simbus.Bus(args.name, host=host, port=int(port), token=args.token,
                        subscribe=["drt.stimulus"]) as bus:
            for msg in bus.messages():
                if msg.get("topic") != "drt.stimulus" or msg.get("modality") != "tactile":
                    continue
                if msg.get("on") and vibrating is None:
                    os.write(fd, on)
                    vibrating = msg.get("id")
                elif not msg.get("on") and vibrating == msg.get("id"):
                    os.write(fd, off)
                    vibrating = None
    finally:
        if vibrating is not None:  # never leave the motor running
            os.write(fd, off)
        os.close(fd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
