"""A table's match in progress, read from its recordings: what a page opened mid-match asks
of a table's own server (its start and earlier racks; ``/history/live/<table>.json``). The
venue's history of finished matches is the venue record's (``controller.record``), not this.

A table records every session as a trace under ``<data>/traces`` (``controller.pipeline.trace``); a
session that resumed a match starts with that match's inputs again, and a long session goes
on in further files with the same header. ``History`` follows each session through the
pipeline as the table did (no broker, in a thread: never on the table's own loop), reading
only what was appended since it last looked, and keeps, per match, what was published
about it: its shots, fouls, racks and result. A match seen in two sessions (a restart in
the middle) is the later session's, which holds all of it. A finished session is read once.

A match is a dict (``Match.to_json``)::

    {"id": "t1-3fa9c2d1e0", "table": "t1", "game": "<a game id>", "players": ["Ann", "Bob"],
     "race_to": 3, "started": "2026-12-03T19:02:11Z", "ended": "...", "seconds": 2710,
     "winner": 0, "draw": false, "abandoned": false, "games": [3, 1],
     "racks": [{"game_no": 1, "breaker": 0, "winner": 0, "shots": 12}],
     "shots": [{"shot": 1, "game_no": 1, "player": 0, "balls": [8, 2], "taken": [],
                "handicap": [], "points": 2, "fouls": [], "next": 0, "corrected": false,
                "decisions": [...]}],
     "summary": [{"player": 0, "name": "Ann", "balls": 23, "points": 31, "fouls": 2,
                  "best_run": 6, "games": 3, "break_and_runs": 1}]}
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from controller.pipeline.fusion import FusionConfig, fusion_config
from controller.pipeline.table import Message, Table, feed
from controller.pipeline.told import balls_of
from controller.pipeline.trace import HealthLine, RequestLine, parse_line
from controller.words.texts import LANGUAGES
from hardware.events import SensorEvent

log = logging.getLogger(__name__)

CSV_COLUMNS = ("match", "table", "game_no", "shot", "player", "balls", "points", "fouls", "next",
               "corrected")


@dataclass(slots=True)
class _Match:
    """A match as its session's messages tell it (built in order; see ``_Session``)."""

    table: str
    start_ts: float
    game: str
    players: list[str]
    race_to: int
    started: datetime
    ended: datetime | None = None
    winner: int | None = None
    draw: bool = False
    abandoned: bool = False
    games: list[int] = field(default_factory=list)
    shots: dict[int, dict[str, Any]] = field(default_factory=dict)
    fouls: dict[int, list[tuple[int, list[str]]]] = field(default_factory=dict)
    breakers: dict[int, int] = field(default_factory=dict)
    rack_winners: dict[int, int | None] = field(default_factory=dict)
    ident: str = ""  # made once (below): what names the match never changes

    def __post_init__(self) -> None:
        key = json.dumps([self.table, self.start_ts, self.game, self.players], ensure_ascii=False)
        self.ident = f"{self.table}-{hashlib.sha1(key.encode()).hexdigest()[:10]}"

    @property
    def id(self) -> str:
        return self.ident

    @property
    def finished(self) -> bool:
        return self.ended is not None

    def to_json(self) -> dict[str, Any]:
        """Returns the match as the pages and the exports show it (module docstring)."""
        shots = [self.shots[n] for n in sorted(self.shots)]
        for s in shots:
            s["fouls"] = [f for player, fouls in self.fouls.get(s["shot"], []) for f in fouls
                          if player == s["player"]]
        racks = []
        for n in sorted(set(self.breakers) | set(self.rack_winners)):
            racks.append({"game_no": n, "breaker": self.breakers.get(n), "winner": self.rack_winners.get(n),
                          "shots": sum(1 for s in shots if s["game_no"] == n)})
        return {
            "id": self.id, "table": self.table, "game": self.game, "players": self.players,
            "race_to": self.race_to, "started": _iso(self.started),
            "ended": _iso(self.ended) if self.ended else None,
            "seconds": round((self.ended - self.started).total_seconds()) if self.ended else None,
            "winner": self.winner, "draw": self.draw, "abandoned": self.abandoned,
            "games": self.games, "racks": racks, "shots": shots,
            "summary": _summary(self.players, shots, racks, self.games),
        }


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _summary(players: list[str], shots: list[dict[str, Any]], racks: list[dict[str, Any]],
             games: list[int]) -> list[dict[str, Any]]:
    """Returns each player's balls, points, fouls, best run (balls in one visit), games won and
    break-and-runs (racks the breaker won without the others having a shot)."""
    out = []
    for i, name in enumerate(players):
        mine = [s for s in shots if s["player"] == i]
        best = run = 0
        previous: int | None = None
        for s in shots:
            if s["player"] != previous:
                run = 0
                previous = s["player"]
            if s["player"] == i:  # a shot without a ball that counts ends the run
                run = run + len(s["balls"]) if s["balls"] and not s["fouls"] else 0
                best = max(best, run)
        break_and_runs = sum(
            1 for r in racks if r["breaker"] == i and r["winner"] == i and r["shots"]
            and all(s["player"] == i for s in shots if s["game_no"] == r["game_no"]))
        out.append({"player": i, "name": name, "balls": sum(len(s["balls"]) for s in mine),
                    "points": sum(s["points"] for s in mine),
                    "fouls": sum(len(s["fouls"]) for s in mine), "best_run": best,
                    "games": games[i] if i < len(games) else 0, "break_and_runs": break_and_runs})
    return out


