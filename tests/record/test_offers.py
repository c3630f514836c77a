"""The next match offered to each table and the waiting list (issue 42), on both stores: a
tournament match on a table is its offer (withheld while it is played), else the head of the
waiting list for the table's kind once it is free; the pair started there leaves the list;
two tables ending at once never take one entry; a restart finds it all in the store."""

from __future__ import annotations

import json
import threading

import pytest

import tournament as core
from controller.record import offers, tournaments, waiting, waiting_desk
from controller.record.store import Store
from tests.record.test_tournaments import EIGHT, add_events, assign, new, table_match, take

VERA = {"id": "p1", "name": "Вера"}
GLEB = {"id": "p2", "name": "Глеб"}
DINA, EGOR = {"id": "p3", "name": "Дина"}, {"id": "p4", "name": "Егор"}
ZHORA, IRA = {"id": "p5", "name": "Жора"}, {"id": "p6", "name": "Ира"}


def played(store: Store, table: str, game: str, ended: float, ids: list[str] | None = None) -> None:
    """A whole match of ``game`` on ``table`` (between ``ids``, else two regulars)."""
    ids = ids or [f"r-{table}-a", f"r-{table}-b"]
    add_events(store, table, [("match_started", {"match_id": f"m{ended}", "game": game,
                                                 "players": ids, "player_ids": ids}),
                              ("match_over", {"winner": 0})], ended)


def started(store: Store, table: str, game: str, ids: list[str], at: float) -> None:
    add_events(store, table, [("match_started", {"match_id": f"m{at}", "game": game,
                                                 "players": ids, "player_ids": ids})], at)


def test_a_tournament_match_on_a_table_is_offered_and_withheld_while_it_is_played(
        store_url: str) -> None:
    store = Store(store_url)
    tid = new(store, race=3, names={"p1": "Вера", "p2": "Глеб"})
    played(store, "t1", "ten-ball", 1.0)
    tournaments.act(store, "club", tid, assign("W1-1", "t1"))
    assert offers.offers(store, "club")["t1"] == {
        "v": 1, "source": "tournament", "offer": f"{tid}:W1-1", "game": "ten-ball",
        "players": [VERA, {"id": "p8", "name": "p8"}], "race_to": 3, "options": {},
        "tournament": {"id": tid, "match": "W1-1", "name": "Кубок клуба", "round": "W1"}}
    started(store, "t1", "ten-ball", ["p1", "p8"], 2.0)
    assert offers.offers(store, "club")["t1"] is None  # on, not next
    add_events(store, "t1", [("match_over", {"winner": 0})], 3.0)
    take(store)
    assert offers.offers(store, "club")["t1"] is None  # its result taken: nothing next


def test_a_free_table_is_offered_the_first_of_its_kind_and_the_pair_started_leaves(
        store_url: str) -> None:
    store = Store(store_url)
    played(store, "t1", "ten-ball", 1.0)
    played(store, "t2", "pyramid", 1.0)
    first = waiting.join(store, "club", "pool", [VERA, GLEB], "a", now=10.0)
    pyramid = waiting.join(store, "club", "russian", [DINA, ZHORA], "b", now=11.0)
    later = waiting.join(store, "club", "pool", [EGOR, IRA], "c", now=12.0)
    found = offers.offers(store, "club")
    assert found["t1"] == {"v": 1, "source": "waiting", "offer": first.entry, "game": "ten-ball",
                           "players": [VERA, GLEB], "race_to": None, "options": {},
                           "tournament": None}
    assert found["t2"] is not None and found["t2"]["offer"] == pyramid.entry
    started(store, "t1", "ten-ball", ["p1", "p2"], 20.0)
    assert offers.offers(store, "club")["t1"] is None  # playing
    assert [e.entry for e in waiting.entries(store, "club", "pool")] == [later.entry]
    add_events(store, "t1", [("match_over", {"winner": 1})], 30.0)
    found = offers.offers(store, "club")
    assert found["t1"] is not None and found["t1"]["offer"] == later.entry


def test_another_match_started_on_the_table_gives_the_entry_back_first(store_url: str) -> None:
    store = Store(store_url)
    played(store, "t1", "ten-ball", 1.0)
    first = waiting.join(store, "club", "pool", [VERA, GLEB], "a", now=10.0)
    second = waiting.join(store, "club", "pool", [EGOR, IRA], "b", now=11.0)
    assert offers.offers(store, "club")["t1"]["offer"] == first.entry  # type: ignore[index]
    started(store, "t1", "ten-ball", ["x1", "x2"], 20.0)  # others played there instead
    offers.offers(store, "club")
    assert [(e.entry, e.offered_to) for e in waiting.entries(store, "club")] == [
        (first.entry, None), (second.entry, None)]
    played(store, "t2", "siberian-ten", 21.0)
    assert offers.offers(store, "club")["t2"]["offer"] == first.entry  # type: ignore[index]


def test_a_tournament_match_comes_before_the_waiting_list(store_url: str) -> None:
    store = Store(store_url)
    tid = new(store)
    played(store, "t1", "ten-ball", 1.0)
    waiting.join(store, "club", "pool", [{"id": "q1", "name": "Жора"}], "a", now=10.0)
    tournaments.act(store, "club", tid, assign("W1-2", "t1"))
    found = offers.offers(store, "club")["t1"]
    assert found is not None and found["source"] == "tournament"
    assert [e.offered_to for e in waiting.entries(store, "club")] == [None]


