"""A real PostgreSQL for tests (Debian's ``postgresql`` package): a cluster of its own in a
temporary directory, on a free port, stopped after the tests that use it. ``initdb`` runs once
a process: each cluster is a copy of that first one's files (a copy takes a tenth of the time).

PostgreSQL refuses to run as root: as root, ``initdb`` and ``pg_ctl`` run as the ``postgres``
user the package creates (``runuser -u postgres``), in a directory that user owns.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
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

#: The lines of ``pg_hba.conf`` for a cluster with a password: on the Unix socket without one
#: (to set it), over TCP with it (as ``initdb --auth-local=trust --auth-host=scram-sha-256``).
PASSWORD_HBA = """\
local all all trust
host all all 127.0.0.1/32 scram-sha-256
host all all ::1/128 scram-sha-256
local replication all trust
host replication all 127.0.0.1/32 scram-sha-256
host replication all ::1/128 scram-sha-256
"""

_initialized: list[Path] = []  # this process's initdb output, made once, copied for each cluster


def _as_postgres(directory: Path) -> list[str]:
    """Returns what runs a program as the ``postgres`` user when the tests run as root (and
    gives it ``directory``), else nothing."""
    if os.geteuid() != 0:
        return []
    shutil.chown(directory, "postgres", "postgres")
    return ["runuser", "-u", "postgres", "--"]


def _initdb() -> Path:
    """Returns a data directory ``initdb`` made (trust logins), made at the first call."""
    if not _initialized:
        directory = Path(tempfile.mkdtemp(prefix="billiards-pg-initdb-"))
        atexit.register(shutil.rmtree, directory, ignore_errors=True)
        subprocess.run([*_as_postgres(directory), str(BIN / "initdb"), "-D",
                        str(directory / "data"), "-U", "postgres", "--auth=trust", "--no-sync",
                        "-E", "UTF8", "--locale=C.UTF-8"],
                       check=True, capture_output=True, timeout=60)
        _initialized.append(directory / "data")
    return _initialized[0]


class Postgres:
    """One PostgreSQL cluster: ``start()``, ``database()`` (a fresh one each call), ``stop()``;
    ``crash()`` and ``resume()`` for outages."""

    def __init__(self, password: str | None = None) -> None:
        self.password = password  # given: TCP logins need it (scram-sha-256), else trust
        self.directory = Path(tempfile.mkdtemp(prefix="billiards-pg-"))
        self.data = self.directory / "data"
        self.port = free_port()
        self._numbers = itertools.count(1)
        self._as = _as_postgres(self.directory)
        self._given = 0  # databases handed out
        self._next: Future[str] | None = None  # the next one, being made meanwhile
        self._maker = ThreadPoolExecutor(1, thread_name_prefix="createdb")

    def _run(self, *args: str, stdin: str | None = None) -> None:
        env = {**os.environ, "PGPASSWORD": self.password} if self.password else None
        subprocess.run([*self._as, *args], check=True, capture_output=True, timeout=60, env=env,
                       input=stdin.encode() if stdin is not None else None)

    def start(self) -> None:
        """Makes the cluster (a copy of ``initdb``'s) and starts it; with a password, TCP
        logins need it from then on."""
        self._run("cp", "-a", str(_initdb()), str(self.data))
        if self.password:
            (self.data / "pg_hba.conf").write_text(PASSWORD_HBA)
        self.resume()
        if self.password:
            self._run(str(BIN / "psql"), "-h", str(self.directory), "-p", str(self.port), "-U",
                      "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1",
                      stdin=f"ALTER USER postgres PASSWORD '{self.password}';\n")  # not in argv

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
        self._settle()
        self._run(str(BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def database(self) -> str:
        """Returns the URL of a new, empty database. A cluster asked for a second is asked
        for more (the worker's, a test's each): from then on the next one is made meanwhile,
        while the test runs."""
        made, self._next = self._next, None
        url = None
        if made is not None:
            with contextlib.suppress(subprocess.SubprocessError):  # else made again, below
                url = made.result()
        url = url or self._createdb()
        self._given += 1
        if self._given >= 2:
            self._next = self._maker.submit(self._createdb)
        return url

    def _createdb(self) -> str:
        name = f"record{next(self._numbers)}"
        self._run(str(BIN / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres",
                  name)
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def _settle(self) -> None:
        """Waits for the database being made meanwhile, if any (before the cluster stops)."""
        if self._next is not None:
            self._next.exception()  # made or failed: database() makes it again if failed

    def stop(self) -> None:
        self._settle()
        self._maker.shutdown()
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
