"""`cann-config clean [--cache-dir DIR] [--keep-mb MB] [--yes] [--json]`: delete what CANN means to.

CANN's own cleanup often deletes nothing on Linux: its read refreshes the access times it then
re-checks (docs/cann/op-cache.md#access-time-re-check). This command deletes the groups CANN
means to delete (app/opcache/clean.py): by default it only lists them (a dry run, the same list
`scan`'s prediction shows on a `noatime` mount); with `--yes` it deletes them under CANN's own
lock, `<SoC dir>/op_cache_file_del.lock`, and says what it freed.

The cache dir and the limits are resolved as `scan` resolves them (op_cache.ini in kernel_cache
› environment › defaults); `--keep-mb MB` deletes down to MB instead of max x ratio / 100.

Exit status (docs/architecture.md#exit-status): 0 a dry run, or everything deleted; 1 CANN's lock
of a SoC dir is held by another process (nothing is deleted anywhere), or a file could not be
deleted; 2 bad usage, or a cache dir that cannot be read.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from cann_config.app.cli.cmd_scan import add_cache_dir_argument, given_kernel_cache
from cann_config.app.collector import collector_paused
from cann_config.app.errors import InputError
from cann_config.app.findings import make_finding
from cann_config.app.i18n import current_language
from cann_config.app.io.inputfiles import input_exists, input_is_dir
from cann_config.app.opcache.cachedir import INI_NAME, resolve_cache_dir
from cann_config.app.opcache.clean import CleanResult, LockHeld, canns_delete_lock, delete_groups
from cann_config.app.opcache.cleanup import CleanupPrediction, predict_cleanup
from cann_config.app.opcache.ini import read_op_cache_ini
from cann_config.app.opcache.measurement import MAX_SIZE, REMAIN_RATIO
from cann_config.app.opcache.resolution import environment_framework, resolve_settings
from cann_config.app.opcache.scanner import scan_to_end
from cann_config.app.textsafe import json_text, terminal_text
from cann_config.app.units import format_count, human_bytes

DESCRIPTION = ("Delete what CANN's cache cleaner means to delete from each SoC directory of <cache dir>/kernel_cache: "
               "the oldest-used kernel groups, never one used in the last 30 minutes, down to max_op_cache_size x "
               "remain_cache_size_ratio (CANN's own cleanup often deletes nothing: its read refreshes the access "
               "times it checks). Without --yes it only lists them; with --yes it deletes them under CANN's own lock.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `cann-config clean` (app/cli/__init__.py creates the parser)."""
    add_cache_dir_argument(p)
    p.add_argument("--keep-mb", type=_keep_mb, metavar="MB",
                   help="delete down to MB (CANN's MB: 1048576 bytes) instead of max_op_cache_size x "
                        "remain_cache_size_ratio / 100")
    p.add_argument("--yes", action="store_true", help="delete the listed files (default: only list them)")
    p.add_argument("--json", action="store_true", help="print JSON (keys and codes never change with --lang)")


