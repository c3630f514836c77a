// The referee console's one state object: the table as the console knows it, the connection,
// and what the referee has tapped, opened and been shown. Every console module reads and
// changes this object; the render functions draw from it.
import { gameRecord } from "./games.js";
import { TableModel } from "./table-model.js";

const tableId = new URLSearchParams(location.search).get("table") || "t1";

export const page = {
  tableId,
  table: new TableModel(tableId),
  config: null,   // config.json, once loaded
  base: "",       // <prefix>/<venue>/<table>: the topics' stem
  client: null,   // the MQTT.js client, once started
  roster: [],     // the venue's players (the recorder's roster)
  calls: [], pocketed: [], picked: null,  // taps on the drawing: calls, balls declared pocketed, the ball picked
  verdict: null, fell: [], declared: null, fixShot: null, seenQuestions: "", chosen: null,
  presumed: null, corrected: new Set(), fixing: new Map(),  // presumptions and their corrections
  digit: null, digitTimer: null,  // a first digit typed, waiting for a second
};

// The table's state (an empty object before the first).
export function state() { return page.table.state || {}; }
// Whether the coming shot is a break: the game's first, or, once a game is over, the next
// game's (the table racks it as that shot comes).
export function nextIsBreak() { const s = state(); return s.status === "break" || s.status === "game_over"; }
// The balls the coming shot can pot: once a game is over, the next game's whole rack
// (games.json), not what was left of the last.
export function balls() {
  const s = state();
  const rack = s.status === "game_over" && gameRecord(s.game);
  return (rack ? rack.balls : s.on_table || []).slice();
}
export function inMatch() { const s = state(); return !!s.game && s.status !== "match_over" && s.status !== "idle"; }
