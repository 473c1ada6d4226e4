// The console's Hosts table in Debian's chromium (playwright-core): a dispatcher and a
// console, and a bus client in simctl's place publishing what `simctl run --lab` does
// (session.clock of two hosts, then session.host lost for one). Checks the rows as the
// operator sees them; SIM_SCREENSHOT_DIR set: docs' picture console-hosts.png.
import { chromium } from "playwright-core";
import { spawn } from "node:child_process";
import net from "node:net";
import fs from "node:fs";
import path from "node:path";

const env = process.env;
const bin = env.SIM_BIN, root = env.SIM_ROOT, tmp = env.TEST_TMP;
const [P, C, W] = env.TEST_PORTS.split(" ").map(Number);
const WAIT = 30000 * Math.max(1, Number(env.SIM_TEST_SLOWDOWN) || 1);
const procs = [];
let failures = 0;
const check = (name, cond, why = "") => {
  if (cond) console.log("ok   " + name);
  else { failures++; console.log("FAIL " + name + (why ? ": " + why : "")); }
};
function start(exe, args, logName) {
  const log = fs.openSync(path.join(tmp, logName), "w");
  const p = spawn(path.join(bin, exe), args, { cwd: root, stdio: ["ignore", log, log] });
  procs.push(p);
  return p;
}
async function until(fn, what) {
  const end = Date.now() + WAIT;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out waiting for " + what);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const connect = (port) => new Promise((resolve, reject) => {
  const s = net.connect(port, "127.0.0.1", () => resolve(s));
  s.on("error", reject);
});

let browser;
try {
  start("dispatcher", ["--listen", "127.0.0.1:" + P, "--control", "tcp://127.0.0.1:" + C], "dispatcher.log");
  start("console", ["--bus", "127.0.0.1:" + P, "--listen", "127.0.0.1:" + W], "console.log");
  await until(async () => (await fetch(`http://127.0.0.1:${W}/`)).ok, "the console's page");
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`http://127.0.0.1:${W}/`);
  await page.waitForSelector("#conn.ok", { timeout: WAIT });
  check("no Hosts table without a lab", await page.locator("#hosts-panel").isHidden());

  const sim = await until(() => connect(P), "the dispatcher");
  let seq = 0;
  const send = (topic, fields) => sim.write(JSON.stringify({ topic, src: "simctl", seq: seq++, t: 12.5, ...fields }) + "\n");
  sim.write(JSON.stringify({ topic: "hello", name: "simctl", subscribe: [] }) + "\n");
  send("session.clock", { host: "sim", offset_ms: 0.05, mono_offset_ms: 0.05, rtt_ms: 0.738, samples: 20,
    answered: 20, sync: "chrony", synced: true });
  send("session.clock", { host: "aux", offset_ms: -0.107, mono_offset_ms: 6999.893, rtt_ms: 1.338, samples: 20,
    answered: 20, sync: "none", synced: false });
  await page.waitForSelector('#hosts tr[data-host="aux"]', { timeout: WAIT });
  const cells = async (h) => page.locator(`#hosts tr[data-host="${h}"] td`).allInnerTexts();
  let aux = await cells("aux");
  check("aux's row: up, offsets, round trip, sync",
    JSON.stringify(aux) === JSON.stringify(["aux", "up", "-0.107 ms", "+6999.893 ms", "1.338 ms", "none (kernel not synchronised)"]),
    JSON.stringify(aux));
  const simRow = await cells("sim");
  check("sim's row", simRow[1] === "up" && simRow[2] === "+0.050 ms" && simRow[5] === "chrony", JSON.stringify(simRow));
  send("session.host", { host: "aux", state: "lost", reason: "no answer to the clock exchange for 700 ms", silent_ms: 712 });
  await until(async () => (await cells("aux"))[1].startsWith("LOST"), "aux shown lost");
  aux = await cells("aux");
  check("aux lost: said with the reason, in red",
    aux[1] === "LOST: no answer to the clock exchange for 700 ms" &&
    (await page.locator('#hosts tr[data-host="aux"] td').nth(1).getAttribute("class")) === "bad", JSON.stringify(aux));
  if (env.SIM_SCREENSHOT_DIR)
    await page.locator("#modules-panel").screenshot({ path: path.join(env.SIM_SCREENSHOT_DIR, "console-hosts.png") });
  check("no page errors", errors.length === 0, errors.join("; "));
  sim.destroy();
} catch (e) {
  failures++;
  console.log("FAIL " + e.message);
} finally {
  if (browser) await browser.close();
  for (const p of procs) p.kill();
}
process.exit(failures ? 1 : 0);
