"""Comparing nodes: one table of what each node of a cluster really runs, from its support bundle.

Why this module exists: support receives one bundle per node (`cann-config export
ansible-collect` fetches them as bundles/<host>.json), and the question is which node differs.
Each bundle is read and diagnosed exactly as `diagnose --bundle` does (app.support.bundle), and
the comparison lines up, per node: the device, the CANN versions, every effective setting with
its source, and the number of error findings. A row whose cells differ between nodes (value or
source: 500 from op_cache.ini on one node and 500 from the default on another means one node's
file is ignored) is marked. A row that differs only by each node's home directory (the default
cache dir `$HOME/atc_data` of users alice and bob) is `noise`: the text, the report and the GUI
hide it unless asked to show all rows (`fleet --all`); JSON keeps it, flagged. `--same ID` names settings that must be equal everywhere (value
only); a node with an error finding or a disagreement on such a setting makes the comparison
fail (exit 1), as docs/architecture.md sets out.

Public API:
    bundle_paths(inputs) -> list[Path]          files as given, a directory as its *.json (sorted)
    compare_bundles(paths, same=()) -> FleetComparison      (InputError for an unusable input)
    FleetComparison: nodes, rows, same_findings; .failed; .to_json(lang); .to_text(lang, show_all);
                     .blocks(lang, show_all) -> report Blocks; .markdown(lang, show_all); .html(...)
    FleetRow.noise: the cells differ only by each node's home directory (hidden unless show_all)
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cann_config.app.catalog import load_catalog
from cann_config.app.errors import InputError, UsageError
from cann_config.app.findings import Finding, make_finding, severity_word
from cann_config.app.i18n import current_language, normalize_language, pick
from cann_config.app.io.inputfiles import input_is_dir
from cann_config.app.opcache.ini import VERSION_KEYS as INI_VERSION_KEYS
from cann_config.app.support.bundle import Bundle, load_bundle
from cann_config.app.support.diagnosis import Diagnosis
from cann_config.app.support.host import FLEET_NODE, host_from_bundle
from cann_config.app.support.report import SOURCE_LABELS, Block, Text, html_of_blocks, markdown_of_blocks
from cann_config.app.textsafe import terminal_text
from cann_config.app.textwidth import table_lines

VERSION_KEYS = ("toolkit_version", "driver_version", "adk_version", "ops_version")
DIFFERS_MARK = "≠"


def _t(code: str, lang: str, **params: Any) -> str:
    return pick(make_finding(code, **params).text, lang)


def bundle_paths(inputs: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The bundle files named: a file as it is, a directory as the *.json files in it (sorted).
    InputError for a directory without any."""
    paths: list[Path] = []
    for item in inputs:
        p = Path(item)
        if input_is_dir(p):  # unreadable (EACCES, ENAMETOOLONG) is one line, not a traceback
            found = sorted(c for c in p.glob("*.json") if c.is_file())
            if not found:
                raise InputError.from_code("fleet-error-no-bundles", p)
            paths.extend(found)
        else:
            paths.append(p)
    return paths


@dataclass
class FleetNode:
    """What the comparison needs of one node, and nothing more: a bundle's parsed op_cache.ini and
    its full diagnosis are dropped once read, so a fleet of bundles each holding a 1 MB file of
    junk lines costs what one such bundle costs, not that times the nodes (docs/architecture.md#bounds)."""

    name: str
    source: str  # the bundle file
    device: str | None  # SoC version, else series
    versions: dict[str, str | None]  # the installed versions (VERSION_KEYS)
    ini_versions: dict[str, str | None]  # op_cache.ini's version lines as CANN reads them
    effective: dict[str, tuple[Any, str]]  # option id -> (value, source)
    findings: list[Finding]  # bounded: a file's junk lines are summarized (app/opcache/ini.py)
    home: str | None = None  # the node's HOME, to tell a per-user path from a real difference

    @classmethod
    def of(cls, name: str, bundle: Bundle, diagnosis: Diagnosis) -> FleetNode:
        return cls(name, bundle.source, bundle.device.soc_version or bundle.device.series,
                   {key: bundle.versions.get(key) for key in VERSION_KEYS},
                   {key: _ini_version(bundle, key) for key in INI_VERSION_KEYS},
                   {oid: (eff.value, eff.source) for oid, eff in diagnosis.effective.items()},
                   list(diagnosis.findings), bundle.environ.get("HOME") or None)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]

    def findings_json(self, lang: str | None) -> list[dict[str, Any]]:
        """Every finding of this node, each naming the node (its bundle name or path)."""
        return [{**f.to_json(lang), "node": self.name, "bundle": self.source} for f in self.findings]


