"""The recorder's health: what it did, and whether its store takes what comes.

Published, retained, on ``<prefix>/recorder/health`` (its Last Will says it is gone) at once
when the store goes away or comes back or a message is quarantined or an answer refused, and
every ``EVERY_S`` otherwise; served by ``--web`` as ``/record/health.json``::

    {"v": 1, "online": true, "ts": <Unix s>,
     "store": {"up": true|false, "error": "…", "since": <Unix s>|null, "held": N},
     "quarantined": N, "refused_answers": N, "received": N, "stored": N, "duplicates": N,
     "skipped": N, "lost": N, "fills": N, "connections": N,
     "refused_results": [{"venue", "source", "tournament", "match", "why"}…]}

``skipped``: a table's answers that changed nothing (a request refused, junk), counted in
runs of seqs rather than stored one row each (``controller.record.store``'s ``skipped``).

``refused_results``: the tables' matches that named a tournament match whose result they
cannot be (its players are others now, it already has a result…): the last
``REFUSED_SHOWN``, each also logged once.

``held``: the messages taken from the broker and not yet stored (nothing is acknowledged
until stored: the broker keeps the rest for the recorder's session, and what it cannot keep
is asked of the tables' journals once the store is back).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

#: How often the health is published when nothing in it changed.
EVERY_S = 30.0
#: How many refused tournament results the health lists (the latest).
REFUSED_SHOWN = 20


@dataclass
class Health:
    """The recorder's counts and its store's state."""

    received: int = 0
    stored: int = 0
    duplicates: int = 0
    fills: int = 0
    lost: int = 0
    connections: int = 0
    quarantined: int = 0
    refused_answers: int = 0
    skipped: int = 0  # answers that changed nothing: counted, not stored
    store_error: str = ""
    down_since: float | None = None  # Unix seconds, for people
    held: int = 0
    #: refused tournament results by the table's match (``tournaments.Refused``'s fields)
    refused_results: dict[str, dict[str, str]] = field(default_factory=dict)
    _said: tuple[object, ...] = ()
    _said_at: float = 0.0

    @staticmethod
    def topic(prefix: str) -> str:
        return f"{prefix}/recorder/health"

    @staticmethod
    def gone() -> dict[str, Any]:
        """Returns the Last Will's body."""
        return {"v": 1, "online": False}

    def store_down(self, error: str, held: int) -> None:
        if self.down_since is None:
            self.down_since = time.time()
        self.store_error, self.held = error, held

    def store_up(self) -> bool:
        """The store took a batch: returns whether it had been away."""
        was = self.down_since is not None
        self.down_since, self.store_error, self.held = None, "", 0
        return was

    def refused(self, venue: str, source: str, tournament: str, match: str, why: str) -> bool:
        """Notes a refused tournament result; returns whether it is new (or why changed)."""
        said = {"venue": venue, "source": source, "tournament": tournament, "match": match,
                "why": why}
        if self.refused_results.get(source) == said:
            return False
        self.refused_results.pop(source, None)
        self.refused_results[source] = said
        while len(self.refused_results) > REFUSED_SHOWN:
            del self.refused_results[next(iter(self.refused_results))]
        return True

    def body(self) -> dict[str, Any]:
        return {"v": 1, "online": True, "ts": round(time.time(), 3),
                "store": {"up": self.down_since is None, "error": self.store_error,
                          "since": self.down_since, "held": self.held},
                "quarantined": self.quarantined, "refused_answers": self.refused_answers,
                "received": self.received, "stored": self.stored,
                "duplicates": self.duplicates, "skipped": self.skipped, "lost": self.lost,
                "fills": self.fills,
                "connections": self.connections,
                "refused_results": list(self.refused_results.values())}

    def due(self, now: float, force: bool = False) -> dict[str, Any] | None:
        """Returns the body to publish now (``now``: monotonic), or None when nothing that
        matters changed since the last, which was less than EVERY_S ago."""
        said = (self.down_since is None, self.store_error, self.quarantined,
                self.refused_answers,
                tuple((k, r["why"]) for k, r in self.refused_results.items()))
        if not force and said == self._said and now - self._said_at < EVERY_S:
            return None
        self._said, self._said_at = said, now
        return self.body()
