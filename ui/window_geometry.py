"""Where the wizard window opens: the saved geometry only when it still fits, else a default that
fits the screen it opens on, centred.

A geometry saved on another screen or at another scale factor (QT_SCALE_FACTOR=2 halves the
logical screen) came back as a window too small to use or too large to reach its Back / Next /
Finish row: what is restored is checked against the current screen's available area and scale.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, QSize

PREFERRED = QSize(1180, 780)  # the size the pages are laid out for, when the screen has room
FRAME_ALLOWANCE = QSize(16, 40)  # a window manager's title bar and borders, before they are known
MINIMUM_FRACTION = 0.5  # a restored window under half the default size (either way) is not restored


def default_geometry(available: QRect, preferred: QSize = PREFERRED) -> QRect:
    """The client area of a window that fits `available` (frame included), centred in it."""
    width = max(1, min(preferred.width(), available.width() - FRAME_ALLOWANCE.width()))
    height = max(1, min(preferred.height(), available.height() - FRAME_ALLOWANCE.height()))
    title = FRAME_ALLOWANCE.height() - FRAME_ALLOWANCE.width() // 2  # the title bar above the client area
    left = available.left() + (available.width() - width) // 2
    top = available.top() + (available.height() - height - FRAME_ALLOWANCE.height()) // 2 + title
    rect = QRect(left, top, width, height)
    return rect


def restorable(frame: QRect, available: QRect, saved_scale: float | None, scale: float,
               preferred: QSize = PREFERRED) -> bool:
    """Whether a restored window (`frame`, as restoreGeometry placed it) may stay as it is: saved
    at this scale factor, inside the screen's available area, and not shrunk below a usable size."""
    if saved_scale is None or abs(saved_scale - scale) > 1e-6:
        return False
    if not available.contains(frame):
        return False
    usable = default_geometry(available, preferred)
    return (frame.width() >= usable.width() * MINIMUM_FRACTION
            and frame.height() >= usable.height() * MINIMUM_FRACTION)
