// soakd's page: the run list (#/), one run (#/run/ID), a scenario's
// history (#/scenario/NAME) and its running run (#/scenario/NAME/current,
// what alerts link), all from the daemon's JSON API. Plain
// script, no libraries, nothing fetched from elsewhere. Data from the
// API only ever goes into the page as text, never as markup.
"use strict";

const TOKEN_KEY = "soakd-token";
const POLL_MS = 1000;
let timer = null; // the current view's refresh
let live = null;  // the run page's series, kept while it stays open

// ---- helpers ---------------------------------------------------------

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null) continue;
    if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  for (const k of kids) {
    if (k === undefined || k === null) continue;
    e.append(k instanceof Node ? k : String(k));
  }
  return e;
}

const SVGNS = "http://www.w3.org/2000/svg";
function svg(tag, attrs, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function msg(text, kind) {
  const m = document.getElementById("msg");
  m.textContent = text || "";
  m.className = kind || "";
}

function token() { return sessionStorage.getItem(TOKEN_KEY) || ""; }

function showTokenState() {
  document.getElementById("token-state").textContent = token() ? "token set for this tab" : "no token: read-only";
}

async function getJSON(path) {
  const r = await fetch(path, { cache: "no-store" });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(body.error || (r.status + " " + r.statusText));
  return body;
}

// post sends a call that needs the token; without one it is sent
// anyway, so the refusal shown is the daemon's own.
async function post(path, body) {
  const headers = { "Content-Type": "application/json" };
  if (token()) headers["Authorization"] = "Bearer " + token();
  const r = await fetch(path, { method: "POST", headers, body: body === undefined ? "" : JSON.stringify(body) });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) {
    const why = data.error || (r.status + " " + r.statusText);
    throw new Error(r.status === 401 ? "refused: " + why + " (enter the token above)" : why);
  }
  return data;
}

function fmtTime(s) {
  if (!s) return "";
  const d = new Date(s);
  return isNaN(d) ? "" : d.toLocaleString();
}

function fmtRate(v) {
  if (v === undefined || v === null) return "";
  return v >= 1000 ? (v / 1000).toFixed(v >= 10000 ? 0 : 1) + "k/s" : v.toFixed(v >= 100 ? 0 : 1) + "/s";
}

function fmtSec(v) {
  if (v === undefined || v === null || !isFinite(v)) return "";
  if (v >= 1) return v.toPrecision(3) + " s";
  if (v >= 1e-3) return (v * 1e3).toPrecision(3) + " ms";
  return (v * 1e6).toPrecision(3) + " µs";
}

function slo(e) {
  if (e.slo_passed === undefined || e.slo_passed === null) return el("span", { class: "muted" }, "—");
  return e.slo_passed ? el("span", { class: "good" }, "pass") : el("span", { class: "bad" }, "FAIL");
}

function verdictText(v) {
  if (!v) return el("span", { class: "muted" }, "—");
  if (v.not_judged) return el("span", { class: "muted", title: v.not_judged }, "not judged");
  if (v.regressed) {
    const which = (v.ops || []).filter(o => o.regressed).map(o => o.phase + "/" + o.op);
    return el("span", { class: "bad", title: which.join(", ") }, "REGRESSED " + which.join(", "));
  }
  return el("span", { class: "good" }, "no regression (" + v.history + " runs)");
}

function stateCell(s) { return el("span", { class: "state-" + s }, s); }

function runLink(id) { return el("a", { href: "#/run/" + encodeURIComponent(id) }, id); }
function scenarioLink(n) { return el("a", { href: "#/scenario/" + encodeURIComponent(n) }, n); }

// ---- chart -----------------------------------------------------------

