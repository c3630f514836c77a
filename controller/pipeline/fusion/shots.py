"""The shot lifecycle: which shot activity and declared facts belong to, as one state machine.

Everything that moves a shot from open to ruled to final lives here (h11-style: the states
and their transitions in one table, ``TRANSITIONS``), so the rest of fusion asks, and never
sets, where it is::

    IDLE  --open-->  OPEN  --rule-->  RULED  --close-->  ENDED
      ^               ^                 |                  |
      |               +------open-------+------open--------+
      +---------------- forget (from any state) -----------+

- ``IDLE``: no shot yet (a game's first, or after ``forget``). Facts declared now wait for the
  shot to come.
- ``OPEN``: a shot in play, not yet ruled. Activity at or after its opening is its own;
  activity before it belongs to the last shot if it came before ``closed_at``.
- ``RULED``: the last shot is ruled provisionally. Late activity (within ``max_roll_s`` of its
  last) and facts declared now correct it; they are held, in case a ``shot_end`` says they were
  about a shot no sensor saw.
- ``ENDED``: the last shot was closed by ``shot_end`` or by the next shot's call or strike.
  Activity before ``closed_at`` (late edges) still corrects it; after it, a new shot opens.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from controller.errors import ControllerError
from controller.pipeline.declared import Declared
from rules import UNKNOWN, Call, Pocket, Rail, ShotKind, ShotRecord
from rules import Drop as RecordDrop

INF = float("inf")


class ShotStateError(ControllerError, RuntimeError):
    """A move the shot lifecycle has no transition for (a bug in fusion, not an input)."""


class Phase(enum.StrEnum):
    """Where the shot lifecycle is (see the module docstring)."""

    IDLE = "idle"
    OPEN = "open"
    RULED = "ruled"
    ENDED = "ended"


class Move(enum.StrEnum):
    """What moves the lifecycle."""

    OPEN = "open"  # activity after rest, a call, a strike, a shot_end with none open
    RULE = "rule"  # quiet long enough, the next shot about to open, a shot_end
    CLOSE = "close"  # the next shot is about to open, or shot_end ruled: the last is final
    FORGET = "forget"  # an undo, a new match, the end of a match


#: Every transition there is: (state, move) -> the next state. Anything else is a bug.
TRANSITIONS: dict[tuple[Phase, Move], Phase] = {
    (Phase.IDLE, Move.OPEN): Phase.OPEN,
    (Phase.RULED, Move.OPEN): Phase.OPEN,
    (Phase.ENDED, Move.OPEN): Phase.OPEN,
    (Phase.OPEN, Move.RULE): Phase.RULED,
    (Phase.IDLE, Move.CLOSE): Phase.IDLE,
    (Phase.RULED, Move.CLOSE): Phase.ENDED,
    (Phase.ENDED, Move.CLOSE): Phase.ENDED,
    **{(phase, Move.FORGET): Phase.IDLE for phase in Phase},
}


@dataclass(slots=True)
class Drop:
    """A ball that fell in a shot, as far as it is known."""

    t: float
    pocket: Pocket | None
    ball: int | str | None = None
    matched: bool = False  # a ball-return event was matched to it
    declared: bool = False  # a referee said which ball it was
    guessed_at: float | None = None  # the time of the report naming no pocket that matched it
    presumed: bool = False  # that report fitted other drops too: the ball is a guess


@dataclass(slots=True)
class Shot:
    """One shot's facts as they come in."""

    opened: float
    last_activity: float
    calls: tuple[Call, ...] = ()
    kind: ShotKind = ShotKind.NORMAL
    manner: str | None = None
    drops: list[Drop] = field(default_factory=list)
    hits: list[tuple[float, Rail]] = field(default_factory=list)
    clicks: list[float] = field(default_factory=list)
    active: bool = False  # a sensor saw something
    declared: Declared = Declared()
    #: Gaps in the sensors' data while it was open: (when, a channel it lost), each gap's
    #: channels told at one instant (``Health.GAP``).
    gaps: list[tuple[float, str]] = field(default_factory=list)

    def data_gaps(self) -> tuple[tuple[str, ...], ...]:
        """Returns each gap in its data as the channels it lost, in time order."""
        by_t: dict[float, set[str]] = {}
        for t, channel in self.gaps:
            by_t.setdefault(t, set()).add(channel)
        return tuple(tuple(sorted(by_t[t])) for t in sorted(by_t))

    def touch(self, t: float) -> None:
        """A sensor saw something of this shot at ``t``."""
        self.active = True
        if t > self.last_activity:
            self.last_activity = t

    def called(self, calls: tuple[Call, ...], kind: ShotKind, manner: str | None) -> None:
        """Takes the shooter's call for this shot."""
        self.calls, self.kind, self.manner = calls, kind, manner

    def dropped(self, t: float, pocket: Pocket | None, ball: int | str | None) -> Drop:
        """A ball fell at ``t`` (``ball``: the ball return named it); returns its drop."""
        drop = Drop(t, pocket, ball, matched=ball is not None)
        self.drops.append(drop)
        self.touch(t)
        return drop

    def hit(self, t: float, rail: Rail) -> None:
        """A cushion sensor of ``rail`` felt a hit at ``t`` (its burst's first edge)."""
        self.hits.append((t, rail))

    def clicked(self, t: float) -> None:
        """The click sensor heard a ball touch a ball at ``t``."""
        self.clicks.append(t)
        self.touch(t)

    def lost(self, t: float, channel: str) -> None:
        """``channel``'s source lost data at ``t`` while this shot was open (``Health.GAP``)."""
        self.gaps.append((t, channel))

    def apply(self, t: float, facts: Declared) -> None:
        """Takes facts a referee declared about this shot."""
        self.declared = self.declared.merged(facts)
        for ball, pocket in facts.pocketed:
            self._declare_drop(t, ball, pocket)

    def _declare_drop(self, t: float, ball: int | str, pocket: Pocket) -> None:
        """A referee says ``ball`` fell in ``pocket``. A drop the beams saw there whose ball no
        referee named takes it, even one the ball return's timing gave another ball (that
        guess is dropped: with two drops in its window, the ball return cannot tell which was
        which); else the drop already holding ``ball`` moves there; else it is a drop no beam
        saw."""
        held = next((d for d in self.drops if d.ball == ball), None)
        if held is not None and held.pocket == pocket:
            held.declared, held.presumed = True, False
            return
        there = next((d for d in self.drops if d.pocket == pocket and not d.declared
                      and d.ball is None), None) or next(
            (d for d in self.drops if d.pocket == pocket and not d.declared), None)
        if there is not None:
            if held is not None and not held.declared:
                held.ball, held.presumed = None, False
            guessed = (there.ball if there.guessed_at is not None and there.ball not in (None, ball)
                       else None)
            there.ball, there.declared, there.presumed = ball, True, False
            if guessed is not None:
                self._guess_again(guessed, there.guessed_at)
            return
        if held is not None:
            held.pocket, held.declared, held.presumed = pocket, True, False
            return
        self.drops.append(Drop(t, pocket, ball, declared=True))


    def _guess_again(self, ball: int | str, at: float | None) -> None:
        """The drop the ball return's report (naming no pocket, at ``at``) was given to is
        another ball, a referee says: the report's ball goes to a drop of the shot nobody has
        named yet (a guess among several: ``presumed``), as the report still says it fell."""
        free = [d for d in self.drops if d.ball is None and not d.declared]
        if free:
            free[0].ball, free[0].matched, free[0].guessed_at = ball, True, at
            free[0].presumed = len(free) > 1


