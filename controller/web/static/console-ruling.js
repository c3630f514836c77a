// The ruling: the pinned line, the last shot as the table understood it («Верно» /
// «Исправить»), its presumptions one tap from their correction, and the fix sheet.
import { t } from "./i18n.js";
import { el, foulName, pocketName, swap } from "./common.js";
import { noteText } from "./words.js";
import { page, state } from "./console-state.js";
import { typing, withKey } from "./console-dom.js";
import { send, sendable } from "./console-requests.js";
import { renderPool } from "./console-pool.js";
import { firstFouls } from "./games.js";

// A foul the sensors made of cushions they did not feel, and the declaration that says the
// balls did reach them (the shot is ruled again on that).
const NOT_A_FOUL = { no_rail: { cushions_after_contact: 1 }, two_cushion: { cushions_after_contact: 2 } };
// What a shot's ruling presumed (a Noted decision) and the declaration that says otherwise.
const CORRECTIONS = {
  contact_presumed: () => ({ first_contact: null }),
  first_contact_presumed: () => ({ fouls: ["wrong_ball_first"] }),
  two_cushions_presumed: () => ({ cushions_after_contact: 1 }),
  centre_line_presumed: (detail) => ({ centre_line: detail === "not_crossed" }),
  rail_presumed: () => ({ cushions_after_contact: 0 }),
  four_balls_presumed: () => ({ fouls: ["bad_break"] }),
};
// ---------------------------------------------------------------- presumptions, one tap to correct
// The last ruled shot's presumptions that a declaration can overturn (a later shot or an
// undo replaces them: a declaration speaks of the shot just played).
export function takeRuling(ev) {
  const d = ev.data || {};
  takeVerdict(ev);
  if (ev.type === "undo" || ev.type === "redo" || ev.type === "match_started") page.presumed = null;
  if (ev.type !== "shot_result") return;
  if (page.presumed && d.shot < page.presumed.shot) return;  // an earlier shot ruled again
  const items = (d.decisions || []).filter((x) => x.decision === "Noted" && CORRECTIONS[x.what]
    && !page.corrected.has(`${d.shot}:${x.what}`));
  page.presumed = items.length ? { shot: d.shot, items } : null;
}
// ---------------------------------------------------------------- the shot as the table understood it
// Gathered from the events of one ruling (they come before the state they lead to): the
// shot's result, its fouls, the game or match it ended; the balls seen falling before it.
export function takeVerdict(ev) {
  const d = ev.data || {};
  const v = page.verdict;
  switch (ev.type) {
    case "ball_pocketed": page.fell.push({ ball: d.ball, pocket: d.pocket }); return;
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
      page.verdict = {
        shot: d.shot, shooter, next: d.to_shoot, hand: d.ball_in_hand, corrected: !!d.corrected,
        fell: page.fell.length ? page.fell : page.declared && page.declared.shot === d.shot ? page.declared.fell : [],
        credited, down, moved,
        scores: own ? v.scores : (state().players || []).map((p) => p.score),  // before the shot
        fouls: [], over: null, acked: false,
      };
      page.fell = [];
      showRuling();
      return;
    }
    case "foul": if (v) { v.fouls = [...v.fouls, ...(d.fouls || [])]; showRuling(); } return;
    case "game_over": if (v) { v.over = { game: d.game_no, winner: d.winner, draw: !!d.draw }; showRuling(); } return;
    case "match_over": if (v) { v.match = { winner: d.winner, games: (d.games || []).join(":"), abandoned: !!d.abandoned }; showRuling(); } return;
    case "undo": case "redo":
      page.verdict = null;
      page.ruling.hidden = false;
      page.ruling.textContent = ev.type === "undo" ? t("ev.undo", { shot: d.back_to_shot }) : t("ev.redo", { shot: d.shot });
      page.ruling.dataset.state = "undo";
      return;
    case "match_started": page.verdict = null; page.fell = []; page.ruling.hidden = true; return;
    case "question": {  // a later shot waits for an answer: the last ruling is not its
      const shot = Number((String(d.id || "").match(/^q-(\d+)-/) || [])[1]);
      if (v && shot > v.shot) {
        page.ruling.hidden = false;
        page.ruling.textContent = t("v.shot", { shot }) + t("v.asking");
        page.ruling.dataset.state = "asking";
      }
      return;
    }
  }
}
// The ruling in one sentence: «Анна: шар 3 засчитан, бьёт снова», «Фол: нет двух бортов — бьёт Борис»,
// «Анна: шар 1 засчитан игроку Борис (фора), бьёт снова», «Анна: шар 10 забит — победа в партии 1;
// следующую партию разбивает Борис».
export function verdictText(v) {
  const who = (i) => page.table.playerName(i);
  const balls = (list) => list.map((b) => (b === "cue" ? t("ball.cue") : b === "object" ? t("h.unidentified") : b)).join(", ");
  const ended = v.over && !v.match;  // the next shot is the next game's break
  let next = "";
  if (v.next !== null && v.next !== undefined && !v.match) {
    if (ended) next = t("v.breaks", { who: who(v.next) });
    else next = v.next === v.shooter && !v.fouls.length ? t("v.again") : t("v.next", { who: who(v.next) });
  }
  const hand = !ended && v.hand && v.hand !== "none" ? t(v.hand === "kitchen" ? "v.hand_kitchen" : "v.hand") : "";
  const mine = v.credited.filter((c) => c.player === v.shooter).map((c) => c.ball);
  const others = creditedToOthers(v, who, balls);
  let text;
  if (v.fouls.length) text = [t("v.foul", { fouls: v.fouls.map(foulName).join(", ") }), ...others].join(", ");
  else if (mine.length) text = [t(mine.length > 1 ? "v.credited_many" : "v.credited", { who: who(v.shooter), balls: balls(mine) }), ...others].join(", ");
  else if (others.length) text = `${who(v.shooter)}: ${others.join(", ")}`;
  else if (v.down.length) text = t(v.down.length > 1 ? "v.down_many" : "v.down", { who: who(v.shooter), balls: balls(v.down) });
  else text = t("v.nothing", { who: who(v.shooter) });
  if (v.over) {
    text += " — " + (v.over.draw ? t("ev.game_drawn", { n: v.over.game })
      : v.over.winner === v.shooter ? t("v.wins_game", { n: v.over.game }) : t("v.game_over", { n: v.over.game, who: who(v.over.winner) }));
  }
  text += next + hand + scoresMoved(v);
  if (v.match && !v.match.abandoned) {
    text += " · " + (v.match.winner === null || v.match.winner === undefined ? t("ev.match_drawn") : t("v.match_over", { who: who(v.match.winner), games: v.match.games }));
  }
  return text;
}
// The balls credited to a player other than the shooter, named with that player and «фора»
// where the handicap gave them: «шар 1 засчитан игроку Борис (фора)».
function creditedToOthers(v, who, balls) {
  const theirs = new Map();
  for (const c of v.credited.filter((x) => x.player !== v.shooter)) {
    const to = theirs.get(c.player) || { balls: [], handicap: false };
    to.balls.push(c.ball);
    to.handicap ||= c.handicap;
    theirs.set(c.player, to);
  }
  return [...theirs].map(([player, to]) => t(to.balls.length > 1 ? "v.credited_to_many" : "v.credited_to",
    { who: who(player), balls: balls(to.balls) }) + (to.handicap ? t("v.handicap") : ""));
}
// «· очки: Анна 9 → 4, Борис 0 → 5» when a penalty moved points (Point pyramid).
function scoresMoved(v) {
  if (!v.moved.length || !v.scores.length) return "";
  const after = [...v.scores];
  for (const c of v.credited) after[c.player] += c.points;
  for (const m of v.moved) { after[m.offender] -= m.points; after[m.to] += m.points; }
  const changes = after.map((score, i) => (score === v.scores[i] ? null : `${page.table.playerName(i)} ${v.scores[i]} → ${score}`))
    .filter((x) => x !== null);
  return changes.length ? t("v.scores", { changes: changes.join(", ") }) : "";
}
export function showRuling() {
  const v = page.verdict;
  if (!v) return;
  page.ruling.hidden = false;
  page.ruling.textContent = (v.corrected ? t("v.corrected", { shot: v.shot }) : t("v.shot", { shot: v.shot })) + verdictText(v);
  page.ruling.dataset.state = v.match ? "over" : v.fouls.length ? "foul" : v.over ? "over" : "ok";
}
export function renderVerdict() {
  const box = document.getElementById("verdict");
  const v = page.verdict;
  if (!v || v.acked) { swap(box, el("div", { id: "verdict", hidden: true })); return; }
  const who = (i) => page.table.playerName(i);
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
export function ackVerdict() {
  if (page.verdict) page.verdict.acked = true;
  renderVerdict();
  focusPool();
}
// «Исправить»: the declaration, about that shot only, opened where the eye and the keyboard are.
// The fix sheet: that shot's facts one tap away (its presumptions, a foul, a ball that fell,
// tapped on the drawing), every other fact in the declaration below.
export function fixShot(shot) {
  page.fixShot = shot;
  document.querySelector("input[name=tap][value=pocketed]").checked = true;
  renderPool();
  renderFixSheet();
  const first = document.querySelector("#fix-sheet button");
  if (first) first.focus({ preventScroll: true });
}
export function closeFix() {
  page.fixShot = null;
  document.getElementById("fix-note").hidden = true;
  document.querySelector("input[name=tap][value=pot]").checked = true;
  renderPool();
  renderFixSheet();
}
export function renderFixSheet() {
  const box = document.getElementById("fix-sheet");
  const shot = page.fixShot;
  if (shot === null) { swap(box, el("div", { id: "fix-sheet", class: "sheet fix", hidden: true })); return; }
  const declare = (facts) => send("declare", { ...facts, shot });
  const presumed = page.presumed && page.presumed.shot === shot ? page.presumed.items : [];
  const fresh = el("div", { id: "fix-sheet", class: "sheet fix", role: "group", "aria-labelledby": "fix-title" },
    el("p", { id: "fix-title", class: "fix-title" }, t("c.fixing_short", { shot })),
    (page.verdict && page.verdict.shot === shot ? page.verdict.fouls : []).filter((f) => NOT_A_FOUL[f]).map((f) =>
      el("button", { type: "button", class: "quiet", "data-no-foul": f, "data-key": "fx-no-" + f,
        onclick: () => declare(NOT_A_FOUL[f]) }, t("c.no_foul", { foul: foulName(f) }))),
    presumed.map((n) => el("button", { type: "button", class: "quiet", "data-key": "fx-" + n.what,
      onclick: () => { const tx = send("declare", { ...CORRECTIONS[n.what](n.detail), shot }); if (tx) page.fixing.set(tx, `${shot}:${n.what}`); },
    }, t("fix." + n.what))),
    firstFouls(state().game).map((code, i) => withKey(el("button", { type: "button", class: "foul-pick",
      "data-fix-foul": code, "data-key": "fx-" + code, onclick: () => declare({ fouls: [code] }) }, foulName(code)), String(i + 1))),
    el("p", { class: "fix-hint" }, t("c.fix_fell")),
    el("div", { class: "actions" },
      el("button", { type: "button", class: "quiet", "data-key": "fx-all", onclick: () => openDeclaration(shot) }, t("c.fix_all")),
      withKey(el("button", { type: "button", class: "quiet", id: "fix-close", "data-key": "fx-close", onclick: closeFix }, t("c.fix_close")), "Esc")));
  swap(box, sendable(fresh));
}
// The whole declaration below, about `shot` (null: the shot in play or to come).
export function openDeclaration(shot) {
  page.fixShot = shot;
  const panel = document.getElementById("declare-panel");
  const note = document.getElementById("fix-note");
  note.hidden = shot === null;
  note.textContent = shot === null ? "" : t("c.fixing", { shot });
  renderFixSheet();
  panel.scrollIntoView({ block: "start" });
  const first = panel.querySelector("button");
  if (first) first.focus({ preventScroll: true });
}
export function focusPool() {
  const b = document.querySelector("#pool [data-ball]");
  if (b && !typing()) b.focus({ preventScroll: true });
}


// A presumption corrected (`fixed`: "<shot>:<what>"): no longer offered, whatever the ruling
// still notes.
export function corrected(fixed) {
  if (!page.presumed) return;
  page.corrected.add(fixed);
  page.presumed.items = page.presumed.items.filter((n) => `${page.presumed.shot}:${n.what}` !== fixed);
  if (!page.presumed.items.length) page.presumed = null;
  renderPresumed();
}
export function renderPresumed() {
  const box = document.getElementById("presumed");
  const p = page.presumed;
  const fresh = el("div", { id: "presumed", hidden: !p },
    p ? [el("p", { class: "calls" }, t("c.presumed", { shot: p.shot })),
      ...p.items.map((n) => el("div", { class: "presumption" },
        el("span", {}, noteText(n, page.table)), " ",
        el("button", { type: "button", class: "quiet", "data-correct": n.what, "data-key": "fix-" + n.what,
          onclick: () => {
            // about that shot: refused, not taken for another, once the next is in play
            const tx = send("declare", { ...CORRECTIONS[n.what](n.detail), shot: p.shot });
            if (tx) page.fixing.set(tx, `${p.shot}:${n.what}`);
          } }, t("fix." + n.what))))] : []);
  swap(box, sendable(fresh));
}