// drawChart draws series [{name, color, dash, step, points: [[t, v], ...]}]
// into svg element s, x being time in ms and y starting at 0; fmt labels
// the y ticks. opts.xfmt(t, t0, t1) labels the x ticks (default: seconds
// since the first point); opts.marks [{t, label, color}] are vertical
// lines (change points, verdicts). A step series holds each value until
// the next (a target rate). s.dataset.points is the longest series' length.
function drawChart(s, series, fmt, opts) {
  opts = opts || {};
  const W = 900, H = 240, L = 70, R = 12, T = 12, B = 28;
  s.setAttribute("viewBox", `0 0 ${W} ${H}`);
  s.setAttribute("preserveAspectRatio", "none");
  while (s.firstChild) s.removeChild(s.firstChild);
  // The y scale: the points from opts.scaleFrom on (the running phase,
  // so a load phase's spike does not flatten the steady phase) when
  // there are any, and the reference lines (opts.lines: an SLO);
  // points above it are drawn at the top.
  let n = 0, t0 = Infinity, t1 = -Infinity, ymax = 0, yRecent = 0, recent = 0;
  const from = opts.scaleFrom === undefined ? -Infinity : opts.scaleFrom;
  for (const se of series) {
    n = Math.max(n, se.points.length);
    for (const [t, v] of se.points) {
      t0 = Math.min(t0, t); t1 = Math.max(t1, t); ymax = Math.max(ymax, v);
      if (t >= from) { yRecent = Math.max(yRecent, v); recent++; }
    }
  }
  if (recent > 0) ymax = yRecent;
  for (const ln of opts.lines || []) ymax = Math.max(ymax, ln.value);
  s.dataset.points = String(n);
  if (n === 0) {
    s.append(svg("text", { x: W / 2, y: H / 2, "text-anchor": "middle" }, opts.empty || "waiting for the first interval…"));
    return;
  }
  const minSpan = opts.minSpan === undefined ? 10000 : opts.minSpan;
  if (t1 - t0 < minSpan) t1 = t0 + minSpan;
  if (t1 === t0) { t0 -= 1; t1 += 1; }
  ymax = ymax > 0 ? ymax * 1.1 : 1;
  const x = t => L + (t - t0) / (t1 - t0) * (W - L - R);
  const y = v => H - B - Math.min(v, ymax) / ymax * (H - T - B);
  const xfmt = opts.xfmt || ((t, a) => Math.round((t - a) / 1000) + "s");
  for (let i = 0; i <= 4; i++) {
    const v = ymax * i / 4;
    s.append(svg("line", { class: "grid", x1: L, x2: W - R, y1: y(v), y2: y(v) }));
    s.append(svg("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end" }, fmt(v)));
  }
  for (let i = 0; i <= 5; i++) {
    const t = t0 + (t1 - t0) * i / 5;
    s.append(svg("text", { x: x(t), y: H - 8, "text-anchor": i === 0 ? "start" : i === 5 ? "end" : "middle" }, xfmt(t, t0, t1)));
  }
  s.append(svg("line", { class: "axis", x1: L, x2: L, y1: T, y2: H - B }));
  s.append(svg("line", { class: "axis", x1: L, x2: W - R, y1: H - B, y2: H - B }));
  for (const m of opts.marks || []) {
    const g = svg("g", { class: "mark", "data-mark": m.label });
    g.append(svg("line", { x1: x(m.t), x2: x(m.t), y1: T, y2: H - B, stroke: m.color, "stroke-width": 1.5, "stroke-dasharray": "3 3" }));
    g.append(svg("title", {}, m.label));
    s.append(g);
  }
  for (const ln of opts.lines || []) {
    s.append(svg("line", { x1: L, x2: W - R, y1: y(ln.value), y2: y(ln.value), stroke: ln.color, "stroke-width": 1.5,
      "stroke-dasharray": "8 5", "data-series": ln.label }));
    s.append(svg("text", { x: W - R - 4, y: y(ln.value) - 4, "text-anchor": "end", fill: ln.color }, ln.label + " " + fmt(ln.value)));
  }
  let lx = L + 10;
  for (const se of series) {
    if (se.points.length === 0) continue;
    const xy = [];
    se.points.forEach(([t, v], i) => {
      if (se.step && i > 0) xy.push([x(t), y(se.points[i - 1][1])]);
      xy.push([x(t), y(v)]);
    });
    const attrs = { points: xy.map(([a, b]) => a.toFixed(1) + "," + b.toFixed(1)).join(" "), fill: "none",
      stroke: se.color, "stroke-width": 2, "data-series": se.name };
    if (se.dash) attrs["stroke-dasharray"] = se.dash;
    s.append(svg("polyline", attrs));
    const dots = se.dots ? se.points : [se.points[se.points.length - 1]];
    for (const [pt, pv] of dots) s.append(svg("circle", { cx: x(pt), cy: y(pv), r: 3, fill: se.color }));
    s.append(svg("line", { x1: lx, x2: lx + 22, y1: T + 6, y2: T + 6, stroke: se.color, "stroke-width": 2, "stroke-dasharray": se.dash || "" }));
    s.append(svg("text", { x: lx + 26, y: T + 10 }, se.name));
    lx += 40 + se.name.length * 7;
  }
}

