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
// A wall card's size in em of those letters (width, height): twelve tables are 4 × 3 cards of
// about 465 × 302 px on a 1080p screen under its top bar (the QR code's 10.5 %), so a card is
// 11.4 em × 7.4 em at 40 px, its parts fixed by rule (wall-card.js). The layout is fixed by the
// number of tables alone: every table one card, whatever its names, players or questions.
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
// TV: the pages of the wall. Every table one card; `perPage` of them fit the screen at the least
// letters. When more tables than that are known, they are dealt onto as few pages as hold them,
// each page the same number of cards (the last one short by less than the number of pages), so
// every page has the same grid and the same card size. Returns the pages (lists of ids) and
// the number of cards a page's grid is laid out for.
export function paginate(ids, perPage) {
  const pages = Math.max(1, Math.ceil(ids.length / perPage));
  const each = Math.max(1, Math.ceil(ids.length / pages));
  const out = [];
  for (let i = 0; i < pages; i++) out.push(ids.slice(i * each, (i + 1) * each));
  return { pages: out, each };
}
// One table full screen: what does not fit its card whole is not shown cut in half; returns
// false when what must read from the bar does not fit (its letters then shrink).
export function wholeOrNothing(card) {
  const body = card.querySelector(":scope > .body");
  if (!body) return true;
  const bottom = body.getBoundingClientRect().bottom;
  // its QR code (its corner, its phone-readable size) never covers a player
  const qr = card.querySelector(":scope > .qr"), players = body.querySelector(".players");
  if (qr) {
    qr.hidden = false;
    if (players && players.getBoundingClientRect().bottom > qr.getBoundingClientRect().top) qr.hidden = true;
  }
  let whole = true;
  for (const item of body.children) {
    const out = item.getBoundingClientRect().bottom > bottom + 0.5;
    item.style.visibility = out ? "hidden" : "";
    if (out) whole = false;
  }
  return whole;
}

// A wall card's parts fitted into its fixed rectangle (wall-card.js): each name by the rule of
// NAME_FORMS; the questions' lines clamped to the room the notes region has (one each at
// least: the match line gives way to them); what then does not fit whole in the notes region
// (the balls, mostly) is not shown. Nothing here changes the card's size.
export function fitCard(card) {
  for (const name of card.querySelectorAll(".player .name[data-name]")) fitName(name);
  const notes = card.querySelector(".notes"), meta = card.querySelector(".meta");
  if (!notes) return;
  for (const node of [...notes.children]) { node.style.display = ""; node.style.webkitLineClamp = ""; }
  if (meta) meta.style.display = "";
  const questions = notes.querySelector(".questions");
  const facts = [...notes.querySelectorAll(".fact")].reduce((h, c) => h + c.getBoundingClientRect().height, 0);
  const line = questions ? parseFloat(getComputedStyle(questions).lineHeight) : 0;
  // a question comes before the match line: with three or four players the line gives way
  if (meta && questions && notes.getBoundingClientRect().height - facts < line) meta.style.display = "none";
  const region = notes.getBoundingClientRect();
  // the questions take the region's whole lines under the facts (one at least)
  if (questions) questions.style.webkitLineClamp = String(Math.max(1, Math.floor((region.height - facts) / Math.max(line, 1) + 0.01)));
  // what then does not fit whole (the balls, mostly) is not shown
  for (const node of notes.children) {
    if (node !== questions && node.getBoundingClientRect().bottom > region.bottom + 0.5) node.style.display = "none";
  }
}

// How a name too long for its line is shown, in order, the first that fits: the whole name;
// the first name's initial and the last word («А. Каренина-Вронская»); the first name and the
// initials of the other words («Анна К.-В.»); the initials alone («А. К.-В.»). The whole name is
// the element's title and is read out. A name of one word too long for the line at the least
// letters is cut at the line's end (its letters never below the least).
export const NAME_FORMS = [
  (words) => words.join(" "),
  (words) => (words.length > 1 ? [initial(words[0]), words[words.length - 1]].join(" ") : null),
  (words) => (words.length > 1 ? [words[0], ...words.slice(1).map(initial)].join(" ") : null),
  (words) => (words.length > 1 ? words.map(initial).join(" ") : null),
];
// «Каренина-Вронская» -> «К.-В.»
function initial(word) { return word.split("-").map((part) => (part ? `${part[0]}.` : "")).join("-"); }
const FITTED = new Map();  // "name|font|width" -> the form that fitted (the same card renders alike)
function fitName(node) {
  const full = node.dataset.name;
  const key = `${full}|${getComputedStyle(node).fontSize}|${Math.round(node.clientWidth)}`;
  const words = full.trim().split(/\s+/);
  const fits = () => node.scrollWidth <= node.clientWidth + 0.5;
  let shown = FITTED.get(key);
  if (shown === undefined) {
    shown = full;
    for (const form of NAME_FORMS) {
      const text = form(words);
      if (text === null) continue;
      node.textContent = text;
      shown = text;
      if (fits()) break;
    }
    FITTED.set(key, shown);
  }
  if (node.textContent !== shown) node.textContent = shown;
  node.classList.toggle("short", shown !== full);
}
