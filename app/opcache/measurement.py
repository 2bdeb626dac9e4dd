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
    next_start_empties(ini, installed_versions, mode) -> Empties | None
    empties_findings(empties, socs, soc_version) -> list[Finding]
    limit_findings(resolution_findings, ini_findings) -> list[Finding]   shown with the limits   (a bundle's recorded sizes too)
    measure_cache(kernel_cache, dir_info, max_e, ratio_e, *, findings=(), empties=None,
                  soc_version=None, walk=None, predict=None) -> CacheMeasurement
    CacheMeasurement: kernel_cache, dir_info, max_e, ratio_e, usage, predictions, findings, empties,
        .to_json(lang) (the scan --json document), .soc_lines(lang, indent) (scan's and diagnose's
        text per SoC dir), .soc_empties(name)
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from cann_config.app.collector import collector_paused
from cann_config.app.findings import Finding, make_finding, sort_findings
from cann_config.app.io.inputfiles import input_is_dir
from cann_config.app.opcache.cleanup import AGEING_OFF, CleanupPrediction, cache_findings, predict_cleanup
from cann_config.app.opcache.ini import VERSION_KEYS, OpCacheIni
from cann_config.app.opcache.parallel import ScanPool, scan_pool
from cann_config.app.opcache.resolution import Effective
from cann_config.app.opcache.scanner import CacheUsage, scan_cache
from cann_config.app.units import CANN_MB, human_bytes

MAX_SIZE = "max_op_cache_size"
REMAIN_RATIO = "remain_cache_size_ratio"
EMPTIES_VERSIONS = "versions-differ"
EMPTIES_FORCE = "force"


class Empties(NamedTuple):
    """Why the next compiler start empties the SoC cache dir (docs/cann/op-cache.md#version-lines)."""

    reason: str  # EMPTIES_VERSIONS | EMPTIES_FORCE
    key: str | None = None  # the version key that differs
    value: str | None = None  # its value in op_cache.ini (as CANN reads it, a CR kept)
    installed: str | None = None  # the installed CANN's value
    file: str | None = None
    line: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"reason": self.reason, "key": self.key, "value": self.value, "installed": self.installed,
                "file": self.file, "line": self.line}


def next_start_empties(ini: OpCacheIni | None, installed_versions: Mapping[str, str] | None,
                       mode: object) -> Empties | None:
    """Whether CANN empties the SoC cache dir at the next compiler start, and why.

    Mode `force` deletes the cache first (docs/cann/op-cache.md#mode). Otherwise CANN compares the
    version lines of the op_cache.ini it uses with the installed CANN and empties the SoC dir when
    one differs (docs/cann/op-cache.md#version-lines; `te_cache_space_manager.cc`); a file that does
    not count (no version lines, a foreign section) is ignored, and with no installed versions
    known nothing can be compared. A CR kept at the end of a CRLF file's value makes it differ.
    """
    if mode == "force":
        return Empties(EMPTIES_FORCE)
    if mode == "disable" or ini is None or not ini.counts or not installed_versions:
        return None
    values = ini.values_as_cann_reads()
    for key in VERSION_KEYS:
        entry = values.get(key)
        wanted = installed_versions.get(key)
        if entry is not None and wanted and entry.value != wanted:
            return Empties(EMPTIES_VERSIONS, key, entry.value, wanted, ini.source, entry.line)
    return None


