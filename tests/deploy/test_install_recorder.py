"""install.sh installs the venue recorder (issue 39 item 9): its unit, its settings'
template and its two password files (root's, mode 0600, empty: the broker's, and the store's
for PostgreSQL, which systemd hands over as credentials); it enables and starts it only when
asked (``--with-recorder``: one machine of the venue records it). Dry runs, which write the
files into a directory and print the system commands; test_install_real.py installs it for
real."""

from __future__ import annotations

import stat
from pathlib import Path

from tests.deploy.test_install import APT_CACHE, DEPLOY, commands, fake_bin, install

CONF = Path("etc/billiards-controller")


def _install(root: Path, *args: str) -> list[str]:
    # systemctl is-enabled / is-active: not enabled, not running
    run = install(root, *args, env=fake_bin(root.parent / "bin", systemctl="exit 3",
                                            apt_cache=APT_CACHE))
    assert run.returncode == 0, run.stderr
    return [*commands(run), *run.stdout.splitlines()]


def test_the_recorder_is_installed_with_its_settings_and_empty_password_files(
        tmp_path: Path) -> None:
    said = _install(tmp_path / "root")
    root = tmp_path / "root"
    assert (root / "etc/systemd/system/billiards-recorder.service").read_bytes() \
        == (DEPLOY / "billiards-recorder.service").read_bytes()
    assert (root / CONF / "recorder.env").read_bytes() \
        == (DEPLOY / "recorder.example.env").read_bytes()
    for name in ("recorder.password", "recorder-store.password", "recorder-director.password"):
        secret = root / CONF / name
        assert secret.read_bytes() == b"" and stat.S_IMODE(secret.stat().st_mode) == 0o600
        assert f"==> created: /{CONF}/{name} (empty;" in "\n".join(said)
    assert not any("billiards-recorder" in c for c in said if c.startswith("systemctl "))
    assert any(x.startswith("==> the venue recorder is installed, not enabled") for x in said)


def test_a_second_run_keeps_the_recorders_settings_and_passwords(tmp_path: Path) -> None:
    root = tmp_path / "root"
    _install(root)
    (root / CONF / "recorder.env").write_text("BROKER=mqtt://recorder@venue:1883\nSTORE=x\n")
    (root / CONF / "recorder.password").write_text("secret\n")
    said = _install(root)
    assert (root / CONF / "recorder.password").read_text() == "secret\n"
    assert (root / CONF / "recorder.env").read_text().startswith("BROKER=mqtt://recorder@venue")
    assert f"==> keeping existing /{CONF}/recorder.env" in said


def test_the_recorder_is_enabled_and_started_when_asked(tmp_path: Path) -> None:
    said = _install(tmp_path / "root", "--with-recorder")
    assert "systemctl enable billiards-recorder.service" in said
    assert "systemctl start billiards-recorder.service" in said
