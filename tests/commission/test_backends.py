"""Commissioning through the real backends: gpiozero's MockFactory pins and the firmware's
simulated board on a pseudo-terminal, with the same simulated installer doing each step."""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from controller.commission import clocks_of
from controller.commission.analysis import Problem, Report, analyse
from controller.commission.session import run_session
from controller.commission.simtable import Faults, SimInstaller
from controller.commission.steps import Step, StepKind
from controller.commission.words import Said, say
from controller.pipeline.fusion import FusionConfig
from firmware_bridge.backend import SerialBackend
from firmware_bridge.sim import SimBoard
from hardware.events import SensorEvent
from hardware.gpio import GpioBackend, inverted
from tests.hardware.pins import PinDriver, mock_factory, pin_level
from vocabulary import Pocket, beam

PINS: dict[str, int | str] = {"beam.hl": 5, "beam.hr": 6, "beam.sl": 13}
STEPS = [Step("quiet", StepKind.QUIET), *(Step(beam(p), StepKind.POCKET, p) for p in (
    Pocket.HEAD_LEFT, Pocket.HEAD_RIGHT, Pocket.SIDE_LEFT))]
STEP_CHANNELS = tuple(str(s.expect) for s in STEPS[1:])


async def _gpio_session(faults: Faults, invert: list[str]) -> dict[str, set[Problem]]:
    factory = mock_factory()
    driver = PinDriver(factory, PINS)
    for ch in faults.inverted:  # the receiver holds its pin at its level of rest
        driver.pin(ch).forced = pin_level(ch, 1)

    async def drive(events: list[SensorEvent]) -> None:
        for ev in events:
            await driver.edge(ev.ch, ev.v, ev.t)

    installer = SimInstaller(drive, faults, random.Random(3), quiet_s=0.3, spacing=0.3,
                             t=0.1)
    try:
        async with GpioBackend(PINS, pin_factory=factory, wiring=inverted(invert)) as backend:
            session = await run_session(backend, STEPS, installer, settle_s=0.1)
    finally:
        driver.stop()
        factory.close()
    report = analyse(session.captures, FusionConfig(), PINS)
    assert all(b["balls"] == 2 for b in report.beams.values()), report.beams
    return report.problems()


async def test_gpio_pins_swapped_and_an_inverted_receiver_are_found_on_the_pins() -> None:
    faults = Faults(swapped=(("beam.hl", "beam.hr"),), inverted=frozenset({"beam.sl"}))
    assert await _gpio_session(faults, []) == {
        "beam.hl": {Problem.SWAPPED}, "beam.hr": {Problem.SWAPPED}, "beam.sl": {Problem.INVERTED}}


async def test_gpio_invert_the_fix_for_an_inverted_receiver_reads_it_right() -> None:
    faults = Faults(inverted=frozenset({"beam.sl"}))
    assert await _gpio_session(faults, ["beam.sl"]) == {}


async def _board_session(faults: Faults, invert: list[str] | None = None) -> Report:
    with SimBoard() as board:
        for ch in faults.at_rest(STEP_CHANNELS):  # the receiver's level while its beam is clear
            board.machine.levels[board.pin_of(ch)] = 1
        base = time.monotonic()

        async def drive(events: list[SensorEvent]) -> None:
            for ev in events:  # each edge at its time, as the sensors make it
                await asyncio.sleep(max(0.0, base + ev.t - time.monotonic()))
                board.edge(ev.ch, ev.v, at=base + ev.t)

        installer = SimInstaller(drive, faults, random.Random(4), quiet_s=0.3, spacing=0.3,
                                 t=0.2)
        async with SerialBackend([board.path], inverted=invert or ()) as backend:
            session = await run_session(backend, STEPS, installer, settle_s=0.3)
            clocks = clocks_of(backend)
    return analyse(session.captures, FusionConfig(), None, clocks, serial=True,
                   invert=invert or ())


async def test_a_sensor_board_with_two_beams_swapped_is_found_and_its_clock_reported() -> None:
    report = await _board_session(Faults(swapped=(("beam.hl", "beam.hr"),)))
    assert report.problems() == {"beam.hl": {Problem.SWAPPED}, "beam.hr": {Problem.SWAPPED}}
    # no key renames a board's channels (issue 28): the fix moves the wires, and says so
    assert "swap the wires of beam.hl and beam.hr" in say(report.findings[0].fix)
    assert "rename" not in say(report.findings[0].fix)
    (clock,) = report.clocks.values()
    assert clock["rtt_median_ms"] < 50 and clock["sync_samples"] > 0


async def test_a_board_receiver_of_the_other_polarity_is_named_and_serial_invert_fixes_it() -> None:
    faults = Faults(inverted=frozenset({"beam.sl"}))
    report = await _board_session(faults)
    assert report.problems() == {"beam.sl": {Problem.INVERTED}}
    assert [(s.section, s.key, s.value) for s in report.settings] == [
        ("serial", "invert", ["beam.sl"])]
    assert (await _board_session(faults, ["beam.sl"])).problems() == {}


async def test_a_piezo_threshold_is_written_to_the_board_that_carries_the_channel() -> None:
    from controller.commission.analysis import Threshold
    from controller.commission.boards import MASK_US, write_thresholds
    from firmware_bridge import protocol as P
    from firmware_bridge.firmware.main import DEFAULT_CHANNELS

    why = Said("why.softest", {"percent": 8})
    channels = tuple((i, n, P.MODE_PIEZO if n == "click" else m, pin, d, th, mask)
                     for i, n, m, pin, d, th, mask in DEFAULT_CHANNELS)
    with SimBoard(channels=channels) as board:
        async with SerialBackend([board.path]) as backend:
            done = await write_thresholds(backend, [Threshold("click", 5000, why)])
            with pytest.raises(ValueError, match="no sensor board has a piezo channel cushion.h"):
                await write_thresholds(backend, [Threshold("cushion.h", 5000, why)])
        (click,) = [c for c in board.firmware.channels.values() if c.name == "click"]
        assert (click.threshold, click.mask_us, click.mode) == (5000, MASK_US, P.MODE_PIEZO)
    assert [say(d) for d in done] == [f"board {board.uid}: click threshold 5000/65535"]


async def test_serial_piezo_switches_the_click_channel_on_as_a_piezo_once() -> None:
    from controller.commission.boards import THRESHOLD, switch_on_piezos
    from firmware_bridge import protocol as P

    with SimBoard() as board:  # the firmware's own channel map: click is off until wired
        async with SerialBackend([board.path]) as backend:
            await backend.links[0].wait_up(5.0)
            done = await switch_on_piezos(backend, ["click"])
            assert "click" in backend.links[0].channels
            with pytest.raises(ValueError, match="serial.piezo names ball_id, which no sensor"):
                await switch_on_piezos(backend, ["ball_id"])
        async with SerialBackend([board.path]) as backend:  # the board kept it
            await backend.links[0].wait_up(5.0)
            again = await switch_on_piezos(backend, ["click"])
        (click,) = [c for c in board.firmware.channels.values() if c.name == "click"]
        assert (click.mode, click.threshold) == (P.MODE_PIEZO, THRESHOLD)
    assert [say(d) for d in done] == [
        f"board {board.uid}: click switched on as a piezo on GP26 (serial.piezo), "
                    f"threshold {THRESHOLD}/65535"]
    assert again == []
