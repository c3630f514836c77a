"""The record's stores: SQLite in a file, and a real PostgreSQL (a cluster per pytest-xdist
worker, a fresh database per test; a test that crashes the cluster has one of its own)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.postgres import Postgres, running


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    """A running cluster for this worker's tests: each takes a new database of it."""
    with running() as pg:
        yield pg


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty store's URL: SQLite, then PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'record.sqlite3'}"
    pg: Postgres = request.getfixturevalue("postgres")
    return pg.database()
