// The venue dashboard: every table of billiards/<venue>/+ — retained status, state and
// health make a fresh page complete at once; events arrive as they happen.
//   index.html               every table, scrolling (desktop, phone)
//   index.html?tv=1          the TV wall: a grid that fits the screen, pages that rotate
//                            when the tables do not fit legibly (←/→ turn them), one QR code
//                            of the venue's dashboard, match clocks, racks and live
//                            statistics; F = full screen
//   index.html?table=t1      one table, full screen
import { languagePicker, t, translateStatic } from "./i18n.js";
import { PUBLIC_URL, connect, el, loadConfig, parseJson, setConnection, swap, tableName } from "./common.js";
import { TableModel } from "./table-model.js";
import { qrCode, renderTable } from "./card.js";
import {
  MAX_LETTER, MIN_LETTER_PX, ROTATE_S, SMALL_LETTER, fitCard, layout, minLetter, paginate, wholeOrNothing,
} from "./wall.js";
import { wallCard } from "./wall-card.js";

export { MIN_LETTER_PX, SMALL_LETTER };  // the sizes the wall is held to, for the tests to read

// The page's one state object: the tables as the page knows them and what is shown of them.
const board = {
  config: null,
  only: null,         // ?table=: one table full screen
  tv: false,          // the TV wall (or one table full screen)
  tables: new Map(),  // id -> TableModel
  cards: new Map(),   // id -> the card element shown
  connected: false,
  page: 0,            // the TV page shown (turned on a rhythm)
  pending: false,     // a render asked for the next frame
  shrink: 1,          // one table full screen: its letters' share of the largest, so all of it shows
};

function shownIds() {
  const ids = [...board.tables.keys()].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  return board.only ? ids.filter((id) => id === board.only) : ids;
}
// TV: the grid of the page to show and its letters, fixed by the number of tables alone (and
// the screen); the page number. Returns the ids on the page shown.
function renderGrid(container, ids) {
  const all = layout(container, ids.length);
  const { pages, each } = board.only ? { pages: [ids], each: 1 } : paginate(ids, all.perPage);
  board.page %= pages.length;
  const l = all.fit(each);
  container.style.gridTemplateColumns = `repeat(${l.cols}, minmax(0, 1fr))`;
  container.style.gridTemplateRows = `repeat(${l.rows}, minmax(0, 1fr))`;
  const floor = minLetter();
  container.style.setProperty("--small", String(SMALL_LETTER));
  container.style.fontSize = `${Math.max(floor, Math.min(l.font, floor * (board.only ? 2.5 : MAX_LETTER)) * board.shrink).toFixed(1)}px`;
  const pageNo = document.getElementById("page-no");
  pageNo.hidden = pages.length < 2;
  pageNo.textContent = t("page.page_of", { n: board.page + 1, of: pages.length });
  return pages[board.page];
}
// One table's card as this page shows it: a wall card (wall-card.js) on the wall of many, else
// the dashboard's (card.js), which one table full screen shows large with its console's code.
function cardOf(id) {
  const { tv, only } = board;
  if (tv && !only) return wallCard(board.tables.get(id), board.connected);
  return renderTable(board.tables.get(id), {
    console: true, connected: board.connected, racks: tv, qr: only !== null, clock: true, stats: true, events: only ? 8 : 5,
  });
}
// The cards of `ids`, in order, each replaced only where it changed.
function renderCards(container, ids) {
  const { cards } = board;
  const keep = new Set(ids);
  for (const [id, node] of cards) if (!keep.has(id)) { node.remove(); cards.delete(id); }
  ids.forEach((id, i) => {
    const old = cards.get(id);
    const shown = old ? swap(old, cardOf(id)) : cardOf(id);
    cards.set(id, shown);
    if (container.children[i] !== shown) container.insertBefore(shown, container.children[i] || null);
  });
}
function render() {
  board.pending = false;
  const container = document.getElementById("tables");
  let ids = shownIds();
  document.getElementById("empty").hidden = ids.length > 0;
  if (board.tv) ids = renderGrid(container, ids);
  renderCards(container, ids);
  if (!board.tv) return;
  for (const card of board.cards.values()) {
    if (!board.only) { fitCard(card); continue; }
    // one table full screen: its letters shrink (to the least) until all of it shows
    if (!wholeOrNothing(card) && parseFloat(container.style.fontSize) > minLetter() + 0.5) { board.shrink *= 0.92; soon(); }
  }
}
function soon() { if (!board.pending) { board.pending = true; requestAnimationFrame(render); } }

