"""The project's firmware on the MicroPython VM behind a pseudo-terminal: a board as flashed.

``VmBoard`` runs ``firmware_bridge/firmware/main.py`` on MicroPython's unix port (the rp2
port's VM) with the stub ``machine`` and ``rp2`` modules of ``tests/firmware_bridge/micropython``,
its stdin / stdout as the board's USB line. A relay thread carries that line to a pty reached
at a stable path (as ``/dev/serial/by-id/…``): the host opens it as it opens a board. The
cable can be pulled (``cable(False)``: the pty and its link go, what the board writes is lost,
the board runs on, keeping its edges: a self-powered board) and plugged in again. A sensor
is moved through the stub's ``drive`` file (``set``, ``drop``); the board notes the ticks just
before and just after it applied each level (``driven``): its CLOCK_MONOTONIC microseconds on
the unix port, the host's ``time.monotonic()`` timeline, so a test knows the span each edge
fell in (a span, not an instant: on a loaded machine the VM can be preempted between applying
a level and the handler's own reading of the clock, for milliseconds).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Self

from firmware_bridge.sim import PtyPort
from tests.firmware_bridge.test_micropython import MICROPYTHON, STUBS

BRIDGE = Path(__file__).resolve().parents[2] / "firmware_bridge"
#: The default map's pins (firmware_bridge/README.md): each beam's GPIO.
BEAM_PINS = {"hl": 2, "hr": 3, "sl": 4, "sr": 5, "fl": 6, "fr": 7}
CUSHION_H = 9


class VmBoard:
    """One board: the firmware on the VM, its line relayed to a pty at ``link`` (see the
    module doc). ``uid`` (16 hex digits) is its unique id; ``saved`` the ``channels.json``
    its flash holds at boot (None: none); ``firmware`` and ``protocol`` the folders of the
    ``main.py`` and ``protocol.py`` flashed (this tree's, or an older release's)."""

    def __init__(self, folder: Path, link: Path, *, uid: str | None = None,
                 saved: object | None = None, firmware: Path = BRIDGE / "firmware",
                 protocol: Path = BRIDGE) -> None:
        self.folder = folder
        self.firmware = firmware  # the folder of its main.py
        self.protocol = protocol  # the folder of its protocol.py
        self.link = link
        self._uid = uid
        self._saved = saved
        self.port = PtyPort(str(link))
        self.proc: subprocess.Popen[bytes] | None = None
        self._plugged = True
        self._stop = threading.Event()
        self._lock = threading.Lock()  # the relay's and the power switch's
        self._thread = threading.Thread(target=self._relay, name="vm-board relay", daemon=True)

    @property
    def uid(self) -> str:
        return self._uid or "e661410401020304"

    def __enter__(self) -> Self:
        assert MICROPYTHON is not None
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "harness").write_text("1")
        if self._uid is not None:
            (self.folder / "uid").write_text(self._uid)
        if self._saved is not None:
            (self.folder / "channels.json").write_text(json.dumps(self._saved))
        (self.folder / "wdt.txt").unlink(missing_ok=True)
        self._boot()
        self._thread.start()
        self.running()
        return self

    def running(self, timeout: float = 60.0) -> None:
        """Returns once the firmware runs its main loop (its watchdog's first feed: the stub
        notes it in ``wdt.txt``), as a board a club has plugged in has long done before
        anything opens its port: on a loaded machine the VM takes seconds to compile and
        start the firmware, which a host's wait for its Hello must not be charged with."""
        deadline = time.monotonic() + timeout
        while not (self.folder / "wdt.txt").exists():
            assert self.proc is not None and self.proc.poll() is None, self.stderr()
            assert time.monotonic() < deadline, "the firmware did not start"
            time.sleep(0.01)

    def _boot(self) -> None:
        """Powers the board on: the firmware starts (a new boot id)."""
        assert MICROPYTHON is not None
        self.proc = subprocess.Popen(
            [str(MICROPYTHON), str(self.firmware / "main.py")], cwd=self.folder,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, "MICROPYPATH": f"{STUBS}:{self.protocol}:{self.firmware}"})

    def _off(self) -> None:
        """Powers the board off: the firmware ends, and what it kept with it."""
        proc, self.proc = self.proc, None
        if proc is not None:
            proc.kill()
            proc.wait()
            for pipe in (proc.stdin, proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._stop.set()
        self._thread.join(5)
        self._off()
        self.port.close()

    def power_cycle(self, off_s: float) -> None:
        """A brown-out: the board is off for ``off_s`` (its USB device gone with it), then
        boots again."""
        with self._lock:
            self._plugged = False
            self._off()
        self.cable(False)
        time.sleep(off_s)  # the spell the supply is out (a physical duration)
        with self._lock:
            self._boot()
            self._plugged = True
        self.cable(True)

    def _relay(self) -> None:
        """Carries bytes between the VM's line and the pty while the cable is in."""
        while not self._stop.is_set():
            with self._lock:
                proc = self.proc
                if self._plugged and self.port.master < 0:
                    self.port.plug()
                elif not self._plugged and self.port.master >= 0:
                    self.port.unplug()
                if proc is None or proc.stdout is None or proc.stdin is None:
                    ready: list[int] = []
                    out = into = -1
                else:
                    out, into = proc.stdout.fileno(), proc.stdin.fileno()
            fds = ([out] if out >= 0 else []) + ([self.port.master] if self.port.master >= 0
                                                  else [])
            try:
                ready, _, _ = select.select(fds, [], [], 0.01) if fds else ([], [], [])
            except (OSError, ValueError):  # powered off meanwhile
                continue
            if not fds:
                time.sleep(0.01)
            with self._lock:
                if self.proc is not proc:
                    continue
                if out >= 0 and out in ready:
                    data = os.read(out, 4096)
                    if data:
                        self.port.write(data)  # dropped while unplugged
                if (data := self.port.read()) is not None and into >= 0:
                    with contextlib.suppress(BrokenPipeError, OSError):
                        os.write(into, data)

    def cable(self, plugged: bool, link: Path | None = None) -> None:
        """Pulls the USB cable out (False) or plugs it in (at ``link``: another port, when
        given); returns once it is so."""
        if link is not None:
            assert not self._plugged and plugged, "a board moves to another port unplugged"
            self.link = link
            self.port.link = str(link)
        self._plugged = plugged
        deadline = time.monotonic() + 5
        while (self.port.master >= 0) != plugged:
            assert time.monotonic() < deadline, "the relay did not move the cable"
            time.sleep(0.005)

    def set(self, pin: int, level: int) -> None:
        """Drives ``pin`` to ``level``; returns once the board has applied it."""
        drive = self.folder / "drive"
        tmp = self.folder / "drive.tmp"
        tmp.write_text(f"{pin} {level}\n")
        os.replace(tmp, drive)
        deadline = time.monotonic() + 5
        while drive.exists():
            assert self.proc is not None and self.proc.poll() is None, self.stderr()
            assert time.monotonic() < deadline, "the board did not take the level"
            time.sleep(0.001)

    def drop(self, pocket: str, block_s: float = 0.02) -> None:
        """A ball through ``pocket``'s beam: blocked for ``block_s``."""
        self.set(BEAM_PINS[pocket], 1)
        time.sleep(block_s)  # the ball's passage (a physical duration, not a wait for the code)
        self.set(BEAM_PINS[pocket], 0)

    def driven(self) -> list[tuple[int, int, float, float]]:
        """Returns each level applied: (pin, level, and the host monotonic seconds just before
        and just after it was: the board's handler read its clock in between)."""
        path = self.folder / "driven"
        if not path.exists():
            return []
        rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
        return [(int(pin), int(level), int(before) / 1e6, int(after) / 1e6)
                for pin, level, before, after in rows]

    def drops(self) -> list[tuple[str, float, float]]:
        """Returns each ball through a beam as (pocket, and the span its beam was blocked in:
        just before, just after)."""
        pockets = {pin: pocket for pocket, pin in BEAM_PINS.items()}
        return [(pockets[pin], before, after) for pin, level, before, after in self.driven()
                if pin in pockets and level == 1]

    def stderr(self) -> str:
        if self.proc is None or self.proc.poll() is None or self.proc.stderr is None:
            return ""
        return self.proc.stderr.read().decode(errors="replace")
