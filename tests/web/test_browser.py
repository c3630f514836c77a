"""The dashboard and the console in headless Chromium, against a real broker and real tables.

The tables are ``controller.pipeline.table.Table`` objects publishing over MQTT (``LiveTable``); the
pages speak MQTT over the broker's websockets listener. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Dialog, Page

from tests.broker import Broker
from tests.web.conftest import VENUE
from tests.web.harness import LiveTable, Tabs, WebThread, close_page, expect, open_page

TIMEOUT = 8000  # ms, for every expectation below
SIZE = (1280, 800)  # a page's size unless said (``_page``'s)


@pytest.fixture
def tables() -> Iterator[dict[str, LiveTable]]:
    """The test's tables by name (``_make`` adds them); stopped cleanly after the test."""
    made: dict[str, LiveTable] = {}
    yield made
    for t in made.values():
        if not t._stop.is_set():
            t.stop()


def _make(tables: dict[str, LiveTable], broker: Broker, name: str, **kw: Any) -> LiveTable:
    tables[name] = LiveTable(broker.host, broker.port, VENUE, name, **kw).start()
    return tables[name]


def _page(browser: Browser, width: int = 1280, height: int = 800) -> Page:
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors  # type: ignore[attr-defined]
    return page


def _no_errors(page: Page) -> None:
    assert page.errors == []  # type: ignore[attr-defined]


def test_dashboard_shows_every_table_at_once_and_follows_the_rulings(
        tabs: Tabs, web: WebThread, ws_broker: Broker, tables: dict[str, LiveTable],
        artifacts: Path) -> None:
    t1 = _make(tables, ws_broker, "t1")
    t1.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"], "race_to": 3})
    t1.request("call", {"calls": [{"ball": 1, "pocket": "fl"}]})
    t1.pot("fl")
    t1.settle()
    _make(tables, ws_broker, "t2", health={"summary": {"ok": False, "faults": {"beam.fl": "stuck"}}})
    _make(tables, ws_broker, "t3").stop()
    _make(tables, ws_broker, "t4").crash()

    page = open_page(tabs, web.url, SIZE)
    expect(page.locator("#connection")).to_have_text("connected", timeout=TIMEOUT)
    card = page.locator('[data-table="t1"]')
    # retained state: the page is complete without waiting for anything new
    expect(card.locator(".player .name")).to_have_text(["Ann", "Bob"], timeout=TIMEOUT)
    expect(card.locator('[data-field="online"]')).to_have_text("online")
    expect(card.locator('[data-field="status"]')).to_have_text("in play")
    expect(card.locator('.player[data-player="0"]')).to_have_class(re.compile("shooting"))
    expect(card.locator('[data-field="on_table"] .ball')).to_have_count(9)
    expect(card.locator("a.referee")).to_have_attribute("href", "console.html?table=t1")
    # a sensor's fault is the staff's (issue 41): not on the dashboard, in words on the console
    expect(page.locator('[data-table="t2"]')).to_have_count(1)
    expect(page.locator('[data-table="t2"] [data-field="fault"]')).to_have_count(0)
    staff = open_page(tabs, web.url + "console.html?table=t2", SIZE)
    expect(staff.locator('[data-table="t2"] [data-field="fault"]')).to_contain_text(
        "the foot left pocket's sensor: stuck", timeout=TIMEOUT)
    close_page(staff)
    expect(page.locator('[data-table="t3"]')).to_have_attribute("data-online", "stopped")
    expect(page.locator('[data-table="t4"]')).to_have_attribute("data-online", "offline", timeout=TIMEOUT)
    expect(page.locator('[data-table="t4"] [data-field="online"]')).to_have_text("offline")

    # a shot is ruled: the card follows, with the live events
    t1.request("call", {"calls": [{"ball": 2, "pocket": "sl"}]})
    t1.pot("sl")
    expect(card.locator('[data-field="events"]')).to_contain_text("A ball in left side", timeout=TIMEOUT)
    t1.settle()
    expect(card.locator('[data-field="on_table"] .ball')).to_have_count(8, timeout=TIMEOUT)
    expect(card.locator(".meta")).to_contain_text("shot 2")
    expect(card.locator('[data-field="events"]')).to_contain_text("Shot 2: 2 down; next Ann")

    # three fouls in a row between them: Ann's second is a warning on the wall
    for _ in range(3):
        t1.request("call", {"calls": [{"ball": 3, "pocket": "fr"}]})
        t1.request("shot_end", {})
    fouls = card.locator('.player[data-player="0"] [data-field="fouls"]')
    expect(fouls).to_have_text("2 FOULS", timeout=TIMEOUT)
    expect(card.locator('[data-field="events"]')).to_contain_text("Warning: Ann has two fouls in a row")
    expect(card.locator('[data-field="events"]')).to_contain_text("Foul by Ann: no rail")
    expect(card.locator('[data-field="ball_in_hand"]')).to_have_text("Ball in hand")
    expect(card.locator('.player[data-player="1"]')).to_have_class(re.compile("shooting"))
    page.screenshot(path=str(artifacts / "dashboard.png"), full_page=True)

    # a phone: one column, nothing wider than the screen
    phone = open_page(tabs, web.url, (390, 844))
    expect(phone.locator('[data-table="t1"] .player .name')).to_have_text(["Ann", "Bob"], timeout=TIMEOUT)
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    phone.screenshot(path=str(artifacts / "dashboard-phone.png"), full_page=True)
    close_page(page)
    close_page(phone)


