"""The window in Chinese and English: the .ts is complete and current, every text a page shows in
zh_CN is translated (or is data that stays as it is), and the language switch re-translates
the pages, the documentation pane and the export preview at once, and is remembered.

The check of a shown text: every fragment of a Chinese text we ship (the .ts translations and
every `zh` text of the catalog, device table and message tables, split at their placeholders)
is taken out of it; what is left may hold only data, never an English word: option ids, values
and SoC names, paths, numbers, units, code, and the few product names listed in DATA_WORDS.
"""

from __future__ import annotations

import gc
import re
import subprocess
import sys
import weakref
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, Qt, QTranslator
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QTextBrowser,
    QWidget,
    QWizard,
)

import cann_config.ui.translation as translation
from cann_config.app.i18n import current_language
from cann_config.app.io.formats import FORMATS
from cann_config.app.resources import resource
from cann_config.ui import settings
from cann_config.ui.gauge import CacheGauge

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "resources" / "translations" / "cann_config_zh_CN.ts"

# Names that stay as they are in a Chinese sentence (products, frameworks, units, the name of
# the English language in the language switch). Identifiers, paths and numbers need no entry.
DATA_WORDS = {"English", "CANN", "SoC", "Ascend", "Atlas", "TensorFlow", "PyTorch", "MindSpore", "Python",
              "KiB", "MiB", "GiB", "TiB", "MB", "B", "enable", "disable", "force",
              "ansible"}  # an export format id (cann-config export ansible)
HTML_TAG = re.compile(r"</?(?:b|i|br|code|small|span|p|h3)\b[^>]*>")
MNEMONIC = re.compile(r"&([^&\s])")
PLACEHOLDER = re.compile(r"%\d|\{[a-z_]+(?:![rs])?\}")
CLAUSE_END = re.compile(r"[。；：，、（）]")
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


@pytest.fixture(autouse=True)
def _no_unsaved_question(monkeypatch):
    """Closing a shown wizard with choices made does not ask what to do with them."""
    from cann_config.ui import dialogs

    monkeypatch.setattr(dialogs, "ask_unsaved", lambda *args, **kwargs: "discard")


# -- the .ts ------------------------------------------------------------------------------------

def ts_messages(path: Path) -> dict[tuple[str, str, str], ET.Element]:
    """(context, source, disambiguation) -> the <translation> element."""
    messages = {}
    for context in ET.parse(path).getroot().iter("context"):
        name = context.findtext("name")
        for message in context.iter("message"):
            key = (name, message.findtext("source"), message.findtext("comment") or "")
            messages[key] = message.find("translation")
    return messages


def lupdate() -> str:
    import PySide6

    for candidate in (Path(PySide6.__file__).parent / "lupdate", Path(sys.executable).parent / "pyside6-lupdate"):
        if candidate.is_file():
            return str(candidate)
    pytest.skip("pyside6-lupdate is not installed")


def test_the_ts_has_every_text_of_ui_and_each_is_translated(tmp_path):
    fresh = tmp_path / "fresh.ts"
    subprocess.run([lupdate(), "-silent", "-extensions", "py", "-no-obsolete", "-locations", "none",
                    str(ROOT / "ui"), "-ts", str(fresh)], check=True, capture_output=True, timeout=120)
    wanted, have = set(ts_messages(fresh)), ts_messages(TS)
    assert wanted - set(have) == set(), "texts missing from the .ts: run `make ts` and translate them"
    assert set(have) - wanted == set(), "the .ts has texts ui/ no longer uses: run `make ts`"
    assert "unfinished" not in TS.read_text(encoding="utf-8")
    for key, element in have.items():
        assert element.get("type") is None, key
        assert (element.text or "").strip(), key


def test_translations_keep_placeholders_markup_and_mnemonics():
    for (context, source, _), element in ts_messages(TS).items():
        text = element.text
        where = f"{context}: {source!r} -> {text!r}"
        assert sorted(re.findall(r"%\d", source)) == sorted(re.findall(r"%\d", text)), where
        assert HTML_TAG.findall(source) == HTML_TAG.findall(text), where
        # The same access key in both languages keeps each page's keys distinct in both.
        assert [m.upper() for m in MNEMONIC.findall(source)] == [m.upper() for m in MNEMONIC.findall(text)], where
        if text == source:  # only names and separators read the same in Chinese
            assert not re.search(r"[A-Za-z]{2,}", PLACEHOLDER.sub("", source)) or "." in source, where


# -- what a text may hold -----------------------------------------------------------------------

