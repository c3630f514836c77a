"""Shared fixtures: a real Mosquitto broker on a free port."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.broker import Broker


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--soak", action="store_true", help="run the long soak and fault runs too")


def _measuring_coverage(config: pytest.Config) -> bool:
    """Returns whether pytest-cov measures this run (``--cov`` given, ``--no-cov`` not)."""
    return bool(config.getoption("cov_source", None)) and not config.getoption("no_cov", False)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Coverage comes from the example tests: tracing would double the time of the property runs
    # (hypothesis plays thousands of random shots through the same code), so they run untraced
    # (pytest-cov's no_cover; marked only while it measures: without --cov, or with --no-cov,
    # pytest-cov 7 fails on the marker).
    if _measuring_coverage(config):
        for item in items:
            if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
                item.add_marker(pytest.mark.no_cover)
    if config.getoption("--soak"):
        return
    soak = [item for item in items if "soak" in item.keywords]
    if soak:  # deselected, not skipped: they are not part of this run at all
        config.hook.pytest_deselected(items=soak)
        items[:] = [item for item in items if "soak" not in item.keywords]


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """A running Mosquitto of its own, stopped after the test."""
    b = Broker(tmp_path / "broker")
    b.start()
    try:
        yield b
    finally:
        b.stop()
