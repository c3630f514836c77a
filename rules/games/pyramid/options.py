"""The pyramid's options (docs/options.md): each a field with its default, meaning, allowed
values, the rule it reads and, where the original is contested, its own words."""

from __future__ import annotations

from dataclasses import dataclass

from rules.options import MatchOptions, missing_call_option, option
from rules.state import MatchState

BALL_POCKET, CLEAN = "ball_pocket", "clean"


@dataclass(frozen=True, slots=True)
class PyramidOptions(MatchOptions):
    break_order: str = option(
        "winner",
        "who starts the next game: the winner of the previous one, as the original says "
        "(PP-13; after a draw the next player in turn after the last starter); or players "
        "take turns; or the loser (two players)",
        ("winner", "alternate", "loser"), rule="PP-13",
    )
    call_mode: str = option(
        BALL_POCKET,
        "'ball_pocket': the call names ball and pocket; 'clean' (clean designation): the call "
        "also states the manner (the record's manner), and the referee confirms a called ball "
        "that fell was played as called (PP-5)",
        (BALL_POCKET, CLEAN), rule="PP-5",
    )
    missing_call: str = missing_call_option(
        "balls pocketed on a normal shot with no call recorded: 'ask' whether a ball that fell "
        "was called in its pocket (confirm), 'count' as called, or 'no_count' (not called: "
        "nothing scores, PP-6)", rule="PP-5, PP-6",
    )
    presume_contact: bool = option(
        True,
        "when no sensor or referee said whether the cue ball touched a ball and no object "
        "ball fell, presume it did (a referee declares 'miss' otherwise); off: ask (confirm)", rule="PP-8",
    )
    penalise_butt_or_side: bool = option(
        True, "striking with the butt or side of the cue costs 5 points; off: waived (PP-8)", rule="PP-8",
    )
    penalise_touched_ball: bool = option(
        True, "touching a ball with the cue, a hand or clothes costs 5 points; off: waived (PP-8)",
        rule="PP-8",
    )
    svoya: bool = option(
        True,
        "«своя», two players: a player at 70 has secured at least a draw: if the other then "
        "reaches 71 with the shot that takes the last ball (possible with a handicap), the "
        "game is drawn (noted 'svoya'); off: that player wins",
        rule="PP-4",
    )
    svoya_more_players: bool = option(
        False,
        "«своя» with three or four players too (a project decision, the original gives it for "
        "two): a player at 50 / 40 secures a draw against another who reaches 51 / 41 with the "
        "last ball; off, as the original reads: the player who reaches the target wins, and "
        "the only draw is every player at 50 / 40",
        rule="PP-4",
        seed="Если один игрок набрал 70 очков («своя»), то даже в случае покладки последнего "
        "шара его партнером в партии фиксируется ничья. … Чтобы выиграть, одному из партнеров "
        "необходимо набрать 51 очко. Если все трое сыграли по 50 очков, фиксируется ничья.",
    )
    penalty_to: str = option(
        "next",
        "with three or four players, who receives a 5-point penalty: the next player in turn "
        "('next', a project decision: the original speaks of two, «партнер»); or every other "
        "player 5 points, the offender losing 5 for each ('each')",
        ("next", "each"), rule="PP-8",
        seed="а) 5 очков, которые снимаются со счета провинившегося и прибавляются к счету "
        "партнера",
    )
    foul_uncalled: str = option(
        "spotted",
        "on a 5-point foul, balls that fell other than the called one: spotted like the called "
        "ball ('spotted', a project decision: the original names only the called balls); or "
        "they stay down and score for nobody ('stay_down')",
        ("spotted", "stay_down"), rule="PP-9",
        seed="При ошибках, предусмотренных пунктами а) и б), кроме штрафа в 5 очков, если "
        "одновременно в лузу упадут «заказанные» шары, они не засчитываются и выставляются на "
        "третью точку стола. Если же точка занята, то на короткий борт с внутренней стороны "
        "пирамиды.",
    )
    handicap: tuple[int, ...] = option(
        (),
        "points each player starts a game with, in turn order (PP-12, usually 5–35; missing "
        "players start at 0); the targets stay", rule="PP-12",
    )


def options_of(state: MatchState) -> PyramidOptions:
    """Returns the match's options as this game's own record."""
    return state.options_as(PyramidOptions)
