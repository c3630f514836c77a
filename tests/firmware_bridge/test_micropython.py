"""The board files on MicroPython itself: its unix port (the rp2 port's VM) and its compiler.

The binary comes from ``$MICROPYTHON`` (the ``micropython`` executable or its folder), else
from the nearest ``shared/tools/micropython`` beside the repository or above it (CI: a fresh
clone with ``../shared/`` beside it). Where there is none the tests skip and say why.
``micropython/`` beside this file holds the stand-ins for what the unix port lacks (``machine``,
``rp2``) and the scenarios run on the VM; hard IRQs run with the heap locked, as on the rp2 port.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge import protocol as P
from firmware_bridge.firmware.main import VERSION as FIRMWARE_VERSION
from tests.firmware_bridge.test_protocol import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
BRIDGE = ROOT / "firmware_bridge"
STUBS = Path(__file__).with_name("micropython")


def _tools() -> Path | None:
    given = os.environ.get("MICROPYTHON")
    if given:
        path = Path(given)
        return path if path.is_dir() else path.parent
    for folder in (ROOT, *ROOT.parents):
        tools = folder / "shared" / "tools" / "micropython"
        if (tools / "micropython").is_file():
            return tools
    return None


TOOLS = _tools()
MICROPYTHON = TOOLS / "micropython" if TOOLS else None
MPY_CROSS = TOOLS / "mpy-cross" if TOOLS else None
needs_micropython = pytest.mark.skipif(
    MICROPYTHON is None or not MICROPYTHON.is_file(),
    reason="no MicroPython unix port: set MICROPYTHON or put shared/tools/micropython beside "
           "the repository",
)
MICROPYPATH = f"{STUBS}:{BRIDGE}:{BRIDGE / 'firmware'}"


def scenario(name: str, stdin: str = "") -> Any:
    assert MICROPYTHON is not None
    done = subprocess.run([str(MICROPYTHON), str(STUBS / "scenarios.py"), name], input=stdin,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "MICROPYPATH": MICROPYPATH})
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


@needs_micropython
@pytest.mark.parametrize("path", ["protocol.py", "firmware/main.py"])
def test_mpy_cross_compiles_the_board_files_for_the_rp2040(path: str, tmp_path: Path) -> None:
    assert MPY_CROSS is not None
    out = tmp_path / "out.mpy"
    done = subprocess.run([str(MPY_CROSS), "-march=armv6m", "-o", str(out), str(BRIDGE / path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes()[:1] == b"M"  # a .mpy file


@needs_micropython
def test_the_pin_and_timer_handlers_allocate_nothing_with_the_heap_locked() -> None:
    got = scenario("irq")
    assert got["failures"] == []
    # Every path ran: 1 accepted + a bounce + the same level + 10 more into a ring of 8.
    assert got["digital"] == [8, 3]
    assert got["piezo"] == [[1, 1], [1, 0]] and got["peak"] == 40000
    assert got["hard"] == [True] and got["timer_hard"] == [True]
    # The same check catches a closure over seven names, the shape of the old handler.
    assert got["control"] == ["MemoryError"]


@needs_micropython
def test_a_channel_quiet_for_1_to_40_minutes_takes_the_next_ball_from_its_irq_on_time() -> None:
    runs = scenario("idle")
    assert [r["minutes"] for r in runs] == [1, 5, 9, 10, 17, 18, 20, 30, 40]
    for run in runs:
        assert run["failures"] == []
        # Exactly the IRQ's ticks (the main loop's fallback would stamp its round's time),
        # extended past the wraps: µs since boot, with the counter wrapping 3 s after boot.
        assert run["edges"] == run["truth"], run["minutes"]


@needs_micropython
def test_edges_kept_for_40_minutes_come_out_with_their_own_time_not_in_the_future() -> None:
    run = scenario("idle")[-1]
    assert run["minutes"] == 40
    first_ball = run["edges"][0][2]
    assert first_ball == 1_001_234  # 1 s after boot, told 40 minutes later
    assert all(tick <= run["beat"] == run["now"] for _, _, tick in run["edges"])


@needs_micropython
def test_micropython_decodes_the_hosts_frames_and_writes_them_byte_for_byte() -> None:
    codec = P.Codec()
    wires = [codec.encode(m) for m in SAMPLES]
    got = scenario("codec", "\n".join(w.hex() for w in wires) + "\n")
    assert got["bad_frames"] == 0
    assert [d["wire"] for d in got["decoded"]] == [w.hex() for w in wires]
    for decoded, message in zip(got["decoded"], SAMPLES, strict=True):
        assert decoded["type"] == type(message).__name__
        for name in message.FIELDS:
            value = getattr(message, name)
            if isinstance(value, tuple):  # of ChannelInfo or Edge
                value = [[getattr(x, k) for k in x.FIELDS] for x in value]
            assert decoded["fields"][name] == value, (type(message).__name__, name)


@needs_micropython
def test_micropython_refuses_fields_out_of_range_instead_of_truncating_them() -> None:
    assert scenario("codec", "")["accepted_out_of_range"] == []


@needs_micropython
def test_a_chattering_cushion_crowds_out_no_beam_edge_and_its_losses_are_named() -> None:
    """Issue 32 §3: the cable out, a cushion sensor toggling every 1 ms, 11 balls through a
    beam; the board keeps every beam edge with its own time, the cushion is throttled (in 2 s
    its edges fit: none lost), and the Losses frame names the cushion's channel."""
    two, sixty = scenario("chatter")
    for run in (two, sixty):
        assert run["failures"] == []
        assert len(run["truth"]) == 22, run["seconds"]
        assert run["beam"] == run["truth"], run["seconds"]  # all 11 drops, on time
        assert run["lost"][0] == 0 and run["throttled"][0] == 0
    assert two["throttled"][1] > 0 and two["lost"][1] == 0  # held back, not overflowed
    assert 0 < two["cushion"] <= 2 * 1000 * 8 // 100 + 8
    assert two["losses"] == [[[1, 0, two["throttled"][1]]]]
    assert sixty["lost"][1] > 0  # over a minute the cushion fills its part of the ring
    assert sixty["losses"] == [[[1, sixty["lost"][1], sixty["throttled"][1]]]]


