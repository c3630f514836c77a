"""A question about a gap in the sensors' data, on the console in headless Chromium (issue 38
§2): the console words it from the question's data, saying how many gaps and which channels,
and (what a screen says must be true) not that a sensor is out of order."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from hardware.events import SensorEvent
from hardware.health import Health
from tests.broker import Broker
from tests.web.conftest import VENUE
from tests.web.harness import LiveTable, WebThread

TIMEOUT = 8000  # ms
BEAMS = ("beam.fl", "beam.fr", "beam.hl", "beam.hr", "beam.sl", "beam.sr")


@pytest.fixture
def table(ws_broker: Broker) -> Iterator[LiveTable]:
    t = LiveTable(ws_broker.host, ws_broker.port, VENUE, "t38").start()
    yield t
    t.stop()


def test_the_console_asks_about_each_pocket_naming_the_gap(
        browser: Browser, web: WebThread, table: LiveTable, artifacts: Path) -> None:
    table.request("new_match", {"game": "ten-ball", "players": ["Cleo", "Dan"], "race_to": 2})
    table.request("call", {"calls": [{"ball": 1, "pocket": "fl"}]})
    with table.lock:  # the shot rolls; its board restarts (a gap on every beam), then a ball
        t = table.now()
        table.table.sensor(SensorEvent(t, "cushion.lf", 1))
        for beam in BEAMS:
            table.table.set_health(beam, Health.GAP, t + 0.01)
    table.pot("fl")
    table.request("shot_end", {})
    console = browser.new_page(viewport={"width": 1280, "height": 1000})
    console.goto(web.url + "console.html?table=t38")
    question = console.locator("#questions .question").first
    expect(question).to_contain_text(
        "The sensors lost data once in this shot (beam.fl, beam.fr, beam.hl, beam.hr, beam.sl, "
        "beam.sr): did a ball fall in", timeout=TIMEOUT)
    expect(question).not_to_contain_text("out of order")
    console.screenshot(path=str(artifacts / "console-gap-question.png"), full_page=True)
    console.close()
