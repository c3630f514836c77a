"""``python -m controller check --config FILE``: is this table ready to run, and if not, why?

As ``esphome config`` does: reads the configuration (refused as ``run`` would refuse it),
probes the sensor boards it names (present, firmware and protocol version, the channels each
carries) or the Pi's GPIO, connects to the broker with the configured credentials, and prints
what it found in plain words. It changes nothing: a board is greeted and asked the time, not
configured; the broker session is a clean one of its own (the service's client id and its
session are left alone). Returns 0 when everything is ready, 1 on a problem, 2 for a
configuration that cannot be read.

A problem (``✗``): a board absent, busy or of another protocol, a board that runs its default
channels (it refused the configuration saved on it: said in the table's language), a channel
the game needs on no board. A warning (``!``, still ready): a port named otherwise than by a
stable name (``/dev/serial/by-id/…``, the shipped rule's ``/dev/billiards/board-…``), a
channel on two boards, a board whose firmware is not this host's version.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TextIO

import aiomqtt

from controller.service.backends import board_trouble, not_connected
from controller.service.config import Config, ConfigError, load_controller_config, needed, ready
from controller.wire.connection import tls_context
from controller.words.catalogue import say
from vocabulary import VERSION as HOST_VERSION

#: How long a board has to answer (its Hello and a time sync), and the broker to accept us.
BOARD_S = 4.0
BROKER_S = 8.0


#: Stable names of a board's port, as (folder, name prefix): udev's by-id links and those the
#: shipped rule makes (``deploy/99-billiards-boards.rules``); ``/dev/ttyACM0`` and its kind
#: are renumbered. (The folder is matched at its end: a test's ``/tmp/…/dev/serial/by-id``.)
STABLE_PORTS = (("/serial/by-id", ""), ("/billiards", "board-"))


def stable(port: str) -> bool:
    """Returns whether ``port`` is a stable name of a board (``STABLE_PORTS``)."""
    folder, _, name = port.rpartition("/")
    return any(folder.endswith(where) and name.startswith(prefix)
               for where, prefix in STABLE_PORTS)


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing found: ``ok`` or a problem, in plain words; a ``warning`` is ok for now but
    wants seeing to."""

    ok: bool
    what: str
    warning: bool = False

    @property
    def mark(self) -> str:
        return "!" if self.warning else "✓" if self.ok else "✗"


def check_main(args: Any, out: TextIO = sys.stdout, *, board_s: float = BOARD_S,
               broker_s: float = BROKER_S) -> int:
    """The ``check`` command; returns the exit status (``board_s``, ``broker_s``: as
    ``check``'s). It speaks the configuration's language; one that cannot be read, English."""
    try:
        config = load_controller_config(args.config)
    except ConfigError as exc:
        print(f"✗ configuration: {exc}", file=out)
        return 2
    language = config.language
    source = str(args.config or say("check.the_defaults", language))
    findings = asyncio.run(check(config, source, board_s=board_s, broker_s=broker_s))
    for finding in findings:
        print(f"{finding.mark} {finding.what}", file=out)
    problems = sum(not f.ok for f in findings)
    print(say("check.problems", language, n=problems) if problems
          else say("check.ready", language), file=out)
    return 1 if problems else 0


async def check(config: Config, source: str = "config", *, board_s: float = BOARD_S,
                broker_s: float = BROKER_S) -> list[Finding]:
    """Returns what the configuration, its sensors and its broker are found to be (each board
    given ``board_s`` to answer, the broker ``broker_s`` to accept us), in the configuration's
    language."""
    language = config.language
    findings = [Finding(True, say("check.configuration", language, source=source,
                                  table=config.base,
                                  backend=config.backend or say("check.none", language)))]
    if config.backend is None:
        findings.append(Finding(False, say("check.no_backend", language, source=source)))
    else:
        try:
            ready(config, source)
        except ConfigError as exc:
            findings.append(Finding(False, str(exc)))
        if config.backend == "serial":
            findings += await _boards(config, board_s)
        elif config.backend == "gpio":
            findings += _gpio(config)
    absent = config.fusion_settings().absent
    if absent:
        findings.append(Finding(True, say("check.declared_absent", language,
                                          channels=", ".join(absent))))
    findings.append(await _broker(config, broker_s))
    return findings


