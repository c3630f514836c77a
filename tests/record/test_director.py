"""The tournament director's targets through the project's one HTTP server: a tournament made,
matches put on tables, a walkover and a correction (the later matches it changed named), the
bracket as JSON and CSV, and what is refused said; every action behind the director's login
(HTTP Basic), the bracket open."""

from __future__ import annotations

import asyncio
import base64
import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

import tournament as core
from controller.record import roster, stats, tournaments
from controller.record.director import DirectorSite
from controller.record.store import Store
from controller.web.server import WebConfig, WebServer
from tests.broker import Broker, free_port
from tests.record.test_cli import record
from tests.record.test_tournaments import table_match
from tests.record.venue import recorder
from tests.waiting import until

EIGHT = [f"p{i}" for i in range(1, 9)]
PASSWORD = "ключ: s3cret"  # not ASCII, with a colon: RFC 7617's UTF-8, split at the first
LOGIN = ("director", PASSWORD)


def call(url: str, body: dict[str, Any] | None = None, login: tuple[str, str] | None = LOGIN
         ) -> tuple[int, bytes]:
    return called(url, body, login)[:2]


def called(url: str, body: dict[str, Any] | None = None, login: tuple[str, str] | None = LOGIN
           ) -> tuple[int, bytes, str | None]:
    """Returns the status, body and ``WWW-Authenticate`` of a GET (a POST of ``body``), sent
    with the HTTP Basic ``login`` (None: none)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    if login is not None:
        token = base64.b64encode(":".join(login).encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.read(), r.headers.get("WWW-Authenticate")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), exc.headers.get("WWW-Authenticate")


async def test_a_director_runs_a_tournament_from_the_tablet(tmp_path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    table_match(store, "t9", "m-0", ["p1", "p2"], [0], 100.0)  # the roster knows p1 and p2
    stats.summarize_finished(store)
    roster.assign(store)
    async with WebServer(WebConfig(), extra=[DirectorSite(store, PASSWORD)]) as web:
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


def seeded(store: Store) -> str:
    """Returns a new eight-player single elimination of venue club (its first round ready)."""
    return tournaments.create(store, "club", "Кубок", tournaments.Setup(
        core.Format.SINGLE, tuple(EIGHT), race=3))


async def test_an_action_without_the_directors_login_is_refused_and_changes_nothing(
        tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    tid = seeded(store)
    walkover = {"action": "walkover", "match": "W1-1", "winner": "p1"}
    async with WebServer(WebConfig(), extra=[DirectorSite(store, PASSWORD)]) as web:
        one = f"{web.url}record/tournament/club~{tid}"

        def run() -> list[tuple[int, bytes, str | None]]:
            return [called(one, walkover, None), called(one, walkover, ("director", "s3cret")),
                    called(one, walkover, ("admin", PASSWORD)),
                    called(one, walkover, ("director", PASSWORD + "x")),
                    called(f"{web.url}record/tournaments/club", {"format": "single",
                                                                 "seeds": EIGHT}, None),
                    called(one + ".json", None, None), called(one + ".csv", None, None)]
        refused = await asyncio.to_thread(run)
        untouched = tournaments.load(store, "club", tid)
        done = await asyncio.to_thread(call, one, walkover)
    challenge = 'Basic realm="billiards director"'
    for status, body, asked in refused[:5]:
        assert (status, asked, json.loads(body)["refused"]) == (401, challenge, "login")
    assert [r[0] for r in refused[5:]] == [200, 200]  # the bracket and its CSV stay open
    assert untouched.results == {} and len(tournaments.listed(store, "club")) == 1
    assert done[0] == 200
    assert tournaments.load(store, "club", tid).results["W1-1"].walkover


async def test_with_no_director_password_configured_every_action_is_forbidden(
        tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    tid = seeded(store)
    async with WebServer(WebConfig(), extra=[DirectorSite(store, "")]) as web:
        one = f"{web.url}record/tournament/club~{tid}"

        def run() -> list[tuple[int, bytes, str | None]]:
            return [called(one, {"action": "walkover", "match": "W1-1", "winner": "p1"}, login)
                    for login in (None, LOGIN, ("director", ""))] + [called(one + ".json")]
        got = await asyncio.to_thread(run)
    for status, body, asked in got[:3]:
        said = json.loads(body)
        assert (status, asked, said["refused"]) == (403, None, "no_password")
        assert "--director-password-file" in said["detail"]
    assert got[3][0] == 200 and tournaments.load(store, "club", tid).results == {}


@pytest.mark.parametrize("given", ["file", "credential"])
async def test_the_recorder_takes_the_password_from_a_file_or_systemd_and_never_logs_it(
        tmp_path: Path, broker: Broker, given: str, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'record.sqlite3'}"
    store = Store(url)
    tid = seeded(store)
    (tmp_path / "creds").mkdir()
    secret = tmp_path / ("director.password" if given == "file" else "creds/director-password")
    secret.write_text(PASSWORD + "\n")
    secret.chmod(0o600)
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(tmp_path / "creds"))  # systemd's way
    port, log = free_port(), tmp_path / "recorder.log"
    chosen = ("--director-password-file", str(secret)) if given == "file" else ()
    proc = recorder(broker, url, log, "--web", f"127.0.0.1:{port}", *chosen)
    one = f"http://127.0.0.1:{port}/record/tournament/club~{tid}"
    walkover = {"action": "walkover", "match": "W1-1", "winner": "p1"}
    try:
        assert PASSWORD.encode() not in Path(f"/proc/{proc.pid}/cmdline").read_bytes()
        await until(lambda: _up(one + ".json"), 30, "the recorder's web server")
        refused = await asyncio.to_thread(call, one, walkover, ("director", "wrong"))
        done = await asyncio.to_thread(call, one, walkover)
    finally:
        proc.terminate()
        proc.wait()
    assert (refused[0], done[0]) == (401, 200)
    assert tournaments.load(store, "club", tid).results["W1-1"].walkover
    logged = log.read_text()
    token = base64.b64encode(":".join(LOGIN).encode()).decode()
    assert PASSWORD not in logged and token not in logged and "wrong" not in logged
    missing = await asyncio.to_thread(
        record, "--broker", broker.url, "--store", url, "--director-password-file",
        str(tmp_path / "none"), env={"CREDENTIALS_DIRECTORY": ""})
    assert missing.returncode == 2 and "none" in missing.stderr


def _up(url: str) -> bool:
    try:
        return call(url, None, None)[0] == 200
    except OSError:
        return False

