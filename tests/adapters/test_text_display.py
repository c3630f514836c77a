"""LED text displays: retained lines sized exactly for a 2×16 LCD and a 64×32 matrix."""

from __future__ import annotations

from controller.adapters import AdaptersConfig
from controller.adapters.config import TextDisplayConfig
from controller.adapters.text import TextDisplayAdapter, layout
from tests.adapters.harness import B, rig
from tests.broker import Broker

CONFIG = AdaptersConfig(text=[TextDisplayConfig(panel="2x16"), TextDisplayConfig(panel="64x32"),
                              TextDisplayConfig(panel="2x16", name="plain", format="text")])


def lcd(lines: list[str]) -> dict[str, object]:
    return {"v": 1, "panel": "2x16", "cols": 16, "rows": 2, "lines": lines,
            "text": "\n".join(lines)}


def matrix(lines: list[str]) -> dict[str, object]:
    return {"v": 1, "panel": "64x32", "cols": 10, "rows": 4, "lines": lines,
            "text": "\n".join(lines)}


async def test_both_panels_show_the_score_and_the_shooter_after_a_foul(broker: Broker) -> None:
    async with rig(broker, CONFIG, f"{B}/display/+") as (table, device):
        idle = ["TABLE T1".ljust(16), "FREE".ljust(16)]
        assert await device.next() == (f"{B}/display/2x16", lcd(idle), False)
        assert await device.next() == (f"{B}/display/64x32", matrix(
            ["TABLE T1  ", "FREE      ", " " * 10, " " * 10]), False)
        assert await device.next() == (f"{B}/display/plain", "\n".join(idle), False)
        await table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"],
                                          "race_to": 3})
        await table.foul(["touched_ball"])
        seen: dict[str, object] = {}
        while len(seen) < 3 or not all(">BOB" in str(p) for p in seen.values()):
            topic, payload, _ = await device.next()
            seen[topic] = payload
        assert seen[f"{B}/display/2x16"] == lcd([" ANN" + " " * 11 + "0", ">BOB" + " " * 11 + "0"])
        assert seen[f"{B}/display/64x32"] == matrix(
            [" ANN     0", ">BOB     0", "IN HAND   ", "G1 RACE 3 "])
        assert seen[f"{B}/display/plain"] == lcd([" ANN" + " " * 11 + "0",
                                                   ">BOB" + " " * 11 + "0"])["text"]


def test_lines_are_exactly_the_panel_size_whatever_the_names() -> None:
    state = {"game": "pyramid", "status": "in_play", "to_shoot": 2, "ball_in_hand": "none",
             "shot": 7, "game_no": 1, "race_to": None,
             "players": [{"name": "Alexandria", "score": 12}, {"name": "Bo", "score": 0},
                         {"name": "Catherine", "score": 101}, {"name": "D", "score": 3}]}
    assert layout(state, 16, 2) == [" ALEX 12 BO    0", ">CAT 101 D     3"]
    assert layout(state, 10, 4) == [" ALEXAN 12", " BO      0", ">CATHE 101", " D       3"]
    for cols, rows in ((16, 2), (10, 4), (20, 4)):
        lines = layout(state, cols, rows)
        assert len(lines) == rows and {len(x) for x in lines} == {cols}


def test_a_won_game_names_the_winner_on_the_matrix() -> None:
    state = {"game": "siberian-ten", "status": "game_over", "winner": 0, "to_shoot": 0,
             "game_no": 2, "race_to": 3, "players": [{"name": "Ann", "score": 6},
                                                     {"name": "Bob", "score": 5}]}
    assert layout(state, 10, 4)[2:] == ["ANN WINS  ", "G2 RACE 3 "]
    assert layout({**state, "winner": None, "draw": True}, 10, 4)[2] == "DRAW      "


def test_custom_topic_and_size() -> None:
    adapter = TextDisplayAdapter(TextDisplayConfig(topic="esphome/lcd/score", cols=20, rows=4),
                                 B)
    [pub] = adapter.on_state({"status": "idle", "players": []})
    assert pub.topic == "esphome/lcd/score" and pub.retain
    assert isinstance(pub.payload, dict) and pub.payload["cols"] == 20
