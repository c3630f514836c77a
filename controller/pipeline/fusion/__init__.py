"""Sensor fusion: raw sensor edges and requests in, shot records out.

The parts, each small: ``beams`` and ``cushions`` (the filters: edges in, balls and hits
out), ``ballreturn`` (the ball return's reports matched to drops), ``fitted`` (the sensors to
trust), ``shots`` (the shot lifecycle: one state machine, its transitions in one table, and
the record the rules are given), ``rulings`` (when a shot is ruled again), ``health`` (what
sensor health's verdicts do), ``deadline`` (when the clock alone next has work), ``actions``
(what fusion tells the table). ``Fusion`` wires them, dispatching each edge on its channel's
``vocabulary.Kind``, and keeps the time.

Pure and clock-injected: time is only what the events say (their source time) and what
``advance(now)`` tells, so it runs the same live and in replay.

What real sensors do, and what is done about it:

- **Pocket beams.** A level that reverts within ``noise_s`` (glitches of a millisecond or
  two, in either direction) never happened. A block that lasts ``min_block_s`` is a ball;
  its drop is reported at once, timed at the block's start. Two balls close together give
  two blocks with a short gap; a gap longer than the noise is a second ball. A ball that
  rattles in the jaws never crosses a beam in the drop path, so it is no drop.
- **Cushions.** One hit is a train of pulses: pulses closer than ``cushion_gap_s`` are one
  burst, one hit, timed at its first edge; a sensor stuck on after a light tap ends its
  burst after ``cushion_max_on_s``. A hit on one half of a long rail also shakes the other
  half slightly later and weaker: of two bursts on the same rail starting within
  ``crosstalk_s``, only the stronger (analogue ``level`` peak, else time on) counts.
- **Identity.** The cue-ball detector and the identity reader sit in the ball return; their
  events are matched to the oldest drop (in the reported pocket, if any) that fell between
  ``identity_min_s`` and ``identity_max_s`` earlier. The cue-ball detector names no pocket:
  where the identity reader then names the ball of the drop it took, that ball takes the
  drop and the cue ball another drop of its window (the pockets' paths to the return can
  swap two balls' order). An event with no such drop is a drop the beams missed. A sensor
  that reports is fitted, configured or not: from its first event on, drops wait for it,
  and (the cue-ball detector) a drop it did not flag is an object ball.
- **Shot boundaries.** A shot opens with its call or with the first activity after rest.
  ``quiet_s`` after its last activity (and, where a ball-return sensor is fitted, not before
  it had time to report the last drop) it is ruled provisionally. Until the next shot opens
  (a call, a strike, activity after ``max_roll_s`` of quiet) late drops, hits and identities
  correct it. ``shot_end`` rules the open shot now and closes it; with no shot open (nothing
  reached a sensor) it rules an empty shot: no drops, no cushion hits, contact unknown unless
  declared.
- **Late drops.** A ball that falls after the provisional ruling rules the shot again; where
  a ball-return sensor is fitted, not before it reported that ball or had ``identity_max_s``
  to (a drop of the open shot waits as long), so no "which ball?" is asked and withdrawn.
- **Declared facts with no shot open** correct the last shot, as they would a shot still open;
  but when the next thing is a ``shot_end`` with no shot open, they were about that shot no
  sensor saw: the last shot is restored as it was and they go to the empty shot instead. With
  no shot yet (a game's first), they wait for the next shot.
- **Sensors out of order.** Sensor health (``hardware.health``, the one judge of a channel)
  tells fusion each channel's state (``set_health``): stuck, silent, chattering or its board
  gone. A beam out of order counts no drops, and its pocket is named in the record, so the
  referee is asked; the drop of a block still in progress (stuck) and, after chatter, the
  drops of the last ``RETRACT_S``, are taken back, while what a beam reported before it fell
  silent or its board went away stands; a cushion sensor out of order counts no hits, and a
  shot that shows fewer than two cushions then has its cushions unknown (the rules ask or
  presume).
- **Sensors absent.** A channel the table has no sensor for (``absent``: a hand-played table's
  cushions, a pocket with no beam) is never read as "nothing happened": an absent beam's
  pocket is named blind for good (the referee is asked), an absent cushion sensor's rail deaf
  for good, and with no cushion sensor at all the cushions are unknown (the rules ask or
  presume, as each game documents).
- **Cushions after the first contact.** With a ``click`` sensor, only hits after the first
  click count (those before it are reported apart); without one, all hits of the shot are
  presumed to be after the first contact (option ``cushions_without_click = "all"``: the
  record says so, and the rules note it where a ruling rests on it) or the fact is left
  unknown (``"unknown"``). A referee corrects it by declaring ``cushions_after_contact``
  (how many different cushions were touched after the contact) or the foul itself.
- **No click heard.** Where the table has a click sensor (``click_sensor``, not declared
  absent), sensor health finds it in order and it has heard a click since the start (one dead
  from the start proves nothing), a shot in which it heard nothing is recorded
  ``contact_unheard``: evidence that the cue ball touched no ball, which the rules take (and
  note) where nobody declared ``first_contact``. Out of order or absent, its silence is no
  evidence.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from controller.pipeline.declared import Declared
from controller.pipeline.fusion.actions import Action, AmendShot, DropSeen, RuleShot
from controller.pipeline.fusion.ballreturn import BallReturn
from controller.pipeline.fusion.beams import Beams
from controller.pipeline.fusion.cushions import Burst, Cushions
from controller.pipeline.fusion.deadline import Deadline
from controller.pipeline.fusion.fitted import Fitted
from controller.pipeline.fusion.health import OutOfOrder
from controller.pipeline.fusion.rulings import Rulings
from controller.pipeline.fusion.shots import Drop, Shot, ShotTracker
from hardware.events import SensorEvent
from hardware.health import Health
from rules import CUE, Call, Pocket, Rail, ShotKind
from vocabulary import ChannelError, Kind, parse_channel

__all__ = ["RETRACT_S", "Action", "AmendShot", "DropSeen", "Fusion", "FusionConfig", "RuleShot",
           "fusion_config"]

#: Sensor health needs up to this long to find a beam chattering (1 s, then the event on its
#: way): the drops a beam counted this long before it was found chattering are taken back,
#: and the referee is asked about its pocket instead.
RETRACT_S = 3.0


@dataclass(frozen=True, slots=True)
class FusionConfig:
    """Timing of the physics and what is fitted; every value in seconds."""

    noise_s: float = 0.0025
    min_block_s: float = 0.005
    cushion_gap_s: float = 0.060
    cushion_max_on_s: float = 0.400
    crosstalk_s: float = 0.025
    quiet_s: float = 2.5
    max_roll_s: float = 8.0
    identity_min_s: float = 0.3
    identity_max_s: float = 2.5
    cue_detector: bool = False
    identity_reader: bool = False
    cushion_sensors: bool = True
    cushions_without_click: str = "all"
    #: The table has a click sensor (channel ``click``): while it is in order, a shot it heard
    #: no click in is recorded ``contact_unheard`` (evidence that the cue ball touched no ball).
    click_sensor: bool = False
    #: Channels the table has no sensor for (``beam.fl``, ``cushion.lh``, ...): what they would
    #: have told is unknown, never a sensed nothing. An absent beam's pocket is asked about as
    #: an out-of-order one is; with every cushion sensor absent, cushions are unknown.
    absent: tuple[str, ...] = ()


def fusion_config(raw: dict[str, Any]) -> FusionConfig:
    """Returns the configuration named in ``raw`` (a trace header's ``fusion``, a config file).

    Raises ValueError naming an unknown key or a value of the wrong type.
    """
    fields = {f.name: f for f in dataclasses.fields(FusionConfig)}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in fields:
            raise ValueError(f"unknown fusion setting {key!r} (known: {', '.join(fields)})")
        default = fields[key].default
        if isinstance(default, bool) and not isinstance(value, bool) or isinstance(
                default, float) and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise ValueError(f"fusion setting {key!r} must be {type(default).__name__}, not {value!r}")
        if key == "cushions_without_click" and value not in ("all", "unknown"):
            raise ValueError("fusion setting 'cushions_without_click' must be 'all' or 'unknown'")
        if key == "absent":
            values[key] = _channels(value)
            continue
        values[key] = float(value) if isinstance(default, float) else value
    return FusionConfig(**values)


def _channels(value: Any) -> tuple[str, ...]:
    """Returns the channel names of ``absent``; raises ValueError naming one not defined."""
    if not isinstance(value, list | tuple) or not all(isinstance(ch, str) for ch in value):
        raise ValueError(f"fusion setting 'absent' must be a list of channel names, not {value!r}")
    for ch in value:
        try:
            parse_channel(ch)
        except ChannelError as exc:
            raise ValueError(f"fusion setting 'absent': {exc}") from None
    return tuple(dict.fromkeys(value))


class Fusion:
    """Turns sensor events and requests into shot records. See the module docstring.

    The parts: ``beams`` and ``cushions`` filter the sensors' edges into balls and hits,
    ``ball_return`` matches the ball return's reports to drops, ``shots`` says which shot
    each belongs to (the shot lifecycle, ``controller.pipeline.fusion.shots``), ``fitted``
    which sensors to trust, ``out_of_order`` what sensor health's verdicts do to them
    (``controller.pipeline.fusion.health``) and ``rulings`` when a shot is ruled again
    (``controller.pipeline.fusion.rulings``); ``deadline`` says when the clock alone next has
    work for them (``controller.pipeline.fusion.deadline``). Fusion wires them and keeps the
    time, ``now``.
    """

    def __init__(self, config: FusionConfig | None = None) -> None:
        self.config = cfg = config or FusionConfig()
        self.beams = Beams(cfg.noise_s, cfg.min_block_s)
        self.cushions = Cushions(cfg.cushion_gap_s, cfg.cushion_max_on_s, cfg.crosstalk_s)
        self.ball_return = BallReturn(cfg.identity_min_s, cfg.identity_max_s, cue_detector=cfg.cue_detector,
                                      identity_reader=cfg.identity_reader)
        self.shots = ShotTracker(cfg.max_roll_s)
        #: The beams and cushion sensors to trust (``blind``, ``deaf``: those not to).
        self.fitted = Fitted(cfg.absent, cfg.cushion_sensors, cfg.click_sensor)
        self.rulings = Rulings(self.shots, self.ball_return, self.fitted, cfg.cushions_without_click)
        #: Sensor health's verdicts applied: what is muted, which drops are taken back.
        self.out_of_order = OutOfOrder(self.fitted, self.beams, self.cushions, self.shots, RETRACT_S)
        #: When the clock alone next has work for the parts.
        self.deadline = Deadline(self.beams, self.cushions, self.shots, self.ball_return,
                                 self.rulings, cfg.quiet_s)
        self.now = 0.0

    # -------------------------------------------------------------- reading
    @property
    def open_shot(self) -> bool:
        """Returns True while a shot is open and not yet ruled."""
        return self.shots.cur is not None

    @property
    def next_deadline(self) -> float:
        """Returns the time at which ``advance`` next has work (inf: none until more input)."""
        return self.deadline.at

    @property
    def crosstalk(self) -> int:
        """Returns how many cushion bursts were crosstalk, not hits."""
        return self.cushions.crosstalk

    # -------------------------------------------------------------- inputs
    def sensor(self, ev: SensorEvent) -> list[Action]:
        """Takes one sensor event (in source-time order) and returns what it caused."""
        t = ev.t
        out = self.advance(t) if t >= self.deadline.at else []
        self.now = max(self.now, t)
        try:
            kind, part = parse_channel(ev.ch)
        except ChannelError:  # a channel fusion has no use for
            kind, part = None, None
        self._sensed(kind, part, ev, out)
        self.deadline.active(self.now)
        return out

    def _sensed(self, kind: Kind | None, part: Pocket | Rail | None, ev: SensorEvent,
                out: list[Action]) -> None:
        """What one edge of a ``kind`` channel (of ``part``: its pocket or rail) does."""
        t = ev.t
        if kind is Kind.BEAM and isinstance(part, Pocket):
            if part not in self.fitted.blind:  # an out-of-order beam: its edges count for nothing
                for start in self.beams.edge(part, t, ev.v):
                    self._beam_drop(part, start, out)
                self.deadline.soon(self.beams.due(part))
        elif kind is Kind.CUSHION and isinstance(part, Rail):
            if part not in self.fitted.deaf:  # a cushion sensor out of order: it counts for nothing
                if self.cushions.edge(part, t, ev.v, ev.level):
                    self._at(t).touch(t)
                self.deadline.soon(self.cushions.due(part))
        elif kind is Kind.CUE:
            self.ball_return.cue_detector = True  # a detector that reports is fitted
            if ev.v:
                self._returned(t, CUE, None, out)
        elif kind is Kind.BALL_ID:
            self.ball_return.identity_reader = True
            if ev.ball is not None:
                self._returned(t, ev.ball, Pocket(ev.pocket) if ev.pocket else None, out)
        elif kind is Kind.STRIKE:
            if ev.v:
                self._close_for_next(t, out)
                self.shots.open(t).active = True
        elif kind is Kind.CLICK and ev.v:
            self.fitted.click_heard = True
            shot = self._at(t)
            shot.clicked(t)
            self._changed(shot, t, out)  # a late first click moves hits before the contact

    def call(self, t: float, calls: tuple[Call, ...], kind: ShotKind, manner: str | None,
             amend: bool = False) -> list[Action]:
        """The shooter's call: closes the open shot (or, with ``amend``, replaces its call
        while nothing has happened yet) and opens the next one."""
        out = self.advance(t)
        cur = self.shots.cur
        if not (amend and cur is not None and not cur.active):
            self._close_for_next(t, out)
            cur = self.shots.open(t)
        cur.called(calls, kind, manner)
        self.deadline.reschedule(self.now)
        return out

    def declare(self, t: float, facts: Declared, shot: str | None = None) -> list[Action]:
        """Facts the sensors cannot see. ``shot`` says which shot they are about, when the
        declarer said: ``"next"``: the open shot, or with none open the shot to come (one no
        sensor has seen yet: the next to open, or the empty one a ``shot_end`` rules);
        ``"last"``: the just-closed shot, with no shot open (a correction, which a
        ``shot_end`` does not move). Unnamed: the open shot, or else the last ruled one,
        held (a ``shot_end`` with no shot open next moves them to the shot no sensor saw);
        before the first shot, the shot to come.

        Raises ValueError for ``"last"`` while a shot is open (the last one is final)."""
        out = self.advance(t)
        target = self.shots.declare(t, facts, shot)
        if target is None:  # the shot to come: applied as it opens
            return out
        if target is self.shots.last:
            out.append(self.rulings.amend(t, target))
        self.deadline.reschedule(self.now)
        return out

    def shot_end(self, t: float) -> list[Action]:
        """Rules the open shot now; what comes after belongs to the next shot. With no shot
        open, rules an empty shot (nothing reached a sensor) with the facts declared since."""
        out = self.advance(t)
        self.rulings.flush(t, out)
        if self.shots.cur is None:
            moved, restored = self.shots.unheld()
            if restored is not None:  # the last shot as it was
                out.append(self.rulings.amend(t, restored))
            cur = self.shots.open(t)  # (facts declared for the shot to come: applied here)
            for facts in moved:
                cur.apply(t, facts)
        out.append(self.rulings.rule(t))
        self.shots.close(t)
        self.deadline.reschedule(self.now)
        return out

    def set_health(self, channel: str, state: Health, t: float | None = None) -> list[Action]:
        """Tells fusion a channel's health, as sensor health judged it (``OutOfOrder.judged``:
        a sensor out of order counts nothing, a beam's made-up drops are taken back); returns
        the corrections of the shots they went to."""
        out: list[Action] = []
        now = self.now if t is None else t
        timers, changed = self.out_of_order.judged(channel, state, now)
        for shot in changed:
            self._changed(shot, now, out)
        if timers:
            self.deadline.reschedule(self.now)
        return out

    def forget(self) -> None:
        """Drops every shot in progress (after an undo, a new match, the end of a match)."""
        self.shots.forget()
        self.rulings.forget()
        self.deadline.reschedule(self.now)

    def advance(self, now: float) -> list[Action]:
        """Runs the clock to ``now``: confirms edges, closes bursts, rules quiet shots."""
        out: list[Action] = []
        if now < self.deadline.at:
            self.now = max(self.now, now)
            return out
        for pocket, start in self.beams.advance(now):
            self._beam_drop(pocket, start, out)
        for burst in self.cushions.advance(now):
            self._hit(burst, out)
        cur = self.shots.cur
        if cur is not None and cur.active and self.deadline.due(cur) <= now:
            out.append(self.rulings.rule(self.deadline.due(cur)))
        if self.rulings.due <= now:  # the ball return said nothing in time
            self.rulings.flush(self.rulings.due, out)
        self.now = max(self.now, now)
        self.deadline.reschedule(self.now)
        return out

    # -------------------------------------------------------------- shots
    def _at(self, t: float) -> Shot:
        """Returns the shot that activity at ``t`` belongs to, opening one after rest."""
        return self.shots.shot_at(t) or self.shots.open(t)

    def _close_for_next(self, t: float, out: list[Action]) -> None:
        """The next shot is about to open: rule the open one, and the last one is final
        (ruled again first if it still waited for the ball return)."""
        self.rulings.flush(t, out)
        if self.shots.cur is not None:
            out.append(self.rulings.rule(t))
        self.shots.close(t)

    def _changed(self, shot: Shot, t: float, out: list[Action]) -> None:
        """``shot`` changed at ``t``: ruled again if it is the last ruled shot
        (``Rulings.changed``), the clock woken when it waits for the ball return."""
        self.deadline.soon(self.rulings.changed(shot, t, out))

    def _beam_drop(self, pocket: Pocket, t: float, out: list[Action]) -> None:
        self.out_of_order.counted_drop(pocket, *self._drop(t, pocket, None, out))

    def _drop(self, t: float, pocket: Pocket | None, ball: int | str | None,
              out: list[Action]) -> tuple[Shot, Drop]:
        """A ball fell at ``t`` (a beam saw it, or only the ball return did: ``ball``)."""
        shot = self._at(t)
        drop = shot.dropped(t, pocket, ball)
        out.append(DropSeen(t, pocket, ball, late=shot is self.shots.last))
        self._changed(shot, t, out)
        return shot, drop

    def _returned(self, t: float, ball: int | str, pocket: Pocket | None, out: list[Action]) -> None:
        """A ball passed the ball return: match it to the drop it came from."""
        self.deadline.matched()
        shot = self.ball_return.match(t, ball, pocket, (self.shots.last, self.shots.cur))
        if shot is not None:
            self._changed(shot, t, out)
        else:  # no drop to match: the beams missed one
            self._drop(t, pocket, ball, out)

    def _hit(self, burst: Burst, out: list[Action]) -> None:
        t = burst.start
        shot = self._at(t)
        shot.hit(t, burst.rail)
        self._changed(shot, t, out)
