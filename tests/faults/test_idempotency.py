"""Idempotency over a real broker and restarts (issue 33, item 6): after a new match (the
journal compacts) and a restart, a used transaction with another body is refused, not
answered ``ok``; a resent request is answered as before and not applied again, even after one
user's flood of 1,030 refused requests."""

from __future__ import annotations

from pathlib import Path

from tests.broker import Broker
from tests.service.conftest import B, Collector, make_config, requester, running

NEW = {"game": "ten-ball", "players": ["Ann", "Bob"]}


async def test_a_used_transaction_names_its_request_over_a_new_match_and_a_restart(
        tmp_path: Path, broker: Broker) -> None:
    config = make_config(tmp_path, broker)
    async with Collector(broker, topic=f"{B}/#") as col:
        async with running(config), requester(broker) as req:
            await req.send("new_match", {**NEW, "transaction": "nm1"})
            first = await col.response("new_match", "nm1")
            await req.send("new_match", {**NEW, "players": ["Cleo", "Dan"], "transaction": "nm2"})
            await col.response("new_match", "nm2")  # the journal compacts the first match away
        async with running(config) as service, requester(broker) as req:
            await req.send("new_match", {**NEW, "players": ["Eve", "Fay"], "transaction": "nm1"})
            other = await col.response("new_match", "nm1", count=2)
            assert other["status"] == "error" and "already used" in other["error"], other
            await req.send("new_match", {**NEW, "transaction": "nm1"})  # the same one, resent
            again = await col.response("new_match", "nm1", count=3)
            assert {k: again[k] for k in ("status", "data")} == {k: first[k] for k in ("status", "data")}
            assert [p.name for p in service.table.referee.state.players] == ["Cleo", "Dan"]


async def test_a_flood_of_refused_requests_does_not_make_a_resent_one_apply_again(
        tmp_path: Path, broker: Broker) -> None:
    config = make_config(tmp_path, broker)
    async with Collector(broker, topic=f"{B}/response/#") as col, running(config) as service, \
            requester(broker) as req:
        await req.send("new_match", {**NEW, "transaction": "nm"})
        await col.response("new_match", "nm")
        await req.send("shot_end", {"transaction": "e1"})
        await col.response("shot_end", "e1")
        for n in range(1030):
            await req.send("undo", {"shots": 5, "transaction": f"u{n}"})
        await col.wait(lambda: len(col.of("response/undo")) == 1030, timeout=120)
        await req.send("shot_end", {"transaction": "e1"})  # the referee resends its call
        await col.response("shot_end", "e1", count=2)
        assert service.table.referee.state.shot == 1
