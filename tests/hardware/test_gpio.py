"""The GPIO backend on gpiozero's MockFactory pins, driven from a thread like lgpio's."""

from __future__ import annotations

import asyncio
import gc
import importlib.util
import logging
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from gpiozero import Device, DigitalInputDevice

from hardware import Health, HealthMonitor, LinkChanged, SensorEvent
from hardware.gpio import (
    GpioBackend,
    GpioError,
    PinConfigError,
    PinFactoryError,
    Wiring,
    is_pi5,
    pi_pin_factory,
    rp1_chip,
)
from tests.hardware.pins import PI5_REVISION, PinDriver, SourceTickPin, mock_factory
from tests.waiting import until

PINS: dict[str, int | str] = {
    "beam.fl": 17,
    "beam.hr": 18,
    "cushion.lf": 27,
    "cushion.h": 22,
    "cue": 23,
    "strike": 24,
    "click": 25,
}


async def take(events: AsyncIterator[SensorEvent | LinkChanged], n: int) -> list[SensorEvent]:
    """Returns the next n SensorEvents (skipping link records), within 5 s."""
    out: list[SensorEvent] = []

    async def pull() -> None:
        async for item in events:
            if isinstance(item, SensorEvent):
                out.append(item)
                if len(out) == n:
                    return

    await asyncio.wait_for(pull(), 5)
    return out


@pytest.fixture
def factory() -> Any:
    f = mock_factory()
    yield f
    f.close()


async def test_edges_from_another_thread_arrive_in_order_with_their_source_ticks(
    factory: Any,
) -> None:
    script = [
        ("beam.fl", 1, 0.010), ("cushion.lf", 1, 0.011), ("beam.fl", 0, 0.019),
        ("cushion.lf", 0, 0.030), ("cushion.h", 1, 0.031), ("cushion.h", 0, 0.040),
        ("beam.hr", 1, 0.100), ("strike", 1, 0.101), ("beam.hr", 0, 0.120),
        ("strike", 0, 0.121), ("click", 1, 0.150), ("click", 0, 0.151),
        ("cue", 1, 0.600), ("cue", 0, 0.610),
    ]
    callback_threads: set[str] = set()
    async with GpioBackend(PINS, pin_factory=factory) as backend:
        driver = PinDriver(factory, PINS)
        try:
            it = backend.events()
            first = await anext(it)
            assert isinstance(first, LinkChanged) and first.up
            futures = [driver.submit(ch, v, at) for ch, v, at in script]
            for fut in futures:
                fut.add_done_callback(lambda _: callback_threads.add(threading.current_thread().name))
            got = await take(it, len(script))
        finally:
            driver.stop()
    assert [(e.ch, e.v) for e in got] == [(ch, v) for ch, v, _ in script]
    for event, (_, _, at) in zip(got, script, strict=True):
        assert event.t == pytest.approx(driver.t0 + at, abs=driver.tolerance), event
    assert callback_threads == {"mock-lgpio"}


async def test_times_are_the_edge_ticks_not_when_the_library_thread_called_back(
    factory: Any,
) -> None:
    # lgpio's thread can reach an edge late; the kernel's timestamp still says when it was.
    async with GpioBackend(PINS, pin_factory=factory) as backend:
        driver = PinDriver(factory, PINS, late=0.15)
        try:
            await driver.edge("beam.fl", 1, 0.0)
            await driver.edge("beam.fl", 0, 0.012)
            got = await take(backend.events(), 2)
        finally:
            driver.stop()
    assert got[0].t == pytest.approx(driver.t0, abs=driver.tolerance)
    assert got[1].t - got[0].t == pytest.approx(0.012, abs=driver.tolerance)


async def test_times_are_the_edge_ticks_not_when_the_loop_took_them(factory: Any) -> None:
    async with GpioBackend(PINS, pin_factory=factory) as backend:
        driver = PinDriver(factory, PINS)
        try:
            futures = [driver.submit("cushion.h", v, at) for v, at in ((1, 0.01), (0, 0.03))]
            time.sleep(0.2)  # the loop is busy while the edges happen
            assert all(f.done() for f in futures)
            got = await take(backend.events(), 2)
        finally:
            driver.stop()
    assert [e.t - driver.t0 for e in got] == pytest.approx([0.01, 0.03], abs=driver.tolerance)


async def test_a_beam_is_active_low_with_a_pull_up_and_a_cushion_active_high(
    factory: Any,
) -> None:
    async with GpioBackend(PINS, pin_factory=factory) as backend:
        beam, cushion, cue = factory.pin(17), factory.pin(27), factory.pin(23)
        assert (beam.pull, cushion.pull, cue.pull) == ("up", "down", "up")
        driver = PinDriver(factory, PINS)
        try:
            beam.drive(False)  # receiver pulled low: the beam is broken
            beam.drive(True)
            cushion.drive(True)  # SW-420 output high: shaken
            cushion.drive(False)
            cue.drive(False)
            got = await take(backend.events(), 5)
        finally:
            driver.stop()
    assert [(e.ch, e.v) for e in got] == [
        ("beam.fl", 1), ("beam.fl", 0), ("cushion.lf", 1), ("cushion.lf", 0), ("cue", 1),
    ]


