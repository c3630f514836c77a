"""The venue roster on both stores: a player picked at the consoles of two tables is one
entry with both matches; a name typed is the entry of that name (case, «ё» and spaces aside)
unless the referee says it is someone new; staff merge two entries, figures combined."""

from __future__ import annotations

import pytest

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


def test_two_matches_typed_with_the_same_names_give_one_entry_each(store_url):
    store = Store(store_url)
    match(store, "t1", "m-a", ["Анна Каренина-Вронская", "Борис"], None, 1000.0)
    match(store, "t2", "m-b", ["  анна  каренина-вронская ", "Борис"], None, 2000.0)
    match(store, "t1", "m-c", ["Семён", "БОРИС"], [None, None], 3000.0)
    match(store, "t1", "m-d", ["Семен", "Анна Каренина-Вронская"], None, 4000.0)
    stats.summarize_finished(store)
    roster.assign(store)
    got = {e["name"]: e["matches"] for e in roster.entries(store, "club")}
    assert got == {"Анна Каренина-Вронская": 3, "БОРИС": 3, "Семен": 2}
    stats.summarize_finished(store)
    assert roster.assign(store) == set()


def test_the_referees_new_player_stays_an_entry_of_its_own(store_url):
    store = Store(store_url)
    match(store, "t1", "m-a", ["Борис", "Анна"], None, 1000.0)
    match(store, "t2", "m-b", ["Борис", "Анна"], ["new", None], 2000.0)
    stats.summarize_finished(store)
    roster.assign(store)
    got = sorted((e["name"], e["matches"]) for e in roster.entries(store, "club"))
    assert got == [("Анна", 2), ("Борис", 1), ("Борис", 1)]
    assert roster.new_id("club", "t2", "e1", "m-b", 0) in {
        e["id"] for e in roster.entries(store, "club")}


def test_staff_merge_two_entries_and_the_figures_stay_combined(store_url):
    store = Store(store_url)
    match(store, "t1", "m-a", ["Борис", "Анна"], ["p-boris", None], 1000.0)
    match(store, "t2", "m-b", ["Боря", "Анна"], None, 2000.0)
    stats.summarize_finished(store)
    roster.assign(store)
    borya = roster.new_id("club", "t2", "e1", "m-b", 0)
    assert stats.player(store, player_id="p-boris")["total"]["matches"] == 1
    with pytest.raises(ValueError):
        roster.merge(store, "club", borya, "nobody")
    assert roster.merge(store, "club", borya, "p-boris") == 1
    assert stats.player(store, player_id="p-boris")["total"]["matches"] == 2
    assert stats.player(store, player_id=borya)["total"]["matches"] == 0
    assert sorted((e["name"], e["matches"]) for e in roster.entries(store, "club")) == [
        ("Анна", 2), ("Боря", 2)]
    # summed up again from the journals (untouched): still one player
    stats.summarize(store, "club", "t2", 2, "e1")
    roster.assign(store)
    assert stats.player(store, player_id="p-boris")["total"]["matches"] == 2
    assert len(store.messages("club", "t2", 1, 2, "e1")) == 2
