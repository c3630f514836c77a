"""Commissioning names the right fix (issue 28): each wiring fault an installer makes, alone and
in combination, as a table of cases on the simulated table, wired as the reference wiring
(``docs/wiring.md``) says; and a faulty channel's data never tunes the others' timings."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from controller.commission.analysis import Problem, Report, analyse
from controller.commission.session import run_session
from controller.commission.simtable import Faults, SimInstaller, SimTable, parse_faults
from controller.commission.steps import plan
from controller.commission.text import render
from controller.commission.wiring import REFERENCE_PINS
from controller.commission.words import say
from controller.pipeline.fusion import FusionConfig
from vocabulary import POCKETS, beam

P = Problem
PINS: dict[str, int | str] = dict(REFERENCE_PINS)


async def _report(faults: Faults, seed: int = 7) -> Report:
    fusion = FusionConfig(cue_detector=True)
    table = SimTable(faults)
    installer = SimInstaller(table.deliver, faults, random.Random(seed))
    async with table:
        session = await run_session(table, plan(fusion, table.channels), installer, settle_s=0.05)
    return analyse(session.captures, fusion, PINS)


@dataclass(frozen=True)
class Case:
    name: str
    faults: Faults
    #: every channel's problems, and nothing else found
    problems: dict[str, set[Problem]]
    #: words each channel's fixes contain (all of them, among its findings)
    fixes: dict[str, list[str]] = field(default_factory=dict)
    #: settings the report must suggest (section, key) -> value
    settings: dict[tuple[str, str], object] = field(default_factory=dict)


CASES = [
    Case("an inverted cue detector is an invert, not a sensitivity",
         Faults(inverted=frozenset({"cue"})), {"cue": {P.INVERTED}},
         {"cue": ['add "cue" to gpio.invert']}, {("gpio", "invert"): ["cue"]}),
    Case("a dead cue detector is found",
         Faults(dead=frozenset({"cue"})), {"cue": {P.DEAD}}, {"cue": ["GPIO 22"]}),
    Case("a cue detector swapped with a beam is a swap, both ways",
         Faults(swapped=(("cue", "beam.hl"),)),
         {"beam.hl": {P.SWAPPED}, "cue": {P.SWAPPED}},
         {"beam.hl": ['"beam.hl" = 22'], "cue": ['"cue" = 5']},
         {("gpio.pins", "beam.hl"): 22, ("gpio.pins", "cue"): 5}),
    Case("a beam swapped with a cushion is a swap, not two dead sensors",
         Faults(swapped=(("beam.sr", "cushion.f"),)),
         {"beam.sr": {P.SWAPPED}, "cushion.f": {P.SWAPPED}},
         {"beam.sr": ['"beam.sr" = 27'], "cushion.f": ['"cushion.f" = 19']},
         {("gpio.pins", "beam.sr"): 27, ("gpio.pins", "cushion.f"): 19}),
    Case("an inverted receiver on a swapped wire is inverted and swapped, not stuck",
         Faults(swapped=(("beam.hl", "beam.hr"),), inverted=frozenset({"beam.hr"})),
         {"beam.hl": {P.SWAPPED}, "beam.hr": {P.SWAPPED, P.INVERTED}},
         {"beam.hr": ['"beam.hr" = 5', 'add "beam.hl" to gpio.invert once the swap']},
         # the inverted receiver is on the pin that will be named beam.hl
         {("gpio.pins", "beam.hl"): 6, ("gpio.pins", "beam.hr"): 5,
          ("gpio", "invert"): ["beam.hl"]}),
    Case("a dead half of a long rail leaves the healthy half unblamed",
         Faults(dead=frozenset({"cushion.lf"})), {"cushion.lf": {P.DEAD}}),
    Case("a stuck half of a long rail leaves the healthy half unblamed",
         Faults(stuck=frozenset({"cushion.rh"})), {"cushion.rh": {P.STUCK}},
         {"cushion.rh": ["sensitivity"]}),
    Case("a stuck cue detector is named as one, and not as dead too",
         Faults(stuck=frozenset({"cue"})), {"cue": {P.STUCK}},
         {"cue": ["ball return"]}),
    Case("a stuck beam is stuck, not dead as well (one fix: clear and align)",
         Faults(stuck=frozenset({"beam.sl"})), {"beam.sl": {P.STUCK}},
         {"beam.sl": ["clear the pocket"]}),
    # issue 38: the wires of hl and hr swapped, and the sensor now on GPIO 5 (hr's) blocked:
    # hr's pocket is to be cleared, and its wire is on GPIO 5, not on 6 (hl's, which works)
    Case("a stuck beam on a swapped wire names its own pocket and the right connector",
         Faults(swapped=(("beam.hl", "beam.hr"),), stuck=frozenset({"beam.hl"})),
         {"beam.hl": {P.SWAPPED}, "beam.hr": {P.SWAPPED, P.STUCK}},
         {"beam.hl": ['"beam.hl" = 6'], "beam.hr": ['"beam.hr" = 5', "clear the pocket"]},
         {("gpio.pins", "beam.hl"): 6, ("gpio.pins", "beam.hr"): 5}),
    Case("a chattering cue detector is named, and its beam screen advice",
         Faults(chattering=frozenset({"cue"})), {"cue": {P.CHATTERING}},
         {"cue": ["flickers"]}),
    Case("a chattering cue detector swapped with a beam is a swap, and the chatter is named",
         Faults(swapped=(("cue", "beam.hl"),), chattering=frozenset({"cue"})),
         # the chattering detector is on the wire of beam.hl: that channel chatters
         {"beam.hl": {P.SWAPPED, P.CHATTERING}, "cue": {P.SWAPPED}},
         {"beam.hl": ['"beam.hl" = 22'], "cue": ['"cue" = 5']},
         {("gpio.pins", "beam.hl"): 22, ("gpio.pins", "cue"): 5}),
    Case("faults in combination are each named",
         Faults(swapped=(("cue", "beam.fr"),), dead=frozenset({"cushion.lh"}),
                inverted=frozenset({"beam.sl"}), chattering=frozenset({"beam.fl"})),
         {"beam.fr": {P.SWAPPED}, "cue": {P.SWAPPED}, "cushion.lh": {P.DEAD},
          "beam.sl": {P.INVERTED}, "beam.fl": {P.CHATTERING}},
         {"beam.sl": ['add "beam.sl" to gpio.invert']}),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_each_fault_is_named_with_its_fix(case: Case) -> None:
    report = await _report(case.faults)
    assert report.problems() == case.problems
    # one finding a fault: no channel is named twice for the same problem
    named = [(f.channel, f.problem) for f in report.findings]
    assert len(named) == len(set(named)), named
    # a fix names a pin only where that channel's sensor is
    for f in report.findings:
        if f.problem is P.DEAD and "GPIO" in say(f.fix):
            assert f"GPIO {PINS[f.channel]}" in say(f.fix)
    for ch, words in case.fixes.items():
        fixes = " | ".join(say(f.fix) for f in report.findings if f.channel == ch)
        for w in words:
            assert w in fixes, (ch, w, fixes)
    # a receiver of the other polarity is never "turn the sensitivity down"
    for f in report.findings:
        if f.channel in case.faults.inverted:
            assert "sensitivity" not in say(f.fix), f
    settings = {(s.section, s.key): s.value for s in report.settings}
    for s in report.settings:  # each says why in words that are true
        assert "None" not in say(s.why), s
    for key, value in case.settings.items():
        assert settings.get(key) == value, (key, settings)
    # what is suggested is a configuration the service accepts: no pin on two channels
    pins = {**PINS, **{s.key: s.value for s in report.settings if s.section == "gpio.pins"}}
    assert len(set(pins.values())) == len(pins), pins
    # the installer reads each suggested value as the file will hold it (the cue detector's
    # channel is a vocabulary enum: its repr is not a value of the file)
    assert "<Kind." not in render(report), render(report)


#: What sane timings are: the ranges a well-wired table's own measurements give (seconds).
SANE = {"noise_s": (0.0005, 0.003), "min_block_s": (0.0035, 0.008),
        "identity_min_s": (0.25, 1.5), "identity_max_s": (2.0, 6.0)}


@pytest.mark.parametrize("faults", [
    Faults(chattering=frozenset({"cue"})),
    Faults(chattering=frozenset({"beam.hl"})),
    Faults(chattering=frozenset({"beam.hl", "cue"}), dead=frozenset({"beam.fr"})),
    Faults(stuck=frozenset({"cue"})),
], ids=["cue chatters", "a beam chatters", "both chatter and a beam is dead", "cue stuck"])
async def test_a_faulty_channel_does_not_tune_the_others_timings(faults: Faults) -> None:
    for seed in (3, 7, 11):
        report = await _report(faults, seed)
        for s in report.settings:
            if s.key in SANE:
                lo, hi = SANE[s.key]
                assert lo <= s.value <= hi, (seed, s)
        suggested = {s.key: s.value for s in report.settings if s.section == "fusion"}
        noise = suggested.get("noise_s", FusionConfig().noise_s)
        assert noise < suggested.get("min_block_s", FusionConfig().min_block_s)


async def test_an_inverted_cue_detector_still_times_the_ball_return() -> None:
    report = await _report(Faults(inverted=frozenset({"cue"})))
    healthy = await _report(Faults())  # the same balls, the same seed
    # from the drop to the start of the cue ball's block, not to its end
    assert report.ball_return["cue_delay_s"] == healthy.ball_return["cue_delay_s"]


def test_the_command_line_takes_an_inverted_cue_detector_and_refuses_a_cushion() -> None:
    assert parse_faults(invert=["cue"]).inverted == {"cue"}
    with pytest.raises(ValueError, match="beams or the cue-ball detector"):
        parse_faults(invert=["cushion.h"])


# ------------------------------------------------------------------ click and strike
def test_a_click_or_strike_sensor_has_a_step_of_its_own_where_it_is_fitted() -> None:
    from controller.commission.steps import StepKind

    kinds = [s.kind for s in plan(FusionConfig(), ("beam.hl", "click", "strike"))]
    assert kinds[-3:] == [StepKind.CLICK, StepKind.STRIKE, StepKind.BREAK]
    assert StepKind.CLICK not in {s.kind for s in plan(FusionConfig(), ("beam.hl",))}


@pytest.mark.parametrize(("faults", "problems"), [
    (Faults(), {}),
    (Faults(dead=frozenset({"click"})), {"click": {P.DEAD}}),
    (Faults(swapped=(("strike", "click"),)), {"click": {P.SWAPPED}, "strike": {P.SWAPPED}}),
], ids=["healthy", "click dead", "click and strike swapped"])
async def test_the_click_and_strike_steps_find_their_sensors(
        faults: Faults, problems: dict[str, set[Problem]]) -> None:
    channels = (*(beam(p) for p in POCKETS), "click", "strike")
    fusion = FusionConfig(cushion_sensors=False)
    table = SimTable(faults, channels)
    installer = SimInstaller(table.deliver, faults, random.Random(5),
                             channels=frozenset(channels), analogue=frozenset({"click"}))
    async with table:
        session = await run_session(table, plan(fusion, channels), installer, settle_s=0.05)
    report = analyse(session.captures, fusion, serial=True, cue=False)
    assert report.problems() == problems
    if not problems:  # the piezo's threshold goes below its soft contact
        (threshold,) = report.thresholds
        assert threshold.channel == "click" and 0 < threshold.value < 0.5 * 0xFFFF


def test_serial_piezo_names_channels_the_table_has() -> None:
    from controller.service.config import ConfigError, validate

    assert validate({"serial": {"piezo": ["click"]}}).serial.piezo == ["click"]
    with pytest.raises(ConfigError, match="serial.piezo"):
        validate({"serial": {"piezo": ["klick"]}})


@pytest.mark.parametrize("spelled", ['"cue" = 22', "cue = 22", "'cue' = 22"])
def test_a_suggested_pin_replaces_the_key_however_the_file_spells_it(spelled: str) -> None:
    import tomllib

    from controller.commission.config_edit import set_key

    text = f'[gpio.pins]\n"beam.hl" = 5\n{spelled}\n'
    after = set_key(text, "gpio.pins", "cue", 5)
    assert tomllib.loads(after)["gpio"]["pins"] == {"beam.hl": 5, "cue": 5}
    assert after.count("cue") == 1


@pytest.mark.parametrize("level", [0.5, 0.9, 1.2])
async def test_crosstalk_is_one_finding_a_rail_and_a_modules_pulses_are_counted_not_a_share(
        level: float) -> None:
    report = await _report(parse_faults(crosstalk=level))
    found = [f for f in report.findings if f.problem is P.CROSSTALK]
    rails = [frozenset({f.channel, f.detail.fields["other"]}) for f in found]
    assert len(rails) == len(set(rails))  # both halves of a rail: one fault, one fix
    for f in found:
        words = say(f.detail)
        assert "%" not in words and "of its strength" not in words, words  # modules: pulses
        assert f"{f.detail.fields['theirs']} pulse(s) there to the hit's " in words
