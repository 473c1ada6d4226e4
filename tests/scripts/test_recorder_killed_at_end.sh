#!/bin/sh
# A recorder killed at the end of a drive (issue 45): simctl run's shutdown used to
# cancel its pending restart, so the log lost its tail and its end_utc while simctl
# exited 0. Six headless drives, the recorder killed (SIGKILL) right when simctl says
# the session is ending and up to 0.3 s later: each run either closes its log (end_utc,
# samples up to the end, status 0) after restarting the recorder, or exits 3 saying the
# recorder was lost; never status 0 with an open log.
. "$(dirname "$0")/lib.sh"
python3 - "$bin" "$root" "$tmp" <<'PY'
import os, signal, sqlite3, subprocess, sys, time, socket
bin_dir, root, tmp = sys.argv[1:4]
def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p
def recorder_pid(parent):
    for pid in os.listdir("/proc"):
        if not pid.isdigit(): continue
        try:
            with open("/proc/%s/stat" % pid) as f: st = f.read()
        except OSError: continue
        comm = st[st.index("(") + 1:st.rindex(")")]
        ppid = int(st[st.rindex(")") + 2:].split()[1])
        if ppid == parent and comm == "recorder": return int(pid)
    return None
fails = 0
for k, delay in enumerate([0.0, 0.01, 0.03, 0.06, 0.1, 0.3]):
    out = os.path.join(tmp, "run%d" % k)
    env = dict(os.environ); env.pop("DISPLAY", None); env.pop("WAYLAND_DISPLAY", None)
    p = subprocess.Popen([os.path.join(bin_dir, "simctl"), "run", os.path.join(root, "scenarios/lane-change.json"),
                          "--headless", "--until", "2", "--no-analysis", "--out", out,
                          "--bus", "127.0.0.1:%d" % free_port(), "--control", "tcp://127.0.0.1:%d" % free_port()],
                         stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env, cwd=root)
    lines, killed = [], None
    for line in p.stderr:
        lines.append(line)
        if killed is None and "simctl: ending the session" in line:
            time.sleep(delay)
            pid = recorder_pid(p.pid)
            if pid:
                os.kill(pid, signal.SIGKILL); killed = pid
            else:
                killed = 0
    rc = p.wait(timeout=60)
    text = "".join(lines)
    logs = [os.path.join(dp, f) for dp, _, fs in os.walk(os.path.join(out, "logs")) for f in fs if f.endswith(".sqlite")]
    end, n = None, 0
    if logs:
        db = sqlite3.connect(logs[0])
        r = db.execute("SELECT value FROM meta WHERE key='end_utc'").fetchone()
        end = r[0] if r else None
        n = db.execute("SELECT count(*) FROM samples").fetchone()[0]
        db.close()
    said_loss = "while closing the drive log" in text
    ok = (rc == 0 and end and n > 0) or (rc == 3 and said_loss)
    how = "killed %s" % ("pid %d" % killed if killed else "nothing (the recorder had stopped)")
    print("%s kill %.2f s after the end began (%s): status %d, end_utc %s, %d samples%s" %
          ("ok  " if ok else "FAIL", delay, how, rc, "yes" if end else "no", n, ", loss said" if said_loss else ""))
    if not ok:
        fails += 1
        sys.stdout.write("".join(l for l in lines if l.startswith(("simctl", "recorder"))))
sys.exit(1 if fails else 0)
PY