@dataclass(slots=True)
class _Held:
    """Facts declared while no shot was open, not saying for which shot, and how to take
    them back from the last shot (its declared facts and its drops, each drop's pocket and
    ball, before them)."""

    facts: list[Declared] = field(default_factory=list)
    declared: Declared = Declared()
    drops: list[tuple[Drop, Pocket | None, int | str | None, bool]] = field(default_factory=list)
    order: list[Drop] = field(default_factory=list)


class ShotTracker:
    """The open and the last shot, and where the lifecycle is (see the module docstring)."""

    def __init__(self, max_roll_s: float) -> None:
        self.max_roll_s = max_roll_s
        self.phase = Phase.IDLE
        self.cur: Shot | None = None  # open, not yet ruled
        self.last: Shot | None = None  # the last ruled shot: declares and identities correct it
        self.closed_at = -INF  # activity before this belongs to the last shot
        #: Facts declared since a shot was last open (see ``declare``).
        self._held: _Held | None = None
        #: Facts declared for the shot to come, applied to it as it opens.
        self._coming: list[Declared] = []

    def _move(self, move: Move) -> None:
        try:
            self.phase = TRANSITIONS[self.phase, move]
        except KeyError:
            raise ShotStateError(f"no transition for {move} in {self.phase}") from None

    # -------------------------------------------------------------- transitions
    def open(self, t: float) -> Shot:
        """Opens a shot at ``t`` with the facts declared for the shot to come; returns it."""
        self._move(Move.OPEN)
        coming, self._coming, self._held = self._coming, [], None
        self.cur = Shot(opened=t, last_activity=t)
        for facts in coming:
            self.cur.apply(t, facts)
        return self.cur

    def rule(self) -> Shot:
        """The open shot is ruled (provisionally: late activity may still correct it);
        returns it."""
        self._move(Move.RULE)
        shot = self.cur
        assert shot is not None  # OPEN has one
        self.last, self.cur = shot, None
        self.closed_at = -INF
        return shot

    def close(self, t: float) -> None:
        """The next shot opens at ``t`` (or ``shot_end`` said the last one is over): activity
        from then on is not the last shot's. The open shot must be ruled first."""
        self._move(Move.CLOSE)
        self.closed_at = t

    def forget(self) -> None:
        """Drops every shot in progress and what was declared for them."""
        self._move(Move.FORGET)
        self.cur = self.last = None
        self._held = None
        self._coming = []

    # -------------------------------------------------------------- questions
    def shot_at(self, t: float) -> Shot | None:
        """Returns the shot that activity at ``t`` belongs to; None: a new one opens."""
        cur, last = self.cur, self.last
        if cur is not None and t >= cur.opened:
            return cur
        if last is not None and (t < self.closed_at or self.phase is Phase.RULED
                                 and t - last.last_activity <= self.max_roll_s):
            return last
        return cur

    # -------------------------------------------------------------- declared facts
    def declare(self, t: float, facts: Declared, shot: str | None) -> Shot | None:
        """Applies facts a referee declared (``Fusion.declare`` says which shot ``shot``
        names); returns the shot they went to, None when they wait for the shot to come.

        Raises ValueError for ``"last"`` while a shot is open (the last one is final)."""
        cur, last = self.cur, self.last
        if shot == "last" and (cur is not None or last is None):
            raise ValueError("no just-closed shot to correct")
        if cur is None and (shot == "next" or last is None):
            self._coming.append(facts)  # the shot to come: applied as it opens
            return None
        if cur is None and shot is None and last is not None:
            if self._held is None:
                self._held = _Held(declared=last.declared,
                                   drops=[(d, d.pocket, d.ball, d.declared) for d in last.drops],
                                   order=list(last.drops))
            self._held.facts.append(facts)
        target = cur if cur is not None else last
        assert target is not None
        target.apply(t, facts)
        return target

    def unheld(self) -> tuple[list[Declared], Shot | None]:
        """A ``shot_end`` with no shot open: the facts held were about the shot no sensor saw.
        Restores the last shot as it was before them; returns them, and the last shot if it
        was restored."""
        held, last = self._held, self.last
        moved = held.facts if held is not None else []
        if held is None or last is None:
            return moved, None
        for drop, pocket, ball, declared in held.drops:
            drop.pocket, drop.ball, drop.declared = pocket, ball, declared
        last.declared, last.drops = held.declared, held.order
        return moved, last


