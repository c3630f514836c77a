"""The venue record as the history pages read it: one page of the finished matches (filtered
by table, player and date, the latest start first), one match with every shot told from its stored
messages, and its shots as CSV in the page's language.

A list's row (``page``)::

    {"id": "club~t1~3f09c2d1a4b5e6f7~m-20261203-1", "venue": "club", "table": "t1",
     "epoch": "3f09c2d1a4b5e6f7", "match_id": "m-20261203-1", "game": "pyramid",
     "players": ["Анна", "Борис"], "player_ids": ["p-…", "p-…"], "started": 1764788531.2,
     "ended": ..., "seconds": 2710, "winner": 1, "abandoned": false, "draw": false,
     "games": [1, 2], "tournament": {"id": "a1b2c3d4", "match": "W1-3"} | null}

A match (``match``) adds ``race_to``, ``racks`` ``[{game_no, breaker, winner, shots}]``,
``shots`` ``[{shot, game_no, player, balls, taken, handicap, points, fouls, next, corrected}]`` and
``summary`` (each player's figures as ``controller.record.stats`` summed them). Times are
Unix seconds on the wall's clock (``stats``: the table's clock set by its least delay).
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import sqlalchemy as sa

from controller.pipeline.told import balls_of
from controller.record import stats
from controller.record.store import Store, Stored, match_players, matches, messages, tables
from controller.words import catalogue

#: A match's id in the pages: its venue, its table, the table's journal's epoch and the
#: table's match id (unique per journal: a league's record holds many venues' ``t1``, and a
#: replaced Pi's new journal numbers its matches from 1 again), joined by this.
SEP = "~"


@dataclass(frozen=True, slots=True)
class HistoryQuery:
    """Which finished matches a list shows: a table, a player (part of a name, any case), one
    player's (``name``: the name as the record keeps it; ``player_id``: the roster's id, for
    their page), a date range
    (``YYYY-MM-DD``, inclusive, by the match's start in the page's time zone, ``tz_minutes``
    east of UTC) and the page."""

    table: str | None = None
    player: str | None = None
    name: str | None = None
    player_id: str | None = None
    since: str | None = None
    until: str | None = None
    tz_minutes: int = 0
    page: int = 1
    per_page: int = 50


def _day_start(day: str, tz_minutes: int) -> float:
    """Returns the Unix time at which ``day`` (YYYY-MM-DD) begins ``tz_minutes`` east of UTC;
    raises ValueError for another form."""
    moment = datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=UTC)
    return moment.timestamp() - tz_minutes * 60


def page(store: Store, query: HistoryQuery) -> dict[str, Any]:
    """Returns one page of the finished matches ``query`` selects, the latest start first
    (the start the list shows: the index ``matches_started``):
    ``{"matches": [rows], "total": N, "page": p, "pages": P, "per_page": n}``. Raises
    ValueError for a date it cannot read."""
    m, p = matches.c, match_players.c
    where: list[Any] = [m.ended.is_not(None)]
    if query.table:
        where.append(m.table_id == query.table)
    if query.since:
        where.append(m.started >= _day_start(query.since, query.tz_minutes))
    if query.until:
        where.append(m.started < _day_start(query.until, query.tz_minutes) + 86400)
    with store.engine.connect() as conn:
        for names in _names(conn, query):
            where.append(sa.tuple_(m.venue, m.table_id, m.epoch, m.match_id).in_(
                sa.select(p.venue, p.table_id, p.epoch, p.match_id).where(p.name.in_(names))))
        if query.player_id:
            where.append(sa.tuple_(m.venue, m.table_id, m.epoch, m.match_id).in_(
                sa.select(p.venue, p.table_id, p.epoch, p.match_id)
                .where(p.player_id == query.player_id)))
        total = int(conn.scalar(sa.select(sa.func.count()).select_from(matches).where(*where)) or 0)
        pages = max(1, -(-total // query.per_page))
        number = min(max(1, query.page), pages)
        rows = [r._asdict() for r in conn.execute(
            sa.select(matches).where(*where).order_by(m.started.desc(), m.ended.desc(), m.table_id)
            .limit(query.per_page).offset((number - 1) * query.per_page))]
        won = _games_won(conn, rows)
    return {"matches": [_row(r, won) for r in rows], "total": total, "page": number,
            "pages": pages, "per_page": query.per_page}


def _names(conn: sa.Connection, query: HistoryQuery) -> list[list[str]]:
    """Returns, for each name the query asks for, the players' names it selects: ``name`` as
    it is; the known names holding ``player``, in any case and any alphabet (case-folded
    here: SQLite's lower() knows only ASCII), from the index ``match_players_name``."""
    out = [[query.name]] if query.name else []
    if query.player:
        part = query.player.casefold()
        known = conn.scalars(sa.select(match_players.c.name).distinct())
        out.append([n for n in known if n is not None and part in n.casefold()])
    return out


#: A match's key: (venue, table, epoch, match id).
MatchKey = tuple[str, str, str, str]
#: Its players' figures the list shows, in order: (games won, roster id).
Figures = dict[MatchKey, list[tuple[int, str | None]]]


def _key(r: dict[str, Any]) -> MatchKey:
    return r["venue"], r["table_id"], r["epoch"], r["match_id"]


def _games_won(conn: sa.Connection, rows: list[dict[str, Any]]) -> Figures:
    """Returns the games each player of ``rows`` won and their roster ids, by match key."""
    if not rows:
        return {}
    p = match_players.c
    keys = {_key(r) for r in rows}
    found: Figures = {}
    # each column's IN, so that both stores look the keys up in the primary key (a row
    # value's IN is a scan on SQLite); the keys not asked for are left out here
    q = (sa.select(p.venue, p.table_id, p.epoch, p.match_id, p.idx, p.games_won, p.player_id)
         .where(p.venue.in_({k[0] for k in keys}), p.table_id.in_({k[1] for k in keys}),
                p.epoch.in_({k[2] for k in keys}), p.match_id.in_({k[3] for k in keys}))
         .order_by(p.idx))
    for venue, table, epoch, match_id, _idx, games, pid in conn.execute(q):
        if (venue, table, epoch, match_id) in keys:
            found.setdefault((venue, table, epoch, match_id), []).append((int(games or 0), pid))
    return found


def _row(r: dict[str, Any], won: Figures) -> dict[str, Any]:
    started, ended = r["started"], r["ended"]
    winner, abandoned = r["winner"], bool(r["abandoned"])
    figures = won.get(_key(r), [])
    return {"id": SEP.join(_key(r)), "venue": r["venue"], "table": r["table_id"],
            "epoch": r["epoch"], "match_id": r["match_id"], "game": r["game"],
            "players": json.loads(r["players"] or "[]"),
            "player_ids": [pid for _games, pid in figures],
            "started": started, "ended": ended,
            "seconds": round(ended - started) if started is not None and ended is not None else None,
            "winner": winner, "abandoned": abandoned, "draw": winner is None and not abandoned,
            "games": [games for games, _pid in figures],
            "tournament": json.loads(r["tournament"]) if r.get("tournament") else None}


def match(store: Store, ident: str) -> dict[str, Any] | None:
    """Returns the finished match ``ident`` (``venue~table~epoch~match_id``) with every shot,
    or None when the record has none."""
    parts = ident.split(SEP)
    if len(parts) != 4:
        return None
    venue, table, epoch, match_id = parts
    m = matches.c
    with store.engine.connect() as conn:
        found = conn.execute(sa.select(matches).where(
            m.venue == venue, m.table_id == table, m.epoch == epoch,
            m.match_id == match_id)).first()
        if found is None:
            return None
        row = found._asdict()
        p = match_players.c
        figures = [f._asdict() for f in conn.execute(
            sa.select(match_players).where(p.venue == venue, p.table_id == table,
                                           p.epoch == epoch, p.match_id == match_id)
            .order_by(p.idx))]
    events = [s for s in store.messages(venue, table, row["first_seq"], row["last_seq"], epoch)
              if s.topic == "event"]
    told = _told(events)
    out = _row(row, {_key(row): [(int(f["games_won"] or 0), f["player_id"]) for f in figures]})
    out["race_to"] = told["race_to"]
    out["racks"] = told["racks"]
    out["shots"] = told["shots"]
    out["summary"] = [{"player": f["idx"], "name": f["name"], "player_id": f["player_id"],
                       "games": f["games_won"],
                       "balls": f["balls"], "points": f["points"], "fouls": f["fouls"],
                       "best_run": f["best_run"], "break_and_runs": f["break_and_runs"]}
                      for f in figures]
    return out


def live(store: Store, table: str) -> dict[str, Any] | None:
    """Returns the match being played on ``table`` as the record holds it so far (the one
    begun last when venues share the record): ``{table, venue, game, players, race_to,
    started (ISO 8601, UTC), racks}``, what a page opened mid-match asks
    (``/history/live/<table>.json``); None when its last match is over or there is none."""
    c = messages.c
    with store.engine.connect() as conn:
        keys = conn.execute(sa.select(tables.c.venue, tables.c.epoch)
                            .where(tables.c.table_id == table)).all()
        begun = []
        for venue, epoch in keys:  # each journal's (epoch's) last match begun
            seq = conn.scalar(sa.select(sa.func.max(c.seq)).where(
                c.venue == venue, c.table_id == table, c.epoch == epoch,
                c.kind == "match_started"))
            if seq is not None:
                received = conn.scalar(sa.select(c.received).where(
                    c.venue == venue, c.table_id == table, c.epoch == epoch, c.seq == seq))
                begun.append((received or 0.0, venue, epoch, int(seq)))
        if not begun:
            return None
        _received, venue, epoch, start = max(begun)
        same = (c.venue == venue, c.table_id == table, c.epoch == epoch)
        if conn.scalar(sa.select(c.seq).where(*same, c.kind == "match_over",
                                             c.seq > start).limit(1)):
            return None
        # the table's clock set to the wall's by the least delay seen (as ``stats`` does)
        offset = conn.scalar(sa.select(sa.func.min(c.received - c.ts)).where(
            *same, c.seq >= start, c.ts.is_not(None)))
    events = [s for s in store.messages(venue, table, start, epoch=epoch) if s.topic == "event"]
    started = events[0].payload.get("data") or {}
    ts = events[0].payload.get("ts")
    wall = float(ts) + float(offset or 0.0) if isinstance(ts, int | float) else None
    told = _told(events)
    return {"table": table, "venue": venue, "game": started.get("game"),
            "players": started.get("players") or [], "race_to": told["race_to"],
            "started": (datetime.fromtimestamp(wall, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
                        if wall is not None else None),
            "racks": told["racks"]}


def _told(events: list[Stored]) -> dict[str, Any]:
    """Returns a match's race, racks and shots as its stored events rule them
    (``stats.rulings``): each shot's balls, its shooter's points and fouls, the player whose
    turn the ruling before it gave (the breaker's first) and who shoots next."""
    ruled = stats.rulings(events)
    started = ruled.started.payload.get("data") or {}
    breaker = started.get("breaker") if isinstance(started.get("breaker"), int) else 0
    game_of = {shot: n for n, (_winner, shots) in enumerate(ruled.games, 1) for shot in shots}
    out: list[dict[str, Any]] = []
    shooter: Any = breaker
    breakers: dict[int, Any] = {}
    for n in sorted(ruled.shots):
        s = ruled.shots[n]
        decisions = s.get("decisions") or []
        game_no = game_of.get(n, len(ruled.games) + 1)
        breakers.setdefault(game_no, shooter)
        out.append({
            "shot": n, "game_no": game_no, "player": shooter, "next": s.get("to_shoot"),
            **balls_of(decisions),
            "points": sum(int(d.get("points") or 0) for d in decisions
                          if d.get("decision") in ("BallCredited", "BulletScored")
                          and d.get("player") == shooter),
            "corrected": bool(s.get("corrected")),
            "fouls": [str(f) for d in decisions if d.get("decision") == "FoulCalled"
                      and d.get("player") == shooter for f in d.get("fouls") or []]})
        if isinstance(s.get("to_shoot"), int):
            shooter = s["to_shoot"]
    winners = {n: winner for n, (winner, _shots) in enumerate(ruled.games, 1)}
    racks = [{"game_no": g, "breaker": breakers.get(g), "winner": winners.get(g),
              "shots": sum(1 for s in out if s["game_no"] == g)}
             for g in sorted(set(breakers) | set(winners))]
    return {"race_to": started.get("race_to"), "racks": racks, "shots": out}


#: Where a spreadsheet expects ``;`` between fields (the decimal separator is a comma): what
#: Excel on a Russian Windows and LibreOffice in Russian split on.
SEMICOLON_LANGUAGES = frozenset({"ru"})
CSV_COLUMNS = ("match", "table", "game_no", "shot", "player", "balls", "points", "fouls", "next",
               "corrected")


def page_words(language: str) -> dict[str, str]:
    """Returns the pages' words in ``language`` (the catalogue's; English where it has none)."""
    found = dict(catalogue.words("en").pages)
    if language != "en" and language in catalogue.languages():
        found |= catalogue.words(language).pages
    return found


def csv_text(match: dict[str, Any], language: str = "en") -> str:
    """Returns a match's shots as CSV that Excel and LibreOffice open as is, in ``language``:
    a byte-order mark (so both read UTF-8), ``;`` between fields where the language's
    spreadsheets expect it, the pages' words for the headers and the fouls, players by name;
    text fields quoted. One row a shot."""
    words = page_words(language)
    out = io.StringIO()
    delimiter = ";" if language in SEMICOLON_LANGUAGES else ","
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\r\n", quoting=csv.QUOTE_NONNUMERIC)
    if language == "en":
        writer.writerow(CSV_COLUMNS)
    else:
        writer.writerow([words[k] for k in ("h.match", "h.table", "h.game", "h.shot", "h.player",
                                            "h.balls", "h.points", "h.fouls", "h.next", "h.corrected")])
    names = match["players"]

    def name(i: Any) -> str:
        return names[i] if isinstance(i, int) and 0 <= i < len(names) else ""

    def ball(b: Any) -> str:
        return words["h.unidentified"] if b == "object" else str(b)

    for s in match["shots"]:
        fouls = ", ".join(words.get(f"foul.{f}", f) for f in s["fouls"])
        writer.writerow([match["match_id"], match["table"], s["game_no"], s["shot"], name(s["player"]),
                         ", ".join(ball(b) for b in s["balls"]), s["points"], fouls,
                         name(s["next"]), words["h.yes"] if s["corrected"] else ""])
    return "\ufeff" + out.getvalue()


def sessions_sheet(store: Store, language: str = "en", tz_minutes: int = 0) -> str:
    """Returns the sessions as CSV for people, as a match's (``csv_text``): a
    byte-order mark, ``;`` where the language's spreadsheets expect it, the pages' words
    for the headers, tables as the pages name them («Стол 6»), start and end as local date
    and time (``tz_minutes`` east of UTC), oldest first."""
    words = page_words(language)
    out = io.StringIO()
    delimiter = ";" if language in SEMICOLON_LANGUAGES else ","
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\r\n")
    writer.writerow([words[k] for k in ("h.venue", "h.table", "h.started", "h.ended",
                                        "h.matches")])
    zone = timezone(timedelta(minutes=tz_minutes))

    def when(ts: float | None) -> str:
        return "" if ts is None else datetime.fromtimestamp(ts, zone).strftime(
            "%Y-%m-%d %H:%M")

    def table(name: str) -> str:
        n = re.fullmatch(r"[tT](\d+)", name)
        return words["page.table_n"].replace("{n}", str(int(n[1]))) if n else name

    rows = sorted(stats.sessions(store), key=lambda s: (s["start"] is None, s["start"] or 0.0))
    for s in rows:
        writer.writerow([s["venue"], table(s["table"]), when(s["start"]), when(s["end"]),
                         s["matches"]])
    return "\ufeff" + out.getvalue()
