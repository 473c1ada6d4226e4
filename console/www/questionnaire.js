// questionnaire.js: the study runner's pending questionnaire for the test person (a
// tablet beside the simulator; docs/console.md). When study.state says phase
// "questionnaire", its items are shown: a scale of up to 21 points as a row of
// choices (named levels such as SSQ's none/slight/moderate/severe, NASA-TLX's 21
// marks), a longer one as a slider without a thumb until touched, free text as a text
// box. Nothing is preset: an item is answered or explicitly skipped ("prefer not to
// answer"), and "Send answers" refuses, naming them, while any scale item is neither.
// The page publishes study.answer {study, participant, drive, questionnaire, source:
// "questionnaire-page", answers: {item: value | text | null}} (null: skipped) and
// shows the runner's verdict, study.answered (ok once the answers are committed to the
// study database, or the error naming the item). The topics are the study runner's
// (common/protocol/sim_msg_study.h). Outside a questionnaire the page shows the day's
// phase (waiting, instructions, driving, ready, done: docs/study.md, "The day") with
// the runner's message; a page opened before the runner has a dispatcher keeps trying
// to join, so it shows the current phase within about a second of the runner's next
// study.state.
import { join } from "./simbus.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
let pending = null; // the study.state whose questionnaire is shown
let sent = null;    // the study.answer waiting for its verdict
let sentAt = 0, tries = 0, lost = false; // when it last went out, how many times, a connection lost since
// No verdict (a connection lost mid-send, a dispatcher swap between drives): the page
// says so and sends the same answers again until the runner answers: at the runner's
// next study.state after a lost connection or STATE_RESEND_MS without a verdict (the
// runner is on this dispatcher then), and every RESEND_MS regardless. The runner stores
// a questionnaire's answers once; a copy of answers it has already stored gets its ok
// again (docs/study.md, "Answers are never lost").
const RESEND_MS = 3000, STATE_RESEND_MS = 1000;
const LOST_MS = 15000; // off the bus this long: not a dispatcher swap, the day is interrupted
const saved = new Set(); // questionnaires answered and saved: never shown again

const key = (m) => [m.study, m.participant, m.drive, m.questionnaire].join("/");
const MAX_CHOICES = 21; // NASA-TLX's 21 marks are the longest scale shown as choices

function points(it) {
  const step = it.step || 1;
  return Math.round((it.max - it.min) / step) + 1;
}

function scale(div, it) {
  const step = it.step || 1, n = points(it);
  const labels = it.labels || [];
  let input;
  if (n <= MAX_CHOICES) {
    const row = document.createElement("div");
    row.className = "choices" + (n > 11 && !labels.length ? " marks" : "");
    for (let k = 0; k < n; k++) {
      const v = it.min + k * step;
      const lab = document.createElement("label");
      const r = document.createElement("input");
      Object.assign(r, { type: "radio", name: it.id, value: String(v) });
      r.onchange = () => { div.querySelector(".skip input").checked = false; div.classList.remove("missing"); recheck(); };
      const span = document.createElement("span");
      // named levels show their name; short scales their number; TLX's marks nothing
      span.textContent = labels[k] ? (labels.length <= 4 ? labels[k] : `${v} ${labels[k]}`) : (n <= 11 ? String(v) : "");
      if (!span.textContent) lab.title = String(v);
      lab.append(r, span);
      row.appendChild(lab);
    }
    div.appendChild(row);
  } else {
    input = document.createElement("input");
    Object.assign(input, { type: "range", name: it.id, min: it.min, max: it.max, step });
    input.className = "untouched";
    input.oninput = () => {
      input.classList.remove("untouched");
      div.querySelector(".skip input").checked = false;
      div.classList.remove("missing");
      recheck();
    };
    div.appendChild(input);
  }
  if ((it.low || it.high) && !(labels.length && labels.length <= 4)) {
    const anchors = document.createElement("div");
    anchors.className = "anchors";
    const lo = document.createElement("span"), hi = document.createElement("span");
    lo.textContent = it.low || "";
    hi.textContent = it.high || "";
    anchors.append(lo, hi);
    div.appendChild(anchors);
  }
  const skip = document.createElement("label");
  skip.className = "skip";
  const box = document.createElement("input");
  box.type = "checkbox";
  box.onchange = () => {
    if (!box.checked) return;
    div.classList.remove("missing");
    recheck();
    for (const r of div.querySelectorAll("input[type=radio]")) r.checked = false;
    if (input) input.classList.add("untouched");
  };
  skip.append(box, " prefer not to answer");
  div.appendChild(skip);
}

