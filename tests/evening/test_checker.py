"""The checker's own parts, on hand-made journals and traces (no processes)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from tests.evening.boards import BoardSeat
from tests.evening.browser import Sample, Wall
from tests.evening.checker import Invariant, check_health, check_wall
from tests.evening.faults import Fault
from tests.evening.harness import Evening, History, Plan, full_plan
from tests.evening.journals import inputs_history, inputs_with_ticks
from tests.evening.referee import another, judge, pause_entries, same_balls
from tests.evening.world import world_log


def line(t: float, ch: str = "cushion.h", v: int = 1) -> dict[str, object]:
    return {"t": t, "ch": ch, "v": v}


def write_trace(path: Path, header: dict[str, object], lines: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in [{"trace": 1, **header}, *lines]))


def test_a_killed_sessions_trace_is_completed_from_its_journal_and_a_resumed_one_skips_its_copy(
        tmp_path: Path) -> None:
    data = tmp_path / "t1"
    a, b, c, d = line(1.0), line(1.1, v=0), line(2.0), line(2.1, v=0)
    # killed: its trace holds a and b, its journal a, b and c (and a tick)
    write_trace(data / "traces" / "trace-000001.jsonl", {"resumed": 0}, [a, b])
    (tmp_path / "t1.session-1.json").write_text(json.dumps([a, b, {"t": 1.5, "tick": 1}, c]))
    # started again: its trace first copies the journal's three inputs, then takes d
    write_trace(data / "traces" / "trace-000002.jsonl", {"resumed": 3}, [a, b, c, d])
    (tmp_path / "t1.session-2.json").write_text(json.dumps([a, b, c, d]))
    assert inputs_history(data) == [a, b, c, d]


def test_a_session_killed_before_its_first_input_reached_the_trace(tmp_path: Path) -> None:
    data = tmp_path / "t1"
    a, b = line(1.0), line(1.1, v=0)
    write_trace(data / "traces" / "trace-000001.jsonl", {"resumed": 0}, [a])
    (tmp_path / "t1.session-1.json").write_text(json.dumps([a]))
    write_trace(data / "traces" / "trace-000002.jsonl", {"resumed": 1}, [])
    (tmp_path / "t1.session-2.json").write_text(json.dumps([a, b]))
    assert inputs_history(data) == [a, b]


def test_health_wants_a_killed_table_offline_and_every_table_back_after_the_broker(
        tmp_path: Path) -> None:
    plan = Plan(tables=2)
    history = History(plan, tmp_path, "")
    history.faults = [(10.0, 11.0, Fault(10.0, "table-kill", "t1", 1.0)),
                      (20.0, 21.0, Fault(20.0, "broker-kill", "venue", 1.0))]
    history.statuses = [(1.0, "t1", "online"), (1.0, "t2", "online"), (10.2, "t1", "offline"),
                        (12.0, "t1", "online"), (23.0, "t1", "online")]  # t2: never again
    inv = Invariant("health")
    check_health(history, inv)
    assert (inv.checked, inv.bad) == (3, 1)
    assert inv.details == ["t2 after the broker's restart at 21.0 s (broker-kill): online never"]


def test_the_referee_answers_from_the_drops_and_sees_a_question_hiding_the_ball_that_fell(
        ) -> None:
    entry = {"drops": [[9, "sr"], [1, "fl"], [4, "fl"]], "named": [1], "answer": 4}
    question = {"id": "q-1-1", "kind": "identify", "player": 0, "topic": "which_balls",
                "about": {"pocket": "fl"}, "choices": [2, 4, 10]}
    assert judge(question, entry) == (4, True, "")
    hiding = {**question, "choices": [2, 10]}
    answer, offered, detail = judge(hiding, entry)
    assert (answer, offered) == (4, False)
    assert detail == "which ball fell in fl: [4] fell, [2, 10] offered"
    fell = {"id": "q-2-0", "kind": "confirm", "player": 0, "topic": "ball_fell",
            "about": {"pocket": "sr"}, "choices": [True, False]}
    assert judge(fell, entry) == (True, True, "")
    assert judge({**fell, "about": {"pocket": "hl"}}, entry) == (False, True, "")
    chosen = {"id": "q-2-1", "kind": "option", "player": 1, "topic": "shoot_or_hand_back",
              "about": {"reason": "foul"}, "choices": ["shoot", "hand_back"]}
    assert judge(chosen, {**entry, "answer": "hand_back"}) == ("hand_back", True, "")
    assert judge({**chosen, "choices": ["shoot"]}, {**entry, "answer": "hand_back"})[1] is False


def test_the_referee_finds_the_truths_of_the_pauses_the_world_stands_before() -> None:
    lines: list[dict[str, object]] = [{"t": 0.0}, {"t": 1.0, "ch": "beam.fl", "v": 1},
                                      {"t": 2.0, "request": "get"}, {"t": 3.0, "request": "get"},
                                      {"t": 4.0, "request": "call"}, {"t": 5.0, "request": "get"}]
    truths = {2: {"id": "a"}, 3: {"id": "b"}, 5: {"id": "c"}}
    evening = [(lines, truths)]
    assert [e["id"] for e in pause_entries(evening, 0, 1)] == ["a", "b"]  # its drop not logged
    assert [e["id"] for e in pause_entries(evening, 0, 3)] == ["b"]
    assert pause_entries(evening, 0, 4) == []  # a call: the next shot's
    assert pause_entries(evening, 1, 0) == []  # the evening is over


def test_an_answer_the_table_refused_is_not_sent_again_another_choice_is() -> None:
    one = {"kind": "identify", "topic": "which_balls", "choices": [3, 6, 9]}
    assert another(one, 6, []) == 6
    assert another(one, 6, [6]) == 3
    assert another(one, 6, [6, 3]) == 9
    assert another(one, 6, [6, 3, 9]) is None
    two = {**one, "count": 2}
    assert another(two, [6, 9], [[6, 9]]) == [3, 6]


def test_the_wall_wants_every_table_on_the_screen_and_no_card_moving(tmp_path: Path) -> None:
    history = History(Plan(tables=2), tmp_path, "")
    wall = Wall(0, "club", ["t1", "t2"], lambda: 0.0)
    t1, t2 = ["t1", 0, 0, 960, 1080, True], ["t2", 960, 0, 960, 1080, True]
    wall.samples = [Sample(1.0, [t1, t2]), Sample(2.0, [t2, t1]),  # the same layout
                    Sample(3.0, [t1, ["t2", 960, 0, 960, 1200, False]]),  # off the screen
                    Sample(4.0, [t1, t2]), Sample(5.0, [t1])]
    history.wall = wall
    inv = Invariant("wall")
    check_wall(history, inv)
    assert inv.checked == 5
    assert inv.details == ["at 3.0 s: t2 not wholly on the screen", "at 3.0 s: the layout changed",
                           "at 4.0 s: the layout changed", "at 5.0 s: t2 not wholly on the screen",
                           "at 5.0 s: the layout changed"]


def test_the_replay_takes_the_ticks_the_journal_kept_after_the_inputs_they_followed(
        tmp_path: Path) -> None:
    data = tmp_path / "t1"
    a, b, c = line(1.0), line(1.1, v=0), line(3.0)
    tick = {"t": 2.5, "tick": 1}
    write_trace(data / "traces" / "trace-000001.jsonl", {"resumed": 0}, [a, b, c])
    (tmp_path / "t1.session-1.json").write_text(json.dumps([a, b, tick, c]))
    assert inputs_history(data) == [a, b, c]
    assert inputs_with_ticks(data) == [a, b, tick, c]


def test_a_question_of_a_table_that_went_another_way_has_no_truth() -> None:
    entry = {"drops": [[2, "fl"], [10, "fl"]], "on_table": [2, 3, 4, 10]}
    assert same_balls(entry, [2, 3, 4, 10])
    assert same_balls(entry, [3, 4])  # an earlier answer of the shot took its drops off
    assert not same_balls(entry, [3, 4, 5, 10])  # ball 5 is still on this table: another match


def test_a_ruling_compacted_away_with_its_match_is_ticked_where_the_table_published_it(
        tmp_path: Path) -> None:
    """The journal compacts a match's inputs (its ticks too) away at the next new match: the
    table's published rulings (their ``ts``) say when its clock acted."""
    import sqlite3

    data = tmp_path / "t1"
    # a drop at 1.5 taken late (at 3.7 of the table's time), after the table ruled the shot
    a, b, late = line(1.0), line(1.1, v=0), {**line(3.7, "beam.fl"), "at": 1.5}
    write_trace(data / "traces" / "trace-000001.jsonl", {"resumed": 0}, [a, b, late])
    (tmp_path / "t1.session-1.json").write_text(json.dumps([]))  # compacted
    db = sqlite3.connect(data / "journal.sqlite3")
    db.executescript("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                     "CREATE TABLE published (seq INTEGER PRIMARY KEY, topic TEXT, payload BLOB);")
    for seq, ts in ((1, 3.6), (2, 3.9)):  # ruled at 3.6, then corrected by the late drop
        body = {"v": 1, "seq": seq, "ts": ts, "type": "shot_result", "data": {"shot": 1}}
        db.execute("INSERT INTO published VALUES (?, ?, ?)",
                   (seq, "billiards/club/t1/event", json.dumps(body).encode()))
    db.commit()
    db.close()
    assert inputs_with_ticks(data) == [a, b, {"t": 3.6, "tick": 1}, late, {"t": 3.9, "tick": 1}]


def test_ticks_kept_while_the_table_ran_are_woven_in_after_a_compaction(tmp_path: Path) -> None:
    """The harness reads each running table's journaled ticks (``TickKeeper``) before a new
    match compacts them away; the replay runs the clock there."""
    import sqlite3

    from tests.evening.journals import TickKeeper

    data = tmp_path / "t1"
    data.mkdir()
    a, b, c = line(1.0), line(1.1, v=0), line(3.0)
    tick = {"t": 2.5, "tick": 1}
    db = sqlite3.connect(data / "journal.sqlite3")
    db.execute("CREATE TABLE inputs (id INTEGER PRIMARY KEY, line TEXT NOT NULL)")
    for x in (a, b, tick):
        db.execute("INSERT INTO inputs (line) VALUES (?)", (json.dumps(x),))
    db.commit()
    keeper = TickKeeper(data)
    keeper.look()
    db.execute("DELETE FROM inputs")  # a new match compacts the match's inputs away
    db.execute("INSERT INTO inputs (line) VALUES (?)", (json.dumps(c),))
    db.commit()
    db.close()
    keeper.look()
    keeper.save()
    write_trace(data / "traces" / "trace-000001.jsonl", {"resumed": 0}, [a, b, c])
    (tmp_path / "t1.session-1.json").write_text(json.dumps([c]))  # the last match's only
    assert inputs_with_ticks(data) == [a, b, tick, c]


def test_a_serial_table_whose_evening_is_cut_has_played_it_at_the_cuts_last_line(
        tmp_path: Path) -> None:
    """The full evening's serial tables play fewer matches than the plan's (their evening is
    cut at ``serial_cut_s``): each has played its evening at the last line of its cut
    evening's last match, as its world log's lives say (two full evenings failed waiting for
    a sixteenth match); a world log is read as it grows, a line cut by kill -9 skipped."""
    plan = replace(full_plan(1), tables=3, serial=1)
    evening = Evening(plan, tmp_path)
    board = next(s for s in plan.seats() if isinstance(s, BoardSeat))
    logs: dict[str, tuple[Path, list[tuple[int, int]]]] = {}
    for seat in plan.seats():
        lengths = [len(m) for m in seat.evening()]
        if seat is board:
            assert len(lengths) < plan.matches  # cut: the test's premise
        lines = [(m, i) for m, n in enumerate(lengths) for i in range(n)]
        log = world_log(evening.history.data(seat.table), seat.table)
        log.parent.mkdir(parents=True, exist_ok=True)
        half = len(lines) // 2  # the world's first life, killed -9 in the middle of a line
        log.write_text(json.dumps({"life": True, "from": [0, 0], "lengths": lengths}) + "\n"
                       + "".join(json.dumps({"m": m, "i": i}) + "\n" for m, i in lines[:half])
                       + '{"m": 0, "i')
        logs[seat.table] = log, lines[half:]
    assert not evening.all_finished()
    for table, (log, rest) in logs.items():  # the next life goes on to the end, but the board's
        with log.open("a") as out:
            out.write(json.dumps({"life": True, "from": list(rest[0])}) + "\n")
            out.write("".join(json.dumps({"m": m, "i": i}) + "\n"
                              for m, i in (rest[:-1] if table == board.table else rest)))
    assert not evening.all_finished()
    assert evening.history.finished == {**{s.table: True for s in plan.seats()}, board.table: False}
    log, rest = logs[board.table]
    with log.open("a") as out:
        out.write(json.dumps({"m": rest[-1][0], "i": rest[-1][1]}) + "\n")
    assert evening.all_finished()
