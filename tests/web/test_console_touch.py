"""The console's drawing on a touch tablet (issue 41 item 8): on a 1024×768 tablet held
landscape, where the drawing is smallest, every ball and pocket is at least 44 px across (a
finger's target), none overlapping another; the pockets' keyboard letters are not drawn for a
touch screen until a key is pressed."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.broker import Broker
from tests.web.harness import LiveTable, WebThread

TIMEOUT = 10000
TARGET = 44  # px


@pytest.fixture
def table(ws_broker: Broker) -> Iterator[LiveTable]:
    live = LiveTable(ws_broker.host, ws_broker.port, "club", "t7").start()
    try:
        yield live
    finally:
        live.stop()


def _tablet(browser: Browser, web: WebThread, table: LiveTable, game: str, players: int) -> Page:
    table.request("new_match", {"game": game, "players": ["Анна", "Борис", "Вера", "Глеб"][:players]})
    context = browser.new_context(viewport={"width": 1024, "height": 768}, has_touch=True)
    page = context.new_page()
    page.goto(web.url + "console.html?table=t7&lang=ru")
    expect(page.locator("#pool [data-ball]").first).to_be_visible(timeout=TIMEOUT)
    return page


def _boxes(page: Page, selector: str) -> list[dict[str, float]]:
    return page.eval_on_selector_all(selector, "ns => ns.map(n => { const r = n.getBoundingClientRect();"
                                               " return {x: r.x, y: r.y, w: r.width, h: r.height}; })")


def _apart(a: dict[str, float], b: dict[str, float]) -> bool:
    """Returns True when the two round targets (their boxes' inscribed circles) do not overlap."""
    ax, ay, bx, by = a["x"] + a["w"] / 2, a["y"] + a["h"] / 2, b["x"] + b["w"] / 2, b["y"] + b["h"] / 2
    return ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5 >= (a["w"] + b["w"]) / 2 - 0.5


@pytest.mark.parametrize(("game", "players"), [("ten-ball", 2), ("pyramid", 4)])
def test_balls_and_pockets_are_a_fingers_size_on_a_landscape_tablet(
        browser: Browser, web: WebThread, table: LiveTable, artifacts: Path, game: str,
        players: int) -> None:
    page = _tablet(browser, web, table, game, players)
    balls = _boxes(page, "#pool [data-ball] circle.body")
    pockets = _boxes(page, "#pool [data-pocket]")
    assert len(pockets) == 6 and len(balls) >= 11
    small = [b for b in balls + pockets if min(b["w"], b["h"]) < TARGET]
    assert not small, small
    touching = [(a, b) for a, b in combinations(balls + pockets, 2) if not _apart(a, b)]
    assert not touching, touching
    (drawing,) = _boxes(page, "#pool svg.pool")
    cut = [b for b in balls + pockets  # a target the drawing's edge cuts is smaller than it looks
           if b["x"] < drawing["x"] - 0.5 or b["y"] < drawing["y"] - 0.5
           or b["x"] + b["w"] > drawing["x"] + drawing["w"] + 0.5
           or b["y"] + b["h"] > drawing["y"] + drawing["h"] + 0.5]
    assert not cut, cut
    page.screenshot(path=str(artifacts / f"console-touch-{game}.png"))
    page.context.close()


def test_the_pockets_keyboard_letters_wait_for_a_key_on_a_touch_screen(
        browser: Browser, web: WebThread, table: LiveTable) -> None:
    page = _tablet(browser, web, table, "ten-ball", 2)
    letters = page.locator("#pool text.key")
    expect(letters).to_have_count(6)
    for letter in letters.all():
        expect(letter).to_be_hidden()
    page.keyboard.press("Shift")  # a keyboard is attached after all
    for letter in letters.all():
        expect(letter).to_be_visible()
    page.context.close()
