// console.js: the operator's console page (docs/console.md). Joins the bus as module
// "console" (or ?name=...), shows the session's modules, recorder and errors, a live
// top-down map, every operator command with each module's answer, an event marker,
// a soft stop, and the study runner's state.
import { join } from "./simbus.js";
import { MapView } from "./map.js";
import { Hosts } from "./hosts.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const name = params.get("name") || "console";

const modules = new Map(); // name -> {state, in_rate, out_rate, dropped, queued_bytes, lockstep}
let bus = null;
let lostTimer = null;
const LOST_MS = 15000; // off the bus this long: not a dispatcher swap between drives

function text(el, s) { el.textContent = s; }

// One line per module, as simctl prints the endpoint's reply.
export function describeAnswer(cmd, reply) {
  const lines = [];
  for (const m of reply.acted || []) lines.push({ cls: "ok", text: `${cmd}: done by ${m}` });
  for (const r of reply.refused || []) lines.push({ cls: "bad", text: `${cmd}: REFUSED by ${r.module}: ${r.error}` });
  for (const m of reply.silent || []) lines.push({ cls: "bad", text: `${cmd}: NO ANSWER from ${m}` });
  if (!reply.ok && reply.error && !(reply.refused || []).length && !(reply.silent || []).length)
    lines.push({ cls: "bad", text: `${cmd}: ${reply.error}` });
  return lines;
}

// The Answers list, newest first, each numbered by a number of its own (not the list's
// marker, which sits in the list's padding and was clipped once it had two digits).
let answerCount = 0;
function addAnswer(cls, s) {
  const li = document.createElement("li");
  li.className = cls;
  const n = document.createElement("span");
  n.className = "n";
  n.textContent = `${++answerCount}.`;
  const text = document.createElement("span");
  text.textContent = s;
  li.append(n, text);
  const list = $("answers");
  list.insertBefore(li, list.firstChild);
}

async function send(cmd, fields = {}) {
  if (!bus) return;
  try {
    const reply = await bus.command(cmd, fields);
    const lines = describeAnswer(cmd, reply);
    if (!lines.length) lines.push({ cls: reply.ok ? "ok" : "bad", text: `${cmd}: ${reply.ok ? "ok" : reply.error}` });
    for (const l of lines.reverse()) addAnswer(l.cls, l.text);
  } catch (e) {
    addAnswer("bad", `${cmd}: ${e.message}`);
  }
}

function renderModules() {
  const tbody = $("modules").querySelector("tbody");
  tbody.replaceChildren();
  for (const [n, m] of [...modules].sort()) {
    const tr = document.createElement("tr");
    tr.dataset.module = n;
    const cells = [n, m.state, fmt(m.in_rate), fmt(m.out_rate), m.dropped ?? "–", m.queued_bytes ?? "–"];
    for (const c of cells) {
      const td = document.createElement("td");
      td.textContent = c;
      tr.appendChild(td);
    }
    tr.children[1].className = m.state === "joined" ? "ok" : "bad";
    tbody.appendChild(tr);
  }
}
const fmt = (v) => (typeof v === "number" ? v.toFixed(1) : "–");