async def test_wiring_can_be_overridden_per_channel(factory: Any) -> None:
    pins: dict[str, int | str] = {"beam.fl": 17}
    wiring = {"beam.fl": Wiring(pull_up=None, active_high=True)}  # a push-pull receiver
    async with GpioBackend(pins, pin_factory=factory, wiring=wiring) as backend:
        pin = factory.pin(17)
        assert pin.pull == "floating"
        pin.drive(True)
        got = await take(backend.events(), 1)
    assert (got[0].ch, got[0].v) == ("beam.fl", 1)


def test_a_wiring_whose_pull_contradicts_its_polarity_is_refused() -> None:
    with pytest.raises(PinConfigError):
        Wiring(pull_up=True, active_high=True)


async def test_a_beam_already_blocked_at_start_is_reported_as_a_reading(factory: Any) -> None:
    lodged = factory.pin(17)
    assert isinstance(lodged, SourceTickPin)
    lodged.forced = False  # a ball sits in the beam: the receiver holds its pin low
    async with GpioBackend(PINS, pin_factory=factory, clock=lambda: 42.0) as backend:
        got = await take(backend.events(), 1)
    assert got == [SensorEvent(t=42.0, ch="beam.fl", v=1)]


async def test_no_bounce_time_is_set_on_any_pin(factory: Any) -> None:
    async with GpioBackend(PINS, pin_factory=factory):
        assert {factory.pin(p).bounce for p in PINS.values()} == {None}
        assert {factory.pin(p).edges for p in PINS.values()} == {"both"}


async def test_overflow_is_counted_and_logged_when_the_queue_is_full(
    factory: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="hardware.gpio")
    async with GpioBackend(PINS, pin_factory=factory, queue_size=3) as backend:
        driver = PinDriver(factory, PINS)
        try:
            # The link record and two edges fit; the next three do not.
            for i, v in enumerate((1, 0, 1, 0, 1)):
                await driver.edge("cushion.h", v, 0.001 * i)
            await until(lambda: backend.stats().events >= 5, 3.0, "the edges at the queue")
            assert backend.stats().events == 5
            assert backend.stats().overflows == 3
            assert "queue full" in caplog.text
            got = await take(backend.events(), 2)
            assert [e.v for e in got] == [1, 0]
            # Room again: later edges get through, and the loss is reported once more.
            await driver.edge("cushion.h", 0, 0.010)
            assert [e.v for e in await take(backend.events(), 1)] == [0]
            assert "3 events were lost" in caplog.text
        finally:
            driver.stop()
    assert backend.stats().overflows == 3


async def test_the_bound_holds_while_the_loop_is_blocked(factory: Any) -> None:
    # Edges handed over but not yet run by the loop count against the bound too, so a
    # stalled loop cannot pile up callbacks without limit.
    async with GpioBackend(PINS, pin_factory=factory, queue_size=3) as backend:
        driver = PinDriver(factory, PINS)
        try:
            futures = [driver.submit("strike", i % 2 ^ 1, 0.001 * i) for i in range(6)]
            time.sleep(0.1)  # the loop is stuck; the library thread keeps calling back
            assert all(f.done() for f in futures)
            assert (backend.stats().events, backend.stats().overflows) == (6, 4)
            got = await take(backend.events(), 2)
        finally:
            driver.stop()
    assert [e.v for e in got] == [1, 0]


async def test_events_outside_async_with_is_an_error(factory: Any) -> None:
    backend = GpioBackend(PINS, pin_factory=factory)
    with pytest.raises(RuntimeError):
        await anext(backend.events())


async def test_callbacks_still_fire_after_gc_collect(factory: Any) -> None:
    async with GpioBackend(PINS, pin_factory=factory) as backend:
        gc.collect()
        driver = PinDriver(factory, PINS)
        try:
            await driver.edge("beam.fl", 1, 0.0)
            got = await take(backend.events(), 1)
        finally:
            driver.stop()
    assert (got[0].ch, got[0].v) == ("beam.fl", 1)


def test_gpiozero_keeps_only_a_weak_reference_to_when_changed(factory: Any) -> None:
    # Why the backend holds its handlers: a handler nobody else holds is silently dropped.
    device = DigitalInputDevice(17, pin_factory=factory)
    try:
        fired: list[bool] = []
        device.pin.when_changed = lambda ticks, state: fired.append(state)
        gc.collect()
        device.pin.drive(True)
        assert fired == []
        assert device.pin.when_changed is None
    finally:
        device.close()


