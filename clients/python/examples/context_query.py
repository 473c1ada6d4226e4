#!/usr/bin/env python3
"""A context-server query: the points of interest nearest to a place.

Sends context.request {id, op: "poi.near", x, y, radius, category, limit} and prints
the POIs of the matching context.reply {id, to, ok, op, pois: [...]} (one per line:
id, category, distance, name); a refusal ({ok: false, error}) is printed and exits 1.
Without --x/--y the context server uses the ego car's position (a session with
physics running). Every op and its fields: docs/context.md.

    python3 clients/python/examples/context_query.py --bus 127.0.0.1:7700 --x 30 --y -1.5 --category fuel
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import simbus  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bus", default="127.0.0.1:7700", help="dispatcher HOST:PORT")
    ap.add_argument("--token", help="dispatcher token")
    ap.add_argument("--x", type=float, help="east (m); with --y, else the ego car")
    ap.add_argument("--y", type=float, help="north (m)")
    ap.add_argument("--radius", type=float, default=1000.0, help="search radius (m)")
    ap.add_argument("--category", help="only this category (fuel, cafe, ...)")
    ap.add_argument("--limit", type=int, default=5, help="at most this many")
    ap.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for the reply")
    args = ap.parse_args()
    host, _, port = args.bus.rpartition(":")

    query = {"op": "poi.near", "radius": args.radius, "limit": args.limit}
    if (args.x is None) != (args.y is None):
        ap.error("--x and --y go together")
    if args.x is not None:
        query.update(x=args.x, y=args.y)
    if args.category:
        query["category"] = args.category
    with simbus.Bus("context-query", host=host, port=int(port), token=args.token,
                    subscribe=["context.reply"]) as bus:
        reply = bus.request("context.request", "context.reply", timeout=args.timeout, **query)
    if not reply.get("ok"):
        print("context-query: refused: %s" % reply.get("error"), file=sys.stderr)
        return 1
    for poi in reply.get("pois", []):
        print("%s\t%s\t%.1f m\t%s" % (poi.get("id"), poi.get("category"), poi.get("distance", 0.0),
                                      poi.get("name", "")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
