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
