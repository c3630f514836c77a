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
import queue
import shutil
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
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
    """The TV wall sampled through the evening, and the hand-played table's console driven
    in the same browser between samples, when there is one (see the module docstring)."""

    ws_port: int
    venue: str
    tables: list[str]
    clock: Any
    every_s: float = 1.0
    #: a script run in the page before its own (a defect put back: ``tests.evening.defects``)
    init: str = ""
    console: Console | None = None
    #: where the last look at the wall and the console is saved (wall.png, console.png)
    shots: Path | None = None
    samples: list[Sample] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _ready: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _commands: queue.Queue[tuple[Callable[[], None], Future[None]]] = field(
        default_factory=queue.Queue)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="wall", daemon=True)
        self._thread.start()

    def ready(self) -> bool:
        """Whether the wall showed every table once (sampling has begun), or gave up."""
        return self._ready.is_set()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(90)

    def run_in_browser(self, work: Callable[[], None], timeout: float = 120.0) -> None:
        """Runs ``work`` in the browser's thread, between two of its steps; returns when done."""
        done: Future[None] = Future()
        self._commands.put((work, done))
        done.result(timeout)

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
                    self._show(browser, web.url)
                finally:
                    browser.close()
        except Exception as exc:  # noqa: BLE001 - said in the report, never silent
            self.problems.append(f"the wall: {type(exc).__name__}: {exc}")
        finally:
            self._ready.set()
            while not self._commands.empty():
                self._commands.get()[1].set_exception(RuntimeError("the browser is closed"))
            web.stop()

    def _show(self, browser: Any, url: str) -> None:
        page = browser.new_page(viewport={"width": SIZE[0], "height": SIZE[1]})
        if self.init:
            page.add_init_script(self.init)
        page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))
        page.goto(url + "?tv=1&lang=ru")
        if self.console is not None:
            self.console.open(browser, url)
        page.wait_for_function(f"() => document.querySelectorAll('article.table').length >= "
                               f"{len(self.tables)}", timeout=60_000)
        self._ready.set()
        sampled = -1e9
        while not self._stop.is_set():
            while not self._commands.empty():
                work, done = self._commands.get()
                try:
                    work()
                    done.set_result(None)
                except Exception as exc:  # noqa: BLE001 - handed to the caller
                    done.set_exception(exc)
            if self.clock() - sampled >= self.every_s:
                sampled = self.clock()
                self.samples.append(Sample(sampled, page.evaluate(CARDS)))
            if self.console is not None:
                self._console_step()
            self._stop.wait(1.0 if self.console is not None else self.every_s)  # a marker's pace
        if self.console is not None:
            self.console.sync()
        if self.shots is not None:
            page.screenshot(path=str(self.shots / "wall.png"))
            if self.console is not None:
                self.console.page.screenshot(path=str(self.shots / "console.png"))


    def _console_step(self) -> None:
        """The marker's next step at the console; one that cannot be done (a control that
        never held still for a click) is the console's finding, said in the report with a
        look at the console kept, and the wall goes on being sampled (it stopped with it)."""
        assert self.console is not None
        try:
            self.console.step()
        except Exception as exc:  # noqa: BLE001 - the console's finding, never silent
            line = str(exc).splitlines()[0] if str(exc) else ""
            self.console.problems.append(
                f"at {self.clock():.1f} s the marker's step failed: {type(exc).__name__}: {line}")
            if self.shots is not None and len(self.console.problems) <= 3:
                self.console.page.screenshot(
                    path=str(self.shots / f"console-stuck-{len(self.console.problems)}.png"))


#: Collects every last word the console shows in ``#result`` (done, refused, cancelled), in
#: order: ``window.saidFinally``. A chain of requests (a pot: the call, what fell, the shot's
#: end) shows a step's word and sends the next at once, in one task: the observer, called
#: after it, reads the states set in between from the records' old values (the text of such a
#: word is gone by then).
SAID = """addEventListener("DOMContentLoaded", () => {
    window.saidFinally = [];
    const result = document.getElementById("result");
    const FINAL = ["ok", "error", "cancelled"];
    new MutationObserver((records) => {
        const states = [...records.slice(1).map((r) => r.oldValue), result.dataset.state];
        states.forEach((state, i) => {
            if (FINAL.includes(state))
                window.saidFinally.push([state, i === states.length - 1 ? result.textContent
                                                                        : "(a step of a chain)"]);
        });
    }).observe(result, {attributes: true, attributeFilter: ["data-state"],
                        attributeOldValue: true});
});"""
FINAL_MS = 30_000
NAMES = ["Анна Каренина", "Борис Годунов"]


