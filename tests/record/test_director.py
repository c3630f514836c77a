"""The tournament director's targets through the project's one HTTP server: a tournament made,
matches put on tables, a walkover and a correction (the later matches it changed named), the
bracket as JSON and CSV, and what is refused said."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

from controller.record import roster, stats, tournaments
from controller.record.director import DirectorSite
from controller.record.store import Store
from controller.web.server import WebConfig, WebServer
from tests.record.test_tournaments import table_match

EIGHT = [f"p{i}" for i in range(1, 9)]


def call(url: str, body: dict[str, Any] | None = None) -> tuple[int, bytes]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


async def test_a_director_runs_a_tournament_from_the_tablet(tmp_path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    table_match(store, "t9", "m-0", ["p1", "p2"], [0], 100.0)  # the roster knows p1 and p2
    stats.summarize_finished(store)
    roster.assign(store)
    async with WebServer(WebConfig(), extra=[DirectorSite(store)]) as web:
        base = web.url.rstrip("/")

        def run() -> list[tuple[int, bytes]]:
            made = call(base + "/record/tournaments/club", {
                "name": "Кубок", "format": "single", "seeds": EIGHT, "race": 3,
                "races": {"W3": 5}, "levels": {"p1": 1}})
            one = f"{base}/record/tournament/club~{json.loads(made[1])['id']}"
            return [made,
                    call(one, {"action": "fill", "tables": ["t1", "t2"]}),
                    call(one, {"action": "assign", "match": "W1-3", "table": "t1"}),
                    call(one, {"action": "walkover", "match": "W1-2", "winner": "p5"}),
                    call(one, {"action": "correct", "match": "W1-1", "winner": "p1",
                               "score": [3, 1]}),
                    call(one, {"action": "correct", "match": "W1-1", "winner": "p8",
                               "score": [2, 3]}),
                    call(one + ".json"), call(one + ".csv"),
                    call(base + "/record/tournaments/club.json"),
                    call(one, {"action": "dance"}), call(one, {"action": "walkover"}),
                    call(base + "/record/tournament/club~00.json")]
        got = await asyncio.to_thread(run)
    made, filled, busy, walkover, first, corrected, shown, sheet, listed, bad, half, none = got
    assert made[0] == 201 and filled[0] == 200
    assert {m["id"]: m["table"] for m in json.loads(filled[1])["bracket"]["matches"]
            if m["table"]} == {"W1-1": "t1", "W1-2": "t2"}
    assert busy[0] == 409 and json.loads(busy[1])["refused"] == "table"
    assert walkover[0] == 200 and json.loads(walkover[1])["changed"] == []
    assert json.loads(first[1])["changed"] == []
    assert json.loads(corrected[1])["changed"] == ["W2-1"]  # p8 in the semi-final, not p1
    bracket = json.loads(shown[1])
    semi = next(m for m in bracket["matches"] if m["id"] == "W2-1")
    assert (semi["players"], semi["status"], semi["race"]) == (["p8", "p5"], "ready", 3)
    final = next(m for m in bracket["matches"] if m["id"] == "W3-1")
    assert final["race"] == 5 and bracket["names"]["p1"] == "p1"
    lines = sheet[1].decode("utf-8-sig").splitlines()
    assert lines[0].startswith("match;round") and "W1-2;W1;p4;p5;p5;;yes;;played" in lines
    assert [t["name"] for t in json.loads(listed[1])["tournaments"]] == ["Кубок"]
    assert (bad[0], half[0], none[0]) == (400, 400, 404)
    assert tournaments.load(store, "club", bracket["id"]).results["W1-1"].winner == "p8"
