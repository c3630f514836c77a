"""The console's ruling and the card's events say who was credited and how (issue 41 items 6
and 7), in Russian, on a hand-played table (the demo's sensors: ``HAND_FUSION``) over a real
broker: a handicap ball is named as the receiver's with «фора»; a Ten-ball rack won on the
break reads as one sentence; a pyramid foul says how the scores changed; a foul's balls given
to the opponent are not worded as «бьёт снова»; and while a later shot waits for an answer,
the pinned line is not the previous shot's ruling."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from controller.pipeline.fusion import fusion_config
from controller.pipeline.table import Table
from controller.sim.demo import HAND_FUSION
from hardware.events import SensorEvent
from tests.broker import Broker
from tests.web.harness import LiveTable, WebThread

TIMEOUT = 10000
ANNA_BORIS = ["Анна", "Борис"]


#: Each test's table its own id on the module's broker: a stopped table's retained state and
#: «stopped» stay there, and the same players on the same id would pass for the next test's.
_IDS = itertools.count(90)


def _new_id() -> str:
    return f"t{next(_IDS)}"


@pytest.fixture
def hand(ws_broker: Broker) -> Iterator[LiveTable]:
    """A hand-played table (no cushion sensors) on the broker, stopped after the test."""
    table = LiveTable(ws_broker.host, ws_broker.port, "club", _new_id())
    table.table = Table(fusion=fusion_config(HAND_FUSION), language="ru")
    table.start()
    try:
        yield table
    finally:
        table.stop()


def _console(page: Page, web: WebThread, table: LiveTable, game: str, **options: Any) -> Page:
    table.request("new_match", {"game": game, "players": ANNA_BORIS, "race_to": 3, **options})
    page.goto(web.url + f"console.html?table={table.base.rsplit('/', 1)[1]}&lang=ru")
    expect(page.locator("#card .player .name")).to_have_text(ANNA_BORIS, timeout=TIMEOUT)
    return page


def _shot(table: LiveTable, shot: int, **facts: Any) -> None:
    """The referee says what happened on ``shot`` and that the balls stopped."""
    if facts:
        table.request("declare", {**facts, "shot": shot})
    table.request("shot_end", {})


def _pocketed(*balls: tuple[int, str]) -> list[dict[str, Any]]:
    return [{"ball": b, "pocket": p} for b, p in balls]


def test_st_19_a_handicap_ball_is_named_as_the_receivers_with_fora(
        tab: Page, web: WebThread, hand: LiveTable, artifacts: Path) -> None:
    page = _console(tab, web, hand, "siberian-ten",
                    options={"handicap": 1, "handicap_giver": 0})
    _shot(hand, 1, pocketed=_pocketed((1, "fl")))  # Анна's break: the 1 counts for Борис
    expect(page.locator("#ruling")).to_have_text(
        "Удар 1: Анна: шар 1 засчитан игроку Борис (фора), бьёт снова", timeout=TIMEOUT)
    expect(page.locator("#card .events li").first).to_contain_text("фора")
    page.screenshot(path=str(artifacts / "console-handicap.png"))


def test_a_ten_ball_rack_won_on_the_break_reads_as_one_sentence(
        tab: Page, web: WebThread, hand: LiveTable) -> None:
    page = _console(tab, web, hand, "ten-ball")
    _shot(hand, 1, pocketed=_pocketed((10, "fl")))
    expect(page.locator("#ruling")).to_have_text(
        "Удар 1: Анна: шар 10 забит — победа в партии 1; следующую партию разбивает Борис",
        timeout=TIMEOUT)


def test_a_pyramid_foul_says_how_the_scores_changed(
        tab: Page, web: WebThread, hand: LiveTable, artifacts: Path) -> None:
    page = _console(tab, web, hand, "pyramid")
    _shot(hand, 1, pocketed=_pocketed((9, "fl")))
    hand.request("answer", {"answer": True})  # the 9 was called: 9 points
    expect(page.locator("#ruling")).to_have_text(re.compile(r"^Удар 1: "), timeout=TIMEOUT)
    _shot(hand, 2, fouls=["miss"])
    expect(page.locator("#ruling")).to_have_text(
        re.compile(r"^Удар 2: Фол: .* · очки: Анна 9 → 4, Борис 0 → 5$"), timeout=TIMEOUT)
    page.screenshot(path=str(artifacts / "console-pyramid-foul-scores.png"))


def test_balls_a_foul_gives_the_opponent_are_not_worded_as_shooting_again(
        tab: Page, web: WebThread, hand: LiveTable) -> None:
    page = _console(tab, web, hand, "siberian-ten")
    # Анна's break pots the 2 with a foul (a double hit): the 2 is Борис's, and his turn
    _shot(hand, 1, pocketed=_pocketed((2, "fl")), fouls=["double_hit"])
    event = page.locator("#card .events li", has_text="засчитан шар 2")
    expect(event).to_contain_text("Борис: засчитан шар 2; бьёт Борис", timeout=TIMEOUT)
    expect(event).not_to_contain_text("бьёт снова")


def test_the_pinned_line_leaves_the_last_ruling_while_the_next_shot_waits_for_an_answer(
        tab: Page, web: WebThread, hand: LiveTable) -> None:
    page = _console(tab, web, hand, "siberian-ten")
    _shot(hand, 1, pocketed=_pocketed((1, "fl")))
    ruling = page.locator("#ruling")
    expect(ruling).to_have_text(re.compile(r"^Удар 1: Анна: шар 1 засчитан"), timeout=TIMEOUT)
    _shot(hand, 2)  # a miss: were two cushions reached? the shot waits for the answer
    expect(page.locator("#questions .question")).to_have_count(1, timeout=TIMEOUT)
    expect(ruling).to_have_text("Удар 2: ждёт ответа на вопрос", timeout=TIMEOUT)


@pytest.fixture
def cue_break(tab: Page, web: WebThread, ws_broker: Broker) -> Iterator[tuple[Page, LiveTable]]:
    """The Ten-ball break of issue 41 on a table with a cue-ball detector and no identity
    reader, its console open at the question it asks; yields the console and the table."""
    table = LiveTable(ws_broker.host, ws_broker.port, "club", _new_id())
    table.table = Table(fusion=fusion_config({"cue_detector": True}), language="ru")
    table.start()
    try:
        page = _console(tab, web, table, "ten-ball")
        _cue_ball_break(table)
        expect(page.locator("#questions .question")).to_contain_text("средняя правая", timeout=TIMEOUT)
        yield page, table
    finally:
        table.stop()


def test_the_ten_ball_break_question_offers_the_cue_ball_and_the_console_answers_it(
        cue_break: tuple[Page, LiveTable], artifacts: Path) -> None:
    # issue 41 item 5: the 8 into fr, the cue ball into sr 0.27 s later, one report of the
    # cue-ball detector (no identity reader): «which ball fell in sr?» offers the cue ball
    page, table = cue_break
    page.screenshot(path=str(artifacts / "console-cue-presumed-question.png"))
    page.click('#questions button.answer[data-answer="cue"]')
    question = page.locator("#questions .question")
    expect(question).to_contain_text("дальняя правая", timeout=TIMEOUT)  # then what fell in fr
    page.click('#questions button.answer[data-answer="8"]')
    expect(page.locator("#ruling")).to_have_text(re.compile(r"^Удар 1: Фол: "), timeout=TIMEOUT)
    assert table.table.referee.state.to_shoot == 1


def test_the_shot_a_question_holds_is_corrected_from_the_console_and_the_question_goes(
        cue_break: tuple[Page, LiveTable], artifacts: Path) -> None:
    # issue 41 item 5: no open question blocks the console from correcting the shot: the
    # referee says the 8 fell in fr (the cue ball's presumed pocket), and the shot is ruled
    page, table = cue_break
    page.click("#q-fix")
    expect(page.locator("#fix-sheet .fix-title")).to_have_text(
        "Исправление удара 1: как было на самом деле?")
    page.screenshot(path=str(artifacts / "console-fix-held-shot.png"))
    page.click('#pool [data-ball="8"]')
    page.click('#pool [data-pocket="fr"]')
    expect(page.locator("#ruling")).to_have_text(re.compile(r"^Удар 1: Фол: "), timeout=TIMEOUT)
    expect(page.locator("#question-panel")).to_be_hidden()
    assert table.table.referee.state.to_shoot == 1


def _cue_ball_break(table: LiveTable) -> None:
    """The break of issue 41: the 8 into fr, the cue ball into sr 0.27 s later, one report
    of the cue-ball detector (no identity reader); then the balls stop."""
    t = table.now()
    table.sense([SensorEvent(t, "beam.fr", 1), SensorEvent(t + 0.05, "beam.fr", 0),
                 SensorEvent(t + 0.27, "beam.sr", 1), SensorEvent(t + 0.32, "beam.sr", 0),
                 SensorEvent(t + 0.8, "cue", 1), SensorEvent(t + 0.85, "cue", 0)])
    table.settle()

#: What an installer's aside looks like: a code name, a quoted choice code, a rule id, a
#: configuration section or key, a file.
NOT_WORDS = re.compile(r"`|_|'[a-z_]+'|\b(?:PP|TB|ST)-\d|\[fusion\]|\.md\b")


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_options_details_are_words_not_codes_rule_ids_or_configuration(
        tab: Page, web: WebThread, ws_broker: Broker, artifacts: Path, lang: str) -> None:
    # a table of each language's own: the other's, stopped on this broker, keeps its retained
    # «stopped» and state, which a console of the same id may show before this one's come
    name = {"ru": "t61", "en": "t62"}[lang]
    table = LiveTable(ws_broker.host, ws_broker.port, "club", name).start()
    try:
        page = tab
        page.goto(web.url + f"console.html?table={name}&lang={lang}")
        games = page.locator("#game option")
        expect(games.first).to_be_attached(timeout=TIMEOUT)
        page.locator("#new-match > details > summary").click()  # the options
        seen = 0
        for game in games.evaluate_all("os => os.map(o => o.value)"):
            page.select_option("#game", game)
            for summary in page.locator("#options details.more summary").all():
                summary.click()
            details = page.locator("#options details.more")
            expect(details.first).to_have_attribute("open", "")
            for text in details.all_inner_texts():
                assert not NOT_WORDS.search(text), (game, text)
                seen += 1
            page.screenshot(path=str(artifacts / f"console-options-{game}-{lang}.png"), full_page=True)
        assert seen >= 30  # every game's options were read
    finally:
        table.stop()
