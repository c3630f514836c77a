// The tournament director's tablet: director.html?id=ID. The matches to play (put one on a
// table or move it, take it off, a player who did not come: a walkover), the fill of the free
// tables, the matches played (correct who won, and the score), the CSV export and the bracket.
// Each action is one POST to the venue record (controller/record/director.py); what it
// changed further on is said («Изменились следующие матчи: W2-1, W3-1»). Results are the
// tables' own: nothing is typed here but a walkover or a correction.
import { t, translateStatic } from "./i18n.js";
import { el, loadConfig } from "./common.js";

// typed: what the director has typed and not yet sent, by field ("score:W1-1"), kept when a
// reply redraws the rows (an answer to one row must not wipe what is half-typed in another)
const desk = { config: null, id: "", bracket: null, said: "", typed: {} };

const target = () => `record/tournament/${encodeURIComponent(desk.config.venue)}~${encodeURIComponent(desk.id)}`;
const name = (p) => (desk.bracket.names[p] || p);

// A field that keeps what is typed in it until it is sent: key names it in desk.typed.
function field(key, value, attrs) {
  const typed = desk.typed[key];
  return el("input", { type: "text", value: typed !== undefined ? typed : value, ...attrs,
    oninput: (e) => { desk.typed[key] = e.target.value; } });
}

function say(words) {
  desk.said = words;
  document.getElementById("said").textContent = words;
}

// sent: the fields this action carries, forgotten once the record has taken it
async function send(action, sent = []) {
  say(t("dir.sending"));  // not known yet: neither «Готово» nor «Не сделано»
  let r, text;
  try {
    r = await fetch(target(), { method: "POST", body: JSON.stringify(action), headers: { "Content-Type": "application/json" } });
    text = await r.text();
  } catch (e) {  // no answer: the record may or may not have done it
    say(t("dir.unknown"));
    return;
  }
  if (!r.ok) {
    let kind = "other";
    try { kind = JSON.parse(text).refused || kind; } catch (e) { /* a 400's text */ }
    desk.said = t("dir.refused", { why: t(`dir.why.${kind}`) });
    render();
    return;
  }
  const answer = JSON.parse(text);
  for (const key of sent) delete desk.typed[key];
  desk.bracket = answer.bracket;
  desk.said = answer.changed.length ? t("dir.changed", { matches: answer.changed.join(", ") }) : t("dir.unchanged");
  render();
}

function readyRow(m) {
  const [a, b] = m.players;
  const table = field(`table:${m.id}`, m.table || "", { size: "4", "aria-label": t("dir.table"), "data-table": m.id });
  const handicap = m.handicap ? t("dir.handicap_is", { name: name(m.handicap.receiver), frames: m.handicap.frames }) : "—";
  return el("tr", { "data-match": m.id },
    el("td", {}, m.id), el("td", {}, `${name(a)} — ${name(b)}`), el("td", {}, String(m.race)), el("td", {}, handicap),
    el("td", {}, table, " ",
      el("button", { type: "button", onclick: () => send({ action: "assign", match: m.id, table: table.value.trim() }, [`table:${m.id}`]) }, t("dir.assign")),
      m.table ? el("button", { type: "button", onclick: () => send({ action: "unassign", match: m.id }) }, t("dir.unassign")) : null),
    el("td", {}, [a, b].map((p, i) => el("button", { type: "button", "data-walkover": p,
      onclick: () => send({ action: "walkover", match: m.id, winner: [a, b][1 - i] }) }, t("dir.walkover", { name: name(p) })))));
}

function playedRow(m) {
  const [a, b] = m.players;
  const other = m.winner === a ? b : a;
  const score = field(`score:${m.id}`, "", { size: "5", placeholder: "5:3", "aria-label": t("dir.score"), "data-score": m.id });
  const correct = () => {
    const parts = score.value.split(":").map((x) => Number(x.trim()));
    const given = parts.length === 2 && parts.every(Number.isInteger) ? parts : null;
    send({ action: "correct", match: m.id, winner: other, score: given }, [`score:${m.id}`]);
  };
  // the winner's frames first: «Зиновий 5:3» (the record keeps them in the players' order)
  const frames = m.score ? (m.winner === a ? m.score : [...m.score].reverse()) : null;
  const result = `${name(m.winner)}${frames ? ` ${frames.join(":")}` : ""}${m.walkover ? ` (${t("dir.walkover_mark")})` : ""}`;
  return el("tr", { "data-match": m.id },
    el("td", {}, m.id), el("td", {}, `${name(a)} — ${name(b)}`), el("td", {}, result),
    el("td", {}, score, " ", el("button", { type: "button", "data-correct": m.id, onclick: correct }, t("dir.correct", { name: name(other) }))));
}

// A table of rows under the heads' words; each cell also carries its head (data-label), which a
// phone shows before it when the rows stack (tournament.css).
function table(head, rows) {
  for (const row of rows) [...row.children].forEach((cell, i) => { if (head[i]) cell.dataset.label = t(head[i]); });
  return el("table", {}, el("thead", {}, el("tr", {}, head.map((h) => el("th", {}, h ? t(h) : "")))), el("tbody", {}, rows));
}

function render() {
  document.getElementById("said").textContent = desk.said;
  const box = document.getElementById("director");
  const matches = desk.bracket.matches;
  // the venue's tables as its pages' configuration names them (none known: left to type)
  const free = field("free", (desk.config.tables || []).join(", "), { size: "12", "aria-label": t("dir.free"), id: "free" });
  box.replaceChildren(
    el("h2", {}, t("dir.ready")),
    table(["dir.match", "dir.players", "dir.race", "dir.handicap", "dir.table", ""],
          matches.filter((m) => m.status === "ready").map(readyRow)),
    el("p", {}, el("label", {}, t("dir.free"), " ", free), " ",
       el("button", { type: "button", onclick: () => send({ action: "fill", tables: free.value.split(",").map((x) => x.trim()).filter(Boolean) }, ["free"]) }, t("dir.fill"))),
    el("h2", {}, t("dir.played")),
    table(["dir.match", "dir.players", "dir.result", ""],
          matches.filter((m) => m.status === "played").map(playedRow)),
    el("p", {}, el("a", { href: `${target()}.csv`, download: "tournament.csv" }, t("dir.csv")), " · ",
       el("a", { href: `tournament.html?id=${encodeURIComponent(desk.id)}` }, t("dir.bracket")), " · ",
       el("a", { href: `tournament.html?id=${encodeURIComponent(desk.id)}&print=1`, target: "_blank" },
          t("dir.print"))));
}

(async function main() {
  desk.config = await loadConfig();  // the page's language too
  translateStatic();
  document.getElementById("venue").textContent = desk.config.venue;
  desk.id = new URLSearchParams(location.search).get("id") || "";
  const r = await fetch(`${target()}.json`, { cache: "no-store" });
  if (!r.ok) { document.getElementById("said").textContent = t(r.status === 404 ? "tour.none" : "tour.no_record"); return; }
  desk.bracket = await r.json();
  render();
  document.body.dataset.ready = "1";
})();
