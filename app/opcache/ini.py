"""op_cache.ini: read it the way CANN reads it, check it, and edit it without losing a byte.

Why this module exists: the most common support question about the operator cache is "my
setting is ignored", and the answer is almost always in how CANN's own little parser reads
`<cache dir>/kernel_cache/op_cache.ini` (docs/cann/op-cache.md#reading-the-ini-file, `te_cache_space_manager.cc`
`LoadIniFile` / `GetCacheInitFileCfg`). Its rules differ from every generic INI reader, so the
file is read three ways here:

- `cann_view`: CANN's parser, emulated line by line on the bytes CANN sees (lines end at LF only,
  the CR of CRLF and a UTF-8 BOM stay in the text, only a `#` in column 1 is a comment, keys and
  values are trimmed of spaces and tabs only, empty keys or values are dropped, inline comments
  stay in the value, `std::map::emplace` keeps the first block of a section name, and any
  section other than `[op_compiler_cache]` makes CANN ignore the whole file).
- `layout`: the same rules on the lines an editor shows (CR, LF or CRLF end a line; no BOM),
  used to find the text to change when writing.
- `generic`: configobj 5.0.9 (`list_values=False, interpolation=False`), the generic INI view
  (sections, keys, comments), whose parse errors become findings where CANN's rules say nothing.

Writing is line-preserving, not configobj's `write()`: configobj's parser throws away the spaces
around `=`, the spaces before an inline comment (configobj #261), the indentation of comment
lines (#269), mixed line ends and a missing final newline, and no write hook can put them back.
So `render_op_cache_ini` edits the original bytes: an unchanged file is returned byte for byte,
a changed value replaces only the characters of that value, a new key is inserted as
`key=value` (no spaces, as CANN writes its own version lines), and the version lines are never
touched. `save_op_cache_ini` writes atomically (temporary file in the same directory, then
`os.replace`) through the one writer, app.io.outputfiles, keeps the permissions and a backup,
and refuses to overwrite a file that changed on disk since it was read.

Public API (consumers: exporters, scan, wizard, diagnosis):
    read_op_cache_ini(path) -> OpCacheIni                     (InputError when unusable)
    parse_op_cache_ini(data: bytes, source: str) -> OpCacheIni
    render_op_cache_ini(existing: OpCacheIni | None, changes: Mapping[str, int | str]) -> bytes
    save_op_cache_ini(path, data: bytes, expected_original: bytes | None) -> SaveResult
    creation_findings(changes, installed=None) -> list[Finding]
    installed_op_cache_versions(root=Path("/"), environ=None) -> dict[str, str]
    cann_stoi(text) -> StoiResult          (std::stoi as CANN calls it, for resolution)
Rendered bytes may hold non-UTF-8 bytes copied from the original; decode them for display with
`errors="surrogateescape"` (or `decode_ini_text`) and write the bytes, not the text.
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

import bisect
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from cann_config.app.catalog import Value, load_catalog
from cann_config.app.errors import InputError, Message, UsageError, explain
from cann_config.app.findings import Finding, make_finding
from cann_config.app.i18n import pick
from cann_config.app.io.inputfiles import read_input_bytes
from cann_config.app.io.outputfiles import ABSENT, FileChangedError, write_output  # noqa: F401 - FileChangedError re-exported
from cann_config.app.messages import message_table

if TYPE_CHECKING:  # pragma: no cover - typing only: configobj is imported where a file is parsed
    from configobj import ConfigObj

SECTION = "op_compiler_cache"
ADK_VERSION = "adk_version"
OPS_VERSION = "ops_version"
MAX_SIZE = "max_op_cache_size"
REMAIN_RATIO = "remain_cache_size_ratio"
VERSION_KEYS = (ADK_VERSION, OPS_VERSION)
SIZE_KEYS = (MAX_SIZE, REMAIN_RATIO)
KNOWN_KEYS = VERSION_KEYS + SIZE_KEYS
INI_NAME = "op_cache.ini"
BOM = b"\xef\xbb\xbf"
# CANN reads lines into a 1024-byte buffer when it rewrites the version lines
# (te_cache_space_manager.cc, EACH_LINE_MAX_SIZE): a longer line stops the rewrite there.
CANN_LINE_LIMIT = 1024
# An op_cache.ini is a handful of lines; anything this big is not one.
MAX_FILE_BYTES = 1 << 20
INT_MAX = 2**31 - 1
INT_MIN = -(2**31)
# CANN creates op_cache.ini with FILE_AUTHORITY 0640 (te_fusion_util_constants.h).
NEW_FILE_MODE = 0o640
# Trim() in CANN's common_utils.cc removes spaces and tabs, nothing else.
_CANN_TRIM = " \t"
# The documented template (docs/cann/op-cache.md#template), comments exactly as the docs write them.
TEMPLATE_HEAD = "#配置文件格式，必须包含，自动生成的文件中默认包括如下信息，手动创建时，需要输入"
TEMPLATE_COMMENTS = {
    MAX_SIZE: "#限制某个AI处理器下缓存文件的磁盘空间的大小，整数，单位为MB",
    REMAIN_RATIO: "#当磁盘空间不足时，设置需要保留的缓存文件比例，取值范围：[1,100]，单位为百分比；"
                  "例如80表示磁盘空间不足时，会保留80%的缓存空间中的文件，其余删除",
}


def decode_ini_text(data: bytes) -> str:
    """Text for display; bytes that are not UTF-8 survive a round trip through `encode_ini_text`."""
    return data.decode("utf-8", "surrogateescape")


def encode_ini_text(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _cann_trim(text: str) -> str:
    return text.strip(_CANN_TRIM)


# ---------------------------------------------------------------------------------------------
# std::stoi, as CANN applies it to the size values (docs/cann/op-cache.md#size-limit-and-keep-ratio)
# ---------------------------------------------------------------------------------------------

# strtol skips C isspace() characters, takes a sign and ASCII digits, and stops at anything else.
_C_NUMBER = re.compile(r"[ \t\n\v\f\r]*([+-]?[0-9]+)")


class StoiResult(NamedTuple):
    """What `std::stoi(text)` gives: a number, or why it throws."""

    value: int | None
    error: str | None = None  # "not-a-number" (invalid_argument) | "out-of-range" (out_of_range)
    prefix_only: bool = False  # True when characters after the number were ignored ("500MB")
    number_span: tuple[int, int] | None = None  # where the number's text is, in `text`


def cann_stoi(text: str) -> StoiResult:
    match = _C_NUMBER.match(text)
    if match is None:
        return StoiResult(None, "not-a-number")
    number = int(match.group(1))
    if not INT_MIN <= number <= INT_MAX:
        return StoiResult(None, "out-of-range", number_span=match.span(1))
    return StoiResult(number, None, match.end() != len(text), match.span(1))


# ---------------------------------------------------------------------------------------------
# The file as lines
# ---------------------------------------------------------------------------------------------


class IniLine(NamedTuple):
    """One line as an editor shows it (CR, LF and CRLF end a line)."""

    number: int  # 1-based
    offset: int  # byte offset of `content` in the original (after the BOM on line 1)
    content: bytes  # without the line end (and without the BOM)
    ending: bytes  # b"\r\n", b"\n", b"\r" or b"" (last line without a final newline)

    @property
    def text(self) -> str:
        return decode_ini_text(self.content)

    @property
    def end(self) -> int:
        """Offset just after the line end."""
        return self.offset + len(self.content) + len(self.ending)


_LINE_END = re.compile(rb"\r\n|\n|\r")


def _editor_lines(data: bytes, bom: bool) -> list[IniLine]:
    lines: list[IniLine] = []
    pos = len(BOM) if bom else 0
    number = 1
    for match in _LINE_END.finditer(data, pos):
        lines.append(IniLine(number, pos, data[pos:match.start()], match.group()))
        pos = match.end()
        number += 1
    if pos < len(data):
        lines.append(IniLine(number, pos, data[pos:], b""))
    return lines


def _cann_lines(data: bytes, editor: Sequence[IniLine]) -> list[tuple[int, str, int]]:
    """The lines CANN's `std::getline` yields (split at LF only, CR and BOM kept), each with the
    number of the editor line it starts on and its length in bytes."""
    starts = [line.offset for line in editor]
    if editor and editor[0].offset:
        starts[0] = 0  # line 1 starts at the BOM for CANN
    result = []
    pos = 0
    while pos < len(data):
        end = data.find(b"\n", pos)
        piece = data[pos:] if end < 0 else data[pos:end]
        number = bisect.bisect_right(starts, pos) if starts else 1
        result.append((number, decode_ini_text(piece), len(piece)))
        if end < 0:
            break
        pos = end + 1
    return result


# ---------------------------------------------------------------------------------------------
# CANN's parser, emulated (te_cache_space_manager.cc LoadIniFile + GetCacheInitFileCfg)
# ---------------------------------------------------------------------------------------------


class CannEntry(NamedTuple):
    """A `key=value` line as CANN keeps it."""

    key: str
    value: str  # trimmed of spaces and tabs only: a CR, quotes and an inline comment stay
    line: int
    raw: str  # the whole line as CANN read it


class CannBlock:
    """The keys CANN gathered under one section name before the next header (one emplace)."""

    def __init__(self, name: str, start_line: int | None, entries: list[CannEntry], kept: bool,
                 carried: list[CannEntry] | None = None) -> None:
        self.name = name
        self.start_line = start_line  # the header (or unclosed `[` line) that began the block
        self.entries = entries
        self.kept = kept  # False: a block of this name came first, and std::map::emplace keeps the first
        self.carried: list[CannEntry] = [] if carried is None else carried  # keys from before any header


# Why CANN does not use a file, said in the message tables.
REASON_CODES = {"foreign-section": "cache-ini-reason-foreign-section", "no-section": "cache-ini-reason-no-section",
                "missing-versions": "cache-ini-reason-missing-versions"}


class CannView:
    """What CANN makes of the file."""

    def __init__(self, blocks: list[CannBlock], headers: list[tuple[str, int]], orphans: list[CannEntry],
                 skipped: list[tuple[int, str, str]], counts: bool, stop: CannBlock | None,
                 values: dict[str, CannEntry]) -> None:
        self.blocks = blocks
        self.headers = headers  # every header CANN recognised: (name, line)
        self.orphans = orphans  # keys CANN gathered under no section name and dropped
        self.skipped = skipped  # (line, why, raw): "no-equals" | "empty" | "unclosed"
        self.counts = counts  # GetCacheInitFileCfg returns true: CANN uses the file
        self.stop = stop  # the first other section: CANN ignores the whole file
        self.values = values  # what CANN reads from [op_compiler_cache] (last duplicate wins)
        self._table: dict[str, CannBlock] | None = None

    @property
    def table(self) -> dict[str, CannBlock]:
        """The sections LoadIniFile keeps (first block of each name that has keys)."""
        if self._table is None:  # asked once per lost block: a file of many blocks stays linear
            self._table = {b.name: b for b in self.blocks if b.kept}
        return self._table

    @property
    def section(self) -> CannBlock | None:
        return self.table.get(SECTION)

    @property
    def reason(self) -> str:
        """Why the file counts or not: ok | foreign-section | no-section | missing-versions."""
        if self.counts:
            return "ok"
        if self.stop is not None:
            return "foreign-section"
        if self.section is None:
            return "no-section"
        return "missing-versions"

    def reason_text(self, lang: str | None = None) -> str:
        """`reason` said for people, in `lang` (default: the current language); "" when it counts."""
        if self.counts:
            return ""
        return pick(make_finding(REASON_CODES[self.reason]).text, lang)


def emulate_cann(lines: Sequence[tuple[int, str]]) -> CannView:
    """Read `(line number, text)` pairs with CANN's rules."""
    blocks: list[CannBlock] = []
    headers: list[tuple[str, int]] = []
    skipped: list[tuple[int, str, str]] = []
    map_key = ""
    block_start: int | None = None
    content: list[CannEntry] = []
    carried: list[CannEntry] = []

    kept_names: set[str] = set()

    def emplace() -> None:
        kept = map_key not in kept_names  # std::map::emplace keeps the first block of a name
        kept_names.add(map_key)
        blocks.append(CannBlock(map_key, block_start, list(content), kept, list(carried)))

    for number, text in lines:
        if not text or text[0] == "#":
            continue
        if text[0] == "[":
            if map_key and content:
                emplace()
                content, carried = [], []
            close = text.rfind("]")
            if close < 0:
                skipped.append((number, "unclosed", text))
                block_start = number
                continue
            if not map_key and content:
                carried = list(content)  # keys before any named section flow into the next one
            map_key = _cann_trim(text[1:close])
            block_start = number
            headers.append((map_key, number))
            continue
        equals = text.find("=")
        if equals < 0:
            skipped.append((number, "no-equals", text))
            continue
        key, value = _cann_trim(text[:equals]), _cann_trim(text[equals + 1:])
        if key and value:
            content.append(CannEntry(key, value, number, text))
        else:
            skipped.append((number, "empty", text))
    orphans: list[CannEntry] = []
    if content and map_key:
        emplace()
    elif content:
        orphans = list(content)

    view = CannView(blocks, headers, orphans, skipped, False, None, {})
    section = view.section
    if section is not None:
        for entry in section.entries:
            if entry.key in KNOWN_KEYS:
                view.values[entry.key] = entry
    # docs/cann/op-cache.md#sections: any section other than [op_compiler_cache] makes CANN ignore the
    # whole file. (A closer reading of LoadIniFile suggests std::map name order and empty sections
    # might soften this; that is not confirmed, so the tool keeps to the documented rule.)
    foreign = [(name, number) for name, number in headers if name != SECTION]
    if foreign:
        name, number = foreign[0]
        view.stop = view.table.get(name) or CannBlock(name, number, [], True)
    elif section is not None and ADK_VERSION in view.values and OPS_VERSION in view.values:
        view.counts = True
    return view


