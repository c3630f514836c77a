"""Which link failed, and which fact was not sensed (issue 29): a broker that freezes without
closing its sockets is noticed within seconds (MQTT keepalive over websockets), not when the
operating system gives up, and a request sent meanwhile says that the broker, not the table,
failed to take it, and it is "not known" until the table says what it did; a cushion foul
made of hits the sensors did not feel is taken back in two taps."""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

from playwright.sync_api import Browser, expect

from controller.web import WebConfig
from tests.broker import Broker, free_port
from tests.web.harness import LiveTable, WebThread

VENUE = "frozen"
#: The console's MQTT keepalive here (``config.json``'s ``keepalive_s``; the pages' own is 4 s):
#: a broker that froze is noticed 1.5 of them after the last packet it sent (MQTT.js's
#: "Keepalive timeout"), at least half of one after the freeze: 1.5 s here, a second more than
#: the request's ttl below, for the tap on a loaded machine.
KEEPALIVE_S = 3.0
#: The console's wait between tries to reconnect (``reconnect_s``; the pages' own is 2 s).
RECONNECT_S = 0.5
#: How long its request stays wanted (the page's ``ttl``): under half a keepalive, so it is
#: given up while the page still holds its connection, on the broker's silence.
TTL_S = 0.5
#: A loaded machine's slack on top of the keepalive's timeout.
SLACK_S = 5.0


def test_a_frozen_broker_is_noticed_in_seconds_and_blamed_for_the_request_it_did_not_take(
        browser: Browser, tmp_path: Path, artifacts: Path) -> None:
    ws_port = free_port()
    broker = Broker(tmp_path, extra=f"listener {ws_port} 127.0.0.1\nprotocol websockets")
    broker.start()
    server = WebThread(WebConfig(broker=f"ws://{{host}}:{ws_port}", venue=VENUE,
                                 keepalive_s=KEEPALIVE_S, reconnect_s=RECONNECT_S)).start()
    table = LiveTable(broker.host, broker.port, VENUE, "t1").start()
    frozen = False
    try:
        table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"], "race_to": 2})
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        page.goto(server.url + f"console.html?venue={VENUE}&table=t1&ttl={TTL_S:g}")
        expect(page.locator("#connection")).to_have_text("connected", timeout=10000)
        expect(page.locator("#q-miss")).to_be_enabled(timeout=10000)
        assert broker.process is not None
        os.kill(broker.process.pid, signal.SIGSTOP)  # frozen: its sockets stay open
        frozen = True
        froze = time.monotonic()
        page.click("#q-miss")
        result = page.locator("#result")
        expect(result).to_have_attribute("data-state", "unknown", timeout=10000)
        expect(result).to_have_text(
            re.compile(r"^Shot end: NOT KNOWN — waiting for the table\. The broker did not confirm"))
        expect(page.locator("#connection")).not_to_have_text("connected", timeout=15000)
        # in seconds: not the 40 s and more a dead socket takes
        assert time.monotonic() - froze < 1.5 * KEEPALIVE_S + SLACK_S
        expect(page.locator("#lost")).to_be_visible(timeout=5000)
        page.screenshot(path=str(artifacts / "console-broker-frozen.png"))
        os.kill(broker.process.pid, signal.SIGCONT)
        frozen = False
        expect(page.locator("#connection")).to_have_text("connected", timeout=20000)
        # its last word is what the table did: the shot ended, or the cancel came first
        expect(result).not_to_have_attribute("data-state", "unknown", timeout=20000)
        done = any(name == "shot_end" for name, _ in table.requests)
        expect(result).to_have_text("Shot end: done" if done else re.compile(r"^Shot end: not done"))
        page.close()
    finally:
        if frozen and broker.process is not None:
            os.kill(broker.process.pid, signal.SIGCONT)
        table.stop()
        server.stop()
        broker.stop()


def test_a_cushion_foul_the_sensors_made_is_taken_back_from_the_fix_sheet_in_two_taps(
        browser: Browser, web: WebThread, ws_broker: Broker, artifacts: Path) -> None:
    table = LiveTable(ws_broker.host, ws_broker.port, "club", "t8").start()
    try:
        table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"]})
        table.request("declare", {"pocketed": [{"ball": 1, "pocket": "fl"}], "shot": 1})
        table.request("shot_end", {})  # the break: the 1 down, Ann shoots again
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        page.goto(web.url + "console.html?table=t8&lang=en")
        expect(page.locator("#q-miss")).to_be_enabled(timeout=10000)
        page.click("#q-miss")  # nothing reached a sensor: no cushion either, a foul
        ruling = page.locator("#ruling")
        expect(ruling).to_have_text(re.compile(r"^Shot 2: Foul: no rail — Bob to shoot"), timeout=10000)
        page.click("#v-fix")
        page.click('#fix-sheet [data-no-foul="no_rail"]')
        expect(ruling).to_have_text("Shot 2 (corrected): Ann: no ball — Bob to shoot", timeout=10000)
        assert table.requests[-1][0] == "declare"
        assert {k: v for k, v in table.requests[-1][1].items() if k not in ("transaction", "deadline")} \
            == {"v": 1, "cushions_after_contact": 1, "shot": 2}
        page.screenshot(path=str(artifacts / "console-no-foul.png"))
        page.close()
    finally:
        table.stop()
