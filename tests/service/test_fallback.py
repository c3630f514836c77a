"""A broker that speaks only MQTT 3.1.1: the service falls back to it by itself."""

from __future__ import annotations

import asyncio
import contextlib

from tests.broker import free_port
from tests.service.conftest import Collector, make_config, running


class OldBroker:
    """A proxy in front of Mosquitto that refuses MQTT 5 as a 3.1.1-only broker does
    (CONNACK "unacceptable protocol version") and passes 3.1.1 connections through."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream = upstream_port
        self.port = free_port()
        self.refused = 0

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.read(65536)  # the CONNECT packet: ... "MQTT", then the level
        level = head[head.index(b"MQTT") + 4]
        if level == 5:
            self.refused += 1
            writer.write(bytes([0x20, 0x02, 0x00, 0x01]))
            await writer.drain()
            writer.close()
            return
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)
        up_writer.write(head)
        await asyncio.gather(self._pipe(reader, up_writer), self._pipe(up_reader, writer))

    async def __aenter__(self) -> OldBroker:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.server.close()


async def test_the_service_falls_back_to_mqtt_3_1_1(tmp_path, broker):
    async with OldBroker(broker.port) as old:
        config = make_config(tmp_path, broker, mqtt={"url": f"mqtt://127.0.0.1:{old.port}"})
        async with Collector(broker) as col, running(config) as service:
            assert not service.link.v5 and old.refused >= 1
            await col.wait(lambda: col.of("status") and col.last("status")["state"] == "online")