# ---------------------------------------------------------------------------------------------
# The parsed file
# ---------------------------------------------------------------------------------------------


class OpCacheIni:
    """One op_cache.ini as read: the original bytes and every way of looking at them."""

    def __init__(self, source: str, original: bytes, lines: list[IniLine], bom: bool, cann_view: CannView,
                 layout: CannView, generic: "ConfigObj | None", generic_errors: list[tuple[int, str]],
                 findings: list[Finding], path: Path | None = None, stat: os.stat_result | None = None) -> None:
        self.source = source
        self.original = original
        self.lines = lines
        self.bom = bom
        self.cann_view = cann_view
        self.layout = layout
        self.generic = generic
        self.generic_errors = generic_errors
        self.findings = findings
        self.path = path
        self.stat = stat

    @property
    def counts(self) -> bool:
        """CANN uses this file (both version lines present, only [op_compiler_cache])."""
        return self.cann_view.counts

    def values_as_cann_reads(self) -> dict[str, CannEntry]:
        """adk_version, ops_version, max_op_cache_size, remain_cache_size_ratio as CANN holds
        them (present keys only), whether or not the file counts: see `counts`."""
        return dict(self.cann_view.values)

    def newline(self) -> bytes:
        """The line end most lines use (LF for a file without any)."""
        endings = [line.ending for line in self.lines if line.ending]
        if not endings:
            return b"\n"
        return max((b"\n", b"\r\n", b"\r"), key=endings.count)

    def line(self, number: int) -> IniLine | None:
        return self.lines[number - 1] if 1 <= number <= len(self.lines) else None


