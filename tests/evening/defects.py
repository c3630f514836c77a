"""Known past defects, put back on purpose, so that the checker's own tests see it catch them.

``python -m tests.evening.defects table CONFIG ...`` runs a table as ``tests.evening.world`` does,
and ``python -m tests.evening.defects record ...`` the recorder as ``python -m controller
record`` does, each with the defects named in ``BILLIARDS_SOAK_DEFECTS`` (comma-separated)
put back by patching the real code in that process only:

- ``drop-pocketed``: the table drops its live ``ball_pocketed`` events of the foot-left
  pocket (never journaled, never published): a drop lost silently.
- ``rebuild-loses-requests``: a restarted table rebuilds its state from its journal's sensor
  lines and ``new_match`` alone (its calls, answers and declares lost): it rules on from
  another state than its inputs give.
- ``record-skips``: the recorder stores every 40th message it takes from the broker not at
  all, and records no gap for it.
- ``will-online``: the table's Last Will says ``online``: a table killed never shows offline.
- ``wall-overflows`` (put back in the TV wall's page, not in a process: ``PAGE_DEFECTS``): a
  table's card taller than the screen, as the wall was before it turned pages.
- ``console-gives-up`` (a page script too): the console says «не выполнено» once a request's
  time passed without an answer, as it did before issue 39 (the undo the table took after all
  is said not done).
- ``question-hides-truth``: a ``which_balls`` question lists only the highest of its balls in
  its published choices (the table still takes any of them): a question that does not
  offer the ball that fell.
- ``deadline-by-wall``: the table checks a console's ``deadline`` against its own wall clock
  even when the request has an MQTT 5 message expiry (issue 33's two clocks): a table whose
  clock jumped ahead refuses a fresh request.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

ENV = "BILLIARDS_SOAK_DEFECTS"


def _drop_pocketed() -> None:
    from controller.pipeline.table import Table

    sensor = Table.sensor

    def dropping(self: Table, ev: Any) -> Any:
        return [m for m in sensor(self, ev) if not (
            m.payload.get("type") == "ball_pocketed"
            and (m.payload.get("data") or {}).get("pocket") == "fl")]

    Table.sensor = dropping  # type: ignore[method-assign]


def _rebuild_loses_requests() -> None:
    from controller.service.rebuild import Rebuild

    replay = Rebuild.replay

    def losing(self: Rebuild, table: Any, lines: Sequence[dict[str, Any]]) -> None:
        replay(self, table, [x for x in lines if x.get("request") in (None, "new_match")])

    Rebuild.replay = losing  # type: ignore[method-assign]


def _record_skips() -> None:
    from controller.record.store import Store

    add = Store.add
    taken = [0]

    def skipping(self: Store, items: list[Any], **kw: Any) -> Any:
        kept = []
        for item in items:
            taken[0] += 1
            if taken[0] % 40:
                kept.append(item)
        return add(self, kept, **kw)

    Store.add = skipping  # type: ignore[method-assign]


def _will_online() -> None:
    import aiomqtt

    will = aiomqtt.Will

    def online(topic: str, payload: Any = None, **kw: Any) -> Any:
        return will(topic, b'{"v": 1, "state": "online"}', **kw)

    aiomqtt.Will = online  # type: ignore[misc,assignment]


def _question_hides_truth() -> None:
    from rules.state import Question

    to_json = Question.to_json

    def hiding(self: Question) -> dict[str, Any]:
        out = to_json(self)
        if out["topic"] == "which_balls" and len(out["choices"]) > 1:
            out["choices"] = out["choices"][-1:]
        return out

    Question.to_json = hiding  # type: ignore[method-assign]


def _deadline_by_wall() -> None:
    import dataclasses

    from controller.service.core import Request, TableCore

    request = TableCore._request  # noqa: SLF001

    def by_wall(self: TableCore, item: Request) -> Any:
        return request(self, dataclasses.replace(item, expires=None))

    TableCore._request = by_wall  # type: ignore[method-assign]  # noqa: SLF001


DEFECTS = {"drop-pocketed": _drop_pocketed, "rebuild-loses-requests": _rebuild_loses_requests,
           "record-skips": _record_skips, "will-online": _will_online,
           "question-hides-truth": _question_hides_truth,
           "deadline-by-wall": _deadline_by_wall}


#: Defects put back in a page the evening opens in Chromium (``tests.evening.browser``): a
#: script run before the page's own.
PAGE_DEFECTS = {
    "wall-overflows": """addEventListener("DOMContentLoaded", () => {
        const style = document.createElement("style");
        style.textContent = "article.table { min-height: 120vh !important; }";
        document.head.append(style);
    });""",
    "console-gives-up": """addEventListener("DOMContentLoaded", () => {
        const result = document.getElementById("result");
        if (!result) return;
        new MutationObserver(() => {
            if (result.dataset.state !== "unknown") return;
            result.textContent = result.textContent.split(":")[0] + ": не выполнено";
            result.dataset.state = "error";
        }).observe(result, {attributes: true, attributeFilter: ["data-state"]});
    });""",
}


def page_defects(names: str, page: str) -> str:
    """Returns the script of the defects named (comma-separated) that belong to ``page``
    (``wall`` or ``console``: the defect's name begins with it), "" for none."""
    return "\n".join(PAGE_DEFECTS[n] for n in names.split(",")
                     if n in PAGE_DEFECTS and n.startswith(page))


def main(argv: list[str]) -> int:
    for name in filter(None, os.environ.get(ENV, "").split(",")):
        if name not in PAGE_DEFECTS:
            DEFECTS[name]()
    if argv[0] == "table":
        from tests.evening.world import main as table
        return table(argv[1:])
    from controller.__main__ import main as controller
    return int(controller(argv) or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
