"""The pages' JavaScript: ES modules that import what they use, no function over ~150 lines.

Every shipped script (``controller/**/*.js`` but the vendored bundles, and the module scripts
written in a page) is parsed by acorn, vendored from npm through ``web/``'s build
(``tests/web/vendor/acorn.mjs``), run by node (``/usr/bin/node``) in ``js_check.mjs``.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "controller" / "web" / "static"
CHECK = Path(__file__).with_name("js_check.mjs")
#: The house's alarm for a function (README, "How it is built"), JavaScript included.
LONGEST = 150

NODE = shutil.which("node")  # Debian's nodejs: ./dev test's machine has it (web/'s build needs it too)


def _examine(sources: dict[str, str]) -> dict[str, Any]:
    assert NODE is not None, "node is needed to parse the pages' JavaScript"
    done = subprocess.run([NODE, str(CHECK)], input=json.dumps(sources), capture_output=True,
                          text=True, check=True, timeout=60)
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def _shipped() -> dict[str, str]:
    """Every shipped script by its path: the .js files and the pages' inline module scripts."""
    sources = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8")
               for p in sorted((ROOT / "controller").rglob("*.js")) if "vendor" not in p.parts}
    for page in sorted((ROOT / "controller").rglob("*.html")):
        for n, script in enumerate(re.findall(r'<script type="module">(.*?)</script>',
                                              page.read_text(encoding="utf-8"), re.S)):
            sources[f"{page.relative_to(ROOT)}#{n}"] = script
    return sources


def _too_long(found: dict[str, Any]) -> list[str]:
    return [f"{name}:{f['first']} {f['name']} ({f['last'] - f['first'] + 1} lines)"
            for name, what in found.items() for f in what.get("functions", [])
            if f["last"] - f["first"] + 1 > LONGEST]


def _not_imported(found: dict[str, Any]) -> list[str]:
    """Names one module declares at its top that another uses without binding them."""
    owners: dict[str, list[str]] = {}
    for name, what in found.items():
        for top in what.get("top", []):
            owners.setdefault(top, []).append(name)
    return [f"{name} uses {used} ({', '.join(owners[used])}) without importing it"
            for name, what in found.items() for used in what.get("used", [])
            if used in owners and name not in owners[used] and used not in what["bound"]]


def test_the_check_finds_a_long_function_and_a_name_used_without_its_import() -> None:
    """The judge itself: a 151-line function is found, a 150-line one is not; a name another
    module declares, used without an import, is found."""
    body = "\n".join(f"  x += {i};" for i in range(148))
    found = _examine({
        "long.js": f"export function long(x) {{\n{body}\n  return x + 1;\n}}\n",
        "short.js": f"export const short = (x) => {{\n{body}\n}};\n",
        "user.js": "export function user() { return long(1) + short(2); }\n",
        "fine.js": 'import { long } from "./long.js";\nconst two = 2;\nexport const fine = long(two);\n',
    })
    assert _too_long(found) == ["long.js:1 long (151 lines)"]
    assert sorted(_not_imported(found)) == ["user.js uses long (long.js) without importing it",
                                            "user.js uses short (short.js) without importing it"]


def test_no_shipped_function_is_over_150_lines() -> None:
    found = _examine(_shipped())
    assert not [n for n, what in found.items() if "error" in what], found
    assert _too_long(found) == []


def test_every_page_script_is_a_module_importing_what_it_uses() -> None:
    """No globals shared by convention: each page loads its code as one ES module (the
    vendored libraries, MQTT.js, the QR code maker and brackets-viewer, are the only classic
    scripts), a name one module declares is used in another only through an import, and no
    import is unused."""
    pages = sorted(STATIC.glob("*.html")) + [ROOT / "controller" / "commission" / "page.html"]
    for page in pages:
        html = page.read_text(encoding="utf-8")
        tags = re.findall(r"<script\b[^>]*>", html)
        classic = [t for t in tags if 'type="module"' not in t]
        assert all(re.fullmatch(r'<script src="vendor/[\w.-]+">', t) for t in classic), (page, classic)
        assert any('type="module"' in t for t in tags), page
    found = _examine(_shipped())
    assert _not_imported(found) == []
    unused = [f"{name}: {n}" for name, what in found.items()
              for n in what["imported"] if n not in what["used"]]
    assert unused == []  # an import says what a module uses: no more
    for name, source in _shipped().items():
        assert '"use strict"' not in source, name  # a module is strict: no classic script left
