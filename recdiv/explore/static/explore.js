// recdiv explore: the page's controls, requests and views. The state lives in the URL's query string
// (recdiv/explore/state.py reads it); every request sends it whole, so the server keeps nothing per session.
// Texts from data files are only ever put into text nodes (textContent), never parsed as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const q = new URLSearchParams(document.body.dataset.state || "");
const token = new URLSearchParams(location.search).get("token");
// this page's session: the server drops a request of it that still waits when a newer one of the same kind comes
const session = Array.from(crypto.getRandomValues(new Uint8Array(9)), (b) => b.toString(16).padStart(2, "0")).join("");
let options = null, optionsFor = null, view = null, users = [];
let viewCtl = null, curveCtl = null, timer = null, curveTimer = null, jobsTimer = null;
const curveAxes = {};  // measures the reader chose for the curve (else the server picks accuracy × diversity)

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function fmt(x, digits = 4) {
  if (x === null || x === undefined) return "–";
  if (Math.abs(x) >= 1000) return x.toFixed(0);
  return x.toFixed(digits);
}

function fmtP(p) {
  if (p === null || p === undefined) return "–";
  return p < 1e-4 ? p.toExponential(1) : p.toFixed(4);
}

function withToken(params) {
  const p = new URLSearchParams(params);
  if (token) p.set("token", token);
  return p;
}

function apiUrl(path, extra) {
  const p = withToken(q);
  for (const [k, v] of Object.entries(extra || {})) p.set(k, v);
  return "api/" + path + "?" + p.toString();
}

