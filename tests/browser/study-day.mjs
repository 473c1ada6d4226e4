// A study day as an experimenter runs it, at a virtual desktop: not a test (make test
// does not run it) but the day behind docs/study.md's pictures, run by
// tests/scripts/study_day_desktop.sh, which starts Xvfb and writes the study file (the
// example's conditions with short drives and a session section: fullscreen, the
// console, the scripted driver). Three participants; the operator's console and the
// test person's tablet in Chromium (opened once, kept open all day); every item
// answered through the page as a person would (one skipped); the console's Go before
// each drive. P02's runner is killed (kill -9) 4 s into drive 2, the pages are looked
// at 20 s later, and the same command resumes it. Pictures of every phase of P01's day
// and of the interruption go to DAY_DIR/shots; the pages' texts, as they change, to
// DAY_DIR/phases.txt.
import { chromium } from "playwright-core";
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const env = process.env;
const ROOT = env.SIM_ROOT, BIN = env.SIM_BIN, DIR = env.DAY_DIR;
const STUDY = DIR + "/study.json", OUT = DIR + "/out", SHOTS = DIR + "/shots";
const BUS = env.DAY_BUS, CTL = env.DAY_CONTROL, WEB = "http://" + env.DAY_CONSOLE;
const FB = env.DAY_FB; // Xvfb's frame buffer file: the driver's screen
fs.mkdirSync(SHOTS, { recursive: true });
const t0 = Date.now();
const log = (...a) => console.log(((Date.now() - t0) / 1000).toFixed(1).padStart(6), ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function runner(p, tag) {
  const f = fs.openSync(`${DIR}/${p}-${tag}.log`, "w");
  const c = spawn(BIN + "/simctl", ["study", "run", STUDY, "--participant", p, "--out", OUT, "--bus", BUS, "--control", CTL],
    { stdio: ["ignore", f, f] });
  c.done = new Promise((r) => c.on("exit", (code, sig) => r({ code, sig })));
  return c;
}
function driverShot(name) {
  execFileSync("python3", [ROOT + "/tests/scripts/xvfb_screen.py", FB, `${SHOTS}/${name}.png`]);
}
async function until(fn, what, ms = 900000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out waiting for " + what);
    await sleep(200);
  }
}
async function httpUp() {
  await until(async () => { try { return (await fetch(WEB + "/")).ok; } catch { return false; } }, "the console");
}
const phaseOf = (page) => page.evaluate(() => document.body.dataset.phase || "");
const statusOf = (page) => page.evaluate(() => document.getElementById("status").innerText);

// every item answered the way a person might: mid choices, SSQ "none" or "slight", one skipped
async function answer(tablet, skipOne) {
  await tablet.evaluate((skipOne) => {
    const items = [...document.querySelectorAll("#items .item")];
    items.forEach((div, i) => {
      const ta = div.querySelector("textarea");
      if (ta) { ta.value = i % 2 ? "" : "fine"; return; }
      if (skipOne && i === 2) { div.querySelector(".skip input").click(); return; }
      const radios = [...div.querySelectorAll("input[type=radio]")];
      if (radios.length === 4) radios[i % 3 === 0 ? 1 : 0].click();
      else if (radios.length) radios[Math.floor(radios.length / 2) - (i % 2)].click();
    });
  }, skipOne);
}

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
let tablet = null, op = null;
const seen = [];
async function phases(p) {
  // what the tablet and the console show, logged whenever it changes
  const tp = tablet ? await phaseOf(tablet).catch(() => "?") : "-";
  const ts = tablet ? await statusOf(tablet).catch(() => "?") : "-";
  const oc = op ? await op.locator("#conn").innerText().catch(() => "?") : "-";
  const ow = op ? await op.locator('#study').innerText().catch(() => "?") : "-";
  const s = `${p} tablet[${tp}] "${ts.replace(/\n/g, " ")}" | console[${oc}] ${ow.replace(/\n/g, "; ")}`;
  if (seen[seen.length - 1] !== s) { seen.push(s); log(s); }
}