def test_console_actions_reach_the_table_and_the_dashboard_shows_them(
        tabs: Tabs, web: WebThread, ws_broker: Broker, tables: dict[str, LiveTable],
        artifacts: Path) -> None:
    t5 = _make(tables, ws_broker, "t5")
    console = open_page(tabs, web.url + "console.html?table=t5", (1280, 1000))
    dashboard = open_page(tabs, web.url, SIZE)
    card = dashboard.locator('[data-table="t5"]')
    expect(card.locator('[data-field="status"]')).to_have_text("No match", timeout=TIMEOUT)
    expect(console.locator("#connection")).to_have_text("connected", timeout=TIMEOUT)
    result = console.locator("#result")

    # new match: game, players, race, an option
    console.select_option("#game", "ten-ball")
    console.fill('[data-player-name="0"]', "Cleo")
    console.fill('[data-player-name="1"]', "Dan")
    console.fill("#race-to", "2")
    console.click("#new-match-panel summary")
    console.select_option('[data-option="scratch_in_hand"]', '"anywhere"')
    console.click("#new-match button[type=submit]")
    expect(result).to_have_text("New match: done (match m-1)", timeout=TIMEOUT)
    name, payload = t5.requests[-1]
    assert name == "new_match"
    assert payload["players"] == ["Cleo", "Dan"] and payload["race_to"] == 2
    assert payload["options"] == {"scratch_in_hand": "anywhere"}
    assert payload["transaction"].startswith("web-") and payload["v"] == 1
    expect(card.locator(".player .name")).to_have_text(["Cleo", "Dan"], timeout=TIMEOUT)

    # the break: a ball nobody identified is a question; the console answers it
    t5.pot("fl")
    t5.settle()
    question = console.locator("#questions .question")
    expect(question).to_have_text("Cleo: Which ball fell in foot left?", timeout=TIMEOUT)
    expect(card.locator('[data-field="question"]')).to_contain_text("Which ball fell in foot left?",
                                                                    timeout=TIMEOUT)
    console.click('#questions button[data-answer="1"]')
    expect(result).to_have_text("Answer: done", timeout=TIMEOUT)
    assert t5.requests[-1][0] == "answer" and t5.requests[-1][1]["answer"] == 1
    expect(card.locator('[data-field="question"]')).to_have_count(0, timeout=TIMEOUT)
    expect(console.locator("#questions")).to_have_text("None.")

    # the call, by tapping ball 2 and the left side pocket on the drawing (in the call-only mode:
    # the drawing's first mode calls, declares and ends the shot at once)
    console.check('input[name=tap][value=call]')
    console.click('#pool [data-ball="2"]')
    console.click('#pool [data-pocket="sl"]')
    expect(console.locator("#calls")).to_have_text("2 → left side")
    console.click("#send-call")
    expect(result).to_have_text("Call: done", timeout=TIMEOUT)
    assert t5.requests[-1] == ("call", {**t5.requests[-1][1], "calls": [{"ball": 2, "pocket": "sl"}],
                                        "kind": "normal"})
    t5.pot("sl")
    t5.settle()
    events = card.locator('[data-field="events"]')
    expect(events).to_contain_text("Shot 2: 2 down; next Cleo", timeout=TIMEOUT)

    # declare a foul the sensors cannot see, on the shot just played
    console.click('[data-foul="touched_ball"]')
    console.click("#send-declare")
    expect(result).to_have_text("Declaration: done", timeout=TIMEOUT)
    assert t5.requests[-1][1]["fouls"] == ["touched_ball"]
    expect(events).to_contain_text("Foul by Cleo: touched a ball", timeout=TIMEOUT)
    expect(card.locator('.player[data-player="1"]')).to_have_class(re.compile("shooting"))

    # undo too much: the table's reason is shown; then undo one shot (each asked first)
    asked: list[str] = []
    def ask(d: Dialog) -> None:
        asked.append(d.message)
        d.accept()
    console.on("dialog", ask)
    console.fill("#undo-shots", "99")
    console.click("#undo")
    expect(result).to_have_attribute("data-state", "error", timeout=TIMEOUT)
    expect(result).to_contain_text("Undo: refused — only 2 shot(s) of this match can be undone")
    console.fill("#undo-shots", "1")
    console.click("#undo")
    expect(result).to_have_text("Undo: done", timeout=TIMEOUT)
    assert asked == ["Undo the last 99 shots?", "Undo the last shot (shot 2)?"]
    expect(events.locator("li").first).to_have_text("Undo: back to shot 1", timeout=TIMEOUT)
    expect(card.locator('.player[data-player="0"]')).to_have_class(re.compile("shooting"))
    expect(card.locator('[data-field="on_table"] .ball')).to_have_count(9)
    console.screenshot(path=str(artifacts / "console.png"), full_page=True)
    dashboard.screenshot(path=str(artifacts / "dashboard-after-console.png"), full_page=True)
    console.remove_listener("dialog", ask)  # the page serves the module's next tests
    close_page(console)
    close_page(dashboard)


