"""The live statistics the table carries in its state (issue 30): runs, the best run,
break-and-runs and rack times, worked out from the match's shots as ruled now.

The first tests feed ``live_stats`` hand-built shots whose figures are worked out by hand
from the rules; the others play a real table (the referee's own rulings), with undo, redo
and a shot ruled again, and compare with the match played that way from the start."""

from __future__ import annotations

import time
from typing import Any

from controller.pipeline.livestats import LiveStats, RuledShot, Run, live_stats
from controller.pipeline.table import Table
from rules import Foul
from rules.decisions import (
    BallCredited,
    BallStaysDown,
    Decision,
    FoulCalled,
    GameRestarted,
    GameWon,
    MatchWon,
    ShooterContinues,
    TurnPassed,
)

A, B = 0, 1


def shot(shooter: int, t: float, *decisions: Decision) -> RuledShot:
    return RuledShot(shooter, decisions, t)


def test_a_run_is_what_the_shooter_scores_in_one_visit_and_the_best_the_longest():
    shots = [
        shot(A, 110, BallCredited(A, 1), ShooterContinues(A)),
        shot(A, 120, BallCredited(A, 2), BallCredited(A, 3), ShooterContinues(A)),
        shot(A, 130, TurnPassed(B)),  # A's visit: 3 balls
        shot(B, 140, BallCredited(B, 4), ShooterContinues(B)),
    ]
    stats = live_stats(shots, players=2, t0=100.0, to_shoot=B, over=False)
    assert stats == LiveStats(run=Run(B, 1), best=Run(A, 3), break_runs=[0, 0], rack_t0=100.0)
    assert stats.to_json() == {"run": {"player": B, "size": 1}, "best": {"player": A, "size": 3},
                               "break_runs": [0, 0], "rack_t0": 100.0, "racks_s": []}


def test_a_penalty_ball_is_not_the_shooters_and_a_foul_ends_the_visit():
    """ST: a foul gives the opponent a penalty ball; handed back, the offender's next shot
    begins a new visit (the run before the foul does not go on)."""
    shots = [
        shot(A, 110, BallCredited(A, 1), ShooterContinues(A)),
        shot(A, 120, FoulCalled(A, (Foul.MISS,)), BallCredited(B, 2), TurnPassed(A)),
        shot(A, 130, BallCredited(A, 3), ShooterContinues(A)),
    ]
    stats = live_stats(shots, players=2, t0=100.0, to_shoot=A, over=False)
    assert stats.run == Run(A, 1)  # not 2: the foul ended the first visit
    assert stats.best == Run(A, 1)  # the first of two equal runs; B never shot
    before = live_stats(shots[:2], players=2, t0=100.0, to_shoot=A, over=False)
    assert before.run == Run(A, 0)  # handed back after the foul: a visit yet to score


def test_a_pyramid_run_counts_points():
    """PP-3: the 1 is worth 11 with two players, the 5 five, the 2 two."""
    shots = [
        shot(A, 110, BallCredited(A, 1, 11), BallCredited(A, 5, 5), ShooterContinues(A)),
        shot(A, 120, BallCredited(A, 2, 2), ShooterContinues(A)),
    ]
    stats = live_stats(shots, players=2, t0=100.0, to_shoot=A, over=False)
    assert stats.run == Run(A, 18) and stats.best == Run(A, 18)


def test_a_ten_ball_run_counts_the_balls_that_stay_down_and_not_on_a_foul():
    shots = [
        shot(A, 110, BallStaysDown(1), BallStaysDown(2), ShooterContinues(A)),
        shot(A, 120, FoulCalled(A, (Foul.WRONG_BALL_FIRST,)), BallStaysDown(3), TurnPassed(B)),
    ]
    stats = live_stats(shots, players=2, t0=100.0, to_shoot=B, over=False)
    assert stats.run == Run(B, 0) and stats.best == Run(A, 2)


