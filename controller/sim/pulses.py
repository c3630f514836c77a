"""Sensor timing from the physics of a ball on a table, for simulation and tests.

Each function returns the sensor events one physical happening causes, timed at their
source, given a seeded ``random.Random``:

- a ball falling through a pocket blocks its beam for chord ÷ speed (9–230 ms at
  0.3–4.5 m/s), optionally with a glitch inside;
- a cushion hit is a train of pulses over tens of milliseconds (digital modules) or one
  ``level`` peak (analogue boards), and shakes the other half of a long rail slightly later
  and weaker (crosstalk);
- the ball return reports the cue ball (``cue``) and identities (``ball_id``) 0.5–2 s after
  the drop.
"""

from __future__ import annotations

import random

from hardware.events import SensorEvent
from vocabulary import SAME_RAIL, Pocket, Rail, beam, cushion

BALL_DIAMETER_M = 0.057
MIN_SPEED, MAX_SPEED = 0.3, 4.5


def beam_block(pocket: Pocket | str, t: float, rng: random.Random, speed: float | None = None,
               glitch: bool = False) -> list[SensorEvent]:
    """Returns the edges of one ball crossing a pocket beam, starting at ``t``."""
    speed = speed if speed is not None else rng.uniform(0.5, 3.0)
    chord = BALL_DIAMETER_M * rng.uniform(0.55, 0.95)
    duration = max(0.009, min(0.230, chord / speed))
    ch = beam(Pocket(pocket))
    events = [SensorEvent(t, ch, 1)]
    if glitch:  # the receiver drops out for a millisecond or two inside the block
        g = t + duration * rng.uniform(0.3, 0.7)
        events += [SensorEvent(g, ch, 0), SensorEvent(g + rng.uniform(0.0005, 0.0018), ch, 1)]
    events.append(SensorEvent(t + duration, ch, 0))
    return events


def beam_glitch(pocket: Pocket | str, t: float, rng: random.Random) -> list[SensorEvent]:
    """Returns a spurious block of a millisecond or two (noise, no ball)."""
    ch = beam(Pocket(pocket))
    return [SensorEvent(t, ch, 1), SensorEvent(t + rng.uniform(0.0003, 0.0018), ch, 0)]


def cushion_hit(rail: Rail | str, t: float, rng: random.Random, strength: float = 0.6,
                crosstalk: bool = True, analogue: bool = False) -> list[SensorEvent]:
    """Returns the events of one ball hitting a cushion at ``t`` with ``strength`` 0–1."""
    rail = Rail(rail)
    events = _pulses(rail, t, rng, strength, analogue)
    twin = SAME_RAIL.get(rail)
    if crosstalk and twin is not None and strength > 0.4:
        delay = rng.uniform(0.002, 0.012)
        events += _pulses(twin, t + delay, rng, strength * rng.uniform(0.25, 0.5), analogue)
    return sorted(events, key=lambda e: e.t)


def _pulses(rail: Rail, t: float, rng: random.Random, strength: float,
            analogue: bool) -> list[SensorEvent]:
    ch = cushion(rail)
    if analogue:
        peak = round(min(1.0, max(0.05, strength * rng.uniform(0.8, 1.2))), 3)
        return [SensorEvent(t, ch, 1, level=peak), SensorEvent(t + 0.004, ch, 0)]
    events: list[SensorEvent] = []
    n = max(1, int(2 + strength * 8 * rng.uniform(0.7, 1.3)))
    at = t
    for _ in range(n):
        on = rng.uniform(0.002, 0.008) * (0.5 + strength)
        events += [SensorEvent(at, ch, 1), SensorEvent(at + on, ch, 0)]
        at += on + rng.uniform(0.002, 0.012)
    return events


def ball_return(ball: int | str, t_drop: float, rng: random.Random, pocket: Pocket | str | None = None,
                cue_detector: bool = True, identity_reader: bool = False) -> list[SensorEvent]:
    """Returns what the ball-return sensors report for a ball that fell at ``t_drop``."""
    t = t_drop + rng.uniform(0.5, 2.0)
    if ball == "cue":
        return [SensorEvent(t, "cue", 1), SensorEvent(t + 0.05, "cue", 0)] if cue_detector else []
    if identity_reader:
        return [SensorEvent(t, "ball_id", 1, ball=ball, pocket=str(pocket) if pocket else None)]
    return []
