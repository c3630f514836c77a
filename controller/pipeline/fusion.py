"""Sensor fusion: raw sensor edges and requests in, shot records out.

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
- **Cushions after the first contact.** With a ``click`` sensor, only hits after the first
  click count (those before it are reported apart); without one, all hits of the shot are
  presumed to be after the first contact (option ``cushions_without_click = "all"``: the
  record says so, and the rules note it where a ruling rests on it) or the fact is left
  unknown (``"unknown"``). A referee corrects it by declaring ``cushions_after_contact``
  (how many different cushions were touched after the contact) or the foul itself.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from controller.pipeline.declared import Declared
from hardware.events import SensorEvent
from hardware.health import Health
from rules import (
    CUE,
    UNKNOWN,
    Call,
    Drop,
    Pocket,
    Rail,
    ShotKind,
    ShotRecord,
)
from vocabulary import POCKET_OF_BEAM, RAIL_OF_CUSHION, SAME_RAIL

INF = float("inf")
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
        values[key] = float(value) if isinstance(default, float) else value
    return FusionConfig(**values)


# ------------------------------------------------------------------ outputs
@dataclass(frozen=True, slots=True)
class DropSeen:
    """A ball fell (live, as the beam saw it); ``ball`` when already known."""

    t: float
    pocket: Pocket | None
    ball: int | str | None = None
    #: The drop belongs to the shot already ruled (a late ball), not to the one in play.
    late: bool = False


@dataclass(frozen=True, slots=True)
class RuleShot:
    """A shot to be ruled (the first time)."""

    t: float
    record: ShotRecord


@dataclass(frozen=True, slots=True)
class AmendShot:
    """The last ruled shot's facts changed: rule it again."""

    t: float
    record: ShotRecord


Action = DropSeen | RuleShot | AmendShot


# ------------------------------------------------------------------ internals
@dataclass(slots=True)
class _Drop:
    t: float
    pocket: Pocket | None
    ball: int | str | None = None
    matched: bool = False  # a ball-return event was matched to it
    declared: bool = False  # a referee said which ball it was
    guessed_at: float | None = None  # the time of the report naming no pocket that matched it


@dataclass(slots=True)
class _Shot:
    opened: float
    last_activity: float
    calls: tuple[Call, ...] = ()
    kind: ShotKind = ShotKind.NORMAL
    manner: str | None = None
    drops: list[_Drop] = field(default_factory=list)
    hits: list[tuple[float, Rail]] = field(default_factory=list)
    clicks: list[float] = field(default_factory=list)
    active: bool = False  # a sensor saw something
    declared: Declared = Declared()


@dataclass(slots=True)
class _Held:
    """Facts declared while no shot was open, not saying for which shot, and how to take
    them back from the last shot (its declared facts and its drops, each drop's pocket and
    ball, before them)."""

    facts: list[Declared] = field(default_factory=list)
    declared: Declared = Declared()
    drops: list[tuple[_Drop, Pocket | None, int | str | None, bool]] = field(default_factory=list)
    order: list[_Drop] = field(default_factory=list)


@dataclass(slots=True)
class _Beam:
    level: int = 0
    pend_t: float = INF
    pend_v: int = 0
    block_start: float = INF
    counted: bool = False
    #: The drops this beam counted lately, with their shots: taken back if the beam turns out
    #: to be out of order (stuck, chattering) rather than crossed by balls.
    recent: list[tuple[_Drop, _Shot]] = field(default_factory=list)


@dataclass(slots=True)
class _Burst:
    rail: Rail
    start: float
    last: float
    on_time: float = 0.0
    peak: float | None = None


@dataclass(slots=True)
class _Cushion:
    on: bool = False
    on_since: float = 0.0
    burst: _Burst | None = None


