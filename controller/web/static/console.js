// The referee console of one table (console.html?table=t1). Every action is a request of
// interfaces §3 published to B/request/<name> with a fresh `transaction` and a `deadline`
// (unix seconds; the MQTT 5 message expiry says the same to the broker): the table's
// B/response/<name> with the same transaction is shown, an error with its reason. A request
// with no answer is "not done" only once its deadline has passed: until then the table
// may still do it.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
// The table seen from above, head end (the break) at the bottom: left is the left long rail.
const POCKET_AT = { fl: [18, 18], fr: [182, 18], sl: [12, 200], sr: [188, 200], hl: [18, 382], hr: [182, 382] };
const NO_ANSWER_YET_S = 6;  // then the console says it is still waiting, and until when
// What a shot's ruling presumed (a Noted decision) and the declaration that says otherwise.
const CORRECTIONS = {
  contact_presumed: () => ({ first_contact: null }),
  first_contact_presumed: () => ({ fouls: ["wrong_ball_first"] }),
  two_cushions_presumed: () => ({ cushions_after_contact: 1 }),
  centre_line_presumed: (detail) => ({ centre_line: detail === "not_crossed" }),
  rail_presumed: () => ({ cushions_after_contact: 0 }),
  four_balls_presumed: () => ({ fouls: ["bad_break"] }),
};

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}
// Enter and Space do what a click does (for the drawing's balls and pockets).
function pressable(node, action) {
  node.addEventListener("click", action);
  node.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); action(e); }
  });
  return node;
}

