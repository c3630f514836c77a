// The referee console of one table (console.html?table=t1). Every action is a request of
// interfaces §3 published to B/request/<name> with a fresh `transaction`; the table's
// B/response/<name> with the same transaction is shown, an error with its reason.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
// The table seen from above, head end (the break) at the bottom: left is the left long rail.
const POCKET_AT = { fl: [18, 18], fr: [182, 18], sl: [12, 200], sr: [188, 200], hl: [18, 382], hr: [182, 382] };

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

(async function main() {
  const params = new URLSearchParams(location.search);
  const tableId = params.get("table") || "t1";
  const config = await loadConfig();
  const base = `${config.prefix}/${config.venue}/${tableId}`;
  document.getElementById("table-id").textContent = `${config.venue} / ${tableId}`;
  document.title = `${tableId} — referee console`;

  const table = new TableModel(tableId);
  const pending = new Map();  // transaction -> {name, timer}
  const ui = {
    calls: [], pocketed: [], picked: null,
    result: document.getElementById("result"), log: document.getElementById("log"),
  };
  let client = null;
  let counter = 0;
  const session = Math.random().toString(16).slice(2, 8);

  // ---------------------------------------------------------------- requests and responses
  function show(text, kind) {
    ui.result.textContent = text;
    ui.result.className = kind;
    if (kind === "sent") return;
    ui.log.prepend(el("li", { class: kind }, `${new Date().toLocaleTimeString()} ${text}`));
    while (ui.log.childNodes.length > 30) ui.log.lastChild.remove();
  }
  function send(name, payload) {
    if (!client || !client.connected) { show(`${name}: not connected to the broker`, "error"); return null; }
    const transaction = `web-${session}-${++counter}`;
    const timer = setTimeout(() => {
      if (pending.delete(transaction)) show(`${name}: no answer from the table (is it online?)`, "error");
    }, 6000);
    pending.set(transaction, { name, timer });
    client.publish(`${base}/request/${name}`, JSON.stringify({ v: 1, ...payload, transaction }), { qos: 1 });
    show(`${name}: sent…`, "sent");
    return transaction;
  }
  function answered(name, response) {
    const p = pending.get(response.transaction);
    if (!p) return;  // another console's request
    clearTimeout(p.timer);
    pending.delete(response.transaction);
    if (response.status === "ok") {
      const d = response.data;
      const extra = d && d.match_id ? ` (match ${d.match_id})` : "";
      show(`${name}: ok${extra}`, "ok");
      if (name === "call" || name === "declare") clearTaps(name);
    } else {
      show(`${name}: error — ${response.error}`, "error");
    }
  }

  // ---------------------------------------------------------------- the live table
  function render() {
    document.getElementById("card").replaceChildren(renderTable(table));
    renderQuestions();
    renderPool();
    renderDeclareBalls();
  }
  function state() { return table.state || {}; }
  function balls() { return (state().on_table || []).slice(); }

  function renderQuestions() {
    const box = document.getElementById("questions");
    const qs = state().questions || [];
    if (!qs.length) { box.replaceChildren(el("p", { class: "idle" }, "None.")); return; }
    box.replaceChildren(...qs.map((q) => {
      const count = q.count || 1;
      const chosen = [];
      const part = el("div", { class: "q", "data-question": q.id },
        el("p", { class: "question" }, `${table.playerName(q.player)}: ${q.prompt}`));
      const buttons = (q.choices || []).map((c) => el("button", {
        type: "button", "data-answer": String(c),
        onclick: (e) => {
          if (count === 1) { send("answer", { question: q.id, answer: c }); return; }
          chosen.push(c);
          e.target.classList.add("picked");
          if (chosen.length === count) send("answer", { question: q.id, answer: chosen.slice() });
        },
      }, typeof c === "boolean" ? (c ? "yes" : "no") : words(c)));
      part.append(el("div", {}, buttons));
      if (count > 1) part.append(el("small", {}, `pick ${count} balls, one per ball that fell`));
      return part;
    }));
  }

  // ---------------------------------------------------------------- the drawing: call by tapping
  function tapMode() { return document.querySelector("input[name=tap]:checked").value; }
  function renderPool() {
    const game = state().game;
    const list = tapMode() === "call" ? ui.calls : ui.pocketed;
    const area = svg("svg", { viewBox: "0 0 200 400", class: "pool", role: "img", "aria-label": "the table" });
    area.append(svg("rect", { x: 0, y: 0, width: 200, height: 400, rx: 14, fill: "var(--rail)" }));
    area.append(svg("rect", { x: 14, y: 14, width: 172, height: 372, fill: "var(--felt)" }));
    area.append(svg("line", { x1: 14, y1: 300, x2: 186, y2: 300, stroke: "#ffffff55", "stroke-dasharray": "3 3" }));
    area.append(svg("text", { x: 100, y: 372, "text-anchor": "middle", fill: "#ffffffaa", "font-size": 10 }, "head (break)"));
    area.append(svg("text", { x: 100, y: 34, "text-anchor": "middle", fill: "#ffffffaa", "font-size": 10 }, "foot"));
    const spots = {};
    const shown = [...balls(), "cue"];
    shown.forEach((b, i) => {
      const cols = 4;
      const x = 46 + (i % cols) * 36, y = 80 + Math.floor(i / cols) * 36;
      spots[b] = [x, y];
      const used = list.some((c) => c.ball === b);
      const g = svg("g", {
        class: "pball" + (ui.picked === b ? " picked" : "") + (used ? " called" : ""),
        "data-ball": String(b), tabindex: 0,
        onclick: () => { ui.picked = ui.picked === b ? null : b; renderPool(); },
      });
      const stripe = isStripe(b, game);
      g.append(svg("circle", { class: "body", cx: x, cy: y, r: 14, fill: stripe ? "#fff" : ballColour(b, game), stroke: "#000", "stroke-width": 1 }));
      if (stripe) g.append(svg("rect", { x: x - 12, y: y - 7, width: 24, height: 14, fill: ballColour(b, game) }));
      if (b !== "cue") {
        g.append(svg("circle", { cx: x, cy: y, r: 7, fill: "#fff" }));
        g.append(svg("text", { x, y: y + 3.5, "text-anchor": "middle", "font-size": 9, "font-weight": "bold", fill: "#111" }, b));
      }
      area.append(g);
    });
    for (const c of list) {
      if (spots[c.ball]) area.append(svg("line", { class: "call", x1: spots[c.ball][0], y1: spots[c.ball][1], x2: POCKET_AT[c.pocket][0], y2: POCKET_AT[c.pocket][1] }));
    }
    for (const [id, [x, y]] of Object.entries(POCKET_AT)) {
      area.append(svg("circle", {
        class: "pocket" + (ui.picked !== null ? " armed" : ""), cx: x, cy: y, r: 13, "data-pocket": id,
        onclick: () => tapPocket(id),
      }, svg("title", {}, POCKETS[id])));
    }
    document.getElementById("pool").replaceChildren(area);
    const text = (l) => l.length ? l.map((c) => `${c.ball} → ${POCKETS[c.pocket]}`).join(", ") : "—";
    document.getElementById("calls").textContent = text(ui.calls);
    document.getElementById("pocketed").textContent = text(ui.pocketed);
  }
  function tapPocket(pocket) {
    if (ui.picked === null) { show("tap a ball first, then its pocket", "sent"); return; }
    const list = tapMode() === "call" ? ui.calls : ui.pocketed;
    const i = list.findIndex((c) => c.ball === ui.picked);
    if (i >= 0) list.splice(i, 1);
    list.push({ ball: ui.picked, pocket });
    ui.picked = null;
    renderPool();
  }
  function clearTaps(which) {
    if (which === "call") { ui.calls = []; document.getElementById("amend").checked = false; }
    else { ui.pocketed = []; for (const box of document.querySelectorAll("#declare-panel input[type=checkbox]")) box.checked = false; }
    ui.picked = null;
    renderPool();
  }

  // ---------------------------------------------------------------- declare
  const fouls = document.getElementById("fouls");
  for (const code of FOULS) {
    fouls.append(el("label", {}, el("input", { type: "checkbox", value: code, "data-foul": code }), words(code)));
  }
  function renderDeclareBalls() {
    const off = document.getElementById("off-table");
    const ticked = new Set([...off.querySelectorAll("input:checked")].map((i) => i.value));
    off.replaceChildren(...[...balls(), "cue"].map((b) => el("label", {},
      el("input", { type: "checkbox", value: String(b), "data-off": String(b), checked: ticked.has(String(b)) }), String(b))));
    const first = document.getElementById("first-contact");
    const was = first.value;
    first.replaceChildren(el("option", { value: "" }, "—"), el("option", { value: "none" }, "no ball (miss)"),
      ...balls().map((b) => el("option", { value: String(b) }, String(b))));
    first.value = [...first.options].some((o) => o.value === was) ? was : "";
  }
  document.getElementById("send-declare").addEventListener("click", () => {
    const payload = {};
    const f = [...fouls.querySelectorAll("input:checked")].map((i) => i.value);
    if (f.length) payload.fouls = f;
    const off = [...document.querySelectorAll("#off-table input:checked")].map((i) => i.value === "cue" ? "cue" : Number(i.value));
    if (off.length) payload.off_table = off;
    if (ui.pocketed.length) payload.pocketed = ui.pocketed.map((c) => ({ ball: c.ball, pocket: c.pocket }));
    const first = document.getElementById("first-contact").value;
    if (first === "none") payload.first_contact = null;
    else if (first) payload.first_contact = Number(first);
    const centre = document.getElementById("centre-line").value;
    if (centre) payload.centre_line = centre === "true";
    const special = document.getElementById("special").value;
    if (special) payload.special = special;
    if (!Object.keys(payload).length) { show("declare: nothing ticked", "error"); return; }
    send("declare", payload);
  });

  // ---------------------------------------------------------------- call, shot end, undo, match
  for (const r of document.querySelectorAll("input[name=tap]")) r.addEventListener("change", renderPool);
  document.getElementById("send-call").addEventListener("click", () => {
    const payload = { calls: ui.calls.map((c) => ({ ball: c.ball, pocket: c.pocket })), kind: document.getElementById("kind").value };
    if (document.getElementById("amend").checked) payload.amend = true;
    send("call", payload);
  });
  document.getElementById("clear-call").addEventListener("click", () => clearTaps("call"));
  document.getElementById("shot-end").addEventListener("click", () => send("shot_end", {}));
  document.getElementById("undo").addEventListener("click", () =>
    send("undo", { shots: Number(document.getElementById("undo-shots").value) || 1 }));
  document.getElementById("refresh").addEventListener("click", () => send("get", {}));
  document.getElementById("end-match").addEventListener("click", () => {
    if (confirm("Abandon the match on this table?")) send("end_match", {});
  });

  // ---------------------------------------------------------------- new match
  let gameOptions = {};
  try { gameOptions = await (await fetch("options.json")).json(); } catch (e) { /* options stay default */ }
  const gameSelect = document.getElementById("game");
  function renderNewMatch() {
    const game = gameSelect.value;
    const spec = gameOptions[game] || { players: [2, 2], options: [] };
    const box = document.getElementById("players");
    const names = [...box.querySelectorAll("input")].map((i) => i.value);
    box.replaceChildren(...Array.from({ length: spec.players[1] }, (_, i) => el("label", {},
      `Player ${i + 1}${i >= spec.players[0] ? " (optional)" : ""} `,
      el("input", { type: "text", name: `player${i}`, "data-player-name": i, value: names[i] || "", required: i < spec.players[0] }))));
    const breaker = document.getElementById("breaker");
    breaker.replaceChildren(...Array.from({ length: spec.players[1] }, (_, i) => el("option", { value: i }, `player ${i + 1}`)));
    document.getElementById("options").replaceChildren(...spec.options.map((o) => {
      let input;
      if (typeof o.default === "boolean") input = el("input", { type: "checkbox", checked: o.default });
      else if (o.choices.length) {
        input = el("select", {}, o.choices.map((c) => el("option", { value: JSON.stringify(c), selected: c === o.default }, String(c))));
      } else if (Array.isArray(o.default)) input = el("input", { type: "text", placeholder: "e.g. 0, 15", value: o.default.join(", ") });
      else input = el("input", { type: "text", value: String(o.default) });
      input.dataset.option = o.key;
      return el("label", { class: "option" }, input, ` ${o.key}`, el("small", {}, o.doc));
    }));
  }
  function optionsChosen(game) {
    const out = {};
    for (const o of (gameOptions[game] || { options: [] }).options) {
      const input = document.querySelector(`#options [data-option="${o.key}"]`);
      if (!input) continue;
      let value;
      if (input.type === "checkbox") value = input.checked;
      else if (input.tagName === "SELECT") value = JSON.parse(input.value);
      else if (Array.isArray(o.default)) value = input.value.split(/[\s,]+/).filter(Boolean).map(Number);
      else value = input.value;
      if (JSON.stringify(value) !== JSON.stringify(o.default)) out[o.key] = value;
    }
    return out;
  }
  gameSelect.addEventListener("change", renderNewMatch);
  document.getElementById("new-match").addEventListener("submit", (e) => {
    e.preventDefault();
    const game = gameSelect.value;
    const players = [...document.querySelectorAll("#players input")].map((i) => i.value.trim()).filter(Boolean);
    const payload = {
      game, players, race_to: Number(document.getElementById("race-to").value) || 1,
      breaker: Number(document.getElementById("breaker").value) || 0, options: optionsChosen(game),
    };
    if (state().game && !["match_over", "idle"].includes(state().status) &&
        !confirm("A match is in progress on this table. Start a new one?")) return;
    send("new_match", payload);
  });
  renderNewMatch();

  // ---------------------------------------------------------------- connecting
  function start(credentials) {
    document.getElementById("login").hidden = true;
    document.getElementById("panels").hidden = false;
    if (client) client.end(true);
    client = connect(config, credentials, (text, ok) => {
      setConnection(text, ok);
      if (!ok && /auth|password|identifier/i.test(text)) {
        client.end(true);
        sessionStorage.removeItem("referee");
        askLogin(`The broker refused: ${text}`);
      }
    });
    client.on("connect", () => client.subscribe([`${base}/+`, `${base}/response/+`], { qos: 1 }));
    client.on("message", (topic, payload) => {
      const rest = topic.slice(base.length + 1);
      const data = parseJson(payload);
      if (!data) return;
      if (rest.startsWith("response/")) { answered(rest.slice(9), data); return; }
      if (table.take(rest, data)) render();
    });
    window.billiards = { client, table, send };
    render();
  }
  function askLogin(message) {
    document.getElementById("panels").hidden = true;
    const form = document.getElementById("login");
    form.hidden = false;
    document.getElementById("login-error").textContent = message || "";
  }
  document.getElementById("login").addEventListener("submit", (e) => {
    e.preventDefault();
    const f = e.target;
    const credentials = { username: f.username.value, password: f.password.value };
    sessionStorage.setItem("referee", JSON.stringify(credentials));
    start(credentials);
  });
  const saved = sessionStorage.getItem("referee");
  if (config.referee) start(config.referee);
  else if (saved) start(JSON.parse(saved));
  else if (config.dashboard === null || config.dashboard === undefined) start(null);  // an open broker
  else askLogin();
})();
