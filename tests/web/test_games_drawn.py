"""The pages draw a game from its record (``/games.json``), never from its id: a fourth game,
registered as one package plus its words (``tests/rules/fourth_game``), is offered by the
console's new-match form, its balls and first fouls drawn on the console, its balls on the wall,
with no change to the pages."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect

from rules.games import GameSpec
from tests.broker import Broker
from tests.rules.fourth_game import GAME_ID, WORDS
from tests.web.harness import LiveTable, WebThread
from tests.web.test_browser import TIMEOUT, _make, _no_errors, _page, tables  # noqa: F401  (a fixture)

IVORY = "rgb(243, 234, 210)"  # the ivory of games.js: an ivory game's object balls


def test_a_fourth_game_is_offered_and_drawn_from_its_record(
        browser: Browser, web: WebThread, ws_broker: Broker, tables: dict[str, LiveTable],  # noqa: F811
        fourth_game: GameSpec, artifacts: Path) -> None:
    _make(tables, ws_broker, "t7")
    console = _page(browser, 1280, 1000)
    console.goto(web.url + "console.html?table=t7&lang=ru")
    expect(console.locator("#connection.ok")).to_be_visible(timeout=TIMEOUT)
    game = console.locator("#game")
    expect(game.locator(f'option[value="{GAME_ID}"]')).to_have_text(WORDS["ru"][f"game.{GAME_ID}"])
    game.select_option(GAME_ID)
    names = console.locator("#players input")
    expect(names).to_have_count(fourth_game.max_players)  # its record's players: up to three
    for i, name in enumerate(["Анна Каренина-Вронская", "Борис", "Вера"]):
        names.nth(i).fill(name)
    console.locator("#new-match button[type=submit]").click()

    # the drawing: its fifteen balls and the cue ball, ivory, none striped
    balls = console.locator("#pool [data-ball]")
    expect(balls).to_have_count(len(fourth_game.balls) + 1, timeout=TIMEOUT)
    fills = console.locator("#pool [data-ball] circle.body").evaluate_all(
        "cs => cs.map(c => getComputedStyle(c).fill)")
    assert fills[:-1] == [IVORY] * len(fourth_game.balls), fills
    expect(console.locator("#pool [data-ball] rect")).to_have_count(0)  # a stripe is a rect
    # its first fouls, in its record's order, one tap after «Фол…»
    console.locator("#q-foul").click()
    picks = console.locator("#foul-sheet [data-pick-foul]")
    expect(picks).to_have_count(len(fourth_game.first_fouls))
    assert [picks.nth(i).get_attribute("data-pick-foul") for i in range(picks.count())] == \
        [str(f) for f in fourth_game.first_fouls]
    # nothing its record does not let a referee declare (Ten-ball's cushions, unsportsmanlike)
    expect(console.locator('[data-declarable="balls_to_cushion"]')).to_be_hidden()
    expect(console.locator('[data-declarable="unsportsmanlike"]')).to_be_hidden()
    console.screenshot(path=str(artifacts / "fourth-game-console.png"), full_page=True)

    wall = _page(browser, 1920, 1080)
    wall.goto(web.url + "?tv=1&lang=ru")
    card = wall.locator('[data-table="t7"]')
    chips = card.locator('[data-field="on_table"] .ball')
    expect(chips).to_have_count(len(fourth_game.balls), timeout=TIMEOUT)
    colours = chips.evaluate_all("bs => bs.map(b => getComputedStyle(b).getPropertyValue('--ball').trim())")
    assert set(colours) == {"#f3ead2"}, colours
    expect(card.locator(".ball.stripe")).to_have_count(0)
    expect(card.locator('.meta [data-field="game"]')).to_contain_text(WORDS["ru"][f"game.{GAME_ID}"])
    # its score is points, the games won on the match line (not Ten-ball's games as the score)
    expect(card.locator('.meta [data-field="games"]')).to_contain_text("0:0:0")
    wall.screenshot(path=str(artifacts / "fourth-game-wall.png"))
    _no_errors(console)
    _no_errors(wall)
    console.close()
    wall.close()
