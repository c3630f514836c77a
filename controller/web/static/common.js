// Shared by the pages: configuration, the MQTT connection, and how a table's state and
// events are shown. Plain browser JavaScript; MQTT.js is the global `mqtt`
// (vendor/mqtt.min.js), the words come from i18n.js. Topics and payloads:
// docs/interfaces.md §3.
"use strict";

const POCKET_IDS = ["hl", "hr", "sl", "sr", "fl", "fr"];
const GAME_IDS = ["ten-ball", "siberian-ten", "pyramid"];
const FOULS = [
  "miss", "touched_ball", "butt_or_side", "moving_balls", "feet_off_floor", "push",
  "double_hit", "wrong_ball_first", "wrong_cue_ball", "direct_hit_in_kitchen", "cue_on_table",
  "out_of_turn", "slow_play", "bad_placement", "game_over_touch", "bad_break", "no_rail", "two_cushion",
];
// Pool colours; stripes from 9 on. Pyramid balls are all ivory.
const BALL_COLOURS = ["#f2c300", "#1f4fd1", "#d42020", "#6b2da8", "#f07b12", "#118a3a", "#7a1f1f", "#111"];

function ballColour(ball, game) {
  if (ball === "cue") return "#fafafa";
  if (game === "pyramid") return "#f3ead2";
  return BALL_COLOURS[(ball - 1) % 8];
}
function isStripe(ball, game) { return game !== "pyramid" && typeof ball === "number" && ball > 8; }
function pocketName(code) { return POCKET_IDS.includes(code) ? t("pocket." + code) : String(code); }
// "t2" -> «Стол 2» (another id as it is).
function tableName(id) {
  const n = /^t(\d+)$/i.exec(String(id));
  return n ? t("page.table_n", { n: Number(n[1]) }) : String(id);
}
function gameName(code) { return GAME_IDS.includes(code) ? t("game." + code) : String(code); }
function foulName(code) { return tOr("foul", code); }
function ballName(ball) {
  if (ball === "cue") return t("ball.cue");
  if (ball === null || ball === undefined || ball === "object") return t("ball.unknown");
  return t("ball", { ball });
}
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}
function ballChip(ball, game, attrs = {}) {
  const chip = el("span", { class: "ball" + (isStripe(ball, game) ? " stripe" : ""), ...attrs },
    el("span", {}, ball === "cue" ? "" : ball));
  chip.style.setProperty("--ball", ballColour(ball, game));
  return chip;
}

// ------------------------------------------------------------------ configuration, connection
// The venue's address for phones (config.json's public_url): what the QR codes hold, since the
// TV's own address may be 127.0.0.1. Null: the page's own address.
let PUBLIC_URL = null;
async function loadConfig() {
  const params = new URLSearchParams(location.search);
  let config = {};
  try {
    const r = await fetch("config.json", { cache: "no-store" });
    if (r.ok) config = await r.json();
  } catch (e) { /* no config.json: defaults below */ }
  const host = location.hostname || "localhost";
  const broker = (params.get("broker") || config.broker || "ws://{host}:9001").replaceAll("{host}", host);
  const ttl = Number(params.get("ttl") || config.request_ttl_s || 30);
  const out = {
    ...config, broker,
    venue: params.get("venue") || config.venue || "club",
    prefix: config.prefix || "billiards",
    request_ttl_s: ttl > 0 ? ttl : 30,
  };
  PUBLIC_URL = config.public_url || null;
  await chooseLanguage(out);
  return out;
}

// Connects (MQTT 5, so requests can carry a message expiry); onStatus(text, ok) tells the
// connection's state. Returns the MQTT.js client.
function connect(config, credentials, onStatus) {
  const options = {
    clientId: "web-" + Math.random().toString(16).slice(2, 10),
    clean: true, reconnectPeriod: 2000, connectTimeout: 8000, protocolVersion: 5,
    // a broker that froze without closing the socket: a PINGREQ unanswered within the keepalive
    // closes the connection (MQTT.js "Keepalive timeout"), so the pill does not say connected
    keepalive: Number(config.keepalive_s) > 0 ? Number(config.keepalive_s) : 4,
  };
  if (credentials && credentials.username) {
    options.username = credentials.username;
    if (credentials.password) options.password = credentials.password;
  }
  const client = mqtt.connect(config.broker, options);
  client.on("connect", () => onStatus(t("conn.connected"), true));
  client.on("reconnect", () => onStatus(t("conn.reconnecting"), false));
  client.on("close", () => onStatus(t("conn.closed"), false));
  client.on("offline", () => onStatus(t("conn.offline"), false));
  client.on("error", (e) => onStatus(t("conn.error", { error: e && e.message ? e.message : e }), false, e));
  return client;
}

