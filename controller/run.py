"""``python -m controller run``: one table's service, wired from its configuration.

The composition root of ``run``: the service (``controller.service``) with the sensor backend
its configuration names, the simulated one (``controller.sim``) included, which the service
itself does not import.
"""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Any

from controller.service.config import ConfigError, load_controller_config, ready
from controller.service.journal import JournalError
from controller.service.mqtt import BrokerRefused, UntrustedBroker
from controller.service.shell import BackendMaker, overrides_of, serve


def run_main(args: Any) -> int:
    """The ``run`` command; returns the exit status (2: configuration or credentials)."""
    try:  # refused before anything starts (journal, pages, broker): naming the key
        config = ready(load_controller_config(args.config, overrides_of(args)), str(args.config or "config"))
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=config.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        asyncio.run(serve(config, str(args.config or "the configuration"), _backend_for(config.backend)))
    except (Exception, ExceptionGroup) as exc:  # noqa: B014
        cause = _first(exc)
        if isinstance(cause, BrokerRefused | UntrustedBroker | ConfigError):
            print(f"error: {cause}", file=sys.stderr)
            return 2
        from firmware_bridge.errors import BridgeError
        from hardware.gpio import GpioError
        if isinstance(cause, JournalError | BridgeError | GpioError):
            print(f"error: {cause}", file=sys.stderr)
            return 1
        raise
    return 0


def _first(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc


def _backend_for(name: str | None) -> BackendMaker | None:
    """Returns what makes the simulated backend for ``sim``; None for the hardware ones (the
    service makes those itself)."""
    if name != "sim":
        return None
    from controller.sim.backend import sim_backend

    return sim_backend
