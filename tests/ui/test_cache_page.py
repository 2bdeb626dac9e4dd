"""The cache page: directories, effective values and sources, op_cache.ini save, gauge, scan."""

from __future__ import annotations

import gc
import json
import os
import time
import weakref
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit, QPushButton, QToolButton

from cann_config.app.opcache.scanner import scan_to_end
from cann_config.app.units import CANN_MB as MIB
from cann_config.ui import dialogs
from cann_config.ui.editors import OptionEditor
from tests.ui.conftest import wait_for_ini

CANN_INI = ("#配置文件格式，必须包含，自动生成的文件中默认包括如下信息，手动创建时，需要输入\r\n"
            "[op_compiler_cache]\r\n"
            "adk_version=8.5.0\r\n"
            "ops_version=8.5.0\r\n"
            "#限制某个AI处理器下缓存文件的磁盘空间的大小，整数，单位为MB\r\n"
            "max_op_cache_size = 800   # MB, for the team\r\n"
            "remain_cache_size_ratio=60\r\n"
            "unknown_key=kept\r\n").encode()


def editor(wizard, oid):
    return wizard.findChild(OptionEditor, f"option_{oid}")


def make_cache_tree(base: Path, soc: str = "Ascend910B3", groups: int = 40, size: int = 64 * 1024) -> Path:
    """A kernel_cache with `groups` compiled operators (json + binary) accessed long ago."""
    soc_dir = base / "kernel_cache" / soc / "kernel_meta"
    soc_dir.mkdir(parents=True)
    old = time.time() - 10 * 86400
    for i in range(groups):
        name = f"te_op_{i:04d}"
        binary = soc_dir / f"{name}.o"
        binary.write_bytes(b"\0" * size)
        meta = soc_dir / f"{name}.json"
        meta.write_text(json.dumps({"binFileName": name, "binFileSuffix": ".o"}))
        for path in (binary, meta):
            os.utime(path, (old + i * 60, old + i * 60))
    return base / "kernel_cache"


