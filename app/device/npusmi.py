"""Reading what `npu-smi` prints, to know which Ascend SoC a host carries.

The SoC version string (`Ascend910B3`, `Ascend910_9392`, ...) decides which options a device
supports and names the op-cache directory. CANN's docs build it from npu-smi output
(docs/cann/devices.md#detection, after `hicann/ge` docs `--soc_version.md`):

- A2, 200I/500 A2, inference and training series: `npu-smi info`, the Name column, and
  SoC = "Ascend" + Name (`910B3` -> `Ascend910B3`).
- Atlas A3: `npu-smi info` shows only `Ascend910`; `npu-smi info -t board -i <npu> -c <chip>`
  gives Chip Name and NPU Name, joined with "_" (`Ascend910` + `9392` -> `Ascend910_9392`).
- Ascend 950: `npu-smi info -t board -i <npu>` gives ChipName_NPUName.
- `npu-smi info -m` lists `NPU ID  Chip ID  Chip Logic ID  Chip Name` with names such as
  `Ascend 910B4` (a space) and `Mcu` rows (logic id `-`), which are skipped.

The text reaches us from a live host, a file, or a paste from a terminal or a ticket, so the
parsers rely on no column offset: a table row is split on `|` and each cell on whitespace; lines
outside the table are ignored; CRLF line ends, `NA`/`-` fields, non-contiguous NPU ids, a process
table after the device table and the wider columns of newer npu-smi releases are all accepted.
Anything that is not npu-smi output raises `NpuSmiError` (an `InputError`: exit 2 with one line
naming the file), and nothing else: a test feeds random and mutated text to every parser.

Choices where the docs say nothing:
- A table whose header has `Chip  Phy-ID` (A3) or whose Name is printed as `Ascend910` needs the
  board query. Without it the SoC and the series stay unknown (soc_version null), and a note
  says which query to run: `Ascend910` alone is also the older training series' SoC string, so
  using it would be a guess. A Name `910` in the plain `Chip` layout is that older series.
- A 950 Name without its `_NNNN` suffix (`Ascend950PR`) likewise needs the board query.
- NPUs that show the same Name as an NPU whose board query was given take its SoC (a note
  says so): support staff usually get one board query, not sixteen.
- On a host with different SoCs every NPU keeps its own in `npus`; the device is the most
  common one (ties: the first listed), with a note.

Public API:
    parse_npu_smi_info(text, source) -> list[NpuSmiRow]
    read_npu_smi_info(text, source) -> NpuSmiTable          (rows plus layout, version, notes)
    parse_npu_smi_board(text, source) -> BoardInfo
    parse_npu_smi_mapping(text, source) -> list[ChipMapping]  (NamedTuple npu, chip, name)
    device_from_npu_smi(info_text, board_texts=(), *, source="npu-smi", info_source=...,
                        board_sources=...) -> DeviceInfo     (info_text may be None: boards only)
    board_needed(table) -> list[tuple[int, int | None]]     (which board queries to run)
    read_npu_smi_file(path) -> str                           (a saved output, decoded)
    soc_from_name(name) -> str
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from cann_config.app.device.availability import device_text
from cann_config.app.device.table import DeviceInfo, NpuChip, device_from_soc
from cann_config.app.errors import InputError, Message
from cann_config.app.io.inputfiles import read_input_bytes

# Fields npu-smi prints when a value is not available.
MISSING = frozenset({"", "NA", "N/A", "-", "--"})
# Ids are short; a bounded digit run also keeps int() away from huge or non-ASCII numbers.
_INT = re.compile(r"[0-9]{1,6}")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}")
# Rows read without a header must look like an Ascend chip name (910B3, 310P3, Ascend910, ...).
_CHIP_NAME = re.compile(r"(?:Ascend)?[0-9]{3}[A-Za-z0-9_.\-]{0,40}")
_ASCEND950_BARE = re.compile(r"Ascend950[A-Za-z]*")
_BOARD_LINE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9 ()/._\-]{0,60}?)\s*:\s*(.*?)\s*$")
# A product name as npu-smi prints it: "Atlas 300I Duo", "Atlas 800T A2", "Atlas 500 A2".
_PRODUCT = re.compile(r"[A-Za-z][A-Za-z0-9 ./()+\-]{0,63}")
_MAP_ROW = re.compile(r"^\s*([0-9]{1,6})\s+([0-9]{1,6})\s+([0-9]{1,6}|-|NA)\s+(\S.*?)\s*$")
_VERSION = re.compile(r"Version:\s*(\S+)", re.IGNORECASE)
MAX_FILE_BYTES = 4 * 1024 * 1024

LAYOUT_CHIP = "chip"                # A2, older training series: `Chip` alone
LAYOUT_PHY_ID = "chip-phy-id"       # A3 (and newer): `Chip  Phy-ID`
LAYOUT_DEVICE = "chip-device"       # 310P cards with two chips per NPU, 310B: `Chip  Device`
LAYOUT_NO_HEADER = "no-header"      # rows pasted without the header lines
LAYOUT_MAPPING = "npu-smi-info-m"   # the chip list of `npu-smi info -m`


class NpuSmiError(InputError):
    """Text that is not npu-smi output (or not the npu-smi output expected); one line, names the file."""


class ChipMapping(NamedTuple):
    """One compute chip of `npu-smi info -m` (Mcu rows are left out); `name` as shown."""

    npu: int
    chip: int
    name: str


@dataclass(frozen=True)
class NpuSmiRow:
    """One chip of the `npu-smi info` table. `name` is the Name column as shown (`910B3`)."""

    npu: int
    chip: int
    name: str
    health: str | None = None
    bus_id: str | None = None
    phy_id: int | None = None
    device: int | None = None
    line: int | None = None

    @property
    def soc_from_name(self) -> str:
        return soc_from_name(self.name)


@dataclass(frozen=True)
class NpuSmiTable:
    rows: tuple[NpuSmiRow, ...]
    layout: str
    version: str | None
    notes: tuple[str, ...]
    source: str


@dataclass(frozen=True)
class BoardInfo:
    """What `npu-smi info -t board -i <npu> [-c <chip>]` says about one chip."""

    npu_id: int | None
    chip_id: int | None
    chip_name: str
    npu_name: str | None = None
    chip_type: str | None = None
    source: str = "<npu-smi info -t board>"
    product: str | None = None  # `Product Type`, when the query prints it

    @property
    def soc_version(self) -> str:
        """Chip Type + Chip Name (A2: `Ascend` + `910B4`), then `_` + NPU Name (A3, 950)."""
        chip = self.chip_name
        if self.chip_type and not chip.lower().startswith(self.chip_type.lower()):
            chip = self.chip_type + chip
        chip = soc_from_name(chip)
        if self.npu_name and "_" not in chip:
            chip = f"{chip}_{self.npu_name}"
        return chip


def soc_from_name(name: str) -> str:
    """The SoC string of an npu-smi Name: "Ascend" + Name, spaces removed (`Ascend 910B4` too)."""
    compact = "".join(name.split())
    return compact if compact.startswith("Ascend") else "Ascend" + compact


def _int(token: str) -> int | None:
    return int(token) if _INT.fullmatch(token) else None


def _value(text: str) -> str | None:
    text = text.strip()
    return None if text in MISSING else text


def _cells(line: str) -> list[str] | None:
    """The cells of a table row (between its first and last `|`), or None for other lines."""
    line = line.replace("\u2502", "|")  # a box-drawing bar, as some terminals copy it
    start, end = line.find("|"), line.rfind("|")
    if start < 0 or end <= start:
        return None
    return [cell.strip() for cell in line[start + 1:end].split("|")]


def _first_tokens(cells: list[str]) -> list[str]:
    return cells[0].split() if cells else []


def _column(cells: list[str], word: str, default: int) -> int:
    for index, cell in enumerate(cells):
        tokens = cell.split()
        if tokens and tokens[0].lower().startswith(word):
            return index
    return default


def _cell(cells: list[str], index: int) -> str | None:
    if index >= len(cells):
        return None
    tokens = cells[index].split()
    return _value(tokens[0]) if tokens else None


def _id_list(ids: Iterable[int]) -> str:
    """`0-3, 6` for [0, 1, 2, 3, 6]."""
    values: list[int | None] = [*sorted(set(ids)), None]
    parts: list[str] = []
    start: int | None = None
    prev: int | None = None
    for v in values:
        if start is not None and prev is not None and (v is None or v != prev + 1):
            parts.append(str(start) if start == prev else f"{start}-{prev}")
            start = None
        if v is not None:
            if start is None:
                start = v
            prev = v
    return ", ".join(parts)


def read_npu_smi_info(text: str, source: str = "<npu-smi info>") -> NpuSmiTable:
    """Parse the text of `npu-smi info` into its chip rows, with the layout and remarks."""
    if not isinstance(text, str):
        raise NpuSmiError.from_code("devices-error-expected-text", source)
    rows: list[NpuSmiRow] = []
    seen: set[tuple[int, int]] = set()
    notes: list[str] = []
    layout: str | None = None
    version: str | None = None
    in_devices = False
    header_seen = False
    health_col = bus_col = 1
    pending: tuple[int, str, str | None, int] | None = None  # npu, name, health, line

    def truncated() -> None:
        if pending is not None:
            notes.append(device_text("devices-npu-smi-truncated", file=source, line=pending[3], npu=pending[0]))

    for lineno, line in enumerate(text.splitlines(), 1):
        cells = _cells(line)
        if cells is None:
            continue
        tokens = _first_tokens(cells)
        upper = [t.upper() for t in tokens]
        if version is None and "NPU-SMI" in line.upper():
            match = _VERSION.search(line)
            if match:
                version = match.group(1)
        if upper[:1] == ["NPU"] and "NAME" in upper:
            truncated()
            pending = None
            in_devices, header_seen, layout = True, True, LAYOUT_CHIP
            health_col = _column(cells, "health", 1)
            continue
        if upper[:2] == ["NPU", "CHIP"] and any("process" in c.lower() for c in cells):
            truncated()
            pending, in_devices = None, False  # the process table: its rows are not chips
            continue
        if upper[:1] == ["CHIP"]:
            if in_devices:
                rest = "".join(upper[1:])
                layout = LAYOUT_PHY_ID if "PHY" in rest else LAYOUT_DEVICE if "DEVICE" in rest else LAYOUT_CHIP
                bus_col = _column(cells, "bus-id", 1)
            continue
        if header_seen and not in_devices:
            continue
        npu_id = _int(tokens[0]) if tokens else None
        if npu_id is None:
            continue
        name = "".join(tokens[1:])
        # Names are usually not numbers (910B3, Ascend910), but the oldest cards print `310` or
        # `910`; chip, Phy-ID and Device ids are small, so three digits after no open entry is a Name.
        is_npu_line = bool(name) and _NAME.fullmatch(name) is not None and (
            _int(name) is None or (pending is None and re.fullmatch(r"[0-9]{3}", name) is not None))
        if is_npu_line and not header_seen:
            if not _CHIP_NAME.fullmatch(name):
                continue
            if not in_devices:
                notes.append(device_text("devices-npu-smi-no-header", file=source))
                in_devices, layout = True, LAYOUT_NO_HEADER
        if is_npu_line:
            truncated()
            pending = (npu_id, name, _cell(cells, health_col), lineno)
            continue
        if pending is None or not in_devices or len(tokens) > 2:
            continue
        second = tokens[1] if len(tokens) == 2 else None
        if second is not None and _int(second) is None and second not in MISSING:
            continue
        chip = npu_id
        other = _int(second) if second is not None else None
        npu, name, health, npu_line = pending
        pending = None
        if (npu, chip) in seen:
            notes.append(device_text("devices-npu-smi-duplicate", file=source, line=npu_line, npu=npu, chip=chip))
            continue
        seen.add((npu, chip))
        rows.append(NpuSmiRow(
            npu=npu, chip=chip, name=name, health=health, bus_id=_cell(cells, bus_col),
            phy_id=other if layout == LAYOUT_PHY_ID else None,
            device=other if layout == LAYOUT_DEVICE else None,
            line=npu_line,
        ))
    truncated()
    if not rows:
        if header_seen:
            raise NpuSmiError.from_code("devices-error-info-no-entry", source)
        raise NpuSmiError.from_code("devices-error-info-no-table", source)
    return NpuSmiTable(tuple(rows), layout or LAYOUT_CHIP, version, tuple(notes), source)


def parse_npu_smi_info(text: str, source: str = "<npu-smi info>") -> list[NpuSmiRow]:
    """The chip rows of `npu-smi info`; raises NpuSmiError when the text is not such output."""
    return list(read_npu_smi_info(text, source).rows)


def _board_fields(text: str) -> dict[str, tuple[str, int]]:
    """The `Key : Value` lines of a board or product query: lower-cased key -> (value, line)."""
    fields: dict[str, tuple[str, int]] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        match = _BOARD_LINE.match(line)
        if match:
            key = " ".join(match.group(1).split()).lower()
            fields.setdefault(key, (match.group(2), lineno))
    return fields


def product_type(text: str) -> str | None:
    """The product name a board or product query prints as `Product Type` (`Atlas 300I Duo`,
    `Atlas 500 A2`), or None. npu-smi prints it per chip in `npu-smi info -t product -i N`
    (docs/cann/devices.md#product-names); `Product Name` is a board part number
    (`IT21PDDA01`), not a product, and is not read."""
    if not isinstance(text, str):
        return None
    raw = _board_fields(text).get("product type")
    value = _value(raw[0]) if raw else None
    if value is None:
        return None
    value = " ".join(value.split())
    return value if _PRODUCT.fullmatch(value) else None


def _product_only(text: str) -> bool:
    """True for the output of `npu-smi info -t product`: a Product Type and no chip name."""
    return isinstance(text, str) and product_type(text) is not None and "chip name" not in _board_fields(text)


def parse_npu_smi_board(text: str, source: str = "<npu-smi info -t board>") -> BoardInfo:
    """Parse `npu-smi info -t board -i <npu> [-c <chip>]` (lines of `Key : Value`)."""
    if not isinstance(text, str):
        raise NpuSmiError.from_code("devices-error-expected-text", source)
    fields = _board_fields(text)

    def get(key: str) -> str | None:
        return _value(fields[key][0]) if key in fields else None

    raw_name = get("chip name")
    if raw_name is None:
        raise NpuSmiError.from_code("devices-error-board-no-chip-name", source)
    chip_name = "".join(raw_name.split())
    if not _NAME.fullmatch(chip_name):
        raise NpuSmiError.from_code("devices-error-board-bad-chip-name", source, fields["chip name"][1], name=raw_name)
    chip_type = "".join((get("chip type") or "").split()) or None
    if chip_type is not None and not re.fullmatch(r"[A-Za-z]{1,20}", chip_type):
        chip_type = None
    # The NPU Name joined to the chip name is a number (A3 `9392`, 950 `9579`); anything else
    # (an A2 board may print a product name there) is not part of the SoC string.
    npu_name = get("npu name")
    npu_name = npu_name if npu_name is not None and re.fullmatch(r"[0-9]{1,8}", npu_name) else None
    return BoardInfo(
        npu_id=_int(get("npu id") or ""),
        chip_id=_int(get("chip id") or ""),
        chip_name=chip_name,
        npu_name=npu_name,
        chip_type=chip_type,
        source=source,
        product=product_type(text),
    )


def parse_npu_smi_mapping(text: str, source: str = "<npu-smi info -m>") -> list[ChipMapping]:
    """The compute chips of `npu-smi info -m`: (npu, chip, name as shown); Mcu rows skipped."""
    if not isinstance(text, str):
        raise NpuSmiError.from_code("devices-error-expected-text", source)
    chips: list[ChipMapping] = []
    header = False
    for line in text.splitlines():
        squeezed = " ".join(line.split()).lower()
        if "npu id" in squeezed and "chip id" in squeezed and "chip name" in squeezed:
            header = True
            continue
        if not header:
            continue
        match = _MAP_ROW.match(line)
        if not match:
            continue
        npu, chip, logic, name = match.groups()
        # The board's management chip has no logic id and is no AI processor.
        if logic in ("-", "NA") or name.strip().lower() == "mcu":
            continue
        if not _NAME.fullmatch("".join(name.split())):
            continue
        chips.append(ChipMapping(int(npu), int(chip), " ".join(name.split())))
    if not header:
        raise NpuSmiError.from_code("devices-error-mapping-no-header", source)
    return chips


def _needs_board(row: NpuSmiRow, layout: str) -> bool:
    soc = row.soc_from_name
    if soc == "Ascend910":
        # A3 prints `Ascend910` (and a Phy-ID column); the older training series prints `910`.
        return layout in (LAYOUT_PHY_ID, LAYOUT_MAPPING) or "".join(row.name.split()).startswith("Ascend")
    return _ASCEND950_BARE.fullmatch(soc) is not None


def _board_command(row: NpuSmiRow) -> str:
    if _ASCEND950_BARE.fullmatch(row.soc_from_name):
        return f"npu-smi info -t board -i {row.npu}"
    return f"npu-smi info -t board -i {row.npu} -c {row.chip}"


def board_needed(table: NpuSmiTable) -> list[tuple[int, int | None]]:
    """The board queries (npu, chip or None for `-i` alone) that would name the SoC, one per Name."""
    queries: list[tuple[int, int | None]] = []
    names: set[str] = set()
    for row in table.rows:
        if _needs_board(row, table.layout) and row.name not in names:
            names.add(row.name)
            chip = None if _ASCEND950_BARE.fullmatch(row.soc_from_name) else row.chip
            queries.append((row.npu, chip))
    return queries


def _table_from_mapping(text: str, source: str) -> NpuSmiTable | None:
    try:
        chips = parse_npu_smi_mapping(text, source)
    except NpuSmiError:
        return None
    if not chips:
        return None
    rows = tuple(NpuSmiRow(npu=c.npu, chip=c.chip, name="".join(c.name.split())) for c in chips)
    note = device_text("devices-npu-smi-from-mapping", file=source)
    return NpuSmiTable(rows, LAYOUT_MAPPING, None, (note,), source)


def _most_common(socs: Sequence[str]) -> str:
    counts = Counter(socs)
    best = max(counts.values())
    return next(soc for soc in socs if counts[soc] == best)


def _device(npus: tuple[NpuChip, ...], source: str, notes: list[str]) -> DeviceInfo:
    known = [chip.soc_version for chip in npus if chip.soc_version]
    if not known:
        return DeviceInfo(None, None, source, npus, tuple(notes))
    soc = _most_common(known)
    if len(set(known)) > 1:
        groups = []
        for other in dict.fromkeys(known):
            groups.append(f"NPU {_id_list(c.npu for c in npus if c.soc_version == other)}: {other}")
        notes.append(device_text("devices-npu-smi-mixed", socs="; ".join(groups), soc=soc))
    unknown = [c.npu for c in npus if not c.soc_version]
    if unknown:
        notes.append(device_text("devices-npu-smi-partly-unknown", npus=_id_list(unknown), soc=soc))
    return device_from_soc(soc, source, npus, tuple(notes))


def _device_from_boards(boards: list[BoardInfo], source: str) -> DeviceInfo:
    notes = [device_text("devices-npu-smi-board-only")]
    npus = tuple(NpuChip(b.npu_id, b.chip_id if b.chip_id is not None else 0, b.soc_version)
                 for b in boards if b.npu_id is not None)
    if not npus:
        socs = [b.soc_version for b in boards]
        soc = _most_common(socs)
        if len(set(socs)) > 1:
            notes.append(device_text("devices-npu-smi-mixed", socs=", ".join(dict.fromkeys(socs)), soc=soc))
        return device_from_soc(soc, source, (), tuple(notes))
    return _device(npus, source, notes)


def device_from_npu_smi(info_text: str | None, board_texts: Sequence[str] = (), *, source: str = "npu-smi",
                        info_source: str = "<npu-smi info>", board_sources: Sequence[str] = ()) -> DeviceInfo:
    """The device that npu-smi output describes.

    `info_text` is `npu-smi info` (or `npu-smi info -m`) output, or None when only board
    queries are at hand; `board_texts` are outputs of `npu-smi info -t board -i N [-c C]`, or
    of `npu-smi info -t product -i N`, which names the product (`Product Type`) and no chip.
    `source` becomes DeviceInfo.source ("npu-smi" for a live host, "npu-smi output file" for
    a file); `info_source` and `board_sources` name the texts in errors and notes.
    The device's `product` is the `Product Type` the texts print (the most common one).
    Raises NpuSmiError when a text is not the npu-smi output expected.
    """
    products = [name for name in (product_type(text) for text in board_texts) if name]
    names = [board_sources[i] if i < len(board_sources) else f"<board query {i + 1}>" for i in range(len(board_texts))]
    # A product query names no chip: it tells the product, not the SoC.
    kept = [(text, name) for text, name in zip(board_texts, names, strict=True) if not _product_only(text)]
    product_files = [name for text, name in zip(board_texts, names, strict=True) if _product_only(text)]
    if info_text is not None and _product_only(info_text):
        products.append(product_type(info_text) or "")
        product_files.insert(0, info_source)
        info_text = None
    if info_text is None and not kept and product_files:
        raise NpuSmiError.from_code("devices-error-product-only", product_files[0], product=_most_common(products))
    device = _device_from_texts(info_text, [text for text, _ in kept], source=source, info_source=info_source,
                                board_sources=[name for _, name in kept])
    if products:
        device = device._replace(product=_most_common(products))
    return device


def _device_from_texts(info_text: str | None, board_texts: Sequence[str], *, source: str,
                       info_source: str, board_sources: Sequence[str]) -> DeviceInfo:
    boards = [parse_npu_smi_board(text, board_sources[i] if i < len(board_sources) else f"<board query {i + 1}>")
              for i, text in enumerate(board_texts)]
    if info_text is not None and not info_text.strip() and boards:
        info_text = None  # an empty paste box beside board queries
    if info_text is None:
        if not boards:
            raise NpuSmiError.from_code("devices-error-nothing-given", info_source)
        return _device_from_boards(boards, source)
    try:
        table = read_npu_smi_info(info_text, info_source)
    except NpuSmiError as exc:
        mapped = _table_from_mapping(info_text, info_source)
        if mapped is None:
            # A board query saved where `npu-smi info` was expected still names the SoC.
            try:
                board = parse_npu_smi_board(info_text, info_source)
            except NpuSmiError:
                raise exc from None
            return _device_from_boards([board, *boards], source)
        table = mapped
    notes = list(table.notes)
    rows = table.rows

    by_chip: dict[tuple[int, int], BoardInfo] = {}
    by_npu: dict[int, BoardInfo] = {}
    anonymous: list[BoardInfo] = []
    row_keys = {(r.npu, r.chip) for r in rows}
    npu_ids = {r.npu for r in rows}
    for board in boards:
        if board.npu_id is None:
            anonymous.append(board)
            continue
        matches = (board.npu_id, board.chip_id) in row_keys if board.chip_id is not None else board.npu_id in npu_ids
        if not matches:
            notes.append(device_text("devices-npu-smi-board-unmatched", file=board.source, npu=board.npu_id,
                                     chip=board.chip_id if board.chip_id is not None else "-"))
            continue
        if board.chip_id is not None:
            by_chip.setdefault((board.npu_id, board.chip_id), board)
        by_npu.setdefault(board.npu_id, board)
    anonymous_board: BoardInfo | None = None
    if anonymous:
        anonymous_socs = list(dict.fromkeys(b.soc_version for b in anonymous))
        if len(anonymous_socs) == 1:
            anonymous_board = anonymous[0]
        else:
            notes.append(device_text("devices-npu-smi-board-ambiguous", socs=", ".join(anonymous_socs)))

    socs: dict[tuple[int, int], str | None] = {}
    from_board: dict[str, NpuSmiRow] = {}  # Name -> a row whose SoC came from its own board query
    waiting: list[NpuSmiRow] = []
    for row in rows:
        key = (row.npu, row.chip)
        found = by_chip.get(key) or by_npu.get(row.npu)
        if _needs_board(row, table.layout):
            if found is not None:
                socs[key] = found.soc_version
                from_board.setdefault(row.name, row)
            else:
                socs[key] = None
                waiting.append(row)
            continue
        socs[key] = row.soc_from_name
        if found is not None and found.soc_version != row.soc_from_name:
            notes.append(device_text("devices-npu-smi-board-mismatch", npu=row.npu, chip=row.chip,
                                     table_soc=row.soc_from_name, board_soc=found.soc_version))

    shared: dict[tuple[int, int], list[int]] = {}
    unresolved: dict[str, list[NpuSmiRow]] = {}
    anonymous_used: dict[str, list[int]] = {}
    for row in waiting:
        donor = from_board.get(row.name)
        if donor is not None:
            socs[(row.npu, row.chip)] = socs[(donor.npu, donor.chip)]
            shared.setdefault((donor.npu, donor.chip), []).append(row.npu)
        elif anonymous_board is not None:
            socs[(row.npu, row.chip)] = anonymous_board.soc_version
            anonymous_used.setdefault(row.name, []).append(row.npu)
        else:
            unresolved.setdefault(row.name, []).append(row)
    for (npu, chip), npus in shared.items():
        donor_row = next(r for r in rows if (r.npu, r.chip) == (npu, chip))
        notes.append(device_text("devices-npu-smi-board-shared", npus=_id_list(npus), from_npu=npu, from_chip=chip,
                                 name=donor_row.name))
    if anonymous_board is not None:
        for name in anonymous_used:
            notes.append(device_text("devices-npu-smi-board-no-id", file=anonymous_board.source,
                                     soc=anonymous_board.soc_version, name=name))
    for name, waiting_rows in unresolved.items():
        first = waiting_rows[0]
        notes.append(device_text("devices-npu-smi-board-needed", npus=_id_list(r.npu for r in waiting_rows),
                                 name=name, command=_board_command(first)))

    chips = tuple(NpuChip(r.npu, r.chip, socs[(r.npu, r.chip)]) for r in rows)
    return _device(chips, source, notes)


def read_npu_smi_file(path: str | Path) -> str:
    """The text of a saved npu-smi output; InputError (exit 2) when it cannot be such a file.

    UTF-8 (with or without BOM) and UTF-16 with a BOM (PowerShell's `>` writes it) are read;
    bytes that are not UTF-8 are replaced, as npu-smi's own output is ASCII.
    """
    p = Path(path)
    data, _ = read_input_bytes(p, Message("devices-kind-npu-smi-file"), MAX_FILE_BYTES)
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    if b"\x00" in data:
        raise NpuSmiError.from_code("devices-error-binary", p)
    return data.decode("utf-8-sig", errors="replace")