def test_a_shot_held_for_an_answer_adds_nothing_and_keeps_the_visit():
    shots = [shot(A, 110, BallCredited(A, 1), ShooterContinues(A)), shot(A, 120)]
    assert live_stats(shots, players=2, t0=100.0, to_shoot=A, over=False).run == Run(A, 1)


def test_break_and_runs_and_rack_times_on_the_tables_clock():
    """Rack 1 (100-160 s): A breaks and runs it. Rack 2 (160-200 s): B breaks, misses, A
    wins it: no break-and-run. Rack 3 (200-230 s): A breaks and fouls three times, B wins it
    and the match (TB-12): A's shots alone, but not A's rack."""
    foul = FoulCalled(A, (Foul.NO_RAIL,))
    shots = [
        shot(A, 110, BallCredited(A, 1), ShooterContinues(A)),
        shot(A, 120, BallCredited(A, 2), ShooterContinues(A)),
        shot(A, 160, BallCredited(A, 3), GameWon(A, 1, "points")),
        shot(B, 170, TurnPassed(A)),
        shot(A, 180, BallCredited(A, 4), ShooterContinues(A)),
        shot(A, 200, BallCredited(A, 5), GameWon(A, 2, "points")),
    ]
    stats = live_stats(shots, players=2, t0=100.0, to_shoot=A, over=False)
    assert stats == LiveStats(run=Run(A, 0), best=Run(A, 3), break_runs=[1, 0], rack_t0=200.0,
                              rack_seconds=[60.0, 40.0])
    more = [shot(A, 210, foul, TurnPassed(A)), shot(A, 220, foul, TurnPassed(A)),
            shot(A, 230, foul, GameWon(B, 3, "three_fouls"), MatchWon(B))]
    over = live_stats(shots + more, players=2, t0=100.0, to_shoot=None, over=True)
    assert over == LiveStats(run=None, best=Run(A, 3), break_runs=[1, 0], rack_t0=None,
                             rack_seconds=[60.0, 40.0, 30.0])


def test_a_game_set_up_again_begins_anew_for_runs_and_break_and_runs_but_not_its_time():
    """A stalemate (GameRestarted) on Bob's shot: Bob breaks the game again and runs it,
    a break-and-run; the game's time counts from the match's start (100-150 s)."""
    shots = [
        shot(A, 110, BallCredited(A, 1), ShooterContinues(A)),
        shot(A, 120, TurnPassed(B)),
        shot(B, 130, GameRestarted(1, B, "stalemate")),
        shot(B, 140, BallCredited(B, 1), ShooterContinues(B)),
        shot(B, 150, BallCredited(B, 2), GameWon(B, 1, "points")),
    ]
    stats = live_stats(shots, players=2, t0=100.0, to_shoot=A, over=False)
    assert stats == LiveStats(run=Run(A, 0), best=Run(B, 2), break_runs=[0, 1], rack_t0=150.0,
                              rack_seconds=[50.0])


# ------------------------------------------------------------------ a real table
class Played:
    """A table played by requests, each at the time given (the table's clock)."""

    def __init__(self, game: str = "pyramid", t: float = 100.0) -> None:
        self.table = Table()
        self.request("new_match", {"game": game, "players": ["Ann", "Bob"], "race_to": 2}, t)

    def request(self, name: str, payload: dict[str, Any], t: float) -> dict[str, Any]:
        response = self.table.request(name, payload, t).response
        assert response["status"] == "ok", response
        return response

    def pot(self, t: float, *balls: tuple[int, str]) -> Played:
        """A shot (ending at ``t``): the first ball called and every ball pocketed, or a miss
        (no ball: the 5 touched first)."""
        if balls:
            ball, pocket = balls[0]
            self.request("call", {"calls": [{"ball": ball, "pocket": pocket}]}, t - 2)
        self.request("declare", {"pocketed": [{"ball": b, "pocket": p} for b, p in balls],
                                 "first_contact": balls[0][0] if balls else 5,
                                 "cushions_after_contact": 1} if balls else
                     {"first_contact": 5, "cushions_after_contact": 1}, t - 1)
        self.request("shot_end", {}, t)
        return self

    def stats(self) -> dict[str, Any]:
        return self.table.snapshot(self.table.now)["stats"]


