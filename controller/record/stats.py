"""History and statistics from the record, across tables and evenings.

A finished match (its ``match_over`` stored, and every seq of its table up to it complete or
known lost) is summed up once into ``matches`` and ``match_players`` from its events: each
shot's ruling (``rulings``: with every part its questions' answers added; a shot ruled
again counts as ruled last; undone shots not at all), each shot the player's whose turn
the ruling before it gave.
Per player: matches, games, balls and points credited, the best run (most balls credited in
consecutive shots of one turn), break-and-runs (games won with every shot the winner's),
fouls, and the win rate per game. Per table: sessions, a run of matches with less than
``SESSION_GAP_S`` between one's end and the next one's start. Times are Unix seconds: a
table's ``ts`` is its own clock, set to the wall by the least delay seen in the match.
"""

from __future__ import annotations

import csv
import io
import json
import logging
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa

from controller.record.store import Store, Stored, match_players, matches, messages, tables

#: Matches further apart than this are two sessions of a table.
SESSION_GAP_S = 600.0


log = logging.getLogger(__name__)


@dataclass
class _Player:
    name: str
    won: bool = False
    games_won: int = 0
    balls: int = 0
    points: int = 0
    best_run: int = 0
    break_and_runs: int = 0
    fouls: int = 0


@dataclass
class Ruled:
    """A match as its events rule it (``rulings``): ``shots`` each shot's ruling, as
    ``shot_result``'s data with every decision of the shot; ``games`` each finished game's
    winner and shots; ``fouls`` the ``foul`` events' data by shot."""

    started: Stored
    shots: dict[int, dict[str, Any]] = field(default_factory=dict)
    games: list[tuple[int | None, list[int]]] = field(default_factory=list)  # winner, shots
    fouls: dict[int, list[dict[str, Any]]] = field(default_factory=dict)


def rulings(events: list[Stored]) -> Ruled:
    """Returns the rulings of the match whose events (its ``match_started`` first) are
    ``events``. A shot's ``shot_result`` that is not ``corrected`` goes on with its ruling
    (the decisions that a question's answer made); a ``corrected`` one rules the shot again,
    in place of all before it; an ``undo`` takes back the shots after ``back_to_shot``."""
    match = Ruled(events[0])
    game_shots: list[int] = []
    for m in events[1:]:
        data = m.payload.get("data") or {}
        kind = m.kind
        if kind == "shot_result":
            shot = int(data["shot"])
            before = match.shots.get(shot)
            if before is not None and not data.get("corrected"):
                data = {**data, "decisions": [*before.get("decisions", []), *data.get("decisions", [])]}
            match.shots[shot] = data
            if shot not in game_shots:
                game_shots.append(shot)
        elif kind == "foul":
            match.fouls.setdefault(int(data.get("shot") or 0), []).append(data)
        elif kind == "undo":
            back = int(data.get("back_to_shot", 0))
            for shot in [s for s in match.shots if s > back]:
                del match.shots[shot]
            for shot in [s for s in match.fouls if s > back]:
                del match.fouls[shot]
            game_shots = [s for s in game_shots if s <= back]
        elif kind == "game_over":
            match.games.append((data.get("winner"), game_shots))
            game_shots = []
    return match


def summarize_finished(store: Store) -> int:
    """Sums up every finished match not yet summed up; returns how many."""
    with store.engine.connect() as conn:
        # summed up: a match's summary reaches it (a match ended again, corrected at the
        # table, is summed up to its last end; its earlier ends are not summed up again)
        done = sa.select(matches.c.last_seq).where(
            matches.c.venue == messages.c.venue, matches.c.table_id == messages.c.table_id,
            matches.c.epoch == messages.c.epoch, matches.c.first_seq <= messages.c.seq,
            matches.c.last_seq >= messages.c.seq).exists()
        rows = conn.execute(
            sa.select(messages.c.venue, messages.c.table_id, messages.c.seq, messages.c.epoch)
            .join(tables, sa.and_(tables.c.venue == messages.c.venue,
                                  tables.c.table_id == messages.c.table_id,
                                  tables.c.epoch == messages.c.epoch))
            .where(messages.c.kind == "match_over", messages.c.seq <= tables.c.complete_upto,
                   ~done)).all()
    for venue, table, seq, epoch in rows:
        try:
            summarize(store, venue, table, seq, epoch)
        except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
            # a match whose messages are not as a table makes them: its figures are left
            # out (said each time it is tried: after every batch), the record goes on
            log.error("%s/%s: the match ending at seq %d cannot be summed up: %r", venue,
                      table, seq, exc)
    return len(rows)


