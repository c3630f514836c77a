"""A session's report in words, for the terminal, ``report.txt`` and the page: every word the
catalogue's (``words.say``), in the installer's language."""

from __future__ import annotations

import json
from typing import Any

from controller.commission.analysis import Finding, Report, shaken
from controller.commission.words import Said, say


def finding_words(finding: Finding, language: str = "en") -> dict[str, str]:
    """Returns a finding in words: its channel, problem, what was seen and its fix."""
    return {"channel": finding.channel, "problem": say(f"problem.{finding.problem}", language),
            "detail": say(finding.detail, language), "fix": say(finding.fix, language)}


def render(report: Report, language: str = "en") -> str:
    """Returns the report as text for the installer, in ``language``."""
    def w(key: str, **fields: Any) -> str:
        return say(key, language, **fields)

    def ms(x: float) -> str:
        return w("r.ms", ms=f"{x:g}")

    out = [w("r.channel_map")]
    for expected, who in report.channel_map.items():
        out.append(f"  {expected:<12} {w('r.answered_by', who=who) if who else w('r.no_answer')}"
                   + ("" if who == expected else f"   {w('r.check')}"))
    if report.findings:
        out.append("\n" + w("r.found"))
        for f in report.findings:
            said = finding_words(f, language)
            out.append(f"  {f.channel}: {said['problem'].upper()}: {said['detail']}.\n"
                       f"      {w('r.fix')}: {said['fix']}")
    else:
        out.append("\n" + w("r.nothing"))
    if report.beams:
        out.append("\n" + w("r.beams"))
        for ch, b in report.beams.items():
            blocks = ", ".join(ms(x) for x in b["blocks_ms"])
            out.append(f"  {ch:<12} " + w("r.beam", blocks=blocks, glitches=b["glitches"],
                                           longest=f"{b['longest_glitch_ms']:g}"))
    if report.cushions:
        out.append("\n" + w("r.cushions"))
        for ch, c in report.cushions.items():
            if c.get("chattering"):
                out.append(f"  {ch:<12} {w('r.not_measured')}")
                continue
            soft = c["softest"]
            cross = c.get("crosstalk")
            out.append(f"  {ch:<12} " + w("r.cushion", pulses=soft["pulses"],
                                           ms=f"{soft['length_ms']:g}",
                                           on=f"{c['longest_on_ms']:g}")
                       + (say(Said(*shaken("r.shakes", {**cross, "delay_ms":
                                                          f"{cross['delay_ms']:g}"})), language)
                          if cross else ""))
    if report.ball_return:
        ret = report.ball_return
        out.append("\n" + w("r.ball_return", drops=ret.get("drops", 0)))
        for key, delays in ret.items():
            if key.endswith("_delay_s"):
                out.append("  " + w("r.return_delays", ch=key.removesuffix("_delay_s"),
                                    delays=", ".join(f"{d:g}" for d in delays)))
    for source, c in report.clocks.items():
        out.append("\n" + w("r.clock", source=source, clock=json.dumps(c)))
    if report.thresholds:
        out.append("\n" + w("r.thresholds"))
        for t in report.thresholds:
            out.append(f"  {t.channel:<12} {t.value}/65535  ({say(t.why, language)})")
    if report.settings:
        out.append("\n" + w("r.settings"))
        for s in report.settings:
            out.append(f"  {s.section}.{s.key}: {s.current!r} -> {s.value!r}  "
                       f"({say(s.why, language)})")
    return "\n".join(out) + "\n"
