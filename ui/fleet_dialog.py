"""Several support bundles at once: the nodes of a cluster side by side (`fleetDialog`).

"Open support bundle…" with more than one file selected reads them in a worker and shows
app.support.fleet's comparison, the same table `cann-config fleet` prints: a row per device,
CANN version and effective setting (value and source), a column per node, the rows that differ
between nodes marked, each node's error findings counted and its errors and warnings listed by
node (`fleetFindings`: the cache a node's next start empties, say). Every node gets a column of bounded
width (a long path is elided, whole in its tooltip), so many nodes scroll sideways instead of
pushing the others out of sight. Rows that differ only by each node's home directory are hidden
until `fleetShowAll` is checked. Every decision (what is compared, what differs, what is noise)
is the core's; this module only lays the table out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from cann_config.app.i18n import current_language

# The tint of a row whose cells differ between nodes (readable in light and dark themes).
DIFFERS_TINT = QColor(255, 190, 60, 90)
# The widest a node's column starts (pixels): four nodes fit the dialog, more scroll sideways.
MAX_COLUMN_WIDTH = 220


class FleetWorker(QThread):
    """Reads and diagnoses the bundles (app.support.fleet.compare_bundles) off the GUI thread."""

    loaded = Signal(object)  # app.support.fleet.FleetComparison
    failed = Signal(str)  # one line naming the file

    def __init__(self, paths: Sequence[str], parent: QObject | None = None):
        super().__init__(parent)
        self.setObjectName("fleetWorker")
        self.paths = list(paths)

    def run(self) -> None:
        from cann_config.app.errors import InputError, UsageError
        from cann_config.app.support.fleet import compare_bundles

        try:
            comparison = compare_bundles(self.paths)
        except (InputError, UsageError) as exc:
            self.failed.emit(" ".join(str(exc).split()))
            return
        except Exception as exc:  # noqa: BLE001 - whatever a hostile file provokes is a message
            self.failed.emit(" ".join(f"{str(exc) or type(exc).__name__}".split()))
            return
        self.loaded.emit(comparison)


class FleetDialog(QDialog):
    def __init__(self, comparison: Any, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("fleetDialog")
        self.comparison = comparison
        lang = current_language()
        self.setWindowTitle(self.tr("Compare nodes"))
        layout = QVBoxLayout(self)
        legend = QLabel(self.tr("One column per support bundle. Rows marked ≠ differ between the nodes "
                                "(value or source); each setting reads value (source)."), self)
        legend.setWordWrap(True)
        layout.addWidget(legend)
        # Every row is in the table; the noise rows are hidden until fleetShowAll is checked.
        header, body = comparison.table(lang, show_all=True)
        self.table = QTableWidget(len(body), len(comparison.nodes), self)
        self.table.setObjectName("fleetTable")
        self.table.setHorizontalHeaderLabels(header[2:])
        self.table.setVerticalHeaderLabels([f"{row[0]} {row[1]}".strip() for row in body])
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        bold = QFont(self.table.font())
        bold.setBold(True)
        for r, row in enumerate(body):
            differs = r < len(comparison.rows) and comparison.rows[r].differs and not comparison.rows[r].noise
            for c, text in enumerate(row[2:]):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if differs:
                    item.setFont(bold)
                    item.setBackground(QBrush(DIFFERS_TINT))
                self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        for c in range(self.table.columnCount()):
            self.table.setColumnWidth(c, min(self.table.columnWidth(c), MAX_COLUMN_WIDTH))
        self.table.setHorizontalScrollMode(QTableWidget.ScrollMode.ScrollPerPixel)
        layout.addWidget(self.table, 1)
        self.show_all = QCheckBox(self.tr("Show the rows that differ only by each node's home directory"), self)
        self.show_all.setObjectName("fleetShowAll")
        self.show_all.setVisible(any(row.noise for row in comparison.rows))
        self.show_all.toggled.connect(self._show_rows)
        layout.addWidget(self.show_all)
        self._show_rows(False)
        self.summary = QLabel(comparison.summary(lang), self)
        self.summary.setObjectName("fleetSummary")
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        # Each node's errors and warnings, naming the node: the cache a start will empty, say.
        self.findings = QListWidget(self)
        self.findings.setObjectName("fleetFindings")
        self.findings.setWordWrap(True)
        self.findings.addItems(comparison.node_finding_lines(lang))
        self.findings.setVisible(self.findings.count() > 0)
        self.findings.setMaximumHeight(140)
        layout.addWidget(self.findings)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(900, 520)

    def _show_rows(self, show_all: bool) -> None:
        for r, row in enumerate(self.comparison.rows):
            self.table.setRowHidden(r, row.noise and not show_all)
        self.summary_text = self.comparison.summary(current_language(), show_all)
        if hasattr(self, "summary"):
            self.summary.setText(self.summary_text)

    def differing_rows(self) -> list[str]:
        """The keys of the rows shown as differing (for tests and accessibility)."""
        return [row.key for row in self.comparison.rows if row.differs and not row.noise]

    def shown_rows(self) -> list[str]:
        """The keys of the rows not hidden."""
        return [row.key for r, row in enumerate(self.comparison.rows) if not self.table.isRowHidden(r)]
