// The games as the server describes them (/games.json, docs/interfaces.md §5: each game's
// record from the rules' registry): the pages draw the game list, the balls, the players, the
// score and the console's first fouls from these records and never compare a game's id, so a
// game added to the rules is drawn with no change here.
import { STRINGS, t } from "./i18n.js";

const RECORDS = new Map();  // id -> its record, in the order a console lists them
let DEFAULT = null;         // the game of a new match when none is chosen

// Loads /games.json (once per page, before anything is drawn). Without it (a page served
// elsewhere without the file) no game is known: balls are drawn in pool colours, the score
// is the state's `score`.
export async function loadGames() {
  try {
    const r = await fetch("games.json", { cache: "no-store" });
    if (!r.ok) return;
    const listed = await r.json();
    for (const g of listed.games || []) RECORDS.set(g.id, g);
    DEFAULT = listed.default || null;
  } catch (e) { /* no games.json: nothing known */ }
}

// Every game's record, in the server's order.
export function games() { return [...RECORDS.values()]; }
// The game a new match starts with unless another is chosen.
export function defaultGame() { return DEFAULT; }
// One game's record, or null for a game this page does not know.
export function gameRecord(id) { return RECORDS.get(id) || null; }

// A game's name in the page's language (the catalogue's `game.<id>`), else its id.
export function gameName(id) { return `game.${id}` in STRINGS.en ? t(`game.${id}`) : String(id); }

// Pool colours; stripes from 9 on. An ivory game's object balls are all ivory.
const POOL_COLOURS = ["#f2c300", "#1f4fd1", "#d42020", "#6b2da8", "#f07b12", "#118a3a", "#7a1f1f", "#111"];
const IVORY = "#f3ead2";
function ivory(game) { const g = gameRecord(game); return !!g && g.ball_style === "ivory"; }
export function ballColour(ball, game) {
  if (ball === "cue") return "#fafafa";
  if (ivory(game)) return IVORY;
  return POOL_COLOURS[(ball - 1) % 8];
}
export function isStripe(ball, game) { return !ivory(game) && typeof ball === "number" && ball > 8; }

// Whether a game's score is its games won (Ten-ball): then a player's games are the number
// shown, and there is no race column beside it.
export function scoresGames(game) { const g = gameRecord(game); return !!g && g.score_field === "games"; }
// Whether a game keeps points or balls (a column of them in the history), not games alone.
export function keepsPoints(game) { return !scoresGames(game); }
// The fouls a console offers first, most common first.
export function firstFouls(game) { const g = gameRecord(game); return g ? g.first_fouls || [] : []; }
// Whether `what` (balls_to_cushion, centre_line, unsportsmanlike, cue_ball_call) may be
// declared in a game.
export function declares(game, what) { const g = gameRecord(game); return !!g && (g.declarable || []).includes(what); }
