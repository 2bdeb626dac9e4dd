"""Readable controls: distinct value labels, whole combo items, identifiers that wrap at their
boundaries in the docs pane."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QComboBox

from cann_config.app.catalog import load_catalog
from cann_config.app.i18n import pick, set_language
from cann_config.ui.docpane import BREAK, DocPane, breakable
from cann_config.ui.editors import ChoiceEditor, value_summary


@pytest.mark.parametrize("lang", ["en", "zh_CN"])
def test_distinct_values_have_distinct_labels(lang):
    set_language(lang)
    for option in load_catalog().options.values():
        labels = [value_summary(pick(doc.text)) for doc in option.values]
        assert len(labels) == len(set(labels)), (option.id, labels)


def test_combo_items_are_whole_with_a_wide_list_and_a_tooltip(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    editors = wizard.findChildren(ChoiceEditor)
    assert editors
    for editor in editors:
        combo = editor.findChild(QComboBox)
        texts = [combo.itemText(i) for i in range(combo.count())]
        assert not any("…" in text for text in texts), texts
        view = combo.view()
        assert view.minimumWidth() >= view.sizeHintForColumn(0)
        assert combo.toolTip() == combo.itemData(combo.currentIndex(), 3)  # Qt.ToolTipRole


def test_identifiers_break_only_after_dots_and_underscores():
    said = breakable("see memory_config.atomic_clean_policy & <b>")
    assert said == f"see memory_{BREAK}config.{BREAK}atomic_{BREAK}clean_{BREAK}policy &amp; &lt;b&gt;"


def test_the_docs_pane_wraps_identifiers_at_their_boundaries_and_copies_them_whole(qtbot):
    catalog = load_catalog()
    pane = DocPane(catalog)
    qtbot.addWidget(pane)
    pane.resize(170, 900)
    pane.show()
    pane.show_option(catalog.options["atomic_clean_policy"])
    document = pane.document()
    document.setTextWidth(150)
    breaks = 0
    block = document.begin()
    while block.isValid():
        layout, text = block.layout(), block.text()
        for i in range(layout.lineCount() - 1):
            line = layout.lineAt(i)
            end = line.textStart() + line.textLength()
            before, after = text[end - 1], text[end] if end < len(text) else " "
            # a line ends at a space, a break opportunity or punctuation, never between two letters
            assert not (before.isalnum() and after.isalnum()), (text, text[:end])
            breaks += 1
        block = block.next()
    assert breaks > 5  # the pane did wrap
    pane.selectAll()
    copied = pane.createMimeDataFromSelection().text()
    assert BREAK not in copied and "ge.exec.atomicCleanPolicy" in copied
