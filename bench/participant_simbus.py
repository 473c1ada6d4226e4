#!/usr/bin/env python3
"""bench_lockstep's Python-client participant: the same work as naive_lockstep.py
(subscribe to sim.tick, publish a small state and the sim.ack per tick), through
simbus.Bus. Usage: participant_simbus.py HOST:PORT UNTIL"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients", "python"))
import simbus  # noqa: E402

host, _, port = sys.argv[1].rpartition(":")
until = float(sys.argv[2])


def on_tick(bus, tick):
    bus.publish("pyclient.state", n=tick["n"])
    return tick["t"] < until - 1e-9


with simbus.Bus("pyclient", host=host, port=int(port), lockstep=True, subscribe=["sim.tick"]) as bus:
    bus.run_lockstep(on_tick)
