"""simbridge: what the instrument bridges share (docs/instruments.md).

A bridge forwards an instrument's samples onto the simulator's bus (gaze.sample,
sensor.<name>), each stamped with when it was taken: t_src on the instrument's own
clock and wall on the session's wall clock (Unix seconds, the clock the recorder's
time base uses; docs/instruments.md). Status counts what went through and what was
lost, and publishes bridge.status once a second (simctl status and the console show
it). Standard library only (the Pupil bridge adds ZeroMQ and msgpack).
"""

import time


class ClockOffset:
    """A device clock onto the wall clock: wall = device + offset, the offset measured
    by asking the device for its time between two readings of the wall clock (the
    midpoint; the best of the round trips with the shortest delay wins: the offset is
    then known to half that delay). On a loaded machine every one of a few round trips
    could take tens of ms (a scheduler's time slice on each side), so measure() goes on
    asking, up to max_tries, until one came back within good_s."""

    def __init__(self):
        self.offset = None
        self.delay = None
        self.measured_at = None

    def measure(self, ask_device_time, tries=5, max_tries=50, good_s=0.004):
        best = None
        n = 0
        while n < tries or (n < max_tries and best[0] > good_s):
            w0 = time.time()
            dev = ask_device_time()
            w1 = time.time()
            n += 1
            if best is None or w1 - w0 < best[0]:
                best = (w1 - w0, (w0 + w1) / 2 - dev)
        self.delay, self.offset = best
        self.measured_at = time.time()
        return self.offset

    def wall(self, device_t):
        return None if self.offset is None else device_t + self.offset


class Status:
    """Counts samples forwarded and lost; bridge.status once a second."""

    STALE_S = 1.0  # no sample for this long: the device counts as not connected

    def __init__(self, bus, name, kind, topic):
        self.bus, self.name, self.kind, self.topic = bus, name, kind, topic
        self.forwarded = 0
        self.lost = 0  # samples the device sent that did not reach the bus
        self.last_sample = None  # monotonic time of the newest sample
        self.calibrated_at = None  # wall time of the device's last calibration
        self._window = []  # monotonic times of the samples of the last second
        self._next = time.monotonic() + 1.0

    def sample(self, ok):
        now = time.monotonic()
        self.last_sample = now
        if ok:
            self.forwarded += 1
            self._window.append(now)
        else:
            self.lost += 1

    def connected(self):
        return self.last_sample is not None and time.monotonic() - self.last_sample < self.STALE_S

    def fields(self):
        now = time.monotonic()
        self._window = [t for t in self._window if now - t <= 1.0]
        f = {"name": self.name, "kind": self.kind, "publishes": self.topic, "connected": self.connected(),
             "rate_hz": float(len(self._window)), "dropped": self.lost}
        if self.calibrated_at is not None:
            f["calibration_age_s"] = max(0.0, time.time() - self.calibrated_at)
        return f

    def tick(self, force=False):
        """Publishes bridge.status when a second has passed (or force)."""
        now = time.monotonic()
        if not force and now < self._next:
            return
        self._next = now + 1.0
        self.bus.publish("bridge.status", self.fields())
