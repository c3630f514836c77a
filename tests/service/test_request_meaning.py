"""A request means what it says, over a real broker (issue 22 items 4, 7, 8; issue 20 item 5):
a transaction names one request, a refused request changes nothing, a request that arrives
after its deadline is refused, and the journal keeps a request exactly as it was received.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from controller.service.shell import Service
from tests.broker import Broker
from tests.service.conftest import Collector, make_config, requester, running
from tests.service.plays import MATCH

NEW_MATCH = MATCH[0][1]


def state_of(service: Service) -> dict[str, Any]:
    return {**service.table.referee.snapshot(), "match_id": service.table.match_id}


async def test_a_transaction_reused_for_another_body_or_name_is_refused_on_its_own_topic(
        tmp_path: Path, broker: Broker) -> None:
    async with Collector(broker) as col, running(make_config(tmp_path, broker)) as service, \
            requester(broker) as req:
        await req.send("new_match", NEW_MATCH)
        first = await col.response("new_match", "nm")
        before = state_of(service)
        await req.send("new_match", {**NEW_MATCH, "players": ["Cy", "Di"]})
        other_body = await col.response("new_match", "nm", count=2)
        await req.send("end_match", {"transaction": "nm"})
        other_name = await col.response("end_match", "nm")
        await req.send("new_match", NEW_MATCH)  # the same request again: answered as before
        again = await col.response("new_match", "nm", count=3)
        assert other_body["status"] == other_name["status"] == "error"
        assert "already used" in other_body["error"] and "new_match" in other_name["error"]
        assert {k: again[k] for k in ("status", "data")} == {k: first[k] for k in ("status", "data")}
        assert state_of(service) == before and len(col.of("response/new_match")) == 3


async def test_a_refused_call_leaves_the_open_shot_open_and_unruled(tmp_path: Path,
                                                                    broker: Broker) -> None:
    async with Collector(broker) as col, running(make_config(tmp_path, broker)) as service, \
            requester(broker) as req:
        await req.play(col, MATCH[:3])  # Ann calls the 1, declares it pocketed: shot open
        before, events = state_of(service), len(col.events())
        assert service.table.fusion.open_shot
        # calling the 1 again would close the shot (the 1 is then down): refused, and so
        # the shot stays open, unruled
        await req.send("call", {"calls": [{"ball": 1, "pocket": "fl"}], "transaction": "bad"})
        refused = await col.response("call", "bad")
        assert refused["status"] == "error" and "not on the table" in refused["error"]
        assert state_of(service) == before and service.table.fusion.open_shot
        await req.send(*MATCH[3])
        assert (await col.response("shot_end", "e1"))["data"] == {"shot": 1}
        assert len(col.events()) > events and col.events()[events]["type"] == "shot_result"


async def test_a_declared_null_first_contact_is_the_same_foul_after_a_restart(
        tmp_path: Path, broker: Broker) -> None:
    config = make_config(tmp_path, broker)
    declare = {"first_contact": None, "transaction": "d1"}
    async with Collector(broker) as col:
        async with running(config) as service, requester(broker) as req:
            await req.play(col, [MATCH[0], MATCH[1], ("shot_end", {"transaction": "e1"}),
                                 ("declare", declare)])
            before = state_of(service)
            assert before["ball_in_hand"] == "anywhere"
            assert before["players"][0]["consecutive_fouls"] == 1
        async with running(config) as service, requester(broker) as req:
            assert state_of(service) == before
            await req.send("declare", declare)  # resent: answered as before, not applied again
            again = await col.response("declare", "d1", count=2)
            assert again["status"] == "ok" and again["data"] == {"facts": ["first_contact"]}
            assert state_of(service) == before


async def test_a_request_that_expired_while_the_table_was_offline_is_refused(
        tmp_path: Path, broker: Broker) -> None:
    config = make_config(tmp_path, broker)
    async with Collector(broker) as col:
        async with running(config) as service, requester(broker) as req:
            await req.play(col, MATCH[:4])
            before = state_of(service)
        # the table is offline; its persistent session keeps what is sent meanwhile
        async with requester(broker) as req:  # MQTT 3.1.1: the deadline is all the table has
            deadline = time.time() + 0.3
            await req.send("undo", {"transaction": "late", "deadline": deadline})
            await req.send("get", {"transaction": "fresh", "deadline": time.time() + 600})
        async with requester(broker, v5=True) as req:  # MQTT 5: the broker drops it itself
            props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
            props.MessageExpiryInterval = 1
            await req.send("undo", {"transaction": "late5"}, properties=props)
            expires = time.time() + 1
        while time.time() <= max(deadline, expires) + 1:  # the table stays away past both
            await asyncio.sleep(0.05)
        async with running(config) as service, requester(broker) as req:
            late = await col.response("undo", "late")
            assert late["status"] == "error" and "deadline" in late["error"]
            assert "expired" in late["error"]
            assert (await col.response("get", "fresh"))["status"] == "ok"
            await req.send("get", {"transaction": "after"})
            await col.response("get", "after")
            assert not [p for p in col.of("response/undo") if p["transaction"] == "late5"]
            assert state_of(service) == before
            journaled = [line for line in service.journal.inputs() if "request" in line]
            assert not [line for line in journaled if line["request"] == "undo"]
