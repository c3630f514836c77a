"""Commissioning a table: each wiring fault is found and named, and the settings it suggests
make the next match rule as a well-wired table would.

The simulated table (``controller.commission.simtable``) is miswired the way installers get it
wrong; the matches come from the independent simulator (``controller.sim.simulator``), played
through the same miswiring and then through the suggested configuration.
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest

from controller.commission import render, write_outputs
from controller.commission.analysis import Problem, Report, analyse, periods, trains
from controller.commission.session import load_session, run_session, save
from controller.commission.simtable import Faults, SimInstaller, SimTable
from controller.commission.steps import StepKind, plan
from controller.commission.words import say
from controller.pipeline.fusion import FusionConfig
from controller.pipeline.replay import replay
from controller.pipeline.table import Message
from controller.service.config import validate
from controller.sim.simulator import simulate_lines
from hardware.events import SensorEvent
from vocabulary import SAME_RAIL, cushion, parse_channel

#: The example configuration's pins for the beams (deploy/controller.example.toml).
PINS: dict[str, int | str] = {"beam.hl": 5, "beam.hr": 6, "beam.sl": 13, "beam.sr": 19,
                              "beam.fl": 26, "beam.fr": 21}
STRONG_CROSSTALK = (0.8, 0.030, 0.045)


async def _session_report(faults: Faults, fusion: FusionConfig | None = None,
                          pins: dict[str, int | str] | None = None) -> tuple[Any, Report]:
    fusion = fusion or FusionConfig()
    table = SimTable(faults)
    installer = SimInstaller(table.deliver, faults, random.Random(7))
    async with table:
        session = await run_session(table, plan(fusion, table.channels), installer, settle_s=0.05)
    return session, analyse(session.captures, fusion, pins)


def _problems(report: Report) -> dict[str, set[Problem]]:
    return report.problems()


async def test_a_well_wired_table_shows_every_channel_answering_its_own_step() -> None:
    _, report = await _session_report(Faults(), pins=PINS)
    assert report.findings == []
    assert report.channel_map == {ch: ch for ch in report.channel_map}
    assert len(report.channel_map) == 13  # six beams, six cushion segments, the cue detector
    assert all(b["balls"] == 2 for b in report.beams.values())
    assert [s for s in report.settings if s.section == "gpio.pins"] == []


async def test_swapped_beams_a_dead_rail_a_chattering_one_and_crosstalk_are_each_named() -> None:
    faults = Faults(swapped=(("beam.hl", "beam.hr"),), dead=frozenset({"cushion.f"}),
                    chattering=frozenset({"cushion.h"}), crosstalk=STRONG_CROSSTALK)
    _, report = await _session_report(faults, pins=PINS)
    problems = _problems(report)
    assert problems["beam.hl"] == {Problem.SWAPPED}
    assert problems["beam.hr"] == {Problem.SWAPPED}
    assert problems["cushion.f"] == {Problem.DEAD}
    assert problems["cushion.h"] == {Problem.CHATTERING}
    # each long rail's crosstalk once (one fault, one fix), on the half hit first
    for rail in (("cushion.lh", "cushion.lf"), ("cushion.rh", "cushion.rf")):
        assert [problems.get(ch) for ch in rail] == [{Problem.CROSSTALK}, None], rail
    assert set(problems) == {"beam.hl", "beam.hr", "cushion.f", "cushion.h", "cushion.lh",
                             "cushion.rh"}
    fixes = {f.channel: say(f.fix) for f in report.findings if f.problem is Problem.SWAPPED}
    assert '"beam.hl" = 6' in fixes["beam.hl"] and '"beam.hr" = 5' in fixes["beam.hr"]
    settings = {(s.section, s.key): s.value for s in report.settings}
    assert settings[("gpio.pins", "beam.hl")] == 6 and settings[("gpio.pins", "beam.hr")] == 5
    assert settings[("fusion", "crosstalk_s")] > 0.045  # the late shake counts once
    text = render(report)
    assert "beam.hl: SWAPPED" in text and "cushion.f: DEAD" in text


async def test_a_dead_half_rail_is_not_mistaken_for_a_swap_with_its_other_half() -> None:
    # its hits reach only the other half, which answers its own step too
    faults = Faults(dead=frozenset({"cushion.lf"}), crosstalk=STRONG_CROSSTALK)
    _, report = await _session_report(faults)
    assert _problems(report)["cushion.lf"] == {Problem.DEAD}
    assert report.channel_map["cushion.lf"] is None


async def test_two_halves_of_a_rail_swapped_are_found_though_each_shakes_the_other() -> None:
    faults = Faults(swapped=(("cushion.rh", "cushion.rf"),), crosstalk=STRONG_CROSSTALK)
    _, report = await _session_report(faults)
    assert report.channel_map["cushion.rh"] == "cushion.rf"
    assert report.channel_map["cushion.rf"] == "cushion.rh"


async def test_an_inverted_beam_is_named_with_its_fix_and_its_balls_still_measured() -> None:
    _, report = await _session_report(Faults(inverted=frozenset({"beam.sl"})), pins=PINS)
    assert _problems(report) == {"beam.sl": {Problem.INVERTED}}
    assert report.beams["beam.sl"]["balls"] == 2
    assert "gpio.invert" in say(report.findings[0].fix)


async def test_a_beam_blocked_at_rest_that_sees_no_ball_is_stuck_not_inverted() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Lodged(Faults):  # a ball lodged in the beam: 1 at rest, and nothing more from it
        def at_rest(self, channels: Any) -> dict[str, int]:
            return {"beam.fr": 1}

    _, report = await _session_report(Lodged(dead=frozenset({"beam.fr"})))
    assert _problems(report)["beam.fr"] == {Problem.STUCK}  # not also dead: one fix


async def test_measured_timing_suggests_the_fusion_settings_only_where_they_differ() -> None:
    _, report = await _session_report(Faults())
    beams = report.beams["beam.fl"]
    assert len(beams["blocks_ms"]) == 2 and min(beams["blocks_ms"]) > 9
    assert beams["glitches"] >= 1
    suggested = {s.key for s in report.settings}
    assert "crosstalk_s" not in suggested  # ordinary rails: the default holds
    ret = report.ball_return
    assert ret["drops"] == 4 and len(ret["cue_delay_s"]) == 1
    assert all(0.5 <= d <= 2.0 for d in ret["cue_delay_s"])


def test_trains_count_pulses_and_the_longest_time_on() -> None:
    evs = [SensorEvent(1.000, "cushion.h", 1), SensorEvent(1.004, "cushion.h", 0),
           SensorEvent(1.010, "cushion.h", 1), SensorEvent(1.020, "cushion.h", 0),
           SensorEvent(2.000, "cushion.h", 1), SensorEvent(2.002, "cushion.h", 0)]
    ts = trains(periods(evs, {})["cushion.h"])
    assert [(t.pulses, round(t.max_on, 3), round(t.max_gap, 3)) for t in ts] == [
        (2, 0.010, 0.006), (1, 0.002, 0.0)]


# ------------------------------------------------------------------ the next match
def _miswire(lines: list[dict[str, Any]], faults: Faults, seed: int = 5) -> list[dict[str, Any]]:
    """Returns a match's trace as the miswired table delivers it."""
    rng = random.Random(seed)
    header, body = lines[0], lines[1:]
    out: list[dict[str, Any]] = []
    events = [SensorEvent(x["t"], x["ch"], x.get("v", 1)) for x in body if x.get("ch") in (
        "cushion.lh", "cushion.lf", "cushion.rh", "cushion.rf")]
    assert faults.crosstalk is not None
    level, lo, hi = faults.crosstalk
    for ch, ps in periods(events, {}).items():
        twin = cushion(SAME_RAIL[parse_channel(ch)[1]])  # type: ignore[index]
        for train in trains(ps):
            delay = rng.uniform(lo, hi)
            for p in ps:
                if train.start <= p.start <= train.start + train.length and rng.random() < level:
                    out += [{"t": round(p.start + delay, 6), "ch": twin, "v": 1},
                            {"t": round(p.end + delay, 6), "ch": twin, "v": 0}]
    for x in body:
        if "ch" in x:
            ch = faults.wire(x["ch"])
            if ch is not None:
                out.append({**x, "ch": ch})
        else:
            out.append(x)
    out.sort(key=lambda x: x["t"])  # stable: a request stays after the edges of its instant
    return [header, *out]


