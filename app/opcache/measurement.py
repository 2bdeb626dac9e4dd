"""One measurement of an op cache: the walk, the cleanup candidates and the prediction, as one object.

Why this module exists: `scan`, `diagnose`, `collect` (a support bundle), `fleet` and the wizard
all say what a cache dir holds and what the next compiler start does to it. Each used to drive
the scanner and the prediction itself; now each asks `measure_cache` and shows the resulting
`CacheMeasurement`, whose `to_json()` is the `scan --json` document (docs/architecture.md#json-output):
`diagnose --json` on a live host carries the same object as its `cache`, so every view states the
same limit and the same prediction.

Besides the ageing cleanup (app/opcache/cleanup.py, docs/cann/op-cache.md#cleanup), the next start
can empty a SoC dir outright: when the op_cache.ini CANN uses has version lines that differ from
the installed CANN, or the cache mode is `force` (docs/cann/op-cache.md#version-lines,
#mode). `next_start_empties` decides that; the measurement puts it beside the prediction of each
SoC dir it concerns (`empties_at_next_start`) and as a warning naming the SoC dir and its size.

Public API:
    next_start_empties(ini, installed_versions, mode, *, missing_ini=None) -> Empties | None
    empties_findings(empties, socs, soc_version) -> list[Finding]
    one_finding_per_cause(findings) -> list[Finding]   the versions info dropped where the empties warning says it
    limit_findings(resolution_findings, ini_findings) -> list[Finding]   shown with the limits   (a bundle's recorded sizes too)
    measure_cache(kernel_cache, dir_info, max_e, ratio_e, *, findings=(), empties=None,
                  soc_version=None, walk=None, predict=None) -> CacheMeasurement
    CacheMeasurement: kernel_cache, dir_info, max_e, ratio_e, usage, predictions, findings, empties,
        .to_json(lang) (the scan --json document), .soc_lines(lang, indent) (scan's and diagnose's
        text per SoC dir), .soc_empties(name)
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

import copy
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from cann_config.app.collector import collector_paused
from cann_config.app.findings import Finding, make_finding, sort_findings, unique_findings
from cann_config.app.io.inputfiles import input_is_dir
from cann_config.app.opcache.cleanup import (
    AGEING_OFF,
    CacheFacts,
    CleanupPrediction,
    SocFacts,
    cache_findings,
    facts_findings,
    percent_of_limit,
    predict_cleanup,
)
from cann_config.app.opcache.ini import VERSION_KEYS, OpCacheIni
from cann_config.app.opcache.parallel import ScanPool, scan_pool
from cann_config.app.opcache.resolution import Effective
from cann_config.app.opcache.scanner import CacheUsage, nfs_lock_problem, scan_cache
from cann_config.app.units import CANN_MB, human_bytes

MAX_SIZE = "max_op_cache_size"
REMAIN_RATIO = "remain_cache_size_ratio"
EMPTIES_VERSIONS = "versions-differ"
EMPTIES_FORCE = "force"
# op_cache.ini is missing: CANN creates it at the next start, and creating it empties the SoC dir
# (docs/cann/op-cache.md#version-lines; te_cache_space_manager.cc).
EMPTIES_INI_MISSING = "ini-missing"
# Keys added to the document for issue 24 item 1 (a bundle's cache is the document): counts beside
# the lists a bundle cuts to their first entry, and other users' files.
ADDED_KEYS = ("unreadable_count", "other_filesystems_count", "other_users")
# The keys of the document (`to_json`, `scan --json`) a recorded measurement keeps.
DOCUMENT_KEYS = ("kernel_cache", "exists", "cache_dir", "limits", "filesystem", "socs", "other", "totals",
                 "unreadable", "other_filesystems", "elapsed_seconds", "stopped", "unreadable_count",
                 "other_filesystems_count", "other_users", "next_start_empties")


# The document's shape, for readers of a recorded one (app.support.bundle checks a bundle's `cache`
# against it): "int" a non-negative integer, "sint" any integer, "num" a non-negative number,
# "text", "bool", "scalar" (text, number, boolean); a dict an object with these keys;
# ("list", shape, n) an array of at most n; ("map", shape, n) an object of at most n names. Any
# value may be null. tests/app/opcache/test_measurement.py checks a real document fits it.
_EFFECTIVE_SHAPE = {"value": "sint", "source": "text", "file": "text", "line": "int", "variable": "text",
                    "detail": "text", "runtime": "bool", "expression": "text", "inherited": "bool",
                    "inherited_from": "text"}
_CLEANUP_SHAPE = {
    "ageing": "bool", "max_mb": "sint", "ratio": "sint", "used_bytes": "int", "max_bytes": "int",
    "percent_of_limit": "num", "keep_threshold_bytes": "int", "triggers": "bool", "target_bytes": "int",
    "delete_groups": "int", "delete_bytes": "int", "freed_bytes": "int", "target_reached": "bool",
    "kept_recent_groups": "int", "kept_recent_bytes": "int", "candidate_groups": "int", "unparsed_jsons": "int",
    "unread_jsons": "int", "stopped": "bool", "atime_rule": "text", "atime_rule_confirmed": "bool",
    "read_saved_groups": "int", "skipped_pre_jsons": "int", "skipped_unparsed_jsons": "int"}
# The keys a recorded prediction cannot do without (the rest defaults to 0 / false / unknown).
CLEANUP_REQUIRED = ("ageing", "triggers", "max_mb", "ratio", "used_bytes", "target_bytes", "delete_groups",
                    "delete_bytes", "target_reached", "kept_recent_groups")
_SOC_SHAPE = {
    "path": "text", "files": "int", "dirs": "int", "apparent_bytes": "int", "allocated_bytes": "int",
    "cann_bytes": "int", "hard_links": "int", "symlinks": "int", "other_users_files": "int", "limit_source": "text",
    "cleanup": _CLEANUP_SHAPE, "empties_at_next_start": {"reason": "text", "bytes": "int"},
    "first_unparsed_json": "text", "first_unread_json": "text",
    # a support bundle's only (collect): the jsons' times in aggregate form (atime_aggregate)
    "atimes": {"jsons": "int", "oldest_atime": "sint", "newest_atime": "sint", "older_than_30_min": "int",
               "older_than_a_day": "int", "read_after_change": "int", "now": "sint"}}
_SIZES_SHAPE = {"files": "int", "dirs": "int", "apparent_bytes": "int", "allocated_bytes": "int"}
DOCUMENT_SHAPE: dict[str, Any] = {
    "kernel_cache": "text", "exists": "bool", "cache_dir": ("map", "scalar", 32),
    "limits": {"max_op_cache_size": _EFFECTIVE_SHAPE, "remain_cache_size_ratio": _EFFECTIVE_SHAPE},
    "filesystem": {"type": "text", "mount_point": "text", "options": ("list", "text", 256), "free_bytes": "int",
                   "size_bytes": "int", "nfs_lock_problem": "text"},
    "socs": ("map", _SOC_SHAPE, 256),
    "other": {**_SIZES_SHAPE, "symlinks": "int"},
    "totals": _SIZES_SHAPE,
    "unreadable": ("list", {"path": "text", "reason": "text"}, 200),
    "other_filesystems": ("list", "text", 200),
    "elapsed_seconds": "num", "stopped": "bool", "unreadable_count": "int", "other_filesystems_count": "int",
    "other_users": {"files": "int", "uids": ("list", "int", 256)},
    "next_start_empties": {"reason": "text", "key": "text", "value": "text", "installed": "text", "file": "text",
                           "line": "int", "socs": ("list", "text", 256),
                           "differs": ("list", {"key": "text", "value": "text", "installed": "text", "line": "int"}, 8)},
}


class Empties(NamedTuple):
    """Why the next compiler start empties the SoC cache dir (docs/cann/op-cache.md#version-lines)."""

    reason: str  # EMPTIES_VERSIONS | EMPTIES_FORCE
    key: str | None = None  # the version key that differs
    value: str | None = None  # its value in op_cache.ini (as CANN reads it, a CR kept)
    installed: str | None = None  # the installed CANN's value
    file: str | None = None
    line: int | None = None
    # every version line that differs, (key, value, installed, line): the first is key/value above
    differs: tuple[tuple[str, str, str, int | None], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"reason": self.reason, "key": self.key, "value": self.value, "installed": self.installed,
                "file": self.file, "line": self.line,
                # added for issue 24 item 4: both version lines when both differ
                "differs": [{"key": k, "value": v, "installed": i, "line": n} for k, v, i, n in self.differs]}


def atime_aggregate(soc: Any, now: float) -> dict[str, Any]:
    """The access times of a SoC dir's cleanup candidates in aggregate form, no file named: what a
    support bundle carries for the atime re-check instead of a file list (issue 30 item 1;
    docs/cann/op-cache.md#access-time-re-check). `jsons` candidates; the oldest and newest atime
    (whole seconds); how many are older than CANN's 30 minutes and than relatime's day; how many
    were read after their last change (atime later than mtime and ctime: a relatime read within
    the day keeps their atime, so CANN's re-check can delete them). `soc` is a walked SocUsage."""
    from cann_config.app.opcache.atime import RELATIME_MAX_AGE_SECONDS
    from cann_config.app.opcache.cleanup import MIN_CACHE_AGING_SECONDS

    now_s = int(now)
    if not soc.candidates_complete:  # the walk did not gather them (the dir is under its limit)
        return {"jsons": None, "oldest_atime": None, "newest_atime": None, "older_than_30_min": None,
                "older_than_a_day": None, "read_after_change": None, "now": now_s}
    keys = soc.ordered_candidates()
    atimes = [soc.candidate(key)[0] for key in keys]
    return {
        "jsons": len(keys),
        "oldest_atime": atimes[0] if atimes else None,
        "newest_atime": atimes[-1] if atimes else None,
        "older_than_30_min": sum(1 for a in atimes if now_s - a >= MIN_CACHE_AGING_SECONDS),
        "older_than_a_day": sum(1 for a in atimes if now_s - a >= RELATIME_MAX_AGE_SECONDS),
        "read_after_change": sum(1 for key in keys if soc.read_after_change(key)),
        "now": now_s,
    }


def next_start_empties(ini: OpCacheIni | None, installed_versions: Mapping[str, str] | None,
                       mode: object, *, missing_ini: str | None = None) -> Empties | None:
    """Whether CANN empties the SoC cache dir at the next compiler start, and why.

    Mode `force` deletes the cache first (docs/cann/op-cache.md#mode). Otherwise CANN compares the
    version lines of the op_cache.ini it uses with the installed CANN and empties the SoC dir when
    one differs (docs/cann/op-cache.md#version-lines; `te_cache_space_manager.cc`); a file that does
    not count (no version lines, a foreign section) is ignored, and with no installed versions
    known nothing can be compared. A CR kept at the end of a CRLF file's value makes it differ.

    `missing_ini`: the path of the op_cache.ini CANN reads, when it is known not to exist. CANN
    creates the file at the next start with the cache enabled, and creating it empties the SoC
    dir (docs/cann/op-cache.md#version-lines) - whatever the versions.
    """
    if mode == "force":
        return Empties(EMPTIES_FORCE)
    if mode == "disable":
        return None
    if ini is None and missing_ini is not None:
        return Empties(EMPTIES_INI_MISSING, file=missing_ini)
    if ini is None or not ini.counts or not installed_versions:
        return None
    values = ini.values_as_cann_reads()
    differs = []
    for key in VERSION_KEYS:
        entry = values.get(key)
        wanted = installed_versions.get(key)
        if entry is not None and wanted and entry.value != wanted:
            differs.append((key, entry.value, wanted, entry.line))
    if not differs:
        return None
    key, value, wanted, line = differs[0]
    return Empties(EMPTIES_VERSIONS, key, value, wanted, ini.source, line, tuple(differs))


def _empties_finding(empties: Empties, soc: str, soc_dir: str, size: int) -> Finding:
    if empties.reason == EMPTIES_FORCE:
        return make_finding("cache-next-start-empties-force", file=soc_dir, soc=soc, soc_dir=soc_dir,
                            size=human_bytes(size))
    if empties.reason == EMPTIES_INI_MISSING:
        return make_finding("cache-next-start-empties-ini-missing", file=soc_dir, soc=soc, soc_dir=soc_dir,
                            size=human_bytes(size), ini=empties.file or "op_cache.ini")
    differs = empties.differs or ((empties.key or "?", empties.value or "", empties.installed or "?", empties.line),)
    versions = ", ".join(f"{k}={v.rstrip(chr(13))}" for k, v, _i, _n in differs)
    installed = ", ".join(f"{k}={i}" for k, _v, i, _n in differs)
    return make_finding("cache-next-start-empties-versions", file=soc_dir, soc=soc, soc_dir=soc_dir,
                        size=human_bytes(size), versions=versions, installed=installed,
                        ini=empties.file or "op_cache.ini")


# The info that the version lines differ (app.opcache.resolution check_versions) and the warning
# that the next start empties the SoC dir have one cause: where the warning is said, it is said once.
_RESTATED_BY = {"cache-next-start-empties-versions": "cache-ini-version-differs",
                "cache-next-start-empties-ini-missing": "cache-ini-not-found"}


def one_finding_per_cause(findings: Iterable[Finding]) -> list[Finding]:
    """`findings` less those another finding in them restates: `cache-ini-version-differs` (info)
    where `cache-next-start-empties-versions` (the warning naming the SoC dir, its size and the
    versions) is said (issue 24 item 4); `cache-ini-not-found` where
    `cache-next-start-empties-ini-missing` is."""
    found = list(findings)
    restated = {_RESTATED_BY[f.code] for f in found if f.code in _RESTATED_BY}
    return [f for f in found if f.code not in restated]


def empties_findings(empties: Empties, socs: Mapping[str, tuple[str, int]], soc_version: str | None) -> list[Finding]:
    """"The next start empties <SoC dir> (N MB)" for each SoC dir it concerns: `soc_version`'s
    when the device is known (the one that starts), else every SoC dir; `socs` maps a SoC dir's
    name to (its path, CANN's size of it). An empty or absent SoC dir loses nothing."""
    return [_empties_finding(empties, name, *socs[name]) for name in emptied_socs(socs, soc_version)]


def emptied_socs(socs: Mapping[str, tuple[str, int]], soc_version: str | None) -> tuple[str, ...]:
    """The SoC dirs (names) a next start that empties the cache empties: see empties_findings."""
    names = [soc_version] if soc_version else sorted(socs)
    return tuple(name for name in names if name in socs and socs[name][1] > 0)


# Findings of the limit resolution that explain the limit shown (the rest is `diagnose`'s job).
_LIMIT_CODES = ("cache-ini-", "cache-env-max", "cache-env-ratio", "cache-env-numeric", "cache-env-overridden",
                "cache-ageing-off")


def limit_findings(resolution_findings: Iterable[Finding], ini_findings: Iterable[Finding]) -> list[Finding]:
    """The findings a measurement shows with its limits: the op_cache.ini's errors and warnings and
    the resolution's findings about the two size values (each once)."""
    chosen = [f for f in ini_findings if f.severity in ("error", "warning")]
    chosen += [f for f in resolution_findings if f.code.startswith(_LIMIT_CODES)]
    seen: set[tuple[str, str | None, int | None]] = set()
    result = []
    for f in chosen:
        key = (f.code, f.file, f.line)
        if key not in seen:
            seen.add(key)
            result.append(f)
    return result


def _limits_json(max_e: Effective, ratio_e: Effective, lang: str | None) -> dict[str, Any]:
    ageing = max_e.value != AGEING_OFF
    max_bytes = int(max_e.value) * CANN_MB if ageing else None
    return {
        MAX_SIZE: max_e.to_json(lang),
        REMAIN_RATIO: ratio_e.to_json(lang),
        "ageing": ageing,
        "mb_bytes": CANN_MB,
        "max_bytes": max_bytes,
        "keep_threshold_bytes": max_bytes * int(ratio_e.value) // 100 if max_bytes is not None else None,
    }


class CacheMeasurement:
    """A cache dir measured once: usage per SoC dir, CANN's next cleanup, and what to know about it."""

    def __init__(self, kernel_cache: Path, dir_info: Mapping[str, Any], max_e: Effective, ratio_e: Effective,
                 usage: CacheUsage | None, predictions: Mapping[str, CleanupPrediction], findings: list[Finding],
                 empties: Empties | None = None, empties_socs: tuple[str, ...] = (),
                 record: Mapping[str, Any] | None = None) -> None:
        self.kernel_cache = kernel_cache
        self.dir_info = dict(dir_info)
        self.max_e = max_e
        self.ratio_e = ratio_e
        self.usage = usage
        self.predictions = dict(predictions)
        self.findings = findings
        self.empties = empties
        self.empties_socs = empties_socs  # the SoC dirs the next start empties
        # A recorded measurement (CacheMeasurement.recorded: a support bundle's) has no usage or
        # predictions, only the document it was written as.
        self.record = record

    @property
    def max_mb(self) -> int:
        return int(self.max_e.value)

    @property
    def ratio(self) -> int:
        return int(self.ratio_e.value)

    def soc_empties(self, name: str) -> Empties | None:
        """Why the next start empties SoC dir `name`, or None."""
        return self.empties if name in self.empties_socs else None

    @property
    def exists(self) -> bool:
        """The kernel_cache dir existed when it was measured."""
        if self.record is not None:
            return bool(self.record.get("exists"))
        return self.usage is not None

    @property
    def stopped(self) -> bool:
        """The walk stopped before the end (a support bundle's time limit): sizes cover part of the cache."""
        if self.record is not None:
            return bool(self.record.get("stopped"))
        return self.usage is not None and self.usage.stopped

    @property
    def prediction_stopped(self) -> bool:
        """The walk is complete but some SoC dir has no prediction (it was cut at a time limit)."""
        doc = self.document()
        return doc["exists"] and not doc["stopped"] and any(s.get("cleanup") is None for s in doc["socs"].values())

    def soc_sizes(self) -> dict[str, tuple[str, int]]:
        """Each SoC dir's (path, CANN's size of it), as empties_findings takes them."""
        return {name: (str(soc.get("path") or f"{str(self.kernel_cache).rstrip('/')}/{name}"), soc.get("cann_bytes") or 0)
                for name, soc in self.document()["socs"].items()}

    def with_empties(self, empties: Empties | None, soc_version: str | None,
                     findings: Iterable[Finding] = ()) -> "CacheMeasurement":
        """The same measurement with "the next start empties" decided again (a bundle: from the
        op_cache.ini and versions it carries, with the limits resolved where it is read), and
        `findings` shown with it (limit_findings, as measure_cache's caller gives them)."""
        sizes = self.soc_sizes()
        socs = emptied_socs(sizes, soc_version) if empties is not None else ()
        kept = [f for f in self.findings if not f.code.startswith("cache-next-start-empties-")]
        added = empties_findings(empties, sizes, soc_version) if empties is not None else []
        shown = sort_findings(one_finding_per_cause(unique_findings([*findings, *kept, *added])))
        return CacheMeasurement(self.kernel_cache, self.dir_info, self.max_e, self.ratio_e, self.usage,
                                self.predictions, shown, empties, socs, record=self.record)

    def facts(self, max_mb: int | None = None) -> CacheFacts:
        """The measurement as the shared cleanup findings read it (app.opcache.cleanup.facts_findings),
        judged against `max_mb` (default: the measurement's own limit). Built from the document, so
        a recorded measurement (a bundle) and a live one give the same findings for the same facts."""
        doc = self.document()
        fs = doc["filesystem"] or {}
        other = doc["other"] or {}
        users = doc.get("other_users") or {}
        unreadable = doc["unreadable"] or []
        others = doc["other_filesystems"] or []
        where = str(self.kernel_cache)
        socs = []
        for name, soc in doc["socs"].items():
            c = soc.get("cleanup")
            if c is None:
                continue
            socs.append(SocFacts(name, str(soc.get("path") or f"{where.rstrip('/')}/{name}"), bool(c.get("ageing")),
                                 bool(c.get("triggers")), c.get("used_bytes") or 0, c.get("max_bytes"),
                                 c.get("target_bytes") or 0, c.get("delete_bytes") or 0, bool(c.get("target_reached")),
                                 c.get("delete_groups") or 0, c.get("kept_recent_groups") or 0, bool(c.get("stopped")),
                                 c.get("unparsed_jsons") or 0, soc.get("first_unparsed_json"),
                                 c.get("unread_jsons") or 0, soc.get("first_unread_json"), c.get("atime_rule"),
                                 c.get("read_saved_groups") or 0))
        options = fs.get("options")
        uids = users.get("uids")
        symlinks = [other.get("symlinks"), *(soc.get("symlinks") for soc in doc["socs"].values())]
        return CacheFacts(
            kernel_cache=where, max_mb=self.max_mb if max_mb is None else max_mb, stopped=bool(doc["stopped"]),
            files=(doc["totals"] or {}).get("files") or 0, free_bytes=fs.get("free_bytes"),
            nfs_problem=fs.get("nfs_lock_problem"), mount_point=fs.get("mount_point"), fs_type=fs.get("type"),
            mount_options=",".join(options) if options is not None else None,
            other_users_files=users.get("files") or 0,
            other_uids=", ".join(str(u) for u in uids) if uids is not None else None,
            unreadable=doc.get("unreadable_count") or len(unreadable),
            first_unreadable=unreadable[0].get("path") if unreadable else None,
            first_unreadable_reason=unreadable[0].get("reason") if unreadable else None,
            other_filesystems=doc.get("other_filesystems_count") or len(others),
            first_other_filesystem=others[0] if others else None,
            symlinks=sum(n or 0 for n in symlinks), socs=tuple(socs))

    def soc_lines(self, lang: str | None, indent: str = "") -> list[str]:
        """Each measured SoC dir as `scan` and `diagnose` both print it: its sizes and share of the
        limit, then what CANN's next start does to it (one text for every view of the cache, live
        or recorded in a bundle: it is written from the document)."""
        from cann_config.app.i18n import pick
        from cann_config.app.textsafe import terminal_text
        from cann_config.app.units import format_count

        def label(code: str, **params: Any) -> str:
            return pick(make_finding(code, **params).text, lang)

        out: list[str] = []
        for name, soc in sorted(self.document(lang)["socs"].items()):
            c = soc.get("cleanup")
            row = f"{indent}{terminal_text(name)}: " + label(
                "scan-label-soc", files=format_count(soc.get("files") or 0),
                apparent=human_bytes(soc.get("apparent_bytes") or 0),
                allocated=human_bytes(soc.get("allocated_bytes") or 0), cann=human_bytes(soc.get("cann_bytes") or 0))
            percent = percent_of_limit(bool(c.get("ageing")), c.get("used_bytes") or 0, c.get("max_bytes")) if c else None
            if percent is not None:  # one decimal below 10 %, so a small cache does not read as 0 %
                row += label("scan-label-of-limit", percent=f"{percent:.0f}" if percent >= 10 else f"{percent:.1f}")
            out.append(row)
            empties = self.soc_empties(name)
            if empties is not None:
                follow = label("scan-label-empties", size=human_bytes(soc.get("cann_bytes") or 0),
                               reason=label(f"scan-label-empties-{empties.reason}"))
            elif c is None:
                follow = label("scan-label-not-predicted")
            elif not c.get("ageing"):
                follow = label("scan-label-no-ageing")
            elif not c.get("triggers"):
                follow = label("scan-label-no-cleanup")
            else:
                follow = label("scan-label-cleanup", target=human_bytes(c.get("target_bytes") or 0),
                               groups=format_count(c.get("delete_groups") or 0),
                               deleted=human_bytes(c.get("delete_bytes") or 0),
                               recent=format_count(c.get("kept_recent_groups") or 0))
            out.append(f"{indent}    {follow}")
        return out

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        """The `scan --json` document (stable keys; texts in `lang`)."""
        data = self.document(lang)
        # The keys added later come last (`scan --json`'s key order is part of its contract).
        added = {key: data.pop(key, None) for key in ADDED_KEYS}
        data["findings"] = [f.to_json(lang) for f in self.findings]
        data["next_start_empties"] = None if self.empties is None else {
            **self.empties.to_json(), "socs": list(self.empties_socs)}
        data.update(added)
        for name, soc in data["socs"].items():
            empties = self.soc_empties(name)
            soc["empties_at_next_start"] = None if empties is None else {"reason": empties.reason,
                                                                         "bytes": soc.get("cann_bytes") or 0}
        return data

    def document(self, lang: str | None = None) -> dict[str, Any]:
        """The measurement's facts as `to_json` writes them, without the findings and "the next
        start empties" (which to_json adds from this object): a recorded measurement's record."""
        if self.record is not None:
            return copy.deepcopy(dict(self.record))
        usage = self.usage
        data: dict[str, Any] = {
            "kernel_cache": str(self.kernel_cache),
            "exists": usage is not None,
            "cache_dir": dict(self.dir_info),
            "limits": _limits_json(self.max_e, self.ratio_e, lang),
            "filesystem": None,
            "socs": {},
            "other": None,
            "totals": {"files": 0, "dirs": 0, "apparent_bytes": 0, "allocated_bytes": 0},
            "unreadable": [],
            "other_filesystems": [],
            "elapsed_seconds": 0.0,
            "stopped": False,
            # added for issue 24 item 1 (what a support bundle's cache needs to give the same
            # findings without its file lists): counts beside the lists, other users' files
            "unreadable_count": 0,
            "other_filesystems_count": 0,
            "other_users": {"files": 0, "uids": []},
        }
        if usage is None:
            return data
        mount = usage.mount
        data["filesystem"] = {
            "type": mount.fs_type if mount else None,
            "mount_point": mount.mount_point if mount else None,
            "options": list(mount.options) if mount else [],
            "free_bytes": usage.free_bytes,
            "size_bytes": usage.fs_size_bytes,
            "nfs_lock_problem": nfs_lock_problem(mount),  # added for issue 24 item 1
        }
        for name, soc in sorted(usage.socs.items()):
            pred = self.predictions.get(name)
            data["socs"][name] = {
                "path": str(soc.path),
                "files": soc.files,
                "dirs": soc.dirs,
                "apparent_bytes": soc.apparent_bytes,
                "allocated_bytes": soc.allocated_bytes,
                "cann_bytes": soc.cann_bytes,
                "hard_links": soc.hard_links,
                "symlinks": soc.symlinks,
                "other_users_files": soc.other_users_files,
                "limit_source": self.max_e.source,
                "cleanup": pred.to_json() if pred is not None else None,
                # the whole SoC dir goes at the next start (None: only the cleanup above applies)
                "empties_at_next_start": None,
                # added for issue 24 item 1: the first json the findings name (never a list)
                "first_unparsed_json": pred.bad_json[0] if pred is not None and pred.bad_json else None,
                "first_unread_json": pred.not_read[0] if pred is not None and pred.not_read else None,
            }
        top = usage.top
        data["other"] = {"files": top.files, "dirs": top.dirs, "apparent_bytes": top.apparent_bytes,
                         "allocated_bytes": top.allocated_bytes, "symlinks": top.symlinks}
        data["totals"] = {"files": usage.files, "dirs": usage.dirs, "apparent_bytes": usage.apparent_bytes,
                          "allocated_bytes": usage.allocated_bytes}
        data["unreadable"] = [{"path": p, "reason": r} for p, r in usage.unreadable]
        data["other_filesystems"] = list(usage.other_fs)
        data["elapsed_seconds"] = round(usage.elapsed, 3)
        data["stopped"] = usage.stopped
        data["unreadable_count"] = len(usage.unreadable)
        data["other_filesystems_count"] = len(usage.other_fs)
        data["other_users"] = {"files": usage.other_users_files, "uids": sorted(usage.other_uids)}
        return data

    @classmethod
    def recorded(cls, doc: Mapping[str, Any]) -> "CacheMeasurement":
        """A measurement as its document recorded it (a support bundle's `cache`, read back by
        app.support.bundle, which checks every key's type first): the same answers - limits,
        soc_lines, findings, to_json - as the live measurement it was written from."""
        record = {key: value for key, value in doc.items() if key in DOCUMENT_KEYS}
        for key, default in (("filesystem", None), ("socs", {}), ("other", None), ("unreadable", []),
                             ("other_filesystems", []), ("elapsed_seconds", 0.0), ("stopped", False)):
            if record.get(key) is None:
                record[key] = default
        if record.get("totals") is None:
            record["totals"] = {"files": 0, "dirs": 0, "apparent_bytes": 0, "allocated_bytes": 0}
        limits = record.get("limits") or {}
        max_e, ratio_e = _effective_of(limits.get(MAX_SIZE)), _effective_of(limits.get(REMAIN_RATIO))
        record["limits"] = _limits_json(max_e, ratio_e, None) | {
            MAX_SIZE: limits.get(MAX_SIZE), REMAIN_RATIO: limits.get(REMAIN_RATIO)}
        empties, socs = None, ()
        recorded_empties = record.get("next_start_empties")
        if isinstance(recorded_empties, Mapping) and recorded_empties.get("reason"):
            differs = tuple((d.get("key") or "?", d.get("value") or "", d.get("installed") or "?", d.get("line"))
                            for d in recorded_empties.get("differs") or () if isinstance(d, Mapping))
            get = recorded_empties.get
            empties = Empties(str(get("reason")), get("key"), get("value"), get("installed"), get("file"), get("line"),
                              differs)
            socs = tuple(recorded_empties.get("socs") or ())
        measured = cls(Path(str(record.get("kernel_cache") or "")), record.get("cache_dir") or {}, max_e, ratio_e,
                       None, {}, [], empties, socs, record=record)
        found: list[Finding] = []
        if not measured.exists:
            found.append(make_finding("scan-no-cache", file=str(measured.kernel_cache), path=str(measured.kernel_cache)))
        else:
            found += facts_findings(measured.facts())
            if empties is not None:  # the SoC dirs it names, each with its recorded size
                sizes = {n: size for n, size in measured.soc_sizes().items() if n in socs}
                found += empties_findings(empties, sizes, None)
        measured.findings = sort_findings(found)
        return measured


def _effective_of(entry: object) -> Effective:
    """An Effective back from its `to_json` (a recorded measurement's limits)."""
    if not isinstance(entry, Mapping):
        return Effective(None, "default")  # type: ignore[arg-type]  # a document without limits
    detail = entry.get("detail")
    value: Any = entry.get("value")  # an int once app.support.bundle has checked the document
    return Effective(value, str(entry.get("source") or "default"), entry.get("file"), entry.get("line"),
                     entry.get("variable"), {"en": detail, "zh": detail} if isinstance(detail, str) else None)


def candidates_from(kernel_cache: Path, max_mb: int) -> int | None:
    """From which CANN size of a SoC dir the walk gathers its cleanup candidates (scan_cache).

    CANN cleans a SoC dir only when its size is >= max (docs/cann/op-cache.md#cleanup), so a
    SoC dir below max needs no candidate, and with ageing off none does. Whether a SoC dir can
    reach max is known before the walk from its filesystem: the files counted by their size
    occupy the filesystem, so when the filesystem holds less than max (a limit set far above
    the cache), no SoC dir can reach it and the walk gathers a SoC dir's candidates only from
    the moment it does anyway (sparse or hard-linked files), listing the dirs walked before
    again. Otherwise the candidates are gathered from the start, in the same single pass
    (listing a SoC dir twice costs about half its walk again).
    """
    if max_mb == AGEING_OFF:
        return None
    max_bytes = max_mb * CANN_MB
    try:
        vfs = os.statvfs(kernel_cache)
    except OSError:
        return max_bytes
    return 0 if (vfs.f_blocks - vfs.f_bfree) * vfs.f_frsize >= max_bytes else max_bytes


def _walk(kernel_cache: Path, candidates: int | None, pool: ScanPool | None = None) -> CacheUsage:
    usage = None
    for item in scan_cache(kernel_cache, candidates_from=candidates, splitter=pool):
        usage = item.usage
    assert usage is not None
    return usage


def _predict(usage: CacheUsage, max_mb: int, ratio: int, pool: ScanPool | None = None) -> dict[str, CleanupPrediction]:
    threads = pool.workers if pool is not None else 1
    return {name: predict_cleanup(soc, max_mb, ratio, threads=threads) for name, soc in usage.socs.items()}


def measure_cache(kernel_cache: Path, dir_info: Mapping[str, Any], max_e: Effective, ratio_e: Effective, *,
                  findings: Iterable[Finding] = (), empties: Empties | None = None, soc_version: str | None = None,
                  walk: Callable[[Path, int | None], CacheUsage] | None = None,
                  predict: Callable[[CacheUsage, int, int], dict[str, CleanupPrediction]] | None = None,
                  workers: int | None = None) -> CacheMeasurement:
    """Walk `kernel_cache`, predict CANN's next cleanup of each SoC dir with the effective limits
    `max_e`/`ratio_e`, and gather the findings (`findings`: those of the limits' resolution the
    caller wants shown with it). A kernel_cache that does not exist is an empty, valid cache
    (finding `scan-no-cache`); one that cannot be opened raises InputError (exit 2).

    `empties` (next_start_empties) marks the SoC dirs the next start empties: `soc_version`'s
    when the device is known (it is the one that starts), else every SoC dir of the cache.
    `walk` and `predict` replace the plain walk and prediction (a terminal's progress line).
    `workers`: the processes the plain walk and prediction share the work among (app.opcache.parallel;
    default `worker_count()`: the free cores); the answer does not depend on it.
    """
    found = list(findings)
    max_mb, ratio = int(max_e.value), int(ratio_e.value)
    usage: CacheUsage | None = None
    predictions: dict[str, CleanupPrediction] = {}
    empties_socs: tuple[str, ...] = ()
    # Unreadable is not "no cache yet": a kernel_cache that cannot be looked at is InputError.
    if input_is_dir(kernel_cache) is None:
        found.append(make_finding("scan-no-cache", file=str(kernel_cache), path=str(kernel_cache)))
    else:
        # The walk and the prediction make one object per candidate and group, none in a cycle
        # (app/collector.py); frozen at the end, so that no later pass walks them (a first pass
        # over an over-limit cache's groups cost ~70 ms, on leaving this block).
        own = walk is None or predict is None  # a caller's walk and prediction bring their own pool
        with collector_paused(freeze=True), scan_pool(workers if own else 1) as pool:
            start = candidates_from(kernel_cache, max_mb)
            usage = walk(kernel_cache, start) if walk is not None else _walk(kernel_cache, start, pool)
            predictions = predict(usage, max_mb, ratio) if predict is not None else _predict(usage, max_mb, ratio, pool)
        found += cache_findings(usage, predictions, max_mb)
        if empties is not None:
            sizes = {n: (str(soc.path), soc.cann_bytes) for n, soc in usage.socs.items()}
            empties_socs = emptied_socs(sizes, soc_version)
            found += empties_findings(empties, sizes, soc_version)
    return CacheMeasurement(kernel_cache, dir_info, max_e, ratio_e, usage, predictions,
                            sort_findings(one_finding_per_cause(found)), empties, empties_socs)
