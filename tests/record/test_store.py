"""The record's store, on SQLite and on a real PostgreSQL: each message once, gaps kept,
the schema migrated by Alembic, the figures of a finished match summed up from its events."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import command
from alembic.config import Config as AlembicConfig

from controller.record import queries, roster, stats
from controller.record.store import MIGRATIONS, Progress, Store, Stored, engine_for


def event(seq: int, kind: str, data: dict, ts: float = 0.0) -> Stored:
    return Stored("club", "t1", seq, "event", {"v": 1, "seq": seq, "ts": ts, "type": kind, "data": data})


def test_a_message_delivered_twice_is_stored_once(store_url):
    store = Store(store_url)
    first = store.add([event(1, "match_started", {}), event(2, "foul", {})])
    again = store.add([event(2, "foul", {}), event(3, "foul", {})])
    assert [m.seq for m in first] == [1, 2]
    assert [m.seq for m in again] == [3]
    assert store.seqs("club", "t1") == [1, 2, 3]


def test_progress_and_lost_seqs_are_kept_across_reopening(store_url):
    store = Store(store_url)
    store.add([event(5, "foul", {})],
              lost=[("club", "t1", "", 1, 4, "no longer in the table's journal")],
              progress={("club", "t1", ""): Progress(5, 9, 100.0)})
    store.close()
    again = Store(store_url)  # migrating a store already at the newest schema changes nothing
    assert again.progress() == {("club", "t1", ""): Progress(5, 9, 100.0)}
    assert again.gaps() == [("club", "t1", "", 1, 4, "no longer in the table's journal")]
    with again.engine.connect() as conn:
        assert conn.scalar(sa.text("SELECT version_num FROM alembic_version")) == "0008"


def credit(player: int, ball: int = 1, points: int = 1) -> dict:
    return {"decision": "BallCredited", "player": player, "ball": ball, "points": points}


def test_a_finished_match_sums_up_into_each_players_figures(store_url):
    store = Store(store_url)
    ann_bob = {"match_id": "m-1", "game": "ten-ball", "players": ["Ann", "Bob"], "race_to": 2,
               "breaker": 0}
    store.add([
        event(1, "match_started", ann_bob, ts=100.0),
        # game 1: Ann breaks and runs it (3 shots, each hers)
        event(2, "shot_result", {"shot": 1, "decisions": [credit(0)], "to_shoot": 0}),
        event(3, "shot_result", {"shot": 2, "decisions": [credit(0), credit(0, 2)], "to_shoot": 0}),
        event(4, "shot_result", {"shot": 3, "decisions": [credit(0, 10)], "to_shoot": 0}),
        event(5, "game_over", {"game_no": 1, "winner": 0}),
        # game 2: Ann breaks dry, Bob fouls, Ann pockets one, the shot is undone and ruled
        # again, Ann wins with two more
        event(6, "shot_result", {"shot": 4, "decisions": [], "to_shoot": 1}),
        event(7, "shot_result", {"shot": 5, "decisions": [
            {"decision": "FoulCalled", "player": 1, "fouls": ["miss"]}], "to_shoot": 0}),
        event(8, "foul", {"player": 1, "fouls": ["miss"], "shot": 5}),
        event(9, "shot_result", {"shot": 6, "decisions": [credit(0, 3), credit(0, 5)], "to_shoot": 0}),
        event(10, "undo", {"shots": 1, "back_to_shot": 5}),
        event(11, "shot_result", {"shot": 6, "decisions": [credit(0, 3)], "to_shoot": 0}),
        event(12, "shot_result", {"shot": 7, "decisions": [credit(0, 4), credit(0, 10)]}),
        event(13, "game_over", {"game_no": 2, "winner": 0}),
        event(14, "match_over", {"winner": 0, "games": [2, 0]}, ts=160.0),
    ], progress={("club", "t1", ""): Progress(14, 14)})
    assert stats.summarize_finished(store) == 1
    assert stats.summarize_finished(store) == 0  # summed up once
    ann = stats.player(store, "Ann")
    assert ann["total"] == {"matches": 1, "won": 1, "games_won": 2, "games_played": 2,
                            "balls": 7, "points": 7, "break_and_runs": 1, "fouls": 0,
                            "best_run": 4}
    assert ann["games"]["ten-ball"]["win_rate"] == 1.0
    bob = stats.player(store, "Bob")["total"]
    assert (bob["matches"], bob["won"], bob["balls"], bob["fouls"], bob["best_run"]) == (1, 0, 0, 1, 0)
    [match] = queries.page(store, queries.HistoryQuery())["matches"]
    assert (match["match_id"], match["players"], match["winner"]) == ("m-1", ["Ann", "Bob"], 0)
    assert match["ended"] - match["started"] == 60.0


def test_a_shot_ruled_in_parts_counts_every_part_and_a_correction_rules_it_anew(store_url):
    """The table rules a shot in parts (the first ruling, then what each answer to its
    questions decided, ``corrected: false``); a shot ruled again (``corrected: true``) is
    ruled whole. Before: each part replaced the one before, so a foul ruled first and a
    ball credited on an answer were lost."""
    store = Store(store_url)
    store.add([
        event(1, "match_started", {"match_id": "m-1", "game": "siberian-ten", "players": ["A", "B"],
                                   "breaker": 0}, ts=10.0),
        event(2, "shot_result", {"shot": 1, "corrected": False, "decisions": [
            {"decision": "FoulCalled", "player": 0, "fouls": ["touched_ball"]}], "to_shoot": 1}),
        event(3, "foul", {"player": 0, "fouls": ["touched_ball"], "shot": 1}),
        event(4, "shot_result", {"shot": 1, "corrected": False, "decisions": [
            {"decision": "QuestionAnswered", "id": "q-1-0", "answer": 10}, credit(1, 10)],
            "to_shoot": 1}),
        event(5, "shot_result", {"shot": 2, "corrected": False, "decisions": [credit(1, 3)], "to_shoot": 1}),
        event(6, "shot_result", {"shot": 2, "corrected": True, "decisions": [credit(1, 4), credit(1, 5)],
                                 "to_shoot": 1}),
        event(7, "match_over", {"winner": 1, "games": [0, 1]}, ts=70.0),
    ], progress={("club", "t1", ""): Progress(7, 7)})
    assert stats.summarize_finished(store) == 1
    a, b = stats.player(store, "A")["total"], stats.player(store, "B")["total"]
    assert (a["fouls"], a["balls"], b["balls"], b["fouls"]) == (1, 0, 3, 0)
    shots = (queries.match(store, "club~t1~~m-1") or {})["shots"]
    assert [(s["player"], s["balls"], s["fouls"], s["corrected"]) for s in shots] == [
        (0, [10], ["touched_ball"], False), (1, [4, 5], [], True)]


def test_a_penalty_ball_is_taken_not_potted_and_a_handicap_ball_names_its_receiver(store_url):
    # issue 41: the history told a penalty ball as potted («забиты: 6; нет касания шара»), and
    # a ball the handicap gave the receiver as the shooter's, with «фора» nowhere
    store = Store(store_url)
    store.add([
        event(1, "match_started", {"match_id": "m-1", "game": "siberian-ten", "players": ["A", "B"],
                                   "breaker": 0}, ts=10.0),
        event(2, "shot_result", {"shot": 1, "corrected": False, "decisions": [
            {"decision": "Noted", "what": "handicap", "detail": "1", "about": {"ball": 1, "to": 1}},
            credit(1, 1)], "to_shoot": 0}),
        event(3, "shot_result", {"shot": 2, "corrected": False, "decisions": [
            {"decision": "FoulCalled", "player": 0, "fouls": ["miss"]},
            {"decision": "QuestionAnswered", "id": "q-2-0", "answer": 6},
            {"decision": "BallCredited", "player": 1, "ball": 6, "points": 1, "pocketed": False}],
            "to_shoot": 1}),
        event(4, "match_over", {"winner": 1, "games": [0, 1]}, ts=70.0),
    ], progress={("club", "t1", ""): Progress(4, 4)})
    assert stats.summarize_finished(store) == 1
    shots = (queries.match(store, "club~t1~~m-1") or {})["shots"]
    assert [(s["balls"], s["taken"], s["handicap"]) for s in shots] == [
        ([1], [], [{"ball": 1, "player": 1}]),
        ([], [{"ball": 6, "player": 1}], [])]


def test_a_match_is_not_summed_up_before_its_table_is_complete_up_to_its_end(store_url):
    store = Store(store_url)
    store.add([event(1, "match_started", {"match_id": "m-1", "game": "pyramid", "players": ["A", "B"]}),
               event(3, "match_over", {"winner": 1})], progress={("club", "t1", ""): Progress(1, 3)})
    assert stats.summarize_finished(store) == 0  # seq 2 may still be a shot of it
    store.add([event(2, "shot_result", {"shot": 1, "decisions": [credit(1)]})],
              progress={("club", "t1", ""): Progress(3, 3)})
    assert stats.summarize_finished(store) == 1
    assert stats.player(store, "B")["total"]["balls"] == 1


def test_sessions_join_matches_close_together_and_export_as_csv(store_url):
    store = Store(store_url)
    for n, (start, end) in enumerate([(0, 100), (200, 300), (2000, 2100)]):
        base = n * 10
        # each message came live, a second after its table's clock said (ts): the wall's time
        # is the table's plus 1000 s
        store.add([event(base + 1, "match_started", {"match_id": f"m-{n}", "game": "pyramid",
                                                     "players": ["A", "B"]}, ts=start)],
                  received=start + 1001.0)
        store.add([event(base + 2, "match_over", {"winner": 0}, ts=end)],
                  lost=[("club", "t1", "", base + 3, base + 10, "test")] if n < 2 else [],
                  progress={("club", "t1", ""): Progress(base + 10, base + 10)}, received=end + 1001.0)
    stats.summarize_finished(store)
    found = stats.sessions(store)
    assert [(s["matches"], s["start"], s["end"]) for s in found] == [(2, 1001.0, 1301.0),
                                                                      (1, 3001.0, 3101.0)]
    lines = stats.sessions_csv(store).splitlines()
    assert lines[0] == "venue,table,start,end,matches" and len(lines) == 3


def test_ten_ball_balls_that_stay_down_count_for_the_shooter(store_url):
    store = Store(store_url)
    store.add([
        event(1, "match_started", {"match_id": "m-1", "game": "ten-ball", "players": ["A", "B"],
                                   "breaker": 1}),
        event(2, "shot_result", {"shot": 1, "decisions": [{"decision": "BallStaysDown", "ball": 3}],
                                 "to_shoot": 1}),
        event(3, "shot_result", {"shot": 2, "decisions": [], "to_shoot": 0}),
        event(4, "shot_result", {"shot": 3, "decisions": [{"decision": "BallStaysDown", "ball": 5}]}),
        event(5, "match_over", {"winner": 1}),
    ], progress={("club", "t1", ""): Progress(5, 5)})
    stats.summarize_finished(store)
    assert stats.player(store, "B")["total"]["balls"] == 1  # the breaker's shot 1
    assert stats.player(store, "A")["total"]["balls"] == 1  # shot 3, after B's miss


def test_a_store_of_the_first_schema_migrates_with_its_data_to_epochs(store_url):
    # a store written before epochs: messages, progress and a gap keyed by (venue, table, seq)
    engine = engine_for(store_url)
    with engine.begin() as conn:
        cfg = AlembicConfig()
        cfg.set_main_option("script_location", str(MIGRATIONS))
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0001")
        conn.execute(sa.text(
            "INSERT INTO messages (venue, table_id, seq, topic, kind, ts, payload, received)"
            " VALUES ('club', 't1', 7, 'event', 'foul', 1.5, :payload, 2.5)"),
            {"payload": '{"seq": 7}'})
        conn.execute(sa.text("INSERT INTO tables (venue, table_id, complete_upto, high)"
                             " VALUES ('club', 't1', 7, 9)"))
        conn.execute(sa.text("INSERT INTO gaps (venue, table_id, first_seq, last_seq, reason)"
                             " VALUES ('club', 't1', 1, 6, 'no longer in the table''s journal')"))
        conn.execute(sa.insert(sa.table("matches", *map(sa.column, (
            "venue", "table_id", "match_id", "game", "started", "ended", "first_seq", "last_seq",
            "players", "winner", "abandoned")))), [{
                "venue": "club", "table_id": "t1", "match_id": "m-1", "game": "pyramid",
                "started": 10.0, "ended": 20.0, "first_seq": 7, "last_seq": 7,
                "players": '["Анна"]', "winner": 0, "abandoned": False}])
        conn.execute(sa.insert(sa.table("match_players", *map(sa.column, (
            "venue", "table_id", "match_id", "idx", "name", "game", "won", "games_won",
            "games_played", "balls", "points", "best_run", "break_and_runs", "fouls")))), [{
                "venue": "club", "table_id": "t1", "match_id": "m-1", "idx": 0, "name": "Анна",
                "game": "pyramid", "won": True, "games_won": 1, "games_played": 1, "balls": 8,
                "points": 8, "best_run": 3, "break_and_runs": 0, "fouls": 1}])
    engine.dispose()
    store = Store(store_url)
    # what was there is the epoch "" (tables that carried none) ...
    assert [(m.seq, m.epoch, m.payload) for m in store.messages("club", "t1")] == [
        (7, "", {"seq": 7})]
    assert store.progress() == {("club", "t1", ""): Progress(7, 9, 0.0)}
    assert store.gaps() == [("club", "t1", "", 1, 6, "no longer in the table's journal")]
    [old] = queries.page(store, queries.HistoryQuery())["matches"]
    assert (old["match_id"], old["epoch"], old["players"]) == ("m-1", "", ["Анна"])
    assert stats.player(store, "Анна")["total"]["balls"] == 8
    assert roster.assign(store) == {"club"}  # the player of a match summed up before: an id
    assert [e["name"] for e in roster.entries(store, "club")] == ["Анна"]
    # ... and a new journal's seq 7 is another message, not a redelivery
    new = store.add([Stored("club", "t1", 7, "event", {"seq": 7, "epoch": "e2"}, "e2")])
    assert [(m.seq, m.epoch) for m in new] == [(7, "e2")]
    assert store.add([Stored("club", "t1", 7, "event", {"seq": 7}, "")]) == []
    with store.engine.connect() as conn:
        assert conn.scalar(sa.text("SELECT version_num FROM alembic_version")) == "0008"


def test_a_new_journal_numbering_its_matches_again_keeps_both_matches(store_url):
    store = Store(store_url)
    for epoch, players, ended in (("old", ["Анна", "Борис"], 100.0), ("new", ["Вера", "Олег"], 200.0)):
        started = {"match_id": "m-20261203-1", "game": "pyramid", "players": players}
        store.add([Stored("club", "t1", 1, "event", {"v": 1, "seq": 1, "epoch": epoch, "ts": 0.0,
                                                      "type": "match_started", "data": started}, epoch),
                   Stored("club", "t1", 2, "event", {"v": 1, "seq": 2, "epoch": epoch, "ts": 0.0,
                                                      "type": "match_over", "data": {"winner": 0}},
                          epoch)],
                  progress={("club", "t1", epoch): Progress(2, 2)}, received=ended)
    assert stats.summarize_finished(store) == 2
    assert [(m["epoch"], m["players"]) for m in queries.page(store, queries.HistoryQuery())["matches"]] == [
        ("new", ["Вера", "Олег"]), ("old", ["Анна", "Борис"])]
    assert stats.player(store, "Анна")["total"]["matches"] == 1
    # each journal's match opens by its own id, the epoch in it
    ids = [m["id"] for m in queries.page(store, queries.HistoryQuery())["matches"]]
    assert ids == ["club~t1~new~m-20261203-1", "club~t1~old~m-20261203-1"]
    assert [(queries.match(store, i) or {}).get("players") for i in ids] == [
        ["Вера", "Олег"], ["Анна", "Борис"]]


def test_a_players_page_is_one_roster_entry_and_two_of_one_name_stay_two(store_url):
    """Two «Борис»: one picked from the roster on two tables (one person, one page with both
    matches), one typed as the referee's «новый игрок» (an entry of its own, not merged by
    the name)."""
    store = Store(store_url)
    for table, ids, ended in (("t1", ["p-boris", "p-anna"], 100.0), ("t2", ["p-boris", None], 200.0),
                              ("t3", ["new", "p-anna"], 300.0)):
        started = {"match_id": "m-1", "game": "pyramid", "players": ["Борис", "Анна"],
                   "player_ids": ids}
        store.add([Stored("club", table, 1, "event", {"v": 1, "seq": 1, "ts": 0.0,
                                                      "type": "match_started", "data": started}),
                   Stored("club", table, 2, "event", {"v": 1, "seq": 2, "ts": 0.0,
                                                      "type": "match_over", "data": {"winner": 0}})],
                  progress={("club", table, ""): Progress(2, 2)}, received=ended)
    assert stats.summarize_finished(store) == 3
    roster.assign(store)
    picked = queries.page(store, queries.HistoryQuery(player_id="p-boris"))["matches"]
    assert [m["table"] for m in picked] == ["t2", "t1"]
    assert stats.player(store, player_id="p-boris")["total"]["matches"] == 2
    assert stats.player(store, player_id="p-boris")["name"] == "Борис"
    [typed] = queries.page(store, queries.HistoryQuery(table="t3"))["matches"]
    other = typed["player_ids"][0]
    assert other not in (None, "new", "p-boris")
    assert [m["table"] for m in queries.page(store, queries.HistoryQuery(player_id=other))["matches"]] \
        == ["t3"]
    assert stats.player(store, "Борис")["total"]["matches"] == 3  # the name as written: all three


def refused(seq: int) -> Stored:
    return Stored("club", "t1", seq, "response/undo",
                  {"v": 1, "seq": seq, "status": "error", "error": "junk"})


def test_answers_that_changed_nothing_are_counted_in_runs_joined_whatever_their_order(store_url):
    store = Store(store_url)
    store.add([event(1, "foul", {})], skip=[refused(s) for s in (2, 3, 4, 8, 9)])
    store.add([], skip=[refused(s) for s in (6, 7)])  # late: between two runs, no neighbour
    store.add([], skip=[refused(s) for s in (3, 4, 5)])  # 3 and 4 delivered again; 5 joins
    store.add([event(10, "foul", {})], skip=[refused(11)])
    assert store.seqs("club", "t1") == list(range(1, 12))  # every seq recorded
    assert [m.seq for m in store.messages("club", "t1")] == [1, 10]  # two rows stored
    assert store.sizes() == {"messages": 2, "skipped": 9, "skipped_runs": 2, "gaps": 0,
                             "quarantined": 0}
    assert store.seqs_between("club", "t1", "", 4, 8) == [5, 6, 7, 8]
