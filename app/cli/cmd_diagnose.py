"""`cann-config diagnose`: the values CANN will use for the op cache, their sources, and why.

Exit status (docs/architecture.md#exit-status): 0 no error findings, 1 error findings, 2 unusable input or bad usage.
Without `--env-file` the environment is this shell's; with it, only the file's assignments.
Without `--env-file` (and `--bundle`) the op_cache.ini version lines are also checked against the
CANN installed on this host; with it they are not: the file is a customer's, read on a support
machine whose CANN need not be theirs (app/support/diagnosis.py).

Both paths ask the Host (app/support/host.py): on this host (no `--env-file`) the diagnosis
carries the cache measured here, the same object `scan --json` prints (`cache` in the JSON).

With `--bundle` the bundle's op_cache.ini, environment and device are used, and the report (text,
or `--json`) includes the cleanup prediction and the suggested fixes (app/support/report.py);
`--device`, `--framework` and `--script` still apply. `--report FILE` also writes that report.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cann_config.app.catalog import load_catalog
from cann_config.app.cli.choices import LazyChoices
from cann_config.app.device.table import DeviceInfo, device_from_choice
from cann_config.app.errors import Message, UsageError, explain
from cann_config.app.i18n import current_language
from cann_config.app.support.host import host_from_bundle, this_host
from cann_config.app.textsafe import json_text


def _frameworks() -> list[str]:
    return list(load_catalog().frameworks)


DESCRIPTION = ("Read op_cache.ini, an env file and a script as CANN would, and show the effective "
               "max_op_cache_size, remain_cache_size_ratio, op_compiler_cache_mode and op_compiler_cache_dir "
               "with their sources, and every finding. Exit 1 when there are error findings.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `cann-config diagnose` (app/cli/__init__.py creates the parser)."""
    p.add_argument("--ini", metavar="FILE", help="the op_cache.ini to read (default: <cache dir>/kernel_cache/op_cache.ini)")
    p.add_argument("--env-file", metavar="FILE",
                   help="read `export NAME=value` lines as the environment (instead of this shell's)")
    p.add_argument("--script", metavar="FILE", help="a training script whose settings to include (read, never run)")
    p.add_argument("--device", metavar="SOC", help="the SoC version (e.g. Ascend910B3) or series id the job runs on")
    p.add_argument("--cache-dir", metavar="DIR",
                   help="the cache base dir (as op_compiler_cache_dir / ASCEND_CACHE_PATH name it), or its kernel_cache")
    p.add_argument("--framework", metavar="ID", choices=LazyChoices(_frameworks),
                   help="one of: %(choices)s (default: from the script or the environment)")
    p.add_argument("--bundle", metavar="FILE",
                   help="a support bundle from 'cann-config collect': its op_cache.ini, environment and device "
                        "(not combined with --ini, --env-file, --cache-dir)")
    p.add_argument("--report", metavar="FILE.md|FILE.html",
                   help="also write a report for a ticket, Markdown or HTML by the file name, in --lang")
    p.add_argument("--force", action="store_true", help="replace the --report file even when it is read-only")
    p.add_argument("--json", action="store_true", help="print JSON (keys and codes never change with --lang)")


def run(args: argparse.Namespace) -> int:
    device = None
    if args.device:
        try:
            device = device_from_choice(args.device)
        except ValueError as exc:
            raise UsageError.from_code("core-cli-device-invalid", detail=explain(exc)) from None
    if args.bundle or args.report:
        return _run_report(args, device)
    host = this_host(cache_dir=args.cache_dir, device=device)
    result = host.diagnosis(ini_path=args.ini, env_file=args.env_file, script=args.script, framework=args.framework)
    lang = current_language()
    # The same fixes as the report and the wizard (app/support/fixes.py), only those that pass their
    # check: planned before anything is printed, so that a finding whose fix fails says why in the
    # text and the JSON alike. With nothing to fix the exporters are not even imported
    # (tests/bench/bench_cli.py).
    versions = (host.installed_versions if args.env_file is None else None) or None
    fixes: dict[str, Any] = {"suggested_changes": [], "suggested_profile": None, "suggested_exports": []}
    if result.has_fixes(versions):
        from cann_config.app.support.fixes import fixes_json

        fixes = fixes_json(result, versions, lang)
    if args.json:
        data = result.to_json(lang)
        data.update(fixes)
        print(json_text(json.dumps(data, ensure_ascii=False, indent=2)))
    else:
        print(result.to_text(lang))
    return 1 if result.has_errors() else 0


def _run_report(args: argparse.Namespace, device: DeviceInfo | None) -> int:
    """The `--bundle` / `--report` path: the diagnosis as a support report (module docstring)."""
    # Imported for this path only: the bundle reader and the report renderer (and the exporters
    # they use) would double the start-up of a plain `diagnose` (tests/bench/bench_cli.py).
    from cann_config.app.support.bundle import load_bundle
    from cann_config.app.support.report import make_report, render_text, report_format, write_report

    if args.report:
        report_format(args.report)  # refuse a wrong extension before doing any work
    bundle = None
    if args.bundle:
        clash = [flag for flag, value in (("--ini", args.ini), ("--env-file", args.env_file),
                                          ("--cache-dir", args.cache_dir)) if value]
        if clash:
            raise UsageError.from_code("support-error-bundle-clash", flags=", ".join(clash))
        bundle = load_bundle(args.bundle)
        result = host_from_bundle(bundle).diagnosis(framework=args.framework, device=device, script=args.script)
    else:
        result = this_host(cache_dir=args.cache_dir, device=device).diagnosis(
            ini_path=args.ini, env_file=args.env_file, script=args.script, framework=args.framework)
    lang = current_language()
    report = make_report(result, bundle)
    if args.report:
        # The report is the output asked for: written to its file, and one line says where
        # (with --json the JSON stays on stdout, the contract, and the line goes to stderr).
        written = write_report(args.report, report, lang, force=args.force)
        line = Message("support-label-report-written", path=written).text(lang)
        if args.json:
            print(json_text(json.dumps(report.to_json(lang), ensure_ascii=False, indent=2)))
            print(line, file=sys.stderr)
        else:
            print(line)
    elif args.json:
        print(json_text(json.dumps(report.to_json(lang), ensure_ascii=False, indent=2)))
    elif bundle is not None:
        print(render_text(report, lang), end="")
    else:
        print(result.to_text(lang))
    return 1 if result.has_errors() else 0
