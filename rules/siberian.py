"""Siberian Ten (rules ST-1…ST-21 of docs/rules.md): Russian-billiards rules played with
ten object balls on a pool table; first to six balls; a shoot-out ("bullets") at 5:5.

Balls are credited, never lost: every object ball is at every moment on the table or in exactly
one player's ``balls`` (``PlayerState.score`` counts them; a called cue ball with no object ball
left counts as ``"cue"``). The rules of one shot, in the order they apply:

1. the shoot-out, once it runs (ST-20, ST-21), rules its own shots (below);
2. a referee's special position (ST-18): interference replays the shot; a ball on the rail
   top passes the turn with pocketed balls counting; a cue ball back from the floor passes the
   turn with pocketed balls spotted; a hanging ball that fell is spotted and the shooter keeps
   the shot from the kitchen;
3. the break (ST-4, ST-5): everything that falls counts for the breaker, the cue ball
   included; with nothing down the two-cushion rule (ST-14) must hold, else the opponent
   chooses ``rebreak`` / ``break`` / ``accept`` (no penalty ball);
4. fouls (ST-15): declared, a miss (``first_contact`` None, sensed or declared; unknown with
   no object ball down, contact is presumed and noted, or asked: option ``presume_contact``),
   a ball off the table (only with option ``ball_off_table`` 'penalty'; by default it counts
   for the opponent and passes the turn, the shot ruled as usual, ST-10), the cue ball off
   the table unless a called ball was legally pocketed (ST-11; option ``cue_off_table``),
   the two-cushion rule when no ball was played (ST-14; options ``two_cushions`` and
   ``two_cushions_when``).
   A foul: pocketed balls count for the opponent, or are spotted at the foot rail after a
   touched ball, the cue ball off the table, or feet off the floor (ST-17); balls off the
   table count for the opponent (ST-10); the opponent takes a ball of their choice off the
   table (``pick_ball``), then chooses ``shoot`` or ``hand_back`` (``option``), asked and
   listed in that order (ST-16). The next shot is from hand in the kitchen (ST-12 reads so;
   option ``after_foul``).
   A declared ``direct_hit_in_kitchen`` alone (ST-12) costs no penalty ball by default: the
   opponent plays on from the kitchen.
5. without a foul, called play (ST-6…ST-9): a called ball in its called pocket counts for the
   shooter, every other ball that fell for the opponent; the shooter continues only when every
   called ball fell as called. A called cue ball ("свояк") that fell as called counts: the
   opponent picks a table ball for the shooter (``pick_ball``), or with none left the cue ball
   itself is the point; the shooter continues from the kitchen. Uncalled play (ST-13):
   everything that fell counts for the shooter, who continues if anything fell.
6. a handicap of k balls (ST-19): the first k balls the giver pockets, whatever they are,
   count for the receiver;
7. the end: six balls win; the table empty at 5:5 starts the shoot-out.

Decisions taken where the originals are silent or ambiguous:

- Without an identity reader, a ball's number is asked only where it changes the ruling: a
  drop in a called pocket (one drop that cannot be the cue ball: only whether it was the
  called ball), or (no call recorded) the first ball down. Elsewhere — the break, uncalled
  play, a pocket nobody called — any object ball counts the same: it is credited as
  ``OBJECT`` (``MatchState.unidentified`` keeps the count of balls on the table right), and
  only whether it was the cue ball is asked, when no cue-ball detector says.
- An uncalled cue ball that fell (called play) scores nothing and is no foul; the next shot is
  from hand in the kitchen ("выставление битка по обычным правилам").
- The two-cushion rule counts distinct cushions (a long rail's two halves are one cushion); a
  ball crossing the centre line counts as one. It applies when no ball was played (legally
  pocketed as called), as the original says.
  A cushion count the referee declared stands over the sensors; hits presumed after the
  contact (no click sensor) are noted when a legal ruling rests on them.
- The first shooter of the shoot-out is the player who last pocketed a ball that stayed down
  (ST-20); a penalty ball or a ball off the table is nobody's pocketing.
- In the shoot-out the same player shoots first in every round. A declared foul or a ball off
  the table scores a bullet 0 (no retake; the original is silent: option ``bullet_foul``); in
  "Игра" it scores nothing and the turn passes (the original names only the miss as losing:
  option ``igra_foul``).
- An illegal break's ``break`` / ``rebreak`` re-racks the game (``GameRestarted``); nothing was
  credited, since a break is illegal only when nothing fell.

The ``shootout`` field of the state snapshot (``null`` before the shoot-out)::

    {"round": 2,              # the round being played, from 1
     "first": 1,              # who shoots first in every round
     "shooting": 0,           # whose bullet (or "Игра" shot) comes next
     "attempt": 1,            # attempt at this bullet, 1-3 (a miss of the object ball retakes)
     "points": [1, null],     # this round's bullet points per player; null: not shot yet
     "rounds": [[0, 0]],      # earlier, tied rounds: points per player
     "igra": false,           # "Игра" is being played (no more bullets)
     "igra_by": null,         # the player who declared it
     "igra_allowed": null}    # the player who may declare it for the coming shot, or null

During the shoot-out the table is empty (``on_table`` []): the bullet's object ball is one of the
credited balls set out again; drops on a bullet resolve to ball ``BULLET_BALL``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from rules.decisions import (
    BallCredited,
    BallSpotted,
    Decision,
    FoulCalled,
    GameRestarted,
    GameWon,
    InHand,
    Noted,
    OptionChosen,
    ShooterContinues,
    Spot,
    TurnPassed,
)
from rules.errors import InvalidInput
from rules.facts import CUE, OBJECT, UNKNOWN, Ball, Call, Foul, Pocket, ShotKind, ShotRecord, Special
from rules.game import Asker, Game, Shot, cushions_touched, register
from rules.options import MatchOptions, option
from rules.state import MatchState, Status, Topic

GOAL = 6
TIED = 5
#: The object ball of a bullet, as drops on a bullet resolve (the table is empty then).
BULLET_BALL = 1
MAX_RETAKES = 2

SHOOT, HAND_BACK = "shoot", "hand_back"
REBREAK, BREAK, ACCEPT = "rebreak", "break", "accept"
RESTORE, AS_LIES = "restore", "as_lies"

#: Fouls whose pocketed balls do not count and are spotted (ST-17).
VOIDING = frozenset({Foul.TOUCHED_BALL, Foul.CUE_OFF_TABLE, Foul.FEET_OFF_FLOOR})


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
    missing_call: str = option(
        "ask",
        "a ball pocketed in called play with no call recorded: 'ask' whether it was the called "
        "shot (confirm), 'count' it as called, or 'no_count' (nothing was called)",
        ("ask", "count", "no_count"), rule="ST-6",
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


@dataclass(frozen=True, slots=True)
class Shootout:
    """The shoot-out (ST-20) and "Игра" (ST-21)."""

    first: int
    shooting: int
    round: int = 1
    misses: int = 0
    points: tuple[int | None, int | None] = (None, None)
    rounds: tuple[tuple[int, int], ...] = ()
    igra: bool = False
    igra_by: int | None = None
    igra_allowed: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "first": self.first,
            "shooting": self.shooting,
            "attempt": self.misses + 1,
            "points": list(self.points),
            "rounds": [list(r) for r in self.rounds],
            "igra": self.igra,
            "igra_by": self.igra_by,
            "igra_allowed": self.igra_allowed,
        }


@dataclass(frozen=True, slots=True)
class SiberianExtra:
    #: Balls the giver still pockets for the receiver (ST-19).
    handicap_left: int = 0
    shootout: Shootout | None = None
    #: The player who last pocketed a ball that stayed down: the shoot-out's first (ST-20).
    last_pocketer: int | None = None


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


Ruled = tuple[MatchState, list[Decision]]


def _opts(state: MatchState) -> SiberianOptions:
    """Returns the match's options as this game's own record."""
    return state.options_as(SiberianOptions)


@register
class SiberianTen(Game):
    name = "siberian-ten"
    balls = tuple(range(1, 11))
    Options = SiberianOptions
    max_calls = 2

    # ------------------------------------------------------------------ the game's frame
    def rack(self, state: MatchState) -> MatchState:
        opts = _opts(state)
        breaker = opts.handicap_giver if opts.handicap else state.breaker  # ST-19
        return self._rack(state, breaker)

    def _rack(self, state: MatchState, breaker: int) -> MatchState:
        # ST-2: all ten balls racked, the breaker's cue ball in the kitchen (ST-4).
        opts = _opts(state)
        return self.new_rack(state, breaker=breaker,
                             extra=SiberianExtra(handicap_left=opts.handicap))

    def identity_needed(self, state: MatchState, record: ShotRecord,
                        pocket: Pocket | None) -> bool:
        # Any object ball counts the same on the break, in uncalled play, on a bullet, and
        # (called play) in a pocket nobody called; with no call recorded, the missing-call
        # question names the ball.
        if state.status in (Status.BREAK, Status.SHOOTOUT) or not _opts(state).called:
            return False
        if not record.calls:
            return _opts(state).missing_call != "no_count"
        # a called cue ball: whether it fell matters, not which object ball fell beside it
        return any(c.pocket == pocket and c.ball != CUE for c in record.calls)

    def only_the_called_ball_matters(self, state: MatchState, record: ShotRecord,
                                     pocket: Pocket | None) -> bool:
        # called play: any ball but the called one counts for the opponent (ST-6…ST-8)
        return (_opts(state).called and bool(record.calls)
                and state.status not in (Status.BREAK, Status.SHOOTOUT))

    def balls_in_play(self, state: MatchState) -> tuple[int, ...]:
        if state.status is Status.SHOOTOUT:
            return (BULLET_BALL,)
        return state.on_table

    def shootout_json(self, state: MatchState) -> Any:
        extra = state.extra
        if isinstance(extra, SiberianExtra) and extra.shootout is not None:
            return extra.shootout.to_json()
        return None

    def check_call(self, state: MatchState, calls: tuple[Call, ...], kind: ShotKind) -> None:
        if state.status is Status.SHOOTOUT:
            if calls:
                raise InvalidInput("no call is made in the shoot-out")
            so = state.extra.shootout
            if kind is ShotKind.IGRA:
                if so.igra:
                    raise InvalidInput("\"Igra\" is already being played")
                if so.igra_allowed is None:
                    raise InvalidInput("\"Igra\" may be declared only after a legal bullet that "
                                       "pocketed nothing")
            elif kind is not ShotKind.NORMAL:
                raise InvalidInput(f"no {kind} shot in the shoot-out")
            return
        if kind is ShotKind.IGRA:
            raise InvalidInput("\"Igra\" is declared only in the shoot-out")
        if kind is not ShotKind.NORMAL:
            raise InvalidInput(f"Siberian Ten has no {kind} shot")
        if calls and state.status is Status.BREAK:
            raise InvalidInput("no call on the break: every ball that falls counts")
        if calls and not _opts(state).called:
            raise InvalidInput("uncalled play: no call is made")
        if len(calls) > self.max_calls:
            raise InvalidInput(f"{self.name} allows {self.max_calls} called balls per shot")
        if len({c.ball for c in calls}) != len(calls):
            raise InvalidInput("a ball can be called only once per shot")
        for call in calls:
            if call.ball != CUE and call.ball not in state.on_table:
                raise InvalidInput(f"ball {call.ball} is not on the table")

    # ------------------------------------------------------------------ one shot
    def rule(self, state: MatchState, shot: Shot, ask: Asker) -> Ruled:
        if state.status is Status.SHOOTOUT:
            return self._shootout(state, shot, ask)
        special = shot.record.special
        decisions: list[Decision] = []
        if special is Special.INTERFERENCE:  # ST-18 в)
            return self._interference(state, shot, ask)
        if special is Special.HANGING_BALL:  # ST-18 г)
            decisions = _spotted(shot, Spot.FOOT_SPOT)
            state = replace(state, ball_in_hand=InHand.KITCHEN)
            return state, [*decisions, ShooterContinues(shot.shooter, InHand.KITCHEN)]
        if special is Special.RETURNED_FROM_FLOOR:  # ST-18 а): nothing counts, turn passes
            decisions = _spotted(shot, Spot.FOOT_RAIL)
            return self._next(state, shot, decisions, state.next_player(shot.shooter),
                              InHand.NONE)
        if special is Special.ON_RAIL:  # ST-18 б): pocketed balls count, turn passes
            calls = self._calls(state, shot, ask)
            if calls is None:
                return state, decisions
            every = shot.is_break or not _opts(state).called
            counted = self._count(state, shot, None if every else calls, decisions, ask)
            if counted is None:
                return state, decisions
            return self._next(counted[0], shot, decisions, state.next_player(shot.shooter),
                              InHand.KITCHEN if shot.cue_pocketed else InHand.NONE)
        if special is not None:
            decisions.append(Noted("special_ignored", str(special)))
        if shot.is_break:
            return self._break(state, shot, ask, decisions)
        return self._play(state, shot, ask, decisions)

    def _break(self, state: MatchState, shot: Shot, ask: Asker,
               decisions: list[Decision]) -> Ruled:
        """ST-4, ST-5: everything that falls counts for the breaker; with nothing down the
        two-cushion rule holds or the opponent chooses."""
        shooter = shot.shooter
        opponent = state.next_player(shooter)
        record = shot.record
        anything = shot.objects_fell or shot.cue_pocketed
        missed = self._missed(state, shot, ask, decisions)
        if missed is None:
            return state, decisions
        fouls = self._facts_fouls(state, shot, anything, missed)
        fouls = [f for f in fouls if f is not Foul.BAD_BREAK]
        if fouls:
            return self._foul(state, shot, fouls, decisions, ask)
        if anything:
            counted = self._count(state, shot, None, decisions, ask)
            if counted is None:
                return state, decisions
            state, continues = self._jumped(state, shot, decisions, *counted)
            in_hand = InHand.KITCHEN if shot.cue_pocketed or shot.cue_off_table else InHand.NONE
            return self._next(state, shot, decisions, shooter if continues else opponent, in_hand)
        if Foul.BAD_BREAK in record.fouls:
            legal: bool | None = False
        else:
            # ST-5: the break section states the rule in its full wording, after the contact
            legal = self._two_cushions(state, shot, ask, decisions, "after_contact")
            if legal is None:
                return state, decisions
        if legal:
            state, _ = self._jumped(state, shot, decisions, state, False)
            return self._next(state, shot, decisions, opponent, InHand.NONE)
        why = Foul.BAD_BREAK if Foul.BAD_BREAK in record.fouls else Foul.TWO_CUSHION
        decisions.append(FoulCalled(shooter, (why,)))
        choice = ask.option(opponent, Topic.ILLEGAL_BREAK, (REBREAK, BREAK, ACCEPT))
        if choice is None:
            return replace(state, to_shoot=opponent), decisions
        decisions.append(OptionChosen(opponent, choice))
        if choice == ACCEPT:
            state, _ = self._jumped(state, shot, decisions, state, False)
            return self._next(state, shot, decisions, opponent, InHand.NONE)
        breaker = shooter if choice == REBREAK else opponent
        return self._rack(state, breaker), [*decisions, GameRestarted(state.game_no, breaker,
                                                                      choice)]

    def _play(self, state: MatchState, shot: Shot, ask: Asker, decisions: list[Decision]) -> Ruled:
        shooter = shot.shooter
        opponent = state.next_player(shooter)
        calls = self._calls(state, shot, ask)
        if calls is None:
            return state, decisions
        if _opts(state).called:
            legal_pot = bool(calls) and any(shot.fell_in(c.ball, c.pocket) for c in calls)
        else:
            legal_pot = shot.objects_fell
        missed = self._missed(state, shot, ask, decisions)
        if missed is None:
            return state, decisions
        fouls = self._facts_fouls(state, shot, legal_pot, missed)
        if _opts(state).two_cushions_when == "nothing_played":
            applies = not legal_pot
        else:
            applies = not shot.objects_fell and not shot.cue_pocketed
        if not fouls and applies:  # ST-14
            legal = self._two_cushions(state, shot, ask, decisions, _opts(state).two_cushions)
            if legal is None:
                return state, decisions
            if not legal:
                fouls.append(Foul.TWO_CUSHION)
        if fouls:
            return self._foul(state, shot, fouls, decisions, ask)
        counted = self._count(state, shot, calls if _opts(state).called else None,
                              decisions, ask)
        if counted is None:
            return state, decisions
        state, continues = self._jumped(state, shot, decisions, *counted)
        in_hand = InHand.KITCHEN if shot.cue_pocketed or shot.cue_off_table else InHand.NONE
        return self._next(state, shot, decisions, shooter if continues else opponent, in_hand)

    # ------------------------------------------------------------------ pieces
    @staticmethod
    def _calls(state: MatchState, shot: Shot, ask: Asker) -> tuple[Call, ...] | None:
        """Returns the shot's calls, None while asking. With no call recorded and a ball down,
        the ``missing_call`` option settles it."""
        if not _opts(state).called or shot.calls or not shot.pocketed or shot.is_break:
            return tuple(dict.fromkeys(shot.calls))
        ball, pocket = shot.pocketed[0]
        how = _opts(state).missing_call
        if pocket is None or how == "no_count":
            return ()
        if how == "ask":
            was = ask.confirm(shot.shooter, Topic.WAS_CALLED, ball=ball, pocket=pocket)
            if was is None:
                return None
            if not was:
                return ()
        return (Call(ball, pocket),)

    @staticmethod
    def _missed(state: MatchState, shot: Shot, ask: Asker,
                decisions: list[Decision]) -> bool | None:
        """Returns whether the cue ball touched no ball, None while asking. A miss is sensed
        or declared; with neither and no object ball down, the ``presume_contact`` option
        presumes contact (noted) or asks."""
        record = shot.record
        if record.first_contact is None or Foul.MISS in record.fouls:
            return True
        if record.first_contact is not UNKNOWN or shot.objects_fell:
            return False
        if record.contact_unheard:  # the click sensor heard nothing: evidence of a miss
            decisions.append(Noted("miss_unheard"))
            return True
        if _opts(state).presume_contact:
            decisions.append(Noted("contact_presumed"))
            return False
        touched = ask.confirm(shot.shooter, Topic.CONTACT)
        return None if touched is None else not touched

    @staticmethod
    def _facts_fouls(state: MatchState, shot: Shot, legal_pot: bool, missed: bool) -> list[Foul]:
        """ST-15: the declared fouls and those the facts show (not the two-cushion rule)."""
        record = shot.record
        fouls = list(dict.fromkeys(record.fouls))
        if missed and Foul.MISS not in fouls:
            fouls.append(Foul.MISS)
        if shot.balls_off_table and _opts(state).ball_off_table == "penalty":
            fouls.append(Foul.BALL_OFF_TABLE)  # the penalty list's reading (ST-15)
        # ST-11: the cue ball off the table is no foul after a legal pot (its decision); without
        # one it is a foul (penalty item д) unless the option reads the dedicated rule
        if (shot.cue_off_table and _opts(state).cue_off_table == "penalty"
                and (fouls or not legal_pot)):
            fouls.append(Foul.CUE_OFF_TABLE)
        return fouls

    @staticmethod
    def _two_cushions(state: MatchState, shot: Shot, ask: Asker, decisions: list[Decision],
                      reading: str) -> bool | None:
        """ST-14: returns whether the two-cushion rule was met as ``reading`` (a value of the
        ``two_cushions`` option) has it: by default, the balls touched two cushions after
        contact, the centre line counting as one. None while asking."""
        opts = _opts(state)
        record = shot.record
        cushions = cushions_touched(record, before_too=reading == "before_or_after")
        if cushions is UNKNOWN:
            if opts.cushions_unknown == "legal":
                decisions.append(Noted("two_cushions_presumed"))
                return True
            if reading == "cue_ball":
                return ask.confirm(shot.shooter, Topic.CUE_BALL_TWO_CUSHIONS)
            return ask.confirm(shot.shooter, Topic.TWO_CUSHIONS)
        # hits the sensors presumed after the contact (no click sensor) carry a legal ruling
        presumed = (record.cushion_count is UNKNOWN and record.cushions_presumed
                    and reading != "before_or_after")
        if reading == "cue_ball":  # penalty item ж: the cue ball's own two cushions
            if cushions < 2:
                return False  # fewer cushions in all cannot be two by the cue ball
            if record.cushion_count is not UNKNOWN:
                return True  # the referee counted what the rule needs
            legal = ask.confirm(shot.shooter, Topic.CUE_BALL_TWO_CUSHIONS)
        elif cushions != 1:
            legal = cushions >= 2
        elif record.centre_line is not UNKNOWN:
            legal = record.centre_line
        elif opts.centre_line_unknown == "ask":
            legal = ask.confirm(shot.shooter, Topic.CENTRE_LINE)
        else:
            decisions.append(Noted("centre_line_presumed", opts.centre_line_unknown))
            legal = opts.centre_line_unknown == "crossed"
        if legal and presumed:
            decisions.append(Noted("cushions_presumed_after_contact"))
        return legal

    def _interference(self, state: MatchState, shot: Shot, ask: Asker) -> Ruled:
        """ST-18 в): the shot is replayed; the position is restored, or, with the
        ``interference`` option 'ask', as the injured player (the shooter) chooses."""
        shooter = shot.shooter
        if _opts(state).interference == "replay":
            return state, [Noted("replayed", "interference"),
                           ShooterContinues(shooter, state.ball_in_hand)]
        choice = ask.option(shooter, Topic.INTERFERENCE, (RESTORE, AS_LIES))
        if choice is None:
            return state, []
        decisions: list[Decision] = [OptionChosen(shooter, choice),
                                     Noted("replayed", "interference")]
        if choice == RESTORE:
            return state, [*decisions, ShooterContinues(shooter, state.ball_in_hand)]
        decisions += _spotted(shot, Spot.FOOT_SPOT)
        in_hand = InHand.KITCHEN if shot.cue_pocketed or shot.cue_off_table else InHand.NONE
        state = replace(state, ball_in_hand=in_hand)
        return state, [*decisions, ShooterContinues(shooter, in_hand)]

    def _count(self, state: MatchState, shot: Shot, calls: tuple[Call, ...] | None,
               decisions: list[Decision], ask: Asker) -> tuple[MatchState, bool] | None:
        """Credits the balls of a shot without a foul; returns the state and whether the
        shooter continues, None while the opponent's pick is asked. ``calls`` None: every ball
        counts for the shooter (the break, uncalled play)."""
        shooter = shot.shooter
        opponent = state.next_player(shooter)
        for ball, pocket in shot.pocketed:
            if calls is None or any(c.ball == ball and c.pocket == pocket for c in calls):
                state = self._credit(state, shooter, ball, decisions, by=shooter)  # ST-6, ST-13
            else:
                state = self._credit(state, opponent, ball, decisions, by=shooter)  # ST-6…ST-8
        for _ in shot.unidentified:  # a number that changes nothing: no called pocket's ball
            to = shooter if calls is None else opponent
            state = self._credit(state, to, OBJECT, decisions, by=shooter)
        cue_to: int | None = None
        if calls is None:
            cue_to = shooter if shot.cue_pocketed else None
            continues = shot.objects_fell or shot.cue_pocketed
        else:
            if any(c.ball == CUE and shot.fell_in(CUE, c.pocket) for c in calls):
                cue_to = shooter  # ST-9
            elif _cue_elsewhere(shot, calls):
                cue_to = opponent  # ST-8: «этот шар и очередность удара переходит сопернику»
            continues = bool(calls) and all(shot.fell_in(c.ball, c.pocket) for c in calls)
        if cue_to is not None and self._winner(state) is None:
            if state.on_table:  # the opponent takes a table ball for the cue ball (ST-9)
                picked = self._pick(state, opponent, ask, Topic.CUE_BALL_COUNTS, to=cue_to)
                if picked is None:
                    return None
                state = self._credit(state, cue_to, picked, decisions, by=shooter,
                                     pocketed=False)
            else:
                state = self._credit(state, cue_to, CUE, decisions, by=shooter)
        return state, continues and not shot.cue_off_table  # ST-11

    def _foul(self, state: MatchState, shot: Shot, fouls: list[Foul],
              decisions: list[Decision], ask: Asker) -> Ruled:
        """ST-15…ST-17 (and ST-12 alone without a penalty ball, by default)."""
        opts = _opts(state)
        shooter = shot.shooter
        opponent = state.next_player(shooter)
        decisions.append(FoulCalled(shooter, tuple(fouls)))
        voided = any(f in VOIDING for f in fouls)
        if voided:  # ST-17
            decisions += _spotted(shot, Spot.FOOT_RAIL)
        else:  # ST-16
            for ball in _fallen(shot):
                state = self._credit(state, opponent, ball, decisions, by=shooter)
        state = self._off_table(state, shot, decisions)  # ST-10
        kitchen_only = fouls == [Foul.DIRECT_HIT_IN_KITCHEN] and not opts.kitchen_penalty
        if kitchen_only:  # ST-12: the opponent plays on from the kitchen
            return self._next(state, shot, decisions, opponent, InHand.KITCHEN)
        scratch = shot.cue_pocketed or shot.cue_off_table
        in_hand = InHand.KITCHEN if opts.after_foul == "kitchen" or scratch else InHand.NONE
        if self._ends(state):
            return self._next(state, shot, decisions, opponent, in_hand)
        # ST-16: the penalty ball, the opponent's choice (the table is not empty: see _ends)
        picked = self._pick(state, opponent, ask, Topic.PENALTY_BALL, to=opponent)
        if picked is None:
            # Which ball does not change whether the game ends here; if it does, ask no more.
            if self._ends(self._credit(state, opponent, state.on_table[0], [])):
                return replace(state, to_shoot=opponent), decisions
        else:
            state = self._credit(state, opponent, picked, decisions)
            if self._ends(state):
                return self._next(state, shot, decisions, opponent, in_hand)
        choice = ask.option(opponent, Topic.SHOOT_OR_HAND_BACK, (SHOOT, HAND_BACK),
                            reason="foul")
        if choice is None or picked is None:
            return replace(state, status=Status.IN_PLAY, to_shoot=opponent,
                           ball_in_hand=in_hand), decisions
        decisions.append(OptionChosen(opponent, choice))
        to = opponent if choice == SHOOT else shooter
        return self._next(state, shot, decisions, to, in_hand)

    @staticmethod
    def _pick(state: MatchState, player: int, ask: Asker, topic: Topic,
              **about: Any) -> Ball | None:
        """Returns the ball ``player`` takes off the table, None while asking. Nobody is asked
        when there is no choice: one ball left (``OBJECT`` when its number is not known), or
        plain balls (uncalled play)."""
        if len(state.on_table) == 1:
            return state.on_table[0]
        if state.balls_left == 1 or not _opts(state).called:
            return OBJECT
        return ask.pick_ball(player, topic, state.on_table, **about)

    def _jumped(self, state: MatchState, shot: Shot, decisions: list[Decision],
                counted: MatchState, continues: bool) -> tuple[MatchState, bool]:
        """ST-10 on a shot without a foul (option ``ball_off_table`` 'opponent'): returns the
        state ``counted`` with the balls driven off the table credited to the opponent, and
        whether the shooter continues (not after a ball left the table)."""
        if not shot.balls_off_table:
            return counted, continues
        decisions.append(Noted("ball_off_table_to_opponent", about=(
            ("balls", tuple(dict.fromkeys(shot.balls_off_table))),)))
        return self._off_table(counted, shot, decisions), False

    def _off_table(self, state: MatchState, shot: Shot, decisions: list[Decision]) -> MatchState:
        """ST-10: credits the object balls driven off the table to the shooter's opponent."""
        opponent = state.next_player(shot.shooter)
        for ball in dict.fromkeys(shot.balls_off_table):
            if ball in state.on_table and ball not in shot.balls_pocketed:
                state = self._credit(state, opponent, ball, decisions)
        return state

    @staticmethod
    def _credit(state: MatchState, player: int, ball: Ball, decisions: list[Decision],
                by: int | None = None, pocketed: bool = True) -> MatchState:
        """Credits ``ball`` (off the table) to ``player``; ``by``: the player who pocketed it
        (None: a penalty ball, a ball off the table), or whose pocketed cue ball it stands for
        (``pocketed`` False, ST-9). The giver's first pocketed balls, whoever they go to, use
        up the handicap, and one that would be the giver's goes to the receiver (ST-19)."""
        opts = _opts(state)
        extra: SiberianExtra = state.extra
        if by is not None:
            extra = replace(extra, last_pocketer=by)
            state = replace(state, extra=extra)
        if by == opts.handicap_giver and extra.handicap_left > 0:
            player = state.next_player(by)  # the ball counts for the receiver
            state = replace(state, extra=replace(extra, handicap_left=extra.handicap_left - 1))
            decisions.append(Noted("handicap", str(ball), about=(("ball", ball), ("to", player))))
        p = state.players[player]
        state = state.with_player(player, score=p.score + 1, balls=(*p.balls, ball))
        if ball == OBJECT:
            state = state.without_unidentified()
        elif isinstance(ball, int):
            state = state.without_balls({ball})
        decisions.append(BallCredited(player, ball, pocketed=pocketed and by is not None))
        return state

    @staticmethod
    def _winner(state: MatchState) -> int | None:
        return next((i for i, p in enumerate(state.players) if p.score >= GOAL), None)

    def _ends(self, state: MatchState) -> bool:
        """Returns True when the game is won or goes to the shoot-out in this state."""
        return self._winner(state) is not None or not state.on_table

    def _next(self, state: MatchState, shot: Shot, decisions: list[Decision], to: int,
              in_hand: InHand) -> Ruled:
        """Ends the game at six (ST-3), starts the shoot-out on an empty table (ST-20), or gives
        the next shot to ``to``."""
        winner = self._winner(state)
        if winner is not None:
            return replace(state, status=Status.GAME_OVER), [
                *decisions, GameWon(winner, state.game_no, "six_balls")]
        if not state.on_table:  # 5:5: ten balls credited, nobody at six
            # ST-20: «Первым бьет игрок, последним забившим шар» (a penalty ball or a ball off
            # the table is nobody's pocketing)
            pocketer = state.extra.last_pocketer
            first = shot.shooter if pocketer is None else pocketer
            so = Shootout(first=first, shooting=first)
            state = replace(state, status=Status.SHOOTOUT, to_shoot=first,
                            ball_in_hand=InHand.NONE, extra=replace(state.extra, shootout=so))
            return state, [*decisions, ShootoutStarted(first)]
        state = replace(state, status=Status.IN_PLAY, to_shoot=to, ball_in_hand=in_hand)
        if to == shot.shooter and not any(isinstance(d, OptionChosen) for d in decisions):
            return state, [*decisions, ShooterContinues(to, in_hand)]
        return state, [*decisions, TurnPassed(to, in_hand)]

    # ------------------------------------------------------------------ the shoot-out
    def _shootout(self, state: MatchState, shot: Shot, ask: Asker) -> Ruled:
        """ST-20 bullets and ST-21 "Игра"."""
        so: Shootout = state.extra.shootout
        shooter = shot.shooter
        other = state.next_player(shooter)
        record = shot.record
        decisions: list[Decision] = []
        if record.special is Special.INTERFERENCE:
            return state, [Noted("replayed", "interference"), ShooterContinues(shooter)]
        missed = self._missed(state, shot, ask, decisions)
        if missed is None:
            return state, decisions
        declared = [f for f in dict.fromkeys(record.fouls) if f is not Foul.MISS]
        fouls = list(declared)
        if shot.cue_off_table:
            fouls.append(Foul.CUE_OFF_TABLE)
        if shot.balls_off_table:
            fouls.append(Foul.BALL_OFF_TABLE)
        fell = shot.objects_fell or shot.cue_pocketed
        if not so.igra and record.kind is ShotKind.IGRA:
            if so.igra_allowed == other:
                so = replace(so, igra=True, igra_by=other, igra_allowed=None)
                decisions.append(IgraDeclared(other))
            else:
                decisions.append(Noted("igra_refused", "not after a legal bullet with nothing down"))

        if so.igra:  # ST-21: first to pocket a ball wins; a miss loses; a foul: an option
            if fouls:
                decisions.append(FoulCalled(shooter, tuple(fouls)))
            if missed or fouls and _opts(state).igra_foul == "loses":
                why = "igra_miss" if missed else "igra_foul"
                return self._shootout_won(state, so, other, decisions, why)
            if fouls:  # the original names only the miss: the foul scores nothing
                decisions += [BallSpotted(BULLET_BALL, Spot.FOOT_SPOT)] * shot.objects_fell
                in_hand = (InHand.KITCHEN if shot.cue_pocketed or shot.cue_off_table
                           else InHand.NONE)
                so = replace(so, shooting=other)
                state = replace(state, to_shoot=other, ball_in_hand=in_hand,
                                extra=replace(state.extra, shootout=so))
                return state, [*decisions, TurnPassed(other, in_hand)]
            if fell:
                return self._shootout_won(state, so, shooter, decisions, "igra")
            so = replace(so, shooting=other)
            state = replace(state, to_shoot=other, extra=replace(state.extra, shootout=so))
            return state, [*decisions, TurnPassed(other)]

        # ST-20: a miss is retaken; a declared foul too, if the ``bullet_foul`` option says so
        retaken_foul = (bool(declared) and fouls == declared
                        and _opts(state).bullet_foul == "retake")
        if (missed and not fouls or retaken_foul) and so.misses < MAX_RETAKES:
            if fouls:
                decisions.append(FoulCalled(shooter, tuple(fouls)))
            so = replace(so, misses=so.misses + 1, igra_allowed=None)
            state = replace(state, extra=replace(state.extra, shootout=so))
            return state, [*decisions, BulletRetaken(shooter, so.misses),
                           ShooterContinues(shooter)]
        if fouls:
            decisions.append(FoulCalled(shooter, tuple(fouls)))
        points = 0 if missed or fouls else int(shot.objects_fell) + int(shot.cue_pocketed)
        decisions.append(BulletScored(shooter, points, so.round))
        scored = list(so.points)
        scored[shooter] = points
        legal_blank = not missed and not fouls and points == 0
        first_done = scored[other] is None
        if first_done:
            so = replace(so, points=(scored[0], scored[1]), shooting=other, misses=0,
                         igra_allowed=shooter if legal_blank else None)
        else:
            a, b = scored[0] or 0, scored[1] or 0
            if a != b:
                so = replace(so, points=(a, b))
                return self._shootout_won(state, so, 0 if a > b else 1, decisions, "shootout")
            decisions.append(RoundTied(so.round, a))
            so = replace(so, round=so.round + 1, points=(None, None), rounds=(*so.rounds, (a, b)),
                         shooting=so.first, misses=0,
                         igra_allowed=shooter if legal_blank and so.first != shooter else None)
        state = replace(state, to_shoot=so.shooting, extra=replace(state.extra, shootout=so))
        return state, [*decisions, TurnPassed(so.shooting)]

    @staticmethod
    def _shootout_won(state: MatchState, so: Shootout, winner: int, decisions: list[Decision],
                      why: str) -> Ruled:
        so = replace(so, igra_allowed=None)
        state = replace(state, status=Status.GAME_OVER, extra=replace(state.extra, shootout=so))
        return state, [*decisions, GameWon(winner, state.game_no, why)]


def _cue_elsewhere(shot: Shot, calls: tuple[Call, ...]) -> bool:
    """Returns True when the cue ball was called and fell in a known pocket not called for it
    (ST-8: «Если второй из заказанных шаров упал в другую (не заказанную) лузу»)."""
    pockets = {c.pocket for c in calls if c.ball == CUE}
    return (bool(pockets) and shot.cue_pocketed and shot.cue_pocket is not None
            and shot.cue_pocket not in pockets)


def _spotted(shot: Shot, spot: Spot) -> list[Decision]:
    """Returns the spotting of every object ball that fell on the shot, numbered or not."""
    return [BallSpotted(b, spot) for b in _fallen(shot)]


def _fallen(shot: Shot) -> tuple[Ball, ...]:
    """Returns the object balls that fell on the shot: numbers, then ``OBJECT`` for each
    ball of no known number."""
    return (*shot.balls_pocketed, *(OBJECT for _ in shot.unidentified))
