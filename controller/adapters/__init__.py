"""Adapters from a table's MQTT topics to devices a venue can buy: AWTRIX 3 clocks, ESPHome /
LED text displays, WLED lights, and Home Assistant (MQTT discovery).

Each adapter is a pure mapping (a ``B/state`` or ``B/event`` payload in, ``Publication``s out);
``run_adapters`` drives them on an existing aiomqtt client; ``python -m controller.adapters``
runs them beside the service.

The displays' fixed words (``FOUL`` / ``ФОЛ``, ``BALL IN HAND`` / ``ШАР С РУКИ``, …:
``controller.pipeline.scoreboard.WORDS``) are in the table's language, which the table carries in its
``B/state`` (``language``), unless a device's ``language`` is set. Names and words on devices
whose font has no Cyrillic (``cyrillic = false``: HD44780 LCDs and ESPHome's default glyphs by
default, AWTRIX 3 before firmware 0.95) are transliterated (``scoreboard.to_latin``); AWTRIX 3
from 0.95 has Cyrillic capitals. WLED shows no text; Home Assistant shows names as written, its
device and entities named in the same language.
"""

from controller.adapters.base import Publication
from controller.adapters.config import AdaptersConfig, load_config
from controller.adapters.runner import Adapters, run_adapters, serve

__all__ = ["Adapters", "AdaptersConfig", "Publication", "load_config", "run_adapters", "serve"]
