"""The dialog to paste `npu-smi` output into (read by app.device.npusmi; opened from the device page)."""

from __future__ import annotations

from PySide6.QtGui import QFont
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget


class NpuSmiDialog(QDialog):
    """Paste the output of `npu-smi info` (and, for A3/950, of the board queries)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("npuSmiDialog")
        self.setWindowTitle(self.tr("Paste npu-smi output"))
        layout = QVBoxLayout(self)
        self.info_label = QLabel(self.tr("Output of <code>npu-smi info</code>:"), self)
        self.info_edit = QPlainTextEdit(self)
        self.info_edit.setObjectName("npuSmiInfoEdit")
        self.board_label = QLabel(self.tr("Optional, for Atlas A3 and Ascend 950: output of "
                                          "<code>npu-smi info -t board -i ID -c CHIP</code>:"), self)
        self.board_label.setWordWrap(True)
        self.board_edit = QPlainTextEdit(self)
        self.board_edit.setObjectName("npuSmiBoardEdit")
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.TypeWriter)
        for edit in (self.info_edit, self.board_edit):
            edit.setFont(mono)
            edit.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.info_label.setBuddy(self.info_edit)
        self.board_label.setBuddy(self.board_edit)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(self.info_label)
        layout.addWidget(self.info_edit, 3)
        layout.addWidget(self.board_label)
        layout.addWidget(self.board_edit, 1)
        layout.addWidget(buttons)
        self.resize(760, 520)

    def texts(self) -> tuple[str, list[str]]:
        board = self.board_edit.toPlainText().strip()
        return self.info_edit.toPlainText(), [board] if board else []
