"""Test-wide setup: Qt renders offscreen (pytest-qt picks no platform; without a display the
whole run would abort), and no test may leave a thread running."""

import os
import threading

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

DATA = os.path.join(os.path.dirname(__file__), "data")


@pytest.fixture
def data_dir():
    from pathlib import Path

    return Path(DATA)


@pytest.fixture
def pure_python(monkeypatch):
    """The scan without its C loops (app/opcache/native.py): for tests that watch the system
    calls Python makes, and for comparing both paths (tests/app/opcache/test_native.py)."""
    from cann_config.app.opcache import native

    monkeypatch.setattr(native, "native", None)
    monkeypatch.setenv(native.ENV_NO_NATIVE, "1")  # worker interpreters too


@pytest.fixture(autouse=True)
def _noatime_mounts(request, monkeypatch):
    """Every cache a test builds is scanned as if on a `noatime` mount, where CANN deletes by the
    access-time keys alone: on this machine's `relatime` /tmp, CANN's own read of a json would
    save every group a fixture makes (its utime sets ctime after atime; app/opcache/atime.py).
    The atime re-check has its own tests on tmpfs mounts they make (marker `real_mounts`)."""
    if request.node.get_closest_marker("real_mounts") is None:
        from cann_config.app.opcache import scanner

        monkeypatch.setattr(scanner, "_read_mounts", lambda: "/dev/vda / ext4 rw,noatime 0 0\n")
    yield


@pytest.fixture(autouse=True)
def _language_reset():
    """`--lang` sets a process-wide language; put it back so tests do not leak it to others."""
    from cann_config.app.i18n import current_language, set_language

    before = current_language()
    yield
    set_language(before)


@pytest.fixture(autouse=True)
def _no_dangling_threads():
    """Fail a test that leaves a Python thread running (napari's `_dangling_qthreads`, for us)."""
    before = set(threading.enumerate())
    yield
    leftover = [t for t in threading.enumerate() if t not in before and t.is_alive() and not t.daemon]
    for t in leftover:
        t.join(timeout=5)
    leftover = [t for t in leftover if t.is_alive()]
    assert not leftover, f"test left threads running: {leftover}"
