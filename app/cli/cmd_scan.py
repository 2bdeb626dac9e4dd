"""`cann-config scan [--cache-dir DIR] [--json]`: what the op cache holds and what CANN deletes next.

Per SoC dir: files, apparent and allocated bytes (the same totals as `du -sbx` / `du -sxB1`),
CANN's own size count against the effective limit (with where the limit comes from), the keep
threshold, and the groups CANN's cleaner would delete at the next compiler start (app/opcache/cleanup.py).

The cache dir: `--cache-dir` (a base dir or its kernel_cache); without it, as CANN resolves it
from this environment (app/opcache/resolution.py: `ASCEND_CACHE_PATH` › `$HOME/atc_data`, or torch_npu's
`ACL_OP_COMPILER_CACHE_DIR` when the environment says PyTorch). The limits: op_cache.ini in
kernel_cache › environment › defaults, as CANN reads them.

Exit status (docs/architecture.md#exit-status): 0, also when there is no cache yet (a resolved or given base dir
without a kernel_cache is a valid, empty cache); 1 when op_cache.ini has error findings (e.g.
CANN ignores it, so the limits shown are not the ones written there; the scan's own findings
are never errors); 2 when `--cache-dir` does not exist or is not a directory, or the cache
dir cannot be opened. A progress line goes to stderr during long
scans, only when stderr is a terminal.

No time limit: `scan` is the complete measurement (the one a partial support bundle tells the
customer to run), so neither the walk nor the cleanup prediction is cut short. Both report
progress on a terminal instead - the prediction reads kernel jsons and can take seconds on a
large cache - and Ctrl-C ends the command (exit 130). `cann-config collect --scan-seconds N` is
the bounded variant.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from cann_config.app.errors import InputError
from cann_config.app.findings import Finding, has_errors, make_finding, severity_column, severity_word
from cann_config.app.i18n import current_language, pick
from cann_config.app.io.inputfiles import input_exists, input_is_dir
from cann_config.app.opcache.cachedir import INI_NAME, kernel_cache_of, resolve_cache_dir
from cann_config.app.opcache.cleanup import CleanupPrediction, predict_cleanup
from cann_config.app.opcache.ini import installed_op_cache_versions, read_op_cache_ini
from cann_config.app.opcache.measurement import (
    MAX_SIZE,
    REMAIN_RATIO,
    CacheMeasurement,
    candidates_from,  # noqa: F401 - part of this module's interface (tests, bench_scan)
    limit_findings,
    measure_cache,
    next_start_empties,
)
from cann_config.app.opcache.parallel import ScanPool, scan_pool
from cann_config.app.opcache.resolution import CHOSEN_SOURCES, Effective, environment_framework, resolve_settings
from cann_config.app.opcache.scanner import CacheUsage, ScanProgress, scan_cache
from cann_config.app.textsafe import json_text, terminal_text
from cann_config.app.textwidth import pad
from cann_config.app.units import CANN_MB, format_count, human_bytes

# Findings of the limit resolution that explain the limit shown (the rest is `diagnose`'s job).
PROGRESS_AFTER_SECONDS = 0.3
PROGRESS_EVERY_SECONDS = 0.1


DESCRIPTION = ("Measure <cache dir>/kernel_cache per SoC directory (files, apparent and on-disk bytes, "
               "hard links once, symlinks not followed, one filesystem), compare it with the effective "
               "max_op_cache_size and remain_cache_size_ratio, and show what CANN would delete at the "
               "next compiler start.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `cann-config scan` (app/cli/__init__.py creates the parser)."""
    add_cache_dir_argument(p)
    p.add_argument("--json", action="store_true", help="print JSON (keys and codes never change with --lang)")


def add_cache_dir_argument(p: argparse.ArgumentParser) -> None:
    """`--cache-dir DIR`, as `scan` and `clean` take it."""
    p.add_argument("--cache-dir", metavar="DIR",
                   help="the cache base dir (as op_compiler_cache_dir / ASCEND_CACHE_PATH name it), or its "
                        "kernel_cache (default: as CANN resolves it from this environment)")


def given_kernel_cache(cache_dir: str) -> Path:
    """The kernel_cache of a `--cache-dir` the user gave; InputError when it is no directory."""
    given = Path(cache_dir)
    is_dir = input_is_dir(given)
    if is_dir is None:
        raise InputError.from_code("scan-error-no-such-dir", given)
    if not is_dir:
        raise InputError.from_code("scan-error-not-dir-option", given)
    return kernel_cache_of(given)


