"""Shared fixtures: a real Mosquitto broker on a free port."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.broker import Broker

#: ``fourth_game``: a fourth game registered with its words, for any test (issue 37).
pytest_plugins = ["tests.rules.fourth_game.fixture"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--soak", action="store_true", help="run the long soak and fault runs too")


def _measuring_coverage(config: pytest.Config) -> bool:
    """Returns whether pytest-cov measures this run (``--cov`` given, ``--no-cov`` not)."""
    return bool(config.getoption("cov_source", None)) and not config.getoption("no_cov", False)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Coverage comes from the example tests: tracing would double the time of the property runs
    # (hypothesis plays thousands of random shots through the same code) and of the other long
    # random runs (marked "untraced": the needless-question probe, 2.7 times its CPU traced), so
    # they run untraced (pytest-cov's no_cover; marked only while it measures: without --cov,
    # or with --no-cov, pytest-cov 7 fails on the marker).
    if _measuring_coverage(config):
        for item in items:
            if (getattr(getattr(item, "obj", None), "is_hypothesis_test", False)
                    or "untraced" in item.keywords):
                item.add_marker(pytest.mark.no_cover)
    # deselected, not skipped: they are not part of this run at all (and the run says so)
    left_out = set()
    if not config.getoption("--soak"):
        left_out.add("soak")
    if importlib.util.find_spec("pooltool") is None:  # the physics extra is optional
        left_out.add("pooltool")
    out = [item for item in items if left_out & set(item.keywords)]
    if out:
        config.hook.pytest_deselected(items=out)
        items[:] = [item for item in items if not left_out & set(item.keywords)]
        counts = {why: sum(1 for i in out if why in i.keywords) for why in sorted(left_out)}
        config.stash[_LEFT_OUT] = [f"{n} {why}" for why, n in counts.items() if n]


_LEFT_OUT = pytest.StashKey[list[str]]()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    left_out = config.stash.get(_LEFT_OUT, [])
    if not left_out and not hasattr(config, "workerinput") and config.getoption("numprocesses", None):
        # the workers (pytest-xdist) collect and deselect; the main process only says which
        # kinds were left out (their counts are in each worker's collection)
        left_out = ["the soak tests"] if not config.getoption("--soak") else []
        if importlib.util.find_spec("pooltool") is None:
            left_out.append("the pooltool tests")
    if left_out:
        terminalreporter.write_line(
            f"deselected: {', '.join(left_out)} (--soak runs the soak tests; ./dev "
            "physics-install adds pooltool, which the pooltool tests need)")


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """A running Mosquitto of its own, stopped after the test."""
    b = Broker(tmp_path / "broker")
    b.start()
    try:
        yield b
    finally:
        b.stop()