// The answer of one item: a number, a text, null (skipped) or undefined (left alone).
function answerOf(it) {
  const div = $("items").querySelector(`[data-item="${CSS.escape(it.id)}"]`);
  // free text is optional: a box left empty is no answer, stored as missing (null)
  if (it.type === "text") return div.querySelector("textarea").value.trim() ? div.querySelector("textarea").value : null;
  if (div.querySelector(".skip input").checked) return null;
  const r = div.querySelector("input[type=radio]:checked");
  if (r) return Number(r.value);
  const s = div.querySelector("input[type=range]");
  return s && !s.classList.contains("untouched") ? Number(s.value) : undefined;
}

// Once every item the page named is answered or skipped, its refusal goes away.
function recheck() {
  if (!$("items").querySelector(".missing")) $("result").textContent = "";
}

function show(state) {
  pending = state;
  $("status").hidden = true;
  $("form").hidden = false;
  $("result").textContent = "";
  $("submit").disabled = false;
  // the study's id for it, and which drive it is about (the final one: after the last)
  $("title").textContent = `${state.questionnaire} (after drive ${state.drive} of ${state.drives})`;
  const box = $("items");
  box.replaceChildren();
  for (const it of state.items || []) {
    const div = document.createElement("div");
    div.className = "item";
    div.dataset.item = it.id;
    const text = document.createElement("div");
    text.className = "text";
    text.textContent = it.text || it.id;
    div.appendChild(text);
    if (it.type === "text") {
      const ta = document.createElement("textarea");
      ta.name = it.id;
      div.appendChild(ta);
    } else {
      scale(div, it);
    }
    box.appendChild(div);
  }
}

// A heading and one calm sentence, as the driver's screen shows them between drives.
function idle(text, phase = "", heading = "") {
  pending = null;
  $("form").hidden = true;
  $("status").hidden = false;
  const h = document.createElement("strong");
  h.className = "heading";
  h.textContent = heading;
  const p = document.createElement("span");
  p.textContent = text;
  $("status").replaceChildren(...(heading ? [h, document.createElement("br")] : []), p);
  document.body.dataset.phase = phase;
}

// The heading of each phase (the driver's screen's words, render-node's study page).
function phaseHeading(m) {
  switch (m.phase) {
    case "waiting": return "Welcome";
    case "instructions": return `Next: drive ${m.drive} of ${m.drives}`;
    case "driving": return `Drive ${m.drive} of ${m.drives}`;
    case "ready": return (justSaved ? "Thank you: your answers are saved. " : "") + `Next: drive ${m.drive} of ${m.drives}`;
    default: return ""; // done: the study's thank-you says it
  }
}
let justSaved = false; // answers saved in this break: said above the next drive's words

// What the test person reads in each phase of the day.
function phaseText(m) {
  switch (m.phase) {
    case "waiting": return m.message || "Please wait: the study begins soon.";
    case "instructions": return (m.message ? m.message + " " : "") + "The drive is starting.";
    case "driving": return "Please drive." + (m.message ? " " + m.message : "");
    case "ready": return (m.message ? m.message + " " : "") + "Please wait: the experimenter starts the drive soon.";
    case "done": return m.message || "Thank you: the study is complete.";
    default: return m.message || "Please wait.";
  }
}

