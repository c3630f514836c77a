// The open questions: each with its answers one tap (or key) away.
import { t } from "./i18n.js";
import { ballName, el, swap } from "./common.js";
import { choiceText, questionText } from "./words.js";
import { page, state } from "./console-state.js";
import { typing, withKey } from "./console-dom.js";
import { renderEnabled, send, sendable } from "./console-requests.js";
import { fixShot } from "./console-ruling.js";

export function renderQuestions() {
  const box = document.getElementById("questions");
  const qs = state().questions || [];
  let fresh;
  if (!qs.length) fresh = el("div", { id: "questions" }, el("p", { class: "idle" }, t("c.none")));
  else {
    fresh = el("div", { id: "questions" }, ...qs.map((q, n) => {
      const count = q.count || 1;
      const chosen = page.chosen && page.chosen.id === q.id ? page.chosen.balls : [];
      const part = el("div", { class: "q", "data-question": q.id },
        el("p", { class: "question" }, `${page.table.playerName(q.player)}: ${questionText(q, page.table)}`));
      // keys for the first only: the questions are answered in their order
      const keys = n === 0 ? answerKeys(q.choices || []) : [];
      const buttons = (q.choices || []).map((c, i) => withKey(el("button", {
        type: "button", class: "answer", "data-answer": String(c), "aria-pressed": count > 1 ? String(chosen.includes(c)) : null,
        "aria-label": typeof c === "number" ? ballName(c) : null,
        onclick: () => {
          if (count === 1) { send("answer", { question: q.id, answer: c }); return; }
          const list = page.chosen && page.chosen.id === q.id ? page.chosen.balls : [];
          page.chosen = { id: q.id, balls: [...list, c] };
          if (page.chosen.balls.length === count) { send("answer", { question: q.id, answer: page.chosen.balls }); page.chosen = null; }
          renderQuestions();
        },
      }, choiceText(c, q)), keys[i]));
      part.append(el("div", { class: "answers" }, buttons));
      if (count > 1) part.append(el("small", {}, t("q.pick_n", { count })));
      return part;
    }), heldFix(qs));
  }
  swap(box, sendable(fresh));
  document.getElementById("question-panel").hidden = !qs.length;
  document.getElementById("h-question").textContent = t(qs.length > 1 ? "c.questions" : "c.question");
  // a new question takes the focus (one key or tap answers it), unless a field is being typed in
  const seen = qs.map((q) => q.id).join(",");
  if (seen !== page.seenQuestions) {
    page.seenQuestions = seen;
    const first = document.querySelector("#questions button.answer");
    if (first && !typing()) first.focus({ preventScroll: true });
  }
  renderEnabled();
}
// A shot the table holds for an answer has no ruling to correct yet: the correction is one
// tap away here too, and what it declares answers the question (the shot is ruled again).
function heldFix(qs) {
  const shot = Number((String(qs[0].id).match(/^q-(\d+)-/) || [])[1]);
  if (!shot || shot !== state().shot || (page.verdict && page.verdict.shot === shot)) return null;
  return el("p", { class: "actions" }, el("button", { type: "button", class: "quiet", id: "q-fix",
    "data-key": "q-fix", onclick: () => fixShot(shot) }, t("c.fix_held", { shot })));
}
// The keys that answer: a ball's own number (0 for 10) when every choice is a ball up to 10,
// else 1, 2, 3… in the order shown.
export function answerKeys(choices) {
  const balls = choices.every((c) => (typeof c === "number" && c >= 1 && c <= 10) || c === "cue");
  return choices.map((c, i) => balls ? (c === "cue" ? "C" : String(c % 10)) : i < 9 ? String(i + 1) : null);
}
