// bench_console: vehicle.state to browser pages through the console's gateway, beside a
// TCP client of the same dispatcher in the same run (docs/performance.md, "Console").
//
// A publisher (a TCP client named "physics") sends a vehicle.state of the real size
// (wheels included) at 100 Hz with its send time (performance.timeOrigin + now, ms,
// which the browser's clock shares); a TCP subscriber and N pages in Debian's chromium
// (driven by playwright-core) each note the delay of every message. Printed: p50 and
// p99 latency of the TCP client and of the pages (all pages pooled) and their ratio, and
// the gateway's CPU (utime + stime of bin/console over the run, from /proc) per 1000
// messages/s delivered per page, for 1 page and for 20.
//
// Usage: node bench/bench_console.mjs [SECONDS]   (default 10 s per case; make bench)
import { spawn } from "node:child_process";
import net from "node:net";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = process.env.SIM_ROOT || path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const bin = process.env.SIM_BIN || path.join(root, "bin");
const { chromium } = await import(path.join(root, "tests/browser/node_modules/playwright-core/index.mjs"));
const SECONDS = Number(process.argv[2] || 10);
const HZ = 100;
const now = () => performance.timeOrigin + performance.now();

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

const until = async (fn, ms = 20000) => {
  const end = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > end) throw new Error("bench_console: timed out starting");
    await new Promise((r) => setTimeout(r, 50));
  }
};

function client(port, name, subscribe, onMsg) {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1", () => {
      s.setNoDelay(true);
      s.write(JSON.stringify({ topic: "hello", name, subscribe }) + "\n");
    });
    let buf = "";
    s.on("data", (d) => {
      buf += d.toString();
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (line.includes('"dispatcher.welcome"')) resolve(s);
        else if (onMsg) onMsg(line);
      }
    });
  });
}

function cpuSeconds(pid) {
  const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
}

const pct = (a, q) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };

// A vehicle.state as physics-node sends it (same fields and size).
function vehicleState(seq, t) {
  const wheel = (x, y) => ({ pos: [x, y, 0.3], omega: 55.5, travel: 0.012, steer: 0.01, load: 3900.5, fx: 120.25,
    fy: -33.5, slip_ratio: 0.004, slip_angle: -0.002, contact: true });
  return { topic: "vehicle.state", src: "physics", seq, t, speed: 16.7, pos: [120.5, -3.2, 0.5], heading: 0.01,
    pitch: 0.001, roll: 0.0, yaw_rate: 0.002, vel: [16.7, 0.1, 0], vel_body: [16.7, 0.02, 0], ang_vel_body: [0, 0, 0.002],
    accel_body: [0.3, 0.01, 0], gear: 3, rpm: 2712, steer_angle: 0.004, steer: 0.01, throttle: 0.3, brake: 0, clutch: 1,
    model: "full", s: 120.4, d: -3.2, lane: -1, lane_offset: 0.05,
    wheels: [wheel(1.2, 0.75), wheel(1.2, -0.75), wheel(-1.4, 0.75), wheel(-1.4, -0.75)], sent_ms: now() };
}

async function runCase(pages) {
  const P = await freePort(), C = await freePort(), W = await freePort();
  const disp = spawn(path.join(bin, "dispatcher"), ["--listen", "127.0.0.1:" + P, "--control", "tcp://127.0.0.1:" + C],
    { stdio: "ignore" });
  const gw = spawn(path.join(bin, "console"), ["--bus", "127.0.0.1:" + P, "--listen", "127.0.0.1:" + W,
    "--control", "tcp://127.0.0.1:" + C], { stdio: "ignore" });
  const base = "http://127.0.0.1:" + W;
  await until(async () => { try { return (await fetch(base + "/join.html")).ok; } catch { return false; } });
  const tcpLat = [];
  let measuring = false;
  const sub = await client(P, "tcp-subscriber", ["vehicle.state"], (line) => {
    if (measuring) tcpLat.push(now() - JSON.parse(line).sent_ms);
  });
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  const tabs = [];
  for (let i = 0; i < pages; i++) {
    const p = await browser.newPage();
    await p.goto(base + "/join.html");
    await p.evaluate(async (name) => {
      const { join } = await import("./simbus.js");
      const bus = await join(name, { subscribe: ["vehicle.state"] });
      window.lat = [];
      window.measuring = false;
      bus.on("vehicle.state", (m) => { if (window.measuring) window.lat.push(performance.timeOrigin + performance.now() - m.sent_ms); });
    }, "page-" + i);
    tabs.push(p);
  }
  const pub = await client(P, "physics", []);
  pub.setNoDelay(true);
  let seq = 0;
  const send = () => { seq++; pub.write(JSON.stringify(vehicleState(seq, seq / HZ)) + "\n"); };
  const timer = setInterval(send, 1000 / HZ);
  await new Promise((r) => setTimeout(r, 1000)); // warm-up
  await Promise.all(tabs.map((p) => p.evaluate(() => { window.measuring = true; })));
  measuring = true;
  const cpu0 = cpuSeconds(gw.pid), t0 = Date.now(), seq0 = seq;
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  const cpu1 = cpuSeconds(gw.pid), t1 = Date.now(), seq1 = seq;
  measuring = false;
  clearInterval(timer);
  const pageLat = (await Promise.all(tabs.map((p) => p.evaluate(() => { window.measuring = false; return window.lat; })))).flat();
  await browser.close();
  pub.destroy();
  sub.destroy();
  gw.kill("SIGTERM");
  disp.kill("SIGTERM");
  const rate = ((seq1 - seq0) / (t1 - t0)) * 1000; // msg/s per page
  const cpuShare = (cpu1 - cpu0) / ((t1 - t0) / 1000); // cores
  return { pages, rate, tcpLat, pageLat, cpuPer1000: (cpuShare * 100) / ((rate * pages) / 1000) };
}

console.log(`vehicle.state (${JSON.stringify(vehicleState(1, 0)).length} bytes) at ${HZ} Hz, ${SECONDS} s per case; latency in ms`);
console.log("pages   rate/page   TCP p50   TCP p99   page p50   page p99   p99 ratio   gateway CPU % per 1000 msg/s per page");
for (const n of [1, 20]) {
  const r = await runCase(n);
  const tp50 = pct(r.tcpLat, 0.5), tp99 = pct(r.tcpLat, 0.99), pp50 = pct(r.pageLat, 0.5), pp99 = pct(r.pageLat, 0.99);
  console.log(`${String(n).padStart(5)} ${r.rate.toFixed(1).padStart(11)} ${tp50.toFixed(2).padStart(9)} ${tp99.toFixed(2).padStart(9)}` +
    ` ${pp50.toFixed(2).padStart(10)} ${pp99.toFixed(2).padStart(10)} ${(pp99 / tp99).toFixed(2).padStart(10)}x` +
    ` ${r.cpuPer1000.toFixed(2).padStart(10)}   (${r.pageLat.length} page samples, ${r.tcpLat.length} TCP)`);
}
