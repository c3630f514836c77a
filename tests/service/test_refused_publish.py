"""A publish the broker refuses is not delivered: the real link on a real Mosquitto whose
ACL is wrong for the table (every PUBACK says 0x87 "Not authorized"), then fixed and
reloaded (SIGHUP, as ``systemctl reload mosquitto`` does). Nothing leaves the outbox while
refused; the refusal is logged with the topic and the reason and kept on the link (for
health); once the broker takes them, everything kept arrives, in order."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import signal
from pathlib import Path

import aiomqtt
import pytest

from controller.service.config import MqttConfig
from controller.service.journal import Journal
from controller.service.mqtt import MqttLink, Refusal
from controller.service.outbox import Outbox
from controller.wire.connection import cancel_and_wait, parse_broker
from tests.broker import Broker, password_file
from tests.waiting import until

B = "billiards/club/t1"
WRONG = "user club/t1\ntopic read billiards/club/t1/request/+\n"  # no write right at all
FIXED = WRONG + "topic write billiards/club/t1/+\n"
READER = "user reader\ntopic read billiards/#\n"


async def test_a_refused_publish_stays_is_retried_and_is_delivered_in_order_once_allowed(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    passwords = password_file(tmp_path / "auth", {"club/t1": "tp", "reader": "rp"})
    acl = tmp_path / "auth" / "acl"
    acl.write_text(WRONG + READER)
    broker = Broker(tmp_path / "broker", anonymous=False,
                    extra=f"password_file {passwords}\nacl_file {acl}")
    broker.start()
    journal = Journal(tmp_path / "journal.sqlite3", sync="normal")
    outbox = Outbox(journal, 1000)
    for n in range(1, 6):
        outbox.add(journal.new_outgoing(f"{B}/event", b'{"seq": %d}' % n, False, 1))
    journal.write(journal.take())
    outbox.release()
    settings = MqttConfig(url=broker.url, reconnect_min_s=0.1, reconnect_max_s=0.4)
    told: list[Refusal | None] = []
    link = MqttLink(parse_broker(broker.url, "club/t1", "tp"), settings, B, outbox,
                    client_id="billiards-club-t1", will=b'{"state": "offline"}',
                    on_connected=lambda: None, on_request=lambda _: None,
                    on_refused=told.append)
    caplog.set_level(logging.ERROR, logger="controller.service.mqtt")
    try:
        async with aiomqtt.Client(broker.host, broker.port, username="reader", password="rp",
                                  identifier="reader") as reader:
            await reader.subscribe(f"{B}/event", qos=1)
            task = asyncio.create_task(link.run())
            try:
                await until(lambda: link.refused is not None and link.refused.tries >= 3, 10,
                            "the refusal was never noticed")
                refused = link.refused
                assert refused is not None
                assert (refused.topic, refused.code, refused.reason) == (
                    f"{B}/event", 0x87, "Not authorized")
                assert len(outbox) == 5  # nothing marked done
                logged = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
                assert logged and f"{B}/event" in logged[0] and "Not authorized" in logged[0]
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.3):
                        got = await anext(aiter(reader.messages))
                        raise AssertionError(f"a refused message arrived: {got.payload!r}")

                acl.write_text(FIXED + READER)  # the venue fixes its ACL and reloads
                assert broker.process is not None
                broker.process.send_signal(signal.SIGHUP)
                seen = []
                async with asyncio.timeout(10):
                    async for message in reader.messages:
                        seen.append(message.payload)
                        if len(seen) == 5:
                            break
                assert seen == [b'{"seq": %d}' % n for n in range(1, 6)]
                await until(lambda: len(outbox) == 0 and link.refused is None, 5,
                            "the link still says refused")
                # told once when refusing began (not at each retry), once when it ended
                assert [r and (r.topic, r.code) for r in told] == [(f"{B}/event", 0x87), None]
            finally:
                await cancel_and_wait(task)
    finally:
        journal.close()
        broker.stop()


async def test_a_broker_that_takes_the_message_leaves_no_refusal(tmp_path: Path) -> None:
    """The control: the same link and outbox on a broker that allows the table."""
    passwords = password_file(tmp_path / "auth", {"club/t1": "tp"})
    acl = tmp_path / "auth" / "acl"
    acl.write_text(FIXED)
    broker = Broker(tmp_path / "broker", anonymous=False,
                    extra=f"password_file {passwords}\nacl_file {acl}")
    broker.start()
    journal = Journal(tmp_path / "journal.sqlite3", sync="normal")
    outbox = Outbox(journal, 1000)
    outbox.add(journal.new_outgoing(f"{B}/event", b'{"seq": 1}', False, 1))
    journal.write(journal.take())
    outbox.release()
    link = MqttLink(parse_broker(broker.url, "club/t1", "tp"), MqttConfig(url=broker.url),
                    B, outbox, client_id="t1", will=b"{}", on_connected=lambda: None,
                    on_request=lambda _: None)
    task = asyncio.create_task(link.run())
    try:
        await until(lambda: len(outbox) == 0, 10, "not delivered")
        assert link.refused is None
    finally:
        await cancel_and_wait(task)
        journal.close()
        broker.stop()


async def test_the_service_shows_a_refusal_in_its_health_and_delivers_everything_once_fixed(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The issue's case: a table whose ACL entry lacks its event topic. It logs the refusal,
    B/health (sent out of turn) shows the broker link down with the topic and the reason;
    once the ACL is fixed and reloaded, every event arrives, once, in order, and health is
    green again."""
    from controller.pipeline.replay import replay
    from controller.pipeline.table import Message
    from tests.faults.test_broker_flaps import matches
    from tests.service.conftest import make_config, running
    from tests.service.test_outage import significant

    allowed = "".join(f"topic write {B}/{t}\n" for t in ("status", "state", "display", "health",
                                                         "response/+"))
    passwords = password_file(tmp_path / "auth", {"club/t1": "tp", "reader": "rp"})
    acl = tmp_path / "auth" / "acl"
    acl.write_text(WRONG + allowed + READER)  # no event
    broker = Broker(tmp_path / "broker", anonymous=False,
                    extra=f"password_file {passwords}\nacl_file {acl}")
    broker.start()
    trace = tmp_path / "match.jsonl"
    trace.write_text(matches(1, 7).text())
    config = make_config(tmp_path, broker, sim={"trace": str(trace), "speed": 30.0},
                         mqtt={"username": "club/t1", "password": "tp"})
    caplog.set_level(logging.ERROR, logger="controller.service.mqtt")
    events: list[dict[str, object]] = []
    health: list[dict[str, object]] = []

    async def read(reader: aiomqtt.Client) -> None:
        async for m in reader.messages:
            payload = json.loads(m.payload)  # type: ignore[arg-type]
            (events if str(m.topic) == f"{B}/event" else health).append(payload)

    try:
        async with aiomqtt.Client(broker.host, broker.port, username="reader", password="rp",
                                  identifier="reader") as reader:
            await reader.subscribe(f"{B}/event", qos=1)
            await reader.subscribe(f"{B}/health", qos=1)
            task = asyncio.create_task(read(reader))
            try:
                async with running(config) as service:
                    def broker_link() -> dict[str, object]:
                        links = [h.get("links", {}).get("broker") for h in health]
                        return links[-1] if links and links[-1] else {}

                    await until(lambda: broker_link().get("up") is False, 20, "health not red")
                    assert broker_link()["reason"] == (
                        f"refuses {B}/event: Not authorized (0x87)")
                    assert health[-1]["summary"]["ok"] is False  # type: ignore[index]
                    assert events == []
                    assert any(f"{B}/event" in r.getMessage() and "Not authorized" in
                               r.getMessage() for r in caplog.records)
                    acl.write_text(WRONG + allowed + f"topic write {B}/event\n" + READER)
                    assert broker.process is not None
                    broker.process.send_signal(signal.SIGHUP)
                    await until(lambda: any(e["type"] == "match_over" for e in events), 60,
                                "the match's events never arrived")
                    await until(lambda: broker_link().get("up") is True, 10, "health still red")
                    assert service.link.refused is None
            finally:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        expected: list[Message] = []
        recorded = sorted((tmp_path / "data" / "traces").glob("trace-*.jsonl"))
        replay(recorded[-1].read_text().splitlines(), expected.append, lambda bad: None)
        seqs = [e["seq"] for e in events]
        assert seqs == sorted(set(seqs))  # type: ignore[type-var]
        assert significant(events) == significant(  # type: ignore[arg-type]
            [m.payload for m in expected if m.topic == "event"])
    finally:
        broker.stop()