def _keep_mb(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of MB: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more: {text!r}")
    return value


def _label(code: str, lang: str, **params: Any) -> str:
    return make_finding(code, **params).message(lang)


def _kernel_cache(args: argparse.Namespace) -> Path:
    if not args.cache_dir:
        environ = os.environ
        return resolve_cache_dir(environment_framework(environ), "", environ).kernel_cache
    return given_kernel_cache(args.cache_dir)


def _limits(kernel_cache: Path) -> tuple[int, int]:
    """(max_op_cache_size, remain_cache_size_ratio) as CANN resolves them (as `scan` does)."""
    ini = None
    ini_path = kernel_cache / INI_NAME
    try:
        if input_exists(ini_path):
            ini = read_op_cache_ini(ini_path)
    except InputError:
        ini = None  # CANN cannot use it either; `scan` and `diagnose` say why
    effective = resolve_settings(ini=ini, environ=os.environ).effective
    return int(effective[MAX_SIZE].value), int(effective[REMAIN_RATIO].value)


def plan(kernel_cache: Path, max_mb: int, ratio: int, keep_mb: int | None) -> dict[str, CleanupPrediction]:
    """What CANN means to delete from each SoC dir: its prediction with the keys alone."""
    with collector_paused():
        usage = scan_to_end(kernel_cache, candidates_from=0)
        if keep_mb is not None:
            max_mb, ratio = keep_mb, 100  # keep = keep_mb x 100 / 100
        return {name: predict_cleanup(soc, max_mb, ratio, atime_rule="noatime")
                for name, soc in sorted(usage.socs.items())}


def run(args: argparse.Namespace) -> int:
    lang = current_language()
    kernel_cache = _kernel_cache(args)
    if input_is_dir(kernel_cache) is None:
        message = _label("clean-no-cache", lang, path=kernel_cache)
        print(json_text(json.dumps({"kernel_cache": str(kernel_cache), "dry_run": not args.yes, "socs": {},
                                    "lock_held": None}, indent=2)) if args.json else terminal_text(message))
        return 0
    max_mb, ratio = _limits(kernel_cache)
    predictions = plan(kernel_cache, max_mb, ratio, args.keep_mb)
    results: dict[str, CleanResult] = {}
    held: LockHeld | None = None
    if args.yes:
        todo = {name: pred for name, pred in predictions.items() if pred.delete}
        try:
            with ExitStack() as locks:
                # Every lock first: while any SoC dir is being cleaned by someone else, nothing is deleted.
                for name in todo:
                    locks.enter_context(canns_delete_lock(str(kernel_cache / name)))
                for name, pred in todo.items():
                    results[name] = delete_groups(str(kernel_cache / name), pred.delete)
        except LockHeld as exc:
            held = exc
    if args.json:
        print(json_text(json.dumps(_report_json(kernel_cache, predictions, results, args.yes, held),
                                   ensure_ascii=False, indent=2)))
    else:
        print(terminal_text(_report_text(kernel_cache, predictions, results, args.yes, held, lang), one_line=False))
    if held is not None:
        print(terminal_text(_label("clean-lock-held", lang, path=held.path, reason=held.reason)), file=sys.stderr)
        return 1
    return 1 if any(r.failed for r in results.values()) else 0


def _report_json(kernel_cache: Path, predictions: dict[str, CleanupPrediction], results: dict[str, CleanResult],
                 yes: bool, held: LockHeld | None) -> dict[str, Any]:
    socs: dict[str, Any] = {}
    for name, pred in predictions.items():
        result = results.get(name)
        socs[name] = {
            "path": str(kernel_cache / name),
            "cleanup": pred.to_json(),
            "groups": [g.to_json() for g in pred.delete],
            "result": None if result is None else {
                "deleted_groups": result.deleted_groups, "deleted_files": result.deleted_files,
                "freed_bytes": result.freed_bytes, "changed": list(result.changed_groups),
                "failed": [{"path": p, "reason": r} for p, r in result.failed]},
        }
    return {"kernel_cache": str(kernel_cache), "dry_run": not yes, "socs": socs,
            "lock_held": None if held is None else held.path}


def _report_text(kernel_cache: Path, predictions: dict[str, CleanupPrediction], results: dict[str, CleanResult],
                 yes: bool, held: LockHeld | None, lang: str) -> str:
    lines = [_label("scan-label-cache", lang, path=kernel_cache)]
    for name, pred in predictions.items():
        used = human_bytes(pred.used_bytes)
        if not pred.ageing:
            lines.append(_label("clean-label-no-ageing", lang, soc=name, used=used))
            continue
        if not pred.triggers:
            lines.append(_label("clean-label-under", lang, soc=name, used=used, limit=human_bytes(pred.max_bytes or 0)))
            continue
        lines.append(_label("clean-label-soc", lang, soc=name, used=used, target=human_bytes(pred.target_bytes),
                            keep=human_bytes(pred.keep_threshold_bytes or 0)))
        lines.append("  " + _label("clean-label-would", lang, groups=format_count(len(pred.delete)),
                                   bytes=human_bytes(pred.counted_bytes)))
        lines += ["    " + group.json_path for group in pred.delete]
        result = results.get(name)
        if result is not None:
            lines.append("  " + _label("clean-label-deleted", lang, groups=format_count(result.deleted_groups),
                                       files=format_count(result.deleted_files), freed=human_bytes(result.freed_bytes)))
            if result.changed_groups:
                lines.append("  " + _label("clean-label-changed", lang, count=format_count(len(result.changed_groups))))
            lines += ["  " + _label("clean-label-failed", lang, path=p, reason=r) for p, r in result.failed]
    if not yes and any(pred.delete for pred in predictions.values()):
        lines.append("")
        lines.append(_label("clean-label-dry-run", lang))
    elif held is not None:
        lines.append("")
        lines.append(_label("clean-label-nothing-deleted", lang))
    return "\n".join(lines)

