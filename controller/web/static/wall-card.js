// One table's card on the TV wall: a fixed rectangle whose parts are fixed by rule, never by
// what is in them, so a question or a long name never changes the wall's layout:
//   header   the table's number, its status, «нет связи» when it is away       1 line, 1 em
//   players  one line each: who shoots, the name (wall.js fits it by the rule  1.3 em each with
//            of NAME_FORMS), «2 ФОЛА», the score                               two players, 1.15 em
//                                                                              with three or four
//   notes    the card's fixed region for the open questions, then the winner,  whole lines of 1 em
//            ball in hand, the balls on the table, the racks: whatever does    in what is left
//            not fit whole there is not shown (the questions' lines clamped to the
//            room, one at least: the match line gives way to them)
//   next     the next match the venue record offers the table               one line of the
//            («Следующие: Вера — Глеб»), under the score                       small letters
//   match    clock · game · race · rack · shot · games · best run              one line of the
//                                                                              small letters, last
// Every letter is the card's 1 em (at least 40 px at 1080p) but the match line's (the small
// letters, SMALL_LETTER of them: 28 px at 1080p). No sensor fault and no maintenance word on it:
// those are the staff pages' (the console, commissioning, health).
import { duration, t } from "./i18n.js";
import { ballChip, ballName, el, tableName } from "./common.js";
import { gameName, scoresGames } from "./games.js";
import { questionText } from "./words.js";
import { nextText, rackStrip } from "./card.js";

// Renders one wall card from a table's model; `connected` false: the page is cut off.
export function wallCard(table, connected) {
  const s = table.state;
  const online = connected === false ? "stale" : table.online();
  const card = el("article", { class: `table compact ${online}`, "data-table": table.id, "data-online": online,
    "aria-label": tableName(table.id) });
  const inMatch = !!(s && s.game);
  card.append(header(table, online, inMatch));
  const body = el("div", { class: "body" });
  card.append(body);
  if (inMatch) body.append(playerRows(table));
  // the next match offered, small under the score (or alone on a card with no match)
  if (table.next) body.append(el("p", { class: "next", "data-field": "next", title: nextText(table.next) }, nextText(table.next)));
  if (inMatch) body.append(notes(table), matchLine(table));
  return card;
}

// The number large (its «Стол» read out, not shown), the status beside it, and the table's
// being away when it is (in play and online: the status says so).
function header(table, online, inMatch) {
  const s = table.state;
  const number = /^t(\d+)$/i.exec(String(table.id));
  const status = inMatch ? t("status." + s.status) : t(s ? "card.no_match" : "card.waiting");
  return el("header", {},
    number ? el("h2", {}, el("span", { class: "visually-hidden" }, tableName(table.id)), el("span", { "aria-hidden": "true" }, number[1]))
      : el("h2", {}, tableName(table.id)),
    el("span", { "data-field": "status", class: "status " + (inMatch ? s.status : "idle") }, status),
    online !== "online" ? el("span", { class: `badge ${online}`, "data-field": "online" }, t("online." + (online in ONLINE ? online : "unknown"))) : null);
}
const ONLINE = { online: 1, offline: 1, stopped: 1, stale: 1 };

function playerRows(table) {
  const s = table.state;
  const players = s.players || [];
  const over = s.status === "match_over" || s.status === "game_over";
  const byGames = scoresGames(s.game);
  return el("div", { class: `players n${Math.min(players.length, 4)}` }, players.map((p, i) => {
    const shooting = s.to_shoot === i && !over;
    const won = over && s.winner === i;
    return el("div", { class: "player" + (shooting ? " shooting" : "") + (won ? " won" : ""), "data-player": i },
      el("span", { class: "turn", "aria-hidden": "true" }, shooting ? "▶" : won ? "★" : ""),
      shooting ? el("span", { class: "visually-hidden" }, t("card.to_shoot") + ":") : null,
      // the name as it fits (wall.js fitNames); the whole name read out and in its title
      el("span", { class: "name", title: p.name, "data-name": p.name }, p.name),
      p.consecutive_fouls >= 2 ? el("span", { class: "badge warn", "data-field": "fouls" }, t("card.fouls2", { n: p.consecutive_fouls })) :
        p.consecutive_fouls === 1 ? el("span", { class: "badge foul1", "data-field": "fouls" }, t("card.foul1")) : null,
      el("span", { class: "score", "data-field": "score" }, byGames ? `${p.games}` : `${p.score}`));
  }));
}

