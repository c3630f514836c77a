"""A real PostgreSQL for tests (Debian's ``postgresql`` package): a cluster of its own in a
temporary directory, on a free port, stopped after the tests that use it.

PostgreSQL refuses to run as root: as root, ``initdb`` and ``pg_ctl`` run as the ``postgres``
user the package creates (``runuser -u postgres``), in a directory that user owns.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.broker import free_port


def _bin() -> Path:
    """Returns the newest installed PostgreSQL's programs (Debian: 15 on bookworm); ./dev test
    installs the package where it is missing."""
    if "BILLIARDS_PG_BIN" in os.environ:
        return Path(os.environ["BILLIARDS_PG_BIN"])
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                   key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0)
    return found[-1].parent if found else Path("/usr/lib/postgresql/15/bin")


BIN = _bin()


class Postgres:
    """One PostgreSQL cluster: ``start()``, ``database()`` (a fresh one each call), ``stop()``;
    ``crash()`` and ``resume()`` for outages."""

    def __init__(self, password: str | None = None) -> None:
        self.password = password  # given: TCP logins need it (scram-sha-256), else trust
        self.directory = Path(tempfile.mkdtemp(prefix="billiards-pg-"))
        self.data = self.directory / "data"
        self.port = free_port()
        self._numbers = itertools.count(1)
        self._as: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.directory, "postgres", "postgres")
            self._as = ["runuser", "-u", "postgres", "--"]

    def _run(self, *args: str) -> None:
        env = {**os.environ, "PGPASSWORD": self.password} if self.password else None
        subprocess.run([*self._as, *args], check=True, capture_output=True, timeout=60, env=env)

    def start(self) -> None:
        auth = ["--auth=trust"]
        if self.password:
            pwfile = self.directory / "pwfile"
            pwfile.write_text(self.password + "\n")
            if self._as:
                shutil.chown(pwfile, "postgres", "postgres")
            auth = ["--auth-local=trust", "--auth-host=scram-sha-256", f"--pwfile={pwfile}"]
        self._run(str(BIN / "initdb"), "-D", str(self.data), "-U", "postgres", *auth,
                  "--no-sync", "-E", "UTF8", "--locale=C.UTF-8")
        self.resume()

    def resume(self) -> None:
        """Starts the cluster on its data and port (at first, and again after ``crash``);
        returns once it takes connections."""
        options = (f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1"
                   " -c fsync=off -c full_page_writes=off")
        self._run(str(BIN / "pg_ctl"), "-D", str(self.data), "-o", options, "-w", "-t", "30",
                  "-l", str(self.directory / "log"), "start")

    def crash(self) -> None:
        """Stops the cluster as a crash does (``immediate``: every connection cut, nothing
        saved; it recovers from its WAL on ``resume``)."""
        self._run(str(BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def database(self) -> str:
        """Creates a new, empty database; returns its URL."""
        name = f"record{next(self._numbers)}"
        self._run(str(BIN / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                  name)
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        try:
            self._run(str(BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.directory, ignore_errors=True)


@contextmanager
def running() -> Iterator[Postgres]:
    """A cluster started for the block, stopped after it."""
    pg = Postgres()
    pg.start()
    try:
        yield pg
    finally:
        pg.stop()
