"""install.sh and uninstall.sh, on a stand-in bundle (a one-line `cann-config` script laid out by the
real packaging/layout_bundle.sh), so the user-local install is tested without a PyInstaller build.

What matters to the user: everything lands under the prefix and works from the menu (Exec by
absolute path, quoted when the path has a space), a second install replaces the first, and
neither script ever replaces or removes a file it did not make.
"""

from __future__ import annotations

import configparser
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP_ID = "io.github.cann_config_assistant.CannConfig"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="the scripts need bash and a POSIX shell")


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    """A stand-in for dist/cann-config/: an executable that prints a version, plus the real layout."""
    path = tmp_path / "dist" / "cann-config"
    path.mkdir(parents=True)
    exe = path / "cann-config"
    exe.write_text('#!/bin/sh\necho "cann-config 9.9.9 $*"\n')
    exe.chmod(0o755)
    subprocess.run([str(ROOT / "packaging" / "layout_bundle.sh"), str(path), "9.9.9"], check=True)
    return path


def run(script: Path, prefix: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(prefix.parent), "PREFIX": str(prefix)}
    return subprocess.run([str(script), *args], capture_output=True, text=True, env=env)


def installed_files(prefix: Path) -> set[str]:
    return {str(p.relative_to(prefix)) for p in prefix.rglob("*")
            if (p.is_file() or p.is_symlink()) and p.name != "mimeinfo.cache"}


def desktop_entry(path: Path) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None, delimiters=("=",))
    parser.optionxform = str
    parser.read(path, encoding="utf-8")
    return dict(parser["Desktop Entry"])


def test_install_puts_command_menu_entry_icons_and_metainfo_under_the_prefix(bundle, tmp_path):
    prefix = tmp_path / "home dir" / ".local"
    result = run(bundle / "install.sh", prefix)
    assert result.returncode == 0, result.stderr

    exe = prefix / "bin" / "cann-config"
    assert exe.is_symlink() and os.readlink(exe) == str(prefix / "lib" / "cann-config" / "cann-config")
    assert subprocess.run([str(exe), "--version"], capture_output=True, text=True).stdout.startswith("cann-config 9.9.9")
    share = prefix / "share"
    assert (share / "metainfo" / f"{APP_ID}.metainfo.xml").is_file()
    assert (share / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg").is_file()
    for size in (16, 48, 256):
        assert (share / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png").is_file()

    entry = desktop_entry(share / "applications" / f"{APP_ID}.desktop")
    # A space in the path: the Exec key quotes it (Desktop Entry spec, "The Exec key").
    assert entry["Exec"] == f'"{exe}" gui'
    assert entry["TryExec"] == str(exe)
    assert str(prefix / "lib" / "cann-config" / "uninstall.sh") in result.stdout


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None,
                    reason="desktop-file-validate not installed (Debian: desktop-file-utils)")
def test_installed_menu_entry_is_still_valid_with_an_awkward_path(bundle, tmp_path):
    prefix = tmp_path / 'a "quoted" $dir' / ".local"
    assert run(bundle / "install.sh", prefix).returncode == 0
    installed = prefix / "share" / "applications" / f"{APP_ID}.desktop"
    result = subprocess.run(["desktop-file-validate", str(installed)], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip() == "", result.stdout


def test_plain_path_is_not_quoted(bundle, tmp_path):
    prefix = tmp_path / "plain" / ".local"
    assert run(bundle / "install.sh", prefix).returncode == 0
    entry = desktop_entry(prefix / "share" / "applications" / f"{APP_ID}.desktop")
    assert entry["Exec"] == f"{prefix}/bin/cann-config gui"


def test_second_install_replaces_the_first(bundle, tmp_path):
    prefix = tmp_path / "h" / ".local"
    assert run(bundle / "install.sh", prefix).returncode == 0
    stale = prefix / "lib" / "cann-config" / "_internal" / "old-release-only.so"
    stale.parent.mkdir(parents=True)
    stale.write_text("x")
    assert run(bundle / "install.sh", prefix).returncode == 0
    assert not stale.exists()
    assert not (prefix / "lib" / "cann-config.new").exists()
    assert not (prefix / "lib" / "cann-config.old").exists()


def test_install_refuses_a_folder_or_command_that_is_not_ours(bundle, tmp_path):
    prefix = tmp_path / "h" / ".local"
    foreign_lib = prefix / "lib" / "cann-config"
    foreign_lib.mkdir(parents=True)
    (foreign_lib / "notes.txt").write_text("mine")
    result = run(bundle / "install.sh", prefix)
    assert result.returncode == 2
    assert "not a cann-config bundle" in result.stderr
    assert (foreign_lib / "notes.txt").read_text() == "mine"
    assert not (prefix / "bin").exists()

    shutil.rmtree(foreign_lib)
    (prefix / "bin").mkdir(parents=True)
    (prefix / "bin" / "cann-config").write_text("#!/bin/sh\n")
    result = run(bundle / "install.sh", prefix)
    assert result.returncode == 2
    assert "not the link" in result.stderr
    assert (prefix / "bin" / "cann-config").read_text() == "#!/bin/sh\n"


def test_install_needs_a_built_bundle(tmp_path):
    not_a_bundle = tmp_path / "empty"
    not_a_bundle.mkdir()
    result = run(ROOT / "packaging" / "install.sh", tmp_path / "h" / ".local", str(not_a_bundle))
    assert result.returncode == 2
    assert "make dist" in result.stderr


def test_uninstall_removes_exactly_what_install_added(bundle, tmp_path):
    prefix = tmp_path / "h" / ".local"
    neighbour = prefix / "share" / "applications" / "other.desktop"
    neighbour.parent.mkdir(parents=True)
    neighbour.write_text("[Desktop Entry]\n")
    before = installed_files(prefix)
    assert run(bundle / "install.sh", prefix).returncode == 0
    assert installed_files(prefix) > before

    result = run(prefix / "lib" / "cann-config" / "uninstall.sh", prefix)
    assert result.returncode == 0, result.stderr
    assert installed_files(prefix) == before
    assert "removed" in result.stdout


def test_uninstall_leaves_a_foreign_command_and_folder_alone(tmp_path):
    prefix = tmp_path / "h" / ".local"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "bin" / "cann-config").write_text("#!/bin/sh\n")
    (prefix / "lib" / "cann-config").mkdir(parents=True)
    result = run(ROOT / "packaging" / "uninstall.sh", prefix)
    assert result.returncode == 0
    assert (prefix / "bin" / "cann-config").exists()
    assert (prefix / "lib" / "cann-config").is_dir()
    assert result.stdout.count("kept") == 2


def test_uninstall_when_nothing_is_installed_says_so(tmp_path):
    result = run(ROOT / "packaging" / "uninstall.sh", tmp_path / "h" / ".local")
    assert result.returncode == 0
    assert "not installed" in result.stdout
