// Small pieces the console's modules build with: SVG elements, pressable drawing parts,
// buttons that show their key, toggles.
import { el } from "./common.js";

const SVGNS = "http://www.w3.org/2000/svg";
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}
// Enter and Space do what a click does (for the drawing's balls and pockets).
export function pressable(node, action) {
  node.addEventListener("click", action);
  node.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); action(e); }
  });
  return node;
}
// A button that shows its single-key shortcut.
export function withKey(button, key) {
  if (!key) return button;
  button.setAttribute("aria-keyshortcuts", key);
  // the key shown unless the button already says it (a ball's number)
  if (button.textContent.trim() === key) return button;
  button.append(" ", el("kbd", { "aria-hidden": "true" }, key));
  const label = button.getAttribute("aria-label");
  if (label) button.setAttribute("aria-label", `${label} ${key}`);  // the name holds what is seen
  return button;
}
export function typing() {
  const a = document.activeElement;
  return !!(a && (a.tagName === "INPUT" && !["radio", "checkbox"].includes(a.type) || a.tagName === "TEXTAREA" || a.tagName === "SELECT"));
}

export function setPressed(button, on) { button.setAttribute("aria-pressed", String(on)); }
export function toggle(button) { setPressed(button, button.getAttribute("aria-pressed") !== "true"); }
export function pressed(selector) { return [...document.querySelectorAll(selector)].filter((b) => b.getAttribute("aria-pressed") === "true"); }
export function clickIf(selector) {
  const b = document.querySelector(selector);
  if (!b || b.disabled || b.closest("[hidden]")) return false;
  b.click();
  return true;
}