@pytest.mark.parametrize("alone", [False, True], ids=["pairs", "players alone"])
def test_two_tables_ending_at_once_never_take_one_player(store_url: str, alone: bool) -> None:
    store = Store(store_url)
    count = 6
    for n in range(count):
        played(store, f"t{n}", "ten-ball", 1.0)
    for n in range(count - 2):  # four matches' players: four pairs, or eight alone
        pair = [{"id": f"q{n}", "name": f"Q{n}"}, {"id": f"r{n}", "name": f"R{n}"}]
        for i, joining in enumerate([pair[:1], pair[1:]] if alone else [pair]):
            waiting.join(store, "club", "pool", joining, f"j{n}-{i}", now=10.0 + n + i / 10)
    now = waiting.tables_now(store, "club")
    gate = threading.Barrier(count)
    took: dict[str, bool] = {}

    def end(table: str) -> None:
        gate.wait()
        took[table] = waiting.offer(store, "club", now[table])

    threads = [threading.Thread(target=end, args=(f"t{n}",)) for n in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    listed = waiting.entries(store, "club")
    given = [e.offered_to for e in listed]
    assert sum(took.values()) == count - 2
    assert None not in given and len(set(given)) == count - 2  # each entry one table's
    players = [p["id"] for e in listed for p in e.players]
    assert sorted(players) == sorted(f"{x}{n}" for x in "qr" for n in range(count - 2))


def test_a_join_comes_once_names_typed_are_the_rosters_and_a_bad_one_is_answered(
        store_url: str) -> None:
    store = Store(store_url)
    table_match(store, "t1", "m1", ["p1", "p2"], [0], 1.0)
    take(store)  # the roster knows p1 and p2 by the names the match gave: "p1", "p2"
    body = b'{"transaction": "tx-1", "kind": "pool", "players": [{"id": null, "name": " P1 "},' \
           b' {"id": null, "name": "\\u0412\\u0435\\u0440\\u0430"}]}'
    once = waiting_desk.answer(store, "club", "join", body)
    again = waiting_desk.answer(store, "club", "join", body)
    assert once == again and once["status"] == "ok"
    made = once["entry"]["entry"]
    assert once["entry"]["players"] == [{"id": "p1", "name": "P1"},
                                        {"id": f"{made}-1", "name": "Вера"}]
    assert len(waiting.entries(store, "club")) == 1
    assert waiting_desk.answer(store, "club", "join", b"[1]")["error"] == "body"
    twice = waiting_desk.answer(store, "club", "join",
                                b'{"transaction": "tx-2", "kind": "pool", "players": [{"id": "p1"}]}')
    assert (twice["status"], twice["error"]) == ("error", "already")
    odd = waiting_desk.answer(store, "club", "join",
                              b'{"transaction": "tx-3", "kind": "snooker", "players": [{"id": "p9"}]}')
    assert odd["error"] == "kind"
    assert waiting_desk.answer(store, "club", "leave", b'{"transaction": "tx-4", "entry": "nope"}'
                               )["error"] == "entry"
    assert waiting_desk.answer(store, "club", "leave",
                               json.dumps({"transaction": "tx-5", "entry": made}).encode()
                               )["status"] == "ok"
    assert waiting.entries(store, "club") == []


def test_the_list_is_bounded(store_url: str) -> None:
    store = Store(store_url)
    for n in range(waiting.LIST_MAX):
        waiting.join(store, "club", "pool", [{"id": f"q{n}", "name": "Q"}], f"j{n}")
    with pytest.raises(waiting.WaitingError) as refused:
        waiting.join(store, "club", "pool", [{"id": "late", "name": "Q"}], "late")
    assert refused.value.kind == "full"


def test_a_restarted_recorder_offers_the_same(store_url: str) -> None:
    store = Store(store_url)
    tid = new(store, seeds=EIGHT)
    played(store, "t1", "ten-ball", 1.0)
    played(store, "t2", "ten-ball", 1.0)
    tournaments.act(store, "club", tid, lambda t: core.Change(t.fill(["t1"]), ()))
    waiting.join(store, "club", "pool", [VERA, GLEB], "a", now=10.0)
    before = offers.everything(store)
    store.close()
    again = Store(store_url)
    assert offers.everything(again) == before
    assert {k: v is not None for k, v in before.items()} == {("club", "t1"): True,
                                                             ("club", "t2"): True}


def test_two_players_waiting_alone_are_paired_and_one_alone_waits(store_url: str) -> None:
    store = Store(store_url)
    played(store, "t1", "ten-ball", 1.0)
    played(store, "t2", "ten-ball", 1.0)
    alone = waiting.join(store, "club", "pool", [VERA], "a", now=10.0)
    pair = waiting.join(store, "club", "pool", [DINA, EGOR], "b", now=11.0)
    waiting.join(store, "club", "pool", [GLEB], "c", now=12.0)
    waiting.join(store, "club", "pool", [ZHORA], "d", now=13.0)
    found = offers.offers(store, "club")
    assert {t: None if o is None else (o["offer"], o["players"]) for t, o in found.items()} == {
        "t1": (alone.entry, [VERA, GLEB]), "t2": (pair.entry, [DINA, EGOR])}
    assert [[p["name"] for p in e.players] for e in waiting.entries(store, "club")] == [
        ["Вера", "Глеб"], ["Дина", "Егор"], ["Жора"]]  # Жора waits for someone to play
    started(store, "t1", "ten-ball", ["p1", "p2"], 20.0)
    offers.offers(store, "club")
    assert [e.entry for e in waiting.entries(store, "club")][0] == pair.entry
