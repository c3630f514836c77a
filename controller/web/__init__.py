"""The browser pages: venue dashboard (``index.html``) and referee console (``console.html``).

The pages speak MQTT over websockets to the broker themselves (MQTT.js, bundled in
``static/vendor``); ``server.WebServer`` only serves the files and ``config.json``.
"""

from controller.web.server import STATIC, Credentials, WebConfig, WebServer

__all__ = ["STATIC", "Credentials", "WebConfig", "WebServer"]
