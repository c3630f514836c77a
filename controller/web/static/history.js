// Match history, from the venue record (controller.record: /record/…), across every table:
//   history.html               the finished matches, the latest start first, in pages, filtered by table,
//                              player and dates; each player's name opens their page
//   history.html?match=ID      one match, shareable: per-player summary, racks with their
//                              breakers, every shot told in words, its JSON and CSV exports
//   history.html?pid=ID        a player's page (one roster entry: one person): figures in all
//                              and per game, their matches
//   history.html?name=NAME     the same for every match played under a name as written
// A player's page puts that player on the venue's waiting list for a pool or a pyramid table
// (POST record/waiting/<venue>: joining is a player's act, open; controller.record.waiting_desk).
// Served by the recorder's web (`record --web`) and the demo; elsewhere it says where it is.
import { LANG, duration, languagePicker, t, tOr, translateStatic } from "./i18n.js";
import { el, foulName, loadConfig, tableName } from "./common.js";
import { gameName, keepsPoints } from "./games.js";

// The tables' sessions for billing, as the match CSV: the page's language, its local time (tz).
function billingLink(tz) {
  const href = `record/sessions.csv?${new URLSearchParams({ lang: LANG, tz })}`;
  return el("p", { class: "exports" }, el("a", { href, download: "sessions.csv" }, t("h.sessions_csv")));
}

// «В очередь»: a player on the venue's waiting list for a kind of table, the recorder's answer said.
function waitingJoin(venue, id, name) {
  const said = el("span", { class: "idle", role: "status", "data-field": "waiting-said" });
  const join = async (kind) => {
    const answer = await fetch(`record/waiting/${encodeURIComponent(venue)}`, { method: "POST",
      body: JSON.stringify({ action: "join", kind, players: [{ id, name }] }) }).catch(() => null);
    const body = answer ? await answer.json().catch(() => ({})) : {};
    said.textContent = answer && answer.ok ? t("wl.done") : tOr("wl.error", body.refused || "unknown");
  };
  return el("p", { class: "exports", "data-field": "waiting" }, `${t("wl.title")}: `,
    ...["pool", "russian"].map((kind) => el("button", { type: "button", "data-join": kind, onclick: () => join(kind) },
      t(`wl.kind.${kind}`))), " ", said);
}

