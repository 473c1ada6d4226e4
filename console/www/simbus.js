// simbus.js: the bus from a browser page, through the console's gateway (docs/console.md).
// An ES module, no build step, no framework:
//
//   import { join } from "./simbus.js";
//   const bus = await join("hmi", { subscribe: ["vehicle.state"], role: "hmi" });
//   bus.on("vehicle.state", (msg) => { ... });
//   bus.publish("hmi.touch", { page: "hmi", target: "nav" }); // what its role may send
//   const answer = await bus.command("pause");        // the endpoint's reply: acted, refused, ...
//   const reply = await bus.request("poi.near", { x: 0, y: 0, radius: 500 }); // context server
//
// A page is a module on the bus: its hello carries its name and subscriptions, the
// dispatcher checks and limits it like any TCP client, and a page that falls behind is
// cut off (bus.on("close", ...) tells why). The token of a console listening off
// loopback travels as the cookie the console set when it served a page asked for with
// ?token=... (or in the WebSocket's URL when given to join).

const CONTEXT_REPLY = "context.reply";

export class Bus {
  constructor(ws, name) {
    this.ws = ws;
    this.name = name;
    this.seq = 0;
    this.t = 0;              // newest simulation time seen (sim.tick, vehicle.state)
    this.id = null;          // the dispatcher's id for this page
    this.peers = new Map();  // id -> name
    this.handlers = new Map();
    this.nextReq = 1;
    this.waiting = new Map();  // gateway requests and context requests by id
    this.closed = null;      // why, once closed
  }

  // Calls fn(msg) for every message whose topic starts with prefix ("" for all);
  // "console.error" are the gateway's refusals, "close" each end of the connection and
  // "welcome" each (re)joining, with the dispatcher's welcome.
  on(prefix, fn) {
    if (!this.handlers.has(prefix)) this.handlers.set(prefix, []);
    this.handlers.get(prefix).push(fn);
    return this;
  }

  _emit(topic, msg) {
    for (const [prefix, fns] of this.handlers) {
      if (prefix === "close" || prefix === "welcome") continue;
      if (topic.startsWith(prefix)) for (const fn of fns) fn(msg);
    }
  }

  _dispatch(msg) {
    const topic = msg.topic;
    if ((topic === "sim.tick" || topic === "vehicle.state") && typeof msg.t === "number") this.t = msg.t;
    if (topic === "dispatcher.joined") this.peers.set(msg.id, msg.name);
    if (topic === "dispatcher.left") this.peers.delete(msg.id);
    if ((topic === "console.reply" || topic === "console.roads") && this.waiting.has("g" + msg.req)) {
      const w = this.waiting.get("g" + msg.req);
      this.waiting.delete("g" + msg.req);
      if (msg.error !== undefined) w.reject(new Error(msg.error));
      else w.resolve(topic === "console.roads" ? msg.map : msg.reply);
    }
    if (topic === CONTEXT_REPLY && msg.to === this.name && this.waiting.has("c" + msg.id)) {
      const w = this.waiting.get("c" + msg.id);
      this.waiting.delete("c" + msg.id);
      w.resolve(msg);
    }
    this._emit(topic, msg);
  }

  // Publishes a message: topic, src (the page's name), seq and t (default: the newest
  // simulation time seen) in front of the fields.
  publish(topic, fields = {}, t = this.t) {
    if (this.closed) throw new Error("bus closed: " + this.closed);
    this.seq += 1;
    this.ws.send(JSON.stringify({ topic, src: this.name, seq: this.seq, t, ...fields }));
    return this.seq;
  }

  // Sends a frame as it is (tests use it for frames the gateway must refuse).
  sendRaw(text) {
    this.ws.send(text);
  }

