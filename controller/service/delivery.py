"""A message's life, from the table to the broker: its **delivery**.

A ``Delivery`` is one of the table's messages on its way out: its topic, its bytes as
published, how long it lives, whether it may leave before the sync. Its stages, each in its
own file:

1. *made*: ``Deliveries.make`` (here) turns the table's ``Message`` into a ``Delivery``,
   numbered and noted in the journal's pending batch;
2. *journaled*: ``Journal.write`` (``controller.service.journal``) writes it into the
   journal's ``outbox`` table with the inputs that caused it; ``LogSync``
   (``controller.service.walsync``) makes it survive a power cut;
3. *waiting*: the ``Outbox`` (``controller.service.outbox``) holds it until its batch is
   synced (written, for a live one: ``early``), then ``MqttLink``
   (``controller.service.mqtt``) publishes it, acknowledged before the next;
4. *published*: delivered, it leaves the outbox and the journal's ``outbox`` table; one with
   a seq is kept in the ``PublishedLog`` (``controller.service.published``), which answers
   ``history_since``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from controller.pipeline.table import Message, Role

if TYPE_CHECKING:
    from controller.service.journal import Journal


@dataclass(slots=True)
class Delivery:
    """One message to deliver: ``topic`` is absolute; ``expiry`` seconds (MQTT 5), if any."""

    id: int
    topic: str
    payload: bytes
    retain: bool
    qos: int = 1
    expiry: int | None = None
    correlation: bytes | None = None
    early: bool = False  # may be published once written, before the sync (not journaled)


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
             ) -> list[Delivery]:
        """Returns the deliveries of ``messages``, noted in the journal (``ended`` notes
        whether one of them ended a shot)."""
        out: list[Delivery] = []
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