def summarize(store: Store, venue: str, table: str, over_seq: int, epoch: str = "") -> None:
    """Sums up the match of one table that ended at seq ``over_seq`` of the table's journal's
    ``epoch`` (none without its start)."""
    with store.engine.connect() as conn:
        start = conn.scalar(sa.select(sa.func.max(messages.c.seq)).where(
            messages.c.venue == venue, messages.c.table_id == table, messages.c.epoch == epoch,
            messages.c.kind == "match_started", messages.c.seq < over_seq))
        # a table's ts is its own clock, not the wall's: each message's arrival less its ts is
        # the clock's offset plus the delay, least for those that came live
        offset = conn.scalar(sa.select(sa.func.min(messages.c.received - messages.c.ts)).where(
            messages.c.venue == venue, messages.c.table_id == table, messages.c.epoch == epoch,
            messages.c.seq >= (start or 0),
            messages.c.seq <= over_seq, messages.c.ts.is_not(None)))
    if start is None:
        return
    offset = float(offset or 0.0)
    events = [m for m in store.messages(venue, table, start, over_seq, epoch) if m.topic == "event"]
    match = rulings(events)
    over = events[-1].payload.get("data") or {}
    started = match.started.payload.get("data") or {}
    named = started.get("players")
    players = [_Player(str(name)) for name in (named if isinstance(named, list) else ())]
    breaker = started.get("breaker")
    _count(match, players, breaker if isinstance(breaker, int) else 0)
    winner = over.get("winner")
    if isinstance(winner, int) and 0 <= winner < len(players):
        players[winner].won = True
    abandoned = bool(over.get("abandoned"))
    cup = over.get("tournament", started.get("tournament"))
    row = {"venue": venue, "table_id": table, "epoch": epoch,
           "match_id": str(started.get("match_id")),
           "game": str(started.get("game")),
           "started": _wall(match.started.payload.get("ts"), offset),
           "ended": _wall(events[-1].payload.get("ts"), offset), "first_seq": start, "last_seq": over_seq,
           "players": json.dumps([p.name for p in players], ensure_ascii=False),
           "winner": winner if isinstance(winner, int) else None, "abandoned": abandoned,
           "tournament": json.dumps(cup) if _is_cup(cup) else None}
    with store.engine.begin() as conn:
        key = sa.and_(matches.c.venue == venue, matches.c.table_id == table,
                      matches.c.epoch == epoch, matches.c.match_id == row["match_id"])
        conn.execute(sa.delete(matches).where(key))
        conn.execute(sa.delete(match_players).where(
            match_players.c.venue == venue, match_players.c.table_id == table,
            match_players.c.epoch == epoch, match_players.c.match_id == row["match_id"]))
        conn.execute(sa.insert(matches), [row])
        if players:
            conn.execute(sa.insert(match_players), [
                {"venue": venue, "table_id": table, "epoch": epoch, "match_id": row["match_id"],
                 "idx": i,
                 "name": p.name, "game": row["game"], "won": p.won, "games_won": p.games_won,
                 "games_played": len(match.games), "balls": p.balls, "points": p.points,
                 "best_run": p.best_run, "break_and_runs": p.break_and_runs, "fouls": p.fouls}
                for i, p in enumerate(players)])


def _is_cup(cup: Any) -> bool:
    """Returns whether ``cup`` names a tournament match as a table does: ``{"id", "match"}``,
    each text."""
    return (isinstance(cup, dict) and set(cup) == {"id", "match"}
            and all(isinstance(v, str) and v for v in cup.values()))


def _wall(ts: Any, offset: float) -> float | None:
    return round(float(ts) + offset, 3) if isinstance(ts, int | float) else None


