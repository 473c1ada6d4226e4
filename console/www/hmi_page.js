// The in-car HMI page (hmi.html): its script, in a file of its own so that the
// console's Content-Security-Policy (script-src 'self') needs no inline script.
import { joinHmi, logTouches, showConnection } from "./hmi.js";
const $ = (id) => document.getElementById(id);
const bus = await joinHmi("hmi", ["vehicle.state", "traffic.state", "context."]);
window.hmiBus = bus;
showConnection(bus, $("conn"));
logTouches(bus, document.body, bus.name);
bus.on("vehicle.state", (m) => {
  $("t").textContent = m.t.toFixed(1);
  $("speed").textContent = (m.speed * 3.6).toFixed(0);
  $("gear").textContent = m.gear;
  $("rpm").textContent = Math.round(m.rpm);
  $("lane").textContent = m.lane ?? "off road";
});
bus.on("traffic.state", (m) => {
  $("lead").textContent = m.lead ? `${m.lead.id}, ${m.lead.gap.toFixed(0)} m` +
    (m.lead.thw != null ? `, ${m.lead.thw.toFixed(1)} s` : "") : "none";
});
bus.on("context.guidance", (m) => {
  $("next").textContent = m.arrived ? "arrived" : `${m.next} in ${m.distance.toFixed(0)} m`;
});
bus.on("context.nearby", (m) => {
  $("nearby").textContent = m.event === "enter" ? `${m.name} (${m.category}), ${m.distance.toFixed(0)} m` : "–";
});
