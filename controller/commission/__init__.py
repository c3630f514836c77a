"""``python -m controller commission``: a wiring check and calibration an installer can follow.

The installer is walked round the table (``steps``): the table kept still, a slow and a fast
ball into each pocket, a soft and a hard hit on each cushion, the ball return, a break. The
session listens to the live backend the configuration names (GPIO pins or sensor boards), or
to a simulated table (``--simulate``, with wiring faults to try), and reports (``analysis``):
the channel map with every swapped, dead, inverted, chattering or stuck channel named and its
fix, beam timing, cushion sensors, the ball return and the boards' clocks, and the settings it
suggests. The suggestions are shown as a diff of the configuration file and written only when
the installer confirms (``--apply``). The whole session is saved as a trace with its report
(``report.txt``, ``report.json``), and ``--from DIR`` analyses a saved session again. With
``--web`` the installer follows the same steps on a page (``web``), e.g. on the table's tablet.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import math
import os
import stat
import sys
import time
from pathlib import Path
from typing import Any

from controller.commission.address import tablet_url, terminal_qr
from controller.commission.analysis import Report, analyse
from controller.commission.boards import switch_on_piezos, write_back_defaults
from controller.commission.config_edit import diff, suggested
from controller.commission.errors import BoardNotConnected, CommissionError
from controller.commission.session import Session, load_session, run_session, save
from controller.commission.simtable import SimInstaller, SimTable, parse_faults
from controller.commission.steps import QUIET_S, Step, StepKind, instruction, plan
from controller.commission.text import render
from controller.commission.web import Board, CommissionPage, WebInstaller
from controller.commission.words import Said, say
from controller.service.backends import hardware_backend, not_connected
from controller.service.config import Config, ConfigError, load_controller_config
from controller.words import catalogue
from firmware_bridge.backend import SerialBackend
from hardware.backend import SensorBackend
from vocabulary import TABLE_CHANNELS, Kind

#: How long a sensor board the configuration names has to come up before the session (seconds).
BOARD_S = 8.0


class TerminalInstaller:
    """A person at the terminal: each step is printed, and done when they press Enter."""

    def __init__(self, language: str = "en") -> None:
        self.language = language

    async def do(self, step: Step) -> None:
        print(f"\n[{step.id}] {instruction(step, self.language)}", flush=True)
        if step.kind is StepKind.QUIET:
            await asyncio.sleep(QUIET_S)  # the step is this long by definition
            return None
        await asyncio.to_thread(input, f"  {say('step.enter', self.language)} ")
        return None


def clocks_of(backend: SensorBackend) -> dict[str, Any]:
    """Returns what a serial backend knows of its boards' clocks (nothing for others)."""
    out: dict[str, Any] = {}
    for link in getattr(backend, "links", ()):
        out[link.source] = {**link.quality(), "drift_ppm": round(link.fit.drift_ppm, 2),
                            "sync_samples": link.fit.samples}
    return out


def _backend(config: Config) -> SensorBackend:
    if config.backend not in ("gpio", "serial"):
        raise ConfigError("backend: commissioning listens to real sensors (gpio or serial); "
                          "try it on a simulated table with --simulate")
    return hardware_backend(config)


def fitted(config: Config) -> tuple[str, ...]:
    """Returns the channels the configuration wires: its GPIO pins where it names any, else the
    whole table but what it declares absent."""
    if config.gpio.pins and config.backend in (None, "gpio"):
        return tuple(config.gpio.pins)
    absent = set(config.fusion_settings().absent)
    return tuple(ch for ch in TABLE_CHANNELS if ch not in absent)


def _table(config: Config, simulate: argparse.Namespace | None
           ) -> tuple[SensorBackend, SimInstaller | None, tuple[str, ...] | None]:
    """Returns the backend to listen to, the simulated installer (with --simulate) and the
    channels known to be fitted."""
    if simulate is None:
        channels = tuple(config.gpio.pins) if config.backend == "gpio" else None
        return _backend(config), None, channels
    fusion = config.fusion_settings()
    faults = parse_faults(simulate.swap, simulate.dead, simulate.chatter, simulate.invert,
                          simulate.crosstalk, simulate.stuck)
    channels = fitted(config)  # a channel with no pin in the configuration answers nothing
    table = SimTable(faults, channels)
    installer = SimInstaller(
        table.deliver, faults, cue_detector=fusion.cue_detector or Kind.CUE in channels,
        identity_reader=fusion.identity_reader, channels=frozenset(channels))
    return table, installer, channels


