"""The op_cache.ini being edited (`iniStatus`, `iniFindings`, `saveIniButton`, `reloadIniButton`,
`iniSaveStatus`: what became of the last save, beside the button that made it).

The file is read, rendered and saved by app.opcache.ini: a lossless render of the change, shown
in the review dialog before anything is written (never silently), and an atomic save that
refuses a file changed on disk since it was read. A file that does not exist yet is created from
the documented template, with the core's findings about creating it (docs/cann/op-cache.md).
With a support bundle open, the file is the customer's: it cannot be saved from here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from cann_config.app.errors import InputError
from cann_config.app.opcache.ini import FileChangedError, decode_ini_text, save_op_cache_ini
from cann_config.ui import dialogs
from cann_config.ui.controller import WizardController
from cann_config.ui.docpane import SEVERITY_COLOURS, severity_prefix
from cann_config.ui.pages.cache_panels.state import CacheState
from cann_config.ui.qtprops import escape, rich_text


class IniPanel(QGroupBox):
    """Where op_cache.ini is, what CANN makes of it, and its review-and-save."""

    def __init__(self, controller: WizardController, state: CacheState, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("cacheIniPanel")
        self.controller = controller
        self.state = state
        # What became of the last save, as a function of the current language.
        self._save_text: Callable[[], str] | None = None
        layout = QVBoxLayout(self)
        self.ini_status = rich_text(QLabel(self))
        self.ini_status.setObjectName("iniStatus")
        self.ini_status.setWordWrap(True)
        buttons = QHBoxLayout()
        self.save_ini_button = QPushButton(self)
        self.save_ini_button.setObjectName("saveIniButton")
        self.reload_ini_button = QPushButton(self)
        self.reload_ini_button.setObjectName("reloadIniButton")
        self.save_status = QLabel(self)
        self.save_status.setObjectName("iniSaveStatus")
        self.save_status.setWordWrap(True)
        self.save_status.hide()
        buttons.addWidget(self.save_ini_button)
        buttons.addWidget(self.reload_ini_button)
        buttons.addWidget(self.save_status, 1)
        self.findings_label = rich_text(QLabel(self), selectable=False)
        self.findings_label.setObjectName("iniFindings")
        self.findings_label.setWordWrap(True)
        # The versions of the CANN that will read the file, asked for when neither this computer
        # nor a bundle knows them: without them CANN 8.5+ ignores the file
        # (docs/cann/op-cache.md#version-lines).
        self.versions_box = QWidget(self)
        self.versions_box.setObjectName("iniVersionsBox")
        form = QFormLayout(self.versions_box)
        form.setContentsMargins(0, 0, 0, 0)
        self.versions_note = QLabel(self.versions_box)
        self.versions_note.setWordWrap(True)
        self.versions_note.setObjectName("iniVersionsNote")
        self.adk_edit = QLineEdit(self.versions_box)
        self.adk_edit.setObjectName("iniAdkVersion")
        self.ops_edit = QLineEdit(self.versions_box)
        self.ops_edit.setObjectName("iniOpsVersion")
        self.adk_label = QLabel(self.versions_box)
        self.ops_label = QLabel(self.versions_box)
        form.addRow(self.versions_note)
        form.addRow(self.adk_label, self.adk_edit)
        form.addRow(self.ops_label, self.ops_edit)
        self.adk_edit.textEdited.connect(lambda text: self._version_typed("adk_version", text))
        self.ops_edit.textEdited.connect(lambda text: self._version_typed("ops_version", text))
        layout.addWidget(self.ini_status)
        layout.addWidget(self.findings_label)
        layout.addWidget(self.versions_box)
        layout.addLayout(buttons)
        self.save_ini_button.clicked.connect(self.review_and_save)
        self.reload_ini_button.clicked.connect(self.state.reload_ini)

    def _version_typed(self, key: str, text: str) -> None:
        self.controller.ini_versions[key] = text
        self.refresh()

    @property
    def save_message(self) -> str:
        return self._save_text() if self._save_text is not None else ""

    def forget_save(self) -> None:
        """Another host's file is shown now: what became of a save here is no longer news."""
        self._save_text = None

    # -- showing it -----------------------------------------------------------------------------

    def refresh(self) -> None:
        c = self.controller
        path = self.state.ini_path()
        remote = c.ini_from_bundle()
        if remote:
            text = self._bundle_ini_text(path)
        elif self.state.ini_pending == path:
            text = self.tr("<b>op_cache.ini:</b> reading %1 …").replace("%1", escape(str(self.state.ini_pending)))
        elif self.state.ini_error:
            text = self.tr("<b>op_cache.ini cannot be used:</b> %1").replace("%1", escape(self.state.ini_error))
        elif c.ini is None:
            text = self.tr("<b>op_cache.ini:</b> %1 does not exist yet; saving creates it from the documented "
                           "template.").replace("%1", escape(str(path)))
        elif not self.state.read_by_cann:
            text = self.tr("<b>op_cache.ini:</b> %1 — not read by CANN (it reads %2): saving it changes nothing "
                           "CANN does.").replace("%1", escape(str(path))) \
                .replace("%2", escape(str(self.state.dir_resolution.ini_path if self.state.dir_resolution else "")))
        else:
            text = self.tr("<b>op_cache.ini:</b> %1").replace("%1", escape(str(path)))
            if not c.ini.counts:
                text += "<br>" + escape(self.tr("CANN does not use this file as it is: %1")
                                        .replace("%1", c.ini.cann_view.reason_text()))
        needed = self.state.versions_needed()
        self.versions_box.setVisible(needed)
        if needed and len(self.state.ini_versions()) < 2:
            text += "<br>" + escape(self.tr("Saving now writes a file CANN ignores: it needs adk_version and "
                                            "ops_version of the CANN that will read it. Enter them below, or export the "
                                            "sizes as environment variables on the Export page instead."))
        self.save_status.setText(self.save_message if not remote else "")
        self.save_status.setVisible(bool(self.save_message) and not remote)
        self.ini_status.setText(text)
        for button in (self.save_ini_button, self.reload_ini_button):
            button.setEnabled(not remote)
            button.setToolTip(self.tr("The file is on the customer's host: export the fixed op_cache.ini on the "
                                      "Export page and send it.") if remote else "")
        resolution = self.state.resolution
        lines = []
        seen = set()
        for finding in (resolution.findings if resolution is not None else []):
            key = (finding.code, finding.message())
            if key in seen:
                continue
            seen.add(key)
            where = f" <small>({escape(finding.where())})</small>" if finding.where() else ""
            lines.append(f"<span style='color:{SEVERITY_COLOURS.get(finding.severity, '#000')}'>"
                         f"<b>{escape(severity_prefix(finding.severity))}</b></span> {escape(finding.message())}{where}")
        self.findings_label.setText("<br>".join(lines))
        self.findings_label.setVisible(bool(lines))

    def _bundle_ini_text(self, path: Path) -> str:
        """What the panel says about the customer's op_cache.ini (from the bundle)."""
        c = self.controller
        bundle = c.bundle
        where = escape(str(path))
        if c.ini is not None:
            text = self.tr("<b>op_cache.ini on the customer's host:</b> %1 (from the support bundle)").replace("%1", where)
            if not c.ini.counts:
                text += "<br>" + escape(self.tr("CANN does not use this file as it is: %1")
                                        .replace("%1", c.ini.cann_view.reason_text()))
        elif bundle.ini_error:
            text = self.tr("<b>op_cache.ini on the customer's host</b> could not be read there: %1") \
                .replace("%1", escape(bundle.ini_error))
        else:
            text = self.tr("<b>op_cache.ini on the customer's host:</b> %1 does not exist there.").replace("%1", where)
        return text + "<br>" + escape(self.tr("It cannot be saved from here: export the fixed op_cache.ini on the "
                                              "Export page and send it to the customer."))

    # -- saving ---------------------------------------------------------------------------------

    def review_and_save(self) -> bool:
        """Show the exact change; write op_cache.ini only when the user accepts it."""
        from cann_config.ui.review import ReviewDialog  # a dialog, made when asked for

        c = self.controller
        path = self.state.ini_path()
        if self.state.ini_pending == path:
            # Its content is not known yet: a save now could not keep what the file holds.
            self._not_saved(self.tr("%1 is still being read; try again in a moment.").replace("%1", str(path)))
            return False
        refused = [f for f in c.choice_findings() if f.severity == "error"]
        if refused:
            # A choice `export op-cache-ini` refuses (exit 1, nothing written) is refused here the
            # same way, in the same words (app.session.Session.choice_findings).
            self._not_saved(" ".join(f.message() for f in refused))
            return False
        try:
            save = self.state.ini_save()
        except (InputError, ValueError) as exc:
            self._not_saved(str(exc))
            return False
        except Exception as exc:  # noqa: BLE001 - UsageError and the like: shown, never a traceback
            self._not_saved(str(exc))
            return False
        if save.refusal is not None:
            # CANN would ignore the file written: the same refusal as `export op-cache-ini` (exit 1),
            # decided by the core (app.opcache.ini_save.plan_ini_save); nothing is written.
            refusal = save.refusal  # its message starts "Not saved:" in both languages
            self._set_save_message(lambda: " ".join(t for t in (refusal.message(), refusal.fix_text() or "") if t))
            return False
        data = save.data
        notes = [f"{severity_prefix(finding.severity)} {finding.message()}" for finding in save.findings]
        old = None if c.ini is None else decode_ini_text(c.ini.original)
        if c.ini is not None and data == c.ini.original:
            self._set_save_message(lambda: self.tr("Nothing to save: %1 already holds these values; it was not "
                                                   "touched.").replace("%1", str(path)))
            c.mark_saved()
            return True
        dialog = ReviewDialog(str(path), old, decode_ini_text(data), notes, self, save_default=save.cann_uses)
        if not dialogs.run_dialog(dialog):
            self._set_save_message(lambda: self.tr("Not saved: the review was cancelled."))
            return False
        try:
            if c.ini is None:
                path.parent.mkdir(parents=True, exist_ok=True)
            result = save_op_cache_ini(path, data, None if c.ini is None else c.ini.original)
        except FileChangedError as exc:
            message = self._not_saved(str(exc))
            dialogs.show_error(self, self.tr("op_cache.ini changed on disk"), message)
            return False
        except (InputError, OSError) as exc:
            message = self._not_saved(str(exc))
            dialogs.show_error(self, self.tr("Not saved"), message)
            return False
        backup = result.backup
        if backup is not None:
            self._save_text = lambda: self.tr("Saved %1 (previous version kept as %2).").replace("%1", str(path)) \
                .replace("%2", str(backup))
        else:
            self._save_text = lambda: self.tr("Saved %1.").replace("%1", str(path))
        c.mark_saved()
        self.state.saved(path, data)
        self._show_save_status()
        return True

    def _not_saved(self, reason: str) -> str:
        return self._set_save_message(lambda: self.tr("Not saved: %1").replace("%1", reason))

    def _set_save_message(self, text: Callable[[], str]) -> str:
        """Show what became of the save (in the current language, now and after a switch)."""
        self._save_text = text
        self.refresh()
        self._show_save_status()
        return text()

    def _show_save_status(self) -> None:
        """Scroll the page so that the message beside the Save button is in view: the user's
        eyes are on that button, the page may have been scrolled above it."""
        self.refresh()
        scroll = self.parentWidget()
        while scroll is not None and not isinstance(scroll, QScrollArea):
            scroll = scroll.parentWidget()
        if not isinstance(scroll, QScrollArea):
            return
        content = scroll.widget()
        if content is None:
            return
        layout = content.layout()
        if layout is not None:
            layout.activate()  # the message's place, with its new text
        scroll.ensureWidgetVisible(self.save_status)

    def retranslate(self) -> None:
        self.setTitle(self.tr("op_cache.ini"))
        self.versions_note.setText(self.tr(
            "The CANN that will read this file is not installed here. Copy its versions from the machine that runs "
            "the job: adk_version is the Version line of <CANN toolkit>/compiler/version.info, ops_version that of "
            "$ASCEND_OPP_PATH/version.info. Or leave op_cache.ini alone and set ASCEND_MAX_OP_CACHE_SIZE and "
            "ASCEND_REMAIN_CACHE_SIZE_RATIO (Export page, env file)."))
        self.adk_label.setText(self.tr("adk_version:"))
        self.ops_label.setText(self.tr("ops_version:"))
        self.save_ini_button.setText(self.tr("&Review and save op_cache.ini…"))
        self.reload_ini_button.setText(self.tr("Re&load"))