// Joins the bus, trying again while no dispatcher is up (before the runner starts).
async function joinRetrying() {
  for (let delay = 250; ; delay = Math.min(2 * delay, 1000)) {
    try {
      return await join(params.get("name") || "questionnaire-page", { subscribe: ["study.state", "study.answered"], role: "questionnaire" });
    } catch (e) {
      $("conn").textContent = "connecting… (" + e.message + "; trying again)";
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

// Sends the answers waiting for their verdict (again): on the bus when the page is on
// it, else at its next welcome.
function sendAnswers(bus, why) {
  if (!sent) return;
  sentAt = Date.now();
  lost = false;
  let out = false;
  try {
    bus.publish("study.answer", sent);
    out = true;
  } catch (e) { /* off the bus: sent at the next welcome */ }
  tries += out ? 1 : 0;
  document.body.dataset.tries = String(tries);
  if (tries <= 1 && out && !why) {
    $("result").className = "note";
    $("result").textContent = "Sending…";
  } else {
    $("result").className = "bad";
    $("result").textContent = "Not sent yet (" + (why || "no answer from the study runner") + "): retrying" +
      (out ? " (sent " + tries + " times)…" : "…");
  }
}

async function main() {
  const bus = await joinRetrying();
  window.questionnaireBus = bus;
  $("conn").textContent = "on the bus";
  $("conn").className = "pill ok";
  // between drives the study runner's own dispatcher takes over: the page joins again
  // Off the bus for LOST_MS (the runner stopped, crashed or was killed; a dispatcher
  // swap between drives takes a few seconds): the last phase is no longer true ("please
  // drive" with no drive running), so the test person is asked to wait; a form being
  // filled in stays (a resumed runner asks for the same answers).
  let lostTimer = null;
  bus.on("close", (e) => {
    $("conn").textContent = "off the bus: " + e.reason + "; joining again…";
    $("conn").className = "pill bad";
    if (!lostTimer) lostTimer = setTimeout(() => {
      if ($("form").hidden && !sent && document.body.dataset.phase !== "done")
        idle("The experimenter will be with you shortly.", "interrupted", "Please wait");
    }, LOST_MS);
    if (sent) {
      lost = true;
      $("result").className = "bad";
      $("result").textContent = "Not sent yet (the connection was lost): retrying…";
    }
  });
  bus.on("welcome", () => {
    clearTimeout(lostTimer);
    lostTimer = null;
    $("conn").textContent = "on the bus";
    $("conn").className = "pill ok";
    // sent at once, and again at the runner's next study.state: the runner may join
    // this dispatcher after the page
    if (sent) { sendAnswers(bus, "the connection was lost"); lost = true; }
  });
  bus.on("study.state", (m) => {
    if (sent && m.participant === sent.participant && (lost || Date.now() - sentAt >= STATE_RESEND_MS))
      sendAnswers(bus, lost ? "the connection was lost" : "no answer from the study runner");
  });
  setInterval(() => { if (sent && Date.now() - sentAt >= RESEND_MS) sendAnswers(bus, "no answer from the study runner"); }, 500);
  bus.on("study.state", (m) => {
    if (m.phase === "questionnaire" && m.questionnaire && !saved.has(key(m))) {
      if (!pending || key(pending) !== key(m)) show(m);
      document.body.dataset.phase = "questionnaire";
    } else if (!sent && !(m.phase === "questionnaire" && saved.has(key(m)))) {
      if (m.phase !== "ready") justSaved = false;
      idle(phaseText(m), m.phase, phaseHeading(m));
    }
  });
  bus.on("study.answered", (m) => {
    if (!sent || key(m) !== key(sent)) return;
    if (m.ok) {
      saved.add(key(sent));
      sent = null;
      justSaved = true;
      idle("Thank you: your answers are saved.", "saved");
      $("result").textContent = "";
    } else {
      sent = null;
      $("submit").disabled = false;
      $("result").className = "bad";
      $("result").textContent = "Not saved: " + m.error;
    }
  });
  $("form").onsubmit = (ev) => {
    ev.preventDefault();
    if (!pending) return;
    const answers = {}, unanswered = [];
    for (const it of pending.items || []) {
      const v = answerOf(it);
      const div = $("items").querySelector(`[data-item="${CSS.escape(it.id)}"]`);
      div.classList.toggle("missing", v === undefined);
      if (v === undefined) unanswered.push(it);
      else answers[it.id] = v;
    }
    $("form").dataset.unanswered = unanswered.map((it) => it.id).join(",");
    if (unanswered.length) {
      // nothing is sent: an item left alone is no answer
      $("result").className = "bad";
      $("result").textContent = "Not sent: please answer, or tick \"prefer not to answer\" for: " +
        unanswered.map((it) => it.text || it.id).join("; ");
      $("items").querySelector(".missing").scrollIntoView({ block: "center" });
      return;
    }
    sent = { study: pending.study, participant: pending.participant, drive: pending.drive,
      questionnaire: pending.questionnaire, source: "questionnaire-page", answers };
    tries = 0;
    $("submit").disabled = true;
    sendAnswers(bus, bus.closed ? "the connection was lost" : "");
  };
}
main();
