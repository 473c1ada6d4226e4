// map.js: the console's top-down map on a canvas: the scenario's roads (from the
// console's --scenario), triggers, POIs and start points, the ego car and the traffic
// with their ids. World x east, y north; the whole scenario fits by default, or the
// view follows the ego at 2 px per metre (the default on the console page). The ego marker's position on the canvas is in
// canvas.dataset.egoX/egoY (pixels), for the browser tests.
export class MapView {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.map = null;
    this.ego = null;
    this.traffic = [];
    this.follow = false;
    this.flash = new Map(); // trigger id -> time it fired (ms)
    this.pending = false;
  }

  setMap(m) {
    this.map = m;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    const grow = (p) => { x0 = Math.min(x0, p[0]); y0 = Math.min(y0, p[1]); x1 = Math.max(x1, p[0]); y1 = Math.max(y1, p[1]); };
    for (const r of m.roads) { r.left.forEach(grow); r.right.forEach(grow); }
    for (const p of m.pois) grow([p.x, p.y]);
    if (!isFinite(x0)) { x0 = -100; y0 = -100; x1 = 100; y1 = 100; }
    this.bounds = { x0: x0 - 20, y0: y0 - 20, x1: x1 + 20, y1: y1 + 20 };
    this.schedule();
  }
  setEgo(state) { this.ego = state; this.schedule(); }
  setTraffic(v) { this.traffic = v; this.schedule(); }
  flashTrigger(id) { this.flash.set(id, performance.now()); this.schedule(); }

  schedule() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.draw(); });
  }

  // world -> canvas transform for the current view
  view() {
    const w = this.canvas.width, h = this.canvas.height;
    if (this.follow && this.ego) {
      const s = 2; // px per m
      const [ex, ey] = this.ego.pos;
      return { s, ox: w / 2 - ex * s, oy: h / 2 + ey * s };
    }
    const b = this.bounds || { x0: -100, y0: -100, x1: 100, y1: 100 };
    const s = Math.min(w / (b.x1 - b.x0), h / (b.y1 - b.y0));
    const cx = (b.x0 + b.x1) / 2, cy = (b.y0 + b.y1) / 2;
    return { s, ox: w / 2 - cx * s, oy: h / 2 + cy * s };
  }

  draw() {
    const { ctx, canvas } = this;
    const v = this.view();
    const X = (x) => v.ox + x * v.s, Y = (y) => v.oy - y * v.s;
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    const path = (pts) => { ctx.beginPath(); pts.forEach((p, i) => (i ? ctx.lineTo(X(p[0]), Y(p[1])) : ctx.moveTo(X(p[0]), Y(p[1])))); };
    if (this.map) {
      ctx.fillStyle = "#8a8f98";
      for (const r of this.map.roads) {
        path([...r.left, ...[...r.right].reverse()]);
        ctx.closePath();
        ctx.fill();
      }
      ctx.strokeStyle = "#fff";
      ctx.setLineDash([6, 6]);
      ctx.lineWidth = 1;
      for (const r of this.map.roads) { path(r.center); ctx.stroke(); }
      ctx.setLineDash([]);
      const now = performance.now();
      for (const t of this.map.triggers) {
        const fired = now - (this.flash.get(t.id) ?? -1e9) < 1500;
        ctx.fillStyle = fired ? "#ff8c0099" : "#ff8c0033";
        path(t.polygon); ctx.closePath(); ctx.fill();
        if (t.polygon.length) this.label(t.id, X(t.polygon[0][0]), Y(t.polygon[0][1]) - 4, "#a35400");
      }
      for (const p of this.map.pois) {
        ctx.fillStyle = "#1f5fbf";
        ctx.beginPath(); ctx.arc(X(p.x), Y(p.y), 4, 0, 2 * Math.PI); ctx.fill();
        this.label(p.name || p.id, X(p.x) + 6, Y(p.y) - 6, "#1f5fbf");
      }
      for (const s of this.map.starts) {
        ctx.fillStyle = "#2c7a3f";
        ctx.fillRect(X(s.x) - 2, Y(s.y) - 10, 3, 10);
        this.label(s.name, X(s.x) + 4, Y(s.y) - 10, "#2c7a3f");
      }
    }
    for (const a of this.traffic) this.car(X(a.pos[0]), Y(a.pos[1]), a.heading, a.size || [4.5, 1.8], v.s, "#3b4a6b", a.id);
    if (this.ego) {
      const ex = X(this.ego.pos[0]), ey = Y(this.ego.pos[1]);
      this.car(ex, ey, this.ego.heading, [4.5, 1.8], v.s, "#d62828", "ego");
      canvas.dataset.egoX = ex.toFixed(1);
      canvas.dataset.egoY = ey.toFixed(1);
    }
  }

  // A car: a rectangle at its size, or at least a 10 px arrow, and its id.
  car(x, y, heading, size, scale, color, id) {
    const { ctx } = this;
    const len = Math.max(size[0] * scale, 12), wid = Math.max(size[1] * scale, 6);
    ctx.save();
    ctx.translate(x, y);
    ctx.rotate(-heading);
    ctx.fillStyle = color;
    ctx.beginPath();
    ctx.moveTo(len / 2, 0);
    ctx.lineTo(len / 4, -wid / 2); ctx.lineTo(-len / 2, -wid / 2);
    ctx.lineTo(-len / 2, wid / 2); ctx.lineTo(len / 4, wid / 2);
    ctx.closePath();
    ctx.fill();
    ctx.restore();
    this.label(id, x + 8, y - 8, color);
  }

  label(s, x, y, color) {
    const { ctx } = this;
    ctx.font = "12px system-ui, sans-serif";
    ctx.fillStyle = "#ffffffcc";
    const w = ctx.measureText(s).width;
    ctx.fillRect(x - 2, y - 11, w + 4, 14);
    ctx.fillStyle = color;
    ctx.fillText(s, x, y);
  }
}
