// One table's card (the dashboard, the TV wall, the console's table): rendered from a
// TableModel, nothing else.
import { duration, t, tOr } from "./i18n.js";
import { PUBLIC_URL, ballChip, ballName, el, tableName } from "./common.js";
import { gameName, scoresGames } from "./games.js";
import { channelName, questionText } from "./words.js";

export function healthText(table) {
  const summary = table.status && table.status.health;
  if (!summary || typeof summary !== "object") return null;
  const faults = Object.entries(summary.faults || {});
  if (faults.length) return faults.map(([ch, s]) => `${channelName(ch)}: ${tOr("health", s)}`).join(", ");
  // the table came back from a damaged journal with less than it had published (B/health)
  const rebuild = table.health && table.health.links && table.health.links.rebuild;
  if (rebuild && rebuild.up === false) return t("health.rebuild_lost");
  const down = Object.entries(summary.down || {});  // a board absent, busy, ...: its port and why
  if (down.length) return down.map(([source, why]) => `${source}: ${why || t("health.link_down")}`).join(", ");
  return summary.ok === false ? t("health.link_down") : null;
}

// The next match the venue record offers the table, in words: «Следующие: Вера — Глеб».
export function nextText(offer) {
  return t("card.next", { players: offer.players.map((p) => p.name).join(" — ") });
}

// The dashboard's, the console's and one table full screen's card (the wall's is wall-card.js).
// options: console (link the card to the table's console), connected (false: we are cut
// off, so "online" is not known), title (the card's heading, else the table's name), racks (the
// rack-by-rack strip), qr (a QR code of the console), clock (the match clock), stats (the live
// statistics), events (how many to list, default 5), staff (a staff page: the sensors' faults
// and maintenance events, in words, which public screens never show).
export function renderTable(table, options = {}) {
  const s = table.state;
  const known = options.connected !== false;
  const online = known ? table.online() : "stale";
  const card = el("article", { class: `table ${online}`, "data-table": table.id, "data-online": online,
    "aria-label": options.title || tableName(table.id) });
  const fault = healthText(table);
  card.append(el("header", {},
    el("h2", {}, options.title || tableName(table.id)),
    el("span", { class: `badge ${online}`, "data-field": "online" }, t("online." + (online in { online: 1, offline: 1, stopped: 1, stale: 1 } ? online : "unknown"))),
    fault && options.staff ? el("span", { class: "badge fault", "data-field": "fault" }, "⚠ " + fault) : null,  // staff pages only
    options.clock && table.matchSeconds() !== null ? el("span", { class: "clock", "data-field": "clock" },
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
  const byGames = scoresGames(s.game);  // the score is the games won: no race column beside it
  const over = s.status === "match_over" || s.status === "game_over";
  // the state of play first: a narrow card cuts the end of the line, never this
  const meta = el("p", { class: "meta" },
    el("span", { "data-field": "status", class: "status " + s.status }, t("status." + s.status)), sep(),
    el("span", { class: "game-name" }, gameName(s.game)), sep(), el("span", { class: "item" }, t("card.race", { n: s.race_to })), sep(),
    el("span", { class: "item" }, t("card.game", { n: s.game_no })), sep(), el("span", { class: "item" }, t("card.shot", { n: s.shot })));
  body.append(meta);
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
      el("span", { class: "games", title: t("card.games_won") }, byGames ? "" : `${p.games}/${s.race_to}`),
      el("span", { class: "score", "data-field": "score" }, byGames ? `${p.games}` : `${p.score}`)));
  });
  body.append(rows);
  for (const q of s.questions || []) {
    body.append(el("p", { class: "question", "data-field": "question" }, `? ${table.playerName(q.player)}: ${questionText(q, table)}`));
  }
  const facts = el("p", { class: "facts" });
  if (s.ball_in_hand && s.ball_in_hand !== "none") {
    facts.append(el("span", { class: "badge hand", "data-field": "ball_in_hand" },
      t(s.ball_in_hand === "kitchen" ? "hand.kitchen" : "hand.anywhere")), " ");
  }
  if (over && s.winner !== null && s.winner !== undefined) {
    facts.append(el("span", { class: "badge win" },
      t(s.status === "match_over" ? "card.wins_match" : "card.wins_game", { who: table.playerName(s.winner) })));
  } else if (s.draw) facts.append(el("span", { class: "badge" }, t("card.draw")));
  if (facts.childNodes.length) body.append(facts);
  const stats = options.stats ? statsLine(table) : null;
  if (s.unidentified > 0 && s.balls_left > 0) {
    // balls fell with nobody knowing which (a plain-ball table): the count is known, the
    // numbers are not, so no number is shown as if it were still there
    body.append(el("p", { class: "balls", "data-field": "balls_left" }, t("card.balls_left", { n: s.balls_left })));
  } else if (s.on_table && s.on_table.length) {
    body.append(el("div", { class: "balls", "data-field": "on_table", role: "list", "aria-label": t("card.on_table") },
      s.on_table.map((b) => ballChip(b, s.game, { role: "listitem", "aria-label": ballName(b) }))));
  }
  if (stats) body.append(stats);
  if (options.racks && table.racks.size) body.append(rackStrip(table));
  const events = options.staff ? table.events : table.events.filter((e) => !e.staff);  // maintenance: staff pages only
  if (events.length) {
    body.append(el("ol", { class: "events", "data-field": "events" },
      events.slice(0, options.events ?? 5).map((e) => el("li", { class: "ev-" + e.type }, e.text))));
  }
  footer(card, table);
  return card;
}
function sep() { return el("span", { class: "sep" }, " · "); }
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
export function statsLine(table) {
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
export function rackStrip(table) {
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
export function qrCode(text) {
  const qrcode = globalThis.qrcode;  // vendor/qrcode.js, a classic script (the wall only)
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

