"""The cache gauge (`cacheGauge`), painted with QPainter (QtCharts is not in PySide6-Essentials).

One bar per SoC dir: the space CANN counts for it, the limit (`max_op_cache_size`), the keep
threshold (limit × ratio) and what the next compiler start would delete (from app.opcache.cleanup,
or the whole dir when the next start empties it, app.opcache.measurement) - all as CANN uses them
now; when the user's choice of the two sizes differs, a second mark and a line of its own say
what theirs would give, labelled as theirs (never one number standing for both),
and the filesystem's free space underneath. The scale always leaves room past the limit, so a
cache over its limit shows as a bar beyond the limit line with a percentage above 100 %. All
bars share one scale (the largest a row needs), so one limit sits at one position. The
numbers are computed by the core; this widget only draws them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QEvent, QLineF, QRect, QRectF, QSize
from PySide6.QtGui import QBrush, QColor, QFontMetrics, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from cann_config.app.units import human_bytes
from cann_config.ui.qtprops import TEXT_WORD_WRAP, no_focus

if TYPE_CHECKING:  # pragma: no cover - typing only
    from PySide6.QtGui import QPaintEvent, QResizeEvent

# This module is imported when the cache page is built. Painting names Qt's pen, brush and
# alignment enums, so the methods that paint import `Qt` themselves: Python's view of the Qt
# namespace is built when the gauge is first drawn, not while the page is built (ui/qtprops.py).

translate = QCoreApplication.translate




def percent_text(percent: float | None) -> str:
    """A share of the limit as `scan` writes it (app.opcache.measurement soc_lines): one decimal
    below 10 %, so a small cache does not read as 0 %."""
    value = percent or 0.0
    return f"{value:.0f}" if value >= 10 else f"{value:.1f}"


@dataclass(frozen=True)
class ChoiceMark:
    """The user's own choice of the two size values, when it differs from what CANN uses now:
    drawn as a second limit mark and said on a line of its own, labelled as theirs."""

    max_mb: int
    ratio: int
    limit_bytes: int | None  # None: the choice turns ageing off (-1)
    keep_bytes: int | None
    delete_bytes: int | None  # None: not predicted (a bundle's cache is not here to read)


@dataclass(frozen=True)
class GaugeRow:
    """One SoC dir as the gauge shows it (bytes throughout): the numbers are what CANN uses now."""

    soc: str
    used_bytes: int
    files: int
    limit_bytes: int | None  # None: ageing is off (-1), nothing is ever deleted
    keep_bytes: int | None
    delete_bytes: int
    triggers: bool  # the next compiler start would clean this dir
    pending: bool = False  # still measuring or predicting: no limit lines yet
    empties: bool = False  # the next start empties the whole dir (app.opcache.measurement)
    choice: ChoiceMark | None = None
    target_bytes: int = 0  # what CANN needs to delete to get under the keep threshold
    target_reached: bool = True  # the prediction reaches it
    # groups CANN's own parse read saves (their access time refreshed before its re-check):
    # app.opcache.cleanup, docs/cann/op-cache.md#access-time-re-check
    read_saved_groups: int = 0

    @property
    def read_refresh_short(self) -> bool:
        """CANN deletes nothing, or less than it needs, because its own read refreshes the access
        times it checks (the `scan-cleanup-atime-refresh` finding of scan and diagnose)."""
        return self.triggers and not self.empties and not self.target_reached and self.read_saved_groups > 0

    @property
    def choice_percent(self) -> float | None:
        if self.choice is None or not self.choice.limit_bytes:
            return None
        return 100.0 * self.used_bytes / self.choice.limit_bytes

    @property
    def percent(self) -> float | None:
        """Used space against the limit, in percent; above 100 when over the limit."""
        if not self.limit_bytes:
            return None
        return 100.0 * self.used_bytes / self.limit_bytes


class CacheGauge(QWidget):
    BAR_HEIGHT = 22
    ROW_GAP = 30

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("cacheGauge")
        self.rows: list[GaugeRow] = []
        self.free_bytes: int | None = None
        self.fs_type: str | None = None
        self.message = ""
        self.partial = False
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        no_focus(self)
        self._describe()

    def set_rows(self, rows: list[GaugeRow], *, free_bytes: int | None = None, fs_type: str | None = None,
                 message: str = "", partial: bool = False) -> None:
        self.rows = list(rows)
        self.free_bytes = free_bytes
        self.fs_type = fs_type
        self.message = message
        self.partial = partial
        self._describe()
        self.updateGeometry()
        self.update()

    def painted_text(self) -> str:
        """Every text the gauge paints, one line each, in the order it paints them: what a
        screen reader says for it (accessibleDescription) and its tooltip."""
        if not self.rows:
            lines = [self.empty_text()]
        else:
            lines = [line for row in self.rows for line in self.lines_of(row)]
        return "\n".join(lines + self.bottom_lines())

    def _describe(self) -> None:
        text = self.painted_text()
        self.setAccessibleDescription(text)
        self.setToolTip(text)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.LanguageChange:
            self._describe()
        super().changeEvent(event)

    def summary(self) -> str:
        """The gauge's text, as painted (painted_text)."""
        return self.painted_text()

    def row_text(self, row: GaugeRow) -> str:
        used = human_bytes(row.used_bytes)
        if row.pending:
            return translate("CacheGauge", "%1: %2 (%3 files) …").replace("%1", row.soc).replace("%2", used) \
                .replace("%3", f"{row.files:,}")
        if row.limit_bytes is None:
            return translate("CacheGauge", "%1: %2 (no limit: ageing is off)").replace("%1", row.soc).replace("%2", used)
        text = translate("CacheGauge", "%1: %2 of %3 (%4 %)").replace("%1", row.soc).replace("%2", used) \
            .replace("%3", human_bytes(row.limit_bytes)).replace("%4", percent_text(row.percent))
        if row.empties:
            text += " — " + translate("CacheGauge", "next start empties it (%1)").replace("%1", used)
        elif row.read_refresh_short and not row.delete_bytes:
            text += " — " + translate("CacheGauge", "next start deletes nothing")
        elif row.read_refresh_short:
            text += " — " + translate("CacheGauge", "next start deletes only %1 of %2") \
                .replace("%1", human_bytes(row.delete_bytes)).replace("%2", human_bytes(row.target_bytes))
        elif row.delete_bytes:
            text += " — " + translate("CacheGauge", "next start deletes %1").replace("%1", human_bytes(row.delete_bytes))
        return text

    @staticmethod
    def choice_text(row: GaugeRow) -> str:
        """The user's choice, on a line of its own and labelled as theirs ("" when there is none)."""
        choice = row.choice
        if choice is None or row.pending:
            return ""
        if choice.limit_bytes is None:
            return translate("CacheGauge", "Your choice: no limit (ageing off)")
        text = translate("CacheGauge", "Your choice: %1 MB, %2 % kept — %3 % of it").replace("%1", str(choice.max_mb)) \
            .replace("%2", str(choice.ratio)).replace("%3", percent_text(row.choice_percent))
        if choice.delete_bytes:
            text += ", " + translate("CacheGauge", "a start would delete %1").replace("%1", human_bytes(choice.delete_bytes))
        return text

    @staticmethod
    def refresh_text(row: GaugeRow) -> str:
        """Why CANN deletes nothing or less than it needs, on a line of its own ("" otherwise): its
        own read of each kernel json refreshes the access time it checks before deleting
        (docs/cann/op-cache.md#access-time-re-check), as `scan` and `diagnose` say it."""
        if not row.read_refresh_short or row.pending:
            return ""
        return translate("CacheGauge", "CANN's own read refreshes these access times (%1 kernel groups kept): "
                                       "clean as CANN means to, or mount the cache noatime") \
            .replace("%1", f"{row.read_saved_groups:,}")

    def lines_of(self, row: GaugeRow) -> list[str]:
        """The text lines painted above a row's bar (and said to screen readers)."""
        return [line for line in (self.row_text(row), self.refresh_text(row), self.choice_text(row)) if line]

    def free_text(self) -> str:
        free = human_bytes(self.free_bytes or 0)
        if self.fs_type:
            return translate("CacheGauge", "Free space: %1 (%2)").replace("%1", free).replace("%2", self.fs_type)
        return translate("CacheGauge", "Free space: %1").replace("%1", free)

    def text_height(self, line: str, width: float) -> int:
        """The height `line` takes when wrapped to `width` (one line's height at least): a long
        line (the access-time reason, a long SoC name, Chinese at scale 2) wraps, never runs out
        of the widget."""
        metrics = QFontMetrics(self.font())
        # the flag as an int: the layout asks this while a page is built (ui/qtprops.py says why)
        bound = metrics.boundingRect(QRect(0, 0, max(1, int(width)), 100000), TEXT_WORD_WRAP, line)
        return max(metrics.height(), bound.height())

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt override
        text_width = width - 16
        height = 8.0
        if not self.rows:
            height += self.text_height(self.empty_text(), text_width) + 4
        for row in self.rows:
            height += sum(self.text_height(line, text_width) for line in self.lines_of(row))
            height += self.BAR_HEIGHT + self.ROW_GAP - QFontMetrics(self.font()).height()
        bottom = self.bottom_text()
        if bottom:
            height += 2 + self.text_height(bottom, text_width)
        return int(height) + 8

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt override
        return True

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        width = max(420, self.width())
        return QSize(420, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(240, self.heightForWidth(max(240, self.width())))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self.updateGeometry()  # wrapped lines change the height the layout must give

    def empty_text(self) -> str:
        """What the gauge says before it has rows: the worker's message, or how to get some."""
        return self.message or translate("CacheGauge", "No scan yet: press Scan to measure the cache.")

    def bottom_lines(self) -> list[str]:
        """What is said under the bars: free space, a stopped scan, the worker's message."""
        bottom = []
        if self.free_bytes is not None:
            bottom.append(self.free_text())
        if self.partial:
            bottom.append(translate("CacheGauge", "partial: the scan was stopped"))
        if self.rows and self.message:
            bottom.append(self.message)
        return bottom

    def bottom_text(self) -> str:
        """The line painted under the bars (screen readers get its parts one a line)."""
        return "  ·  ".join(self.bottom_lines())

    def scale_bytes(self) -> float:
        """The bytes the full bar width stands for, one scale for every SoC's bar: the same limit
        is drawn at the same position, and bars compare at a glance."""
        return max([1.0] + [max(row.used_bytes * 1.05, (row.limit_bytes or 0) * 1.25,
                                (row.choice.limit_bytes or 0) * 1.25 if row.choice is not None else 0)
                            for row in self.rows])

    @staticmethod
    def x_of(n: float, left: float, width: float, scale: float) -> float:
        """Where `n` bytes end on a bar starting at `left`, `width` wide, `scale` bytes full."""
        return left + width * min(n, scale) / scale

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        from PySide6.QtCore import Qt

        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        text_colour = palette.windowText().color()
        metrics = QFontMetrics(self.font())
        width = self.width() - 16
        y = 8.0
        wrap = Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap
        if not self.rows:
            painter.setPen(text_colour)
            empty = self.empty_text()
            height = self.text_height(empty, width)
            painter.drawText(QRectF(8, y, width, height), wrap, empty)
            y += height + 4
        for row in self.rows:
            painter.setPen(text_colour)
            for line in self.lines_of(row):
                height = self.text_height(line, width)
                painter.drawText(QRectF(8, y, width, height), wrap, line)
                y += height
            y += 2
            self._paint_bar(painter, QRectF(8, y, width, self.BAR_HEIGHT), row)
            y += self.BAR_HEIGHT + self.ROW_GAP - metrics.height() - 2
        painter.setPen(text_colour)
        bottom = self.bottom_text()
        if bottom:
            painter.drawText(QRectF(8, y + 2, width, self.text_height(bottom, width) + 2), wrap, bottom)
        painter.end()

    def _paint_bar(self, painter: QPainter, rect: QRectF, row: GaugeRow) -> None:
        from PySide6.QtCore import Qt

        limit = row.limit_bytes
        scale = self.scale_bytes()

        def x_of(n: float) -> float:
            return self.x_of(n, rect.left(), rect.width(), scale)

        painter.setPen(QPen(QColor("#9aa4ad"), 1))
        painter.setBrush(QColor("#eef1f4"))
        painter.drawRoundedRect(rect, 3, 3)
        if limit is None:
            colour = QColor("#4a8fd4")
        elif row.used_bytes > limit:
            colour = QColor("#d9534f")
        elif row.keep_bytes is not None and row.used_bytes > row.keep_bytes:
            colour = QColor("#e0a526")
        else:
            colour = QColor("#4caf50")
        used_rect = QRectF(rect.left(), rect.top(), x_of(row.used_bytes) - rect.left(), rect.height())
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colour)
        painter.drawRoundedRect(used_rect, 3, 3)
        deleted = row.used_bytes if row.empties else row.delete_bytes
        if deleted > 0:
            start = x_of(max(row.used_bytes - deleted, 0))
            hatch = QRectF(start, rect.top(), x_of(row.used_bytes) - start, rect.height())
            painter.setBrush(QBrush(QColor("#7a1f1c"), Qt.BrushStyle.BDiagPattern))
            painter.drawRect(hatch)
        if limit is not None:
            painter.setPen(QPen(QColor("#222"), 2))
            lx = x_of(limit)
            painter.drawLine(QLineF(lx, rect.top() - 3, lx, rect.bottom() + 3))
            if row.keep_bytes is not None:
                painter.setPen(QPen(QColor("#222"), 1, Qt.PenStyle.DashLine))
                kx = x_of(row.keep_bytes)
                painter.drawLine(QLineF(kx, rect.top() - 3, kx, rect.bottom() + 3))
            small = self.font()
            small.setPointSizeF(max(small.pointSizeF() * 0.85, 6))
            painter.setFont(small)
            painter.setPen(QColor("#222"))
            painter.drawText(QRectF(lx + 3, rect.bottom() + 1, 120, 14), Qt.AlignmentFlag.AlignLeft, translate("CacheGauge", "limit"))
            if row.keep_bytes is not None:
                painter.drawText(QRectF(x_of(row.keep_bytes) - 123, rect.bottom() + 1, 120, 14),
                                 Qt.AlignmentFlag.AlignRight, translate("CacheGauge", "keep"))
            painter.setFont(self.font())
        choice = row.choice
        if choice is not None and choice.limit_bytes is not None and not row.pending:
            # The user's choice: a second mark in another colour and style, labelled as theirs.
            painter.setPen(QPen(QColor("#1f5fa8"), 2, Qt.PenStyle.DotLine))
            cx = x_of(choice.limit_bytes)
            painter.drawLine(QLineF(cx, rect.top() - 5, cx, rect.bottom() + 5))
            small = self.font()
            small.setPointSizeF(max(small.pointSizeF() * 0.85, 6))
            painter.setFont(small)
            painter.setPen(QColor("#1f5fa8"))
            painter.drawText(QRectF(cx + 3, rect.top() - 15, 120, 14), Qt.AlignmentFlag.AlignLeft,
                             translate("CacheGauge", "yours"))
            painter.setFont(self.font())
