"""Adapter settings (one table): a pydantic model read from TOML.

Every key is documented in ``deploy/adapters.example.toml``. Each device list may be empty;
an adapter with no entry does nothing.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from controller.words.texts import Language

Color = Annotated[str, StringConstraints(pattern=r"^#[0-9A-Fa-f]{6}$")]
Rgb = Annotated[list[Annotated[int, Field(ge=0, le=255)]], Field(min_length=3, max_length=3)]
TopicLevel = Annotated[str, StringConstraints(pattern=r"^[^/#+\s]+$")]
Topic = Annotated[str, StringConstraints(pattern=r"^[^#+\s]+$", min_length=1)]

PLAYER_COLORS = ["#FF4040", "#40A0FF", "#40FF70", "#FFD040"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AwtrixConfig(_Model):
    """An AWTRIX 3 clock (Ulanzi TC001 …): the score as a custom app, notifications."""

    prefix: Topic
    app: TopicLevel = "billiards"
    colors: Annotated[list[Color], Field(min_length=1)] = Field(
        default_factory=lambda: list(PLAYER_COLORS))
    text_color: Color = "#FFFFFF"
    name_chars: Annotated[int, Field(ge=1, le=12)] = 3
    #: AWTRIX 3's font has Cyrillic capitals since its firmware 0.95 (March 2024; lower-case
    #: letters show as capitals). Checked in Blueforcer/awtrix3: src/AwtrixFont.h has glyphs
    #: А–Я (and Ґ, Є) at 0x7F–0xA0, and src/Functions.cpp's utf8ascii() maps UTF-8 U+0410–044F
    #: onto them, lower case onto the capitals ("add Cyrillic support", commit 9102484,
    #: 2024-01-22; the first tag holding it is 0.95). False for an older firmware, whose
    #: utf8ascii() drops Cyrillic letters: names and words are then transliterated.
    cyrillic: bool = True
    #: The language of the clock's words; None: the table's (its state's ``language``).
    language: Language | None = None
    icon: str | None = None
    duration: Annotated[int, Field(ge=1)] = 10
    lifetime: Annotated[int, Field(ge=0)] = 0
    save: bool = False
    notify_fouls: bool = True
    notify_games: bool = True
    notify_duration: Annotated[int, Field(ge=1)] = 5
    foul_color: Color = "#FF0000"
    sound: str | None = None
    wakeup: bool = True


class TextDisplayConfig(_Model):
    """A simple LED text display (ESPHome LCD / matrix): lines sized for its panel."""

    panel: Literal["2x16", "64x32"] = "2x16"
    name: TopicLevel | None = None
    topic: Topic | None = None
    format: Literal["json", "text"] = "json"
    cols: Annotated[int, Field(ge=4, le=80)] | None = None
    rows: Annotated[int, Field(ge=1, le=16)] | None = None
    #: An HD44780 LCD's usual character ROM (A00) and ESPHome's default glyphs have no
    #: Cyrillic: names and words are transliterated unless the panel's font has it.
    cyrillic: bool = False
    #: The language of the panel's words; None: the table's (its state's ``language``).
    language: Language | None = None

    #: characters × lines of each panel: an HD44780 2×16 LCD; a 64×32 matrix in a 6×8 font
    PANELS: ClassVar[dict[str, tuple[int, int]]] = {"2x16": (16, 2), "64x32": (10, 4)}

    @property
    def size(self) -> tuple[int, int]:
        """Returns (columns, rows)."""
        cols, rows = self.PANELS[self.panel]
        return (self.cols or cols, self.rows or rows)


class WledFlash(_Model):
    """One flash: the JSON state WLED shows for ``seconds``."""

    enabled: bool = True
    color: Rgb = Field(default_factory=lambda: [255, 0, 0])
    fx: Annotated[int, Field(ge=0, le=255)] = 1
    sx: Annotated[int, Field(ge=0, le=255)] = 200
    ix: Annotated[int, Field(ge=0, le=255)] = 128
    bri: Annotated[int, Field(ge=1, le=255)] = 255
    seconds: Annotated[float, Field(gt=0, le=600)] = 3.0


class WledConfig(_Model):
    """A WLED controller (table lights, LED strip): flashes on a foul or a game end."""

    topic: Topic
    foul: WledFlash = WledFlash(color=[255, 0, 0], fx=1, seconds=3.0)
    game_over: WledFlash = WledFlash(color=[255, 170, 0], fx=1, sx=128, seconds=5.0)
    restore: Literal["saved"] | dict[str, Any] = "saved"


class HomeAssistantConfig(_Model):
    """Home Assistant MQTT discovery: one device per table."""

    discovery_prefix: Topic = "homeassistant"
    name: str | None = None
    area: str | None = None
    players: Annotated[int, Field(ge=2, le=4)] = 2
    undo_button: bool = True
    retain: bool = False
    #: The language of the device's and entities' names; None: the table's.
    language: Language | None = None


def _state_directory() -> Path | None:
    """Returns systemd's state directory of the unit (``StateDirectory=``), if it has one."""
    found = os.environ.get("STATE_DIRECTORY", "").split(":")[0]
    return Path(found) if found else None


class AdaptersConfig(_Model):
    """Every adapter of one table."""

    #: Where the adapters keep what must outlive a restart (the state each WLED last showed);
    #: default: the unit's ``StateDirectory=`` (``$STATE_DIRECTORY``); None: nothing is kept.
    state_dir: Path | None = Field(default_factory=_state_directory)
    awtrix: list[AwtrixConfig] = Field(default_factory=list)
    text: list[TextDisplayConfig] = Field(default_factory=list)
    wled: list[WledConfig] = Field(default_factory=list)
    homeassistant: HomeAssistantConfig | None = None


def load_config(path: str | Path) -> AdaptersConfig:
    """Returns the settings in a TOML file (its ``[adapters]`` table if it has one).

    Raises OSError, tomllib.TOMLDecodeError or pydantic.ValidationError.
    """
    with open(path, "rb") as f:
        data = tomllib.load(f)
    return AdaptersConfig.model_validate(data.get("adapters", data))