const PALETTE = ["#0b5cad", "#7b1fa2", "#d2691e", "#1b6e20", "#b00020", "#00838f", "#5d4037", "#c2185b"];
const DASHES = ["", "6 4", "2 3", "10 3 2 3"];

// ---- views -----------------------------------------------------------

function setView(...kids) {
  const v = document.getElementById("view");
  v.replaceChildren(...kids);
}

// every runs f now and then every POLL_MS, one call at a time (a slow
// answer is not overtaken by the next poll).
function every(f) {
  clearInterval(timer);
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try { await f(); } finally { busy = false; }
  };
  tick();
  timer = setInterval(tick, POLL_MS);
}

async function listView() {
  const table = el("table", { id: "runs" }, el("thead", {}, el("tr", {},
    ...["run", "scenario", "source", "state", "phase", "rate", "SLO", "regression", "started", "ended"].map(h => el("th", {}, h)))));
  const body = el("tbody");
  table.append(body);
  setView(el("h2", {}, "runs"), table);
  every(async () => {
    let runs;
    try {
      runs = (await getJSON("/api/v1/runs")).runs || [];
    } catch (e) {
      msg("cannot list runs: " + e.message, "error");
      return;
    }
    const lives = await Promise.all(runs.map(r => r.state === "running"
      ? getJSON("/api/v1/runs/" + encodeURIComponent(r.id) + "/live").catch(() => null) : null));
    body.replaceChildren(...runs.map((r, i) => {
      const lv = lives[i] || {};
      return el("tr", { "data-id": r.id, "data-state": r.state },
        el("td", {}, runLink(r.id)), el("td", {}, scenarioLink(r.scenario)), el("td", {}, r.source),
        el("td", {}, stateCell(r.state)), el("td", {}, lv.phase || ""),
        el("td", { class: "num" }, lv.rate ? fmtRate(lv.rate) : ""),
        el("td", {}, slo(r)), el("td", {}, verdictText(r.regression)),
        el("td", {}, fmtTime(r.start)), el("td", {}, fmtTime(r.end)));
    }));
    if (runs.length === 0) body.append(el("tr", {}, el("td", { colspan: 10, class: "muted" }, "no runs yet: start one above")));
  });
}

