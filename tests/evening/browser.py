"""The evening's browsers: the venue's TV wall in headless Chromium at 1920×1080, sampled.

``Wall`` serves the pages (``controller.web``'s ``WebServer``, as ``controller web`` does) on
the browsers' broker of the venue (the pages log in as ``dashboard`` over websockets, through
the shipped bridge), opens the wall (``?tv=1&lang=ru``) in Chromium at 1920×1080 in a thread of
its own (Playwright's sync API holds an event loop of its own), waits until every table's card
is on it, and then samples it until ``stop()``: where each card is (its table, x, y, width,
height, as the wall's ``article.table[data-table]`` lay out) and whether it lies wholly on the
screen. The checker counts the samples that do not show every table on the one screen, and
the samples whose layout differs from the one before (a card moved or resized).
"""

from __future__ import annotations

import json
import shutil
import threading
from dataclasses import dataclass, field
from typing import Any

from controller.web.server import Credentials, WebConfig
from tests.deploy.venue import password

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-dev-shm-usage"]
SIZE = (1920, 1080)
#: Each card: [table, x, y, width, height, wholly on the screen].
CARDS = """() => [...document.querySelectorAll("article.table")].map((c) => {
    const r = c.getBoundingClientRect();
    return [c.dataset.table, Math.round(r.x), Math.round(r.y), Math.round(r.width),
            Math.round(r.height), r.left >= -0.5 && r.top >= -0.5 && r.right <= innerWidth + 0.5
            && r.bottom <= innerHeight + 0.5];
  })"""


@dataclass
class Sample:
    """One look at the wall: at ``t`` (the evening's seconds), its cards."""

    t: float
    cards: list[list[Any]]

    def layout(self) -> str:
        return json.dumps(sorted(c[:5] for c in self.cards))

    def missing(self, tables: list[str]) -> list[str]:
        """Returns the tables not wholly on the screen in this sample."""
        shown = {str(c[0]) for c in self.cards if c[5]}
        return [t for t in tables if t not in shown]


@dataclass
class Wall:
    """The TV wall sampled through the evening (see the module docstring)."""

    ws_port: int
    venue: str
    tables: list[str]
    clock: Any
    every_s: float = 1.0
    #: a script run in the page before its own (a defect put back: ``tests.evening.defects``)
    init: str = ""
    samples: list[Sample] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _ready: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="wall", daemon=True)
        self._thread.start()

    def ready(self) -> bool:
        """Whether the wall showed every table once (sampling has begun), or gave up."""
        return self._ready.is_set()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(60)

    def _run(self) -> None:
        from playwright.sync_api import sync_playwright

        from tests.web.harness import WebThread

        config = WebConfig(broker=f"ws://{{host}}:{self.ws_port}", venue=self.venue,
                           dashboard=Credentials("dashboard", password("dashboard")),
                           tables=tuple(self.tables))
        web = WebThread(config).start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
                try:
                    page = browser.new_page(viewport={"width": SIZE[0], "height": SIZE[1]})
                    if self.init:
                        page.add_init_script(self.init)
                    page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))
                    page.goto(web.url + "?tv=1&lang=ru")
                    page.wait_for_function(
                        f"() => document.querySelectorAll('article.table').length >= "
                        f"{len(self.tables)}", timeout=60_000)
                    self._ready.set()
                    while not self._stop.is_set():
                        self.samples.append(Sample(self.clock(), page.evaluate(CARDS)))
                        self._stop.wait(self.every_s)
                finally:
                    browser.close()
        except Exception as exc:  # noqa: BLE001 - said in the report, never silent
            self.problems.append(f"the wall: {type(exc).__name__}: {exc}")
        finally:
            self._ready.set()
            web.stop()
