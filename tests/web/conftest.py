"""Fixtures for the browser tests: a broker with a websockets listener, the pages, Chromium.

Headless Debian Chromium (``/usr/bin/chromium``) driven by Playwright for Python; nothing
downloads a browser. Without Chromium these tests fail (they are part of the suite).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from controller.web import WebConfig
from tests.broker import Broker, free_port
from tests.web.harness import LiveTable, Tabs, WebThread

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
VENUE = "club"


@pytest.fixture(scope="module")
def ws_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    """A Mosquitto with a plain listener (the tables) and a websockets one (the browsers)."""
    ws_port = free_port()
    b = Broker(tmp_path_factory.mktemp("wsbroker"),
               extra=f"listener {ws_port} 127.0.0.1\nprotocol websockets")
    b.ws_port = ws_port  # type: ignore[attr-defined]
    b.start()
    try:
        yield b
    finally:
        b.stop()


@pytest.fixture(scope="module")
def web(ws_broker: Broker) -> Iterator[WebThread]:
    server = WebThread(WebConfig(broker=f"ws://{{host}}:{ws_broker.ws_port}",  # type: ignore[attr-defined]
                                 venue=VENUE)).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless Chromium, for one module: Playwright's sync API holds an event loop of its
    own while it runs, so it must be closed before the asyncio tests of other modules."""
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), f"the browser tests need {CHROMIUM} (apt-get install chromium)"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def tabs(browser: Browser) -> Iterator[Tabs]:
    """Pages a module's tests share (``Tabs``): each test opens and closes its own."""
    pool = Tabs(browser)
    try:
        yield pool
    finally:
        pool.stop()


@pytest.fixture
def tab(tabs: Tabs) -> Iterator[Page]:
    """A blank page of the module's ``tabs`` (a tablet's 1024×768 unless the test sizes it),
    for the pages the test loads in it; given back when the test ends (its storage cleared)."""
    page = tabs.open("about:blank", (1024, 768))
    yield page
    tabs.close(page)  # asserts no script error happened in it


@pytest.fixture
def errors(tab: Page) -> list[str]:
    """The script errors of the pages the test loads in ``tab``."""
    return tab.errors  # type: ignore[attr-defined,no-any-return]


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def live_tables() -> Iterator[dict[str, LiveTable]]:
    """Tables a test starts (``LiveTable``), by id: each stopped when the test ends."""
    made: dict[str, LiveTable] = {}
    yield made
    for t in made.values():
        t.stop()
