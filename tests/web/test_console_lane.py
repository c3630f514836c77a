"""The console asks on the table's referee lane (``B/referee/request/<name>``, issue 39 item
8), and a table without the lane still answers it: the console sends the same request under
the same transaction on ``B/request/<name>`` once 2 s pass unanswered."""

from __future__ import annotations

from playwright.sync_api import Browser, expect

from tests.broker import Broker
from tests.web.harness import LiveTable, WebThread
from tests.web.test_pages import TIMEOUT, _close, _open


def refreshed(browser: Browser, web: WebThread, table: LiveTable) -> None:
    """A match on ``table``, a console opened on it, its Refresh pressed and answered."""
    table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"], "race_to": 2})
    _, venue, name = table.base.split("/")
    console = _open(browser, web.url + f"console.html?venue={venue}&table={name}")
    try:
        expect(console.locator("#connection")).to_have_text("connected", timeout=TIMEOUT)
        console.click("#refresh")
        expect(console.locator("#result")).to_have_text("Refresh: done", timeout=TIMEOUT)
    finally:
        _close(console)


def test_the_console_asks_on_the_referee_lane(browser: Browser, web: WebThread,
                                              ws_broker: Broker) -> None:
    table = LiveTable(ws_broker.host, ws_broker.port, "hall", "t1").start()
    try:
        refreshed(browser, web, table)
    finally:
        table.stop()
    assert table.topics == ["billiards/hall/t1/referee/request/get"]  # once, on the lane


def test_a_table_without_the_lane_is_asked_on_the_general_topic_too(
        browser: Browser, web: WebThread, ws_broker: Broker) -> None:
    # a venue of its own on the module's broker: the previous test's t1 left its state there
    table = LiveTable(ws_broker.host, ws_broker.port, "annex", "t1", lane=False).start()
    try:
        refreshed(browser, web, table)
    finally:
        table.stop()
    assert table.topics == ["billiards/annex/t1/request/get"]