@dataclass
class FleetRow:
    """One line of the table: a key (device, a version key or an option id) and a cell per node."""

    key: str
    kind: str  # "device" | "version" | "setting"
    values: list[Any]  # what is compared for --same (the value alone)
    cells: list[dict[str, Any]]  # {"value": ..., "source": ... | None} per node
    differs: bool
    noise: bool = False  # differs only by each node's home directory


@dataclass
class FleetComparison:
    nodes: list[FleetNode]
    rows: list[FleetRow]
    same: list[str] = field(default_factory=list)
    same_findings: list[Finding] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.same_findings) or any(node.errors for node in self.nodes)

    def row(self, key: str) -> FleetRow:
        return next(r for r in self.rows if r.key == key)

    def cell_text(self, row: FleetRow, index: int, lang: str) -> str:
        cell = row.cells[index]
        value = cell["value"]
        if value is None:
            text = _t("fleet-label-not-found", lang)
        elif value == "":
            text = '""'
        else:
            text = str(value)
        if cell.get("source"):
            source = cell["source"]
            label = _t(SOURCE_LABELS[source], lang) if source in SOURCE_LABELS else source
            text += f" ({label})"
        return text

    def row_label(self, row: FleetRow, lang: str) -> str:
        return _t("fleet-label-device", lang) if row.kind == "device" else row.key

    # -- outputs ----------------------------------------------------------------------------

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        return {
            "nodes": [{"name": n.name, "bundle": n.source, "errors": len(n.errors),
                       "error_codes": [f.code for f in n.errors], "warnings": len(n.warnings),
                       "findings": n.findings_json(lang)} for n in self.nodes],
            "rows": [{"key": r.key, "kind": r.kind, "differs": r.differs, "noise": r.noise, "cells": r.cells}
                     for r in self.rows],
            "same": list(self.same),
            "findings": [f.to_json(lang) for f in self.same_findings],
            # every node's findings in one list, each naming its node (added for issue 24)
            "node_findings": [item for n in self.nodes for item in n.findings_json(lang)],
            "failed": self.failed,
        }

    def shown_rows(self, show_all: bool = False) -> list[FleetRow]:
        """The rows a reader sees: all, or all but the noise."""
        return [r for r in self.rows if show_all or not r.noise]

    def table(self, lang: str, show_all: bool = False) -> tuple[list[str], list[list[str]]]:
        """Header and rows as text: mark, key, one column per node; the error counts last."""
        header = ["", _t("fleet-label-corner", lang)] + [n.name for n in self.nodes]
        body = [[DIFFERS_MARK if r.differs and not r.noise else "", self.row_label(r, lang)]
                + [self.cell_text(r, i, lang) for i in range(len(self.nodes))] for r in self.shown_rows(show_all)]
        body.append(["", _t("fleet-label-errors", lang)] + [str(len(n.errors)) for n in self.nodes])
        body.append(["", _t("fleet-label-warnings", lang)] + [str(len(n.warnings)) for n in self.nodes])
        return header, body

    def node_finding_lines(self, lang: str) -> list[str]:
        """Each node's errors and warnings, one line each, naming the node."""
        return [f"{n.name}: {severity_word(f.severity, lang)} {f.code}: {f.message(lang)}"
                for n in self.nodes for f in n.findings if f.severity in ("error", "warning")]

    def summary(self, lang: str, show_all: bool = False) -> str:
        failing = [n.name for n in self.nodes if n.errors]
        text = _t("fleet-label-summary", lang, differing=sum(r.differs and not r.noise for r in self.rows),
                  rows=len(self.rows), failing=", ".join(failing) if failing else _t("fleet-label-none", lang))
        noise = [r.key for r in self.rows if r.noise]
        if noise:
            code = "fleet-label-noise-shown" if show_all else "fleet-label-noise-hidden"
            text += " " + _t(code, lang, count=len(noise), keys=", ".join(noise))
        return text

    def to_text(self, lang: str | None = None, show_all: bool = False) -> str:
        """The table for a terminal, columns aligned by display width (app.textwidth: CJK counts
        double); every text from a bundle passes app.textsafe.terminal_text."""
        lang = normalize_language(lang or current_language())
        header, body = self.table(lang, show_all)
        rows = [[terminal_text(c) for c in header]] + [[terminal_text(c) for c in row] for row in body]
        out = [_t("fleet-label-title", lang, count=len(self.nodes)),
               _t("fleet-label-legend", lang, mark=DIFFERS_MARK), ""]
        out += table_lines(rows, indent="", header=True)
        out.append("")
        out.append(self.summary(lang, show_all))
        colon = "：" if lang == "zh_CN" else ": "
        out += [f"{_t('export-severity-error', lang)}{colon}{terminal_text(f.message(lang))}" for f in self.same_findings]
        lines = self.node_finding_lines(lang)
        if lines:
            out += ["", _t("fleet-label-node-findings", lang)] + [f"  {terminal_text(line)}" for line in lines]
        return "\n".join(out) + "\n"

    def blocks(self, lang: str | None = None, show_all: bool = False) -> list[Block]:
        """The comparison as report Blocks (app.support.report), for Markdown and HTML."""
        lang = normalize_language(lang or current_language())
        header, body = self.table(lang, show_all)
        shown = self.shown_rows(show_all)

        def code(i: int, j: int) -> bool:
            # Keys and values are code; the mark, the "device" label and the error counts are prose.
            return i < len(shown) and (j > 1 or (j == 1 and shown[i].kind != "device"))

        rows = tuple(tuple((Text(cell, code=code(i, j)),) for j, cell in enumerate(row)) for i, row in enumerate(body))
        blocks = [Block("h1", (_t("fleet-label-title", lang, count=len(self.nodes)),)),
                  Block("p", ((Text(_t("fleet-label-legend", lang, mark=DIFFERS_MARK)),),)),
                  Block("table", (tuple(header), rows)),
                  Block("p", ((Text(self.summary(lang, show_all)),),))]
        if self.same_findings:
            blocks.append(Block("list", tuple((Text(f.message(lang)),) for f in self.same_findings)))
        lines = self.node_finding_lines(lang)
        if lines:
            blocks.append(Block("p", ((Text(_t("fleet-label-node-findings", lang)),),)))
            blocks.append(Block("list", tuple((Text(line),) for line in lines)))
        return blocks

    def markdown(self, lang: str | None = None, show_all: bool = False) -> str:
        return markdown_of_blocks(self.blocks(lang, show_all), lang)

    def html(self, lang: str | None = None, show_all: bool = False) -> str:
        return html_of_blocks(self.blocks(lang, show_all), lang)


