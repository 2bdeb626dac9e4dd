"""A walk through every page of the wizard in zh_CN, the way a Chinese-reading user meets it: a
detected device (so the options it lacks are greyed with their reasons), the advanced options
open, a scanned cache and an export. No text shown may be English-only unless it is data: an
identifier, a path, a number or unit, a value literal or a product name (`is_data` of
test_translations, whose DATA_WORDS lists the few names)."""

from __future__ import annotations

import re

import pytest
from PySide6.QtWidgets import QCheckBox, QLabel, QWizard

from cann_config.app.device.hostprobe import HostProbe
from cann_config.app.errors import Message
from tests.ui import test_translations
from tests.ui.test_translations import _is_data, busy_wizard, shown_texts, switch


@pytest.fixture
def cache_dir(tmp_path):
    return test_translations.cache_dir.__wrapped__(tmp_path)


# Names of products and programs met inside Chinese texts, besides test_translations.DATA_WORDS.
PRODUCT_WORDS = {"AscendCL", "Estimator", "bash", "sh", "Ansible"}
# An identifier written in camel case (aclCompileOpt, NPURunConfig).
CAMEL = re.compile(r"^[A-Za-z]+[a-z][A-Z][A-Za-z]*$|^[A-Z]{2,}[a-z]+[A-Za-z]*$")
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def is_data(token: str) -> bool:
    word = token.strip(".,;:!?()[]{}'\"`<>*…—-")
    return _is_data(token) or word in PRODUCT_WORDS or bool(CAMEL.match(word))


def english_only(text: str) -> list[str]:
    """The words of `text` that are not data, in each stretch of `text` that is English-only: the
    whole text, or a phrase between Chinese characters of a mixed line (two words or more, so a
    name such as "CANN Toolkit" in a Chinese sentence passes)."""
    plain = re.sub(r"<[^>]+>", "\n", text).replace("&nbsp;", " ").replace("&amp;", "&")
    words = [t for t in plain.split() if not is_data(t)]
    if not CJK.search(plain):
        return words
    found = []
    for stretch in re.split(r"[\n\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]+", plain):
        words = [t for t in stretch.split() if not is_data(t)]
        if len(words) >= 2:
            found += words
    return found


def test_the_check_tells_english_from_data():
    assert english_only("How: npu-smi info: read 1 NPU chip(s).") == ["How:", "info:", "read", "chip(s)."]
    assert english_only("ATC 和 AscendCL aclCompileOpt 的默认值；NPURunConfig（Python）") == []
    assert english_only("Saved") == ["Saved"]
    assert english_only("ASCEND_MAX_OP_CACHE_SIZE=500; /tmp/x/op_cache.ini; 6 MB; Atlas A2") == []
    assert english_only("检测到：Ascend910B3 and") == []
    assert english_only("检测方式：npu-smi info: read 1 NPU chip(s).") == ["info:", "read", "chip(s)."]


def test_every_page_shows_chinese_or_data_only(make_wizard, qtbot, cache_dir):
    wizard = busy_wizard(make_wizard, qtbot, cache_dir)
    probe = wizard.controller.detected
    # Detected as the core reports it: its steps are message codes, rendered in the window's language.
    wizard.controller.set_detection("done", HostProbe(device=probe.device, toolkit_version="8.5.0",
                                                      steps=[Message("devices-probe-ran", command="npu-smi info",
                                                                     count=1)]))
    switch(wizard, "zh_CN")
    wizard.findChild(QCheckBox, "advancedToggle").setChecked(True)
    wizard.show()
    qtbot.waitExposed(wizard)
    problems, greyed = [], 0
    for page_id in wizard.pageIds():
        while wizard.currentId() != page_id:
            wizard.next()
        page = wizard.currentPage()
        greyed += sum(1 for w in page.findChildren(QLabel) if w.objectName().startswith("reason_") and w.isVisible())
        texts = shown_texts(page) + [("title", page.title()), ("subTitle", page.subTitle())]
        for which in (QWizard.WizardButton.BackButton, QWizard.WizardButton.NextButton,
                      QWizard.WizardButton.FinishButton, QWizard.WizardButton.CancelButton):
            button = wizard.button(which)
            if button.isVisible():
                texts.append(("button", button.text()))
        for name, text in texts:
            words = english_only(text)
            if words:
                problems.append(f"{page.objectName()} {name}: {text!r} has {words}")
    assert not problems, "\n".join(problems)
    assert greyed, "the walk saw no option greyed for the device"
    banner = wizard.device_page.banner.text()
    assert "读取到 1 个 NPU 芯片" in banner
    switch(wizard, "en")
    assert "read 1 NPU chip(s)" in wizard.device_page.banner.text()
