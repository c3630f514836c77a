"""Shared fixtures: a real Mosquitto broker on a free port."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.broker import Broker


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """A running Mosquitto of its own, stopped after the test."""
    b = Broker(tmp_path / "broker")
    b.start()
    try:
        yield b
    finally:
        b.stop()
