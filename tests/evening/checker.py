"""The checker: invariants over a whole evening's history, each a number in the report.

- **drops**: every drop the world played (a pocket beam's block in the world log, the lines
  the table's service took) is published (``ball_pocketed``) or asked about (a question about
  its pocket). Counted per table and pocket: ``lost silently`` = drops the table's inputs hold
  − published − asked (0 wanted); drops the world played that never reached the table's
  inputs (taken from the backend, not yet written, at a ``kill -9``) are counted apart
  (``in flight at a kill``).
- **rulings**: every ruling the table published (``shot_result``, from its journal's published
  log) equals a fault-free replay (``controller.pipeline.replay``) of its whole input history
  (the session traces, each completed from the journal as it stood after the session ended,
  with the clock ticks the journal kept: ``inputs_with_ticks``).
- **record**: the record (the venue recorder's store) equals the union of the tables'
  journals: every seq a journal published is stored, or inside a gap the record names
  (``missing without a gap``: 0 wanted); no stored seq the journal did not publish, and no
  stored message other than the journal's (``extra``, ``differing``: 0 wanted).
- **played**: every table played its evening to the end, and the record settled, within the
  evening's bounds.
- **questions**: a question always offers the true answer. The live referee
  (``tests.evening.referee``) read every question a table asked over the browsers' broker and
  answered it from the simulation's truth (which ball fell in which pocket; what the referee
  saw, or the player chose): a question whose true answer is not among its choices is bad.
  Counted apart: questions whose truth the referee could not find (asked out of the world's
  order: after an undo), answers refused, cancels sent.
- **wall**: the TV wall (Chromium at 1920×1080, ``tests.evening.browser``) shows every table
  wholly on the one screen at every sample, and no card moves or changes size between samples.
- **console**: every last word the hand-played table's console showed in Chromium
  («выполнено», «отказ», «не выполнено — стол подтвердил отмену»), each of its requests in
  order, equals what the table did: done iff the table journaled the request under its
  transaction (0 false). A word of a request never sent («не отправлено») is true of nothing
  done. Counted apart: the undos sent while the venue broker hung, and what they said.
- **deadlines**: every request a console sent a table under a fault (a ``get`` while its wall
  clock was an hour ahead) was answered ``ok``: the table takes a console's deadline by its
  MQTT 5 message expiry, not by two wall clocks agreeing.
- **health** (a table's disk filled: its status says it is not healthy within
  ``DISK_FULL_WITHIN_S``, healthy again within ``DISK_FREED_WITHIN_S`` of the freeing):
  every table killed shows ``offline`` on its ``status`` within the stated time
  (the broker sends the Last Will once the dead service's socket closes), and ``online``
  again within the stated time of its restart; after the venue broker was killed and started
  again, every table says ``online`` within that time. A serial table's board unplugged,
  reset or browned out shows down in the table's ``health`` (its link) within
  ``BOARD_DOWN_WITHIN_S`` and up again within ``BOARD_UP_WITHIN_S`` of its return.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from controller.pipeline.fusion import FusionConfig
from controller.pipeline.table import Table, feed
from controller.pipeline.trace import HealthLine, RequestLine, parse_line
from controller.service.config import load_controller_config
from hardware.events import SensorEvent
from tests.evening.harness import VENUE, History
from tests.evening.journals import inputs_history, inputs_with_ticks, journal_published
from tests.evening.world import played, world_log

#: How soon a killed table's status must say ``offline`` (its Last Will, sent once the
#: kernel closed its socket), and ``online`` after it was started again (seconds).
OFFLINE_WITHIN_S = 5.0
ONLINE_WITHIN_S = 15.0
#: How soon a serial table's health says its board is down (the port is gone at once), and
#: up again once the board is back (plugged in, booted) (seconds).
BOARD_DOWN_WITHIN_S = 5.0
BOARD_UP_WITHIN_S = 15.0
#: How soon a table whose disk filled says it is not healthy (its next commit fails), and
#: healthy again once the disk is freed (the journal tries again every 5 s) (seconds).
DISK_FULL_WITHIN_S = 10.0
DISK_FREED_WITHIN_S = 15.0
#: What a ruling is compared on (not its seq, time or match id).
RULING = ("shot", "corrected", "decisions", "to_shoot", "ball_in_hand")


@dataclass
class Invariant:
    """One invariant: ``bad`` violations among ``checked`` cases, with the first details."""

    name: str
    checked: int = 0
    bad: int = 0
    details: list[str] = field(default_factory=list)
    also: dict[str, int] = field(default_factory=dict)

    def count(self, what: str, n: int) -> None:
        self.also[what] = self.also.get(what, 0) + n

    def fail(self, detail: str, n: int = 1) -> None:
        self.bad += n
        if len(self.details) < 12:
            self.details.append(detail)


@dataclass
class Report:
    invariants: list[Invariant]
    faults: Counter[str]
    history: History

    @property
    def ok(self) -> bool:
        return all(i.bad == 0 for i in self.invariants)

    def __getitem__(self, name: str) -> Invariant:
        return next(i for i in self.invariants if i.name == name)

    def text(self) -> str:
        h = self.history
        lines = [f"evening seed {h.plan.seed}: {h.wall_s:.1f} s wall, tables finished "
                 f"{sum(h.finished.values())}/{len(h.finished)}",
                 "faults applied: " + (", ".join(f"{k} ×{n}" for k, n in sorted(self.faults.items()))
                                       or "none")]
        for inv in self.invariants:
            extra = "".join(f", {k} {v}" for k, v in inv.also.items())
            lines.append(f"  {inv.name:<8} {inv.bad} bad of {inv.checked}{extra}")
            lines += [f"      {d}" for d in inv.details]
        if h.restarts:
            by: Counter[str] = Counter(name for _, name, _ in h.restarts)
            lines.append("  exited by themselves, started again as their units say: "
                         + ", ".join(f"{name} ×{n}" for name, n in sorted(by.items())))
        lines += [f"  note: {n}" for n in h.notes]
        lines.append("PASS" if self.ok else "FAIL")
        return "\n".join(lines)


def _pocket(item: dict[str, Any]) -> str | None:
    ch = str(item.get("ch", ""))
    return ch.removeprefix("beam.") if ch.startswith("beam.") and item.get("v") == 1 else None


def check_drops(history: History, inv: Invariant) -> None:
    for seat in history.plan.seats():
        data = history.data(seat.table)
        evening = seat.evening()
        world = Counter(p for m, i in played(world_log(data, seat.table))
                        if (p := _pocket(evening[m][i])))
        inputs = inputs_history(data)
        taken = Counter(p for item in inputs if (p := _pocket(item)))
        _, published = journal_published(data)
        pocketed: Counter[str] = Counter()
        asked: Counter[str] = Counter()
        for topic, payload in published.values():
            if topic != "event":
                continue
            d = payload.get("data") or {}
            if payload.get("type") == "ball_pocketed" and d.get("pocket"):
                pocketed[str(d["pocket"])] += 1
            elif (payload.get("type") == "question" and d.get("topic") != "which_balls"
                  and (d.get("about") or {}).get("pocket")):
                asked[str(d["about"]["pocket"])] += 1  # which ball fell: of a published drop
        inv.checked += sum(world.values())
        inv.count("in flight at a kill", sum(max(0, world[p] - taken[p]) for p in world))
        for pocket in sorted(taken):
            lost = taken[pocket] - pocketed[pocket] - asked[pocket]
            if lost <= 0:
                continue
            inv.fail(f"{seat.table} {pocket}: {taken[pocket]} dropped, {pocketed[pocket]} "
                     f"published, {asked[pocket]} asked about", lost)


def _rulings(messages: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [{k: (m.get("data") or {}).get(k) for k in RULING} for topic, m in messages
            if topic == "event" and m.get("type") == "shot_result"]


def replayed(inputs: list[dict[str, Any]], fusion: FusionConfig) -> list[tuple[str, Any]]:
    """Returns what a fresh table publishes fed ``inputs`` as the service's rebuild feeds its
    journal (``feed``; a clock tick as ``advance``), fault-free: no restart, no broker."""
    table = Table(fusion=fusion)
    out = [(m.topic, m.payload) for m in table.start(float(inputs[0]["t"]) if inputs else 0.0)]
    for n, line in enumerate(inputs, start=1):
        if "tick" in line:
            out += [(m.topic, m.payload) for m in table.advance(float(line["t"]))]
            continue
        item = parse_line(json.dumps(line), n)
        if isinstance(item, SensorEvent | RequestLine | HealthLine):
            out += [(m.topic, m.payload) for m in feed(table, item)]
    out += [(m.topic, m.payload) for m in table.settle()]  # as replay ends: every shot settled
    return [(topic, json.loads(json.dumps(payload))) for topic, payload in out]


def check_rulings(history: History, inv: Invariant) -> None:
    for seat in history.plan.seats():
        data = history.data(seat.table)
        config = load_controller_config(data.parent / f"{seat.table}.toml")
        again = _rulings(replayed(inputs_with_ticks(data), config.fusion_settings()))
        _, published = journal_published(data)
        live = _rulings([published[s] for s in sorted(published)])
        inv.checked += max(len(live), len(again))
        for n, ruling in enumerate(live):
            if n >= len(again) or again[n] != ruling:
                inv.fail(f"{seat.table}: ruling {n + 1} (shot {ruling['shot']}) differs from "
                         f"the replay's: {again[n] if n < len(again) else 'none'}",
                         len(live) - n)
                break
        else:
            # the replay ends by settling every shot; a table stopped with its last shot still
            # open (its quiet window not over on a loaded host: the wall-time idle before the
            # stop is no promise) rules that one at its next start: counted, not a wrong ruling.
            # More than the last one ruled by the replay alone is a ruling lost
            extra = len(again) - len(live)
            if extra == 1:
                inv.count("last shot open at the stop", 1)
            elif extra > 1:
                inv.fail(f"{seat.table}: the replay rules {extra} shots more than the table "
                         f"published, from shot {again[len(live)]['shot']}", extra)


def _refusal(topic: str, payload: dict[str, Any]) -> bool:
    """Whether a published message is a table's answer that changed nothing."""
    return topic.startswith("response/") and payload.get("status") == "error"


