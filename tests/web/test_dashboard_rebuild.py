"""The dashboard says when a table came back from a damaged journal with less than it had
published (``B/health``'s ``rebuild`` link down: ``controller.service.rebuild``), in headless
Chromium against a real broker."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from tests.broker import Broker
from tests.web.conftest import VENUE
from tests.web.harness import LiveTable, WebThread

TIMEOUT = 8000  # ms


@pytest.fixture
def lost_table(ws_broker: Broker) -> Iterator[LiveTable]:
    health = {"summary": {"ok": False, "faults": {}}, "links": {"rebuild": {
        "up": False, "since": 1.0, "reason": "came back with less than it had published: "
        "journal row 3 cannot be read (not JSON): skipped", "channels": []}}}
    table = LiveTable(ws_broker.host, ws_broker.port, VENUE, "t1", health=health).start()
    yield table
    table.stop()


def test_a_table_back_with_less_than_it_published_says_so_on_its_console(
        browser: Browser, web: WebThread, lost_table: LiveTable) -> None:
    page = browser.new_page()  # the console: the table's health is the staff's (issue 41)
    page.goto(web.url + "console.html?table=t1")
    fault = page.locator('[data-table="t1"] [data-field="fault"]')
    expect(fault).to_contain_text("journal damaged: the score may be behind", timeout=TIMEOUT)
    page.goto(web.url + "console.html?table=t1&lang=ru")
    expect(fault).to_contain_text("журнал повреждён", timeout=TIMEOUT)
    page.close()
