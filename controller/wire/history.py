"""The ``history_since`` exchange, as both ends speak it: a venue recorder asks a table for
the messages it missed (``HISTORY_REQUEST``), the table answers in pages of at most
``HISTORY_BYTES`` (``controller.service.published``), and the record keeps each published
message in ``published_form``."""

from __future__ import annotations

import json

#: The request a venue recorder fills its gaps with; its responses are kept without their data.
HISTORY_REQUEST = "history_since"
#: The most bytes of messages one ``history_since`` answer carries (the broker's limit on a
#: message, ``message_size_limit`` in deploy/mosquitto/billiards.conf, is 256 KiB: a bigger
#: answer made the broker drop the table): the asker pages on from ``upto``.
HISTORY_BYTES = 64 * 1024


def published_form(topic: str, payload: bytes) -> tuple[int, bytes] | None:
    """Returns ``(seq, payload)`` as the record keeps a published message, or None for one
    without a seq (a Last Will). A ``history_since`` response is kept without the messages it
    carried (their count instead): they are recorded as themselves."""
    try:
        body = json.loads(payload)
    except ValueError:
        return None
    seq = body.get("seq") if isinstance(body, dict) else None
    if not isinstance(seq, int):
        return None
    if topic.endswith(f"/response/{HISTORY_REQUEST}") and isinstance(body.get("data"), dict):
        data = body["data"]
        body["data"] = {**data, "messages": len(data.get("messages") or ())}
        payload = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
    return seq, payload