@dataclass
class Console:
    """A club's marker at the hand-played table's console, in Russian, on a 1024×768 tablet:
    enters a match (``game``, race to 2), then plays it as a marker does on a table with no
    cushion sensors: a miss (``shot_end``) each shot, each question answered with its first
    choice; a new match when one is over. ``said`` is every last word the console showed, in
    order; ``undos`` the undos sent while the venue broker hung."""

    table: str
    game: str
    #: a script run in the console before its own (a defect put back)
    init: str = ""
    said: list[tuple[str, str]] = field(default_factory=list)
    undos: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    page: Any = None

    def open(self, browser: Any, url: str) -> None:
        """Opens the console, logs in, and enters the first match."""
        self.page = page = browser.new_page(viewport={"width": 1024, "height": 768})
        page.add_init_script(SAID)
        if self.init:
            page.add_init_script(self.init)
        page.on("dialog", lambda d: d.accept())  # an undo asks first
        page.on("pageerror", lambda exc: self.problems.append(f"console page error: {exc}"))
        page.goto(url + f"console.html?table={self.table}&ttl=2&lang=ru")
        page.fill("#login [name=password]", password("referee"))
        page.click("#login button[type=submit]")
        page.wait_for_selector("#connection.ok", timeout=FINAL_MS)
        self.new_match()

    def _said_after(self, act: Any) -> str:
        """Does ``act``; waits for the console's next last word; returns it ("" if none)."""
        page = self.page
        before = page.evaluate("window.saidFinally.length")
        act()
        try:
            page.wait_for_function(f"window.saidFinally.length > {before}", timeout=FINAL_MS)
        except Exception:  # noqa: BLE001 - a console with no last word is a finding
            self.problems.append(f"no last word in {FINAL_MS / 1000:.0f} s after an action: "
                                 f"{page.locator('#result').text_content()}")
            return ""
        self.sync()
        return self.said[before][1]

    def sync(self) -> None:
        """Takes every last word the console showed so far (``said``)."""
        self.said = [(str(a), str(b)) for a, b in self.page.evaluate("window.saidFinally")]

    def new_match(self) -> None:
        page = self.page
        page.select_option("#game", self.game)
        for i, name in enumerate(NAMES):
            page.fill(f'[data-player-name="{i}"]', name)
        page.fill("#race-to", "2")
        self._said_after(lambda: page.click("#new-match button[type=submit]"))

    def step(self) -> None:
        """One thing a marker does: answers the open question, or enters a shot: every other
        one the lowest ball potted as called in the far left pocket (two taps: the call, what
        fell and the shot's end, in one go), the others a miss; nothing while the console
        says it cannot send (seed 2: a click waited 30 s on an answer disabled through a
        broker pause, two bridge cuts and a broker kill)."""
        page = self.page
        if page.locator("#blocked").is_visible():
            return  # the console says it cannot send now (cut off, the table away): he waits
        answer = page.locator("#questions button.answer")
        if answer.count():
            self._said_after(lambda: answer.first.click())
        elif "матч окончен" in (page.locator("#card .meta").text_content() or ""):
            self.new_match()
        elif len(self.said) % 2 and page.locator("#pool [data-ball]").count() > 1:
            self._pot()
        elif page.locator("#q-miss").is_enabled():
            self._said_after(lambda: page.click("#q-miss"))

    def _pot(self) -> None:
        page = self.page
        balls = page.eval_on_selector_all("#pool [data-ball]", "ns => ns.map(n => n.dataset.ball)")
        lowest = min(int(b) for b in balls if b != "cue")
        page.click(f'#pool [data-ball="{lowest}"]')
        self._said_after(lambda: page.click('#pool [data-pocket="fl"]'))
        try:  # the chain's end: a step's last word with no next step sent in the same task
            page.wait_for_function(
                "['ok', 'error', 'cancelled'].includes("
                "document.getElementById('result').dataset.state)", timeout=FINAL_MS)
        except Exception:  # noqa: BLE001 - a console with no last word is a finding
            self.problems.append(f"a pot's chain had no last word in {FINAL_MS / 1000:.0f} s")
        self.sync()

    def undo_hung(self, hang: Any, resume: Any, hold: float) -> None:
        """Sends an undo while the venue broker hangs (``hang()``), and lets it go on
        (``resume()``) once the console says it does not know, or says a last word instead
        (a console that gave up: the finding, said at once), or after ``hold`` s and some;
        then waits for its last word."""
        page = self.page
        result = page.locator("#result")
        if not page.locator("#undo").is_enabled():
            self._said_after(lambda: page.click("#q-miss"))  # a shot to undo
        before = page.evaluate("window.saidFinally.length")
        hang()
        try:
            page.click("#undo")
            try:
                # a last word while the broker hangs (nothing can have answered the undo) ends
                # the wait too: a console that never says «не известно» is not waited out
                shown = page.wait_for_function(
                    "document.getElementById('result').dataset.state === 'unknown' ? 'unknown' "
                    f": window.saidFinally.length > {before} && 'a last word'",
                    timeout=max(1000, int(hold * 1000) + 8000)).json_value()
            except Exception:  # noqa: BLE001 - said in the report, below
                shown = None
            if shown == "unknown":
                self.undos.append(result.text_content() or "")
            else:
                self.problems.append("the undo while the broker hung never showed НЕ ИЗВЕСТНО")
        finally:
            resume()
        try:
            page.wait_for_function(f"window.saidFinally.length > {before}", timeout=FINAL_MS)
            self.sync()
            self.undos.append(self.said[before][1])
        except Exception:  # noqa: BLE001 - said in the report
            self.problems.append("the undo sent while the broker hung had no last word")
