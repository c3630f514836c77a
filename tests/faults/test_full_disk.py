"""A full disk under the journal (issue 22 item 9), on a real, small filesystem (tmpfs): the
table referees on from memory, says so in ``B/health`` and ``B/status``, refuses new matches,
writes what it kept once there is room again, and a restart on a full disk comes up with the
last state rather than failing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import controller.service.durability
from controller.service.shell import Service
from tests.broker import Broker
from tests.faults.record import note
from tests.service.conftest import Collector, make_config, requester, running
from tests.service.plays import MATCH
from tests.smallfs import fill, small_filesystem


def state_of(service: Service) -> dict[str, Any]:
    return {**service.core.table.referee.snapshot(), "match_id": service.core.table.match_id}


def journal_link(col: Collector) -> dict[str, Any] | None:
    health = col.of("health")
    return health[-1].get("links", {}).get("journal") if health else None


async def test_a_full_disk_keeps_the_table_refereeing_and_loses_nothing_once_freed(
        tmp_path: Path, broker: Broker, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(controller.service.durability, "JOURNAL_RETRY_S", 0.2)
    with small_filesystem(tmp_path / "fs", 2048) as fs:
        config = make_config(tmp_path, broker, data=str(fs / "data"))
        async with Collector(broker) as col:
            async with running(config) as service, requester(broker) as req:
                await req.play(col, MATCH[:2])
                filler = fill(fs)
                await req.play(col, MATCH[2:4])  # refereed from memory: answered all the same
                assert all(p["status"] == "ok" for p in col.of("response/declare")
                           + col.of("response/shot_end"))
                await col.wait(lambda: (journal_link(col) or {}).get("up") is False)
                assert "full" in journal_link(col)["reason"].lower()  # type: ignore[index]
                await col.wait(lambda: col.last("status")["health"]["ok"] is False)
                await req.send("new_match", {**MATCH[0][1], "transaction": "nm2"})
                refused = await col.response("new_match", "nm2")
                assert refused["status"] == "error" and "journal" in refused["error"]
                kept = state_of(service)
                filler.unlink()  # room again: what was kept is written
                await req.play(col, [("get", {"transaction": "g1"})])
                await col.wait(lambda: (journal_link(col) or {}).get("up") is True)
                await col.wait(lambda: col.last("status")["health"]["ok"] is True)
            async with running(config) as service, requester(broker) as req:
                assert state_of(service) == kept  # nothing of the full disk's time was lost
                filler = fill(fs)
                await req.play(col, MATCH[4:5])
                kept = state_of(service)
            # a restart on a full disk: up with the last state, refereeing on from memory
            async with running(config) as service, requester(broker) as req:
                await req.play(col, [("get", {"transaction": "g2"})])
                assert state_of(service) == kept
                await req.play(col, MATCH[5:6])
                assert col.of("response/shot_end")[-1]["status"] == "ok"
            filler.unlink()
    note("full disk under the journal: refereeing from memory, freed, restarted full", 3, True)