def parse_op_cache_ini(data: bytes, source: str) -> OpCacheIni:
    """Parse op_cache.ini bytes. Raises InputError only for text that is not a text file at all
    (a NUL byte); everything else questionable becomes a finding with its line."""
    if b"\x00" in data:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise InputError.from_code("cache-error-ini-nul", source, line)
    bom = data.startswith(BOM)
    editor = _editor_lines(data, bom)
    cann_lines = _cann_lines(data, editor)
    cann_view = emulate_cann([(n, t) for n, t, _ in cann_lines])
    layout = emulate_cann([(line.number, line.text) for line in editor])
    # configobj costs ~50 µs per line it cannot parse; a file CANN writes has a dozen lines, so a
    # file past GENERIC_READER_MAX_LINES is not given to it (a finding says so).
    generic, generic_errors = (_read_generic([line.text for line in editor]) if len(editor) <= GENERIC_READER_MAX_LINES
                               else (None, []))
    ini = OpCacheIni(source, data, editor, bom, cann_view, layout, generic, generic_errors, [])
    ini.findings = _file_findings(ini, cann_lines)
    return ini


def read_op_cache_ini(path: str | os.PathLike[str], *, nofollow: bool = False) -> OpCacheIni:
    """Read and parse a file; InputError (one line, names the file) when it cannot be used.
    With `nofollow` a symlink is refused rather than followed (support bundles)."""
    path = Path(path)
    data, info = read_input_bytes(path, Message("cache-kind-op-cache-ini"), MAX_FILE_BYTES, nofollow=nofollow)
    ini = parse_op_cache_ini(data, str(path))
    ini.path = path
    ini.stat = info
    return ini


