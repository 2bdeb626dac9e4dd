"""Every page fits a laptop screen (issue 27): 1366x768 at QT_SCALE_FACTOR 1 and 2 (683x384
logical pixels), in English and Chinese, at the size the window opens at and at the screen's
size. No text or button is squashed: a visible word-wrapped label's heightForWidth(width) fits
its height; other labels, buttons, group boxes, combo boxes, spin boxes and line edits are at
least their minimumSizeHint; and the window fits the screen. Each case runs in its own process
(the offscreen platform takes its screen from a JSON file, the scale factor is read at start-up)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

PROBE = r"""
import json, sys
from PySide6.QtWidgets import (QAbstractButton, QAbstractSpinBox, QApplication, QComboBox, QGroupBox, QLabel,
                               QLineEdit)
app = QApplication([])
import cann_config.ui as ui
from cann_config.ui import settings
settings.configure_application(app)
lang = sys.argv[1]

CHECKED = (QAbstractButton, QGroupBox, QComboBox, QAbstractSpinBox, QLineEdit)

def squashed(wizard):
    out = []
    checked = 0
    for w in wizard.findChildren(QLabel) + [c for t in CHECKED for c in wizard.findChildren(t)]:
        if not w.isVisible() or w.window() is not wizard or w.objectName().startswith("qt_"):
            continue
        if isinstance(w, QLabel) and not w.text():
            continue
        if isinstance(w.parentWidget(), (QAbstractSpinBox, QComboBox, QLineEdit)):
            continue  # a part of a spin box, combo box or line edit (its clear button): the box is checked
        checked += 1
        name = w.objectName() or type(w).__name__
        text = w.text()[:40] if hasattr(w, "text") and isinstance(w.text(), str) else ""
        if isinstance(w, QLabel) and w.wordWrap():
            need = w.heightForWidth(w.width())
            if need > w.height():
                out.append([name, text, "height", w.height(), need])
            continue
        hint = w.minimumSizeHint()
        if w.width() < hint.width() or w.height() < hint.height():
            out.append([name, text, "size", [w.width(), w.height()], [hint.width(), hint.height()]])
    return out, checked

w = ui.create_wizard(device="Ascend910B3")
if lang == "zh_CN":
    w.set_language("zh_CN")
w.show(); app.processEvents()
a = w.screen().availableGeometry()
f = w.frameGeometry()
out = {"fits": a.contains(f), "screen": [a.width(), a.height()], "window": [f.width(), f.height()], "pages": {}, "checked": {}}
for size_name in ("opened", "screen"):
    if size_name == "screen":
        w.setGeometry(a)
    while w.currentId() != w.startId():
        w.back()
    for _ in w.pageIds():
        app.processEvents()
        page = w.currentPage()
        out["pages"][f"{size_name}/{page.objectName()}"], out["checked"][f"{size_name}/{page.objectName()}"] = squashed(w)
        w.next()
w.close()
print(json.dumps(out))
"""


def run_probe(tmp_path, scale: int, lang: str) -> subprocess.Popen:
    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"screens": [{"name": "laptop", "x": 0, "y": 0, "width": 1366, "height": 768,
                                               "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    home = tmp_path / f"home-{scale}-{lang}"
    home.mkdir(exist_ok=True)
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), QT_SCALE_FACTOR=str(scale),
               QT_QPA_PLATFORM=f"offscreen:configfile={config}", LANG="en_US.UTF-8")
    return subprocess.Popen([sys.executable, "-c", PROBE, lang], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


CASES = [(scale, lang) for scale in (1, 2) for lang in ("en", "zh_CN")]


@pytest.fixture(scope="module")
def probes(tmp_path_factory):
    """The four cases, two at a time (the machine has two cores)."""
    tmp_path = tmp_path_factory.mktemp("fits")
    results = {}
    for pair in (CASES[:2], CASES[2:]):
        running = {case: run_probe(tmp_path, *case) for case in pair}
        for case, proc in running.items():
            out, err = proc.communicate(timeout=240)
            assert proc.returncode == 0, err
            results[case] = json.loads(out.strip().splitlines()[-1])
    return results


@pytest.mark.parametrize(("scale", "lang"), CASES)
def test_no_text_or_button_is_squashed_on_any_page(probes, scale, lang):
    result = probes[(scale, lang)]
    assert result["fits"], result
    assert result["screen"] == ([1366, 768] if scale == 1 else [683, 384])
    assert len(result["pages"]) == 8  # four pages, at two window sizes
    assert all(count >= 10 for count in result["checked"].values()), result["checked"]
    squashed = {page: found for page, found in result["pages"].items() if found}
    assert not squashed, json.dumps(squashed, ensure_ascii=False, indent=1)
