"""The venue roster at the referee console, end to end: a real Mosquitto, the venue recorder
(its own process, SQLite), tables publishing over MQTT and the console in headless Chromium,
in Russian on a tablet. A «Борис» picked from the roster at table 2 is the «Борис» of table 1:
one player with matches on two tables; a «Борис» the referee said was someone new is another
player; a name typed that is an entry's («олег») is that entry unless «новый игрок» is ticked."""

from __future__ import annotations

import re
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from playwright.sync_api import Browser, expect

from controller.record import roster
from controller.record.store import Store, match_players
from tests.broker import Broker
from tests.record.venue import recorder
from tests.web.conftest import VENUE
from tests.web.harness import LiveTable, WebThread

TIMEOUT = 15000  # ms


def wait_for(check: Callable[[], object], timeout: float, what: str) -> None:
    """Looks at ``check`` until it is true; fails naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out after {timeout:g} s waiting for {what}"
        time.sleep(0.05)


@pytest.fixture
def tables() -> Iterator[dict[str, LiveTable]]:
    made: dict[str, LiveTable] = {}
    yield made
    for t in made.values():
        t.stop()


def tables_of(store: Store, player_id: str) -> list[str]:
    c = match_players.c
    with store.engine.connect() as conn:
        return sorted(conn.scalars(sa.select(c.table_id).where(c.player_id == player_id)))


def test_a_player_picked_from_the_roster_is_one_record_across_tables(
        browser: Browser, web: WebThread, ws_broker: Broker, tables: dict[str, LiveTable],
        artifacts: Path, tmp_path: Path) -> None:
    store_url = f"sqlite:///{tmp_path / 'record.sqlite3'}"
    store = Store(store_url)
    log = tmp_path / "recorder.log"
    proc = recorder(ws_broker, store_url, log)
    try:
        wait_for(lambda: log.exists() and "recording" in log.read_text(), 30, "the recorder")
        # earlier this evening: «Борис» and «Анна Петрова» typed at table 1, then another
        # «Борис» at table 2, a new player by the referee's word. One after the other: a
        # typed name is the entry of that name already recorded, so had table 2's new «Борис»
        # been recorded first, table 1's typed «Борис» would rightly be him
        for name, players, ids, entries in (("t1", ["Борис", "Анна Петрова"], None, 2),
                                            ("t2", ["Борис", "Олег"], ["new", None], 4)):
            tables[name] = LiveTable(ws_broker.host, ws_broker.port, VENUE, name).start()
            tables[name].request("new_match", {"game": "ten-ball", "players": players,
                                               **({"player_ids": ids} if ids else {})})
            tables[name].request("end_match", {})
            wait_for(lambda n=entries: len(roster.entries(store, VENUE)) == n, 30,
                     f"{entries} players in the roster")
        boris_t1 = next(e["id"] for e in roster.entries(store, VENUE)
                        if e["name"] == "Борис" and e["table"] == "t1")
        boris_t2 = next(e["id"] for e in roster.entries(store, VENUE)
                        if e["name"] == "Борис" and e["table"] == "t2")

        # the console of table 2, on a tablet, in Russian: «Бор» offers both, told apart
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(web.url + "console.html?table=t2&lang=ru")
        page.fill('[data-player-name="0"]', "Бор")
        offered = page.locator('[data-roster-for="0"] .roster-pick')
        expect(offered).to_have_count(2, timeout=TIMEOUT)
        expect(offered.nth(0)).to_contain_text("Стол 2")  # the most recently seen first
        expect(offered.nth(1)).to_contain_text("Стол 1")
        expect(offered.nth(1)).to_contain_text("матчей: 1 · соперник: Анна Петрова")
        expect(offered.nth(0)).to_contain_text("соперник: Олег")
        page.locator('[data-player-name="0"]').scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / "console-roster-tablet.png"))
        offered.filter(has_text="Стол 1").click()
        expect(page.locator('[data-roster-for="0"]')).to_contain_text("✓ из списка клуба: Стол 1")
        page.fill('[data-player-name="1"]', "пет")  # a surname finds its player too
        expect(page.locator('[data-roster-for="1"] .roster-pick .name')).to_have_text(
            ["Анна Петрова"], timeout=TIMEOUT)
        page.fill('[data-player-name="1"]', "Вера")  # typed: a new player
        page.click("#new-match button[type=submit]")
        t2 = tables["t2"]
        wait_for(lambda: t2.requests, 10, "the console's new match")  # (its requests by MQTT)
        name, payload = t2.requests[-1]
        assert name == "new_match" and payload["players"] == ["Борис", "Вера"]
        assert payload["player_ids"] == [boris_t1, None]
        t2.request("end_match", {})

        # the record: the «Борис» picked has a match at each table; the typed ones stay apart
        wait_for(lambda: len(roster.entries(store, VENUE)) == 5, 30, "Вера in the roster")
        assert tables_of(store, boris_t1) == ["t1", "t2"]
        assert tables_of(store, boris_t2) == ["t2"]
        entries = {e["id"]: e for e in roster.entries(store, VENUE)}
        assert entries[boris_t1]["matches"] == 2 and entries[boris_t1]["table"] == "t2"
        assert entries[boris_t1]["against"] == ["Вера"] and entries[boris_t2]["against"] == ["Олег"]
        assert [e["name"] for e in entries.values()].count("Борис") == 2
        # and the console is offered the roster as it is now
        page.fill('[data-player-name="1"]', "Ве")
        expect(page.locator('[data-roster-for="1"] .roster-pick .name')).to_have_text(
            ["Вера"], timeout=TIMEOUT)

        # typed as an entry has it: that entry, said so, unless «новый игрок» is ticked
        page.fill('[data-player-name="0"]', " олег ")
        same = page.locator('[data-roster-for="0"] [data-same-as]')
        expect(same).to_have_text(re.compile("^это игрок клуба: Стол 2"), timeout=TIMEOUT)
        page.fill('[data-player-name="1"]', "вера")
        page.locator('[data-roster-for="1"] [data-new-player]').check()
        expect(page.locator('[data-roster-for="1"] [data-same-as]')).to_have_text(
            "будет записан как новый игрок клуба")
        page.screenshot(path=str(artifacts / "console-roster-new-player.png"))
        page.click("#new-match button[type=submit]")
        wait_for(lambda: t2.requests[-1][0] == "new_match" and t2.requests[-1][1] != payload, 10,
                 "the console's second match")
        assert t2.requests[-1][1]["player_ids"] == [None, "new"]
        t2.request("end_match", {})
        wait_for(lambda: len(roster.entries(store, VENUE)) == 6, 30, "the second Вера")
        got = sorted((e["name"], e["matches"]) for e in roster.entries(store, VENUE))
        assert got == [("Анна Петрова", 1), ("Борис", 1), ("Борис", 2), ("Вера", 1),
                       ("вера", 1), ("олег", 2)]
        assert errors == []
        page.close()
        # on a phone the offers fit the screen
        phone = browser.new_page(viewport={"width": 390, "height": 844})
        phone.goto(web.url + "console.html?table=t1&lang=ru")
        phone.fill('[data-player-name="0"]', "Бор")
        expect(phone.locator('[data-roster-for="0"] .roster-pick small')).to_have_text(
            [re.compile("матчей: 2 · соперник: Вера$"), re.compile("матчей: 1 · соперник: Олег$")],
            timeout=TIMEOUT)
        phone.locator('[data-roster-for="0"]').scroll_into_view_if_needed()
        assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        phone.screenshot(path=str(artifacts / "console-roster-phone.png"))
        phone.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait()
