"""``python -m controller.web``: serve the dashboard and the console on their own.

    python -m controller.web --broker ws://{host}:9001 --venue club --port 8080 \\
        --dashboard-user dashboard --dashboard-password secret

Prints the dashboard's URL and serves until interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from pathlib import Path

from controller.web.history import History
from controller.web.server import LANGUAGES, Credentials, WebConfig, WebServer


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m controller.web",
                                description="Serve the venue dashboard and the referee console.")
    p.add_argument("--broker", default="ws://{host}:9001",
                   help="the broker's websockets URL as the browser sees it; {host} = the page's host")
    p.add_argument("--venue", default="club")
    p.add_argument("--prefix", default="billiards")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default all)")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--dashboard-user", help="broker user of the dashboards (read-only)")
    p.add_argument("--dashboard-password")
    p.add_argument("--referee-user", help="broker user of the console; without it the console asks")
    p.add_argument("--referee-password")
    p.add_argument("--language", choices=LANGUAGES,
                   help="the venue's language of the pages (default: each browser's own)")
    p.add_argument("--data", action="append", default=[], metavar="TABLE=DIR",
                   help="a table's data directory (its recordings tell a page opened mid-match "
                        "the match in progress); again for each table")
    p.add_argument("--public-url", metavar="URL",
                   help="the pages' address as a phone reaches it (the TV wall's QR codes hold it)")
    p.add_argument("--request-ttl", type=float, default=30.0, metavar="SECONDS",
                   help="how long a console's request stays wanted before the table refuses it")
    return p


def config_of(args: argparse.Namespace) -> WebConfig:
    """Returns the pages' configuration the command line describes."""
    return WebConfig(
        broker=args.broker, venue=args.venue, prefix=args.prefix,
        dashboard=Credentials(args.dashboard_user, args.dashboard_password) if args.dashboard_user else None,
        referee=Credentials(args.referee_user, args.referee_password) if args.referee_user else None,
        language=args.language, request_ttl_s=args.request_ttl, public_url=args.public_url)


def history_of(args: argparse.Namespace) -> History | None:
    """Returns the recordings of the tables ``--data`` names (their matches in progress), None
    without any.

    Raises SystemExit (argparse's error) on a malformed ``--data``."""
    tables: dict[str, Path] = {}
    for item in args.data:
        table, sep, directory = item.partition("=")
        if not sep or not table or not directory:
            parser().error(f"--data {item!r}: expected TABLE=DIR")
        tables[table] = Path(directory)
    return History(tables) if tables else None


async def _serve(server: WebServer) -> None:
    async with server:
        print(f"dashboard: {server.url}", flush=True)
        print(f"console:   {server.url}console.html?table=t1", flush=True)
        await server.serve_forever()


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(WebServer(config_of(args), args.host, args.port, history=history_of(args))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