function parseJson(payload) {
  if (!payload || payload.length === 0) return null;
  try { return JSON.parse(new TextDecoder().decode(payload)); } catch (e) { return undefined; }
}

// ------------------------------------------------------------------ one table's model
const EVENTS_KEPT = 12;

class TableModel {
  constructor(id) {
    this.id = id;
    this.status = null;   // B/status payload
    this.state = null;    // B/state payload
    this.health = null;   // B/health payload
    this.events = [];     // newest first: {seq, type, text, at}
    this.updated = null;  // Date of the last message
    this.questions = new Map();  // question id -> question, as last seen (for its answer)
    this.answers = new Map();    // request transaction -> answer request payload
    this.racks = new Map();      // game_no -> {breaker, winner, draw}
    this.matchStart = null;      // {ts, at}: the match_started event's table time, our Date
    this.tableClock = null;      // {ts, at}: the newest table time heard, and our Date.now() then
    this.matchId = null;
    this.stats = new MatchStats(null);  // the state's
  }
  playerName(i) {
    const p = this.state && this.state.players && this.state.players[i];
    return p ? p.name : (i === null || i === undefined ? "?" : t("c.player", { n: i + 1 }));
  }
  online() { return this.status ? this.status.state : "unknown"; }
  // Takes one message of this table (kind: status, state, health, event, request/answer,
  // response/answer); returns the newest event's text when there is one, true when something
  // else shown changed, false when nothing did.
  take(kind, data) {
    this.updated = new Date();
    if (data && typeof data.ts === "number" && (!this.tableClock || data.ts > this.tableClock.ts)) {
      this.tableClock = { ts: data.ts, at: Date.now() };  // an offset, never the browser's time of day
    }
    if (kind === "status") { this.status = data; return true; }
    if (kind === "health") { this.health = data; return true; }
    if (kind === "state") { this.takeState(data); return true; }
    if (kind === "request/answer") {
      if (data && data.transaction) this.answers.set(data.transaction, data);
      return false;
    }
    if (kind === "response/answer") return this.takeAnswer(data);
    if (kind !== "event" || !data || !data.type) return false;
    const d = data.data || {};
    if (data.type === "match_started") {
      this.racks.clear();
      this.matchStart = { ts: data.ts, at: new Date() };
    }
    if (data.type === "question" && d.id) this.questions.set(d.id, d);
    if (data.type === "game_over" && d.game_no) {
      const rack = this.racks.get(d.game_no) || {};
      this.racks.set(d.game_no, { ...rack, winner: d.winner, draw: !!d.draw });
    }
    if (data.type === "undo") {
      for (const [n, rack] of this.racks) if (this.state && n >= this.state.game_no && rack.winner !== undefined) delete rack.winner;
    }
    return this.addEvent(data.seq, data.type, describeEvent(this, data));
  }
  takeState(data) {
    this.state = data;
    if (data.match_id !== this.matchId) {
      if (this.matchId !== null && data.match_id) this.racks.clear();
      this.matchId = data.match_id || null;
    }
    for (const q of data.questions || []) this.questions.set(q.id, q);
    this.stats = new MatchStats(data.stats);
    if (data.game && data.game_no && data.status === "break" && data.to_shoot !== null) {
      const rack = this.racks.get(data.game_no) || {};
      this.racks.set(data.game_no, { ...rack, breaker: data.to_shoot });
    }
  }
  takeAnswer(response) {
    const request = response && this.answers.get(response.transaction);
    if (!request) return false;
    this.answers.delete(response.transaction);
    if (response.status !== "ok") return false;
    const q = this.questions.get(request.question);
    const answer = Array.isArray(request.answer) ? request.answer.map((a) => choiceText(a, q)).join(", ")
      : choiceText(request.answer, q);
    return this.addEvent(response.seq, "answer", t("ev.answer", { text: q ? questionText(q, this) : "?", answer }));
  }
  addEvent(seq, type, text) {
    if (!text) return true;
    this.events.unshift({ seq, type, text, at: new Date() });
    this.events.length = Math.min(this.events.length, EVENTS_KEPT);
    return text;
  }
  // Returns true, once per match, when the page has not seen the match start (its clock and
  // earlier racks are then asked of the server's match history).
  wantsHistory() {
    const s = this.state;
    if (!s || !s.game || this.matchStart || !this.matchId || this.asked === this.matchId) return false;
    this.asked = this.matchId;
    return true;
  }
  // Takes what the server's history recorded of the match in progress.
  takeHistory(match) {
    if (!match || this.matchStart) return;
    const started = new Date(match.started);
    if (!Number.isNaN(started.getTime())) this.matchStart = { ts: null, at: started };
    for (const r of match.racks || []) {
      const rack = this.racks.get(r.game_no) || {};
      this.racks.set(r.game_no, {
        breaker: rack.breaker ?? r.breaker ?? undefined, winner: rack.winner ?? r.winner ?? undefined,
      });
    }
  }
  // The table's time now: the newest it said, run on by how long ago we heard it.
  tableNow() {
    return this.tableClock ? this.tableClock.ts + (Date.now() - this.tableClock.at) / 1000 : null;
  }
  // Seconds the match has run, on the table's clock (the state's match_t0) where the table
  // says when it began; else since its start was seen; else null.
  matchSeconds() {
    const s = this.state;
    if (s && s.game && typeof s.match_t0 === "number" && this.tableClock) {
      const now = s.status === "match_over" ? s.ts : this.tableNow();
      return Math.max(0, now - s.match_t0);
    }
    if (!this.matchStart || !this.state || !this.state.game) return null;
    return (Date.now() - this.matchStart.at.getTime()) / 1000;
  }
}

