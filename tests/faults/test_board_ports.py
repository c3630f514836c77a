"""Two boards on a table, as a club wires them, with the firmware on the MicroPython VM behind
ptys, the live ``controller run`` (serial backend) and a real Mosquitto (issue 38 §4)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from controller.commission.boards import write_back_defaults
from controller.words.catalogue import words
from firmware_bridge.backend import SerialBackend
from tests.broker import Broker
from tests.faults.test_board_restarts import board_up, service, write_config
from tests.faults.vmboard import VmBoard
from tests.firmware_bridge.test_micropython import OLD_SAVED, needs_micropython
from tests.service.conftest import Collector, requester
from tests.waiting import until
from vocabulary import VERSION

ROOT = Path(__file__).resolve().parents[2]
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


#: The last commit of release 0.1.0's firmware (protocol 2): a board not updated since.
FIRMWARE_0_1_0 = "607102e"


def old_firmware(folder: Path) -> Path:
    """Writes release 0.1.0's main.py and protocol.py (from git) into ``folder``."""
    folder.mkdir(parents=True)
    for path, name in (("firmware_bridge/firmware/main.py", "main.py"),
                       ("firmware_bridge/protocol.py", "protocol.py")):
        done = subprocess.run(["git", "show", f"{FIRMWARE_0_1_0}:{path}"], cwd=ROOT,
                              capture_output=True, text=True, check=True)
        (folder / name).write_text(done.stdout)
    return folder


@needs_micropython
def test_check_fails_a_board_on_its_defaults_and_warns_of_ports_channels_and_firmware(
        tmp_path: Path, broker: Broker) -> None:
    """Issue 38 §3, §5: board A refused its saved configuration (``+defaults``: its channel
    names are the defaults, so every channel is on both boards); board B runs release 0.1.0's
    firmware on a port named /dev/ttyACM0-style."""
    stable = tmp_path / "dev" / "serial" / "by-id" / f"usb-MicroPython_Board_in_FS_mode_{UIDS[0]}-if00"
    stable.parent.mkdir(parents=True)
    unstable = tmp_path / "ttyACM1"
    old = old_firmware(tmp_path / "release-0.1.0")
    config = write_config(tmp_path, broker, [stable, unstable])
    config.write_text(config.read_text().replace('table = "t1"', 'table = "t1"\nlanguage = "ru"'))
    with VmBoard(tmp_path / "a", stable, uid=UIDS[0], saved=OLD_SAVED), \
            VmBoard(tmp_path / "b", unstable, uid=UIDS[1], firmware=old, protocol=old):
        done = subprocess.run([sys.executable, "-m", "controller", "check", "--config",
                               str(config)], cwd=ROOT, capture_output=True, text=True,
                              timeout=120)
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    problems = [line for line in out.splitlines() if line.startswith("✗")]
    assert problems == [f"✗ плата {UIDS[0]} на {stable} работает с каналами по умолчанию: она "
                        "отвергла сохранённую на ней настройку (имена каналов, пьезодатчик, "
                        "пороги). Проведите пусконаладку стола заново (controller commission): "
                        "она запишет каналы платы заново такими, как они работают, и плата их "
                        "сохранит"], out
    warnings = [line for line in out.splitlines() if line.startswith("!")]
    assert f"! на плате {UIDS[1]} ({unstable}) прошивка 0.1.0, у этого компьютера {VERSION}: " \
           "прошейте прошивку этой версии (firmware_bridge/README.md, Updating)" in warnings, out
    assert not [w for w in warnings if "прошивка" in w and UIDS[0] in w]
    assert [w for w in warnings if "не постоянное имя" in w] == [
        f"! порт {unstable} — не постоянное имя: после переподключения или сброса хаба плата "
        "может получить другое, и стол ослепнет посреди партии; укажите её ссылку из "
        "/dev/serial/by-id/ или /dev/billiards/board-<серийный номер> "
        "(deploy/99-billiards-boards.rules)"]
    assert [w for w in warnings if "платах (" in w] == [
        "! beam.hl, beam.hr, beam.sl, beam.sr, beam.fl, beam.fr, cue, cushion.h, cushion.f, "
        f"cushion.lh, cushion.lf, cushion.rh, cushion.rf: на 2 платах ({stable}, {unstable}): "
        "стол посчитает каждое срабатывание дважды; оставьте каждый канал включённым только на "
        "одной плате (проведите пусконаладку заново)"]
    assert out.rstrip().endswith("найдено проблем: 1")
    # the table's language throughout: no word of the English check's own is left (paths,
    # files and channels, such as beam.hl, are themselves)
    def latin(text: str) -> set[str]:
        return set(re.findall(r"\b[a-z]{3,}\b", re.sub(r"\S*(/|\w\.\w)\S*", "", text.lower())))
    english = latin(" ".join(v for k, v in words("en").pages.items()
                             if k.startswith(("check.", "board."))))
    assert len(english) > 50
    assert not latin(out) & (english - latin(" ".join(words("ru").pages.values()))), out


