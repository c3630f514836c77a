"""The requests' way into the table: what is checked before a request is carried out, and its
answer made once it is (interfaces §3).

``screen`` reads the request (``requests.parse_request``), looks up the transaction it names
(``transactions.Transactions``: the same request again is answered as before, another one
under it refused) and its ``deadline``; ``carry_out`` runs it and makes its answer, an error
of the request's (``InvalidInput``, ``BadRequest``, ``LookupError``) or a fault of ours
alike, and keeps it under its transaction. A ``MemoryError`` is let through: the service ends
and is restarted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from controller.pipeline.requests import (
    BadRequest,
    CancelRequest,
    ParsedRequest,
    body_of,
    parse_request,
    transaction_of,
)
from controller.pipeline.transactions import CANCELLED, Answer, Transactions, body_digest
from rules import InvalidInput

log = logging.getLogger(__name__)

Payload = bytes | str | dict[str, Any]


def error(tx: str | None, reason: str) -> dict[str, Any]:
    """Returns an error response under ``tx``."""
    return {"status": "error", "transaction": tx, "error": reason}


class Desk:
    """See the module docstring; ``transactions`` is what it remembers."""

    def __init__(self) -> None:
        self.transactions = Transactions()

    def screen(self, name: str, payload: Payload, wall: float | None) -> ParsedRequest | dict[str, Any]:
        """Returns the request to carry out, or the response to answer at once (the answer
        its transaction had; a refusal). ``wall`` (Unix seconds): when it reached the table,
        against its ``deadline``; None: not checked."""
        tx = transaction_of(payload)
        try:
            req: ParsedRequest | None = parse_request(name, payload)
        except BadRequest as exc:
            req, invalid = None, str(exc)
        seen = None if tx is None else self.transactions.get(tx)
        if seen is not None and seen.cancelled:
            return dict(seen.response)
        if seen is not None:
            if req is not None and seen.same_request(name, body_digest(body_of(req))):
                return dict(seen.response)  # applied once, answered again
            other = "a different request" if seen.name == name else f"a {seen.name} request"
            return error(tx, f"transaction {tx!r} was already used for {other}; nothing was done"
                             " (a new request needs a new transaction)")
        if req is None:
            return error(tx, invalid)
        if wall is not None and req.deadline is not None and wall > req.deadline:
            return error(tx, f"deadline: the request expired {wall - req.deadline:.1f} s before"
                             " it reached the table; nothing was done")
        return req

    def cancel(self, req: CancelRequest) -> dict[str, Any]:
        """Cancels the transaction ``req.cancels`` if no request came under it: kept as
        cancelled, its request refused if it comes. Returns what became of it: ``cancelled``
        (true: it was not done and will not be), and the ``answer`` it had otherwise."""
        target = req.cancels
        seen = self.transactions.get(target)
        if seen is None:
            refusal = error(target, f"cancelled before it reached the table (cancel"
                                    f" {req.transaction!r}); nothing was done")
            self.transactions.note(target, Answer(CANCELLED, None, refusal))
            return {"cancels": target, "cancelled": True}
        if seen.cancelled:
            return {"cancels": target, "cancelled": True}
        return {"cancels": target, "cancelled": False, "request": seen.name,
                "answer": dict(seen.response)}

    def carry_out(self, name: str, req: ParsedRequest, run: Callable[[], Any]) -> dict[str, Any]:
        """Returns the response of ``req`` once ``run()`` carried it out (its data), or the
        error it raised; kept under its transaction."""
        tx = req.transaction
        try:
            response = {"status": "ok", "transaction": tx, "data": run()}
        except (InvalidInput, BadRequest, LookupError) as exc:
            response = error(tx, str(exc).strip("'\""))
        except MemoryError:  # not this request's fault: the service ends, systemd restarts it
            raise
        except Exception as exc:  # a fault of ours: this request's error, not the table's end
            log.exception("request %s failed", name)
            response = error(tx, f"the table could not carry out this request ({type(exc).__name__})")
        if tx is not None:
            self.transactions.note(tx, Answer(name, body_digest(body_of(req)), response))
        return response
