"""A throwaway root for running ``deploy/install.sh`` for real, as root, without touching
this machine: a mount namespace of its own (``unshare --mount``) in which this machine's
root file system is seen through an overlay whose writes all go to a directory of the
test's, then ``chroot`` into that view. Everything the script runs is the real thing: bash,
``python3 -m venv``, pip, ``useradd``/``groupadd``/``usermod`` (they write the overlay's
/etc/passwd and /etc/group), ``install``, ``chown``; ``systemctl`` and ``udevadm`` are the
real ones too and, finding themselves in a chroot, do what they do there: ``enable`` makes
its symbolic links, ``daemon-reload``, ``start`` and ``udevadm control``/``trigger`` are
ignored ("Running in chroot"). ``/proc`` is mounted anew, ``/dev`` is this machine's,
``/tmp`` and ``/run`` are empty tmpfs (no socket of this machine's is reachable), and a
directory of the test's may be bound in. The next run over the same directory sees what
the last one left (a reinstall, an upgrade); the directory's ``upper`` holds exactly what
the runs changed.

Needs root and overlayfs in a user's mount namespace (the tests that use it are skipped
with the reason otherwise)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

#: the environment a root shell has after ``sudo`` (sudo's own: no PYTHON*, no venv)
ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
       "HOME": "/root", "LANG": "C.UTF-8", "TERM": "dumb", "SUDO_USER": "installer"}

MOUNT = r"""
set -eu
merged="$1"; upper="$2"; work="$3"; binds="$4"; shift 4
mount -t overlay overlay -o "lowerdir=/,upperdir=$upper,workdir=$work" "$merged"
mount -t proc proc "$merged/proc"
mount --rbind /dev "$merged/dev"
mount -t tmpfs tmpfs "$merged/tmp"
mount -t tmpfs tmpfs "$merged/run"
while IFS='=' read -r from to; do
    [ -n "$from" ] || continue
    mkdir -p "$merged$to"
    mount --bind "$from" "$merged$to"
done <<EOF
$binds
EOF
exec chroot "$merged" "$@"
"""


def usable() -> str | None:
    """Returns why a throwaway root cannot be made here, or None if it can."""
    if os.geteuid() != 0:
        return "the real install runs as root (it installs a system user and a venv in /opt)"
    if shutil.which("unshare") is None or shutil.which("chroot") is None:
        return "unshare(1) and chroot(8) are needed"
    with open("/proc/filesystems", encoding="ascii") as filesystems:
        if "overlay" not in filesystems.read():
            return "the kernel has no overlayfs"
    return None


class ThrowawayRoot:
    """This machine's root file system, its writes kept in ``base`` (see the module doc)."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.upper = base / "upper"
        for name in ("upper", "work", "merged"):
            (base / name).mkdir(parents=True, exist_ok=True)

    def run(self, argv: list[str], *, binds: dict[Path, str] | None = None,
            env: dict[str, str] | None = None, timeout: float = 600
            ) -> subprocess.CompletedProcess[str]:
        """Runs ``argv`` as root inside the root (``binds``: host directory -> path inside);
        returns the finished process (its output as text)."""
        lines = "\n".join(f"{src}={dst}" for src, dst in (binds or {}).items())
        command = ["unshare", "--mount", "--propagation", "private", "--",
                   "sh", "-c", MOUNT, "mount", str(self.base / "merged"), str(self.upper),
                   str(self.base / "work"), lines,
                   "env", "-i", *(f"{k}={v}" for k, v in {**ENV, **(env or {})}.items()),
                   *argv]
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              check=False)

    def written(self, path: str) -> Path:
        """Returns where ``path`` (absolute, inside the root) is, if a run wrote it."""
        return self.upper / path.lstrip("/")
