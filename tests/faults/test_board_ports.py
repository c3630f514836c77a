"""Two boards on a table, as a club wires them, with the firmware on the MicroPython VM behind
ptys, the live ``controller run`` (serial backend) and a real Mosquitto (issue 38 §4)."""

from __future__ import annotations

from pathlib import Path

from tests.broker import Broker
from tests.faults.test_board_restarts import board_up, service, write_config
from tests.faults.vmboard import VmBoard
from tests.firmware_bridge.test_micropython import needs_micropython
from tests.service.conftest import Collector, requester

UIDS = ("e661410401020304", "e6614104010203aa")


def by_id(tmp_path: Path, uid: str) -> Path:
    return tmp_path / f"usb-MicroPython_Board_in_FS_mode_{uid}-if00"


@needs_micropython
async def test_two_boards_swapped_between_ports_after_a_hub_reset_lose_nothing_and_say_so(
        tmp_path: Path, broker: Broker) -> None:
    """Boot ids are kept per board: each is back with its own boot, on the other's port."""
    ports = [tmp_path / "port-a", tmp_path / "port-b"]
    config = write_config(tmp_path, broker, ports)
    log = tmp_path / "service.log"
    with VmBoard(tmp_path / "a", ports[0], uid=UIDS[0]) as a, \
            VmBoard(tmp_path / "b", ports[1], uid=UIDS[1]) as b:
        async with Collector(broker) as col, requester(broker) as req:
            with service(config, log):
                await col.wait(lambda: board_up(col, a.uid) and board_up(col, b.uid), 60)
                a.cable(False)  # the hub resets: both gone, and back on each other's port
                b.cable(False)
                await col.wait(lambda: not col.last("health")["links"][a.uid]["up"]
                               and not col.last("health")["links"][b.uid]["up"], 20)
                seen = len(col.of("health"))
                a.cable(True, ports[1])
                b.cable(True, ports[0])
                await col.wait(lambda: board_up(col, a.uid, seen) and board_up(col, b.uid, seen)
                               and col.last("health")["ok"], 30)
                await req.settle(col)
                links = col.last("health")["links"]
    said = log.read_text()
    assert [links[uid]["reason"] for uid in UIDS] == ["reconnected", "reconnected"]
    assert not [w for w in col.events("warning") if w["data"].get("kind") == "data_gap"]
    assert "restarted while it was away" not in said, said
