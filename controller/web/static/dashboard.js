// The venue dashboard: every table of billiards/<venue>/+ — retained status, state and
// health make a fresh page complete at once; events arrive as they happen.
//   index.html               every table, scrolling (desktop, phone)
//   index.html?tv=1          the TV wall: a grid that fits the screen, pages that rotate
//                            when the tables do not fit legibly (←/→ turn them), one QR code
//                            of the venue's dashboard, match clocks, racks and live
//                            statistics; F = full screen
//   index.html?table=t1      one table, full screen
"use strict";

const ROTATE_S = 15;           // a TV page stays this long
// The smallest letters on a wall card that must read from the bar (names, status, questions,
// «2 ФОЛА», ball in hand), in px at REF_HEIGHT: a card's font size, scaled with the screen's
// height (80 px at 4K, 27 at 720p, where a TV of the same size shows them as large). Tables
// that do not fit at it go onto pages that turn.
const MIN_LETTER_PX = 40;
const REF_HEIGHT = 1080;
const MAX_LETTER = 1.6;        // with few tables, letters grow to this many times the minimum
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
const SMALL_LETTER = 0.7;
// Why one QR code per wall, not one a card: a code a phone reads from a metre is 10.5 % of the
// screen's height (issue 30); twelve cards of 40 px letters leave no corner that size free of
// a name or a question. The wall's one code opens the venue's dashboard, where every table links
// its console: a phone picks its table there. One table full screen keeps its console's code.

// The wall's least letter height now, in px.
function minLetter() { return MIN_LETTER_PX * window.innerHeight / REF_HEIGHT; }