@needs_micropython
def test_a_drop_inside_a_flash_write_comes_from_the_latched_flags() -> None:
    """Issue 32 §5: interrupts off for 45 ms while the configuration is written; a 20 ms drop
    inside that spell leaves the pin where it was, but both edges were latched."""
    got = scenario("blind")
    assert got["failures"] == []
    assert got["saves"] == 1 and got["blind"] == 1
    assert got["edges"] == [[0, 1], [0, 0]]


@needs_micropython
def test_nothing_allocates_with_interrupts_off_the_heartbeat_included() -> None:
    """Issue 32 §8: the stub's disable_irq locks the heap; the heartbeat's levels are copied
    with interrupts off and counted after."""
    got = scenario("heartbeat")
    assert got["errors"] == [] and got["failures"] == []
    assert got["levels"] and set(got["levels"]) == {1 << 4}  # beam.fl (GP6) blocked


# -- main() on the VM: the real main.py with stdin / stdout as its USB line -----------------


def start_main(cwd: Path, stdin: int = subprocess.PIPE) -> subprocess.Popen[bytes]:
    assert MICROPYTHON is not None
    return subprocess.Popen([str(MICROPYTHON), str(BRIDGE / "firmware" / "main.py")], cwd=cwd,
                            stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "MICROPYPATH": MICROPYPATH})


def read_until(proc: subprocess.Popen[bytes], codec: P.Codec, want: set[type[P.BoardMessage]],
               timeout: float = 10.0) -> list[P.BoardMessage]:
    assert proc.stdout is not None
    got: list[P.BoardMessage] = []
    deadline = time.monotonic() + timeout
    while not want <= {type(m) for m in got}:
        left = deadline - time.monotonic()
        assert left > 0, f"timed out; got {got}"
        ready, _, _ = select.select([proc.stdout], [], [], left)
        if ready:
            data = os.read(proc.stdout.fileno(), 4096)
            assert data, f"the board ended: {proc.stderr.read() if proc.stderr else ''!r}"
            codec.receive_data(data)
            while isinstance(frame := codec.next_frame(), P.Frame):
                got.append(frame.message)
    return got


