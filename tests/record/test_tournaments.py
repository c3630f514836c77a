"""Tournaments on the venue record, on both stores: kept whole across a restart, results taken
from the tables' finished matches (and their corrections), and two directors acting at once
never double-book a table or a player nor lose a result."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

import tournament as core
from controller.record import queries, roster, stats, tournaments
from controller.record.health import Health
from controller.record.store import Progress, Store, Stored

EIGHT = tuple(f"p{i}" for i in range(1, 9))


def table_match(store: Store, table: str, match_id: str, ids: list[str], games: list[int],
                ended: float, cup: dict[str, str] | None = None) -> None:
    """Stores a table's whole match between roster ids ``ids``: a game won by each of
    ``games`` (player indexes), then ``match_over`` naming who won most; of the tournament
    match ``cup`` (``{"id", "match"}``) if given, as a table names it."""
    winner = max((0, 1), key=games.count)
    named = {} if cup is None else {"tournament": cup}
    body = [("match_started", {"match_id": match_id, "game": "ten-ball", "players": ids,
                               "breaker": 0, "player_ids": ids, **named})]
    body += [("game_over", {"winner": g}) for g in games] + [
        ("match_over", {"winner": winner, **named})]
    add_events(store, table, body, ended)


def add_events(store: Store, table: str, body: list[tuple[str, dict[str, object]]],
               ended: float) -> None:
    first = max(store.seqs("club", table, "e1"), default=0) + 1
    last = first + len(body) - 1
    store.add([Stored("club", table, n, "event", {"v": 1, "seq": n, "epoch": "e1", "ts": ended,
                                                   "type": kind, "data": data}, "e1")
               for n, (kind, data) in enumerate(body, start=first)],
              progress={("club", table, "e1"): Progress(last, last)}, received=ended)


def take(store: Store) -> list[tuple[str, str, core.Change]]:
    return taking(store).changes


def taking(store: Store) -> tournaments.Taken:
    stats.summarize_finished(store)  # as the recorder does after each batch it stores
    roster.assign(store)
    return tournaments.take_results(store)


def new(store: Store, form: core.Format = core.Format.DOUBLE, seeds: tuple[str, ...] = EIGHT,
        **more: int) -> str:
    return tournaments.create(store, "club", "Кубок клуба", tournaments.Setup(form, seeds, **more))


def assign(match: str, table: str) -> tournaments.Step:
    return lambda t: core.Change(t.assign(match, table), ())


def test_a_tournament_is_kept_whole_across_a_restart(store_url: str) -> None:
    store = Store(store_url)
    tid = new(store, race=3, levels={"p1": 2})
    tournaments.act(store, "club", tid, lambda t: t.record("W1-1", "p1", (3, 1)))
    tournaments.act(store, "club", tid, lambda t: t.walkover("W1-2", "p5"))
    tournaments.act(store, "club", tid, assign("W1-3", "t2"))
    store.close()
    again = tournaments.load(Store(store_url), "club", tid)
    assert {m: (r.winner, r.score, r.walkover) for m, r in again.results.items()} == {
        "W1-1": ("p1", (3, 1), False), "W1-2": ("p5", None, True)}
    assert dict(again.tables) == {"W1-3": "t2"}
    assert again.pairing("W2-1").players == ("p1", "p5")
    assert again.pairing("W2-1").handicap == core.Handicap("p5", 2)
    assert [t["id"] for t in tournaments.listed(Store(store_url), "club")] == [tid]
    with pytest.raises(tournaments.NoTournament):
        tournaments.load(store, "club", "none")


def test_a_result_is_taken_from_the_table_the_match_is_on(store_url: str) -> None:
    store = Store(store_url)
    tid = new(store)
    tournaments.act(store, "club", tid, assign("W1-1", "t1"))  # p1 — p8
    table_match(store, "t1", "m-1", ["p2", "p7"], [0, 0], 1000.0)  # not this pairing
    table_match(store, "t2", "m-2", ["p1", "p8"], [0, 0], 1000.0)  # not this table
    assert take(store) == []
    table_match(store, "t1", "m-3", ["p8", "p1"], [0, 1, 0], 2000.0)
    [(venue, got, change)] = take(store)
    assert (venue, got, change.changed) == ("club", tid, ())
    state = tournaments.load(store, "club", tid)
    assert state.results["W1-1"].winner == "p8" and state.results["W1-1"].score == (1, 2)
    assert dict(state.tables) == {} and state.progress().seats["L1-1"][0] == "p1"
    assert take(store) == []  # taken once


def test_a_correction_on_the_table_reflows_the_bracket(store_url: str) -> None:
    store = Store(store_url)
    tid = new(store, core.Format.SINGLE)
    for match, table, ids in [("W1-1", "t1", ["p1", "p8"]), ("W1-2", "t2", ["p4", "p5"])]:
        tournaments.act(store, "club", tid, assign(match, table))
        table_match(store, table, f"m-{table}", ids, [0, 0], 1000.0)
    take(store)
    assert queries.page(store, queries.HistoryQuery())["matches"][0]["tournament"] is None
    tournaments.act(store, "club", tid, lambda t: t.record("W2-1", "p1", (5, 2)))
    # table 1's referee corrects the last game: the match ends again, p8 its winner
    add_events(store, "t1", [("game_over", {"winner": 1}), ("match_over", {"winner": 1})], 1100.0)
    [(_, _, change)] = take(store)
    assert change.changed == ("W2-1", "W3-1")  # p8 in the semi-final, p1 out of the final
    state = tournaments.load(store, "club", tid).progress()
    assert state.winners["W1-1"] == "p8" and state.players("W2-1") == ("p8", "p4")
    assert state.status["W2-1"] is core.Status.READY  # p1's win there no longer counts
    assert take(store) == []


def test_a_result_is_taken_by_the_tournament_match_its_table_named(store_url: str) -> None:
    store = Store(store_url)
    tid = new(store)
    tournaments.act(store, "club", tid, assign("W1-1", "t1"))  # p1 — p8, offered on t1
    # played on t3 (the referee took the players there): the id says which match it was
    table_match(store, "t3", "m-1", ["p8", "p1"], [0, 1, 0], 1000.0, {"id": tid, "match": "W1-1"})
    [(venue, got, change)] = take(store)
    assert (venue, got, change.changed) == ("club", tid, ())
    state = tournaments.load(store, "club", tid)
    assert state.results["W1-1"].winner == "p8" and state.results["W1-1"].score == (1, 2)
    assert dict(state.tables) == {}  # t1 is free again
    assert tournaments.sources(store, "club", tid) == {"W1-1": '["t3", "e1", "m-1"]'}
    assert taking(store) == tournaments.Taken([], [])  # taken once
    rows = {r["match_id"]: r for r in queries.page(store, queries.HistoryQuery())["matches"]}
    assert rows["m-1"]["tournament"] == {"id": tid, "match": "W1-1"}  # the history says it
    # a later match on t1 between the same two, of no tournament, is not taken again
    table_match(store, "t1", "m-2", ["p1", "p8"], [0, 0], 2000.0)
    assert take(store) == []


def test_a_named_result_whose_players_are_not_the_match_s_is_refused_and_said(
        store_url: str) -> None:
    store = Store(store_url)
    tid = new(store, core.Format.SINGLE)
    tournaments.act(store, "club", tid, assign("W1-1", "t1"))  # p1 — p8
    table_match(store, "t1", "m-1", ["p1", "p7"], [0, 0], 1000.0, {"id": tid, "match": "W1-1"})
    table_match(store, "t2", "m-2", ["p2", "p7"], [0, 0], 1000.0, {"id": "gone", "match": "W1-2"})
    table_match(store, "t2", "m-3", ["p2", "p7"], [1, 1], 1100.0, {"id": tid, "match": "W2-1"})
    taken = taking(store)
    assert taken.changes == []  # not by the id, nor by the table's players (p1 — p8 is not it)
    assert [(r.source, r.tournament_id, r.match) for r in taken.refused] == [
        ('["t1", "e1", "m-1"]', tid, "W1-1"), ('["t2", "e1", "m-2"]', "gone", "W1-2"),
        ('["t2", "e1", "m-3"]', tid, "W2-1")]
    why = [r.why for r in taken.refused]
    assert "players are p1 — p8, not the table's p1 — p7" in why[0]
    assert "no tournament gone" in why[1] and "not known yet" in why[2]
    state = tournaments.load(store, "club", tid)
    assert state.results == {} and dict(state.tables) == {"W1-1": "t1"}
    # the result the director gave first is kept; the table's is refused, named
    tournaments.act(store, "club", tid, lambda t: t.walkover("W1-3", "p2"))
    table_match(store, "t4", "m-4", ["p2", "p7"], [1, 1], 1200.0, {"id": tid, "match": "W1-3"})
    assert [r.why for r in taking(store).refused][-1] == (
        "the match already has a result the director gave")
    assert tournaments.load(store, "club", tid).results["W1-3"].walkover
    assert tournaments.sources(store, "club", tid)["W1-3"] is None  # the director's


def test_a_named_result_corrected_on_the_table_reflows_the_bracket(store_url: str) -> None:
    store = Store(store_url)
    tid = new(store, core.Format.SINGLE)
    for match, table, ids in [("W1-1", "t1", ["p1", "p8"]), ("W1-2", "t2", ["p4", "p5"])]:
        table_match(store, table, f"m-{table}", ids, [0, 0], 1000.0, {"id": tid, "match": match})
    assert len(take(store)) == 2
    tournaments.act(store, "club", tid, lambda t: t.record("W2-1", "p1", (5, 2)))
    # table 1's referee corrects the last game: the match ends again, p8 its winner
    add_events(store, "t1", [("game_over", {"winner": 1}),
                             ("match_over", {"winner": 1, "tournament": {"id": tid, "match": "W1-1"}})],
               1100.0)
    [(_, _, change)] = take(store)
    assert change.changed == ("W2-1", "W3-1")
    state = tournaments.load(store, "club", tid).progress()
    assert state.winners["W1-1"] == "p8" and state.players("W2-1") == ("p8", "p4")
    assert take(store) == []
    # W2-1 re-flowed (p8 — p4 now): the table's match of its new players is its result, the
    # director's of p1 no longer stands (the demo stalled at it: refused, «already a result»)
    table_match(store, "t2", "m-w21", ["p8", "p4"], [0, 0], 1200.0, {"id": tid, "match": "W2-1"})
    taken = taking(store)
    assert taken.refused == [] and len(taken.changes) == 1
    assert tournaments.load(store, "club", tid).progress().winners["W2-1"] == "p8"


def at_once(*steps: Callable[[], object]) -> list[object]:
    """Runs ``steps`` on threads started together; returns what each returned or raised."""
    start = threading.Barrier(len(steps))
    out: list[object] = [None] * len(steps)

    def run(i: int) -> None:
        start.wait()
        try:
            out[i] = steps[i]()
        except Exception as exc:  # what the director's tablet would be told
            out[i] = exc
    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(steps))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_two_directors_at_once_never_double_book_a_table(store_url: str) -> None:
    store = Store(store_url)
    tid, other = new(store), new(store, core.Format.SINGLE, ("a", "b"))
    got = at_once(lambda: tournaments.act(store, "club", tid, assign("W1-1", "t1")),
                  lambda: tournaments.act(store, "club", tid, assign("W1-2", "t1")),
                  lambda: tournaments.act(store, "club", other, assign("W1-1", "t1")))
    assert sum(isinstance(g, core.BadAssignment) for g in got) == 2
    booked = [dict(tournaments.load(store, "club", t).tables) for t in (tid, other)]
    assert sum(len(b) for b in booked) == 1


def test_a_director_waits_for_the_other_so_no_player_sits_at_two_tables(store_url: str) -> None:
    # a group's two ready matches share a player: each director puts one on a table; the
    # first holds its change open until the second has read the tournament (it never does:
    # it waits for the first to commit, then sees the player seated)
    store = Store(store_url)
    tid = new(store, core.Format.GROUPS, ("a", "b", "c", "d"), groups=1, advance=2)
    ready = tournaments.load(store, "club", tid).ready()
    first = ready[0]
    second = next(p for p in tournaments.load(store, "club", tid).fill(["x", "y"]).ready()
                  if p.match != first.match and set(p.players) & set(first.players))
    inside, read = threading.Event(), threading.Event()

    def slow(t: core.Tournament) -> core.Change:
        change = core.Change(t.assign(first.match, "t1"), ())
        inside.set()
        read.wait(timeout=1.0)  # set only if the other reads meanwhile (a lost guard)
        return change

    def other(t: core.Tournament) -> core.Change:
        read.set()
        return core.Change(t.assign(second.match, "t2"), ())

    def second_director() -> object:
        inside.wait()
        return tournaments.act(store, "club", tid, other)
    got = at_once(lambda: tournaments.act(store, "club", tid, slow), second_director)
    assert isinstance(got[0], core.Change) and isinstance(got[1], core.BadAssignment)
    assert dict(tournaments.load(store, "club", tid).tables) == {first.match: "t1"}


def test_two_results_at_once_are_both_kept(store_url: str) -> None:
    store = Store(store_url)
    tid = new(store)
    at_once(*[lambda m=m, w=w: tournaments.act(store, "club", tid, lambda t: t.record(m, w))
              for m, w in [("W1-1", "p1"), ("W1-2", "p4"), ("W1-3", "p2"), ("W1-4", "p3")]])
    kept = tournaments.load(store, "club", tid).results
    assert {m: r.winner for m, r in kept.items()} == {
        "W1-1": "p1", "W1-2": "p4", "W1-3": "p2", "W1-4": "p3"}


def test_the_recorders_health_lists_a_refused_result_and_says_it_once() -> None:
    health = Health()
    said = ("club", '["t1", "e1", "m-1"]', "a1", "W1-1", "match W1-1's players are p1 — p8")
    assert health.refused(*said) is True
    assert health.refused(*said) is False  # each batch finds it again: said once
    assert health.body()["refused_results"] == [dict(zip(
        ("venue", "source", "tournament", "match", "why"), said, strict=True))]
    assert health.due(0.0) is not None and health.due(1.0) is None
    assert health.refused(*said[:4], "the match already has a result the director gave")
    assert health.due(2.0) is not None  # published at once, not EVERY_S later
    assert [r["why"] for r in health.body()["refused_results"]] == [
        "the match already has a result the director gave"]
