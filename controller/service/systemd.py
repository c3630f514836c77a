"""systemd's notify protocol: ``READY=1`` once serving, ``WATCHDOG=1`` from the event loop,
``STATUS=`` the line ``systemctl status`` shows.

Does nothing when ``NOTIFY_SOCKET`` is not set (not started by systemd with ``Type=notify``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Mapping

log = logging.getLogger(__name__)


class Notifier:
    """Sends notifications to systemd; ``interval`` is how often to ping its watchdog."""

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        path = env.get("NOTIFY_SOCKET", "")
        self._address = "\0" + path[1:] if path.startswith("@") else path
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        mine = not pid or pid == str(os.getpid())
        self.interval: float | None = int(usec) / 2e6 if usec.isdigit() and mine and int(usec) else None

    @property
    def enabled(self) -> bool:
        return bool(self._address)

    def notify(self, state: str) -> bool:
        """Sends ``state`` (``READY=1``, ``STOPPING=1``, ...); returns whether it was sent."""
        if not self._address:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.connect(self._address)
                sock.sendall(state.encode())
        except OSError as exc:
            log.warning("cannot notify systemd: %s", exc)
            return False
        return True

    def status(self, text: str) -> bool:
        """Sends ``STATUS=text`` (one line); returns whether it was sent."""
        return self.notify("STATUS=" + " ".join(text.split()))

    async def watchdog(self) -> None:
        """Pings the watchdog from the event loop until cancelled (a stuck loop stops it)."""
        if self.interval is None or not self.enabled:
            return
        while True:
            self.notify("WATCHDOG=1")
            await asyncio.sleep(self.interval)
