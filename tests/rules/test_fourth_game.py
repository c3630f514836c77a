"""A fourth game added as one package plus its catalogue entries (``tests/rules/fourth_game``),
registered through the registry, and played through the pipeline with no other change."""

from __future__ import annotations

import json

from controller.pipeline.scoreboard import value_key
from controller.sim.simulator import simulate_lines
from controller.web import options as web_options
from controller.words import catalogue
from rules.games import GameSpec, find_spec, spec_of
from tests.e2e.replaying import run
from tests.rules.fourth_game import GAME_ID
from tests.tracekit import TraceBuilder

SENSORS = {"cue_detector": True, "identity_reader": True}


def test_the_fourth_game_is_in_the_registry_the_pages_read_and_the_words(
        fourth_game: GameSpec) -> None:
    assert spec_of(GAME_ID) is fourth_game
    served = web_options.games()
    assert [g["id"] for g in served["games"]][-1] == GAME_ID
    record = served["games"][-1]
    assert record["ball_style"] == "ivory" and record["players"] == [2, 3]
    assert record["first_fouls"][:2] == ["direct_hit_in_kitchen", "miss"]
    assert {o["key"]: o["default"] for o in record["options"]}["call_mode"] == "clean"
    assert catalogue.words("ru").pages["game.clean-pyramid"] == "Пирамида по чистому назначению"
    assert json.loads(catalogue.page_words("en"))["game.clean-pyramid"] == "Pyramid, clean designation"


def test_the_fourth_game_is_gone_when_unregistered() -> None:
    assert find_spec(GAME_ID) is None


def test_the_fourth_game_plays_through_the_pipeline(fourth_game: GameSpec) -> None:
    tb = TraceBuilder(fusion=SENSORS).new_match(GAME_ID, players=("Ann", "Bob", "Cleo"))
    tb.request("call", {"calls": [{"ball": 2, "pocket": "fl"}], "manner": "direct"})
    tb.shot(drops=["fl"], returns=[(2, "fl")])
    out = run(tb.text())
    assert out.responses("new_match")[0]["status"] == "ok"
    assert out.state["game"] == GAME_ID
    (question,) = out.state["questions"]  # clean designation: was it played as called?
    assert question["topic"] == "played_as_called"
    tb.request("answer", {"answer": True})
    out = run(tb.text())
    # three players: the 2 is worth 12 (PP-3); the shooter plays on
    assert [p["score"] for p in out.state["players"]] == [12, 0, 0]
    assert out.state["to_shoot"] == 0 and value_key(out.state) == "score"


def test_the_simulator_plays_the_fourth_game_from_its_record(fourth_game: GameSpec) -> None:
    lines = simulate_lines(GAME_ID, 40, seed=3, players=3)
    text = "\n".join(json.dumps(line) for line in lines)
    out = run(text)
    assert out.state["game"] == GAME_ID and len(out.state["players"]) == 3
    assert out.events("shot_result"), "the simulated match played shots"
    assert not out.bad
