"""The export page's preview (`exportPreview`) and its findings (`findingsList`), and the write
of what it shows.

The preview is app.io.exporters.export_text of the current Profile, regenerated on every change
(never cached: PyTorch selector's stale-command pitfall), coloured by the highlighter; the
findings are app.io.exporters.check_choices and the export's own, each with its severity and
fix. An op_cache.ini export saved over the op_cache.ini being edited goes through
app.opcache.ini's save, which refuses a file changed on disk since it was read; anything else is
written atomically. This module is imported when the export page is built, not before the
window's first paint.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6.QtGui import QFont, QShowEvent
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QPlainTextEdit, QStyle, QVBoxLayout, QWidget

from cann_config.app.findings import Finding, sort_findings
from cann_config.app.io.exporters import ExportResult, check_choices, export_text
from cann_config.app.io.formats import export_format
from cann_config.app.io.outputfiles import write_output
from cann_config.app.opcache.ini import OpCacheIni, save_op_cache_ini
from cann_config.app.profile import Profile
from cann_config.ui.docpane import add_finding_item
from cann_config.ui.highlighter import PreviewHighlighter
from cann_config.ui.qtprops import vertical_splitter

# The preview's highlighting (ui/highlighter.py RULES) for each export language (app.io.formats).
_HIGHLIGHT = {"python": "python", "bash": "shell", "fish": "shell", "ini": "ini", "json": "json", "yaml": "json"}

PREVIEW_LINES = 12  # the snippet lines the preview always has room for


class ExportPreview(QWidget):
    """The exported text above, the findings about it below (a splitter between them)."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.result: ExportResult | None = None  # the export shown
        self.findings: list[Finding] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        splitter = vertical_splitter(self)
        self.preview = QPlainTextEdit(splitter)
        self.preview.setObjectName("exportPreview")
        self.preview.setReadOnly(True)
        self.preview.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.preview.setTabChangesFocus(True)
        mono = QFont("monospace")
        mono.setStyleHint(QFont.StyleHint.TypeWriter)
        self.preview.setFont(mono)
        self.highlighter = PreviewHighlighter(self.preview.document())
        self.findings_list = QListWidget(splitter)
        self.findings_list.setObjectName("findingsList")
        self.findings_list.setWordWrap(True)
        self._fit_preview_to_screen()
        # The findings list gives way first (it scrolls, two lines at the least).
        self.findings_list.setMinimumHeight(self.findings_list.fontMetrics().lineSpacing() * 2 + 8)
        splitter.setChildrenCollapsible(False)
        splitter.setStretchFactor(0, 4)
        splitter.setStretchFactor(1, 1)
        layout.addWidget(splitter)

    def _fit_preview_to_screen(self) -> None:
        """At least PREVIEW_LINES lines of the snippet stay readable on a small or scaled screen,
        fewer only where the whole window would not fit the screen otherwise (a 384 px tall one)."""
        screen = self.screen()
        lines = PREVIEW_LINES if screen is None or screen.availableGeometry().height() >= 480 else 5
        # lines, the frame, the document's margins and a horizontal scroll bar (lines do not wrap)
        scroll_bar = self.preview.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        self.preview.setMinimumHeight(self.preview.fontMetrics().lineSpacing() * lines
                                      + 2 * self.preview.frameWidth()
                                      + 2 * round(self.preview.document().documentMargin()) + scroll_bar + 2)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        self._fit_preview_to_screen()  # the window may have moved to another screen
        super().showEvent(event)

    def show_export(self, profile: Profile, fmt: str, *, changed_only: bool, existing_ini: OpCacheIni | None = None,
                    device: Any = None, environ: Any = None, ini_versions: Any = None, answers: Any = None,
                    baseline: Any = None, finish: Callable[[str], str] | None = None) -> None:
        """Export `profile` as `fmt` and show it with its findings: the same call as the CLI's
        export (app.io.exporters.export_text) with what the wizard knows of the target - the device
        as it became known, the environment CANN runs with, the version lines, the user's answers,
        and with a support bundle the customer's current values as the baseline of "only my changes".
        `finish` completes the text of an export that is not refused (the variables applied fixes
        remove: app.session.Session.export_with_removals)."""
        result = export_text(profile, fmt, changed_only=changed_only,
                             existing_ini=existing_ini if export_format(fmt).carrier == "op_cache.ini" else None,
                             device=device, environ=environ, ini_versions=ini_versions, answers=answers,
                             baseline=baseline)
        if finish is not None and not result.refused:
            result = replace(result, data=finish(result.text).encode("utf-8"))
        self.result = result
        language = _HIGHLIGHT.get(export_format(fmt).language, "json")
        self.highlighter.set_language(language)
        scroll = self.preview.verticalScrollBar().value()
        if self.preview.toPlainText() != result.text:
            self.preview.setPlainText(result.text)
            self.preview.verticalScrollBar().setValue(scroll)
        seen = set()
        findings = []
        for finding in sort_findings(list(check_choices(profile, device, answers)) + list(result.findings)):
            key = (finding.severity, finding.code, finding.message())
            if key not in seen:
                seen.add(key)
                findings.append(finding)
        self.findings = findings
        self.findings_list.clear()
        for finding in findings:
            add_finding_item(self.findings_list, finding)
        if not findings:
            QListWidgetItem(self.tr("No findings: these choices are fine for this device and framework."),
                            self.findings_list)

    def write_to(self, target: Path, fmt: str, *, edited_ini: OpCacheIni | None = None,
                 edited_ini_path: Path | None = None) -> None:
        """Write the export shown to `target` (raises OSError, InputError or FileChangedError)."""
        assert self.result is not None
        if export_format(fmt).carrier == "op_cache.ini" and edited_ini is not None and edited_ini_path is not None and \
                target.resolve() == Path(edited_ini_path).resolve():
            save_op_cache_ini(target, self.result.data, edited_ini.original)
        else:
            write_output(target, self.result.data)