def test_dirs_follow_the_option_and_the_environment(make_wizard, tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_CACHE_PATH", str(tmp_path / "shared"))
    wizard = make_wizard(device="Ascend910B3")
    dirs = wizard.findChild(QLabel, "cacheDirsLabel")
    assert str(tmp_path / "shared" / "kernel_cache") in dirs.text()
    assert str(tmp_path / "shared" / "kernel_cache" / "Ascend910B3") in dirs.text()
    editor(wizard, "op_compiler_cache_dir").setProperty("value", str(tmp_path / "mine"))
    assert str(tmp_path / "mine" / "kernel_cache" / "Ascend910B3") in dirs.text()


def test_browse_sets_the_cache_dir(make_wizard, tmp_path, monkeypatch):
    wizard = make_wizard(device="Ascend910B3")
    monkeypatch.setattr(dialogs, "choose_directory", lambda *a, **k: str(tmp_path / "picked"))
    wizard.findChild(QToolButton, "browse_op_compiler_cache_dir").click()
    assert wizard.controller.profile.options["op_compiler_cache_dir"] == str(tmp_path / "picked")


def test_effective_values_show_their_source(make_wizard, tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_MAX_OP_CACHE_SIZE", "900")
    wizard = make_wizard(device="Ascend910B3")
    size = wizard.findChild(QLabel, "effective_max_op_cache_size")
    ratio = wizard.findChild(QLabel, "effective_remain_cache_size_ratio")
    assert "900" in size.text() and "ASCEND_MAX_OP_CACHE_SIZE" in size.text()
    assert "50" in ratio.text() and "default" in ratio.text()
    assert editor(wizard, "max_op_cache_size").property("value") == 900
    # The file CANN reads (a file elsewhere is not read: test_never_wrong).
    monkeypatch.setenv("ASCEND_CACHE_PATH", str(tmp_path))
    (tmp_path / "kernel_cache").mkdir()
    ini = tmp_path / "kernel_cache" / "op_cache.ini"
    ini.write_bytes(CANN_INI)
    wizard2 = make_wizard(device="Ascend910B3", ini=ini)
    size2 = wizard2.findChild(QLabel, "effective_max_op_cache_size")
    assert "800" in size2.text() and "op_cache.ini" in size2.text()
    assert editor(wizard2, "max_op_cache_size").property("value") == 800
    assert editor(wizard2, "remain_cache_size_ratio").property("value") == 60


def test_modified_mark_and_reset(make_wizard, tmp_path):
    ini = tmp_path / "op_cache.ini"
    ini.write_bytes(CANN_INI)
    wizard = make_wizard(device="Ascend910B3", ini=ini)
    mark = wizard.findChild(QLabel, "modified_max_op_cache_size")
    reset = wizard.findChild(QToolButton, "reset_max_op_cache_size")
    assert mark.text() == "" and not reset.isEnabled()
    editor(wizard, "max_op_cache_size").setProperty("value", 1000)
    assert mark.text() and reset.isEnabled()
    reset.click()
    assert mark.text() == ""
    assert editor(wizard, "max_op_cache_size").property("value") == 800
    assert "max_op_cache_size" not in wizard.controller.profile.options


def test_saving_an_unchanged_ini_leaves_it_byte_identical(make_wizard, tmp_path, monkeypatch):
    ini = tmp_path / "op_cache.ini"
    ini.write_bytes(CANN_INI)
    reviews = []
    monkeypatch.setattr(dialogs, "run_dialog", lambda dialog: reviews.append(dialog) or True)
    wizard = make_wizard(device="Ascend910B3", ini=ini)
    wizard.findChild(QPushButton, "saveIniButton").click()
    assert ini.read_bytes() == CANN_INI
    # A change and its undo: still nothing to write.
    editor(wizard, "max_op_cache_size").setProperty("value", 1000)
    editor(wizard, "max_op_cache_size").setProperty("value", 800)
    wizard.findChild(QPushButton, "saveIniButton").click()
    assert ini.read_bytes() == CANN_INI
    assert not reviews
    assert not (tmp_path / "op_cache.ini.bak").exists()
    assert "Nothing to save" in wizard.findChild(QLabel, "iniSaveStatus").text()


def test_a_change_is_reviewed_then_saved_keeping_everything_else(make_wizard, tmp_path, monkeypatch):
    ini = tmp_path / "op_cache.ini"
    ini.write_bytes(CANN_INI)
    reviews = []
    monkeypatch.setattr(dialogs, "run_dialog", lambda dialog: reviews.append(dialog.diff_text) or False)
    wizard = make_wizard(device="Ascend910B3", ini=ini)
    editor(wizard, "max_op_cache_size").setProperty("value", 1000)
    wizard.findChild(QPushButton, "saveIniButton").click()
    assert ini.read_bytes() == CANN_INI  # the review was cancelled
    assert "-max_op_cache_size = 800   # MB, for the team" in reviews[0]
    assert "+max_op_cache_size = 1000   # MB, for the team" in reviews[0]
    monkeypatch.setattr(dialogs, "run_dialog", lambda dialog: True)
    wizard.findChild(QPushButton, "saveIniButton").click()
    assert ini.read_bytes() == CANN_INI.replace(b"= 800 ", b"= 1000 ")
    assert (tmp_path / "op_cache.ini.bak").read_bytes() == CANN_INI
    assert not wizard.controller.dirty
    assert "Saved" in wizard.findChild(QLabel, "iniSaveStatus").text()


def test_a_file_changed_on_disk_is_not_overwritten_and_the_refusal_is_shown(make_wizard, tmp_path, monkeypatch):
    ini = tmp_path / "op_cache.ini"
    ini.write_bytes(CANN_INI)
    errors = []
    monkeypatch.setattr(dialogs, "run_dialog", lambda dialog: True)
    monkeypatch.setattr(dialogs, "show_error", lambda parent, title, text: errors.append(text))
    wizard = make_wizard(device="Ascend910B3", ini=ini)
    editor(wizard, "max_op_cache_size").setProperty("value", 1000)
    changed = CANN_INI + b"# edited by someone else\n"
    ini.write_bytes(changed)
    assert wizard.cache_page.ini_panel.review_and_save() is False
    assert ini.read_bytes() == changed
    assert errors and "changed on disk" in errors[0]
    assert "changed on disk" in wizard.findChild(QLabel, "iniSaveStatus").text()


def test_a_new_ini_is_created_in_the_resolved_kernel_cache(make_wizard, qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr(dialogs, "run_dialog", lambda dialog: True)
    wizard = make_wizard(device="Ascend910B3")
    editor(wizard, "op_compiler_cache_dir").setProperty("value", str(tmp_path / "cache"))
    wait_for_ini(qtbot, wizard)
    editor(wizard, "max_op_cache_size").setProperty("value", 2000)
    for name, version in (("iniAdkVersion", "8.5.0"), ("iniOpsVersion", "8.5.1")):
        wizard.findChild(QLineEdit, name).textEdited.emit(version)  # typed, as no CANN is installed here
    assert wizard.cache_page.ini_panel.review_and_save()
    text = (tmp_path / "cache" / "kernel_cache" / "op_cache.ini").read_text(encoding="utf-8")
    assert "[op_compiler_cache]" in text and "max_op_cache_size=2000" in text
    assert "adk_version=8.5.0" in text and "ops_version=8.5.1" in text


def test_a_save_cann_would_ignore_is_refused_as_export_refuses_it(make_wizard, qtbot, tmp_path, monkeypatch):
    # Issue 24 item 6: no versions known (none installed here, none typed): nothing is written,
    # the reason is shown beside the button, and the review dialog is never offered.
    reviewed = []
    monkeypatch.setattr(dialogs, "run_dialog", lambda dialog: reviewed.append(dialog) or True)
    wizard = make_wizard(device="Ascend910B3")
    editor(wizard, "op_compiler_cache_dir").setProperty("value", str(tmp_path / "cache"))
    wait_for_ini(qtbot, wizard)
    editor(wizard, "max_op_cache_size").setProperty("value", 2000)
    assert not wizard.cache_page.ini_panel.review_and_save()
    assert not reviewed and not (tmp_path / "cache").exists()
    status = wizard.findChild(QLabel, "iniSaveStatus").text()
    assert "Not saved" in status and "CANN would ignore the file" in status and "adk_version" in status
    # An existing file with a foreign section: the edit is refused, the file and its directory unchanged.
    ini = tmp_path / "other" / "kernel_cache" / "op_cache.ini"
    ini.parent.mkdir(parents=True)
    original = b"[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\n[mine]\nx=1\n"
    ini.write_bytes(original)
    editor(wizard, "op_compiler_cache_dir").setProperty("value", str(tmp_path / "other"))
    wait_for_ini(qtbot, wizard)
    editor(wizard, "max_op_cache_size").setProperty("value", 3000)
    assert not wizard.cache_page.ini_panel.review_and_save()
    assert ini.read_bytes() == original and [p.name for p in ini.parent.iterdir()] == ["op_cache.ini"]
    assert "[mine]" in wizard.findChild(QLabel, "iniSaveStatus").text() and not reviewed


def test_the_gauge_shows_the_scanners_numbers(make_wizard, qtbot, tmp_path, monkeypatch):
    """The gauge's numbers are what CANN uses now (here the defaults, 500 MB / 50 %); the user's
    choice (1 MB / 50 %) is a second mark and a line of its own, labelled as theirs (issue 24)."""
    from cann_config.app.opcache.cleanup import predict_cleanup

    for name in ("ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO"):
        monkeypatch.delenv(name, raising=False)
    kernel_cache = make_cache_tree(tmp_path / "cache")
    wizard = make_wizard(device="Ascend910B3")
    editor(wizard, "op_compiler_cache_dir").setProperty("value", str(tmp_path / "cache"))
    editor(wizard, "max_op_cache_size").setProperty("value", 1)
    editor(wizard, "remain_cache_size_ratio").setProperty("value", 50)
    scan = wizard.findChild(QPushButton, "scanButton")
    qtbot.mouseClick(scan, Qt.MouseButton.LeftButton)
    page = wizard.cache_page.usage_panel
    assert page.cann_settings() == (500, 50) and page.choice_settings() == (1, 50)
    qtbot.waitUntil(lambda: page.usage is not None and page.predictions() is not None
                    and page.predictions((1, 50)) is not None, timeout=20000)
    page.refresh()
    usage = scan_to_end(kernel_cache)
    now = time.time()
    gauge = wizard.cache_page.usage_panel.gauge
    assert [r.soc for r in gauge.rows] == sorted(usage.socs)
    row = gauge.rows[0]
    expected = predict_cleanup(usage.socs["Ascend910B3"], 1, 50, now)
    assert row.used_bytes == usage.socs["Ascend910B3"].cann_bytes == expected.used_bytes
    assert row.files == usage.socs["Ascend910B3"].files
    # What CANN uses now: the default 500 MB, nothing to delete.
    assert row.limit_bytes == 500 * MIB and row.delete_bytes == 0 and not row.triggers
    # The user's choice, beside it and labelled as theirs.
    assert row.choice is not None
    assert row.choice.limit_bytes == 1 * MIB
    assert row.choice.keep_bytes == expected.keep_threshold_bytes == 1 * MIB * 50 // 100
    assert row.choice.delete_bytes == expected.freed_bytes > 0
    assert row.choice_percent > 100  # over the limit shows above 100 %
    said = gauge.accessibleDescription()
    assert "of 500 MB" in said and "Your choice: 1 MB, 50 % kept" in said
    assert wizard.cache_page.usage_panel.usage.free_bytes == gauge.free_bytes
    # A new limit changes the prediction without a new scan (computed in a worker).
    editor(wizard, "max_op_cache_size").setProperty("value", -1)
    qtbot.waitUntil(lambda: page.predictions() is not None, timeout=20000)
    assert not gauge.rows[0].pending
    assert gauge.rows[0].choice.limit_bytes is None and "no limit (ageing off)" in gauge.accessibleDescription()
    # Back to what CANN uses: one set of numbers, no second mark.
    editor(wizard, "max_op_cache_size").setProperty("value", 500)
    qtbot.waitUntil(lambda: gauge.rows and gauge.rows[0].choice is None, timeout=20000)
    assert "Your choice" not in gauge.accessibleDescription()


def test_stop_ends_a_scan(make_wizard, qtbot, tmp_path, monkeypatch, gate):
    import cann_config.app.opcache.scanner as scanner

    make_cache_tree(tmp_path / "cache", groups=5)
    real_scan = scanner.scan_cache
    ticks = iter(range(10**9))

    def gated_listdir(fd):
        gate.wait()
        return os.listdir(fd)

    def slow_scan(path, **kwargs):
        # Every clock reading is a new batch, and the first directory waits for the gate.
        return real_scan(path, listdir=gated_listdir, clock=lambda: float(next(ticks)), **kwargs)

    monkeypatch.setattr(scanner, "scan_cache", slow_scan)
    wizard = make_wizard(device="Ascend910B3")
    editor(wizard, "op_compiler_cache_dir").setProperty("value", str(tmp_path / "cache"))
    scan = wizard.findChild(QPushButton, "scanButton")
    scan.click()
    qtbot.waitUntil(gate.entered.is_set, timeout=10000)
    assert wizard.cache_page.usage_panel.scanning() and "Stop" in scan.text()
    scan.click()  # Stop
    gate.open()
    qtbot.waitUntil(lambda: not wizard.cache_page.usage_panel.scanning(), timeout=10000)
    qtbot.waitUntil(lambda: wizard.cache_page.usage_panel.usage is not None, timeout=10000)
    assert wizard.cache_page.usage_panel.usage.stopped
    assert "Stopped" in wizard.findChild(QLabel, "scanStatus").text()
    # The button says Scan again when the thread has finished (its own queued signal).
    qtbot.waitUntil(lambda: "Stop" not in scan.text().replace("&", ""), timeout=10000)


def test_closing_during_a_scan_stops_and_joins_the_worker(make_wizard, qtbot, tmp_path, monkeypatch, gate):
    import cann_config.app.opcache.scanner as scanner

    make_cache_tree(tmp_path / "cache", groups=3)
    real_scan = scanner.scan_cache

    def gated(path, **kwargs):
        def listdir(fd):
            gate.wait()
            return os.listdir(fd)
        return real_scan(path, listdir=listdir, **kwargs)

    monkeypatch.setattr(scanner, "scan_cache", gated)
    wizard = make_wizard(device="Ascend910B3")
    editor(wizard, "op_compiler_cache_dir").setProperty("value", str(tmp_path / "cache"))
    wizard.findChild(QPushButton, "scanButton").click()
    qtbot.waitUntil(gate.entered.is_set, timeout=10000)
    worker = wizard.cache_page.usage_panel.scan_worker
    gate.open()
    wizard.close()
    assert worker.isFinished()


def test_saving_a_size_into_a_file_without_the_other_writes_the_value_cann_uses_now(make_wizard, tmp_path, monkeypatch):
    # The core decides (app.opcache.ini_save.plan_ini_edit), as for `export op-cache-ini`.
    ini = tmp_path / "op_cache.ini"
    ini.write_bytes(b"[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\nmax_op_cache_size=800\n")
    monkeypatch.setenv("ASCEND_REMAIN_CACHE_SIZE_RATIO", "70")
    reviews = []
    monkeypatch.setattr(dialogs, "run_dialog", lambda dialog: reviews.append(dialog) or True)
    wizard = make_wizard(device="Ascend910B3", ini=ini)
    editor(wizard, "max_op_cache_size").setProperty("value", 1000)
    wizard.findChild(QPushButton, "saveIniButton").click()
    assert ini.read_bytes().endswith(b"max_op_cache_size=1000\nremain_cache_size_ratio=70\n")
    [review] = reviews
    notes = [label.text() for label in review.findChildren(QLabel)]
    assert any("remain_cache_size_ratio=70" in note and "env" in note for note in notes)


def test_a_worker_running_when_the_test_returns_is_joined_not_destroyed(make_wizard, qtbot, tmp_path, monkeypatch,
                                                                         gate):
    # The cleanup prediction a finished scan starts may still run when a test ends: the wizard
    # must outlive the test's local variable until it is closed (its workers joined), or Qt aborts
    # the run destroying a running QThread (seen under load in full runs).
    import cann_config.app.opcache.cleanup as cleanup

    make_cache_tree(tmp_path / "cache", groups=3)
    real_predict = cleanup.predict_cleanup

    def gated_predict(*args, **kwargs):
        gate.wait()
        return real_predict(*args, **kwargs)

    monkeypatch.setattr(cleanup, "predict_cleanup", gated_predict)
    wizard = make_wizard(device="Ascend910B3")
    editor(wizard, "op_compiler_cache_dir").setProperty("value", str(tmp_path / "cache"))
    wizard.findChild(QPushButton, "scanButton").click()
    qtbot.waitUntil(gate.entered.is_set, timeout=20000)
    worker = wizard.cache_page.usage_panel._prediction_worker
    assert worker.isRunning()
    alive = weakref.ref(wizard)
    del wizard
    gc.collect()
    assert alive() is not None and worker.isRunning()
    gate.open()  # the teardown closes the wizard, which joins the worker


def limit_lines(image) -> dict[int, set[int]]:
    """Columns of the gauge's limit lines, per bar: dark vertical runs taller than a bar (no glyph is)."""
    lines: dict[int, set[int]] = {}
    for x in range(image.width()):
        run = 0
        for y in range(image.height()):
            colour = image.pixelColor(x, y)
            if max(colour.red(), colour.green(), colour.blue()) < 90:
                run += 1
                continue
            if run >= 26:
                lines.setdefault(y - run, set()).add(x)
            run = 0
    return lines


def test_every_soc_bar_is_drawn_on_one_scale(qtbot):
    from cann_config.ui.gauge import CacheGauge, GaugeRow

    gauge = CacheGauge()
    qtbot.addWidget(gauge)
    gauge.resize(600, 200)
    # The same 100 MB limit, one SoC far below it and one three times over it.
    gauge.set_rows([GaugeRow("Ascend310P3", 10 * MIB, 5, 100 * MIB, None, 0, False),
                    GaugeRow("Ascend910B3", 300 * MIB, 50, 100 * MIB, None, 150 * MIB, True)])
    lines = limit_lines(gauge.grab().toImage())
    assert len(lines) == 2, lines  # one limit line per bar
    first, second = (lines[top] for top in sorted(lines))
    assert first == second  # the limit at one position


def test_the_save_message_shows_beside_the_button_in_view_and_reset_only_when_it_would_do_something(
        make_wizard, qtbot, tmp_path, monkeypatch):
    from PySide6.QtCore import QRect
    from PySide6.QtWidgets import QScrollArea

    ini = tmp_path / "op_cache.ini"
    ini.write_bytes(CANN_INI)
    monkeypatch.setattr(dialogs, "run_dialog", lambda dialog: True)
    wizard = make_wizard(device="Ascend910B3", ini=ini)
    wizard.resize(900, 500)  # the page scrolls: the Save button is below the fold at first
    wizard.show()
    qtbot.waitExposed(wizard)
    while wizard.currentPage() is not wizard.cache_page:
        wizard.next()
    reset = wizard.findChild(QToolButton, "reset_max_op_cache_size")
    status = wizard.findChild(QLabel, "iniSaveStatus")
    assert not reset.isEnabled() and not status.isVisible()  # nothing chosen: nothing to reset
    editor(wizard, "max_op_cache_size").setProperty("value", 1000)
    assert reset.isEnabled()
    scroll = wizard.cache_page.findChild(QScrollArea)
    scroll.verticalScrollBar().setValue(0)
    button = wizard.findChild(QPushButton, "saveIniButton")
    button.click()
    assert ini.read_bytes() == CANN_INI.replace(b"= 800 ", b"= 1000 ")
    assert status.isVisible() and status.text().startswith("Saved ")
    # In the same row as the button, and scrolled into the part of the page that is shown.
    assert status.parentWidget() is button.parentWidget() and status.geometry().top() <= button.geometry().bottom() \
        and status.geometry().bottom() >= button.geometry().top() and status.x() > button.x()
    shown = QRect(status.mapTo(scroll.viewport(), status.rect().topLeft()), status.size())
    assert scroll.viewport().rect().contains(shown), (shown, scroll.viewport().rect())
    # The file now holds the choice: Reset would go back to the same value.
    assert not reset.isEnabled()
    editor(wizard, "max_op_cache_size").setProperty("value", 700)
    assert reset.isEnabled()
    reset.click()
    assert editor(wizard, "max_op_cache_size").property("value") == 1000 and not reset.isEnabled()


def test_op_cache_ini_is_read_off_the_gui_thread(make_wizard, qtbot, tmp_path, monkeypatch, gate):
    """A read of op_cache.ini that waits (a hung mount) never holds the window: the page says it is
    reading the file, the event loop runs, and the values come when the read does."""
    import threading

    import cann_config.app.opcache.ini as ini_module

    (tmp_path / "kernel_cache").mkdir()
    ini = tmp_path / "kernel_cache" / "op_cache.ini"
    ini.write_bytes(CANN_INI)
    monkeypatch.setenv("ASCEND_CACHE_PATH", str(tmp_path))
    real_read = ini_module.read_op_cache_ini
    readers = []

    def slow_read(path, **kwargs):
        readers.append(threading.current_thread() is threading.main_thread())
        gate.wait()
        return real_read(path, **kwargs)

    monkeypatch.setattr(ini_module, "read_op_cache_ini", slow_read)
    wizard = make_wizard(device="Ascend910B3")
    wizard.cache_page.ensure_built()
    assert gate.entered.wait(10) and readers == [False]
    ticks = []
    qtbot.waitUntil(lambda: ticks.append(1) or len(ticks) > 3)  # the event loop runs meanwhile
    status = wizard.findChild(QLabel, "iniStatus").text()
    assert "reading" in status and str(ini) in status
    assert editor(wizard, "max_op_cache_size").property("value") == 500  # CANN's default until it is read
    assert not wizard.cache_page.ini_panel.review_and_save()  # nothing to keep yet: not saved
    assert "still being read" in wizard.findChild(QLabel, "iniSaveStatus").text()
    gate.open()
    wait_for_ini(qtbot, wizard)
    assert editor(wizard, "max_op_cache_size").property("value") == 800
    assert "reading" not in wizard.findChild(QLabel, "iniStatus").text()


def test_a_fifo_at_the_op_cache_ini_path_is_a_clear_finding(make_wizard, qtbot, tmp_path, monkeypatch):
    (tmp_path / "kernel_cache").mkdir()
    fifo = tmp_path / "kernel_cache" / "op_cache.ini"
    os.mkfifo(fifo)  # no writer: a plain open() would wait for one forever
    monkeypatch.setenv("ASCEND_CACHE_PATH", str(tmp_path))
    wizard = make_wizard(device="Ascend910B3")
    wait_for_ini(qtbot, wizard)
    status = wizard.findChild(QLabel, "iniStatus").text()
    assert "cannot be used" in status and str(fifo) in status and "FIFO" in status
    assert wizard.controller.ini is None
