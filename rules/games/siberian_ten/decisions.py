"""Siberian Ten's own decisions: the shoot-out's (ST-20, ST-21)."""

from __future__ import annotations

from dataclasses import dataclass

from rules.decisions import Decision


@dataclass(frozen=True, slots=True)
class ShootoutStarted(Decision):
    first: int


@dataclass(frozen=True, slots=True)
class BulletRetaken(Decision):
    player: int
    misses: int


@dataclass(frozen=True, slots=True)
class BulletScored(Decision):
    player: int
    points: int
    round: int


@dataclass(frozen=True, slots=True)
class RoundTied(Decision):
    round: int
    points: int


@dataclass(frozen=True, slots=True)
class IgraDeclared(Decision):
    player: int
