// The console's requests and their fate. Every action is a request of interfaces §3 published
// to B/request/<name> with a fresh `transaction` and a `deadline` (unix seconds; the MQTT 5
// message expiry says the same to the broker): the table's B/response/<name> with the same
// transaction is shown, an error with its reason. A request with no answer is "not done" only
// once its deadline has passed: until then the table may still do it.
import { clockTime, t } from "./i18n.js";
import { el } from "./common.js";
import { errorText, openQuestion, questionText } from "./words.js";
import { page, state } from "./console-state.js";

const NO_ANSWER_YET_S = 6;  // then the console says it is still waiting, and until when
const pending = new Map();  // transaction -> {name, timers, acked, then}
// Reported not done: an answer may still come (late), and is then shown for what it is.
const expired = new Map();  // transaction -> the time it was wanted until
let counter = 0;
// 64 random bits: a transaction names one request, across every console there ever was
const session = Array.from(crypto.getRandomValues(new Uint8Array(8)),
  (b) => b.toString(16).padStart(2, "0")).join("");

export function show(text, kind) {
  page.result.textContent = text;
  page.result.className = "result " + kind;
  page.result.dataset.state = kind;
  if (kind === "sent") return;
  page.log.prepend(el("li", { class: kind }, `${clockTime(new Date())} ${text}`));
  while (page.log.childNodes.length > 30) page.log.lastChild.remove();
}
export function canSend() { return !!(page.client && page.client.connected) && page.table.online() === "online"; }
export function send(name, payload) {
  const req = t("req." + name);
  if (!page.client || !page.client.connected) { show(t("r.not_connected", { req }), "error"); return null; }
  const transaction = `web-${session}-${++counter}`;
  const ttl = page.config.request_ttl_s;
  const deadline = Date.now() / 1000 + ttl;
  const until = clockTime(new Date(deadline * 1000));
  const timers = [
    setTimeout(() => { if (pending.has(transaction)) show(t("r.waiting", { req, time: until }), "waiting"); },
      Math.min(NO_ANSWER_YET_S, ttl / 2) * 1000),
    // a little after the deadline, for the clocks of the table and of this tablet to differ
    setTimeout(() => {
      page.fixing.delete(transaction);
      const p = pending.get(transaction);
      if (!p) return;
      pending.delete(transaction);
      expired.set(transaction, until);
      if (expired.size > 100) expired.delete(expired.keys().next().value);
      const why = !(page.client && page.client.connected) ? "r.expired_offline" : p.acked ? "r.expired" : "r.expired_broker";
      show(t(why, { req, time: until }), "expired");
    }, (ttl + 2) * 1000),
  ];
  const entry = { name, timers, acked: false, then: null };
  pending.set(transaction, entry);
  // the broker's PUBACK says the request reached it: a request never answered is then the
  // table's silence, without one the broker's
  page.client.publish(`${page.base}/request/${name}`,
    JSON.stringify({ v: 1, ...payload, transaction, deadline: Math.round(deadline * 1000) / 1000 }),
    { qos: 1, properties: { messageExpiryInterval: Math.ceil(ttl) } }, (err) => { if (!err) entry.acked = true; });
  show(t("r.sent", { req }), "sent");
  return transaction;
}
// Sends requests one after the other, each once the one before was carried out: steps is a
// list of [name, payload or a function returning it]; a refusal stops the rest.
export function sendChain(steps) {
  if (!steps.length) return;
  const [name, payload] = steps[0];
  const tx = send(name, typeof payload === "function" ? payload() : payload);
  if (tx && pending.has(tx)) pending.get(tx).then = () => sendChain(steps.slice(1));
}
export function nextShot() { return (state().shot || 0) + 1; }
// Takes the table's response to a request (ours: its fate shown; done(name, fixed) then runs
// for one carried out, `fixed` the presumption it corrected, if any).
export function answered(name, response, done) {
  const p = pending.get(response.transaction);
  if (!p) {  // another console's request, or one already reported: late, if reported not done
    const until = expired.get(response.transaction);
    if (until === undefined) return;
    expired.delete(response.transaction);
    const req = t("req." + name);
    show(response.status === "ok" ? t("r.late_ok", { req, time: until })
      : t("r.late_error", { req, why: errorText(response.error, page.table) }),
      response.status === "ok" ? "late" : "error");
    return;
  }
  p.timers.forEach(clearTimeout);
  pending.delete(response.transaction);
  const req = t("req." + name);
  const fixed = page.fixing.get(response.transaction);
  page.fixing.delete(response.transaction);
  if (response.status === "ok") {
    const d = response.data;
    show(d && d.match_id ? t("r.ok_match", { req, id: d.match_id }) : t("r.ok", { req }), "ok");
    done(name, fixed);
    if (p.then) p.then();
  } else if (name === "call" && openQuestion(response.error, page.table)) {
    // refused, not lost: the taps stay, and the referee is told what to do with them
    const q = openQuestion(response.error, page.table);
    show(t("r.call_after_question", { req, text: questionText(q, page.table) }), "error");
  } else {
    show(t("r.error", { req, why: errorText(response.error, page.table) }), "error");
  }
}

// Buttons that send are off while we or the table are away, and say why.
export function renderEnabled() {
  const ok = canSend();
  for (const b of document.querySelectorAll("[data-send], #questions button, #presumed button, #foul-sheet button, #fix-sheet button.foul-pick")) b.disabled = !ok;
  const note = document.getElementById("blocked");
  note.hidden = ok;
  if (!ok) {
    note.textContent = !(page.client && page.client.connected) ? t("c.disabled_conn")
      : t("c.disabled_table", { state: t("online." + (page.table.online() in { offline: 1, stopped: 1 } ? page.table.online() : "unknown")) });
  }
}

