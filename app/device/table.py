"""Ascend devices: the series table (`resources/devices.toml`) and what is known of one device.

A device reaches the rest of the core as a `DeviceInfo`, whether it was detected on this host,
read from pasted `npu-smi` output or a support bundle, or chosen by hand (`--device Ascend910B3`
or `--device atlas-a2`), so support staff can stand in a customer's shoes. SoC strings are kept
exactly as given; one the table does not know stays unknown and is never guessed into a series.
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

import re
from collections.abc import Mapping
from enum import Enum
from functools import lru_cache
from typing import Any, NamedTuple

from cann_config.app.datafiles import compiled_data, toml_module
from cann_config.app.errors import InvalidValue, Message
from cann_config.app.i18n import pick
from cann_config.app.resources import resource


def _natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """`Ascend910B4-1` as (("Ascend",), 910, "B", 4, "-", 1): digits compare as numbers."""
    return tuple((0, int(part)) if part.isdigit() else (1, part)
                 for part in re.findall(r"[0-9]+|[^0-9]+", text))


class DeviceTableError(Exception):
    """The device table data is malformed."""


class Series(NamedTuple):
    id: str
    name: Mapping[str, str]
    socs: tuple[str, ...]
    inferred_socs: tuple[str, ...] = ()
    patterns: tuple[tuple[re.Pattern[str], bool], ...] = ()


class SeriesMatch(NamedTuple):
    series: Series
    inferred: bool  # True when the SoC matched only an assumed list or pattern


class DeviceTable(NamedTuple):
    series: Mapping[str, Series]
    order: tuple[str, ...]

    def match(self, soc_version: str) -> SeriesMatch | None:
        """The series of an SoC string, exact strings first; None when the string is unknown."""
        for sid in self.order:
            s = self.series[sid]
            if soc_version in s.socs:
                return SeriesMatch(s, False)
        for sid in self.order:
            s = self.series[sid]
            if soc_version in s.inferred_socs:
                return SeriesMatch(s, True)
            for regex, inferred in s.patterns:
                if regex.fullmatch(soc_version):
                    return SeriesMatch(s, inferred)
        return None

    def socs_of(self, series_id: str) -> list[str]:
        """The SoC strings of a series in generation order: known and assumed ones together,
        numbers compared as numbers (Ascend310P1, P2, P3, ... not P1, P3, P2)."""
        series = self.series[series_id]
        return sorted(series.socs + series.inferred_socs, key=_natural_key)

    def all_socs(self) -> list[str]:
        """Every SoC string the table names, by generation: the series in the table's order
        (newest first, as the docs list them), each series' SoCs as `socs_of` orders them. The
        wizard's device list and the CLI read this one order."""
        return [soc for sid in self.order for soc in self.socs_of(sid)]


def parse_device_table(text: str, source: str = "devices.toml") -> DeviceTable:
    tomllib = toml_module()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DeviceTableError(f"{source}: not valid TOML: {exc}") from None
    return device_table_from_data(data, source)


def device_table_from_data(data: dict[str, Any], source: str = "devices.toml") -> DeviceTable:
    """The device table from devices.toml's parsed TOML; DeviceTableError naming `source` and the entry."""
    if set(data) != {"format", "version", "order", "series"} or data["format"] != "cann-config-devices":
        raise DeviceTableError(f"{source}: expected exactly format, version, order and series")
    series = {}
    for sid, table in data["series"].items():
        unknown = set(table) - {"name", "socs", "inferred_socs", "patterns"}
        if unknown:
            raise DeviceTableError(f"{source}: series.{sid}: unknown key(s): {', '.join(sorted(unknown))}")
        name = table.get("name", {})
        if not (isinstance(name, dict) and name.get("en") and name.get("zh")):
            raise DeviceTableError(f"{source}: series.{sid}: name needs en and zh")
        patterns = []
        for p in table.get("patterns", []):
            try:
                patterns.append((re.compile(p["regex"]), bool(p.get("inferred", False))))
            except (KeyError, re.error, TypeError) as exc:
                raise DeviceTableError(f"{source}: series.{sid}.patterns: {exc}") from None
        series[sid] = Series(sid, name, tuple(table.get("socs", [])), tuple(table.get("inferred_socs", [])), tuple(patterns))
    if sorted(data["order"]) != sorted(series):
        raise DeviceTableError(f"{source}: order must list every series exactly once")
    return DeviceTable(series, tuple(data["order"]))


