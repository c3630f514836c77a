"""The tournament's bracket on the TV wall (headless Chromium at 1920×1080, in Russian), drawn by
the vendored brackets-viewer from the venue record: 16 and 32 players in double elimination,
every name at least 40 px, the bracket a screen at a time, the tables' next matches above it."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser

import tournament as core
from controller.record import roster, stats, tournaments
from controller.record.director import DirectorSite
from controller.record.store import Store
from controller.web import WebConfig
from tests.record.test_tournaments import add_events
from tests.web.harness import WebThread

TIMEOUT = 15000
NAMES = ["Вера", "Глеб", "Анна", "Борис", "Дарья", "Егор", "Жанна", "Зиновий", "Ирина", "Кирилл",
         "Лариса", "Михаил", "Нина", "Олег", "Полина", "Роман"]


def known(store: Store, count: int) -> list[str]:
    """Puts ``count`` players in the venue's roster (a match each pair at table t9, their names
    Russian and numbered past 16); returns their ids."""
    ids = [f"p{i}" for i in range(1, count + 1)]
    names = [NAMES[i % 16] + ("" if i < 16 else f" {i // 16 + 1}") for i in range(count)]
    for i in range(0, count, 2):
        add_events(store, "t9", [
            ("match_started", {"match_id": f"m-{i}", "game": "ten-ball", "players": names[i:i + 2],
                               "breaker": 0, "player_ids": ids[i:i + 2]}),
            ("match_over", {"winner": 0})], 100.0 + i)
    stats.summarize_finished(store)
    roster.assign(store)
    return ids


@pytest.mark.parametrize("count", [16, 32])
def test_the_bracket_is_legible_on_the_wall_at_1080p(browser: Browser, tmp_path: Path,
                                                    artifacts: Path, count: int) -> None:
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    ids = known(store, count)
    tid = tournaments.create(store, "club", "Кубок", tournaments.Setup(core.Format.DOUBLE, tuple(ids)))
    for match, winner, score in [("W1-1", "p1", (5, 3)), ("W1-2", f"p{count // 2 + 1}", (2, 5))]:
        tournaments.act(store, "club", tid,
                        lambda t, m=match, w=winner, s=score: t.record(m, w, s))
    tournaments.act(store, "club", tid, lambda t: t.walkover("W1-3", t.pairing("W1-3").players[0]))
    tournaments.act(store, "club", tid, lambda t: core.Change(t.fill(["t3", "t4"]), ()))
    server = WebThread(WebConfig(venue="club"), record=DirectorSite(store)).start()
    try:
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        page.goto(server.url + f"tournament.html?lang=ru&id={tid}")
        page.wait_for_selector("body[data-ready='1']", timeout=TIMEOUT)
        page.screenshot(path=str(artifacts / f"tournament-{count}.png"))
        shown = page.eval_on_selector_all(
            ".participant .name", "els => els.map(e => [e.textContent.trim(), "
            "parseFloat(getComputedStyle(e).fontSize)])")
        status = page.inner_text("#status")
        pages = int(page.get_attribute("#bracket", "data-pages") or "0")
        page.keyboard.press("ArrowRight")
        turned = page.get_attribute("#bracket", "data-page")
        rounds = page.eval_on_selector_all("h3", "els => els.map(e => e.textContent)")
    finally:
        server.stop()
    named = {name for name, _ in shown if name}
    assert {"Вера", "Глеб", "Роман"} <= named
    assert min(size for _, size in shown) >= 40
    # the tables named as the venue's pages name them, never by their ids
    # a match on a table is said as on it, not as next (it may be in play already)
    assert "Стол 3: " in status and "Стол 4: " in status and "следующий" not in status
    assert "t3" not in status and "t4" not in status
    assert pages > 1 and turned == "2"
    assert "Раунд 1" in rounds and "Нижняя сетка, раунд 1" in rounds and "Суперфинал" in rounds


def test_the_printed_bracket_is_whole_on_white_within_an_a4_sheets_width(
        browser: Browser, tmp_path: Path, artifacts: Path) -> None:
    """The director's «Печать сетки» (or the browser's print): every match of a 16-player
    double elimination on the sheet, none cut by the screen's page turning, scaled to an A4
    landscape sheet's width (1062 px inside its margins)."""
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    ids = known(store, 16)
    tid = tournaments.create(store, "club", "Кубок", tournaments.Setup(core.Format.DOUBLE, tuple(ids)))
    tournaments.act(store, "club", tid, lambda t: t.record("W1-1", "p1", (5, 3)))
    server = WebThread(WebConfig(venue="club"), record=DirectorSite(store)).start()
    try:
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        page.goto(server.url + f"tournament.html?lang=ru&id={tid}")
        page.wait_for_selector("body[data-ready='1']", timeout=TIMEOUT)
        on_screen = page.eval_on_selector_all(".participant .name", "els => els.length")
        page.emulate_media(media="print")
        page.evaluate("dispatchEvent(new Event('beforeprint'))")
        zoom = float(page.get_attribute("#bracket", "data-print-zoom") or "0")
        page.screenshot(path=str(artifacts / "tournament-print.png"), full_page=True)
        boxes = page.eval_on_selector_all(".participant .name", """els => els.map(e => {
            const r = e.getBoundingClientRect(); return [r.right, r.bottom, r.width]; })""")
        main = page.eval_on_selector("#bracket", """m => [m.scrollHeight, m.clientHeight,
            getComputedStyle(m).overflow, getComputedStyle(document.body).backgroundColor]""")
        pdf = page.pdf(format="A4", landscape=True, print_background=True)
        (artifacts / "tournament-print.pdf").write_bytes(pdf)
    finally:
        server.stop()
    assert 0 < zoom < 1  # a 16-player double elimination is wider than the sheet
    assert len(boxes) == on_screen > 16
    assert all(w > 0 and right <= 1062 + 24 for right, _, w in boxes)  # within the sheet's width
    height, client, overflow, background = main
    assert overflow == "visible" and background == "rgb(255, 255, 255)"
    assert pdf.startswith(b"%PDF") and pdf.count(b"/Type /Page") >= 1