async function runView(id) {
  const path = "/api/v1/runs/" + encodeURIComponent(id);
  const head = el("h2", {}, "run " + id);
  const facts = el("dl", { class: "facts" });
  const state = el("span", { id: "run-state" });
  const rateIn = el("input", { id: "rate-input", type: "number", min: "0", step: "any", placeholder: "ops/s", size: 10 });
  const setRate = el("button", { id: "set-rate", type: "button" }, "set rate");
  const stop = el("button", { id: "stop", type: "button" }, "stop");
  const controls = el("div", { class: "controls", id: "controls" }, "state: ", state, el("span", { id: "run-phase", class: "muted" }),
    el("label", { for: "rate-input" }, "rate"), rateIn, setRate, stop);
  const tput = svg("svg", { id: "chart-tput", role: "img", "aria-label": "throughput over time" });
  const p99 = svg("svg", { id: "chart-p99", role: "img", "aria-label": "p99 latency over time" });
  const charts = el("div", { class: "charts", id: "live-charts" },
    el("div", { class: "chart" }, el("h3", {}, "throughput (ops/s): achieved and target"), tput),
    el("div", { class: "chart" }, el("h3", {}, "p99 latency from intended start (last interval, slowest op)"), p99));
  const reportBox = el("div", { id: "report-box" });
  setView(head, facts, controls, charts, reportBox);
  if (!live || live.id !== id) live = { id, achieved: [], target: [], p99: [], phase: "", phaseFrom: undefined, slo: 0 };
  // A new phase starts the charts' y scale afresh.
  const phaseAt = (phase, t) => {
    if (phase && phase !== live.phase) { live.phase = phase; live.phaseFrom = t; }
  };

  setRate.onclick = async () => {
    const v = Number(rateIn.value);
    if (!rateIn.value || !isFinite(v) || v <= 0) { msg("rate: give a number of ops/s above 0, like 5000", "error"); return; }
    try {
      const r = await post(path + "/rate", { rate: v });
      msg("rate of " + r.phase + " set to " + fmtRate(r.rate), "ok");
    } catch (e) { msg(e.message, "error"); }
  };
  stop.onclick = async () => {
    try {
      await post(path + "/stop");
      msg("stopping " + id + ": results are being written", "ok");
    } catch (e) { msg(e.message, "error"); }
  };

  let reportShown = false;
  every(async () => {
    let v;
    try { v = await getJSON(path); } catch (e) { msg("run " + id + ": " + e.message, "error"); return; }
    state.textContent = v.state;
    state.className = "state-" + v.state;
    facts.replaceChildren(
      el("dt", {}, "scenario"), el("dd", {}, scenarioLink(v.scenario), " (" + (v.scenario_file || "") + ")"),
      el("dt", {}, "target"), el("dd", {}, v.target ? (v.target.kind + " " + (v.target.url || "")) : ""),
      el("dt", {}, "source"), el("dd", {}, v.source),
      el("dt", {}, "started"), el("dd", {}, fmtTime(v.start)),
      el("dt", {}, "ended"), el("dd", {}, fmtTime(v.end)),
      el("dt", {}, "SLO"), el("dd", {}, slo(v)),
      el("dt", {}, "regression"), el("dd", {}, verdictText(v.regression)),
      ...(v.error ? [el("dt", {}, "error"), el("dd", { class: "bad" }, v.error)] : []));
    const running = v.state === "running" || v.state === "queued";
    rateIn.disabled = setRate.disabled = stop.disabled = !running;
    if (v.state === "running") {
      let lv = null;
      // The first sample also brings the run so far, from its interval log.
      const first = !live.seeded;
      try { lv = await getJSON(path + "/live" + (first ? "?history=1" : "")); } catch (e) { /* next poll */ }
      if (lv && first) {
        live.seeded = true;
        tput.dataset.seeded = String((lv.history || []).length);
        for (const hp of lv.history || []) {
          const t = Date.parse(hp.at);
          phaseAt(hp.phase, t);
          live.achieved.push([t, hp.achieved]);
          live.p99.push([t, hp.p99]);
        }
      }
      if (lv) {
        document.getElementById("run-phase").textContent = lv.phase ? "phase " + lv.phase + " at " + fmtRate(lv.rate) : "";
        const t = Date.parse(lv.at);
        phaseAt((lv.phase || "").split("/")[0], t);
        if (lv.slo_p99) live.slo = lv.slo_p99;
        if (lv.achieved !== undefined) live.achieved.push([t, lv.achieved]);
        if (lv.rate) live.target.push([t, lv.rate]);
        if (lv.p99 !== undefined) live.p99.push([t, lv.p99]);
      }
    } else {
      document.getElementById("run-phase").textContent = "";
    }
    drawChart(tput, [
      { name: "achieved", color: "#0b5cad", points: live.achieved },
      { name: "target", color: "#d2691e", dash: "6 4", step: true, points: live.target }], fmtRate, { scaleFrom: live.phaseFrom });
    drawChart(p99, [{ name: "p99", color: "#7b1fa2", points: live.p99 }], fmtSec, { scaleFrom: live.phaseFrom,
      lines: live.slo ? [{ value: live.slo, label: "SLO p99", color: "#b00020" }] : [] });
    if (!running && !reportShown) {
      // A finished run: its report (below) has the whole run.
      reportShown = true;
      charts.hidden = true;
      reportBox.replaceChildren(el("h3", {}, "report"),
        el("iframe", { id: "report", class: "report", sandbox: "allow-same-origin", title: "run report", src: path + "/report" }));
    }
  });
}

