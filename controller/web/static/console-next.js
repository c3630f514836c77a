// The next match the venue record offers this table (retained on <prefix>/<venue>/<table>/next:
// a tournament's match on the table, or the head of the waiting list for its kind), shown
// when no match is on: one tap starts it (the tap is the referee's confirmation), with the
// offer's game, players, their roster ids and race, and a tournament's {id, match} as given.
import { t } from "./i18n.js";
import { inMatch, page } from "./console-state.js";
import { send } from "./console-requests.js";
import { remember } from "./console-new-match.js";
import { nextText } from "./card.js";

// The offer's words: «Следующие: Вера — Глеб», or a tournament's «Турнир …, матч W2-1: …».
export function offerText(offer) {
  const players = offer.players.map((p) => p.name).join(" — ");
  if (!offer.tournament) return nextText(offer);
  const said = t("c.next_tournament", { name: offer.tournament.name, match: offer.tournament.match, players });
  return offer.race_to ? `${said}, ${t("card.race", { n: offer.race_to })}` : said;
}
export function renderNext() {
  const offer = page.table.next;
  const panel = document.getElementById("next-panel");
  panel.hidden = !offer || inMatch();
  document.getElementById("next-text").textContent = offer ? offerText(offer) : "";
}
// The new_match of the offer (the console's own game and race where the offer has none).
export function offered(offer) {
  const payload = {
    game: offer.game || document.getElementById("game").value,
    players: offer.players.map((p) => p.name),
    race_to: offer.race_to || Number(document.getElementById("race-to").value) || 1,
    breaker: 0, options: offer.options || {}, player_ids: offer.players.map((p) => p.id),
  };
  if (offer.tournament) payload.tournament = { id: offer.tournament.id, match: offer.tournament.match };
  return payload;
}
export function wireNext() {
  document.getElementById("next-start").addEventListener("click", () => {
    const offer = page.table.next;
    if (!offer || inMatch()) return;
    const payload = offered(offer);
    if (send("new_match", payload)) remember(payload);
  });
}
