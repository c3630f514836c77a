// The console's requests and their fate. Every action is a request of interfaces §3 published
// to the table's referee lane, B/referee/request/<name>, which no other user's flood holds up
// (controller/service/referee.py), with a fresh `transaction` (and an MQTT 5 message expiry,
// which a bridge may drop); not answered in LANE_WAIT_S (a table without its lane), the same
// request, same transaction, on B/request/<name> too: the table applies a transaction once.
// The table's B/response/<name> (or its lane's copy, B/referee/response/<name>) with the same
// transaction is shown, an error with its reason. What the console says is what the table said: a request not answered in its
// time is cancelled (B/request/cancel, by transaction), and is "not known — waiting for the
// table" until the table answers the request or the cancel; "not done" only once the table
// confirmed the cancel. No clock is compared.
import { clockTime, t } from "./i18n.js";
import { el } from "./common.js";
import { errorText, openQuestion, questionText } from "./words.js";
import { page, state } from "./console-state.js";

const NO_ANSWER_YET_S = 6;  // then the console says it is still waiting, and until when
const LANE_WAIT_S = 2;  // then the request goes on the general topic too
const pending = new Map();  // transaction -> {name, timers, acked, then, cancel}
const cancels = new Map();  // a cancel's transaction -> the transaction it cancels
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
  const until = clockTime(new Date(Date.now() + ttl * 1000));
  const body = JSON.stringify({ v: 1, ...payload, transaction });
  // the broker's PUBACK says the request reached it: a request never answered is then the
  // table's silence, without one the broker's
  // each copy expires within the request's time, never later: the fallback with what is left
  // of it less a second (the broker counts expiry in whole seconds of its clock), none when
  // that is under a second
  const lane = Math.min(LANE_WAIT_S, ttl / 4);
  const sentAt = performance.now();
  const publish = (topic, expiry) => page.client.publish(topic, body,
    { qos: 1, properties: { messageExpiryInterval: expiry } }, (err) => { if (!err) entry.acked = true; });
  const timers = [
    setTimeout(() => { if (pending.has(transaction)) show(t("r.waiting", { req, time: until }), "waiting"); },
      Math.min(NO_ANSWER_YET_S, ttl / 2) * 1000),
    setTimeout(() => giveUp(transaction), ttl * 1000),
    setTimeout(() => {
      const left = Math.floor(ttl - (performance.now() - sentAt) / 1000) - 1;
      if (pending.has(transaction) && page.client.connected && left >= 1) publish(`${page.base}/request/${name}`, left);
    }, lane * 1000),
  ];
  const entry = { name, timers, acked: false, then: null, cancel: null };
  pending.set(transaction, entry);
  publish(`${page.base}/referee/request/${name}`, Math.ceil(ttl));
  show(t("r.sent", { req }), "sent");
  return transaction;
}
// No answer in its time: the table is asked to cancel it, and tells whether it did it.
function giveUp(transaction) {
  const p = pending.get(transaction);
  if (!p) return;
  p.then = null;  // the rest of a chain waits for no request not known to be done
  if (!p.cancel) { p.cancel = `web-${session}-${++counter}`; cancels.set(p.cancel, transaction); }
  askCancel(transaction);
  const why = !(page.client && page.client.connected) ? "r.unknown_offline" : p.acked ? "r.unknown" : "r.unknown_broker";
  show(t(why, { req: t("req." + p.name) }), "unknown");
}
function askCancel(transaction) {
  const p = pending.get(transaction);
  if (!p || !p.cancel || !page.client || !page.client.connected) return;
  const body = JSON.stringify({ v: 1, cancels: transaction, transaction: p.cancel });
  for (const lane of ["referee/request", "request"]) page.client.publish(`${page.base}/${lane}/cancel`, body, { qos: 1 });
}
// After a reconnection: the cancels asked again (the same cancel is answered the same way).
export function askCancelsAgain() {
  for (const [transaction, p] of pending) if (p.cancel) askCancel(transaction);
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
  if (name === "cancel" && cancels.has(response.transaction)) { cancelAnswered(response, done); return; }
  const p = pending.get(response.transaction);
  if (!p) return;  // another console's request, or one already answered
  p.timers.forEach(clearTimeout);
  pending.delete(response.transaction);
  if (p.cancel) cancels.delete(p.cancel);
  page.result.dataset.seq = Number.isInteger(response.seq) ? String(response.seq) : "";
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

// The table's word on a request given up: cancelled (not done, and never will be), or the
// request came first and the cancel carries its answer. An error leaves it not known.
function cancelAnswered(response, done) {
  const transaction = cancels.get(response.transaction);
  const p = pending.get(transaction);
  const d = response.data;
  if (!p || response.status !== "ok" || !d) return;
  if (!d.cancelled) { answered(p.name, d.answer, done); return; }
  p.timers.forEach(clearTimeout);
  pending.delete(transaction);
  cancels.delete(response.transaction);
  page.fixing.delete(transaction);
  page.result.dataset.seq = Number.isInteger(response.seq) ? String(response.seq) : "";
  show(t("r.cancelled", { req: t("req." + p.name) }), "cancelled");
}

// The buttons that send (the page's own, and those of the parts drawn from the table's state).
const SENDERS = "[data-send], #questions button, #presumed button, #foul-sheet button, #fix-sheet button.foul-pick";
// Sets the buttons that send in a part drawn afresh, before it is compared with the part shown:
// one the same as shown is kept (swap), not drawn again every second while nothing can be sent.
export function sendable(fresh) {
  const off = !canSend();
  for (const b of fresh.querySelectorAll(SENDERS)) b.disabled = off;
  return fresh;
}
// Buttons that send are off while we or the table are away, and say why.
export function renderEnabled() {
  sendable(document);
  const ok = canSend();
  const note = document.getElementById("blocked");
  note.hidden = ok;
  if (!ok) {
    note.textContent = !(page.client && page.client.connected) ? t("c.disabled_conn")
      : t("c.disabled_table", { state: t("online." + (page.table.online() in { offline: 1, stopped: 1 } ? page.table.online() : "unknown")) });
  }
}

