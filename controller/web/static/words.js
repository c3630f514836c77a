// A table's questions, refusals, notes and events in the page's language, worded from their
// data (docs/interfaces.md §3), never the rules' own codes.
import { STRINGS, t, tOr } from "./i18n.js";
import { ballName, foulName, pocketName } from "./common.js";
import { gameName } from "./games.js";

// Returns a question's text in the page's language, worded from its data (`topic` and
// `about`, docs/interfaces.md §3); a question of a topic this page has no words for, or
// of a table that sends no data, is shown by the table's own `prompt`, pocket ids as names.
export function questionText(q, table) {
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
      channels: (about.channels || []).join(", "),  // what gaps in the sensors' data lost
    };
    const variant = count > 1 ? `${key}.many` : about.gaps === 1 ? `${key}.gap`
      : about.gaps ? `${key}.gaps` : key;
    return t(variant in STRINGS.en ? variant : key, vars);
  }
  return String(q.prompt || "").replace(/\b(hl|hr|sl|sr|fl|fr)\b/g, (code) => pocketName(code));
}
// Returns how one answer choice reads (a ball, yes/no, a player, a choice word).
export function choiceText(c, q) {
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
export function openQuestion(reason, table) {
  const open = String(reason || "").match(/^question (q-[\w-]+) (?:is open )?\((.*)\):? (?:is open: )?answer it first$/);
  if (!open) return null;
  return (table.state && table.state.questions || []).find((x) => x.id === open[1]) || table.questions.get(open[1]) || { prompt: open[2] };
}
// Returns a table's error reason without internal ids, in the page's language where known.
export function errorText(reason, table) {
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
export function noteText(n, table) {
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

// The events a staff page shows and a public one (the wall, the dashboard, the overlay) does
// not: the sensors' faults and their repair, events lost on the way (issue 41: maintenance
// words belong on the console, commissioning and health).
export function staffOnly(ev) {
  const d = ev.data || {};
  return ev.type === "sensor_fault" || ev.type === "sensor_recovered" || (ev.type === "warning" && d.kind === "events_lost");
}
// A sensor channel in words (interfaces §2's names: beam.<pocket>, cushion.<rail>, cue, ball_id…):
// «датчик лузы «дальняя левая»», «датчик борта «дальний короткий»»; a name this page has no
// words for, as it is.
export function channelName(ch) {
  const [kind, where] = String(ch).split(".");
  if (!(`channel.${kind}` in STRINGS.en)) return String(ch);
  return t(`channel.${kind}`, { pocket: where ? pocketName(where) : "", rail: where ? tOr("rail", where) : "" });
}
// A ball of a ruling in words: its number, or «неопознанный» for one that fell unknown.
function ballWord(ball) { return ball === "object" ? t("h.unidentified") : ball; }
function capital(text) { return text ? text[0].toLocaleUpperCase() + text.slice(1) : text; }

export function describeEvent(table, ev) {
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
      if (credited.length) parts.push(t("ev.credited", { who: who(credited[0].player), balls: list(credited.map((x) => ballWord(x.ball))) }));
      if (down.length) parts.push(t("ev.down", { balls: list(down.map((x) => ballWord(x.ball))) }));
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
    case "sensor_fault": return capital(t("ev.sensor_fault", { channel: channelName(d.channel), state: tOr("health", d.state) }) + (d.reason ? ` (${tOr("fault", d.reason)})` : ""));
    case "sensor_recovered": return capital(t("ev.sensor_ok", { channel: channelName(d.channel) }));
  }
  return null;
}

