"""The seq mark beside the journal (``journal.sqlite3.seq``): how far seqs are reserved, and
whether the last run published what the journal's database does not hold.

A few bytes, always written whole and in place (no new block: a full disk still takes it)
and synced, after the journal's log is: so a mark never says less than the log holds. A
database that lost what it had synced (its log cut, overwritten or deleted) then holds a
reservation below the mark's, and the rebuild (``controller.service.rebuild``) knows it came
back with less than it published.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from controller.errors import ControllerError

#: The mark's size: always written whole, in place.
MARK_BYTES = 64


class MarkError(ControllerError, OSError):
    """The seq mark cannot be written."""


@dataclass(frozen=True, slots=True)
class Mark:
    """Seqs up to ``reserved`` may have been given out; ``behind``: the last run published
    what the journal's database does not hold."""

    reserved: int = 0
    behind: bool = False

    def to_bytes(self) -> bytes:
        text = json.dumps({"reserved": self.reserved, "behind": self.behind})
        return text.encode().ljust(MARK_BYTES - 1) + b"\n"

    @classmethod
    def parse(cls, data: bytes) -> Mark:
        """Returns the mark ``data`` holds. Raises ValueError if it holds none."""
        obj = json.loads(data.decode("ascii").strip() or "{}")
        reserved, behind = obj.get("reserved", 0), obj.get("behind", False)
        if not isinstance(reserved, int) or not isinstance(behind, bool):
            raise ValueError(f"not a seq mark: {data[:MARK_BYTES]!r}")
        return cls(reserved, behind)


class SeqMark:
    """The seq mark at ``path`` (None: held in memory only). ``found`` is the mark as this run
    found it; ``problem`` why it could not be read or made, if it could not."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._fd: int | None = None
        self.found, self.problem = self._open()
        self._wanted = self._written = self.found
        self._lock = threading.Lock()  # one write at a time (syncs run in a thread)

    def _open(self) -> tuple[Mark, str | None]:
        if self.path is None:
            return Mark(), None
        try:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            data = os.pread(self._fd, MARK_BYTES, 0)
            mark = Mark.parse(data) if data.strip() else Mark()
        except (OSError, ValueError) as exc:
            return Mark(), f"cannot read the seq mark {self.path}: {exc}"
        if len(data) < MARK_BYTES:  # new: its bytes taken now, while the disk has room
            try:
                os.pwrite(self._fd, mark.to_bytes(), 0)
                os.fsync(self._fd)
            except OSError as exc:
                return mark, f"cannot write the seq mark {self.path}: {exc}"
        return mark, None

    def reserve(self, limit: int) -> None:
        """Notes that seqs up to ``limit`` may be given out (on disk with the next ``write``)."""
        if limit > self._wanted.reserved:
            self._wanted = Mark(limit, self._wanted.behind)

    def fell_behind(self, behind: bool) -> None:
        """Notes whether messages were published that the database does not hold."""
        self._wanted = Mark(self._wanted.reserved, behind)

    def write(self) -> None:
        """Writes what was noted, in place, and waits for the disk (thread-safe). Raises
        MarkError if it cannot."""
        with self._lock:
            mark = self._wanted
            if mark == self._written or self._fd is None:
                return
            try:
                os.pwrite(self._fd, mark.to_bytes(), 0)
                os.fsync(self._fd)
            except OSError as exc:
                raise MarkError(f"cannot write the seq mark {self.path}: {exc}") from exc
            self._written = mark

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
