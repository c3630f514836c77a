"""The backend a configuration names on hardware: its pins, and gpio.invert read the other way."""

from __future__ import annotations

import pytest

from controller.service.backends import hardware_backend
from controller.service.config import ConfigError, validate
from hardware.events import SensorEvent
from tests.hardware.pins import PinDriver, mock_factory


async def test_gpio_invert_reads_a_receiver_of_the_other_polarity_as_blocked_when_blocked() -> None:
    pins: dict[str, int | str] = {"beam.hl": 5, "beam.hr": 6}
    config = validate({"backend": "gpio", "gpio": {"pins": pins, "invert": ["beam.hr"]}})
    factory = mock_factory()
    driver = PinDriver(factory, pins)
    # beam.hr's receiver drives its pin high while its beam is broken: at rest it is low
    driver.pin("beam.hr").forced = False
    try:
        async with hardware_backend(config, factory) as backend:
            events = backend.events()
            first = await anext(events)  # the link comes up; nothing reads 1 at rest
            assert getattr(first, "up", False)
            # a ball through each beam: the ordinary receiver pulls low, the other drives high
            await driver.edge("beam.hl", 1, 0.01)
            driver.pin("beam.hr").drive(True)
            got = [await anext(events), await anext(events)]
    finally:
        driver.stop()
        factory.close()
    assert [(e.ch, e.v) for e in got if isinstance(e, SensorEvent)] == [
        ("beam.hl", 1), ("beam.hr", 1)]


def test_a_backend_that_is_no_hardware_is_refused() -> None:
    with pytest.raises(ConfigError, match="not a sensor backend on hardware"):
        hardware_backend(validate({"backend": "sim"}))
    with pytest.raises(ConfigError, match="gpio.pins"):
        hardware_backend(validate({"backend": "gpio"}))
