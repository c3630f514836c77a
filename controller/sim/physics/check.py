"""A corpus rack replayed through the pipeline and its rulings set beside the oracle's.

Needs no pooltool: a corpus line holds the trace and the expected rulings
(``controller.sim.physics.rack``). ``disagreements`` lists every shot where fusion + rules
ruled otherwise than a referee with perfect facts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from controller.pipeline.replay import replay
from controller.pipeline.table import Message
from controller.pipeline.trace import BadLine

#: The fields of a ruling the pipeline's decisions give; a corpus shot's ``expected`` names
#: those its game's oracle rules (Ten-ball: ``controller.sim.physics.truth.Ruling``), and only
#: those are compared. ``points``: each player's points won or lost on the shot (by player
#: number, as a string; none when zero); ``spotted``: the numbered balls spotted, sorted, then
#: ``"object"`` for each ball spotted whose number the table did not need (a "which ball?" the
#: referee core did not ask, its every answer ruling the same: ``rules.moot``), which stands
#: for any one ball of the truth's.
FIELDS = ("foul", "next_shooter", "spotted_ten", "winner", "drawn", "points", "spotted")


@dataclass(frozen=True, slots=True)
class Disagreement:
    """Shot ``shot`` (1 = the break) was ruled ``got`` where the oracle says ``expected``."""

    seed: int
    shot: int
    field: str
    expected: Any
    got: Any

    def __str__(self) -> str:
        return f"seed {self.seed} shot {self.shot}: {self.field} {self.got!r}, truly {self.expected!r}"


def pipeline_rulings(trace: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Returns, by shot number, how the pipeline ruled each shot of ``trace``: its last
    ruling of the shot, with what answering its questions added. Raises ValueError naming a
    trace line it cannot read."""
    rulings: dict[int, dict[str, Any]] = {}
    decided: dict[int, list[dict[str, Any]]] = {}

    def publish(msg: Message) -> None:
        payload = msg.to_json()["payload"]
        if not isinstance(payload, dict) or payload.get("type") != "shot_result":
            return
        data = payload["data"]
        shot = data["shot"]
        if data["corrected"] or shot not in decided:  # a ruling anew replaces the shot's
            decided[shot] = []
        decisions = decided[shot]  # an answered question's result adds to them
        decisions += data["decisions"]
        won = [d["player"] for d in decisions if d["decision"] == "GameWon"]
        spots = [d["ball"] for d in decisions if d["decision"] == "BallSpotted"]
        numbered = sorted(b for b in spots if isinstance(b, int))
        spotted: list[int | str] = [*numbered, *["object"] * (len(spots) - len(numbered))]
        rulings[shot] = {
            "foul": any(d["decision"] == "FoulCalled" for d in decisions),
            "next_shooter": data["to_shoot"],
            "spotted_ten": 10 in spotted,
            "winner": won[-1] if won else None,
            "drawn": any(d["decision"] == "GameDrawn" for d in decisions),
            "points": points_of(decisions),
            "spotted": spotted,
        }

    def bad(line: BadLine) -> None:
        raise ValueError(f"trace line {line.line}: {line.reason}")

    replay((json.dumps(line) for line in trace), publish, bad)
    return rulings


def points_of(decisions: list[dict[str, Any]]) -> dict[str, int]:
    """Returns each player's points won or lost by ``decisions`` (balls credited, penalty
    points moved), keyed by the player's number as a string; players at zero left out."""
    points: dict[str, int] = {}
    for d in decisions:
        if d["decision"] == "BallCredited":
            moves = [(d["player"], d["points"])]
        elif d["decision"] == "PointsMoved":
            moves = [(d["offender"], -d["points"]), (d["to"], d["points"])]
        else:
            continue
        for player, n in moves:
            points[str(player)] = points.get(str(player), 0) + n
    return {k: v for k, v in sorted(points.items()) if v}


def disagreements(record: dict[str, Any]) -> list[Disagreement]:
    """Returns where the pipeline's rulings of a corpus rack differ from the oracle's, and
    each question the referee refused (none of its choices true: ``refused``)."""
    got = pipeline_rulings(record["trace"])
    found = [Disagreement(record["seed"], r["shot"], "refused", None, r["question"])
             for r in record.get("refused", [])]
    for n, shot in enumerate(record["shots"], start=1):
        ruled = got.get(n)
        for name in FIELDS:
            if name not in shot["expected"]:
                continue  # this game's oracle does not rule it
            expected = shot["expected"][name]
            over = shot["expected"]["winner"] is not None or shot["expected"].get("drawn")
            if name == "next_shooter" and over:
                continue  # who would shoot after a game's end means nothing
            actual = None if ruled is None else ruled[name]
            if name == "spotted" and actual is not None and _unnamed_fit(expected, actual):
                continue
            if actual != expected:
                found.append(Disagreement(record["seed"], n, name, expected, actual))
    return found


def _unnamed_fit(expected: list[Any], actual: list[Any]) -> bool:
    """Returns True when ``actual``'s numbered balls are among ``expected`` and its unnamed
    ones (``"object"``) make up the rest."""
    rest = list(expected)
    for ball in (b for b in actual if b != "object"):
        if ball not in rest:
            return False
        rest.remove(ball)
    return len(rest) == actual.count("object")


def agreement(records: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """Returns, for the racks with every optional sensor (``with``) and with none
    (``without``), how many shots the pipeline ruled as the truth does, of how many."""
    counts: dict[str, tuple[int, int]] = {}
    for record in records:
        key = "with" if record["sensors"]["identity_reader"] else "without"
        wrong = {d.shot for d in disagreements(record)}
        agreed, total = counts.get(key, (0, 0))
        counts[key] = (agreed + len(record["shots"]) - len(wrong), total + len(record["shots"]))
    return counts


def main(argv: list[str] | None = None) -> int:
    """``python -m controller.sim.physics.check CORPUS…``: prints each disagreement and the
    agreement with and without the optional sensors; returns 1 when any shot disagrees."""
    import argparse
    import gzip

    ap = argparse.ArgumentParser(prog="python -m controller.sim.physics.check", description=(
        "replays corpus racks (python -m controller.sim.physics) through the pipeline and sets"
        " its rulings beside those over perfect facts"))
    ap.add_argument("corpus", nargs="+", help="a corpus file (.jsonl, or .jsonl.gz)")
    status = 0
    for path in ap.parse_args(argv).corpus:
        opener: Any = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            records = [json.loads(line) for line in f]
        for record in records:
            for d in disagreements(record):
                print(f"{path}: {d}")
                status = 1
        for key, (agreed, total) in sorted(agreement(records).items()):
            print(f"{path}: {key} the optional sensors: {agreed}/{total} shots agree "
                  f"({100 * agreed / total:.1f} %)")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