def _read_generic(texts: list[str]) -> "tuple[ConfigObj | None, list[tuple[int, str]]]":
    """configobj's view and its parse errors (line, message)."""
    # Imported here: a command that finds no op_cache.ini (scan of a new cache) never parses one.
    from configobj import ConfigObj, ConfigObjError

    try:
        return ConfigObj(texts, list_values=False, interpolation=False, raise_errors=False,
                         file_error=False, indent_type=""), []
    except ConfigObjError as exc:
        errors = [(getattr(e, "line_number", 0) or 0, str(e)) for e in getattr(exc, "errors", [])] or \
                 [(getattr(exc, "line_number", 0) or 0, str(exc))]
        return getattr(exc, "config", None), errors
    except Exception as exc:  # noqa: BLE001 - a third-party reader's own bug must not hide CANN's view
        return None, [(0, f"{type(exc).__name__}: {exc}")]


# ---------------------------------------------------------------------------------------------
# Findings about the file itself (values are judged in app/opcache/resolution.py)
# ---------------------------------------------------------------------------------------------


# How many findings of one kind about single lines are listed one by one (see _file_findings).
LINES_LISTED_PER_KIND = 5
# The longest file checked with a generic INI reader as well (parse_op_cache_ini).
GENERIC_READER_MAX_LINES = 2000


