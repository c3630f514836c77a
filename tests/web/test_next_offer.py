"""The next match at the table, end to end in Russian: a real Mosquitto, the venue recorder
(its own process, SQLite), tables publishing over MQTT, the console and the TV wall in headless
Chromium. The pair at the head of the waiting list is offered to the free pool table: its
console says «Следующие: Вера — Глеб» and one tap starts the match with their roster ids, which
takes them off the list; a tournament's match on the other table is offered with its round and
race, and the tap sends its ``tournament`` as the offer gave it; the wall's cards show both."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Page, expect

import tournament as core
from controller.record import tournaments, waiting
from controller.record.director import DirectorSite, WithRecord
from controller.record.store import Store
from controller.record.waiting_desk import WaitingSite
from controller.record.web import RecordSite
from controller.web import WebConfig
from tests.broker import Broker
from tests.record.test_offers import played, take
from tests.record.venue import recording
from tests.web.conftest import VENUE
from tests.web.harness import LiveTable, WebThread
from tests.web.test_roster_console import wait_for

TIMEOUT = 15000  # ms


def test_the_console_offers_the_next_pair_and_one_tap_starts_it_and_the_wall_shows_it(
        browser: Browser, tab: Page, errors: list[str], web: WebThread,
        ws_broker: Broker, live_tables: dict[str, LiveTable], artifacts: Path, tmp_path: Path) -> None:
    with recording(ws_broker, tmp_path) as store:
        for name in ("t1", "t2"):  # two pool tables, each with a match played this evening
            live_tables[name] = LiveTable(ws_broker.host, ws_broker.port, VENUE, name).start()
            live_tables[name].request("new_match", {"game": "ten-ball", "players": ["Ян", "Ира"]})
            live_tables[name].request("end_match", {})
        wait_for(lambda: {t.table for t in waiting.tables_now(store, VENUE).values()
                          if not t.playing and t.kind == "pool"} == {"t1", "t2"}, 30,
                 "both tables' matches recorded")
        tid = tournaments.create(store, VENUE, "Кубок клуба", tournaments.Setup(
            core.Format.SINGLE, ("a1", "b1"), race=3, names={"a1": "Анна", "b1": "Борис"}))
        tournaments.act(store, VENUE, tid, lambda t: core.Change(t.assign("W1-1", "t2"), ()))
        joined = waiting.join(store, VENUE, "pool", [{"id": "v1", "name": "Вера"},
                                                     {"id": None, "name": "Глеб"}], "at-the-bar")

        wall = browser.new_page(viewport={"width": 1920, "height": 1080})
        wall.goto(web.url + "index.html?tv=1&lang=ru")
        expect(wall.locator('[data-table="t1"] [data-field="next"]')).to_have_text(
            "Следующие: Вера — Глеб", timeout=TIMEOUT)
        expect(wall.locator('[data-table="t2"] [data-field="next"]')).to_have_text(
            "Следующие: Анна — Борис", timeout=TIMEOUT)
        wall.screenshot(path=str(artifacts / "wall-next.png"))

        page = tab
        page.set_viewport_size({"width": 1024, "height": 768})
        page.goto(web.url + "console.html?table=t2&lang=ru")
        expect(page.locator("#next-text")).to_have_text(
            "Турнир Кубок клуба, матч W1-1: Анна — Борис, до 3 побед", timeout=TIMEOUT)
        page.click("#next-start")
        sent = live_tables["t2"].wait_for_request("new_match")
        assert (sent["players"], sent["player_ids"], sent["race_to"], sent["game"]) == (
            ["Анна", "Борис"], ["a1", "b1"], 3, "ten-ball")
        assert sent["tournament"] == {"id": tid, "match": "W1-1"}

        page.goto(web.url + "console.html?table=t1&lang=ru")
        expect(page.locator("#next-text")).to_have_text("Следующие: Вера — Глеб", timeout=TIMEOUT)
        expect(page.locator("#next-panel h2")).to_have_text("Следующий матч")
        page.screenshot(path=str(artifacts / "console-next.png"))
        page.click("#next-start")  # the one tap is the referee's confirmation
        sent = live_tables["t1"].wait_for_request("new_match")
        assert (sent["players"], sent["player_ids"], sent["game"]) == (
            ["Вера", "Глеб"], ["v1", f"{joined.entry}-1"], "ten-ball")
        expect(page.locator("#panels")).not_to_have_class("no-match", timeout=TIMEOUT)  # on
        expect(page.locator("#next-panel")).to_be_hidden()
        # the table's match_started with their ids takes them off the list; nothing next there
        wait_for(lambda: waiting.entries(store, VENUE) == [], 30, "the pair off the list")
        expect(wall.locator('[data-table="t1"] [data-field="next"]')).to_have_count(
            0, timeout=TIMEOUT)
        assert errors == []
        wall.close()


def test_a_console_puts_a_pair_on_the_waiting_list_and_takes_it_off(
        tab: Page, errors: list[str], web: WebThread, ws_broker: Broker,
        live_tables: dict[str, LiveTable], artifacts: Path, tmp_path: Path) -> None:
    with recording(ws_broker, tmp_path) as store:
        live_tables["t3"] = LiveTable(ws_broker.host, ws_broker.port, VENUE, "t3").start()
        live_tables["t3"].request("new_match", {"game": "pyramid", "players": ["Ян", "Ира"]})
        live_tables["t3"].request("end_match", {})
        wait_for(lambda: [t.kind for t in waiting.tables_now(store, VENUE).values()
                          if t.table == "t3" and not t.playing] == ["russian"], 30,
                 "table 3's match recorded")
        page = tab
        page.set_viewport_size({"width": 1024, "height": 768})
        page.goto(web.url + "console.html?table=t3&lang=ru")
        # the console hears its table (its retained status: the subscriptions answered), so
        # it is connected before it asks: under load a click before it said «Нет связи»
        expect(page.locator('#card [data-field="online"]')).to_have_text("в сети", timeout=TIMEOUT)
        lists = page.locator("#waiting-lists")
        expect(lists.locator(".idle")).to_have_text(["Никто не ждёт.", "Никто не ждёт."],
                                                    timeout=TIMEOUT)
        form = page.locator("#waiting-join")
        form.locator('[name="first"]').fill("Дина")
        form.locator('[name="second"]').fill("Егор")
        form.locator('[name="kind"]').select_option("russian")
        form.locator("button[type=submit]").click()
        expect(page.locator("#waiting-said")).to_have_text("Очередь обновлена.", timeout=TIMEOUT)
        entry = lists.locator('[data-kind="russian"] li')
        expect(entry).to_have_text("Дина — Егор → Стол 3 Убрать", timeout=TIMEOUT)  # offered
        expect(page.locator("#next-text")).to_have_text("Следующие: Дина — Егор", timeout=TIMEOUT)
        page.screenshot(path=str(artifacts / "console-waiting-list.png"), full_page=True)
        form.locator('[name="first"]').fill(" дина ")  # typed again: the one waiting
        form.locator("button[type=submit]").click()
        expect(page.locator("#waiting-said")).to_have_text("Этот игрок уже в очереди.",
                                                           timeout=TIMEOUT)
        entry.locator("[data-leave]").click()
        expect(page.locator("#waiting-said")).to_have_text("Очередь обновлена.", timeout=TIMEOUT)
        expect(lists.locator(".idle")).to_have_count(2, timeout=TIMEOUT)
        expect(page.locator("#next-panel")).to_be_hidden()  # the empty retained offer
        assert waiting.entries(store, VENUE) == []
        assert errors == []


def test_a_player_puts_himself_on_the_list_from_his_page(
        tab: Page, errors: list[str], tmp_path: Path, artifacts: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    played(store, "t1", "ten-ball", 1.0, ids=["p1", "p2"])
    take(store)  # summed up: p1 is a roster entry
    server = WebThread(WebConfig(venue=VENUE), record=WithRecord(
        DirectorSite(store), RecordSite(store), WaitingSite(store))).start()
    try:
        page = tab
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(server.url + "history.html?pid=p1&lang=ru")
        page.click('[data-join="pool"]')
        said = page.locator('[data-field="waiting-said"]')
        expect(said).to_have_text("Очередь обновлена.", timeout=TIMEOUT)
        page.screenshot(path=str(artifacts / "player-page-waiting.png"))
        page.click('[data-join="russian"]')  # one list at a time
        expect(said).to_have_text("Этот игрок уже в очереди.", timeout=TIMEOUT)
        assert [(e.kind, [dict(p) for p in e.players]) for e in waiting.entries(store, VENUE)] == [
            ("pool", [{"id": "p1", "name": "p1"}])]
        assert errors == []
    finally:
        server.stop()
