"""Maintenance words stay off the public screens (issue 41, item 3): the TV wall, the dashboard
and the stream overlay never say «⚠ cushion.f молчит», «Датчик cushion.f снова в порядке» or
«засчитан шар 4, object»; the referee's console (a staff page) says the sensor's fault in
words. A real table with a failing sensor (``LiveTable`` with its health) and its events on a
real broker, read in headless Chromium."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as paho
import pytest
from paho.mqtt.enums import CallbackAPIVersion
from playwright.sync_api import Page

from tests.broker import Broker
from tests.web.conftest import VENUE
from tests.web.harness import LiveTable, Tabs, WebThread, close_page, expect
from tests.web.test_wall_legible import _open

TIMEOUT = 8000  # ms
#: What no public screen may show: channel codes, the health words, a ball's code.
MAINTENANCE = ("cushion", "beam.", "молчит", "Датчик", "датчик", "object", "⚠")


@pytest.fixture
def failing(ws_broker: Broker) -> Iterator[LiveTable]:
    """t80 in a Ten-ball match, its foot cushion's sensor silent."""
    table = LiveTable(ws_broker.host, ws_broker.port, VENUE, "t80",
                      health={"summary": {"ok": False, "faults": {"cushion.f": "silent"}}}).start()
    assert table.request("new_match", {"game": "ten-ball", "players": ["Анна", "Борис"],
                                       "race_to": 3})["status"] == "ok"
    try:
        yield table
    finally:
        table.stop()


def _say_events(broker: Broker) -> None:
    """The table's maintenance events and a ruling crediting a ball no one identified."""
    client = paho.Client(CallbackAPIVersion.VERSION2, client_id="test-events-t80")
    client.connect(broker.host, broker.port)
    client.loop_start()
    events = [
        {"type": "sensor_fault", "data": {"channel": "cushion.f", "state": "silent",
                                          "reason": "quiet_while_others_played"}},
        {"type": "shot_result", "data": {"shot": 1, "to_shoot": 0, "decisions": [
            {"decision": "BallCredited", "player": 0, "ball": 4},
            {"decision": "BallCredited", "player": 0, "ball": "object"}]}},
        {"type": "sensor_recovered", "data": {"channel": "cushion.f"}},
    ]
    for n, ev in enumerate(events, start=900):
        client.publish(f"billiards/{VENUE}/t80/event", json.dumps({"v": 1, "seq": n, "ts": 5.0, **ev}),
                       1).wait_for_publish(5)
    client.disconnect()  # before loop_stop: the other order waits out the loop's second
    client.loop_stop()


def _shown(page: Page, selector: str) -> str:
    return page.locator(selector).inner_text()


def test_sensor_faults_are_in_words_on_the_console_and_nowhere_public(
        tabs: Tabs, web: WebThread, ws_broker: Broker, failing: LiveTable, artifacts: Path) -> None:
    wall = _open(tabs, f"{web.url}?lang=ru&tv=1", (1920, 1080))
    board = _open(tabs, f"{web.url}?lang=ru", (1280, 900))
    overlay = _open(tabs, f"{web.url}overlay.html?table=t80&lang=ru", (1280, 720))
    console = _open(tabs, f"{web.url}console.html?table=t80&lang=ru", (1180, 820))
    for page in (wall, board, console):
        expect(page.locator('[data-table="t80"] .player .name').first).to_have_text("Анна", timeout=TIMEOUT)
    expect(overlay.locator(".name").first).to_have_text("Анна", timeout=TIMEOUT)
    expect(console.locator("#connection.ok")).to_be_visible(timeout=TIMEOUT)
    _say_events(ws_broker)
    # the dashboard tells the ruling in words, the unidentified ball too
    events = board.locator('[data-table="t80"] [data-field="events"]')
    expect(events).to_contain_text("засчитан шар 4, неопознанный", timeout=TIMEOUT)
    # the console, a staff page: the fault in words, and the sensor's events
    fault = console.locator('[data-table="t80"] [data-field="fault"]')
    expect(fault).to_have_text("⚠ датчик борта «дальний короткий»: молчит")
    staff = console.locator('[data-table="t80"] [data-field="events"]')
    expect(staff).to_contain_text("Датчик борта «дальний короткий»: снова в порядке")
    expect(staff).to_contain_text("Датчик борта «дальний короткий»: молчит (молчал, пока срабатывали другие)")
    expect(overlay.locator('[data-field="last"]')).to_contain_text("засчитан шар 4, неопознанный")
    public = (("wall", wall, '[data-table="t80"]'), ("dashboard", board, '[data-table="t80"]'),
              ("overlay", overlay, "#board"))
    for name, page, selector in public:
        text = _shown(page, selector)
        assert not [w for w in MAINTENANCE if w in text], (name, text)
        page.screenshot(path=str(artifacts / f"public-words-{name}.png"))
    console.screenshot(path=str(artifacts / "public-words-console.png"))
    for page in (wall, board, overlay, console):
        close_page(page)