// the newest thing, once, for screen readers (not the whole wall again)
function say(id, text) { document.getElementById("announce").textContent = `${tableName(id)}: ${text}`; }

// One MQTT message of billiards/<venue>/<table>/...: taken by its table's model.
function take(root, topic, payload) {
  const { only, tables, config } = board;
  const parts = topic.slice(root.length).split("/");
  if (parts.length < 2 || parts.length > 4) return;  // t1/referee/request/answer: 4
  const id = parts[0];
  const kind = parts.slice(1).join("/");
  if (only && id !== only) return;
  const data = parseJson(payload);
  if (data === undefined) return;  // not JSON: not ours
  if (data === null) {  // a retained message cleared: a table taken out of service, nothing next
    if (kind === "status" && tables.has(id) && !only) { tables.delete(id); soon(); }
    if (kind === "next" && tables.has(id)) { tables.get(id).take(kind, null); soon(); }
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
}

// TV: turn the pages (on the rhythm, and by ←/→ for a remote); F full screen.
function wireWall() {
  setInterval(() => { board.page += 1; soon(); }, ROTATE_S * 1000);
  document.addEventListener("keydown", (e) => {
    if (e.target.closest && e.target.closest("select, input")) return;
    if (e.key === "ArrowRight" || e.key === "PageDown") { board.page += 1; soon(); }
    else if (e.key === "ArrowLeft" || e.key === "PageUp") { board.page = Math.max(0, board.page - 1); soon(); }
    else if (e.key === "f" || e.key === "F") fullscreen();
  });
}

(async function main() {
  const config = await loadConfig();
  board.config = config;
  const params = new URLSearchParams(location.search);
  const only = params.get("table");
  board.only = only;
  board.tv = only !== null || ["1", "true", "yes"].includes(params.get("tv"));
  translateStatic();
  document.getElementById("venue").textContent = config.venue;
  document.title = t("page.title.dashboard", { venue: config.venue });
  document.getElementById("tools").prepend(languagePicker());
  document.querySelector('#tools a[href="history.html"]').hidden = !config.history;
  document.body.classList.toggle("tv", board.tv);
  document.body.classList.toggle("single", only !== null);
  const root = `${config.prefix}/${config.venue}/`;
  for (const id of config.tables || []) board.tables.set(id, new TableModel(id));
  if (only) board.tables.set(only, board.tables.get(only) || new TableModel(only));
  // TV: the wall's one QR code, in the top bar (see CARD_EM's note in wall.js)
  if (board.tv && !only) {
    const code = qrCode(new URL("index.html", PUBLIC_URL || location.href).href);
    if (code) {
      document.querySelector(".top").append(el("figure", { class: "wall-qr", "data-field": "qr" },
        el("figcaption", {}, t("page.scan_wall")), code));
    }
  }
  render();
  const client = connect(config, config.dashboard, (text, ok) => {
    setConnection(text, ok);
    if (ok !== board.connected) { board.connected = ok; soon(); }
  });
  client.on("connect", () => client.subscribe(
    [root + "+/+", root + "+/request/answer", root + "+/referee/request/answer", root + "+/response/answer"],
    { qos: 1 }));
  client.on("message", (topic, payload) => take(root, topic, payload));
  // TV: turn the pages, keep the clocks going, fit the screen again when it changes
  if (board.tv) wireWall();
  window.addEventListener("resize", soon);
  setInterval(soon, 1000);  // the match clocks
  document.getElementById("fullscreen").addEventListener("click", fullscreen);
  keepAwake();
  window.billiards = { client, tables: board.tables, render, board };
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

