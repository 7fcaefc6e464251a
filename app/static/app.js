/* kgqa chat page: plain DOM, no framework. Data is only ever written with textContent. */
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const MAX_GRAPH_NODES = 30;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") node.textContent = v;
    else if (k === "class") node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c) node.append(c);
  return node;
}

function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

function cellText(v) {
  if (v === null || v === undefined) return "—";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

function details(summary, ...body) {
  return el("details", {}, el("summary", { text: summary }), ...body);
}

/* -- the pieces of one answer ------------------------------------------------------------------ */
function rowsTable(columns, rows) {
  const table = el("table");
  table.append(el("caption", { text: `${rows.length} row${rows.length === 1 ? "" : "s"}` }));
  const head = el("tr");
  for (const c of columns) head.append(el("th", { scope: "col", text: c }));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  for (const row of rows) {
    const tr = el("tr");
    for (const v of row) tr.append(el("td", { text: cellText(v) }));
    body.append(tr);
  }
  table.append(body);
  return el("div", { class: "table-wrap" }, table);
}

/* Nodes and edges to draw: the retrieved subgraph when present, else the rows' entities
   around the linked entity of the question. */
function graphOf(result) {
  const nodes = new Map();
  const edges = [];
  const add = (id, label, kind) => {
    if (!nodes.has(id) && nodes.size < MAX_GRAPH_NODES) nodes.set(id, { id, label, kind });
    return nodes.has(id);
  };
  const sg = result.subgraph;
  if (sg && sg.nodes && Object.keys(sg.nodes).length) {
    for (const [id, props] of Object.entries(sg.nodes)) {
      const name = Object.entries(props).find(([k, v]) => !k.startsWith("_") && typeof v === "string");
      add(id, name ? name[1] : id, props._label || "");
    }
    for (const e of sg.edges || []) if (nodes.has(e.src) && nodes.has(e.dst)) edges.push([e.src, e.dst, e.rel]);
    return { nodes: [...nodes.values()], edges };
  }
  const anchor = (result.candidates || [])[0];
  const center = anchor ? `c:${anchor.name}` : "q";
  add(center, anchor ? anchor.name : "question", anchor ? anchor.label : "question");
  for (const row of result.rows || []) {
    const vals = row.filter((v) => v !== null && v !== undefined && typeof v !== "object").map(String);
    if (!vals.length) continue;
    const head = `v:${vals[0]}`;
    if (!add(head, vals[0], "row")) break;
    if (head !== center) edges.push([center, head, result.columns[0] || ""]);
    vals.slice(1, 3).forEach((v, i) => {
      if (add(`v:${v}`, v, "value")) edges.push([head, `v:${v}`, result.columns[i + 1] || ""]);
    });
  }
  return { nodes: [...nodes.values()], edges };
}

function graphDrawing(result) {
  const { nodes, edges } = graphOf(result);
  if (nodes.length < 2) return null;
  const W = 640, H = 420, cx = W / 2, cy = H / 2;
  const pos = new Map();
  pos.set(nodes[0].id, [cx, cy]);
  const ring = nodes.slice(1);
  ring.forEach((n, i) => {
    const a = (2 * Math.PI * i) / ring.length - Math.PI / 2;
    const r = ring.length > 12 ? (i % 2 ? 175 : 130) : 160;
    pos.set(n.id, [cx + r * Math.cos(a) * 1.35, cy + r * Math.sin(a)]);
  });
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", class: "graph" });
  const title = svg("title");
  title.textContent = `Graph of ${nodes.length} entities and ${edges.length} relationships`;
  root.append(title);
  for (const [s, d, rel] of edges) {
    const [x1, y1] = pos.get(s), [x2, y2] = pos.get(d);
    const line = svg("line", { x1, y1, x2, y2, class: "edge" });
    const t = svg("title");
    t.textContent = rel;
    line.append(t);
    root.append(line);
  }
  nodes.forEach((n, i) => {
    const [x, y] = pos.get(n.id);
    const g = svg("g", { class: `node ${i === 0 ? "center" : n.kind === "value" ? "value" : ""}` });
    g.append(svg("circle", { cx: x, cy: y, r: i === 0 ? 9 : 6 }));
    const label = svg("text", { x, y: y - 11, "text-anchor": "middle" });
    label.textContent = n.label.length > 22 ? n.label.slice(0, 21) + "…" : n.label;
    const t = svg("title");
    t.textContent = n.kind ? `${n.label} (${n.kind})` : n.label;
    g.append(t, label);
    root.append(g);
  });
  return root;
}

function provenance(result) {
  const c = result.cache || {};
  const served = c.answer_hit ? "answer cache" : c.plan_hit ? "plan cache (reused plan)" : "compiled fresh";
  const dl = el("dl", { class: "facts" });
  const fact = (k, v) => dl.append(el("dt", { text: k }), el("dd", { text: v }));
  fact("Served by", served);
  fact("Domain", result.domain || "—");
  fact("Status", result.status);
  fact("LLM calls", String(c.llm_calls ?? 0));
  fact("Evidence", result.evidence || "—");
  const timings = Object.entries(result.timings_ms || {});
  const total = timings.reduce((s, [, v]) => s + v, 0);
  fact("Total time", `${total.toFixed(1)} ms`);
  const table = el("table", { class: "timings" });
  table.append(el("caption", { text: "Time per stage" }));
  table.append(el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Stage" }),
    el("th", { scope: "col", text: "ms" }))));
  const body = el("tbody");
  for (const [stage, ms] of timings) {
    const bar = el("span", { class: "bar", "aria-hidden": "true" });
    bar.style.width = `${total ? Math.max(2, (75 * ms) / total) : 0}%`;
    body.append(el("tr", {}, el("th", { scope: "row", text: stage }),
      el("td", {}, el("span", { text: ms.toFixed(1) }), bar)));
  }
  table.append(body);
  return el("div", {}, dl, timings.length ? table : null);
}