def check_record(history: History, inv: Invariant) -> None:
    from controller.record.store import Store
    store = Store(history.store_url)
    try:
        gaps = store.gaps(VENUE)
        for seat in history.plan.seats():
            epoch, published = journal_published(history.data(seat.table))
            stored = {m.seq: (m.topic, m.payload) for m in store.messages(VENUE, seat.table, 0,
                                                                         None, epoch)}
            inv.checked += len(published)
            named = [(a, b) for v, t, e, a, b, _ in gaps if t == seat.table and e == epoch]
            # a table's answer that changed nothing (a refusal, junk) is counted in a run of
            # seqs, not stored (the store's ``skipped``): covered, if it is one
            counted = set(store.seqs(VENUE, seat.table, epoch)) - set(stored)
            not_refusals = [s for s in sorted(counted) if s in published
                            and not _refusal(*published[s])]
            if not_refusals:
                inv.fail(f"{seat.table}: {len(not_refusals)} seqs counted, not stored, that "
                         f"are not refusals, e.g. {not_refusals[:5]}", len(not_refusals))
            inv.count("counted refusals", len(counted & set(published)))
            missing = sorted(set(published) - set(stored) - counted)
            unnamed = [s for s in missing if not any(a <= s and (b is None or s <= b)
                                                     for a, b in named)]
            inv.count("missing in a named gap", len(missing) - len(unnamed))
            if unnamed:
                inv.fail(f"{seat.table}: {len(unnamed)} seqs missing without a gap, e.g. "
                         f"{unnamed[:5]}", len(unnamed))
            low = min(published, default=0)
            extra = [s for s in stored if s >= low and s not in published]
            if extra:
                inv.fail(f"{seat.table}: {len(extra)} stored seqs the journal never published, "
                         f"e.g. {extra[:5]}", len(extra))
            differ = [s for s in stored if s in published and stored[s][1] != published[s][1]]
            if differ:
                inv.fail(f"{seat.table}: {len(differ)} stored messages differ from the "
                         f"journal's, e.g. seq {differ[0]}", len(differ))
    finally:
        store.close()