async function getJSON(path, extra, signal) {
  const r = await fetch(apiUrl(path, {...extra, session}), {signal});
  if (r.status === 204) return null;
  let body;
  try { body = await r.json(); } catch (e) { throw new Error(`the explorer answered ${r.status} without a message`); }
  if (!r.ok) throw new Error(body.error || `error ${r.status}`);
  return body;
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

function setStatus(text) { $("status").textContent = text; }

// jobs: what the server is building (a baseline being fitted) while a request waits
function watchJobs(on) {
  clearInterval(jobsTimer);
  if (!on) return;
  jobsTimer = setInterval(async () => {
    try {
      const r = await fetch("api/jobs?" + withToken({}).toString());
      const body = await r.json();
      if (body.jobs && body.jobs.length)
        setStatus(body.jobs.map((j) => `${j.text} … ${j.seconds.toFixed(0)} s`).join("; ") +
                  " (first time only: kept for the session)");
    } catch (e) { /* the next tick tries again */ }
  }, 500);
}

// ------------------------------------------------------------------------------------------------ controls
function fillSelect(sel, values, current, labels) {
  sel.replaceChildren(...values.map((v, i) => el("option", {value: v, text: labels ? labels[i] : v})));
  if (current !== null && current !== undefined && values.includes(current)) sel.value = current;
}

function paramControl(prefix, c) {
  const key = `${prefix}.${c.name}`;
  const has = q.has(key);
  const value = has ? q.get(key) : (c.default === null || c.default === undefined ? "" : String(c.default));
  const set = (v) => { if (v === "") q.delete(key); else q.set(key, v); changed(); };
  const title = c.description || "";
  let input;
  if (c.kind === "slider") {
    const out = el("output", {text: value === "" ? "default" : Number(value).toFixed(2)});
    input = el("input", {type: "range", min: c.exclusive_min ? 0.01 : c.min, max: c.max, step: 0.01,
                         value: value === "" ? c.min : value, "aria-label": c.name,
                         oninput: (e) => { out.textContent = Number(e.target.value).toFixed(2); set(e.target.value); }});
    return el("label", {class: "slider", title}, el("span", {text: c.name}), input, out);
  }
  if (c.kind === "choice") {
    input = el("select", {"aria-label": c.name, onchange: (e) => set(e.target.value)});
    fillSelect(input, c.choices, value);
  } else if (c.kind === "boolean") {
    input = el("input", {type: "checkbox", "aria-label": c.name, onchange: (e) => set(e.target.checked ? "true" : "false")});
    input.checked = value === "true";
  } else if (c.kind === "number") {
    input = el("input", {type: "number", step: c.integer ? 1 : "any", min: c.min, max: c.max, value,
                         "aria-label": c.name, onchange: (e) => set(e.target.value)});
  } else {
    input = el("input", {type: "text", value, "aria-label": c.name, onchange: (e) => set(e.target.value)});
  }
  return el("label", {title}, el("span", {text: c.name}), input);
}

function renderParams(prefix, comp) {
  const box = $(`${prefix}-params`);
  box.replaceChildren(...(comp ? comp.controls.map((c) => paramControl(prefix, c)) : []));
}

function clearParams(prefix) {
  for (const k of [...q.keys()]) if (k.startsWith(prefix + ".")) q.delete(k);
}

function renderControls() {
  const o = options;
  fillSelect($("dataset"), o.datasets, q.get("dataset"));
  fillSelect($("split"), o.splits, q.get("split"));
  $("seed").value = q.get("seed") || "0";
  $("threshold").value = q.get("threshold") || "";
  const recNames = o.recommenders.map((r) => r.name);
  fillSelect($("rec"), recNames, q.get("rec"));
  const rec = o.recommenders.find((r) => r.name === q.get("rec"));
  $("rec-help").textContent = rec ? (rec.purpose || rec.doc) : "";
  renderParams("rec", rec);
  $("n").value = q.get("n");
  $("k").value = q.get("k");
  for (const side of ["a", "b"]) {
    const names = ["", ...o.rerankers.map((r) => r.name)];
    fillSelect($(side), names, q.get(side) || "", ["— none —", ...names.slice(1)]);
    const rr = o.rerankers.find((r) => r.name === q.get(side));
    $(`${side}-help`).textContent = rr ? rr.doc : "";
    const asp = $(`aspects-${side}`);
    fillSelect(asp, ["", ...o.aspects], q.get(`aspects.${side}`) || "", ["default (the metrics' space)", ...o.aspects]);
    asp.disabled = !rr || !rr.needs.some((n) => n === "aspects" || n === "similarity");
    renderParams(side, rr);
  }
  fillSelect($("measure-name"), o.measures.map((m) => m.name), $("measure-name").value || "nDCG",
             o.measures.map((m) => `${m.name} (${m.family})`));
  if (!$("measure-cutoff").value) $("measure-cutoff").value = q.get("k") || "10";
  renderMeasureChips();
}

function renderMeasureChips() {
  const ms = q.getAll("m");
  $("measure-list").replaceChildren(...ms.map((m) => el("li", {},
    el("span", {text: m}),
    el("button", {type: "button", "aria-label": `remove ${m}`, text: "×", disabled: ms.length === 1,
                  onclick: () => { q.delete("m"); ms.filter((x) => x !== m).forEach((x) => q.append("m", x)); changed(); }}))));
}

function wireControls() {
  const top = (id, key = id) => $(id).addEventListener("change", (e) => {
    if (e.target.value === "") q.delete(key); else q.set(key, e.target.value);
    changed();
  });
  $("dataset").addEventListener("change", (e) => {
    q.set("dataset", e.target.value);
    for (const k of ["split", "user", "aspects.a", "aspects.b"]) q.delete(k);
    changed(true);
  });
  top("split"); top("seed"); top("threshold"); top("n"); top("k");
  $("split").addEventListener("change", () => q.delete("user"));
  $("rec").addEventListener("change", (e) => { clearParams("rec"); q.set("rec", e.target.value); changed(); });
  for (const side of ["a", "b"]) {
    $(side).addEventListener("change", (e) => {
      clearParams(side);
      if (e.target.value) q.set(side, e.target.value); else { q.set(side, "none"); q.delete(`aspects.${side}`); }
      changed();
    });
    top(`aspects-${side}`, `aspects.${side}`);
  }
  $("measure-add").addEventListener("click", () => {
    const name = $("measure-name").value, cutoff = $("measure-cutoff").value;
    const m = cutoff ? `${name}@${cutoff}` : name;
    if (!q.getAll("m").includes(m)) q.append("m", m);
    changed();
  });
  $("measure-name").addEventListener("change", (e) => {
    const m = options.measures.find((x) => x.name === e.target.value);
    $("measure-help").textContent = m ? m.doc : "";
  });
  $("user-select").addEventListener("change", (e) => { q.set("user", e.target.value); changed(); });
  const step = (d) => {
    const i = users.findIndex((u) => u[0] === q.get("user"));
    const next = users[(Math.max(i, 0) + d + users.length) % users.length];
    if (next) { q.set("user", next[0]); changed(); }
  };
  $("user-prev").addEventListener("click", () => step(-1));
  $("user-next").addEventListener("click", () => step(1));
  for (const axis of ["x", "y"])
    $(`curve-${axis}`).addEventListener("change", (e) => { curveAxes[axis] = e.target.value; scheduleCurve(0); });
  $("copy-link").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(location.href); setStatus("link copied"); }
    catch (e) { window.prompt("the link to this view:", location.href); }
  });
}

