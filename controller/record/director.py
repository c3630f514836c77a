"""The tournament director's HTTP targets (a site of the project's one server, beside
``controller.record.web``'s), over ``controller.record.tournaments``::

    GET  /record/tournaments/<venue>.json          the venue's tournaments, newest first
    POST /record/tournaments/<venue>               a new one: {"name", "format": "single" |
                                                   "double" | "groups", "seeds": [roster ids,
                                                   best first], "groups", "advance", "race",
                                                   "races": {"W1": 3, …}, "levels": {id: n},
                                                   "cap", "names": {id: name}} -> 201 {"id"}
    GET  /record/tournament/<venue>~<id>.json      the bracket: every match with its players,
                                                   status, result, table, race and handicap;
                                                   the players' names (the roster's)
    GET  /record/tournament/<venue>~<id>.csv       the same for people and a printer (a BOM)
    POST /record/tournament/<venue>~<id>           one action: {"action": "assign", "match",
                                                   "table"} (a match on a table, or moved to
                                                   it), "unassign", "fill" ({"tables": […]}),
                                                   "walkover" ({"match", "winner"}), "correct"
                                                   ({"match", "winner", "score"}) -> {"changed":
                                                   the later matches it changed, "bracket"}

A refused action is a 409, ``{"refused": "table" | "result" | "draw", "detail"}`` (a table
busy or a player at another, a match not ready, a draw the formats cannot make); an unknown
tournament a 404; a body that is not such JSON a 400. Nothing typed becomes a table's result:
results come from the tables (``tournaments.take_results``); a walkover and a correction are the
director's.

Every action (each POST) needs the director's login: HTTP Basic, user ``director`` and the
password the recorder was given (``--director-password-file``, else systemd's credential
``director-password``), compared in constant time. Without one given it is a 401 asking for it
(``WWW-Authenticate: Basic realm="billiards director"``: a browser asks its user), ``{"refused":
"login"}``; with no password configured every action is a 403, ``{"refused": "no_password"}``.
The GETs (the list, the bracket, the CSV) are open, as the record's other pages are.
"""

from __future__ import annotations

import asyncio
import csv
import hmac
import io
import json
import re
from typing import Any

import tournament as core
from controller.record import roster, tournaments
from controller.record.store import Store
from controller.web.http import JSON, Request, Response, basic_credentials

_LIST = re.compile(r"^/record/tournaments/([A-Za-z0-9_-]{1,64})(\.json)?$")
_ONE = re.compile(r"^/record/tournament/([A-Za-z0-9_-]{1,64})~([0-9a-f]{1,64})(\.json|\.csv)?$")
CSV = "text/csv; charset=utf-8"
#: A refusal's kind, as a 409's ``refused``: the page words it (``dir.why.<kind>``).
_KINDS = {core.BadAssignment: "table", core.BadResult: "result", core.BadDraw: "draw"}
#: The one user of the director's login, and the realm a browser names when it asks for it.
USER = "director"
REALM = "billiards director"
#: The systemd credential holding the director's password (deploy/billiards-recorder.service).
CREDENTIAL = "director-password"


class Refused(ValueError):
    """A body that is not the action it should be: a 400 saying why."""


def bracket(store: Store, venue: str, tournament_id: str) -> dict[str, Any]:
    """Returns the tournament as the pages draw it (module docstring); raises NoTournament."""
    made = tournaments.load(store, venue, tournament_id)
    state = made.progress()
    names = {**tournaments.names(store, venue, tournament_id),
             **{e["id"]: e["name"] for e in roster.entries(store, venue, limit=10_000)}}
    rows = []
    for match in made.draw.matches:
        seats = [s if isinstance(s, str) else (None if s is None else "bye")
                 for s in state.seats[match.id]]
        result = state.counted.get(match.id)
        row: dict[str, Any] = {
            "id": match.id, "stage": match.stage.value, "round": match.round,
            "group": match.group, "players": seats, "status": state.status[match.id].value,
            "winner": state.winners[match.id] if isinstance(state.winners[match.id], str) else None,
            "score": list(result.score) if result and result.score else None,
            "walkover": bool(result and result.walkover), "table": made.tables.get(match.id),
            "race": made.races.race(match.round), "handicap": None}
        if state.status[match.id] is core.Status.READY:
            handicap = made.pairing(match.id, state).handicap
            row["handicap"] = None if handicap is None else {
                "receiver": handicap.receiver, "frames": handicap.frames}
        rows.append(row)
    return {"id": tournament_id, "venue": venue, "format": made.draw.format.value,
            "players": list(made.draw.players),
            "names": {p: names.get(p, p) for p in made.draw.players},
            "groups": {name: list(members) for name, members in made.draw.groups},
            "matches": rows, "champion": state.champion, "finished": state.finished}


def sheet(shown: dict[str, Any]) -> str:
    """Returns the bracket as CSV for people (a byte-order mark, ``;``): one line a match."""
    out = io.StringIO()
    out.write("\ufeff")
    writer = csv.writer(out, delimiter=";", lineterminator="\n")
    writer.writerow(["match", "round", "player 1", "player 2", "winner", "score", "walkover",
                     "table", "status"])
    names = shown["names"]
    for m in shown["matches"]:
        a, b = (names.get(p, p or "") for p in m["players"])
        writer.writerow([m["id"], m["round"], a, b, names.get(m["winner"], ""),
                         ":".join(map(str, m["score"])) if m["score"] else "",
                         "yes" if m["walkover"] else "", m["table"] or "", m["status"]])
    return out.getvalue()