// study.state (the study runner's, common/protocol/sim_msg_study.h): who drives what,
// and the questionnaire status; unknown fields are listed as they come.
function renderStudy(msg) {
  const div = $("study");
  div.className = "";
  const rows = [];
  if (msg.study) rows.push(["study", msg.study]);
  if (msg.participant) rows.push(["participant", msg.participant + (msg.group ? ` (group ${msg.group})` : "")]);
  if (msg.condition) rows.push(["condition", msg.condition + (msg.kind ? ` (${msg.kind})` : "")]);
  if (typeof msg.drive === "number") rows.push(["drive", `${msg.drive} of ${msg.drives ?? "?"}`]);
  if (msg.phase) rows.push(["phase", PHASES[msg.phase] ? `${msg.phase}: ${PHASES[msg.phase]}` : msg.phase]);
  // what the day waits on, in the runner's words (the same as simctl study go says)
  if (msg.waiting_on) rows.push(["waiting on", msg.waiting_on]);
  rows.push(["questionnaire", msg.phase === "questionnaire" && msg.questionnaire
    ? `${msg.questionnaire}: waiting for the test person's answers (questionnaire.html)` : lastAnswered || "none pending"]);
  if (msg.message) rows.push(["message", msg.message]);
  const known = new Set(["topic", "src", "seq", "t", "study", "participant", "group", "condition", "kind", "drive",
    "drives", "phase", "questionnaire", "message", "items", "params", "waiting_on"]);
  for (const [k, v] of Object.entries(msg)) if (!known.has(k)) rows.push([k, typeof v === "object" ? JSON.stringify(v) : String(v)]);
  const table = document.createElement("table");
  for (const [k, v] of rows) {
    const tr = document.createElement("tr");
    const a = document.createElement("td"), b = document.createElement("td");
    a.textContent = k;
    b.textContent = v;
    tr.dataset.field = k;
    tr.append(a, b);
    table.appendChild(tr);
  }
  div.replaceChildren(table);
  div.dataset.phase = msg.phase || "";
  // the operator's go: only while the runner waits for it
  const go = $("study-go");
  const gate = msg.phase === "waiting" || msg.phase === "ready";
  go.hidden = !gate;
  go.disabled = !gate;
  go.textContent = `Go: start drive ${msg.drive} of ${msg.drives}`;
  lastStudy = msg;
  // the Light selector shows the condition's light, not "day" during a night drive
  const light = msg.params && msg.params.light;
  const sel = $("light-mode");
  if (light && [...sel.options].some((o) => o.value === light) && document.activeElement !== sel) sel.value = light;
}
let lastAnswered = "";
let lastStudy = null;
const PHASES = {
  waiting: "waiting for the participant (the operator's go starts drive 1)",
  instructions: "the drive's instructions; the session is starting",
  driving: "driving",
  questionnaire: "the test person answers",
  ready: "waiting for the operator's go before the next drive",
  done: "done: the study day is over",
};

// instrument bridges (docs/instruments.md): the newest bridge.status of each, and when
const bridges = new Map(); // name -> {status, at}
function renderBridges() {
  const ul = $("bridges");
  ul.replaceChildren();
  if (!bridges.size) {
    const li = document.createElement("li");
    li.className = "note";
    li.textContent = "no bridge (docs/instruments.md)";
    ul.appendChild(li);
  }
  for (const [name, { status: b, at }] of bridges) {
    const li = document.createElement("li");
    const age = (Date.now() - at) / 1000;
    const gone = age > 3;
    li.className = b.connected && !gone ? "ok" : "bad";
    li.dataset.bridge = name;
    const cal = typeof b.calibration_age_s === "number" ? `, calibrated ${b.calibration_age_s.toFixed(0)} s ago` : "";
    li.textContent = `${name} (${b.kind} → ${b.publishes}): ` +
      (gone ? `no status for ${age.toFixed(0)} s: gone?` : b.connected ? "connected" : "NOT CONNECTED") +
      `, ${Number(b.rate_hz).toFixed(0)} samples/s, ${b.dropped} dropped${cal}`;
    ul.appendChild(li);
  }
}

// a lab's hosts (simctl run --lab, docs/lab.md): clock offsets, round trips, lost hosts
const hosts = new Hosts();
function renderHosts() {
  const rows = hosts.rows(Date.now());
  $("hosts-panel").hidden = !rows.length;
  const tbody = $("hosts").querySelector("tbody");
  tbody.replaceChildren();
  for (const r of rows) {
    const tr = document.createElement("tr");
    tr.dataset.host = r.host;
    for (const c of [r.host, r.state, r.offset, r.mono, r.rtt, r.sync]) {
      const td = document.createElement("td");
      td.textContent = c;
      tr.appendChild(td);
    }
    tr.children[1].className = r.cls;
    tbody.appendChild(tr);
  }
}

