"""``history_since`` rate-limited per asker (issue 39), through a real Mosquitto: an asker
past its burst is refused with the seconds to wait, as data; another asker (the recorder,
by its transactions) is still answered."""

from __future__ import annotations

from pathlib import Path

from controller.pipeline.history_pace import HISTORY_BURST, PAGES_KEPT, HistoryPace, asker_of
from controller.service.published import PUBLISHED_KEPT
from controller.wire.history import HISTORY_BYTES
from tests.broker import Broker
from tests.service.conftest import Collector, make_config, requester, running

B = "billiards/club/t1"


async def test_an_asker_past_its_burst_is_told_when_to_ask_again_and_the_recorder_is_not(
        tmp_path: Path, broker: Broker) -> None:
    async with Collector(broker, topic=f"{B}/response/+") as responses, \
            running(make_config(tmp_path, broker)) as service, requester(broker) as req:
        # a small bucket, hardly refilled: what the shipped one does past 1,000 askings
        service.table.history_pace = HistoryPace(burst=5, rate=0.001)
        for n in range(8):
            await req.send("history_since", {"seq": 0, "transaction": f"probe-{n}"})
        for n in range(3):
            await req.send("history_since", {"seq": 0, "transaction": f"billiards-recorder-x-{n}"})
        answers = [await responses.response("history_since", f"probe-{n}") for n in range(8)]
        recorder = [await responses.response("history_since", f"billiards-recorder-x-{n}")
                    for n in range(3)]
    assert [a["status"] for a in answers] == ["ok"] * 5 + ["error"] * 3
    assert all(a["error"].startswith("asked too often") and a["data"]["retry_after_s"] > 0
               for a in answers[5:])
    assert "messages" in answers[0]["data"]
    assert [a["status"] for a in recorder] == ["ok"] * 3


def test_the_burst_holds_a_whole_fill_of_the_journal_and_askers_are_known_by_their_prefix(
        ) -> None:
    assert HISTORY_BURST >= PAGES_KEPT == PUBLISHED_KEPT // (HISTORY_BYTES // 1024) + 1
    assert asker_of("billiards-recorder-Ab3") == "billiards-recorder"
    assert asker_of("console") == "console" and asker_of(None) == ""
