// The page of `tutti monitor`: polls /api/jobs and /api/jobs/JOB every second and draws them as SVG.
// Nothing is fetched from anywhere but this server (its Content-Security-Policy says so too).
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const COLORS = ["#4fb3ff", "#3ecf8e", "#f5b83d", "#c792ea", "#ff8f5e", "#6be0d9", "#ff6fb5", "#a3d95b"];
const state = { job: null, heatMode: "bytes", failures: 0 };

function el(id) { return document.getElementById(id); }

function svgEl(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function text(parent, x, y, s, attrs) {
  const t = svgEl("text", Object.assign({ x: x, y: y }, attrs || {}), parent);
  t.textContent = s;
  return t;
}

function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

function bytes(n) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let u = 0;
  while (n >= 1024 && u < units.length - 1) { n /= 1024; u++; }
  return (u === 0 ? Math.round(n) : n.toFixed(n < 10 ? 1 : 0)) + " " + units[u];
}

function count(n) {
  if (n >= 1e9) return (n / 1e9).toFixed(1) + "G";
  if (n >= 1e6) return (n / 1e6).toFixed(1) + "M";
  if (n >= 1e4) return (n / 1e3).toFixed(1) + "k";
  return n >= 100 || Number.isInteger(n) ? String(Math.round(n)) : n.toFixed(1);
}

function nanos(ns) {
  if (ns <= 0) return "–";
  if (ns >= 1e9) return "≤ " + (ns / 1e9).toFixed(1) + " s";
  if (ns >= 1e6) return "≤ " + (ns / 1e6).toFixed(1) + " ms";
  if (ns >= 1e3) return "≤ " + (ns / 1e3).toFixed(0) + " µs";
  return "≤ " + ns + " ns";
}

function last(a) { return a && a.length ? a[a.length - 1] : 0; }

// A blue-to-yellow scale (dark for nothing, bright for the most).
function heatColor(f) {
  if (!(f > 0)) return "#1b232c";
  const stops = [[32, 52, 110], [33, 144, 141], [94, 201, 98], [253, 231, 37]];
  const x = Math.min(1, Math.max(0, f)) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x));
  const t = x - i;
  const c = stops[i].map((v, k) => Math.round(v + (stops[i + 1][k] - v) * t));
  return "rgb(" + c.join(",") + ")";
}

async function getJson(path) {
  const r = await fetch(path, { cache: "no-store" });
  if (!r.ok) throw new Error(path + ": " + r.status);
  return r.json();
}

async function poll() {
  try {
    const list = await getJson("api/jobs");
    drawJobs(list);
    if (state.job) {
      const job = await getJson("api/jobs/" + encodeURIComponent(state.job));
      drawJob(job);
    } else {
      drawNoJob();
    }
    state.failures = 0;
  } catch (e) {
    state.failures++;
    const live = el("live");
    live.className = "pill lost";
    live.textContent = "monitor unreachable";
  } finally {
    setTimeout(poll, 1000);
  }
}

