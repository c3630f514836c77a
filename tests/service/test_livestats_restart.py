"""The live statistics survive a restart (issue 30): the table rebuilt from its journal
publishes the same ``stats`` in its state as it had published before, undo, redo and a shot
ruled again among the inputs, the rack times on the table's clock."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.service.corekit import FakeClock, Stepper, core_config, payloads

#: A pyramid match between Ann and Bob: Ann pots the 1 (11 points) and the 2 (2), misses;
#: Bob pots the 3, the 5 is declared to have fallen too, and the shot is undone and redone.
REQUESTS: list[tuple[str, dict[str, Any]]] = [
    ("new_match", {"game": "pyramid", "players": ["Ann", "Bob"], "race_to": 2}),
    ("call", {"calls": [{"ball": 1, "pocket": "fl"}]}),
    ("declare", {"pocketed": [{"ball": 1, "pocket": "fl"}], "first_contact": 1,
                 "cushions_after_contact": 1}),
    ("shot_end", {}),
    ("call", {"calls": [{"ball": 2, "pocket": "fr"}]}),
    ("declare", {"pocketed": [{"ball": 2, "pocket": "fr"}], "first_contact": 2,
                 "cushions_after_contact": 1}),
    ("shot_end", {}),
    ("declare", {"first_contact": 5, "cushions_after_contact": 1}),
    ("shot_end", {}),
    ("call", {"calls": [{"ball": 3, "pocket": "sl"}]}),
    ("declare", {"pocketed": [{"ball": 3, "pocket": "sl"}], "first_contact": 3,
                 "cushions_after_contact": 1}),
    ("shot_end", {}),
    ("declare", {"pocketed": [{"ball": 5, "pocket": "hl"}], "shot": 4}),
    ("undo", {}),
    ("redo", {}),
]


def test_a_table_rebuilt_from_its_journal_publishes_the_same_stats(tmp_path: Path) -> None:
    config = core_config(tmp_path / "data")
    live = Stepper(config)
    live.take(live.core.start())
    for n, (name, payload) in enumerate(REQUESTS):
        live.step({"t": 100.0 + 10 * n, "request": name,
                   "payload": {**payload, "transaction": f"tx-{n}"}})
        live.commit()
    published = payloads(live.sent, "state")[-1]
    responses = [json.loads(o.payload) for o in live.sent if "/response/" in o.topic]
    assert len(responses) == len(REQUESTS) and all(p["status"] == "ok" for p in responses)
    # Bob's run: the 3 and the 5 declared after (3 + 5 points); Ann's 13 the best
    assert published["stats"] == {"run": {"player": 1, "size": 8},
                                  "best": {"player": 0, "size": 13},
                                  "break_runs": [0, 0], "rack_t0": published["match_t0"],
                                  "racks_s": []}
    live.close()
    rebuilt = Stepper(config, clock=FakeClock(live.clock.t + 30))
    again = payloads(rebuilt.take(rebuilt.core.start()), "state")[-1]
    assert again["seq"] > published["seq"]  # published anew, after the restart
    assert again["stats"] == published["stats"]
    assert again["match_t0"] == published["match_t0"]
    rebuilt.close()