@needs_micropython
def test_main_says_hello_answers_a_host_and_feeds_the_watchdog(tmp_path: Path) -> None:
    proc = start_main(tmp_path)
    try:
        host, board = P.Codec(), P.Codec()
        [hello] = read_until(proc, board, {P.Hello})  # at boot, unasked
        assert isinstance(hello, P.Hello) and hello.tick_bits == 64
        assert hello.uid == "e661410401020304"
        click = [c for c in hello.channels if c.name == "click"]
        assert [(c.pin, c.mode) for c in click] == [(26, P.MODE_OFF)]  # off until wired
        assert proc.stdin is not None
        proc.stdin.write(host.encode(P.Hello(P.PROTOCOL_VERSION, "host", "host", 1)))
        proc.stdin.write(host.encode(P.SyncRequest(99)))
        proc.stdin.flush()
        got = read_until(proc, board, {P.Hello, P.Heartbeat, P.SyncReply})
        assert [m.nonce for m in got if isinstance(m, P.SyncReply)] == [99]
        fed = tmp_path / "wdt.txt"  # the stub's WDT writes it at its first feed
        deadline = time.monotonic() + 10
        while not fed.exists() or not fed.read_text():
            assert time.monotonic() < deadline, "the watchdog was never fed"
            assert proc.poll() is None
            time.sleep(0.01)
        assert fed.read_text() == "5000"  # started with 5 s, and fed by the loop
    finally:
        proc.kill()
        proc.wait()


#: The line that flashes a board, as the READMEs give it: ``mpremote connect PORT cp FILES : + reset``.
FLASH_LINE = re.compile(r'mpremote connect "\$PORT" cp (?P<files>[^:`]+) : \+ reset')


@needs_micropython
@pytest.mark.parametrize("readme", ["firmware_bridge/README.md", "deploy/README.md"])
def test_the_documented_flash_line_ships_every_file_the_firmware_needs(
    readme: Path, tmp_path: Path,
) -> None:
    """Exactly the files the README's line copies, flat on the board's flash (and nothing of
    this repository on the path): main.py boots, says Hello and answers a host."""
    text = (ROOT / readme).read_text(encoding="utf-8")
    [files] = {found for found in FLASH_LINE.findall(text) if "…" not in found}
    flash = tmp_path / "flash"
    flash.mkdir()
    for name in files.split():
        shutil.copy(ROOT / name, flash / Path(name).name)
    assert MICROPYTHON is not None
    proc = subprocess.Popen([str(MICROPYTHON), str(flash / "main.py")], cwd=tmp_path,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env={**os.environ, "MICROPYPATH": str(STUBS)})
    try:
        board = P.Codec()
        [hello] = read_until(proc, board, {P.Hello})
        assert isinstance(hello, P.Hello) and hello.firmware == FIRMWARE_VERSION
        assert proc.stdin is not None
        proc.stdin.write(P.Codec().encode(P.SyncRequest(7)))
        proc.stdin.flush()
        got = read_until(proc, board, {P.SyncReply})
        assert [m.nonce for m in got if isinstance(m, P.SyncReply)] == [7]
    finally:
        proc.kill()
        proc.wait()


@needs_micropython
def test_main_answers_a_host_of_another_protocol_version_in_its_version(tmp_path: Path) -> None:
    proc = start_main(tmp_path)
    try:
        read_until(proc, P.Codec(), {P.Hello})
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(P.encode_frame(5, P.Hello(1, "host", "host", 1), version=1))
        proc.stdin.flush()
        wire = b""
        deadline = time.monotonic() + 10
        while True:  # a protocol-1 host reads its frames: the header and Error are the same
            raws = [P.cobs_decode(chunk) for chunk in wire.split(b"\x00")[:-1] if chunk]
            errors = [P.Error.unpack(raw[4:-4]) for raw in raws
                      if raw is not None and raw[:2] == bytes([1, P.Error.TYPE])]
            if errors:
                break
            assert time.monotonic() < deadline, wire
            if select.select([proc.stdout], [], [], 1.0)[0]:
                wire += os.read(proc.stdout.fileno(), 4096)
        assert [(e.ref, e.code) for e in errors] == [(5, P.ERR_PROTOCOL)]
        assert "protocol 2" in errors[0].reason
    finally:
        proc.kill()
        proc.wait()


@needs_micropython
def test_an_uncaught_exception_is_written_down_and_the_board_resets(tmp_path: Path) -> None:
    (tmp_path / "fail_pins").write_text("")
    proc = start_main(tmp_path, stdin=subprocess.DEVNULL)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 42, err  # the stub's machine.reset()
    assert (tmp_path / "reset").exists()
    assert "stub pin failure" in (tmp_path / "crash.txt").read_text()


