"""Which ball each drop of a shot was: the sensors' word, presumptions (noted), or questions.

Identity comes from the sensors where they saw it; else, as the options say, one drop in a
called pocket is presumed the called ball (noted); a drop that can only be one ball is that
ball; a drop whose number changes nothing (``Game.identity_needed``) is an object ball of no
known number, once it is known not to be the cue ball (asked, ``cue_ball``, when no
detector says); every other drop is asked about (``identify``), pocket by pocket.

The cue-ball detector names no pocket: when its one report fitted two drops, the ball return
gave it to the older one (``Drop.presumed``). That guess is noted (``cue_presumed``) and every
other drop's question still offers the cue ball: answered there, the cue ball moves to that
pocket and the guessed drop is an object ball, itself asked about as any other.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from rules.decisions import Decision, Noted
from rules.facts import CUE, OBJECT, Ball, Drop, Pocket, ShotRecord
from rules.game import Asker, Game, Shot
from rules.state import MatchState, QuestionKind, Status, Topic
from vocabulary import beam


@dataclass(slots=True)
class _Found:
    """What is known of a shot's drops so far."""

    known: list[tuple[int, Pocket | None]] = field(default_factory=list)
    unidentified: list[Pocket | None] = field(default_factory=list)
    cue_pocketed: bool = False
    cue_pocket: Pocket | None = None
    #: The pocket the cue ball is only presumed in (``Drop.presumed``), until answered otherwise.
    cue_guess: Pocket | None = None
    notes: list[Decision] = field(default_factory=list)

    def cue_fell(self, pocket: Pocket | None) -> None:
        self.cue_pocketed, self.cue_pocket = True, pocket


def resolve(game: Game, state: MatchState, record: ShotRecord, ask: Asker) -> Shot | None:
    """Returns the shot with every drop resolved (the module docstring), or None while asking."""
    on_table = set(game.balls_in_play(state))
    capacity = len(on_table) - state.unidentified  # object balls that can fall
    found = _Found()
    unknown: list[Drop] = []
    for drop in record.drops:
        if drop.ball == CUE and not found.cue_pocketed:
            found.cue_fell(drop.pocket)
            if drop.presumed:
                found.cue_guess = drop.pocket
        elif (isinstance(drop.ball, int) and drop.ball in on_table
              and drop.ball not in dict(found.known)):
            if len(found.known) < capacity:
                found.known.append((drop.ball, drop.pocket))
            else:  # more balls named than are on the table: an earlier count was wrong
                found.notes.append(Noted("drop_ignored", about=(("ball", drop.ball),
                                                                ("pocket", drop.pocket))))
        else:  # unidentified, or a reading that cannot be right (a ball not on the table)
            unknown.append(Drop(drop.pocket))

    # A pocket whose beam is out of order saw nothing: whether a ball fell there is asked
    # (and after a gap in its data, whether one more fell than it saw).
    blind_pending = False
    for blind in record.blind_pockets:
        lost = [gap for gap in record.data_gaps if beam(blind) in gap]
        if not lost and any(d.pocket == blind for d in record.drops):
            continue  # a declared or identified drop there already
        about: dict[str, Any] = {"pocket": blind}
        if lost:
            about.update(gaps=len(lost), channels=tuple(sorted({ch for g in lost for ch in g})))
        fell = ask.confirm(state.to_shoot or 0, Topic.BALL_FELL, **about)
        if fell is None:
            blind_pending = True
        elif fell:
            unknown.append(Drop(blind))
    if blind_pending:
        return None

    if unknown and state.options.presume_called:
        _presume_called(record, unknown, found, on_table, capacity)

    before, mark = (list(found.known), list(found.notes)), ask.mark()
    guess = found.cue_guess
    moved = _ask_drops(game, state, record, ask, unknown, found, on_table, capacity)
    if moved is not None:  # the cue ball fell elsewhere than guessed: the guessed drop is asked
        ask.rewind(mark)
        unknown = [*_without_one(unknown, moved), Drop(guess)]
        found = _Found(known=before[0], notes=before[1])
        found.cue_fell(moved)
        again = _ask_drops(game, state, record, ask, unknown, found, on_table, capacity)
        assert again is None  # nothing is guessed any more
    if found.cue_guess is not None:
        # a guess that changes the ruling: said in it, corrected by an answer or a declare
        found.notes.append(Noted("cue_presumed", about=(("ball", CUE),
                                                        ("pocket", found.cue_guess))))
    if ask.pending:
        return None
    assert state.to_shoot is not None
    return Shot(
        record=record,
        shooter=state.to_shoot,
        is_break=state.status is Status.BREAK,
        pocketed=tuple(found.known),
        cue_pocketed=found.cue_pocketed,
        cue_pocket=found.cue_pocket,
        notes=tuple(found.notes),
        unidentified=tuple(found.unidentified),
    )


