"""Support bundles: everything support needs from a customer's Ascend host, in one JSON file.

Why this module exists: support staff cannot log in to a customer's server. The customer runs
`cann-config collect` (no PySide6 needed), reads the file, and sends it; support runs
`cann-config diagnose --bundle FILE` (or opens it in the wizard) on their own desk and sees what
CANN will do with that host's configuration, with the same resolution code that `diagnose` runs
on local files (app/support/diagnosis.py, app/opcache/resolution.py).

The file (format version 1; every key optional when read, see "Reading" below):

    {"format": "cann-config-bundle", "version": 1,
     "created": "2026-11-29T15:01:02+08:00", "tool_version": "0.1.0",
     "host": {"hostname": "..."},                       # only with `collect --hostname`
     "npu_smi": {"info": TEXT|null, "mapping": TEXT|null,   # `npu-smi info`, `npu-smi info -m`
                 "boards": [{"npu": 0, "chip": 0, "command": "npu-smi info -t board -i 0 -c 0",
                             "text": TEXT}],
                 "stderr": {COMMAND: TEXT}, "notes": [what was tried, in the collector's language]},
     "versions": {"toolkit_version", "toolkit_path", "driver_version", "driver_path",
                  "opp_version", "opp_path", "compiler_version", "compiler_path",
                  "adk_version", "ops_version",                # app.device.hostprobe.installed_versions
                  "tfplugin_version", "tfplugin_path", "npu_bridge_version", "npu_device_version"},
     "environment": {NAME: value},                     # only bundle_variables(), when set
     "op_cache_ini": {"path": P, "exists": bool, "text": TEXT|null, "base64": B64|null,
                      "error": REASON|null},
     "cache": the `scan --json` document (app.opcache.measurement.CacheMeasurement.to_json) with
              `unreadable`/`other_filesystems` cut to their first entry, plus
              "time_limit_seconds": S, "error": REASON|null   (docs/architecture.md#json-output;
              older bundles: their own layout, read by _old_cache_document),
     "unreadable": [{"what": ..., "why": ...}],
     "left_out": [{"what": ..., "why": ...}]}            # what collect kept back on purpose, and why

What leaves the host, and what does not:
- Environment: only the variables this tool reads, derived from the catalog (every option's
  `targets.env` and `legacy_env`, and torch_npu's PYTORCH_NPU_ALLOC_CONF / PYTORCH_ALLOC_CONF for
  the `targets.alloc_conf` options) plus the few CANN variables the cache resolution reads that
  no option carries (ASCEND_CACHE_PATH, ASCEND_WORK_PATH, ASCEND_OPP_PATH, HOME). Nothing else,
  ever: the rest of an environment holds tokens and passwords. HOME is included because the
  default cache dir is `$HOME/atc_data` (docs/cann/op-cache.md#base-directory) and the op_cache.ini path
  already names it: it adds no information, and `diagnose` needs it to resolve the same paths.
- The host name is left out unless the customer asks for it (`collect --hostname`): it can
  name a customer's project or site, and support does not need it to diagnose.
- The cache: the one measurement (app/opcache/measurement.py, computed on the host with the
  effective limits): totals and counts per SoC dir, the mount options, the cleanup prediction's
  counts, bytes and atime rule; of each list only its first entry (what a finding names) and its
  count, never a file list.
- op_cache.ini as its exact bytes (UTF-8 text, or base64 when the bytes are not UTF-8), so
  every finding about line ends, BOM or encoding is the same on support's desk - and only from a
  regular file at its place in the cache directory: a symlink is recorded as a symlink with its
  target, never followed (it could point at a credentials file), a FIFO or device is not opened.
- npu-smi runs with a minimal environment (app.device.hostprobe.command_environment), its output
  is capped (1 MiB per command) and every value of a variable the bundle does not keep is
  replaced by `<NAME removed>` in it: a wrapper that prints its environment leaks nothing.
- `left_out` says what was kept back on purpose and why (the other variables, the host name, the
  cache's file names, an op_cache.ini symlink, removed values).

Collecting happens on the customer's host, in app/support/collect_host.py (npu-smi, the
installed versions, the TF Adapter, op_cache.ini's bytes, the cache walk and its prediction,
bounded in time); this module defines the bundle, reads it anywhere and writes it.

Reading is tolerant: a bundle of a newer or older format version, truncated by hand or edited, is
read as far as it is valid, and each part that is not (a wrong type, a string over its size cap,
a missing key, an unknown variable) becomes a finding (`support-bundle-*`, in
resources/messages/support.toml). Only a file that is not a bundle at all (not JSON, not an
object, a wrong `format` marker, too large) raises InputError: exit 2 with one line naming it.

Public API (the GUI opens a bundle with these; everything is Qt-free; collecting one is
app.support.collect_host.collect_bundle):
    BUNDLE_FORMAT, BUNDLE_VERSION
    bundle_variables() -> tuple[str, ...]              the variables a bundle may hold
    dumps_bundle(data) -> bytes;  write_bundle(data, path) -> Path (atomic)
    default_bundle_name(now=None) -> str               cann-config-bundle-YYYYmmdd-HHMMSS.json
    load_bundle(path) -> Bundle                        (InputError when it is not a bundle)
    bundle_from_json(data, source="<bundle>") -> Bundle
    Bundle: source, format_version, created, tool_version, hostname, device: DeviceInfo,
            environ: dict[str, str], op_cache_ini: OpCacheIni | None, ini_path: str | None,
            versions: dict[str, str | None], cache: CacheMeasurement | None (the one measurement,
            app.opcache.measurement, read back: CacheMeasurement.recorded), cache_layout, cache_path,
            cache_error, cache_time_limit,
            unreadable: list[tuple[str, str]], left_out: list[tuple[str, str]] (kept back on purpose),
            findings: list[Finding] (what could not be read)
        .diagnosis(*, framework=None, device=None, script=None, profile=None) -> Diagnosis
            the customer's configuration resolved as `diagnose` resolves local files, plus the
            bundle's own findings and what CANN would delete at the next start
        .suggested_profile(*, framework=None, device=None) -> Profile
            the customer's effective values with every finding's suggestion applied
        .summary(lang=None) -> str                     one line: device, toolkit, ini, cache
        .installed_versions() -> dict                  {"adk_version", "ops_version"} when known
        .cache_findings(effective) -> list[Finding]    what the next cleanup does (in .diagnosis())
        .metadata() -> dict                            the bundle's facts, for reports and JSON
    A report for the GUI: app.support.report.make_report(bundle.diagnosis(...), bundle), then
    render_html / render_markdown / write_report.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeGuard

from cann_config.app.allocconf import VARIABLES as ALLOC_CONF_VARIABLES
from cann_config.app.catalog import load_catalog
from cann_config.app.device.hostprobe import JoinedMessage, note_message
from cann_config.app.device.npusmi import device_from_npu_smi
from cann_config.app.device.table import DeviceInfo
from cann_config.app.errors import InputError, Message
from cann_config.app.findings import Finding, make_finding, sort_findings
from cann_config.app.i18n import pick
from cann_config.app.io.inputfiles import parse_json_bounded, read_input_bytes
from cann_config.app.io.outputfiles import write_output
from cann_config.app.opcache.atime import CONFIRMED_RULES
from cann_config.app.opcache.cachedir import CACHE_PATH_ENV, WORK_PATH_ENV
from cann_config.app.opcache.cleanup import facts_findings, percent_of_limit
from cann_config.app.opcache.ini import MAX_FILE_BYTES as MAX_INI_BYTES
from cann_config.app.opcache.ini import VERSION_KEYS, OpCacheIni, parse_op_cache_ini
from cann_config.app.opcache.measurement import (
    CacheMeasurement,
    Empties,
    empties_findings,
    next_start_empties,
    one_finding_per_cause,
)
from cann_config.app.profile import Profile, json_type
from cann_config.app.support.diagnosis import Diagnosis, diagnose
from cann_config.app.support.fixes import suggested_profile
from cann_config.app.units import human_bytes

BUNDLE_FORMAT = "cann-config-bundle"
BUNDLE_VERSION = 1
TOP_KEYS = ("format", "version", "created", "tool_version", "host", "npu_smi", "versions", "environment",
            "op_cache_ini", "cache", "unreadable", "left_out")
# Keys a bundle has only when asked for: `collect --log FILE` (app/triage/bundled.py).
OPTIONAL_KEYS = ("memory_errors",)
# Size caps when reading: a bundle is a few KiB to a few hundred KiB; anything far beyond is
# not one (or is hostile) and is refused or ignored rather than parsed.
MAX_BUNDLE_BYTES = 32 << 20
MAX_TEXT_CHARS = 1 << 20  # one npu-smi output
MAX_SHORT_CHARS = 4096  # a path, a version, a variable's value (PATH_MAX), a note
MAX_BOARDS = 256
MAX_NOTES = 200
MAX_SOCS = 256
# CANN variables the cache resolution reads that no catalog option carries as an export target
# (docs/cann/env-vars.md), and HOME for the default `$HOME/atc_data`.
OPP_PATH_ENV = "ASCEND_OPP_PATH"
_EXTRA_VARIABLES = (CACHE_PATH_ENV, WORK_PATH_ENV, OPP_PATH_ENV, "HOME")


@lru_cache(maxsize=1)
def bundle_variables() -> tuple[str, ...]:
    """The environment variables a bundle may hold: those the catalog names, and a few more."""
    names: set[str] = set(_EXTRA_VARIABLES)
    for option in load_catalog().options.values():
        names.update(option.targets.env.values())
        if option.targets.alloc_conf:
            # torch_npu's allocator settings: key:value pairs, no secrets (docs/cann/torch-npu.md).
            names.update(ALLOC_CONF_VARIABLES)
        if option.targets.ms_alloc_conf:
            # MindSpore's allocator settings: key:value pairs, no secrets (docs/cann/mindspore.md).
            names.add("MS_ALLOC_CONF")
        if option.legacy_env:
            names.add(option.legacy_env)
    return tuple(sorted(names))


def _label(code: str, lang: str | None = None, **params: Any) -> str:
    return pick(make_finding(code, **params).text, lang)


def format_count(n: int) -> str:
    from cann_config.app.units import format_count as grouped

    return grouped(n)


def _human(n: int | float | None) -> str:
    return human_bytes(n or 0)


# ---------------------------------------------------------------------------------------------
# The cache: the one measurement's document (app.opcache.measurement), and the layout before it
# ---------------------------------------------------------------------------------------------

# Keys only a bundle's `cache` has, beside the measurement's document: the collect time limit, and
# why the cache could not be measured at all (then the object holds nothing else of use).
CACHE_BUNDLE_KEYS = ("time_limit_seconds", "error")
# The `cache` object of bundles written before it was the measurement's document (tool versions
# up to 0.1.0 of issue 24): its own keys, read into the same CacheMeasurement (_old_cache_document).
_OLD_PREDICTION_SHAPE = {
    "ageing": "bool", "triggers": "bool", "target_reached": "bool", "max_mb": "sint", "ratio": "sint",
    "used_bytes": "int", "target_bytes": "int", "delete_groups": "int", "delete_bytes": "int", "freed_bytes": "int",
    "kept_recent_groups": "int", "kept_recent_bytes": "int", "candidate_groups": "int", "max_bytes": "int",
    "keep_threshold_bytes": "int", "unparsed_jsons": "int", "unread_jsons": "int", "read_saved_groups": "int",
    "skipped_pre_jsons": "int", "skipped_unparsed_jsons": "int", "atime_rule": "text"}
_OLD_SOC_SHAPE = {"files": "int", "dirs": "int", "apparent_bytes": "int", "allocated_bytes": "int",
                  "cann_bytes": "int", "prediction": _OLD_PREDICTION_SHAPE}
_OLD_CACHE_SHAPE = {
    "kernel_cache": "text", "source": "text", "variable": "text", "exists": "bool", "partial": "bool",
    "prediction_stopped": "bool", "elapsed_seconds": "num", "files": "int", "apparent_bytes": "int",
    "allocated_bytes": "int", "free_bytes": "int", "fs_size_bytes": "int", "unreadable_entries": "int",
    "other_filesystems": "int", "symlinks": "int", "other_users_files": "int", "fs_type": "text",
    "nfs_lock_problem": "text", "mount_point": "text", "mount_options": "text", "other_uids": "text",
    "first_unreadable": "text", "first_unreadable_reason": "text", "first_other_filesystem": "text",
    "limits": {"max_op_cache_size": "sint", "remain_cache_size_ratio": "sint", "source": "text"},
    "socs": ("map", _OLD_SOC_SHAPE, MAX_SOCS)}
# What the old layout did not record, said once when such a bundle is read.
_OLD_LAYOUT_MISSING = ("socs.*.hard_links", "socs.*.symlinks", "socs.*.other_users_files", "totals.dirs",
                       "other.files/dirs/bytes", "cache_dir.how")


def _old_cache_document(old: Mapping[str, Any]) -> dict[str, Any]:
    """An old-layout `cache` (checked against _OLD_CACHE_SHAPE) as the measurement's document.

    Every number the old layout kept is carried over; what it never recorded is null (per SoC dir
    its hard links, symlinks and other users' files; the top dir apart from the SoC dirs), and the
    reader says so (support-bundle-cache-old-layout). A prediction stopped at the time limit was
    dropped by the old collector too: its SoC dir has no `cleanup`.
    """
    limits = old.get("limits") or {}
    source = limits.get("source") or "default"
    kernel_cache = old.get("kernel_cache") or ""
    socs: dict[str, Any] = {}
    for name, soc in (old.get("socs") or {}).items():
        pred = soc.get("prediction")
        cleanup = None
        if pred is not None:
            rule = pred.get("atime_rule")
            cleanup = {key: pred.get(key) for key in _OLD_PREDICTION_SHAPE}
            cleanup.update({key: cleanup.get(key) or 0 for key in ("unparsed_jsons", "unread_jsons",
                                                                   "read_saved_groups", "skipped_pre_jsons",
                                                                   "skipped_unparsed_jsons")})
            percent = percent_of_limit(bool(pred.get("ageing")), pred.get("used_bytes") or 0, pred.get("max_bytes"))
            cleanup.update(percent_of_limit=None if percent is None else round(percent, 1), stopped=False,
                           atime_rule=rule, atime_rule_confirmed=None if rule is None else rule in CONFIRMED_RULES)
        socs[name] = {"path": f"{kernel_cache.rstrip('/')}/{name}", "files": soc.get("files"), "dirs": soc.get("dirs"),
                      "apparent_bytes": soc.get("apparent_bytes"), "allocated_bytes": soc.get("allocated_bytes"),
                      "cann_bytes": soc.get("cann_bytes"), "hard_links": None, "symlinks": None,
                      "other_users_files": None, "limit_source": source, "cleanup": cleanup,
                      "empties_at_next_start": None, "first_unparsed_json": None, "first_unread_json": None}
    options = old.get("mount_options")
    uids = old.get("other_uids")
    first = old.get("first_unreadable")
    other_fs = old.get("first_other_filesystem")
    top_symlinks = old.get("symlinks")
    return {
        "kernel_cache": kernel_cache,
        "exists": old.get("exists"),
        "cache_dir": {"kernel_cache": kernel_cache, "source": old.get("source"), "variable": old.get("variable")},
        "limits": {"max_op_cache_size": {"value": limits.get("max_op_cache_size"), "source": source},
                   "remain_cache_size_ratio": {"value": limits.get("remain_cache_size_ratio"), "source": source}},
        "filesystem": {"type": old.get("fs_type"), "mount_point": old.get("mount_point"),
                       "options": options.split(",") if options else None, "free_bytes": old.get("free_bytes"),
                       "size_bytes": old.get("fs_size_bytes"), "nfs_lock_problem": old.get("nfs_lock_problem")},
        "socs": socs,
        # The old layout counted symlinks for the whole cache only: kept on the top dir.
        "other": {"files": None, "dirs": None, "apparent_bytes": None, "allocated_bytes": None,
                  "symlinks": top_symlinks},
        "totals": {"files": old.get("files"), "dirs": None, "apparent_bytes": old.get("apparent_bytes"),
                   "allocated_bytes": old.get("allocated_bytes")},
        "unreadable": [{"path": first, "reason": old.get("first_unreadable_reason")}] if first else [],
        "other_filesystems": [other_fs] if other_fs else [],
        "elapsed_seconds": old.get("elapsed_seconds"),
        "stopped": bool(old.get("partial")),
        "unreadable_count": old.get("unreadable_entries"),
        "other_filesystems_count": old.get("other_filesystems"),
        "other_users": {"files": old.get("other_users_files"),
                        "uids": [int(u) for u in uids.split(", ") if u.isdigit()] if uids else None},
        "next_start_empties": None,
    }


def dumps_bundle(data: Mapping[str, Any]) -> bytes:
    """The bundle as people read it: indented UTF-8 JSON (Chinese text stays readable)."""
    return (json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False) + "\n").encode("utf-8")


def write_bundle(data: Mapping[str, Any], path: str | os.PathLike[str], *, force: bool = False) -> Path:
    """Write the bundle through the one writer (app.io.outputfiles: atomic, regular files only,
    a read-only file only with `force`); InputError naming the file on failure."""
    write_output(path, dumps_bundle(data), force=force)
    return Path(path)


def default_bundle_name(now: float | None = None) -> str:
    when = datetime.fromtimestamp(time.time() if now is None else now)
    return f"cann-config-bundle-{when:%Y%m%d-%H%M%S}.json"


# ---------------------------------------------------------------------------------------------
# Reading (anywhere): tolerant, with findings for what is not valid
# ---------------------------------------------------------------------------------------------


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


class _Reader:
    """Takes typed values out of parsed JSON; everything unusable becomes a finding."""

    def __init__(self, source: str):
        self.source = source
        self.findings: list[Finding] = []

    def add(self, code: str, **params: Any) -> None:
        self.findings.append(make_finding(code, file=self.source, **params))

    def wrong(self, key: str, value: object, expected: str) -> None:
        self.add("support-bundle-wrong-type", key=key, actual=json_type(value), expected=expected)

    def obj(self, parent: Mapping[str, Any], key: str, path: str,
            what: str | Message | None = None) -> dict[str, Any] | None:
        if key not in parent:
            if what:
                self.add("support-bundle-missing-key", key=path, what=what)
            return None
        value = parent[key]
        if value is None:
            return None
        if not isinstance(value, dict):
            self.wrong(path, value, "object")
            return None
        return value

    def text(self, parent: Mapping[str, Any], key: str, path: str, limit: int = MAX_SHORT_CHARS) -> str | None:
        value = parent.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            self.wrong(path, value, "string")
            return None
        if len(value) > limit:
            self.add("support-bundle-too-large", key=path, size=len(value), limit=limit)
            return None
        return value

    def integer(self, parent: Mapping[str, Any], key: str, path: str, minimum: int | None = 0) -> int | None:
        value = parent.get(key)
        if value is None:
            return None
        if not _is_int(value) or (minimum is not None and value < minimum) or abs(value) >= 2**63:
            self.wrong(path, value, "integer" if minimum is None else "non-negative integer")
            return None
        return value

    def boolean(self, parent: Mapping[str, Any], key: str, path: str) -> bool | None:
        value = parent.get(key)
        if value is None:
            return None
        if not isinstance(value, bool):
            self.wrong(path, value, "boolean")
            return None
        return value

    def number(self, parent: Mapping[str, Any], key: str, path: str) -> float | None:
        value = parent.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1e12:
            self.wrong(path, value, "non-negative number")
            return None
        return float(value)

    def shaped(self, value: Mapping[str, Any], shape: Mapping[str, Any], path: str) -> dict[str, Any]:
        """The keys of `shape` (app.opcache.measurement.DOCUMENT_SHAPE's notation) taken out of
        the object `value`, each of its type or None (with a finding), nested objects alike."""
        return {key: self._shaped_value(value, key, kind, f"{path}.{key[:80]}") for key, kind in shape.items()
                if key in value}

    def _shaped_value(self, parent: Mapping[str, Any], key: str, kind: Any, path: str) -> Any:
        value = parent.get(key)
        if value is None:
            return None
        if isinstance(kind, dict):
            if not isinstance(value, dict):
                self.wrong(path, value, "object")
                return None
            return self.shaped(value, kind, path)
        if isinstance(kind, tuple):
            form, inner, limit = kind
            if form == "list":
                return [self._shaped_value({"": item}, "", inner, f"{path}[{i}]")
                        for i, item in enumerate(self.items(parent, key, path, limit))]
            table = self.obj(parent, key, path) or {}
            if len(table) > limit:
                self.add("support-bundle-too-many", key=path, count=len(table), limit=limit)
            out = {}
            for name in list(table)[:limit]:
                if len(name) > 255:
                    self.add("support-bundle-too-large", key=f"{path}.{name[:80]}", size=len(name), limit=255)
                    continue
                if table[name] is None and isinstance(inner, dict):  # null is not an entry
                    self.wrong(f"{path}.{name[:80]}", None, "object")
                    continue
                item = self._shaped_value(table, name, inner, f"{path}.{name[:80]}")
                if item is not None or table[name] is None:
                    out[name] = item
            return out
        if kind == "text":
            return self.text(parent, key, path)
        if kind == "int":
            return self.integer(parent, key, path)
        if kind == "sint":
            return self.integer(parent, key, path, minimum=None)
        if kind == "bool":
            return self.boolean(parent, key, path)
        if kind == "num":
            return self.number(parent, key, path)
        # "scalar": a short text, a number or a boolean
        if isinstance(value, str):
            return self.text(parent, key, path)
        if isinstance(value, (bool, int, float)) and not (isinstance(value, float) and value != value):
            return value
        self.wrong(path, value, "scalar")
        return None

    def items(self, parent: Mapping[str, Any], key: str, path: str, limit: int) -> list[Any]:
        value = parent.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            self.wrong(path, value, "array")
            return []
        if len(value) > limit:
            self.add("support-bundle-too-many", key=path, count=len(value), limit=limit)
            return value[:limit]
        return value


@dataclass(frozen=True)
class BoardText:
    """One `npu-smi info -t board` output as the bundle holds it."""

    npu: int | None
    chip: int | None
    command: str
    text: str


@dataclass
class Bundle:
    """A support bundle as read: every part that was valid, and findings for the rest."""

    source: str
    format_version: int | None = None
    created: str | None = None
    tool_version: str | None = None
    hostname: str | None = None
    npu_smi_info: str | None = None
    npu_smi_mapping: str | None = None
    npu_smi_boards: list[BoardText] = field(default_factory=list)
    npu_smi_stderr: dict[str, str] = field(default_factory=dict)
    npu_smi_notes: list[str] = field(default_factory=list)
    # The same notes as messages, to be said in the reader's language (note_message).
    npu_smi_messages: list[Message] = field(default_factory=list)
    versions: dict[str, str | None] = field(default_factory=dict)
    environ: dict[str, str] = field(default_factory=dict)
    ini_path: str | None = None
    ini_exists: bool | None = None
    ini_error: str | None = None
    op_cache_ini: OpCacheIni | None = None
    # The cache as `collect` measured it: the one measurement (app.opcache.measurement), read back
    # from its document (`scan --json`'s) or from an older bundle's layout (cache_layout "old").
    cache: CacheMeasurement | None = None
    cache_layout: str | None = None  # "measurement" | "old" | None (no usable cache object)
    cache_path: str | None = None  # the kernel_cache the bundle names, also when it was not measured
    cache_error: str | None = None  # why collect could not measure it (listed under "unreadable" too)
    cache_time_limit: float | None = None  # collect --scan-seconds
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    left_out: list[tuple[str, str]] = field(default_factory=list)  # (what, why) the collector kept back
    # `collect --log FILE`: the log's name and its NPU memory error lines, (line, text) (app/triage/bundled.py)
    memory_error_log: str | None = None
    memory_error_lines: list[tuple[int, str]] = field(default_factory=list)
    device: DeviceInfo = field(default_factory=lambda: DeviceInfo(source="bundle"))
    findings: list[Finding] = field(default_factory=list)

    # -- what the GUI and the CLI call ------------------------------------------------------

    def installed_versions(self) -> dict[str, str]:
        """{"adk_version", "ops_version"} of the customer's CANN, the keys that are known."""
        return {key: value for key in VERSION_KEYS if isinstance(value := self.versions.get(key), str) and value}

    def diagnosis(self, *, framework: str | None = None, device: DeviceInfo | None = None,
                  script: str | os.PathLike[str] | None = None, profile: Profile | None = None) -> Diagnosis:
        """The customer's configuration resolved as `diagnose` resolves the same files locally.

        `device` stands in for the bundle's device (support choosing one by hand); `framework`
        and `script` are what the customer said they run. Nothing on this machine is read except
        `script`: the op_cache.ini and the environment are the bundle's.
        """
        ini = self.op_cache_ini
        result = diagnose(ini_path=self.ini_path if ini is not None else None, op_cache_ini=ini,
                          environ=dict(self.environ), device=device or self.device, framework=framework,
                          script=script, profile=profile, installed_versions=self.installed_versions() or None)
        extra = list(self.findings)
        if ini is None and self.ini_exists is False and self.ini_path:
            # What `diagnose` says on the host when the file CANN would read is not there.
            extra.append(make_finding("cache-ini-not-found", path=self.ini_path))
        extra.extend(self.cache_findings(result.effective))
        result.findings = sort_findings(one_finding_per_cause(result.findings + extra))
        result.inputs["environment"] = "bundle"
        result.inputs["bundle"] = self.source
        return result

    def suggested_profile(self, *, framework: str | None = None, device: DeviceInfo | None = None) -> Profile:
        """A Profile with the customer's effective values and every finding's suggestion applied."""
        from cann_config.app.support.fixes import plan_fixes

        diagnosis = self.diagnosis(framework=framework, device=device)
        planned = plan_fixes(diagnosis).profile  # only fixes that pass their check
        return planned if planned is not None else suggested_profile(diagnosis, [])

    def cache_findings(self, effective: Mapping[str, Any]) -> list[Finding]:
        """What the bundle's cache measurement says, checked against the limits resolved here:
        the same findings (`scan-*`) `scan` gives for the same facts (app.opcache.cleanup), plus
        what only a bundle can lack (no measurement, a prediction cut at the collect time limit,
        a prediction made with other limits)."""
        if self.cache_error:
            return []  # listed under "unreadable"
        cache = self.cache
        if cache is None:
            return [make_finding("support-cache-none", file=self.source)]
        where = str(cache.kernel_cache)
        if not cache.exists:
            return [make_finding("scan-no-cache", file=where, path=where)]
        max_now = getattr(effective.get("max_op_cache_size"), "value", None)
        ratio_now = getattr(effective.get("remain_cache_size_ratio"), "value", None)
        found = facts_findings(cache.facts(max_now if _is_int(max_now) else None))
        if cache.prediction_stopped:
            found.append(make_finding("support-cleanup-stopped", file=where, path=where,
                                      seconds=f"{self.cache_time_limit or 0:g}"))
        found += self.empties_findings(effective)
        recorded = [c for soc in cache.document()["socs"].values() if (c := soc.get("cleanup")) is not None]
        other = next((c for c in recorded if (c.get("max_mb"), c.get("ratio")) != (max_now, ratio_now)), None)
        if other is not None:
            found.append(make_finding("support-cleanup-other-limits", file=where, max_mb=other.get("max_mb"),
                                      ratio=other.get("ratio"), now_max=max_now, now_ratio=ratio_now))
        return found

    def next_start_empties(self, effective: Mapping[str, Any]) -> Empties | None:
        """Whether the customer's next compiler start empties a SoC dir, and why
        (app.opcache.measurement.next_start_empties with the bundle's file and versions)."""
        mode = getattr(effective.get("op_compiler_cache_mode"), "value", None)
        # collect found no op_cache.ini where CANN reads it: the next start creates it, emptying the SoC dir
        missing = self.ini_path if self.op_cache_ini is None and self.ini_exists is False else None
        return next_start_empties(self.op_cache_ini, self.installed_versions(), mode, missing_ini=missing)

    def empties_findings(self, effective: Mapping[str, Any]) -> list[Finding]:
        """"The next start empties <SoC dir> (N MB)", from the sizes the bundle recorded: the
        device's SoC dir when the device is known, else every SoC dir (as on a live host)."""
        cache = self.cache
        empties = self.next_start_empties(effective)
        if cache is None or empties is None:
            return []
        return empties_findings(empties, cache.soc_sizes(), self.device.soc_version)

    def measurement(self, effective: Mapping[str, Any], findings: Sequence[Finding] = ()) -> CacheMeasurement | None:
        """The recorded measurement with "the next start empties" decided with the limits and mode
        resolved here, and `findings` (limit_findings) shown with it, as `scan` shows them: what
        `diagnose --bundle --json` carries as `cache`."""
        if self.cache is None:
            return None
        return self.cache.with_empties(self.next_start_empties(effective), self.device.soc_version, findings)

    def summary(self, lang: str | None = None) -> str:
        """One line for `collect` and the GUI: device, toolkit, op_cache.ini, cache."""
        not_found = _label("support-label-not-found", lang)
        if self.device.soc_version or self.device.series:
            device = self.device.label(lang)
        else:
            why = "; ".join(m.text(lang) for m in self.npu_smi_messages[:1]) or not_found
            device = _label("support-label-collect-no-device", lang, why=why.rstrip("."))
        toolkit = self.versions.get("toolkit_version") or not_found
        ini = _label("support-label-found", lang, path=self.ini_path) if self.op_cache_ini is not None else not_found
        cache = self.cache
        if cache is None or self.cache_error:
            cache_text = not_found
        elif not cache.exists:
            cache_text = _label("support-label-collect-cache-absent", lang, path=str(cache.kernel_cache))
        else:
            totals = cache.document()["totals"] or {}
            code = "support-label-collect-cache-partial" if cache.stopped else "support-label-collect-cache"
            cache_text = _label(code, lang, files=format_count(totals.get("files") or 0),
                                size=_human(totals.get("apparent_bytes")), path=str(cache.kernel_cache))
        return _label("support-label-collect-summary", lang, device=device, toolkit=toolkit, ini=ini, cache=cache_text)

    def metadata(self) -> dict[str, Any]:
        """The bundle's own facts, for reports and `diagnose --bundle --json`."""
        return {"source": self.source, "format_version": self.format_version, "created": self.created,
                "tool_version": self.tool_version, "hostname": self.hostname, "versions": dict(self.versions),
                "environment": dict(self.environ), "unreadable": [{"what": w, "why": y} for w, y in self.unreadable],
                "left_out": [{"what": w, "why": y} for w, y in self.left_out],
                "cache": self.cache.to_json() if self.cache else None, "cache_layout": self.cache_layout,
                "cache_error": self.cache_error}


def _read_npu_smi(reader: _Reader, bundle: Bundle, data: Mapping[str, Any]) -> None:
    section = reader.obj(data, "npu_smi", "npu_smi", Message("support-what-npu-smi"))
    if section is None:
        return
    bundle.npu_smi_info = reader.text(section, "info", "npu_smi.info", MAX_TEXT_CHARS)
    bundle.npu_smi_mapping = reader.text(section, "mapping", "npu_smi.mapping", MAX_TEXT_CHARS)
    for i, item in enumerate(reader.items(section, "boards", "npu_smi.boards", MAX_BOARDS)):
        path = f"npu_smi.boards[{i}]"
        if not isinstance(item, dict):
            reader.wrong(path, item, "object")
            continue
        text = reader.text(item, "text", f"{path}.text", MAX_TEXT_CHARS)
        if text is None:
            continue
        npu = reader.integer(item, "npu", f"{path}.npu")
        chip = reader.integer(item, "chip", f"{path}.chip")
        command = reader.text(item, "command", f"{path}.command") or "npu-smi info -t board" + (
            f" -i {npu}" if npu is not None else "") + (f" -c {chip}" if chip is not None else "")
        bundle.npu_smi_boards.append(BoardText(npu, chip, command, text))
    stderr = reader.obj(section, "stderr", "npu_smi.stderr")
    for command in list(stderr or {})[:MAX_NOTES]:
        text = reader.text(stderr or {}, command, f"npu_smi.stderr.{command[:80]}", MAX_TEXT_CHARS)
        if text is not None and len(command) <= MAX_SHORT_CHARS:
            bundle.npu_smi_stderr[command] = text
    for i, note in enumerate(reader.items(section, "notes", "npu_smi.notes", MAX_NOTES)):
        if not isinstance(note, str):
            reader.wrong(f"npu_smi.notes[{i}]", note, "string")
        elif len(note) <= MAX_SHORT_CHARS:
            bundle.npu_smi_notes.append(note)
            bundle.npu_smi_messages.append(note_message(note))


def _device_of(reader: _Reader, bundle: Bundle) -> DeviceInfo:
    """The device the bundle's npu-smi outputs describe (source "bundle"), as detect reads them."""
    boards = [b.text for b in bundle.npu_smi_boards]
    sources = [b.command for b in bundle.npu_smi_boards]
    texts = [(bundle.npu_smi_info, "npu-smi info"), (bundle.npu_smi_mapping, "npu-smi info -m")]
    texts = [(text, name) for text, name in texts if text is not None and text.strip()]
    if not texts and not boards:
        why: str | Message = (JoinedMessage(bundle.npu_smi_messages) if bundle.npu_smi_messages
                              else "; ".join(y for w, y in bundle.unreadable if w.startswith("npu-smi")))
        why = why or Message("support-label-not-found")
        reader.add("support-bundle-no-npu-smi", why=why)
        return DeviceInfo(source="bundle", notes=tuple(m.text() for m in bundle.npu_smi_messages))
    first_error: InputError | None = None
    for text, name in texts or [(None, "npu-smi info")]:
        try:
            return device_from_npu_smi(text, boards, source="bundle", info_source=f"{reader.source}: {name}",
                                       board_sources=[f"{reader.source}: {s}" for s in sources])
        except InputError as exc:
            first_error = first_error or exc
    assert first_error is not None
    reader.add("support-bundle-npu-smi-unreadable", reason=first_error.line_message())
    return DeviceInfo(source="bundle", notes=tuple(m.text() for m in bundle.npu_smi_messages))


def _read_versions(reader: _Reader, bundle: Bundle, data: Mapping[str, Any]) -> None:
    section = reader.obj(data, "versions", "versions", Message("support-what-versions"))
    for key in list(section or {})[:MAX_NOTES]:
        value = (section or {})[key]
        if value is None:
            bundle.versions[key] = None
            continue
        text = reader.text(section or {}, key, f"versions.{key[:80]}")
        if text is not None and len(key) <= 80:
            bundle.versions[key] = text


def _read_environment(reader: _Reader, bundle: Bundle, data: Mapping[str, Any]) -> None:
    section = reader.obj(data, "environment", "environment", Message("support-what-environment"))
    if section is None:
        return
    known = bundle_variables()
    ignored = [name for name in section if name not in known]
    if ignored:
        shown = ", ".join(name[:60] for name in ignored[:10]) + (", ..." if len(ignored) > 10 else "")
        reader.add("support-bundle-env-ignored", names=shown, known=", ".join(known))
    for name in known:
        value = reader.text(section, name, f"environment.{name}")
        if value is not None:
            bundle.environ[name] = value


def _read_ini(reader: _Reader, bundle: Bundle, data: Mapping[str, Any]) -> None:
    section = reader.obj(data, "op_cache_ini", "op_cache_ini", "op_cache.ini")
    if section is None:
        return
    bundle.ini_path = reader.text(section, "path", "op_cache_ini.path")
    bundle.ini_exists = reader.boolean(section, "exists", "op_cache_ini.exists")
    error = reader.text(section, "error", "op_cache_ini.error")
    label = bundle.ini_path or "op_cache.ini"
    if error:
        bundle.ini_error = error
        reader.add("support-bundle-ini-unreadable", path=label, reason=error)
    text = reader.text(section, "text", "op_cache_ini.text", MAX_INI_BYTES)
    raw: bytes | None = None
    if text is not None:
        raw = text.encode("utf-8", "surrogatepass")
    else:
        encoded = reader.text(section, "base64", "op_cache_ini.base64", (MAX_INI_BYTES * 4) // 3 + 4)
        if encoded is not None:
            try:
                raw = base64.b64decode(encoded, validate=True)
            except (binascii.Error, ValueError):
                reader.add("support-bundle-ini-unusable", reason=Message("support-reason-bad-base64"))
    if raw is None:
        return
    if len(raw) > MAX_INI_BYTES:
        reader.add("support-bundle-too-large", key="op_cache_ini", size=len(raw), limit=MAX_INI_BYTES)
        return
    try:
        bundle.op_cache_ini = parse_op_cache_ini(raw, label)
    except InputError as exc:
        reader.add("support-bundle-ini-unusable", reason=exc.line_message())
        return
    bundle.ini_exists = True


def _read_cache(reader: _Reader, bundle: Bundle, data: Mapping[str, Any]) -> None:
    """The bundle's `cache`, read into the one measurement type (CacheMeasurement.recorded):
    the measurement's document, or the layout of older bundles (_old_cache_document)."""
    from cann_config.app.opcache.measurement import CLEANUP_REQUIRED, DOCUMENT_SHAPE

    section = reader.obj(data, "cache", "cache", Message("support-what-cache"))
    if section is None:
        return
    bundle.cache_time_limit = reader.number(section, "time_limit_seconds", "cache.time_limit_seconds")
    bundle.cache_path = reader.text(section, "kernel_cache", "cache.kernel_cache")
    error = reader.text(section, "error", "cache.error")
    if error:
        bundle.cache_error = error
        return
    if "totals" in section or "cache_dir" in section:
        doc = reader.shaped(section, DOCUMENT_SHAPE, "cache")
        bundle.cache_layout = "measurement"
        for key in section:
            if key not in DOCUMENT_SHAPE and key not in CACHE_BUNDLE_KEYS and key != "findings":
                reader.add("support-bundle-unknown-key", key=f"cache.{key[:80]}")
    else:
        old = reader.shaped(section, _OLD_CACHE_SHAPE, "cache")
        for name, soc in (old.get("socs") or {}).items():
            pred = soc.get("prediction")
            if pred is not None and _missing(reader, pred, f"cache.socs.{name[:80]}.prediction",
                                             ("ageing", "triggers", "target_reached", "max_mb", "ratio", "used_bytes",
                                              "target_bytes", "delete_groups", "delete_bytes", "kept_recent_groups")):
                soc["prediction"] = None
        doc = _old_cache_document(old)
        bundle.cache_layout = "old"
        reader.add("support-bundle-cache-old-layout", tool=bundle.tool_version or "?",
                   missing=", ".join(_OLD_LAYOUT_MISSING))
    for name, soc in (doc.get("socs") or {}).items():
        cleanup = soc.get("cleanup")
        if cleanup is not None and "totals" in section and _missing(reader, cleanup, f"cache.socs.{name[:80]}.cleanup",
                                                                    CLEANUP_REQUIRED):
            soc["cleanup"] = None
    limits = doc.get("limits") or {}
    for key in ("max_op_cache_size", "remain_cache_size_ratio"):
        if not _is_int((limits.get(key) or {}).get("value")):
            reader.add("support-bundle-missing-key", key=f"cache.limits.{key}", what=Message("support-what-cache"))
            return
    if not doc.get("kernel_cache"):
        reader.add("support-bundle-missing-key", key="cache.kernel_cache", what=Message("support-what-cache"))
        return
    bundle.cache = CacheMeasurement.recorded(doc)


def _missing(reader: _Reader, value: Mapping[str, Any], path: str, required: tuple[str, ...]) -> bool:
    """Whether a prediction lacks a key it cannot do without (said as a finding): then it is dropped."""
    missing = [key for key in required if value.get(key) is None]
    if not missing and value.get("ageing") and (value.get("max_bytes") is None
                                                or value.get("keep_threshold_bytes") is None):
        missing = ["max_bytes"]
    if missing:
        reader.add("support-bundle-missing-key", key=f"{path}.{missing[0]}", what="cleanup prediction")
    return bool(missing)


def _read_left_out(reader: _Reader, bundle: Bundle, data: Mapping[str, Any]) -> None:
    """What the collector left out on purpose (bundles before this key have none)."""
    if "left_out" not in data:
        return
    for i, item in enumerate(reader.items(data, "left_out", "left_out", MAX_NOTES)):
        if not isinstance(item, dict):
            reader.wrong(f"left_out[{i}]", item, "object")
            continue
        what = reader.text(item, "what", f"left_out[{i}].what")
        if what:
            bundle.left_out.append((what, reader.text(item, "why", f"left_out[{i}].why") or ""))


def _read_memory_errors(reader: _Reader, bundle: Bundle, data: Mapping[str, Any]) -> None:
    """`memory_errors` (collect --log FILE; app/triage/bundled.py): the log's NPU memory error lines."""
    section = reader.obj(data, "memory_errors", "memory_errors")
    if section is None:
        return
    bundle.memory_error_log = reader.text(section, "log", "memory_errors.log")
    for i, item in enumerate(reader.items(section, "lines", "memory_errors.lines", MAX_NOTES)):
        if not isinstance(item, dict):
            reader.wrong(f"memory_errors.lines[{i}]", item, "object")
            continue
        line = reader.integer(item, "line", f"memory_errors.lines[{i}].line", minimum=1)
        text = reader.text(item, "text", f"memory_errors.lines[{i}].text")
        if line is not None and text is not None:
            bundle.memory_error_lines.append((line, text))


def _read_unreadable(reader: _Reader, bundle: Bundle, data: Mapping[str, Any]) -> None:
    for i, item in enumerate(reader.items(data, "unreadable", "unreadable", MAX_NOTES)):
        if not isinstance(item, dict):
            reader.wrong(f"unreadable[{i}]", item, "object")
            continue
        what = reader.text(item, "what", f"unreadable[{i}].what")
        why = reader.text(item, "why", f"unreadable[{i}].why")
        if what:
            bundle.unreadable.append((what, why or ""))
            if what != "npu-smi info":  # said by support-bundle-no-npu-smi / the device notes
                reader.add("support-bundle-unreadable", what=what, why=why or "-")


def bundle_from_json(data: object, source: str = "<bundle>") -> Bundle:
    """Read parsed JSON as a bundle, as far as it is valid (see the module docstring).

    Raises InputError (naming `source`) only when `data` is not a cann-config bundle at all.
    """
    if not isinstance(data, dict):
        raise InputError.from_code("support-error-not-object", source, type=json_type(data))
    marker = data.get("format")
    if marker != BUNDLE_FORMAT:
        shown = repr(marker)[:60] if "format" in data else "missing"
        raise InputError.from_code("support-error-format-marker", source, shown=shown, expected=BUNDLE_FORMAT)
    reader = _Reader(source)
    bundle = Bundle(source=source)
    version = data.get("version")
    if _is_int(version) and version > 0:
        bundle.format_version = version
        if version > BUNDLE_VERSION:
            reader.add("support-bundle-version-newer", version=version, known=BUNDLE_VERSION)
        elif version < BUNDLE_VERSION:
            reader.add("support-bundle-version-older", version=version, known=BUNDLE_VERSION)
    else:
        reader.add("support-bundle-version-invalid", value=repr(version)[:60], known=BUNDLE_VERSION)
    for key in data:
        if key not in TOP_KEYS and key not in OPTIONAL_KEYS:
            reader.add("support-bundle-unknown-key", key=key[:80])
    bundle.created = reader.text(data, "created", "created")
    bundle.tool_version = reader.text(data, "tool_version", "tool_version")
    host = reader.obj(data, "host", "host")
    if host is not None:
        bundle.hostname = reader.text(host, "hostname", "host.hostname", 255)
    _read_unreadable(reader, bundle, data)
    _read_left_out(reader, bundle, data)
    _read_memory_errors(reader, bundle, data)
    _read_npu_smi(reader, bundle, data)
    _read_versions(reader, bundle, data)
    _read_environment(reader, bundle, data)
    _read_ini(reader, bundle, data)
    _read_cache(reader, bundle, data)
    bundle.device = _device_of(reader, bundle)
    bundle.findings = sort_findings(reader.findings)
    return bundle


def load_bundle(path: str | os.PathLike[str]) -> Bundle:
    """Read a bundle file; InputError (exit 2, one line naming the file) when it is not one."""
    p = Path(path)
    raw, _ = read_input_bytes(p, Message("support-kind-bundle"), MAX_BUNDLE_BYTES)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError.from_code("support-error-not-utf8", p, line) from None
    # The one bounded JSON reader: nesting and number sizes limited (app.io.inputfiles).
    try:
        data = parse_json_bounded(text, p)
    except InputError as exc:
        raise InputError.from_code("support-error-unparsable", p, exc.line, detail=exc.message) from None
    return bundle_from_json(data, str(p))