def _node_name(bundle: Bundle, path: Path, taken: set[str]) -> str:
    """The column's name: the host name the bundle records, else the file's stem; the path when
    that is taken, and a number after it when the same file is named again (`fleet b.json b.json`)."""
    name = bundle.hostname or path.stem
    if name in taken:
        name = str(path)
    candidate, number = name, 2
    while candidate in taken:
        candidate, number = f"{name} ({number})", number + 1
    taken.add(candidate)
    return candidate


def _without_home(value: Any, home: str | None) -> Any:
    """`value` with the node's home directory written `~`, when it is a path under it."""
    if not isinstance(value, str) or not home or home.rstrip("/") == "":
        return value
    home = home.rstrip("/")
    if value == home or value.startswith(home + "/"):
        # `//` is `/` to the kernel: HOME=/home/bob/ gives CANN /home/bob//atc_data.
        return "~" + re.sub("/+", "/", value[len(home):])
    return value


def _row(key: str, kind: str, cells: list[dict[str, Any]], homes: Sequence[str | None] = ()) -> FleetRow:
    values = [c["value"] for c in cells]
    shown = {(repr(c["value"]), c.get("source")) for c in cells}
    differs = len(shown) > 1
    noise = False
    if differs and homes:
        # The same path under each user's home (the default $HOME/atc_data): not a difference.
        noise = len({(repr(_without_home(c["value"], h)), c.get("source")) for c, h in zip(cells, homes, strict=True)}) == 1
    return FleetRow(key, kind, values, cells, differs, noise)