def _short(text: str, limit: int = 60) -> str:
    text = text.replace("\r", "\\r").replace("\ufeff", "<BOM>")
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _lines_text(entries: Sequence[CannEntry]) -> str:
    return ", ".join(str(e.line) for e in entries)


def _file_findings(ini: OpCacheIni, cann_lines: Sequence[tuple[int, str, int]]) -> list[Finding]:
    src = ini.source
    out: list[Finding] = []
    view = ini.cann_view
    data = ini.original

    # A file of junk lines (inside MAX_FILE_BYTES) would otherwise give one finding per line:
    # ~100,000 for 1 MB, tens of seconds and megabytes of output. Each kind is listed line by
    # line LINES_LISTED_PER_KIND times, then said once with its count (docs/architecture.md#bounds).
    listed_per_kind: dict[str, int] = {}
    more_of_kind: dict[str, list[Any]] = {}  # code -> [count, first line, last line, severity]

    def add(code: str, line: int | None = None, **params: Any) -> None:
        listed = listed_per_kind.get(code, 0)
        if listed < LINES_LISTED_PER_KIND:
            listed_per_kind[code] = listed + 1
            out.append(make_finding(code, file=src, line=line, **params))
            return
        more = more_of_kind.setdefault(code, [0, line, line, params.get("severity")])
        more[0] += 1
        more[2] = line

    # Line ends and encoding: what getline() and an ifstream make of the bytes.
    cr_only = b"\r" in data and b"\n" not in data
    if cr_only:
        add("cache-ini-cr-line-ends")
    else:
        lone = re.search(rb"\r(?!\n)", data)
        if lone is not None:
            line = data.count(b"\n", 0, lone.start()) + 1
            add("cache-ini-lone-cr", line)
    if not cr_only and b"\r\n" in data:
        first = data.count(b"\n", 0, data.index(b"\r\n")) + 1
        has_versions = ADK_VERSION in view.values or OPS_VERSION in view.values
        add("cache-ini-crlf-versions" if view.counts and has_versions else "cache-ini-crlf", first)
    if ini.bom:
        first_text = ini.lines[0].text.strip() if ini.lines else ""
        if first_text and not first_text.startswith("#"):
            add("cache-ini-bom-line1", 1, text=_short(first_text))
        else:
            add("cache-ini-bom", 1)
    for ini_line in ini.lines:
        try:
            ini_line.content.decode("utf-8")
        except UnicodeDecodeError:
            add("cache-ini-invalid-utf8", ini_line.number)
    for number, _text, length in cann_lines:
        if length >= CANN_LINE_LIMIT:
            add("cache-ini-long-line", number, length=length, limit=CANN_LINE_LIMIT)
    if cr_only:
        return out + _more_of_kind(src, more_of_kind)

    # Structure, as LoadIniFile / GetCacheInitFileCfg see it.
    reported: set[int] = set()
    for name, number in view.headers:
        if name != SECTION:
            add("cache-ini-foreign-section", number, section=_short(name))
            reported.add(number)
    if view.stop is None and view.section is None:
        add("cache-ini-no-section")
    if view.stop is None and view.section is not None and not view.counts:
        missing = [k for k in VERSION_KEYS if k not in view.values]
        has_sizes = any(k in view.values for k in SIZE_KEYS)
        add("cache-ini-missing-versions", view.section.start_line, missing=", ".join(missing),
            severity="error" if has_sizes else "warning")
    for block in view.blocks:
        if block.carried:
            for entry in block.carried:
                add("cache-ini-key-before-section", entry.line, key=_short(entry.key), section=_short(block.name))
                reported.add(entry.line)
        if not block.kept:
            reported.add(block.start_line or 0)
            first_block = view.table[block.name]
            add("cache-ini-block-lost", block.start_line, lines=_lines_text(block.entries),
                section=_short(block.name), first_line=first_block.start_line or 0)
    if view.orphans:
        add("cache-ini-key-outside-section", view.orphans[0].line, lines=_lines_text(view.orphans),
            keys=_short(", ".join(e.key for e in view.orphans), 80))
        reported.update(e.line for e in view.orphans)
    for number, why, raw in view.skipped:
        stripped = raw.strip(" \t\r\ufeff")
        if why == "unclosed":
            add("cache-ini-unclosed-section", number, text=_short(raw))
        elif why == "empty":
            add("cache-ini-empty-value", number, text=_short(raw))
        elif number == 1 and ini.bom:
            continue  # already explained by the BOM finding
        elif not stripped:
            continue  # a blank line with spaces or a CR: nothing to say
        elif stripped.startswith("#"):
            add("cache-ini-indented-comment", number)
        elif stripped.startswith("["):
            add("cache-ini-indented-section", number, text=_short(stripped))
        else:
            add("cache-ini-no-equals", number, text=_short(raw))
        reported.add(number)

    section = view.section
    if section is not None:
        by_key: dict[str, list[CannEntry]] = {}
        for entry in section.entries:
            by_key.setdefault(entry.key, []).append(entry)
        for key, entries in by_key.items():
            if len(entries) > 1:
                first_entry, last_entry = entries[0], entries[-1]
                add("cache-ini-duplicate-key", last_entry.line, key=_short(key), first_line=first_entry.line,
                    first_value=_short(first_entry.value), value=_short(last_entry.value),
                    lines=_lines_text(entries))
        for entry in section.entries:
            if entry.key.startswith("#"):
                add("cache-ini-indented-comment-key", entry.line, key=_short(entry.key))
            elif entry.key not in KNOWN_KEYS:
                import difflib  # only for an unknown key

                guess = difflib.get_close_matches(entry.key.lower(), KNOWN_KEYS, n=1, cutoff=0.75)
                if guess:
                    add("cache-ini-unknown-key-typo", entry.line, key=_short(entry.key), guess=guess[0])
                else:
                    add("cache-ini-unknown-key", entry.line, key=_short(entry.key))
            elif entry.key in VERSION_KEYS and entry.raw.split("=", 1)[0] != entry.key:
                # GetNewVersionString matches `adk_version=` / `ops_version=` exactly.
                add("cache-ini-version-spacing", entry.line, key=entry.key,
                    value=_short(entry.value.rstrip("\r")))
            elif "#" in entry.value:
                add("cache-ini-inline-comment", entry.line, key=entry.key, value=_short(entry.value))
            reported.add(entry.line)

    if len(ini.lines) > GENERIC_READER_MAX_LINES:
        add("cache-ini-generic-skipped", None, lines=len(ini.lines), limit=GENERIC_READER_MAX_LINES)
    # configobj's errors, where CANN's rules have said nothing about the line.
    for number, message in ini.generic_errors:
        if number and number not in reported:
            add("cache-ini-generic-reader", number, reason=_short(message.split(" at line")[0], 80))
    return out + _more_of_kind(src, more_of_kind)


