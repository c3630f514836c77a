"""A simulated table: plausible play of each game, as the sensors and a referee would report it.

``simulate_lines(game, shots, seed)`` plays a match and returns its trace (interfaces §2):
the calls and declares a referee console would send, and the sensor events the shots cause,
timed by the physics of ``controller.sim.pulses`` (beam blocks of chord ÷ speed, cushion pulse
trains with crosstalk along the long rails, the ball return 0.5–2 s after a drop). The
simulator knows the truth of every shot, so it answers the questions the referee core asks
as a referee would. It runs the real pipeline (a ``Table``) as it goes, so its calls fit the
state, and every trace it writes replays to the same match.

With ``noise``: beam glitches, balls rattling in the jaws (a cushion shake and no drop), two
balls into one pocket a few tens of milliseconds apart, cue strikes, an identity reader on
some tables, and now and then a pocket beam that goes stuck for the rest of the match (the
trace then records the health change, and the referee is asked about that pocket). Seeded and deterministic.
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass, field
from typing import Any

from controller.pipeline.fusion import FusionConfig, fusion_config
from controller.pipeline.table import Table, feed
from controller.pipeline.trace import HealthLine, RequestLine
from controller.sim.pulses import ball_return, beam_block, beam_glitch, cushion_hit
from controller.sim.referee import answer_all
from controller.words import catalogue
from hardware.events import SensorEvent
from hardware.health import Health
from rules import CUE, Call, Foul, Pocket, ShotKind, Status, Topic
from rules.games import Declarable, Target, spec_of
from vocabulary import POCKETS, RAILS, beam


def player_names(language: str) -> tuple[str, ...]:
    """Returns the simulated players' names in ``language`` (the catalogue's ``sim.players``,
    names split by ``|``: a Russian demo plays Russian names), English's for a language
    without a catalogue."""
    code = language if language in catalogue.languages() else "en"
    return tuple(catalogue.words(code).pages["sim.players"].split("|"))


#: The players' names of a simulated match unless it is given others.
NAMES = player_names("en")
#: Fouls the simulated referee declares now and then.
DECLARABLE = (Foul.TOUCHED_BALL, Foul.DOUBLE_HIT, Foul.PUSH, Foul.MOVING_BALLS, Foul.FEET_OFF_FLOOR)


@dataclass
class _Truth:
    """What really happened on one shot."""

    drops: list[tuple[int | str, str]] = field(default_factory=list)  # (ball, pocket) in order
    cushions: list[str] = field(default_factory=list)
    declare: dict[str, Any] = field(default_factory=dict)
    silent: bool = False


class Simulator:
    """Plays one match; ``lines`` is its trace so far."""

    def __init__(self, game: str, seed: int, noise: bool = False, players: int = 2,
                 race_to: int = 1, names: tuple[str, ...] = NAMES) -> None:
        self.rng = random.Random(seed)
        self.names = names
        self.game = game
        self.spec = spec_of(game)
        self.noise = noise
        self.players = players
        self.race_to = race_to
        sensors: dict[str, Any] = {"cue_detector": True,
                                   "identity_reader": noise and self.rng.random() < 0.5}
        self.config: FusionConfig = fusion_config(sensors)
        self.lines: list[dict[str, Any]] = [{"trace": 1, "venue": "sim", "table": "t1",
                                             "recorded": "2026-12-02T19:00:00Z",
                                             "simulated": {"game": game, "seed": seed,
                                                           "noise": noise},
                                             "fusion": sensors}]
        self.table = Table(fusion=self.config)
        self.table.start(0.0)
        self.t = 0.0
        self._last_activity = -1e9
        self._stuck: Pocket | None = None
        self._stuck_at: float | None = None
        self._last = _Truth()
        self._named: set[int | str] = set()

    # -------------------------------------------------------------- emitting
    def _emit_sensor(self, ev: SensorEvent) -> None:
        self.lines.append(ev.to_json())
        self.table.sensor(SensorEvent(round(ev.t, 6), ev.ch, ev.v, ev.level, ev.ball, ev.pocket))

    def _health(self, t: float, stuck: Pocket) -> None:
        self._stuck_at = t
        line = HealthLine(round(t, 6), beam(stuck), Health.STUCK)
        self.lines.append(line.to_json())
        feed(self.table, line)

    def _request(self, name: str, payload: dict[str, Any], dt: float = 0.5) -> dict[str, Any]:
        self.t += dt
        line = {"t": round(self.t, 6), "request": name, "payload": payload}
        self.lines.append(line)
        self.table.advance(self.t)
        return self.table.request(name, payload, round(self.t, 6)).response

    def _settle(self, quiet: float) -> None:
        self.t += quiet
        self.table.advance(self.t)

    # -------------------------------------------------------------- play
    def play(self, shots: int) -> list[dict[str, Any]]:
        """Plays up to ``shots`` shots or to the end of the match; returns the trace lines."""
        options: dict[str, Any] = {}
        self._request("new_match", {"game": self.game, "players": list(self.names[: self.players]),
                                    "race_to": self.race_to, "options": options}, dt=1.0)
        for _ in range(shots):
            self._answer_all()
            state = self.table.referee.state
            if state.status is Status.MATCH_OVER:
                break
            self._shot()
        self._answer_all()
        return self.lines

    def _answer_all(self) -> None:
        answer_all(self.table, self._truthful, self._request)

    def _truthful(self, q: Any) -> Any:
        rng = self.rng
        if q.kind == "identify":
            pocket = q.params.get("pocket")
            fell = [b for b, p in self._last.drops if p == pocket and b in q.choices]
            picked = [b for b in fell if b not in self._named][: q.count]
            spare = [c for c in q.choices if c not in picked]
            while len(picked) < q.count and spare:  # the referee cannot tell: any ball that fits
                picked.append(spare.pop(rng.randrange(len(spare))))
            self._named.update(picked)
            return picked if q.count > 1 else picked[0]
        if q.kind == "confirm":
            if q.topic is Topic.BALL_FELL:  # a blind pocket: the referee saw whether one fell
                return any(p == q.params["pocket"] for _, p in self._last.drops)
            if q.topic is Topic.CUE_BALL:  # the referee saw whether the cue ball fell there
                return any(b == CUE and p == q.params["pocket"] for b, p in self._last.drops)
            return rng.random() < 0.75
        return rng.choice(list(q.choices))

    def _shot(self) -> None:
        rng = self.rng
        state = self.table.referee.state
        on_table = list(state.on_table)
        status = state.status
        if status is Status.GAME_OVER:  # the next game's break: the rack is full again
            on_table = list(self.table.referee.game.balls) if self.table.referee.game else []
            status = Status.BREAK
        truth = _Truth()
        call: dict[str, Any] | None = None
        if status is Status.BREAK:
            truth.cushions = [rng.choice(RAILS) for _ in range(rng.randint(3, 6))]
            for ball in rng.sample(on_table, k=min(len(on_table), rng.choice([0, 0, 1, 1, 2, 3]))):
                truth.drops.append((ball, rng.choice(POCKETS)))
            # a break judged by the balls driven to a cushion, which no sensor counts
            if self.spec.declares(Declarable.BALLS_TO_CUSHION) and rng.random() < 0.08:
                truth.declare["fouls"] = ["bad_break"]
                truth.drops.clear()
        elif status is Status.SHOOTOUT:
            call, truth = self._bullet()
        else:
            call, truth = self._normal(on_table, state.players)
        self._play(call, truth)

    def _normal(self, on_table: list[int], players: Any) -> tuple[dict[str, Any] | None, _Truth]:
        rng = self.rng
        truth = _Truth()
        target = min(on_table) if self.spec.target is Target.LOWEST else rng.choice(on_table)
        pocket = rng.choice(POCKETS)
        calls: list[dict[str, Any]] = [{"ball": target, "pocket": pocket}]
        kind = "normal"
        if self.spec.declares(Declarable.CUE_BALL_CALL) and rng.random() < 0.06:
            calls = [{"ball": "cue", "pocket": pocket}]  # свояк
        elif self.spec.max_calls > 1 and len(on_table) > 1 and rng.random() < 0.08:
            other = rng.choice([b for b in on_table if b != target])
            calls.append({"ball": other, "pocket": rng.choice(POCKETS)})
        elif ShotKind.PUSH_OUT in self.spec.shot_kinds:
            r = rng.random()
            kind = "push_out" if r < 0.05 else "safety" if r < 0.1 else "normal"
        call: dict[str, Any] = {"calls": calls, "kind": kind}
        try:
            self.table.referee.check_call(
                tuple(Call(c["ball"], Pocket(c["pocket"])) for c in calls), ShotKind(kind))
        except ValueError:
            call = {"calls": [{"ball": target, "pocket": pocket}], "kind": "normal"}
            calls = call["calls"]
        truth.cushions = [rng.choice(RAILS) for _ in range(rng.randint(0, 4))]
        r = rng.random()
        others = [b for b in on_table if b != target]
        if r < 0.5:  # the called ball falls as called (the cue ball, for a свояк)
            for c in calls[:1]:
                truth.drops.append((c["ball"], c["pocket"]))
            if others and rng.random() < 0.12:
                truth.drops.append((rng.choice(others), rng.choice(POCKETS)))
            if not truth.cushions and rng.random() < 0.5:
                truth.cushions = [rng.choice(RAILS)]
        elif r < 0.72:  # a miss that reaches the cushions
            truth.cushions = truth.cushions or [rng.choice(RAILS), rng.choice(RAILS)]
        elif r < 0.8 and others:  # another ball falls, or the called one in another pocket
            ball = rng.choice([target, *others])
            truth.drops.append((ball, rng.choice([p for p in POCKETS if p != pocket])))
        elif r < 0.86:  # scratch
            truth.drops.append((CUE, rng.choice(POCKETS)))
        elif r < 0.9:
            truth.declare["fouls"] = [rng.choice(DECLARABLE)]
        elif r < 0.93:
            truth.declare["off_table"] = [rng.choice(on_table)]
        elif r < 0.95:
            truth.declare["off_table"] = ["cue"]
        elif r < 0.97:
            truth.declare["first_contact"] = None  # the cue ball touched nothing
            truth.cushions = truth.cushions or [rng.choice(RAILS)]
        elif r < 0.985 and self.spec.declares(Declarable.CENTRE_LINE):
            truth.declare["centre_line"] = rng.random() < 0.5
            truth.cushions = truth.cushions[:1]
        else:
            truth.silent = True  # a soft touch: nothing reaches a sensor
            truth.cushions = []
        return call, truth

    def _bullet(self) -> tuple[dict[str, Any] | None, _Truth]:
        rng = self.rng
        truth = _Truth()
        so = self.table.referee.snapshot().get("shootout") or {}
        call: dict[str, Any] | None = None
        if so.get("igra_allowed") is not None and rng.random() < 0.4:
            call = {"calls": [], "kind": "igra"}
        r = rng.random()
        truth.cushions = [rng.choice(RAILS) for _ in range(rng.randint(1, 3))]
        if r < 0.35:
            truth.drops.append((1, rng.choice(POCKETS)))
        elif r < 0.45:
            truth.drops += [(1, rng.choice(POCKETS)), (CUE, rng.choice(POCKETS))]
        elif r < 0.55:
            truth.drops.append((CUE, rng.choice(POCKETS)))
        elif r < 0.65:
            truth.declare["first_contact"] = None
        return call, truth

    def _play(self, call: dict[str, Any] | None, truth: _Truth) -> None:
        rng = self.rng
        self._last, self._named = truth, set()
        if call is not None:
            self._request("call", call, dt=1.0)
        start = self.t + rng.uniform(1.0, 2.0)
        if call is None:  # no call closes the last shot: play after the longest roll
            start = max(start, self._last_activity + self.config.max_roll_s + rng.uniform(1, 5))
        events: list[SensorEvent] = []
        if self.noise and rng.random() < 0.5:
            events.append(SensorEvent(start - 0.3, "strike", 1))
        at = start
        for rail in truth.cushions:
            at += rng.uniform(0.15, 0.6)
            events += cushion_hit(rail, at, rng, strength=rng.uniform(0.2, 1.0))
        previous_pocket, previous_end = None, 0.0
        for ball, pocket in truth.drops:
            if self.noise and pocket == previous_pocket and rng.random() < 0.5:
                at = previous_end + rng.uniform(0.004, 0.04)  # two balls into one pocket
            else:
                at += rng.uniform(0.15, 0.6)
            block = beam_block(pocket, at, rng, speed=rng.uniform(0.3, 4.5),
                               glitch=self.noise and rng.random() < 0.2)
            events += block
            previous_pocket, previous_end = pocket, block[-1].t
            events += ball_return(ball, at, rng, pocket=pocket, cue_detector=True,
                                  identity_reader=self.config.identity_reader)
            at = max(at, previous_end)
        health_at: float | None = None
        stuck: Pocket | None = None
        if self.noise and self._stuck is None and rng.random() < 0.01:
            # a pocket beam goes stuck (a dirty lens) during the shot; sensor health notices
            # two seconds later and the service records it, as it would live
            stuck = self._stuck = rng.choice([p for p in POCKETS if p not in {q for _, q in truth.drops}])
            events.append(SensorEvent(start + 0.1, beam(stuck), 1))
            health_at = start + 2.2
        if self._stuck is not None:  # the stuck beam reports nothing more
            events = [e for e in events if e.ch != beam(self._stuck) or e.t == start + 0.1]
        if self.noise:
            for _ in range(rng.randint(0, 2)):
                events += beam_glitch(rng.choice(POCKETS), start + rng.uniform(0, 1.5), rng)
            if rng.random() < 0.15:  # a ball rattles in the jaws and stays out
                events += cushion_hit(rng.choice(RAILS), at + 0.2, rng, strength=0.3)
        for ev in sorted(events, key=lambda e: e.t):
            if health_at is not None and stuck is not None and ev.t > health_at:
                self._health(health_at, stuck)
                health_at = None
            self._emit_sensor(ev)
        if health_at is not None and stuck is not None:
            self._health(health_at, stuck)
        if self._stuck_at is not None:
            self.t = max(self.t, self._stuck_at)
        self.t = max([self.t, start, *(e.t for e in events)])
        if events:
            self._last_activity = self.t
        if truth.declare:
            self._request("declare", truth.declare, dt=0.5)
        if truth.silent or not events:
            self._request("shot_end", {}, dt=1.5)
        self._settle(self.config.quiet_s + self.config.identity_max_s + 0.5)


def simulate_lines(game: str, shots: int, seed: int, noise: bool = False, players: int = 2,
                   race_to: int = 1, names: tuple[str, ...] = NAMES) -> list[dict[str, Any]]:
    """Returns the trace of a simulated match (header first), played to its end or ``shots``."""
    return Simulator(game, seed, noise, players, race_to, names).play(shots)


def cli(args: Any) -> int:
    """The ``simulate`` command: the trace on standard output."""
    if args.shots < 1:
        sys.stderr.write("--shots must be 1 or more\n")
        return 2
    if getattr(args, "physics", False):
        return _physics(args.game, args.seed)
    for line in simulate_lines(args.game, args.shots, args.seed, args.noise, args.players):
        sys.stdout.write(json.dumps(line, separators=(",", ":")) + "\n")
    return 0


def _physics(game: str, seed: int) -> int:
    """``simulate --physics``: one rack played by pooltool, its trace on standard output."""
    from controller.sim.physics.__main__ import GAMES
    from controller.sim.physics.engine import Engine, PhysicsUnavailable
    from controller.sim.physics.sensors import Sensors

    size, rack = GAMES[game]
    try:
        engine = Engine(size)
    except PhysicsUnavailable as exc:
        sys.stderr.write(f"{exc}\n")
        return 2
    for line in rack(engine, seed, Sensors(identity_reader=True, click=True)).play().lines:
        sys.stdout.write(json.dumps(line, separators=(",", ":")) + "\n")
    return 0


__all__ = ["RequestLine", "Simulator", "simulate_lines"]
