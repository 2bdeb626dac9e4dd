"""`cann-config collect [-o FILE]`: a support bundle from this host, for support staff to diagnose.

It runs on a bare server (no PySide6: this module imports only the core), takes a few seconds
(npu-smi within its time budget, the cache walk stopped after `--scan-seconds`), writes one JSON
file atomically, and tells the customer where it is, what it found, and that they can read it
before sending it (what goes in and what never does: app/support/bundle.py). Without `-o` the file is
`cann-config-bundle-<date>-<time>.json` in the current directory (never an existing file);
`-o -` prints the bundle instead.

Exit status: 0 when the bundle was written (also on a host without an Ascend device: the bundle
says so); 2 when it cannot be written.
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path
from typing import Any

from cann_config.app.errors import UsageError
from cann_config.app.findings import make_finding
from cann_config.app.i18n import current_language, pick
from cann_config.app.io.outputfiles import is_stdout
from cann_config.app.support.bundle import bundle_from_json, bundle_variables, default_bundle_name, write_bundle
from cann_config.app.support.collect_host import DEFAULT_SCAN_SECONDS, collect_bundle
from cann_config.app.textsafe import terminal_text
from cann_config.app.units import human_bytes

# app.support.collect_host.DEFAULT_SCAN_SECONDS, named here so that building the parser imports no core module
# (a test keeps the two equal).
SCAN_SECONDS_SHOWN = 20.0


DESCRIPTION = ("Gather what support needs to diagnose this host's CANN cache and memory configuration into "
               "one JSON file: the npu-smi output, the installed CANN / driver / TF Adapter versions, the "
               "environment variables this tool reads (no others), op_cache.ini, and the cache's sizes and "
               "counts (no file lists). Read it before you send it.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `cann-config collect` (app/cli/__init__.py creates the parser)."""
    p.add_argument("-o", "--output", metavar="FILE",
                   help="where to write the bundle (default: cann-config-bundle-<date>-<time>.json here; "
                        "'-' prints it)")
    p.add_argument("--force", action="store_true", help="replace FILE even when it is read-only")
    p.add_argument("--hostname", action="store_true",
                   help="also record this host's name (left out by default: support does not need it)")
    p.add_argument("--log", metavar="FILE",
                   help="also take the lines of the last NPU memory errors from this log (only those lines)")
    p.add_argument("--scan-seconds", metavar="N", type=float, default=None,
                   help=f"stop measuring the cache and predicting its cleanup after N seconds (default {SCAN_SECONDS_SHOWN:g}); "
                        "the bundle then says what is partial")


def _text(code: str, lang: str, **params: Any) -> str:
    return pick(make_finding(code, **params).text, lang)


def _free_name(directory: Path, name: str) -> Path:
    """`name` in `directory`, or name-2, name-3, ... when taken: never overwrite a file the user
    did not name."""
    candidate = directory / name
    stem, suffix = candidate.stem, candidate.suffix
    number = 2
    while candidate.exists():
        candidate = directory / f"{stem}-{number}{suffix}"
        number += 1
    return candidate


def run(args: argparse.Namespace) -> int:
    scan_seconds = DEFAULT_SCAN_SECONDS if args.scan_seconds is None else args.scan_seconds
    if not (scan_seconds >= 0 and math.isfinite(scan_seconds)):  # `inf` would be written as Infinity
        raise UsageError.from_code("support-error-scan-seconds")
    lang = current_language()
    memory_errors = None
    if args.log:
        # Read first: an unusable log is exit 2 before any work (app/triage/bundled.py).
        from cann_config.app.triage.bundled import memory_error_section

        memory_errors = memory_error_section(args.log, os.environ, set(bundle_variables()))
    data = collect_bundle(scan_seconds=scan_seconds, include_hostname=args.hostname)
    if memory_errors is not None:
        data["memory_errors"] = memory_errors[0]
        data["left_out"].extend(memory_errors[1])
    if args.output and is_stdout(args.output):
        write_bundle(data, args.output)
        return 0
    path = Path(args.output) if args.output else _free_name(Path.cwd(), default_bundle_name())
    written = write_bundle(data, path, force=args.force)

    size = human_bytes(written.stat().st_size)
    bundle = bundle_from_json(data, str(written))
    names = bundle_variables()
    hostname = _text("support-label-collect-hostname", lang) if args.hostname else ""
    print(_text("support-label-collect-wrote", lang, path=written, size=size))
    print(terminal_text(bundle.summary(lang)))
    print(_text("support-label-collect-review", lang, count=len(names), names=", ".join(names), hostname=hostname))
    return 0
