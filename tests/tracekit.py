"""Building traces for end-to-end tests: requests and the sensor events physical play causes."""

from __future__ import annotations

import json
import random
from typing import Any

from controller.sim.pulses import ball_return, beam_block, cushion_hit
from hardware import SensorEvent


class TraceBuilder:
    """Accumulates trace lines; ``t`` advances as shots are added."""

    def __init__(self, seed: int = 1, **header: Any) -> None:
        self.rng = random.Random(seed)
        self.header = {"trace": 1, "venue": "club", "table": "t1",
                       "recorded": "2026-12-02T19:00:00Z", **header}
        self.lines: list[dict[str, Any]] = []
        self.t = 1.0

    def request(self, name: str, payload: dict[str, Any] | None = None, dt: float = 1.0) -> TraceBuilder:
        self.t += dt
        self.lines.append({"t": round(self.t, 6), "request": name, "payload": payload or {}})
        return self

    def new_match(self, game: str = "ten-ball", players: tuple[str, ...] = ("Ann", "Bob"),
                  **kw: Any) -> TraceBuilder:
        return self.request("new_match", {"game": game, "players": list(players), **kw})

    def call(self, ball: int | str, pocket: str, **kw: Any) -> TraceBuilder:
        return self.request("call", {"calls": [{"ball": ball, "pocket": pocket}], **kw})

    def shot(self, drops: list[str] = (), cushions: list[str] = ("f",), cue_drop: str | None = None,
             returns: list[tuple[int | str, str]] = (), gap: float = 1.0,  # type: ignore[assignment]
             kick: list[str] = (), click: bool = False) -> TraceBuilder:  # type: ignore[assignment]
        """A shot: cushion hits and drops (pockets) over about a second, then quiet. ``kick``:
        cushions the cue ball touched before the first contact; ``click``: a click sensor hears
        that contact (between the kick and the rest)."""
        start = self.t + gap
        events = []
        at = start
        for rail in kick:
            at += self.rng.uniform(0.2, 0.5)
            events += cushion_hit(rail, at, self.rng, strength=self.rng.uniform(0.3, 0.9))
        if click:
            at += 0.2
            events.append(SensorEvent(round(at, 6), "click", 1))
        for rail in cushions:
            at += self.rng.uniform(0.2, 0.5)
            events += cushion_hit(rail, at, self.rng, strength=self.rng.uniform(0.3, 0.9))
        identities = dict((p, b) for b, p in returns)
        for pocket in drops:
            at += self.rng.uniform(0.2, 0.5)
            events += beam_block(pocket, at, self.rng, speed=self.rng.uniform(0.3, 4.5))
            if pocket in identities:
                events += ball_return(identities.pop(pocket), at, self.rng, pocket=pocket,
                                      identity_reader=True)
        if cue_drop:
            at += 0.3
            events += beam_block(cue_drop, at, self.rng)
            events += ball_return("cue", at, self.rng)
        for e in sorted(events, key=lambda e: e.t):
            self.lines.append(e.to_json())
        self.t = max([at] + [e.t for e in events]) + 4.0  # the balls roll, then the table rests
        return self

    def text(self) -> str:
        return "\n".join(json.dumps(x) for x in [self.header, *self.lines]) + "\n"
