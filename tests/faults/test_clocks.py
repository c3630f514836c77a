"""Deadlines that do not need two clocks to agree (issue 33, item 10): an MQTT 5 request's
message expiry, measured from when the table received it, stands for its ``deadline``, so a
table whose wall clock is two minutes off takes a fresh request and refuses one that waited
past its expiry; and ``B/health`` says when the table's wall clock is not synchronised."""

from __future__ import annotations

import time
from pathlib import Path

from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from controller.service.core import Request
from controller.service.shell import Service
from controller.service.timesync import synchronised
from controller.sim.backend import sim_backend
from tests.broker import Broker
from tests.service.conftest import B, Collector, make_config, requester, running
from tests.service.corekit import Stepper, core_config, payloads


def expiring(seconds: int) -> Properties:
    props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
    props.MessageExpiryInterval = seconds
    return props


async def test_a_fresh_request_is_taken_by_a_table_whose_clock_is_two_minutes_ahead(
        tmp_path: Path, broker: Broker) -> None:
    config = make_config(tmp_path, broker)
    service = Service(config, backend=sim_backend, wall=lambda: time.time() + 120)
    async with Collector(broker, topic=f"{B}/#") as col, running(service), \
            requester(broker, v5=True) as req:
        # a console's request: wanted for 30 s, by its clock and by its message expiry
        await req.send("get", {"transaction": "fresh", "deadline": time.time() + 30},
                       properties=expiring(30))
        assert (await col.response("get", "fresh"))["status"] == "ok"


def test_a_request_that_waited_past_its_message_expiry_is_refused(tmp_path: Path) -> None:
    stepper = Stepper(core_config(tmp_path / "data"))
    stepper.core.start()
    received = stepper.clock.t
    stepper.clock.t += 45  # the table was busy: 45 s between receipt and its turn
    late = stepper.core.handle(Request("undo", b'{"transaction": "u"}', expires=received + 30))
    stepper.clock.t += 1
    fresh = stepper.core.handle(Request("get", b'{"transaction": "g"}',
                                        expires=stepper.clock.t + 30))
    (refused,) = payloads(late, "response/undo")
    assert refused["status"] == "error" and "message expiry" in refused["error"]
    assert "15.0 s" in refused["error"]
    assert payloads(fresh, "response/get")[0]["status"] == "ok"
    stepper.close()


async def test_health_says_whether_the_wall_clock_is_synchronised(tmp_path: Path,
                                                                  broker: Broker) -> None:
    assert synchronised() in (True, False)  # this machine's kernel can tell
    config = make_config(tmp_path, broker)
    for state in (False, True):
        service = Service(config, backend=sim_backend, clock_synchronised=lambda s=state: s)
        async with Collector(broker, topic=f"{B}/health") as col, running(service):
            health = await col.wait(lambda: [s.payload for s in col.seen if not s.retain])
            assert health[-1]["host"] == {"clock_synchronised": state}
            assert health[-1]["ok"] is True  # a table referees as well without NTP
