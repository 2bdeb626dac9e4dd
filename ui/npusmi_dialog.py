"""The dialog to paste `npu-smi` output into (read by app.device.npusmi; opened from the device page).

While the user pastes or types, `npuSmiRecognised` says what the core reads in it (the device,
its notes) or why it reads nothing, so that OK is pressed knowing what it will set."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from cann_config.app.errors import InputError


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
        self.recognised = QLabel(self)
        self.recognised.setObjectName("npuSmiRecognised")
        self.recognised.setWordWrap(True)
        self.recognised.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.recognised)
        layout.addWidget(buttons)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        for edit in (self.info_edit, self.board_edit):
            edit.textChanged.connect(self.recognise)
        self.recognise()
        self.resize(760, 520)

    def recognise(self) -> None:
        """Read the texts as OK will (app.device.npusmi) and say what they describe."""
        from cann_config.app.device.npusmi import device_from_npu_smi

        info, boards = self.texts()
        if not info.strip() and not boards:
            self.recognised.setText(self.tr("Paste the output above: what it describes is shown here."))
            self.ok_button.setEnabled(False)
            return
        try:
            device = device_from_npu_smi(info if info.strip() else None, boards,
                                         info_source=self.tr("<pasted npu-smi output>"))
        except InputError as exc:
            self.recognised.setText(self.tr("Not recognised: %1").replace("%1", str(exc)))
            self.ok_button.setEnabled(True)  # OK says the same, and keeps the device as it was
            return
        if device.soc_version:
            lines = [self.tr("Recognised: %1").replace("%1", device.label())]
        else:
            lines = [self.tr("No SoC recognised.")]
        lines += list(device.notes)
        self.recognised.setText("\n".join(lines))
        self.ok_button.setEnabled(True)

    def texts(self) -> tuple[str, list[str]]:
        board = self.board_edit.toPlainText().strip()
        return self.info_edit.toPlainText(), [board] if board else []