def check_health(history: History, inv: Invariant) -> None:
    for start, end, fault in history.faults:
        if fault.kind == "broker-kill":
            check_reconnected(history, inv, end, fault)
        if fault.kind.startswith("board-"):
            check_board_link(history, inv, start, end, fault)
        if fault.kind == "disk-full":
            check_disk(history, inv, start, end, fault)
        if fault.kind != "table-kill":
            continue
        before = [s for t, table, s in history.statuses if table == fault.target and t < start]
        if not before or before[-1] != "online":  # killed before it was online: no Last Will
            inv.count("killed before online", 1)
            continue
        inv.checked += 1
        heard = [(t, s) for t, table, s in history.statuses if table == fault.target and t >= start]
        offline = next((t for t, s in heard if s == "offline"), None)
        if offline is None or offline - start > OFFLINE_WITHIN_S:
            inv.fail(f"{fault.target} killed at {start:.1f} s: offline "
                     f"{'never' if offline is None else f'after {offline - start:.1f} s'}")
        online = next((t for t, s in heard if s == "online" and t >= end), None)
        if online is None or online - end > ONLINE_WITHIN_S:
            inv.fail(f"{fault.target} restarted at {end:.1f} s: online "
                     f"{'never' if online is None else f'after {online - end:.1f} s'}")


