"""Siberian Ten's options (docs/options.md): each a field with its default, meaning, allowed
values, the rule it reads and, where the original is contested, its own words."""

from __future__ import annotations

from dataclasses import dataclass

from rules.options import MatchOptions, missing_call_option, option
from rules.state import MatchState

AFTER_OPPONENTS_FOUL, ANY_FROM_HAND = "after_opponents_foul", "any_from_hand"


@dataclass(frozen=True, slots=True)
class SiberianOptions(MatchOptions):
    called: bool = option(
        True,
        "called play (ST-6): ball and pocket are called; off: uncalled play (ST-13), every ball "
        "the shooter pockets on a legal shot counts for the shooter, plain balls allowed", rule="ST-6, ST-13",
    )
    handicap: int = option(
        0, "handicap (фора, ST-19): in each game, the first k balls the giver pockets count for "
        "the receiver, whatever they are: a «дурак» or a ball pocketed on a foul, which is the "
        "receiver's anyway, uses one up too (penalty balls and balls driven off the table are "
        "not pocketed by the giver, so they do not)",
        (0, 1, 2, 3, 4, 5), rule="ST-19",
    )
    handicap_giver: int = option(
        0, "the player (0 or 1) who gives the handicap; the giver breaks every game", (0, 1), rule="ST-19",
    )
    centre_line_unknown: str = option(
        "ask",
        "when the two-cushion ruling hangs on the centre line (one cushion touched) and nobody "
        "declared it: 'ask' (confirm), or presume 'crossed' / 'not_crossed'",
        ("ask", "crossed", "not_crossed"), rule="ST-14",
    )
    cushions_unknown: str = option(
        "ask",
        "with no cushion sensor reading for a shot the two-cushion rule applies to: 'ask' "
        "(confirm), or presume it was met ('legal', noted). One policy in every game: a "
        "cushion rule with no reading is asked where it decides a penalty on most shots, and "
        "presumed (noted; one tap on the console corrects it) where it seldom decides "
        "anything. The two-cushion rule applies to every shot that plays no ball and costs a "
        "penalty ball: asked",
        ("ask", "legal"), rule="ST-14",
    )
    two_cushions: str = option(
        "after_contact",
        "what the two-cushion rule counts: cushions the balls touched after the cue ball met "
        "the object ball, the centre line counting as one ('after_contact', the rule's full "
        "wording); cushions touched before or after the contact ('before_or_after', the "
        "original's own summary); or the cue ball itself must make two cushions after the "
        "contact ('cue_ball', penalty item ж; the sensors cannot tell which ball hit a cushion, "
        "so with two or more cushions the referee is asked). The break keeps its own section's "
        "wording: after the contact",
        ("after_contact", "before_or_after", "cue_ball"), rule="ST-14",
        seed="после соударения битка и прицельного шара как минимум один из них должен: "
        "коснуться двух разных бортов … (Другими словами действует правило двух бортов, в "
        "совокупности играющие шары до или после соударения должные коснуться двух бортов …) "
        "… ж) если биток после удара по прицельному шару не делает два борта и более.",
    )
    two_cushions_when: str = option(
        "nothing_played",
        "when the two-cushion rule applies: when no ball was played ('nothing_played', the "
        "original's words: a played ball, «сыгравший шар», is one pocketed «без нарушения "
        "правил», i.e. legally as called), so it also applies when only a «дурак» or an "
        "uncalled cue ball fell; or only when no ball at all fell ('nothing_fell')",
        ("nothing_played", "nothing_fell"), rule="ST-6, ST-7, ST-14",
        seed="Если ни один из шаров не сыгран, после соударения битка и прицельного шара как "
        "минимум один из них должен: … Игрок, забивший шар в лузу без нарушения правил "
        "(сыгравший шар), имеет право сделать следующий удар.",
    )
    presume_contact: bool = option(
        True,
        "when no sensor or referee said whether the cue ball touched a ball and no object "
        "ball fell, presume it did (noted; a referee declares 'miss' otherwise); off: ask "
        "(confirm)", rule="ST-15",
    )
    cue_off_table: str = option(
        "penalty",
        "the cue ball off the table with no called ball legally pocketed: a foul with a "
        "penalty ball, the balls pocketed on it spotted ('penalty', penalty item д); or, as "
        "the dedicated rule says, only the turn passes, no penalty ball, the opponent plays "
        "from hand in the kitchen ('turn_passes'). After a legal pot it is never a penalty",
        ("penalty", "turn_passes"), rule="ST-11",
        seed="Если выскочил биток, очередность хода переходит к сопернику даже если был забит "
        "правильный шар (шар засчитывается), шар сопернику (в качестве штрафа) не "
        "засчитывается, соперник при этом играет с руки из дома. … Штрафы налагаются также за "
        "следующие нарушения правил: … д) при вылете за борт \"своего\" шара",
    )
    interference: str = option(
        "ask",
        "interference by someone else (a declared special): the injured player, the shooter, "
        "is asked whether the position is restored, as the original says ('ask': 'restore', "
        "or 'as_lies': the shot is replayed from the position as it is, balls that fell "
        "spotted on the foot spot); or the position is always restored and the shot replayed "
        "('replay')",
        ("ask", "replay"), rule="ST-18",
        seed="кто-либо из посторонних или партнёр во время удара случайно помешал: толкнул, "
        "задел и т. п. По желанию пострадавшего положение шаров может быть восстановлено. "
        "Удар переигрывается.",
    )
    bullet_foul: str = option(
        "zero",
        "a declared foul on a bullet (such as touching a ball before the stroke): the "
        "original forbids it but gives no penalty, so this is a project decision: the bullet "
        "scores 0 and is not retaken ('zero'); or it is retaken like a miss, at most twice "
        "('retake'). A ball off the table scores 0 either way",
        ("zero", "retake"), rule="ST-20",
        seed="Игрок, выполняющий булит не имеет права касаться любого из шаров рукой или кием "
        "до произведения удара.",
    )
    ball_off_table: str = option(
        "opponent",
        "an object ball driven off the table: as the dedicated rule says, it counts for the "
        "opponent and the turn passes, the rest of the shot ruled as usual (a called ball "
        "legally pocketed still counts for the shooter; no penalty ball; noted "
        "'ball_off_table_to_opponent') ('opponent'); or, as the penalty list has it, it is a "
        "foul: every ball pocketed on the shot counts for the opponent, who also takes a "
        "penalty ball ('penalty')",
        ("opponent", "penalty"), rule="ST-10, ST-15",
        seed="Выскочившие шары (кроме битка) засчитываются сопернику, при этом ход переходит "
        "сопернику, игра продолжается по обычным правилам. … Штрафы налагаются, если игрок "
        "выбил шар (хотя бы один) со стола …",
    )
    igra_foul: str = option(
        "turn_passes",
        "a foul other than a miss during «Игра» (ST-21): the original names only the miss as "
        "losing, so the foul scores nothing and the turn passes ('turn_passes'; a ball that "
        "fell on it is spotted on the foot spot, a cue ball that fell or left the table is "
        "played from the kitchen); or it loses the game as a miss does ('loses')",
        ("turn_passes", "loses"), rule="ST-21",
        seed="Если при этом он забивает любой (или оба) шар(а) в лузу, он выигрывает «булит» и "
        "партию. Если не забивает, право удара переходит к сопернику на тех же условиях после "
        "полной остановки шаров. … Если один из игроков в «игре» промахивается по прицельному "
        "шару, он проигрывает «булит» и партию.",
    )
    missing_call: str = missing_call_option(
        "a ball pocketed in called play with no call recorded: 'ask' whether it was the called "
        "shot (confirm), 'count' it as called, or 'no_count' (nothing was called)", rule="ST-6",
    )
    after_foul: str = option(
        "kitchen",
        "after a foul the next shot is from hand in the kitchen, as ST-12 presumes ('kitchen'); "
        "'as_lies': the cue ball is played where it stopped (from the kitchen only after it "
        "fell or left the table)",
        ("kitchen", "as_lies"), rule="ST-12, ST-16",
    )
    kitchen_penalty: bool = option(
        False,
        "a direct hit on a ball in the kitchen when shooting from hand (a declared "
        "direct_hit_in_kitchen) also costs a penalty ball, as the penalty list has it for "
        "fouls; off: the opponent only plays on from hand in the kitchen, as ST-12 says",
        rule="ST-12",
        seed="Если после отражения от борта биток не коснулся ни одного из прицельных шаров, "
        "или задел любой прицельный шар в доме до соударения с бортом, соперник продолжает "
        "игру с руки из дома. … По умолчанию соперник игрока, получившего штраф, снимает со "
        "стола любой шар (кроме битка) и кладет себе в зачет.",
    )
    kitchen_hit_from_hand: str = option(
        AFTER_OPPONENTS_FOUL,
        "when a declared direct hit on a ball in the kitchen (direct_hit_in_kitchen) is a foul: "
        "only on a shot from hand in the kitchen after the opponent's miss or foul, as the "
        "original's sentence reads ('after_opponents_foul'; elsewhere it is noted "
        "'foul_not_applicable', as in Ten-ball and the pyramid); or on every shot from hand in "
        "the kitchen but the break, after one's own свояк or hanging ball too ('any_from_hand')",
        (AFTER_OPPONENTS_FOUL, ANY_FROM_HAND), rule="ST-12",
        seed="Игрок, производящий удар из дома с руки при переходе хода после промаха "
        "соперника по прицельному шару или произведшему удар с нарушением правил, имеет право "
        "бить по прицельному шару, находящему в доме, только в случае отражения битка от "
        "одного или более бортов и касания после этого прицельного шара.",
    )


def options_of(state: MatchState) -> SiberianOptions:
    """Returns the match's options as this game's own record."""
    return state.options_as(SiberianOptions)