class _Session:
    """Follows one session's published messages; ``matches`` are the matches it saw."""

    def __init__(self, table: str, recorded: datetime, anchor_t: float | None) -> None:
        self.table = table
        self.recorded = recorded
        self.anchor_t = anchor_t
        self.matches: list[_Match] = []
        self.current: _Match | None = None
        self.to_shoot: int | None = None
        self.game_no = 0

    def wall(self, t: float) -> datetime:
        """The wall clock's time at the table's time ``t``."""
        return self.recorded + timedelta(seconds=t - (self.anchor_t if self.anchor_t is not None else t))

    def take(self, msg: Message) -> None:
        p = msg.payload
        if msg.topic == "state":
            self.to_shoot = p.get("to_shoot")
            self.game_no = p.get("game_no") or self.game_no
            m = self.current
            if m is not None and p.get("status") == "break" and self.to_shoot is not None:
                m.breakers.setdefault(self.game_no, self.to_shoot)
            return
        if msg.topic != "event":
            return
        kind, d, ts = p.get("type"), p.get("data") or {}, float(p.get("ts", 0.0))
        if kind == "match_started":
            self.current = _Match(self.table, ts, d.get("game", "?"), list(d.get("players", [])),
                                  int(d.get("race_to") or 1), self.wall(ts))
            self.current.breakers[1] = int(d.get("breaker") or 0)
            self.matches.append(self.current)
            return
        m = self.current
        if m is None:
            return
        if kind == "shot_result":
            self._shot(m, d)
        elif kind == "foul":
            fouls = (int(d.get("player") or 0), [str(f) for f in d.get("fouls", [])])
            m.fouls.setdefault(int(d.get("shot") or 0), []).append(fouls)
        elif kind == "undo":
            back = int(d.get("back_to_shot") or 0)
            for n in [n for n in m.shots if n > back]:
                del m.shots[n]
            for n in [n for n in m.fouls if n > back]:
                del m.fouls[n]
            games = {s["game_no"] for s in m.shots.values()} or {1}
            for n in [n for n in m.rack_winners if n >= max(games)]:
                del m.rack_winners[n]
        elif kind == "game_over":
            m.rack_winners[int(d.get("game_no") or 0)] = d.get("winner")
            m.games = list(d.get("games", m.games))
        elif kind == "match_over":
            m.ended = self.wall(ts)
            m.winner = d.get("winner")
            m.abandoned = bool(d.get("abandoned"))
            m.draw = m.winner is None and not m.abandoned
            m.games = list(d.get("games", m.games))
            self.current = None

    def _shot(self, m: _Match, d: dict[str, Any]) -> None:
        n = int(d.get("shot") or 0)
        decisions = list(d.get("decisions", []))
        before = m.shots.get(n)
        player = before["player"] if before else self.to_shoot
        points = sum(int(x.get("points") or 0) for x in decisions
                     if x.get("decision") in ("BallCredited", "BulletScored") and x.get("player") == player)
        m.shots[n] = {"shot": n, "game_no": before["game_no"] if before else self.game_no or 1,
                      "player": player, **balls_of(decisions), "points": points, "fouls": [],
                      "next": d.get("to_shoot"), "corrected": bool(d.get("corrected")),
                      "decisions": decisions}


def _sessions(directory: Path) -> list[list[Path]]:
    """Returns the trace files of ``directory`` grouped by session (a header each; a
    session's later files repeat its header)."""
    groups: list[list[Path]] = []
    last: str | None = None
    for path in sorted(directory.glob("trace-*.jsonl")):
        try:
            with path.open(encoding="utf-8", errors="replace") as f:
                head = f.readline()
        except OSError:
            continue
        if head != last or not groups:
            groups.append([])
        groups[-1].append(path)
        last = head
    return groups


def _lines(files: list[Path]) -> Iterator[str]:
    """Yields the session's lines: the first file's header, every file's inputs."""
    for n, path in enumerate(files):
        with path.open(encoding="utf-8", errors="replace") as f:
            for i, line in enumerate(f):
                if i == 0 and n > 0:
                    continue
                yield line


def _header_and_anchor(first: Path) -> tuple[dict[str, Any], float | None]:
    """Returns a session's header and the table's time when the session began (its first
    input after those it resumed with)."""
    header: dict[str, Any] = {}
    anchor: float | None = None
    with first.open(encoding="utf-8", errors="replace") as f:
        try:
            header = json.loads(f.readline() or "{}")
        except ValueError:
            header = {}
        resumed = int(header.get("resumed") or 0)
        for i, line in enumerate(f):
            if i >= resumed:
                try:
                    anchor = float(json.loads(line)["t"])
                except (ValueError, KeyError, TypeError):
                    continue
                break
    return header, anchor


