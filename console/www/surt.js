// surt.js: the Surrogate Reference Task (ISO/TS 14198) as an HMI page (docs/console.md).
// Each trial shows distractor circles and one target circle, larger, somewhere on a
// field divided into COLUMNS columns; the test person touches the column holding the
// target. Self-paced: the next display follows the touch at once. Every response is
// published as surt.response {trial, correct, rt_ms, level, target, chosen} (defined
// in common/protocol/sim_msg_hmi.h) stamped with the simulation time; rt_ms runs from
// the display's onset to the touch.
//
// Levels: easy, distractors 60 % of the target's diameter; hard, 85 % and more of
// them. URL parameters: level=easy|hard, seed=N (the same displays every time), name.
import { joinHmi, showConnection } from "./hmi.js";

export const COLUMNS = 4;
export const LEVELS = {
  easy: { distractors: 30, ratio: 0.6 },
  hard: { distractors: 50, ratio: 0.85 },
};
const W = 800, H = 480, TARGET_R = 22;

// mulberry32: a small seeded generator, so that a study can show every participant the
// same sequence of displays.
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// One display: circles that do not overlap, the first the target.
export function layout(level, random) {
  const { distractors, ratio } = LEVELS[level];
  const circles = [];
  const free = (x, y, r) => circles.every((c) => Math.hypot(c.x - x, c.y - y) > c.r + r + 4);
  for (let i = 0; i <= distractors; i++) {
    const r = i === 0 ? TARGET_R : TARGET_R * ratio;
    for (let tries = 0; tries < 500; tries++) {
      const x = r + 4 + random() * (W - 2 * r - 8), y = r + 4 + random() * (H - 2 * r - 8);
      // keep circles off the column borders, so that each belongs to one column
      const col = Math.floor(x / (W / COLUMNS)), left = col * (W / COLUMNS);
      if (x - r < left + 3 || x + r > left + W / COLUMNS - 3) continue;
      if (free(x, y, r)) { circles.push({ x, y, r, target: i === 0, col }); break; }
    }
  }
  return circles;
}

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
let level = params.get("level") in LEVELS ? params.get("level") : "easy";
const random = rng(Number(params.get("seed") ?? Date.now()));
const svg = $("field");
let trial = 0, correctCount = 0, onset = 0, current = null;

function show() {
  current = layout(level, random);
  const ns = "http://www.w3.org/2000/svg";
  svg.replaceChildren();
  for (let c = 1; c < COLUMNS; c++) {
    const l = document.createElementNS(ns, "line");
    l.setAttribute("x1", (c * W) / COLUMNS); l.setAttribute("x2", (c * W) / COLUMNS);
    l.setAttribute("y1", 0); l.setAttribute("y2", H);
    l.setAttribute("class", "border");
    svg.appendChild(l);
  }
  for (const c of current) {
    const e = document.createElementNS(ns, "circle");
    e.setAttribute("cx", c.x.toFixed(1)); e.setAttribute("cy", c.y.toFixed(1)); e.setAttribute("r", c.r.toFixed(1));
    if (c.target) e.setAttribute("data-target", "1");
    svg.appendChild(e);
  }
  svg.dataset.target = current[0].col; // for the browser tests; the participant sees circles
  onset = performance.now();
}

async function main() {
  const bus = await joinHmi("surt", ["sim.tick"], "surt");
  window.surtBus = bus;
  showConnection(bus, $("conn"));
  $("level").value = level;
  $("level").onchange = (e) => { level = e.target.value; show(); };
  svg.addEventListener("pointerdown", (ev) => {
    if (!current || bus.closed) return;
    const rect = svg.getBoundingClientRect();
    const chosen = Math.min(COLUMNS - 1, Math.floor(((ev.clientX - rect.left) / rect.width) * COLUMNS));
    const rt_ms = Math.round((performance.now() - onset) * 10) / 10;
    trial += 1;
    const correct = chosen === current[0].col;
    if (correct) correctCount += 1;
    const response = { trial, correct, rt_ms, level, target: current[0].col, chosen };
    bus.publish("surt.response", response);
    window.surtLast = { ...response, t: bus.t };
    $("score").textContent = `trial ${trial}: ${correct ? "correct" : "wrong"} in ${rt_ms.toFixed(0)} ms · ${correctCount}/${trial} correct`;
    show();
  });
  show();
}
main();