def _more_of_kind(source: str, more_of_kind: dict[str, list[Any]]) -> list[Finding]:
    """One finding per kind for the lines past the first LINES_LISTED_PER_KIND of that kind."""
    out = []
    for code, (count, first, last, severity) in more_of_kind.items():
        out.append(make_finding("cache-ini-more-lines", file=source, line=first, count=count, kind=code,
                                first=first, last=last, severity=severity or message_table()[code].severity))
    return out


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------


def _ini_key_for(name: str) -> str:
    """The ini key for an option id or a raw ini key; UsageError when op_cache.ini has none."""
    if name in KNOWN_KEYS:
        return name

    catalog = load_catalog()
    if name in catalog.options and catalog.options[name].targets.ini:
        return catalog.options[name].targets.ini  # type: ignore[return-value]
    raise UsageError.from_code("cache-error-not-ini-setting", name=name, keys=", ".join(KNOWN_KEYS))


def _normalize_changes(changes: Mapping[str, Value]) -> dict[str, str]:
    catalog = load_catalog()
    result: dict[str, str] = {}
    value: Value
    for name, value in changes.items():
        key = _ini_key_for(name)
        if key in SIZE_KEYS:
            option = catalog.option(key)
            if isinstance(value, str):
                try:
                    value = option.parse(value)
                except ValueError as exc:
                    raise UsageError(explain(exc)) from None
            problem = option.problem(value)
            if problem is not None:
                raise UsageError(problem)
            text = str(value)
        else:
            text = str(value).strip(_CANN_TRIM)
            if not text or any(c in text for c in "\r\n=") or text.startswith("#"):
                raise UsageError.from_code("cache-error-version-text", key=key, value=value)
        if len(key) + 1 + len(text.encode("utf-8")) >= CANN_LINE_LIMIT:
            raise UsageError.from_code("cache-error-line-too-long", key=key, start=text[:20], limit=CANN_LINE_LIMIT)
        result[key] = text
    return {key: result[key] for key in KNOWN_KEYS if key in result}


