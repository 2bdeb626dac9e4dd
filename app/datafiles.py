"""The data files every command reads at start-up (resources/catalog.toml and devices.toml), as
the dicts TOML gives, from a compiled copy while it is current.

Why: `options`, `diagnose` and `scan` each read both files; importing the TOML parser and parsing
them took ~10 ms of a command that costs ~2-4x a bare Python start (tests/bench/bench_cli.py).
As for the message tables (app/messages.py), the compiled copy (app/data_compiled.py, `make
datafiles`) is a Python literal read from its bytecode, with the length and CRC-32 of the file it
was made from; it is used only while the file still has them, so an edited file is parsed as
before until `make datafiles` is run (tests/app/test_datafiles.py checks the committed copy is
current). The catalog and the device table still check every entry of what they are given.

Public API:
    COMPILED_FILES                                 the files under resources/ that have a copy
    toml_module() -> module                        tomllib (tomli on Python 3.10)
    compiled_data(name, raw) -> dict | None        the copy of resources/<name>, if current
    compile_data_files() -> str                    the text of app/data_compiled.py
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

COMPILED_FILES = ("catalog.toml", "devices.toml")


def toml_module() -> ModuleType:
    """The TOML parser, imported when a file has to be parsed (see the module docstring)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib
    return tomllib


def file_digest(raw: bytes) -> str:
    """A fingerprint of a file's bytes: it changes with any edit (length and CRC-32)."""
    from zlib import crc32

    return f"{len(raw)}:{crc32(raw):08x}"


def compiled_data(name: str, raw: bytes) -> dict[str, Any] | None:
    """The parsed TOML of resources/<name> from the compiled copy, when `raw` (the file's bytes
    now) is what it was made from; else None (the caller parses `raw`)."""
    try:
        from cann_config.app import data_compiled
    except ImportError:  # pragma: no cover - a tree without the compiled copy
        return None
    entry = data_compiled.FILES.get(name)
    if entry is None or entry[0] != file_digest(raw):
        return None
    return entry[1]


def compile_data_files() -> str:
    """The text of app/data_compiled.py for the files as they are (`make datafiles`)."""
    from cann_config.app.resources import resource

    tomllib = toml_module()
    files = {}
    for name in COMPILED_FILES:
        raw = resource(name).read_bytes()
        files[name] = (file_digest(raw), tomllib.loads(raw.decode("utf-8")))
    return ('"""resources/catalog.toml and devices.toml as parsed, compiled by `make datafiles`\n'
            '(app/datafiles.py says why); do not edit: run `make datafiles` after changing one."""\n\n'
            "from typing import Any\n\n"
            f"FILES: dict[str, tuple[str, dict[str, Any]]] = {files!r}\n")
