"""The frozen desktop bundle, built by packaging/build.sh exactly as `make dist` builds it.

Slow (a PyInstaller build, ~20-60 s): marked `slow`, so the quick run leaves it out; run it with
`pytest -m slow`. To check a bundle that is already built instead of building one:
`CANN_CONFIG_BUNDLE=dist/cann-config pytest -m slow tests/packaging/test_bundle.py`.

The frozen program must do what the source does: the same catalog, the same diagnosis, from
data files it reads through importlib.resources out of the bundle, with no Python on PATH.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

import cann_config.app as app

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "packaging" / "op_cache.ini"

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path | None]:
    """{"bundle": the bundle folder, "tarball": its .tar.gz or None for a given bundle}."""
    given = os.environ.get("CANN_CONFIG_BUNDLE")
    if given:
        return {"bundle": Path(given).resolve(), "tarball": None}
    pytest.importorskip("PyInstaller", reason="PyInstaller not installed: pip install -e '.[dist]' (or make dist)")
    out = tmp_path_factory.mktemp("dist")
    env = {**os.environ, "PYTHON": sys.executable, "DIST_DIR": str(out / "dist"),
           "WORK_DIR": str(out / "work"), "SKIP_SMOKE": "1"}
    result = subprocess.run(["bash", str(ROOT / "packaging" / "build.sh")], cwd=ROOT, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    tarballs = sorted((out / "dist").glob("cann-config-*.tar.gz"))
    return {"bundle": out / "dist" / "cann-config", "tarball": tarballs[0] if tarballs else None}


@pytest.fixture(scope="module")
def bundle(built) -> Path:
    return built["bundle"]


def bare_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """No venv, no PYTHONPATH, nothing but the system's binaries on PATH, a scratch HOME."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", **extra}


def frozen(bundle: Path, tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(bundle / "cann-config"), *args], capture_output=True, text=True,
                          env=bare_env(tmp_path, **env), timeout=120)


