"""``demo --tournament``: a double elimination played to its end on the demo's simulated
tables, each match started on its table from the bracket and each result taken by the recorder
from the table (a real Mosquitto, the tables' services, the recorder; nothing typed)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(660)  # a whole tournament, played at 15× (about 2 minutes on a quiet host)
def test_a_four_player_double_elimination_is_played_to_its_winner(tmp_path: Path) -> None:
    out = tmp_path / "demo.out"
    with out.open("w") as sink:
        # it stops by itself once the tournament has its winner (--seconds: a bound only)
        done = subprocess.run([sys.executable, "-m", "controller", "demo", "--tournament", "4",
                               "--tables", "2", "--speed", "15", "--seconds", "600",
                               "--language", "ru"], cwd=ROOT, stdout=sink,
                              stderr=subprocess.STDOUT, timeout=660)
    text = out.read_text(encoding="utf-8")
    assert done.returncode == 0, text[-3000:]
    given = re.findall(r"^tournament: (\S+) on (t\d): (.+) — (.+)$", text, re.M)
    won = re.findall(r"^tournament: (\S+) won by (.+) \(from the table\)$", text, re.M)
    winner = re.findall(r"^tournament: winner (.+)$", text, re.M)
    # W1-1, W1-2, W2-1, L1-1, L2-1, GF1 and, if the lower bracket's Вера-or-other won it, GF2
    assert [m for m, *_ in given][:2] == ["W1-1", "W1-2"] and len(given) in (6, 7)
    assert sorted(m for m, _ in won) == sorted(m for m, *_ in given)
    for match, name in won:  # each result one of the two the bracket put on the table
        players = next((a, b) for m, _, a, b in given if m == match)
        assert name in players
    assert len(winner) == 1 and winner[0] == won[-1][1]
    assert text.index("won by") > text.index("on t1")  # given first, then played, then taken