def _renamed(lines: list[dict[str, Any]], old: dict[str, int | str],
             new: dict[str, int | str]) -> list[dict[str, Any]]:
    """Returns the trace as the pins of the ``new`` configuration name its channels."""
    name_of_pin = {pin: ch for ch, pin in new.items()}
    rename = {ch: name_of_pin[pin] for ch, pin in old.items()}
    return [{**x, "ch": rename.get(x["ch"], x["ch"])} if "ch" in x else x for x in lines]


def _rulings(lines: list[dict[str, Any]], fusion: FusionConfig) -> list[Any]:
    import json
    out: list[Message] = []
    replay([json.dumps(x) for x in lines], out.append, lambda bad: pytest.fail(str(bad)), fusion)
    return [(m.topic, {k: v for k, v in m.payload.items() if k not in ("seq", "ts")})
            for m in out if m.topic in ("event", "state")]


@pytest.mark.parametrize("game", ["siberian-ten", "ten-ball"])
async def test_the_suggested_settings_make_the_next_match_rule_right(game: str) -> None:
    faults = Faults(swapped=(("beam.hl", "beam.hr"),), crosstalk=STRONG_CROSSTALK)
    _, report = await _session_report(faults, pins=PINS)
    pins = dict(PINS)
    fusion: dict[str, Any] = {}
    for s in report.settings:
        if s.section == "gpio.pins":
            pins[s.key] = s.value
        else:
            fusion[s.key] = s.value
    suggested = dataclasses.replace(FusionConfig(), **fusion)

    match = simulate_lines(game, shots=40, seed=3)
    right = _rulings(match, FusionConfig())
    miswired = _miswire(match, faults)
    assert _rulings(miswired, FusionConfig()) != right  # the faults do change the rulings
    assert _rulings(_renamed(miswired, PINS, pins), suggested) == right