async def _boards_up(backend: SensorBackend, timeout: float, language: str) -> None:
    """Returns once every sensor board of ``backend`` is up (none: at once).

    Raises BoardNotConnected naming the port and why (absent, busy, not permitted, ...).
    """
    for link in getattr(backend, "links", ()):
        try:
            await link.wait_up(timeout)
        except TimeoutError:
            raise BoardNotConnected(catalogue.say(
                "check.board_down", language, port=link.port,
                why=not_connected(link.port, link.last_error, language))) from None


async def commission(config: Config, *, simulate: argparse.Namespace | None = None,
                     settle_s: float = 1.0, page: WebInstaller | None = None,
                     board_s: float = BOARD_S, language: str = "en",
                     ) -> tuple[Session, Report, dict[str, Any]]:
    """Runs a session on the configured backend (or a simulated table), its installer at the
    terminal (spoken to in ``language``), or at the page of ``page``; returns the session, its
    report and its clocks.

    Raises BoardNotConnected when a board does not come up in ``board_s``, GpioError when the
    GPIO cannot be opened, ConfigError for a backend that is not on hardware.
    """
    fusion = config.fusion_settings()
    backend, sim, channels = _table(config, simulate)
    installer: Any = sim if sim is not None else TerminalInstaller(language)
    async with backend:
        await _boards_up(backend, board_s, language)
        if isinstance(backend, SerialBackend):
            for line in [*await write_back_defaults(backend),
                         *await switch_on_piezos(backend, config.serial.piezo)]:
                print(say(line, language), flush=True)
            channels = tuple({ch for link in backend.links for ch in link.channels})
        steps = plan(fusion, channels)
        if page is not None:
            page.board.steps[:] = steps
            page.perform = sim.do if sim is not None else None
            installer = page
        session = await run_session(backend, steps, installer, settle_s=settle_s,
                                    heard=page.heard if page is not None else None)
        clocks = clocks_of(backend)
    return session, _analyse(config, session, clocks, simulate is not None, channels), clocks


def _analyse(config: Config, session: Session, clocks: dict[str, Any], simulated: bool,
             channels: tuple[str, ...] | None, recorded: dict[str, Any] | None = None) -> Report:
    """Returns the report of a session on the table ``config`` describes (as it was when the
    session was ``recorded``: its pins and invert, for a session analysed again)."""
    gpio = config.backend == "gpio" or (simulated and bool(config.gpio.pins))
    pins = dict(config.gpio.pins)
    invert = config.gpio.invert if gpio else config.serial.invert
    if recorded is not None:
        pins = dict(recorded.get("pins", pins))
        invert = list(recorded.get("invert", invert))
    fusion = config.fusion_settings()
    cue = fusion.cue_detector or (Kind.CUE in channels if channels is not None else None)
    report = analyse(session.captures, fusion, pins if gpio else None, clocks,
                     serial=config.backend == "serial" and not simulated, invert=invert, cue=cue)
    return _not_yet(report, config)


def _not_yet(report: Report, config: Config) -> Report:
    """Returns the report without the settings the configuration already has (a session
    analysed again after its fix was applied suggests nothing to undo)."""
    fusion = config.fusion_settings()

    def current(section: str, key: str) -> Any:
        if section == "gpio.pins":
            return config.gpio.pins.get(key)
        if section in ("gpio", "serial"):
            return getattr(getattr(config, section), key)
        return getattr(fusion, key)

    keep = []
    for s in report.settings:
        now = current(s.section, s.key)
        done = set(s.value) <= set(now) if isinstance(s.value, list) else now == s.value
        if not done:
            keep.append(dataclasses.replace(s, current=now))
    report.settings = keep
    return report


def _finite(value: Any) -> Any:
    """Returns ``value`` with every NaN or infinity (no JSON has them) as None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def write_outputs(directory: Path, report: Report, config_path: Path | None,
                  config_text: str | None, language: str = "en") -> str | None:
    """Writes report.txt (in ``language``), report.json and (with a configuration file) the
    suggested configuration and its diff; returns the diff (None: no file, or nothing to
    change)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "report.txt").write_text(render(report, language), encoding="utf-8")
    (directory / "report.json").write_text(
        json.dumps(_finite(report.to_json()), indent=1, allow_nan=False) + "\n", encoding="utf-8")
    if config_path is None or config_text is None or not report.settings:
        return None
    after = suggested(config_text, report.settings)
    change = diff(config_path, config_text, after)
    (directory / "controller.toml.suggested").write_text(after, encoding="utf-8")
    (directory / "suggested.diff").write_text(change, encoding="utf-8")
    return change