def _label(code: str, lang: str, **params: Any) -> str:
    return make_finding(code, **params).message(lang)


def _limit_source(effective: Effective) -> str:
    """`op_cache.ini:4`, `env ASCEND_MAX_OP_CACHE_SIZE`, `default`."""
    if effective.source == "op_cache.ini":
        return f"op_cache.ini:{effective.line}" if effective.line else "op_cache.ini"
    if effective.source == "env" and effective.variable:
        return f"env {effective.variable}"
    if effective.source in CHOSEN_SOURCES and effective.file:
        return effective.file if effective.line is None else f"{effective.file}:{effective.line}"
    return effective.source


class _Progress:
    """A one-line, self-overwriting progress report on a terminal's stderr."""

    def __init__(self, stream: TextIO, lang: str):
        self.stream = stream
        self.lang = lang
        self.shown = False
        self.last = float("-inf")

    def update(self, item: ScanProgress) -> None:
        if item.done or item.elapsed < PROGRESS_AFTER_SECONDS:
            return
        text = _label("scan-label-progress", self.lang, files=format_count(item.files),
                      bytes=human_bytes(item.apparent_bytes), seconds=f"{item.elapsed:.1f}")
        self.stream.write("\r" + text + "\x1b[K")
        self.stream.flush()
        self.shown = True

    def predicting(self, groups: int, elapsed: float) -> None:
        """The cleanup prediction has read `groups` json groups in `elapsed` seconds."""
        if elapsed < PROGRESS_AFTER_SECONDS or elapsed - self.last < PROGRESS_EVERY_SECONDS:
            return
        self.last = elapsed
        text = _label("scan-label-progress-cleanup", self.lang, groups=format_count(groups), seconds=f"{elapsed:.1f}")
        self.stream.write("\r" + text + "\x1b[K")
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _terminal_progress(lang: str) -> _Progress | None:
    stream = sys.stderr
    return _Progress(stream, lang) if stream is not None and stream.isatty() else None


def _scan(kernel_cache: Path, lang: str, start: int | None, pool: ScanPool | None = None) -> CacheUsage:
    progress = _terminal_progress(lang)
    usage = None
    try:
        for item in scan_cache(kernel_cache, candidates_from=start, splitter=pool):
            if progress is not None:
                progress.update(item)
            usage = item.usage
    finally:
        if progress is not None:
            progress.clear()
    assert usage is not None
    return usage


def _predict(usage: CacheUsage, max_mb: int, ratio: int, lang: str,
             pool: ScanPool | None = None) -> dict[str, CleanupPrediction]:
    """CANN's next cleanup for every SoC dir, in full (see the module docstring: no time limit).

    On a terminal the prediction tells after each step how many json groups it has gone through
    (`progress`: the steps stay at their largest); nothing is asked. The jsons are read in as many
    threads as the pool has processes (the free cores, app.opcache.parallel.worker_count).
    """
    progress = _terminal_progress(lang)
    started = time.monotonic()
    done = 0  # the groups of the SoC dirs predicted before
    last = 0

    def shown(count: int) -> None:
        nonlocal last
        last = count
        if progress is not None:
            progress.predicting(done + count, time.monotonic() - started)

    try:
        predictions = {}
        for name, soc in usage.socs.items():
            last = 0
            predictions[name] = predict_cleanup(soc, max_mb, ratio, threads=pool.workers if pool is not None else 1,
                                                progress=shown if progress is not None else None)
            done += last
        return predictions
    finally:
        if progress is not None:
            progress.clear()


