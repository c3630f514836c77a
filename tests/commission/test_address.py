"""The commissioning page's address as the tablet at the table reaches it (issue 28): never
127.0.0.1 when the page listens on every interface, and a QR code of it for the terminal."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

import segno

from controller.commission.address import lan_address, tablet_url, terminal_qr
from controller.commission.words import say


def test_a_page_on_every_interface_is_given_at_the_lan_address_which_serves_it() -> None:
    lan = lan_address()
    url, warning = tablet_url("http://127.0.0.1:8080/?key=k", "0.0.0.0")
    if lan is None:  # a machine with no network: said so, not a dead address
        assert warning is not None and "no network address" in say(warning)
        return
    host = urlsplit(url).hostname
    assert host == lan and not ipaddress.ip_address(host).is_loopback
    assert url == f"http://{lan}:8080/?key=k" and warning is None
    # the address is one this machine answers on
    with socket.socket() as server:
        server.bind(("0.0.0.0", 0))
        server.listen()
        with socket.create_connection((lan, server.getsockname()[1]), timeout=2):
            pass


def test_a_page_on_loopback_only_says_the_tablet_cannot_reach_it() -> None:
    url, warning = tablet_url("http://127.0.0.1:8080/?key=k", "127.0.0.1")
    assert url == "http://127.0.0.1:8080/?key=k"
    assert warning is not None and 'host = "0.0.0.0"' in say(warning)
    assert say(warning).startswith('[web] host = "127.0.0.1" serves this machine only')
    assert "планшета" in say(warning, "ru")
    assert tablet_url("http://10.1.2.3:8080/?key=k", "10.1.2.3") == (
        "http://10.1.2.3:8080/?key=k", None)


def test_the_qr_code_is_the_url_drawn_two_modules_a_character() -> None:
    url = "http://10.1.2.3:8080/?key=abc"
    drawn = terminal_qr(url)
    assert drawn is not None
    rows = drawn.splitlines()
    size = segno.make(url, error="l").symbol_size(border=2)[0]
    assert {len(r) for r in rows} == {size}  # one character a module across
    assert len(rows) == (size + 1) // 2  # two modules a character down
    assert set("".join(rows)) <= set("█▀▄ ")


