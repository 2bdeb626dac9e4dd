"""What the memory and cache pages share: one OptionRow per catalog option of the page, kept in
step with the controller, and the documentation pane following the option in focus."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from cann_config.app.catalog import Note, Option, Value
from cann_config.ui.controller import WizardController
from cann_config.ui.pages.base import WizardPage

if TYPE_CHECKING:  # pragma: no cover - typing only
    from cann_config.ui.optionrow import OptionRow


class OptionsPage(WizardPage):
    """A wizard page whose rows are generated from `catalog.on_page(page_id)`."""

    focus_marks = True  # its option titles' "?" buttons, combo boxes and check boxes

    def __init__(self, page_id: str, controller: WizardController, parent: QWidget | None = None):
        super().__init__(controller, parent)
        self.page_id = page_id
        self.rows: dict[str, OptionRow] = {}
        self._syncing = False
        # Where each option started: the choices when the page was built, or when a file or a
        # support bundle gave new starting choices (controller.findingsImported). An option not
        # chosen then starts at its default for the framework in use.
        self._start: dict[str, Value] = dict(controller.profile.options)
        controller.findingsImported.connect(self._new_start)

    def make_row(self, option: Option, parent: QWidget) -> OptionRow:
        # The rows' module is imported by the first page that makes one (a page's build), not
        # before the first paint.
        from cann_config.ui.optionrow import OptionRow

        row = OptionRow(option, parent)
        row.editor.valueChanged.connect(lambda value, oid=option.id: self._edited(oid, value))
        row.docRequested.connect(self.docRequested)
        row.resetRequested.connect(self.controller.reset_value)
        row.reset.clicked.connect(lambda _checked=False, oid=option.id: self.reset_to_start(oid))
        self.rows[option.id] = row
        return row

    def _new_start(self) -> None:
        self._start = dict(self.controller.profile.options)
        self.refresh()

    def start_value(self, option_id: str) -> Value:
        """The value the option started with (see `_start`)."""
        if option_id in self._start:
            return self._start[option_id]
        return self.controller.catalog.default_for(option_id, self.controller.profile.framework)

    def modified(self, option_id: str) -> bool:
        """Whether the option's value differs from where it started."""
        return self.shown_value(option_id) != self.start_value(option_id)

    def reset_to_start(self, option_id: str) -> None:
        """`reset_<id>`: the value the option started with again."""
        if option_id in self._start:
            self.controller.set_value(option_id, self._start[option_id])
        else:
            self.controller.reset_value(option_id)

    def options(self) -> list[Option]:
        return self.controller.catalog.on_page(self.page_id)

    def _edited(self, option_id: str, value: Value) -> None:
        if not self._syncing:
            self.controller.set_value(option_id, value)

    def notes_for(self, option: Option, value: Value) -> list[tuple[Note, str]]:
        """The catalog's rules that depend on the chosen value, with the severity to show."""
        c = self.controller
        return [(note, note.severity) for note in option.notes_for(value, c.answers, framework=c.profile.framework)
                if note.values is not None or note.below is not None]

    def shown_value(self, option_id: str) -> Value:
        """The value an option's editor shows (the controller's; the cache page shows more)."""
        return self.controller.value(option_id)

    def refresh(self) -> None:
        """Show the controller's state in every row (no change flows back while doing so)."""
        if not self.built:
            return
        self._syncing = True
        try:
            for oid, row in self.rows.items():
                option = row.option
                value = self.shown_value(oid)
                default = self.controller.catalog.default_for(oid, self.controller.profile.framework)
                row.show_state(value, self.controller.availability(option), self.notes_for(option, value), default)
                row.show_modified(self.modified(oid))
                if not option.advanced:
                    row.setVisible(self.belongs_here(option))
        finally:
            self._syncing = False

    def belongs_here(self, option: Option) -> bool:
        """An option only one framework takes (vLLM-Ascend's launch flag, MindSpore's settings) is
        shown for that framework only; the others stay visible, greyed with the reason, for every
        framework (the catalog's frameworks table decides, app.device.availability says why)."""
        takers = [fid for fid, f in self.controller.catalog.frameworks.items() if option.id in f.options]
        return len(takers) != 1 or takers[0] == self.controller.profile.framework

    def retranslate(self) -> None:
        self.retranslate_page()
        for row in self.rows.values():
            row.retranslate()

    def retranslate_page(self) -> None:
        """The page's own texts (its rows have theirs)."""

    def build_texts(self) -> Iterator[None]:
        # A row's texts (its title, values and tooltips in the catalog's language) per slice.
        self.retranslate_page()
        for row in self.rows.values():
            yield
            row.retranslate()
        yield
