"""What the wizard remembers (QSettings) and what happens when it closes."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QCheckBox, QComboBox

from cann_config.ui import dialogs, settings
from cann_config.ui.editors import OptionEditor


def test_choices_and_geometry_are_remembered(make_wizard, qtbot):
    wizard = make_wizard(device="Ascend910B3")
    wizard.show()
    qtbot.waitExposed(wizard)
    wizard.resize(QSize(780, 650))  # within the offscreen screen (800x800)
    shown = wizard.size()
    formats = wizard.findChild(QComboBox, "exportFormatCombo")
    formats.setCurrentIndex(formats.findData("env-bash"))
    wizard.findChild(QCheckBox, "changedOnlyCheck").setChecked(True)
    wizard.findChild(QCheckBox, "advancedToggle").setChecked(True)
    wizard.close()
    again = make_wizard(device="Ascend910B3")
    assert again.findChild(QComboBox, "exportFormatCombo").currentData() == "env-bash"
    assert again.findChild(QCheckBox, "changedOnlyCheck").isChecked()
    assert again.findChild(QCheckBox, "advancedToggle").isChecked()
    assert again.size() == shown and shown.height() == 650


def test_closing_with_unsaved_choices_asks_first(make_wizard, qtbot, monkeypatch):
    answers = ["cancel", "discard"]
    asked = []

    def ask(parent, details, **kwargs):
        asked.append(details)
        return answers.pop(0)

    monkeypatch.setattr(dialogs, "ask_unsaved", ask)
    wizard = make_wizard(device="Ascend910B3")
    wizard.show()
    qtbot.waitExposed(wizard)
    wizard.findChild(OptionEditor, "option_static_memory_policy").setProperty("value", 2)
    wizard.close()
    assert wizard.isVisible() and len(asked) == 1  # cancelled: still open
    wizard.reject()  # Escape / Cancel asks too
    assert not wizard.isVisible() and len(asked) == 2


def test_saving_the_profile_from_the_close_prompt(make_wizard, qtbot, monkeypatch, tmp_path):
    target = tmp_path / "mine.json"
    monkeypatch.setattr(dialogs, "ask_unsaved", lambda parent, details, **kwargs: "save")
    monkeypatch.setattr(dialogs, "choose_save_file", lambda *a, **k: str(target))
    wizard = make_wizard(device="Ascend910B3")
    wizard.show()
    qtbot.waitExposed(wizard)
    wizard.findChild(OptionEditor, "option_static_memory_policy").setProperty("value", 2)
    wizard.close()
    assert not wizard.isVisible()
    from cann_config.app.profile import load_profile

    assert load_profile(target).options == {"static_memory_policy": 2}
    assert settings.recent_files()[0] == str(target.resolve())


def test_nothing_unsaved_closes_without_asking(make_wizard, qtbot, monkeypatch):
    monkeypatch.setattr(dialogs, "ask_unsaved", lambda *a, **k: (_ for _ in ()).throw(AssertionError("asked")))
    wizard = make_wizard(device="Ascend910B3")
    wizard.show()
    qtbot.waitExposed(wizard)
    wizard.close()
    assert not wizard.isVisible()


def test_the_application_builds_the_other_pages_after_the_first_paint(make_wizard, qtbot):
    from PySide6.QtWidgets import QLabel

    from cann_config.ui.editors import OptionEditor

    wizard = make_wizard(device="Ascend910B3", deferred=True)
    assert not wizard.memory_page.built and wizard.findChild(OptionEditor, "option_static_memory_policy") is None
    banner = wizard.findChild(QLabel, "deviceBanner")
    assert "Ascend910B3" in banner.text()
    wizard.show()
    qtbot.waitUntil(lambda: wizard.export_page.built, timeout=10000)
    assert wizard.findChild(OptionEditor, "option_static_memory_policy") is not None
    assert "chosen by hand" in banner.text()  # the full phrase, once the message tables are read


def test_after_pages_built_waits_for_the_last_slice(make_wizard, qtbot):
    wizard = make_wizard(device="Ascend910B3", deferred=True)
    seen = []
    wizard.after_pages_built(lambda: seen.append([page.built for page in wizard.pages]))
    wizard.show()
    qtbot.waitUntil(lambda: bool(seen), timeout=10000)
    assert seen == [[True, True, True, True]]
    built = make_wizard(device="Ascend910B3")
    later = []
    built.after_pages_built(lambda: later.append(True))
    qtbot.waitUntil(lambda: bool(later), timeout=5000)


def test_a_page_shown_before_its_turn_is_built_at_once(make_wizard, qtbot):
    from cann_config.ui.editors import OptionEditor

    wizard = make_wizard(device="Ascend910B3", deferred=True)
    assert not wizard.cache_page.built
    wizard.restart()  # on the first page, not shown: the builder has not started
    wizard.next()
    wizard.next()
    assert wizard.currentPage() is wizard.cache_page and wizard.cache_page.built
    assert wizard.findChild(OptionEditor, "option_max_op_cache_size") is not None
    assert not wizard.export_page.built