class Counted:
    """The drops each beam counted in the last ``keep_s``, with their shots: what is taken
    back when the beam turns out to be out of order rather than crossed by balls."""

    def __init__(self, keep_s: float) -> None:
        self.keep_s = keep_s
        self._recent: dict[Pocket, list[tuple[Drop, Shot]]] = {}

    def note(self, pocket: Pocket, shot: Shot, drop: Drop) -> None:
        """``pocket``'s beam counted ``drop``, given to ``shot``."""
        horizon = drop.t - self.keep_s
        kept = [(d, s) for d, s in self._recent.get(pocket, ()) if d.t >= horizon]
        self._recent[pocket] = [*kept, (drop, shot)]

    def take_back(self, pocket: Pocket, since: float) -> list[Shot]:
        """Takes ``pocket``'s drops from ``since`` on out of their shots and forgets the rest;
        returns the shots changed."""
        changed: list[Shot] = []
        for drop, shot in self._recent.pop(pocket, ()):
            if drop.t >= since and drop in shot.drops:
                shot.drops.remove(drop)
                if shot not in changed:
                    changed.append(shot)
        return changed


def shot_record(shot: Shot, *, cushions_sensed: bool, without_click: str, cue_sensed: bool,
                blind: set[Pocket], deaf: set[Rail], hears_clicks: bool = False) -> ShotRecord:
    """Returns the record the rules are given of ``shot``: ``cushions_sensed`` whether any
    cushion sensor is fitted, ``without_click`` fusion's ``cushions_without_click``, ``blind``
    and ``deaf`` the pockets and rails whose sensor is out of order or absent,
    ``hears_clicks`` whether a click sensor is fitted and in order (then a shot with no click
    is ``contact_unheard``)."""
    cushions: Any
    hits = sorted(shot.hits)
    before: tuple[Rail, ...] = ()
    presumed = False
    if not cushions_sensed:
        cushions = UNKNOWN
    elif deaf and len({r for _, r in hits}) < 2:
        cushions = UNKNOWN  # a dead sensor may have missed what the rules need
    elif shot.clicks:
        first_click = shot.clicks[0]
        cushions = tuple(r for t, r in hits if t >= first_click)
        before = tuple(r for t, r in hits if t < first_click)
    elif without_click == "all":
        cushions = tuple(r for _, r in hits)
        presumed = bool(hits)
    else:
        cushions = UNKNOWN
    return shot.declared.into(ShotRecord(
        calls=shot.calls,
        kind=shot.kind,
        manner=shot.manner,
        drops=tuple(RecordDrop(x.pocket, x.ball, presumed=x.presumed and any(
            o.ball is None for o in shot.drops)) for x in shot.drops),
        cue_sensed=cue_sensed,
        blind_pockets=tuple(sorted(blind)),
        data_gaps=shot.data_gaps(),
        cushions=cushions,
        cushions_presumed=presumed,
        cushions_before=before,
        deaf_rails=tuple(sorted(deaf)) if cushions_sensed else (),
        contact_unheard=hears_clicks and not shot.clicks,
    ))
