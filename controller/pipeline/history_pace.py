"""How often one asker may have ``history_since`` answered (issue 39: "rate-limited per
asker").

Each answer is a page of up to 64 KiB of the journal: a client asking in a loop (a recorder
whose wall clock stepped back asked a table ~150 times a second) would have the table and
the broker carry pages for ever. So each asker has a bucket of ``HISTORY_BURST`` askings,
filled again at ``HISTORY_RATE`` a second; an asking past it is refused with the seconds to
wait (``retry_after_s``, in the answer's ``data``). The burst holds a whole fill of the
journal (``PUBLISHED_KEPT`` messages, at least 64 a page), so the recorder's own fill, one
page asked once the last is answered, is never refused in normal work.

An asker is known by its transactions: the text before the last ``-`` (the recorder's are
``billiards-recorder-<random>``), the whole transaction when it has no ``-``, and one
bucket for askings without a transaction. This is what an asker says of itself: it keeps an
honest client in a loop from costing the table, not a forger (a flood of requests is held
at the broker: ``controller.service.mqtt``). Time is the table's (``t``): no clock is read.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

#: The pages a whole fill of the journal takes at most: ``PUBLISHED_KEPT`` (50,000) messages
#: of 1 KiB, 64 to a page (``HISTORY_BYTES``, 64 KiB); the service's numbers, kept here
#: (the pipeline does not import the service): tests/service/test_history_pace.py holds them.
PAGES_KEPT = 50_000 // 64 + 1
#: Askings one asker may make at once (a whole fill of the journal), and more a second.
HISTORY_BURST = 1000.0
HISTORY_RATE = 2.0
#: Askers followed (the least recently seen are forgotten).
ASKERS_FOLLOWED = 64


def asker_of(transaction: str | None) -> str:
    """Returns the asker a transaction names (see the module docstring)."""
    if not transaction:
        return ""
    return transaction.rpartition("-")[0] or transaction


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: float


class HistoryPace:
    """The buckets of the askers of ``history_since`` (see the module docstring)."""

    def __init__(self, burst: float = HISTORY_BURST, rate: float = HISTORY_RATE) -> None:
        self._burst = burst
        self._rate = rate
        self._askers: OrderedDict[str, _Bucket] = OrderedDict()
        #: askings refused so far
        self.refused = 0

    def wait(self, transaction: str | None, t: float) -> float:
        """Takes one asking of ``transaction``'s asker at time ``t``: returns 0 if it may be
        answered, else the seconds until it may ask again (and the asking is refused)."""
        asker = asker_of(transaction)
        bucket = self._askers.pop(asker, None) or _Bucket(self._burst, t)
        self._askers[asker] = bucket
        if len(self._askers) > ASKERS_FOLLOWED:
            self._askers.popitem(last=False)
        bucket.tokens = min(self._burst, bucket.tokens + max(0.0, t - bucket.at) * self._rate)
        bucket.at = t
        if bucket.tokens >= 1:
            bucket.tokens -= 1
            return 0.0
        self.refused += 1
        return (1 - bucket.tokens) / self._rate
