"""``python -m controller.sim.physics --game ten-ball --racks 30 --out FILE``: writes a corpus,
one rack a line (trace, truth, expected rulings; gzip-compressed when FILE ends in .gz);
the racks alternate between a table with every optional sensor (identity reader, click)
and one with neither. Needs pooltool."""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from typing import Any

from controller.sim.physics.engine import POOL_9FT, Engine, PhysicsUnavailable, TableSize
from controller.sim.physics.pyramid import PYRAMID_12FT, PyramidRack
from controller.sim.physics.rack import RackPlay, TenBallRack
from controller.sim.physics.sensors import Sensors
from controller.sim.physics.siberian import SIBERIAN_TABLE, SiberianRack

#: The games played on the physics: each one's table and rack, by the rules' game name.
GAMES: dict[str, tuple[TableSize, type[RackPlay]]] = {
    rack.game: (size, rack) for size, rack in (
        (POOL_9FT, TenBallRack), (SIBERIAN_TABLE, SiberianRack), (PYRAMID_12FT, PyramidRack))}


def sensors_of(rack: int) -> Sensors:
    """Returns the optional sensors of the ``rack``-th rack: every one, or none, in turn."""
    full = rack % 2 == 0
    return Sensors(cue_detector=True, identity_reader=full, click=full)


def main(argv: list[str] | None = None) -> int:
    """Writes the corpus; returns the exit status (2 without pooltool)."""
    ap = argparse.ArgumentParser(prog="python -m controller.sim.physics", description=__doc__)
    ap.add_argument("--game", choices=sorted(GAMES), default=TenBallRack.game)
    ap.add_argument("--racks", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1, help="the first rack's seed; then +1 a rack")
    ap.add_argument("--out", default="-")
    args = ap.parse_args(argv)
    size, rack_type = GAMES[args.game]
    try:
        engine = Engine(size)
    except PhysicsUnavailable as exc:
        sys.stderr.write(f"{exc}\n")
        return 2
    if args.out == "-":
        out: Any = sys.stdout
    elif args.out.endswith(".gz"):  # the committed corpus: compressed, a tenth of the size
        out = gzip.open(args.out, "wt", encoding="utf-8")  # noqa: SIM115
    else:
        out = open(args.out, "w", encoding="utf-8")  # noqa: SIM115
    with out:
        for n in range(args.racks):
            record = rack_type(engine, args.seed + n, sensors_of(n)).play()
            out.write(json.dumps(record.to_json(), separators=(",", ":")) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