def _zh_texts(node: object) -> list[str]:
    if isinstance(node, dict):
        found = [v for k, v in node.items() if k == "zh" and isinstance(v, str)]
        for value in node.values():
            found += _zh_texts(value)
        return found
    if isinstance(node, list):
        return [t for item in node for t in _zh_texts(item)]
    return []


def without_markup(text: str) -> str:
    return re.sub(r"<[^>]+>", " ", text).replace("&nbsp;", " ").replace("&amp;", "&")


@lru_cache(maxsize=1)
def zh_fragments() -> tuple[str, ...]:
    """The literal parts of every Chinese text we ship, longest first."""
    texts = [element.text for element in ts_messages(TS).values()]
    texts += list(FORMATS)  # the export format ids are data (app/io/formats.py), as option ids are
    data = resource("catalog.toml"), resource("devices.toml"), *resource("messages").iterdir()
    for node in data:
        if node.name.endswith(".toml"):
            texts += _zh_texts(tomllib.loads(node.read_text(encoding="utf-8")))
    fragments = set()
    for text in texts:
        for part in PLACEHOLDER.split(text.replace("{{", "{").replace("}}", "}")):
            # The whole part, and its clauses (a combo box shows the first clause of a meaning).
            part = without_markup(part)
            for piece in [part, *CLAUSE_END.split(part)]:
                piece = piece.strip()
                if CJK.search(piece) or re.search(r"[A-Za-z]", piece):
                    fragments.add(piece)
    return tuple(sorted(fragments, key=len, reverse=True))


def _is_data(token: str) -> bool:
    token = token.strip(".,;:!?()[]{}'\"`<>*…—-")
    if not re.search(r"[A-Za-z]", token):
        return True
    return (bool(re.search(r"[\d_/.$=-]", token)) or token in DATA_WORDS
            or (token.isupper() and len(token) > 1))


def untranslated(text: str) -> list[str]:
    """The English words of `text` that are neither in a shipped Chinese text nor data."""
    text = without_markup(text)
    for fragment in zh_fragments():
        if fragment in text:  # as a whole: "B" of "2 B" is not taken out of "MB"
            text = re.sub(r"(?<![\w./])" + re.escape(fragment) + r"(?![\w./])", " ", text)
    tokens = re.split(r"[\s\u3000-\u303f\uff00-\uffef\u4e00-\u9fff]+", text)
    return [t for t in tokens if t and not _is_data(t)]


def test_the_check_finds_english_and_lets_data_and_chinese_pass():
    assert untranslated("Detected: Ascend910B3") == ["Detected:"]
    assert untranslated("<b>检测到：</b>Atlas A2 训练系列产品/Atlas A2 推理系列产品（Ascend910B3，由 npu-smi 检测）") == []
    assert untranslated("缓存根目录：/tmp/x/kernel_cache — 由 op_compiler_cache_dir 设置 and more") == ["and", "more"]
    assert untranslated("6 MB; 2.5 MiB; ASCEND_MAX_OP_CACHE_SIZE=500; English") == []


# -- walking the window -------------------------------------------------------------------------

def shown_texts(root: QWidget) -> list[tuple[str, str]]:
    """(widget, text) for every text a user can see or hover over under `root`."""
    found: list[tuple[str, str]] = []

    def add(widget: QWidget, text: str) -> None:
        if text and text.strip():
            found.append((widget.objectName() or type(widget).__name__, text))

    for widget in [root, *root.findChildren(QWidget)]:
        if not widget.isVisibleTo(root) and widget is not root:
            continue
        add(widget, widget.toolTip())
        add(widget, widget.windowTitle() if widget.isWindow() else "")
        if isinstance(widget, QLabel):
            add(widget, widget.text())
        elif isinstance(widget, QAbstractButton):
            add(widget, widget.text())
        elif isinstance(widget, QGroupBox):
            add(widget, widget.title())
        elif isinstance(widget, QLineEdit):
            add(widget, widget.placeholderText())
        elif isinstance(widget, QComboBox):
            for i in range(widget.count()):
                add(widget, widget.itemText(i))
                add(widget, widget.itemData(i, Qt.ItemDataRole.ToolTipRole) or "")
        elif isinstance(widget, QListWidget):
            for i in range(widget.count()):
                add(widget, widget.item(i).text())
                add(widget, widget.item(i).toolTip())
        elif isinstance(widget, CacheGauge):
            add(widget, widget.summary())
    return found


