"""The venue recorder's broker user (deploy/mosquitto/billiards.acl): it reads every table,
asks a table only for its history and writes only the tables' session topics and the
venue's roster."""

from __future__ import annotations

import json

import aiomqtt

from controller.wire.connection import Pubacks
from tests.deploy.test_mosquitto_acl import B1, T1, delivered_first, first_message, login
from tests.deploy.venue import Venue


async def test_recorder_reads_every_table_and_asks_only_for_history(venue: Venue) -> None:
    async with login(venue, "recorder") as rec:
        await rec.subscribe("billiards/club/+/event", qos=1)
        async with login(venue, T1) as table:
            await table.publish(f"{B1}/event", json.dumps({"v": 1, "seq": 1}), qos=1)
        assert str((await first_message(rec)).topic) == f"{B1}/event"
    asked = await delivered_first(venue, T1, f"{B1}/request/history_since", "dashboard", "recorder")
    assert asked["from"] == "recorder"
    refused = await delivered_first(venue, T1, f"{B1}/request/new_match", "recorder", "referee")
    assert refused["from"] == "referee"


async def test_recorder_writes_the_session_topic_but_no_table_topic(venue: Venue) -> None:
    session = await delivered_first(venue, "dashboard", f"{B1}/session", "referee", "recorder")
    assert session["from"] == "recorder"
    state = await delivered_first(venue, "dashboard", f"{B1}/state", "recorder", T1)
    assert state["from"] == T1


async def test_recorder_writes_the_venue_roster_that_consoles_and_dashboards_read(
        venue: Venue) -> None:
    # a table, a console or a dashboard cannot write it; the recorder can, and both read it
    for reader, denied in (("referee", T1), ("dashboard", "referee"), ("referee", "dashboard")):
        roster = await delivered_first(venue, reader, "billiards/club/roster", denied, "recorder")
        assert roster == {"topic": "billiards/club/roster", "from": "recorder"}


async def test_the_billing_topic_is_the_recorders_alone_not_the_tables_own(venue: Venue) -> None:
    # the table's own user writes the rest of its base, not its session topic
    session = await delivered_first(venue, "dashboard", f"{B1}/session", T1, "recorder")
    assert session["from"] == "recorder"
    status = await delivered_first(venue, "dashboard", f"{B1}/status", "referee", T1)
    assert status["from"] == T1


async def test_the_adapters_write_no_venue_topic_as_a_clocks(venue: Venue) -> None:
    # AWTRIX clocks' prefixes (one level or two) matched billiards/custom/x and
    # billiards/club/notify: refused there (MQTT 5: "not authorized" in the PUBACK), still
    # granted on a clock's own prefix and on the tables' display texts
    async with login(venue, "adapters-t1", protocol=aiomqtt.ProtocolVersion.V5) as adapters:
        acks = Pubacks(adapters)
        codes = {}
        for topic in ("billiards/custom/x", "billiards/club/notify", "billiards/notify",
                      "billiards/club/custom/x", "awtrix_a1b2c3/custom/score",
                      "awtrix/clock1/notify", f"{B1}/display/lcd"):
            acks.clear()
            await adapters.publish(topic, "{}", qos=1)
            codes[topic] = acks.take()[0]  # 0x10, "no matching subscribers", is taken
    assert {t: c == 0x87 for t, c in codes.items()} == {
        "billiards/custom/x": True, "billiards/club/notify": True, "billiards/notify": True,
        "billiards/club/custom/x": True, "awtrix_a1b2c3/custom/score": False,
        "awtrix/clock1/notify": False, f"{B1}/display/lcd": False}


async def test_the_recorder_writes_its_health_and_a_table_cannot(venue: Venue) -> None:
    codes = {}
    for user in ("recorder", T1):
        async with login(venue, user, protocol=aiomqtt.ProtocolVersion.V5) as client:
            acks = Pubacks(client)
            await client.publish("billiards/recorder/health", "{}", qos=1)
            codes[user] = acks.take()[0]
    assert codes[T1] == 0x87 and codes["recorder"] < 0x80


async def _codes(venue: Venue, topic: str, users: tuple[str, ...]) -> dict[str, bool]:
    """Returns, for each user, whether the venue broker granted its publish on ``topic``
    (MQTT 5: "not authorized", 0x87, in the PUBACK when it did not)."""
    granted = {}
    for user in users:
        async with login(venue, user, protocol=aiomqtt.ProtocolVersion.V5) as client:
            acks = Pubacks(client)
            await client.publish(topic, "{}", qos=1)
            granted[user] = acks.take()[0] != 0x87
    return granted


#: Every user of the shipped ACL that might write a topic of the tables' (but "web", the
#: bridge's: a login as it would push the browsers' bridge off the venue broker for a while;
#: it is granted what "referee" is on these topics).
WRITERS = (T1, f"{T1}/referee", "referee", "dashboard", "keypad-t1", "adapters-t1",
           "homeassistant", "scoreboard-bar", "recorder")


async def test_a_tables_next_match_is_the_recorders_alone_and_every_page_reads_it(
        venue: Venue) -> None:
    granted = await _codes(venue, f"{B1}/next", WRITERS)
    assert granted == {user: user == "recorder" for user in WRITERS}
    for reader in ("referee", "dashboard"):
        seen = await delivered_first(venue, reader, f"{B1}/next", T1, "recorder")
        assert seen == {"topic": f"{B1}/next", "from": "recorder"}


async def test_consoles_send_waiting_list_requests_and_only_the_recorder_answers(
        venue: Venue) -> None:
    asked = await delivered_first(venue, "recorder", "billiards/club/waiting/request/join",
                                  "dashboard", "referee")
    assert asked["from"] == "referee"
    for topic in ("billiards/club/waiting", "billiards/club/waiting/response/join"):
        granted = await _codes(venue, topic, WRITERS)
        assert granted == {user: user == "recorder" for user in WRITERS}, topic


async def test_a_console_on_the_browsers_broker_asks_the_recorder_and_hears_its_answer(
        venue: Venue) -> None:
    # the console's request goes out over the bridge to the recorder on the venue broker; the
    # recorder's answer and the table's next match come back in; a dashboard's request does not
    async with login(venue, "recorder") as rec, \
            login(venue, "referee", port=9001, transport="websockets") as console:
        await rec.subscribe("billiards/club/waiting/request/+", qos=1)
        await console.subscribe("billiards/club/waiting/response/+", qos=1)
        await console.subscribe(f"{B1}/next", qos=1)
        async with login(venue, "dashboard", port=9001, transport="websockets") as dash:
            await dash.publish("billiards/club/waiting/request/join", b'{"from": "dashboard"}', qos=1)
        await console.publish("billiards/club/waiting/request/join", b'{"from": "referee"}', qos=1)
        asked = await first_message(rec)
        assert (str(asked.topic), asked.payload) == ("billiards/club/waiting/request/join",
                                                     b'{"from": "referee"}')
        await rec.publish("billiards/club/waiting/response/join", b'{"status": "ok"}', qos=1)
        await rec.publish(f"{B1}/next", b'{"offer": "w1"}', qos=1, retain=True)
        heard = {str(m.topic): m.payload for m in [await first_message(console),
                                                   await first_message(console)]}
    assert heard == {"billiards/club/waiting/response/join": b'{"status": "ok"}',
                     f"{B1}/next": b'{"offer": "w1"}'}