@needs_micropython
def test_a_repl_flag_at_boot_returns_to_the_repl_before_the_watchdog_starts(
    tmp_path: Path,
) -> None:
    (tmp_path / "repl").write_text("1")
    proc = start_main(tmp_path, stdin=subprocess.DEVNULL)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err  # main.py ended: on the board, the REPL
    assert b"REPL requested" in out
    assert not (tmp_path / "repl").exists()  # the next reset runs the firmware again
    assert not (tmp_path / "wdt.txt").exists() and not (tmp_path / "reset").exists()


@needs_micropython
def test_bootsel_held_2_s_restarts_the_board_into_the_repl(tmp_path: Path) -> None:
    proc = start_main(tmp_path)
    try:
        read_until(proc, P.Codec(), {P.Hello})  # running; then BOOTSEL is pressed and held
        (tmp_path / "bootsel").write_text("")
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 42, err
    assert (tmp_path / "repl").exists() and not (tmp_path / "crash.txt").exists()


@needs_micropython
def test_bootsel_held_at_power_on_returns_to_the_repl_before_the_watchdog_starts(
    tmp_path: Path,
) -> None:
    """Issue 32 §4: the way out of a board that resets at boot, whatever the reason."""
    (tmp_path / "bootsel").write_text("")
    (tmp_path / "fail_pins").write_text("")  # a firmware that would crash and reset
    proc = start_main(tmp_path, stdin=subprocess.DEVNULL)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert b"BOOTSEL held at boot" in out
    assert not (tmp_path / "wdt.txt").exists() and not (tmp_path / "reset").exists()
    assert not (tmp_path / "crash.txt").exists()


#: What the firmware before wrote after a configuration: every channel, a bare list, click on
#: as its default was, and a debounce this firmware's range check refuses.
OLD_SAVED = [[0, "beam.hl", 1, 2, 300, 0, 0], [1, "beam.hr", 1, 3, 150000, 0, 0],
             [13, "click", 2, 26, 0, 12000, 30000]]


def boot_with(tmp_path: Path, saved: object) -> P.Hello:
    (tmp_path / "channels.json").write_text(json.dumps(saved))
    proc = start_main(tmp_path)
    try:
        [hello] = read_until(proc, P.Codec(), {P.Hello})
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()
    assert not (tmp_path / "crash.txt").exists() and not (tmp_path / "reset").exists()
    assert isinstance(hello, P.Hello)
    return hello


@needs_micropython
def test_an_older_firmwares_refused_configuration_boots_the_defaults_and_says_so(
    tmp_path: Path,
) -> None:
    """Issue 32 §4: a saved value the range check refuses once made every boot crash."""
    hello = boot_with(tmp_path, OLD_SAVED)
    assert hello.firmware.endswith(P.DEFAULTS_MARK)
    assert [c.name for c in hello.channels][:2] == ["beam.hl", "beam.hr"]
    assert len(hello.channels) == 14  # the reference wiring
    assert [c.mode for c in hello.channels if c.name == "click"] == [P.MODE_OFF]


@needs_micropython
@pytest.mark.parametrize("saved", [[[0, "beam.hl"]], [[0, "beam.hl", 1, 2, "300", 0, 0]],
                                   {"format": 2, "channels": 7}, [[0, "beam.hl", 1, 2, 300, 0, 0],
                                                                  [1, "beam.hr", 1, 2, 300, 0, 0]]])
def test_a_malformed_saved_configuration_boots_the_defaults(tmp_path: Path, saved: object) -> None:
    hello = boot_with(tmp_path, saved)
    assert hello.firmware.endswith(P.DEFAULTS_MARK) and len(hello.channels) == 14


@needs_micropython
def test_an_older_firmwares_saved_click_default_does_not_turn_the_piezo_on(tmp_path: Path) -> None:
    """Issue 32 §4: the firmware before saved every channel, its default click (piezo on) too."""
    saved = [spec for spec in OLD_SAVED if spec[0] != 1]
    hello = boot_with(tmp_path, saved)
    assert hello.firmware == FIRMWARE_VERSION  # accepted: no fallback
    assert [(c.name, c.mode) for c in hello.channels] == [("beam.hl", P.MODE_DIGITAL),
                                                          ("click", P.MODE_OFF)]


