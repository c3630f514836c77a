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
const NO_ANSWER_YET_S = 6;
// The fouls offered one tap away after «Фол…», per game: the common ones (every other in the
// declaration below). Keys 1–9 pick them.
const COMMON_FOULS = {
  "ten-ball": ["miss", "wrong_ball_first", "no_rail", "touched_ball", "double_hit", "push", "moving_balls", "bad_break", "feet_off_floor"],
  "siberian-ten": ["miss", "two_cushion", "wrong_ball_first", "touched_ball", "double_hit", "push", "direct_hit_in_kitchen", "bad_break", "feet_off_floor"],
  "pyramid": ["miss", "touched_ball", "butt_or_side", "double_hit", "push", "moving_balls", "direct_hit_in_kitchen", "bad_placement", "feet_off_floor"],
};
// A foul the sensors made of cushions they did not feel, and the declaration that says the
// balls did reach them (the shot is ruled again on that).
const NOT_A_FOUL = { no_rail: { cushions_after_contact: 1 }, two_cushion: { cushions_after_contact: 2 } };
// Single keys (KeyboardEvent.code: the same key whatever the keyboard's language) for the
// pockets, laid out as the drawing: the far pockets on the top row, the head ones at the bottom.
const POCKET_KEYS = { KeyQ: "fl", KeyW: "fr", KeyA: "sl", KeyS: "sr", KeyZ: "hl", KeyX: "hr" };
const KEY_OF_POCKET = Object.fromEntries(Object.entries(POCKET_KEYS).map(([k, p]) => [p, k.slice(3)]));  // then the console says it is still waiting, and until when
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
  document.getElementById("table-id").textContent = config.venue;
  document.getElementById("table-name").textContent = tableName(tableId);
  document.title = t("page.title.console", { table: tableId });

  const table = new TableModel(tableId);
  const pending = new Map();  // transaction -> {name, timers, deadline}
  // Reported not done: an answer may still come (late), and is then shown for what it is.
  const expired = new Map();  // transaction -> the time it was wanted until
  const ui = {
    calls: [], pocketed: [], picked: null, verdict: null, fell: [], fixShot: null, seenQuestions: "",
    presumed: null, corrected: new Set(), fixing: new Map(),  // presumptions and their corrections
    result: document.getElementById("result"), log: document.getElementById("log"),
    ruling: document.getElementById("ruling"),
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
        const p = pending.get(transaction);
        if (!p) return;
        pending.delete(transaction);
        expired.set(transaction, until);
        if (expired.size > 100) expired.delete(expired.keys().next().value);
        const why = !(client && client.connected) ? "r.expired_offline" : p.acked ? "r.expired" : "r.expired_broker";
        show(t(why, { req, time: until }), "expired");
      }, (ttl + 2) * 1000),
    ];
    const entry = { name, timers, acked: false, then: null };
    pending.set(transaction, entry);
    // the broker's PUBACK says the request reached it: a request never answered is then the
    // table's silence, without one the broker's
    client.publish(`${base}/request/${name}`,
      JSON.stringify({ v: 1, ...payload, transaction, deadline: Math.round(deadline * 1000) / 1000 }),
      { qos: 1, properties: { messageExpiryInterval: Math.ceil(ttl) } }, (err) => { if (!err) entry.acked = true; });
    show(t("r.sent", { req }), "sent");
    return transaction;
  }
  // Sends requests one after the other, each once the one before was carried out: steps is a
  // list of [name, payload or a function returning it]; a refusal stops the rest.
  function sendChain(steps) {
    if (!steps.length) return;
    const [name, payload] = steps[0];
    const tx = send(name, typeof payload === "function" ? payload() : payload);
    if (tx && pending.has(tx)) pending.get(tx).then = () => sendChain(steps.slice(1));
  }
  function nextShot() { return (state().shot || 0) + 1; }
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
      if (name === "declare" && ui.fixShot !== null) closeFix();
      if (p.then) p.then();
    } else if (name === "call" && openQuestion(response.error, table)) {
      // refused, not lost: the taps stay, and the referee is told what to do with them
      const q = openQuestion(response.error, table);
      show(t("r.call_after_question", { req, text: questionText(q, table) }), "error");
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
    const fresh = el("div", { id: "card" }, renderTable(table, { connected: !!(client && client.connected), clock: true, racks: true, title: tableName(tableId) }));
    swap(card, fresh);
    document.getElementById("panels").classList.toggle("no-match", !inMatch());
    renderQuestions();
    renderPresumed();
    renderVerdict();
    renderFoulSheet();
    renderFixSheet();
    renderPool();
    renderDeclareBalls();
    renderOffenders();
    renderEnabled();
  }
  // Buttons that send are off while we or the table are away, and say why.
  function renderEnabled() {
    const ok = canSend();
    for (const b of document.querySelectorAll("[data-send], #questions button, #presumed button, #foul-sheet button, #fix-sheet button.foul-pick")) b.disabled = !ok;
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
      fresh = el("div", { id: "questions" }, ...qs.map((q, n) => {
        const count = q.count || 1;
        const chosen = ui.chosen && ui.chosen.id === q.id ? ui.chosen.balls : [];
        const part = el("div", { class: "q", "data-question": q.id },
          el("p", { class: "question" }, `${table.playerName(q.player)}: ${questionText(q, table)}`));
        // keys for the first only: the questions are answered in their order
        const keys = n === 0 ? answerKeys(q.choices || []) : [];
        const buttons = (q.choices || []).map((c, i) => withKey(el("button", {
          type: "button", class: "answer", "data-answer": String(c), "aria-pressed": count > 1 ? String(chosen.includes(c)) : null,
          "aria-label": typeof c === "number" ? ballName(c) : null,
          onclick: () => {
            if (count === 1) { send("answer", { question: q.id, answer: c }); return; }
            const list = ui.chosen && ui.chosen.id === q.id ? ui.chosen.balls : [];
            ui.chosen = { id: q.id, balls: [...list, c] };
            if (ui.chosen.balls.length === count) { send("answer", { question: q.id, answer: ui.chosen.balls }); ui.chosen = null; }
            renderQuestions();
          },
        }, choiceText(c, q)), keys[i]));
        part.append(el("div", { class: "answers" }, buttons));
        if (count > 1) part.append(el("small", {}, t("q.pick_n", { count })));
        return part;
      }));
    }
    swap(box, fresh);
    document.getElementById("question-panel").hidden = !qs.length;
    document.getElementById("h-question").textContent = t(qs.length > 1 ? "c.questions" : "c.question");
    // a new question takes the focus (one key or tap answers it), unless a field is being typed in
    const seen = qs.map((q) => q.id).join(",");
    if (seen !== ui.seenQuestions) {
      ui.seenQuestions = seen;
      const first = document.querySelector("#questions button.answer");
      if (first && !typing()) first.focus({ preventScroll: true });
    }
    renderEnabled();
  }
  // The keys that answer: a ball's own number (0 for 10) when every choice is a ball up to 10,
  // else 1, 2, 3… in the order shown.
  function answerKeys(choices) {
    const balls = choices.every((c) => (typeof c === "number" && c >= 1 && c <= 10) || c === "cue");
    return choices.map((c, i) => balls ? (c === "cue" ? "C" : String(c % 10)) : i < 9 ? String(i + 1) : null);
  }
  // A button that shows its single-key shortcut.
  function withKey(button, key) {
    if (!key) return button;
    button.setAttribute("aria-keyshortcuts", key);
    // the key shown unless the button already says it (a ball's number)
    if (button.textContent.trim() === key) return button;
    button.append(" ", el("kbd", { "aria-hidden": "true" }, key));
    const label = button.getAttribute("aria-label");
    if (label) button.setAttribute("aria-label", `${label} ${key}`);  // the name holds what is seen
    return button;
  }
  function typing() {
    const a = document.activeElement;
    return !!(a && (a.tagName === "INPUT" && !["radio", "checkbox"].includes(a.type) || a.tagName === "TEXTAREA" || a.tagName === "SELECT"));
  }

  // ---------------------------------------------------------------- presumptions, one tap to correct
  // The last ruled shot's presumptions that a declaration can overturn (a later shot or an
  // undo replaces them: a declaration speaks of the shot just played).
  function takeRuling(ev) {
    const d = ev.data || {};
    takeVerdict(ev);
    if (ev.type === "undo" || ev.type === "redo" || ev.type === "match_started") ui.presumed = null;
    if (ev.type !== "shot_result") return;
    if (ui.presumed && d.shot < ui.presumed.shot) return;  // an earlier shot ruled again
    const items = (d.decisions || []).filter((x) => x.decision === "Noted" && CORRECTIONS[x.what]
      && !ui.corrected.has(`${d.shot}:${x.what}`));
    ui.presumed = items.length ? { shot: d.shot, items } : null;
  }
  // ---------------------------------------------------------------- the shot as the table understood it
  // Gathered from the events of one ruling (they come before the state they lead to): the
  // shot's result, its fouls, the game or match it ended; the balls seen falling before it.
  function takeVerdict(ev) {
    const d = ev.data || {};
    const v = ui.verdict;
    switch (ev.type) {
      case "ball_pocketed": ui.fell.push({ ball: d.ball, pocket: d.pocket }); return;
      case "shot_result": {
        const decisions = d.decisions || [];
        // each ball credited, to whom, and whether the handicap gave it (ST-19)
        const handicap = new Set(decisions.filter((x) => x.decision === "Noted" && x.what === "handicap")
          .map((x) => String((x.about || {}).ball)));
        const credited = decisions.filter((x) => x.decision === "BallCredited")
          .map((x) => ({ ball: x.ball, player: x.player, points: x.points ?? 1, handicap: handicap.has(String(x.ball)) }));
        const down = decisions.filter((x) => x.decision === "BallStaysDown").map((x) => x.ball);
        const moved = decisions.filter((x) => x.decision === "PointsMoved");
        if (v && v.shot === d.shot && !d.corrected) {  // the same shot, ruled on after an answer
          Object.assign(v, { next: d.to_shoot, hand: d.ball_in_hand, credited: [...v.credited, ...credited],
            down: [...v.down, ...down], moved: [...v.moved, ...moved], acked: false });
          showRuling();
          return;
        }
        const own = v && v.shot === d.shot;
        const shooter = own ? v.shooter : state().to_shoot;  // the state is still the shot's own
        ui.verdict = {
          shot: d.shot, shooter, next: d.to_shoot, hand: d.ball_in_hand, corrected: !!d.corrected,
          fell: ui.fell.length ? ui.fell : ui.declared && ui.declared.shot === d.shot ? ui.declared.fell : [],
          credited, down, moved,
          scores: own ? v.scores : (state().players || []).map((p) => p.score),  // before the shot
          fouls: [], over: null, acked: false,
        };
        ui.fell = [];
        showRuling();
        return;
      }
      case "foul": if (v) { v.fouls = [...v.fouls, ...(d.fouls || [])]; showRuling(); } return;
      case "game_over": if (v) { v.over = { game: d.game_no, winner: d.winner, draw: !!d.draw }; showRuling(); } return;
      case "match_over": if (v) { v.match = { winner: d.winner, games: (d.games || []).join(":"), abandoned: !!d.abandoned }; showRuling(); } return;
      case "undo": case "redo":
        ui.verdict = null;
        ui.ruling.hidden = false;
        ui.ruling.textContent = ev.type === "undo" ? t("ev.undo", { shot: d.back_to_shot }) : t("ev.redo", { shot: d.shot });
        ui.ruling.dataset.state = "undo";
        return;
      case "match_started": ui.verdict = null; ui.fell = []; ui.ruling.hidden = true; return;
      case "question": {  // a later shot waits for an answer: the last ruling is not its
        const shot = Number((String(d.id || "").match(/^q-(\d+)-/) || [])[1]);
        if (v && shot > v.shot) {
          ui.ruling.hidden = false;
          ui.ruling.textContent = t("v.shot", { shot }) + t("v.asking");
          ui.ruling.dataset.state = "asking";
        }
        return;
      }
    }
  }
  // The ruling in one sentence: «Анна: шар 3 засчитан, бьёт снова», «Фол: нет двух бортов — бьёт Борис».
  function verdictText(v) {
    const who = (i) => table.playerName(i);
    const balls = (list) => list.map((b) => (b === "cue" ? t("ball.cue") : b)).join(", ");
    const ended = v.over && !v.match;  // the next shot is the next game's break
    let next = "";
    if (v.next !== null && v.next !== undefined && !v.match) {
      if (ended) next = t("v.breaks", { who: who(v.next) });
      else next = v.next === v.shooter && !v.fouls.length ? t("v.again") : t("v.next", { who: who(v.next) });
    }
    const hand = !ended && v.hand && v.hand !== "none" ? t(v.hand === "kitchen" ? "v.hand_kitchen" : "v.hand") : "";
    // the shooter's own balls; the balls credited to another player, named with that player
    const mine = v.credited.filter((c) => c.player === v.shooter).map((c) => c.ball);
    const theirs = new Map();
    for (const c of v.credited.filter((x) => x.player !== v.shooter)) {
      const to = theirs.get(c.player) || { balls: [], handicap: false };
      to.balls.push(c.ball);
      to.handicap ||= c.handicap;
      theirs.set(c.player, to);
    }
    const others = [...theirs].map(([player, to]) => t(to.balls.length > 1 ? "v.credited_to_many" : "v.credited_to",
      { who: who(player), balls: balls(to.balls) }) + (to.handicap ? t("v.handicap") : ""));
    let text;
    if (v.fouls.length) text = [t("v.foul", { fouls: v.fouls.map(foulName).join(", ") }), ...others].join(", ");
    else if (mine.length) text = [t(mine.length > 1 ? "v.credited_many" : "v.credited", { who: who(v.shooter), balls: balls(mine) }), ...others].join(", ");
    else if (others.length) text = `${who(v.shooter)}: ${others.join(", ")}`;
    else if (v.down.length) text = t(v.down.length > 1 ? "v.down_many" : "v.down", { who: who(v.shooter), balls: balls(v.down) });
    else text = t("v.nothing", { who: who(v.shooter) });
    if (v.over) {
      const won = !v.over.draw && v.over.winner === v.shooter;
      text += " — " + (v.over.draw ? t("ev.game_drawn", { n: v.over.game })
        : won ? t("v.wins_game", { n: v.over.game }) : t("v.game_over", { n: v.over.game, who: who(v.over.winner) }));
    }
    text += next + hand + scoresMoved(v);
    if (v.match && !v.match.abandoned) {
      text += " · " + (v.match.winner === null || v.match.winner === undefined ? t("ev.match_drawn") : t("v.match_over", { who: who(v.match.winner), games: v.match.games }));
    }
    return text;
  }
  // «· очки: Анна 9 → 4, Борис 0 → 5» when a penalty moved points (Point pyramid)
  function scoresMoved(v) {
    if (!v.moved.length || !v.scores.length) return "";
    const after = [...v.scores];
    for (const c of v.credited) after[c.player] += c.points;
    for (const m of v.moved) { after[m.offender] -= m.points; after[m.to] += m.points; }
    const changes = after.map((score, i) => (score === v.scores[i] ? null : `${table.playerName(i)} ${v.scores[i]} → ${score}`))
      .filter((x) => x !== null);
    return changes.length ? t("v.scores", { changes: changes.join(", ") }) : "";
  }
  function showRuling() {
    const v = ui.verdict;
    if (!v) return;
    ui.ruling.hidden = false;
    ui.ruling.textContent = (v.corrected ? t("v.corrected", { shot: v.shot }) : t("v.shot", { shot: v.shot })) + verdictText(v);
    ui.ruling.dataset.state = v.match ? "over" : v.fouls.length ? "foul" : v.over ? "over" : "ok";
  }
  function renderVerdict() {
    const box = document.getElementById("verdict");
    const v = ui.verdict;
    if (!v || v.acked) { swap(box, el("div", { id: "verdict", hidden: true })); return; }
    const who = (i) => table.playerName(i);
    const lines = [];
    const fell = v.fell.filter((f) => f.pocket);
    if (fell.length) lines.push(t("v.fell", { what: fell.map((f) => `${f.ball === null || f.ball === undefined ? t("ball.unknown") : f.ball === "cue" ? t("ball.cue") : f.ball} → ${pocketName(f.pocket)}`).join(", ") }));
    if (v.fouls.length) lines.push(t("v.fouls", { fouls: v.fouls.map(foulName).join(", ") }));
    if (v.next !== null && v.next !== undefined) {
      lines.push(t("v.turn", { who: who(v.next) }) + (v.hand && v.hand !== "none" ? t(v.hand === "kitchen" ? "v.hand_kitchen" : "v.hand") : ""));
    }
    const fresh = el("div", { id: "verdict", class: "verdict " + (v.fouls.length ? "foul" : "ok") },
      el("p", { class: "verdict-head" }, t("v.shot", { shot: v.shot }) + verdictText(v)),
      lines.length ? el("ul", {}, lines.map((l) => el("li", {}, l))) : null,
      el("div", { class: "actions" },
        withKey(el("button", { type: "button", id: "v-ok", class: "big", "data-key": "v-ok", onclick: ackVerdict }, t("v.ok")), "V"),
        withKey(el("button", { type: "button", id: "v-fix", class: "big quiet", "data-key": "v-fix", onclick: () => fixShot(v.shot) }, t("v.fix")), "E")));
    const isNew = box.hidden || box.dataset.shot !== String(v.shot);
    fresh.dataset.shot = String(v.shot);
    swap(box, fresh);
    const a = document.activeElement;
    if (isNew && !typing() && !(state().questions || []).length && (!a || a === document.body || a.closest("#shot-panel"))) {
      document.getElementById("v-ok").focus({ preventScroll: true });
    }
  }
  function ackVerdict() {
    if (ui.verdict) ui.verdict.acked = true;
    renderVerdict();
    focusPool();
  }
  // «Исправить»: the declaration, about that shot only, opened where the eye and the keyboard are.
  // The fix sheet: that shot's facts one tap away (its presumptions, a foul, a ball that fell,
  // tapped on the drawing), every other fact in the declaration below.
  function fixShot(shot) {
    ui.fixShot = shot;
    document.querySelector("input[name=tap][value=pocketed]").checked = true;
    renderPool();
    renderFixSheet();
    const first = document.querySelector("#fix-sheet button");
    if (first) first.focus({ preventScroll: true });
  }
  function closeFix() {
    ui.fixShot = null;
    document.getElementById("fix-note").hidden = true;
    document.querySelector("input[name=tap][value=pot]").checked = true;
    renderPool();
    renderFixSheet();
  }
  function renderFixSheet() {
    const box = document.getElementById("fix-sheet");
    const shot = ui.fixShot;
    if (shot === null) { swap(box, el("div", { id: "fix-sheet", class: "sheet fix", hidden: true })); return; }
    const declare = (facts) => send("declare", { ...facts, shot });
    const presumed = ui.presumed && ui.presumed.shot === shot ? ui.presumed.items : [];
    const fresh = el("div", { id: "fix-sheet", class: "sheet fix", role: "group", "aria-labelledby": "fix-title" },
      el("p", { id: "fix-title", class: "fix-title" }, t("c.fixing_short", { shot })),
      (ui.verdict && ui.verdict.shot === shot ? ui.verdict.fouls : []).filter((f) => NOT_A_FOUL[f]).map((f) =>
        el("button", { type: "button", class: "quiet", "data-no-foul": f, "data-key": "fx-no-" + f,
          onclick: () => declare(NOT_A_FOUL[f]) }, t("c.no_foul", { foul: foulName(f) }))),
      presumed.map((n) => el("button", { type: "button", class: "quiet", "data-key": "fx-" + n.what,
        onclick: () => { const tx = send("declare", { ...CORRECTIONS[n.what](n.detail), shot }); if (tx) ui.fixing.set(tx, `${shot}:${n.what}`); },
      }, t("fix." + n.what))),
      (COMMON_FOULS[state().game] || []).map((code, i) => withKey(el("button", { type: "button", class: "foul-pick",
        "data-fix-foul": code, "data-key": "fx-" + code, onclick: () => declare({ fouls: [code] }) }, foulName(code)), String(i + 1))),
      el("p", { class: "fix-hint" }, t("c.fix_fell")),
      el("div", { class: "actions" },
        el("button", { type: "button", class: "quiet", "data-key": "fx-all", onclick: () => openDeclaration(shot) }, t("c.fix_all")),
        withKey(el("button", { type: "button", class: "quiet", id: "fix-close", "data-key": "fx-close", onclick: closeFix }, t("c.fix_close")), "Esc")));
    swap(box, fresh);
  }
  // The whole declaration below, about `shot` (null: the shot in play or to come).
  function openDeclaration(shot) {
    ui.fixShot = shot;
    const panel = document.getElementById("declare-panel");
    const note = document.getElementById("fix-note");
    note.hidden = shot === null;
    note.textContent = shot === null ? "" : t("c.fixing", { shot });
    renderFixSheet();
    panel.scrollIntoView({ block: "start" });
    const first = panel.querySelector("button");
    if (first) first.focus({ preventScroll: true });
  }
  function focusPool() {
    const b = document.querySelector("#pool [data-ball]");
    if (b && !typing()) b.focus({ preventScroll: true });
  }

  // ---------------------------------------------------------------- one tap: miss, foul
  function renderFoulSheet() {
    const sheet = document.getElementById("foul-sheet");
    const codes = COMMON_FOULS[state().game] || [];
    const fresh = el("div", { id: "foul-sheet", class: "sheet", hidden: sheet.hidden, role: "group", "aria-label": t("c.foul_menu") },
      codes.map((code, i) => withKey(el("button", { type: "button", class: "foul-pick", "data-pick-foul": code, "data-key": "pf-" + code,
        onclick: () => { closeFoulSheet(); sendChain([["declare", () => ({ fouls: [code], shot: nextShot() })], ["shot_end", {}]]); },
      }, foulName(code)), String(i + 1))),
      el("button", { type: "button", class: "quiet", "data-key": "pf-more", onclick: () => { closeFoulSheet(); openDeclaration(null); } }, t("c.foul_more")));
    swap(sheet, fresh);
  }
  function openFoulSheet() {
    const sheet = document.getElementById("foul-sheet");
    sheet.hidden = false;
    document.getElementById("q-foul").setAttribute("aria-expanded", "true");
    const first = sheet.querySelector("button");
    if (first) first.focus({ preventScroll: true });
  }
  function closeFoulSheet() {
    document.getElementById("foul-sheet").hidden = true;
    document.getElementById("q-foul").setAttribute("aria-expanded", "false");
  }
  document.getElementById("q-foul").addEventListener("click", () => {
    if (document.getElementById("foul-sheet").hidden) openFoulSheet(); else closeFoulSheet();
  });
  document.getElementById("q-miss").addEventListener("click", () => send("shot_end", {}));
  for (const id of ["q-miss", "q-foul", "q-undo", "q-redo"]) {
    const b = document.getElementById(id);
    withKey(b, b.dataset.keyhint);
  }
  // A called ball potted, in one go: the call, what fell (for the shot to come) and the shot's end.
  function potCalled(ball, pocket) {
    const steps = [];
    // no call on the break: whatever falls counts
    if (ball !== "cue" && state().status !== "break") steps.push(["call", { calls: [{ ball, pocket }], kind: "normal" }]);
    steps.push(["declare", () => {
      ui.declared = { shot: nextShot(), fell: [{ ball, pocket }] };  // what the verdict will show fell
      return { pocketed: [{ ball, pocket }], shot: ui.declared.shot };
    }]);
    steps.push(["shot_end", {}]);
    sendChain(steps);
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
    const list = tapMode() === "pocketed" ? ui.pocketed : ui.calls;
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
        "aria-keyshortcuts": KEY_OF_POCKET[id],
      }, svg("title", {}, pocketName(id))), () => tapPocket(id)));
      area.append(svg("text", { class: "key", x: x < 100 ? x + 16 : x - 16, y: y < 200 ? y + 16 : y > 200 ? y - 8 : y + 4,
        "text-anchor": "middle", "font-size": 11, fill: "#ffd23f", "aria-hidden": "true" }, KEY_OF_POCKET[id]));
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
    if (tapMode() === "pocketed" && ui.fixShot !== null && document.getElementById("fix-sheet").hidden === false) {
      const ball = ui.picked;
      ui.picked = null;
      renderPool();
      send("declare", { pocketed: [{ ball, pocket }], shot: ui.fixShot });
      return;
    }
    if (tapMode() === "pot") {
      const ball = ui.picked;
      ui.picked = null;
      renderPool();
      potCalled(ball, pocket);
      return;
    }
    const list = tapMode() === "pocketed" ? ui.pocketed : ui.calls;
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
      // a declaration done: the drawing goes back to its everyday mode
      document.querySelector("input[name=tap][value=pot]").checked = true;
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
    if (ui.fixShot !== null) payload.shot = ui.fixShot;
    if (send("declare", payload)) {
      ui.fixShot = null;
      document.getElementById("fix-note").hidden = true;
    }
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
  function undo(shots) {
    if (!confirm(t(shots > 1 ? "c.confirm_undo_many" : "c.confirm_undo", { shot: state().shot, n: shots }))) return;
    send("undo", { shots });
  }
  document.getElementById("undo").addEventListener("click", () => undo(Number(document.getElementById("undo-shots").value) || 1));
  document.getElementById("q-undo").addEventListener("click", () => undo(1));
  for (const id of ["redo", "q-redo"]) document.getElementById(id).addEventListener("click", () => send("redo", {}));
  document.getElementById("refresh").addEventListener("click", () => send("get", {}));
  document.getElementById("end-match").addEventListener("click", () => {
    if (confirm(t("c.confirm_end"))) send("end_match", {});
  });

  // ---------------------------------------------------------------- the keyboard alone
  // Single keys, shown on the buttons: the answers of an open question; 1–9 in the foul list;
  // a ball's number (0 for 10, C the cue ball) then a pocket's letter; M miss, F foul, V right,
  // E fix, U undo, Y redo, Esc to let go. Never while a field is being typed in.
  function pickBall(b) {
    if (!balls().includes(b) && b !== "cue") return false;
    ui.picked = b;
    renderPool();
    const node = document.querySelector(`#pool [data-ball="${CSS.escape(String(b))}"]`);
    if (node) node.focus({ preventScroll: true });
    return true;
  }
  function typedDigit(d) {
    const on = balls();
    if (ui.digit !== null && ui.digit !== undefined) {
      clearTimeout(ui.digitTimer);
      const two = ui.digit * 10 + d;
      ui.digit = null;
      if (on.includes(two)) { pickBall(two); return; }
    }
    // 1 may begin 11–15 (the pyramid): it waits a moment for a second digit
    if (d === 1 && on.some((b) => typeof b === "number" && b > 10)) {
      ui.digit = 1;
      ui.digitTimer = setTimeout(() => { ui.digit = null; pickBall(1); }, 700);
      return;
    }
    pickBall(d === 0 && !on.includes(0) ? 10 : d);
  }
  function clickIf(selector) {
    const b = document.querySelector(selector);
    if (!b || b.disabled || b.closest("[hidden]")) return false;
    b.click();
    return true;
  }
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat || typing()) return;
    if (document.getElementById("panels").hidden || !inMatch()) return;
    const key = e.key.length === 1 ? e.key.toUpperCase() : e.key;
    const letter = e.code.startsWith("Key") ? e.code.slice(3) : e.code.startsWith("Digit") ? e.code.slice(5) : key;
    const done = () => e.preventDefault();
    const answers = [...document.querySelectorAll("#questions button.answer[aria-keyshortcuts]")];
    if (answers.length) {
      const b = answers.find((x) => x.getAttribute("aria-keyshortcuts") === letter);
      if (b) { done(); b.click(); }
      return;  // a question first: nothing else until it is answered
    }
    const sheet = document.getElementById("foul-sheet");
    if (!sheet.hidden && /^[1-9]$/.test(letter)) {
      if (clickIf(`#foul-sheet button[aria-keyshortcuts="${letter}"]`)) done();
      return;
    }
    const fix = document.getElementById("fix-sheet");
    if (!fix.hidden && /^[1-9]$/.test(letter)) {
      if (clickIf(`#fix-sheet button[aria-keyshortcuts="${letter}"]`)) done();
      return;
    }
    if (key === "Escape") { closeFoulSheet(); if (ui.fixShot !== null) closeFix(); ui.picked = null; renderPool(); return; }
    if (POCKET_KEYS[e.code]) {
      if (ui.picked !== null) { done(); tapPocket(POCKET_KEYS[e.code]); }
      return;
    }
    if (/^[0-9]$/.test(letter)) { done(); typedDigit(Number(letter)); return; }
    const action = { C: () => pickBall("cue"), M: () => clickIf("#q-miss"), F: () => clickIf("#q-foul"),
      V: () => clickIf("#v-ok"), E: () => clickIf("#v-fix"), U: () => clickIf("#q-undo"), Y: () => clickIf("#q-redo") }[letter];
    if (action) { done(); action(); }
  });

  // ---------------------------------------------------------------- new match
  let gameOptions = {};
  try { gameOptions = await (await fetch("options.json")).json(); } catch (e) { /* options stay default */ }
  const gameSelect = document.getElementById("game");
  function playerLabel(i) {
    const input = document.querySelector(`#players [data-player-name="${i}"]`);
    const name = input ? input.value.trim() : "";
    return name || tOr("optchoice.handicap_giver", i);
  }
  function renderBreaker() {
    for (const option of document.querySelectorAll('#options [data-option="handicap_giver"] option')) {
      option.textContent = playerLabel(JSON.parse(option.value));
    }
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
    const ids = [...box.querySelectorAll("input")].map((i) => i.dataset.playerId || "");
    box.replaceChildren(...Array.from({ length: spec.players[1] }, (_, i) => el("div", { class: "player-pick" },
      el("label", {},
        `${t("c.player", { n: i + 1 })}${i >= spec.players[0] ? " " + t("c.optional") : ""} `,
        el("input", { type: "text", name: `player${i}`, "data-player-name": i, value: names[i] || "", required: i < spec.players[0],
          autocomplete: "off", list: roster.length ? null : "recent-names", oninput: (e) => typedName(e.target) })),
      el("div", { class: "roster-picks", "data-roster-for": i, role: "group", "aria-label": t("c.roster") }))));
    ids.forEach((id, i) => { if (id) pickedFor(i, id); });
    renderBreaker();
    document.getElementById("recent-names").replaceChildren(...recentNames().map((n) => el("option", { value: n })));
    document.getElementById("options").replaceChildren(...spec.options.map((o) => {
      let input;
      if (typeof o.default === "boolean") input = el("input", { type: "checkbox", checked: o.default });
      else if (o.choices.length) {
        input = el("select", {}, o.choices.map((c) => el("option", { value: JSON.stringify(c), selected: c === o.default }, choiceLabel(o, c))));
      } else if (Array.isArray(o.default)) input = el("input", { type: "text", placeholder: "0, 15", value: o.default.join(", ") });
      else input = el("input", { type: "text", value: String(o.default) });
      input.dataset.option = o.key;
      // the option's name and what it does in the page's language, its code beside them
      // what it does (with the rules' ids and the configuration's words) behind «подробнее»
      const [doc, docLang] = optionDoc(game, o);
      return el("div", { class: "option" }, el("label", {}, input, ` ${tOr("opt", o.key)}`),
        el("details", { class: "more" }, el("summary", {}, t("c.details")),
          el("small", { "data-option-doc": o.key, lang: docLang }, doc), " ", el("code", {}, o.key)));
    }));
  }
  // The venue's players (the recorder's roster, retained on <prefix>/<venue>/roster), the most
  // recently seen first: picking one sends its id with the name, so that one player's matches
  // on every table are one record; a name typed is a new player (two «Борис» stay two).
  let roster = [];
  const rosterTopic = `${config.prefix}/${config.venue}/roster`;
  function seenText(entry) {
    const date = entry.last ? new Date(entry.last * 1000).toLocaleDateString(LANG, { day: "numeric", month: "short" }) : "";
    const seen = t("c.roster_seen", { table: tableName(entry.table), date, n: entry.matches });
    const against = Array.isArray(entry.against) ? entry.against.join(", ") : "";
    return against ? `${seen} · ${t("c.roster_against", { names: against })}` : seen;
  }
  function typedName(input) {
    delete input.dataset.playerId;  // typed: no longer the entry picked
    renderPicks(Number(input.dataset.playerName));
    renderBreaker();
  }
  function renderPicks(i) {
    const input = document.querySelector(`#players [data-player-name="${i}"]`);
    const box = document.querySelector(`#players [data-roster-for="${i}"]`);
    if (!input || !box) return;
    const typed = input.value.trim().toLocaleLowerCase();
    if (input.dataset.playerId || !typed) { box.replaceChildren(); return; }
    // the name, or any word of it (a surname), begins with what is typed
    const found = roster.filter((p) => String(p.name).toLocaleLowerCase().split(/\s+/)
      .some((w, i, words) => words.slice(i).join(" ").startsWith(typed))).slice(0, 6);
    box.replaceChildren(...found.map((p) => el("button", { type: "button", class: "roster-pick", "data-player-id": p.id,
      onclick: () => { input.value = p.name; pickedFor(i, p.id); renderBreaker(); } },
    el("span", { class: "name" }, p.name), el("small", {}, seenText(p)))));
  }
  function pickedFor(i, id) {
    const input = document.querySelector(`#players [data-player-name="${i}"]`);
    const box = document.querySelector(`#players [data-roster-for="${i}"]`);
    if (!input || !box) return;
    input.dataset.playerId = id;
    const entry = roster.find((p) => p.id === id);
    box.replaceChildren(el("small", { class: "roster-picked", "data-picked": id },
      t("c.roster_picked", { seen: entry ? seenText(entry) : "" })));
  }
  function takeRoster(data) {
    roster = Array.isArray(data.players) ? data.players.filter((p) => p && p.id && p.name) : [];
    document.querySelectorAll("#players input").forEach((input, i) => {
      // the club's list replaces this browser's own names
      if (roster.length) input.removeAttribute("list"); else input.setAttribute("list", "recent-names");
      if (input.dataset.playerId) pickedFor(i, input.dataset.playerId); else renderPicks(i);
    });
  }
  // Names typed in earlier matches on this browser, the newest first.
  function recentNames() {
    try { return JSON.parse(localStorage.getItem("billiards.recent_names") || "[]"); } catch (e) { return []; }
  }
  function remember(payload) {
    try {
      const names = [...payload.players, ...recentNames().filter((n) => !payload.players.includes(n))].slice(0, 30);
      localStorage.setItem("billiards.recent_names", JSON.stringify(names));
      localStorage.setItem(`billiards.new_match.${config.venue}.${tableId}`, JSON.stringify(payload));
    } catch (e) { /* storage off: nothing remembered */ }
  }
  // The last settings this table started a match with, on this browser.
  function restore() {
    let last = null;
    try { last = JSON.parse(localStorage.getItem(`billiards.new_match.${config.venue}.${tableId}`) || "null"); } catch (e) { /* none */ }
    if (!last || !gameOptions[last.game] && !GAME_IDS.includes(last.game)) return;
    gameSelect.value = last.game;
    renderNewMatch();
    (last.players || []).forEach((name, i) => {
      const input = document.querySelector(`#players [data-player-name="${i}"]`);
      if (input) input.value = name;
      const id = (last.player_ids || [])[i];
      if (input && id) pickedFor(i, id);
    });
    document.getElementById("race-to").value = last.race_to || 1;
    renderBreaker();
    document.getElementById("breaker").value = String(last.breaker || 0);
    for (const [key, value] of Object.entries(last.options || {})) {
      const input = document.querySelector(`#options [data-option="${CSS.escape(key)}"]`);
      if (!input) continue;
      if (input.type === "checkbox") input.checked = !!value;
      else if (input.tagName === "SELECT") input.value = JSON.stringify(value);
      else input.value = Array.isArray(value) ? value.join(", ") : String(value);
    }
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
    if (o.key === "handicap_giver" && typeof c === "number") return playerLabel(c);
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
    const named = [...document.querySelectorAll("#players input")].filter((i) => i.value.trim());
    const players = named.map((i) => i.value.trim());
    const payload = {
      game, players, race_to: Number(document.getElementById("race-to").value) || 1,
      breaker: Number(document.getElementById("breaker").value) || 0, options: optionsChosen(game),
    };
    const ids = named.map((i) => i.dataset.playerId || null);
    if (ids.some(Boolean)) payload.player_ids = ids;  // picked from the roster (null: typed)
    if (inMatch() && !confirm(t("c.confirm_new"))) return;
    if (send("new_match", payload)) remember(payload);
  });
  renderNewMatch();
  restore();

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
    client.on("connect", () => client.subscribe([`${base}/+`, `${base}/response/+`, rosterTopic], { qos: 1 }));
    client.on("message", (topic, payload) => {
      const rest = topic.slice(base.length + 1);
      const data = parseJson(payload);
      if (!data) return;
      if (topic === rosterTopic) { takeRoster(data); return; }
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