def write_atomic(path: Path, text: str, like: Path) -> None:
    """Writes ``text`` to ``path`` all at once (a reader sees the old file or the new, never
    half of one), with the permissions (and, where allowed, the owner) of ``like``."""
    st = like.stat()
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, stat.S_IMODE(st.st_mode))
        with contextlib.suppress(PermissionError):  # not root: the copy stays ours
            os.chown(tmp, st.st_uid, st.st_gid)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def apply_suggested(path: Path, before: str, out: Path) -> Said:
    """Writes the suggested configuration over ``path``, keeping ``before`` as its backup
    (both written atomically, with the original's permissions); returns what was done."""
    backup = path.with_name(path.name + ".bak")
    write_atomic(backup, before, path)
    write_atomic(path, (out / "controller.toml.suggested").read_text(encoding="utf-8"), path)
    return Said("done.written", {"backup": str(backup)})


async def apply_all(config: Config, report: Report, change: str | None, path: Path | None,
                    before: str | None, out: Path) -> list[Said]:
    """Writes what the session suggests: the configuration file (its diff is ``change``) and the
    piezo thresholds to the sensor boards; returns what was done, a line each."""
    done: list[Said] = []
    if change is not None:
        assert path is not None and before is not None
        done.append(apply_suggested(path, before, out))
    if report.thresholds:
        backend = hardware_backend(config)
        from controller.commission.boards import write_thresholds
        from firmware_bridge.backend import SerialBackend
        assert isinstance(backend, SerialBackend)
        async with backend:
            done += await write_thresholds(backend, report.thresholds)
    return done


def _has_changes(report: Report, change: str | None, config: Config) -> bool:
    """Returns whether there is anything to write (thresholds only go to real boards)."""
    return change is not None or bool(report.thresholds and config.backend == "serial")


async def _on_page(config: Config, sim: argparse.Namespace | None, path: Path | None,
                   text: str | None, out: Path, language: str) -> Report:
    """Runs the session with its installer at the page (``--web``), until they finish; the
    terminal says what it does in ``language``."""
    board = Board([])
    installer = WebInstaller(board)
    result: list[tuple[Report, str | None]] = []

    async def apply() -> list[Said]:
        report, change = result[0]
        return await apply_all(config, report, change, path, text, out)

    async with CommissionPage(board, installer, config.web.host, config.web.port, apply,
                              config.language) as page:
        url, warning = tablet_url(page.url, config.web.host)
        print(say("t.page", language, url=url), flush=True)
        if warning:
            print(say("t.note", language, note=say(warning, language)), flush=True)
        qr = terminal_qr(url)
        if qr:
            print(qr, flush=True)
        session, report, clocks = await commission(config, simulate=sim, page=installer,
                                                   language=language)
        _save(session, out, config, sim, clocks)
        change = write_outputs(out, report, path, text, language)
        board.to_boards = config.backend == "serial" and bool(report.thresholds)
        # only what goes to real boards is written
        result.append((report if board.to_boards else dataclasses.replace(report, thresholds=[]),
                       change))
        board.diff = change
        board.report = report
        print("\n" + render(report, language), flush=True)
        await page.closed.wait()
    return report


def _save(session: Session, out: Path, config: Config, sim: argparse.Namespace | None,
          clocks: dict[str, Any]) -> None:
    gpio = config.backend == "gpio" or (sim is not None and bool(config.gpio.pins))
    save(session, out, {"table": config.table, "venue": config.venue,
                        "backend": "simulated" if sim else config.backend,
                        "fusion": config.fusion, "clocks": clocks,
                        # the names the channels had: a session analysed again after its fix
                        # was applied is read as it was recorded
                        "pins": dict(config.gpio.pins),
                        "invert": list(config.gpio.invert if gpio else config.serial.invert),
                        "channels": list(fitted(config) if sim else
                                         config.gpio.pins if gpio else ())})


def _session(args: argparse.Namespace, config: Config, out: Path, language: str) -> Report:
    """Returns the report of a live (or simulated) session, or of a saved one (``--from``)."""
    if args.from_dir:
        header, session = load_session(Path(args.from_dir))
        channels = header.get("channels") or None
        return _analyse(config, session, header.get("clocks", {}),
                        header.get("backend") == "simulated",
                        tuple(channels) if channels else None, header)
    sim = args if args.simulate else None
    session, report, clocks = asyncio.run(commission(config, simulate=sim,
                                                     board_s=args.board_wait, language=language))
    _save(session, out, config, sim, clocks)
    return report