async function day(p, opts = {}) {
  log(`== ${p}${opts.resume ? " (resumed)" : ""}`);
  const r = runner(p, opts.resume ? "b" : "a");
  await httpUp();
  if (!tablet) {
    tablet = await browser.newPage({ viewport: { width: 820, height: 700 } });
    await tablet.goto(WEB + "/questionnaire.html");
    op = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await op.goto(WEB + "/");
  }
  const mon = setInterval(() => phases(p).catch(() => {}), 300);
  const shoot = async (name) => {
    if (!opts.shots) return;
    driverShot(`${name}-driver`); // first: "done" lasts 3 s on the driver's screen
    await tablet.screenshot({ path: `${SHOTS}/${name}-tablet.png` });
    await op.screenshot({ path: `${SHOTS}/${name}-console.png` });
  };
  let drive = 0, q = 0;
  for (;;) {
    const ph = await until(async () => {
      if (r.exitCode !== null || r.signalCode !== null) return "exited";
      const goShown = await op.locator("#study-go").isVisible().catch(() => false);
      const tph = await phaseOf(tablet).catch(() => "");
      if (tph === "questionnaire" && await tablet.locator("#submit").isEnabled().catch(() => false)) return "questionnaire";
      if (goShown) return "go";
      // (the tablet still shows the last participant's "done" until this runner's state)
      if (tph === "done" && (await op.locator("#study").innerText().catch(() => "")).includes(p)) return "done";
      return "";
    }, "a phase that needs someone", 900000);
    if (ph === "go") {
      await sleep(1500);
      await shoot(drive === 0 ? "1-waiting" : "4-ready");
      drive++;
      log(`${p}: Go for drive ${drive} in the console`);
      await op.click("#study-go");
      await until(async () => (await phaseOf(tablet)) === "driving", "driving");
      if (drive === 1) { await sleep(8000); await shoot("2-driving"); }
      if (opts.kill && drive === 2) {
        await sleep(4000);
        log(`${p}: kill -9 of the runner (pid ${r.pid}) in drive 2`);
        process.kill(r.pid, "SIGKILL");
        await r.done;
        await sleep(20000); // what the tablet and console show with the runner gone
        await phases(p);
        if (opts.shots || opts.killShots) {
          await tablet.screenshot({ path: `${SHOTS}/k-killed-tablet.png` });
          await op.screenshot({ path: `${SHOTS}/k-killed-console.png` });
          driverShot("k-killed-driver");
        }
        clearInterval(mon);
        return "killed";
      }
    } else if (ph === "questionnaire") {
      q++;
      await sleep(500);
      await answer(tablet, q === 1);
      if (q === 1) await shoot("3-questionnaire");
      log(`${p}: answers sent (${await tablet.locator("#title").innerText()})`);
      const title = await tablet.locator("#title").innerText();
      await tablet.click("#submit");
      // saved: the next questionnaire (another title) or another phase; refused: said so
      await until(async () => {
        const res = await tablet.locator("#result").innerText();
        if (/Not saved|Not sent: please/.test(res)) throw new Error("the tablet says: " + res);
        return (await phaseOf(tablet)) !== "questionnaire" || (await tablet.locator("#title").innerText()) !== title;
      }, "the runner's verdict");
    } else if (ph === "done") {
      await sleep(500);
      await shoot("5-done");
      const res = await r.done;
      await sleep(3000);
      await phases(p);
      if (opts.shots) {
        await tablet.screenshot({ path: `${SHOTS}/6-after-tablet.png` });
        await op.screenshot({ path: `${SHOTS}/6-after-console.png` });
        driverShot("6-after-driver");
      }
      log(`${p}: runner exited ${JSON.stringify(res)}`);
      clearInterval(mon);
      return "done";
    } else {
      log(`${p}: runner exited ${JSON.stringify(await r.done)} in phase ${await phaseOf(tablet)}`);
      clearInterval(mon);
      return "exited";
    }
  }
}

try {
  await day("P01", { shots: true });
  if ((await day("P02", { kill: true, killShots: true })) === "killed") await day("P02", { resume: true });
  await day("P03");
} catch (e) {
  log("FAILED: " + e.message);
  process.exitCode = 1;
}
fs.writeFileSync(DIR + "/phases.txt", seen.join("\n") + "\n");
await browser.close();
process.exit(process.exitCode ?? 0); // the runner of a failed day may still run: not waited for
