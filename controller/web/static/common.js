// Shared by the dashboard and the console: configuration, the MQTT connection, and how a
// table's state and events are shown. Plain browser JavaScript; MQTT.js is the global `mqtt`
// (vendor/mqtt.min.js). Topics and payloads: docs/interfaces.md §3.
"use strict";

const POCKETS = {
  hl: "head left", hr: "head right", sl: "left side",
  sr: "right side", fl: "foot left", fr: "foot right",
};
const GAMES = { "ten-ball": "Ten-ball", "siberian-ten": "Siberian Ten", pyramid: "Pyramid" };
const STATUS = {
  idle: "no match", break: "break", in_play: "in play", awaiting: "waiting for an answer",
  shootout: "shoot-out", game_over: "game over", match_over: "match over",
};
const FOULS = [
  "miss", "touched_ball", "butt_or_side", "moving_balls", "feet_off_floor", "push",
  "double_hit", "wrong_ball_first", "wrong_cue_ball", "direct_hit_in_kitchen", "cue_on_table",
  "out_of_turn", "slow_play", "bad_placement", "game_over_touch", "bad_break",
];
// Pool colours; stripes from 9 on. Pyramid balls are all ivory.
const BALL_COLOURS = ["#f2c300", "#1f4fd1", "#d42020", "#6b2da8", "#f07b12", "#118a3a", "#7a1f1f", "#111"];

function ballColour(ball, game) {
  if (ball === "cue") return "#fafafa";
  if (game === "pyramid") return "#f3ead2";
  return BALL_COLOURS[(ball - 1) % 8];
}
function isStripe(ball, game) { return game !== "pyramid" && typeof ball === "number" && ball > 8; }
function words(code) { return String(code).replaceAll("_", " "); }
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
async function loadConfig() {
  const params = new URLSearchParams(location.search);
  let config = {};
  try {
    const r = await fetch("config.json", { cache: "no-store" });
    if (r.ok) config = await r.json();
  } catch (e) { /* no config.json: defaults below */ }
  const host = location.hostname || "localhost";
  const broker = (params.get("broker") || config.broker || "ws://{host}:9001").replaceAll("{host}", host);
  return {
    ...config, broker,
    venue: params.get("venue") || config.venue || "club",
    prefix: config.prefix || "billiards",
  };
}

// Connects; onStatus(text, ok) tells the connection's state. Returns the MQTT.js client.
function connect(config, credentials, onStatus) {
  const options = {
    clientId: "web-" + Math.random().toString(16).slice(2, 10),
    clean: true, reconnectPeriod: 2000, connectTimeout: 8000, protocolVersion: 4,
  };
  if (credentials && credentials.username) {
    options.username = credentials.username;
    if (credentials.password) options.password = credentials.password;
  }
  const client = mqtt.connect(config.broker, options);
  client.on("connect", () => onStatus("connected", true));
  client.on("reconnect", () => onStatus("reconnecting…", false));
  client.on("close", () => onStatus("not connected to the broker", false));
  client.on("offline", () => onStatus("offline", false));
  client.on("error", (e) => onStatus("broker: " + (e && e.message ? e.message : e), false));
  return client;
}

function parseJson(payload) {
  if (!payload || payload.length === 0) return null;
  try { return JSON.parse(new TextDecoder().decode(payload)); } catch (e) { return undefined; }
}

// ------------------------------------------------------------------ one table's model
class TableModel {
  constructor(id) {
    this.id = id;
    this.status = null;   // B/status payload
    this.state = null;    // B/state payload
    this.health = null;   // B/health payload
    this.events = [];     // newest first: {seq, text, kind}
  }
  playerName(i) {
    const p = this.state && this.state.players && this.state.players[i];
    return p ? p.name : (i === null || i === undefined ? "?" : "player " + (i + 1));
  }
  online() { return this.status ? this.status.state : "unknown"; }
  // Takes one message of this table; returns true when something shown changed.
  take(kind, data) {
    if (kind === "status") this.status = data;
    else if (kind === "state") this.state = data;
    else if (kind === "health") this.health = data;
    else if (kind === "event") {
      if (!data || !data.type) return false;
      const text = describeEvent(this, data);
      if (!text) return false;
      this.events.unshift({ seq: data.seq, type: data.type, text, at: new Date() });
      this.events.length = Math.min(this.events.length, 8);
    } else return false;
    return true;
  }
}