// The card's fixed region: the questions first, then the winner and ball in hand (unless the
// status says it already: a break is from the kitchen), then the balls.
function notes(table) {
  const s = table.state;
  const over = s.status === "match_over" || s.status === "game_over";
  const box = el("div", { class: "notes", "data-field": "notes" });
  // the questions in one paragraph (each from a new line), clamped to the region's lines: the
  // first question's first line always shows
  const questions = (s.questions || []).map((q) => questionText(q, table));
  if (questions.length) {
    box.append(el("p", { class: "questions", title: questions.join("\n") }, questions.flatMap((text, i) =>
      [i ? el("br") : null, el("span", { class: "question", "data-field": "question" }, `? ${text}`)])));
  }
  if (over && s.winner !== null && s.winner !== undefined) {
    box.append(el("p", { class: "fact" }, el("span", { class: "badge win" },
      t(s.status === "match_over" ? "card.wins_match" : "card.wins_game", { who: table.playerName(s.winner) }))));
  } else if (s.draw) box.append(el("p", { class: "fact" }, el("span", { class: "badge" }, t("card.draw"))));
  const handSaid = s.ball_in_hand === "kitchen" && ["break", "game_over", "awaiting"].includes(s.status);
  if (s.ball_in_hand && s.ball_in_hand !== "none" && !handSaid) {
    box.append(el("p", { class: "fact" }, el("span", { class: "badge hand", "data-field": "ball_in_hand" },
      t(s.ball_in_hand === "kitchen" ? "hand.kitchen" : "hand.anywhere"))));
  }
  if (s.unidentified > 0 && s.balls_left > 0) {
    box.append(el("p", { class: "balls", "data-field": "balls_left" }, t("card.balls_left", { n: s.balls_left })));
  } else if (s.on_table && s.on_table.length) {
    box.append(el("div", { class: "balls", "data-field": "on_table", role: "list", "aria-label": t("card.on_table") },
      s.on_table.map((b) => ballChip(b, s.game, { role: "listitem", "aria-label": ballName(b) }))));
  }
  if (table.racks.size) box.append(rackStrip(table));  // the racks, their breakers and winners: on a wall of few
  return box;
}

// The one line of small letters, most wanted first (on a wall card of one line, the items that
// do not fit wrap out of sight, from the end): the games won where the score is not the games
// (a pyramid's race is lost without them), the race, the game, the match's clock, the rack,
// the shot and the best run.
function matchLine(table) {
  const s = table.state;
  const items = [];
  const item = (field, text) => items.push(el("span", { class: "item", "data-field": field }, text));
  if (!scoresGames(s.game)) item("games", t("card.games_score", { games: (s.players || []).map((p) => p.games).join(":") }));
  item("race", t("card.race", { n: s.race_to }));
  item("game", gameName(s.game));
  if (table.matchSeconds() !== null) item("clock", t("page.clock", { time: duration(table.matchSeconds()) }));
  item("rack", t("card.game", { n: s.game_no }));
  item("shot", t("card.shot", { n: s.shot }));
  const best = table.stats.best;
  if (best && best.balls > 0) item("best", t("stats.best", { n: best.balls, who: table.playerName(best.player) }));
  // each item with the separator before it: an item that wraps out of sight takes its « · » along
  items.forEach((node, i) => { if (i) node.prepend(el("span", { class: "sep" }, " · ")); });
  return el("p", { class: "meta", "data-field": "match" }, items);
}