@needs_micropython
def test_a_configuration_saved_by_this_firmware_keeps_a_piezo_turned_on(tmp_path: Path) -> None:
    saved = {"format": 2, "channels": [[13, "click", 2, 26, 0, 12000, 30000]]}
    hello = boot_with(tmp_path, saved)
    assert [(c.name, c.mode) for c in hello.channels] == [("click", P.MODE_PIEZO)]


# -- the firmware against the RP2040's API ---------------------------------------------------


def rp2_mypy(tmp_path: Path, main_py: str | None = None) -> list[str]:
    """Runs mypy --strict on main.py and protocol.py as they sit on the board, with the
    ``micropython-rp2-rpi-pico-stubs`` (dev extra) as the standard library and the rp2
    platform (which checks main.py's binding of ``machine`` and ``time`` to its protocols);
    returns what it says of our files (``main_py``: that text instead of main.py's)."""
    typings = tmp_path / "typings"
    for name in ("micropython-rp2-rpi-pico-stubs", "micropython-stdlib-stubs"):
        dist = importlib.metadata.distribution(name)
        for file in dist.files or ():
            if file.suffix == ".pyi" or file.name == "VERSIONS":
                target = typings / file
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(Path(str(dist.locate_file(file))), target)
    board = tmp_path / "board"
    (board / "firmware_bridge").mkdir(parents=True)
    for target in (board / "protocol.py", board / "firmware_bridge" / "protocol.py"):
        shutil.copy(BRIDGE / "protocol.py", target)
    (board / "firmware_bridge" / "__init__.py").write_text("")
    (board / "main.py").write_text(main_py if main_py is not None else
                                   (BRIDGE / "firmware" / "main.py").read_text())
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--custom-typeshed-dir",
         str(typings), "--platform", "rp2", "--cache-dir", str(tmp_path / "cache"), "main.py",
         "protocol.py"],
        cwd=board, capture_output=True, text=True, timeout=300,
        env={**os.environ, "MYPYPATH": str(typings)},
    )
    assert "source files" in done.stdout, done.stdout + done.stderr
    # The stubs have faults of their own; what counts is what mypy says of our files.
    return [line for line in done.stdout.splitlines()
            if line.startswith(("main.py", "protocol.py", "firmware_bridge"))]


def test_the_board_files_type_check_against_the_rp2040_stubs(tmp_path: Path) -> None:
    ours = rp2_mypy(tmp_path)
    assert ours == [], "\n".join(ours)


#: Misspelt names of the board's API, each where the firmware uses it or declares it.
MISSPELT = [
    ("Pin.IRQ_RISING | Pin.IRQ_FALLING", "Pin.IRQ_RISING | Pin.IRQ_FALING", "IRQ_FALING"),
    ("t = clock.ticks_us()", "t = clock.ticks_usec()", "ticks_usec"),
    ("Timer.PERIODIC, freq=PIEZO_HZ,\n                                   callback=self.sample_"
     "piezos, hard=True)", "Timer.PERIODC, freq=PIEZO_HZ,\n                                   "
     "callback=self.sample_piezos, hard=True)", "PERIODC"),
    ("        def PERIODIC(self) -> int: ...", "        def PERIODC(self) -> int: ...",
     "PERIODC"),
    ("        def disable_irq(self) -> int: ...", "        def disable_irqs(self) -> int: ...",
     "disable_irq"),
    ("        def ticks_us(self) -> Any: ...", "        def ticks_usec(self) -> Any: ...",
     "ticks_usec"),
    ("        def IRQ_FALLING(self) -> int: ...", "        def IRQ_FALING(self) -> int: ...",
     "IRQ_FALING"),
]


@pytest.mark.parametrize(("right", "wrong", "name"), MISSPELT, ids=[m[1][:40] for m in MISSPELT])
def test_a_misspelt_rp2040_api_fails_the_type_check(tmp_path: Path, right: str, wrong: str,
                                                     name: str) -> None:
    """Issue 32 §8: ``machine``, ``clock`` and ``port`` were typed ``object`` with 43 ignores,
    so ``IRQ_FALING``, ``ticks_usec`` or ``Timer.PERIODC`` passed."""
    text = (BRIDGE / "firmware" / "main.py").read_text()
    assert text.count(right) == 1, right
    ours = rp2_mypy(tmp_path, text.replace(right, wrong))
    assert any(name in line for line in ours), "\n".join(ours)
