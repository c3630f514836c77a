"""The draws, by example: seeding, byes, the double elimination's losers' bracket and reset,
groups and their playoff, races, handicaps, walkovers, corrections and tables."""

from __future__ import annotations

import pytest

from tournament import (
    BadAssignment,
    BadDraw,
    BadResult,
    Handicap,
    Handicaps,
    Races,
    Status,
    Tournament,
    Vacant,
    by_hand,
    by_rating,
    double_elimination,
    round_robin_groups,
    single_elimination,
)
from tournament.records import Entrant, GroupPlace, LoserOf
from tournament.seeding import seed_positions

EIGHT = [f"p{i}" for i in range(1, 9)]


@pytest.mark.parametrize(("size", "order"), [
    (2, [1, 2]), (4, [1, 4, 2, 3]), (8, [1, 8, 4, 5, 2, 7, 3, 6]),
])
def test_seeds_one_and_two_meet_only_in_the_final(size: int, order: list[int]) -> None:
    assert seed_positions(size) == order


def test_seeding_by_rating_puts_the_unrated_last_and_by_hand_must_name_everyone() -> None:
    assert by_rating(["a", "b", "c", "d"], {"c": 1700, "a": 1500, "d": 1600}) == ("c", "d", "a", "b")
    assert by_hand(["a", "b"], ["b", "a"]) == ("b", "a")
    with pytest.raises(BadDraw):
        by_hand(["a", "b", "c"], ["b", "a"])
    with pytest.raises(BadDraw):
        single_elimination(["a", "a", "b"])
    with pytest.raises(BadDraw):
        single_elimination(["a"])


def test_byes_go_to_the_best_seeds_who_go_through_unplayed() -> None:
    tournament = Tournament(single_elimination(["s1", "s2", "s3", "s4", "s5"]))
    state = tournament.progress()
    unplayed = [m for m, s in state.status.items() if s is Status.UNPLAYED]
    assert unplayed == ["W1-1", "W1-3", "W1-4"]  # s1, s2 and s3 have byes
    assert [state.winners[m] for m in unplayed] == ["s1", "s2", "s3"]
    assert state.ready() == ["W1-2", "W2-2"] and state.players("W1-2") == ("s4", "s5")
    assert state.seats["W2-2"] == ("s2", "s3")  # ready at once: both had byes


def test_sixteen_double_elimination_has_thirty_matches_and_a_reset() -> None:
    draw = double_elimination([f"p{i}" for i in range(1, 17)])
    rounds = [m.round for m in draw.matches]
    assert (rounds.count("W1"), rounds.count("W4")) == (8, 1)
    assert [rounds.count(f"L{r}") for r in range(1, 7)] == [4, 4, 2, 2, 1, 1]
    assert [m.id for m in draw.matches][-2:] == ["GF1", "GF2"]
    # the winners' second round's losers drop in reversed, away from whom they lost to
    assert [m.b for m in draw.matches if m.round == "L2"] == [
        LoserOf("W2-4"), LoserOf("W2-3"), LoserOf("W2-2"), LoserOf("W2-1")]


def play_out(tournament: Tournament, beaten: set[str]) -> Tournament:
    """Plays every ready match: the lower-numbered player wins unless he is in ``beaten``."""
    while not tournament.progress().finished:
        pairing = tournament.ready()[0]
        a, b = pairing.players
        winner = min(a, b, key=lambda p: (p in beaten, int(p[1:])))
        tournament = tournament.record(pairing.match, winner).tournament
    return tournament


def test_the_reset_is_played_only_when_the_losers_champion_wins_the_first_final() -> None:
    state = play_out(Tournament(double_elimination(["p1", "p2", "p3", "p4"])), set()).progress()
    assert state.status["GF2"] is Status.UNPLAYED and state.champion == "p1"
    tournament = Tournament(double_elimination(["p1", "p2", "p3", "p4"]))
    for match, winner in [("W1-1", "p1"), ("W1-2", "p2"), ("W2-1", "p1"), ("L1-1", "p3"),
                          ("L2-1", "p2"), ("GF1", "p2")]:
        tournament = tournament.record(match, winner).tournament
    state = tournament.progress()
    assert state.ready() == ["GF2"] and state.players("GF2") == ("p2", "p1")
    assert state.losses("p1") == state.losses("p2") == 1


def test_groups_are_dealt_snake_wise_and_the_playoff_crosses_them() -> None:
    draw = round_robin_groups(EIGHT, groups=2, advance=2)
    assert draw.groups == (("A", ("p1", "p4", "p5", "p8")), ("B", ("p2", "p3", "p6", "p7")))
    group_a = [m for m in draw.matches if m.group == "A"]
    assert len(group_a) == 6
    for first in range(0, 6, 2):  # the circle method: each player once in each round of two
        a, b = group_a[first], group_a[first + 1]
        assert isinstance(a.a, Entrant) and isinstance(a.b, Entrant)
        assert isinstance(b.a, Entrant) and isinstance(b.b, Entrant)
        assert len({a.a.player, a.b.player, b.a.player, b.b.player}) == 4
    semis = [m for m in draw.matches if m.round == "P1"]
    assert [(m.a, m.b) for m in semis] == [(GroupPlace("A", 1), GroupPlace("B", 2)),
                                          (GroupPlace("B", 1), GroupPlace("A", 2))]


