"""``demo --tournament``: a double elimination played to its end on the demo's simulated
tables, each match started on its table from the bracket and each result taken by the recorder
from the table (a real Mosquitto, the tables' services, the recorder; nothing typed)."""

from __future__ import annotations

import base64
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(660)  # a whole tournament, played at 60× (about 17 s on a quiet host)
def test_a_four_player_double_elimination_is_played_to_its_winner(tmp_path: Path) -> None:
    out = tmp_path / "demo.out"
    with out.open("w") as sink:
        # it stops by itself once the tournament has its winner (--seconds: a bound only);
        # Siberian Ten: its simulated matches are the shortest (723 s of play in all at these
        # seeds, Ten-ball's 1,239 s), and a match is a match to the bracket and the recorder
        done = subprocess.run([sys.executable, "-m", "controller", "demo", "--tournament", "4",
                               "--tables", "2", "--speed", "60", "--seconds", "600",
                               "--game", "siberian-ten", "--language", "ru"], cwd=ROOT, stdout=sink,
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


@pytest.mark.timeout(180)
def test_the_demos_director_logs_in_with_the_password_in_its_file(tmp_path: Path) -> None:
    out = tmp_path / "demo.out"
    with out.open("w") as sink:
        demo = subprocess.Popen([sys.executable, "-m", "controller", "demo", "--tournament", "4",
                                 "--tables", "2", "--speed", "1", "--seconds", "150"], cwd=ROOT,
                                stdout=sink, stderr=subprocess.STDOUT)
    try:
        shown = until_shown(out, r"^director:  (http://\S+)/director\.html\?id=(\S+)&venue=demo "
                                 r"\(user director, its password in (\S+)\)$", demo)
        base, tid, secret = shown.groups()
        password = Path(secret).read_text().strip()
        assert Path(secret).stat().st_mode & 0o077 == 0 and len(password) >= 16
        one = f"{base}/record/tournament/demo~{tid}"
        asked = post(one, None)
        wrong = post(one, ("director", password[::-1]))
        logged_in = post(one, ("director", password))  # past the login: «dance» is no action
        bracket = urllib.request.urlopen(one + ".json", timeout=10).status  # noqa: S310
        assert password.encode() not in Path(f"/proc/{demo.pid}/cmdline").read_bytes()
    finally:
        demo.send_signal(signal.SIGTERM)
        demo.wait(60)
    assert (asked, wrong, logged_in, bracket) == (401, 401, 400, 200)
    assert password not in out.read_text(encoding="utf-8")


def until_shown(out: Path, pattern: str, demo: subprocess.Popen[bytes]) -> re.Match[str]:
    """Returns the demo's line matching ``pattern`` once it has printed it."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and demo.poll() is None:
        found = re.search(pattern, out.read_text(encoding="utf-8"), re.M)
        if found:
            return found
        time.sleep(0.1)  # polling the demo's output for the line: the condition, not a delay
    raise AssertionError(f"the demo did not print its director line:\n{out.read_text()[-2000:]}")


def post(url: str, login: tuple[str, str] | None) -> int:
    """Returns the status of a director's action («dance»: one the record does not know)."""
    request = urllib.request.Request(url, data=b'{"action": "dance"}', method="POST")
    if login is not None:
        token = base64.b64encode(":".join(login).encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:  # noqa: S310
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return exc.code