def setup_from(body: dict[str, Any]) -> tuple[str, tournaments.Setup]:
    """Returns the name and set-up a director sent; raises Refused."""
    try:
        seeds = tuple(str(s) for s in body["seeds"])
        return str(body.get("name") or ""), tournaments.Setup(
            core.Format(body["format"]), seeds, int(body.get("groups", 0)),
            int(body.get("advance", 0)), int(body.get("race", 5)),
            {str(k): int(v) for k, v in (body.get("races") or {}).items()},
            {str(k): int(v) for k, v in (body.get("levels") or {}).items()},
            int(body.get("cap", 0)),
            {str(k): str(v) for k, v in (body.get("names") or {}).items()})
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise Refused(f"not a tournament's set-up: {exc!r}") from exc


def step_from(body: dict[str, Any]) -> tournaments.Step:
    """Returns the action a director sent as a step; raises Refused."""
    action = body.get("action")
    match, table, winner = body.get("match"), body.get("table"), body.get("winner")
    if action == "assign" and isinstance(match, str) and isinstance(table, str):
        return lambda t: core.Change(t.assign(match, table), ())
    if action == "unassign" and isinstance(match, str):
        return lambda t: core.Change(t.unassign(match), ())
    if action == "fill" and isinstance(body.get("tables"), list):
        free = [str(x) for x in body["tables"]]
        return lambda t: core.Change(t.fill(free), ())
    if action == "walkover" and isinstance(match, str) and isinstance(winner, str):
        return lambda t: t.walkover(match, winner)
    if action == "correct" and isinstance(match, str) and isinstance(winner, str):
        score = body.get("score")
        if score is not None and not (isinstance(score, list) and len(score) == 2
                                      and all(isinstance(x, int) for x in score)):
            raise Refused("score: two whole numbers, the match's players' order")
        return lambda t: t.record(match, winner, None if score is None else (score[0], score[1]))
    raise Refused("action: assign, unassign, fill, walkover or correct, with what it needs")


def act(store: Store, method: str, path: str, body: bytes) -> tuple[int, bytes, str] | None:
    """Returns ``(status, body, content type)`` for a director's target, None if not one.
    Reads and writes the store: call it off the event loop."""
    listing, one = _LIST.match(path), _ONE.match(path)
    try:
        if listing and method in ("GET", "HEAD") and listing.group(2):
            return 200, _json({"tournaments": tournaments.listed(store, listing.group(1))}), JSON
        if one and method in ("GET", "HEAD") and one.group(3):
            shown = bracket(store, one.group(1), one.group(2))
            if one.group(3) == ".csv":
                return 200, sheet(shown).encode(), CSV
            return 200, _json(shown), JSON
        if listing and method == "POST" and not listing.group(2):
            name, setup = setup_from(_body(body))
            made = tournaments.create(store, listing.group(1), name, setup)
            return 201, _json({"id": made}), JSON
        if one and method == "POST" and not one.group(3):
            venue, tournament_id = one.group(1), one.group(2)
            change = tournaments.act(store, venue, tournament_id, step_from(_body(body)))
            return 200, _json({"changed": list(change.changed),
                               "bracket": bracket(store, venue, tournament_id)}), JSON
    except Refused as exc:
        return 400, f"{exc}\n".encode(), "text/plain; charset=utf-8"
    except tournaments.NoTournament:
        return 404, b"no such tournament\n", "text/plain; charset=utf-8"
    except core.TournamentError as exc:  # the kind for a page's words, the detail for a log
        return 409, _json({"refused": _KINDS.get(type(exc), "other"), "detail": str(exc)}), JSON
    return None


def _body(raw: bytes) -> dict[str, Any]:
    try:
        body = json.loads(raw or b"{}")
    except ValueError as exc:
        raise Refused("the body is not JSON") from exc
    if not isinstance(body, dict):
        raise Refused("the body is not a JSON object")
    return body


def _json(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


def refusal(request: Request, password: str | None) -> Response | None:
    """Returns the answer to an action without the director's login (module docstring), None
    when the request has it. Never logs nor says what was given."""
    if password is None:
        return Response(403, _json({"refused": "no_password", "detail": (
            "no director password is configured: the recorder's --director-password-file, "
            f"or systemd's {CREDENTIAL} credential")}), JSON)
    user, given = basic_credentials(request) or ("", "")
    right = hmac.compare_digest(user.encode(), USER.encode())
    right &= hmac.compare_digest(given.encode(), password.encode())  # both compared, always
    if right:
        return None
    return Response.login(REALM, _json({"refused": "login", "detail": (
        f"the director's login (user {USER}) is needed for this")}), JSON)


class DirectorSite:
    """The director's targets (``act``) as a site of the project's one HTTP server: the store
    is read and written in a thread, off the event loop; an action only with the login of
    ``password`` (None: none configured, every action refused)."""

    def __init__(self, store: Store, password: str | None = None) -> None:
        self.store = store
        self._password = password or None  # an empty one is none

    async def answer(self, request: Request) -> Response | None:
        path = request.path
        if not path.startswith(("/record/tournaments/", "/record/tournament/")):
            return None
        if request.method not in ("GET", "HEAD"):
            refused = refusal(request, self._password)
            if refused is not None:
                return refused
        found = await asyncio.to_thread(act, self.store, request.method, path, request.body)
        if found is None:
            return Response.text(404, "not found\n")
        status, body, kind = found
        disposition = (("Content-Disposition", 'attachment; filename="tournament.csv"'),)
        return Response(status, body, kind, headers=disposition if kind == CSV else ())


class WithRecord:
    """The director's targets first, then ``more`` sites (the waiting list's), then the venue
    record's (``RecordSite``): one site where a server takes one record site (the demo's)."""

    def __init__(self, director: DirectorSite, record: Any, *more: Any) -> None:
        self.sites = (director, *more, record)

    async def answer(self, request: Request) -> Response | None:
        for site in self.sites:
            found: Response | None = await site.answer(request)
            if found is not None:
                return found
        return None
