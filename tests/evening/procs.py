"""The evening's child processes: started, killed, paused and stopped by their own id.

Every process the evening starts is a ``Child``: its output goes to a log file of its own,
and ``stop()`` ends it however it is (paused, hung) — SIGCONT, SIGTERM, then SIGKILL after
``grace`` seconds — so that an evening that fails leaves nothing running. A child that exits
by itself is started again as its shipped systemd unit says (``Restart=``, ``RestartSec=``,
``RestartPreventExitStatus=``: ``unit_policy``), by ``supervise()``.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path


class Child:
    """One process of the venue (a table's service, the recorder), restartable."""

    def __init__(self, name: str, argv: Sequence[str], log: Path, cwd: Path | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.name = name
        self.argv = list(argv)
        self.log = log
        self.cwd = cwd
        self.env = env
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        #: the unit's restart policy: (Restart=, RestartSec=, RestartPreventExitStatus=)
        self.policy: tuple[str, float, tuple[int, ...]] = ("no", 0.0, ())
        #: each exit it made by itself: its status
        self.exits: list[int] = []
        self._exited_at: float | None = None
        #: the process asked to stop (``terminate``), if it has been
        self._terminated: subprocess.Popen[bytes] | None = None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        """Starts the process (again); its output is appended to ``log``."""
        if self.running:
            return
        with self.log.open("ab") as out:
            out.write(f"--- start {self.starts + 1}: {' '.join(self.argv)}\n".encode())
            out.flush()
            self.process = subprocess.Popen(self.argv, stdout=out, stderr=out, cwd=self.cwd,
                                            env=self.env, stdin=subprocess.DEVNULL,
                                            preexec_fn=_die_with_parent)
        self.starts += 1

    def signal(self, sig: signal.Signals) -> None:
        if self.running:
            assert self.process is not None
            self.process.send_signal(sig)

    def kill(self) -> None:
        """Kills the process with SIGKILL (a crash) and reaps it."""
        if self.process is not None:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self.process = None

    def terminate(self) -> None:
        """Asks the process to stop as systemd does (SIGTERM), without waiting: ``stop()``
        waits (the venue's tables stop together, as a club's do at closing)."""
        if self.running and self._terminated is not self.process:
            assert self.process is not None
            self.process.send_signal(signal.SIGCONT)  # a paused process cannot take SIGTERM
            self.process.terminate()
            self._terminated = self.process

    def stop(self, grace: float = 15.0) -> int | None:
        """Stops the process as systemd does (SIGTERM), SIGKILL after ``grace`` seconds;
        returns its exit status (None when it was not running)."""
        if self.process is None:
            return None
        self.terminate()  # once: a second SIGTERM could end a service in its clean stop
        process, self.process = self.process, None
        if process.poll() is None:
            try:
                process.wait(grace)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        return process.returncode


    def supervise(self, now: float) -> bool:
        """Starts the child again if it exited by itself and its unit's policy says so, once
        ``RestartSec`` passed (``now``: monotonic seconds); returns whether it did."""
        if self.process is None or self.process.poll() is None:
            return False
        code = self.process.returncode
        if self._exited_at is None:
            self._exited_at = now
            self.exits.append(code)
        restart, after, prevent = self.policy
        wanted = restart == "always" or (restart == "on-failure" and code != 0
                                         and code not in prevent)
        if not wanted or now - self._exited_at < after:
            return False
        self.process = None
        self._exited_at = None
        self.start()
        return True


def _die_with_parent() -> None:
    """In the child, before it runs: the kernel kills it (SIGKILL) when the evening's process
    dies, however it dies (Linux's ``PR_SET_PDEATHSIG``), so nothing outlives an evening."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def unit_policy(unit: Path) -> tuple[str, float, tuple[int, ...]]:
    """Returns a systemd unit's restart policy: ``Restart=``, ``RestartSec=`` (seconds) and
    ``RestartPreventExitStatus=``."""
    keys: dict[str, str] = {}
    for line in unit.read_text().splitlines():
        key, _, value = line.partition("=")
        keys[key.strip()] = value.strip()
    prevent = tuple(int(x) for x in keys.get("RestartPreventExitStatus", "").split() if x.isdigit())
    return keys.get("Restart", "no"), float(keys.get("RestartSec", "0") or 0), prevent


def environment() -> dict[str, str]:
    """Returns the children's environment: this one, with the project on ``PYTHONPATH``."""
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), *filter(None, [env.get("PYTHONPATH")])])
    return env
