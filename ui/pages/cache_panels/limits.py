"""The size limits CANN reads from op_cache.ini (max_op_cache_size, remain_cache_size_ratio).

Each row's editor shows the value a save would write: the user's choice when there is one
(marked "modified" by the row, whose Reset goes back to the value kept: ui/pages/cache.py),
otherwise the value kept (CacheState.base_value). Under it,
the value CANN uses now and where it comes from (op_cache.ini › env › default, resolved by
app.opcache.resolution; docs/cann/op-cache.md), with the resolver's detail as a tooltip.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from cann_config.app.catalog import Option
from cann_config.app.i18n import pick
from cann_config.ui.controller import WizardController
from cann_config.ui.optionrow import OptionRow
from cann_config.ui.pages.cache_panels.state import CacheState


class LimitsPanel(QWidget):
    """One row per cache option that op_cache.ini carries, with its effective value and source."""

    def __init__(self, controller: WizardController, state: CacheState, options: list[Option],
                 make_row: Callable[[Option, QWidget], OptionRow], parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("cacheLimitsPanel")
        self.controller = controller
        self.state = state
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.effective: dict[str, QLabel] = {}
        self.rows: dict[str, OptionRow] = {}
        for option in options:
            row = make_row(option, self)
            layout.addWidget(row)
            effective = QLabel(row)
            effective.setObjectName(f"effective_{option.id}")
            effective.setWordWrap(True)
            row.grid.addWidget(effective, 5, 0)
            self.effective[option.id] = effective
            self.rows[option.id] = row

    def _source_text(self, effective: Any) -> str:
        where = {"op_cache.ini": self.tr("from op_cache.ini"), "env": self.tr("from the environment"),
                 "default": self.tr("CANN's default"), "profile": self.tr("from the profile"),
                 "script": self.tr("from the script")}
        text = where.get(effective.source, effective.source)
        if effective.source == "env" and effective.variable:
            text = self.tr("from $%1").replace("%1", str(effective.variable))
        if effective.file:
            text += f" ({effective.file}" + (f":{effective.line}" if effective.line else "") + ")"
        return text

    def refresh(self) -> None:
        c = self.controller
        for oid, label in self.effective.items():
            effective = self.state.effective_value(oid)
            option = c.catalog.option(oid)
            if effective is None:
                label.clear()
            else:
                value = "" if effective.value is None else f"{effective.value} {option.unit}".strip()
                label.setText(self.tr("CANN uses now: %1 — %2").replace("%1", value)
                              .replace("%2", self._source_text(effective)))
                label.setToolTip(pick(effective.detail) if effective.detail else "")
            self.rows[oid].reset.setToolTip(self.tr("Go back to the value of op_cache.ini, or the one CANN uses now"))

    def retranslate(self) -> None:
        """Its texts say what the core resolved: `refresh` sets them in the current language."""
