"""The venue recorder's broker user (deploy/mosquitto/billiards.acl): it reads every table,
asks a table only for its history and writes only the tables' session topics and the
venue's roster."""

from __future__ import annotations

import json

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
