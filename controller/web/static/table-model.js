// One table as a page knows it, from its messages (status, state, health, events, answers):
// the model the cards, the console and the overlay render from.
import { t } from "./i18n.js";
import { choiceText, describeEvent, questionText, staffOnly } from "./words.js";

const EVENTS_KEPT = 12;

export class TableModel {
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
    this.next = null;     // B/next: the match the venue record offers next (null: none)
  }
  playerName(i) {
    const p = this.state && this.state.players && this.state.players[i];
    return p ? p.name : (i === null || i === undefined ? "?" : t("c.player", { n: i + 1 }));
  }
  online() { return this.status ? this.status.state : "unknown"; }
  // Takes one message of this table (kind: status, state, health, event, request/answer (or
  // referee/request/answer: the referee lane's), response/answer); returns the newest event's text when there is one, true when something
  // else shown changed, false when nothing did.
  take(kind, data) {
    this.updated = new Date();
    if (data && typeof data.ts === "number" && (!this.tableClock || data.ts > this.tableClock.ts)) {
      this.tableClock = { ts: data.ts, at: Date.now() };  // an offset, never the browser's time of day
    }
    if (kind === "next") { this.next = data && Array.isArray(data.players) ? data : null; return true; }
    if (kind === "status") { this.status = data; return true; }
    if (kind === "health") { this.health = data; return true; }
    if (kind === "state") { this.takeState(data); return true; }
    if (kind === "request/answer" || kind === "referee/request/answer") {
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
    // a maintenance event: kept for the staff's pages, never returned as the newest thing said
    if (staffOnly(data)) return this.addEvent(data.seq, data.type, describeEvent(this, data), true) && true;
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
  addEvent(seq, type, text, staff = false) {
    if (!text) return true;
    this.events.unshift({ seq, type, text, staff, at: new Date() });
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
export class MatchStats {
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

