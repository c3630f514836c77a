// Shared by the pages: the names of pockets, balls, games and fouls, building elements,
// configuration, the MQTT connection and the connection pill. An ES module: each page
// imports what it uses. MQTT.js is the one global (vendor/mqtt.min.js, a classic script the
// pages load first); the words come from i18n.js. Topics and payloads: docs/interfaces.md §3.
import { chooseLanguage, duration, t, tOr } from "./i18n.js";
import { ballColour, isStripe, loadGames } from "./games.js";

export const POCKET_IDS = ["hl", "hr", "sl", "sr", "fl", "fr"];
export const FOULS = [
  "miss", "touched_ball", "butt_or_side", "moving_balls", "feet_off_floor", "push",
  "double_hit", "wrong_ball_first", "wrong_cue_ball", "direct_hit_in_kitchen", "cue_on_table",
  "out_of_turn", "slow_play", "bad_placement", "game_over_touch", "bad_break", "no_rail", "two_cushion",
];
export function pocketName(code) { return POCKET_IDS.includes(code) ? t("pocket." + code) : String(code); }
// "t2" -> «Стол 2» (another id as it is).
export function tableName(id) {
  const n = /^t(\d+)$/i.exec(String(id));
  return n ? t("page.table_n", { n: Number(n[1]) }) : String(id);
}
export function foulName(code) { return tOr("foul", code); }
export function ballName(ball) {
  if (ball === "cue") return t("ball.cue");
  if (ball === null || ball === undefined || ball === "object") return t("ball.unknown");
  return t("ball", { ball });
}
export function el(tag, attrs = {}, ...children) {
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
export function ballChip(ball, game, attrs = {}) {
  const chip = el("span", { class: "ball" + (isStripe(ball, game) ? " stripe" : ""), ...attrs },
    el("span", {}, ball === "cue" ? "" : ball));
  chip.style.setProperty("--ball", ballColour(ball, game));
  return chip;
}

// ------------------------------------------------------------------ configuration, connection
// The venue's address for phones (config.json's public_url): what the QR codes hold, since the
// TV's own address may be 127.0.0.1. Null: the page's own address.
export let PUBLIC_URL = null;
export async function loadConfig() {
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
  await Promise.all([chooseLanguage(out), loadGames()]);  // the words and the games, before anything is drawn
  return out;
}

// Connects (MQTT 5, so requests can carry a message expiry); onStatus(text, ok) tells the
// connection's state. Returns the MQTT.js client.
export function connect(config, credentials, onStatus) {
  const options = {
    clientId: "web-" + Math.random().toString(16).slice(2, 10),
    clean: true, connectTimeout: 8000, protocolVersion: 5,
    reconnectPeriod: Number(config.reconnect_s) > 0 ? Number(config.reconnect_s) * 1000 : 2000,
    // a broker that froze without closing the socket: a PINGREQ unanswered within the keepalive
    // closes the connection (MQTT.js "Keepalive timeout"), so the pill does not say connected
    keepalive: Number(config.keepalive_s) > 0 ? Number(config.keepalive_s) : 4,
  };
  if (credentials && credentials.username) {
    options.username = credentials.username;
    if (credentials.password) options.password = credentials.password;
  }
  const client = globalThis.mqtt.connect(config.broker, options);
  client.on("connect", () => onStatus(t("conn.connected"), true));
  client.on("reconnect", () => onStatus(t("conn.reconnecting"), false));
  client.on("close", () => onStatus(t("conn.closed"), false));
  client.on("offline", () => onStatus(t("conn.offline"), false));
  client.on("error", (e) => onStatus(t("conn.error", { error: e && e.message ? e.message : e }), false, e));
  return client;
}

export function parseJson(payload) {
  if (!payload || payload.length === 0) return null;
  try { return JSON.parse(new TextDecoder().decode(payload)); } catch (e) { return undefined; }
}

// ------------------------------------------------------------------ page plumbing
// Replaces `old` by `fresh` unless they are the same, keeping the keyboard focus on the
// element with the same data-key (or data-ball / data-pocket / data-answer) in the new one.
export function swap(old, fresh) {
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
export function setConnection(text, ok) {
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
