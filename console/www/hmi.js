// hmi.js: what the in-car HMI pages share (docs/console.md): joining the bus under the
// page's name (?name=, default given), and logging touches. Every element with a
// data-touch attribute reports a touch as hmi.touch {page, target, x, y}, stamped with
// the newest simulation time, which the recorder keeps as an event of kind "hmi".
import { join } from "./simbus.js";

export async function joinHmi(defaultName, subscribe, role = "hmi") {
  const params = new URLSearchParams(location.search);
  return join(params.get("name") || defaultName, { subscribe, role });
}

export function logTouches(bus, root, page) {
  root.addEventListener("pointerdown", (ev) => {
    const el = ev.target.closest("[data-touch]");
    if (!el || bus.closed) return;
    bus.publish("hmi.touch", { page, target: el.dataset.touch, x: Math.round(ev.clientX), y: Math.round(ev.clientY) });
  });
}

// Shows "on the bus" / "off the bus: why" in el.
export function showConnection(bus, el) {
  el.textContent = "on the bus as " + bus.name;
  el.className = "pill ok";
  bus.on("close", (e) => { el.textContent = "off the bus: " + e.reason + "; joining again…"; el.className = "pill bad"; });
  bus.on("welcome", () => { el.textContent = "on the bus as " + bus.name; el.className = "pill ok"; });
}
