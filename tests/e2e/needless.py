"""Ask only what can change the ruling, proved over simulated matches (issue 27): the probe
the three ``test_no_needless_question_*`` files run, a game each.

Matches of all three games are played by the simulator (``controller.sim.simulator``), with
its noise (stuck beams, an identity reader on some tables, declared fouls). Before each
question is answered, the question is answered every way it can be, on copies of the
referee through its public inputs, following the questions each answer opens; a question
whose every answer ends in the same outcome is one that should not have been asked.
"""

from __future__ import annotations

import itertools
from typing import Any

from controller.sim.simulator import Simulator
from rules import Answered, Referee
from rules.decisions import BallSpotted, FoulCalled, RulingCorrected

#: Matches per game under ``--soak``: 3 x 170 = 510.
MATCHES = 170
#: Matches per game in the default suite (seeds 0-39 and the seeds of ``KNOWN``): the same
#: probe on a fifth of the seeds, about 4 s of CPU a game instead of 16 s.
QUICK = 40
#: A question this probe cannot settle within so many answers is left undecided.
MAX_FEEDS = 120
#: Shots per match at most (a match may end sooner).
SHOTS = 80

#: (game, seed, question) → why the core still asks it, every answer ruling the same. None:
#: Ten-ball seed 122's «which ball fell in sr?» after the 10 won the break (each answer opened
#: another pocket's question, more than the search's 40 rulings) went with 100.
KNOWN: dict[tuple[str, int, str], str] = {}


class _Undecided(Exception):
    pass


def _choices(q: Any) -> list[Any]:
    if q.kind == "identify":
        found = list(itertools.combinations(q.choices, q.count))
        return [list(c) if q.count > 1 else c[0] for c in found]
    return list(q.choices)


def _fork(ref: Referee) -> Referee:
    return Referee(_start=ref._start, _frames=list(ref._frames))


def _seen(ref: Referee, shot: list[Any]) -> str:
    """What a club sees once the shot is ruled: the snapshot's scores and turn, and while the
    game goes on its table, the fouls called and where balls were set out. A ball set out
    again is a ruling (the pyramid's seed lists «выставление шара, положенного в лузу, на
    стол» among its penalties), so «did a ball fall?» where only a spotting hangs on it is
    not needless; once the game is over, what a foul or a spot left is in the scores."""
    snap = ref.snapshot()
    keep = ["players", "status", "winner", "draw", "game_no", "to_shoot", "ball_in_hand"]
    if snap["status"] in ("game_over", "match_over"):
        return repr({k: snap[k] for k in keep})
    fouls = [(d.player, d.fouls) for d in shot if isinstance(d, FoulCalled)]
    spots = sorted(str(d.spot) for d in shot if isinstance(d, BallSpotted))
    seen = {k: snap[k] for k in [*keep, "on_table", "unidentified", "shootout"]}
    return repr((seen, fouls, spots, ref.state.extra))


def _outcomes(ref: Referee, shot: list[Any], budget: list[int]) -> frozenset[str]:
    if not ref.questions:
        return frozenset({_seen(ref, shot)})
    q = ref.questions[0]
    found: set[str] = set()
    for choice in _choices(q):
        budget[0] -= 1
        if budget[0] < 0:
            raise _Undecided
        other = _fork(ref)
        try:
            out = other.feed(Answered(q.id, choice))
        except Exception:  # noqa: BLE001 - a ball already named for another drop: not a way
            continue
        corrected = [i for i, d in enumerate(out) if isinstance(d, RulingCorrected)]
        after = out[corrected[-1] + 1:] if corrected else [*shot, *out]
        found |= _outcomes(other, after, budget)
    return frozenset(found)


class Probe(Simulator):
    """The simulator, checking each question before its referee answers it."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.asked = 0
        self.undecided = 0
        self.needless: list[str] = []

    def _truthful(self, q: Any) -> Any:
        ref = self.table.referee
        self.asked += 1
        by_answer = []
        try:
            for choice in _choices(q):
                other = _fork(ref)
                try:
                    out = other.feed(Answered(q.id, choice))
                except Exception:  # noqa: BLE001 - not a possible answer here
                    continue
                by_answer.append(_outcomes(other, list(out), [MAX_FEEDS]))
        except _Undecided:
            self.undecided += 1
        else:
            if len(by_answer) > 1 and len(set(by_answer)) == 1:
                self.needless.append(q.describe())
        return super()._truthful(q)


def check_no_question_is_asked_whose_every_answer_rules_the_same(
        game: str, players: tuple[int, ...], matches: int) -> None:
    """Plays the matches of seeds 0 to ``matches`` - 1 of ``game``, and those ``KNOWN`` lists
    for it (players cycling through ``players``), and fails on a question whose every answer
    rules the same (one file a game, so that the two workers of ``./dev test`` share the
    three)."""
    asked = undecided = 0
    needless: list[str] = []
    known: set[tuple[str, int, str]] = set()
    seeds = sorted(set(range(matches)) | {s for g, s, _ in KNOWN if g == game})
    for seed in seeds:
        n = players[seed % len(players)]
        probe = Probe(game, seed, noise=True, players=n)
        probe.play(SHOTS)
        asked, undecided = asked + probe.asked, undecided + probe.undecided
        for q in probe.needless:
            if (game, seed, q) in KNOWN:
                known.add((game, seed, q))
            else:
                needless.append(f"{game} seed {seed}: {q}")
    assert asked > len(seeds)  # the matches do ask
    assert undecided <= asked // 10
    assert not needless, "\n".join(needless)
    assert known == {k for k in KNOWN if k[0] == game}, "a listed question is no longer asked"
