"""Page 4 (`exportPage`): the current choices as a snippet or file, ready to paste or save.

The preview (`exportPreview`, ui.pages.export_preview) is app.io.exporters.export_text of the
current Profile, regenerated on every change; the formats offered
(`exportFormatCombo`, item data = the CLI's FORMAT id) are those the framework takes (the format
registry, app.io.formats.formats_for; the file name offered and the highlighting come from it too). "Only my changes" is the exporters' changed_only mode. The findings
of the current choices (app.io.exporters.check_choices and the export's own) are listed with their
severity. "Report…" (`reportButton`) asks the wizard for the diagnosis report (app.support.report): of
the support bundle when one is open, else of the current choices on this computer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from cann_config.app.i18n import current_language, pick
from cann_config.app.io.formats import export_format, formats_for
from cann_config.ui import dialogs, settings
from cann_config.ui.controller import WizardController
from cann_config.ui.pages.base import WizardPage
from cann_config.ui.qtprops import escape

if TYPE_CHECKING:  # pragma: no cover - typing only
    from cann_config.app.findings import Finding
    from cann_config.app.io.exporters import ExportResult
    from cann_config.ui.pages.export_preview import ExportPreview


class ExportPage(WizardPage):
    saveProfileRequested = Signal()
    reportRequested = Signal()
    core_modules = ("cann_config.app.io.exporters", "cann_config.app.io.outputfiles", "cann_config.app.opcache.ini",
                    "cann_config.app.opcache.resolution")

    def __init__(self, controller: WizardController, parent: QWidget | None = None):
        super().__init__(controller, parent)
        self.setObjectName("exportPage")
        self.preview_panel: ExportPreview
        self._status_text: Callable[[], str] | None = None  # said again after a language switch
        self._status_of: tuple[str, str] | None = None  # (language, snippet) the status speaks of

    def build(self) -> Iterator[None]:
        # The preview, the exporters and the writers are imported when the page is built: this
        # module is imported before the first paint. In slices: the preview's module (its
        # highlighter), the widgets, then the first export (the page's refresh).
        from cann_config.ui.pages.export_preview import ExportPreview

        yield

        controller = self.controller
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        self.format_label = QLabel(self)
        self.format_combo = QComboBox(self)
        self.format_combo.setObjectName("exportFormatCombo")
        self.format_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.format_combo.setMinimumContentsLength(18)
        self.format_label.setBuddy(self.format_combo)
        self.changed_only = QCheckBox(self)
        self.changed_only.setObjectName("changedOnlyCheck")
        self.changed_only.setChecked(settings.read_bool(settings.KEY_CHANGED_ONLY))
        top.addWidget(self.format_label)
        top.addWidget(self.format_combo, 1)
        top.addWidget(self.changed_only)
        layout.addLayout(top)
        yield

        self.preview_panel = ExportPreview(self)
        self.preview = self.preview_panel.preview
        layout.addWidget(self.preview_panel, 1)

        buttons = QHBoxLayout()
        self.copy_button = QPushButton(self)
        self.copy_button.setObjectName("copyButton")
        self.save_button = QPushButton(self)
        self.save_button.setObjectName("saveButton")
        self.save_profile_button = QPushButton(self)
        self.save_profile_button.setObjectName("saveProfileButton")
        self.report_button = QPushButton(self)
        self.report_button.setObjectName("reportButton")
        self.status = QLabel(self)
        self.status.setObjectName("exportStatus")
        self.status.setWordWrap(True)
        buttons.addWidget(self.copy_button)
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.save_profile_button)
        buttons.addWidget(self.report_button)
        buttons.addWidget(self.status, 1)
        layout.addLayout(buttons)

        self._framework: str | None = None
        self._last_preferred = controller.preferred_format
        self._fill_formats()
        self.format_combo.currentIndexChanged.connect(self._format_chosen)
        self.changed_only.toggled.connect(self.regenerate)
        self.copy_button.clicked.connect(self.copy)
        self.save_button.clicked.connect(self.save)
        self.save_profile_button.clicked.connect(self.saveProfileRequested)
        self.report_button.clicked.connect(self.reportRequested)
        controller.profileChanged.connect(self._profile_changed)
        controller.filesChanged.connect(self.regenerate)

    # -- formats --------------------------------------------------------------------------------

    def format_names(self) -> dict[str, str]:
        return {
            "tf1-estimator": self.tr("TensorFlow 1.x Estimator — NPURunConfig (Python)"),
            "tf1-session": self.tr("TensorFlow 1.x sess.run — session config (Python)"),
            "tf2": self.tr("TensorFlow 2.x — npu.global_options() (Python)"),
            "ge-options": self.tr("GE options — dict for ge.Session / MindSpore (Python)"),
            "torch-npu": self.tr("PyTorch — top of the training script, torch_npu (Python)"),
            "env-bash": self.tr("Environment variables — bash / sh"),
            "env-fish": self.tr("Environment variables — fish"),
            "op-cache-ini": self.tr("op_cache.ini"),
            "profile": self.tr("Profile (JSON, for cann-config)"),
            "ansible": self.tr("Ansible playbook — apply the settings on many hosts"),
            "ansible-collect": self.tr("Ansible playbook — collect support bundles from many hosts"),
            "k8s-configmap": self.tr("Kubernetes ConfigMap — environment variables"),
            "vllm-serve": self.tr("vLLM-Ascend — server launch script (bash)"),
            "mindspore": self.tr("MindSpore — top of the training script (Python)"),
        }

    def _fill_formats(self) -> None:
        c = self.controller
        framework = c.profile.framework
        self._framework = framework
        names = self.format_names()
        current = self.format_combo.currentData()
        wanted = c.preferred_format
        if current is None:
            remembered = settings.read_str(settings.KEY_FORMAT)
            exports = formats_for(framework)
            if remembered in exports and c.usage is None:
                wanted = remembered
        self.format_combo.blockSignals(True)
        self.format_combo.clear()
        for fmt in formats_for(framework):
            self.format_combo.addItem(names.get(fmt, fmt), fmt)
        index = self.format_combo.findData(wanted)
        self.format_combo.setCurrentIndex(max(index, 0))
        self.format_combo.blockSignals(False)

    def _profile_changed(self) -> None:
        c = self.controller
        if c.profile.framework != self._framework or self.format_combo.currentData() not in \
                formats_for(c.profile.framework):
            self._fill_formats()
        elif c.preferred_format != self._last_preferred:
            index = self.format_combo.findData(c.preferred_format)
            if index >= 0:
                self.format_combo.blockSignals(True)
                self.format_combo.setCurrentIndex(index)
                self.format_combo.blockSignals(False)
        self.regenerate()

    def _format_chosen(self, index: int) -> None:
        self.regenerate()

    def current_format(self) -> str:
        return self.format_combo.currentData()

    # -- the preview ----------------------------------------------------------------------------

    def regenerate(self) -> None:
        """Export the current Profile again and show it with its findings (on every change)."""
        if not self.built:
            return
        c = self.controller
        self._last_preferred = c.preferred_format
        fmt = self.current_format()
        if fmt is None:
            return
        ini = export_format(fmt).carrier == "op_cache.ini"
        self.preview_panel.show_export(c.profile, fmt, changed_only=self.changed_only.isChecked(),
                                       existing_ini=c.session.ini_to_export(),
                                       device=c.device, environ=c.environ if ini else None,
                                       ini_versions=c.versions_for_save() if ini else None, answers=c.answers,
                                       baseline=c.baseline(),
                                       finish=lambda text: c.session.export_with_removals(text, fmt, c.profile))
        self._clear_status_if_stale()

    @property
    def result(self) -> ExportResult | None:
        """The export shown (app.io.exporters.ExportResult), None before the page is built."""
        return self.preview_panel.result if self.built else None

    @property
    def findings(self) -> list[Finding]:
        return self.preview_panel.findings if self.built else []

    # -- copy and save --------------------------------------------------------------------------

    def copy(self) -> None:
        QGuiApplication.clipboard().setText(self.preview.toPlainText())
        self._set_status(lambda: self.tr("Copied to the clipboard."))
        self.controller.mark_saved()

    def suggested_name(self, fmt: str) -> str:
        return export_format(fmt).file_name

    def save(self) -> bool:
        fmt = self.current_format()
        self.regenerate()
        if self.result is None:
            return False
        if self.result.refused:
            # What `cann-config export` refuses with exit 1 (a choice the device or framework cannot
            # take, an op_cache.ini CANN would ignore) is refused here the same way: nothing written.
            errors = [f.message() for f in self.findings if f.severity == "error"]
            self._set_status(lambda: self.tr("Not saved: %1").replace(
                "%1", " ".join(errors) or self.tr("a choice cannot be used here (see the findings)")))
            return False
        start = str(Path(settings.read_str("files/lastExportDir") or Path.home()) / self.suggested_name(fmt))
        path = dialogs.choose_save_file(self, self.tr("Save the export"), start, self.tr("All files (*)"))
        if not path:
            return False
        target = Path(path)
        c = self.controller
        try:
            self.preview_panel.write_to(target, fmt, edited_ini=c.session.ini_to_export(), edited_ini_path=c.ini_path)
        except Exception as exc:  # noqa: BLE001 - any refusal is shown, never silent
            message = str(exc) if not isinstance(exc, OSError) else f"{target}: {exc.strerror or exc}"
            self._set_status(lambda: self.tr("Not saved: %1").replace("%1", message))
            dialogs.show_error(self, self.tr("Not saved"), message)
            return False
        settings.write("files/lastExportDir", str(target.parent))
        self._set_status(lambda: self.tr("Saved to %1").replace("%1", str(target)))
        c.mark_saved()
        return True

    def _set_status(self, text: Callable[[], str]) -> None:
        self._status_text = text
        self._status_of = (current_language(), self.preview.toPlainText())
        self.status.setText(text())

    def _clear_status_if_stale(self) -> None:
        """"Saved to …" or "Copied" speak of one snippet: once it changes they are no longer true.
        A language switch re-words the same snippet, so the status stays (in the new language)."""
        if self._status_of is None:
            return
        lang, text = current_language(), self.preview.toPlainText()
        if lang != self._status_of[0]:
            self._status_of = (lang, text)
        elif text != self._status_of[1]:
            self._status_text = self._status_of = None
            self.status.clear()

    # -- texts ----------------------------------------------------------------------------------

    def refresh(self) -> None:
        self.regenerate()

    def retranslate(self) -> None:
        self.setTitle(self.tr("Export"))
        self.setSubTitle(self.tr("Your choices as a snippet or a file. The preview follows every change."))
        # R, not F: &Finish is on this page.
        self.format_label.setText(self.tr("Fo&rmat:"))
        self.changed_only.setText(self.tr("&Only my changes"))
        self.changed_only.setToolTip(self.tr("Leave out every option still at its default"))
        self.copy_button.setText(self.tr("&Copy"))
        self.save_button.setText(self.tr("&Save…"))
        self.save_profile_button.setText(self.tr("Save &profile…"))
        self.report_button.setText(self.tr("R&eport…"))
        self.report_button.setToolTip(self.tr("The diagnosis as a report to paste into a ticket (Markdown or HTML): "
                                              "of the support bundle when one is open, else of these choices"))
        names = self.format_names()
        for index in range(self.format_combo.count()):
            self.format_combo.setItemText(index, names.get(self.format_combo.itemData(index), ""))
        if self._status_text is not None:
            self.status.setText(self._status_text())

    def help_html(self) -> str:
        c = self.controller
        framework = pick(c.catalog.frameworks[c.profile.framework].name)
        return "<h3>{}</h3><p>{}</p><p>{}</p><p>{}</p>".format(
            escape(self.tr("Export")),
            escape(self.tr("The formats offered are those that %1 reads.").replace("%1", framework)),
            escape(self.tr("Every export explains each setting in a comment; a choice the device or framework "
                           "cannot take is left out with a comment saying why, and listed below the preview.")),
            escape(self.tr("'Only my changes' leaves out every option still at its default.")),
        )

    def remember(self) -> None:
        settings.write(settings.KEY_FORMAT, self.current_format() or "")
        settings.write(settings.KEY_CHANGED_ONLY, self.changed_only.isChecked())