# ------------------------------------------------------------------ the record
async def test_a_saved_session_is_analysed_again_to_the_same_report(tmp_path: Path) -> None:
    faults = Faults(swapped=(("beam.fl", "beam.fr"),), chattering=frozenset({"cushion.rf"}))
    session, report = await _session_report(faults, pins=PINS)
    trace = save(session, tmp_path / "s", {"table": "t1"})
    header, again = load_session(tmp_path / "s")
    assert header["table"] == "t1" and header["commission"] == 1
    assert analyse(again.captures, FusionConfig(), PINS) == report
    # the trace is an ordinary trace: replay reads every line of it
    import json
    errors: list[Any] = []
    replay(trace.read_text().splitlines(), lambda m: None, errors.append)
    assert errors == []
    write_outputs(tmp_path / "s", report, None, None)
    assert json.loads((tmp_path / "s" / "report.json").read_text())["findings"]
    assert "SWAPPED" in (tmp_path / "s" / "report.txt").read_text()


def test_the_plan_asks_only_about_what_is_fitted() -> None:
    bare = plan(FusionConfig(cushion_sensors=False), ("beam.hl",))
    assert [s.kind for s in bare] == [StepKind.QUIET, *[StepKind.POCKET] * 6, StepKind.BREAK]
    full = plan(FusionConfig(), ("beam.hl", "cue"))
    assert StepKind.RETURN in {s.kind for s in full}
    assert len([s for s in full if s.kind is StepKind.CUSHION]) == 6


def test_the_commission_example_config_validates() -> None:
    assert validate({"gpio": {"pins": {"beam.hl": 5}, "invert": ["beam.hl"]}}).gpio.invert == [
        "beam.hl"]
    with pytest.raises(Exception, match="invert names channels with no pin: beam.hr"):
        validate({"gpio": {"pins": {"beam.hl": 5}, "invert": ["beam.hr"]}})





def test_the_wiring_guide_is_current_and_the_example_config_shows_its_pins() -> None:
    import re

    from controller.commission.wiring import REFERENCE_PINS, wiring_markdown
    from controller.docs import WIRING

    assert WIRING.read_text(encoding="utf-8") == wiring_markdown(), (
        "docs/wiring.md is stale: run `python -m controller.docs`")
    example = (Path(__file__).resolve().parents[2] / "deploy" / "controller.example.toml").read_text()
    shown = {ch: int(pin) for ch, pin in re.findall(r'^# "([a-z._]+)" = (\d+)$', example, re.M)}
    assert shown == REFERENCE_PINS


async def test_a_piezo_cushion_gets_a_threshold_below_its_softest_hit_and_above_its_noise() -> None:
    faults = Faults(chattering=frozenset({"cushion.f"}))
    table = SimTable(faults)
    installer = SimInstaller(table.deliver, faults, random.Random(2),
                             analogue=frozenset({"cushion.h", "cushion.f"}))
    async with table:
        session = await run_session(table, plan(FusionConfig(), table.channels), installer,
                                    settle_s=0.05)
    report = analyse(session.captures, FusionConfig(), serial=True)
    thresholds = {t.channel: t.value for t in report.thresholds}
    assert set(thresholds) == {"cushion.h", "cushion.f"}  # the digital modules have none
    soft = report.cushions["cushion.h"]["softest"]["peak"]
    assert thresholds["cushion.h"] == round(soft * 0.5 * 0xFFFF)
    noise = max(ev.level or 0 for c in session.captures if c.step.kind is StepKind.QUIET
                for ev in c.events if ev.ch == "cushion.f")
    assert noise > 0 and thresholds["cushion.f"] == round(noise * 1.5 * 0xFFFF)
    assert "Piezo thresholds" in render(report)
