"""Adapters from a table's MQTT topics to devices a venue can buy: AWTRIX 3 clocks, ESPHome /
LED text displays, WLED lights, and Home Assistant (MQTT discovery).

Each adapter is a pure mapping (a ``B/state`` or ``B/event`` payload in, ``Publication``s out);
``run_adapters`` drives them on an existing aiomqtt client; ``python -m controller.adapters``
runs them beside the service.
"""

from controller.adapters.base import Publication
from controller.adapters.config import AdaptersConfig, load_config
from controller.adapters.runner import Adapters, run_adapters, serve

__all__ = ["Adapters", "AdaptersConfig", "Publication", "load_config", "run_adapters", "serve"]
