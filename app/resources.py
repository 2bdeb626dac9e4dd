"""Access to the data files under `resources/`, the same way installed, in a checkout or frozen."""

from __future__ import annotations

from importlib import resources
from importlib.abc import Traversable


def resource(*parts: str) -> Traversable:
    """The data file `resources/<parts...>`."""
    node = resources.files("cann_config.resources")
    for part in parts:
        node = node.joinpath(part)
    return node