/* Thumbs up / down under an answer: POST /feedback with the question and domain the service answered
   (the server looks the answer up itself; the Cypher is sent only to check it is still the same answer). */
const VOTES = [
  ["up", "Thumbs up: this answer is right", "Thanks: marked right. Its plan will be reused."],
  ["down", "Thumbs down: this answer is wrong", "Thanks: marked wrong. It will be answered afresh."],
];
const THUMB = "M1 21h4V9H1v12zm22-11c0-1.1-.9-2-2-2h-6.31l.95-4.57.03-.32c0-.41-.17-.79-.44-1.06L14.17 1 " +
  "7.59 7.59C7.22 7.95 7 8.45 7 9v10c0 1.1.9 2 2 2h9c.83 0 1.54-.5 1.84-1.22l3.02-7.05c.09-.23.14-.47.14-.73v-2z";

function thumbIcon(vote) {  /* an inline icon: no emoji font needed */
  const icon = svg("svg", { viewBox: "0 0 24 24", width: 18, height: 18, "aria-hidden": "true", focusable: "false",
    class: "thumb" });
  icon.append(svg("path", { d: THUMB, fill: "currentColor", transform: vote === "down" ? "rotate(180 12 12)" : "" }));
  return icon;
}

function feedbackBar(result) {
  const status = el("span", { class: "feedback-status", role: "status", "aria-live": "polite" });
  const group = el("div", { class: "feedback", role: "group", "aria-label": "Rate this answer" },
    el("span", { class: "feedback-label", text: "Right answer?" }));
  const buttons = [];
  let busy = false;
  for (const [vote, label, thanks] of VOTES) {
    const button = el("button", { type: "button", class: `vote vote-${vote}`, "aria-label": label, title: label,
      "aria-pressed": "false" }, thumbIcon(vote));
    button.addEventListener("click", async () => {
      if (busy) return;
      busy = true;
      group.setAttribute("aria-busy", "true");
      status.classList.remove("error");
      status.textContent = "Sending…";
      const body = { question: result.question, vote };
      if (result.domain) body.domain = result.domain;
      if (result.cypher) body.cypher = result.cypher;
      try {
        const resp = await fetch("/feedback", {
          method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
        });
        const data = await resp.json();
        if (resp.ok) {
          for (const b of buttons) b.setAttribute("aria-pressed", String(b === button));
          status.textContent = thanks;
        } else {
          status.classList.add("error");
          status.textContent = data.error || `Feedback failed: HTTP ${resp.status}`;
        }
      } catch (err) {
        status.classList.add("error");
        status.textContent = `Feedback failed: ${err.message}`;
      }
      group.removeAttribute("aria-busy");
      busy = false;
    });
    buttons.push(button);
    group.append(button);
  }
  group.append(status);
  return group;
}

