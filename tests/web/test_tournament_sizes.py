"""The bracket page and the director's page on a phone (390×844) and a tablet (1280×800), in
Russian and English (headless Chromium): nothing runs off the screen sideways — the page does
not scroll across, no text, button or field is cut at the screen's edge or inside its box, and
no word is split across two lines; the bracket too wide for the screen is shown a screen at a
time, as on the wall, and a phone sees some of it under the tables' next matches."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

import tournament as core
from controller.record import tournaments
from controller.record.director import DirectorSite
from controller.record.store import Store
from controller.web import WebConfig
from tests.web.harness import WebThread
from tests.web.test_tournament_page import known

TIMEOUT = 15000
PASSWORD = "пароль директора"
SIZES = {"phone": (390, 844), "tablet": (1280, 800)}

#: Every shown element that sticks out of the screen's width, or whose own content is wider
#: than its box while the box hides or scrolls it (a word cut); the bracket's box excepted,
#: which turns a screen at a time (its pages: data-pages).
OVERFLOWS = r"""() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  const across = document.documentElement.scrollWidth;
  if (across > width) out.push(["page", across, width]);
  const bracket = document.getElementById("bracket");
  for (const e of document.body.querySelectorAll("*")) {
    if (bracket && bracket.contains(e) && e !== bracket) continue;
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(e).visibility === "hidden") continue;
    const what = e.tagName + (e.id ? "#" + e.id : "") + " " + (e.textContent || "").trim().slice(0, 30);
    if (r.right > width + 0.5 || r.left < -0.5) out.push([what, Math.round(r.left), Math.round(r.right)]);
    const clip = getComputedStyle(e).overflowX;
    if (e !== bracket && clip !== "visible" && e.scrollWidth > e.clientWidth + 1) {
      out.push([what, e.scrollWidth, e.clientWidth]);
    }
  }
  // in the bracket: a name cut («Зинов…») or a result out of its match's box
  for (const e of document.querySelectorAll(".participant, .participant .name")) {
    if (e.scrollWidth > e.clientWidth + 1) out.push(["cut in the bracket", e.textContent.trim()]);
  }
  // a word split across two lines («Матч» as «Мат / ч»), the bracket's too (a walkover's
  // «неявка» once stood a letter a line): its letters on two lines
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const node = walk.currentNode;
    for (const word of node.textContent.matchAll(/\S+/g)) {
      const range = document.createRange();
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const boxes = [...range.getClientRects()].filter((r) => r.width > 0);
      const lines = new Set(boxes.map((r) => Math.round(r.top)));
      if (lines.size > 1) out.push(["a word split", word[0]]);
    }
  }
  return out;
}"""


@pytest.fixture
def bracket(tmp_path: Path) -> tuple[Store, str]:
    store = Store(f"sqlite:///{tmp_path / 'record.sqlite3'}")
    ids = known(store, 16)
    tid = tournaments.create(store, "club", "Кубок клуба", tournaments.Setup(
        core.Format.DOUBLE, tuple(ids), race=5, levels={"p1": 2}))
    for match, winner, score in [("W1-1", "p1", (5, 3)), ("W1-2", "p9", (2, 5))]:
        tournaments.act(store, "club", tid, lambda t, m=match, w=winner, s=score: t.record(m, w, s))
    tournaments.act(store, "club", tid, lambda t: t.walkover("W1-3", t.pairing("W1-3").players[0]))
    tournaments.act(store, "club", tid, lambda t: core.Change(t.fill(["t1", "t2", "t3", "t4"]), ()))
    return store, tid


def shown(page: Page, url: str, artifacts: Path, name: str) -> list[list[object]]:
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']", timeout=TIMEOUT)
    page.screenshot(path=str(artifacts / f"{name}.png"), full_page=True)
    return page.evaluate(OVERFLOWS)  # type: ignore[no-any-return]


@pytest.mark.parametrize("language", ["ru", "en"])
@pytest.mark.parametrize("size", sorted(SIZES))
def test_the_bracket_and_the_directors_page_fit_a_phone_and_a_tablet(
        browser: Browser, bracket: tuple[Store, str], artifacts: Path, size: str,
        language: str) -> None:
    store, tid = bracket
    width, height = SIZES[size]
    server = WebThread(WebConfig(venue="club"), record=DirectorSite(store, PASSWORD)).start()
    context = browser.new_context(viewport={"width": width, "height": height}, http_credentials={
        "username": "director", "password": PASSWORD})
    try:
        page = context.new_page()
        wall = shown(page, server.url + f"tournament.html?lang={language}&id={tid}", artifacts,
                     f"tournament-{size}-{language}")
        status = page.inner_text("#status")
        box = page.eval_on_selector("#bracket", "e => e.getBoundingClientRect().height")
        desk = shown(page, server.url + f"director.html?lang={language}&id={tid}", artifacts,
                     f"director-{size}-{language}")
        rows = page.locator("tr[data-match]").count()
    finally:
        context.close()
        server.stop()
    assert wall == [] and desk == []
    table = {"ru": "Стол", "en": "Table"}[language]
    assert f"{table} 1" in status and "t1" not in status
    assert box >= height / 3  # the bracket itself, not only the line above it
    assert rows >= 8  # the director's page drew its matches (ready and played)
