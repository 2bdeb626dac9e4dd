"""Fixtures of the wizard's tests: settings and caches in a temporary home, English texts, no
real device detection, and no test may leave a QThread running (napari's
`_dangling_qthreads`)."""

from __future__ import annotations

import threading
import traceback
import weakref

import pytest
import shiboken6
from PySide6.QtCore import QSettings, QThread

from cann_config.app.device.table import DeviceInfo
from cann_config.app.i18n import current_language, set_language

ENV_VARS = ("ASCEND_CACHE_PATH", "ASCEND_WORK_PATH", "ACL_OP_COMPILER_CACHE_DIR", "ACL_OP_COMPILER_CACHE_MODE",
            "ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO", "GE_USE_STATIC_MEMORY")


@pytest.fixture(autouse=True)
def _no_blocking_dialogs(monkeypatch):
    """A modal dialog would block a test until pytest-timeout kills it: the unsaved-choices
    prompt answers "discard" unless a test says otherwise (its own monkeypatch wins)."""
    from cann_config.ui import dialogs

    monkeypatch.setattr(dialogs, "ask_unsaved", lambda *args, **kwargs: "discard")


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path, monkeypatch, qapp):
    """QSettings, $HOME and the CANN variables point into tmp_path; texts are English (also
    Qt's: a test that switched the window to Chinese leaves no translator installed)."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "settings"))
    before = current_language()
    set_language("en")
    yield home
    from cann_config.ui.translation import install_translators

    install_translators("en")
    set_language(before)


@pytest.fixture(autouse=True)
def _dangling_qthreads(monkeypatch):
    """Fail a test that leaves a QThread running (runs after pytest-qt closed the widgets)."""
    started: weakref.WeakKeyDictionary[QThread, str] = weakref.WeakKeyDictionary()
    base_start = QThread.start

    def start(self, *args, **kwargs):
        started[self] = "".join(traceback.format_stack(limit=6)[:-1])
        return base_start(self, *args, **kwargs)

    monkeypatch.setattr(QThread, "start", start)
    yield
    running = []
    for thread, where in list(started.items()):
        try:
            if thread.isRunning():
                running.append(where)
        except RuntimeError:  # the C++ object is gone: it is not running
            continue
    assert not running, "test left QThreads running, started at:\n" + "\n".join(running)


class Gate:
    """Something a fake worker waits on until the test opens it (never a sleep)."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.entered = threading.Event()

    def wait(self) -> None:
        self.entered.set()
        self.event.wait(timeout=30)

    def open(self) -> None:
        self.event.set()


@pytest.fixture
def gate():
    g = Gate()
    yield g
    g.open()


@pytest.fixture
def make_wizard(qtbot):
    """create_wizard(...) registered with qtbot (closed, and its workers joined, after the test).

    The fixture holds each wizard until the test's teardown: qtbot keeps only a weak reference,
    so a wizard whose last reference was the test's local variable was deleted when the test
    function returned, before qtbot closed it, together with its child QThreads. A worker still
    running then (the cleanup prediction a finished scan starts, slow on a loaded machine) was
    destroyed while running: Qt's fatal "QThread: Destroyed while thread is still running"
    aborted the whole run."""
    import cann_config.ui as ui

    wizards = []

    def make(**kwargs):
        wizard = ui.create_wizard(**kwargs)
        qtbot.addWidget(wizard)
        wizards.append(wizard)
        return wizard

    yield make
    # qtbot has closed them by now (its teardown runs before fixtures'); shutdown() is idempotent
    # and joins every worker, also of a wizard a test closed itself.
    for wizard in wizards:
        if shiboken6.isValid(wizard):  # a wizard whose close was refused was deleted by qtbot's deleteLater
            wizard.shutdown()
    wizards.clear()


def host_probe(soc: str | None, source: str = "npu-smi"):
    """A HostProbe as app.device.hostprobe would return it for a host with `soc` (None: no device)."""
    from cann_config.app.device.hostprobe import HostProbe
    from cann_config.app.device.table import device_from_soc

    device = device_from_soc(soc, source) if soc else DeviceInfo(source="none")
    return HostProbe(device=device, toolkit_version="8.5.0" if soc else None,
                     tried=["npu-smi info: ok"] if soc else ["npu-smi was not found"])


def wait_for_ini(qtbot, wizard) -> None:
    """Until the cache page's op_cache.ini reads (ui/workers.py IniReadWorker) came back."""
    page = wizard.cache_page
    page.ensure_built()
    qtbot.waitUntil(lambda: page.state.ini_pending is None and not page.state._cann_reading, timeout=10000)
