"""The ``fourth_game`` pytest fixture, a plugin of the tests' root ``conftest.py``: any test
(a browser test too: its web server and tables run in the test's process) takes it by name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.words import catalogue
from rules.games import GameSpec
from tests.rules.fourth_game import registered


@pytest.fixture
def fourth_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[GameSpec]:
    """The fourth game registered, its words in the catalogues the house reads, for one test."""
    words = tmp_path / "words"
    words.mkdir()
    with registered(words) as spec:
        monkeypatch.setenv("BILLIARDS_WORDS", str(words))
        catalogue.languages.cache_clear()
        catalogue.words.cache_clear()
        try:
            yield spec
        finally:
            monkeypatch.delenv("BILLIARDS_WORDS")
            catalogue.languages.cache_clear()
            catalogue.words.cache_clear()
