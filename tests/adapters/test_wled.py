"""WLED: a flash on <topic>/api on a foul or a game end, then the restore state."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from controller.adapters import AdaptersConfig
from controller.adapters.config import WledConfig, WledFlash
from tests.adapters.harness import rig
from tests.broker import Broker

API = "wled/table-t1/api"
CONFIG = AdaptersConfig(wled=[WledConfig(
    topic="wled/table-t1",
    foul=WledFlash(color=[255, 0, 0], fx=1, sx=200, seconds=0.4),
    game_over=WledFlash(color=[255, 170, 0], fx=1, sx=128, seconds=0.4),
    restore={"ps": 2})])


def flash(color: list[int], sx: int) -> dict[str, object]:
    return {"on": True, "bri": 255, "transition": 0,
            "seg": [{"id": 0, "fx": 1, "sx": sx, "ix": 128, "col": [color]}]}


async def test_a_foul_flashes_red_then_restores_after_its_seconds(broker: Broker) -> None:
    async with rig(broker, CONFIG, "wled/#") as (table, device):
        await table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"]})
        await device.nothing(0.2)  # a new match does not flash
        await table.foul(["touched_ball"])
        assert await device.next() == (API, flash([255, 0, 0], 200), False)
        started = time.monotonic()
        assert await device.next() == (API, {"ps": 2}, False)
        assert 0.3 <= time.monotonic() - started < 1.5
        await device.nothing()


async def test_game_end_flashes_and_a_second_flash_postpones_the_restore(broker: Broker) -> None:
    async with rig(broker, CONFIG, "wled/#") as (table, device):
        await table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"]})
        await table.event("game_over", {"game_no": 1, "winner": 0, "draw": False,
                                        "reason": "ten", "games": [1, 0]})
        await table.event("match_over", {"winner": 0, "games": [1, 0]})
        assert await device.next() == (API, flash([255, 170, 0], 128), False)
        assert await device.next() == (API, flash([255, 170, 0], 128), False)
        assert await device.next() == (API, {"ps": 2}, False)
        await device.nothing(0.6)  # only one restore


async def test_abandoned_match_and_switched_off_flash_do_nothing(broker: Broker) -> None:
    config = AdaptersConfig(wled=[WledConfig(topic="wled/table-t1",
                                             foul=WledFlash(enabled=False, color=[1, 2, 3]))])
    async with rig(broker, config, "wled/#") as (table, device):
        await table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"]})
        await table.foul(["touched_ball"])
        await table.request("end_match", {})
        await device.nothing(0.5)


#: WLED's XML status on <topic>/v (retained): brightness 128, amber, effect 0 (solid)
STATUS = (b'<?xml version="1.0" ?><vs><ac>128</ac><cl>255</cl><cl>160</cl><cl>0</cl>'
          b'<cs>0</cs><cs>0</cs><cs>0</cs><ns>0</ns><fx>0</fx><sx>100</sx><ix>90</ix>'
          b'<ps>-1</ps><ds>Table 1</ds></vs>')


async def test_without_a_preset_the_light_goes_back_to_the_state_wled_published(
        broker: Broker) -> None:
    """The default restore needs no preset on the controller (preset 1 may not exist)."""
    config = AdaptersConfig(wled=[WledConfig(topic="wled/table-t1",
                                             foul=WledFlash(color=[255, 0, 0], seconds=0.2))])
    async with rig(broker, config, "wled/table-t1/api") as (table, device):
        await table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"]})
        await table.foul(["touched_ball"])
        await device.nothing(0.5)  # its state unknown: a flash could not be undone
        await device.mqtt.publish("wled/table-t1/v", STATUS, qos=1, retain=True)
        while True:  # until the adapters have the status: the next foul flashes
            await table.foul(["touched_ball"])
            try:
                topic, payload, _ = await device.next(0.5)
                break
            except TimeoutError:
                continue
        assert (topic, payload) == (API, flash([255, 0, 0], 200))
        assert await device.next() == (API, {
            "on": True, "bri": 128, "transition": 0,
            "seg": [{"id": 0, "fx": 0, "col": [[255, 160, 0]], "sx": 100, "ix": 90}]}, False)
        await device.mqtt.publish("wled/table-t1/v", b"", qos=1, retain=True)


#: WLED's status while it shows the foul's flash (it publishes one after every change).
FLASHING = (b'<?xml version="1.0" ?><vs><ac>255</ac><cl>255</cl><cl>0</cl><cl>0</cl>'
            b'<cs>0</cs><cs>0</cs><cs>0</cs><ns>0</ns><fx>1</fx><sx>200</sx><ix>128</ix>'
            b'<ps>-1</ps><ds>Table 1</ds></vs>')
AMBER = {"on": True, "bri": 128, "transition": 0,
         "seg": [{"id": 0, "fx": 0, "col": [[255, 160, 0]], "sx": 100, "ix": 90}]}


async def test_restarted_adapters_flash_at_once_and_restore_the_state_seen_before(
        broker: Broker, tmp_path: Path) -> None:
    """WLED's status is not retained by default: the adapters keep the last one they saw (not
    their own flash's), so after a restart the first foul flashes and restores it."""
    config = AdaptersConfig(state_dir=tmp_path, wled=[WledConfig(
        topic="wled/table-t1", foul=WledFlash(color=[255, 0, 0], seconds=0.2))])
    async with rig(broker, config, "wled/table-t1/api") as (table, device):
        await table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"]})
        await device.mqtt.publish("wled/table-t1/v", STATUS, qos=1)  # not retained
        while True:  # until the adapters have the status: the next foul flashes
            await table.foul(["touched_ball"])
            try:
                assert await device.next(0.5) == (API, flash([255, 0, 0], 200), False)
                break
            except TimeoutError:
                continue
        await device.mqtt.publish("wled/table-t1/v", FLASHING, qos=1)  # WLED, while it flashes
        assert await device.next() == (API, AMBER, False)
    assert json.loads((tmp_path / "wled-wled_table-t1.json").read_text()) == AMBER
    async with rig(broker, config, "wled/table-t1/api") as (table, device):  # restarted
        await table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"]})
        await table.foul(["touched_ball"])
        assert await device.next() == (API, flash([255, 0, 0], 200), False)
        assert await device.next() == (API, AMBER, False)


async def test_a_kept_state_that_cannot_be_read_is_no_state(broker: Broker,
                                                            tmp_path: Path) -> None:
    (tmp_path / "wled-wled_table-t1.json").write_text('{"bri": "half"}')
    config = AdaptersConfig(state_dir=tmp_path, wled=[WledConfig(
        topic="wled/table-t1", foul=WledFlash(color=[255, 0, 0], seconds=0.2))])
    async with rig(broker, config, "wled/table-t1/api") as (table, device):
        await table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"]})
        await table.foul(["touched_ball"])
        await device.nothing(0.5)  # no flash that could not be undone


def test_the_state_directory_is_systemds_unless_set(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    monkeypatch.setenv("STATE_DIRECTORY", f"{tmp_path}:/elsewhere")
    assert AdaptersConfig().state_dir == tmp_path
    assert AdaptersConfig(state_dir=tmp_path / "x").state_dir == tmp_path / "x"
    monkeypatch.delenv("STATE_DIRECTORY")
    assert AdaptersConfig().state_dir is None
