"""The formats' draws: single elimination, double elimination, round robin in groups with a
single-elimination playoff. Each returns a ``Draw`` (the matches and where their players come
from); byes fill a bracket up to a power of two, given to the best seeds."""

from __future__ import annotations

from collections.abc import Sequence

from tournament.errors import BadDraw
from tournament.records import (
    Bye,
    Draw,
    Entrant,
    Format,
    GroupPlace,
    LoserOf,
    Match,
    PlayerId,
    Source,
    Stage,
    WinnerOf,
)
from tournament.seeding import bracket_size, check_unique, seed_positions


def seeded_slots(seeds: Sequence[PlayerId]) -> list[Source]:
    """Returns the first round's slots in bracket order, byes for the seeds no one holds."""
    size = bracket_size(len(seeds))
    return [Entrant(seeds[s - 1]) if s <= len(seeds) else Bye() for s in seed_positions(size)]


def knockout(slots: Sequence[Source], stage: Stage, prefix: str) -> list[Match]:
    """Returns a knockout's matches over ``slots`` (a power of two, bracket order): round 1
    pairs neighbours, each later round the winners of two neighbouring matches."""
    matches: list[Match] = []
    current = list(slots)
    number = 1
    while len(current) > 1:
        played = [Match(f"{prefix}{number}-{i + 1}", stage, f"{prefix}{number}", current[2 * i],
                        current[2 * i + 1]) for i in range(len(current) // 2)]
        matches += played
        current = [WinnerOf(m.id) for m in played]
        number += 1
    return matches


def single_elimination(seeds: Sequence[PlayerId]) -> Draw:
    """Returns the draw of «олимпийская система» for ``seeds`` (best first); raises BadDraw for
    fewer than two players or one named twice."""
    check_entry(seeds)
    return Draw(Format.SINGLE, tuple(seeds), tuple(knockout(seeded_slots(seeds), Stage.WINNERS, "W")))


def double_elimination(seeds: Sequence[PlayerId]) -> Draw:
    """Returns the draw of a double elimination for ``seeds``: the winners' bracket, the losers'
    bracket (each winners' round's losers drop in, in reverse order so that two players meet
    again as late as may be) and the grand final with its reset («GF2», played only if the
    losers' bracket champion wins «GF1»). Raises BadDraw as ``single_elimination``."""
    check_entry(seeds)
    winners = knockout(seeded_slots(seeds), Stage.WINNERS, "W")
    rounds = [[m for m in winners if m.round == f"W{r}"] for r in range(1, len(winners) + 1)]
    rounds = [r for r in rounds if r]
    losers = losers_bracket(rounds)
    champion_of_losers: Source = WinnerOf(losers[-1].id) if losers else LoserOf(rounds[-1][0].id)
    first = Match("GF1", Stage.GRAND_FINAL, "GF", WinnerOf(rounds[-1][0].id), champion_of_losers)
    reset = Match("GF2", Stage.GRAND_FINAL, "GF", WinnerOf("GF1"), LoserOf("GF1"), reset_of="GF1")
    return Draw(Format.DOUBLE, tuple(seeds), tuple(winners + losers + [first, reset]))


def losers_bracket(rounds: Sequence[Sequence[Match]]) -> list[Match]:
    """Returns the losers' bracket fed by the winners' ``rounds``: round 1 pairs the first
    round's losers; then, for each later winners' round, one round where its losers meet the
    survivors and (but after the last) one round where the survivors meet each other."""
    if len(rounds) < 2:
        return []
    first = rounds[0]
    matches: list[Match] = []
    survivors: list[Source] = [LoserOf(m.id) for m in first]
    survivors = pair_round(matches, survivors, "L1")
    number = 2
    for winners_round in rounds[1:]:
        dropped: list[Source] = [LoserOf(m.id) for m in reversed(winners_round)]
        key = f"L{number}"
        played = [Match(f"{key}-{i + 1}", Stage.LOSERS, key, survivor, drop)
                  for i, (survivor, drop) in enumerate(zip(survivors, dropped, strict=True))]
        matches += played
        survivors = [WinnerOf(m.id) for m in played]
        number += 1
        if len(survivors) > 1:
            survivors = pair_round(matches, survivors, f"L{number}")
            number += 1
    return matches


def pair_round(matches: list[Match], slots: Sequence[Source], key: str) -> list[Source]:
    """Appends to ``matches`` a round pairing neighbouring ``slots``; returns its winners."""
    played = [Match(f"{key}-{i + 1}", Stage.LOSERS, key, slots[2 * i], slots[2 * i + 1])
              for i in range(len(slots) // 2)]
    matches += played
    return [WinnerOf(m.id) for m in played]


def round_robin_groups(seeds: Sequence[PlayerId], groups: int, advance: int) -> Draw:
    """Returns the draw of «круговая» in ``groups`` groups (seeds dealt snake-wise, so each group
    has one of the best), every pair of a group meeting once, then a single-elimination playoff
    of the first ``advance`` (1 or 2) of each group: group winners seeded first, each meeting a
    runner-up of another group. Raises BadDraw for a group of fewer than two players or an
    ``advance`` other than 1 or 2."""
    check_entry(seeds)
    if groups < 1 or len(seeds) < 2 * groups:
        raise BadDraw("each group needs at least two players: fewer groups, or more players")
    if advance not in (1, 2) or groups * advance < 2:
        raise BadDraw("one or two of each group go through, at least two in all")
    members = deal(seeds, groups)
    names = tuple(chr(ord("A") + g) for g in range(groups))
    matches = [m for name, group in zip(names, members, strict=True) for m in group_matches(name, group)]
    playoff = knockout(playoff_slots(names, advance), Stage.PLAYOFF, "P")
    return Draw(Format.GROUPS, tuple(seeds), tuple(matches + playoff),
                tuple((name, tuple(group)) for name, group in zip(names, members, strict=True)))


def deal(seeds: Sequence[PlayerId], groups: int) -> list[list[PlayerId]]:
    """Returns the groups, seeds dealt snake-wise (1..g, then g..1, ...)."""
    members: list[list[PlayerId]] = [[] for _ in range(groups)]
    for i, player in enumerate(seeds):
        lap, at = divmod(i, groups)
        members[at if lap % 2 == 0 else groups - 1 - at].append(player)
    return members


def group_matches(name: str, players: Sequence[PlayerId]) -> list[Match]:
    """Returns every pair of ``players`` once, in rounds by the circle method (no one plays
    twice in a round); the round key of every group match is ``G``."""
    circle: list[PlayerId | None] = list(players) + ([None] if len(players) % 2 else [])
    matches: list[Match] = []
    half = len(circle) // 2
    for _ in range(len(circle) - 1):
        for i in range(half):
            a, b = circle[i], circle[-1 - i]
            if a is not None and b is not None:
                number = len(matches) + 1
                matches.append(Match(f"{name}-{number}", Stage.GROUP, "G", Entrant(a), Entrant(b),
                                     group=name))
        circle = [circle[0], circle[-1], *circle[1:-1]]
    return matches


def playoff_slots(names: Sequence[str], advance: int) -> list[Source]:
    """Returns the playoff's first-round slots: group winners in seed order, and with
    ``advance`` 2 each facing the runner-up of the group half the groups away."""
    winners = [GroupPlace(name, 1) for name in names]
    if advance == 1:
        size = bracket_size(len(winners))
        return [winners[s - 1] if s <= len(winners) else Bye() for s in seed_positions(size)]
    size = bracket_size(len(names))
    pairs: list[Source] = []
    for s in seed_positions(size):
        if s > len(names):
            pairs += [Bye(), Bye()]
            continue
        other = names[(s - 1 + len(names) // 2) % len(names)] if len(names) > 1 else names[0]
        pairs += [winners[s - 1], GroupPlace(other, 2)]
    return pairs


def check_entry(seeds: Sequence[PlayerId]) -> None:
    """Raises BadDraw for fewer than two players or a player named twice."""
    if len(seeds) < 2:
        raise BadDraw("a tournament needs at least two players")
    check_unique(seeds)