// HISTORY_CHART_RUNS bounds the summaries the history chart reads.
const HISTORY_CHART_RUNS = 60;

async function scenarioView(name) {
  const q = "?scenario=" + encodeURIComponent(name);
  const runsBody = el("tbody");
  const shiftsBody = el("tbody");
  const sum = el("p", { id: "history-summary", class: "muted" });
  const chart = svg("svg", { id: "chart-history", role: "img", "aria-label": "p99 per run" });
  setView(el("h2", {}, "scenario " + name), sum,
    el("div", { class: "chart" }, el("h3", {}, "p99 per completed run, phases compared across runs (dashed verticals: change points, red: regressions)"), chart),
    el("h3", {}, "change points across runs"),
    el("table", { id: "shifts" }, el("thead", {}, el("tr", {},
      ...["from run", "at", "phase", "op", "metric", "before", "after", "p"].map(h => el("th", {}, h)))), shiftsBody),
    el("h3", {}, "runs (newest first; a shaded row is the first run after a change point)"),
    el("table", { id: "history" }, el("thead", {}, el("tr", {},
      ...["run", "state", "SLO", "regression", "started", "source"].map(h => el("th", {}, h)))), runsBody));
  const metricFmt = (m, v) => m === "rate" ? fmtRate(v) : m === "error_ratio" ? (100 * v).toFixed(2) + "%" : fmtSec(v);
  const summaries = new Map(); // run id -> summary (finished runs do not change)
  const dateFmt = t => new Date(t).toLocaleDateString(undefined, { month: "short", day: "numeric" }) + " " +
    new Date(t).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  every(async () => {
    let runs, sh, compared;
    try {
      [runs, sh, compared] = await Promise.all([getJSON("/api/v1/runs" + q), getJSON("/api/v1/shifts" + q), comparedKinds()]);
    } catch (e) { msg("scenario " + name + ": " + e.message, "error"); return; }
    runs = runs.runs || [];
    const shifts = sh.shifts || [];
    const at = new Set(shifts.map(s => s.run_id));
    sum.textContent = runs.length + " runs in the history; change points searched over " + (sh.runs || 0) +
      " completed runs (at least 3 either side are needed): " + shifts.length + " found";
    shiftsBody.replaceChildren(...shifts.map(s => el("tr", {},
      el("td", {}, runLink(s.run_id)), el("td", {}, fmtTime(s.at)), el("td", {}, s.phase), el("td", {}, s.op || ""),
      el("td", {}, s.metric), el("td", { class: "num" }, metricFmt(s.metric, s.before)),
      el("td", { class: "num" }, metricFmt(s.metric, s.after)), el("td", { class: "num" }, s.p_value.toPrecision(2)))));
    if (shifts.length === 0) shiftsBody.append(el("tr", {}, el("td", { colspan: 8, class: "muted" }, "none")));
    runsBody.replaceChildren(...runs.map(r => el("tr", { class: at.has(r.id) ? "shift" : "", "data-id": r.id },
      el("td", {}, runLink(r.id)), el("td", {}, stateCell(r.state)), el("td", {}, slo(r)),
      el("td", {}, verdictText(r.regression)), el("td", {}, fmtTime(r.start)), el("td", {}, r.source))));

    const done = runs.filter(r => r.state === "completed").slice(0, HISTORY_CHART_RUNS);
    await Promise.all(done.filter(r => !summaries.has(r.id)).map(async r => {
      try { summaries.set(r.id, (await getJSON("/api/v1/runs/" + encodeURIComponent(r.id))).summary || null); }
      catch (e) { summaries.set(r.id, null); }
    }));
    const series = new Map();
    for (const r of done.slice().reverse()) {
      const s = summaries.get(r.id);
      if (!s) continue;
      const t = Date.parse(r.start || s.start);
      for (const ph of s.phases || []) {
        if (!compared.has(ph.kind)) continue;
        for (const [op, o] of Object.entries(ph.ops || {})) {
          if (!o.latency || !o.latency.count) continue;
          const key = ph.name + "/" + op + (ph.variant ? " (" + ph.variant + ")" : "");
          if (!series.has(key)) series.set(key, []);
          series.get(key).push([t, o.latency.p99]);
        }
      }
    }
    const marks = shifts.filter(s => s.metric !== "rate").map(s => ({ t: Date.parse(s.at), color: "#d2691e",
      label: "change point: " + s.phase + " " + (s.op || "") + " " + s.metric + " " + metricFmt(s.metric, s.before) + " → " + metricFmt(s.metric, s.after) }));
    for (const r of done) {
      if (r.regression && r.regression.regressed) marks.push({ t: Date.parse(r.start), color: "#b00020", label: "regression in " + r.id });
    }
    const list = [...series.entries()].map(([k, pts], i) => ({ name: k + " p99", color: PALETTE[i % PALETTE.length],
      dash: DASHES[Math.floor(i / PALETTE.length) % DASHES.length], dots: true, points: pts }));
    drawChart(chart, list, fmtSec, { xfmt: dateFmt, marks, minSpan: 0, empty: "no completed runs yet" });
  });
}

