// The keyboard alone. Single keys, shown on the buttons: the answers of an open question; 1–9 in
// the foul list; a ball's number (0 for 10, C the cue ball) then a pocket's letter; M miss,
// F foul, V right, E fix, U undo, Y redo, Esc to let go. Never while a field is being typed in.
import { inMatch, page } from "./console-state.js";
import { clickIf, typing } from "./console-dom.js";
import { POCKET_KEYS, pickBall, renderPool, tapPocket, typedDigit } from "./console-pool.js";
import { closeFoulSheet } from "./console-declare.js";
import { closeFix } from "./console-ruling.js";

export function wireKeyboard() {
  document.addEventListener("keydown", (e) => {
    document.body.classList.add("keyboard");  // a keyboard is here: its keys are drawn
    if (e.ctrlKey || e.metaKey || e.altKey || e.repeat || typing()) return;
    if (document.getElementById("panels").hidden || !inMatch()) return;
    const key = e.key.length === 1 ? e.key.toUpperCase() : e.key;
    const letter = e.code.startsWith("Key") ? e.code.slice(3) : e.code.startsWith("Digit") ? e.code.slice(5) : key;
    const done = () => e.preventDefault();
    const answers = [...document.querySelectorAll("#questions button.answer[aria-keyshortcuts]")];
    if (answers.length) {
      const b = answers.find((x) => x.getAttribute("aria-keyshortcuts") === letter);
      if (b) { done(); b.click(); }
      return;  // a question first: nothing else until it is answered
    }
    const sheet = document.getElementById("foul-sheet");
    if (!sheet.hidden && /^[1-9]$/.test(letter)) {
      if (clickIf(`#foul-sheet button[aria-keyshortcuts="${letter}"]`)) done();
      return;
    }
    const fix = document.getElementById("fix-sheet");
    if (!fix.hidden && /^[1-9]$/.test(letter)) {
      if (clickIf(`#fix-sheet button[aria-keyshortcuts="${letter}"]`)) done();
      return;
    }
    if (key === "Escape") { closeFoulSheet(); if (page.fixShot !== null) closeFix(); page.picked = null; renderPool(); return; }
    if (POCKET_KEYS[e.code]) {
      if (page.picked !== null) { done(); tapPocket(POCKET_KEYS[e.code]); }
      return;
    }
    if (/^[0-9]$/.test(letter)) { done(); typedDigit(Number(letter)); return; }
    const action = { C: () => pickBall("cue"), M: () => clickIf("#q-miss"), F: () => clickIf("#q-foul"),
      V: () => clickIf("#v-ok"), E: () => clickIf("#v-fix"), U: () => clickIf("#q-undo"), Y: () => clickIf("#q-redo") }[letter];
    if (action) { done(); action(); }
  });

}
