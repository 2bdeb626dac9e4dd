"""A guard against a reference-counting bug of PySide6 6.12.0 on Python < 3.12.

On those versions every call of a Qt method that returns nothing (`label.setText(...)`,
`spin.setValue(...)`, ...) made from Python takes one reference away from `None` (measured:
one per call; 6.11.3 does not). Python 3.12 made None immortal (PEP 683), so the bug is harmless
there; on 3.10 and 3.11 None's count reaches zero after some ten thousand calls and the
interpreter aborts ("none_dealloc: deallocating None"). A long wizard session would crash.

`protect_none()` measures whether the running PySide6 has the bug and, only then, gives None a
reserve of references as large as Python 3.12's immortality gives it, so the count can never
reach zero. It writes the count through ctypes, which is sound on CPython's regular builds
(ob_refcnt is the first field of every object) and is never done elsewhere. Remove this module
once the pinned PySide6 range excludes the broken releases.
"""

from __future__ import annotations

import sys

_RESERVE = 1 << 40
_applied = False


def pyside_takes_none_references() -> bool:
    """Whether calling a void Qt method from Python lowers None's reference count."""
    from PySide6.QtCore import QObject

    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(64):
        probe.setObjectName("probe")
    return sys.getrefcount(None) < before - 32


def protect_none() -> bool:
    """Make None's count unreachable for the bug when the bug is there; True when applied."""
    global _applied
    if _applied or sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return _applied
    if not pyside_takes_none_references():
        return False
    import ctypes

    ctypes.c_ssize_t.from_address(id(None)).value += _RESERVE
    _applied = True
    return True
