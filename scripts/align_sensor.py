#!/usr/bin/env python3
"""align_sensor: put a sensor file recorded outside the platform onto a drive's
simulation time line (docs/instruments.md, "Aligning an external recording").

    python3 scripts/align_sensor.py LOG FILE.csv --time-column COL
        (--clock unix | --offset SECONDS | --sync MARK=DEVICE_T)
        [--out ALIGNED.csv] [--import NAME]

FILE.csv has a header row and one column of time stamps on the device's clock (COL).
How that clock relates to the session's wall clock (Unix seconds):
  --clock unix        the stamps are Unix seconds already (a device synchronised by NTP)
  --offset SECONDS    wall = stamp + SECONDS (measured by other means)
  --sync MARK=T       the device saw the moment of the drive log's mark MARK (a
                      `simctl send log.mark '{"name":"MARK"}'`, a button press both
                      recorded) at its own time T: the offset is that mark's wall time
                      minus T
Each row's wall time is then mapped onto (run, t) through the log's clock table (the
"sim" rows: physics' wall clock when it reached each simulation time, a row wherever
the clock departs from real time by more than 2 ms; while paused t stands still), and written to ALIGNED.csv (default FILE-aligned.csv) with run, t and tick in
front of the file's own columns. Rows before the drive's first or after its last
clock row are left out and counted. --import NAME also writes the numeric columns into
the log's sensor table as sensor NAME (channel = column name), so that simctl export
and analysis see them beside the bridges' sensors; importing again under the same NAME
replaces those rows.
Standard library only.
"""

import argparse
import bisect
import csv
import math
import os
import sqlite3
import sys

PERIOD = 0.01


def fail(msg):
    sys.exit("align_sensor: " + msg)


def clock_rows(db, log):
    try:
        rows = db.execute("SELECT run, t, wall, paused FROM clock WHERE source = 'sim' ORDER BY wall, id").fetchall()
    except sqlite3.DatabaseError as e:
        fail("%s: no clock table (%s): the log was written before the time base (schema 3) or is not a drive log"
             % (log, e))
    if len(rows) < 2:
        fail("%s: the clock table has %d 'sim' rows, expected at least 2 (a drive of more than a second)"
             % (log, len(rows)))
    return rows


def wall_to_sim(rows, walls, wall):
    """(run, t) at wall time wall, or None outside the drive."""
    if wall < walls[0] or wall > walls[-1] + 1.0:
        return None
    i = bisect.bisect_right(walls, wall) - 1
    run, t, w, paused = rows[i]
    if paused:
        return run, t
    if i + 1 < len(rows) and rows[i + 1][0] == run and rows[i + 1][2] > w:
        r2, t2, w2, _ = rows[i + 1]
        return run, t + (t2 - t) * (wall - w) / (w2 - w)
    return run, t + (wall - w)


def mark_wall(db, rows, log, name):
    """The wall time of the drive log's mark `name` (its simulation time, back onto the
    clock: the first wall time at which the run reached it)."""
    ev = db.execute("SELECT run, t FROM events WHERE kind = 'mark' AND name = ? ORDER BY run, t", (name,)).fetchall()
    if not ev:
        names = [n for (n,) in db.execute("SELECT DISTINCT name FROM events WHERE kind = 'mark'")]
        fail("%s: no mark named %r (marks in the log: %s)" % (log, name, ", ".join(names) or "none"))
    if len(ev) > 1:
        fail("%s: %d marks named %r: the sync mark must be unique" % (log, len(ev), name))
    run, t = ev[0]
    for i, (r, t0, w0, paused) in enumerate(rows):
        if r != run or i + 1 >= len(rows) or rows[i + 1][0] != run:
            continue
        r1, t1, w1, _ = rows[i + 1]
        if t0 <= t <= t1 and not paused:
            return w0 + (w1 - w0) * ((t - t0) / (t1 - t0) if t1 > t0 else 0.0)
    fail("%s: mark %r at t = %.3f s of run %d lies outside the clock table" % (log, name, t, run))


