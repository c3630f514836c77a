"""The console's last word is what the table did (issue 39, item 1), on the shipped brokers:
the console on the browsers' broker, its requests over the bridge to the venue broker, which
hangs (SIGSTOP) during an Undo. The console does not call it not done when its time passes:
it asks the table to cancel it and says «НЕ ИЗВЕСТНО — ждём стол»; once the broker resumes,
its last word is the table's — 10 tries of 10."""

from __future__ import annotations

import contextlib
import os
import re
import signal
from pathlib import Path

from playwright.sync_api import Browser, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from controller.web import Credentials, WebConfig
from tests.deploy.venue import password, start_venue
from tests.web.harness import LiveTable, WebThread

TRIES = 10
TIMEOUT = 15000


def test_an_undo_during_a_hung_venue_broker_ends_on_what_the_table_did(
        browser: Browser, tmp_path: Path, artifacts: Path) -> None:
    venue = start_venue(tmp_path)
    broker = venue.broker.process
    assert broker is not None
    table = LiveTable("127.0.0.1", venue.ports[1883], "club", "t1", username="club/t1",
                      password=password("club/t1"), persistent=True).start()
    web = WebThread(WebConfig(broker=f"ws://{{host}}:{venue.ports[9001]}", venue="club",
                              dashboard=Credentials("dashboard", password("dashboard")))).start()
    hung = False
    words: list[tuple[str, int, int]] = []
    try:
        table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"], "race_to": 9})
        console = browser.new_page(viewport={"width": 1024, "height": 768})
        console.on("dialog", lambda d: d.accept())  # undo asks first
        # the request's time (ttl) 1 s: each try waits it out before the console gives up
        console.goto(web.url + "console.html?table=t1&ttl=1&lang=ru")
        console.fill("#login [name=password]", password("referee"))
        console.click("#login button[type=submit]")
        result = console.locator("#result")
        for n in range(TRIES):
            table.request("shot_end", {})  # a shot to undo
            shots = table.table.referee.shots
            _until(console, """(shots) => !document.getElementById("undo").disabled
                && (document.querySelector('#card [data-table="t1"] .meta')?.textContent || "")
                   .includes(`удар ${shots}`)""", shots)
            expect(console.locator('#card [data-table="t1"] .meta')).to_contain_text(
                f"удар {shots}", timeout=TIMEOUT)
            expect(console.locator("#undo")).to_be_enabled(timeout=TIMEOUT)
            os.kill(broker.pid, signal.SIGSTOP)  # hung: its sockets stay open
            hung = True
            console.click("#undo")
            _until(console, "() => document.getElementById('result').dataset.state === 'unknown'")
            expect(result).to_have_attribute("data-state", "unknown", timeout=TIMEOUT)
            expect(result).to_contain_text("Отмена: НЕ ИЗВЕСТНО — ждём стол")
            if n == 0:
                console.screenshot(path=str(artifacts / "console-hung-broker-unknown.png"))
            os.kill(broker.pid, signal.SIGCONT)
            hung = False
            _until(console, "() => document.getElementById('result').dataset.state !== 'unknown'")
            expect(result).not_to_have_attribute("data-state", "unknown", timeout=TIMEOUT)
            word = result.text_content() or ""
            words.append((word, shots, table.table.referee.shots))
            if table.table.referee.shots == shots - 1:  # undone: the console says so
                expect(result).to_have_text("Отмена: выполнено")
            else:
                expect(result).to_have_text(re.compile(r"^Отмена: (не выполнено|отказ)"))
        console.screenshot(path=str(artifacts / "console-hung-broker-done.png"))
        assert len(words) == TRIES
        console.close()
    finally:
        if hung:
            os.kill(broker.pid, signal.SIGCONT)
        web.stop()
        table.stop()
        venue.stop()


def _until(page: Page, condition: str, arg: object = None) -> None:
    """Waits until ``condition`` (a JavaScript function of ``arg``) is true in the page, tried
    at every frame it draws (``expect`` tries again up to half a second apart: ten tries wait
    on the console three times each); the ``expect`` after it checks it, and says what the
    page shows if it never came."""
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_function(condition, arg=arg, timeout=TIMEOUT, polling="raf")
