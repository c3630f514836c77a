"""The one HTTP server of the house: the pages, the match history, the commissioning page.

HTTP/1.1 is parsed by h11 (python-hyper/h11, sans-I/O): this module only moves bytes between
a socket and an ``h11.Connection`` and hands each complete request to the sites it serves, in
order, until one answers. A site is anything with ``async def answer(request) -> Response |
None`` (None: not mine). Nothing here reads a header by hand: the request line, the headers,
``Content-Length`` and chunked bodies are h11's.

What a venue's network may throw at it is bounded (``Limits``):

* at most ``connections`` connections at once; one more closes the connection that has waited
  longest for a request (idle ones first), so a thousand idle sockets cannot keep a browser
  out. The first time the limit is met it is logged once, and again (with how many were
  closed) when the crowd has gone: never a line per connection. ``closed_at_limit`` counts.
* a connection that sends no complete request within ``idle_s`` is closed;
* a request target longer than ``target`` bytes gets ``414``, a head longer than ``head``
  ``431``, a body longer than ``body`` ``413``, bytes that are not HTTP ``400``; each closes
  the connection and changes nothing.

``HttpServer`` is an ``async with`` context manager: entered, it listens; ``url`` is where.

A site that wants a login reads it with ``basic_credentials`` (HTTP Basic, RFC 7617) and
answers ``Response.login(realm)`` without one; a request's headers (its ``Authorization``)
are never logged nor in its repr.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from types import TracebackType
from typing import Protocol, Self
from urllib.parse import parse_qs, unquote, urlsplit

import h11

log = logging.getLogger(__name__)

TEXT = "text/plain; charset=utf-8"
JSON = "application/json"


@dataclass(frozen=True, slots=True)
class Limits:
    """What one client may cost the server (module docstring)."""

    connections: int = 256
    idle_s: float = 10.0
    target: int = 2048
    head: int = 16 * 1024
    body: int = 64 * 1024
    write_s: float = 30.0


@dataclass(frozen=True, slots=True)
class Request:
    """One complete request: ``path`` decoded, ``query`` parsed, header names lower case."""

    method: str
    target: str
    headers: tuple[tuple[str, str], ...] = field(default=(), repr=False)  # a password, maybe
    body: bytes = b""

    @property
    def path(self) -> str:
        return unquote(urlsplit(self.target).path)

    @property
    def query(self) -> dict[str, list[str]]:
        return parse_qs(urlsplit(self.target).query)

    def arg(self, name: str, default: str = "") -> str:
        """Returns the first value of the query argument ``name``."""
        return self.query.get(name, [default])[0]


@dataclass(frozen=True, slots=True)
class Response:
    """An answer; ``headers`` are added to the content type, length and cache policy."""

    status: int
    body: bytes = b""
    kind: str = TEXT
    cache: str = "no-cache"
    headers: tuple[tuple[str, str], ...] = field(default=())

    @classmethod
    def text(cls, status: int, text: str) -> Response:
        return cls(status, text.encode())

    @classmethod
    def login(cls, realm: str, body: bytes, kind: str = TEXT) -> Response:
        """Returns a 401 asking for HTTP Basic credentials of ``realm`` (a browser asks its
        user for them and sends the request again)."""
        return cls(401, body, kind, headers=(("WWW-Authenticate", f'Basic realm="{realm}"'),))


def basic_credentials(request: Request) -> tuple[str, str] | None:
    """Returns the user and password of the request's ``Authorization: Basic`` header, None
    without one or for one that is not such (RFC 7617: base64 of ``user:password``, UTF-8)."""
    value = next((v for k, v in request.headers if k == "authorization"), "")
    scheme, _, token = value.strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        user, colon, password = base64.b64decode(token.strip(), validate=True).decode().partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return (user, password) if colon else None


#: The limits a server has unless it is given others.
DEFAULT_LIMITS = Limits()


class Site(Protocol):
    """Answers the requests that are its own (None: another site's)."""

    async def answer(self, request: Request) -> Response | None: ...


class _Refused(Exception):
    """A request the server answers itself with ``status`` and closes."""

    def __init__(self, status: int, why: str) -> None:
        super().__init__(why)
        self.status = status


class HttpServer:
    """Serves ``sites`` over HTTP/1.1 with keep-alive, within ``limits``."""

    def __init__(self, sites: Sequence[Site], host: str = "127.0.0.1", port: int = 0,
                 limits: Limits = DEFAULT_LIMITS) -> None:
        self.sites = list(sites)
        self.host = host
        self.port = port
        self.limits = limits
        #: Connections closed because the limit was met (counted, logged once an episode).
        self.closed_at_limit = 0
        self._open: dict[asyncio.StreamWriter, bool] = {}  # oldest first; True: in a request
        self._crowded = False
        self._server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        """Returns the server's address (``http://host:port/``)."""
        host = self.host if self.host not in ("", "0.0.0.0", "::") else "127.0.0.1"
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    @property
    def connections(self) -> int:
        """Returns how many connections are open."""
        return len(self._open)

    async def start(self) -> None:
        """Listens; with port 0, ``port`` becomes the port the system chose."""
        self._server = await asyncio.start_server(self._connection, self.host, self.port,
                                                  limit=self.limits.head)
        self.port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            for writer in list(self._open):
                writer.close()
            with contextlib.suppress(Exception):
                async with asyncio.timeout(1.0):
                    await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()

    async def serve_forever(self) -> None:
        """Serves until cancelled."""
        if self._server is None:
            await self.start()
        assert self._server is not None
        await self._server.serve_forever()

    # ------------------------------------------------------------------ connections
    def _admit(self, writer: asyncio.StreamWriter) -> None:
        """Makes room for ``writer``: at the limit, the longest-waiting idle connection (else
        the oldest) is closed."""
        if len(self._open) >= self.limits.connections:
            idle = [w for w, busy in self._open.items() if not busy]
            victim = idle[0] if idle else next(iter(self._open))
            self._open.pop(victim)
            victim.close()
            self.closed_at_limit += 1
            if not self._crowded:
                self._crowded = True
                log.warning("web: %d connections open, the limit: closing the longest idle ones "
                            "(said once until they have gone)", self.limits.connections)
        self._open[writer] = False

    def _leave(self, writer: asyncio.StreamWriter) -> None:
        self._open.pop(writer, None)
        if self._crowded and len(self._open) <= self.limits.connections // 2:
            self._crowded = False
            log.warning("web: back to %d connections; %d were closed at the limit so far",
                        len(self._open), self.closed_at_limit)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._admit(writer)
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=self.limits.head)
        try:
            while writer in self._open:
                try:
                    request = await self._request(conn, reader, writer)
                except _Refused as refused:
                    log.debug("web: refused (%d): %s", refused.status, refused)
                    await self._refuse(conn, writer, refused.status)
                    return
                if request is None:
                    return
                self._open[writer] = True
                response = await self._respond(request)
                await self._send(conn, writer, request, response)
                if conn.our_state is not h11.DONE or conn.their_state is not h11.DONE:
                    return
                conn.start_next_cycle()
                if writer in self._open:
                    self._open[writer] = False
        except (ConnectionError, TimeoutError, h11.LocalProtocolError, asyncio.IncompleteReadError,
                OSError) as exc:
            log.debug("web: connection dropped: %r", exc)
        finally:
            self._leave(writer)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _request(self, conn: h11.Connection, reader: asyncio.StreamReader,
                       writer: asyncio.StreamWriter) -> Request | None:
        """Returns the next request on the connection, None when the client is done.

        Raises _Refused for what is not a request this server takes."""
        head: h11.Request | None = None
        body = bytearray()
        try:
            async with asyncio.timeout(self.limits.idle_s):
                while True:
                    event = conn.next_event()
                    if event is h11.NEED_DATA:
                        data = await reader.read(64 * 1024)
                        conn.receive_data(data)  # b"": the client closed
                        continue
                    if isinstance(event, h11.Request):
                        head = event
                        if len(event.target) > self.limits.target:
                            raise _Refused(414, f"a target of {len(event.target)} bytes")
                        # h11 bounds a head that comes in pieces; one that came whole, here
                        if sum(len(k) + len(v) + 4 for k, v in event.headers) > self.limits.head:
                            raise _Refused(431, "a head too long")
                        length = _content_length(event)
                        if length is not None and length > self.limits.body:
                            raise _Refused(413, f"a body of {length} bytes")
                    elif isinstance(event, h11.Data):
                        body += event.data
                        if len(body) > self.limits.body:
                            raise _Refused(413, "a body too long")
                    elif isinstance(event, h11.EndOfMessage):
                        break
                    elif isinstance(event, h11.ConnectionClosed) or event is h11.PAUSED:
                        return None
        except TimeoutError:
            if head is None and not body:
                return None  # an idle connection: closed without a word
            raise _Refused(408, "the request did not arrive in time") from None
        except h11.RemoteProtocolError as exc:
            raise _Refused(exc.error_status_hint, str(exc)) from None
        assert head is not None
        return Request(head.method.decode("ascii", "replace"),
                       head.target.decode("latin-1"),
                       tuple((k.decode("latin-1"), v.decode("latin-1")) for k, v in head.headers),
                       bytes(body))

    async def _respond(self, request: Request) -> Response:
        try:
            for site in self.sites:
                found = await site.answer(request)
                if found is not None:
                    return found
        except Exception:  # a site's bug is a 500 and a log line, never a dead connection
            log.exception("web: answering %s %.200s", request.method, request.target)
            return Response.text(500, "internal error\n")
        return Response.text(404, "not found\n")

    async def _send(self, conn: h11.Connection, writer: asyncio.StreamWriter, request: Request,
                    response: Response) -> None:
        headers = [("Content-Type", response.kind), ("Content-Length", str(len(response.body))),
                   ("Cache-Control", response.cache), ("X-Content-Type-Options", "nosniff"),
                   *response.headers]
        out = conn.send(h11.Response(status_code=response.status, headers=headers,
                                     reason=HTTPStatus(response.status).phrase.encode()))
        if request.method != "HEAD" and response.body:
            out = (out or b"") + (conn.send(h11.Data(data=response.body)) or b"")
        out = (out or b"") + (conn.send(h11.EndOfMessage()) or b"")
        writer.write(out)
        async with asyncio.timeout(self.limits.write_s):
            await writer.drain()

    async def _refuse(self, conn: h11.Connection, writer: asyncio.StreamWriter, status: int) -> None:
        """Answers ``status`` where h11 still lets the server answer, then the caller closes."""
        if conn.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
            return
        body = f"{status} {HTTPStatus(status).phrase}\n".encode()
        with contextlib.suppress(h11.LocalProtocolError, ConnectionError, TimeoutError, OSError):
            out = conn.send(h11.Response(status_code=status, headers=[
                ("Content-Type", TEXT), ("Content-Length", str(len(body))), ("Connection", "close")]))
            writer.write((out or b"") + (conn.send(h11.Data(data=body)) or b"")
                         + (conn.send(h11.EndOfMessage()) or b""))
            async with asyncio.timeout(self.limits.write_s):
                await writer.drain()


def _content_length(head: h11.Request) -> int | None:
    """Returns the length h11 has already checked (a well-formed, single value), or None."""
    for name, value in head.headers:
        if name == b"content-length":
            return int(value)
    return None