def main(argv=None):
    ap = argparse.ArgumentParser(description="Align an external sensor recording with a drive log's simulation time.")
    ap.add_argument("log", help="the drive log (.sqlite)")
    ap.add_argument("file", help="the sensor's CSV file (header row)")
    ap.add_argument("--time-column", required=True, help="the column of device time stamps (s)")
    how = ap.add_mutually_exclusive_group(required=True)
    how.add_argument("--clock", choices=("unix",), help="the stamps are Unix seconds")
    how.add_argument("--offset", type=float, help="wall = stamp + OFFSET seconds")
    how.add_argument("--sync", metavar="MARK=T", help="the log's mark MARK happened at device time T")
    ap.add_argument("--out", help="the aligned CSV (default FILE-aligned.csv)")
    ap.add_argument("--import", dest="import_as", metavar="NAME", help="also write the rows into the log as sensor NAME")
    a = ap.parse_args(argv)
    if not os.path.exists(a.log):
        fail("%s: no such drive log" % a.log)
    db = sqlite3.connect(a.log)
    rows = clock_rows(db, a.log)
    walls = [r[2] for r in rows]
    if a.clock == "unix":
        offset = 0.0
    elif a.offset is not None:
        offset = a.offset
    else:
        mark, sep, dev = a.sync.partition("=")
        try:
            dev_t = float(dev)
        except ValueError:
            dev_t = None
        if not sep or not mark or dev_t is None:
            fail("--sync %r: expected MARK=DEVICE_TIME, e.g. --sync sync=1234.56" % a.sync)
        offset = mark_wall(db, rows, a.log, mark) - dev_t
    try:
        f = open(a.file, newline="")
    except OSError as e:
        fail("%s: %s" % (a.file, e.strerror))
    with f:
        reader = csv.reader(f)
        header = next(reader, None)
        if not header:
            fail("%s: empty file, expected a header row" % a.file)
        if a.time_column not in header:
            fail("%s: no column %r (columns: %s)" % (a.file, a.time_column, ", ".join(header)))
        tc = header.index(a.time_column)
        out_path = a.out or os.path.splitext(a.file)[0] + "-aligned.csv"
        outside = written = 0
        imported = []
        with open(out_path, "w", newline="") as out:
            w = csv.writer(out, lineterminator="\r\n")
            w.writerow(["run", "t", "tick"] + header)
            for line_no, rec in enumerate(reader, start=2):
                if not rec:
                    continue
                try:
                    stamp = float(rec[tc])
                    if not math.isfinite(stamp):
                        raise ValueError
                except (ValueError, IndexError):
                    fail("%s:%d: column %r: %r is not a time in seconds" % (a.file, line_no, a.time_column,
                                                                          rec[tc] if tc < len(rec) else ""))
                wall = stamp + offset
                at = wall_to_sim(rows, walls, wall)
                if at is None:
                    outside += 1
                    continue
                run, t = at
                tick = math.floor(t / PERIOD + 1e-9)
                w.writerow([run, repr(t), tick] + rec)
                written += 1
                if a.import_as:
                    for k, v in enumerate(rec):
                        if k == tc:
                            continue
                        try:
                            x = float(v)
                        except ValueError:
                            continue
                        if math.isfinite(x):
                            imported.append((run, t, tick, stamp, wall, a.import_as, header[k], x))
    if a.import_as:
        try:
            with db:
                db.execute("DELETE FROM sensor WHERE sensor = ?", (a.import_as,))
                db.executemany("INSERT OR IGNORE INTO sensor(run, t, tick, src_t, wall, sensor, channel, value)"
                               " VALUES(?,?,?,?,?,?,?,?)", imported)
        except sqlite3.DatabaseError as e:
            fail("%s: cannot import (%s): is the recorder still writing it?" % (a.log, e))
    db.close()
    print("align_sensor: %d rows aligned into %s (offset %.6f s)%s%s" % (
        written, out_path, offset, ", %d outside the drive left out" % outside if outside else "",
        ", %d values imported as sensor %s" % (len(imported), a.import_as) if a.import_as else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
