"""The steps of commissioning a table, in the order an installer walks round it.

Each step names what the installer does (in the catalogue's words, ``instruction``) and which
channel should answer. The steps come from
the table's vocabulary (its pockets and rail segments) and from what the configuration says is
fitted, so a table without cushion sensors or without a ball return is not asked about them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from controller.commission.words import say
from controller.pipeline.fusion import FusionConfig
from vocabulary import POCKETS, RAILS, Kind, Pocket, Rail, beam, cushion

#: How long the table must stay still in the first step (seconds): chatter and stuck sensors.
QUIET_S = 5.0


class StepKind(enum.StrEnum):
    QUIET = "quiet"
    POCKET = "pocket"
    CUSHION = "cushion"
    RETURN = "return"
    CLICK = "click"
    STRIKE = "strike"
    BREAK = "break"


#: The steps of the table-wide sensors that answer a step of their own: the ball-contact
#: ``click`` sensor (a piezo) and the cue's ``strike`` sensor.
TAPS = {StepKind.CLICK: Kind.CLICK, StepKind.STRIKE: Kind.STRIKE}


@dataclass(frozen=True, slots=True)
class Step:
    """One thing the installer does; ``target`` is the pocket or rail, ``expect`` the channel."""

    id: str
    kind: StepKind
    target: Pocket | Rail | None = None

    @property
    def expect(self) -> str | None:
        """Returns the channel that should answer this step (None: no single one)."""
        if isinstance(self.target, Pocket):
            return beam(self.target)
        if isinstance(self.target, Rail):
            return cushion(self.target)
        tap = TAPS.get(self.kind)
        return tap.value if tap is not None else None

    @classmethod
    def of(cls, id: str, kind: str, target: str | None) -> Step:
        """Returns the step saved as ``id``, ``kind`` and ``target`` (a pocket or rail id).

        Raises ValueError for a kind or target the vocabulary does not have.
        """
        k = StepKind(kind)
        if k is StepKind.POCKET:
            return cls(id, k, Pocket(str(target)))
        if k is StepKind.CUSHION:
            return cls(id, k, Rail(str(target)))
        return cls(id, k)


def plan(fusion: FusionConfig, channels: tuple[str, ...] | None = None) -> list[Step]:
    """Returns the steps for a table fitted as ``fusion`` says (and with ``channels``, if known).

    Cushion steps only with cushion sensors; the ball-return step only with a cue-ball detector
    or an identity reader (configured, or a ``cue`` / ``ball_id`` channel among ``channels``).
    Channels declared ``absent`` have no step. A ``click`` or ``strike`` sensor among
    ``channels`` has a step of its own.
    """
    absent = set(fusion.absent)
    steps = [Step("quiet", StepKind.QUIET)]
    steps += [Step(beam(p), StepKind.POCKET, p) for p in POCKETS if beam(p) not in absent]
    if fusion.cushion_sensors:
        steps += [Step(cushion(r), StepKind.CUSHION, r) for r in RAILS
                  if cushion(r) not in absent]
    fitted = set(channels or ())
    if fusion.cue_detector or fusion.identity_reader or {Kind.CUE, Kind.BALL_ID} & fitted:
        steps.append(Step("return", StepKind.RETURN))
    steps += [Step(kind.value, kind) for kind, ch in TAPS.items() if ch in fitted]
    steps.append(Step("break", StepKind.BREAK))
    return steps


def instruction(step: Step, language: str = "en") -> str:
    """Returns what the installer is asked to do in this step, in ``language``."""
    if isinstance(step.target, Pocket):
        return say("step.pocket", language, pocket=say(f"pocket.{step.target}", language))
    if isinstance(step.target, Rail):
        return say("step.cushion", language, rail=say(f"rail.{step.target}", language))
    if step.kind is StepKind.QUIET:
        return say("step.quiet", language, seconds=f"{QUIET_S:.0f}")
    return say(f"step.{step.kind}", language)
