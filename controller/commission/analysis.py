"""What a commissioning session saw, and what it suggests: pure, from the captured edges.

Each step's capture is the list of sensor events that arrived while the installer did it,
and the level of every channel when it began. From them:

- **the channel map**: which channel answered each pocket and cushion step. The expected
  channel answering first is right; another channel of the same kind answering instead is a
  swapped wire (the fix moves the pins); nothing answering is a dead channel. A channel that
  fires while the table is still chatters; one held at 1 is stuck (a vibration sensor) or, for a
  beam whose balls show as short 0 pulses, inverted.
- **beam timing**: the blocks of the two balls of each pocket step (1 periods merged across
  drop-outs shorter than ``MERGE_S``), glitches (shorter than ``BLOCK_MIN_S``), and the
  ``noise_s`` / ``min_block_s`` they suggest;
- **cushions**: the pulse trains of the soft and the hard hit (pulses closer than ``TRAIN_GAP_S``),
  the softest hit felt, the longest time on, the other half of a long rail shaking (delay and
  relative strength), and the ``cushion_gap_s`` / ``cushion_max_on_s`` / ``crosstalk_s`` they
  suggest; for a piezo on a sensor board, the ADC threshold it suggests (``Threshold``: below
  the softest hit, above what it fired at on its own), which is written to the board;
- **the ball return**: delays from a drop to the cue detector and the identity reader, and the
  ``identity_min_s`` / ``identity_max_s`` they suggest;
- **clocks**: whatever the backend reports of its links (a board's offset, drift, round trip).

A setting is suggested only where the session measured what it depends on and the value
differs from the configured one by more than ``CHANGE``; every suggestion says why. What is
found and why is data (``Said``: a catalogue key and its fields), worded by ``words.say`` in
the installer's language.
"""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from controller.commission.steps import Step, StepKind
from controller.commission.words import Said
from controller.pipeline.fusion import FusionConfig
from hardware.events import SensorEvent
from vocabulary import SAME_RAIL, Kind, Rail, cushion, parse_channel

#: 1 periods of a beam closer than this are one block (the receiver dropped out inside it).
MERGE_S = 0.010
#: A beam block shorter than this is a glitch, not a ball (a ball at 4.5 m/s takes ~9 ms).
BLOCK_MIN_S = 0.006
#: Cushion pulses closer than this are one hit's train (hits in a step are a second apart).
TRAIN_GAP_S = 0.150
#: A train on the other half of a long rail starting this soon after is crosstalk.
CROSSTALK_WINDOW_S = 0.100
#: A piezo's threshold is put at this fraction of the softest hit's peak, so softer hits than
#: the installer's soft one still count ...
FELT_FRACTION = 0.5
#: ... and this far above the highest peak it fired at on its own while the table was still.
NOISE_MARGIN = 1.5
#: The other half of a rail shaking this strongly (relative to the hit) is named.
STRONG_CROSSTALK = 0.9
#: This many edges while the table is still is chatter.
CHATTER_EDGES = 6
#: A suggestion is made only where it differs from the setting by more than this fraction.
CHANGE = 0.2


class Problem(enum.StrEnum):
    SWAPPED = "swapped"
    DEAD = "dead"
    INVERTED = "inverted"
    CHATTERING = "chattering"
    STUCK = "stuck"
    WEAK = "weak"
    CROSSTALK = "crosstalk"


@dataclass(frozen=True, slots=True)
class Capture:
    """The events that arrived during one step, and every channel's level when it began."""

    step: Step
    events: tuple[SensorEvent, ...]
    levels: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Period:
    """A channel at 1 from ``start`` to ``end`` (a beam block, a cushion pulse)."""

    ch: str
    start: float
    end: float
    level: float | None = None

    @property
    def length(self) -> float:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Train:
    """One cushion hit: pulses closer than TRAIN_GAP_S."""

    ch: str
    start: float
    length: float
    pulses: int
    max_on: float
    max_gap: float
    peak: float | None

    @property
    def strength(self) -> float:
        """The analogue peak where there is one, else the number of pulses."""
        return self.peak if self.peak is not None else float(self.pulses)