@pytest.fixture
def cache_dir(tmp_path):
    """A small operator cache and a op_cache.ini CANN reads."""
    from tests.ui.test_cache_page import make_cache_tree

    kernel_cache = make_cache_tree(tmp_path / "cache", groups=6)
    (kernel_cache / "op_cache.ini").write_text("[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\n"
                                               "max_op_cache_size=1\nremain_cache_size_ratio=60\n", encoding="utf-8")
    return tmp_path / "cache"


def switch(wizard, lang: str) -> None:
    """What a click in the language switch's menu does."""
    wizard.findChild(QAction, f"language_{lang}").trigger()


def busy_wizard(make_wizard, qtbot, cache_dir):
    """A wizard on every page with something to say: a detection, a disabled option, a rule
    that applies, a scan with its gauge and findings, an export with findings."""
    from cann_config.ui.editors import OptionEditor
    from tests.ui.conftest import host_probe

    wizard = make_wizard(device="Ascend310P3", framework="tf1")
    probe = host_probe("Ascend910B3")
    wizard.controller.set_detection("done", type(probe)(device=probe.device, toolkit_version="8.5.0"))
    wizard.findChild(OptionEditor, "option_static_memory_policy").setProperty("value", 2)
    wizard.findChild(OptionEditor, "option_op_compiler_cache_dir").setProperty("value", str(cache_dir))
    wizard.findChild(OptionEditor, "option_max_op_cache_size").setProperty("value", 2)
    page = wizard.cache_page.usage_panel
    page.start_scan()
    qtbot.waitUntil(lambda: page.usage is not None and page.predictions() is not None, timeout=20000)
    page.refresh()
    return wizard


def test_every_text_of_every_page_is_translated_in_zh_CN(make_wizard, qtbot, cache_dir):
    wizard = busy_wizard(make_wizard, qtbot, cache_dir)
    switch(wizard, "zh_CN")
    wizard.show()
    qtbot.waitExposed(wizard)
    problems = []
    for page_id in wizard.pageIds():
        while wizard.currentId() != page_id:
            wizard.next()
        page = wizard.currentPage()
        texts = shown_texts(page) + [("title", page.title()), ("subTitle", page.subTitle()),
                                     ("windowTitle", wizard.windowTitle())]
        for which in (QWizard.WizardButton.BackButton, QWizard.WizardButton.NextButton,
                      QWizard.WizardButton.FinishButton, QWizard.WizardButton.CancelButton,
                      QWizard.WizardButton.CustomButton1):
            button = wizard.button(which)
            if button.isVisible():
                texts += [("button", button.text()), ("tooltip", button.toolTip())]
        texts += [("language menu", a.text()) for a in wizard.language_button.menu().actions()]
        for name, text in texts:
            words = untranslated(text)
            if words:
                problems.append(f"{page.objectName()} {name}: {text!r} has {words}")
    assert not problems, "\n".join(problems)
    # Qt's own buttons come from qtbase_zh_CN.
    assert wizard.button(QWizard.WizardButton.FinishButton).text().startswith("完成")
    assert wizard.button(QWizard.WizardButton.CancelButton).text() == "取消"


def test_the_dialogs_are_translated_in_zh_CN(make_wizard, qtbot):
    from cann_config.ui.npusmi_dialog import NpuSmiDialog
    from cann_config.ui.review import ReviewDialog

    wizard = make_wizard(device="Ascend910B3")
    switch(wizard, "zh_CN")
    dialogs = [NpuSmiDialog(wizard), ReviewDialog("/x/op_cache.ini", "[op_compiler_cache]\n",
                                                  "[op_compiler_cache]\nmax_op_cache_size=9\n", [], wizard)]
    problems = []
    for dialog in dialogs:
        dialog.show()
        qtbot.waitExposed(dialog)
        for name, text in shown_texts(dialog):
            if untranslated(text):
                problems.append(f"{dialog.objectName()} {name}: {text!r}")
        dialog.close()
    assert not problems, "\n".join(problems)
    assert "op_cache.ini（保存后）" in dialogs[1].diff_text