// ------------------------------------------------------------------ live statistics
// The wall's statistics of one match as the table works them out from what it ruled and
// carries in its state (`stats`, docs/interfaces.md §3), so a page opened mid-match shows the
// whole match's: the current run and the best ({player, balls}: balls, or Point pyramid's
// points), break-and-runs per player, the rack in play's start and the finished racks'
// seconds, on the table's clock.
class MatchStats {
  constructor(stats) {
    const s = stats || {};
    const run = (r) => (r ? { player: r.player, balls: r.size } : null);
    this.run = run(s.run);            // the visit of the player to shoot now
    this.best = run(s.best);          // the longest run of the match
    this.breakRuns = s.break_runs || [];
    this.rackT0 = typeof s.rack_t0 === "number" ? s.rack_t0 : null;  // null: no rack in play
    this.rackTimes = s.racks_s || [];
  }
  // The rack in play's seconds on the table's clock `now` (null: no rack in play).
  rackSeconds(now) {
    return this.rackT0 !== null && now !== null ? Math.max(0, now - this.rackT0) : null;
  }
}

// ------------------------------------------------------------------ questions and answers
// Returns a question's text in the page's language, worded from its data (`topic` and
// `about`, docs/interfaces.md §3); a question of a topic this page has no words for, or
// of a table that sends no data, is shown by the table's own `prompt`, pocket ids as names.
function questionText(q, table) {
  if (!q) return "?";
  const about = q.about || {};
  const count = q.count || 1;
  const key = `q.${q.topic}`;
  if (q.topic && key in STRINGS.en) {
    const name = (i) => (table ? table.playerName(i) : String(i));
    const pocket = about.pocket ? pocketName(about.pocket) : "";
    const vars = {
      ...about, count, pocket,
      ball: about.ball !== undefined ? ballName(about.ball) : "?",
      player: name(q.player), to: name(about.to),
      where: about.pocket ? t("q.where.pocket", { pocket }) : t("q.where.return"),
      fell: (about.fell || []).map(([b, p]) => t("q.fell", { ball: ballName(b), pocket: pocketName(p) })).join(", "),
      clean: about.clean ? t("q.clean") : "",
      reason: about.reason ? tOr("q.reason", about.reason) : "",
    };
    return t(count > 1 && `${key}.many` in STRINGS.en ? `${key}.many` : key, vars);
  }
  return String(q.prompt || "").replace(/\b(hl|hr|sl|sr|fl|fr)\b/g, (code) => pocketName(code));
}
// Returns how one answer choice reads (a ball, yes/no, a player, a choice word).
function choiceText(c, q) {
  if (typeof c === "boolean") return t(c ? "choice.true" : "choice.false");
  if (c === "cue") return t("ball.cue");
  if (typeof c === "number") return String(c);
  if (`choice.${c}` in STRINGS.en) return t(`choice.${c}`);
  return String(c);
}
// The table's reasons this page words in its own language: [pattern, key, names of the groups].
const ERRORS = [
  [/^only (\d+) shot\(s\) of this match can be undone$/, "err.undo_too_many", ["n"]],
  [/^nothing to redo\b/, "err.nothing_to_redo", []],
  [/^no call on the break\b/, "err.no_call_on_break", []],
  [/^no match is in progress\b/, "err.no_match", []],
  [/^the match is over\b/, "err.match_over", []],
  [/^ball (\d+) is not on the table$/, "err.not_on_table", ["ball"]],
  [/^shot (\d+) cannot take facts now \(it came back by an undo or a redo\b/, "err.facts_after_undo", ["n"]],
];
// Returns the open question a refusal names ("question q-… is open (…): answer it first"), as
// the table last listed it or as the refusal worded it; null for any other refusal.
function openQuestion(reason, table) {
  const open = String(reason || "").match(/^question (q-[\w-]+) (?:is open )?\((.*)\):? (?:is open: )?answer it first$/);
  if (!open) return null;
  return (table.state && table.state.questions || []).find((x) => x.id === open[1]) || table.questions.get(open[1]) || { prompt: open[2] };
}
// Returns a table's error reason without internal ids, in the page's language where known.
function errorText(reason, table) {
  const text = String(reason || "");
  for (const [pattern, key, names] of ERRORS) {
    const found = text.match(pattern);
    if (found) return t(key, Object.fromEntries(names.map((name, i) => [name, Number(found[i + 1])])));
  }
  const q = openQuestion(text, table);
  if (q) return t("err.question_open", { text: questionText(q, table) });
  return text.replace(/\bq-\d+-\d+:?\s*/g, "").replace(/\b(hl|hr|sl|sr|fl|fr)\b/g, (code) => pocketName(code));
}

// ------------------------------------------------------------------ events
// A Noted decision in words: what the ruling rests on, and its detail as data in words (a
// foul, a special, a player, a ball), never the rules' own code.
function noteText(n, table) {
  const detail = n.detail === undefined || n.detail === null ? "" : String(n.detail);
  const about = Object.fromEntries(Array.isArray(n.about) ? n.about : Object.entries(n.about || {}));
  let shown = "";
  if (["foul_waived", "foul_not_in_rules", "foul_not_applicable"].includes(n.what)) shown = foulName(detail);
  else if (["special_ignored", "special_not_in_rules", "replayed"].includes(n.what)) shown = tOr("special", detail);
  else if (n.what === "svoya" && /^\d+$/.test(detail)) shown = table.playerName(Number(detail));
  else if (n.what === "centre_line_presumed") shown = t(detail === "crossed" ? "c.crossed" : "c.not_crossed");
  else if (["lowest_ball_spotted", "first_contact_presumed", "four_balls_presumed"].includes(n.what)) shown = /^\d+$/.test(detail) ? detail : "";
  else if (n.what === "unsportsmanlike") shown = detail;  // the referee's own words
  else if (n.what === "cue_presumed" && about.pocket) shown = pocketName(about.pocket);
  else if (["called_presumed", "drop_ignored", "handicap"].includes(n.what) && about.ball !== undefined) {
    shown = `${ballName(about.ball)}${about.pocket ? ", " + pocketName(about.pocket) : ""}`;
  }
  return tOr("note", n.what) + (shown ? `: ${shown}` : "");
}

function describeEvent(table, ev) {
  const d = ev.data || {};
  const who = (i) => table.playerName(i);
  const list = (xs) => xs.join(", ");
  switch (ev.type) {
    case "match_started":
      return t("ev.match_started", { players: (d.players || []).join(" — "), game: gameName(d.game), race: d.race_to, n: d.race_to });
    case "ball_pocketed": {
      const where = d.pocket ? t("ev.in_pocket", { pocket: pocketName(d.pocket) }) : t("ev.in_return");
      if (d.ball === null || d.ball === undefined) return t("ev.pocketed_unknown", { where });
      return d.ball === "cue" ? t("ev.pocketed_cue", { where }) : t("ev.pocketed_ball", { ball: d.ball, where });
    }
    case "shot_result": {
      const decisions = d.decisions || [];
      const credited = decisions.filter((x) => x.decision === "BallCredited");
      const down = decisions.filter((x) => x.decision === "BallStaysDown");
      const noted = decisions.filter((x) => x.decision === "Noted");
      // «бьёт снова» only for the player who shot and goes on (not one a foul gave the turn to)
      const continues = (i) => decisions.some((x) => x.decision === "ShooterContinues" && x.player === i);
      const parts = [];
      if (credited.length) parts.push(t("ev.credited", { who: who(credited[0].player), balls: list(credited.map((x) => x.ball)) }));
      if (down.length) parts.push(t("ev.down", { balls: list(down.map((x) => x.ball)) }));
      if (!parts.length && !d.corrected) return null;  // a plain miss: the state says who is next
      // presumptions are said to be; other notes are facts of the ruling
      const presumed = noted.filter((n) => n.what.endsWith("_presumed")).map((n) => noteText(n, table));
      const facts = noted.filter((n) => !n.what.endsWith("_presumed")).map((n) => noteText(n, table));
      const notes = [...facts, ...(presumed.length ? [t("ev.noted", { what: presumed.join(", ") })] : [])];
      return t("ev.shot", {
        shot: d.shot, again: d.corrected ? t("ev.again") : "", what: parts.join("; ") || t("ev.no_ball"),
        next: d.to_shoot === null || d.to_shoot === undefined ? ""
          : credited.length && credited[0].player === d.to_shoot && continues(d.to_shoot) ? t("ev.next_again") : t("ev.next", { who: who(d.to_shoot) }),
      }) + (notes.length ? ` (${notes.join("; ")})` : "");
    }
    case "foul": return t("ev.foul", { who: who(d.player), fouls: list((d.fouls || []).map(foulName)) });
    case "warning":
      if (d.reason === "two_fouls") return t("ev.two_fouls", { who: who(d.player) });
      if (d.kind === "events_lost") return t("ev.events_lost", { lost: d.lost, source: d.source });
      return t("ev.warning", { what: String(d.reason || d.kind || "").replaceAll("_", " ") });
    case "question": return t("ev.question", { who: who(d.player), text: questionText(d, table) });
    case "game_over":
      return d.draw ? t("ev.game_drawn", { n: d.game_no }) :
        t("ev.game_over", { n: d.game_no, who: who(d.winner), why: tOr("why", d.reason || ""), games: (d.games || []).join(":") });
    case "match_over":
      if (d.abandoned) return t("ev.match_abandoned");
      return d.winner === null || d.winner === undefined ? t("ev.match_drawn") :
        t("ev.match_over", { who: who(d.winner), games: (d.games || []).join(":") });
    case "undo": return t("ev.undo", { shot: d.back_to_shot });
    case "redo": return t("ev.redo", { shot: d.shot });
    case "sensor_fault": return t("ev.sensor_fault", { channel: d.channel, state: tOr("health", d.state) }) + (d.reason ? ` (${tOr("fault", d.reason)})` : "");
    case "sensor_recovered": return t("ev.sensor_ok", { channel: d.channel });
  }
  return null;
}

// ------------------------------------------------------------------ rendering a table
function healthText(table) {
  const summary = table.status && table.status.health;
  if (!summary || typeof summary !== "object") return null;
  const faults = Object.entries(summary.faults || {});
  if (faults.length) return faults.map(([ch, s]) => `${ch} ${tOr("health", s)}`).join(", ");
  // the table came back from a damaged journal with less than it had published (B/health)
  const rebuild = table.health && table.health.links && table.health.links.rebuild;
  if (rebuild && rebuild.up === false) return t("health.rebuild_lost");
  const down = Object.entries(summary.down || {});  // a board absent, busy, ...: its port and why
  if (down.length) return down.map(([source, why]) => `${source}: ${why || t("health.link_down")}`).join(", ");
  return summary.ok === false ? t("health.link_down") : null;
}

// options: console (link the card to the table's console), connected (false: we are cut
// off, so "online" is not known), title (the card's heading, else the id in capitals), racks (the rack-by-rack strip), qr (a QR code of the
// console), clock (the match clock), events (how many to list, default 5).
function renderTable(table, options = {}) {
  const s = table.state;
  const known = options.connected !== false;
  const online = known ? table.online() : "stale";
  const card = el("article", { class: `table ${online}`, "data-table": table.id, "data-online": online,
    "aria-label": options.title || tableName(table.id) });
  const fault = healthText(table);
  const compact = !!options.compact && !!s && !!s.game;
  const number = /^t(\d+)$/i.exec(String(table.id));
  card.classList.toggle("compact", compact);
  card.append(el("header", {},
    // a wall card: the table's number alone, large (its «Стол» read out, not shown), the status beside it
    compact && number && !options.title ? el("h2", {}, el("span", { class: "visually-hidden" }, tableName(table.id)),
      el("span", { "aria-hidden": "true" }, number[1])) : el("h2", {}, options.title || tableName(table.id)),
    compact ? el("span", { "data-field": "status", class: "status " + s.status }, t("status." + s.status)) : null,
    el("span", { class: `badge ${online}`, "data-field": "online" }, t("online." + (online in { online: 1, offline: 1, stopped: 1, stale: 1 } ? online : "unknown"))),
    fault ? el("span", { class: "badge fault", "data-field": "fault" }, "⚠ " + fault) : null,
    options.clock && !compact && table.matchSeconds() !== null ? el("span", { class: "clock", "data-field": "clock" },
      t("page.clock", { time: duration(table.matchSeconds()) })) : null,
    options.console ? el("a", { class: "referee", href: `console.html?table=${encodeURIComponent(table.id)}`,
      "data-key": "referee", "aria-label": t("page.referee_title", { table: table.id }) }, t("page.referee")) : null));
  if (options.qr) {
    const code = qrCode(new URL(`console.html?table=${encodeURIComponent(table.id)}`, PUBLIC_URL || location.href).href);
    if (code) card.append(el("figure", { class: "qr", "data-field": "qr" }, code, el("figcaption", {}, t("page.scan"))));
  }
  const body = el("div", { class: "body" });
  card.append(body);
  if (!s || !s.game) {
    body.append(el("p", { class: "idle", "data-field": "status" }, s ? t("card.no_match") : t("card.waiting")));
    footer(card, table);
    return card;
  }
  const players = s.players || [];
  const tenBall = s.game === "ten-ball";
  const over = s.status === "match_over" || s.status === "game_over";
  // the state of play first: a narrow card cuts the end of the line, never this (a wall card:
  // its status is in the header, this line of small letters under the players)
  const meta = el("p", { class: "meta" },
    compact ? null : [el("span", { "data-field": "status", class: "status " + s.status }, t("status." + s.status)), sep()],
    compact && options.clock && table.matchSeconds() !== null ? [el("span", { class: "clock item", "data-field": "clock" },
      t("page.clock", { time: duration(table.matchSeconds()) })), sep()] : null,
    el("span", { class: "game-name" }, gameName(s.game)), sep(), el("span", { class: "item" }, t("card.race", { n: s.race_to })), sep(),
    el("span", { class: "item" }, t("card.game", { n: s.game_no })), sep(), el("span", { class: "item" }, t("card.shot", { n: s.shot })),
    // a wall card: the games won here, not beside the names (ten-ball's score is its games)
    compact && !tenBall ? [sep(), el("span", { class: "item", "data-field": "games" },
      t("card.games_score", { games: (s.players || []).map((p) => p.games).join(":") }))] : null);
  if (!compact) body.append(meta);
  const rows = el("div", { class: "players" + (players.length > 2 ? " many" : "") });
  players.forEach((p, i) => {
    const shooting = s.to_shoot === i && !over;
    const won = over && s.winner === i;
    rows.append(el("div", {
      class: "player" + (shooting ? " shooting" : "") + (won ? " won" : ""), "data-player": i,
    },
      el("span", { class: "turn", "aria-hidden": "true" }, shooting ? "▶" : won ? "★" : ""),
      shooting ? el("span", { class: "visually-hidden" }, t("card.to_shoot") + ":") : null,  // read out, the ▶ is not
      el("span", { class: "name", title: p.name }, p.name),
      p.consecutive_fouls >= 2 ? el("span", { class: "badge warn", "data-field": "fouls" }, t("card.fouls2", { n: p.consecutive_fouls })) :
        p.consecutive_fouls === 1 ? el("span", { class: "badge foul1", "data-field": "fouls" }, t("card.foul1")) : null,
      el("span", { class: "games", title: t("card.games_won") }, tenBall || compact ? "" : `${p.games}/${s.race_to}`),
      el("span", { class: "score", "data-field": "score" }, tenBall ? `${p.games}` : `${p.score}`)));
  });
  body.append(rows);
  // a wall card: the questions and facts in one paragraph that fills its lines (a badge after
  // the question's last words where they leave room), each question alone (its console names
  // who is asked)
  const notes = compact ? el("p", { class: "notes" }) : null;
  for (const q of s.questions || []) {
    if (notes) notes.append(notes.childNodes.length ? el("br") : "", el("span", { class: "question", "data-field": "question" }, `? ${questionText(q, table)}`), " ");
    else body.append(el("p", { class: "question", "data-field": "question" }, `? ${table.playerName(q.player)}: ${questionText(q, table)}`));
  }
  const facts = notes || el("p", { class: "facts" });
  // a wall card: from the kitchen is where a rack is broken from, which «разбой» and «партия
  // окончена» say already, as does an answer awaited (the state keeps the shot's placement until
  // it is ruled: the break's, mostly); in play it is a foul's, and said
  const handSaid = compact && s.ball_in_hand === "kitchen" && ["break", "game_over", "awaiting"].includes(s.status);
  if (s.ball_in_hand && s.ball_in_hand !== "none" && !handSaid) {
    facts.append(el("span", { class: "badge hand", "data-field": "ball_in_hand" },
      t(s.ball_in_hand === "kitchen" ? "hand.kitchen" : "hand.anywhere")), " ");
  }
  if (over && s.winner !== null && s.winner !== undefined) {
    facts.append(el("span", { class: "badge win" },
      t(s.status === "match_over" ? "card.wins_match" : "card.wins_game", { who: table.playerName(s.winner) })));
  } else if (s.draw) facts.append(el("span", { class: "badge" }, t("card.draw")));
  if (facts.childNodes.length) body.append(facts);
  if (compact) body.append(meta);
  // a wall card: the live statistics next (the run, the best run, the rack's time), before the
  // balls, where there is room
  const stats = options.stats ? statsLine(table) : null;
  if (compact && stats) body.append(stats);
  if (s.unidentified > 0 && s.balls_left > 0) {
    // balls fell with nobody knowing which (a plain-ball table): the count is known, the
    // numbers are not, so no number is shown as if it were still there
    body.append(el("p", { class: "balls", "data-field": "balls_left" }, t("card.balls_left", { n: s.balls_left })));
  } else if (s.on_table && s.on_table.length) {
    body.append(el("div", { class: "balls", "data-field": "on_table", role: "list", "aria-label": t("card.on_table") },
      s.on_table.map((b) => ballChip(b, s.game, { role: "listitem", "aria-label": ballName(b) }))));
  }
  if (!compact && stats) body.append(stats);
  if (options.racks && table.racks.size) body.append(rackStrip(table));
  if (table.events.length) {
    body.append(el("ol", { class: "events", "data-field": "events" },
      table.events.slice(0, options.events ?? 5).map((e) => el("li", { class: "ev-" + e.type }, e.text))));
  }
  footer(compact ? body : card, table);  // a wall card: a line of its body, shown where there is room
  return card;
}
function sep() { return el("span", { class: "sep" }, " · "); }  // the TV wall puts the status on a line of its own
// How long ago the table last spoke, on its own clock (its newest `ts`, run on since: tableNow()
// less that `ts`): the browser's time of day is not the venue's (a TV never set), so no time of
// day is shown. `data-at` is when that `ts` was heard, for the text to run on between renders.
function footer(card, table) {
  const heard = table.tableNow() !== null ? table.tableClock.at : null;
  card.append(el("p", { class: "updated", "data-field": "updated", "data-at": heard },
    heard !== null ? updatedText(heard) : table.updated ? t("page.updated_unknown") : t("page.never")));
}
function updatedText(heard) { return t("page.last_update", { time: duration((Date.now() - heard) / 1000) }); }
// a page that renders only when a message comes (the console between matches): the ages run on
setInterval(() => {
  for (const node of document.querySelectorAll('[data-field="updated"][data-at]')) {
    const text = updatedText(Number(node.dataset.at));
    if (node.textContent !== text) node.textContent = text;
  }
}, 1000);
// The live statistics: the current run, the best run, break-and-runs, this rack's time and the
// last rack's (each an unbreakable item; the line wraps between them).
function statsLine(table) {
  const st = table.stats, s = table.state;
  const items = [];
  const item = (field, text) => items.push(el("span", { class: "item", "data-field": field }, text));
  if (st.run && st.run.balls > 0 && s && s.status !== "match_over") item("run", t("stats.run", { n: st.run.balls, who: table.playerName(st.run.player) }));
  if (st.best && st.best.balls > 0) item("best", t("stats.best", { n: st.best.balls, who: table.playerName(st.best.player) }));
  const bnr = st.breakRuns.map((n, i) => [n, i]).filter(([n]) => n > 0);
  if (bnr.length) item("break_runs", t("stats.break_runs", { list: bnr.map(([n, i]) => `${table.playerName(i)} ${n}`).join(", ") }));
  const now = s && s.status === "match_over" ? null : table.tableNow();
  const rack = st.rackSeconds(now);
  if (rack !== null) item("rack_time", t("stats.rack_time", { time: duration(rack) }));
  if (st.rackTimes.length) item("last_rack", t("stats.last_rack", { time: duration(st.rackTimes[st.rackTimes.length - 1]) }));
  if (!items.length) return null;
  const line = el("p", { class: "stats", "data-field": "stats" });
  items.forEach((node, i) => { if (i) line.append(" · "); line.append(node); });
  return line;
}
// The racks of the match seen so far: number, breaker, winner.
function rackStrip(table) {
  const racks = [...table.racks.entries()].sort((a, b) => a[0] - b[0]);
  return el("ol", { class: "racks", "data-field": "racks", "aria-label": t("card.racks") }, racks.map(([n, r]) =>
    el("li", { class: "rack" + (r.winner !== undefined && r.winner !== null ? " done" : ""), "data-rack": n },
      el("b", {}, t("card.rack", { n })), " ",
      r.breaker !== undefined ? t("card.breaker", { who: table.playerName(r.breaker) }) : "",
      r.winner !== undefined && r.winner !== null ? ` · ${t("card.rack_winner", { who: table.playerName(r.winner) })}` : "",
      r.draw ? ` · ${t("card.draw")}` : "")));
}
// An SVG QR code of `text` (vendor/qrcode.js), or null when that library is not loaded.
const QR_CACHE = new Map();
function qrCode(text) {
  if (typeof qrcode !== "function") return null;
  if (QR_CACHE.has(text)) return QR_CACHE.get(text).cloneNode(true);
  const qr = qrcode(0, "L");  // the fewest modules, so each is largest on the screen
  qr.addData(text);
  qr.make();
  const holder = document.createElement("div");
  holder.innerHTML = qr.createSvgTag({ cellSize: 4, margin: 2, scalable: true });  // the card around is dark: a white border
  const svg = holder.firstElementChild;
  svg.removeAttribute("aria-labelledby");  // one label per code, no ids to repeat on the wall
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `${t("page.scan")}: ${text}`);
  QR_CACHE.set(text, svg);
  return svg.cloneNode(true);
}