(async function main() {
  const config = await loadConfig();
  translateStatic();
  document.getElementById("tools").prepend(languagePicker());
  document.getElementById("venue").textContent = config.venue;
  const box = document.getElementById("history");
  const params = new URLSearchParams(location.search);
  const ident = params.get("match");
  // a player's page: one roster entry (`pid`: one person, whatever tables and names), else
  // every match played under a name as written (`name`)
  const pid = params.get("pid");
  const player = params.get("name");
  // times are Unix seconds on the wall's clock (the record set each table's clock by it)
  const when = (s) => (typeof s === "number" ? new Date(s * 1000).toLocaleString(LANG, { dateStyle: "medium", timeStyle: "short", hour12: false }) : "—");
  const profile = (name, id) => el("a", {
    href: `history.html?${new URLSearchParams(id ? { pid: id, name } : { name })}`, "data-player": name,
    "aria-label": t("h.player_link", { name }) }, name);
  const names = (m) => m.players.flatMap((p, i) => {
    const link = profile(p, (m.player_ids || [])[i]);
    return i ? [" — ", link] : [link];
  });
  // «Борис: победа 2:1», the winner's games first, whoever broke
  const result = (m) => {
    if (m.abandoned) return t("h.abandoned");
    if (m.draw || m.winner === null || m.winner === undefined) return t("card.draw");
    const games = m.games || [];
    const score = [games[m.winner] ?? 0, ...games.filter((_, i) => i !== m.winner)].join(":");
    return t("h.won", { who: m.players[m.winner] ?? "?", score });
  };
  const ball = (b) => (b === "object" ? t("h.unidentified") : b);
  // what happened on a shot, in words: what fell, the fouls, who shoots next
  // (a penalty ball is taken, not potted; a ball the handicap gave is the receiver's, ST-19)
  const told = (s, who) => [
    s.balls.length ? t("h.potted", { balls: s.balls.map(ball).join(", ") }) : t("h.nothing"),
    ...(s.handicap || []).map((h) => t("h.handicap", { ball: ball(h.ball), who: who(h.player) })),
    ...s.fouls.map(foulName),
    ...(s.taken || []).map((h) => t("h.taken", { ball: ball(h.ball), who: who(h.player) })),
    ...(s.next === null || s.next === undefined ? [] : [t("ev.next", { who: who(s.next) }).replace(/^; /, "")]),
  ].join("; ");
  // `wide`: the columns a phone leaves out (what another column says in words too)
  const table = (head, rows, wide = []) => {
    const cls = (i) => (wide.includes(i) ? "wide" : null);
    return el("div", { class: "wrap" }, el("table", {},
      el("thead", {}, el("tr", {}, head.map((h, i) => el("th", { scope: "col", class: cls(i) }, h)))),
      el("tbody", {}, rows.map((r) => el("tr", {}, r.map((c, i) => el("td", { class: cls(i) }, c)))))));
  };
  const get = async (url) => {
    const r = await fetch(url, { cache: "no-store" });
    return { status: r.status, body: r.ok ? await r.json() : null };
  };
  const absent = (status) => status === 404 && !config.record;  // no record behind this server
  const back = el("p", {}, el("a", { href: "history.html" }, "‹ " + t("h.back")));
  const tz = String(-new Date().getTimezoneOffset());  // the dates a person picks are their own days

  // one page of a list of matches, with its links to the other pages
  const listing = async (query, link) => {
    const { status, body } = await get(`record/history.json?${query}`);
    if (!body) return { status, nodes: [el("p", { class: "idle" }, t(absent(status) ? "h.no_record" : "h.unknown"))] };
    const turn = (n, label, rel) => el("a", { href: link(n), rel }, label);
    const pages = el("nav", { class: "pages", "aria-label": t("h.title") },
      body.page > 1 ? turn(body.page - 1, "‹ " + t("h.prev"), "prev") : null,
      el("span", { "data-field": "page" }, t("h.page", { n: body.page, pages: body.pages }), " · ", t("h.found", { n: body.total })),
      body.page < body.pages ? turn(body.page + 1, t("h.more") + " ›", "next") : null);
    if (!body.matches.length) return { status, nodes: [el("p", { class: "idle", "data-field": "none" }, t("h.none"))] };
    // the result opens the match (on a phone the last column is the one out of sight)
    return { status, nodes: [table([t("h.started"), t("h.table"), t("c.game"), t("h.players"), t("h.result")],
      body.matches.map((m) => [when(m.started), tableName(m.table), gameName(m.game), el("span", {}, names(m)),
        el("a", { href: `history.html?match=${encodeURIComponent(m.id)}`, "data-match": m.id,
          title: t("h.open") }, result(m))])), pages] };
  };

  if (player || pid) {
    const { status, body: p } = await get(pid ? `record/players/${encodeURIComponent(pid)}.json`
      : `record/player/${encodeURIComponent(player)}.json`);
    const shown = (p && p.name) || player || "?";
    document.title = `${t("h.player_title", { name: shown })} — ${t("h.title")}`;
    if (!p) { box.replaceChildren(el("p", { class: "idle" }, t(absent(status) ? "h.no_record" : "h.unknown")), back); return; }
    const games = Object.keys(p.games);
    const columns = [["all", p.total], ...games.map((g) => [g, p.games[g]])];
    const rate = (f) => (f.matches ? `${Math.round((100 * f.won) / f.matches)} %` : "—");
    const rows = [
      [t("h.matches"), (f) => f.matches], [t("h.matches_won"), (f) => f.won], [t("h.win_rate"), rate],
      [t("h.games_won"), (f) => t("h.of", { n: f.games_won, all: f.games_played })],
      [t("h.balls"), (f) => f.balls], [t("h.points"), (f) => f.points], [t("h.runs"), (f) => f.best_run],
      [t("h.breaks_run"), (f) => f.break_and_runs], [t("h.fouls"), (f) => f.fouls],
    ];
    const page = Math.max(1, Number(params.get("page")) || 1);
    const who = pid ? { pid, name: shown } : { name: player };
    const query = new URLSearchParams({ ...(pid ? { pid } : who), page: String(page), per_page: "20" });
    const list = await listing(query, (n) => `history.html?${new URLSearchParams({ ...who, page: String(n) })}`);
    box.replaceChildren(back, el("h2", { id: "player-title" }, t("h.player_title", { name: shown })),
      ...(pid ? [waitingJoin(config.venue, pid, shown)] : []),  // «В очередь» for one person
      el("h3", {}, t("h.figures")),
      el("div", { "data-field": "figures" }, table([t("h.figures"), ...columns.map(([g]) => (g === "all" ? t("h.all_games") : gameName(g)))],
        rows.map(([label, value]) => [label, ...columns.map(([, f]) => String(value(f)))]))),
      el("h3", {}, t("h.player_matches", { name: shown })),
      el("div", { "data-field": "matches" }, ...list.nodes));
    return;
  }

  if (!ident) {
    document.title = t("h.title");
    const form = el("form", { class: "filters", role: "search", "aria-label": t("h.filter") },
      el("label", {}, t("h.table"), " ", el("input", { name: "table", size: 6, value: params.get("table") || "" })),
      el("label", {}, t("h.player"), " ", el("input", { name: "player", size: 14, value: params.get("player") || "" })),
      el("label", {}, t("h.since"), " ", el("input", { name: "since", type: "date", value: params.get("since") || "" })),
      el("label", {}, t("h.until"), " ", el("input", { name: "until", type: "date", value: params.get("until") || "" })),
      el("button", { type: "submit" }, t("h.filter")));
    const shown = new URLSearchParams({ page: params.get("page") || "1" });
    for (const k of ["table", "player", "since", "until"]) if (params.get(k)) shown.set(k, params.get(k));
    const query = new URLSearchParams(shown);
    query.set("tz", tz);
    const list = await listing(query, (n) => {
      const to = new URLSearchParams(shown);
      to.set("page", String(n));
      return `history.html?${to}`;
    });
    const billing = billingLink(tz);
    box.replaceChildren(...(list.status === 200 ? [form] : []), ...list.nodes, ...(list.status === 200 ? [billing] : []));
    return;
  }

  const { status, body: m } = await get(`record/match/${encodeURIComponent(ident)}.json`);
  if (!m) { box.replaceChildren(el("p", { class: "idle" }, t(absent(status) ? "h.no_record" : "h.unknown")), back); return; }
  document.title = `${m.players.join(" — ")} — ${t("h.title")}`;
  const who = (i) => (i === null || i === undefined ? "—" : m.players[i] ?? "?");
  const points = keepsPoints(m.game);
  const file = m.id.replaceAll("~", "-");
  box.replaceChildren(back,
    el("h2", { id: "match-title" }, ...names(m)),
    el("p", { class: "meta", "data-field": "match" }, `${tableName(m.table)} · ${gameName(m.game)} · ${t("card.race", { n: m.race_to })} · `,
      `${when(m.started)} · ${t("h.duration")} ${m.seconds !== null ? duration(m.seconds) : "—"} · `,
      el("strong", { "data-field": "result" }, result(m))),
    el("p", { class: "exports" },
      el("a", { href: `record/match/${encodeURIComponent(m.id)}.json?download`, download: `${file}.json` }, t("h.export_json")),
      el("a", { href: `record/match/${encodeURIComponent(m.id)}.csv?lang=${encodeURIComponent(LANG)}`, download: `${file}.csv` }, t("h.export_csv"))),
    el("h3", {}, t("h.summary")),
    el("div", { "data-field": "summary" }, table(
      [t("h.player"), t("h.games"), t("h.balls"), ...(points ? [t("h.points")] : []), t("h.fouls"), t("h.runs"), t("h.breaks_run")],
      m.summary.map((p) => [profile(p.name, p.player_id), p.games, p.balls, ...(points ? [p.points] : []), p.fouls, p.best_run, p.break_and_runs]))),
    el("h3", {}, t("card.racks")),
    el("div", { "data-field": "racks" }, table([t("h.game"), t("c.breaker"), t("h.result"), t("h.shot_count")],
      m.racks.map((r) => [r.game_no, who(r.breaker), r.winner === null || r.winner === undefined ? "—" : who(r.winner), r.shots]))),
    el("h3", {}, t("h.record")),
    el("div", { "data-field": "shots" }, table([t("h.shot"), t("h.game"), t("h.player"), t("h.balls"), ...(points ? [t("h.points")] : []), t("h.fouls"), t("h.what")],
      m.shots.map((s) => [s.shot, s.game_no, who(s.player), s.balls.map(ball).join(", ") || "—", ...(points ? [s.points] : []),
        s.fouls.map(foulName).join(", ") || "—", told(s, who)]),
      // on a phone: the shot, its player, its points and what happened (the balls and fouls in words)
      points ? [1, 3, 5] : [1, 3, 4])));
})();