def _same_value(key: str, current: str, wanted: str) -> bool:
    """Whether CANN already reads `wanted` from the value text `current`."""
    if key in SIZE_KEYS:
        parsed = cann_stoi(current)
        return parsed.value is not None and str(parsed.value) == wanted
    return current.rstrip("\r") == wanted


def _value_span(line: IniLine, key: str) -> tuple[int, int]:
    """Byte offsets (in the original) of the value text to replace on an existing key line."""
    content = line.content
    equals = content.index(b"=")
    start = equals + 1
    while start < len(content) and content[start:start + 1] in (b" ", b"\t"):
        start += 1
    end = len(content)
    while end > start and content[end - 1:end] in (b" ", b"\t"):
        end -= 1
    if key in SIZE_KEYS:
        # Replace only the number CANN reads, so an inline comment after it stays as it was.
        parsed = cann_stoi(decode_ini_text(content[start:end]))
        if parsed.number_span is not None:
            text = decode_ini_text(content[start:end])
            lo = len(encode_ini_text(text[:parsed.number_span[0]]))
            hi = len(encode_ini_text(text[:parsed.number_span[1]]))
            return line.offset + start + lo, line.offset + start + hi
    return line.offset + start, line.offset + end


def render_op_cache_ini(existing: OpCacheIni | None, changes: Mapping[str, Value]) -> bytes:
    """The file with `changes` applied (option ids or ini keys -> values).

    With an existing file: byte-identical when `changes` is empty or CANN already reads those
    values; otherwise only the changed values' characters are replaced, and keys the section does
    not have are inserted as `key=value` after its last key. Version lines are never changed
    (UsageError), only added when missing. Without a file: the documented template.
    """
    wanted = _normalize_changes(changes)
    if existing is None:
        return _new_file(wanted)
    data = existing.original
    section = existing.layout.section
    current = {e.key: e for e in section.entries} if section is not None else {}
    edits: list[tuple[int, int, bytes]] = []  # (start, end, new bytes) on the original
    additions: list[str] = []
    for key, text in wanted.items():
        entry = current.get(key)
        if entry is None:
            additions.append(key)
            continue
        if _same_value(key, entry.value, text):
            continue
        if key in VERSION_KEYS:
            raise UsageError.from_code("cache-error-version-kept", key=key, source=existing.source, at=entry.line,
                                       value=entry.value.rstrip())
        line = existing.line(entry.line)
        assert line is not None
        start, end = _value_span(line, key)
        edits.append((start, end, encode_ini_text(text)))
    nl = existing.newline()
    empty_headers = [number for name, number in existing.layout.headers if name == SECTION]
    if additions and section is None and empty_headers:
        # An [op_compiler_cache] header with no keys under it (CANN keeps no block for it): the
        # keys go right under the last such header, never under a second header of the same name.
        anchor = existing.line(empty_headers[-1])
        assert anchor is not None
        block = b"".join(encode_ini_text(f"{k}={wanted[k]}") + nl for k in additions)
        if not anchor.ending:  # the header is the last line, without a newline: keep the file so
            block = nl + block[:-len(nl)]
        edits.append((anchor.end, anchor.end, block))
    elif additions and section is None:
        # No [op_compiler_cache] section: append one at the end.
        tail = b"" if not data or data.endswith((b"\n", b"\r")) else nl
        block = tail + encode_ini_text(f"[{SECTION}]") + nl
        block += b"".join(encode_ini_text(f"{k}={wanted[k]}") + nl for k in additions)
        edits.append((len(data), len(data), block))
    elif additions:
        assert section is not None
        header = section.start_line or 0
        last_key = max([header] + [e.line for e in section.entries])
        last_version = max([header] + [e.line for e in section.entries if e.key in VERSION_KEYS])
        groups: dict[int, list[str]] = {}
        for key in additions:
            # Version lines go under the header, as CANN writes them; the rest after the last key.
            groups.setdefault(last_version if key in VERSION_KEYS else last_key, []).append(key)
        for number, keys in groups.items():
            anchor = existing.line(number)
            assert anchor is not None
            block = b"".join(encode_ini_text(f"{k}={wanted[k]}") + nl for k in keys)
            if not anchor.ending:  # the last line has no newline: keep the file that way
                block = nl + block[:-len(nl)]
            edits.append((anchor.end, anchor.end, block))
    result = bytearray(data)
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        result[start:end] = new
    return bytes(result)


