"""``python -m firmware_bridge``: ``probe PORT`` and ``board --pty`` (interfaces §4)."""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import threading

from firmware_bridge.errors import LinkTimeout
from firmware_bridge.link import BoardLink


def _board(args: argparse.Namespace) -> int:
    from firmware_bridge.sim import SimBoard

    if not args.pty:
        print("only --pty is supported: a real board runs firmware/main.py", file=sys.stderr)
        return 2
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    board = SimBoard(
        link=args.link, uid=args.uid, start_tick=args.start_tick, drift_ppm=args.drift_ppm,
        heartbeat_ms=args.heartbeat_ms,
    )
    with board:
        print(board.path, flush=True)
        stop.wait()
    return 0


async def _probe(args: argparse.Namespace) -> int:
    link = BoardLink(args.port, lambda _: None, sync_interval=0.05, sync_burst=8)
    async with link:
        try:
            await link.wait_up(args.timeout)
        except LinkTimeout as exc:
            print(f"probe: {exc} ({link.last_error})", file=sys.stderr)
            return 1
        await asyncio.sleep(args.listen)
        info = link.info
        assert info is not None
        tick = link.last_tick
        report = {
            "port": args.port,
            "uid": info.uid,
            "boot_id": info.boot_id,
            "firmware": info.firmware,
            "protocol": info.protocol,
            "tick_bits": info.tick_bits,
            "channels": [
                {"index": i, "name": name, "mode": mode, "pin": pin}
                for i, name, mode, pin in info.channels
            ],
            "clock": {
                "offset_s": link.fit.offset(tick),
                "drift_ppm": link.fit.drift_ppm,
                "drift_fitted": link.fit.fitted_drift,
                "samples": link.fit.samples,
            },
            "link": link.quality(),
        }
    if args.json:
        print(json.dumps(report))
        return 0
    q = link.quality()
    clock = report["clock"]
    assert isinstance(clock, dict)
    print(f"port       {args.port}")
    print(f"board      {info.uid}  (boot id {info.boot_id:#010x})")
    print(f"firmware   {info.firmware}  (protocol {info.protocol}, {info.tick_bits}-bit ticks)")
    for n, (i, name, mode, pin) in enumerate(info.channels):
        print(f"{'channels' if n == 0 else '':<10} {i:>2} {name:<12} {mode:<8} pin {pin}")
    print(
        f"clock      offset {clock['offset_s'] * 1e3:+.3f} ms (host minus board), drift "
        f"{clock['drift_ppm']:+.1f} ppm ({'fitted' if clock['drift_fitted'] else 'assumed'}, "
        f"{clock['samples']} samples)"
    )
    print(
        f"link       rtt min {q['rtt_min_ms']:.3f} ms, median {q['rtt_median_ms']:.3f} ms; "
        f"frames {q['frames']}, bad {q['bad_frames']}, gaps {q['sequence_gaps']}, "
        f"overflows {q['overflows']}"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    """Runs the command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m firmware_bridge")
    sub = parser.add_subparsers(dest="command", required=True)
    probe = sub.add_parser("probe", help="connect to a board and describe it")
    probe.add_argument("port", help="serial device, e.g. /dev/serial/by-id/usb-…")
    probe.add_argument("--timeout", type=float, default=5.0, help="seconds to wait for it")
    probe.add_argument("--listen", type=float, default=0.5, help="seconds of time sync")
    probe.add_argument("--json", action="store_true", help="one JSON object")
    board = sub.add_parser("board", help="run the board firmware on a pseudo-terminal")
    board.add_argument("--pty", action="store_true", help="on a pseudo-terminal (required)")
    board.add_argument("--link", help="also reachable at this path (a stable symlink)")
    board.add_argument("--uid", default="e6614103e7000001", help="board unique id (hex)")
    board.add_argument("--start-tick", type=int, default=0, help="tick counter at start")
    board.add_argument("--drift-ppm", type=float, default=0.0, help="clock error, ppm")
    board.add_argument("--heartbeat-ms", type=int, default=250)
    args = parser.parse_args(argv)
    if args.command == "board":
        return _board(args)
    return asyncio.run(_probe(args))


if __name__ == "__main__":
    sys.exit(main())
