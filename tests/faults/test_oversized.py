"""A request too large for the table (issue 33, item 9): the table's CONNECT says its Maximum
Packet Size, so a real Mosquitto drops a larger message for it (it never reaches the table's
memory, the table answers the next request at once); and a ``MemoryError`` that asyncio would
only log ends the process, so that systemd restarts it."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from controller.pipeline.requests import MAX_PAYLOAD
from controller.service.mqtt import MAX_PACKET, exit_on_memory_error
from tests.broker import Broker
from tests.service.conftest import B, Collector, make_config, requester, running
from tests.waiting import until


async def test_a_request_over_the_maximum_packet_size_never_reaches_the_table(
        tmp_path: Path, broker: Broker) -> None:
    config = make_config(tmp_path, broker)
    huge = json.dumps({"transaction": "huge", "pad": "x" * (4 * MAX_PACKET)}).encode()
    within = json.dumps({"transaction": "large", "pad": "x" * (MAX_PAYLOAD + 100)}).encode()
    assert len(within) < MAX_PACKET
    async with Collector(broker, topic=f"{B}/#") as col, running(config) as service, \
            requester(broker, v5=True) as req:
        taken: list[bytes] = []
        on_request = service.link.intake.on_request

        async def seen(item: object) -> None:
            taken.append(item.payload)  # type: ignore[attr-defined]
            await on_request(item)  # type: ignore[arg-type]

        service.link.intake.on_request = seen  # type: ignore[method-assign]
        await req.send("get", huge)
        await req.send("get", within)  # within the packet size: refused by the table itself
        await col.wait(lambda: [p for p in col.of("response/get")  # no transaction read
                                if "too large" in p.get("error", "")])
        await req.settle(col)
        assert [p for p in taken if len(p) > MAX_PACKET] == []
        assert len([p for p in col.of("response/get") if "too large" in p.get("error", "")]) == 1


async def test_a_memory_error_in_a_callback_ends_the_process() -> None:
    loop = asyncio.get_running_loop()
    before = loop.get_exception_handler()
    exits: list[int] = []
    others: list[object] = []
    loop.set_exception_handler(lambda _loop, context: others.append(context.get("exception")))
    try:
        exit_on_memory_error(loop, exit=exits.append)

        def reader() -> None:  # as paho reading a 250 MB packet in aiomqtt's socket callback
            raise MemoryError

        def other() -> None:
            raise KeyError("x")

        loop.call_soon(reader)
        loop.call_soon(other)
        await until(lambda: exits and others, 5, "both callbacks")
        assert exits == [1]
        assert len(others) == 1 and isinstance(others[0], KeyError)  # the others as before
    finally:
        loop.set_exception_handler(before)
