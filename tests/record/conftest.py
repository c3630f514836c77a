"""The record's stores: SQLite in a file, and a real PostgreSQL (a cluster per test module)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.postgres import Postgres


@pytest.fixture(scope="module")
def postgres() -> Iterator[Postgres]:
    pg = Postgres()
    pg.start()
    try:
        yield pg
    finally:
        pg.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new, empty store's URL: SQLite, then PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'record.sqlite3'}"
    pg: Postgres = request.getfixturevalue("postgres")
    return pg.database()
