"""The demo tournament's entrants are a club's regulars: sixteen different names in the
demo's language (not the simulator's four numbered «Глеб 2», «Глеб 4»), numbered past them."""

from __future__ import annotations

from controller.sim.bracket_tables import entrants


def test_sixteen_regulars_have_sixteen_names_of_their_own() -> None:
    for language in ("ru", "en"):
        names = list(entrants(16, language).values())
        assert len(set(names)) == 16 and not any(ch.isdigit() for n in names for ch in n)
    assert list(entrants(2, "ru").values()) == ["Вера", "Глеб"]
    more = entrants(32, "ru")
    assert len(set(more.values())) == 32 and more["reg-17"] == "Вера 2"
    assert list(entrants(1, "xx").values()) == ["Ann"]  # a language without a catalogue


async def test_a_match_a_correction_reflowed_is_played_again_with_its_new_players() -> None:
    """A director's correction re-flows a match a table played (the same id, other players):
    the table is offered it again and plays it (the demo stalled at it before)."""
    import asyncio

    from controller.sim.bracket_tables import BracketMatches, Offers

    def offer(second: str) -> dict[str, object]:
        return {"source": "tournament", "race_to": 1, "tournament": {"id": "T", "match": "W2-1"},
                "players": [{"id": "reg-1", "name": "Вера"}, {"id": second, "name": second}]}

    offers = Offers()
    table = BracketMatches(None, "T", "t1", "ten-ball", 1, 20.0, lambda: 0.0,  # type: ignore[arg-type]
                           None, offers)  # type: ignore[arg-type]
    offers.latest["t1"] = offer("reg-16")
    first = await asyncio.wait_for(table.next_offered(), 5)
    table.played.add((first.match, first.players))
    offers.latest["t1"] = offer("reg-9")  # Роман's win corrected: Ирина plays Вера now
    again = await asyncio.wait_for(table.next_offered(), 5)
    assert (again.match, again.players) == ("W2-1", ("reg-1", "reg-9"))


async def test_a_match_abandoned_and_played_again_is_another_simulated_match() -> None:
    """A match whose result never came (its table waiting on a question the simulator's
    answer did not fit) is abandoned and played again: as another match, never the same one
    that stalled (the tournament-kill test saw W2-1 abandoned eight times running)."""
    import asyncio

    from controller.sim.bracket_tables import BracketMatches, Offers

    offers = Offers()
    table = BracketMatches(None, "T", "t1", "ten-ball", 1, 20.0, lambda: 0.0,  # type: ignore[arg-type]
                           None, offers)  # type: ignore[arg-type]
    offers.latest["t1"] = {"source": "tournament", "race_to": 1,
                           "tournament": {"id": "T", "match": "W2-1"},
                           "players": [{"id": "reg-1", "name": "Вера"},
                                       {"id": "reg-2", "name": "Глеб"}]}
    offer = await asyncio.wait_for(table.next_offered(), 5)
    table.played.add((offer.match, offer.players))
    first = table.lines_for(offer)
    table.played.discard((offer.match, offer.players))  # abandoned: offered again
    again = await asyncio.wait_for(table.next_offered(), 5)
    table.played.add((again.match, again.players))
    assert table.lines_for(again)[1:] != first[1:]  # past the header: another match