class _Follower:
    """One session's recording, followed as it grows: each look reads only the lines appended
    since the last (a trace is append-only), through a table kept from one look to the next.
    So a request never replays a session again; a finished session is read once."""

    def __init__(self, table: str, files: list[Path]) -> None:
        header, anchor = _header_and_anchor(files[0])
        try:
            recorded = datetime.strptime(str(header.get("recorded")),
                                         "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
        except ValueError:
            recorded = datetime.fromtimestamp(files[0].stat().st_mtime, UTC)
        self.session = _Session(table, recorded, anchor)
        day = str(header.get("recorded", ""))[:10].replace("-", "")
        self._prefix = f"m-{day}" if day else "m-replay"
        self._language = str(header["language"]) if header.get("language") in LANGUAGES else "en"
        self._fusion: FusionConfig | None = None
        if isinstance(header.get("fusion"), dict):
            try:
                self._fusion = fusion_config(header["fusion"])
            except ValueError:
                self._fusion = None
        self._table: Table | None = None
        self._read: dict[str, int] = {}  # file name: bytes taken
        self._last_t = float("-inf")
        self._settled: tuple[int, list[_Match]] | None = None  # (bytes taken, matches then)
        self.bad = 0

    def update(self, files: list[Path]) -> list[_Match]:
        """Takes what was appended to ``files`` since the last look; returns the matches."""
        for path in files:
            start = self._read.get(path.name, 0)
            try:
                with path.open("rb") as f:
                    f.seek(start)
                    data = f.read()
            except OSError:
                continue
            end = data.rfind(b"\n") + 1  # a line still being written waits for the next look
            if not end:
                continue
            self._read[path.name] = start + end
            for i, raw in enumerate(data[:end].splitlines()):
                if start == 0 and i == 0:
                    continue  # every file's header (the first was read when following began)
                self._feed(raw.decode("utf-8", "replace"))
        return self._as_settled()

    def _as_settled(self) -> list[_Match]:
        """Returns the matches as they stand once the open shot has settled (as the live
        table's clock settles it a moment later): worked out on a copy, kept until more
        lines come, so that the followed table takes the next lines as the live one did."""
        if self._table is None or self._table.next_deadline == float("inf"):
            return self.session.matches
        taken = sum(self._read.values())
        if self._settled is None or self._settled[0] != taken:
            table, session = copy.deepcopy((self._table, self.session))
            for msg in table.settle():
                session.take(msg)
            self._settled = (taken, session.matches)
        return self._settled[1]

    def _feed(self, text: str) -> None:
        if not text.strip():
            return
        item = parse_line(text, 0)
        if not isinstance(item, SensorEvent | RequestLine | HealthLine) or item.t < self._last_t:
            self.bad += 1
            return
        self._last_t = item.t
        if self._table is None:
            prefix = self._prefix
            self._table = Table(fusion=self._fusion, match_id=lambda n: f"{prefix}-{n}",
                                language=self._language)
            for msg in self._table.start(item.t):
                self.session.take(msg)
        for msg in feed(self._table, item):
            self.session.take(msg)


class History:
    """The matches recorded by the tables whose data directories it is given.

    Each session's recording is followed (``_Follower``): a look reads what was appended
    since the last one."""

    def __init__(self, tables: dict[str, Path]) -> None:
        self.tables = dict(tables)
        self._followers: dict[tuple[str, str], _Follower] = {}
        self._lock = threading.Lock()

    def _matches(self, only: str) -> Iterable[_Match]:
        seen: dict[str, _Match] = {}
        for table, data in sorted(self.tables.items()):
            if table != only:
                continue
            groups = _sessions(data / "traces")
            present = {(table, files[0].name) for files in groups}
            for gone in [k for k in self._followers if k[0] == table and k not in present]:
                del self._followers[gone]  # its files were removed
            for files in groups:
                key = (table, files[0].name)
                if key not in self._followers:
                    try:
                        self._followers[key] = _Follower(table, files)
                    except OSError:
                        continue
                follower = self._followers[key]
                bad = follower.bad
                for m in follower.update(files):
                    seen[m.id] = m  # a later session holds all of a resumed match
                if follower.bad > bad:
                    log.warning("history of %s: %d unreadable trace lines in %s", table,
                                follower.bad - bad, files[0])
        return seen.values()

    def live(self, table: str) -> dict[str, Any] | None:
        """Returns the match being played on ``table`` as recorded so far (its start, racks
        and summary, no shots), or None when its last recorded match is over or there is none."""
        with self._lock:
            matches = list(self._matches(table))
        if not matches or matches[-1].finished:
            return None
        return {k: v for k, v in matches[-1].to_json().items() if k != "shots"}