async def test_a_pi5_revision_works_with_mock_factory() -> None:
    factory = mock_factory(PI5_REVISION)
    try:
        assert factory.board_info.model == "5B"
        assert is_pi5(int(PI5_REVISION, 16))
        pins: dict[str, int | str] = {"beam.sl": "GPIO5", "cushion.rf": "BOARD13"}  # GPIO27
        async with GpioBackend(pins, pin_factory=factory) as backend:
            driver = PinDriver(factory, pins)
            try:
                await driver.edge("beam.sl", 1, 0.0)
                await driver.edge("cushion.rf", 1, 0.005)
                got = await take(backend.events(), 2)
            finally:
                driver.stop()
            assert factory.pin(27) is driver.pin("cushion.rf")
    finally:
        factory.close()
    assert [(e.ch, e.v) for e in got] == [("beam.sl", 1), ("cushion.rf", 1)]
    assert got[1].t - got[0].t == pytest.approx(0.005, abs=driver.tolerance)


@pytest.mark.parametrize(
    ("revision", "pi5"),
    [(0xD04170, True), (0xC04170, True), (0xB04180, True), (0xD04190, True),
     (0xA02082, False), (0xC03114, False), (0x0010, False)],
)
def test_pi5_family_boards_are_recognised_by_revision(revision: int, pi5: bool) -> None:
    assert is_pi5(revision) is pi5


@pytest.mark.parametrize(
    ("labels", "chip"),
    [
        ([(0, "gpio-brcmstb@107d508500"), (1, "gpio-brcmstb@107d517c00"), (4, "pinctrl-rp1")], 4),
        ([(0, "pinctrl-rp1"), (10, "gpio-brcmstb@107d508500")], 0),  # kernels from 6.6.45
    ],
)
def test_pi5_uses_the_gpiochip_labelled_pinctrl_rp1(labels: list[tuple[int, str]], chip: int) -> None:
    assert rp1_chip(labels) == chip


def test_no_rp1_chip_is_a_pin_factory_error() -> None:
    with pytest.raises(PinFactoryError):
        rp1_chip([(0, "pinctrl-bcm2835")])


@pytest.mark.skipif(importlib.util.find_spec("lgpio") is not None, reason="lgpio is installed")
def test_without_lgpio_the_real_factory_is_a_pin_factory_error() -> None:
    with pytest.raises(PinFactoryError, match="lgpio"):
        pi_pin_factory(revision=0xD04170, chip_labels=lambda: [(0, "pinctrl-rp1")])


async def test_the_pin_factory_is_injected_never_set_globally(factory: Any) -> None:
    before = Device.pin_factory
    async with GpioBackend(PINS, pin_factory=factory):
        pass
    assert Device.pin_factory is before is None


@pytest.mark.parametrize(
    "pins",
    [{"ball_id": 17}, {"beam.xx": 17}, {"beam.fl": 17, "beam.fr": "GPIO17"}],
    ids=["a reader is not a pin", "unknown channel", "one pin twice"],
)
def test_a_mapping_gpio_cannot_carry_is_refused(pins: dict[str, int | str], factory: Any) -> None:
    with pytest.raises(PinConfigError) as caught:
        GpioBackend(pins, pin_factory=factory)
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, GpioError)


async def test_a_pin_in_use_is_a_pin_factory_error_and_releases_the_others(factory: Any) -> None:
    taken = DigitalInputDevice(23, pin_factory=factory)  # "cue"'s pin, held by someone else
    try:
        with pytest.raises(PinFactoryError):
            async with GpioBackend(PINS, pin_factory=factory):
                pass
    finally:
        taken.close()
    async with GpioBackend(PINS, pin_factory=factory):  # nothing left reserved
        pass


async def test_the_stream_ends_after_close_with_the_link_going_down(factory: Any) -> None:
    async with GpioBackend(PINS, pin_factory=factory) as backend:
        factory.pin(17).drive(False)
        stream = backend.events()
    items = [item async for item in stream]
    assert isinstance(items[0], LinkChanged) and items[0].up
    assert items[1] == SensorEvent(t=items[1].t, ch="beam.fl", v=1)
    assert isinstance(items[-1], LinkChanged) and not items[-1].up
    assert items[-1].channels == tuple(PINS)
    assert backend.stats().links == {"gpio": False}
    # Closed pins are released: edges after close reach nobody.
    assert factory.pin(17).when_changed is None


async def test_a_ball_lodged_in_a_beam_at_start_is_judged_stuck_by_health(factory: Any) -> None:
    now = [100.0]
    factory.pin(17).forced = False  # blocked before the backend opens
    async with GpioBackend(PINS, pin_factory=factory, clock=lambda: now[0]) as backend:
        health = HealthMonitor(backend.channels, clock=lambda: now[0])
        stream = backend.events()
        records = [r for _ in range(2) for r in health.feed(await anext(stream))]
        assert records == [] and health.is_usable("beam.fl")
        now[0] = 102.5
        [fault] = health.tick()
        assert (fault.channel, fault.state) == ("beam.fl", Health.STUCK)
        assert not health.is_usable("beam.fl") and health.is_usable("beam.hr")
        assert health.note_stats(backend.name, backend.stats()) == []