def _without_one(drops: list[Drop], pocket: Pocket | None) -> list[Drop]:
    """Returns ``drops`` less one drop in ``pocket``."""
    out = list(drops)
    out.remove(next(d for d in out if d.pocket == pocket))
    return out


def _presume_called(record: ShotRecord, unknown: list[Drop], found: _Found, on_table: set[int],
                    capacity: int) -> None:
    """One unidentified drop in a called pocket is presumed the called ball (noted)."""
    for call in record.calls:
        if call.ball == CUE and (found.cue_pocketed or record.cue_sensed):
            continue  # fell and known, or (the detector saw none) did not fall
        if call.ball in dict(found.known):
            continue
        here = [d for d in unknown if d.pocket == call.pocket]
        room = call.ball == CUE or call.ball in on_table and len(found.known) < capacity
        if len(here) == 1 and room:
            unknown.remove(here[0])
            # a guess that changes scores: said in the ruling, corrected by a declare
            found.notes.append(Noted("called_presumed", about=(("ball", call.ball),
                                                               ("pocket", call.pocket))))
            if call.ball == CUE:
                found.cue_fell(call.pocket)
            else:
                found.known.append((int(call.ball), call.pocket))


def _ask_drops(game: Game, state: MatchState, record: ShotRecord, ask: Asker,
               unknown: list[Drop], found: _Found, on_table: set[int],
               capacity: int) -> Pocket | None:
    """Asks about the unidentified drops, pocket by pocket, into ``found``. Returns the pocket
    the cue ball was answered in when it had been presumed in another (``found.cue_guess``):
    then the drops are asked about again with it there; else None."""
    groups: dict[Pocket | None, int] = defaultdict(int)
    for drop in unknown:
        groups[drop.pocket] += 1
    player = state.to_shoot or 0
    known, unidentified = found.known, found.unidentified
    for pocket, count in groups.items():
        numbers = sorted(on_table - set(dict(known)))
        left = len(numbers) - state.unidentified - len(unidentified)  # balls that can still fall
        guess = found.cue_guess
        cue_possible = (not (record.cue_sensed or found.cue_pocketed)
                        or guess is not None and guess != pocket)
        candidates: list[Ball] = [*numbers, CUE] if cue_possible else list(numbers)
        # more drops than balls that could have fallen: the beam saw something else too
        count = min(count, left + cue_possible)
        if count <= 0:
            continue
        exact = (not state.unidentified and len(candidates) == count and len(groups) == 1
                 and guess is None)
        answer: tuple[Ball, ...] | None
        called = [c.ball for c in record.calls if c.pocket == pocket]
        if exact:
            answer = tuple(candidates)
        elif (count == 1 and not cue_possible and len(called) == 1 and called[0] in numbers
              and game.only_the_called_ball_matters(state, record, pocket)):
            was_called = ask.confirm(player, Topic.CALLED_BALL, ball=called[0], pocket=pocket)
            if was_called is None:
                continue
            answer = (called[0],) if was_called else ()
            if not was_called and left > 0:
                unidentified.append(pocket)
        elif game.identity_needed(state, record, pocket):
            answer = ask.ask(QuestionKind.IDENTIFY, player, Topic.WHICH_BALLS, tuple(candidates),
                             count, pocket=pocket)
        else:  # any object ball counts the same here: only the cue ball would change it
            was_cue = (ask.ask(QuestionKind.CONFIRM, player, Topic.CUE_BALL, (True, False),
                               count, pocket=pocket) if cue_possible else False)
            if was_cue is None:
                continue
            objects = min(count - int(was_cue), left)
            answer = (CUE,) * int(was_cue)
            if not state.unidentified and len(numbers) == objects and len(groups) == 1:
                answer += tuple(numbers)  # the last balls: their numbers are known after all
            else:
                unidentified += [pocket] * objects
        if answer is None:
            continue
        if CUE in answer and guess is not None and guess != pocket:
            found.cue_guess = None
            return pocket
        for ball in answer:
            if ball == CUE:
                found.cue_fell(pocket)
            elif ball == OBJECT and len(known) + len(unidentified) < capacity:
                unidentified.append(pocket)  # a moot "which ball?" (rules.moot)
            elif len(known) + len(unidentified) < capacity:
                known.append((int(ball), pocket))
            else:  # more balls named than are on the table: an earlier count was wrong
                found.notes.append(Noted("drop_ignored", about=(("ball", ball),
                                                                ("pocket", pocket))))
    return None
