// questionnaire.js: the study runner's pending questionnaire for the test person (a
// tablet beside the simulator; docs/console.md). When study.state says phase
// "questionnaire", its items are shown (scales as sliders with their anchors, free
// text as a text box); "Send answers" publishes study.answer {study, participant,
// drive, questionnaire, source: "questionnaire-page", answers: {item: value}} and
// shows the runner's verdict, study.answered (ok once the answers are committed to the
// study database, or the error naming the item). The topics are the study runner's
// (common/protocol/sim_msg_study.h).
import { join } from "./simbus.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
let pending = null; // the study.state whose questionnaire is shown
let sent = null;    // the study.answer waiting for its verdict

const key = (m) => [m.study, m.participant, m.drive, m.questionnaire].join("/");

function show(state) {
  pending = state;
  $("status").hidden = true;
  $("form").hidden = false;
  $("result").textContent = "";
  $("submit").disabled = false;
  $("title").textContent = state.questionnaire;
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
      const input = document.createElement("input");
      Object.assign(input, { type: "range", name: it.id, min: it.min, max: it.max, step: it.step || 1 });
      input.value = String(it.min + Math.round((it.max - it.min) / 2 / (it.step || 1)) * (it.step || 1));
      const value = document.createElement("span");
      value.className = "value";
      value.textContent = input.value;
      input.oninput = () => { value.textContent = input.value; input.dataset.touched = "1"; };
      const anchors = document.createElement("div");
      anchors.className = "anchors";
      const lo = document.createElement("span"), hi = document.createElement("span");
      lo.textContent = `${it.min} ${it.low || ""}`;
      hi.textContent = `${it.high || ""} ${it.max}`;
      anchors.append(lo, value, hi);
      div.append(input, anchors);
    }
    box.appendChild(div);
  }
}

function idle(text) {
  pending = null;
  $("form").hidden = true;
  $("status").hidden = false;
  $("status").textContent = text;
}

async function main() {
  const bus = await join(params.get("name") || "questionnaire-page", { subscribe: ["study.state", "study.answered"] });
  window.questionnaireBus = bus;
  $("conn").textContent = "on the bus";
  $("conn").className = "pill ok";
  // between drives the study runner's own dispatcher takes over: the page joins again
  bus.on("close", (e) => { $("conn").textContent = "off the bus: " + e.reason + "; joining again…"; $("conn").className = "pill bad"; });
  bus.on("welcome", () => { $("conn").textContent = "on the bus"; $("conn").className = "pill ok"; });
  bus.on("study.state", (m) => {
    if (m.phase === "questionnaire" && m.questionnaire) {
      if (!pending || key(pending) !== key(m)) show(m);
    } else if (!sent) {
      idle(m.message || (m.phase === "done" ? "Thank you: the study is complete." : "Please wait: there is no questionnaire to answer now."));
    }
  });
  bus.on("study.answered", (m) => {
    if (!sent || key(m) !== key(sent)) return;
    if (m.ok) {
      sent = null;
      idle("Thank you: your answers are saved.");
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
    const answers = {};
    for (const it of pending.items || []) {
      const el = $("items").querySelector(`[name="${CSS.escape(it.id)}"]`);
      answers[it.id] = it.type === "text" ? el.value : Number(el.value);
    }
    sent = { study: pending.study, participant: pending.participant, drive: pending.drive,
      questionnaire: pending.questionnaire, source: "questionnaire-page", answers };
    bus.publish("study.answer", sent);
    $("submit").disabled = true;
    $("result").className = "note";
    $("result").textContent = "Sending…";
  };
}
main();
