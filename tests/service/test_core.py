"""The service's core through its public API, on a fake clock: what leaves when, seq and time
across restarts, sensor health as fusion hears it, each message's policy."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

from controller.service.config import Config
from controller.service.core import SEQ_RESERVE, Connected, Request
from controller.service.delivery import Delivery
from hardware.events import SensorEvent
from rules import Topic
from tests.service.corekit import BASE, FakeClock, Stepper, core_config, events, payloads, rows

NEW_MATCH = {"game": "ten-ball", "players": ["Ann", "Bob"], "transaction": "nm"}


def in_a_match(config: Config) -> Stepper:
    """Returns a started core on which a match was started at t = 1."""
    s = Stepper(config)
    s.take(s.core.start())
    s.step({"t": 1.0, "request": "new_match", "payload": NEW_MATCH})
    return s


def unretained(items: list[Delivery]) -> list[Delivery]:
    return [o for o in items if not o.retain]


def pocketing(stepper: Stepper, t: float, pocket: str = "fl") -> None:
    """A shot: a cushion shakes, then a ball crosses ``pocket``'s beam."""
    for dt, ch, v in ((0.0, "cushion.f", 1), (0.01, "cushion.f", 0), (0.2, f"beam.{pocket}", 1),
                      (0.23, f"beam.{pocket}", 0)):
        stepper.step({"t": t + dt, "ch": ch, "v": v})


async def test_a_live_ball_pocketed_leaves_once_written_and_the_ruling_only_once_synced(tmp_path):
    s = Stepper(core_config(tmp_path))
    s.take(s.core.start())
    s.commit()
    s.sync()  # the seq reservation is on disk: seqs below it may go out early
    assert len(await s.leaving()) == 4  # status, state, display, health
    s.step({"t": 1.0, "request": "new_match", "payload": NEW_MATCH})
    s.commit()
    assert await s.leaving() == [], "a ruling (the match started) waits for the sync"
    s.sync()
    assert len(events(await s.leaving(), "match_started")) == 1
    pocketing(s, 2.0)
    s.commit()
    (pocketed,) = await s.leaving()
    assert events([pocketed], "ball_pocketed"), "live news leaves once written"
    ruled = s.settle(2.23 + 3.0)  # quiet long enough: the shot is ruled
    assert events(ruled, "question")  # which ball fell is asked: a ruling
    s.commit()
    assert await s.leaving() == []
    s.sync()
    assert await s.leaving() == ruled
    s.close()


async def test_nothing_leaves_early_before_a_sync_has_put_the_seq_reservation_on_disk(tmp_path):
    s = in_a_match(core_config(tmp_path))
    pocketing(s, 2.0)
    assert events(s.sent, "ball_pocketed")
    s.commit()
    assert await s.leaving() == []  # were the power to go now, its seq could be given again
    s.sync()
    assert unretained(await s.leaving()) == unretained(s.sent)  # the state: its latest only
    s.close()


async def test_with_sync_normal_everything_written_leaves_at_once(tmp_path):
    s = in_a_match(core_config(tmp_path, journal={"sync": "normal"}))
    s.commit()
    assert unretained(await s.leaving()) == unretained(s.sent)
    s.close()


def test_seq_continues_after_the_reservation_only_after_a_power_cut(tmp_path):
    s = in_a_match(core_config(tmp_path))
    s.commit()
    seq = s.core.table.seq
    limit = int(dict(rows(tmp_path, "SELECT key, value FROM meta"))["seq_limit"])
    assert seq < limit <= seq + SEQ_RESERVE
    s.core.journal.close()  # killed: no clean stop

    again = Stepper(core_config(tmp_path), clock=FakeClock(s.clock.t), boot="boot-1")
    assert again.core.table.seq == seq, "kill -9: the machine's cache kept every write"
    again.close()  # a clean stop

    again = Stepper(core_config(tmp_path), clock=FakeClock(s.clock.t), boot="boot-2")
    assert again.core.table.seq == seq, "a clean stop, then a reboot: nothing was published early"
    again.core.journal.close()  # killed again

    cut = Stepper(core_config(tmp_path), clock=FakeClock(s.clock.t), boot="boot-3")
    assert cut.core.table.seq == limit, "a power cut: what went out early may be lost"
    (state,) = payloads(cut.take(cut.core.start()), "state")
    assert state["seq"] > limit
    cut.close()


def test_the_clock_resumes_after_the_last_input_after_a_reboot(tmp_path):
    s = Stepper(core_config(tmp_path), clock=FakeClock(5000.0))
    s.take(s.core.start())
    s.step({"t": 5010.0, "request": "new_match", "payload": NEW_MATCH})
    s.commit()
    s.close()
    last = s.core.time.last_t
    s.wall.t += 30.0  # the machine was off for 30 s; its monotonic clock starts again
    rebooted = Stepper(core_config(tmp_path), clock=FakeClock(3.0), wall=s.wall, boot="boot-2")
    assert rebooted.core.clock() >= last + 30.0
    (state,) = payloads(rebooted.take(rebooted.core.start()), "state")
    assert state["ts"] > last
    rebooted.close()


