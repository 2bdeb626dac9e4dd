"""`cann-config gui`: no display means exit 2 with one line; --smoke shows the window and exits."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cann_config.ui.gui_command import NO_DISPLAY, display_problem, seconds_since_process_start

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args, env=None, drop=()):
    environ = {k: v for k, v in os.environ.items() if k not in drop}
    environ.update(env or {})
    return subprocess.run([sys.executable, "-m", "cann_config.app", *args], capture_output=True, text=True, cwd=ROOT,
                          env=environ, timeout=120)


@pytest.mark.parametrize("environ, problem", [
    ({}, True),
    ({"DISPLAY": ":0"}, False),
    ({"WAYLAND_DISPLAY": "wayland-0"}, False),
    ({"QT_QPA_PLATFORM": "offscreen"}, False),
    ({"QT_QPA_PLATFORM": "xcb"}, True),
    ({"QT_QPA_PLATFORM": "xcb", "DISPLAY": ":1"}, False),
    ({"QT_QPA_PLATFORM": "wayland;xcb"}, True),
])
def test_display_problem(environ, problem):
    assert (display_problem(environ, "linux") == NO_DISPLAY) is problem
    assert display_problem(environ, "win32") is None


def test_without_a_display_it_exits_2_with_one_line_saying_how_to_run_it():
    result = run_cli("gui", drop=("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    for hint in ("desktop session", "ssh -X", "cann-config diagnose"):
        assert hint in result.stderr
    # offscreen shows nothing to a person: it is no way to "run it"
    assert "offscreen" not in result.stderr
    bare = run_cli(drop=("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))  # no subcommand: the wizard
    assert bare.returncode == 2 and "ssh -X" in bare.stderr
    chinese = run_cli("gui", "--lang", "zh_CN", drop=("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"))
    assert chinese.returncode == 2 and chinese.stderr.count("\n") == 1 and "桌面会话" in chinese.stderr


def test_an_x_display_that_does_not_answer_is_exit_2_not_an_abort():
    result = run_cli("gui", "--smoke", env={"DISPLAY": ":97", "QT_QPA_PLATFORM": "xcb"})
    assert result.returncode == 2, result.stderr
    assert "cannot open a window" in result.stderr


def test_without_pyside6_it_exits_2_saying_so(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\n"
        "class _Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('PySide6', 'shiboken6'):\n"
        "            raise ImportError('PySide6 is blocked for this test')\n"
        "sys.meta_path.insert(0, _Block())\n")
    result = run_cli("gui", env={"PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}", "QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 2
    assert "PySide6" in result.stderr and result.stderr.count("\n") == 1


def test_smoke_opens_the_window_and_reports_when_it_was_shown(tmp_path):
    result = run_cli("gui", "--smoke", "--device", "Ascend910B3",
                     env={"QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    match = re.fullmatch(r"shown (\d+\.\d+)\n", result.stdout)
    assert match and 0 < float(match.group(1)) < 120


@pytest.mark.parametrize("args, words", [
    (["--device", "Nvidia"], "--device"),
    (["--framework", "jax"], "--framework"),
])
def test_bad_arguments_exit_2_before_any_window(args, words):
    result = run_cli("gui", *args, env={"QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 2 and words in result.stderr and result.stderr.count("\n") == 1


def test_a_bad_profile_exits_2_naming_the_file(tmp_path):
    bad = tmp_path / "p.json"
    bad.write_text("[]")
    result = run_cli("gui", "--profile", str(bad), env={"QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 2 and str(bad) in result.stderr


def test_seconds_since_process_start_is_plausible():
    assert 0 <= seconds_since_process_start() < 24 * 3600


def test_a_file_that_is_not_a_bundle_exits_2_naming_it(tmp_path):
    bad = tmp_path / "bundle.json"
    bad.write_text('{"format": "cann-config-profile"}')
    result = run_cli("gui", "--bundle", str(bad), env={"QT_QPA_PLATFORM": "offscreen"})
    assert result.returncode == 2 and str(bad) in result.stderr and result.stderr.count("\n") == 1


def test_smoke_with_a_bundle_opens_the_customers_host(tmp_path):
    bundle = ROOT / "tests" / "data" / "bundles" / "a2-910b3.json"
    result = run_cli("gui", "--smoke", "--bundle", str(bundle),
                     env={"QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"shown (\d+\.\d+)\n", result.stdout)
