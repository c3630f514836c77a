// Match history: history.html lists the finished matches (/history.json); history.html?match=ID
// is one match, shareable: per-player summary, racks with their breakers, every shot, and
// its JSON and CSV exports. Served by controller.web's server, which reads the tables' data.
"use strict";

(async function main() {
  const config = await loadConfig();
  translateStatic();
  document.getElementById("tools").prepend(languagePicker());
  document.getElementById("venue").textContent = config.venue;
  const box = document.getElementById("history");
  const ident = new URLSearchParams(location.search).get("match");
  const when = (iso) => iso ? new Date(iso).toLocaleString(LANG, { dateStyle: "medium", timeStyle: "short", hour12: false }) : "—";
  const names = (m) => m.players.join(" — ");
  const result = (m) => m.abandoned ? t("h.abandoned") : m.draw ? t("card.draw") :
    `${m.players[m.winner] ?? "?"} ${m.games.join(":")}`;
  const table = (head, rows) => el("div", { class: "wrap" }, el("table", {},
    el("thead", {}, el("tr", {}, head.map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, rows.map((r) => el("tr", {}, r.map((c) => el("td", {}, c)))))));
  const get = async (url) => {
    const r = await fetch(url, { cache: "no-store" });
    return r.ok ? r.json() : null;
  };

  if (!ident) {
    document.title = t("h.title");
    const data = await get("history.json");
    const matches = (data && data.matches) || [];
    if (!matches.length) { box.replaceChildren(el("p", { class: "idle", "data-field": "none" }, t("h.none"))); return; }
    box.replaceChildren(table([t("h.started"), t("h.table"), t("c.game"), t("h.players"), t("h.result"), ""],
      matches.map((m) => [when(m.started), m.table.toUpperCase(), gameName(m.game), names(m), result(m),
        el("a", { href: `history.html?match=${encodeURIComponent(m.id)}`, "data-match": m.id,
          "aria-label": `${t("h.open")}: ${names(m)}` }, t("h.open"))])));
    return;
  }
  const m = await get(`history/${encodeURIComponent(ident)}.json`);
  if (!m) { box.replaceChildren(el("p", { class: "idle" }, t("h.unknown")), el("p", {}, el("a", { href: "history.html" }, t("h.back")))); return; }
  document.title = `${names(m)} — ${t("h.title")}`;
  const who = (i) => (i === null || i === undefined ? "—" : m.players[i] ?? "?");
  const points = m.game !== "ten-ball";
  box.replaceChildren(
    el("p", {}, el("a", { href: "history.html" }, "‹ " + t("h.back"))),
    el("h2", { id: "match-title" }, `${names(m)}`),
    el("p", { class: "meta", "data-field": "match" }, `${m.table.toUpperCase()} · ${gameName(m.game)} · ${t("card.race", { n: m.race_to })} · `,
      `${when(m.started)} · ${t("h.duration")} ${m.seconds !== null ? duration(m.seconds) : "—"} · `,
      el("strong", { "data-field": "result" }, result(m))),
    el("p", { class: "exports" },
      el("a", { href: `history/${encodeURIComponent(m.id)}.json?download`, download: `${m.id}.json` }, t("h.export_json")),
      el("a", { href: `history/${encodeURIComponent(m.id)}.csv`, download: `${m.id}.csv` }, t("h.export_csv"))),
    el("h3", {}, t("h.summary")),
    el("div", { "data-field": "summary" }, table(
      [t("h.player"), t("h.games"), t("h.balls"), ...(points ? [t("h.points")] : []), t("h.fouls"), t("h.runs"), t("h.breaks_run")],
      m.summary.map((p) => [p.name, p.games, p.balls, ...(points ? [p.points] : []), p.fouls, p.best_run, p.break_and_runs]))),
    el("h3", {}, t("card.racks")),
    el("div", { "data-field": "racks" }, table([t("h.game"), t("c.breaker"), t("h.result"), t("h.shot_count")],
      m.racks.map((r) => [r.game_no, who(r.breaker), r.winner === null || r.winner === undefined ? "—" : who(r.winner), r.shots]))),
    el("h3", {}, t("h.record")),
    el("div", { "data-field": "shots" }, table([t("h.shot"), t("h.game"), t("h.player"), t("h.balls"), ...(points ? [t("h.points")] : []), t("h.fouls"), t("h.what")],
      m.shots.map((s) => [s.shot, s.game_no, who(s.player), s.balls.map((b) => (b === "object" ? t("h.unidentified") : b)).join(", ") || "—", ...(points ? [s.points] : []),
        s.fouls.map(foulName).join(", ") || "—", t("ev.next", { who: who(s.next) }).replace(/^; /, "")]))));
})();
