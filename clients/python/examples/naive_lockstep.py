#!/usr/bin/env python3
"""A lockstep participant with a plain socket and no library, as a new user writes it:
one sendall for its state, one for its sim.ack, no socket options. The dispatcher
acknowledges every read at once (TCP_QUICKACK), so Nagle's algorithm does not hold the
second write back for a delayed ACK and this runs nearly as fast as simbus.Bus.

    python3 clients/python/examples/naive_lockstep.py 127.0.0.1:7700 60

Prints the last tick's t, the ticks answered and the wall time, then leaves.
"""
import json
import socket
import sys
import time

host, _, port = (sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:7700").rpartition(":")
until = float(sys.argv[2]) if len(sys.argv) > 2 else float("inf")
s = socket.create_connection((host, int(port)))
s.sendall(b'{"topic":"hello","name":"naive","subscribe":["sim.tick"],"lockstep":true}\n')
seq, ticks, t = 0, 0, None
for line in s.makefile():
    msg = json.loads(line)
    if msg["topic"] != "sim.tick":
        continue
    if ticks == 0:
        wall0 = time.monotonic()
    ticks, t = ticks + 1, msg["t"]
    seq += 1
    state = {"topic": "naive.state", "src": "naive", "seq": seq, "t": t, "n": msg["n"]}
    s.sendall((json.dumps(state) + "\n").encode())
    seq += 1
    ack = {"topic": "sim.ack", "src": "naive", "seq": seq, "t": t, "n": msg["n"]}
    s.sendall((json.dumps(ack) + "\n").encode())
    if t >= until - 1e-9:
        break
s.close()
if t is None:
    sys.exit("naive: the bus closed before the first tick")
print("naive: t=%.2f s ticks=%d wall=%.3f s" % (t, ticks, time.monotonic() - wall0))