const errors = new Map(); // "module topic" -> message
function renderErrors() {
  const ul = $("errors");
  ul.replaceChildren();
  if (!errors.size) {
    const li = document.createElement("li");
    li.className = "note";
    li.textContent = "none";
    ul.appendChild(li);
  }
  for (const [k, e] of errors) {
    const li = document.createElement("li");
    li.className = "bad";
    li.textContent = `${k}: ${e.error ?? JSON.stringify(e)}${e.age_s !== undefined ? ` (${e.age_s.toFixed(0)} s ago)` : ""}`;
    ul.appendChild(li);
  }
}

// The traffic lights seen on the bus (signal.state: every head at the start of a run,
// then each change), newest state per head: offered in the Signal row's list and shown
// under it, a held head marked "held" (no controller phase while the operator holds it).
const signals = new Map(); // head id -> signal.state
function showSignal(m) {
  if (typeof m.id !== "string" || typeof m.state !== "string") return;
  const isNew = !signals.has(m.id);
  signals.set(m.id, m);
  if (isNew) {
    const list = $("signal-heads");
    list.replaceChildren(...[...signals.keys()].sort().map((id) => Object.assign(document.createElement("option"), { value: id })));
    if (!$("signal-head").value) $("signal-head").value = [...signals.keys()].sort()[0];
  }
  const div = $("signals");
  div.className = "signals";
  div.replaceChildren(...[...signals.values()].sort((a, b) => a.id.localeCompare(b.id)).map((h) => {
    const span = document.createElement("span");
    span.dataset.head = h.id;
    span.dataset.state = h.state;
    const held = h.controller && (h.phase === undefined || h.phase === null);
    span.className = "head " + h.state;
    span.textContent = `${h.id} ${h.state.replace("_", "-")}${held ? " (held)" : ""}`;
    return span;
  }));
}

// While off the bus, this page asks its console for "/" every 2 s: a console started
// anew (the next participant's study runner starts its own) has a new operator cookie,
// which it sets with "/", and the old one was refused at every rejoin (403) until the
// operator reloaded the page. This is the operator's page, so it may hold that cookie.
let refreshing = false;
async function refreshCookie() {
  if (refreshing) return;
  refreshing = true;
  while (bus.closed) {
    try { await fetch("/", { cache: "no-store", credentials: "same-origin" }); } catch { /* console down */ }
    await new Promise((r) => setTimeout(r, 2000));
  }
  refreshing = false;
}

function wire(map) {
  $("cmd-pause").onclick = () => send("pause");
  $("cmd-resume").onclick = () => send("resume");
  $("cmd-restart").onclick = () => send("restart", { at: $("restart-at").value });
  $("cmd-speed_limit").onclick = () => send("speed_limit", { kmh: Number($("speed-kmh").value) });
  $("cmd-hud").onclick = () => send("hud", { text: $("hud-text").value });
  $("cmd-traffic").onclick = () =>
    send("traffic", { density: Number($("traffic-density").value), freeze: $("traffic-freeze").checked });
  $("cmd-light").onclick = () => send("light", { mode: $("light-mode").value });
  // a traffic light: the head held in a state, or "auto" back to its controller, as
  // `simctl signal HEAD STATE|auto` (the traffic node acts; signal.state shows it)
  $("cmd-signal").onclick = () => send("signal", { head: $("signal-head").value.trim(), state: $("signal-state").value });
  // the ego car's automation (docs/automation.md): input-node acts on the command
  $("cmd-automation").onclick = () => send("automation", { mode: $("auto-select").value });
  $("cmd-automation-set").onclick = () => send("automation", { set_kmh: Number($("auto-kmh").value) });
  $("cmd-automation-tor").onclick = () => send("automation", { tor: "operator" });
  $("cmd-sound-on").onclick = () => send("sound", { on: true });
  $("cmd-sound-off").onclick = () => send("sound", { on: false });
  $("cmd-seek").onclick = () => send("seek", { to: Number($("seek-to").value) });
  $("mark").onclick = () => {
    const note = $("mark-note").value || "operator mark";
    bus.publish("log.mark", { name: note });
    addAnswer("ok", `mark "${note}" at t = ${bus.t.toFixed(2)} s`);
    $("mark-note").value = "";
  };
  $("stop-arm").onclick = () => { $("stop-confirm").hidden = false; };
  $("stop-confirm").onclick = () => { $("stop-confirm").hidden = true; send("stop"); };
  $("follow").onchange = (e) => { map.follow = e.target.checked; map.draw(); };
}