def test_a_group_ranks_by_wins_then_frame_difference() -> None:
    tournament = Tournament(round_robin_groups(["a", "b", "c"], groups=1, advance=2))
    for match in tournament.progress().ready():
        players = tournament.progress().players(match)
        assert players is not None
        scores = {("a", "b"): (5, 4), ("b", "a"): (4, 5), ("b", "c"): (5, 0), ("c", "b"): (0, 5),
                  ("a", "c"): (3, 5), ("c", "a"): (5, 3)}
        score = scores[players]
        winner = players[0] if score[0] > score[1] else players[1]
        tournament = tournament.record(match, winner, score).tournament
    # a, b and c have one win each: b +4, c -3, a -1
    assert tournament.progress().players("P1-1") == ("b", "a")


def test_races_per_round_and_handicaps_per_pairing() -> None:
    tournament = Tournament(single_elimination(["p1", "p2", "p3", "p4"]),
                            Races(default=3, by_round=(("W2", 5),)),
                            Handicaps((("p1", 4), ("p4", 1), ("p2", 2)), cap=2))
    first = tournament.pairing("W1-1")
    assert (first.players, first.race, first.handicap) == (("p1", "p4"), 3, Handicap("p4", 2))
    assert tournament.pairing("W1-2").handicap == Handicap("p3", 2)
    for match, winner in [("W1-1", "p1"), ("W1-2", "p2")]:
        tournament = tournament.record(match, winner).tournament
    final = tournament.pairing("W2-1")
    assert (final.race, final.handicap) == (5, Handicap("p2", 2))
    assert Handicaps((("a", 1),)).pairing("a", "a") is None


def test_results_are_refused_for_matches_not_ready_or_players_not_in_them() -> None:
    tournament = Tournament(single_elimination(EIGHT))
    with pytest.raises(BadResult):
        tournament.record("W2-1", "p1")
    with pytest.raises(BadResult):
        tournament.record("W1-1", "p2")
    with pytest.raises(BadResult):
        tournament.record("W1-1", "p1", (3, 5))
    with pytest.raises(BadResult):
        tournament.record("W9-9", "p1")


def test_a_walkover_is_a_loss_without_a_score() -> None:
    change = Tournament(double_elimination(EIGHT)).walkover("W1-1", "p8")
    state = change.tournament.progress()
    assert state.counted["W1-1"].walkover and state.counted["W1-1"].score is None
    assert state.losses("p1") == 1 and state.seats["L1-1"][0] == "p1"
    assert change.changed == ()


def test_a_correction_names_the_later_matches_it_changes() -> None:
    tournament = Tournament(single_elimination(EIGHT))
    for match, winner in [("W1-1", "p1"), ("W1-2", "p4"), ("W2-1", "p1"), ("W1-3", "p2")]:
        tournament = tournament.record(match, winner).tournament
    change = tournament.record("W1-1", "p8", (5, 7))
    state = change.tournament.progress()
    # the semi-final now has p8 (p1's win over p4 there no longer counts): the final loses p1
    assert change.changed == ("W2-1", "W3-1")
    assert state.players("W2-1") == ("p8", "p4") and state.status["W2-1"] is Status.READY
    assert state.seats["W3-1"] == (None, None)


def test_a_table_takes_one_match_and_a_correction_frees_a_stale_one() -> None:
    tournament = Tournament(single_elimination(EIGHT)).fill(["t1", "t2"])
    assert dict(tournament.tables) == {"W1-1": "t1", "W1-2": "t2"}
    with pytest.raises(BadAssignment):
        tournament.assign("W1-3", "t1")
    moved = tournament.assign("W1-1", "t3")
    assert dict(moved.tables) == {"W1-1": "t3", "W1-2": "t2"}
    assert moved.on_table("t3") is not None and moved.on_table("t1") is None
    for match, winner in [("W1-1", "p1"), ("W1-2", "p4")]:
        tournament = tournament.record(match, winner).tournament
    tournament = tournament.assign("W2-1", "t1")
    change = tournament.record("W1-2", "p5")
    assert "W2-1" in change.changed and dict(change.tournament.tables) == {"W2-1": "t1"}
    assert change.tournament.pairing("W2-1").players == ("p1", "p5")
    three = Tournament(single_elimination(["p1", "p2", "p3"])).progress()
    assert three.losers["W1-1"] is Vacant.BYE


def test_a_player_in_two_ready_group_matches_is_put_on_one_table() -> None:
    tournament = Tournament(round_robin_groups(["a", "b", "c", "d"], groups=1, advance=2))
    filled = tournament.fill(["t1", "t2", "t3"])
    seated = [p for m in filled.tables for p in filled.pairing(m).players]
    assert len(filled.tables) == 2 and len(seated) == len(set(seated)) == 4