def test_switching_retranslates_pages_docs_and_preview_at_once(make_wizard, qtbot, cache_dir):
    from cann_config.app.io.exporters import export_text

    wizard = busy_wizard(make_wizard, qtbot, cache_dir)
    wizard.next()
    wizard.show_option_doc("static_memory_policy")
    doc = wizard.findChild(QTextBrowser, "docPane")
    preview = wizard.export_page.preview
    wizard.export_page.copy()
    title = wizard.findChild(QLabel, "title_static_memory_policy")
    assert "Static memory policy" in title.text() and "Values" in doc.toPlainText()

    switch(wizard, "zh_CN")
    assert current_language() == "zh_CN"
    assert wizard.windowTitle() == "CANN 配置助手"
    assert wizard.memory_page.title() == "内存策略" and wizard.device_page.title() == "设备与框架"
    assert "静态内存分配策略" in title.text()
    assert wizard.button(QWizard.WizardButton.NextButton).text() == "下一步(&N) >"
    assert wizard.language_button.text() == "中文"
    # The documentation pane keeps the option it showed, now in Chinese.
    assert "静态内存分配策略" in doc.toPlainText() and "取值" in doc.toPlainText()
    assert "Values" not in doc.toPlainText()
    # The preview is the exporter's Chinese text (its comments), the findings too.
    fmt = wizard.export_page.current_format()
    assert preview.toPlainText() == export_text(wizard.controller.profile, fmt, lang="zh_CN", device=wizard.controller.device).text
    assert preview.toPlainText().startswith("# 由 cann-config")
    assert wizard.findChild(QWidget, "exportStatus").text() == "已复制到剪贴板。"
    assert "个文件" in wizard.findChild(QLabel, "scanStatus").text()
    assert "上限" in wizard.findChild(CacheGauge, "cacheGauge").summary()
    combo = wizard.findChild(QComboBox, "combo_static_memory_policy")
    assert "静态 shape 内存扩展" in combo.currentText()

    switch(wizard, "en")
    assert current_language() == "en" and wizard.windowTitle() == "CANN Config Assistant"
    assert "Static memory policy" in title.text() and "Values" in doc.toPlainText()
    assert wizard.button(QWizard.WizardButton.NextButton).text() == "&Next >"
    assert preview.toPlainText() == export_text(wizard.controller.profile, fmt, lang="en", device=wizard.controller.device).text
    assert wizard.findChild(QWidget, "exportStatus").text() == "Copied to the clipboard."
    assert "files" in wizard.findChild(QLabel, "scanStatus").text()


def test_the_choice_is_remembered_and_used_at_the_next_start(make_wizard, monkeypatch):
    from cann_config.ui.app import remembered_language

    wizard = make_wizard(device="Ascend910B3")
    assert remembered_language() is None
    switch(wizard, "zh_CN")
    assert settings.read_str(settings.KEY_LANGUAGE) == "zh_CN" and remembered_language() == "zh_CN"
    assert wizard.language_actions["zh_CN"].isChecked() and not wizard.language_actions["en"].isChecked()
    switch(wizard, "en")
    assert remembered_language() == "en"
    settings.write(settings.KEY_LANGUAGE, "klingon")
    assert remembered_language() is None