async function main() {
  const map = new MapView($("map"));
  map.follow = $("follow").checked;
  wire(map);
  // A console opened before any dispatcher is up (a study runner not started yet)
  // keeps trying to join; a refusal (a wrong token) is no reason to stop trying.
  for (let delay = 250; !bus; delay = Math.min(2 * delay, 2000)) {
    try {
      bus = await join(name, {
        role: "operator",
        subscribe: ["dispatcher.", "vehicle.state", "traffic.state", "sim.tick", "log.", "session.", "study.",
          "traffic.event", "control.ack", "automation.", "bridge.", "signal.state"],
      });
    } catch (e) {
      text($("conn"), "not on the bus: " + e.message + "; trying again");
      await new Promise((r) => setTimeout(r, delay));
    }
  }
  window.consoleBus = bus; // for the browser tests and the developer console
  text($("conn"), "on the bus as " + name);
  $("conn").className = "pill ok";
  for (const n of bus.peers.values()) modules.set(n, { state: "joined" });
  renderModules();
  bus.on("dispatcher.joined", (m) => { modules.set(m.name, { ...(modules.get(m.name) || {}), state: "joined" }); renderModules(); });
  bus.on("dispatcher.left", (m) => {
    modules.set(m.name, { ...(modules.get(m.name) || {}), state: "left" + (m.reason ? ": " + m.reason : "") });
    renderModules();
  });
  bus.on("dispatcher.stats", (m) => {
    for (const c of m.connections || []) modules.set(c.name, { ...c, state: "joined" });
    renderModules();
  });
  bus.on("sim.tick", (m) => {
    text($("run"), m.run);
    const p = $("paused");
    text(p, m.paused ? "PAUSED" : "running");
    p.className = "pill " + (m.paused ? "paused" : "ok");
    p.dataset.paused = m.paused ? "1" : "0";
  });
  bus.on("vehicle.state", (m) => {
    text($("simtime"), m.t.toFixed(2));
    text($("speed"), (m.speed * 3.6).toFixed(0));
    map.setEgo(m);
  });
  bus.on("traffic.state", (m) => map.setTraffic(m.vehicles || []));
  bus.on("signal.state", (m) => showSignal(m));
  bus.on("automation.state", (m) => {
    const el = $("auto-mode");
    const tor = m.tor && m.tor !== "none" ? ` — TOR ${m.tor}` : "";
    const acc = m.longitudinal && typeof m.set_speed === "number" ? ` ${(m.set_speed * 3.6).toFixed(0)} km/h` : "";
    text(el, m.mode + acc + tor);
    el.dataset.mode = m.mode;
    el.dataset.tor = m.tor || "none";
  });
  bus.on("automation.event", (m) =>
    addAnswer(m.event === "refused" || m.event === "mrm" ? "bad" : "ok",
      `automation: ${m.event} (${m.mode}${m.reason ? ", " + m.reason : ""})`));
  bus.on("log.status", (m) => {
    const rec = $("recorder");
    rec.className = m.error ? "bad" : "";
    rec.textContent = `${m.rows} rows committed, ${m.pending} pending, ${m.events} events, run ${m.run}` +
      (m.bad_messages ? `, ${m.bad_messages} bad messages` : "") + ` — ${m.file}` + (m.error ? ` — ERROR: ${m.error}` : "");
  });
  bus.on("log.error", (m) => { errors.set(`${m.src} log.error`, m); renderErrors(); });
  bus.on("bridge.status", (m) => { bridges.set(m.name, { status: m, at: Date.now() }); renderBridges(); });
  for (const t of ["session.clock", "session.host"])
    bus.on(t, (m) => { hosts.update(t, m, Date.now()); renderHosts(); });
  setInterval(renderHosts, 1000); // a host that stops reporting shows it
  bus.on("session.module", (m) => addAnswer(m.what === "restarted" ? "ok" : "bad", `session: ${m.module} ${m.what}`));
  bus.on("traffic.event", (m) => map.flashTrigger(m.trigger));
  bus.on("study.state", renderStudy);
  $("study-go").onclick = () => {
    if (!lastStudy) return;
    bus.publish("study.go", { study: lastStudy.study, participant: lastStudy.participant, drive: lastStudy.drive,
      source: "console" });
    $("study-go").disabled = true;
    addAnswer("ok", `study: go for ${lastStudy.participant} drive ${lastStudy.drive}`);
  };
  bus.on("study.answered", (m) => {
    lastAnswered = `${m.questionnaire} of drive ${m.drive}: ${m.ok ? "saved" : "NOT saved: " + m.error}`;
    addAnswer(m.ok ? "ok" : "bad", `questionnaire ${lastAnswered}`);
  });
  bus.on("close", (e) => {
    text($("conn"), "off the bus: " + e.reason + "; joining again…");
    $("conn").className = "pill bad";
    refreshCookie();
    // the session is gone with its dispatcher (a drive's end, the study runner's break):
    // its time, speed and "running" are no longer true (until the next sim.tick)
    for (const id of ["simtime", "run", "speed"]) text($(id), "–");
    text($("paused"), "no drive");
    $("paused").className = "pill";
    // not back within LOST_MS: no dispatcher swap but a runner (and its console) gone
    if (!lostTimer && lastStudy && lastStudy.phase !== "done") lostTimer = setTimeout(() => {
      const note = $("study-lost");
      note.hidden = false;
      text(note, `No study runner on the bus since ${new Date(Date.now() - LOST_MS).toLocaleTimeString()}: ` +
        `the day of ${lastStudy.participant} is interrupted at drive ${lastStudy.drive} of ${lastStudy.drives} ` +
        `(${lastStudy.phase}). Run the same simctl study run command again to resume it (simctl study status shows ` +
        "where it stands); this page joins it again by itself.");
    }, LOST_MS);
  });
  bus.on("welcome", () => {
    clearTimeout(lostTimer);
    lostTimer = null;
    $("study-lost").hidden = true;
    if (text && $("paused").textContent === "no drive") text($("paused"), "no sim.tick yet");
    // a new dispatcher (a restart, the study runner's between drives): its modules
    text($("conn"), "on the bus as " + name);
    $("conn").className = "pill ok";
    modules.clear();
    for (const n of bus.peers.values()) modules.set(n, { state: "joined" });
    renderModules();
  });
  try {
    const m = await bus.map();
    map.setMap(m);
    const sel = $("restart-at");
    for (const s of m.starts) sel.appendChild(new Option(s.name, s.name));
  } catch (e) {
    text($("map-note"), "no scenario map: " + e.message);
  }
  // the dispatcher's newest *.error per module (status is answered, never published)
  const poll = async () => {
    if (bus.leaving) return;
    if (bus.closed) { setTimeout(poll, 2000); return; }
    try {
      const st = await bus.command("status");
      for (const e of st.errors || []) errors.set(`${e.src} ${e.topic}`, e);
      renderErrors();
      // bridges that reported before this page joined (the dispatcher keeps the newest)
      for (const b of st.bridges || [])
        if (!bridges.has(b.name)) bridges.set(b.name, { status: b, at: Date.now() - 1000 * (b.age_s || 0) });
      renderBridges();
    } catch { /* the endpoint is busy or gone: next time */ }
    setTimeout(poll, 2000);
  };
  poll();
}

main();