function answerItem(result) {
  const item = el("li", { class: `msg bot status-${result.status}` });
  item.append(el("p", { class: "who", text: "kgqa" }));
  item.append(el("p", { class: "answer", text: result.answer || "(no answer)" }));
  const badges = el("p", { class: "badges" });
  const c = result.cache || {};
  badges.append(el("span", { class: "badge", text: result.domain || "no domain" }));
  if (c.answer_hit) badges.append(el("span", { class: "badge hit", text: "answer cache hit" }));
  else if (c.plan_hit) badges.append(el("span", { class: "badge hit", text: "plan cache hit" }));
  badges.append(el("span", { class: "badge", text: `${c.llm_calls ?? 0} LLM calls` }));
  item.append(badges);
  if (result.status === "answered") item.append(feedbackBar(result));
  if (result.error && result.status === "error") item.append(el("p", { class: "error", text: result.error }));
  if (result.cypher) item.append(details("Cypher", el("pre", {}, el("code", { class: "cypher", text: result.cypher }))));
  if ((result.rows || []).length) item.append(details(`Rows (${result.rows.length})`, rowsTable(result.columns || [], result.rows)));
  const drawing = graphDrawing(result);
  if (drawing) item.append(details(result.subgraph ? "Graph (retrieved subgraph)" : "Graph (entities in the rows)", drawing));
  item.append(details("How it was answered", provenance(result)));
  return item;
}

/* -- the page ---------------------------------------------------------------------------------- */
async function getJSON(url) {
  const resp = await fetch(url, { headers: { Accept: "application/json" } });
  if (!resp.ok) throw new Error(`${url}: HTTP ${resp.status}`);
  return resp.json();
}

async function loadDomains() {
  const select = document.getElementById("domain");
  const health = document.getElementById("health");
  try {
    const { domains } = await getJSON("/domains");
    for (const d of domains) {
      const opt = el("option", { value: d.name, text: d.name });
      if (d.description) opt.title = d.description;
      select.append(opt);
    }
    health.textContent = `Ready: ${domains.map((d) => d.name).join(", ")}.`;
  } catch (err) {
    health.textContent = `Service unavailable (${err.message}).`;
  }
}

function setup() {
  const form = document.getElementById("ask-form");
  const input = document.getElementById("question");
  const domain = document.getElementById("domain");
  const send = document.getElementById("send");
  const transcript = document.getElementById("transcript");

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const question = input.value.trim();
    if (!question) { input.focus(); return; }
    transcript.append(el("li", { class: "msg user" }, el("p", { class: "who", text: "You" }),
      el("p", { text: question })));
    const pending = el("li", { class: "msg bot pending", "aria-busy": "true" }, el("p", { text: "Thinking…" }));
    transcript.append(pending);
    pending.scrollIntoView({ block: "end" });
    input.value = "";
    send.disabled = true;
    form.setAttribute("aria-busy", "true");
    const body = { question };
    if (domain.value) body.domain = domain.value;
    let item;
    try {
      const resp = await fetch("/ask", {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      });
      const data = await resp.json();
      item = resp.ok ? answerItem(data)
        : el("li", { class: "msg bot status-error" }, el("p", { class: "who", text: "kgqa" }),
          el("p", { class: "error", text: data.error || `HTTP ${resp.status}` }));
    } catch (err) {
      item = el("li", { class: "msg bot status-error" }, el("p", { class: "error", text: `Request failed: ${err.message}` }));
    }
    pending.replaceWith(item);
    item.scrollIntoView({ block: "nearest" });
    send.disabled = false;
    form.removeAttribute("aria-busy");
    input.focus();
  });

  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && document.activeElement !== input) input.focus();
  });
  input.focus();
  loadDomains();
}

document.addEventListener("DOMContentLoaded", setup);