def _new_file(wanted: Mapping[str, str]) -> bytes:
    catalog = load_catalog()
    lines = [TEMPLATE_HEAD, f"[{SECTION}]"]
    for key in VERSION_KEYS:
        if key in wanted:
            lines.append(f"{key}={wanted[key]}")
    # Both size values, always: CANN uses neither unless both are present and valid.
    for key in SIZE_KEYS:
        lines.append(TEMPLATE_COMMENTS[key])
        lines.append(f"{key}={wanted.get(key, catalog.option(key).default)}")
    return encode_ini_text("\n".join(lines) + "\n")


def creation_findings(changes: Mapping[str, Value], installed: Mapping[str, str] | None = None,
                      file: str | None = None) -> list[Finding]:
    """What to tell the user when a new op_cache.ini is created with `changes`.

    CANN 8.5+ ignores a file without adk_version and ops_version (inference from the source,
    docs/cann/op-cache.md#version-lines); `installed` (from `installed_op_cache_versions`) is offered as the
    fix when known.
    """
    keys = {_ini_key_for(k) for k in changes}
    missing = [k for k in VERSION_KEYS if k not in keys]
    if not missing:
        return []
    offer = {k: installed[k] for k in missing if installed and installed.get(k)}
    if len(offer) == len(missing):
        shown = ", ".join(f"{k}={v}" for k, v in offer.items())
        return [make_finding("cache-ini-new-versions-offer", file=file, missing=", ".join(missing),
                             values=shown, suggestion=offer)]
    return [make_finding("cache-ini-new-without-versions", file=file, missing=", ".join(missing))]


# ---------------------------------------------------------------------------------------------
# Installed versions (the values CANN itself writes into op_cache.ini)
# ---------------------------------------------------------------------------------------------


def installed_op_cache_versions(root: Path = Path("/"), environ: Mapping[str, str] | None = None,
                                probe: Callable[..., Mapping[str, Any]] | None = None) -> dict[str, str]:
    """{"adk_version": ..., "ops_version": ...} of the CANN installed here (keys present only when found).

    CANN takes adk_version from the compiler package's version.info and ops_version from
    `$ASCEND_OPP_PATH/version.info` (te_config_info.cc InitAdkAndOppVersion); the files are
    found by the devices helper's `app.device.versions.installed_versions` (or `probe`, for tests).
    """
    env = os.environ if environ is None else environ
    if probe is None:
        # imported here, where the version files are read: saving or rendering a file never needs it
        from cann_config.app.device.versions import installed_versions

        probe = installed_versions
    try:
        found = probe(root=root, environ=env)
    except Exception:  # noqa: BLE001 - a probe failure means "not known", never a crash
        return {}
    result = {}
    if found.get("compiler_version"):
        result[ADK_VERSION] = str(found["compiler_version"])
    if found.get("opp_version"):
        result[OPS_VERSION] = str(found["opp_version"])
    return result


# ---------------------------------------------------------------------------------------------
# Saving
# ---------------------------------------------------------------------------------------------


class SaveResult(NamedTuple):
    path: Path
    written: bool  # False when the file already held exactly these bytes
    created: bool
    backup: Path | None
    mode: int


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + ".bak")


def save_op_cache_ini(path: str | os.PathLike[str], data: bytes, expected_original: bytes | None,
                      *, backup: bool = True, force: bool = False) -> SaveResult:
    """Write `data` to `path` through the one writer (app.io.outputfiles), never over a file that
    changed since it was read.

    `expected_original` is the content read before editing (`OpCacheIni.original`), or None to
    create a file that must not exist yet. Raises FileChangedError when the disk disagrees (also
    when the file was removed since: it is not created again), and InputError when the file
    cannot be written (a FIFO or device in its place, read-only without `force`); in every case
    the old file is untouched. A copy of the previous content goes to `<name>.bak` (same
    permissions). A symlink is followed: the file it points to is replaced, the link stays. A new
    file gets CANN's own mode, 0640.
    """
    path = Path(path)
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    result = write_output(path, data, expected=ABSENT if expected_original is None else expected_original,
                          force=force, new_mode=NEW_FILE_MODE, backup=backup_path(target) if backup else None)
    return SaveResult(path, result.written, result.created, result.backup,
                      result.mode if result.mode is not None else NEW_FILE_MODE)