@dataclass(frozen=True, slots=True)
class Finding:
    """Something wrong with one channel, and how to fix it."""

    channel: str
    problem: Problem
    detail: Said
    fix: Said


@dataclass(frozen=True, slots=True)
class Setting:
    """A suggested configuration value: ``section.key`` from ``current`` to ``value``."""

    section: str
    key: str
    current: Any
    value: Any
    why: Said


@dataclass(frozen=True, slots=True)
class Threshold:
    """A piezo channel's suggested ADC threshold (0–65535), written to its sensor board."""

    channel: str
    value: int
    why: Said


@dataclass(slots=True)
class Report:
    """Everything the session measured, found and suggests."""

    channel_map: dict[str, str | None] = field(default_factory=dict)
    beams: dict[str, dict[str, Any]] = field(default_factory=dict)
    cushions: dict[str, dict[str, Any]] = field(default_factory=dict)
    ball_return: dict[str, Any] = field(default_factory=dict)
    clocks: dict[str, Any] = field(default_factory=dict)
    breaking: dict[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    settings: list[Setting] = field(default_factory=list)
    thresholds: list[Threshold] = field(default_factory=list)

    def problems(self) -> dict[str, set[Problem]]:
        """Returns each channel's problems."""
        out: dict[str, set[Problem]] = defaultdict(set)
        for f in self.findings:
            out[f.channel].add(f.problem)
        return dict(out)

    def to_json(self) -> dict[str, Any]:
        return {
            "channel_map": self.channel_map, "beams": self.beams, "cushions": self.cushions,
            "ball_return": self.ball_return, "clocks": self.clocks, "break": self.breaking,
            "findings": [asdict(f) for f in self.findings],
            "settings": [asdict(s) for s in self.settings],
            "thresholds": [asdict(t) for t in self.thresholds],
        }


# ------------------------------------------------------------------ periods and trains
def periods(events: Iterable[SensorEvent], levels: Mapping[str, int],
            inverted: frozenset[str] = frozenset()) -> dict[str, list[Period]]:
    """Returns each channel's 1 periods (an ``inverted`` channel's 0 periods), in time order.

    A period still open at the last event ends there.
    """
    since: dict[str, tuple[float, float | None]] = {}
    last_t = 0.0
    out: dict[str, list[Period]] = defaultdict(list)
    for ch, at_start in levels.items():
        if (at_start ^ (ch in inverted)) == 1:
            since[ch] = (float("-inf"), None)
    for ev in sorted(events, key=lambda e: e.t):
        if ev.ch == Kind.BALL_ID:
            continue
        last_t = max(last_t, ev.t)
        v = ev.v ^ (ev.ch in inverted)
        if v and ev.ch not in since:
            since[ev.ch] = (ev.t, ev.level)
        elif not v and ev.ch in since:
            start, peak = since.pop(ev.ch)
            if start != float("-inf"):
                out[ev.ch].append(Period(ev.ch, start, ev.t, peak))
    for ch, (start, peak) in since.items():
        if start != float("-inf"):
            out[ch].append(Period(ch, start, last_t, peak))
    return dict(out)


def merge(ps: Sequence[Period], gap: float) -> tuple[list[Period], list[float]]:
    """Returns the periods merged across gaps shorter than ``gap``, and those gaps."""
    merged: list[Period] = []
    gaps: list[float] = []
    for p in ps:
        if merged and p.start - merged[-1].end < gap:
            gaps.append(p.start - merged[-1].end)
            last = merged[-1]
            peak = max((x for x in (last.level, p.level) if x is not None), default=None)
            merged[-1] = Period(p.ch, last.start, max(last.end, p.end), peak)
        else:
            merged.append(p)
    return merged, gaps


def trains(ps: Sequence[Period]) -> list[Train]:
    """Returns the pulse trains of one cushion channel's pulses."""
    out: list[Train] = []
    group: list[Period] = []
    for p in [*ps, None]:
        if p is not None and (not group or p.start - group[-1].end < TRAIN_GAP_S):
            group.append(p)
            continue
        if group:
            gaps = [b.start - a.end for a, b in zip(group, group[1:], strict=False)]
            peaks = [g.level for g in group if g.level is not None]
            out.append(Train(group[0].ch, group[0].start, group[-1].end - group[0].start,
                             len(group), max(g.length for g in group), max(gaps, default=0.0),
                             max(peaks) if peaks else None))
        group = [p] if p is not None else []
    return out


# ------------------------------------------------------------------ the analysis
def analyse(captures: Sequence[Capture], fusion: FusionConfig,
            pins: Mapping[str, int | str] | None = None,
            clocks: Mapping[str, Any] | None = None, *, serial: bool = False,
            invert: Sequence[str] = (), cue: bool | None = None) -> Report:
    """Returns the report of a session: ``captures`` in step order, the configured ``fusion``
    settings, the GPIO ``pins`` (for the fixes of swapped channels; None for other backends),
    whether the sensors are on boards (``serial``), the channels configured ``invert``, and
    whether a cue-ball detector is fitted (``cue``; None: configured, or heard in the session).
    """
    report = Report(clocks=dict(clocks or {}))
    quiet = [c for c in captures if c.step.kind is StepKind.QUIET]
    at_rest = _at_rest(quiet[0]) if quiet else {}
    counts = _edges(quiet[0]) if quiet else {}
    noisy = frozenset(ch for ch, n in counts.items() if n >= CHATTER_EDGES)
    inverted = _inverted(captures, at_rest, noisy)
    stuck = _quiet(quiet[0], at_rest, inverted, counts, report) if quiet else frozenset()
    glitches: list[float] = []
    blocks: list[float] = []
    returns = []
    for cap in captures:
        # a chattering channel answers no other channel's step, and its timing is not measured
        ps = {ch: p for ch, p in periods(cap.events, cap.levels, inverted).items()
              if ch not in noisy or ch == cap.step.expect}
        if cap.step.kind is StepKind.POCKET:
            _pocket(cap, ps, report, glitches, blocks, noisy)
        elif cap.step.kind in (StepKind.CUSHION, StepKind.CLICK, StepKind.STRIKE):
            _cushion(cap, ps, report, noisy)
        elif cap.step.kind is StepKind.RETURN:
            returns.append((cap, ps))
        elif cap.step.kind is StepKind.BREAK:
            _break(ps, report)
    fitted = cue if cue is not None else fusion.cue_detector or any(
        ev.ch == Kind.CUE for c in captures for ev in c.events)
    for cap, ps in returns:
        if fitted:
            _cue(ps, report, noisy)
        _return(cap, ps, report, noisy | stuck, inverted)
    _swaps(report, pins, serial, stuck)
    _invert(report, inverted, invert, "gpio" if pins else "serial" if serial else None)
    _crosstalk(report, fusion)
    _suggest(report, fusion, glitches, blocks)
    return report


def _edges(cap: Capture) -> dict[str, int]:
    """Returns how many edges each channel gave in the quiet step."""
    counts: dict[str, int] = defaultdict(int)
    for ev in cap.events:
        if ev.ch != Kind.BALL_ID:
            counts[ev.ch] += 1
    return dict(counts)


def _invert(report: Report, inverted: frozenset[str], invert: Sequence[str],
            section: str | None) -> None:
    """Names the inverted receivers, and the ``invert`` setting that reads them right: under
    the name each will have once the swapped wires or pins are put right."""
    renamed = {who: e for e, who in report.channel_map.items() if who is not None}
    for ch in sorted(inverted):
        name = renamed.get(ch, ch)
        fix = ("f.inverted.fix_other" if not section else
               "f.inverted.fix" if name == ch else "f.inverted.fix_swapped")
        report.findings.append(Finding(
            ch, Problem.INVERTED,
            Said("f.inverted_cue" if _kind(ch) is Kind.CUE else "f.inverted"),
            Said(fix, {"name": name, "section": section})))
    if section and inverted:
        # plain names, as the file holds them (the cue detector's channel is a ``Kind``)
        names = {str(renamed.get(ch, ch)) for ch in inverted}
        report.settings.append(Setting(section, "invert", list(map(str, invert)),
                                       sorted({*map(str, invert), *names}), Said("why.invert")))


def _kind(ch: str) -> Kind | None:
    try:
        return parse_channel(ch)[0]
    except ValueError:
        return None


def _at_rest(cap: Capture) -> dict[str, int]:
    """Returns every channel's level at the end of the quiet step."""
    levels = dict(cap.levels)
    for ev in sorted(cap.events, key=lambda e: e.t):
        if ev.ch != Kind.BALL_ID:
            levels[ev.ch] = ev.v
    return levels


def _inverted(captures: Sequence[Capture], at_rest: Mapping[str, int],
              noisy: frozenset[str]) -> frozenset[str]:
    """Returns the beams and the cue-ball detector at 1 at rest that show ball-length 0 pulses
    in a step with balls (whichever pocket's: a wire may be swapped as well)."""
    out: set[str] = set()
    candidates = {ch for ch, v in at_rest.items()
                  if v and ch not in noisy and _kind(ch) in (Kind.BEAM, Kind.CUE)}
    for cap in captures:
        if cap.step.kind not in (StepKind.POCKET, StepKind.RETURN):
            continue
        for ch in candidates - out:
            zeros = periods(cap.events, cap.levels, frozenset({ch})).get(ch, [])
            if any(BLOCK_MIN_S <= p.length < 1.0 for p in merge(zeros, MERGE_S)[0]):
                out.add(ch)
    return frozenset(out)


def _quiet(cap: Capture, at_rest: Mapping[str, int], inverted: frozenset[str],
           counts: Mapping[str, int], report: Report) -> frozenset[str]:
    """Reports the channels that chatter or are stuck while the table is still; returns the
    stuck ones."""
    for ch, n in sorted(counts.items()):
        if n >= CHATTER_EDGES:
            report.findings.append(Finding(
                ch, Problem.CHATTERING, Said("f.chattering", {"n": n}),
                Said("f.chattering.fix_cushion" if _kind(ch) is Kind.CUSHION else
                     "f.chattering.fix")))
            peaks = [ev.level for ev in cap.events if ev.ch == ch and ev.level is not None]
            if peaks:
                _threshold(report, ch, max(peaks) * NOISE_MARGIN,
                           Said("why.noise", {"percent": _percent(max(peaks))}))
    stuck = set()
    for ch, level in sorted(at_rest.items()):
        if level and ch not in inverted and counts.get(ch, 0) < CHATTER_EDGES:
            stuck.add(ch)
            kind = _kind(ch)
            what = _STUCK.get(kind, _STUCK[None])
            report.findings.append(Finding(ch, Problem.STUCK, Said(what), Said(f"{what}.fix")))
    return frozenset(stuck)


#: What a channel held at 1 at rest means (and, under ``.fix``, what to do), by kind.
_STUCK: dict[Kind | None, str] = {Kind.BEAM: "f.stuck_beam", Kind.CUE: "f.stuck_cue",
                                  None: "f.stuck"}


def _pocket(cap: Capture, ps: Mapping[str, list[Period]], report: Report,
            glitches: list[float], blocks: list[float], noisy: frozenset[str]) -> None:
    expected = cap.step.expect
    assert expected is not None
    seen: dict[str, tuple[list[Period], list[float], list[Period]]] = {}
    for ch, chps in ps.items():
        merged, drops = merge(chps, MERGE_S)
        balls = [p for p in merged if p.length >= BLOCK_MIN_S]
        seen[ch] = (balls, drops, [p for p in merged if p.length < BLOCK_MIN_S])
    answered = [ch for ch, (balls, _, _) in seen.items() if balls]
    # the expected channel answers if it saw a ball; else the beam with the longest blocks;
    # else whatever channel saw the balls (a beam's wire swapped with a cushion's or the cue's)
    beams = [ch for ch in answered if _kind(ch) is Kind.BEAM] or answered
    who = expected if expected in answered else max(
        beams, key=lambda c: sum(p.length for p in seen[c][0]), default=None)
    report.channel_map[expected] = who
    if who is None:
        return
    balls, drops, short = seen[who]
    lengths = [p.length for p in balls]
    if _kind(who) is Kind.BEAM and who not in noisy:  # a faulty channel tunes nothing
        glitches += [p.length for p in short] + drops
        blocks += lengths
    report.beams[expected] = {
        "channel": who, "balls": len(balls),
        "blocks_ms": [round(x * 1e3, 2) for x in lengths],
        "glitches": len(short) + len(drops),
        "longest_glitch_ms": round(max([p.length for p in short] + drops, default=0.0) * 1e3, 2),
    }


def _cushion(cap: Capture, ps: Mapping[str, list[Period]], report: Report,
             noisy: frozenset[str]) -> None:
    expected = cap.step.expect
    assert expected is not None
    felt = {ch: ts for ch, chps in ps.items() if (ts := trains(chps))}
    # a sensor's hits on another kind of channel: its wire swapped with a beam's or the cue's
    kind = _kind(expected)
    by_ch = {ch: ts for ch, ts in felt.items() if _kind(ch) is kind} or felt
    # the channel that answered first: the other half of a long rail shakes later
    who = min(by_ch, key=lambda c: by_ch[c][0].start, default=None)
    report.channel_map[expected] = who
    if who is None:
        return
    if who in noisy:
        report.cushions[expected] = {"channel": who, "chattering": True}
        return
    own = by_ch[who]
    soft = min(own, key=lambda t: t.strength)
    info: dict[str, Any] = {
        "channel": who, "hits": len(own),
        "softest": {"pulses": soft.pulses, "peak": soft.peak, "length_ms": round(soft.length * 1e3, 1)},
        "train_ms": [round(t.length * 1e3, 1) for t in own],
        "longest_on_ms": round(max(t.max_on for t in own) * 1e3, 1),
        "longest_gap_ms": round(max(t.max_gap for t in own) * 1e3, 1),
    }
    # the other half of the rail shakes a little later: whichever channel answers every hit
    best: tuple[str, list[float], list[tuple[Train, Train]]] | None = None
    for other, theirs in by_ch.items():
        if other == who or other in noisy:
            continue
        delays, pairs = [], []
        for t in own:
            later = [x for x in theirs if 0 <= x.start - t.start <= CROSSTALK_WINDOW_S]
            if later:
                delays.append(later[0].start - t.start)
                pairs.append((later[0], t))
        if delays and (best is None or len(delays) > len(best[1])):
            best = (other, delays, pairs)
    if best is not None:
        other, delays, pairs = best
        shake, hit = max(pairs, key=lambda p: p[0].strength / p[1].strength if p[1].strength else 0)
        # a vibration module's strength is its pulses: a count, not a fraction of the hit
        info["crosstalk"] = {"to": other, "delay_ms": round(max(delays) * 1e3, 1),
                             "relative": round(shake.strength / hit.strength, 2)
                             if hit.strength else 0.0,
                             "by": "peak" if hit.peak is not None and shake.peak is not None
                             else "pulses", "pulses": [shake.pulses, hit.pulses]}
    if who == _twin(expected):  # the other half of the rail felt it: no measure of this one
        report.cushions[expected] = info
        return
    if len(own) < 2:
        report.findings.append(Finding(who, Problem.WEAK, Said("f.weak"), Said("f.weak.fix")))
    peaks = [t.peak for t in own if t.peak is not None]
    if peaks and len(own) < 2:
        _threshold(report, who, max(peaks) * FELT_FRACTION / 2,
                   Said("why.soft_unfelt", {"percent": _percent(max(peaks))}))
    elif peaks:
        _threshold(report, who, min(peaks) * FELT_FRACTION,
                   Said("why.softest", {"percent": _percent(min(peaks))}))
    report.cushions[expected] = info


def _percent(fraction: float) -> int:
    """Returns a fraction of full scale in whole percent."""
    return round(fraction * 100)


def _threshold(report: Report, ch: str, fraction: float, why: Said) -> None:
    value = max(1, min(0xFFFF, round(fraction * 0xFFFF)))
    report.thresholds = [t for t in report.thresholds if t.channel != ch] + [
        Threshold(ch, value, why)]


def _cue(ps: Mapping[str, list[Period]], report: Report, noisy: frozenset[str]) -> None:
    """Maps the cue-ball detector: the channel that answered the ball return's cue ball (a
    chattering one is taken to be there: it is named as chattering, not as dead)."""
    carried = next((e for e, who in report.channel_map.items() if who == Kind.CUE), None)
    if carried is not None:
        # the cue channel answered a pocket's step: its wire is that beam's, whose channel
        # carries the detector (if it answered the ball return at all)
        report.channel_map[Kind.CUE] = carried if ps.get(carried) or carried in noisy else None
    elif ps.get(Kind.CUE) or Kind.CUE in noisy:  # (a chattering one is not measured)
        report.channel_map[Kind.CUE] = Kind.CUE
    else:
        report.channel_map[Kind.CUE] = None


def _return(cap: Capture, ps: Mapping[str, list[Period]], report: Report,
            faulty: frozenset[str], inverted: frozenset[str]) -> None:
    """Measures the ball return's delays; only from channels that answered their own steps
    and are not chattering or stuck (a faulty channel tunes nothing)."""
    sound = {ch for ch, who in report.channel_map.items() if who == ch} - faulty
    drops = sorted(p.start for ch, chps in ps.items() if _kind(ch) is Kind.BEAM and ch in sound
                   for p in merge(chps, MERGE_S)[0] if p.length >= BLOCK_MIN_S)
    cue_sound = report.channel_map.get(Kind.CUE, Kind.CUE) == Kind.CUE and Kind.CUE not in faulty
    delays: dict[str, list[float]] = defaultdict(list)
    for ev in sorted(cap.events, key=lambda e: e.t):
        if (ev.ch == Kind.CUE and ev.v ^ (ev.ch in inverted) and cue_sound) or \
                ev.ch == Kind.BALL_ID:
            before = [d for d in drops if d <= ev.t]
            if before:
                delays[ev.ch].append(ev.t - before[-1])
    report.ball_return = {
        "drops": len(drops),
        **{f"{ch}_delay_s": [round(d, 3) for d in ds] for ch, ds in sorted(delays.items())},
    }


def _break(ps: Mapping[str, list[Period]], report: Report) -> None:
    drops = {ch: len([p for p in merge(chps, MERGE_S)[0] if p.length >= BLOCK_MIN_S])
             for ch, chps in ps.items() if _kind(ch) is Kind.BEAM}
    hits = {ch: len(trains(chps)) for ch, chps in ps.items() if _kind(ch) is Kind.CUSHION}
    report.breaking = {"drops": {k: v for k, v in sorted(drops.items()) if v},
                       "hits": {k: v for k, v in sorted(hits.items()) if v}}


def _swaps(report: Report, pins: Mapping[str, int | str] | None, serial: bool,
           stuck: frozenset[str]) -> None:
    """Names the swapped and the dead channels (a stuck one is named by ``_quiet``: held on,
    it answers nothing, and that is its one fault)."""
    carried = _stuck_elsewhere(report, stuck)
    for expected, who in list(report.channel_map.items()):
        if expected in stuck and (who is None or who == _twin(expected)):
            report.channel_map[expected] = None  # its STUCK finding says what to do
            report.cushions.pop(expected, None)
            continue
        if who is None and expected in carried:
            # its sensor is on the wire of a channel held on at rest: that channel's STUCK
            # finding is this sensor's, and the wires are swapped
            other = carried[expected]
            report.findings.append(Finding(
                expected, Problem.SWAPPED, Said("f.swapped_stuck", {"other": other}),
                _swap_fix(expected, other, pins, serial)))
            continue
        if who is not None and who != expected and report.channel_map.get(who) == who and \
                _twin(expected) == who:
            # the hits reached only the other half of the rail, which answers its own step too
            report.channel_map[expected] = None
            report.cushions.pop(expected, None)
            report.findings.append(Finding(
                expected, Problem.DEAD, Said("f.dead_twin", {"other": who}),
                _with_pin("f.dead_twin.fix", pins, expected)))
            continue
        if who is None and pins is not None and expected not in pins:
            report.findings.append(Finding(
                expected, Problem.DEAD, Said("f.no_pin"),
                Said("f.no_pin.fix", {"channel": expected})))
        elif who is None:
            report.findings.append(Finding(
                expected, Problem.DEAD, Said("f.dead"), _with_pin("f.dead.fix", pins, expected)))
        elif who != expected:
            report.findings.append(Finding(
                expected, Problem.SWAPPED, Said("f.swapped", {"other": who}),
                _swap_fix(expected, who, pins, serial)))
    if pins:
        moved = {e: pins[w] for e, w in report.channel_map.items() if w and w != e and w in pins}
        moved |= {e: pins[w] for e, w in carried.items() if w in pins}
        after = {**pins, **moved}
        # a move that would leave a pin on two channels (the other half of the swap was not
        # seen) is named in the findings' fixes but not suggested: a suggestion always validates
        twice = {pin for pin in after.values() if list(after.values()).count(pin) > 1}
        moved = {ch: pin for ch, pin in moved.items() if pin not in twice}
        for ch, pin in sorted(moved.items()):
            why = (Said("why.pins_stuck", {"other": carried[ch]}) if ch in carried else
                   Said("why.pins", {"other": report.channel_map[ch]}))
            report.settings.append(Setting("gpio.pins", ch, pins.get(ch), pin, why))


def _swap_fix(channel: str, other: str, pins: Mapping[str, int | str] | None,
              serial: bool) -> Said:
    """Returns the fix of ``channel``'s sensor on ``other``'s wire: its pin in [gpio.pins], or
    the wires moved (a board's channels are named by its firmware: only the wires can move)."""
    if pins and other in pins:
        return Said("f.swapped.fix_pins", {"channel": channel, "pin": _literal(pins[other]),
                                           "other": other})
    return Said("f.swapped.fix_board" if serial else "f.swapped.fix_wires",
                {"channel": channel, "other": other})


def _stuck_elsewhere(report: Report, stuck: frozenset[str]) -> dict[str, str]:
    """Returns the channels whose step nothing answered whose sensor is on the wire of a stuck
    channel (channel -> the stuck one): the stuck channel's own step was answered by this
    channel's wire, so the two are swapped, and what is held on is this channel's sensor. The
    stuck channel's finding moves to this one (the pocket to clear is this one's)."""
    carried = {e: s for s in sorted(stuck) if (e := report.channel_map.get(s)) not in (None, s)
               and e is not None and report.channel_map.get(e) is None and e not in stuck}
    for ch, other in carried.items():
        report.findings[:] = [f for f in report.findings
                              if not (f.channel == other and f.problem is Problem.STUCK)]
        what = _STUCK.get(_kind(ch), _STUCK[None])
        report.findings.append(Finding(ch, Problem.STUCK, Said(what), Said(f"{what}.fix")))
    return carried


def _with_pin(key: str, pins: Mapping[str, int | str] | None, ch: str) -> Said:
    """Returns the words of ``key``, naming the channel's pin where it has one (``.._pin``)."""
    return Said(f"{key}_pin", {"pin": pins[ch]}) if pins and ch in pins else Said(key)


def _crosstalk(report: Report, fusion: FusionConfig) -> None:
    """Names the rails whose other half shakes too late for ``crosstalk_s`` (the hit would count
    twice) or nearly as strongly as the hit itself (fusion may count the wrong half): once a
    rail, both halves being one fault with one fix."""
    named: set[str] = set()
    for info in report.cushions.values():
        cross = info.get("crosstalk")
        if cross and cross["to"] not in named and (cross["delay_ms"] / 1e3 > fusion.crosstalk_s
                                                   or cross["relative"] >= STRONG_CROSSTALK):
            named.add(info["channel"])
            report.findings.append(Finding(
                info["channel"], Problem.CROSSTALK, Said(*shaken("f.crosstalk", cross)),
                Said("f.crosstalk.fix")))


def shaken(key: str, cross: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """Returns the words (``key``, or ``key_pulses`` for vibration modules) and fields that say
    how the other half of a rail shook: a piezo's peak as a share of the hit's, a module's
    pulses as a count beside the hit's."""
    fields = {"other": cross["to"], "ms": cross["delay_ms"]}
    if cross.get("by", "peak") == "peak":
        return key, {**fields, "percent": _percent(cross["relative"])}
    theirs, own = cross["pulses"]
    return f"{key}_pulses", {**fields, "theirs": theirs, "own": own}


def _twin(ch: str) -> str | None:
    kind, place = parse_channel(ch)
    twin = SAME_RAIL.get(place) if kind is Kind.CUSHION and isinstance(place, Rail) else None
    return cushion(twin) if twin is not None else None


def _literal(value: int | str) -> str:
    return str(value) if isinstance(value, int) else f'"{value}"'


def _suggest(report: Report, fusion: FusionConfig, glitches: Sequence[float],
             blocks: Sequence[float]) -> None:
    def offer(key: str, value: float, why: Said) -> None:
        current = getattr(fusion, key)
        value = round(value, 4)
        if abs(value - current) > CHANGE * current:
            report.settings.append(Setting("fusion", key, current, value, why))

    if blocks:
        shortest = min(blocks)
        noise = min(max(glitches, default=0.0) * 1.5, shortest / 3)
        if glitches:
            offer("noise_s", max(noise, 0.0005), Said("why.noise_s", {"ms": _ms(max(glitches))}))
        offer("min_block_s", max(shortest / 2, 2 * max(noise, fusion.noise_s)),
              Said("why.min_block_s", {"ms": _ms(shortest)}))
    cushions = [c for ch, c in report.cushions.items()
                if _kind(ch) is Kind.CUSHION and not c.get("chattering")]
    if cushions:
        gap = max(c["longest_gap_ms"] for c in cushions) / 1e3
        on = max(c["longest_on_ms"] for c in cushions) / 1e3
        if gap * 1.5 > fusion.cushion_gap_s:
            offer("cushion_gap_s", gap * 1.5, Said("why.cushion_gap_s", {"ms": round(gap * 1e3)}))
        if on * 2 > fusion.cushion_max_on_s:
            offer("cushion_max_on_s", on * 2,
                  Said("why.cushion_max_on_s", {"ms": round(on * 1e3)}))
        delays = [c["crosstalk"]["delay_ms"] / 1e3 for c in cushions if "crosstalk" in c]
        if delays and max(delays) * 1.5 + 0.005 > fusion.crosstalk_s:
            offer("crosstalk_s", max(delays) * 1.5 + 0.005,
                  Said("why.crosstalk_s", {"ms": round(max(delays) * 1e3)}))
    ret = report.ball_return
    delays = [d for k, ds in ret.items() if k.endswith("_delay_s") for d in ds]
    # the window is only ever widened: a few balls do not show how early or late one can be
    span = Said("why.identity", {"low": f"{min(delays):.2f}", "high": f"{max(delays):.2f}"}
                ) if delays else None
    if span is not None and min(delays) * 0.6 < fusion.identity_min_s:
        offer("identity_min_s", max(0.05, min(delays) * 0.6), span)
    if span is not None and max(delays) * 1.5 + 0.2 > fusion.identity_max_s:
        offer("identity_max_s", max(delays) * 1.5 + 0.2, span)


def _ms(seconds: float) -> float:
    """Returns seconds in milliseconds, to a tenth."""
    return round(seconds * 1e3, 1)
