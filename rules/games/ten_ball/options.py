"""Ten-ball's options (docs/options.md): each a field with its default, meaning, allowed
values, the rule it reads and, where the original is contested, its own words."""

from __future__ import annotations

from dataclasses import dataclass

from rules.options import MatchOptions, missing_call_option, option
from rules.state import MatchState


@dataclass(frozen=True, slots=True)
class TenBallOptions(MatchOptions):
    ten_on_break: str = option(
        "wins",
        "a 10 pocketed on a legal break wins the game, as the original says (TB-2); "
        "'spot': it is spotted, as current WPA rules have it",
        ("wins", "spot"), rule="TB-2",
    )
    scratch_in_hand: str = option(
        "kitchen",
        "after a scratch or the cue ball off the table the incoming player has the ball in "
        "hand behind the head string, as the original says (TB-11); 'anywhere' as WPA",
        ("kitchen", "anywhere"), rule="TB-11",
    )
    presume_legal_contact: bool = option(
        True,
        "when no sensor or referee said which ball the cue ball hit first, presume the lowest "
        "ball (a referee declares otherwise); off: ask (confirm)", rule="TB-1, TB-11",
    )
    missing_call: str = missing_call_option(
        "a ball pocketed on a shot with no call recorded: 'ask' whether it was the called shot "
        "(confirm), 'count' it as called, or 'no_count' (treated as not called, TB-9)", rule="TB-7",
    )
    three_fouls: bool = option(True, "three consecutive fouls lose the game (TB-12)", rule="TB-12")
    cushions_unknown: str = option(
        "legal",
        "with no cushion sensor reading for a shot (no sensors, one out of order, or fusion's "
        "cushions_without_click = \"unknown\"): the break's four balls to a cushion (TB-5) and "
        "a rail after contact (TB-11) are presumed ('legal', noted), or asked ('ask', confirm). "
        "One policy in every game: a cushion rule with no reading is asked where it decides a "
        "penalty on most shots, and presumed (noted; one tap on the console corrects it) where "
        "it seldom decides anything. A shot that reaches no rail at all after contact is rare, "
        "and a break is judged once a game: presumed",
        ("legal", "ask"), rule="TB-5, TB-11",
    )
    off_table_balls: str = option(
        "stay_off",
        "object balls driven off the table: as §9.9, the game's own rule, says, no ball but "
        "the 10 is ever spotted ('stay_off': they stay out of play like pocketed balls); or, as "
        "the general rule 6.5 says, they are spotted ('spotted'; when a spotted ball is then "
        "the lowest on the table, the shot's event notes it)",
        ("stay_off", "spotted"), rule="TB-10",
        seed="6.5 «Шар выбит со стола» (Все выбитые со стола шары выставляются) … 9.9 Если шар "
        "номер 10 шар забит с нарушением правил … либо выбит со стола, он выставляется. Другие "
        "прицельные шары не выставляются ни при каких условиях.",
    )


def options_of(state: MatchState) -> TenBallOptions:
    """Returns the match's options as this game's own record."""
    return state.options_as(TenBallOptions)
