"""The cache gauge's own drawing: every line it paints fits the width it has, wrapping when it
must (the access-time reason at 1366x768 ran out of the widget before), and the layout gives it
the height its wrapped lines take."""

from __future__ import annotations

from PySide6.QtWidgets import QVBoxLayout, QWidget

from cann_config.ui.gauge import CacheGauge, ChoiceMark, GaugeRow

MB = 1 << 20


def refresh_row(soc: str = "Ascend910B3") -> GaugeRow:
    """A SoC dir over its limit where CANN's own read keeps what it would delete."""
    return GaugeRow(soc=soc, used_bytes=9 * MB, files=400, limit_bytes=8 * MB, keep_bytes=4 * MB, delete_bytes=0,
                    triggers=True, target_bytes=5 * MB, target_reached=False, read_saved_groups=90,
                    choice=ChoiceMark(max_mb=6, ratio=60, limit_bytes=6 * MB, keep_bytes=int(3.6 * MB), delete_bytes=None))


def test_long_lines_wrap_and_the_gauge_grows_to_hold_them(qtbot):
    holder = QWidget()
    layout = QVBoxLayout(holder)
    gauge = CacheGauge()
    layout.addWidget(gauge)
    layout.addStretch()
    qtbot.addWidget(holder)
    gauge.set_rows([refresh_row(), refresh_row("Ascend310P3")], free_bytes=70 << 30, fs_type="ext4")
    refresh = gauge.refresh_text(gauge.rows[0])
    assert refresh, "the access-time reason is painted"
    holder.resize(1200, 900)
    holder.show()
    qtbot.waitExposed(holder)
    wide = gauge.height()
    holder.resize(420, 900)
    qtbot.waitUntil(lambda: gauge.width() < 420)
    narrow_need = gauge.heightForWidth(gauge.width())
    line_height = gauge.fontMetrics().height()
    # At 400 px the reason takes several lines, and the gauge is given the height for them.
    assert gauge.text_height(refresh, gauge.width() - 16) >= 2 * line_height
    assert narrow_need > wide
    # The layout gives the gauge the height of its wrapped lines (it was clipped at one line each).
    qtbot.waitUntil(lambda: gauge.height() >= narrow_need)


def test_heights_follow_the_text(qtbot):
    gauge = CacheGauge()
    qtbot.addWidget(gauge)
    empty = gauge.heightForWidth(600)
    gauge.set_rows([refresh_row()])
    one = gauge.heightForWidth(600)
    gauge.set_rows([refresh_row(), refresh_row("Ascend310P3")])
    assert empty < one < gauge.heightForWidth(600)
    assert gauge.hasHeightForWidth()
