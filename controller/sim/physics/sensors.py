"""The sensor events a shot's physical events cause, timed by ``controller.sim.pulses``.

- a ball into a pocket blocks that pocket's beam for chord ÷ its speed there; the ball
  return reports it (the cue ball to the cue-ball detector, an object ball to an identity
  reader where the table has one) 0.5–2 s later;
- a ball on a cushion (a jaw too: a rattle shakes the rail and crosses no beam) is a pulse
  train on that rail segment, stronger the faster it came in, shaking the other half of a
  long rail; a touch slower than ``FELT_MPS`` is not felt at all;
- a ball–ball contact faster than ``CLICK_MPS`` is a ``click`` where the table has a click
  sensor.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from controller.sim.physics.truth import CUE, Happening
from controller.sim.pulses import ball_return, beam_block, cushion_hit
from hardware.events import SensorEvent

#: A cushion touch slower than this (normal to the cushion, m/s) shakes no sensor.
FELT_MPS = 0.15
#: The normal speed (m/s) that makes the strongest pulse train.
HARD_MPS = 2.5
#: A ball–ball contact slower than this (relative, m/s) makes no click.
CLICK_MPS = 0.25


@dataclass(frozen=True, slots=True)
class Sensors:
    """Which optional sensors the table has."""

    cue_detector: bool = True
    identity_reader: bool = False
    click: bool = False

    def fusion(self) -> dict[str, bool]:
        """Returns the trace header's ``fusion`` settings for these sensors."""
        return {"cue_detector": self.cue_detector, "identity_reader": self.identity_reader}


def felt(h: Happening) -> bool:
    """Returns whether a cushion sensor feels the cushion touch ``h``."""
    return h.kind == "cushion" and h.speed >= FELT_MPS


def sensor_events(happenings: list[Happening], start: float, sensors: Sensors,
                  rng: random.Random) -> list[SensorEvent]:
    """Returns the sensor events of a shot struck at ``start`` (trace time), in time order."""
    events: list[SensorEvent] = []
    for h in happenings:
        t = start + h.t
        if h.kind == "pocket" and h.pocket is not None:
            events += beam_block(h.pocket, t, rng, speed=max(0.3, h.speed))
            events += ball_return(h.a if h.a == CUE else int(h.a), t, rng, pocket=h.pocket,
                                  cue_detector=sensors.cue_detector,
                                  identity_reader=sensors.identity_reader)
        elif felt(h) and h.rail is not None:
            events += cushion_hit(h.rail, t, rng, strength=min(1.0, h.speed / HARD_MPS))
        elif h.kind == "contact" and sensors.click and h.speed >= CLICK_MPS:
            events += [SensorEvent(t, "click", 1), SensorEvent(t + 0.002, "click", 0)]
    return merged(events)


def merged(events: list[SensorEvent]) -> list[SensorEvent]:
    """Returns ``events`` in time order, a channel's overlapping on-spells made one: two
    balls in one beam at once block it once, a click during a click is not heard again.
    ``events`` holds each spell as its on and off edge, in that order (``controller.sim.pulses``)."""
    spells: dict[str, list[list[float]]] = {}
    other: list[SensorEvent] = []
    opened: dict[str, float] = {}
    for e in events:
        if e.level is not None or e.ball is not None or e.ch == "ball_id":
            other.append(e)
        elif e.v:
            opened[e.ch] = e.t
        else:
            spells.setdefault(e.ch, []).append([opened.pop(e.ch), e.t])
    out = other
    for ch, found in spells.items():
        found.sort()
        joined = [found[0]]
        for on, off in found[1:]:
            if on <= joined[-1][1]:
                joined[-1][1] = max(joined[-1][1], off)
            else:
                joined.append([on, off])
        for on, off in joined:
            out += [SensorEvent(on, ch, 1), SensorEvent(off, ch, 0)]
    return sorted(out, key=lambda e: (e.t, e.v))
