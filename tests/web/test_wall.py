"""The TV wall a club reads from across the room (issue 30): clocks on the table's time, QR
codes a phone scans, a CSV spreadsheets open as is. Headless Chromium against a real broker
and real tables (``LiveTable``); screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.broker import Broker
from tests.web.conftest import VENUE
from tests.web.harness import LiveTable, WebThread

TIMEOUT = 8000  # ms
#: A browser whose clock is three hours and a bit behind (a TV never set, a tablet abroad).
SKEWED = """(() => {
  const skew = -(3 * 3600 + 17 * 60) * 1000, Real = Date;
  class Skewed extends Real {
    constructor(...a) { super(...(a.length ? a : [Real.now() + skew])); }
    static now() { return Real.now() + skew; }
  }
  globalThis.Date = Skewed;
})();"""


@pytest.fixture(scope="module")
def clocked(ws_broker: Broker) -> Iterator[LiveTable]:
    """t21: a match that began ten minutes ago on the table's clock."""
    table = LiveTable(ws_broker.host, ws_broker.port, VENUE, "t21").start()
    assert table.request("new_match", {"game": "pyramid", "players": ["Борис", "Анна"],
                                       "race_to": 2})["status"] == "ok"
    with table.lock:
        table.t0 -= 600  # the table's clock runs on: ten minutes of play
    try:
        yield table
    finally:
        table.stop()


def _open(browser: Browser, url: str, size: tuple[int, int], init: str | None = None) -> Page:
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    if init:
        page.add_init_script(init)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(url)
    return page


def _seconds(page: Page, table: str) -> int:
    """The match clock on ``table``'s card, in seconds."""
    clock = page.locator(f'[data-table="{table}"] [data-field="clock"]').first
    expect(clock).to_be_visible(timeout=TIMEOUT)
    found = re.search(r"(?:(\d+):)?(\d+):(\d\d)", clock.inner_text())
    assert found, clock.inner_text()
    h, m, s = (int(g) if g else 0 for g in found.groups())
    return h * 3600 + m * 60 + s


def test_a_tv_and_a_console_opened_at_different_times_show_the_tables_match_time(
        browser: Browser, web: WebThread, clocked: LiveTable, artifacts: Path) -> None:
    """Before, each page timed the match from when it saw the start on its own clock: a page
    opened mid-match showed no clock (or the server's start against the browser's clock)."""
    wall = _open(browser, f"{web.url}?lang=ru&tv=1&table=t21", (1920, 1080))
    clocked.pot("fl")  # a shot: the table speaks, with its time
    clocked.settle()
    first = _seconds(wall, "t21")
    assert 600 <= first <= 600 + 30
    console = _open(browser, f"{web.url}console.html?table=t21&lang=ru", (1180, 820), SKEWED)
    expect(console.locator('[data-table="t21"] [data-field="clock"]')).to_be_visible(timeout=TIMEOUT)
    clocked.pot("fr")
    clocked.settle()
    table_now = clocked.now() - (clocked.table.match_t0 or 0.0)
    on_wall, on_console = _seconds(wall, "t21"), _seconds(console, "t21")
    assert abs(on_wall - on_console) <= 2, (on_wall, on_console)
    assert abs(on_wall - table_now) <= 3, (on_wall, table_now)
    wall.screenshot(path=str(artifacts / "wall-clock-ru.png"))
    for page in (wall, console):
        assert page.errors == []  # type: ignore[attr-defined]
        page.close()