(async function main() {
  const params = new URLSearchParams(location.search);
  const tableId = params.get("table") || "t1";
  const config = await loadConfig();
  translateStatic();
  document.getElementById("tools").prepend(languagePicker());
  const base = `${config.prefix}/${config.venue}/${tableId}`;
  document.getElementById("table-id").textContent = `${config.venue} / ${tableId}`;
  document.title = t("page.title.console", { table: tableId });

  const table = new TableModel(tableId);
  const pending = new Map();  // transaction -> {name, timers, deadline}
  // Reported not done: an answer may still come (late), and is then shown for what it is.
  const expired = new Map();  // transaction -> the time it was wanted until
  const ui = {
    calls: [], pocketed: [], picked: null,
    presumed: null, corrected: new Set(), fixing: new Map(),  // presumptions and their corrections
    result: document.getElementById("result"), log: document.getElementById("log"),
  };
  let client = null;
  let counter = 0;
  // 64 random bits: a transaction names one request, across every console there ever was
  const session = Array.from(crypto.getRandomValues(new Uint8Array(8)),
    (b) => b.toString(16).padStart(2, "0")).join("");

  // ---------------------------------------------------------------- requests and responses
  function show(text, kind) {
    ui.result.textContent = text;
    ui.result.className = "result " + kind;
    ui.result.dataset.state = kind;
    if (kind === "sent") return;
    ui.log.prepend(el("li", { class: kind }, `${clockTime(new Date())} ${text}`));
    while (ui.log.childNodes.length > 30) ui.log.lastChild.remove();
  }
  function canSend() { return !!(client && client.connected) && table.online() === "online"; }
  function send(name, payload) {
    const req = t("req." + name);
    if (!client || !client.connected) { show(t("r.not_connected", { req }), "error"); return null; }
    const transaction = `web-${session}-${++counter}`;
    const ttl = config.request_ttl_s;
    const deadline = Date.now() / 1000 + ttl;
    const until = clockTime(new Date(deadline * 1000));
    const timers = [
      setTimeout(() => { if (pending.has(transaction)) show(t("r.waiting", { req, time: until }), "waiting"); },
        Math.min(NO_ANSWER_YET_S, ttl / 2) * 1000),
      // a little after the deadline, for the clocks of the table and of this tablet to differ
      setTimeout(() => {
        ui.fixing.delete(transaction);
        if (!pending.delete(transaction)) return;
        expired.set(transaction, until);
        if (expired.size > 100) expired.delete(expired.keys().next().value);
        show(t("r.expired", { req, time: until }), "expired");
      }, (ttl + 2) * 1000),
    ];
    pending.set(transaction, { name, timers });
    client.publish(`${base}/request/${name}`,
      JSON.stringify({ v: 1, ...payload, transaction, deadline: Math.round(deadline * 1000) / 1000 }),
      { qos: 1, properties: { messageExpiryInterval: Math.ceil(ttl) } });
    show(t("r.sent", { req }), "sent");
    return transaction;
  }
  function answered(name, response) {
    const p = pending.get(response.transaction);
    if (!p) {  // another console's request, or one already reported: late, if reported not done
      const until = expired.get(response.transaction);
      if (until === undefined) return;
      expired.delete(response.transaction);
      const req = t("req." + name);
      show(response.status === "ok" ? t("r.late_ok", { req, time: until })
        : t("r.late_error", { req, why: errorText(response.error, table) }),
        response.status === "ok" ? "late" : "error");
      return;
    }
    p.timers.forEach(clearTimeout);
    pending.delete(response.transaction);
    const req = t("req." + name);
    const fixed = ui.fixing.get(response.transaction);
    ui.fixing.delete(response.transaction);
    if (response.status === "ok") {
      const d = response.data;
      if (fixed && ui.presumed) {  // corrected: no longer offered, whatever the ruling still notes
        ui.corrected.add(fixed);
        ui.presumed.items = ui.presumed.items.filter((n) => `${ui.presumed.shot}:${n.what}` !== fixed);
        if (!ui.presumed.items.length) ui.presumed = null;
        renderPresumed();
      }
      show(d && d.match_id ? t("r.ok_match", { req, id: d.match_id }) : t("r.ok", { req }), "ok");
      if (name === "call" || name === "declare") clearTaps(name);
    } else {
      show(t("r.error", { req, why: errorText(response.error, table) }), "error");
    }
  }

  // ---------------------------------------------------------------- the live table
  function state() { return table.state || {}; }
  function balls() { return (state().on_table || []).slice(); }
  function inMatch() { const s = state(); return !!s.game && s.status !== "match_over" && s.status !== "idle"; }
  function render() {
    const card = document.getElementById("card");
    const fresh = el("div", { id: "card" }, renderTable(table, { connected: !!(client && client.connected), clock: true, racks: true }));
    swap(card, fresh);
    document.getElementById("panels").classList.toggle("no-match", !inMatch());
    renderQuestions();
    renderPresumed();
    renderPool();
    renderDeclareBalls();
    renderOffenders();
    renderEnabled();
  }
  // Buttons that send are off while we or the table are away, and say why.
  function renderEnabled() {
    const ok = canSend();
    for (const b of document.querySelectorAll("[data-send], #questions button, #presumed button")) b.disabled = !ok;
    const note = document.getElementById("blocked");
    note.hidden = ok;
    if (!ok) {
      note.textContent = !(client && client.connected) ? t("c.disabled_conn")
        : t("c.disabled_table", { state: t("online." + (table.online() in { offline: 1, stopped: 1 } ? table.online() : "unknown")) });
    }
  }

  function renderQuestions() {
    const box = document.getElementById("questions");
    const qs = state().questions || [];
    let fresh;
    if (!qs.length) fresh = el("div", { id: "questions" }, el("p", { class: "idle" }, t("c.none")));
    else {
      fresh = el("div", { id: "questions" }, ...qs.map((q) => {
        const count = q.count || 1;
        const chosen = ui.chosen && ui.chosen.id === q.id ? ui.chosen.balls : [];
        const part = el("div", { class: "q", "data-question": q.id },
          el("p", { class: "question" }, `${table.playerName(q.player)}: ${questionText(q, table)}`));
        const buttons = (q.choices || []).map((c) => el("button", {
          type: "button", class: "answer", "data-answer": String(c), "aria-pressed": count > 1 ? String(chosen.includes(c)) : null,
          "aria-label": typeof c === "number" ? ballName(c) : null,
          onclick: () => {
            if (count === 1) { send("answer", { question: q.id, answer: c }); return; }
            const list = ui.chosen && ui.chosen.id === q.id ? ui.chosen.balls : [];
            ui.chosen = { id: q.id, balls: [...list, c] };
            if (ui.chosen.balls.length === count) { send("answer", { question: q.id, answer: ui.chosen.balls }); ui.chosen = null; }
            renderQuestions();
          },
        }, choiceText(c, q)));
        part.append(el("div", { class: "answers" }, buttons));
        if (count > 1) part.append(el("small", {}, t("q.pick_n", { count })));
        return part;
      }));
    }
    swap(box, fresh);
    renderEnabled();
  }

  // ---------------------------------------------------------------- presumptions, one tap to correct
  // The last ruled shot's presumptions that a declaration can overturn (a later shot or an
  // undo replaces them: a declaration speaks of the shot just played).
  function takeRuling(ev) {
    const d = ev.data || {};
    if (ev.type === "undo" || ev.type === "match_started") ui.presumed = null;
    if (ev.type !== "shot_result") return;
    if (ui.presumed && d.shot < ui.presumed.shot) return;  // an earlier shot ruled again
    const items = (d.decisions || []).filter((x) => x.decision === "Noted" && CORRECTIONS[x.what]
      && !ui.corrected.has(`${d.shot}:${x.what}`));
    ui.presumed = items.length ? { shot: d.shot, items } : null;
  }
  function renderPresumed() {
    const box = document.getElementById("presumed");
    const p = ui.presumed;
    const fresh = el("div", { id: "presumed", hidden: !p },
      p ? [el("p", { class: "calls" }, t("c.presumed", { shot: p.shot })),
        ...p.items.map((n) => el("div", { class: "presumption" },
          el("span", {}, noteText(n, table)), " ",
          el("button", { type: "button", class: "quiet", "data-correct": n.what, "data-key": "fix-" + n.what,
            onclick: () => {
              // about that shot: refused, not taken for another, once the next is in play
              const tx = send("declare", { ...CORRECTIONS[n.what](n.detail), shot: p.shot });
              if (tx) ui.fixing.set(tx, `${p.shot}:${n.what}`);
            } }, t("fix." + n.what))))] : []);
    swap(box, fresh);
  }

  // ---------------------------------------------------------------- the drawing: call by tapping
  function tapMode() { return document.querySelector("input[name=tap]:checked").value; }
  function renderPool() {
    const game = state().game;
    const list = tapMode() === "call" ? ui.calls : ui.pocketed;
    const area = svg("svg", { viewBox: "0 0 200 400", class: "pool", role: "group", "aria-label": t("c.drawing") });
    area.append(svg("rect", { x: 0, y: 0, width: 200, height: 400, rx: 14, fill: "var(--rail)" }));
    area.append(svg("rect", { x: 14, y: 14, width: 172, height: 372, fill: "var(--felt)" }));
    area.append(svg("line", { x1: 14, y1: 300, x2: 186, y2: 300, stroke: "#ffffff88", "stroke-dasharray": "3 3" }));
    area.append(svg("text", { x: 100, y: 372, "text-anchor": "middle", fill: "#ffffff", "font-size": 10, "aria-hidden": "true" }, t("c.head")));
    area.append(svg("text", { x: 100, y: 34, "text-anchor": "middle", fill: "#ffffff", "font-size": 10, "aria-hidden": "true" }, t("c.foot")));
    const spots = {};
    const shown = [...balls(), "cue"];
    shown.forEach((b, i) => {
      const cols = 4;
      const x = 46 + (i % cols) * 36, y = 80 + Math.floor(i / cols) * 36;
      spots[b] = [x, y];
      const used = list.find((c) => c.ball === b);
      const picked = ui.picked === b;
      const g = pressable(svg("g", {
        class: "pball" + (picked ? " picked" : "") + (used ? " called" : ""),
        "data-ball": String(b), tabindex: 0, role: "button", "aria-pressed": String(picked),
        "aria-label": ballName(b) + (used ? ` → ${pocketName(used.pocket)}` : ""),
      }), () => { ui.picked = ui.picked === b ? null : b; renderPool(); });
      const stripe = isStripe(b, game);
      if (picked) g.append(svg("circle", { class: "ring", cx: x, cy: y, r: 18, fill: "none", stroke: "#ffd23f", "stroke-width": 3, "stroke-dasharray": "4 2" }));
      g.append(svg("circle", { class: "body", cx: x, cy: y, r: 14, fill: stripe ? "#fff" : ballColour(b, game), stroke: "#000", "stroke-width": 1 }));
      if (stripe) g.append(svg("rect", { x: x - 12, y: y - 7, width: 24, height: 14, fill: ballColour(b, game) }));
      if (b !== "cue") {
        g.append(svg("circle", { cx: x, cy: y, r: 7, fill: "#fff" }));
        g.append(svg("text", { x, y: y + 3.5, "text-anchor": "middle", "font-size": 9, "font-weight": "bold", fill: "#111" }, b));
      }
      // picked: a tick beside it, not only a colour
      if (picked) g.append(svg("text", { x: x + 13, y: y - 10, "font-size": 14, "font-weight": "bold", fill: "#ffd23f", stroke: "#000", "stroke-width": 0.6 }, "✓"));
      area.append(g);
    });
    for (const c of list) {
      if (spots[c.ball]) area.append(svg("line", { class: "call", x1: spots[c.ball][0], y1: spots[c.ball][1], x2: POCKET_AT[c.pocket][0], y2: POCKET_AT[c.pocket][1] }));
    }
    for (const [id, [x, y]] of Object.entries(POCKET_AT)) {
      area.append(pressable(svg("circle", {
        class: "pocket" + (ui.picked !== null ? " armed" : ""), cx: x, cy: y, r: 13, "data-pocket": id,
        tabindex: 0, role: "button", "aria-label": t("c.pocket", { pocket: pocketName(id) }),
      }, svg("title", {}, pocketName(id))), () => tapPocket(id)));
    }
    const holder = document.getElementById("pool");
    const old = holder.firstElementChild;
    if (old) swap(old, area); else holder.append(area);
    const text = (l) => l.length ? l.map((c) => `${c.ball} → ${pocketName(c.pocket)}`).join(", ") : "—";
    document.getElementById("calls").textContent = text(ui.calls);
    document.getElementById("pocketed").textContent = text(ui.pocketed);
    document.getElementById("pick-state").textContent = ui.picked !== null ? t("c.picked_now", { ball: ballName(ui.picked) }) : "";
  }
  function tapPocket(pocket) {
    if (ui.picked === null) { show(t("c.tap_ball_first"), "error"); return; }
    const list = tapMode() === "call" ? ui.calls : ui.pocketed;
    const i = list.findIndex((c) => c.ball === ui.picked);
    if (i >= 0) list.splice(i, 1);
    list.push({ ball: ui.picked, pocket });
    const ball = ui.picked;
    ui.picked = null;
    renderPool();
    // the keyboard goes back to the ball just called
    const again = document.querySelector(`#pool [data-ball="${CSS.escape(String(ball))}"]`);
    if (again && document.activeElement && document.activeElement.closest && document.activeElement.closest("#pool")) again.focus();
  }
  function clearTaps(which) {
    if (which === "call") { ui.calls = []; setPressed(document.getElementById("amend"), false); }
    else {
      ui.pocketed = [];
      for (const b of document.querySelectorAll("#declare-panel .toggle")) setPressed(b, false);
      for (const id of ["first-contact", "centre-line", "special", "balls-to-cushion"]) document.getElementById(id).value = "";
    }
    ui.picked = null;
    renderPool();
  }

  // ---------------------------------------------------------------- declare
  function setPressed(button, on) { button.setAttribute("aria-pressed", String(on)); }
  function toggle(button) { setPressed(button, button.getAttribute("aria-pressed") !== "true"); }
  function pressed(selector) { return [...document.querySelectorAll(selector)].filter((b) => b.getAttribute("aria-pressed") === "true"); }
  const fouls = document.getElementById("fouls");
  for (const code of FOULS) {
    fouls.append(el("button", { type: "button", class: "toggle", "aria-pressed": "false", "data-foul": code,
      onclick: (e) => toggle(e.currentTarget) }, foulName(code)));
  }
  document.getElementById("amend").addEventListener("click", (e) => toggle(e.currentTarget));
  function renderDeclareBalls() {
    const off = document.getElementById("off-table");
    const ticked = new Set(pressed("#off-table .toggle").map((b) => b.dataset.off));
    const fresh = el("div", { class: "toggles", id: "off-table" }, ...[...balls(), "cue"].map((b) => el("button", {
      type: "button", class: "toggle", "aria-pressed": String(ticked.has(String(b))), "data-off": String(b),
      "aria-label": ballName(b), onclick: (e) => toggle(e.currentTarget),
    }, b === "cue" ? t("ball.cue") : String(b))));
    swap(off, fresh);
    const first = document.getElementById("first-contact");
    const was = first.value;
    const options = [el("option", { value: "" }, "—"), el("option", { value: "none" }, t("c.no_contact")),
      ...balls().map((b) => el("option", { value: String(b) }, ballName(b)))];
    const now = [...first.options].map((o) => o.value + o.textContent).join("|");
    if (now !== options.map((o) => o.value + o.textContent).join("|")) {
      first.replaceChildren(...options);
      first.value = [...first.options].some((o) => o.value === was) ? was : "";
    }
  }
  document.getElementById("send-declare").addEventListener("click", () => {
    const payload = {};
    const f = pressed("#fouls .toggle").map((b) => b.dataset.foul);
    if (f.length) payload.fouls = f;
    const off = pressed("#off-table .toggle").map((b) => b.dataset.off === "cue" ? "cue" : Number(b.dataset.off));
    if (off.length) payload.off_table = off;
    if (ui.pocketed.length) payload.pocketed = ui.pocketed.map((c) => ({ ball: c.ball, pocket: c.pocket }));
    const first = document.getElementById("first-contact").value;
    if (first === "none") payload.first_contact = null;
    else if (first) payload.first_contact = Number(first);
    const centre = document.getElementById("centre-line").value;
    if (centre) payload.centre_line = centre === "true";
    const special = document.getElementById("special").value;
    if (special) payload.special = special;
    const toCushion = document.getElementById("balls-to-cushion").value;
    if (toCushion && state().game === "ten-ball") payload.balls_to_cushion = Number(toCushion);
    if (!Object.keys(payload).length) { show(t("c.nothing_ticked"), "error"); return; }
    send("declare", payload);
  });

  // Ten-ball's penalty for unsportsmanlike conduct (TB-14): the player loses the game or the
  // match, for a reason the ruling records.
  function renderOffenders() {
    const offender = document.getElementById("offender");
    const was = offender.value;
    const names = (state().players || []).map((p, i) => el("option", { value: i }, table.playerName(i)));
    if ([...offender.options].map((o) => o.textContent).join("|") !== names.map((o) => o.textContent).join("|")) {
      offender.replaceChildren(...names);
      if (was && Number(was) < names.length) offender.value = was;
    }
    for (const node of document.querySelectorAll(".tenball-only")) node.hidden = state().game !== "ten-ball";
  }
  document.getElementById("send-unsporting").addEventListener("click", () => {
    const reason = document.getElementById("unsporting-reason").value.trim();
    if (!reason) { show(t("c.no_reason"), "error"); document.getElementById("unsporting-reason").focus(); return; }
    const player = Number(document.getElementById("offender").value);
    const loses = document.getElementById("loses").value;
    if (!confirm(t(`c.confirm_unsporting_${loses}`, { who: table.playerName(player) }))) return;
    if (send("declare", { unsportsmanlike: { player, loses, reason } })) document.getElementById("unsporting-reason").value = "";
  });

  // ---------------------------------------------------------------- call, shot end, undo, match
  for (const r of document.querySelectorAll("input[name=tap]")) r.addEventListener("change", renderPool);
  document.getElementById("send-call").addEventListener("click", () => {
    const kind = document.getElementById("kind").value;
    if (!ui.calls.length && kind === "normal") { show(t("c.nothing_called"), "error"); return; }
    const payload = { calls: ui.calls.map((c) => ({ ball: c.ball, pocket: c.pocket })), kind };
    if (document.getElementById("amend").getAttribute("aria-pressed") === "true") payload.amend = true;
    send("call", payload);
  });
  document.getElementById("clear-call").addEventListener("click", () => clearTaps("call"));
  document.getElementById("shot-end").addEventListener("click", () => send("shot_end", {}));
  document.getElementById("undo").addEventListener("click", () =>
    send("undo", { shots: Number(document.getElementById("undo-shots").value) || 1 }));
  document.getElementById("refresh").addEventListener("click", () => send("get", {}));
  document.getElementById("end-match").addEventListener("click", () => {
    if (confirm(t("c.confirm_end"))) send("end_match", {});
  });

  // ---------------------------------------------------------------- new match
  let gameOptions = {};
  try { gameOptions = await (await fetch("options.json")).json(); } catch (e) { /* options stay default */ }
  const gameSelect = document.getElementById("game");
  function renderBreaker() {
    const breaker = document.getElementById("breaker");
    const was = breaker.value;
    const names = [...document.querySelectorAll("#players input")].map((i) => i.value.trim());
    breaker.replaceChildren(...names.map((name, i) => el("option", { value: i }, name || t("c.player", { n: i + 1 }))));
    if (was && Number(was) < names.length) breaker.value = was;
  }
  function renderNewMatch() {
    const game = gameSelect.value;
    const spec = gameOptions[game] || { players: [2, 2], options: [] };
    const box = document.getElementById("players");
    const names = [...box.querySelectorAll("input")].map((i) => i.value);
    box.replaceChildren(...Array.from({ length: spec.players[1] }, (_, i) => el("label", {},
      `${t("c.player", { n: i + 1 })}${i >= spec.players[0] ? " " + t("c.optional") : ""} `,
      el("input", { type: "text", name: `player${i}`, "data-player-name": i, value: names[i] || "", required: i < spec.players[0],
        autocomplete: "off", oninput: renderBreaker }))));
    renderBreaker();
    document.getElementById("options").replaceChildren(...spec.options.map((o) => {
      let input;
      if (typeof o.default === "boolean") input = el("input", { type: "checkbox", checked: o.default });
      else if (o.choices.length) {
        input = el("select", {}, o.choices.map((c) => el("option", { value: JSON.stringify(c), selected: c === o.default }, choiceLabel(o, c))));
      } else if (Array.isArray(o.default)) input = el("input", { type: "text", placeholder: "0, 15", value: o.default.join(", ") });
      else input = el("input", { type: "text", value: String(o.default) });
      input.dataset.option = o.key;
      // the option's name and what it does in the page's language, its code beside them
      const [doc, docLang] = optionDoc(game, o);
      return el("label", { class: "option" }, input, ` ${tOr("opt", o.key)} `, el("code", {}, o.key),
        el("small", { "data-option-doc": o.key, lang: docLang }, doc));
    }));
  }
  // What an option does, in the page's language: lang/<code>.json's optdoc.<game>.<key> (where
  // the games' options of that name differ) or optdoc.<key>; English is the rules' own `doc`
  // (options.json, as docs/options.md has it). Returns [text, its language code].
  function optionDoc(game, o) {
    const words = STRINGS[LANG] || {};
    const text = words[`optdoc.${game}.${o.key}`] ?? words[`optdoc.${o.key}`];
    return text ? [text, LANG] : [o.doc, "en"];
  }
  // A choice's label in the page's language (the code itself when it has none: numbers).
  function choiceLabel(o, c) {
    const key = `optchoice.${o.key}.${c}`;
    return key in STRINGS.en ? t(key) : String(c);
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
    if (inMatch() && !confirm(t("c.confirm_new"))) return;
    send("new_match", payload);
  });
  renderNewMatch();

  // ---------------------------------------------------------------- connecting
  function start(credentials) {
    document.getElementById("login").hidden = true;
    document.getElementById("panels").hidden = false;
    if (client) client.end(true);
    client = connect(config, credentials, (text, ok, error) => {
      setConnection(text, ok);
      render();
      if (!ok && error && /auth|password|identifier|not authori[sz]ed|bad user/i.test(String(error.message || error))) {
        client.end(true);
        sessionStorage.removeItem("referee");
        askLogin(t("c.refused", { why: text }));
      }
    });
    client.on("connect", () => client.subscribe([`${base}/+`, `${base}/response/+`], { qos: 1 }));
    client.on("message", (topic, payload) => {
      const rest = topic.slice(base.length + 1);
      const data = parseJson(payload);
      if (!data) return;
      if (rest.startsWith("response/")) { answered(rest.slice(9), data); return; }
      if (rest === "event") takeRuling(data);
      if (table.take(rest, data)) render();
      if (config.history && table.wantsHistory()) {  // a match begun before the console was opened
        fetch(`history/live/${encodeURIComponent(tableId)}.json`, { cache: "no-store" })
          .then((r) => (r.ok ? r.json() : null)).then((m) => { table.takeHistory(m); render(); })
          .catch(() => { /* no history: the clock and racks start from what is seen */ });
      }
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
  setInterval(() => { if (table.matchSeconds() !== null) render(); }, 1000);  // the match clock
  const saved = sessionStorage.getItem("referee");
  if (config.referee) start(config.referee);
  else if (saved) start(JSON.parse(saved));
  else if (config.dashboard === null || config.dashboard === undefined) start(null);  // an open broker
  else askLogin();
})();