def _empties_finding(empties: Empties, soc: str, soc_dir: str, size: int) -> Finding:
    if empties.reason == EMPTIES_FORCE:
        return make_finding("cache-next-start-empties-force", file=soc_dir, soc=soc, soc_dir=soc_dir,
                            size=human_bytes(size))
    return make_finding("cache-next-start-empties-versions", file=soc_dir, soc=soc, soc_dir=soc_dir,
                        size=human_bytes(size), key=empties.key, value=(empties.value or "").rstrip("\r"),
                        installed=empties.installed, ini=empties.file or "op_cache.ini")


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
                 empties: Empties | None = None, empties_socs: tuple[str, ...] = ()) -> None:
        self.kernel_cache = kernel_cache
        self.dir_info = dict(dir_info)
        self.max_e = max_e
        self.ratio_e = ratio_e
        self.usage = usage
        self.predictions = dict(predictions)
        self.findings = findings
        self.empties = empties
        self.empties_socs = empties_socs  # the SoC dirs the next start empties

    @property
    def max_mb(self) -> int:
        return int(self.max_e.value)

    @property
    def ratio(self) -> int:
        return int(self.ratio_e.value)

    def soc_empties(self, name: str) -> Empties | None:
        """Why the next start empties SoC dir `name`, or None."""
        return self.empties if name in self.empties_socs else None

    def soc_lines(self, lang: str | None, indent: str = "") -> list[str]:
        """Each measured SoC dir as `scan` and `diagnose` both print it: its sizes and share of the
        limit, then what CANN's next start does to it (one text for every view of the cache)."""
        from cann_config.app.i18n import pick
        from cann_config.app.textsafe import terminal_text
        from cann_config.app.units import format_count

        def label(code: str, **params: Any) -> str:
            return pick(make_finding(code, **params).text, lang)

        out: list[str] = []
        for name, soc in sorted(self.usage.socs.items()) if self.usage is not None else ():
            pred = self.predictions[name]
            row = f"{indent}{terminal_text(name)}: " + label(
                "scan-label-soc", files=format_count(soc.files), apparent=human_bytes(soc.apparent_bytes),
                allocated=human_bytes(soc.allocated_bytes), cann=human_bytes(soc.cann_bytes))
            if pred.percent_of_limit is not None:
                percent = pred.percent_of_limit  # one decimal below 10 %, so a small cache does not read as 0 %
                row += label("scan-label-of-limit", percent=f"{percent:.0f}" if percent >= 10 else f"{percent:.1f}")
            out.append(row)
            empties = self.soc_empties(name)
            if empties is not None:
                follow = label("scan-label-empties", size=human_bytes(soc.cann_bytes),
                               reason=label(f"scan-label-empties-{empties.reason}"))
            elif not pred.ageing:
                follow = label("scan-label-no-ageing")
            elif not pred.triggers:
                follow = label("scan-label-no-cleanup")
            else:
                follow = label("scan-label-cleanup", target=human_bytes(pred.target_bytes),
                               groups=format_count(len(pred.delete)), deleted=human_bytes(pred.counted_bytes),
                               recent=format_count(len(pred.kept_recent)))
            out.append(f"{indent}    {follow}")
        return out

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        """The `scan --json` document (stable keys; texts in `lang`)."""
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
            "findings": [f.to_json(lang) for f in self.findings],
            # added for issue 24: why the next start empties SoC dirs outright, and which
            "next_start_empties": None if self.empties is None else {
                **self.empties.to_json(), "socs": list(self.empties_socs)},
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
        }
        for name, soc in sorted(usage.socs.items()):
            pred = self.predictions.get(name)
            empties = self.soc_empties(name)
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
                "empties_at_next_start": None if empties is None else {"reason": empties.reason,
                                                                       "bytes": soc.cann_bytes},
            }
        top = usage.top
        data["other"] = {"files": top.files, "dirs": top.dirs, "apparent_bytes": top.apparent_bytes,
                         "allocated_bytes": top.allocated_bytes}
        data["totals"] = {"files": usage.files, "dirs": usage.dirs, "apparent_bytes": usage.apparent_bytes,
                          "allocated_bytes": usage.allocated_bytes}
        data["unreadable"] = [{"path": p, "reason": r} for p, r in usage.unreadable]
        data["other_filesystems"] = list(usage.other_fs)
        data["elapsed_seconds"] = round(usage.elapsed, 3)
        data["stopped"] = usage.stopped
        return data


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
    return {name: predict_cleanup(soc, max_mb, ratio, pool=pool) for name, soc in usage.socs.items()}


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
        # (app/collector.py).
        own = walk is None or predict is None  # a caller's walk and prediction bring their own pool
        with collector_paused(), scan_pool(workers if own else 1) as pool:
            start = candidates_from(kernel_cache, max_mb)
            usage = walk(kernel_cache, start) if walk is not None else _walk(kernel_cache, start, pool)
            predictions = predict(usage, max_mb, ratio) if predict is not None else _predict(usage, max_mb, ratio, pool)
        found += cache_findings(usage, predictions, max_mb)
        if empties is not None:
            sizes = {n: (str(soc.path), soc.cann_bytes) for n, soc in usage.socs.items()}
            empties_socs = emptied_socs(sizes, soc_version)
            found += empties_findings(empties, sizes, soc_version)
    return CacheMeasurement(kernel_cache, dir_info, max_e, ratio_e, usage, predictions, sort_findings(found),
                            empties, empties_socs)
