"""Where a tablet at the table opens the commissioning page: the Pi's address on the venue's
network (never 127.0.0.1, which is the tablet itself), and a QR code of it for the terminal.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit, urlunsplit

from controller.commission.words import Said

#: Any address outside this machine: a UDP socket "connected" to it (nothing is sent) is bound
#: to the interface the machine's default route leaves by (TEST-NET-1, RFC 5737).
_OUTSIDE = ("192.0.2.1", 9)
_ANY = ("", "0.0.0.0", "::")


def lan_address() -> str | None:
    """Returns this machine's IPv4 address on its network (the default route's interface), or
    None where it has none but loopback."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(_OUTSIDE)
            address = str(s.getsockname()[0])
    except OSError:
        return None
    return None if ipaddress.ip_address(address).is_loopback else address


def tablet_url(url: str, listening_on: str) -> tuple[str, Said | None]:
    """Returns the page's ``url`` as a tablet reaches it, and why it may not (None: it will).

    A page listening on every interface is reached at the LAN address; one listening on a
    loopback address only by this machine.
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    if listening_on in _ANY:
        lan = lan_address()
        if lan is None:
            return url, Said("t.no_network")
        netloc = f"{lan}:{parts.port}" if parts.port else lan
        return urlunsplit(parts._replace(netloc=netloc)), None
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if loopback:
        return url, Said("t.loopback", {"host": f'"{listening_on}"'})
    return url, None


def terminal_qr(url: str) -> str | None:
    """Returns a QR code of ``url`` drawn with block characters for a terminal (None: segno,
    which draws it, is not installed)."""
    try:
        import segno
    except ImportError:
        return None
    import io

    out = io.StringIO()
    segno.make(url, error="l").terminal(out=out, compact=True, border=2)
    return out.getvalue()