def test_the_language_switch_is_on_every_page(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    wizard.show()
    for _ in wizard.pageIds():
        assert wizard.language_button.isVisible() and wizard.language_button.text() == "English"
        wizard.next()


def test_access_keys_are_distinct_on_each_page_in_both_languages(make_wizard, qtbot):
    wizard = make_wizard(device="Ascend910B3")
    wizard.show()
    qtbot.waitExposed(wizard)
    for lang in ("en", "zh_CN"):
        switch(wizard, lang)
        wizard.restart()
        for _ in wizard.pageIds():
            keys = []
            for widget in wizard.findChildren(QWidget):
                if widget.isVisible() and isinstance(widget, (QAbstractButton, QLabel)):
                    keys += [k.upper() for k in MNEMONIC.findall(widget.text())]
            assert len(keys) == len(set(keys)), (lang, wizard.currentPage().objectName(), sorted(keys))
            wizard.next()


def test_a_closed_wizard_is_freed(qtbot):
    import cann_config.ui as ui
    wizard = ui.create_wizard(device="Ascend910B3")
    switch(wizard, "zh_CN")
    switch(wizard, "en")
    ref = weakref.ref(wizard)
    wizard.close()
    del wizard
    gc.collect()
    assert ref() is None


# -- loading and compiling the translation -------------------------------------------------------

def qm_says(path: Path, context: str, source: str) -> str:
    translator = QTranslator()
    assert translator.load(str(path))
    return translator.translate(context, source)


@pytest.fixture
def sources(tmp_path, monkeypatch):
    """resources/translations as a temporary copy the test can age and remove files from."""
    folder = tmp_path / "translations"
    folder.mkdir()
    (folder / TS.name).write_bytes(TS.read_bytes())

    def resource_path(name):
        path = folder / name
        return path if path.is_file() else None

    monkeypatch.setattr(translation, "_resource_path", resource_path)
    return folder


def test_a_missing_qm_is_compiled_into_the_cache_once(sources, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    qm, reason = translation.catalog_qm("zh_CN", cache=cache)
    assert reason == "" and qm.parent == cache and qm.name.startswith("cann_config_zh_CN-")
    assert qm_says(qm, "ExportPage", "Export") == "导出"

    def no_lrelease(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr(subprocess, "run", no_lrelease)
    assert translation.catalog_qm("zh_CN", cache=cache) == (qm, "")


def test_a_qm_older_than_its_ts_is_not_used(sources, tmp_path):
    import os

    old_qm = sources / "cann_config_zh_CN.qm"
    translation.compile_ts(sources / TS.name, old_qm, translation.find_lrelease())
    stat = (sources / TS.name).stat()
    os.utime(old_qm, ns=(stat.st_atime_ns, stat.st_mtime_ns - 10**9))
    qm, _ = translation.catalog_qm("zh_CN", cache=tmp_path / "cache")
    assert qm.parent == tmp_path / "cache"
    os.utime(old_qm, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert translation.catalog_qm("zh_CN", cache=tmp_path / "cache") == (old_qm, "")


def test_a_changed_ts_replaces_the_compiled_one(sources, tmp_path):
    cache = tmp_path / "cache"
    first, _ = translation.catalog_qm("zh_CN", cache=cache)
    ts = sources / TS.name
    ts.write_text(ts.read_text(encoding="utf-8").replace("<translation>导出</translation>",
                                                          "<translation>导出！</translation>"), encoding="utf-8")
    second, _ = translation.catalog_qm("zh_CN", cache=cache)
    assert second != first and not first.exists()
    assert qm_says(second, "ExportPage", "Export") == "导出！"


def test_without_lrelease_the_window_stays_english_and_says_why(sources, tmp_path, monkeypatch, capsys, qapp):
    monkeypatch.setattr(translation, "find_lrelease", lambda: None)
    monkeypatch.setattr(translation, "cache_dir", lambda: tmp_path / "cache")
    assert translation.apply_language("zh_CN") == "en"
    assert current_language() == "en"
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "warning" in lines[0] and "lrelease" in lines[0] and "English" in lines[0]
    assert QCoreApplication.translate("QWizard", "Cancel") == "Cancel"  # no translator left installed


def test_a_switch_to_a_translation_that_cannot_load_keeps_english(make_wizard, sources, tmp_path, monkeypatch,
                                                                   capsys):
    monkeypatch.setattr(translation, "find_lrelease", lambda: None)
    monkeypatch.setattr(translation, "cache_dir", lambda: tmp_path / "cache")
    wizard = make_wizard(device="Ascend910B3")
    switch(wizard, "zh_CN")
    assert current_language() == "en" and wizard.windowTitle() == "CANN Config Assistant"
    assert wizard.language_actions["en"].isChecked() and wizard.language_button.text() == "English"
    assert settings.read_str(settings.KEY_LANGUAGE) == ""
    assert "warning" in capsys.readouterr().err


def test_qt_and_our_translators_load_and_unload(qapp):
    try:
        assert translation.install_translators("zh_CN") == ["qtbase_zh_CN", "cann_config_zh_CN"]
        assert QCoreApplication.translate("QWizard", "&Next >") == "下一步(&N) >"
        assert QCoreApplication.translate("ExportPage", "Export") == "导出"
    finally:
        assert translation.install_translators("en") == []
    assert QCoreApplication.translate("ExportPage", "Export") == "Export"


@pytest.mark.parametrize("given, remembered, expected", [(None, "zh_CN", "zh_CN"), ("en", "zh_CN", "en"),
                                                          (None, None, "en"), ("zh_CN", None, "zh_CN")])
def test_the_application_starts_in_the_chosen_language(qapp, capsys, given, remembered, expected):
    """--lang first, then the language chosen in the window last time, then the locale's (en in
    the tests); the application also names its desktop entry (the packaging id) for Wayland."""
    from argparse import Namespace

    from PySide6.QtGui import QGuiApplication

    from cann_config.ui.app import DESKTOP_FILE_NAME, run

    if remembered:
        settings.write(settings.KEY_LANGUAGE, remembered)
    args = Namespace(lang=given, device="Ascend910B3", profile=None, ini=None, framework=None, smoke=True)
    try:
        assert run(args) == 0
        assert current_language() == expected
        assert QCoreApplication.translate("ExportPage", "Export") == ("导出" if expected == "zh_CN" else "Export")
    finally:
        translation.install_translators("en")
    assert capsys.readouterr().out.startswith("shown")
    assert QGuiApplication.desktopFileName() == DESKTOP_FILE_NAME
    assert (ROOT / "packaging" / f"{DESKTOP_FILE_NAME}.desktop").is_file()
