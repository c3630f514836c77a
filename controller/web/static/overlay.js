// A scoreboard overlay for streaming: overlay.html?table=t1 in OBS's browser source (its
// background is transparent). Players, score, race, who shoots and the last event, in the
// venue's language (config.json's language, or ?lang=).
import { t } from "./i18n.js";
import { connect, el, loadConfig, parseJson } from "./common.js";
import { gameName, scoresGames } from "./games.js";
import { TableModel } from "./table-model.js";

(async function main() {
  const config = await loadConfig();
  const params = new URLSearchParams(location.search);
  const id = params.get("table") || (config.tables && config.tables[0]) || "t1";
  const table = new TableModel(id);
  const board = document.getElementById("board");
  document.title = `${id.toUpperCase()} — ${config.venue}`;
  let last = "";

  function render() {
    const s = table.state;
    if (!s || !s.game) { board.replaceChildren(); return; }
    const players = s.players || [];
    const over = s.status === "match_over" || s.status === "game_over";
    const byGames = scoresGames(s.game);  // the score is the games won
    const side = (i, right) => {
      const p = players[i];
      if (!p) return null;
      const shooting = s.to_shoot === i && !over;
      return el("div", { class: "who" + (right ? " right" : ""), "data-player": i },
        el("span", { class: "turn", "aria-hidden": "true" }, shooting ? "▶" : ""),
        el("span", { class: "name" }, p.name),
        shooting ? el("span", { class: "visually-hidden" }, t("card.to_shoot")) : null);
    };
    const score = (i) => {
      const p = players[i];
      return el("span", { class: "score", "data-field": "score" }, byGames ? `${p.games}` : `${p.score}`);
    };
    const bars = [];
    if (players.length === 2) {  // the broadcast's form: Ann 3 · race · 2 Bob
      bars.push(el("div", { class: "bar" }, side(0, false), score(0),
        el("span", { class: "race", "data-field": "race" }, el("span", {}, gameName(s.game)),
          el("span", {}, t("card.race", { n: s.race_to }) + (byGames ? "" : ` · ${players[0].games}:${players[1].games}`))),
        score(1), side(1, true)));
    } else {
      players.forEach((_, i) => bars.push(el("div", { class: "bar" }, side(i, false), score(i))));
    }
    board.replaceChildren(...bars, el("p", { class: "last", "data-field": "last" }, last));
    // a name's longest word fits its box: the letters shrink to MIN_NAME_PX at most
    for (const name of board.querySelectorAll(".name")) {
      const px = parseFloat(getComputedStyle(name).fontSize);
      for (let size = px; name.scrollWidth > name.clientWidth + 0.5 && size > minName(); size -= 1) {
        name.style.fontSize = `${Math.max(size - 1, minName())}px`;
      }
    }
  }
  // the smallest a name may get: 40 px on a 1080p picture, in proportion on others
  const minName = () => Math.round(40 * window.innerHeight / 1080);

  const root = `${config.prefix}/${config.venue}/${id}/`;
  const client = connect(config, config.dashboard, () => {});
  client.on("connect", () => client.subscribe([root + "+", root + "response/answer", root + "request/answer",
    root + "referee/request/answer"], { qos: 1 }));
  client.on("message", (topic, payload) => {
    const kind = topic.slice(root.length);
    const data = parseJson(payload);
    if (!data) return;
    const said = table.take(kind, data);
    if (typeof said === "string") last = said;
    if (said) render();
  });
})();
