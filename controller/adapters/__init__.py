"""Adapters from a table's MQTT topics to devices a venue can buy: AWTRIX 3 clocks, ESPHome /
LED text displays, WLED lights, and Home Assistant (MQTT discovery).

Each adapter is a pure mapping (a ``B/state`` or ``B/event`` payload in, ``Publication``s out);
``run_adapters`` drives them on an existing aiomqtt client; ``python -m controller.adapters``
runs them beside the service.

Player names on devices whose font has no Cyrillic (AWTRIX 3, HD44780 LCDs, ESPHome's default
glyphs) are transliterated (``base.to_latin``) unless the device's ``cyrillic`` is set; WLED
shows no text, Home Assistant shows names as written.
"""

from controller.adapters.base import Publication
from controller.adapters.config import AdaptersConfig, load_config
from controller.adapters.runner import Adapters, run_adapters, serve

__all__ = ["Adapters", "AdaptersConfig", "Publication", "load_config", "run_adapters", "serve"]
