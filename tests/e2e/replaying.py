"""Replaying traces in-process, collecting what the table publishes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.pipeline.replay import replay
from controller.pipeline.table import Message
from controller.pipeline.trace import BadLine


@dataclass
class Published:
    messages: list[Message] = field(default_factory=list)
    bad: list[BadLine] = field(default_factory=list)

    @property
    def state(self) -> dict[str, Any]:
        return [m.payload for m in self.messages if m.topic == "state"][-1]

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [m.payload for m in self.messages
                if m.topic == "event" and (kind is None or m.payload["type"] == kind)]

    def noted(self, what: str) -> bool:
        """Returns True when the last shot's ruling has a ``Noted`` decision of ``what``."""
        return any(d["decision"] == "Noted" and d["what"] == what
                   for d in self.events("shot_result")[-1]["data"]["decisions"])

    def responses(self, name: str | None = None) -> list[dict[str, Any]]:
        return [m.payload for m in self.messages if m.topic.startswith("response/")
                and (name is None or m.topic == f"response/{name}")]


def run(text: str) -> Published:
    out = Published()
    replay(text.splitlines(), out.messages.append, out.bad.append)
    return out
