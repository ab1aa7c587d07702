"""The wheel ships every file the package reads at run time, and the report renders from it.

The wheel is built with ``uv build --offline`` (the build backend comes from uv's cache; no
network), its file list is compared with the source tree, and report.html is rendered by a
Python that imports tooleval from the unpacked wheel, not from the checkout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "tooleval"


def source_files() -> dict[str, bytes]:
    """Every file of the package as the wheel must hold it (``tooleval/...``), caches aside."""
    found = {}
    for path in PACKAGE.rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            found[path.relative_to(PACKAGE.parent).as_posix()] = path.read_bytes()
    return found


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    command = ["uv", "build", "--wheel", "--offline", "--out-dir", str(out), str(ROOT)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    (built,) = out.glob("tooleval-*.whl")
    return built


def test_the_wheel_holds_every_file_of_the_package(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        shipped = {name: archive.read(name) for name in archive.namelist()}
    expected = source_files()
    assets = [name for name in expected if name.startswith("tooleval/report/assets/")]
    assert {"dom.js", "explorer.js", "report.css"} <= {Path(a).name for a in assets}
    missing = sorted(set(expected) - set(shipped))
    assert missing == []
    changed = sorted(name for name in expected if shipped[name] != expected[name])
    assert changed == []


def test_report_html_renders_from_the_installed_wheel(wheel: Path, tmp_path: Path) -> None:
    """The explorer's script and style are read from the wheel (importlib.resources)."""
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    script = (
        "import tooleval, json\n"
        "from tooleval.report import LoadedRuns, build_report\n"
        "from tooleval.report.html import render_html\n"
        "html = render_html(build_report(LoadedRuns((), ())), {})\n"
        "print(json.dumps({'file': tooleval.__file__, 'html': html}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=tmp_path,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert Path(result["file"]).is_relative_to(site)  # not the checkout's copy
    css = (PACKAGE / "report" / "assets" / "report.css").read_text(encoding="utf-8")
    script_js = (PACKAGE / "report" / "assets" / "explorer.js").read_text(encoding="utf-8")
    assert f"<style>{css}</style>" in result["html"] and script_js in result["html"]
