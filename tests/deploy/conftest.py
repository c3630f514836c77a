"""The shipped venue brokers, started once per test module that asks for ``venue``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.deploy.venue import Venue, start_venue


@pytest.fixture(scope="module")
def venue(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Venue]:
    v = start_venue(tmp_path_factory.mktemp("venue"))
    try:
        yield v
    finally:
        v.stop()