def _count(match: Ruled, players: list[_Player], breaker: int) -> None:
    """Adds each shot's balls, points, fouls and runs, and each game's winner, to ``players``.
    A shot is the player's whose turn its previous ruling gave (``to_shoot``; the breaker's
    first): balls credited to a player count for them (Siberian Ten, pyramid), balls that stay
    down (Ten-ball) for the shooter."""
    run_player, run = None, 0
    shooter_of: dict[int, int] = {}
    shooter = breaker
    for shot in sorted(match.shots):
        result = match.shots[shot]
        shooter_of[shot] = shooter
        balls = 0
        for d in result.get("decisions") or []:
            kind, who = d.get("decision"), d.get("player")
            if kind == "BallStaysDown" and 0 <= shooter < len(players):
                who = shooter
            if not isinstance(who, int) or not 0 <= who < len(players):
                continue
            if kind in ("BallCredited", "BallStaysDown"):
                players[who].balls += 1
                players[who].points += int(d.get("points", 1))
                balls += who == shooter
            elif kind == "FoulCalled":
                players[who].fouls += 1
        if balls and shooter == run_player:
            run += balls
        elif balls:
            run_player, run = shooter, balls
        else:
            run_player, run = None, 0
        if balls and 0 <= shooter < len(players):
            players[shooter].best_run = max(players[shooter].best_run, run)
        if isinstance(result.get("to_shoot"), int):
            shooter = result["to_shoot"]
    for winner, shots in match.games:
        if not isinstance(winner, int) or not 0 <= winner < len(players):
            continue
        players[winner].games_won += 1
        if shots and all(shooter_of.get(s) == winner for s in shots):
            players[winner].break_and_runs += 1


# ---------------------------------------------------------------------- reading
def player(store: Store, name: str | None = None, player_id: str | None = None) -> dict[str, Any]:
    """Returns one player's figures, in all and per game (``win_rate``: matches won/played):
    the roster's entry ``player_id`` (one person: two «Борис» are two entries), else every
    match played under ``name`` as written."""
    c = match_players.c
    who = c.player_id == player_id if player_id is not None else c.name == name
    q = (sa.select(c.game, sa.func.count(), sa.func.sum(sa.cast(c.won, sa.Integer)),
                   sa.func.sum(c.games_won), sa.func.sum(c.games_played), sa.func.sum(c.balls),
                   sa.func.sum(c.points), sa.func.max(c.best_run), sa.func.sum(c.break_and_runs),
                   sa.func.sum(c.fouls))
         .where(who).group_by(c.game).order_by(c.game))
    per_game = {}
    with store.engine.connect() as conn:
        if player_id is not None:  # the name of their last match
            name = conn.scalar(sa.select(c.name).join(matches, sa.and_(
                matches.c.venue == c.venue, matches.c.table_id == c.table_id,
                matches.c.epoch == c.epoch, matches.c.match_id == c.match_id))
                .where(who).order_by(matches.c.ended.desc()).limit(1))
        for game, n, won, gw, gp, balls, points, best, bnr, fouls in conn.execute(q):
            per_game[game] = {"matches": n, "won": int(won or 0), "games_won": int(gw or 0),
                              "games_played": int(gp or 0), "balls": int(balls or 0),
                              "points": int(points or 0), "best_run": int(best or 0),
                              "break_and_runs": int(bnr or 0), "fouls": int(fouls or 0),
                              "win_rate": round(int(won or 0) / n, 3) if n else None}
    total = {k: sum(g[k] for g in per_game.values()) for k in (
        "matches", "won", "games_won", "games_played", "balls", "points", "break_and_runs", "fouls")}
    total["best_run"] = max((g["best_run"] for g in per_game.values()), default=0)
    return {"name": name, "player_id": player_id, "total": total, "games": per_game}


def sessions(store: Store, venue: str | None = None) -> list[dict[str, Any]]:
    """Returns each table's sessions, ``{venue, table, start, end, matches}``, oldest first."""
    q = sa.select(matches.c.venue, matches.c.table_id, matches.c.started, matches.c.ended).order_by(
        matches.c.venue, matches.c.table_id, matches.c.started)
    if venue is not None:
        q = q.where(matches.c.venue == venue)
    out: list[dict[str, Any]] = []
    with store.engine.connect() as conn:
        for v, t, start, end in conn.execute(q):
            last = out[-1] if out else None
            if (last is not None and (last["venue"], last["table"]) == (v, t)
                    and start is not None and last["end"] is not None
                    and start - last["end"] < SESSION_GAP_S):
                last["end"] = max(last["end"], end or last["end"])
                last["matches"] += 1
            else:
                out.append({"venue": v, "table": t, "start": start, "end": end, "matches": 1})
    return out


def sessions_csv(store: Store, venue: str | None = None) -> str:
    """Returns the sessions as CSV for a program (venue, table, start, end, matches; Unix
    seconds): ``record --sessions``."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, ["venue", "table", "start", "end", "matches"])
    writer.writeheader()
    writer.writerows(sessions(store, venue))
    return buf.getvalue()