def test_the_console_names_the_port_of_a_sensor_board_not_connected_and_why(
        tabs: Tabs, web: WebThread, ws_broker: Broker, tables: dict[str, LiveTable]) -> None:
    # issue 28: a table that cannot see says so, naming the port and the reason
    why = "absent: no device /dev/serial/by-id/usb-pico-if00 (is the board plugged in?)"
    _make(tables, ws_broker, "t6", health={"summary": {
        "ok": False, "faults": {}, "down": {"/dev/serial/by-id/usb-pico-if00": why}}})
    # the console (a staff page: issue 41), not the public dashboard
    page = open_page(tabs, web.url + "console.html?table=t6", SIZE)
    expect(page.locator('[data-table="t6"] [data-field="fault"]')).to_contain_text(
        f"/dev/serial/by-id/usb-pico-if00: {why}", timeout=TIMEOUT)
    close_page(page)


def test_a_plain_ball_siberian_table_shows_the_balls_left_not_numbers_that_are_gone(
        tabs: Tabs, web: WebThread, ws_broker: Broker, tables: dict[str, LiveTable]) -> None:
    """Issue 27: a Siberian Ten break that pots two balls on a table with no numbers and no
    identity reader leaves eight balls, which ones nobody knows (the number changes nothing):
    the card shows eight, never the ten numbers that may be on the table."""
    t = _make(tables, ws_broker, "t7")
    t.request("new_match", {"game": "siberian-ten", "players": ["Ann", "Bob"], "race_to": 2})
    t.pot("fl")
    t.pot("fr")
    t.settle()
    while t.table.referee.questions:  # no cue-ball detector: was it the cue ball? No
        assert t.request("answer", {"question": t.table.referee.questions[0].id,
                                    "answer": False})["status"] == "ok"
    state = t.table.referee.snapshot()
    assert (len(state["on_table"]), state["unidentified"], state["balls_left"]) == (10, 2, 8)

    page = open_page(tabs, web.url, SIZE)
    expect(page.locator("#connection")).to_have_text("connected", timeout=TIMEOUT)
    card = page.locator('[data-table="t7"]')
    expect(card.locator('[data-field="balls_left"]')).to_have_text(
        "8 balls on the table (numbers not known)", timeout=TIMEOUT)
    expect(card.locator('[data-field="on_table"]')).to_have_count(0)
    close_page(page)
