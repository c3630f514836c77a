// The venue's waiting list at the console (retained on <prefix>/<venue>/waiting by the venue
// record): who waits for a pool or a pyramid table, in order, and the table each was
// offered. A player or a pair is put on it («Записать») and taken off («Убрать») by requests
// the recorder answers on <prefix>/<venue>/waiting/response/<name>; a name typed is the
// venue's roster entry of that name (the recorder's rule, as for a match).
import { t, tOr } from "./i18n.js";
import { el, tableName } from "./common.js";
import { gameRecord } from "./games.js";
import { page, state } from "./console-state.js";

const KINDS = ["pool", "russian"];
const asked = new Set();  // this console's transactions not answered yet
let counter = 0;
const session = Array.from(crypto.getRandomValues(new Uint8Array(8)),
  (b) => b.toString(16).padStart(2, "0")).join("");
let lists = {};

export function waitingTopic() { return `${page.config.prefix}/${page.config.venue}/waiting`; }
// Takes a message of the list's topics; returns whether it was one.
export function takeWaiting(topic, data) {
  if (topic === waitingTopic()) { lists = (data && data.lists) || {}; renderWaiting(); return true; }
  if (!topic.startsWith(`${waitingTopic()}/response/`)) return false;
  if (data && asked.delete(data.transaction)) {
    say(data.status === "ok" ? t("wl.done") : tOr("wl.error", data.error), data.status === "ok" ? "ok" : "error");
  }
  return true;
}
function say(text, kind) {
  const line = document.getElementById("waiting-said");
  line.textContent = text;
  line.dataset.state = kind;
}
function ask(name, payload) {
  if (!page.client || !page.client.connected) { say(t("wl.not_connected"), "error"); return; }
  const transaction = `web-${session}-w${++counter}`;
  asked.add(transaction);
  page.client.publish(`${waitingTopic()}/request/${name}`, JSON.stringify({ ...payload, transaction }), { qos: 1 });
  say(t("wl.sent"), "sent");
}
function entryLine(entry) {
  return el("li", { "data-entry": entry.entry },
    el("span", { class: "name" }, entry.players.map((p) => p.name).join(" — ")),
    entry.offered_to ? el("small", {}, ` ${t("wl.offered", { table: tableName(entry.offered_to) })}`) : null, " ",
    el("button", { type: "button", class: "quiet", "data-leave": entry.entry, onclick: () => ask("leave", { entry: entry.entry }) },
      t("wl.leave")));
}
export function renderWaiting() {
  document.getElementById("waiting-lists").replaceChildren(...KINDS.map((kind) => {
    const entries = lists[kind] || [];
    return el("div", { class: "waiting-list", "data-kind": kind }, el("h3", {}, t(`wl.kind.${kind}`)),
      entries.length ? el("ol", {}, entries.map(entryLine)) : el("p", { class: "idle" }, t("wl.empty")));
  }));
}
// The form: the kind of the game on the table (else of the game its new-match form has) first
// (ivory balls: a Russian billiards table), until the referee picks one.
export function wireWaiting() {
  const form = document.getElementById("waiting-join");
  form.addEventListener("focusin", () => {
    const record = gameRecord(state().game || document.getElementById("game").value);
    if (record && !form.dataset.touched) form.kind.value = record.ball_style === "ivory" ? "russian" : "pool";
  });
  form.kind.addEventListener("change", () => { form.dataset.touched = "1"; });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const players = [form.first.value, form.second.value].map((n) => n.trim()).filter(Boolean)
      .map((name) => ({ id: null, name }));
    if (!players.length) return;
    ask("join", { kind: form.kind.value, players });
    form.first.value = "";
    form.second.value = "";
  });
  renderWaiting();
}