def from_source(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    """The same command from the checkout, in the same bare environment (same HOME, no CANN vars)."""
    return subprocess.run([sys.executable, "-m", "cann_config.app", *args], capture_output=True, text=True, cwd=ROOT,
                          env=bare_env(tmp_path), timeout=120)


def test_version(bundle, tmp_path):
    result = frozen(bundle, tmp_path, "--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"cann-config {app.__version__}"


def test_catalog_read_from_the_bundle_matches_the_source(bundle, tmp_path):
    result = frozen(bundle, tmp_path, "options", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == json.loads(from_source(tmp_path, "options", "--json").stdout)


def test_data_files_are_collected_as_the_resources_package(bundle):
    data = bundle / "_internal" / "cann_config" / "resources"
    for name in ("catalog.toml", "devices.toml"):
        assert (data / name).read_bytes() == (ROOT / "resources" / name).read_bytes()
    for toml in (ROOT / "resources" / "messages").glob("*.toml"):
        assert (data / "messages" / toml.name).is_file(), toml.name
    for svg_or_png in (ROOT / "resources" / "icons").iterdir():
        assert (data / "icons" / svg_or_png.name).is_file(), svg_or_png.name
    for ts in (ROOT / "resources" / "translations").glob("*.ts"):
        assert (data / "translations" / (ts.stem + ".qm")).is_file(), f"{ts.stem}.qm not compiled into the bundle"
    assert not list(data.rglob("*.ts")), "translation sources do not belong in the bundle"


def test_diagnose_from_the_bundle_matches_the_source(bundle, tmp_path):
    result = frozen(bundle, tmp_path, "diagnose", "--ini", str(FIXTURE), "--json")
    expected = from_source(tmp_path, "diagnose", "--ini", str(FIXTURE), "--json")
    assert result.returncode == expected.returncode, result.stderr
    assert result.returncode in (0, 1), result.stderr
    assert json.loads(result.stdout) == json.loads(expected.stdout)


def test_collect_writes_a_support_bundle(bundle, tmp_path):
    out = tmp_path / "support.json"
    result = frozen(bundle, tmp_path, "collect", "-o", str(out))
    assert result.returncode == 0, result.stderr
    json.loads(out.read_text(encoding="utf-8"))


def test_gui_smoke_offscreen(bundle, tmp_path):
    result = frozen(bundle, tmp_path, "gui", "--smoke", QT_QPA_PLATFORM="offscreen")
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"shown \d+(\.\d+)?", result.stdout.strip()), result.stdout


def test_runs_with_every_python_on_the_machine_hidden(bundle, tmp_path):
    env = {**os.environ, "PYTHON": sys.executable}
    script = ROOT / "packaging" / "without_python.sh"
    probe = subprocess.run([str(script), "true"], capture_output=True, text=True, env=env)
    if probe.returncode == 125:
        pytest.skip(f"cannot hide Python here: {probe.stderr.strip()}")
    args = ["env", "-i", *(f"{k}={v}" for k, v in bare_env(tmp_path).items()), str(bundle / "cann-config")]
    result = subprocess.run([str(script), *args, "options", "--json"], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["format"] == "cann-config-catalog"
    result = subprocess.run([str(script), *args[:-1], "QT_QPA_PLATFORM=offscreen", args[-1], "gui", "--smoke"],
                            capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr


def test_smoke_check_script_passes(bundle):
    result = subprocess.run(["bash", str(ROOT / "packaging" / "smoke_check.sh"), str(bundle)],
                            capture_output=True, text=True, env={**os.environ, "PYTHON": sys.executable})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "FAIL" not in result.stdout + result.stderr


def test_only_the_qt_plugins_a_desktop_needs(bundle):
    plugins = bundle / "_internal" / "PySide6" / "Qt" / "plugins"
    platforms = {p.name for p in (plugins / "platforms").iterdir()}
    assert {"libqxcb.so", "libqwayland.so", "libqoffscreen.so"} <= platforms
    assert not platforms & {"libqeglfs.so", "libqlinuxfb.so", "libqvnc.so"}
    assert not (plugins / "platformthemes" / "libqgtk3.so").exists()
    assert (plugins / "iconengines" / "libqsvgicon.so").exists(), "the SVG icon needs the svg icon engine"
    assert not list(bundle.rglob("*QtNetwork*")) and not list(bundle.rglob("libQt6Network*"))
    assert not list(bundle.rglob("*WebEngine*"))


def test_no_dangling_links(bundle):
    dangling = [p for p in bundle.rglob("*") if p.is_symlink() and not p.exists()]
    assert dangling == []


def test_desktop_integration_is_inside_the_bundle(bundle):
    app_id = "io.github.cann_config_assistant.CannConfig"
    assert (bundle / "share" / "applications" / f"{app_id}.desktop").is_file()
    assert (bundle / "share" / "metainfo" / f"{app_id}.metainfo.xml").is_file()
    assert os.access(bundle / "install.sh", os.X_OK) and os.access(bundle / "uninstall.sh", os.X_OK)
    assert (bundle / ".cann-config-bundle").read_text().startswith(f"cann-config {app.__version__} ")


def test_tarball_holds_the_bundle_folder(built):
    if built["tarball"] is None:
        pytest.skip("checking a given bundle: no tarball built")
    tarball = built["tarball"]
    import platform

    assert tarball.name == f"cann-config-{app.__version__}-linux-{platform.machine()}.tar.gz"
    with tarfile.open(tarball) as tar:
        names = tar.getnames()
        assert {n.split("/")[0] for n in names} == {"cann-config"}
        assert "cann-config/cann-config" in names
        assert "cann-config/install.sh" in names
        assert all(m.uid == 0 and m.gid == 0 for m in tar.getmembers())


def test_bundle_does_not_point_back_at_where_it_was_built(bundle, tmp_path):
    """Moved (as install.sh moves it), the bundle still starts: nothing refers to its build path."""
    moved = bundle.with_name(bundle.name + "-moved")
    bundle.rename(moved)
    try:
        result = frozen(moved, tmp_path, "options", "--json")
    finally:
        moved.rename(bundle)
    assert result.returncode == 0, result.stderr
