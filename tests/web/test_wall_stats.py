"""The wall's live statistics come from the table (issue 30): a page opened mid-match (every
TV switched on at 7 pm, every reload) shows the whole match's runs, not what it heard since
it opened. Headless Chromium against a real broker and a real table (``LiveTable``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.broker import Broker
from tests.web.conftest import VENUE
from tests.web.harness import LiveTable, WebThread
from tests.web.test_wall import SKEWED, TIMEOUT, _open, _seconds

PLAYERS = ["Борис Преображенский", "Анна Шереметьева"]


@pytest.fixture
def pyramid(ws_broker: Broker) -> Iterator[LiveTable]:
    """t41, a Point pyramid match in Russian between Борис (breaking) and Анна."""
    table = LiveTable(ws_broker.host, ws_broker.port, VENUE, "t41").start()
    assert table.request("new_match", {"game": "pyramid", "players": PLAYERS,
                                       "race_to": 2})["status"] == "ok"
    try:
        yield table
    finally:
        table.stop()


def _shot(table: LiveTable, ball: int | None = None, pocket: str = "fl") -> None:
    """A shot ended by the referee: ``ball`` called and pocketed in ``pocket``, or a miss."""
    facts: dict[str, Any] = {"first_contact": ball or 5, "cushions_after_contact": 1}
    if ball is not None:
        assert table.request("call", {"calls": [{"ball": ball, "pocket": pocket}]})["status"] == "ok"
        facts["pocketed"] = [{"ball": ball, "pocket": pocket}]
    assert table.request("declare", facts)["status"] == "ok"
    assert table.request("shot_end", {})["status"] == "ok"


def _stats(page: Page) -> Any:
    stats = page.locator('[data-table="t41"] [data-field="stats"]')
    expect(stats).to_be_visible(timeout=TIMEOUT)
    return stats


def test_a_wall_opened_mid_match_shows_the_whole_matchs_runs(
        browser: Browser, web: WebThread, pyramid: LiveTable, artifacts: Path) -> None:
    """Before, a page counted runs from the events it heard: opened after them, it showed no
    statistics at all (a page open from the start showed them). Борис pots the 1 (11 points
    with two players, PP-3) and the 2 (2), then misses; Анна pots the 3 (3 points)."""
    early = _open(browser, f"{web.url}?lang=ru&tv=1&table=t41", (1920, 1080))
    expect(early.locator('[data-table="t41"] .player .name').first).to_be_visible(timeout=TIMEOUT)
    for ball, pocket in ((1, "fl"), (2, "fr"), (None, ""), (3, "sl")):
        _shot(pyramid, ball, pocket)
    late = _open(browser, f"{web.url}?lang=ru&tv=1&table=t41", (1920, 1080), SKEWED)
    for page in (early, late):
        stats = _stats(page)
        expect(stats.locator('[data-field="best"]')).to_have_text(f"лучшая серия 13 ({PLAYERS[0]})")
        expect(stats.locator('[data-field="run"]')).to_have_text(f"серия 3 ({PLAYERS[1]})")
        assert stats.locator('[data-field="partial"]').count() == 0
    # the match timed on the table's clock, the late page's own three hours off: from the
    # table's time in the last message it heard (the last shot's) on to the table's now
    t0 = pyramid.table.match_t0 or 0.0
    assert int(pyramid.table.now - t0) <= _seconds(late, "t41") <= pyramid.now() - t0 + 2
    late.screenshot(path=str(artifacts / "wall-stats-late-ru.png"))
    # an undo: every page shows the match as it then stands
    assert pyramid.request("undo", {"shots": 2})["status"] == "ok"
    for page in (early, late):
        expect(_stats(page).locator('[data-field="run"]')).to_have_text(f"серия 13 ({PLAYERS[0]})")
    for page in (early, late):
        assert page.errors == []  # type: ignore[attr-defined]
        page.close()
