"""The sensor backends a configuration names on real hardware: the Pi's pins or sensor boards.

One place for the service (``run``) and commissioning (``commission``), so both listen to the
table the same way: the same pins, the same inverted receivers, the same boards.

A board the configuration names that is not connected is a fault from the first second
(``Boards``): absent, busy (held by another program), not permitted, or speaking another
firmware or protocol, it is a link down in ``B/health`` named by its port, with the reason
in plain words of the table's language, and an error in the log; once it connects, its port's
link is up again. So is a board that runs its default channels (``+defaults`` in its Hello: it
refused the configuration saved on it), until a configuration is written to it (commissioning).
Once every board is up, a channel the game needs that no board carries (and that is not declared
absent) is the link ``unwired`` down, naming it. A board that goes down later is its own link
down (by its id), its reason in the same words, naming its port.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from types import TracebackType
from typing import Any, Self

from controller.service.config import Config, ConfigError, needed
from controller.words.catalogue import say
from firmware_bridge.backend import SerialBackend
from firmware_bridge.link import BoardLink
from hardware.backend import SensorBackend
from hardware.events import LinkChanged, SensorEvent

log = logging.getLogger(__name__)

#: A board not up this long after the start, with no error yet, is reported as not answering.
GRACE_S = 1.0
#: The link in ``B/health`` that is down while a channel the game needs is on no board.
UNWIRED = "unwired"


def hardware_backend(config: Config, pin_factory: Any = None) -> SensorBackend:
    """Returns the backend of ``config.backend`` ``"gpio"`` or ``"serial"``; the GPIO one on
    ``pin_factory`` (default: this Pi's, ``hardware.gpio.pi_pin_factory``).

    Raises ConfigError for another backend or one with no pins or ports.
    """
    if config.backend == "gpio":
        from hardware.gpio import GpioBackend, inverted, pi_pin_factory
        if not config.gpio.pins:
            raise ConfigError("gpio.pins: the gpio backend needs at least one channel = pin")
        return GpioBackend(config.gpio.pins, pin_factory=pin_factory or pi_pin_factory(),
                           wiring=inverted(config.gpio.invert))
    if config.backend == "serial":
        if not config.serial.ports:
            raise ConfigError("serial.ports: the serial backend needs at least one port")
        return Boards(config.serial.ports, inverted=config.serial.invert, needed=needed(config),
                      language=config.language)
    raise ConfigError(f"backend: {config.backend!r} is not a sensor backend on hardware")


def board_trouble(error: str) -> str:
    """Returns the catalogue's key of why a board is not connected, from its link's last error
    (empty: none yet): ``board.absent``, ``board.busy``, ..."""
    low = error.lower()
    if not error:
        return "board.no_answer"
    if "is absent" in low or "no such file" in low or "errno 2]" in low:
        return "board.absent"
    if "permission" in low or "errno 13]" in low:
        return "board.permission"
    if any(word in low for word in ("busy", "exclusively lock", "errno 11]", "errno 16]",
                                    "temporarily unavailable")):
        return "board.busy"
    if "speaks protocol" in low:
        return "board.protocol"
    if "no hello" in low or "tick" in low or "time-sync" in low:
        return "board.firmware"
    return "board.not_connected"


def not_connected(port: str, error: str, language: str = "en") -> str:
    """Returns why the board on ``port`` is not connected, in plain words of ``language`` with
    what to do, from its link's last error (``board_trouble``; the error itself is the link's
    own words)."""
    return say(board_trouble(error), language, port=port, error=error)


class Boards(SerialBackend):
    """The serial backend that says so when a board it names is not connected (see the
    module docstring): a ``LinkChanged`` down for its port, with ``not_connected``'s reason,
    as soon as its first attempt fails (or ``GRACE_S`` passes with no answer) and again
    whenever the reason changes; up, once the board is connected."""

    def __init__(self, ports: Sequence[str], *, needed: Sequence[str] = (), poll_s: float = 0.1,
                 language: str = "en", **options: Any) -> None:
        super().__init__(ports, **options)
        self.needed = tuple(needed)
        self.language = language
        self._poll_s = poll_s
        self._watch: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Self:
        await super().__aenter__()
        self._watch = asyncio.create_task(self._watch_links(), name="boards: not connected")
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        if self._watch is not None:
            self._watch.cancel()
            try:
                await self._watch
            except asyncio.CancelledError:
                if (current := asyncio.current_task()) is not None and current.cancelling():
                    raise
        await super().__aexit__(exc_type, exc, tb)

    async def events(self) -> AsyncIterator[SensorEvent | LinkChanged]:
        """Yields the boards' events and link changes, a board that went down said in the
        table's language with its port (``not_connected``; its link's own words in it)."""
        async for item in super().events():
            if (isinstance(item, LinkChanged) and not item.up
                    and item.source not in (*self.ports, UNWIRED)):
                port = next((link.port for link in self.links if link.source == item.source),
                            item.source)
                item = replace(item, reason=not_connected(port, item.reason, self.language))
            yield item

    async def _watch_links(self) -> None:
        start = time.monotonic()
        told: dict[str, str] = {}  # port -> the trouble last reported ("": none)
        been_up: set[str] = set()  # ports whose board was up once (then only its defaults)
        unwired = False  # whether every board was up once (then the channels were checked)
        while True:
            for link in self.links:
                if link.up:
                    been_up.add(link.port)
                    news = self.defaults_reason(link) if link.info and link.info.on_defaults else ""
                elif link.port in been_up:
                    continue  # down later: its own link says so
                elif not link.last_error and time.monotonic() - start < GRACE_S:
                    continue
                else:
                    news = not_connected(link.port, link.last_error, self.language)
                if told.get(link.port, "") == news:
                    continue
                told[link.port] = news
                if news:
                    log.error("sensor board on %s is not ready: %s", link.port, news)
                    self._emit(LinkChanged(time.monotonic(), link.port, False, news))
                else:
                    log.info("sensor board %s on %s is connected", link.source, link.port)
                    self._emit(LinkChanged(time.monotonic(), link.port, True,
                                           f"connected: board {link.source}"))
            if not unwired and len(been_up) == len(self.links):
                unwired = True
                self._unwired()
            await asyncio.sleep(self._poll_s)

    def defaults_reason(self, link: BoardLink) -> str:
        """Returns, in the table's language, that ``link``'s board runs its default channels."""
        return say("health.board_defaults", self.language, board=link.source, port=link.port)

    def _unwired(self) -> None:
        """Every board is up: says so if a channel the game needs is on none of them."""
        carried = {ch for link in self.links for ch in link.channels}
        missing = [ch for ch in self.needed if ch not in carried]
        if missing:  # every board is up, and still a channel the game needs is on none
            reason = (f"no board carries {', '.join(missing)}: wire it, or declare it absent "
                      "([fusion] absent)")
            log.error("the table cannot see everything the game needs: %s", reason)
            self._emit(LinkChanged(time.monotonic(), UNWIRED, False, reason))