function describeEvent(table, ev) {
  const d = ev.data || {};
  const who = (i) => table.playerName(i);
  switch (ev.type) {
    case "match_started":
      return `New match: ${(d.players || []).join(" v ")} — ${GAMES[d.game] || d.game}, race to ${d.race_to}`;
    case "ball_pocketed": {
      const where = d.pocket ? POCKETS[d.pocket] || d.pocket : "the ball return";
      return d.ball === null || d.ball === undefined ? `A ball in ${where}` :
        d.ball === "cue" ? `Cue ball in ${where}` : `Ball ${d.ball} in ${where}`;
    }
    case "shot_result": {
      const decisions = d.decisions || [];
      const credited = decisions.filter((x) => x.decision === "BallCredited");
      const down = decisions.filter((x) => x.decision === "BallStaysDown");
      const parts = [];
      if (credited.length) parts.push(`${who(credited[0].player)} credited ${credited.map((x) => x.ball).join(", ")}`);
      if (down.length) parts.push(`${down.map((x) => x.ball).join(", ")} down`);
      if (!parts.length && !d.corrected) return null;  // a plain miss: the state says who is next
      return `Shot ${d.shot}${d.corrected ? " ruled again" : ""}: ${parts.join("; ") || "no ball"}` +
        (d.to_shoot !== null && d.to_shoot !== undefined ? `; next ${who(d.to_shoot)}` : "");
    }
    case "foul": return `Foul by ${who(d.player)}: ${(d.fouls || []).map(words).join(", ")}`;
    case "warning":
      if (d.reason === "two_fouls") return `Warning: ${who(d.player)} has two fouls in a row`;
      if (d.kind === "events_lost") return `Warning: ${d.lost} sensor events lost (${d.source})`;
      return `Warning: ${words(d.reason || d.kind || "")}`;
    case "question": return `Question for ${who(d.player)}: ${d.prompt}`;
    case "game_over":
      return d.draw ? `Game ${d.game_no} drawn` :
        `Game ${d.game_no} to ${who(d.winner)} (${words(d.reason)}) — ${(d.games || []).join(":")}`;
    case "match_over":
      if (d.abandoned) return "Match abandoned";
      return d.winner === null || d.winner === undefined ? "Match drawn" :
        `MATCH to ${who(d.winner)} ${(d.games || []).join(":")}`;
    case "undo": return `Undo: back to shot ${d.back_to_shot}`;
    case "sensor_fault": return `Sensor ${d.channel} ${d.state}${d.reason ? " (" + words(d.reason) + ")" : ""}`;
    case "sensor_recovered": return `Sensor ${d.channel} ok again`;
  }
  return null;
}

// ------------------------------------------------------------------ rendering a table
function healthText(table) {
  const summary = table.status && table.status.health;
  if (!summary || typeof summary !== "object") return null;
  const faults = Object.entries(summary.faults || {});
  if (faults.length) return faults.map(([ch, s]) => `${ch} ${s}`).join(", ");
  return summary.ok === false ? "sensor link down" : null;
}

// options.console: link the card to the table's referee console (the dashboard does).
function renderTable(table, options = {}) {
  const s = table.state;
  const online = table.online();
  const card = el("article", { class: `table ${online}`, "data-table": table.id, "data-online": online });
  const fault = healthText(table);
  card.append(el("header", {},
    el("h2", {}, table.id.toUpperCase()),
    el("span", { class: `badge ${online}`, "data-field": "online" }, online === "unknown" ? "…" : online),
    fault ? el("span", { class: "badge fault", "data-field": "fault" }, "⚠ " + fault) : null,
    options.console ? el("a", { class: "referee", href: `console.html?table=${encodeURIComponent(table.id)}`,
      title: "referee console" }, "referee ›") : null));
  if (!s || !s.game) {
    card.append(el("p", { class: "idle", "data-field": "status" }, s ? "No match" : "Waiting for the table…"));
    return card;
  }
  const players = s.players || [];
  const tenBall = s.game === "ten-ball";
  const over = s.status === "match_over" || s.status === "game_over";
  card.append(el("p", { class: "meta" },
    el("span", {}, GAMES[s.game] || s.game), " · race to ", s.race_to, " · game ", s.game_no,
    " · shot ", s.shot, " · ",
    el("span", { "data-field": "status", class: "status " + s.status }, STATUS[s.status] || s.status)));
  const rows = el("div", { class: "players" });
  players.forEach((p, i) => {
    const shooting = s.to_shoot === i && !over;
    const won = over && s.winner === i;
    rows.append(el("div", {
      class: "player" + (shooting ? " shooting" : "") + (won ? " won" : ""),
      "data-player": i,
    },
      el("span", { class: "turn" }, shooting ? "▶" : won ? "★" : ""),
      el("span", { class: "name" }, p.name),
      p.consecutive_fouls >= 2 ? el("span", { class: "badge warn", "data-field": "fouls" }, `${p.consecutive_fouls} FOULS`) :
        p.consecutive_fouls === 1 ? el("span", { class: "badge foul1", "data-field": "fouls" }, "1 foul") : null,
      el("span", { class: "games", title: "games won" }, tenBall ? "" : `${p.games}/${s.race_to}`),
      el("span", { class: "score", "data-field": "score" }, tenBall ? `${p.games}` : `${p.score}`)));
  });
  card.append(rows);
  const facts = el("p", { class: "facts" });
  if (s.ball_in_hand && s.ball_in_hand !== "none") {
    facts.append(el("span", { class: "badge hand", "data-field": "ball_in_hand" },
      s.ball_in_hand === "kitchen" ? "Ball in hand: kitchen" : "Ball in hand"));
  }
  if (over && s.winner !== null && s.winner !== undefined) {
    facts.append(el("span", { class: "badge win" },
      `${table.playerName(s.winner)} wins the ${s.status === "match_over" ? "match" : "game"}`));
  } else if (s.draw) facts.append(el("span", { class: "badge" }, "Draw"));
  if (facts.childNodes.length) card.append(facts);
  if (s.on_table && s.on_table.length) {
    card.append(el("div", { class: "balls", "data-field": "on_table" }, s.on_table.map((b) => ballChip(b, s.game))));
  }
  for (const q of s.questions || []) {
    card.append(el("p", { class: "question", "data-field": "question" },
      `? ${table.playerName(q.player)}: ${q.prompt}`));
  }
  if (table.events.length) {
    card.append(el("ol", { class: "events", "data-field": "events" },
      table.events.slice(0, 5).map((e) => el("li", { class: "ev-" + e.type }, e.text))));
  }
  return card;
}

// ------------------------------------------------------------------ page plumbing
function setConnection(text, ok) {
  const node = document.getElementById("connection");
  if (!node) return;
  node.textContent = text;
  node.className = ok ? "conn ok" : "conn bad";
  document.body.classList.toggle("disconnected", !ok);
}
