"""The message tables: every user-facing text of the core, by a code that never changes with the
language, in resources/messages/*.toml (one file per area of the core).

Why a module of its own: both a finding (app/findings.py) and a failure's one-line reason
(app/errors.py) are rendered from these tables, and the errors are needed by the findings; with
the table here, neither has to import the other's module to read it.

    [ini-foreign-section]
    severity = "error"
    en = "Section [{section}] makes CANN ignore the whole file."
    zh = "..."
    fix.en = "..."     # optional: the suggested fix, same placeholders
    fix.zh = "..."

Why a compiled copy (app/message_data.py, `make messages`): parsing the eight TOML files took
~30 ms of every command that says anything, about as much as starting Python. The compiled copy
is a Python literal (read from its bytecode) with the digest of the files it was made from; it is
used only while that digest matches the files, so an edited TOML file is parsed as before until
`make messages` is run (tests/app/test_findings.py checks that the committed copy is current).

Why the table's reader is imported when the table is first read: every command imports this
module (through app/errors.py) to be able to explain a failure, but `cann-config --help` renders
no text; the TOML parser and importlib.resources behind `resource()` are about half of its
start-up (tests/app/cli/test_cli_basics.py checks what `--help` imports).
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

import sys
from collections.abc import Iterable, Iterator, Mapping
from functools import cache, lru_cache
from typing import TYPE_CHECKING, NamedTuple, cast

if TYPE_CHECKING:  # pragma: no cover - typing only
    from types import ModuleType

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


class MessageTableError(Exception):
    """A message file is malformed or defines a code twice."""


class MessageTemplate(NamedTuple):
    code: str
    severity: str
    text: Mapping[str, str]
    fix: Mapping[str, str] | None = None


def _toml() -> "ModuleType":
    # Imported here, not at the top: see the module docstring.
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib


def _parse_messages(text: str, source: str) -> dict[str, MessageTemplate]:
    tomllib = _toml()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MessageTableError(f"{source}: not valid TOML: {exc}") from None
    templates = {}
    for code, entry in data.items():
        if not isinstance(entry, dict) or set(entry) - {"severity", "en", "zh", "fix"}:
            raise MessageTableError(f"{source}: [{code}]: expected severity, en, zh and optional fix")
        if entry.get("severity") not in SEVERITY_ORDER or not entry.get("en") or not entry.get("zh"):
            raise MessageTableError(f"{source}: [{code}]: needs a severity and texts in en and zh")
        fix = entry.get("fix")
        if fix is not None and not (isinstance(fix, dict) and fix.get("en") and fix.get("zh")):
            raise MessageTableError(f"{source}: [{code}]: fix needs en and zh")
        templates[code] = MessageTemplate(code, entry["severity"], {"en": entry["en"], "zh": entry["zh"]}, fix)
    return templates


def _sources() -> list[tuple[str, bytes]]:
    """(area, bytes) of every resources/messages/*.toml, by name."""
    from cann_config.app.resources import resource  # see the module docstring

    nodes = sorted((n for n in resource("messages").iterdir() if n.name.endswith(".toml")), key=lambda n: n.name)
    return [(n.name[:-len(".toml")], n.read_bytes()) for n in nodes]


def sources_digest(sources: list[tuple[str, bytes]]) -> str:
    """A fingerprint of the message files: it changes with any edit (CRC-32 and length per file)."""
    from zlib import crc32

    return " ".join(f"{area}:{len(data)}:{crc32(data):08x}" for area, data in sources)


@cache
def _compiled() -> Mapping[str, Mapping[str, tuple]] | None:
    """The compiled areas when app/message_data.py was made from the files as they are, else None."""
    try:
        from cann_config.app import message_data
    except ImportError:  # pragma: no cover - a tree without the compiled copy
        return None
    if message_data.DIGEST != sources_digest(_sources()):
        return None
    return cast("Mapping[str, Mapping[str, tuple]]", message_data.AREAS)  # a generated literal


def compile_messages() -> str:
    """The text of app/message_data.py for the files as they are (`make messages`)."""
    sources = _sources()
    areas = {area: {code: (t.severity, t.text["en"], t.text["zh"], dict(t.fix) if t.fix else None)
                    for code, t in _parse_messages(data.decode("utf-8"), f"resources/messages/{area}.toml").items()}
             for area, data in sources}
    return ('"""The message tables of resources/messages/*.toml, compiled by `make messages` (app/messages.py\n'
            'says why); do not edit: run `make messages` after changing a message file."""\n\n'
            f"DIGEST = {sources_digest(sources)!r}\n\n"
            f"AREAS = {areas!r}\n")


class _CompiledTemplates(Mapping[str, MessageTemplate]):
    """Templates by code from the compiled rows, each made when first read: a command shows a few
    of the tables' ~700 texts, and making them all was ~1 ms of every command that says anything."""

    def __init__(self, rows: Mapping[str, tuple]) -> None:
        self._rows = rows
        self._made: dict[str, MessageTemplate] = {}

    def __getitem__(self, code: str) -> MessageTemplate:
        template = self._made.get(code)
        if template is None:
            severity, en, zh, fix = self._rows[code]
            template = self._made[code] = MessageTemplate(code, severity, {"en": en, "zh": zh}, fix)
        return template

    def __contains__(self, code: object) -> bool:
        return code in self._rows

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


@cache
def message_file(area: str) -> Mapping[str, MessageTemplate]:
    """The message templates of one file, resources/messages/<area>.toml, by code: a caller that
    needs one area's texts (the device phrases of the window's first page) reads only that one."""
    from cann_config.app.resources import resource  # see the module docstring

    compiled = _compiled()
    if compiled is not None and area in compiled:
        return _CompiledTemplates(compiled[area])
    source = f"resources/messages/{area}.toml"
    return _parse_messages(resource("messages", f"{area}.toml").read_text(encoding="utf-8"), source)


def _duplicate(areas: Iterable[tuple[str, Iterable[str]]]) -> None:
    """MessageTableError naming the file of the first code that another message file defined before."""
    seen: set[str] = set()
    for area, codes in areas:
        for code in codes:
            if code in seen:
                raise MessageTableError(f"resources/messages/{area}.toml: code {code!r} is already defined in "
                                        "another message file")
            seen.add(code)


@lru_cache(maxsize=1)
def message_table() -> Mapping[str, MessageTemplate]:
    """Every message template in resources/messages/, by code."""
    from cann_config.app.resources import resource  # see the module docstring

    compiled = _compiled()
    if compiled is not None:
        # The compiled copy is current, so its areas are the files (the digest names each one).
        rows: dict[str, tuple] = {}
        for codes in compiled.values():
            rows.update(codes)
        if len(rows) != sum(len(codes) for codes in compiled.values()):
            _duplicate(compiled.items())
        return _CompiledTemplates(rows)
    nodes = sorted((n for n in resource("messages").iterdir() if n.name.endswith(".toml")), key=lambda n: n.name)
    names = [node.name[:-len(".toml")] for node in nodes]
    files = [(area, message_file(area)) for area in names]
    _duplicate(files)
    return {code: template for _, templates in files for code, template in templates.items()}
