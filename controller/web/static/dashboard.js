// The venue dashboard: every table of billiards/<venue>/+ — retained status, state and
// health make a fresh page complete at once; events arrive as they happen.
//   index.html               every table, scrolling (desktop, phone)
//   index.html?tv=1          the TV wall: a grid that fits the screen, pages that rotate
//                            when the tables do not fit legibly (←/→ turn them), QR codes of
//                            the consoles, match clocks and racks; F = full screen
//   index.html?table=t1      one table, full screen
"use strict";

const ROTATE_S = 15;           // a TV page stays this long
const MIN_FONT_PX = 15;        // below this a card is not legible across the room: paginate
const CARD_EM = [22, 15];      // a TV card's size in em (width, height)
const NAME_FLOOR = 0.6;        // a long name's letters shrink to this share of the others', no further

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

  function shownIds() {
    const ids = [...tables.keys()].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
    return only ? ids.filter((id) => id === only) : ids;
  }
  // TV: the columns, rows and font size that show `n` cards largest; how many fit a page.
  function layout(n) {
    const top = document.querySelector(".top").getBoundingClientRect().height;
    const width = window.innerWidth, height = window.innerHeight - top;
    const gap = 12;
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
    while (perPage > 1 && fit(perPage).font < MIN_FONT_PX) perPage--;
    return { ...fit(Math.min(perPage, Math.max(n, 1))), perPage };
  }
  function render() {
    pending = false;
    let ids = shownIds();
    document.getElementById("empty").hidden = ids.length > 0;
    const pageNo = document.getElementById("page-no");
    if (tv) {
      const l = layout(ids.length);
      const pages = Math.max(1, Math.ceil(ids.length / l.perPage));
      page %= pages;
      ids = ids.slice(page * l.perPage, (page + 1) * l.perPage);
      container.style.gridTemplateColumns = `repeat(${l.cols}, minmax(0, 1fr))`;
      container.style.gridTemplateRows = `repeat(${l.rows}, minmax(0, 1fr))`;
      container.style.fontSize = `${Math.min(l.font, only ? 64 : 40).toFixed(1)}px`;
      pageNo.hidden = pages < 2;
      pageNo.textContent = t("page.page_of", { n: page + 1, of: pages });
    }
    const keep = new Set(ids);
    for (const [id, node] of cards) if (!keep.has(id)) { node.remove(); cards.delete(id); }
    ids.forEach((id, i) => {
      const fresh = renderTable(tables.get(id), {
        console: true, connected, racks: tv, qr: tv, clock: true, events: only ? 8 : tv ? 2 : 5,
      });
      const old = cards.get(id);
      const shown = old ? swap(old, fresh) : fresh;
      cards.set(id, shown);
      if (container.children[i] !== shown) container.insertBefore(shown, container.children[i] || null);
    });
    if (tv) for (const card of cards.values()) wholeOrNothing(card);
  }
  // TV: what does not fit a card whole (a long question above it) is not shown cut in half.
  function wholeOrNothing(card) {
    const body = card.querySelector(":scope > .body");
    if (!body) return;
    const bottom = body.getBoundingClientRect().bottom;
    // a QR code (its corner, its phone-readable size) never covers a player: where two-line
    // names leave no room under them, that card goes without
    const qr = card.querySelector(":scope > .qr"), players = body.querySelector(".players");
    if (qr) {
      qr.hidden = false;
      if (players && players.getBoundingClientRect().bottom > qr.getBoundingClientRect().top) qr.hidden = true;
    }
    fitNames(card);
    for (const item of body.children) item.style.visibility = item.getBoundingClientRect().bottom > bottom + 0.5 ? "hidden" : "";
  }
  // TV: a long name is never cut («…») nor broken inside a word: its letters shrink, down to
  // NAME_FLOOR of the card's, until its words fit their line and the name its two lines (three
  // where two cannot hold it).
  function fitNames(card) {
    for (const name of card.querySelectorAll(".player .name")) {
      name.style.fontSize = name.style.webkitLineClamp = "";
      const full = parseFloat(getComputedStyle(name).fontSize);
      const cut = () => name.scrollWidth > name.clientWidth + 0.5 || name.scrollHeight > name.clientHeight + 0.5;
      for (const lines of ["", "3"]) {
        name.style.webkitLineClamp = lines;
        name.style.fontSize = "";
        for (let k = 0.95; cut() && k >= NAME_FLOOR - 0.001; k -= 0.05) name.style.fontSize = `${full * k}px`;
        if (!cut()) break;
      }
    }
  }
  function soon() { if (!pending) { pending = true; requestAnimationFrame(render); } }
  render();

  // the newest thing, once, for screen readers (not the whole wall again)
  const announce = document.getElementById("announce");
  function say(id, text) { announce.textContent = `${id.toUpperCase()}: ${text}`; }

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
