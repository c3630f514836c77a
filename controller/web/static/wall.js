// The TV wall's sizes and fitting: how many cards a screen holds at legible letters, which
// card takes more room, and names and lines fitted inside a card. The dashboard (dashboard.js)
// renders from its one state object with these.


export const ROTATE_S = 15;           // a TV page stays this long
// The smallest letters on a wall card that must read from the bar (names, status, questions,
// «2 ФОЛА», ball in hand), in px at REF_HEIGHT: a card's font size, scaled with the screen's
// height (80 px at 4K, 27 at 720p, where a TV of the same size shows them as large). Tables
// that do not fit at it go onto pages that turn.
export const MIN_LETTER_PX = 40;
const REF_HEIGHT = 1080;
export const MAX_LETTER = 1.6;        // with few tables, letters grow to this many times the minimum
// A wall card's size in em of those letters (width, height): twelve tables of two players are
// 4 × 3 cards of about 465 × 302 px on a 1080p screen under its top bar (the QR code's 10.5 %),
// so a card is 11.4 em × 7.4 em at 40 px, laid out (style.css, `.table.compact`) as
//   the table's number and status                                 1 line of 1 em
//   each player: who shoots, name (1 em), games won, score (1.6 em) 1.6 em a player
//   the open question, ball in hand, the winner                    1 em lines
//   match clock, game, race, rack, shot; live statistics, balls,   lines of SMALL_LETTER em,
//   the last event, how long ago the table spoke                   shown while there is room
// A card whose names, status, questions and facts do not fit whole takes two cards' room, then
// four (see SPANS); pages turn only when the tables then do not fit.
const CARD_EM = [11.4, 7.4];
// The least letters of the lines a player reads standing at the table, not from the bar (the
// match clock, race, rack and shot, live statistics, the last event, «обновлено»): 0.7 of the
// least, 28 px at 1080p, the size of the wall's top bar, 56 at 4K. Names, status, questions,
// «2 ФОЛА» and ball in hand never go below MIN_LETTER_PX. style.css reads it as --small.
export const SMALL_LETTER = 0.7;
// Why one QR code per wall, not one a card: a code a phone reads from a metre is 10.5 % of the
// screen's height (issue 30); twelve cards of 40 px letters leave no corner that size free of
// a name or a question. The wall's one code opens the venue's dashboard, where every table links
// its console: a phone picks its table there. One table full screen keeps its console's code.

// The wall's least letter height now, in px.
export function minLetter() { return MIN_LETTER_PX * window.innerHeight / REF_HEIGHT; }

// TV: the columns, rows and font size that show `n` cards largest in `container`; how many fit a page.
export function layout(container, n) {
  const top = container.getBoundingClientRect().top;  // the top bar, and whatever else is above the cards
  const floor = minLetter();
  const width = window.innerWidth, height = window.innerHeight - top;
  const gap = parseFloat(getComputedStyle(container).columnGap) || 0;  // style.css: it scales with the screen
  const fit = (count) => {
    let best = { cols: 1, rows: count, font: 0 };
    for (let cols = 1; cols <= count; cols++) {
      const rows = Math.ceil(count / cols);
      const w = (width - gap * (cols + 1)) / cols, h = (height - gap * (rows + 1)) / rows;
      const font = Math.min(w / CARD_EM[0], h / CARD_EM[1]);
      if (font > best.font) best = { cols, rows, font };
    }
    return best;
  };
  let perPage = Math.max(n, 1);
  while (perPage > 1 && fit(perPage).font < floor) perPage--;
  return { ...fit(Math.min(perPage, Math.max(n, 1))), perPage, fit };
}
// TV: a card whose names, status, questions and facts do not fit whole at the least letters
// takes two cards' room (one above the other), then four (two by two): three or four players,
// long names, a long question. `board.grown`: id -> [what grew, steps]: a new match, or a question
// asked or answered, starts over (a card a question grew is one card again once answered).
const SPANS = [[1, 1], [1, 2], [2, 2]];  // columns, rows
const grew = (s) => `${s.match_id}/${(s.questions || []).map((q) => q.id).join()}`;
export function step(board, id) {
  const s = board.tables.get(id).state, g = board.grown.get(id);
  const own = g && s && g[0] === grew(s) ? g[1] : 0;
  return Math.max(own, s && s.game && (s.players || []).length > 2 ? 1 : 0);
}
export function span(board, id) { return board.only ? [1, 1] : SPANS[step(board, id)]; }
export function slots(board, id) { const [c, r] = span(board, id); return c * r; }
export function grow(board, id) {
  const s = board.tables.get(id).state, n = step(board, id);
  if (board.only || !s || n + 1 >= SPANS.length) return false;
  board.grown.set(id, [grew(s), n + 1]);
  return true;
}
// TV: the tables in pages of at most `perPage` cards' room, in order.
export function paginate(board, ids, perPage) {
  const pages = [[]];
  let used = 0;
  for (const id of ids) {
    const n = Math.min(slots(board, id), perPage);
    if (used + n > perPage && pages[pages.length - 1].length) { pages.push([]); used = 0; }
    pages[pages.length - 1].push(id);
    used += n;
  }
  return pages;
}
// TV: what does not fit a card whole (a long question above it) is not shown cut in half.
export function wholeOrNothing(card, only) {
  const body = card.querySelector(":scope > .body");
  if (!body) return true;
  const bottom = body.getBoundingClientRect().bottom;
  // one table full screen: its QR code (its corner, its phone-readable size) never covers a player
  const qr = card.querySelector(":scope > .qr"), players = body.querySelector(".players");
  if (qr) {
    qr.hidden = false;
    if (players && players.getBoundingClientRect().bottom > qr.getBoundingClientRect().top) qr.hidden = true;
  }
  fitNames(card);
  let whole = true;
  for (const item of body.children) {
    const out = item.getBoundingClientRect().bottom > bottom + 0.5;
    item.style.visibility = out ? "hidden" : "";
    // what reads from the bar, whole; on a wall card of many, the lines of small letters show where there is room
    const must = card.classList.contains("compact") ? ".players, .notes" : ".meta, .players, .question, .facts, .balls";
    if (out && (only || item.matches(must))) whole = false;
  }
  return whole;  // false: what must read from the bar does not fit
}
// TV: a long name is never cut («…») nor broken inside a word: its letters shrink, down to
// the card's (the minimum), until its words fit their line and the name its two lines (three,
// then as many as it takes, where two cannot hold it).
export function fitNames(card) {
  const least = parseFloat(getComputedStyle(card).fontSize);
  for (const name of card.querySelectorAll(".player .name")) {
    const row = name.closest(".player");
    row.classList.remove("wide");
    name.style.fontSize = name.style.webkitLineClamp = "";
    const full = parseFloat(getComputedStyle(name).fontSize);
    const cut = () => name.scrollWidth > name.clientWidth + 0.5 || name.scrollHeight > name.clientHeight + 0.5;
    name.style.overflowWrap = "";
    // its lines beside the score, then the row's whole width (the score under it)
    for (const [lines, wide] of [["", false], ["3", false], ["", true], ["3", true], ["none", true]]) {
      row.classList.toggle("wide", wide);
      name.style.webkitLineClamp = lines;
      name.style.fontSize = "";
      for (let size = full; cut() && size > least + 0.01;) {
        size = Math.max(least, size - full * 0.05);
        name.style.fontSize = `${size}px`;
      }
      if (!cut()) break;
    }
    // a word longer than the card at the least letters (a TV without a narrow face): broken,
    // which beats letters hidden
    if (cut()) name.style.overflowWrap = "anywhere";
  }
}
