// The drawing of the table: its balls and pockets, tapped (or typed) to call, to pot a called
// ball in one go, or to declare what fell.
import { t } from "./i18n.js";
import { ballName, pocketName, swap } from "./common.js";
import { ballColour, isStripe } from "./games.js";
import { balls, nextIsBreak, page, state } from "./console-state.js";
import { pressable, setPressed, svg } from "./console-dom.js";
import { nextShot, send, sendChain, show } from "./console-requests.js";

// The table seen from above, head end (the break) at the bottom: left is the left long rail.
// Balls and pockets are 37 units across: at least 44 px where the drawing is smallest, a
// 1024×768 tablet held landscape (a touch target's size).
const BALL_R = 18.5, POCKET_R = 18.5, BALL_STEP = 37;
// (whole inside the drawing: a pocket cut by its edge would be a smaller target)
const POCKET_AT = { fl: [18.5, 18.5], fr: [181.5, 18.5], sl: [18.5, 200], sr: [181.5, 200], hl: [18.5, 381.5], hr: [181.5, 381.5] };
// Single keys (KeyboardEvent.code: the same key whatever the keyboard's language) for the
// pockets, laid out as the drawing: the far pockets on the top row, the head ones at the bottom.
export const POCKET_KEYS = { KeyQ: "fl", KeyW: "fr", KeyA: "sl", KeyS: "sr", KeyZ: "hl", KeyX: "hr" };
const KEY_OF_POCKET = Object.fromEntries(Object.entries(POCKET_KEYS).map(([k, p]) => [p, k.slice(3)]));
// A called ball potted, in one go: the call, what fell (for the shot to come) and the shot's end.
export function potCalled(ball, pocket) {
  const steps = [];
  // no call on the break: whatever falls counts
  if (ball !== "cue" && !nextIsBreak()) steps.push(["call", { calls: [{ ball, pocket }], kind: "normal" }]);
  steps.push(["declare", () => {
    page.declared = { shot: nextShot(), fell: [{ ball, pocket }] };  // what the verdict will show fell
    return { pocketed: [{ ball, pocket }], shot: page.declared.shot };
  }]);
  steps.push(["shot_end", {}]);
  sendChain(steps);
}
// ---------------------------------------------------------------- the drawing: call by tapping
export function tapMode() { return document.querySelector("input[name=tap]:checked").value; }
export function renderPool() {
  const game = state().game;
  const list = tapMode() === "pocketed" ? page.pocketed : page.calls;
  const area = svg("svg", { viewBox: "0 0 200 400", class: "pool", role: "group", "aria-label": t("c.drawing") });
  area.append(svg("rect", { x: 0, y: 0, width: 200, height: 400, rx: 14, fill: "var(--rail)" }));
  area.append(svg("rect", { x: 14, y: 14, width: 172, height: 372, fill: "var(--felt)" }));
  area.append(svg("line", { x1: 14, y1: 300, x2: 186, y2: 300, stroke: "#ffffff88", "stroke-dasharray": "3 3" }));
  area.append(svg("text", { x: 100, y: 372, "text-anchor": "middle", fill: "#ffffff", "font-size": 10, "aria-hidden": "true" }, t("c.head")));
  area.append(svg("text", { x: 100, y: 34, "text-anchor": "middle", fill: "#ffffff", "font-size": 10, "aria-hidden": "true" }, t("c.foot")));
  const spots = {};
  const shown = [...balls(), "cue"];
  shown.forEach((b, i) => {
    const cols = 4;
    const x = 48 + (i % cols) * BALL_STEP, y = 58 + Math.floor(i / cols) * BALL_STEP;
    spots[b] = [x, y];
    const used = list.find((c) => c.ball === b);
    const picked = page.picked === b;
    const g = pressable(svg("g", {
      class: "pball" + (picked ? " picked" : "") + (used ? " called" : ""),
      "data-ball": String(b), tabindex: 0, role: "button", "aria-pressed": String(picked),
      "aria-label": ballName(b) + (used ? ` → ${pocketName(used.pocket)}` : ""),
    }), () => { page.picked = page.picked === b ? null : b; renderPool(); });
    const stripe = isStripe(b, game);
    if (picked) g.append(svg("circle", { class: "ring", cx: x, cy: y, r: BALL_R + 2, fill: "none", stroke: "#ffd23f", "stroke-width": 3, "stroke-dasharray": "4 2" }));
    g.append(svg("circle", { class: "body", cx: x, cy: y, r: BALL_R, fill: stripe ? "#fff" : ballColour(b, game), stroke: "#000", "stroke-width": 1 }));
    if (stripe) g.append(svg("rect", { x: x - 16, y: y - 9, width: 32, height: 18, fill: ballColour(b, game) }));
    if (b !== "cue") {
      g.append(svg("circle", { cx: x, cy: y, r: 9, fill: "#fff" }));
      g.append(svg("text", { x, y: y + 4.5, "text-anchor": "middle", "font-size": 12, "font-weight": "bold", fill: "#111" }, b));
    }
    // picked: a tick beside it, not only a colour
    if (picked) g.append(svg("text", { x: x + 14, y: y - 12, "font-size": 16, "font-weight": "bold", fill: "#ffd23f", stroke: "#000", "stroke-width": 0.6 }, "✓"));
    area.append(g);
  });
  for (const c of list) {
    if (spots[c.ball]) area.append(svg("line", { class: "call", x1: spots[c.ball][0], y1: spots[c.ball][1], x2: POCKET_AT[c.pocket][0], y2: POCKET_AT[c.pocket][1] }));
  }
  for (const [id, [x, y]] of Object.entries(POCKET_AT)) {
    area.append(pressable(svg("circle", {
      class: "pocket" + (page.picked !== null ? " armed" : ""), cx: x, cy: y, r: POCKET_R, "data-pocket": id,
      tabindex: 0, role: "button", "aria-label": t("c.pocket", { pocket: pocketName(id) }),
      "aria-keyshortcuts": KEY_OF_POCKET[id],
    }, svg("title", {}, pocketName(id))), () => tapPocket(id)));
    // the pocket's key, for a keyboard (not drawn on a touch screen until a key is pressed)
    // (a corner's on the rail beside it, clear of the balls; a side pocket's beside it)
    area.append(svg("text", { class: "key", x: x < 100 ? x + 27 : x - 27, y: y < 200 ? 11 : y > 200 ? 396 : y + 4,
      "text-anchor": "middle", "font-size": 11, fill: "#ffd23f", "aria-hidden": "true" }, KEY_OF_POCKET[id]));
  }
  const holder = document.getElementById("pool");
  const old = holder.firstElementChild;
  if (old) swap(old, area); else holder.append(area);
  const text = (l) => l.length ? l.map((c) => `${c.ball} → ${pocketName(c.pocket)}`).join(", ") : "—";
  document.getElementById("calls").textContent = text(page.calls);
  document.getElementById("pocketed").textContent = text(page.pocketed);
  document.getElementById("pick-state").textContent = page.picked !== null ? t("c.picked_now", { ball: ballName(page.picked) }) : "";
}
export function tapPocket(pocket) {
  if (page.picked === null) { show(t("c.tap_ball_first"), "error"); return; }
  if (tapMode() === "pocketed" && page.fixShot !== null && document.getElementById("fix-sheet").hidden === false) {
    const ball = page.picked;
    page.picked = null;
    renderPool();
    send("declare", { pocketed: [{ ball, pocket }], shot: page.fixShot });
    return;
  }
  if (tapMode() === "pot") {
    const ball = page.picked;
    page.picked = null;
    renderPool();
    potCalled(ball, pocket);
    return;
  }
  const list = tapMode() === "pocketed" ? page.pocketed : page.calls;
  const i = list.findIndex((c) => c.ball === page.picked);
  if (i >= 0) list.splice(i, 1);
  list.push({ ball: page.picked, pocket });
  const ball = page.picked;
  page.picked = null;
  renderPool();
  // the keyboard goes back to the ball just called
  const again = document.querySelector(`#pool [data-ball="${CSS.escape(String(ball))}"]`);
  if (again && document.activeElement && document.activeElement.closest && document.activeElement.closest("#pool")) again.focus();
}
export function clearTaps(which) {
  if (which === "call") { page.calls = []; setPressed(document.getElementById("amend"), false); }
  else {
    page.pocketed = [];
    // a declaration done: the drawing goes back to its everyday mode
    document.querySelector("input[name=tap][value=pot]").checked = true;
    for (const b of document.querySelectorAll("#declare-panel .toggle")) setPressed(b, false);
    for (const id of ["first-contact", "centre-line", "special", "balls-to-cushion"]) document.getElementById(id).value = "";
  }
  page.picked = null;
  renderPool();
}

// Single keys, shown on the buttons: the answers of an open question; 1–9 in the foul list;
// a ball's number (0 for 10, C the cue ball) then a pocket's letter; M miss, F foul, V right,
// E fix, U undo, Y redo, Esc to let go. Never while a field is being typed in.
export function pickBall(b) {
  if (!balls().includes(b) && b !== "cue") return false;
  page.picked = b;
  renderPool();
  const node = document.querySelector(`#pool [data-ball="${CSS.escape(String(b))}"]`);
  if (node) node.focus({ preventScroll: true });
  return true;
}
export function typedDigit(d) {
  const on = balls();
  if (page.digit !== null && page.digit !== undefined) {
    clearTimeout(page.digitTimer);
    const two = page.digit * 10 + d;
    page.digit = null;
    if (on.includes(two)) { pickBall(two); return; }
  }
  // 1 may begin 11–15 (the pyramid): it waits a moment for a second digit
  if (d === 1 && on.some((b) => typeof b === "number" && b > 10)) {
    page.digit = 1;
    page.digitTimer = setTimeout(() => { page.digit = null; pickBall(1); }, 700);
    return;
  }
  pickBall(d === 0 && !on.includes(0) ? 10 : d);
}
