#!/usr/bin/env python3
"""The operator's control endpoint from Python (no nanomsg binding needed).

    python3 clients/python/examples/operator.py status
    python3 clients/python/examples/operator.py pause
    python3 clients/python/examples/operator.py hud "Turn left at the next junction"
    python3 clients/python/examples/operator.py speed_limit 80

Prints the endpoint's reply as JSON; exits 1 when it says ok:false.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import simbus  # noqa: E402

# cmd -> (field, type) of its one argument, for the commands that take one
ARGS = {"restart": ("at", str), "speed_limit": ("kmh", float), "hud": ("text", str),
        "light": ("mode", str), "seek": ("to", float), "sound": ("on", lambda s: s == "on")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--control", default=simbus.DEFAULT_CONTROL, help="endpoint URL")
    ap.add_argument("--token", help="dispatcher token")
    ap.add_argument("cmd", help="status, pause, resume, stop, restart AT, speed_limit KMH, "
                                "hud TEXT, light MODE, seek TO, sound on|off")
    ap.add_argument("arg", nargs="?", help="the command's argument")
    args = ap.parse_args()
    fields = {}
    if args.cmd in ARGS:
        if args.arg is None:
            ap.error("%s needs an argument" % args.cmd)
        name, conv = ARGS[args.cmd]
        fields[name] = conv(args.arg)
    with simbus.Control(args.control, token=args.token) as ctl:
        reply = ctl.request(args.cmd, **fields)
    print(json.dumps(reply))
    return 0 if reply.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
