// Fouls and declarations: the one-tap foul sheet, the whole declaration (fouls, balls off the
// table, first contact, centre line, special), Ten-ball's unsportsmanlike conduct, the call,
// undo, redo and the match's end.
import { t } from "./i18n.js";
import { FOULS, ballName, el, foulName, swap } from "./common.js";
import { balls, page, state } from "./console-state.js";
import { pressed, toggle, withKey } from "./console-dom.js";
import { nextShot, send, sendChain, sendable, show } from "./console-requests.js";
import { clearTaps, renderPool } from "./console-pool.js";
import { openDeclaration } from "./console-ruling.js";
import { declares, firstFouls } from "./games.js";

// The fouls offered one tap away after «Фол…» are the game's first fouls (its record's
// first_fouls: every other in the declaration below). Keys 1–9 pick them.
// ---------------------------------------------------------------- one tap: miss, foul
export function renderFoulSheet() {
  const sheet = document.getElementById("foul-sheet");
  const codes = firstFouls(state().game);
  const fresh = el("div", { id: "foul-sheet", class: "sheet", hidden: sheet.hidden, role: "group", "aria-label": t("c.foul_menu") },
    codes.map((code, i) => withKey(el("button", { type: "button", class: "foul-pick", "data-pick-foul": code, "data-key": "pf-" + code,
      onclick: () => { closeFoulSheet(); sendChain([["declare", () => ({ fouls: [code], shot: nextShot() })], ["shot_end", {}]]); },
    }, foulName(code)), String(i + 1))),
    el("button", { type: "button", class: "quiet", "data-key": "pf-more", onclick: () => { closeFoulSheet(); openDeclaration(null); } }, t("c.foul_more")));
  swap(sheet, sendable(fresh));
}
export function openFoulSheet() {
  const sheet = document.getElementById("foul-sheet");
  sheet.hidden = false;
  document.getElementById("q-foul").setAttribute("aria-expanded", "true");
  const first = sheet.querySelector("button");
  if (first) first.focus({ preventScroll: true });
}
export function closeFoulSheet() {
  document.getElementById("foul-sheet").hidden = true;
  document.getElementById("q-foul").setAttribute("aria-expanded", "false");
}
export function renderDeclareBalls() {
  const off = document.getElementById("off-table");
  const ticked = new Set(pressed("#off-table .toggle").map((b) => b.dataset.off));
  const fresh = el("div", { class: "toggles", id: "off-table" }, ...[...balls(), "cue"].map((b) => el("button", {
    type: "button", class: "toggle", "aria-pressed": String(ticked.has(String(b))), "data-off": String(b),
    "aria-label": ballName(b), onclick: (e) => toggle(e.currentTarget),
  }, b === "cue" ? t("ball.cue") : String(b))));
  swap(off, fresh);
  const first = document.getElementById("first-contact");
  const was = first.value;
  const options = [el("option", { value: "" }, "—"), el("option", { value: "none" }, t("c.no_contact")),
    ...balls().map((b) => el("option", { value: String(b) }, ballName(b)))];
  const now = [...first.options].map((o) => o.value + o.textContent).join("|");
  if (now !== options.map((o) => o.value + o.textContent).join("|")) {
    first.replaceChildren(...options);
    first.value = [...first.options].some((o) => o.value === was) ? was : "";
  }
}
// match, for a reason the ruling records.
export function renderOffenders() {
  const offender = document.getElementById("offender");
  const was = offender.value;
  const names = (state().players || []).map((p, i) => el("option", { value: i }, page.table.playerName(i)));
  if ([...offender.options].map((o) => o.textContent).join("|") !== names.map((o) => o.textContent).join("|")) {
    offender.replaceChildren(...names);
    if (was && Number(was) < names.length) offender.value = was;
  }
  // what only some games let a referee declare (the game's record's `declarable`)
  for (const node of document.querySelectorAll("[data-declarable]")) node.hidden = !declares(state().game, node.dataset.declarable);
}
export function undo(shots) {
  if (!confirm(t(shots > 1 ? "c.confirm_undo_many" : "c.confirm_undo", { shot: state().shot, n: shots }))) return;
  send("undo", { shots });
}
// Wires the buttons of the quick actions, the declaration, the call and undo.
export function wireDeclare() {
  document.getElementById("q-foul").addEventListener("click", () => {
    if (document.getElementById("foul-sheet").hidden) openFoulSheet(); else closeFoulSheet();
  });
  document.getElementById("q-miss").addEventListener("click", () => send("shot_end", {}));
  for (const id of ["q-miss", "q-foul", "q-undo", "q-redo"]) {
    const b = document.getElementById(id);
    withKey(b, b.dataset.keyhint);
  }
  const fouls = document.getElementById("fouls");
  for (const code of FOULS) {
    fouls.append(el("button", { type: "button", class: "toggle", "aria-pressed": "false", "data-foul": code,
      onclick: (e) => toggle(e.currentTarget) }, foulName(code)));
  }
  document.getElementById("amend").addEventListener("click", (e) => toggle(e.currentTarget));
  document.getElementById("send-declare").addEventListener("click", () => {
    const payload = {};
    const f = pressed("#fouls .toggle").map((b) => b.dataset.foul);
    if (f.length) payload.fouls = f;
    const off = pressed("#off-table .toggle").map((b) => b.dataset.off === "cue" ? "cue" : Number(b.dataset.off));
    if (off.length) payload.off_table = off;
    if (page.pocketed.length) payload.pocketed = page.pocketed.map((c) => ({ ball: c.ball, pocket: c.pocket }));
    const first = document.getElementById("first-contact").value;
    if (first === "none") payload.first_contact = null;
    else if (first) payload.first_contact = Number(first);
    const centre = document.getElementById("centre-line").value;
    if (centre) payload.centre_line = centre === "true";
    const special = document.getElementById("special").value;
    if (special) payload.special = special;
    const toCushion = document.getElementById("balls-to-cushion").value;
    if (toCushion && declares(state().game, "balls_to_cushion")) payload.balls_to_cushion = Number(toCushion);
    if (!Object.keys(payload).length) { show(t("c.nothing_ticked"), "error"); return; }
    if (page.fixShot !== null) payload.shot = page.fixShot;
    if (send("declare", payload)) {
      page.fixShot = null;
      document.getElementById("fix-note").hidden = true;
    }
  });

  // Ten-ball's penalty for unsportsmanlike conduct (TB-14): the player loses the game or the
  document.getElementById("send-unsporting").addEventListener("click", () => {
    const reason = document.getElementById("unsporting-reason").value.trim();
    if (!reason) { show(t("c.no_reason"), "error"); document.getElementById("unsporting-reason").focus(); return; }
    const player = Number(document.getElementById("offender").value);
    const loses = document.getElementById("loses").value;
    if (!confirm(t(`c.confirm_unsporting_${loses}`, { who: page.table.playerName(player) }))) return;
    if (send("declare", { unsportsmanlike: { player, loses, reason } })) document.getElementById("unsporting-reason").value = "";
  });

  for (const r of document.querySelectorAll("input[name=tap]")) r.addEventListener("change", renderPool);
  document.getElementById("send-call").addEventListener("click", () => {
    const kind = document.getElementById("kind").value;
    if (!page.calls.length && kind === "normal") { show(t("c.nothing_called"), "error"); return; }
    const payload = { calls: page.calls.map((c) => ({ ball: c.ball, pocket: c.pocket })), kind };
    if (document.getElementById("amend").getAttribute("aria-pressed") === "true") payload.amend = true;
    send("call", payload);
  });
  document.getElementById("clear-call").addEventListener("click", () => clearTaps("call"));
  document.getElementById("shot-end").addEventListener("click", () => send("shot_end", {}));
  document.getElementById("undo").addEventListener("click", () => undo(Number(document.getElementById("undo-shots").value) || 1));
  document.getElementById("q-undo").addEventListener("click", () => undo(1));
  for (const id of ["redo", "q-redo"]) document.getElementById(id).addEventListener("click", () => send("redo", {}));
  document.getElementById("refresh").addEventListener("click", () => send("get", {}));
  document.getElementById("end-match").addEventListener("click", () => {
    if (confirm(t("c.confirm_end"))) send("end_match", {});
  });

}