async def _boards(config: Config, timeout: float) -> list[Finding]:
    """Greets each board; then whether every channel the game needs is on one of them."""
    language = config.language
    probed = await asyncio.gather(*(_probe(config, port, timeout)
                                    for port in config.serial.ports))
    findings = [finding for found, _ in probed for finding in found]
    findings += [Finding(True, say("check.unstable_port", language, port=port), warning=True)
                 for port in config.serial.ports if not stable(port)]
    served: dict[str, list[str]] = {}
    for (_, channels), port in zip(probed, config.serial.ports, strict=True):
        for ch in channels:
            served.setdefault(ch, []).append(port)
    twice: dict[tuple[str, ...], list[str]] = {}  # boards' ports -> the channels on each
    for ch, ports in served.items():
        if len(ports) > 1:
            twice.setdefault(tuple(ports), []).append(ch)
    findings += [Finding(True, say("check.twice", language, channels=", ".join(channels),
                                   n=len(ports), ports=", ".join(ports)), warning=True)
                 for ports, channels in twice.items()]
    if all(f.ok for f in findings):
        carried = set(served)
        findings += _coverage(needed(config), carried, language)
        unknown = [ch for ch in config.serial.invert if ch not in carried]
        if unknown:
            findings.append(Finding(False, say("check.invert_unknown", language,
                                               channels=", ".join(unknown))))
    return findings


async def _probe(config: Config, port: str, timeout: float) -> tuple[list[Finding],
                                                                       tuple[str, ...]]:
    """Greets the board on ``port``; returns what it is found to be, and its channels."""
    from firmware_bridge.link import BoardLink
    from firmware_bridge.protocol import DEFAULTS_MARK

    language = config.language
    async with BoardLink(port, lambda _: None, inverted=config.serial.invert) as link:
        with contextlib.suppress(TimeoutError):
            await link.wait_up(timeout)
        info = link.info
        if not link.up or info is None:
            why = not_connected(port, link.last_error, language)
            if board_trouble(link.last_error) == "board.busy":
                why += say("check.own_service", language)
            return [Finding(False, say("check.board_down", language, port=port, why=why))], ()
        found = [Finding(True, say("check.board", language, board=info.uid, port=port,
                                   firmware=info.firmware, protocol=info.protocol,
                                   channels=", ".join(link.channels)
                                   or say("check.none", language)))]
        firmware = info.firmware.removesuffix(DEFAULTS_MARK)
        if firmware != HOST_VERSION:
            found.append(Finding(True, say("check.firmware_differs", language, board=info.uid,
                                           port=port, firmware=firmware, host=HOST_VERSION),
                                 warning=True))
        if info.on_defaults:
            found.append(Finding(False, say("health.board_defaults", language, board=info.uid,
                                            port=port)))
        return found, link.channels


def _coverage(needed: Iterable[str], carried: set[str], language: str) -> list[Finding]:
    missing = [ch for ch in needed if ch not in carried]
    if not missing:
        return [Finding(True, say("check.all_there", language))]
    return [Finding(False, say("check.missing", language, channel=ch)) for ch in missing]


def _gpio(config: Config) -> list[Finding]:
    """Whether this machine's GPIO can be opened (lgpio, the chip), and what is wired."""
    from hardware.gpio import GpioError, pi_pin_factory

    language = config.language
    pins = ", ".join(say("check.gpio_pin", language, channel=ch, pin=pin)
                     for ch, pin in config.gpio.pins.items())
    findings = [Finding(True, say("check.gpio_pins", language,
                                  pins=pins or say("check.none", language)))]
    try:
        factory = pi_pin_factory()
    except GpioError as exc:
        return [*findings, Finding(False, say("check.gpio_error", language, error=exc))]
    close = getattr(factory, "close", None)  # gpiozero's factories have it; the protocol does not
    if close is not None:
        close()
    return [*findings, Finding(True, say("check.gpio_opens", language))]


async def _broker(config: Config, timeout: float) -> Finding:
    """Connects to the broker as the service would, in a clean session of its own."""
    language = config.language
    try:
        broker = config.broker()
    except ConfigError as exc:
        return Finding(False, say("check.broker_unusable", language, error=exc))
    tls = config.mqtt.tls
    user = (say("check.as_user", language, user=broker.username) if broker.username
            else say("check.no_user", language))
    v311 = config.mqtt.protocol == "3.1.1"
    try:
        context = tls_context(broker, ca_file=tls.ca_file, cert_file=tls.cert_file,
                              key_file=tls.key_file, insecure=tls.insecure)
        client = aiomqtt.Client(
            broker.host, broker.port, username=broker.username, password=broker.password,
            identifier=f"{config.mqtt.client_id or 'billiards-' + config.table}-check-{os.getpid()}",
            protocol=aiomqtt.ProtocolVersion.V311 if v311 else aiomqtt.ProtocolVersion.V5,
            tls_context=context, timeout=timeout)
        async with asyncio.timeout(timeout), client:
            pass
    except (aiomqtt.MqttError, OSError, TimeoutError, ValueError) as exc:
        return Finding(False, say("check.broker_fails", language, address=broker.address,
                                  user=user, error=exc or type(exc).__name__))
    return Finding(True, say("check.broker_ok", language, address=broker.address, user=user))
