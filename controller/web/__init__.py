"""The browser pages: venue dashboard and TV wall (``index.html``), referee console
(``console.html``), match history (``history.html``), stream overlay (``overlay.html``).

The pages speak MQTT over websockets to the broker themselves (MQTT.js, bundled in
``static/vendor``); ``server.WebServer`` serves the files, ``config.json``, a table's match
in progress and the venue record's history (a site ``controller.record`` gives it) on the
house's one HTTP server (``http.HttpServer``, h11), which the commissioning page uses too.
"""

from controller.web.http import HttpServer, Limits, Request, Response
from controller.web.server import STATIC, Credentials, WebConfig, WebServer

__all__ = ["STATIC", "Credentials", "HttpServer", "Limits", "Request", "Response", "WebConfig",
           "WebServer"]