def test_each_message_carries_its_policy_expiry_and_reply(tmp_path):
    s = Stepper(core_config(tmp_path, mqtt={"event_expiry_s": 600, "response_expiry_s": 30}))
    s.take(s.core.start())
    s.at(1.0)
    out = s.take(s.core.handle(Request("new_match", {**NEW_MATCH}, None, "app/7/answers", b"c-7")))
    by_topic = {o.topic: o for o in out}
    assert by_topic[f"{BASE}/event"].expiry == 600
    assert by_topic[f"{BASE}/state"].expiry is None and by_topic[f"{BASE}/state"].retain
    response = by_topic[f"{BASE}/response/new_match"]
    reply = by_topic["app/7/answers"]
    assert response.expiry == reply.expiry == 30
    assert reply.payload == response.payload and reply.correlation == b"c-7" and not reply.retain
    again = s.take(s.core.handle(Request("new_match", {**NEW_MATCH}, None)))  # no response topic
    assert [o.topic for o in again] == [f"{BASE}/response/new_match"]  # answered, not applied
    republished = s.take(s.core.handle(Connected()))
    assert [o.topic.removeprefix(BASE + "/") for o in republished] == [
        "status", "state", "display", "health"]
    s.close()


def journal_lines(data: Path) -> list[dict]:
    return [json.loads(line) for (line,) in rows(data, "SELECT line FROM inputs ORDER BY id")]


def test_a_beam_sensor_health_finds_chattering_has_its_made_up_drops_taken_back(tmp_path):
    s = in_a_match(core_config(tmp_path))
    s.step({"t": 2.0, "request": "call", "payload": {"calls": [{"ball": 1, "pocket": "sl"}]}})
    rng = random.Random(0)
    t, level = 3.0, 1
    while not s.core.health.snapshot()["faults"]:  # a loose wire: edges 0.5-4 ms apart
        s.step({"t": round(t, 6), "ch": "beam.hl", "v": level})
        t += rng.uniform(0.0005, 0.004)
        level ^= 1
    assert s.core.health.snapshot()["faults"] == {"beam.hl": "chattering"}
    assert events(s.sent, "ball_pocketed"), "the glitch filter let some chatter through as balls"
    s.commit()
    told = [x for x in journal_lines(tmp_path) if "health" in x]
    assert told == [{"t": told[0]["t"], "health": "beam.hl", "state": "chattering"}]
    (fault,) = events(s.sent, "sensor_fault")
    assert json.loads(fault.payload)["data"]["state"] == "chattering"
    s.step({"t": 3.5, "ch": "beam.sl", "v": 1})
    s.step({"t": 3.52, "ch": "beam.sl", "v": 0})
    s.step({"t": 6.0, "request": "shot_end", "payload": {}})
    asked = [(q.kind, q.topic) for q in s.core.table.referee.questions if q.params.get("pocket") == "hl"]
    assert asked == [("confirm", Topic.BALL_FELL)], (
        "a ball in hl is asked about (the pocket was blind), not counted from the chatter")
    s.close()


def test_an_old_journal_whose_health_lines_say_only_usable_is_still_read(tmp_path):
    s = in_a_match(core_config(tmp_path))
    s.commit()
    s.close()
    db = sqlite3.connect(tmp_path / "journal.sqlite3")
    db.execute("INSERT INTO inputs (line) VALUES (?)",
               (json.dumps({"t": 1.5, "health": "beam.fr", "usable": False}),))
    db.commit()
    db.close()
    again = Stepper(core_config(tmp_path), clock=FakeClock(s.clock.t))
    assert [p.value for p in again.core.table.fusion.fitted.blind] == ["fr"]
    again.close()


def test_a_beam_out_of_order_before_a_restart_counts_again_once_health_sees_it_working(tmp_path):
    s = in_a_match(core_config(tmp_path))
    s.step({"t": 2.0, "ch": "beam.fr", "v": 1})  # blocked for good: stuck after 2 s
    s.settle(5.0)
    assert s.core.health.snapshot()["faults"] == {"beam.fr": "stuck"}
    assert [p.value for p in s.core.table.fusion.fitted.blind] == ["fr"]
    s.commit()
    s.close()
    # the lens was cleaned while the service was down: the new monitor knows nothing of it
    again = Stepper(core_config(tmp_path), clock=FakeClock(s.clock.t))
    assert [p.value for p in again.core.table.fusion.fitted.blind] == ["fr"]  # from the journal
    again.step({"t": 10.0, "ch": "beam.fr", "v": 0})
    assert not again.core.table.fusion.fitted.blind
    again.commit()
    assert [x for x in journal_lines(tmp_path) if "health" in x][-1]["state"] == "ok"
    again.close()


def test_a_sensor_event_is_journaled_on_the_service_clock_never_before_the_last_input(tmp_path):
    s = in_a_match(core_config(tmp_path))
    s.take(s.core.handle(SensorEvent(0.5, "cushion.f", 1)))  # arrived after a later request
    s.commit()
    # taken at the table's time, and keeping its own (``at``): fusion places it there
    assert journal_lines(tmp_path)[-1] == {"t": 1.0, "ch": "cushion.f", "v": 1, "at": 0.5}
    s.close()
