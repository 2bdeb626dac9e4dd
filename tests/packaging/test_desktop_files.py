"""The desktop integration files: valid per the freedesktop validators, bilingual, consistent with
each other and with the app, and the icon's PNG sizes current with its SVG.

The validators (`desktop-file-validate` from desktop-file-utils, `appstreamcli` from appstream)
are Debian packages a machine may not have: those two tests skip then; the checks done here in
Python always run.
"""

from __future__ import annotations

import configparser
import importlib.util
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import cann_config.app as app

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
ICONS = ROOT / "resources" / "icons"
APP_ID = "io.github.cann_config_assistant.CannConfig"
DESKTOP = PACKAGING / f"{APP_ID}.desktop"
METAINFO = PACKAGING / f"{APP_ID}.metainfo.xml"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"



def _load_script(name: str):
    """packaging/ holds scripts, not a package: load one by path."""
    spec = importlib.util.spec_from_file_location(f"packaging_{name}", PACKAGING / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


render_icons = _load_script("render_icons")


def desktop_entry(path: Path = DESKTOP) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str  # keys are case-sensitive: Name[zh_CN]
    parser.read(path, encoding="utf-8")
    return dict(parser["Desktop Entry"])


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


# --- the validators -----------------------------------------------------------------------------

@pytest.mark.skipif(shutil.which("desktop-file-validate") is None,
                    reason="desktop-file-validate not installed (Debian: desktop-file-utils)")
def test_desktop_file_passes_desktop_file_validate_without_any_remark():
    result = subprocess.run(["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True)
    # Hints ("more than one main category", ...) are printed too: none is wanted.
    assert result.returncode == 0 and result.stdout.strip() == "" and result.stderr.strip() == "", \
        result.stdout + result.stderr


@pytest.mark.skipif(shutil.which("appstreamcli") is None,
                    reason="appstreamcli not installed (Debian: appstream)")
def test_metainfo_passes_appstreamcli_validate():
    result = subprocess.run(["appstreamcli", "validate", "--no-net", str(METAINFO)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    issues = [line for line in result.stdout.splitlines() if line[:2] in ("E:", "W:")]
    assert issues == [], result.stdout


# --- the .desktop entry ---------------------------------------------------------------------------

def test_desktop_entry_is_named_by_the_app_id_and_has_zh_and_en_texts():
    entry = desktop_entry()
    assert entry["Type"] == "Application"
    for key in ("Name", "Comment", "GenericName", "Keywords"):
        assert entry[key].strip(), key
        assert entry[f"{key}[zh_CN]"].strip(), f"{key}[zh_CN]"
        assert entry[key] != entry[f"{key}[zh_CN]"], f"{key}[zh_CN] is not translated"


def test_desktop_entry_starts_the_wizard_with_the_app_icon():
    entry = desktop_entry()
    assert entry["Exec"] == "cann-config gui"
    assert entry["TryExec"] == "cann-config"
    assert entry["Icon"] == APP_ID
    assert entry["Terminal"] == "false"
    assert "Development" in entry["Categories"].split(";")


# --- the AppStream metainfo -----------------------------------------------------------------------

def _texts(root: ET.Element, tag: str) -> dict[str | None, str]:
    return {el.get(XML_LANG): (el.text or "").strip() for el in root.findall(tag)}


def test_metainfo_names_the_same_app_as_the_desktop_entry():
    root = ET.parse(METAINFO).getroot()
    assert root.get("type") == "desktop-application"
    assert root.findtext("id") == APP_ID
    launchable = root.find("launchable")
    assert launchable is not None and launchable.get("type") == "desktop-id"
    assert launchable.text == DESKTOP.name
    assert [b.text for b in root.findall("provides/binary")] == ["cann-config"]
    entry = desktop_entry()
    assert _texts(root, "name")[None] == entry["Name"]
    assert _texts(root, "name")["zh-CN"] == entry["Name[zh_CN]"]


def test_metainfo_has_zh_and_en_name_summary_and_description():
    root = ET.parse(METAINFO).getroot()
    for tag in ("name", "summary"):
        texts = _texts(root, tag)
        assert texts.get(None) and texts.get("zh-CN"), tag
        assert texts[None] != texts["zh-CN"]
    paragraphs = _texts(root, "description/p")
    assert paragraphs.get(None) and paragraphs.get("zh-CN")
    assert root.find("content_rating") is not None


def test_metainfo_latest_release_is_the_app_version():
    root = ET.parse(METAINFO).getroot()
    releases = root.findall("releases/release")
    assert releases, "no <release>"
    assert releases[0].get("version") == app.__version__, \
        "add a <release> for the new version at the top of <releases>"


def test_metainfo_license_is_the_project_license():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    root = ET.parse(METAINFO).getroot()
    assert root.findtext("project_license") == project["license"]["text"]


# --- the icon -------------------------------------------------------------------------------------

def test_every_hicolor_size_is_committed_at_its_size():
    for size in render_icons.SIZES:
        path = ICONS / render_icons.png_name(size)
        assert path.is_file(), f"{path} missing: run packaging/render_icons.py"
        assert png_size(path) == (size, size)
    assert ET.parse(ICONS / render_icons.SVG_NAME).getroot().get("viewBox") == "0 0 256 256"


def test_committed_pngs_are_current_with_the_svg(tmp_path, qapp):
    """Editing the SVG without re-running render_icons.py leaves stale PNGs: caught here."""
    from PySide6.QtGui import QImage

    render_icons.render_icons(ICONS / render_icons.SVG_NAME, tmp_path)
    for size in render_icons.SIZES:
        fresh = QImage(str(tmp_path / render_icons.png_name(size)))
        committed = QImage(str(ICONS / render_icons.png_name(size)))
        assert fresh.size() == committed.size()
        fresh = fresh.convertToFormat(QImage.Format.Format_ARGB32)
        committed = committed.convertToFormat(QImage.Format.Format_ARGB32)
        # Another Qt release may anti-alias an edge differently: allow a few noisy channels,
        # not a changed shape or colour.
        diffs = [abs(a - b) for a, b in zip(fresh.constBits().tobytes(), committed.constBits().tobytes(),
                                            strict=True)]
        noisy = sum(d > 64 for d in diffs) / len(diffs)
        assert noisy < 0.002, f"{render_icons.png_name(size)} differs from the SVG: run packaging/render_icons.py"
