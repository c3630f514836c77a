"""The venue record through the project's one HTTP server: history, a player's page, the
sessions' export, the gaps; a store that cannot be read is a 500 that says so."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request

from controller.record import roster, stats
from controller.record.store import Progress, Store, Stored
from controller.record.web import RecordSite
from controller.web.server import WebConfig, WebServer
from tests.record.test_store import credit, event


def get(url: str) -> tuple[int, bytes, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read(), r.headers["Content-Type"]
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), exc.headers["Content-Type"]


async def test_the_pages_read_the_venue_record(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    store.add([event(1, "match_started", {"match_id": "m-1", "game": "pyramid",
                                          "players": ["Анна", "Bob"]}, ts=10.0),
               event(2, "shot_result", {"shot": 1, "decisions": [credit(0, 3, 1)]}),
               event(3, "match_over", {"winner": 0}, ts=70.0)],
              lost=[("club", "t1", "", 4, 9, "no longer in the table's journal")],
              progress={("club", "t1", ""): Progress(9, 9)})
    stats.summarize_finished(store)
    roster.assign(store)  # as the recorder does once a match is summed up
    async with WebServer(WebConfig(), extra=[RecordSite(store)]) as web:
        base = web.url.rstrip("/")
        paths = ("/record/history.json", "/record/player/%D0%90%D0%BD%D0%BD%D0%B0.json",
                 "/record/sessions.csv", "/record/gaps.json", "/record/nothing.json",
                 "/record/history.json?per_page=x", "/record/players.json")
        history, player, csv, gaps, missing, bad, players = await asyncio.to_thread(
            lambda: [get(base + path) for path in paths])
    assert history[0] == 200
    assert [m["match_id"] for m in json.loads(history[1])["matches"]] == ["m-1"]
    assert json.loads(player[1])["total"]["balls"] == 1
    assert json.loads(player[1])["name"] == "Анна"
    assert csv[2].startswith("text/csv") and csv[1].decode().count("\n") == 2
    assert json.loads(gaps[1])["gaps"] == [{"venue": "club", "table": "t1", "epoch": "", "first": 4,
                                            "last": 9,
                                            "reason": "no longer in the table's journal"}]
    assert missing[0] == 404 and bad[0] == 400
    entries = json.loads(players[1])["players"]
    assert sorted((p["venue"], p["name"], p["matches"]) for p in entries) == [
        ("club", "Bob", 1), ("club", "Анна", 1)]
    anna = next(p["id"] for p in entries if p["name"] == "Анна")
    assert [m["player_ids"] for m in json.loads(history[1])["matches"]] == [
        [anna, next(p["id"] for p in entries if p["name"] == "Bob")]]
    async with WebServer(WebConfig(), extra=[RecordSite(store)]) as web:
        by_id = await asyncio.to_thread(get, web.url.rstrip("/") + f"/record/players/{anna}.json")
    assert by_id[0] == 200
    assert json.loads(by_id[1])["name"] == "Анна" and json.loads(by_id[1])["total"]["balls"] == 1


async def test_a_store_that_cannot_be_read_is_a_500_that_says_so(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    store.engine.dispose()
    (tmp_path / "record.sqlite3").unlink()
    (tmp_path / "record.sqlite3").mkdir()  # no longer a database
    async with WebServer(WebConfig(), extra=[RecordSite(store)]) as web:
        status, body, _ = await asyncio.to_thread(get, web.url + "record/history.json")
    assert (status, body) == (500, b"the venue record could not be read\n")


async def test_every_bad_argument_of_the_history_is_a_400_never_a_500(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    bad = ("since=9999-99-99", "until=2026-02-30", "since=0000-01-01", "until=2026-13-01",
           "since=2026-1-1", "tz=x", "tz=100000", "page=0", "per_page=501", "page=%00")
    async with WebServer(WebConfig(), extra=[RecordSite(store)]) as web:
        base = web.url.rstrip("/")
        answers = await asyncio.to_thread(
            lambda: {q: get(f"{base}/record/history.json?{q}")[0] for q in bad})
        good = await asyncio.to_thread(get, f"{base}/record/history.json?since=2026-12-01&tz=180")
    assert answers == dict.fromkeys(bad, 400)
    assert good[0] == 200


async def test_the_billing_csv_is_as_a_matchs_in_the_pages_language_with_local_times(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    # two tables' sessions: t6's began later, t10's first; 2026-12-06 10:00 UTC = 1796551200
    for table, start in (("t6", 1796551200.0), ("t10", 1796547600.0)):
        store.add([Stored("club", table, 1, "event", {"v": 1, "seq": 1, "ts": 0.0,
                   "type": "match_started", "data": {"match_id": "m-1", "game": "pyramid",
                                                     "players": ["A", "B"]}}),
                   Stored("club", table, 2, "event", {"v": 1, "seq": 2, "ts": 600.0,
                   "type": "match_over", "data": {"winner": 0}})],
                  progress={("club", table, ""): Progress(2, 2)}, received=start + 600.0)
    stats.summarize_finished(store)
    async with WebServer(WebConfig(), extra=[RecordSite(store)]) as web:
        base = web.url.rstrip("/")
        ru, en, bad = await asyncio.to_thread(lambda: [
            get(f"{base}/record/sessions.csv?lang=ru&tz=180"),
            get(f"{base}/record/sessions.csv"), get(f"{base}/record/sessions.csv?tz=x")])
    text = ru[1].decode("utf-8")
    assert text.startswith("\ufeff") and ru[2].startswith("text/csv")
    assert text[1:].splitlines() == ["Клуб;Стол;Начало;Конец;Матчи",
                                     "club;Стол 10;2026-12-06 12:00;2026-12-06 12:10;1",
                                     "club;Стол 6;2026-12-06 13:00;2026-12-06 13:10;1"]
    assert en[1].decode("utf-8")[1:].splitlines()[:2] == [
        "Club,Table,Started,Ended,Matches", "club,Table 10,2026-12-06 09:00,2026-12-06 09:10,1"]
    assert bad[0] == 400


async def test_every_bad_time_zone_of_the_billing_csv_is_a_400_never_a_500(tmp_path):
    """``tz`` is minutes east of UTC: a zone lies strictly within a day of it (a whole day,
    1,440, or more is no zone: it was a 500 from the CSV's dates), and not a number is none."""
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    store.add([Stored("club", "t1", 1, "event", {"v": 1, "seq": 1, "ts": 0.0,
               "type": "match_started", "data": {"match_id": "m-1", "game": "pyramid",
                                                 "players": ["A", "B"]}}),
               Stored("club", "t1", 2, "event", {"v": 1, "seq": 2, "ts": 600.0,
               "type": "match_over", "data": {"winner": 0}})],
              progress={("club", "t1", ""): Progress(2, 2)}, received=1796551800.0)
    stats.summarize_finished(store)
    bad = ("tz=1440", "tz=-1440", "tz=1441", "tz=" + "9" * 30, "tz=-" + "9" * 1000, "tz=1e3",
           "tz=12.5", "tz=%00", "tz=--5", "tz=0x10", "tz=%E2%88%9E")
    async with WebServer(WebConfig(), extra=[RecordSite(store)]) as web:
        base = web.url.rstrip("/")
        answers = await asyncio.to_thread(
            lambda: {q: get(f"{base}/record/sessions.csv?{q}")[0] for q in bad})
        good = await asyncio.to_thread(
            lambda: [get(f"{base}/record/sessions.csv?tz={tz}")[0] for tz in (1439, -1439, 840)])
    assert answers == dict.fromkeys(bad, 400)
    assert good == [200, 200, 200]