// currentRun (#/scenario/NAME/current, the link an alert carries) opens
// the scenario's running run, else its newest, else its history.
async function currentRun(name) {
  let runs;
  try {
    runs = (await getJSON("/api/v1/runs?scenario=" + encodeURIComponent(name))).runs || [];
  } catch (e) { msg("scenario " + name + ": " + e.message, "error"); return; }
  const r = runs.find(r => r.state === "running") || runs[0];
  location.replace(r ? "#/run/" + encodeURIComponent(r.id) : "#/scenario/" + encodeURIComponent(name));
}

// ---- wiring ----------------------------------------------------------

function route() {
  msg("");
  const h = location.hash.replace(/^#/, "");
  let m;
  if ((m = h.match(/^\/run\/(.+)$/))) return runView(decodeURIComponent(m[1]));
  if ((m = h.match(/^\/scenario\/(.+)\/current$/))) return currentRun(decodeURIComponent(m[1]));
  if ((m = h.match(/^\/scenario\/(.+)$/))) return scenarioView(decodeURIComponent(m[1]));
  return listView();
}

document.getElementById("token-form").addEventListener("submit", ev => {
  ev.preventDefault();
  const t = document.getElementById("token").value.trim();
  if (t) sessionStorage.setItem(TOKEN_KEY, t); else sessionStorage.removeItem(TOKEN_KEY);
  document.getElementById("token").value = "";
  showTokenState();
});

document.getElementById("start-form").addEventListener("submit", async ev => {
  ev.preventDefault();
  const body = { scenario: document.getElementById("scenario").value.trim() };
  const target = document.getElementById("target").value.trim();
  if (target) body.target = target;
  try {
    const e = await post("/api/v1/runs", body);
    msg("started " + e.id + " (" + e.state + ")", "ok");
    live = null;
    location.hash = "#/run/" + encodeURIComponent(e.id);
  } catch (e) {
    msg("start: " + e.message, "error");
  }
});

// comparedKinds is the phase kinds whose phases are compared across
// runs (the history chart draws those), asked of the daemon's kind
// table once: the page names no kind itself.
let comparedKindsP = null;
function comparedKinds() {
  if (!comparedKindsP) {
    comparedKindsP = getJSON("/api/v1/kinds")
      .then(r => new Set((r.kinds || []).filter(k => k.compared).map(k => k.kind)))
      .catch(e => { comparedKindsP = null; throw e; });
  }
  return comparedKindsP;
}

// The start form offers the scenario files the daemon may run.
getJSON("/api/v1/scenarios").then(r => {
  document.getElementById("scenario-files").replaceChildren(...(r.files || []).map(f => el("option", { value: f })));
}).catch(() => { /* the field still takes a path */ });

window.addEventListener("hashchange", route);
showTokenState();
route();
