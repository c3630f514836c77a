"""The suggested settings written into the configuration's own text, shown as a diff.

The file is edited line by line, never re-serialised, so the installer's comments and order
stay: a key already set is changed in place, a commented-out ``# key = …`` line of the section is
replaced by the set key, and otherwise the key is added at the end of its section (the section is
added at the end of the file when missing). The result is validated as the service validates
its configuration before anything is written.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from controller.commission.analysis import Setting
from controller.service.config import ConfigError, validate

_SECTION = re.compile(r"^\s*\[([^\]]+)\]\s*(#.*)?$")


def _key_literal(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else f'"{key}"'


def _value_literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value_literal(v) for v in value) + "]"
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def set_key(text: str, section: str, key: str, value: Any) -> str:
    """Returns ``text`` with ``key = value`` set in ``[section]`` (see the module docstring)."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    line = f"{_key_literal(key)} = {_value_literal(value)}\n"
    # the key as the file may spell it: bare (cue) or quoted ("cue", 'cue')
    spelled = "|".join(re.escape(k) for k in {_key_literal(key), f'"{key}"', f"'{key}'"})
    key_re = re.compile(r"^\s*(#\s*)?(?:" + spelled + r")\s*=")
    start, end = None, len(lines)
    for i, raw in enumerate(lines):
        m = _SECTION.match(raw)
        if m and start is None and m.group(1).strip() == section:
            start = i + 1
        elif m and start is not None:
            end = i
            break
    if start is None:
        return "".join(lines) + f"\n[{section}]\n{line}"
    commented = None
    for i in range(start, end):
        m = key_re.match(lines[i])
        if m and not m.group(1):
            lines[i] = line
            return "".join(lines)
        if m and commented is None:
            commented = i
    if commented is not None:
        lines[commented] = line
    else:
        at = end
        while at > start and not lines[at - 1].strip():
            at -= 1
        lines.insert(at, line)
    return "".join(lines)


def suggested(text: str, settings: Iterable[Setting]) -> str:
    """Returns the configuration text with every suggested setting applied.

    Raises ConfigError if the result is not a configuration the service would accept.
    """
    out = text
    for s in settings:
        out = set_key(out, s.section, s.key, s.value)
    try:
        validate(tomllib.loads(out), "the suggested configuration")
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"the suggested configuration is not TOML: {exc}") from exc
    return out


def diff(path: Path | str, before: str, after: str) -> str:
    """Returns the unified diff from ``before`` to ``after`` of the file at ``path``."""
    return "".join(difflib.unified_diff(before.splitlines(keepends=True),
                                        after.splitlines(keepends=True),
                                        f"{path}", f"{path} (suggested)"))
