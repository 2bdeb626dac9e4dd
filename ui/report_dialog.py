"""The diagnosis report in a window (`reportDialog`): what support pastes into a ticket.

The page shown (`reportView`) is app.support.report.render_html of the report, as it is, in the window's
language; every text in it was escaped by the core, so a hostile bundle shows as text. It is saved
as Markdown or HTML with app.support.report.write_report (atomic), the format following the file name.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from cann_config.app.i18n import current_language
from cann_config.ui import dialogs, settings

KEY_REPORT_DIR = "files/lastReportDir"
# File name endings app.support.report.write_report takes, per format; the first is added when a name
# has none of them.
EXTENSIONS = {"markdown": (".md", ".markdown"), "html": (".html", ".htm")}


class ReportDialog(QDialog):
    def __init__(self, report: Any, parent: QWidget | None = None):
        from cann_config.app.support.report import render_html

        super().__init__(parent)
        self.setObjectName("reportDialog")
        self.report = report
        self.lang = current_language()
        self.html = render_html(report, self.lang)
        self._status_text: Callable[[], str] | None = None
        self.setWindowTitle(self.tr("Diagnosis report"))
        layout = QVBoxLayout(self)
        self.view = QTextBrowser(self)
        self.view.setObjectName("reportView")
        self.view.setOpenLinks(False)  # a report is read, not browsed: nothing it names is fetched
        self.view.setHtml(self.html)
        layout.addWidget(self.view, 1)
        self.status = QLabel(self)
        self.status.setObjectName("reportStatus")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        buttons = QDialogButtonBox(self)
        self.save_markdown_button = QPushButton(self.tr("Save as &Markdown…"), self)
        self.save_markdown_button.setObjectName("saveMarkdownButton")
        self.save_html_button = QPushButton(self.tr("Save as &HTML…"), self)
        self.save_html_button.setObjectName("saveHtmlButton")
        buttons.addButton(self.save_markdown_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.save_html_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        self.save_markdown_button.clicked.connect(self.save_markdown)
        self.save_html_button.clicked.connect(self.save_html)
        layout.addWidget(buttons)
        self.resize(820, 640)

    def suggested_name(self, fmt: str) -> str:
        bundle = getattr(self.report, "bundle", None)
        stem = f"{Path(bundle.source).stem}-report" if bundle is not None else "cann-config-report"
        return stem + EXTENSIONS[fmt][0]

    def save_markdown(self) -> Path | None:
        return self.save("markdown")

    def save_html(self) -> Path | None:
        return self.save("html")

    def save(self, fmt: str) -> Path | None:
        """Ask where, then write the report as `fmt` ("markdown" or "html"); the path written,
        or None when cancelled or refused (the reason is shown)."""
        from cann_config.app.support.report import write_report

        start = Path(settings.read_str(KEY_REPORT_DIR) or Path.home()) / self.suggested_name(fmt)
        title = self.tr("Save the report as Markdown") if fmt == "markdown" else self.tr("Save the report as HTML")
        filters = self.tr("Markdown (*.md)") if fmt == "markdown" else self.tr("HTML (*.html)")
        chosen = dialogs.choose_save_file(self, title, str(start), filters)
        if not chosen:
            return None
        path = Path(chosen)
        if path.suffix.lower() not in EXTENSIONS[fmt]:
            path = path.with_name(path.name + EXTENSIONS[fmt][0])
        try:
            written = write_report(path, self.report, self.lang)
        except Exception as exc:  # noqa: BLE001 - any refusal is shown, never silent
            message = str(exc) if not isinstance(exc, OSError) else f"{path}: {exc.strerror or exc}"
            self._set_status(lambda: self.tr("Not saved: %1").replace("%1", message))
            dialogs.show_error(self, self.tr("Not saved"), message)
            return None
        settings.write(KEY_REPORT_DIR, str(written.parent))
        self._set_status(lambda: self.tr("Saved to %1").replace("%1", str(written)))
        return written

    def _set_status(self, text: Callable[[], str]) -> None:
        self._status_text = text
        self.status.setText(text())