@needs_micropython
async def test_a_board_on_its_defaults_is_red_in_health_in_the_clubs_language(
        tmp_path: Path, broker: Broker) -> None:
    """Issue 38 §3: the live service says so in B/health and B/status until the board is
    configured again."""
    port = by_id(tmp_path, UIDS[0])
    config = write_config(tmp_path, broker, [port])
    config.write_text(config.read_text().replace('table = "t1"', 'table = "t1"\nlanguage = "ru"'))
    with VmBoard(tmp_path / "a", port, uid=UIDS[0], saved=OLD_SAVED) as board:
        async with Collector(broker) as col:
            with service(config, tmp_path / "service.log"):
                await col.wait(lambda: board_up(col, board.uid), 60)
                down = await col.wait(lambda: col.last("health").get("down"), 20)
                status = await col.wait(lambda: not col.last("status")["health"]["ok"]
                                        and col.last("status")["health"], 20)
    assert not col.last("health")["ok"]
    assert down == {str(port): f"плата {UIDS[0]} на {port} работает с каналами по умолчанию: "
                               "она отвергла сохранённую на ней настройку (имена каналов, "
                               "пьезодатчик, пороги). Проведите пусконаладку стола заново "
                               "(controller commission): она запишет каналы платы заново такими, "
                               "как они работают, и плата их сохранит"}
    assert status["down"] == down


@needs_micropython
async def test_commissioning_writes_back_a_board_on_its_defaults_which_then_keeps_them(
        tmp_path: Path) -> None:
    """Issue 38 §3: the fault lasts until a configuration is written to the board; then its
    Hello says ``+defaults`` no more, and after a restart it boots what it saved."""
    port = by_id(tmp_path, UIDS[0])
    with VmBoard(tmp_path / "a", port, uid=UIDS[0], saved=OLD_SAVED) as board:
        async with SerialBackend([str(port)]) as backend:
            [link] = backend.links
            await link.wait_up(30)
            assert link.info is not None and link.info.on_defaults
            done = await write_back_defaults(backend)
            assert not link.info.on_defaults
        async with SerialBackend([str(port)]) as backend:  # the next host, the same boot
            [link] = backend.links
            await link.wait_up(30)
            assert link.info is not None and not link.info.on_defaults
            assert link.info.firmware == VERSION
            before = link.info.channels
        saved = board.folder / "channels.json"
        await until(lambda: saved.exists() and "format" in saved.read_text(), 30,
                    "the board saved its channels")
    assert [(s.key, s.fields) for s in done] == [("done.defaults_written",
                                                   {"board": UIDS[0], "channels": 14})]
    with VmBoard(tmp_path / "a", port, uid=UIDS[0]) as board:  # restarted: what it saved
        async with SerialBackend([str(port)]) as backend:
            [link] = backend.links
            await link.wait_up(30)
            assert link.info is not None and link.info.firmware == VERSION
            assert link.info.channels == before
