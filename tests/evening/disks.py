"""A table's disk for the evening's ``disk-full``: its data directory on a small filesystem of
its own (tmpfs; mounting needs root), filled with ``tests.smallfs.fill`` and freed again.

The table's session traces (``<data>/traces``) stay on the evening's disk, through a symbolic
link: they are the checker's record of what the table took (``tests.evening.journals``), which
a full disk would cut (a trace drops what it cannot write), while the journal, which keeps
what it could not write and writes it once there is room, is what the fault is about.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path


class CannotMount(RuntimeError):
    """The small filesystem could not be mounted (not root?)."""


def small_disk(data: Path, size_kb: int) -> Path:
    """Mounts a tmpfs of ``size_kb`` on ``data`` (empty, made if missing), its ``traces`` a
    link to ``<data>.traces`` beside it; returns ``data``. Raises CannotMount."""
    data.mkdir(parents=True, exist_ok=True)
    run = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_kb}k,mode=0755", "tmpfs",
                          str(data)], capture_output=True, text=True)
    if run.returncode != 0:
        raise CannotMount(f"cannot mount a small filesystem on {data}: {run.stderr.strip()}")
    traces = data.parent / f"{data.name}.traces"
    traces.mkdir(exist_ok=True)
    (data / "traces").symlink_to(traces)
    return data


def unmount_keeping(data: Path) -> None:
    """Unmounts the small filesystem on ``data``, its files copied onto the disk below."""
    with tempfile.TemporaryDirectory(dir=data.parent) as keep:
        kept = Path(keep) / "data"
        shutil.copytree(data, kept, symlinks=True)
        subprocess.run(["umount", "-l", str(data)], check=True)
        shutil.copytree(kept, data, symlinks=True, dirs_exist_ok=True)
