"""AWTRIX 3: the score as a retained custom app, fouls and game ends as notifications."""

from __future__ import annotations

from controller.adapters import AdaptersConfig
from controller.adapters.awtrix import AwtrixAdapter
from controller.adapters.config import AwtrixConfig
from tests.adapters.harness import Device, device_client, rig
from tests.broker import Broker

CONFIG = AdaptersConfig(awtrix=[AwtrixConfig(prefix="awtrix_t1")])
APP = "awtrix_t1/custom/billiards"
NOTIFY = "awtrix_t1/notify"
RED, BLUE, WHITE = "FF4040", "40A0FF", "FFFFFF"


def score(a: int, b: int, names: tuple[str, str] = ("ANN", "BOB")) -> dict[str, object]:
    return {"text": [{"t": f"{names[0]} ", "c": RED}, {"t": str(a), "c": RED},
                     {"t": ":", "c": WHITE},
                     {"t": str(b), "c": BLUE}, {"t": f" {names[1]}", "c": BLUE}],
            "textCase": 2, "duration": 10}


async def test_idle_table_deletes_the_app_and_a_match_shows_the_score(broker: Broker) -> None:
    async with rig(broker, CONFIG, "awtrix_t1/#") as (table, device):
        assert await device.next() == (APP, "", False)  # retained idle state: no app
        await table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"],
                                          "race_to": 3})
        assert await device.next() == (APP, score(0, 0), False)
        await device.nothing()


async def test_the_app_is_retained_for_a_clock_that_boots_later(broker: Broker) -> None:
    async with rig(broker, CONFIG, APP) as (table, device):
        await table.request("new_match", {"game": "siberian-ten", "players": ["Ann", "Bob"]})
        await table.state(players=[{"name": "Ann", "score": 4, "games": 1},
                                   {"name": "Bob", "score": 5, "games": 0}])
        while (await device.next())[1] != score(4, 5):
            pass
        async with device_client(broker, "late-clock") as late:
            await late.subscribe(APP, qos=1)
            assert await Device(late).next() == (APP, score(4, 5), True)


async def test_a_foul_is_a_notification_naming_the_player_in_their_colour(broker: Broker) -> None:
    async with rig(broker, CONFIG, NOTIFY) as (table, device):
        await table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"]})
        await table.foul(["touched_ball"])
        assert await device.next() == (NOTIFY, {
            "text": [{"t": "FOUL ", "c": "FF0000"}, {"t": "ANN", "c": RED},
                     {"t": " TOUCHED A BALL", "c": WHITE}],
            "textCase": 2, "duration": 5, "stack": False, "wakeup": True, "repeat": 1}, False)
        await device.nothing()


async def test_game_and_match_ends_are_notified(broker: Broker) -> None:
    async with rig(broker, CONFIG, NOTIFY) as (table, device):
        await table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"]})
        await table.event("game_over", {"game_no": 2, "winner": 1, "draw": False,
                                        "reason": "ten_pocketed", "games": [0, 2]})
        await table.event("match_over", {"winner": 1, "games": [0, 2]})
        await table.event("match_over", {"winner": None, "abandoned": True, "games": [0, 0]})
        base = {"textCase": 2, "stack": False, "wakeup": True}
        assert await device.next() == (NOTIFY, {
            "text": [{"t": "BOB", "c": BLUE}, {"t": " WINS GAME 2", "c": WHITE}],
            "duration": 5, "repeat": 1, "rainbow": True, **base}, False)
        assert await device.next() == (NOTIFY, {
            "text": [{"t": "BOB", "c": BLUE}, {"t": " WINS THE MATCH 0:2", "c": WHITE}],
            "duration": 5, "repeat": 2, "rainbow": True, **base}, False)
        assert await device.next() == (NOTIFY, {
            "text": [{"t": "MATCH ENDED", "c": WHITE}], "duration": 5, "repeat": 1, **base}, False)


def test_four_players_each_in_their_colour_with_icon_sound_and_lifetime() -> None:
    cfg = AwtrixConfig(prefix="c", app="pool", icon="8ball", lifetime=900, sound="beep")
    adapter = AwtrixAdapter(cfg)
    state = {"game": "pyramid", "status": "in_play", "to_shoot": 0,
             "players": [{"name": n, "score": s} for n, s in
                         [("Ann", 1), ("Bob", 2), ("Cat", 3), ("Dan", 4)]]}
    [pub] = adapter.on_state(state)
    assert (pub.topic, pub.retain) == ("c/custom/pool", True)
    assert pub.payload == {"text": [{"t": "ANN 1", "c": "FF4040"}, {"t": " BOB 2", "c": "40A0FF"},
                                    {"t": " CAT 3", "c": "40FF70"}, {"t": " DAN 4", "c": "FFD040"}],
                           "textCase": 2, "duration": 10, "icon": "8ball", "lifetime": 900}
    assert adapter.on_state(state) == []  # unchanged: not sent again
    [note] = adapter.on_event({"type": "foul", "data": {"player": 3, "fouls": ["scratch"]}})
    assert isinstance(note.payload, dict)
    assert (note.payload["sound"], note.payload["icon"]) == ("beep", "8ball")
    assert note.payload["text"][1] == {"t": "DAN", "c": "FFD040"}
