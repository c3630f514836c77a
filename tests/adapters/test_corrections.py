"""A foul corrected is shown, not announced again (issue 28): a foul corrected twice gave three
foul events, three AWTRIX notifications and three red WLED flashes. The real table pipeline
rules and corrects the shot; the adapters run on the real broker."""

from __future__ import annotations

from controller.adapters import AdaptersConfig
from controller.adapters.config import AwtrixConfig, WledConfig, WledFlash
from tests.adapters.harness import rig
from tests.broker import Broker

CONFIG = AdaptersConfig(awtrix=[AwtrixConfig(prefix="awtrix_t1")],
                        wled=[WledConfig(topic="wled/t1", restore={"ps": 1},
                                         foul=WledFlash(color=[255, 0, 0], seconds=0.2))])
NOTIFY = "awtrix_t1/notify"
WLED = "wled/t1/api"


async def test_a_foul_corrected_twice_is_announced_once_and_a_new_shot_again(
        broker: Broker) -> None:
    async with rig(broker, CONFIG, NOTIFY, WLED) as (table, device):
        await table.request("new_match", {"game": "ten-ball", "players": ["Ann", "Bob"]})
        await table.foul(["touched_ball"])
        shot = table.table.snapshot(table.t)["shot"]
        seen = [await device.next() for _ in range(3)]  # the notification, a flash, its restore
        assert sorted(topic for topic, _, _ in seen) == [NOTIFY, WLED, WLED]
        for fouls in (["push"], ["double_hit"]):  # corrected twice
            await table.request("declare", {"shot": shot, "fouls": fouls})
        await device.nothing(0.5)
        await table.request("undo", {"shots": 1})
        await table.foul(["touched_ball"])  # the shot played again is a new announcement
        again = [await device.next() for _ in range(3)]
        assert sorted(topic for topic, _, _ in again) == [NOTIFY, WLED, WLED]