def report_text(measured: CacheMeasurement, dir_how: str, lang: str) -> str:
    """The readable report."""
    kernel_cache, usage = measured.kernel_cache, measured.usage
    max_e, ratio_e, findings = measured.max_e, measured.ratio_e, measured.findings
    lines = [_label("scan-label-cache", lang, path=kernel_cache) + (f"  ({dir_how})" if dir_how else "")]
    if usage is not None:
        lines.append(_label("scan-label-filesystem", lang, type=usage.fs_type or "?",
                            mount=usage.mount.mount_point if usage.mount else "?",
                            free=human_bytes(usage.free_bytes) if usage.free_bytes is not None else "?"))
    if max_e.value == -1:
        lines.append(_label("scan-label-limit-off", lang, max_source=_limit_source(max_e)))
    else:
        max_bytes = int(max_e.value) * CANN_MB
        lines.append(_label("scan-label-limit", lang, limit=human_bytes(max_bytes), max_mb=max_e.value,
                            max_source=_limit_source(max_e), keep=human_bytes(max_bytes * int(ratio_e.value) // 100),
                            ratio=ratio_e.value, ratio_source=_limit_source(ratio_e)))
    if usage is not None:
        lines.append("")
        if not usage.socs:
            lines.append(_label("scan-label-no-socs", lang))
        lines += measured.soc_lines(lang)
        top = usage.top
        lines.append(_label("scan-label-other", lang, files=format_count(top.files), apparent=human_bytes(top.apparent_bytes),
                            allocated=human_bytes(top.allocated_bytes)))
        lines.append(_label("scan-label-total", lang, files=format_count(usage.files),
                            apparent=human_bytes(usage.apparent_bytes), apparent_exact=format_count(usage.apparent_bytes),
                            allocated=human_bytes(usage.allocated_bytes),
                            allocated_exact=format_count(usage.allocated_bytes), seconds=f"{usage.elapsed:.2f}"))
    if findings:
        lines.append("")
        lines.append(_label("scan-label-findings", lang))
        column = severity_column(lang)
        for f in findings:
            # the code is a stable token, as in `diagnose`; the severity word is in `lang`
            where = f"  [{f.where()}]" if f.where() and f.code != "scan-no-cache" else ""
            lines.append(f"  {pad(severity_word(f.severity, lang), column)} {f.code}: {f.message(lang)}{where}")
            if f.fix:
                lines.append(" " * (2 + column + 1) + f"→ {f.fix_text(lang)}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    lang = current_language()
    environ = os.environ
    if args.cache_dir:
        kernel_cache = given_kernel_cache(args.cache_dir)
        dir_info: dict[str, Any] = {"source": "option", "variable": "--cache-dir", "base": str(Path(args.cache_dir)),
                                    "how": "--cache-dir"}
        dir_how = "--cache-dir"
    else:
        # The dir as resolve_settings resolves it (it does not depend on op_cache.ini, which lives
        # inside it), without resolving everything twice.
        cache_dir = resolve_cache_dir(environment_framework(environ), "", environ)
        kernel_cache = cache_dir.kernel_cache
        dir_info = cache_dir.to_json(lang)
        dir_how = pick(cache_dir.how, lang)

    found: list[Finding] = []
    ini = None
    ini_path = kernel_cache / INI_NAME
    missing_ini = None  # CANN creates it at the next start, emptying the SoC dir
    try:
        if input_exists(ini_path):
            ini = read_op_cache_ini(ini_path)
        else:
            missing_ini = str(ini_path)
    except InputError as exc:
        found.append(make_finding("scan-ini-unreadable", file=str(ini_path), reason=exc))
    installed = installed_op_cache_versions() or None
    resolution = resolve_settings(ini=ini, environ=environ, installed_versions=installed)
    max_e = resolution.effective[MAX_SIZE]
    ratio_e = resolution.effective[REMAIN_RATIO]
    found += limit_findings(resolution.findings, list(ini.findings) if ini is not None else [])
    mode = resolution.effective.get("op_compiler_cache_mode")
    empties = next_start_empties(ini, installed, mode.value if mode is not None else None, missing_ini=missing_ini)
    # The walk and the prediction shared among the free cores (app/opcache/parallel.py).
    with scan_pool() as pool:
        measured = measure_cache(kernel_cache, dir_info, max_e, ratio_e, findings=found, empties=empties,
                                 walk=lambda path, start: _scan(path, lang, start, pool),
                                 predict=lambda usage, max_mb, ratio: _predict(usage, max_mb, ratio, lang, pool))
    if args.json:
        print(json_text(json.dumps(measured.to_json(lang), ensure_ascii=False, indent=2)))
    else:
        # SoC directory names are whatever is on disk: no control character reaches the terminal.
        print(terminal_text(report_text(measured, dir_how, lang), one_line=False))
    return 1 if has_errors(measured.findings) else 0