def test_the_table_publishes_its_stats_in_the_state():
    played = Played().pot(110, (1, "fl")).pot(120, (2, "fr")).pot(130).pot(140, (3, "sl"))
    # Ann: the 1 (11 points) and the 2 (2), then a miss; Bob the 3 (3 points)
    assert played.stats() == {"run": {"player": B, "size": 3}, "best": {"player": A, "size": 13},
                              "break_runs": [0, 0], "rack_t0": 100.0, "racks_s": []}
    states = [m.payload for m in played.table.request("get", {}, 150).messages if m.topic == "state"]
    assert states[-1]["stats"] == played.stats()
    played.request("end_match", {}, 160)
    assert played.stats() is None


def test_undo_and_redo_leave_the_stats_of_the_match_as_it_then_stands():
    played = Played().pot(110, (1, "fl")).pot(120, (2, "fr"))
    after_two = played.stats()
    played.pot(130).pot(140, (3, "sl"))
    after_four = played.stats()
    played.request("undo", {"shots": 2}, 150)
    assert played.stats() == after_two
    played.request("redo", {}, 160)
    assert played.stats() == after_four
    # undone, and another shot in its place: as if it had been played so
    played.request("undo", {"shots": 2}, 170)
    played.pot(180, (4, "hl"))
    again = Played().pot(110, (1, "fl")).pot(120, (2, "fr")).pot(180, (4, "hl"))
    assert played.stats() == again.stats() == {
        "run": {"player": A, "size": 17}, "best": {"player": A, "size": 17},
        "break_runs": [0, 0], "rack_t0": 100.0, "racks_s": []}


def test_a_shot_ruled_again_counts_as_ruled_now():
    """A ball declared after the ruling (PP-6: every ball that fell scores): the 5 adds 5."""
    played = Played().pot(110, (1, "fl"))
    assert played.stats()["run"] == {"player": A, "size": 11}
    played.request("declare", {"pocketed": [{"ball": 5, "pocket": "fr"}], "shot": 1}, 115)
    at_once = Played().pot(110, (1, "fl"), (5, "fr"))
    assert played.stats() == at_once.stats()
    assert played.stats()["best"] == {"player": A, "size": 16}


def test_a_ten_ball_break_and_run_and_its_rack_time():
    """Ann breaks (the 1 stays down) and pots the 2 to the 10 in order: the rack, at 210 s,
    is a break-and-run of 110 s; Bob breaks the next and pots the 1."""
    played = Played("ten-ball")
    played.pot(110, (1, "fl"))
    for ball in range(2, 11):
        played.pot(110 + 10 * ball, (ball, "fr"))
    stats = played.stats()
    assert stats["break_runs"] == [1, 0]
    assert stats["racks_s"] == [110.0] and stats["rack_t0"] == 210.0
    assert stats["best"] == {"player": A, "size": 10}  # the 1 to the 10, all down (TB-10)
    assert stats["run"] == {"player": B, "size": 0}
    played.pot(230, (1, "hl"))  # Bob breaks the second rack: his shot, though Ann won the last
    assert played.stats()["run"] == {"player": B, "size": 1}
    assert played.stats()["rack_t0"] == 210.0


def test_two_hundred_shots_are_worked_out_in_milliseconds():
    """The stats are worked out afresh for every state: a 200-shot match (misses, turn by
    turn) takes well under a shot's time (about 1 ms on the machine it was written on, 20 ms
    allowed for a Raspberry Pi)."""
    played = Played()
    for n in range(200):
        played.pot(110 + 10 * n)
    took = []
    for _ in range(5):  # the least of five: a busy machine's pauses are not the stats' time
        start = time.perf_counter()
        stats = played.stats()
        took.append(time.perf_counter() - start)
    assert played.table.referee.shots == 200 and stats["best"] is None
    assert stats["run"] == {"player": A, "size": 0}  # 200 misses in turn: Ann shoots the 201st
    assert min(took) < 0.02, took