// ------------------------------------------------------------------ page plumbing
// Replaces `old` by `fresh` unless they are the same, keeping the keyboard focus on the
// element with the same data-key (or data-ball / data-pocket / data-answer) in the new one.
function swap(old, fresh) {
  if (old.isEqualNode(fresh)) return old;
  const focused = document.activeElement;
  let selector = null;
  if (focused && old.contains(focused)) {
    for (const attr of ["data-key", "data-ball", "data-pocket", "data-answer", "data-foul", "data-off", "data-correct"]) {
      if (focused.hasAttribute(attr)) { selector = `[${attr}="${CSS.escape(focused.getAttribute(attr))}"]`; break; }
    }
  }
  old.replaceWith(fresh);
  if (selector) {
    const again = fresh.matches(selector) ? fresh : fresh.querySelector(selector);
    if (again) again.focus({ preventScroll: true });
  }
  return fresh;
}

// The connection pill and, once we were connected or after a few seconds of trying, a
// banner saying how long we have been cut off: a time on this page's own steady clock
// (performance.now), never the browser's time of day (a TV's is seldom set).
let disconnectedSince = performance.now();
let everConnected = false;
setTimeout(() => { if (disconnectedSince !== null) setConnection(t("conn.connecting"), false); }, 4000);
function setConnection(text, ok) {
  if (ok) everConnected = true;
  const node = document.getElementById("connection");
  if (node) {
    node.textContent = text;
    node.className = ok ? "conn ok" : "conn bad";
  }
  document.body.classList.toggle("disconnected", !ok);
  if (ok) disconnectedSince = null;
  else if (disconnectedSince === null) disconnectedSince = performance.now();
  lostBanner();
}
function lostBanner() {
  const banner = document.getElementById("lost");
  if (!banner) return;
  const cut = disconnectedSince === null ? null : (performance.now() - disconnectedSince) / 1000;
  banner.hidden = cut === null || (!everConnected && cut < 3.5);
  if (!banner.hidden) {
    const text = t("conn.lost", { time: duration(cut) });
    if (banner.textContent !== text) banner.textContent = text;
  }
}
setInterval(() => { if (disconnectedSince !== null && everConnected) lostBanner(); }, 1000);  // the time runs on
