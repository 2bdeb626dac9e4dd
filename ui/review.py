"""The review shown before op_cache.ini is written: the exact change, as a diff, and where.

Nothing is written unless the user accepts this dialog (make xconfig / dconf-editor: pending
changes reviewed, then applied together).
"""

from __future__ import annotations

import difflib

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTextBrowser, QVBoxLayout, QWidget

from cann_config.ui.qtprops import escape


def diff_lines(old: str, new: str, before: str, after: str) -> list[str]:
    """A unified diff whose headers name the file as it is now (`before`) and after saving."""
    return list(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                     fromfile=before, tofile=after))


class ReviewDialog(QDialog):
    def __init__(self, path: str, old: str | None, new: str, notes: list[str], parent: QWidget | None = None,
                 *, save_default: bool = True):
        """`save_default` False when the saved file would be ignored by CANN: Cancel is then the
        default button, so Enter does not write a file that changes nothing."""
        super().__init__(parent)
        self.setObjectName("reviewDialog")
        self.setWindowTitle(self.tr("Review the change to op_cache.ini"))
        layout = QVBoxLayout(self)
        if old is None:
            head = self.tr("A new file will be created: %1").replace("%1", path)
        else:
            head = self.tr("%1 will be changed as shown (a copy of the current file is kept as %2).") \
                .replace("%1", path).replace("%2", path + ".bak")
        self.head = QLabel(head, self)
        self.head.setWordWrap(True)
        self.head.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.head)
        self.diff = QTextBrowser(self)
        self.diff.setObjectName("reviewDiff")
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.TypeWriter)
        self.diff.setFont(mono)
        lines = diff_lines(old or "", new, self.tr("%1 (now)").replace("%1", "op_cache.ini"),
                           self.tr("%1 (after saving)").replace("%1", "op_cache.ini"))
        self.diff_text = "".join(lines)
        html = []
        for line in lines:
            colour = "#1b7a2e" if line.startswith("+") else "#b3261e" if line.startswith("-") else "#555"
            html.append(f"<span style='color:{colour}'>{escape(line.rstrip(chr(10)).rstrip(chr(13)))}</span>")
        self.diff.setHtml("<pre>" + "\n".join(html) + "</pre>")
        layout.addWidget(self.diff, 1)
        for note in notes:
            label = QLabel(note, self)
            label.setWordWrap(True)
            layout.addWidget(label)
        buttons = QDialogButtonBox(self)
        self.save_button = buttons.addButton(self.tr("&Save"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.cancel_button = buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.save_button.setObjectName("reviewSaveButton")
        self.save_button.setAutoDefault(save_default)
        self.save_button.setDefault(save_default)
        self.cancel_button.setAutoDefault(not save_default)
        self.cancel_button.setDefault(not save_default)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(720, 480)
