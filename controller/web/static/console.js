// The referee console of one table (console.html?table=t1): loads the configuration, logs in,
// connects, and renders every part from the one state object (console-state.js) as messages
// come. The parts are modules: the drawing (console-pool.js), the ruling and its fixes
// (console-ruling.js), questions (console-questions.js), fouls and declarations
// (console-declare.js), the new-match form (console-new-match.js), requests and their fate
// (console-requests.js), the keyboard (console-keyboard.js).
import { languagePicker, t, translateStatic } from "./i18n.js";
import { connect, el, loadConfig, parseJson, setConnection, swap, tableName } from "./common.js";
import { renderTable } from "./card.js";
import { inMatch, page } from "./console-state.js";
import { answered, askCancelsAgain, renderEnabled, send } from "./console-requests.js";
import { renderQuestions } from "./console-questions.js";
import { clearTaps, renderPool } from "./console-pool.js";
import { closeFix, corrected, renderFixSheet, renderPresumed, renderVerdict, takeRuling } from "./console-ruling.js";
import { renderDeclareBalls, renderFoulSheet, renderOffenders, wireDeclare } from "./console-declare.js";
import { wireKeyboard } from "./console-keyboard.js";
import { rosterTopic, takeRoster, wireNewMatch } from "./console-new-match.js";
import { renderNext, wireNext } from "./console-next.js";
import { takeWaiting, waitingTopic, wireWaiting } from "./console-waiting.js";

// What the table itself publishes under B with a seq (docs/interfaces.md §3), besides its
// B/response/<name>: B/session and B/next are the recorder's.
const TABLE_TOPICS = ["status", "state", "event", "display", "health"];

// Draws every part of the console from the state object.
export function render() {
  const card = document.getElementById("card");
  const fresh = el("div", { id: "card" }, renderTable(page.table, { connected: !!(page.client && page.client.connected), clock: true, racks: true, staff: true, title: tableName(page.tableId) }));
  swap(card, fresh);
  document.getElementById("panels").classList.toggle("no-match", !inMatch());
  renderQuestions();
  renderPresumed();
  renderVerdict();
  renderFoulSheet();
  renderFixSheet();
  renderPool();
  renderDeclareBalls();
  renderOffenders();
  renderNext();
  renderEnabled();
}
// Connects with the referee's credentials (null: an open broker) and takes the table's messages.
function start(credentials) {
  document.getElementById("login").hidden = true;
  document.getElementById("panels").hidden = false;
  if (page.client) page.client.end(true);
  page.client = connect(page.config, credentials, (text, ok, error) => {
    setConnection(text, ok);
    render();
    if (!ok && error && /auth|password|identifier|not authori[sz]ed|bad user/i.test(String(error.message || error))) {
      page.client.end(true);
      sessionStorage.removeItem("referee");
      askLogin(t("c.refused", { why: text }));
    }
  });
  page.client.on("connect", () => {
    page.client.subscribe([`${page.base}/+`, `${page.base}/response/+`, `${page.base}/referee/response/+`,
      rosterTopic(), waitingTopic(), `${waitingTopic()}/response/+`], { qos: 1 });
    askCancelsAgain();
  });
  page.client.on("message", (topic, payload) => {
    const rest = topic.slice(page.base.length + 1);
    const data = parseJson(payload);
    if (rest === "next" && data !== undefined) { page.table.take("next", data); render(); return; }  // empty: nothing next
    if (!data) return;
    // the seq of the last message of the table's own session (not its lane's copies, nor the
    // recorder's B/session and B/next): in order, so what the table published before an
    // answer shown is drawn once this reaches the answer's seq (#result's data-seq; the
    // lane's copy of an answer can overtake the state it follows)
    if ((TABLE_TOPICS.includes(rest) || rest.startsWith("response/")) && topic === `${page.base}/${rest}`
        && Number.isInteger(data.seq)) document.body.dataset.heard = String(data.seq);
    if (topic === rosterTopic()) { takeRoster(data); return; }
    if (takeWaiting(topic, data)) return;
    if (rest.startsWith("response/")) { answered(rest.slice(9), data, carriedOut); return; }
    if (rest.startsWith("referee/response/")) { answered(rest.slice(17), data, carriedOut); return; }
    if (rest === "event") takeRuling(data);
    if (page.table.take(rest, data)) render();
    if (page.config.history && page.table.wantsHistory()) {  // a match begun before the console was opened
      fetch(`history/live/${encodeURIComponent(page.tableId)}.json`, { cache: "no-store" })
        .then((r) => (r.ok ? r.json() : null)).then((m) => { page.table.takeHistory(m); render(); })
        .catch(() => { /* no history: the clock and racks start from what is seen */ });
    }
  });
  window.billiards = { client: page.client, table: page.table, send, page };
  render();
}
// A request the table carried out: the taps it sent are cleared, a correction no longer offered.
function carriedOut(name, fixed) {
  if (fixed) corrected(fixed);
  if (name === "call" || name === "declare") clearTaps(name);
  if (name === "declare" && page.fixShot !== null) closeFix();
}
function askLogin(message) {
  document.getElementById("panels").hidden = true;
  const form = document.getElementById("login");
  form.hidden = false;
  document.getElementById("login-error").textContent = message || "";
}
(async function main() {
  const config = await loadConfig();
  translateStatic();
  document.getElementById("tools").prepend(languagePicker());
  document.getElementById("table-id").textContent = config.venue;
  document.getElementById("table-name").textContent = tableName(page.tableId);
  document.title = t("page.title.console", { table: page.tableId });
  page.config = config;
  page.base = `${config.prefix}/${config.venue}/${page.tableId}`;
  page.result = document.getElementById("result");
  page.log = document.getElementById("log");
  page.ruling = document.getElementById("ruling");
  wireDeclare();
  wireKeyboard();
  wireNewMatch();
  wireNext();
  wireWaiting();
  document.getElementById("login").addEventListener("submit", (e) => {
    e.preventDefault();
    const f = e.target;
    const credentials = { username: f.username.value, password: f.password.value };
    sessionStorage.setItem("referee", JSON.stringify(credentials));
    start(credentials);
  });
  setInterval(() => { if (page.table.matchSeconds() !== null) render(); }, 1000);  // the match clock
  const saved = sessionStorage.getItem("referee");
  if (page.config.referee) start(page.config.referee);
  else if (saved) start(JSON.parse(saved));
  else if (page.config.dashboard === null || page.config.dashboard === undefined) start(null);  // an open broker
  else askLogin();
})();