def check_board_link(history: History, inv: Invariant, start: float, end: float,
                     fault: Any) -> None:
    """A board's fault shows in its table's health within ``BOARD_DOWN_WITHIN_S``: its link
    down, or up in a new spell (a reset shorter than the health's interval); and up again
    within ``BOARD_UP_WITHIN_S`` of the fault's end."""
    inv.checked += 1
    seat = next(s for s in history.plan.seats() if s.table == fault.target)
    uid = f"{seat.seed:016x}"  # the board's unique id (tests.evening.boards)
    mine = [(t, up, since) for t, table, link, up, since in history.links
            if table == fault.target and link == uid]
    spell = next((since for t, _, since in reversed(mine) if t < start), None)
    shown = next((t for t, up, since in mine if t >= start and (not up or since != spell)),
                 None)
    if shown is None or shown - start > BOARD_DOWN_WITHIN_S:
        inv.fail(f"{fault.target}'s board, {fault.kind} at {start:.1f} s: shown in health "
                 f"{'never' if shown is None else f'after {shown - start:.1f} s'}")
        return
    up = next((t for t, up, _ in mine if up and t >= max(end, shown)), None)
    if up is None or up - end > BOARD_UP_WITHIN_S:
        inv.fail(f"{fault.target}'s board back at {end:.1f} s ({fault.kind}): up in health "
                 f"{'never' if up is None else f'after {up - end:.1f} s'}")


def check_disk(history: History, inv: Invariant, start: float, end: float, fault: Any) -> None:
    """A table whose disk filled says it is not healthy (its status) within
    ``DISK_FULL_WITHIN_S``, and healthy again within ``DISK_FREED_WITHIN_S`` of the freeing."""
    inv.checked += 1
    heard = [(t, ok) for t, table, ok in history.healthy if table == fault.target and t >= start]
    sick = next((t for t, ok in heard if not ok), None)
    if sick is None or sick - start > DISK_FULL_WITHIN_S:
        inv.fail(f"{fault.target}'s disk filled at {start:.1f} s: not healthy in its status "
                 f"{'never' if sick is None else f'after {sick - start:.1f} s'}")
        return
    well = next((t for t, ok in heard if ok and t >= max(end, sick)), None)
    if well is None or well - end > DISK_FREED_WITHIN_S:
        inv.fail(f"{fault.target}'s disk freed at {end:.1f} s: healthy again "
                 f"{'never' if well is None else f'after {well - end:.1f} s'}")


def check_reconnected(history: History, inv: Invariant, end: float, fault: Any) -> None:
    """Every table says ``online`` again within ``ONLINE_WITHIN_S`` of the venue broker's
    restart (its status is republished on every connection)."""
    for seat in history.plan.seats():
        inv.checked += 1
        online = next((t for t, table, s in history.statuses
                       if table == seat.table and s == "online" and t >= end), None)
        if online is None or online - end > ONLINE_WITHIN_S:
            inv.fail(f"{seat.table} after the broker's restart at {end:.1f} s ({fault.kind}): "
                     f"online {'never' if online is None else f'after {online - end:.1f} s'}")


def check_deadlines(history: History, inv: Invariant) -> None:
    """Every request a console sent under a fault was answered ``ok``."""
    for t, table, what, answer in history.consoles:
        inv.checked += 1
        if answer != "ok":
            inv.fail(f"{table} at {t:.1f} s, {what}: {answer}")


def record_holds_journals(history: History) -> bool:
    """Returns whether the record holds every seq each table's journal published."""
    from controller.record.store import Store
    store = Store(history.store_url)
    try:
        for seat in history.plan.seats():
            epoch, published = journal_published(history.data(seat.table))
            if set(published) - set(store.seqs(VENUE, seat.table, epoch)):
                return False
        return True
    finally:
        store.close()


