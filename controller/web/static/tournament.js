// A tournament's bracket on the TV wall (and a tablet): tournament.html?id=ID[&venue=club],
// from the venue record (record/tournament/<venue>~<id>.json), drawn by brackets-viewer
// (vendored through web/'s build: globalThis.bracketsViewer). Names at least 40 px at 1080p:
// a bracket bigger than the screen is shown a screen at a time, turning every 15 s (← → too);
// the next match of every table and the winner are said above it. Read again every 10 s.
import { t, translateStatic } from "./i18n.js";
import { loadConfig, tableName } from "./common.js";
import { roundName, viewerData, viewerLocale } from "./bracket-model.js";

const TURN_MS = 15000;
const READ_MS = 10000;
const view = { bracket: null, page: 0, pages: 1, error: null };

async function read(config, id) {
  const r = await fetch(`record/tournament/${encodeURIComponent(config.venue)}~${encodeURIComponent(id)}.json`, { cache: "no-store" });
  if (r.status === 404) throw new Error(t("tour.none"));
  if (!r.ok) throw new Error(t("tour.no_record"));
  return r.json();
}

// «Стол 3: Вера — Глеб» for every table with a match (on it: waiting to start or in play, never
// called "next" when it may be played already; the table named as the pages name it: tableName);
// the winner once over.
function statusLine(bracket) {
  const name = (p) => bracket.names[p] || p;
  if (bracket.champion) return t("tour.champion", { name: name(bracket.champion) });
  return bracket.matches.filter((m) => m.table && m.status === "ready")
    .map((m) => t("tour.next", { table: tableName(m.table), a: name(m.players[0]), b: name(m.players[1]) })).join(" · ");
}

// The pages of a bracket wider or taller than the screen: a screen each, left to right, then down.
function turn(box) {
  const across = Math.max(1, Math.ceil(box.scrollWidth / box.clientWidth));
  const down = Math.max(1, Math.ceil(box.scrollHeight / box.clientHeight));
  view.pages = across * down;
  view.page %= view.pages;
  box.scrollTo({ left: (view.page % across) * box.clientWidth, top: Math.floor(view.page / across) * box.clientHeight });
  box.dataset.page = String(view.page + 1);
  box.dataset.pages = String(view.pages);
}

// The width an A4 landscape sheet prints inside its 8 mm margins (tournament.css's @page), in
// CSS px: the bracket is zoomed down to it, never up.
const PRINT_WIDTH_PX = Math.floor((297 - 16) / 25.4 * 96);

function fitForPrint(box) {
  box.style.zoom = "";
  box.scrollTo({ left: 0, top: 0 });
  const left = box.getBoundingClientRect().left;
  const matches = [...box.querySelectorAll(".match")].map((m) => m.getBoundingClientRect().right);
  const wide = Math.max(1, ...matches) - left;  // the bracket's own width, however it scrolls
  box.style.zoom = String(Math.min(1, PRINT_WIDTH_PX / wide));
  box.dataset.printZoom = box.style.zoom;
}

async function render(box) {
  const line = document.getElementById("status");
  if (view.error) { line.textContent = view.error; return; }
  await globalThis.bracketsViewer.render(viewerData(view.bracket), {
    selector: "#bracket", clear: true, customRoundName: roundName, showSlotsOrigin: false,
    highlightParticipantOnHover: false, separatedChildCountLabel: false });
  const page = view.pages > 1 ? ` (${t("tour.page", { n: view.page + 1, of: view.pages })})` : "";
  line.textContent = statusLine(view.bracket) + page;
  turn(box);
}

(async function main() {
  const config = await loadConfig();  // the page's language too
  translateStatic();
  // brackets-viewer's words in the page's language: it takes the language its i18next
  // detector finds (localStorage's i18nextLng before the browser's), not the one it is given
  try { localStorage.setItem("i18nextLng", document.documentElement.lang); } catch (e) { /* storage off */ }
  await globalThis.bracketsViewer.addLocale(document.documentElement.lang, viewerLocale());
  const id = new URLSearchParams(location.search).get("id") || "";
  const box = document.getElementById("bracket");
  const refresh = async () => {
    try { view.bracket = await read(config, id); view.error = null; } catch (e) { view.error = e.message; }
    await render(box);
    document.getElementById("name").textContent = config.venue;
    document.body.dataset.ready = "1";
  };
  await refresh();
  // printed: the whole bracket, scaled to the sheet's width; the screen's turning set aside
  addEventListener("beforeprint", () => { fitForPrint(box); });
  addEventListener("afterprint", () => { box.style.zoom = ""; turn(box); });
  if (new URLSearchParams(location.search).has("print")) {  // the director's «Печать сетки»
    fitForPrint(box);
    print();
    return;
  }
  setInterval(refresh, READ_MS);
  setInterval(() => { view.page += 1; turn(box); }, TURN_MS);
  addEventListener("keydown", (e) => {
    if (e.key === "ArrowRight" || e.key === "PageDown") view.page += 1;
    else if (e.key === "ArrowLeft" || e.key === "PageUp") view.page = (view.page + view.pages - 1) % view.pages;
    else return;
    turn(box);
  });
})();
