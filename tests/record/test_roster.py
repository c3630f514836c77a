"""The venue roster on both stores: a player picked at the consoles of two tables is one
entry with both matches; a name typed is an entry of its own, never merged by name."""

from __future__ import annotations

from controller.record import roster, stats
from controller.record.store import Progress, Store, Stored


def match(store: Store, table: str, match_id: str, players: list[str],
          ids: list[str | None] | None, ended: float) -> None:
    started = {"match_id": match_id, "game": "ten-ball", "players": players, "breaker": 0}
    if ids is not None:
        started["player_ids"] = ids
    body = [("match_started", started), ("match_over", {"winner": 0})]
    first = max(store.seqs("club", table, "e1"), default=0) + 1
    store.add([Stored("club", table, n, "event", {"v": 1, "seq": n, "epoch": "e1", "ts": ended,
                                                   "type": kind, "data": data}, "e1")
               for n, (kind, data) in enumerate(body, start=first)],
              progress={("club", table, "e1"): Progress(first + 1, first + 1)}, received=ended)


def test_one_player_picked_on_two_tables_is_one_entry_and_typed_names_stay_apart(store_url):
    store = Store(store_url)
    match(store, "t1", "m-a", ["Борис", "Анна"], ["p-boris", None], 1000.0)
    match(store, "t2", "m-b", ["Борис", "Борис"], ["p-boris", None], 2000.0)
    stats.summarize_finished(store)
    assert roster.assign(store) == {"club"}
    assert roster.assign(store) == set()  # every player has an id now
    got = roster.entries(store, "club")
    typed = roster.new_id("club", "t2", "e1", "m-b", 1)
    assert [(e["id"], e["name"], e["table"], e["matches"]) for e in got] == sorted([
        ("p-boris", "Борис", "t2", 2),  # picked at both tables: one player
        (typed, "Борис", "t2", 1),  # the other «Борис», typed: another player
    ]) + [(roster.new_id("club", "t1", "e1", "m-a", 1), "Анна", "t1", 1)]
    assert got[0]["last"] == 2000.0 and got[-1]["last"] == 1000.0
    # the two «Борис» of table 2's last match are told apart by whom they played
    assert {e["id"]: e["against"] for e in got} == {
        "p-boris": ["Борис"], typed: ["Борис"], got[-1]["id"]: ["Борис"]}
    assert roster.entries(store, "club", limit=1) == got[:1]
    assert roster.entries(store, "elsewhere") == []


def test_a_match_without_ids_makes_each_name_a_new_entry(store_url):
    store = Store(store_url)
    match(store, "t1", "m-a", ["Борис", "Анна"], None, 1000.0)
    match(store, "t1", "m-b", ["Борис", "Анна"], None, 2000.0)
    stats.summarize_finished(store)
    roster.assign(store)
    names = [e["name"] for e in roster.entries(store, "club")]
    assert sorted(names) == ["Анна", "Анна", "Борис", "Борис"]