def compare(nodes: Sequence[FleetNode], same: Sequence[str] = ()) -> FleetComparison:
    """The comparison of already diagnosed nodes (the GUI reads the bundles in a worker)."""
    catalog = load_catalog()
    rows = [_row("device", "device", [{"value": n.device, "source": None} for n in nodes])]
    for key in VERSION_KEYS:
        rows.append(_row(key, "version", [{"value": n.versions.get(key), "source": None} for n in nodes]))
    # The version lines of each node's op_cache.ini, beside the installed ones: where they differ
    # the next start empties the SoC dir (app.opcache.measurement.next_start_empties).
    for key in INI_VERSION_KEYS:
        cells: list[dict[str, Any]] = [{"value": n.ini_versions.get(key), "source": "op_cache.ini"} for n in nodes]
        if any(c["value"] is not None for c in cells):
            rows.append(_row(f"op_cache.ini {key}", "ini-version", cells))
    seen = [oid for oid in catalog.options if any(oid in n.effective for n in nodes)]
    for oid in seen:
        cells = []
        for n in nodes:
            eff = n.effective.get(oid)
            cells.append({"value": eff[0], "source": eff[1]} if eff is not None else {"value": None, "source": None})
        rows.append(_row(oid, "setting", cells, [n.home for n in nodes]))
    keys = [r.key for r in rows]
    findings = []
    for oid in same:
        if oid not in keys:
            raise UsageError.from_code("fleet-error-same-unknown", option=oid, known=", ".join(keys))
        row = rows[keys.index(oid)]
        if len({repr(v) for v in row.values}) > 1:
            shown = ", ".join(f"{n.name}={'-' if v is None else v}" for n, v in zip(nodes, row.values, strict=True))
            findings.append(make_finding("fleet-same-differs", option=oid, values=shown))
    return FleetComparison(list(nodes), rows, list(same), findings)


def _ini_version(bundle: Bundle, key: str) -> str | None:
    ini = bundle.op_cache_ini
    entry = ini.values_as_cann_reads().get(key) if ini is not None else None
    return entry.value.rstrip("\r") if entry is not None else None


def read_node(path: Path, taken: set[str] | None = None) -> FleetNode:
    """One bundle read and diagnosed as `diagnose --bundle` does, through the same Host
    (app/support/host.py); InputError when unusable."""
    bundle = load_bundle(path)
    name = _node_name(bundle, path, taken if taken is not None else set())
    return FleetNode.of(name, bundle, host_from_bundle(bundle, name=name, kind=FLEET_NODE).diagnosis())


def compare_bundles(paths: Sequence[str | os.PathLike[str]], same: Sequence[str] = ()) -> FleetComparison:
    taken: set[str] = set()
    return compare([read_node(p, taken) for p in bundle_paths(paths)], same)