(async function main() {
  const config = await loadConfig();
  const params = new URLSearchParams(location.search);
  const only = params.get("table");
  const tv = only !== null || ["1", "true", "yes"].includes(params.get("tv"));
  translateStatic();
  document.getElementById("venue").textContent = config.venue;
  document.title = t("page.title.dashboard", { venue: config.venue });
  document.getElementById("tools").prepend(languagePicker());
  document.querySelector('#tools a[href="history.html"]').hidden = !config.history;
  document.body.classList.toggle("tv", tv);
  document.body.classList.toggle("single", only !== null);
  const tables = new Map();
  const root = `${config.prefix}/${config.venue}/`;
  for (const id of config.tables || []) tables.set(id, new TableModel(id));
  if (only) tables.set(only, tables.get(only) || new TableModel(only));

  const container = document.getElementById("tables");
  const cards = new Map();  // id -> the card element shown
  let connected = false;
  let page = 0;
  let pending = false;
  let shrink = 1;  // one table full screen: its letters' share of the largest, so all of it shows

  function shownIds() {
    const ids = [...tables.keys()].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
    return only ? ids.filter((id) => id === only) : ids;
  }
  // TV: the columns, rows and font size that show `n` cards largest; how many fit a page.
  function layout(n) {
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
  // long names, a long question. `grown`: id -> [what grew, steps]: a new match, or a question
  // asked or answered, starts over (a card a question grew is one card again once answered).
  const SPANS = [[1, 1], [1, 2], [2, 2]];  // columns, rows
  const grown = new Map();
  const grew = (s) => `${s.match_id}/${(s.questions || []).map((q) => q.id).join()}`;
  function step(id) {
    const s = tables.get(id).state, g = grown.get(id);
    const own = g && s && g[0] === grew(s) ? g[1] : 0;
    return Math.max(own, s && s.game && (s.players || []).length > 2 ? 1 : 0);
  }
  function span(id) { return only ? [1, 1] : SPANS[step(id)]; }
  function slots(id) { const [c, r] = span(id); return c * r; }
  function grow(id) {
    const s = tables.get(id).state, n = step(id);
    if (only || !s || n + 1 >= SPANS.length) return false;
    grown.set(id, [grew(s), n + 1]);
    return true;
  }
  // TV: the tables in pages of at most `perPage` cards' room, in order.
  function paginate(ids, perPage) {
    const pages = [[]];
    let used = 0;
    for (const id of ids) {
      const n = Math.min(slots(id), perPage);
      if (used + n > perPage && pages[pages.length - 1].length) { pages.push([]); used = 0; }
      pages[pages.length - 1].push(id);
      used += n;
    }
    return pages;
  }
  function render() {
    pending = false;
    let ids = shownIds();
    document.getElementById("empty").hidden = ids.length > 0;
    const pageNo = document.getElementById("page-no");
    if (tv) {
      const all = layout(ids.reduce((n, id) => n + slots(id), 0));
      const chunks = paginate(ids, all.perPage);
      const pages = chunks.length;
      page %= pages;
      ids = chunks[page];
      const room = ids.reduce((n, id) => n + slots(id), 0);
      let l = all.fit(room);
      const [wide, high] = ids.reduce(([w, h], id) => [Math.max(w, span(id)[0]), Math.max(h, span(id)[1])], [1, 1]);
      for (let more = room; (l.rows < high || l.cols < wide) && more < room + 8; more++) l = all.fit(more);  // room for a card that spans
      container.style.gridTemplateColumns = `repeat(${l.cols}, minmax(0, 1fr))`;
      container.style.gridTemplateRows = `repeat(${l.rows}, minmax(0, 1fr))`;
      const floor = minLetter();
      container.style.setProperty("--small", String(SMALL_LETTER));
      container.style.fontSize = `${Math.max(floor, Math.min(l.font, floor * (only ? 2.5 : MAX_LETTER)) * shrink).toFixed(1)}px`;
      pageNo.hidden = pages < 2;
      pageNo.textContent = t("page.page_of", { n: page + 1, of: pages });
    }
    const keep = new Set(ids);
    for (const [id, node] of cards) if (!keep.has(id)) { node.remove(); cards.delete(id); }
    ids.forEach((id, i) => {
      const fresh = renderTable(tables.get(id), {
        console: true, connected, racks: tv, qr: only !== null, clock: true, stats: true, events: only ? 8 : tv ? 1 : 5,
        compact: tv && !only,
      });
      const old = cards.get(id);
      const shown = old ? swap(old, fresh) : fresh;
      const [c, r] = span(id);
      shown.style.gridColumn = tv && c > 1 ? `span ${c}` : "";
      shown.style.gridRow = tv && r > 1 ? `span ${r}` : "";
      cards.set(id, shown);
      if (container.children[i] !== shown) container.insertBefore(shown, container.children[i] || null);
    });
    if (tv) {
      let regrow = false;
      for (const [id, card] of cards) {
        if (wholeOrNothing(card)) continue;
        if (grow(id)) regrow = true;
        // one table full screen: its letters shrink (to the least) until all of it shows
        else if (only && parseFloat(container.style.fontSize) > minLetter() + 0.5) { shrink *= 0.92; regrow = true; }
      }
      if (regrow) soon();
    }
  }
  // TV: what does not fit a card whole (a long question above it) is not shown cut in half.
  function wholeOrNothing(card) {
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
  function fitNames(card) {
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
  // TV: the wall's one QR code, in the top bar (see CARD_EM's note)
  if (tv && !only) {
    const code = qrCode(new URL("index.html", PUBLIC_URL || location.href).href);
    if (code) {
      document.querySelector(".top").append(el("figure", { class: "wall-qr", "data-field": "qr" },
        el("figcaption", {}, t("page.scan_wall")), code));
    }
  }
  function soon() { if (!pending) { pending = true; requestAnimationFrame(render); } }
  render();

  // the newest thing, once, for screen readers (not the whole wall again)
  const announce = document.getElementById("announce");
  function say(id, text) { announce.textContent = `${tableName(id)}: ${text}`; }

  const client = connect(config, config.dashboard, (text, ok) => {
    setConnection(text, ok);
    if (ok !== connected) { connected = ok; soon(); }
  });
  client.on("connect", () => client.subscribe(
    [root + "+/+", root + "+/request/answer", root + "+/response/answer"], { qos: 1 }));
  client.on("message", (topic, payload) => {
    const parts = topic.slice(root.length).split("/");
    if (parts.length < 2 || parts.length > 3) return;
    const id = parts[0];
    const kind = parts.slice(1).join("/");
    if (only && id !== only) return;
    const data = parseJson(payload);
    if (data === undefined) return;  // not JSON: not ours
    if (data === null) {  // a retained message cleared: a table taken out of service
      if (kind === "status" && tables.has(id) && !only) { tables.delete(id); soon(); }
      return;
    }
    if (!tables.has(id)) tables.set(id, new TableModel(id));
    const model = tables.get(id);
    const changed = model.take(kind, data);
    if (typeof changed === "string") say(id, changed);
    if (changed) soon();
    if (config.history && model.wantsHistory()) {  // a match begun before this page was opened
      fetch(`history/live/${encodeURIComponent(id)}.json`, { cache: "no-store" })
        .then((r) => (r.ok ? r.json() : null)).then((m) => { model.takeHistory(m); soon(); })
        .catch(() => { /* no history: the clock and racks start from what is seen */ });
    }
  });

  // TV: turn the pages, keep the clocks going, fit the screen again when it changes
  if (tv) {
    setInterval(() => { page += 1; soon(); }, ROTATE_S * 1000);
    document.addEventListener("keydown", (e) => {
      if (e.target.closest && e.target.closest("select, input")) return;
      if (e.key === "ArrowRight" || e.key === "PageDown") { page += 1; soon(); }
      else if (e.key === "ArrowLeft" || e.key === "PageUp") { page = Math.max(0, page - 1); soon(); }
      else if (e.key === "f" || e.key === "F") fullscreen();
    });
  }
  window.addEventListener("resize", soon);
  setInterval(soon, 1000);  // the match clocks
  document.getElementById("fullscreen").addEventListener("click", fullscreen);
  keepAwake();
  window.billiards = { client, tables, render };
})();

// Full screen (a TV), and the screen kept awake while the page is shown.
function fullscreen() {
  if (document.fullscreenElement) document.exitFullscreen();
  else if (document.documentElement.requestFullscreen) document.documentElement.requestFullscreen().catch(() => {});
}
// body[data-awake] says whether the screen is held awake.
async function keepAwake() {
  if (!("wakeLock" in navigator)) return;
  const take = async () => {
    try {
      const lock = await navigator.wakeLock.request("screen");
      document.body.dataset.awake = "yes";
      lock.addEventListener("release", () => { delete document.body.dataset.awake; });
    } catch (e) { /* refused: a TV's own setting then */ }
  };
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") take(); });
  await take();
}
