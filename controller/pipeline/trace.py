"""Traces (interfaces §2): one JSON object a line; a header, then sensor and request lines.

``read_trace`` yields what each line holds and reports each line it cannot read with its
line number, then goes on. ``TraceWriter`` records a live session, rotating its files.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from hardware.events import SensorEvent
from hardware.health import Health
from vocabulary import BINARY_CHANNELS, POCKETS, ChannelError, parse_channel

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Header:
    fields: dict[str, Any]


@dataclass(frozen=True, slots=True)
class RequestLine:
    t: float
    name: str
    payload: dict[str, Any]


@dataclass(frozen=True, slots=True)
class HealthLine:
    """A channel's health changed, as sensor health judged it (extension): a channel in any
    state but ``ok`` counts nothing (``controller.pipeline.fusion``)."""

    t: float
    channel: str
    state: Health

    def to_json(self) -> dict[str, Any]:
        """Returns the trace line: ``{"t": ..., "health": channel, "state": ...}``."""
        return {"t": round(self.t, 6), "health": self.channel, "state": str(self.state)}


@dataclass(frozen=True, slots=True)
class BadLine:
    line: int
    reason: str


TraceItem = Header | SensorEvent | RequestLine | HealthLine | BadLine


def _number(value: Any) -> bool:  # a JSON number, not a bool
    return isinstance(value, int | float) and not isinstance(value, bool)


_raw_decode = json.JSONDecoder().raw_decode


def _loads(text: str) -> Any:
    """json.loads, less the whitespace regular expressions on the hot path."""
    try:
        obj, end = _raw_decode(text)
    except json.JSONDecodeError:
        return json.loads(text)  # leading blanks, or a real error with its message
    if end != len(text) and text[end:].strip():
        raise json.JSONDecodeError("Extra data", text, end)
    return obj


def parse_line(text: str, lineno: int) -> TraceItem:
    """Returns the item a trace line holds, or a BadLine saying why it cannot be read."""
    try:
        obj = _loads(text)
    except json.JSONDecodeError as exc:
        return BadLine(lineno, f"not JSON: {exc.msg}")
    # the common case, fast: {"t": 12.5, "ch": "beam.fl", "v": 1}
    if type(obj) is dict and len(obj) == 3:
        t, ch, v = obj.get("t"), obj.get("ch"), obj.get("v")
        if ch in BINARY_CHANNELS and (v == 0 or v == 1) and type(v) is int and type(t) in (float, int):
            return SensorEvent(float(t), ch, v)  # type: ignore[arg-type]
    return _parse_slow(obj, lineno)


def _parse_slow(obj: Any, lineno: int) -> TraceItem:
    if not isinstance(obj, dict):
        return BadLine(lineno, "not a JSON object")
    if "trace" in obj:
        if obj["trace"] != 1:
            return BadLine(lineno, f"unsupported trace version {obj['trace']!r}")
        return Header(obj)
    raw_t = obj.get("t")
    if not _number(raw_t):
        return BadLine(lineno, "no time 't'")
    t = float(raw_t)  # type: ignore[arg-type]
    ch = obj.get("ch")
    if ch is not None:
        if not isinstance(ch, str):
            return BadLine(lineno, "channel 'ch' must be a string")
        try:
            parse_channel(ch)
        except ChannelError as exc:
            return BadLine(lineno, str(exc))
        v = obj.get("v", 1)
        if v not in (0, 1) or isinstance(v, float):
            return BadLine(lineno, f"value 'v' must be 0 or 1, not {v!r}")
        level = obj.get("level")
        if level is not None and not (_number(level) and 0 <= level <= 1):
            return BadLine(lineno, f"level must be a number from 0 to 1, not {level!r}")
        ball = obj.get("ball")
        pocket = obj.get("pocket")
        if ch == "ball_id" and not (isinstance(ball, int) and not isinstance(ball, bool)
                                    or ball == "cue"):
            return BadLine(lineno, "ball_id needs 'ball': a number or \"cue\"")
        if pocket is not None and pocket not in POCKETS:
            return BadLine(lineno, f"unknown pocket {pocket!r}")
        at = obj.get("at")
        if at is not None and not (_number(at) and at <= t):
            return BadLine(lineno, f"'at' must be a time no later than 't', not {at!r}")
        return SensorEvent(t, ch, int(v), level, ball, pocket,
                           None if at is None else float(at))
    health = obj.get("health")
    if isinstance(health, str):
        try:
            parse_channel(health)
        except ChannelError as exc:
            return BadLine(lineno, str(exc))
        return _health_line(obj, t, health, lineno)
    name = obj.get("request")
    if isinstance(name, str):
        payload = obj.get("payload", {})
        if not isinstance(payload, dict):
            return BadLine(lineno, "request 'payload' must be a JSON object")
        return RequestLine(t, name, payload)
    return BadLine(lineno, "neither a sensor line ('ch') nor a request line ('request')")


_STATES = ", ".join(Health)


def _health_line(obj: dict[str, Any], t: float, channel: str, lineno: int) -> HealthLine | BadLine:
    """Returns a health line's item. Lines written before health carried its state say only
    ``"usable": true / false``: not usable is taken as ``stuck`` (what fusion takes back for
    it is the block in progress, if any)."""
    if "state" in obj:
        try:
            return HealthLine(t, channel, Health(obj["state"]))
        except ValueError:
            return BadLine(lineno, f"a health line's 'state' is one of {_STATES}, not {obj['state']!r}")
    usable = obj.get("usable")
    if not isinstance(usable, bool):
        return BadLine(lineno, f"a health line needs 'state' ({_STATES})")
    return HealthLine(t, channel, Health.OK if usable else Health.STUCK)


def read_trace(lines: Iterable[str]) -> Iterator[TraceItem]:
    """Yields the items of a trace, in order; out-of-order and unreadable lines as BadLine."""
    last_t = float("-inf")
    lineno = 0
    for text in lines:
        lineno += 1
        item = parse_line(text, lineno)
        if type(item) is SensorEvent or type(item) is RequestLine or type(item) is HealthLine:
            if item.t < last_t:
                yield BadLine(lineno, f"time {item.t} goes back (after {last_t})")
                continue
            last_t = item.t
        elif lineno == 1 and not isinstance(item, Header):
            yield BadLine(1, "the first line is not a trace header {\"trace\": 1}")
        elif isinstance(item, BadLine) and not text.strip():
            continue  # a blank line
        yield item


class TraceWriter:
    """Writes a live session as a trace, starting a new file past ``max_bytes``; keeps at
    most ``keep`` files and ``max_total_bytes`` of them in all, the oldest going first.

    A recording, not the journal: a write that fails (a full disk) costs the recording its
    lines (counted in ``lost``, logged), never the service; it tries a new file again after
    ``RETRY_S``.
    """

    RETRY_S = 30.0

    def __init__(self, directory: Path, header: dict[str, Any], max_bytes: int = 32 << 20,
                 keep: int = 20, max_total_bytes: int = 256 << 20) -> None:
        self.directory = directory
        self.header = {"trace": 1, **header}
        self.max_bytes = max_bytes
        self.keep = keep
        self.max_total_bytes = max(max_total_bytes, max_bytes)
        self.lost = 0
        self._unflushed = 0  # lines written since the last flush (lost if it fails)
        self._failing = False
        self._file: IO[str] | None = None
        self._written = 0
        self._n = 0
        self._retry_at = 0.0
        directory.mkdir(parents=True, exist_ok=True)

    def write(self, line: dict[str, Any]) -> None:
        if (self._file is None or self._written > self.max_bytes) and not self._rotate():
            self.lost += 1
            return
        assert self._file is not None
        text = json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n"
        self._unflushed += 1
        try:
            self._file.write(text)
        except OSError as exc:
            self._failed(exc)
            return
        self._written += len(text)

    def flush(self) -> None:
        if self._file is not None:
            try:
                self._file.flush()
            except OSError as exc:
                self._failed(exc)
                return
            self._unflushed = 0

    def close(self) -> None:
        if self._file is not None:
            file, self._file = self._file, None
            try:
                file.close()
            except OSError as exc:
                log.error("the trace could not be completed: %s", exc)

    def _failed(self, exc: OSError) -> None:
        self.lost += self._unflushed
        self._unflushed = 0
        if not self._failing:
            log.error("cannot write the trace in %s: %s; trying again every %.0f s",
                      self.directory, exc, self.RETRY_S)
        self._failing = True
        file, self._file = self._file, None
        if file is not None:
            with contextlib.suppress(OSError):  # what it still buffers is lost
                file.close()
        self._retry_at = time.monotonic() + self.RETRY_S

    def _rotate(self) -> bool:
        """Starts a new file; returns False if it cannot (yet)."""
        self.close()
        if time.monotonic() < self._retry_at:
            return False
        try:
            existing = sorted(self.directory.glob("trace-*.jsonl"))
            self._n = int(existing[-1].stem.split("-")[1]) + 1 if existing else 1
            self._prune(existing)
            path = self.directory / f"trace-{self._n:06d}.jsonl"
            # a lone surrogate (never in a validated request) is written as its JSON escape
            self._file = path.open("w", encoding="utf-8", errors="backslashreplace")
            head = json.dumps(self.header, separators=(",", ":")) + "\n"
            self._file.write(head)
        except OSError as exc:
            self._failed(exc)
            return False
        self._written = len(head)
        if self._failing:
            self._failing = False
            log.warning("recording the trace again in %s (%d lines lost)", self.directory,
                        self.lost)
        return True

    def _prune(self, existing: list[Path]) -> None:
        """Deletes the oldest files until a new one fits within ``keep`` and the total."""
        sizes = [p.stat().st_size for p in existing]
        total = sum(sizes)
        for old, size in zip(existing, sizes, strict=True):
            if len(existing) < self.keep and total + self.max_bytes <= self.max_total_bytes:
                break
            old.unlink(missing_ok=True)
            existing = existing[1:]
            total -= size
