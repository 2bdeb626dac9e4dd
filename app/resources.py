"""Access to the data files under `resources/`, the same way installed, in a checkout or frozen.

`resources/` is installed beside `app/` (`cann_config.resources` next to `cann_config.app`, in a
wheel and in an editable checkout alike), so its files are found from this module's own path;
`importlib.resources` is asked only when they are not there (a frozen bundle keeps them
elsewhere). Asking it every time cost every command ~10 % of its start-up: it imports
`tempfile`, `random`, `zipfile` and their dependencies (tests/bench/bench_cli.py).
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover - typing only
    from importlib.abc import Traversable

_BESIDE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "resources")


@cache
def resources_root() -> Traversable:
    """The `cann_config.resources` package's folder."""
    if os.path.isfile(os.path.join(_BESIDE, "__init__.py")) and os.path.isfile(os.path.join(_BESIDE, "catalog.toml")):
        return Path(_BESIDE)
    from importlib import resources  # a layout without resources/ beside app/ (frozen)

    return resources.files("cann_config.resources")


def resource(*parts: str) -> Traversable:
    """The data file `resources/<parts...>`."""
    node = resources_root()
    for part in parts:
        node = node.joinpath(part)
    return node