class Fusion:
    """Turns sensor events and requests into shot records. See the module docstring."""

    def __init__(self, config: FusionConfig | None = None) -> None:
        self.config = config or FusionConfig()
        self._beams = {p: _Beam() for p in Pocket}
        self._cushions = {r: _Cushion() for r in Rail}
        self._bursts: list[_Burst] = []  # closed, waiting for a crosstalk partner
        self._bursts_ready = False
        self._due_for: _Shot | None = None  # the shot whose due time is in _next
        #: What the ball return has: as configured, or as soon as such a sensor reports.
        self.cue_detector = self.config.cue_detector
        self.identity_reader = self.config.identity_reader
        #: Rail segments whose cushion sensor is out of order: their hits are not seen, so a
        #: shot that shows fewer than two cushions has its cushions unknown, not missing.
        self.deaf: set[Rail] = set()
        #: Pockets whose beam is out of order (sensor health): their drops are asked, not seen.
        self.blind: set[Pocket] = set()
        self._cur: _Shot | None = None  # open, not yet ruled
        self._last: _Shot | None = None  # the last ruled shot: declares and identities correct it
        self._late_ok = False  # late activity still belongs to the last shot
        self._closed_at = -INF  # activity before this belongs to the last shot
        #: Facts declared since a shot was last open (see the module docstring).
        self._held: _Held | None = None
        #: Facts declared for the shot to come, applied to it as it opens.
        self._coming: list[Declared] = []
        self._next = INF
        self.crosstalk = 0
        self.now = 0.0

    # -------------------------------------------------------------- reading
    @property
    def open_shot(self) -> bool:
        """Returns True while a shot is open and not yet ruled."""
        return self._cur is not None

    @property
    def next_deadline(self) -> float:
        """Returns the time at which ``advance`` next has work (inf: none until more input)."""
        return self._next

    # -------------------------------------------------------------- inputs
    def sensor(self, ev: SensorEvent) -> list[Action]:
        """Takes one sensor event (in source-time order) and returns what it caused."""
        t = ev.t
        out = self.advance(t) if t >= self._next else []
        if t > self.now:
            self.now = t
        ch = ev.ch
        pocket = POCKET_OF_BEAM.get(ch)
        if pocket is not None and pocket in self.blind:
            pocket = None  # an out-of-order beam: its edges count for nothing
            ch = ""
        if pocket is not None:
            self._beam(pocket, t, ev.v, out)
            self._soon(self._beam_due(self._beams[pocket]))
        else:
            rail = RAIL_OF_CUSHION.get(ch)
            if rail is not None and rail in self.deaf:
                pass  # a cushion sensor out of order: what it says counts for nothing
            elif rail is not None:
                self._cushion(rail, t, ev.v, ev.level)
                cushion = self._cushions[rail]
                if cushion.burst is not None:
                    self._soon(self._cushion_due(cushion))
            elif ch == "cue":
                self.cue_detector = True  # a detector that reports is fitted
                if ev.v:
                    self._returned(t, CUE, None, out)
            elif ch == "ball_id":
                self.identity_reader = True
                if ev.ball is not None:
                    self._returned(t, ev.ball, Pocket(ev.pocket) if ev.pocket else None, out)
            elif ch == "strike":
                if ev.v:
                    self._close_for_next(t, out)
                    self._open(t).active = True
            elif ch == "click" and ev.v:
                shot = self._shot_at(t)
                shot.clicks.append(t)
                self._touch(shot, t)
                self._changed(shot, t, out)  # a late first click moves hits before the contact
        cur = self._cur
        if cur is not None and cur.active and cur is not self._due_for:
            # a shot's due time only moves later as activity goes on: the first one is enough
            self._soon(self._due(cur))
            self._due_for = cur
        if self._bursts_ready:
            self._soon(self.now)
        return out

    def _soon(self, t: float) -> None:
        """Brings the next deadline forward to ``t`` (never later: ``advance`` recomputes)."""
        if t < self._next:
            self._next = t

    def call(self, t: float, calls: tuple[Call, ...], kind: ShotKind, manner: str | None,
             amend: bool = False) -> list[Action]:
        """The shooter's call: closes the open shot (or, with ``amend``, replaces its call
        while nothing has happened yet) and opens the next one."""
        out = self.advance(t)
        cur = self._cur
        if not (amend and cur is not None and not cur.active):
            self._close_for_next(t, out)
            cur = self._open(t)
        cur.calls, cur.kind, cur.manner = calls, kind, manner
        self._reschedule()
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
        cur, last = self._cur, self._last
        if shot == "last" and (cur is not None or last is None):
            raise ValueError("no just-closed shot to correct")
        if cur is None and (shot == "next" or last is None):
            self._coming.append(facts)  # the shot to come: applied as it opens
            return out
        if cur is None and shot is None and last is not None:
            if self._held is None:
                self._held = _Held(declared=last.declared,
                                   drops=[(d, d.pocket, d.ball, d.declared) for d in last.drops],
                                   order=list(last.drops))
            self._held.facts.append(facts)
        target = cur if cur is not None else last
        assert target is not None
        self._apply_facts(target, t, facts)
        if target is last:
            out.append(AmendShot(t, self._record(target)))
        self._reschedule()
        return out

    def _apply_facts(self, shot: _Shot, t: float, facts: Declared) -> None:
        shot.declared = shot.declared.merged(facts)
        for ball, pocket in facts.pocketed:
            self._declare_drop(shot, t, ball, pocket)

    def shot_end(self, t: float) -> list[Action]:
        """Rules the open shot now; what comes after belongs to the next shot. With no shot
        open, rules an empty shot (nothing reached a sensor) with the facts declared since."""
        out = self.advance(t)
        if self._cur is None:
            held, last = self._held, self._last
            moved = held.facts if held is not None else []
            if held is not None and last is not None:
                for drop, pocket, ball, declared in held.drops:  # the last shot as it was
                    drop.pocket, drop.ball, drop.declared = pocket, ball, declared
                last.declared, last.drops = held.declared, held.order
                out.append(AmendShot(t, self._record(last)))
            cur = self._open(t)  # (facts declared for the shot to come: applied here)
            for facts in moved:
                self._apply_facts(cur, t, facts)
        self._rule(t, out)
        self._late_ok, self._closed_at = False, t
        self._reschedule()
        return out

    def set_health(self, channel: str, state: Health, t: float | None = None) -> list[Action]:
        """Tells fusion a channel's health, as sensor health judged it: a beam or cushion
        sensor in any state but ``ok`` counts nothing. What it counted before stands, except:
        a beam found ``stuck`` while blocked was never crossed by a ball (the drop its block
        counted is taken back), and one found ``chattering`` made up its latest "balls" (the
        drops of the last RETRACT_S are taken back); each shot they went to is corrected.
        Returns the corrections."""
        out: list[Action] = []
        usable = state is Health.OK
        rail = RAIL_OF_CUSHION.get(channel)
        if rail is not None:  # a cushion sensor out of order: its hits may be missing
            if usable:
                self.deaf.discard(rail)
            else:
                self.deaf.add(rail)
                cushion = self._cushions[rail]
                cushion.on, cushion.burst = False, None
            self._reschedule()
            return out
        pocket = POCKET_OF_BEAM.get(channel)
        if pocket is None:
            return out
        if usable:
            self.blind.discard(pocket)
            return out
        self.blind.add(pocket)
        beam = self._beams[pocket]
        now = self.now if t is None else t
        if state is Health.CHATTERING:  # its latest "balls" were none
            since = now - RETRACT_S
        elif state is Health.STUCK and beam.level:  # the block in progress was no ball
            since = beam.block_start
        else:  # silent, or its board went away: what it reported before stands
            since = INF
        changed: list[_Shot] = []
        for drop, shot in beam.recent:
            if drop.t >= since and drop in shot.drops:
                shot.drops.remove(drop)
                if shot not in changed:
                    changed.append(shot)
        for shot in changed:
            self._changed(shot, now, out)
        beam.recent.clear()
        beam.pend_t, beam.level, beam.counted, beam.block_start = INF, 0, False, INF
        self._reschedule()
        return out

    def forget(self) -> None:
        """Drops every shot in progress (after an undo, a new match, the end of a match)."""
        self._cur = self._last = None
        self._held = None
        self._coming = []
        self._late_ok = False
        self._reschedule()

    def advance(self, now: float) -> list[Action]:
        """Runs the clock to ``now``: confirms edges, closes bursts, rules quiet shots."""
        out: list[Action] = []
        if now < self._next:
            self.now = max(self.now, now)
            return out
        cfg = self.config
        for pocket, beam in self._beams.items():
            if beam.pend_t + cfg.noise_s <= now:
                self._confirm(pocket, beam, out)
            if beam.level and not beam.counted and beam.block_start + cfg.min_block_s <= now:
                beam.counted = True
                self._beam_drop(beam, pocket, out)
        for cushion in self._cushions.values():
            burst = cushion.burst
            if burst is None:
                continue
            if cushion.on and cushion.on_since + cfg.cushion_max_on_s <= now:
                burst.on_time += now - cushion.on_since
                cushion.on_since = now
                self._close_burst(cushion)
            elif not cushion.on and burst.last + cfg.cushion_gap_s <= now:
                self._close_burst(cushion)
        self._settle_bursts(out)
        cur = self._cur
        if cur is not None and cur.active and self._due(cur) <= now:
            self._rule(self._due(cur), out)
        self.now = max(self.now, now)
        self._reschedule()
        return out

    # -------------------------------------------------------------- shots
    def _open(self, t: float) -> _Shot:
        coming, self._coming, self._held = self._coming, [], None
        self._cur = _Shot(opened=t, last_activity=t)
        for facts in coming:  # declared for the shot to come
            self._apply_facts(self._cur, t, facts)
        return self._cur

    def _close_for_next(self, t: float, out: list[Action]) -> None:
        """The next shot is about to open: rule the open one, and the last one is final."""
        if self._cur is not None:
            self._rule(t, out)
        self._late_ok, self._closed_at = False, t

    def _shot_at(self, t: float) -> _Shot:
        """Returns the shot that activity at ``t`` belongs to, opening one after rest."""
        cur = self._cur
        if cur is not None and t >= cur.opened:
            return cur
        last = self._last
        if last is not None and (t < self._closed_at or self._late_ok
                                 and t - last.last_activity <= self.config.max_roll_s):
            return last
        if cur is not None:
            return cur
        self._late_ok = False
        return self._open(t)

    def _touch(self, shot: _Shot, t: float) -> None:
        shot.active = True
        if t > shot.last_activity:
            shot.last_activity = t

    def _due(self, shot: _Shot) -> float:
        cfg = self.config
        due = shot.last_activity + cfg.quiet_s
        if self.cue_detector or self.identity_reader:
            waiting = [d.t for d in shot.drops if not d.matched and d.pocket is not None]
            if waiting:
                due = max(due, max(waiting) + cfg.identity_max_s)
        return due

    def _rule(self, t: float, out: list[Action]) -> None:
        shot = self._cur
        assert shot is not None
        out.append(RuleShot(t, self._record(shot)))
        self._last, self._cur = shot, None
        self._late_ok, self._closed_at = True, -INF

    def _changed(self, shot: _Shot, t: float, out: list[Action]) -> None:
        if shot is self._last:
            out.append(AmendShot(t, self._record(shot)))

    def _record(self, shot: _Shot) -> ShotRecord:
        cfg = self.config
        cushions: Any
        hits = sorted(shot.hits)
        before: tuple[Rail, ...] = ()
        presumed = False
        if not cfg.cushion_sensors:
            cushions = UNKNOWN
        elif self.deaf and len({r for _, r in hits}) < 2:
            cushions = UNKNOWN  # a dead sensor may have missed what the rules need
        elif shot.clicks:
            first_click = shot.clicks[0]
            cushions = tuple(r for t, r in hits if t >= first_click)
            before = tuple(r for t, r in hits if t < first_click)
        elif cfg.cushions_without_click == "all":
            cushions = tuple(r for _, r in hits)
            presumed = bool(hits)
        else:
            cushions = UNKNOWN
        return shot.declared.into(ShotRecord(
            calls=shot.calls,
            kind=shot.kind,
            manner=shot.manner,
            drops=tuple(Drop(x.pocket, x.ball) for x in shot.drops),
            cue_sensed=self.cue_detector,
            blind_pockets=tuple(sorted(self.blind)),
            cushions=cushions,
            cushions_presumed=presumed,
            cushions_before=before,
            deaf_rails=tuple(sorted(self.deaf)) if cfg.cushion_sensors else (),
        ))

    # -------------------------------------------------------------- beams
    def _beam(self, pocket: Pocket, t: float, v: int, out: list[Action]) -> None:
        beam = self._beams[pocket]
        v = 1 if v else 0
        if beam.pend_t != INF:
            if t - beam.pend_t < self.config.noise_s:
                if v == beam.level:  # it went back: a glitch
                    beam.pend_t = INF
                return
            self._confirm(pocket, beam, out)
        if v != beam.level:
            beam.pend_t, beam.pend_v = t, v

    def _confirm(self, pocket: Pocket, beam: _Beam, out: list[Action]) -> None:
        t, v = beam.pend_t, beam.pend_v
        beam.pend_t = INF
        beam.level = v
        if v:
            beam.block_start, beam.counted = t, False
            return
        if not beam.counted and t - beam.block_start >= self.config.min_block_s:
            self._beam_drop(beam, pocket, out)
        beam.counted = False
        beam.block_start = INF

    def _beam_drop(self, beam: _Beam, pocket: Pocket, out: list[Action]) -> None:
        shot, drop = self._drop(beam.block_start, pocket, out)
        horizon = drop.t - RETRACT_S
        beam.recent = [(d, s) for d, s in beam.recent if d.t >= horizon]
        beam.recent.append((drop, shot))

    def _drop(self, t: float, pocket: Pocket, out: list[Action]) -> tuple[_Shot, _Drop]:
        shot = self._shot_at(t)
        drop = _Drop(t, pocket)
        shot.drops.append(drop)
        self._touch(shot, t)
        out.append(DropSeen(t, pocket, late=shot is self._last))
        self._changed(shot, t, out)
        return shot, drop

    def _declare_drop(self, shot: _Shot, t: float, ball: int | str, pocket: Pocket) -> None:
        """A referee says ``ball`` fell in ``pocket``. A drop the beams saw there whose ball no
        referee named takes it, even one the ball return's timing gave another ball (that
        guess is dropped: with two drops in its window, the ball return cannot tell which was
        which); else the drop already holding ``ball`` moves there; else it is a drop no beam
        saw."""
        held = next((d for d in shot.drops if d.ball == ball), None)
        if held is not None and held.pocket == pocket:
            held.declared = True
            return
        there = next((d for d in shot.drops if d.pocket == pocket and not d.declared
                      and d.ball is None), None) or next(
            (d for d in shot.drops if d.pocket == pocket and not d.declared), None)
        if there is not None:
            if held is not None and not held.declared:
                held.ball = None
            there.ball, there.declared = ball, True
            return
        if held is not None:
            held.pocket, held.declared = pocket, True
            return
        shot.drops.append(_Drop(t, pocket, ball, declared=True))

    def _returned(self, t: float, ball: int | str, pocket: Pocket | None, out: list[Action]) -> None:
        """A ball passed the ball return: match it to the drop it came from."""
        cfg = self.config
        self._due_for = None  # a matched drop may let its shot be ruled sooner
        lo, hi = t - cfg.identity_max_s, t - cfg.identity_min_s
        for shot in (self._last, self._cur):
            if shot is None:
                continue
            for drop in shot.drops:
                if (not drop.matched and lo <= drop.t <= hi
                        and (pocket is None or drop.pocket is None or drop.pocket == pocket)):
                    drop.matched = True
                    if drop.ball is None:
                        drop.ball = ball
                        drop.guessed_at = t if pocket is None else None
                    self._changed(shot, t, out)
                    return
        if pocket is not None and self._unguess(t, ball, pocket, out):
            return
        # no drop to match: the beams missed one
        shot = self._shot_at(t)
        shot.drops.append(_Drop(t, pocket, ball, matched=True))
        self._touch(shot, t)
        out.append(DropSeen(t, pocket, ball, late=shot is self._last))
        self._changed(shot, t, out)

    def _unguess(self, t: float, ball: int | str, pocket: Pocket, out: list[Action]) -> bool:
        """A report naming ``pocket`` finds that pocket's drop taken by an earlier report naming
        no pocket (the cue-ball detector, matched by the order balls reach the return, which
        the pockets' distances to it can swap): the named ball takes the drop, and the earlier
        report's ball moves to a drop of its window still unmatched. Returns whether it did."""
        cfg = self.config
        lo, hi = t - cfg.identity_max_s, t - cfg.identity_min_s
        for shot in (self._last, self._cur):
            if shot is None:
                continue
            for drop in shot.drops:
                g = drop.guessed_at
                if g is None or drop.pocket != pocket or not lo <= drop.t <= hi:
                    continue
                other = next((d for d in shot.drops if not d.matched and d.ball is None
                              and g - cfg.identity_max_s <= d.t <= g - cfg.identity_min_s), None)
                if other is None:
                    continue
                other.matched, other.ball, other.guessed_at = True, drop.ball, g
                drop.ball, drop.guessed_at = ball, None
                self._changed(shot, t, out)
                return True
        return False

    # -------------------------------------------------------------- cushions
    def _cushion(self, rail: Rail, t: float, v: int, level: float | None) -> None:
        cushion = self._cushions[rail]
        burst = cushion.burst
        if v:
            if burst is None or (not cushion.on and t - burst.last > self.config.cushion_gap_s):
                if burst is not None:
                    self._close_burst(cushion)
                burst = cushion.burst = _Burst(rail, t, t)
                shot = self._shot_at(t)
                self._touch(shot, t)
            if not cushion.on:
                cushion.on, cushion.on_since = True, t
            if level is not None:
                burst.peak = level if burst.peak is None else max(burst.peak, level)
        elif cushion.on:
            cushion.on = False
            if burst is not None:
                burst.on_time += t - cushion.on_since
                burst.last = t

    def _close_burst(self, cushion: _Cushion) -> None:
        burst = cushion.burst
        assert burst is not None
        cushion.burst = None
        self._bursts.append(burst)
        self._bursts_ready = True

    def _settle_bursts(self, out: list[Action]) -> None:
        """Counts each closed burst once its crosstalk partner (if any) is closed too."""
        self._bursts_ready = False  # what stays waits for an open twin: its closing wakes us
        if not self._bursts:
            return
        window = self.config.crosstalk_s
        waiting: list[_Burst] = []
        done: set[int] = set()
        for i, burst in enumerate(self._bursts):
            if i in done:
                continue
            twin_rail = SAME_RAIL.get(burst.rail)
            partner: _Burst | None = None
            if twin_rail is not None:
                open_twin = self._cushions[twin_rail].burst
                if open_twin is not None and abs(open_twin.start - burst.start) <= window:
                    waiting.append(burst)
                    continue
                for j in range(i + 1, len(self._bursts)):
                    other = self._bursts[j]
                    if other.rail == twin_rail and j not in done and abs(
                            other.start - burst.start) <= window:
                        partner = other
                        done.add(j)
                        break
            if partner is None:
                self._hit(burst, out)
            else:
                self.crosstalk += 1
                self._hit(max(burst, partner, key=_strength), out)
        self._bursts = waiting

    def _hit(self, burst: _Burst, out: list[Action]) -> None:
        t = burst.start
        shot = self._shot_at(t)
        shot.hits.append((t, burst.rail))
        self._changed(shot, t, out)

    # -------------------------------------------------------------- timers
    def _beam_due(self, beam: _Beam) -> float:
        """Returns when a beam's pending edge is confirmed or its block counts as a ball."""
        due = beam.pend_t + self.config.noise_s
        if beam.level and not beam.counted:
            due = min(due, beam.block_start + self.config.min_block_s)
        return due

    def _cushion_due(self, cushion: _Cushion) -> float:
        """Returns when a cushion's burst closes (its sensor quiet long enough, or on too long)."""
        if cushion.burst is None:
            return INF
        if cushion.on:
            return cushion.on_since + self.config.cushion_max_on_s
        return cushion.burst.last + self.config.cushion_gap_s

    def _reschedule(self) -> None:
        """Computes the next deadline from everything that waits for the clock."""
        self._due_for = None
        nxt = INF
        for beam in self._beams.values():
            if beam.pend_t != INF or beam.level and not beam.counted:  # else nothing is due
                nxt = min(nxt, self._beam_due(beam))
        for cushion in self._cushions.values():
            if cushion.burst is not None:
                nxt = min(nxt, self._cushion_due(cushion))
        if self._bursts_ready:
            nxt = min(nxt, self.now)
        cur = self._cur
        if cur is not None and cur.active:
            nxt = min(nxt, self._due(cur))
        self._next = nxt


def _strength(burst: _Burst) -> tuple[float, float, float]:
    """Stronger first: the analogue peak, then time on, then the earlier start."""
    return (burst.peak if burst.peak is not None else 0.0, burst.on_time, -burst.start)

