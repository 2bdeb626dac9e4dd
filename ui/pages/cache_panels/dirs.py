"""The cache mode and directory rows, and the directories CANN uses for them (`cacheDirsLabel`):
the base (from the option, the environment or CANN's default, as app.opcache.cachedir resolves
it), its kernel_cache and the SoC directory of the chosen device."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from cann_config.app.catalog import Option
from cann_config.app.i18n import pick
from cann_config.ui import dialogs
from cann_config.ui.controller import WizardController
from cann_config.ui.editors import PathEditor
from cann_config.ui.optionrow import OptionRow
from cann_config.ui.pages.cache_panels.state import DIR_OPTION, CacheState
from cann_config.ui.qtprops import escape, rich_text


class CacheDirsPanel(QWidget):
    """One row per cache option that op_cache.ini does not carry (mode, directory)."""

    def __init__(self, controller: WizardController, state: CacheState, options: list[Option],
                 make_row: Callable[[Option, QWidget], OptionRow], parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("cacheDirsPanel")
        self.controller = controller
        self.state = state
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.rows: dict[str, OptionRow] = {}
        for option in options:
            row = make_row(option, self)
            self.rows[option.id] = row
            layout.addWidget(row)
            if option.id == DIR_OPTION:
                self.dirs_label = rich_text(QLabel(self))
                self.dirs_label.setObjectName("cacheDirsLabel")
                self.dirs_label.setWordWrap(True)
                layout.addWidget(self.dirs_label)
                if isinstance(row.editor, PathEditor):  # a path option's editor (ui/editors.py make_editor)
                    row.editor.browseRequested.connect(self._browse)

    def retranslate(self) -> None:
        """Its texts say what the core resolved: `refresh` sets them in the current language."""

    def refresh(self) -> None:
        r = self.state.dir_resolution
        if r is None:
            return
        c = self.controller
        how = pick(r.how) if isinstance(r.how, dict) else str(r.how)
        lines = [self.tr("<b>Cache base:</b> %1 — %2").replace("%1", escape(str(r.base))).replace("%2", escape(how)),
                 self.tr("<b>kernel_cache:</b> %1").replace("%1", escape(str(r.kernel_cache)))]
        soc = c.device.soc_version if c.device is not None else None
        if soc:
            lines.append(self.tr("<b>SoC dir of %1:</b> %2").replace("%1", escape(soc))
                         .replace("%2", escape(str(r.soc_dir(soc)))))
        self.dirs_label.setText("<br>".join(lines))
        editor = self.rows[DIR_OPTION].editor
        if isinstance(editor, PathEditor):
            editor.line.setPlaceholderText(self.tr("not set: %1").replace("%1", str(r.base)))

    def _browse(self, option_id: str) -> None:
        r = self.state.dir_resolution
        start = str(self.controller.value(option_id)) or (str(r.base) if r is not None else "")
        path = dialogs.choose_directory(self, self.tr("Choose the cache directory"), start)
        if path:
            self.rows[option_id].editor.set_value(path)
