"""``python -m benchmarks.broker_crash``: what a venue broker's crash loses, and what saving
its database after every change costs (issue 33, finding 5).

The shipped venue brokers (``tests.deploy.venue``: ``billiards.conf`` as shipped, on free
ports) run twice: as shipped (``autosave_on_changes true``, ``autosave_interval 1``) and with
the former setting (``autosave_interval 60``). Each run measures

- **throughput**: a table (paho, QoS 1, up to 20 in flight) publishes 3,000 events of 200
  bytes to ``B/event`` as fast as the broker acknowledges them, with one connected persistent
  subscriber and one persistent subscriber away (its queue grows to ``max_queued_messages``,
  1,000: the database the broker rewrites grows with it);
- **crashes**: the table publishes an event every 10 ms while the broker is killed (SIGKILL)
  and restarted ``--kills`` times at random moments (at most 900 events: fewer than
  ``max_queued_messages``, which would drop the rest for the subscriber away); at the end,
  the events the broker had acknowledged (PUBACK) that a persistent subscriber never got:
  one connected all along (it reconnects), one away during the crashes that comes back at
  the end.

Nothing here is a pass/fail test (``tests/deploy/test_broker_crash.py`` is).
"""

from __future__ import annotations

import argparse
import random
import tempfile
import threading
import time
from pathlib import Path

import paho.mqtt.client as paho

from tests.deploy.venue import password, start_venue

TOPIC = "billiards/club/t1/event"
VARIANTS = {  # name: lines added after the shipped file (a later value wins)
    "shipped (autosave_on_changes true, autosave_interval 1)": "",
    "before (autosave_interval 60)": "autosave_on_changes false\nautosave_interval 60",
}


class Subscriber:
    """A persistent subscriber to ``TOPIC`` (its own user: sessions are named after users)."""

    def __init__(self, port: int, user: str) -> None:
        self.received: set[int] = set()
        self.lock = threading.Lock()
        self.client = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=user,
                                  clean_session=False)
        self.client.username_pw_set(user, password(user))
        self.client.reconnect_delay_set(0.05, 0.2)
        self.client.on_message = self._message
        self.client.on_connect = lambda c, *_: c.subscribe(TOPIC, 1)
        self.port = port

    def _message(self, client: paho.Client, userdata: object, message: paho.MQTTMessage) -> None:
        with self.lock:
            self.received.add(int(message.payload.split(b" ")[0]))

    def connect(self) -> None:
        self.client.connect("127.0.0.1", self.port)
        self.client.loop_start()

    def disconnect(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class Table:
    """The publisher: QoS 1 events numbered from 0; ``acked()`` are those the broker acked
    (paho's MQTTMessageInfo, which paho itself sends again after a reconnection)."""

    def __init__(self, port: int) -> None:
        self.sent: list[paho.MQTTMessageInfo] = []
        self.unacked = 0  # index of the oldest message perhaps not acknowledged
        self.client = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="club/t1",
                                  clean_session=False)
        self.client.username_pw_set("club/t1", password("club/t1"))
        self.client.reconnect_delay_set(0.05, 0.2)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    @property
    def n(self) -> int:
        return len(self.sent)

    def publish(self, payload: bytes = b"") -> None:
        number = str(len(self.sent)).encode()
        self.sent.append(self.client.publish(TOPIC, number + b" " + payload, qos=1))

    def in_flight(self) -> int:
        """Returns how many messages since the oldest not yet acknowledged (or failed)."""
        while self.unacked < len(self.sent) and settled(self.sent[self.unacked]):
            self.unacked += 1
        return len(self.sent) - self.unacked

    def settled(self) -> bool:
        return self.in_flight() == 0

    def acked(self) -> set[int]:
        return {n for n, info in enumerate(self.sent) if settled(info) and info.rc == 0}

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def settled(info: paho.MQTTMessageInfo) -> bool:
    """Returns whether paho has the broker's PUBACK for ``info``, or gave it up."""
    try:
        return info.is_published()
    except RuntimeError:  # published while paho saw no connection: never sent
        return True


def wait(condition: object, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.01)
    return False


def throughput(directory: Path, extra: str, count: int = 3000, away: bool = True) -> float:
    """Returns events per second acknowledged by the broker (see the module's docstring);
    without ``away``, with the connected subscriber only."""
    v = start_venue(directory, extra)
    try:
        port = v.ports[1883]
        here = Subscriber(port, "dashboard")
        if away:
            gone = Subscriber(port, "referee")
            gone.connect()
            wait(lambda: gone.client.is_connected(), 5)
            time.sleep(0.2)  # (its SUBACK: paho gives no event for it here)
            gone.disconnect()
        here.connect()
        wait(lambda: here.client.is_connected(), 5)
        time.sleep(0.2)
        table = Table(port)
        wait(lambda: table.client.is_connected(), 5)
        payload = b"x" * 200
        start = time.perf_counter()
        for _ in range(count):
            while table.in_flight() >= 20:
                time.sleep(0.0002)
            table.publish(payload)
        wait(table.settled, 120)
        rate = count / (time.perf_counter() - start)
        table.close()
        here.disconnect()
        return rate
    finally:
        v.stop()


def crashes(directory: Path, extra: str, kills: int) -> dict[str, int]:
    """Returns counts: published, acknowledged, and acknowledged but lost at each subscriber."""
    v = start_venue(directory, extra)
    try:
        port = v.ports[1883]
        away, here = Subscriber(port, "referee"), Subscriber(port, "dashboard")
        away.connect()
        wait(lambda: away.client.is_connected(), 5)
        time.sleep(0.2)
        away.disconnect()
        here.connect()
        wait(lambda: here.client.is_connected(), 5)
        time.sleep(0.2)
        table = Table(port)
        wait(lambda: table.client.is_connected(), 5)
        for _ in range(kills):  # (fewer than max_queued_messages in all: none dropped)
            end = time.monotonic() + random.uniform(0.1, 0.4)
            while time.monotonic() < end and table.n < 900:
                table.publish()
                time.sleep(0.01)
            v.broker.kill()
            wait(lambda: not table.client.is_connected(), 5)
            v.broker.start()
            wait(table.client.is_connected, 5)
        wait(table.settled, 60)
        away.connect()
        acked = table.acked()
        wait(lambda: acked <= here.received and acked <= away.received, 10)
        table.close()
        here.disconnect()
        away.disconnect()
        return {"published": table.n, "acknowledged": len(acked),
                "lost (connected)": len(acked - here.received),
                "lost (away)": len(acked - away.received)}
    finally:
        v.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3, help="throughput runs (median)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, extra) in enumerate(VARIANTS.items()):
            for away in (False, True):
                rates = sorted(throughput(Path(tmp) / f"t{i}-{away}-{r}", extra, away=away)
                               for r in range(args.runs))
                print(f"{name}, {'a subscriber away too' if away else 'connected subscriber'}:"
                      f" {rates[len(rates) // 2]:,.0f} events/s"
                      f" (runs: {', '.join(f'{r:,.0f}' for r in rates)})", flush=True)
            lost = crashes(Path(tmp) / f"c{i}", extra, args.kills)
            print(f"{name}: {args.kills} kills: {lost}", flush=True)


if __name__ == "__main__":
    main()