def cli(args: argparse.Namespace) -> int:
    """The ``commission`` command; returns the exit status (2: configuration; 1: the sensors
    cannot be reached: a board absent or busy, no GPIO)."""
    from firmware_bridge.errors import BridgeError
    from hardware.gpio import GpioError

    path = Path(args.config) if args.config else None
    try:
        config = load_controller_config(path, {"backend": args.backend})
        text = path.read_text(encoding="utf-8") if path else None
    except (ConfigError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out or f"commission-{time.strftime('%Y%m%d-%H%M%S')}")
    language = args.lang or config.language

    def w(key: str, **fields: Any) -> str:
        return say(key, language, **fields)

    try:
        if args.web:
            asyncio.run(_on_page(config, args if args.simulate else None, path, text, out,
                                 language))
            return 0
        report = _session(args, config, out, language)
        change = write_outputs(out, report, path, text, language)
    except (ConfigError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (CommissionError, GpioError, BridgeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print("\n" + render(report, language))
    print(w("t.saved", out=out))
    thresholds = report.thresholds if config.backend == "serial" else []
    if args.from_dir and thresholds:
        # the boards are written only where they are: in a session on the table
        print(w("t.from_thresholds"))
        thresholds = []
    report = dataclasses.replace(report, thresholds=thresholds)  # only what goes to real boards
    if change is None and not thresholds:
        if args.from_dir and args.apply:
            print(w("t.nothing_to_write", path=path or w("t.the_configuration")))
        return 0
    if change is not None:
        print("\n" + w("t.change", path=path) + f"\n{change}")
    for t in thresholds:
        print(w("t.to_board", channel=t.channel, value=t.value, why=say(t.why, language)))
    if not args.apply:
        print(w("t.not_written_copy", out=out) if change else w("t.not_written"))
        return 0
    if not args.yes and input(w("t.ask")).strip().lower() not in w("t.yes").split():
        print(w("t.not_written_no"))
        return 0
    try:
        done = asyncio.run(apply_all(config, report, change, path, text, out))
        print("\n".join(say(d, language) for d in done))
    except (CommissionError, GpioError, BridgeError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def add_parser(sub: Any) -> None:
    """Adds the ``commission`` command to ``python -m controller``'s sub-parsers."""
    c = sub.add_parser("commission", help="a wiring check and calibration of a table's sensors")
    c.add_argument("--config", help="the table's TOML configuration (its backend, pins, ports)")
    c.add_argument("--backend", choices=["gpio", "serial"], help="override the configured backend")
    c.add_argument("--out", help="where the session and its report go (default ./commission-<time>)")
    c.add_argument("--apply", action="store_true", help="offer to write the suggested settings")
    c.add_argument("--yes", action="store_true", help="with --apply: write without asking")
    c.add_argument("--from", dest="from_dir", metavar="DIR", help="analyse a saved session again")
    c.add_argument("--board-wait", type=float, default=BOARD_S, metavar="S",
                   help=f"how long the sensor boards have to come up (default {BOARD_S:g} s)")
    c.add_argument("--web", action="store_true",
                   help="the steps as a page for a tablet, on the [web] address (prints it)")
    c.add_argument("--lang", choices=catalogue.languages(),
                   help="the terminal's and report.txt's language (default: the configuration's "
                        "language; the page follows the other pages')")
    sim = c.add_argument_group("a simulated table (no hardware)")
    sim.add_argument("--simulate", action="store_true", help="a simulated table and installer")
    sim.add_argument("--swap", action="append", default=[], metavar="A,B", help="two wires swapped")
    sim.add_argument("--dead", action="append", default=[], metavar="CH", help="a dead sensor")
    sim.add_argument("--chatter", action="append", default=[], metavar="CH", help="a chattering one")
    sim.add_argument("--invert", action="append", default=[], metavar="CH",
                     help="an inverted receiver (a beam, or the cue-ball detector: cue)")
    sim.add_argument("--stuck", action="append", default=[], metavar="CH",
                     help="a sensor held on (a ball lodged in a beam, a module stuck)")
    sim.add_argument("--crosstalk", type=float, metavar="LEVEL",
                     help="long rails shake their other half this strongly (0–1), 30–45 ms late")