function drawJobs(list) {
  el("control").textContent = list.control ? "control enabled" : "read-only";
  state.control = !!list.control;
  el("rail-control").classList.toggle("hidden", !state.control);
  const nav = el("jobs");
  const ids = list.jobs.map(j => j.job);
  const wanted = decodeURIComponent(location.hash.replace(/^#job=/, ""));
  if (wanted && ids.includes(wanted)) state.job = wanted;
  if (!state.job || !ids.includes(state.job)) {
    const running = list.jobs.find(j => j.running);
    state.job = running ? running.job : (ids[0] || null);
  }
  clear(nav);
  for (const j of list.jobs) {
    const b = document.createElement("button");
    b.textContent = j.job + " · " + j.ranks + (j.ranks === 1 ? " rank" : " ranks");
    b.className = (j.job === state.job ? "on " : "") + (j.running ? "" : "ended ") + (j.alerts ? "alerting" : "");
    b.dataset.job = j.job;
    b.title = j.running ? "running" : "ended";
    b.addEventListener("click", () => { state.job = j.job; location.hash = "job=" + encodeURIComponent(j.job); });
    nav.appendChild(b);
  }
}

function drawNoJob() {
  el("live").className = "pill muted";
  el("live").textContent = "no jobs";
  el("updated").textContent = "waiting for a job of this user on this host";
}

function drawJob(job) {
  const live = el("live");
  live.className = "pill " + (job.running ? "live" : "ended");
  live.textContent = job.running ? "live" : "ended";
  el("updated").textContent = "job " + job.job + " · " + new Date(job.atMillis).toLocaleTimeString();
  drawAlerts(job.alerts);
  drawCards(job);
  drawHeatmap(job);
  drawRanks(job);
  drawRails(job);
  drawCollectives(job);
  drawEngines(job);
}

// The offload engine's and the in-network aggregation's counters that are not 0, a row per rank and engine.
function drawEngines(job) {
  const body = el("engines").tBodies[0];
  clear(body);
  for (const r of job.ranks) {
    for (const [engine, counters] of [["offload", r.offload || {}], ["in-network", r.inNetwork || {}]]) {
      const shown = Object.entries(counters).filter(([, v]) => v !== 0);
      if (!shown.length) continue;
      const tr = document.createElement("tr");
      tr.dataset.engine = engine;
      for (const v of [r.rank, engine, shown.map(([k, v]) => k + " " + count(v)).join(", ")]) {
        const td = document.createElement("td");
        td.textContent = v;
        tr.appendChild(td);
      }
      body.appendChild(tr);
    }
  }
  if (!body.rows.length) emptyRow(body, 3, "no offloaded collective or in-network aggregation yet");
}

// One row across a table's columns saying it has nothing to show yet.
function emptyRow(body, columns, message) {
  const tr = document.createElement("tr");
  const td = document.createElement("td");
  td.colSpan = columns;
  td.textContent = message;
  tr.appendChild(td);
  body.appendChild(tr);
}

function drawAlerts(alerts) {
  const box = el("alerts");
  clear(box);
  box.classList.toggle("hidden", alerts.length === 0);
  for (const a of alerts) {
    const d = document.createElement("div");
    d.textContent = a.message;
    d.dataset.kind = a.kind;
    box.appendChild(d);
  }
}

function drawCards(job) {
  const failed = job.ranks.filter(r => r.state === "failed").length;
  const running = job.ranks.filter(r => r.state === "running").length;
  el("card-ranks").textContent = job.ranks.length;
  el("card-ranks-sub").textContent = failed ? failed + " failed" : running + " running of " + job.size;
  el("card-ranks").parentElement.classList.toggle("bad", failed > 0);
  const h = job.history;
  el("card-msgs").textContent = count(last(h.messagesPerSecond));
  el("card-msgs-sub").textContent = count(job.ranks.reduce((s, r) => s + r.shm.messagesSent + r.net.messagesSent, 0)) + " in all";
  el("card-bytes").textContent = bytes(last(h.bytesPerSecond)) + "/s";
  el("card-bytes-sub").textContent = bytes(job.ranks.reduce((s, r) => s + r.shm.bytesSent + r.net.bytesSent, 0)) + " in all";
  const colls = h.collectives.reduce((s, c) => s + last(c.callsPerSecond), 0);
  el("card-colls").textContent = count(colls);
  el("card-colls-sub").textContent = count(job.collectives.reduce((s, c) => s + c.calls, 0)) + " calls in all";
  const retx = h.rails.reduce((s, r) => s + last(r.retransmitsPerSecond), 0);
  el("card-retx").textContent = count(retx);
  const down = job.ranks.reduce((s, r) => s + r.rails.filter(x => x.state.startsWith("down")).length, 0);
  el("card-retx-sub").textContent = h.rails.length ? (down ? down + " rail(s) down" : h.rails.length + " rail(s)") : "no network rails";
  el("card-retx").parentElement.classList.toggle("bad", down > 0);
}

function heatValues(job) {
  if (state.heatMode === "rate") return job.heatmap.bytesPerSecond || job.heatmap.bytes.map(row => row.map(() => 0));
  return state.heatMode === "messages" ? job.heatmap.messages : job.heatmap.bytes;
}

function drawHeatmap(job) {
  const svg = el("heatmap");
  clear(svg);
  const m = heatValues(job);
  const n = m.length;
  const w = svg.clientWidth || 600, h = svg.clientHeight || 320;
  svg.setAttribute("viewBox", "0 0 " + w + " " + h);
  if (n === 0) { text(svg, 20, 30, "no ranks with counters", { class: "empty" }); return; }
  const failed = new Set(job.ranks.filter(r => r.state === "failed").map(r => r.rank));
  const left = 48, top = 22, legend = 60;
  const side = Math.max(4, Math.min((w - left - legend) / n, (h - top - 8) / n));
  let max = 0;
  for (const row of m) for (const v of row) max = Math.max(max, v);
  const fmt = state.heatMode === "messages" ? count : state.heatMode === "rate" ? (v => bytes(v) + "/s") : bytes;
  const labelEvery = Math.ceil(n / 32);
  for (let r = 0; r < n; r++) {
    if (r % labelEvery === 0 || failed.has(r)) {
      text(svg, left - 6, top + side * (r + 0.5) + 4, String(r), { "text-anchor": "end", class: failed.has(r) ? "failed-label" : "" });
      text(svg, left + side * (r + 0.5), top - 6, String(r), { "text-anchor": "middle", class: failed.has(r) ? "failed-label" : "" });
    }
    for (let p = 0; p < n; p++) {
      const v = m[r][p];
      const f = max > 0 ? Math.sqrt(v / max) : 0;
      const cell = svgEl("rect", {
        x: left + side * p, y: top + side * r, width: side, height: side, class: "cell",
        fill: r === p ? "#11171d" : heatColor(f),
        "data-from": r, "data-to": p, "data-value": v
      }, svg);
      const t = svgEl("title", {}, cell);
      t.textContent = "rank " + r + " → rank " + p + ": " + fmt(v);
      if (side >= 38 && r !== p) {
        const label = text(svg, left + side * (p + 0.5), top + side * (r + 0.5) + 4, fmt(v), { "text-anchor": "middle", class: "cell-text" });
        label.style.fill = f > 0.45 ? "#0f1419" : "#d8dee6"; // dark on the bright end of the scale
      }
    }
  }
  for (const r of failed) {
    if (r >= n) continue;
    svgEl("rect", { x: left, y: top + side * r, width: side * n, height: side, class: "failed-line" }, svg);
    svgEl("rect", { x: left + side * r, y: top, width: side, height: side * n, class: "failed-line" }, svg);
  }
  // the scale
  const lx = left + side * n + 16, steps = 24, lh = Math.min(side * n, 220);
  for (let i = 0; i < steps; i++) {
    svgEl("rect", { x: lx, y: top + lh * (1 - (i + 1) / steps), width: 12, height: lh / steps + 0.5,
      fill: heatColor(Math.sqrt((i + 1) / steps)) }, svg);
  }
  text(svg, lx, top - 6, fmt(max), { class: "legend" });
  text(svg, lx, top + lh + 14, "0", { class: "legend" });
  svg.dataset.max = max;
}

function drawRanks(job) {
  const body = el("ranks").tBodies[0];
  clear(body);
  for (const r of job.ranks) {
    const tr = document.createElement("tr");
    // blocked for a second or more; shorter waits are the ordinary rhythm of a running job
    const waiting = r.state === "running" && r.blocked && job.atMillis - r.blocked.sinceMillis >= 1000;
    const shown = waiting ? "blocked" : r.state;
    tr.className = "rank " + r.state;
    tr.dataset.rank = r.rank;
    tr.dataset.state = r.state;
    const errors = Object.values(r.errors).reduce((s, v) => s + v, 0);
    const colls = r.collectives.reduce((s, c) => s + c.calls, 0);
    let blocked = "–";
    if (r.blocked && r.state === "running") {
      const secs = Math.max(0, (job.atMillis - r.blocked.sinceMillis) / 1000).toFixed(1);
      blocked = r.blocked.call + (r.blocked.peer >= 0 ? " rank " + r.blocked.peer : "") + (r.blocked.tag >= 0 ? " tag " + r.blocked.tag : "") + ", " + secs + " s";
    }
    const cells = [r.rank, r.pid, null, count(r.shm.messagesSent + r.net.messagesSent), bytes(r.shm.bytesSent + r.net.bytesSent),
      count(r.shm.messagesReceived + r.net.messagesReceived), count(colls), blocked, errors];
    cells.forEach((c, i) => {
      const td = document.createElement("td");
      if (i === 2) {
        const pill = document.createElement("span");
        pill.className = "pill " + shown;
        pill.textContent = shown;
        td.appendChild(pill);
      } else {
        td.textContent = c;
      }
      tr.appendChild(td);
    });
    body.appendChild(tr);
  }
}

// A line chart of series [{name, values}] at the times given, over the last two minutes.
function lineChart(svg, times, series, fmt, empty) {
  clear(svg);
  const w = svg.clientWidth || 600, h = svg.clientHeight || 210;
  svg.setAttribute("viewBox", "0 0 " + w + " " + h);
  if (!series.length || times.length === 0) {
    text(svg, 20, 30, times.length === 0 ? "collecting samples…" : empty, { class: "empty" });
    svg.dataset.last = 0;
    return;
  }
  const left = 62, right = 10, top = 10, bottom = 38;
  const now = times[times.length - 1], span = 120000;
  let max = 0;
  for (const s of series) for (const v of s.values) max = Math.max(max, v);
  const nice = niceMax(max);
  const x = t => left + (w - left - right) * (1 - (now - t) / span);
  const y = v => top + (h - top - bottom) * (1 - v / nice);
  for (let i = 0; i <= 4; i++) {
    const v = nice * i / 4;
    svgEl("line", { x1: left, x2: w - right, y1: y(v), y2: y(v), class: i === 0 ? "axis" : "grid-line" }, svg);
    text(svg, left - 6, y(v) + 4, fmt(v), { "text-anchor": "end" });
  }
  for (const [label, back] of [["-2 min", 120000], ["-1 min", 60000], ["now", 0]]) {
    text(svg, x(now - back), h - bottom + 16, label, { "text-anchor": back === 0 ? "end" : "middle" });
  }
  let lastSum = 0, legendX = left;
  series.forEach((s, k) => {
    const color = s.color || COLORS[k % COLORS.length];
    const pts = [];
    times.forEach((t, i) => { if (now - t <= span) pts.push([x(t), y(s.values[i])]); });
    if (pts.length) {
      const d = "M" + pts.map(p => p[0].toFixed(1) + "," + p[1].toFixed(1)).join("L");
      svgEl("path", { d: d + "L" + pts[pts.length - 1][0].toFixed(1) + "," + y(0) + "L" + pts[0][0].toFixed(1) + "," + y(0) + "Z",
        fill: color, class: "area" }, svg);
      svgEl("path", { d: d, stroke: color, class: "series", "data-name": s.name, "data-last": last(s.values),
        "data-max": Math.max(...s.values) }, svg);
    }
    lastSum += last(s.values);
    svgEl("rect", { x: legendX, y: h - 14, width: 10, height: 10, fill: color }, svg);
    const t = text(svg, legendX + 14, h - 5, s.name + " " + fmt(last(s.values)), { class: "legend" });
    legendX += 24 + (s.name.length + 10) * 6.2;
    void t;
  });
  svg.dataset.last = lastSum;
  svg.dataset.max = max;
}

function niceMax(v) {
  if (!(v > 0)) return 1;
  const e = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * e >= v) return m * e;
  return 10 * e;
}

function drawRails(job) {
  const h = job.history;
  const chips = el("rail-states");
  clear(chips);
  const states = new Map();
  for (const r of job.ranks) for (const rail of r.rails) {
    const key = rail.index + " " + rail.name;
    const worst = states.get(key);
    if (!worst || rail.state.startsWith("down") || (rail.state === "busy" && !worst.startsWith("down"))) states.set(key, rail.state);
  }
  for (const [key, st] of states) {
    const c = document.createElement("span");
    c.className = "chip " + st;
    c.dataset.state = st;
    c.textContent = "rail " + key + ": " + st;
    if (state.control) {
      // an operator's rail goes down and up here as with `tutti rail JOB down|up RAIL`
      const action = st === "down (admin)" ? "up" : "down";
      const b = document.createElement("button");
      b.className = "rail-action";
      b.dataset.rail = key.split(" ")[0];
      b.dataset.action = action;
      b.textContent = action === "up" ? "bring up" : "take down";
      b.addEventListener("click", () => railAction(b.dataset.rail, action));
      c.appendChild(b);
    }
    chips.appendChild(c);
  }
  const rate = v => bytes(v) + "/s";
  const none = "no network rails: this job talks through shared memory";
  lineChart(el("rail-throughput"), h.atMillis, h.rails.map(r => ({ name: "rail " + r.index + " (" + r.name + ")", values: r.bytesPerSecond })), rate, none);
  lineChart(el("rail-retransmits"), h.atMillis, h.rails.map(r => ({ name: "rail " + r.index, values: r.retransmitsPerSecond,
    color: "#ff8f5e" })), v => count(v) + "/s", none);
}

// Posts a rail action with the token typed on the page; shows each rank's answer, or why not.
async function railAction(rail, action) {
  const out = el("rail-action-result");
  const token = el("token").value.trim();
  if (!token) {
    out.textContent = "type the monitor's token first (the file given to --token-file)";
    out.dataset.status = "";
    return;
  }
  out.textContent = "rail " + rail + ": " + action + "…";
  try {
    const r = await fetch("/api/jobs/" + encodeURIComponent(state.job) + "/rails/" + encodeURIComponent(rail) + "/" + action,
      { method: "POST", headers: { "Authorization": "Bearer " + token } });
    const body = await r.text();
    let said = body.trim();
    try {
      said = JSON.parse(body).outcomes.map(o => "rank " + o.rank + ": " + o.message).join("; ");
    } catch (e) {
      // not JSON: the server's reason as it wrote it
    }
    out.textContent = said;
    out.dataset.status = String(r.status);
  } catch (e) {
    out.textContent = "the monitor is unreachable";
    out.dataset.status = "";
  }
}

function drawCollectives(job) {
  const h = job.history;
  lineChart(el("collective-rate"), h.atMillis, h.collectives.map(c => ({ name: c.operation, values: c.callsPerSecond })),
    v => count(v) + "/s", "no collective called yet");
  const body = el("latency").tBodies[0];
  clear(body);
  // each operation, then a row per algorithm that ran it (the selector's choice or the one forced)
  const row = (name, c) => {
    const tr = document.createElement("tr");
    for (const v of [name, count(c.calls), nanos(c.p50Nanos), nanos(c.p90Nanos), nanos(c.p99Nanos)]) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.appendChild(td);
    }
    const td = document.createElement("td");
    td.appendChild(histogram(c.log2Histogram));
    tr.appendChild(td);
    body.appendChild(tr);
    return tr;
  };
  for (const c of job.collectives) {
    row(c.operation, c).dataset.operation = c.operation;
    for (const a of c.algorithms || []) {
      const tr = row("\u21b3 " + a.algorithm, a);
      tr.dataset.algorithm = a.algorithm;
      tr.className = "algorithm";
    }
  }
  if (!job.collectives.length) emptyRow(body, 6, "no collective called yet");
}

// The log2 buckets from 1 µs to 1 s as bars, so a slow tail shows at a glance.
function histogram(h) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 120 18");
  svg.setAttribute("class", "hist");
  svg.setAttribute("width", "120");
  svg.setAttribute("height", "18");
  const from = 10, to = 30;
  let max = 0;
  for (let i = from; i < to; i++) max = Math.max(max, h[i] || 0);
  for (let i = from; i < to; i++) {
    const v = h[i] || 0;
    const bh = max > 0 ? Math.max(v > 0 ? 1 : 0, 16 * v / max) : 0;
    svgEl("rect", { x: (i - from) * 6, y: 17 - bh, width: 5, height: bh, fill: "#4fb3ff" }, svg);
  }
  const t = svgEl("title", {}, svg);
  t.textContent = "calls by latency, 1 µs (left) to 1 s (right), each bar a doubling";
  return svg;
}

document.addEventListener("DOMContentLoaded", () => {
  for (const b of el("heat-mode").querySelectorAll("button")) {
    b.addEventListener("click", () => {
      state.heatMode = b.dataset.mode;
      for (const o of el("heat-mode").querySelectorAll("button")) o.classList.toggle("on", o === b);
    });
  }
  poll();
});
