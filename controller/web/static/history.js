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
  // «Борис: победа 1:0», the winner's games first, whoever broke
  const result = (m) => {
    if (m.abandoned) return t("h.abandoned");
    if (m.draw || m.winner === null || m.winner === undefined) return t("card.draw");
    const games = m.games || [];
    const score = [games[m.winner] ?? 0, ...games.filter((_, i) => i !== m.winner)].join(":");
    return t("h.won", { who: m.players[m.winner] ?? "?", score });
  };
  // what happened on a shot, in words: what fell, the fouls, who shoots next
  const told = (s, who) => [
    s.balls.length ? t("h.potted", { balls: s.balls.map((b) => (b === "object" ? t("h.unidentified") : b)).join(", ") }) : t("h.nothing"),
    ...s.fouls.map(foulName),
    t("ev.next", { who: who(s.next) }).replace(/^; /, ""),
  ].join("; ");
  const table = (head, rows) => el("div", { class: "wrap" }, el("table", {},
    el("thead", {}, el("tr", {}, head.map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, rows.map((r) => el("tr", {}, r.map((c) => el("td", {}, c)))))));
  const get = async (url) => {
    const r = await fetch(url, { cache: "no-store" });
    return r.ok ? r.json() : null;
  };

  if (!ident) {
    document.title = t("h.title");
    const params = new URLSearchParams(location.search);
    const form = el("form", { class: "filters", role: "search", "aria-label": t("h.filter") },
      el("label", {}, t("h.table"), " ", el("input", { name: "table", size: 6, value: params.get("table") || "" })),
      el("label", {}, t("h.player"), " ", el("input", { name: "player", size: 14, value: params.get("player") || "" })),
      el("label", {}, t("h.since"), " ", el("input", { name: "since", type: "date", value: params.get("since") || "" })),
      el("label", {}, t("h.until"), " ", el("input", { name: "until", type: "date", value: params.get("until") || "" })),
      el("button", { type: "submit" }, t("h.filter")));
    const query = new URLSearchParams({ page: params.get("page") || "1" });
    for (const k of ["table", "player", "since", "until"]) if (params.get(k)) query.set(k, params.get(k));
    const data = await get(`history.json?${query}`);
    const matches = (data && data.matches) || [];
    const turn = (n, label, rel) => {
      const to = new URLSearchParams(query);
      to.set("page", String(n));
      return el("a", { href: `history.html?${to}`, rel }, label);
    };
    const pages = data ? el("nav", { class: "pages", "aria-label": t("h.title") },
      data.page > 1 ? turn(data.page - 1, "‹ " + t("h.prev"), "prev") : null,
      el("span", { "data-field": "page" }, t("h.page", { n: data.page, pages: data.pages }), " · ", t("h.found", { n: data.total })),
      data.page < data.pages ? turn(data.page + 1, t("h.more") + " ›", "next") : null) : null;
    if (!matches.length) { box.replaceChildren(form, el("p", { class: "idle", "data-field": "none" }, t("h.none"))); return; }
    box.replaceChildren(form, table([t("h.started"), t("h.table"), t("c.game"), t("h.players"), t("h.result"), ""],
      matches.map((m) => [when(m.started), m.table.toUpperCase(), gameName(m.game), names(m), result(m),
        el("a", { href: `history.html?match=${encodeURIComponent(m.id)}`, "data-match": m.id,
          "aria-label": `${t("h.open")}: ${names(m)}` }, t("h.open"))])), pages);
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
      el("a", { href: `history/${encodeURIComponent(m.id)}.csv?lang=${encodeURIComponent(LANG)}`, download: `${m.id}.csv` }, t("h.export_csv"))),
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
        s.fouls.map(foulName).join(", ") || "—", told(s, who)]))));
})();
