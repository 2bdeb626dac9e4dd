"""The wizard's walk (ui.workers.ScanWorker) shared with a worker process: a new interpreter, never
a fork of the Qt process (app.opcache.parallel), with the serial walk's answer."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cann_config.app.opcache import parallel
from cann_config.app.opcache.scanner import scan_to_end
from cann_config.ui.workers import ScanWorker

pytestmark = pytest.mark.skipif(getattr(sys, "frozen", False), reason="a frozen bundle starts no worker")


def cache_of(root: Path, units: int) -> Path:
    """A kernel_cache with `units` kernel_meta dirs (the units a split walk hands out)."""
    kc = root / "kernel_cache"
    for k in range(units):
        folder = kc / "Ascend910B3" / f"kernel_meta_{k:03d}"
        folder.mkdir(parents=True)
        (folder / f"k{k}.json").write_bytes(b'{"binFileName": "k%d", "binFileSuffix": ".o"}' % k)
        (folder / f"k{k}.o").write_bytes(b"o" * (100 + k))
    return kc


def test_the_wizard_walk_is_shared_with_a_new_interpreter(qtbot, tmp_path, monkeypatch):
    kc = cache_of(tmp_path, 80)  # above the 64 units a split with a new interpreter needs
    monkeypatch.setenv(parallel.ENV_WORKERS, "2")
    started = []
    real_start = parallel._start_worker

    def start(others):
        assert not parallel._can_fork()  # Qt is loaded: a new interpreter, not a fork
        worker = real_start(others)
        started.append(worker is not None and worker.proc is not None)
        return worker

    monkeypatch.setattr(parallel, "_start_worker", start)
    worker = ScanWorker(kc, batch_seconds=0.01)
    finished = []
    worker.finishedScan.connect(finished.append)
    with qtbot.waitSignal(worker.finished, timeout=60_000):
        worker.start()
    assert started == [True]
    usage = finished[0].usage
    serial = scan_to_end(kc)
    assert (usage.files, usage.dirs, usage.apparent_bytes) == (serial.files, serial.dirs, serial.apparent_bytes)
    assert usage.socs["Ascend910B3"].json_candidates() == serial.socs["Ascend910B3"].json_candidates()