  _gateway(topic, fields, timeoutMs) {
    const req = this.nextReq++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete("g" + req);
        reject(new Error(topic + ": no answer within " + timeoutMs + " ms"));
      }, timeoutMs);
      this.waiting.set("g" + req, {
        resolve: (v) => { clearTimeout(timer); resolve(v); },
        reject: (e) => { clearTimeout(timer); reject(e); },
      });
      this.ws.send(JSON.stringify({ topic, req, ...fields }));
    });
  }

  // An operator command through the dispatcher's control endpoint ("pause", "hud",
  // {text: ...}, ...): resolves to the endpoint's reply {ok, cmd, id, acted, refused,
  // silent, error} (docs/protocol.md), whether the modules acted or refused.
  command(cmd, fields = {}, timeoutMs = 8000) {
    return this._gateway("console.command", { cmd, ...fields }, timeoutMs);
  }

  // The scenario's map from the console (--scenario): {roads, pois, starts, triggers}.
  map(timeoutMs = 8000) {
    return this._gateway("console.roads", {}, timeoutMs);
  }

  // A context-server request (docs/context.md): op and its fields; resolves to the
  // context.reply (check .ok). The page must subscribe to context.reply (join does).
  request(op, fields = {}, timeoutMs = 5000) {
    const id = this.name + "-" + this.nextReq++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete("c" + id);
        reject(new Error("context.request " + op + ": no reply within " + timeoutMs + " ms"));
      }, timeoutMs);
      this.waiting.set("c" + id, { resolve: (v) => { clearTimeout(timer); resolve(v); }, reject });
      this.publish("context.request", { id, op, ...fields });
    });
  }

  // Leaves the bus for good (no reconnection).
  close() {
    this.leaving = true;
    this.ws.close(1000, "page left");
  }
}

// The WebSocket address of the console that served this page. role: what the page
// is (operator, hmi, surt, questionnaire: docs/console.md, "Page roles"), which
// decides what the console lets it send.
export function gatewayUrl(token, role) {
  const params = new URLSearchParams(location.search);
  // A token in the page's own address: the console answered it with an HttpOnly cookie
  // that the WebSocket carries, so it stays out of the WebSocket's URL and leaves the
  // address bar (docs/console.md, "The token").
  if (params.has("token")) {
    params.delete("token");
    const rest = params.toString();
    history.replaceState(history.state, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
  }
  const tok = token;
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const query = new URLSearchParams();
  if (role) query.set("role", role);
  if (tok) query.set("token", tok);
  const q = query.toString();
  return proto + "//" + location.host + "/bus" + (q ? "?" + q : "");
}

// Joins the bus as module `name`: resolves to a Bus once the dispatcher has welcomed
// the page, rejects with the dispatcher's or gateway's words if the first attempt is
// refused. options: subscribe (topic prefixes; context.reply is added), lockstep,
// acts_on, role, url, token, reconnect (default true: once joined, a page whose connection
// ends, say the study runner's dispatcher taking over between drives, joins again with
// backoff from 0.1 s doubling to 2 s; "close" handlers hear each loss and "welcome"
// handlers each new welcome).
export function join(name, options = {}) {
  const subscribe = options.subscribe ? [...options.subscribe] : null;
  if (subscribe && !subscribe.some((p) => CONTEXT_REPLY.startsWith(p))) subscribe.push(CONTEXT_REPLY);
  const hello = { topic: "hello", name };
  if (subscribe) hello.subscribe = subscribe;
  if (options.lockstep) hello.lockstep = true;
  if (options.acts_on) hello.acts_on = options.acts_on;
  const url = options.url ?? gatewayUrl(options.token, options.role);
  const reconnect = options.reconnect ?? true;
  let bus = null, backoff = 100;
  return new Promise((resolve, reject) => {
    const connect = () => {
      const ws = new WebSocket(url, "simbus");
      let welcomed = false;
      if (bus) bus.ws = ws;
      else bus = new Bus(ws, name);
      ws.onopen = () => ws.send(JSON.stringify(hello));
      ws.onmessage = (ev) => {
        let msg;
        try { msg = JSON.parse(ev.data); } catch { return; }
        if (!welcomed) {
          if (msg.topic === "dispatcher.welcome") {
            welcomed = true;
            backoff = 100;
            bus.closed = null;
            bus.id = msg.id;
            bus.peers = new Map();
            for (const p of msg.peers || []) bus.peers.set(p.id, p.name);
            if (!bus.joined) { bus.joined = true; resolve(bus); }
            for (const fn of bus.handlers.get("welcome") || []) fn(msg);
            return;
          }
          if (msg.topic === "dispatcher.error" || msg.topic === "console.error") {
            if (!bus.joined) reject(new Error(msg.error));
            ws.close();
            return;
          }
        }
        bus._dispatch(msg);
      };
      ws.onclose = (ev) => {
        bus.closed = ev.reason || "connection closed (code " + ev.code + ")";
        if (!bus.joined) { reject(new Error("not joined: " + bus.closed)); return; }
        for (const w of bus.waiting.values()) w.reject(new Error("bus closed: " + bus.closed));
        bus.waiting.clear();
        if (welcomed) for (const fn of bus.handlers.get("close") || []) fn({ reason: bus.closed, code: ev.code });
        if (reconnect && !bus.leaving) {
          setTimeout(connect, backoff);
          backoff = Math.min(backoff * 2, 2000);
        }
      };
    };
    connect();
  });
}
