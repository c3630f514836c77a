"""A new match's players picked from the venue's roster: their ids, validated, carried in
``match_started`` and the state; a name typed has none (null)."""

from __future__ import annotations

from controller.pipeline.table import Message, Table


def start(**extra: object) -> tuple[dict, list[Message]]:
    table = Table()
    table.start(0.0)
    handled = table.request("new_match", {"game": "ten-ball", "players": ["Борис", "Борис"],
                                          **extra}, 1.0)
    response = next(m.payload for m in handled.messages if m.topic == "response/new_match")
    return response, handled.messages


def test_the_ids_picked_are_in_match_started_and_the_state():
    response, out = start(player_ids=["p-2f9c", None])
    assert response["status"] == "ok"
    [started] = [m.payload["data"] for m in out if m.payload.get("type") == "match_started"]
    assert started["players"] == ["Борис", "Борис"] and started["player_ids"] == ["p-2f9c", None]
    [state] = [m.payload for m in out if m.topic == "state"]
    assert state["player_ids"] == ["p-2f9c", None]


def test_without_ids_the_match_and_state_are_as_before():
    response, out = start()
    assert response["status"] == "ok"
    [started] = [m.payload["data"] for m in out if m.payload.get("type") == "match_started"]
    assert "player_ids" not in started
    assert all("player_ids" not in m.payload for m in out if m.topic == "state")


def test_ids_not_one_a_player_or_not_an_id_are_refused_and_nothing_starts():
    for ids, why in ((["p-1"], "one each"), (["p 1", None], "pattern"),
                     (["p-1", "x" * 65], "64 characters")):
        response, out = start(player_ids=ids)
        assert response["status"] == "error" and why in response["error"], response
        assert not [m for m in out if m.payload.get("type") == "match_started"]
