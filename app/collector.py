"""Pausing Python's cyclic garbage collector while a scan builds a big result: one mechanism for
`cann-config scan` and the wizard's workers.

A full collection walks every live object (and, in the wizard, stops every thread meanwhile): with
a scan's hundreds of thousands of entries alive, passes cost ~10 % of an over-limit `scan`
(tests/bench/bench_scan.py) and froze the window for ~80 ms at a time
(tests/bench/bench_responsiveness.py). The objects a scan and a cleanup prediction make are in no
cycle, so reference counting frees them and nothing is lost while the collector waits.
"""

from __future__ import annotations

import gc
from _thread import allocate_lock  # threading.Lock itself, without importing threading for the CLI
from collections.abc import Iterator
from contextlib import contextmanager

_lock = allocate_lock()
_holders = 0
_was_enabled = True


@contextmanager
def collector_paused(*, freeze: bool = False) -> Iterator[None]:
    """Keep the cyclic collector off while any holder (any thread) is inside; the last one out
    turns it back on if it was on before the first came in.

    With `freeze`, what is alive when the last holder leaves is frozen first (gc.freeze): a
    result that lives on (the wizard's kept scan) is then never walked by later passes.
    """
    global _holders, _was_enabled
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0:
                if freeze:
                    gc.freeze()
                if _was_enabled:
                    gc.enable()
