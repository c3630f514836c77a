"""A real, small filesystem for the full-disk tests: tmpfs mounted on a test's directory."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def small_filesystem(directory: Path, size_kb: int) -> Iterator[Path]:
    """Mounts a tmpfs of ``size_kb`` on ``directory`` (made if missing) for the block; yields
    it. Skips the test, saying why, where mounting is not allowed (it needs root)."""
    directory.mkdir(parents=True, exist_ok=True)
    run = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kb}k,mode=0755", "tmpfs",
                          str(directory)], capture_output=True, text=True)
    if run.returncode != 0:
        pytest.skip(f"cannot mount a small filesystem here: {run.stderr.strip()}")
    try:
        yield directory
    finally:
        subprocess.run(["umount", "-l", str(directory)], check=True)


def fill(directory: Path) -> Path:
    """Fills the filesystem of ``directory`` with one file; returns it (delete it to free)."""
    filler = directory / "filler"
    with filler.open("wb", buffering=0) as f, contextlib.suppress(OSError):
        while True:
            f.write(b"\0" * 4096)
    return filler
