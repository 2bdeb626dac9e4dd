"""The optional C loops of a cache measurement (app/opcache/_native.c), or None.

Why a module of its own: the scanner and the cleanup prediction both use it, and a user (or a
benchmark) must be able to rule it out. CANN_CONFIG_NO_NATIVE=1 makes `native` None, as when the
extension was not built (no C compiler at install): the pure-Python paths then run, with the same
answers (tests/app/opcache/test_native.py), only slower (docs/architecture.md#the-c-loops).
"""

import os
from types import ModuleType

ENV_NO_NATIVE = "CANN_CONFIG_NO_NATIVE"


def _load() -> ModuleType | None:
    if os.environ.get(ENV_NO_NATIVE, "").strip() not in ("", "0"):
        return None
    try:
        from cann_config.app.opcache import _native
    except ImportError:
        return None
    return _native


native: ModuleType | None = _load()
