// The venue record's bracket (record/tournament/<venue>~<id>.json, controller.record.director)
// as brackets-viewer's data (brackets-model: stages, matches, participants). Double
// elimination is one stage (group 0 the winners' bracket, 1 the lower, 2 the grand final),
// single elimination one, groups one round-robin stage and the playoff another.
import { t } from "./i18n.js";

const STATUS = { waiting: 1, ready: 2, played: 4, unplayed: 4 };  // brackets-model's Status

// One slot: null for a bye, {id: null} while not known, else the player with his result.
function slot(m, at, index) {
  const who = m.players[at];
  if (who === "bye") return null;
  if (who === null) return { id: null };
  const out = { id: index[who] };
  if (m.winner) out.result = m.winner === who ? "win" : "loss";
  if (m.score) out.score = m.score[at];
  if (m.walkover && m.winner && m.winner !== who) out.forfeit = true;
  return out;
}

// Where a match goes: [stage, group] by its stage in the draw.
function place(m, groups) {
  switch (m.stage) {
    case "losers": return [0, 1];
    case "grand-final": return [0, 2];
    case "group": return [0, groups.indexOf(m.group)];
    case "playoff": return [1, 0];
    default: return [0, 0];
  }
}

export function viewerData(bracket) {
  const index = Object.fromEntries(bracket.players.map((p, i) => [p, i]));
  const groups = Object.keys(bracket.groups || {});
  const rounds = new Map();
  const matches = bracket.matches.map((m, id) => {
    const [stage, group] = place(m, groups);
    const key = m.stage === "grand-final" ? m.id : `${stage}/${group}/${m.round}`;
    if (!rounds.has(key)) rounds.set(key, rounds.size);
    const number = m.stage === "grand-final" ? 1 : Number(m.id.split("-").pop());
    return { id, stage_id: stage, group_id: group, round_id: rounds.get(key), number, child_count: 0,
             status: STATUS[m.status] ?? 0, opponent1: slot(m, 0, index), opponent2: slot(m, 1, index) };
  });
  const size = 2 ** Math.ceil(Math.log2(Math.max(2, bracket.players.length)));
  const type = { single: "single_elimination", double: "double_elimination", groups: "round_robin" }[bracket.format];
  const stages = [{ id: 0, tournament_id: 0, name: t("tour.title"), type, number: 1,
                    settings: { size, grandFinal: "double", groupCount: groups.length || 1 } }];
  if (bracket.format === "groups") {
    stages.push({ id: 1, tournament_id: 0, name: t("tour.playoff"), type: "single_elimination", number: 2,
                  settings: { size: 2 ** Math.ceil(Math.log2(Math.max(2, matches.filter((m) => m.stage_id === 1).length + 1))) } });
  }
  const participants = bracket.players.map((p, i) => ({ id: i, tournament_id: 0, name: bracket.names[p] || p }));
  return { stages, matches, matchGames: [], participants };
}

// The rounds' names in the page's words (brackets-viewer's customRoundName).
export function roundName(info) {
  const n = info.roundNumber;
  switch (info.groupType) {
    case "loser-bracket": return t("tour.lower_round", { n });
    case "final-group": return n === 1 ? t("tour.grand_final") : t("tour.reset");
    case "round-robin": return t("tour.round", { n });
    default: return n === info.roundCount ? t("tour.final") : t("tour.round", { n });
  }
}

// brackets-viewer's own words that show on a bracket, in the page's language.
export function viewerLocale() {
  return { common: { bye: t("tour.bye"), "group-name-winner-bracket": t("tour.winners"),
                     "group-name-loser-bracket": t("tour.losers") },
           "match-label": { default: t("tour.match", { n: "{{matchNumber}}" }) },
           abbreviations: { forfeit: t("tour.forfeit") } };
}
