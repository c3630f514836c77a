"""Which pocket beams, cushion sensors and click sensor fusion may trust: none that is absent
(the table has no sensor there: ``FusionConfig.absent``), and none that sensor health finds out
of order, until it is ``ok`` again. What such a sensor would have told is unknown, never
"nothing"."""

from __future__ import annotations

from collections.abc import Iterable

from controller.pipeline.fusion.shots import Shot, shot_record
from hardware.health import Health
from rules import Pocket, Rail, ShotRecord
from vocabulary import POCKET_OF_BEAM, RAIL_OF_CUSHION, Kind

#: The click sensor's channel.
CLICK = Kind.CLICK.value


class Fitted:
    """The beams and cushion sensors fusion may trust (see the module docstring)."""

    def __init__(self, absent: Iterable[str], cushion_sensors: bool = True,
                 click_sensor: bool = False) -> None:
        absent = set(absent)
        #: The click sensor is fitted (configured, not declared absent) and sensor health has
        #: not found it out of order: a shot it heard nothing in touched no ball.
        self.click_fitted = click_sensor and CLICK not in absent
        self._click_ok = True
        #: The click sensor has heard a click since fusion started: one dead from the start
        #: (unplugged, never wired) would otherwise make every shot a miss until sensor
        #: health finds it silent.
        self.click_heard = False
        self._no_beam = frozenset(p for ch, p in POCKET_OF_BEAM.items() if ch in absent)
        self._no_cushion = frozenset(r for ch, r in RAIL_OF_CUSHION.items() if ch in absent)
        #: Whether cushion hits are sensed at all: some cushion sensor is fitted.
        self.cushions_sensed = cushion_sensors and len(self._no_cushion) < len(Rail)
        #: Rail segments whose cushion sensor is out of order or absent: their hits are not
        #: seen, so a shot that shows fewer than two cushions has its cushions unknown.
        self.deaf: set[Rail] = set(self._no_cushion)
        #: Pockets whose beam is out of order or absent: whether a ball fell there is asked.
        self.blind: set[Pocket] = set(self._no_beam)
        #: Pockets and rails whose source lost data in this shot (``Health.GAP``: a board back
        #: with another boot id): what they see counts, and the record names them as blind /
        #: deaf, so the rest is asked.
        self.gaps: set[Pocket] = set()
        self.gap_rails: set[Rail] = set()

    @property
    def record_blind(self) -> set[Pocket]:
        """Returns the pockets a shot's record names blind: out of order, absent, or in a gap."""
        return self.blind | self.gaps

    @property
    def record_deaf(self) -> set[Rail]:
        """Returns the rails a shot's record names deaf: out of order, absent, or in a gap."""
        return self.deaf | self.gap_rails

    @property
    def hears_clicks(self) -> bool:
        """Returns whether silence from the click sensor is evidence: it is fitted, in order
        (``ok``: after a gap in its data it may have missed a click) and known to work (it has
        heard a click)."""
        return self.click_fitted and self._click_ok and self.click_heard

    def record(self, shot: Shot, without_click: str, cue_sensed: bool) -> ShotRecord:
        """Returns the record the rules are given of ``shot``, with what this table trusts
        (``without_click``: fusion's ``cushions_without_click``; ``cue_sensed``: a cue-ball
        detector is fitted)."""
        return shot_record(shot, cushions_sensed=self.cushions_sensed, without_click=without_click,
                           cue_sensed=cue_sensed, blind=self.record_blind, deaf=self.record_deaf,
                           hears_clicks=self.hears_clicks)

    def judge(self, channel: str, state: Health) -> Pocket | Rail | None:
        """Notes sensor health's judgement of ``channel``; returns its pocket or rail if its
        sensor is a beam or a cushion sensor that is fitted, else None."""
        rail, pocket = RAIL_OF_CUSHION.get(channel), POCKET_OF_BEAM.get(channel)
        usable = usable_in(state)
        if channel == CLICK:
            self._click_ok = state is Health.OK
            return None
        if rail is not None and rail not in self._no_cushion:
            (self.deaf.discard if usable else self.deaf.add)(rail)
            (self.gap_rails.add if state is Health.GAP else self.gap_rails.discard)(rail)
            return rail
        if pocket is not None and pocket not in self._no_beam:
            (self.blind.discard if usable else self.blind.add)(pocket)
            (self.gaps.add if state is Health.GAP else self.gaps.discard)(pocket)
            return pocket
        return None


def usable_in(state: Health) -> bool:
    """Returns whether a sensor judged ``state`` counts what it sees: ``ok``, or ``gap`` (its
    source lost data, but what it delivers is real)."""
    return state in (Health.OK, Health.GAP)
