// hosts.js: the lab's hosts for the console's Hosts table (docs/lab.md, "Clocks and
// lost hosts"): from simctl's session.clock (each other host's clock offset, round trip
// and what keeps its clock, every 2 s) and session.host (a host lost or back). No DOM:
// rows() gives what the table shows, tested by tests/browser/hosts.test.mjs.
export class Hosts {
  constructor() { this.hosts = new Map(); } // name -> {clock, state, reason, at}

  // A session.clock or session.host message (topic, fields) seen at nowMs.
  update(topic, m, nowMs) {
    if (!m || typeof m.host !== "string") return;
    const h = this.hosts.get(m.host) || { clock: null, state: "up", reason: "", at: nowMs };
    if (topic === "session.clock") {
      h.clock = m;
      h.at = nowMs;
    } else if (topic === "session.host") {
      h.state = m.state === "lost" ? "lost" : "up";
      h.reason = m.reason || "";
      if (m.state !== "lost") h.at = nowMs;
    } else {
      return;
    }
    this.hosts.set(m.host, h);
  }

  // One row per host, by name: {host, state, offset, mono, rtt, sync, cls}; a host whose
  // clock report is older than staleMs (reports come every 2 s) shows "no report".
  rows(nowMs, staleMs = 5000) {
    const ms = (v, sign) => (typeof v === "number" ? (sign && v >= 0 ? "+" : "") + v.toFixed(3) + " ms" : "–");
    return [...this.hosts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([host, h]) => {
      const c = h.clock;
      let state = h.state === "lost" ? "LOST" + (h.reason ? ": " + h.reason : "") : "up";
      if (h.state !== "lost" && nowMs - h.at > staleMs) state = `no report for ${((nowMs - h.at) / 1000).toFixed(0)} s`;
      return {
        host,
        state,
        offset: ms(c && c.offset_ms, true),
        mono: ms(c && c.mono_offset_ms, true),
        rtt: ms(c && c.rtt_ms, false),
        sync: c ? `${c.sync || "none"}${c.synced ? "" : " (kernel not synchronised)"}` : "–",
        cls: state === "up" ? "ok" : "bad",
      };
    });
  }
}