def check_played(history: History, inv: Invariant) -> None:
    """Every table played its whole evening, and the record settled, within the bounds."""
    for table, finished in sorted(history.finished.items()):
        inv.checked += 1
        if not finished:
            inv.fail(f"{table} did not play its evening to the end")
    for note in history.notes:
        if note.startswith("timed out"):
            inv.fail(note)


def check_questions(history: History, inv: Invariant) -> None:
    """A question always offers the true answer (the live referee's notes)."""
    referee = history.referee
    if referee is None:
        return
    for asked in referee.asked:
        inv.checked += 1
        if not asked.known:
            inv.count("truth not found", 1)
        elif not asked.offered:
            inv.fail(f"{asked.table} {asked.question} at {asked.t:.1f} s: {asked.detail}")
    inv.count("answers sent", referee.sent)
    inv.count("refused", len(referee.refused))
    inv.count("cancels", referee.cancels)


def check_wall(history: History, inv: Invariant) -> None:
    """Every sample of the TV wall shows every table on the one screen, laid out as before."""
    wall = history.wall
    if wall is None:
        return
    for problem in wall.problems:
        inv.fail(problem)
    if not wall.samples:
        inv.fail("the wall was never sampled")
    tables = [s.table for s in history.plan.seats()]
    before = None
    for sample in wall.samples:
        inv.checked += 1
        missing = sample.missing(tables)
        if missing:
            inv.fail(f"at {sample.t:.1f} s: {', '.join(missing)} not wholly on the screen")
        if before is not None and sample.layout() != before:
            inv.fail(f"at {sample.t:.1f} s: the layout changed")
        before = sample.layout()


def _console_requests(history: History, table: str) -> tuple[list[str], set[str]]:
    """Returns the console's requests' transactions in the order it sent them (as the
    table's answers name them: its own, or a cancel's), and those the table did: journaled
    and not refused (a request the table refused is journaled too, with its error)."""
    _, published = journal_published(history.data(table))
    sent: set[str] = set()
    refused: set[str] = set()
    for topic, payload in published.values():
        if not topic.startswith("response/"):
            continue
        if topic == "response/cancel":
            tx = str((payload.get("data") or {}).get("cancels") or "")
        else:
            tx = str(payload.get("transaction") or "")
            if payload.get("status") == "error":
                refused.add(tx)
        if tx.startswith("web-"):
            sent.add(tx)
    done = {str((x.get("payload") or {}).get("transaction")) for x in inputs_history(
        history.data(table)) if "request" in x and x.get("request") != "cancel"} - refused
    return sorted(sent, key=lambda tx: int(tx.rsplit("-", 1)[-1])), done


def check_console(history: History, inv: Invariant) -> None:
    """Every last word of the console equals what the table did with its request."""
    wall = history.wall
    if wall is None or wall.console is None:
        return
    console = wall.console
    for problem in console.problems:
        inv.fail(problem)
    sent, done = _console_requests(history, console.table)
    # a request's word is "<request>: <what became of it>"; a hint («Сначала шар, потом его
    # лузу») answers a tap, not a request
    said = [(state, text) for state, text in console.said if ": " in text or "chain" in text]
    inv.count("hints", len(console.said) - len(said))
    words = [(state, text) for state, text in said if "не отправлено" not in text]
    inv.count("not sent (no broker)", len(said) - len(words))
    inv.count("undos while hung", len(console.undos) // 2)
    if len(words) != len(sent):
        inv.fail(f"{len(words)} last words, {len(sent)} requests the table answered")
    for (state, text), tx in zip(words, sent, strict=False):
        inv.checked += 1
        if (state == "ok") != (tx in done):
            inv.fail(f"«{text[:60]}» ({tx}): the table {'did' if tx in done else 'did not'}")
    inv.checked += len(said) - len(words)


def check(history: History) -> Report:
    """Returns the report of every invariant over ``history``."""
    invariants = [Invariant("played"), Invariant("drops"), Invariant("rulings"),
                  Invariant("record"), Invariant("health"), Invariant("questions"),
                  Invariant("wall"), Invariant("console"), Invariant("deadlines")]
    check_played(history, invariants[0])
    check_drops(history, invariants[1])
    check_rulings(history, invariants[2])
    check_record(history, invariants[3])
    check_health(history, invariants[4])
    check_questions(history, invariants[5])
    check_wall(history, invariants[6])
    check_console(history, invariants[7])
    check_deadlines(history, invariants[8])
    return Report(invariants, Counter(f.kind for _, _, f in history.faults), history)
