"""The simulated referee's part: answering the table's questions as the truth says."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.pipeline.table import Table


def answer_all(table: Table, truthful: Callable[[Any], Any],
               request: Callable[[str, dict[str, Any], float], object]) -> None:
    """Answers the table's open questions, oldest first (at most 20), with ``truthful``'s
    answer to each, sent by ``request(name, payload, dt)`` a second apart."""
    for _ in range(20):
        questions = table.referee.questions
        if not questions:
            return
        q = questions[0]
        request("answer", {"question": q.id, "answer": truthful(q)}, 1.0)