@lru_cache(maxsize=1)
def load_device_table() -> DeviceTable:
    raw = resource("devices.toml").read_bytes()
    data = compiled_data("devices.toml", raw)
    if data is not None:
        return device_table_from_data(data, "resources/devices.toml")
    return parse_device_table(raw.decode("utf-8"), "resources/devices.toml")


class NpuChip(NamedTuple):
    """One chip as npu-smi lists it."""

    npu: int
    chip: int
    soc_version: str | None

    def to_json(self) -> dict[str, Any]:
        return {"npu": self.npu, "chip": self.chip, "soc_version": self.soc_version}


class DeviceOrigin(str, Enum):
    """How the wizard came to know the device the settings are for.

    The device page decides by it whether detecting this host may replace the device (only
    NONE and DETECTED may be replaced) and how the banner words it.
    """

    NONE = "none"  # nothing known yet
    DETECTED = "detected"  # npu-smi run on this host (in a worker)
    NPU_SMI = "npu-smi"  # npu-smi output the user pasted or opened
    MANUAL = "manual"  # a SoC or series chosen by hand: the device list, or `gui --device`
    GIVEN = "given"  # a DeviceInfo handed to create_wizard by its caller
    PROFILE = "profile"  # the device a profile names
    BUNDLE = "bundle"  # the customer's host a support bundle describes


class DeviceInfo(NamedTuple):
    """What is known of the device the settings are for.

    `source` says how it became known ("npu-smi", "npu-smi output file", "manual", "bundle",
    "none"); `notes` are plain-language remarks for the user, in the language that was current
    when the DeviceInfo was made (JSON keys and codes never depend on it).
    """

    soc_version: str | None = None
    series: str | None = None
    source: str = "none"
    npus: tuple[NpuChip, ...] = ()
    notes: tuple[str, ...] = ()
    inferred: bool = False
    # The product as the board says it (`Product Type` of npu-smi, "Atlas 300I Duo"), when known.
    product: str | None = None

    @property
    def known(self) -> bool:
        return self.series is not None

    def series_name(self, lang: str | None = None) -> str | None:
        if self.series is None:
            return None
        return pick(load_device_table().series[self.series].name, lang)

    def label(self, lang: str | None = None) -> str:
        """"Atlas A2 训练系列产品/... (Ascend910B3)" or the SoC string alone when unknown; the
        product first when the board named it ("Atlas 300I Duo, Atlas 推理系列产品 (Ascend310P3)")."""
        name = self.series_name(lang)
        if name and self.soc_version:
            text = f"{name} ({self.soc_version})"
        else:
            text = name or self.soc_version or "unknown device"
        return f"{self.product}, {text}" if self.product else text

    def to_json(self) -> dict[str, Any]:
        return {
            "soc_version": self.soc_version,
            "series": self.series,
            "source": self.source,
            "npus": [chip.to_json() for chip in self.npus],
            "notes": list(self.notes),
            # additive: the product the board names (npu-smi `Product Type`), else null
            "product": self.product,
        }


def device_from_soc(soc_version: str, source: str, npus: tuple[NpuChip, ...] = (), notes: tuple[str, ...] = ()) -> DeviceInfo:
    """A DeviceInfo for an SoC string, its series looked up in the table (unknown stays unknown)."""
    match = load_device_table().match(soc_version)
    extra: list[str] = []
    if match is None:
        extra.append(Message("device-soc-unknown", soc=soc_version).text())
        return DeviceInfo(soc_version, None, source, npus, tuple(notes) + tuple(extra))
    if match.inferred:
        extra.append(Message("device-soc-inferred", soc=soc_version, series=pick(match.series.name)).text())
    return DeviceInfo(soc_version, match.series.id, source, npus, tuple(notes) + tuple(extra), match.inferred)


def device_from_choice(choice: str, source: str = "manual") -> DeviceInfo:
    """A device chosen by hand: an SoC string (`Ascend910B3`) or a series id (`atlas-a2`).

    Raises InvalidValue (a ValueError) with a one-line reason when the text is neither a known series id nor
    something shaped like an Ascend SoC string.
    """
    text = choice.strip()
    table = load_device_table()
    if text in table.series:
        return DeviceInfo(None, text, source)
    if not re.fullmatch(r"Ascend[0-9A-Za-z_\-]+", text):
        series = ", ".join(table.order)
        raise InvalidValue.from_code("core-device-choice-invalid", choice=choice, series=series)
    return device_from_soc(text, source)


def no_device() -> DeviceInfo:
    """The DeviceInfo used when nothing is known, its note in the current language."""
    return DeviceInfo(notes=(Message("device-none").text(),))

