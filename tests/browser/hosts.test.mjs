// The console's Hosts table logic (console/www/hosts.js) fed the messages simctl run
// --lab publishes: offsets, round trips and sync per host, a lost host, back, stale.
import assert from "node:assert/strict";
import { Hosts } from "../../console/www/hosts.js";

const h = new Hosts();
h.update("session.clock", { host: "sim", offset_ms: 0.05, mono_offset_ms: 0.05, rtt_ms: 0.738, samples: 20,
  answered: 20, sync: "chrony", synced: true }, 1000);
h.update("session.clock", { host: "aux", offset_ms: -0.107, mono_offset_ms: 6999.893, rtt_ms: 1.338, samples: 20,
  answered: 19, sync: "none", synced: false }, 1000);
let rows = h.rows(1500);
assert.deepEqual(rows.map((r) => r.host), ["aux", "sim"]);
assert.deepEqual(rows[0], { host: "aux", state: "up", offset: "-0.107 ms", mono: "+6999.893 ms", rtt: "1.338 ms",
  sync: "none (kernel not synchronised)", cls: "ok" });
assert.equal(rows[1].offset, "+0.050 ms");
assert.equal(rows[1].sync, "chrony");
h.update("session.host", { host: "aux", state: "lost", reason: "no answer to the clock exchange for 700 ms", silent_ms: 701 }, 2000);
rows = h.rows(2100);
assert.equal(rows[0].state, "LOST: no answer to the clock exchange for 700 ms");
assert.equal(rows[0].cls, "bad");
assert.equal(rows[0].offset, "-0.107 ms"); // the last known offset stays
h.update("session.host", { host: "aux", state: "back", reason: "its clock agent answers again", silent_ms: 0 }, 3000);
assert.equal(h.rows(3100)[0].state, "up");
// a host with no clock report for longer than 5 s
assert.equal(h.rows(7000)[1].state, "no report for 6 s");
assert.equal(h.rows(7000)[1].cls, "bad");
// what is not a host message changes nothing
h.update("session.module", { module: "x" }, 8000);
h.update("session.clock", { offset_ms: 1 }, 8000);
assert.equal(h.rows(8000).length, 2);
console.log("ok   hosts.js: offsets, round trips, sync, lost, back and stale hosts as the console shows them");
