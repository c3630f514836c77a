"""A long synthetic Ten-ball trace, made from the sensor physics: the replay benchmark's input."""

from __future__ import annotations

import json
import random

from controller.sim.pulses import beam_block, beam_glitch, cushion_hit
from rules.games import default_game
from vocabulary import POCKETS, RAILS


def long_trace(min_lines: int, seed: int = 7) -> list[str]:
    """Returns the lines of a trace of at least ``min_lines`` lines: matches of Ten-ball, each
    ball called and pocketed, with cushion pulse trains, crosstalk and beam glitches."""
    rng = random.Random(seed)
    lines = [json.dumps({"trace": 1, "venue": "bench", "table": "t1",
                         "fusion": {"identity_reader": True}})]
    t = 1.0

    def add(obj: dict[str, object]) -> None:
        lines.append(json.dumps(obj))

    while len(lines) < min_lines:
        t += 1.0
        add({"t": t, "request": "new_match", "payload": {"game": default_game(), "players": ["A", "B"]}})
        t += 2.0
        for e in cushion_hit("f", t, rng, strength=0.9):
            add(e.to_json())
        t += 6.0
        for ball in range(1, 11):
            pocket = rng.choice(POCKETS)
            add({"t": round(t, 6), "request": "call",
                 "payload": {"calls": [{"ball": ball, "pocket": pocket}]}})
            t += 1.0
            events = []
            at = t
            for _ in range(rng.randint(2, 5)):
                at += rng.uniform(0.1, 0.4)
                events += cushion_hit(rng.choice(RAILS), at, rng, strength=rng.uniform(0.2, 1.0))
            at += 0.3
            events += beam_block(pocket, at, rng, glitch=rng.random() < 0.2)
            events.append(type(events[0])(round(at + rng.uniform(0.5, 1.8), 6), "ball_id", 1,
                                          ball=ball, pocket=pocket))
            if rng.random() < 0.3:
                events += beam_glitch(rng.choice(POCKETS), at + 0.1, rng)
            for e in sorted(events, key=lambda e: e.t):
                add(e.to_json())
            t = max(e.t for e in events) + 4.0
    return lines
