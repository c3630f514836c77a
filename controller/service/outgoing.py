"""The table's messages as deliveries: each noted in the journal with its publishing policy."""

from __future__ import annotations

import json

from controller.pipeline.table import Message, Role
from controller.service.journal import Journal, Outgoing


class Deliveries:
    """Makes the table's messages deliveries on ``base``'s topics: how long each lives
    (``expiry``, seconds by role, MQTT 5), whether it may leave before the sync (``live``),
    and a response's copy to the requester's response topic, if it gave one. A payload with a
    seq carries the journal's ``epoch`` after it: a new journal's seqs are not the old one's."""

    def __init__(self, journal: Journal, base: str, expiry: dict[Role, int | None]) -> None:
        self.journal = journal
        self.base = base
        self.expiry = expiry
        #: A message made since ``begin`` ended a shot.
        self.ended = False

    def begin(self) -> None:
        """An input begins: ``ended`` says whether the messages it causes end a shot."""
        self.ended = False

    def make(self, messages: list[Message], reply: tuple[str, bytes | None] | None = None
             ) -> list[Outgoing]:
        """Returns the deliveries of ``messages``, noted in the journal (``ended`` notes
        whether one of them ended a shot)."""
        out: list[Outgoing] = []
        new = self.journal.new_outgoing
        epoch = self.journal.epoch
        for msg in messages:
            body = msg.payload
            if "seq" in body:  # v, seq, epoch, ts, ...: the keys after seq keep their order
                body = {"v": body.get("v"), "seq": body["seq"], "epoch": epoch, **body}
            # a lone surrogate (never in a validated request) goes out as its JSON escape
            payload = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode(
                "utf-8", "backslashreplace")
            expiry = self.expiry.get(msg.role)
            self.ended = self.ended or (msg.role is Role.EVENT and msg.ends_shot)
            out.append(new(f"{self.base}/{msg.topic}", payload, msg.retain, msg.qos, expiry,
                           early=msg.live))
            if msg.role is Role.RESPONSE and reply is not None:
                topic, correlation = reply
                out.append(new(topic, payload, False, 1, expiry, correlation))
        return out