function updateLinks() {
  $("export-toml").href = apiUrl("experiment.toml");
  $("export-baseline").href = apiUrl("run.trec", {system: "baseline"});
  for (const side of ["a", "b"]) {
    const a = $(`export-${side}`);
    const on = q.has(side) && q.get(side) !== "none";
    a.hidden = !on;
    a.href = apiUrl("run.trec", {system: side.toUpperCase()});
  }
}

// ------------------------------------------------------------------------------------------------ requests
function changed(datasetChanged) {
  history.replaceState(null, "", "?" + withToken(q).toString());
  updateLinks();
  clearTimeout(timer);
  timer = setTimeout(() => refresh(datasetChanged), 60);  // a dragged slider sends its last value
}

async function refresh(datasetChanged) {
  if (viewCtl) viewCtl.abort();
  viewCtl = new AbortController();
  const signal = viewCtl.signal;
  const slow = setTimeout(() => { setStatus("computing …"); watchJobs(true); }, 300);
  try {
    if (datasetChanged || !options || optionsFor !== q.get("dataset")) {
      options = await getJSON("options", {}, signal);
      optionsFor = q.get("dataset");
      if (!q.get("split") || !options.splits.includes(q.get("split"))) q.set("split", options.splits[0]);
      renderControls();
    }
    const t0 = performance.now();
    const body = await getJSON("view", {}, signal);
    if (body === null) return;
    view = body;
    for (const [k, v] of new URLSearchParams(body.state)) if (!q.has(k)) q.set(k, v);
    if (!q.get("user")) q.set("user", body.user.id);
    history.replaceState(null, "", "?" + withToken(q).toString());
    renderControls();
    renderView();
    showError("");
    setStatus(`updated in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
    document.body.dataset.ready = String(Number(document.body.dataset.ready || 0) + 1);
    scheduleCurve(150);
  } catch (e) {
    if (e.name === "AbortError") return;
    showError(e.message);
    setStatus("");
  } finally {
    clearTimeout(slow);
    watchJobs(false);
    updateLinks();
  }
}

function scheduleCurve(delay) {
  clearTimeout(curveTimer);
  curveTimer = setTimeout(refreshCurve, delay);
}

async function refreshCurve() {
  if (curveCtl) curveCtl.abort();
  curveCtl = new AbortController();
  const per = view.measures.map((m) => m.name);
  const extra = {};
  for (const axis of ["x", "y"]) if (curveAxes[axis] && per.includes(curveAxes[axis])) extra[axis] = curveAxes[axis];
  $("curve-note").textContent = "computing the curve …";
  const configs = Object.keys(view.labels).filter((s) => s !== "baseline");
  try {
    if (configs.length > 1) {  // the first configuration's curve at once, then both (its points are kept)
      const first = await getJSON("curve", {...extra, only: configs[0]}, curveCtl.signal);
      if (first === null) return;
      renderCurve(first);
    }
    const body = await getJSON("curve", extra, curveCtl.signal);
    if (body === null) return;
    renderCurve(body);
  } catch (e) {
    if (e.name === "AbortError") return;
    $("curve-note").textContent = e.message;
  }
}

// ------------------------------------------------------------------------------------------------ views
function renderView() {
  renderPopulation();
  renderUser();
  const per = view.measures.filter((m) => m.kind === "per-user").map((m) => m.name);
  for (const id of ["curve-x", "curve-y"]) fillSelect($(id), per, $(id).value);
}

function renderPopulation() {
  const pop = view.population, systems = Object.keys(view.labels);
  const head = el("tr", {}, el("th", {text: "measure"}),
    ...systems.map((s) => el("th", {text: view.labels[s], scope: "col"})));
  const rows = view.measures.map((m) => {
    const cells = systems.map((s) => {
      const r = pop.rows.find((x) => x.system === s && x.measure === m.name);
      if (!r) return el("td", {});
      const td = el("td", {class: "num"}, el("span", {class: "mean", text: fmt(r.mean)}));
      if (r.marker) td.append(el("span", {class: r.marker === "▲" ? "up" : "down", text: " " + r.marker}));
      if (r.ci && r.ci[0] !== null) td.append(el("span", {class: "detail", text: `[${fmt(r.ci[0])}, ${fmt(r.ci[1])}]`}));
      if (r.diff !== undefined && r.diff !== null)
        td.append(el("span", {class: "detail", text: `Δ ${r.diff >= 0 ? "+" : ""}${fmt(r.diff)} ` +
          `[${fmt(r.diff_ci[0])}, ${fmt(r.diff_ci[1])}] p = ${fmtP(r.p_adjusted)}`}));
      return td;
    });
    return el("tr", {}, el("th", {scope: "row", title: m.doc, text: `${m.name} ${m.higher ? "↑" : "↓"}`}), ...cells);
  });
  $("measures-table").replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows));
  $("population-note").textContent = `${pop.users} evaluated users. ` + pop.note.replace("bold: best", "");
}

function renderUser() {
  const u = view.user;
  users = view.users;
  fillSelect($("user-select"), users.map((x) => x[0]), u.id,
             users.map((x) => `user ${x[0]} — ${x[1]} training items, ${x[2]} relevant`));
  $("user-summary").textContent = `${u.profile.size} training interactions, ${u.relevant} relevant test items`;
  const shares = el("div", {class: "shares"}, ...u.profile.shares.map(([name, share]) =>
    el("div", {class: "share", title: `${(100 * share).toFixed(1)} % of the profile`},
      el("span", {class: "bar", style: `width:${Math.round(100 * share / u.profile.shares[0][1])}%`}),
      el("span", {class: "label", text: `${name} ${(100 * share).toFixed(0)} %`}))));
  const items = el("details", {}, el("summary", {text: `profile: the ${u.profile.items.length} highest-rated of ` +
                                                       `${u.profile.size} training items`}),
    el("ol", {class: "profile-items"}, ...u.profile.items.map((it) =>
      el("li", {}, el("span", {class: "title", text: it.title}), el("span", {class: "grade", text: ` ${it.value}`}),
         aspectsOf(it)))));
  $("profile").replaceChildren(el("h3", {text: "aspects of the profile (p(a|u))"}), shares, items);
  const columns = Object.keys(u.lists).map((s) => listColumn(s, u));
  $("lists").replaceChildren(...columns);
}

function aspectsOf(it) {
  return el("span", {class: "aspects"}, ...it.aspects.slice(0, 6).map((a) => el("span", {class: "aspect", text: a})));
}

function listColumn(system, u) {
  const vals = u.values[system] || {};
  const head = el("div", {class: "list-head"}, el("h3", {text: view.labels[system]}),
    el("p", {class: "values", text: Object.entries(vals).map(([m, v]) => `${m} ${fmt(v, 3)}`).join(" · ")}));
  const lis = u.lists[system].map((it, i) => {
    const li = el("li", {class: (it.relevant ? "relevant " : "") + (it.left ? "left" : "")},
      el("span", {class: "rank", text: String(i + 1)}),
      el("span", {class: "rel", title: it.grade === null ? "not in the test set" : `test grade ${it.grade}`,
                  text: it.relevant ? "✓" : it.grade === null ? "" : "·"}),
      el("span", {class: "title", text: it.title, title: `item ${it.item}`}));
    if (it.entered) li.append(el("span", {class: "tag entered", text: "new",
                                          title: "not in the baseline's top k"}));
    else if (it.baseline_rank && it.baseline_rank !== i + 1)
      li.append(el("span", {class: "tag moved", text: `was ${it.baseline_rank}`}));
    if (it.left) li.append(el("span", {class: "tag left", text: `left ${it.left.join(", ")}`}));
    li.append(aspectsOf(it));
    if (it.objective !== undefined) {
      const parts = it.relevance !== undefined ?
        `rel ${fmt(it.relevance, 3)} · div ${fmt(it.diversity, 3)}` : `f ${fmt(it.objective, 3)}`;
      li.append(el("span", {class: "terms", title: "objective f(i|S) when the item was chosen", text: parts}));
    }
    return li;
  });
  return el("div", {class: "list", "data-system": system}, head, el("ol", {}, ...lis));
}

function renderCurve(body) {
  fillSelect($("curve-x"), [...$("curve-x").options].map((o) => o.value), body.x);
  fillSelect($("curve-y"), [...$("curve-y").options].map((o) => o.value), body.y);
  const box = $("curve");
  if (window.Plotly) {
    window.Plotly.react(box, body.figure.data, body.figure.layout, {displayModeBar: false, responsive: true});
  }
  $("curve-note").textContent = (body.complete ? "" : "computing the other configuration's curve … ") +
    "Each curve sweeps its configuration's trade-off parameter from 0 to 1 " +
    `(${body.grid.length} points, every evaluated user); axes say which way is better, so rerankers whose ` +
    "parameters run in opposite directions read the same.";
  if (body.complete) document.body.dataset.curve = String(Number(document.body.dataset.curve || 0) + 1);
}

// ------------------------------------------------------------------------------------------------ start
wireControls();
updateLinks();
if (document.body.dataset.problem) showError(document.body.dataset.problem);
refresh(true);
