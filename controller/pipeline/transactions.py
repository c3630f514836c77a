"""The table's memory of transactions: which request each transaction named, and how it was
answered (interfaces §3: a transaction is an idempotency key).

A transaction names one request: the same one again (its name and its body, whatever its
``deadline``) is answered as before and not applied again; another under it is refused. So
each answer is kept with its request's name and a digest of its body (``body_digest``), in
the journal too (``entries``/``restore``), across a new match's compaction and restarts.

A transaction may also be cancelled before its request came (``cancel``): it is then kept as
``CANCELLED``, and its request, if it comes after all, is refused with that answer.

Three memories, each bounded: ``KEPT_APPLIED`` answers of requests that did something (``ok``,
all but ``get``), ``KEPT_CANCELLED`` transactions cancelled before their request came, and
``KEPT_OTHERS`` of the rest (refused requests, reads). A flood of refused requests or of
cancels, however long, only pushes out other refusals or cancels: the requests that changed
the match stay known for as long as any client could still resend them.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

#: Answers kept of requests that did something (a match is some hundreds).
KEPT_APPLIED = 4096
#: Answers kept of refused requests and reads.
KEPT_OTHERS = 1024
#: Transactions kept that were cancelled before their request came.
KEPT_CANCELLED = 1024
#: The name a transaction cancelled before its request came is kept under (no request's name).
CANCELLED = "*cancelled"


def body_digest(body: str) -> str:
    """Returns the digest kept of a request's canonical body (``requests.body_of``)."""
    return hashlib.sha256(body.encode("utf-8", "backslashreplace")).hexdigest()


@dataclass(frozen=True, slots=True)
class Answer:
    """How a transaction was answered: its request's ``name``, ``body`` (its digest; None when
    unknown, from a journal written before bodies were kept) and ``response``."""

    name: str
    body: str | None
    response: dict[str, Any]

    @property
    def applied(self) -> bool:
        """Returns whether its request did something (kept in the longer memory)."""
        return self.response.get("status") == "ok" and self.name != "get"

    @property
    def cancelled(self) -> bool:
        """Returns whether its transaction was cancelled before its request came."""
        return self.name == CANCELLED

    def same_request(self, name: str, body: str) -> bool:
        """Returns whether a request ``name`` with body digest ``body`` is the one answered."""
        return self.name == name and self.body in (None, body)


class Transactions:
    """The answers given, by transaction (see the module docstring)."""

    def __init__(self, kept_applied: int = KEPT_APPLIED, kept_others: int = KEPT_OTHERS,
                 kept_cancelled: int = KEPT_CANCELLED) -> None:
        self._applied: OrderedDict[str, Answer] = OrderedDict()
        self._others: OrderedDict[str, Answer] = OrderedDict()
        self._cancelled: OrderedDict[str, Answer] = OrderedDict()
        self._limits = (kept_applied, kept_others, kept_cancelled)

    def _memories(self) -> tuple[OrderedDict[str, Answer], ...]:
        return (self._others, self._cancelled, self._applied)

    def __len__(self) -> int:
        return sum(len(memory) for memory in self._memories())

    def get(self, tx: str) -> Answer | None:
        """Returns the answer given to ``tx``, or None if none is remembered."""
        return self._applied.get(tx) or self._cancelled.get(tx) or self._others.get(tx)

    def note(self, tx: str, answer: Answer) -> None:
        """Remembers ``answer`` under ``tx`` (the oldest of its memory forgotten past its bound)."""
        for kept in self._memories():
            kept.pop(tx, None)
        which = 0 if answer.applied else 2 if answer.cancelled else 1
        memory, limit = (self._applied, self._others, self._cancelled)[which], self._limits[which]
        memory[tx] = answer
        while len(memory) > limit:
            memory.popitem(last=False)

    def entries(self) -> list[tuple[str, str, dict[str, Any]]]:
        """Returns what the journal keeps, oldest first in each memory: ``(transaction, name,
        {"response": ..., "body": ...})``."""
        return [(tx, a.name, {"response": a.response, "body": a.body})
                for memory in self._memories() for tx, a in memory.items()]

    def restore(self, tx: str, name: str, kept: dict[str, Any]) -> None:
        """Remembers an answer given before a restart (an ``entries`` row; also the bare
        response an older journal kept, its body then unknown)."""
        if "response" in kept and "status" not in kept:
            self.note(tx, Answer(name, kept.get("body"), dict(kept["response"])))
        else:
            self.note(tx, Answer(name, None, dict(kept)))
