// The new-match form: the game, its players (picked from the venue's roster or typed), race,
// breaker and options in words; the table's last settings remembered on this browser.
import { LANG, STRINGS, t, tOr } from "./i18n.js";
import { el, tableName } from "./common.js";
import { defaultGame, gameName, gameRecord, games } from "./games.js";
import { inMatch, page } from "./console-state.js";
import { send } from "./console-requests.js";

const gameSelect = () => document.getElementById("game");
export function playerLabel(i) {
  const input = document.querySelector(`#players [data-player-name="${i}"]`);
  const name = input ? input.value.trim() : "";
  return name || tOr("optchoice.handicap_giver", i);
}
export function renderBreaker() {
  for (const option of document.querySelectorAll('#options [data-option="handicap_giver"] option')) {
    option.textContent = playerLabel(JSON.parse(option.value));
  }
  const breaker = document.getElementById("breaker");
  const was = breaker.value;
  const names = [...document.querySelectorAll("#players input[data-player-name]")].map((i) => i.value.trim());
  breaker.replaceChildren(...names.map((name, i) => el("option", { value: i }, name || t("c.player", { n: i + 1 }))));
  if (was && Number(was) < names.length) breaker.value = was;
}
export function renderNewMatch() {
  const game = gameSelect().value;
  const spec = gameRecord(game) || { players: [2, 2], options: [] };
  const box = document.getElementById("players");
  const names = [...box.querySelectorAll("input[data-player-name]")].map((i) => i.value);
  const ids = [...box.querySelectorAll("input[data-player-name]")].map((i) => i.dataset.playerId || "");
  box.replaceChildren(...Array.from({ length: spec.players[1] }, (_, i) => el("div", { class: "player-pick" },
    el("label", {},
      `${t("c.player", { n: i + 1 })}${i >= spec.players[0] ? " " + t("c.optional") : ""} `,
      el("input", { type: "text", name: `player${i}`, "data-player-name": i, value: names[i] || "", required: i < spec.players[0],
        autocomplete: "off", list: page.roster.length ? null : "recent-names", oninput: (e) => typedName(e.target) })),
    el("div", { class: "roster-picks", "data-roster-for": i, role: "group", "aria-label": t("c.roster") }))));
  ids.forEach((id, i) => { if (id) pickedFor(i, id); });
  renderBreaker();
  document.getElementById("recent-names").replaceChildren(...recentNames().map((n) => el("option", { value: n })));
  document.getElementById("options").replaceChildren(...spec.options.map((o) => {
    let input;
    if (typeof o.default === "boolean") input = el("input", { type: "checkbox", checked: o.default });
    else if (o.choices.length) {
      input = el("select", {}, o.choices.map((c) => el("option", { value: JSON.stringify(c), selected: c === o.default }, choiceLabel(o, c))));
    } else if (Array.isArray(o.default)) input = el("input", { type: "text", placeholder: "0, 15", value: o.default.join(", ") });
    else input = el("input", { type: "text", value: String(o.default) });
    input.dataset.option = o.key;
    // the option's name in the page's language, what it does behind «подробнее», in words
    const [doc, docLang] = optionDoc(game, o);
    return el("div", { class: "option" }, el("label", {}, input, ` ${tOr("opt", o.key)}`),
      el("details", { class: "more" }, el("summary", {}, t("c.details")),
        el("small", { "data-option-doc": o.key, lang: docLang }, inWords(doc, o, docLang))));
  }));
}
// The venue's players (the recorder's roster, retained on <prefix>/<venue>/roster), the most
// recently seen first: picking one sends its id with the name, so that one player's matches
// on every table are one record. A name typed that is an entry's (case, «ё» and spaces aside)
// is that entry for the recorder, unless the referee ticks «новый игрок» (id "new").
export function seenText(entry) {
  const date = entry.last ? new Date(entry.last * 1000).toLocaleDateString(LANG, { day: "numeric", month: "short" }) : "";
  const seen = t("c.roster_seen", { table: tableName(entry.table), date, n: entry.matches });
  const against = Array.isArray(entry.against) ? entry.against.join(", ") : "";
  return against ? `${seen} · ${t("c.roster_against", { names: against })}` : seen;
}
export function sameName(name) {
  return String(name).toLocaleLowerCase().replace(/ё/g, "е").split(/\s+/).filter(Boolean).join(" ");
}
export function typedName(input) {
  delete input.dataset.playerId;  // typed: no longer the entry picked
  delete input.dataset.newPlayer;
  renderPicks(Number(input.dataset.playerName));
  renderBreaker();
}
export function renderPicks(i) {
  const input = document.querySelector(`#players [data-player-name="${i}"]`);
  const box = document.querySelector(`#players [data-roster-for="${i}"]`);
  if (!input || !box) return;
  const typed = input.value.trim().toLocaleLowerCase();
  if (input.dataset.playerId || !typed) { box.replaceChildren(); return; }
  // the name, or any word of it (a surname), begins with what is typed
  const found = page.roster.filter((p) => String(p.name).toLocaleLowerCase().split(/\s+/)
    .some((w, i, words) => words.slice(i).join(" ").startsWith(typed))).slice(0, 6);
  box.replaceChildren(...found.map((p) => el("button", { type: "button", class: "roster-pick", "data-player-id": p.id,
    onclick: () => { input.value = p.name; pickedFor(i, p.id); renderBreaker(); } },
  el("span", { class: "name" }, p.name), el("small", {}, seenText(p)))));
  // the name as an entry has it: the recorder takes it as that entry (the one seen last)
  const same = page.roster.find((p) => sameName(p.name) === sameName(typed));
  if (same) box.append(el("div", { class: "roster-same" }, el("small", { "data-same-as": same.id }, input.dataset.newPlayer
    ? t("c.roster_new") : t("c.roster_same", { seen: seenText(same) })), el("label", {},
    el("input", { type: "checkbox", "data-new-player": i, checked: !!input.dataset.newPlayer, onchange: (e) => {
      if (e.target.checked) input.dataset.newPlayer = "1"; else delete input.dataset.newPlayer;
      renderPicks(i);
    } }), ` ${t("c.new_player")}`)));
}
export function pickedFor(i, id) {
  const input = document.querySelector(`#players [data-player-name="${i}"]`);
  const box = document.querySelector(`#players [data-roster-for="${i}"]`);
  if (!input || !box) return;
  input.dataset.playerId = id;
  const entry = page.roster.find((p) => p.id === id);
  box.replaceChildren(el("small", { class: "roster-picked", "data-picked": id },
    t("c.roster_picked", { seen: entry ? seenText(entry) : "" })));
}
export function takeRoster(data) {
  page.roster = Array.isArray(data.players) ? data.players.filter((p) => p && p.id && p.name) : [];
  document.querySelectorAll("#players input[data-player-name]").forEach((input, i) => {
    // the club's list replaces this browser's own names
    if (page.roster.length) input.removeAttribute("list"); else input.setAttribute("list", "recent-names");
    if (input.dataset.playerId) pickedFor(i, input.dataset.playerId); else renderPicks(i);
  });
}
// Names typed in earlier matches on this browser, the newest first.
export function recentNames() {
  try { return JSON.parse(localStorage.getItem("billiards.recent_names") || "[]"); } catch (e) { return []; }
}
export function remember(payload) {
  try {
    const names = [...payload.players, ...recentNames().filter((n) => !payload.players.includes(n))].slice(0, 30);
    localStorage.setItem("billiards.recent_names", JSON.stringify(names));
    localStorage.setItem(`billiards.new_match.${page.config.venue}.${page.tableId}`, JSON.stringify(payload));
  } catch (e) { /* storage off: nothing remembered */ }
}
// The last settings this table started a match with, on this browser.
export function restore() {
  let last = null;
  try { last = JSON.parse(localStorage.getItem(`billiards.new_match.${page.config.venue}.${page.tableId}`) || "null"); } catch (e) { /* none */ }
  if (!last || !gameRecord(last.game)) return;
  gameSelect().value = last.game;
  renderNewMatch();
  (last.players || []).forEach((name, i) => {
    const input = document.querySelector(`#players [data-player-name="${i}"]`);
    if (input) input.value = name;
    const id = (last.player_ids || [])[i];
    if (input && id) pickedFor(i, id);
  });
  document.getElementById("race-to").value = last.race_to || 1;
  renderBreaker();
  document.getElementById("breaker").value = String(last.breaker || 0);
  for (const [key, value] of Object.entries(last.options || {})) {
    const input = document.querySelector(`#options [data-option="${CSS.escape(key)}"]`);
    if (!input) continue;
    if (input.type === "checkbox") input.checked = !!value;
    else if (input.tagName === "SELECT") input.value = JSON.stringify(value);
    else input.value = Array.isArray(value) ? value.join(", ") : String(value);
  }
}
// What an option does, in the page's language: lang/<code>.json's optdoc.<game>.<key> (where
// the games' options of that name differ) or optdoc.<key>; English is the rules' own `doc`
// (games.json, as docs/options.md has it). Returns [text, its language code].
export function optionDoc(game, o) {
  const words = STRINGS[LANG] || {};
  const text = words[`optdoc.${game}.${o.key}`] ?? words[`optdoc.${o.key}`];
  return text ? [text, LANG] : [o.doc, "en"];
}
// What an option does as a referee reads it (``lang``: the text's language): its choices by
// their labels, not their codes; no rule ids (ST-19, TB-9, PP-6: a bare one is «the rule»),
// and none of the asides written for an installer (code names, configuration keys, files),
// which docs/options.md keeps.
const RULE_IDS = /(?:ST|TB|PP)-\d+(?:\s*(?:…|,)\s*(?:ST|TB|PP)-\d+)*/g;
const CODE = /`|'[a-z_]+'|\b[a-z]+_[a-z_]+\b|\[[a-z]+\]|\.md\b/;
export function inWords(text, o, lang) {
  return String(text)
    .replace(/'([a-z_]+)'/g, (code, c) => (o.choices.includes(c) ? `«${choiceLabel(o, c)}»` : code))
    .replace(/\s*\(([^()]*)\)/g, (all, inner) => {
      if (CODE.test(inner)) return "";
      const kept = inner.replace(RULE_IDS, "").replace(/^[\s,;]+|[\s,;]+$/g, "").replace(/([,;])\s*[,;]/g, "$1");
      return kept ? ` (${kept})` : "";
    })
    .replace(RULE_IDS, (STRINGS[lang] || STRINGS.en)["c.the_rule"] || "the rule")
    .replace(/\s+([,.;:])/g, "$1").replace(/ {2,}/g, " ").trim();
}
// A choice's label in the page's language (the code itself when it has none: numbers).
export function choiceLabel(o, c) {
  if (o.key === "handicap_giver" && typeof c === "number") return playerLabel(c);
  const key = `optchoice.${o.key}.${c}`;
  return key in STRINGS.en ? t(key) : String(c);
}
export function optionsChosen(game) {
  const out = {};
  for (const o of (gameRecord(game) || { options: [] }).options) {
    const input = document.querySelector(`#options [data-option="${o.key}"]`);
    if (!input) continue;
    let value;
    if (input.type === "checkbox") value = input.checked;
    else if (input.tagName === "SELECT") value = JSON.parse(input.value);
    else if (Array.isArray(o.default)) value = input.value.split(/[\s,]+/).filter(Boolean).map(Number);
    else value = input.value;
    if (JSON.stringify(value) !== JSON.stringify(o.default)) out[o.key] = value;
  }
  return out;
}
// The venue's roster's topic.
export function rosterTopic() { return `${page.config.prefix}/${page.config.venue}/roster`; }
// Lists the games and wires the form; restores the table's last settings.
export function wireNewMatch() {
  // the games the server's rules know, in their order (games.json), the default chosen
  gameSelect().replaceChildren(...games().map((g) => el("option", { value: g.id, selected: g.id === defaultGame() }, gameName(g.id))));
  gameSelect().addEventListener("change", renderNewMatch);
  document.getElementById("new-match").addEventListener("submit", (e) => {
    e.preventDefault();
    const game = gameSelect().value;
    const named = [...document.querySelectorAll("#players input[data-player-name]")].filter((i) => i.value.trim());
    const players = named.map((i) => i.value.trim());
    const payload = {
      game, players, race_to: Number(document.getElementById("race-to").value) || 1,
      breaker: Number(document.getElementById("breaker").value) || 0, options: optionsChosen(game),
    };
    // picked from the roster; "new": typed, someone new; null: typed (the entry of that name)
    const ids = named.map((i) => i.dataset.playerId || (i.dataset.newPlayer ? "new" : null));
    if (ids.some(Boolean)) payload.player_ids = ids;
    if (inMatch() && !confirm(t("c.confirm_new"))) return;
    if (send("new_match", payload)) remember(payload);
  });
  renderNewMatch();
  restore();
}
