"""argparse choices that are read only when a command line uses them.

Why this module exists: a command's parser is built before its arguments are read. If
`add_arguments()` read the catalog for `--framework`'s choices, every run of the command, and its
`--help`, would parse the catalog to build the parser. `LazyChoices` holds a loader instead:
argparse asks it only to check a value given on the command line, to list the choices in an
error, or to expand `%(choices)s` in that subcommand's own `--help` - and the list stays the
catalog's (one source of truth), not a copy.

Public API:
    LazyChoices(load: Callable[[], Iterable[str]])   a read-only sequence of str, loaded once
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import overload


class LazyChoices(Sequence[str]):
    """A sequence whose items come from `load()`, called the first time they are needed."""

    def __init__(self, load: Callable[[], Iterable[str]]):
        self._load = load
        self._items: tuple[str, ...] | None = None

    def _values(self) -> tuple[str, ...]:
        if self._items is None:
            self._items = tuple(self._load())
        return self._items

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        return self._values()[index]

    def __len__(self) -> int:
        return len(self._values())

    def __iter__(self) -> Iterator[str]:
        return iter(self._values())

    def __contains__(self, value: object) -> bool:
        return value in self._values()

    def __repr__(self) -> str:
        return f"LazyChoices({list(self._values())!r})"
