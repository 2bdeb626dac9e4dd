"""The wizard's "Paste an error" dialog: the NPU memory triage of a pasted error or log (opened
from the memory page).

The result is the core's (app.triage.analysis.triage_text, shown as app.triage.render.render_text:
the same text `cann-config triage` prints), starting from the job's settings when an env file or a
support bundle is open. Apply puts the suggested allocator settings into the choices: every
allocator option the suggestion sets, the others (max_split_size_mb, garbage_collection_threshold)
back to unset, so the choices never hold expandable segments beside them.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

# The frameworks the HBM budget knows (app.hbm_budget.framework_share).
_BUDGET_FRAMEWORKS = ("pytorch", "vllm-ascend", "mindspore")
_SERVING = "vllm-ascend"


class TriageDialog(QDialog):
    """Paste an NPU out-of-memory error (or the end of a log): what holds the memory, and Apply."""

    def __init__(self, controller: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.triage: Any = None
        self.options: dict[str, Any] = {}
        self.setObjectName("triageDialog")
        self.setWindowTitle(self.tr("Paste an error"))
        layout = QVBoxLayout(self)
        self.label = QLabel(self.tr("Paste the NPU out-of-memory error, or the end of the job's log:"), self)
        self.label.setWordWrap(True)
        self.paste = QPlainTextEdit(self)
        self.paste.setObjectName("triagePasteEdit")
        self.label.setBuddy(self.paste)
        self.result_view = QPlainTextEdit(self)
        self.result_view.setObjectName("triageResult")
        self.result_view.setReadOnly(True)
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.TypeWriter)
        for edit in (self.paste, self.result_view):
            edit.setFont(mono)
        self.paste.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.status = QLabel(self)
        self.status.setObjectName("triageStatus")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.apply_button = QPushButton(self.tr("&Apply the suggested settings"), self)
        self.apply_button.setObjectName("triageApplyButton")
        buttons.addButton(self.apply_button, QDialogButtonBox.ButtonRole.ApplyRole)
        buttons.rejected.connect(self.reject)
        self.apply_button.clicked.connect(self.apply)
        layout.addWidget(self.label)
        layout.addWidget(self.paste, 2)
        layout.addWidget(self.result_view, 3)
        layout.addWidget(self.status)
        layout.addWidget(buttons)
        self.paste.textChanged.connect(self.analyse)
        self.analyse()
        self.resize(860, 640)

    def job_environ(self) -> dict[str, str] | None:
        """The job's variables when the wizard has them (an env file or a bundle), else None: the
        suggestions then say that the current PYTORCH_NPU_ALLOC_CONF is not known, as the CLI does."""
        return self.controller.session.job_environ()

    def analyse(self) -> None:
        """Triage the pasted text as `cann-config triage` does, and show the result."""
        from cann_config.app.i18n import current_language
        from cann_config.app.triage.analysis import triage_text
        from cann_config.app.triage.render import render_text, suggested_options

        text = self.paste.toPlainText()
        if not text.strip():
            self.triage = None
            self.options = {}
            self.result_view.setPlainText("")
            self.status.setText(self.tr("Paste the text above: what it says is shown here."))
            self.apply_button.setEnabled(False)
            return
        profile = self.controller.profile
        framework = profile.framework if profile.framework in _BUDGET_FRAMEWORKS else None
        utilization = None
        if framework == _SERVING and "gpu_memory_utilization" in self.controller.catalog.options:
            utilization = float(self.controller.value("gpu_memory_utilization"))
        self.triage = triage_text(text, source=self.tr("<pasted text>"), environ=self.job_environ(),
                                  framework=framework, gpu_memory_utilization=utilization)
        self.result_view.setPlainText(render_text(self.triage, current_language()))
        self.options = suggested_options(self.triage.suggested_env())
        self.apply_button.setEnabled(bool(self.options))
        if self.options:
            self.status.setText(self.tr("Apply sets the suggested allocator settings in your choices."))
        elif self.triage.events:
            self.status.setText(self.tr("No allocator setting of the wizard helps with this error; the text "
                                        "above says what to look at instead."))
        else:
            self.status.setText(self.tr("No NPU memory error found in this text."))

    def apply(self) -> None:
        """Put the suggested allocator settings into the choices (the others back to unset)."""
        from cann_config.app.allocconf import alloc_options

        controller = self.controller
        if not self.options:
            return
        taken = controller.catalog.frameworks[controller.profile.framework].options
        if not all(oid in taken for oid in self.options):
            controller.set_framework("pytorch")
        for option in alloc_options(controller.catalog).values():
            if option.id in self.options:
                controller.set_value(option.id, self.options[option.id])
            else:
                controller.reset_value(option.id)
        self.status.setText(self.tr("Applied: the memory page and the export now use the suggested settings."))
