"""`cann-config diagnose`: the values CANN will use for the op cache, their sources, and why.

Exit status (docs/architecture.md#exit-status): 0 no error findings, 1 error findings, 2 unusable input or bad usage.
Without `--env-file` the environment is this shell's; with it, only the file's assignments.
Without `--env-file` (and `--bundle`) the op_cache.ini version lines are also checked against the
CANN installed on this host; with it they are not: the file is a customer's, read on a support
machine whose CANN need not be theirs (app/diagnosis.py).
"""

from __future__ import annotations

import argparse
import importlib.util

from cann_config.app.cli.choices import LazyChoices
from cann_config.app.errors import UsageError, explain
from cann_config.app.i18n import current_language


def _frameworks() -> list[str]:
    from cann_config.app.catalog import load_catalog

    return list(load_catalog().frameworks)


def register(subparsers: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = subparsers.add_parser(
        "diagnose", parents=[common], help="show the op cache values CANN will use, where they come from, and why",
        description="Read op_cache.ini, an env file and a script as CANN would, and show the effective "
                    "max_op_cache_size, remain_cache_size_ratio, op_compiler_cache_mode and op_compiler_cache_dir "
                    "with their sources, and every finding. Exit 1 when there are error findings.")
    p.add_argument("--ini", metavar="FILE", help="the op_cache.ini to read (default: <cache dir>/kernel_cache/op_cache.ini)")
    p.add_argument("--env-file", metavar="FILE",
                   help="read `export NAME=value` lines as the environment (instead of this shell's)")
    if importlib.util.find_spec("cann_config.app.io.importers") is not None:
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
    p.add_argument("--json", action="store_true", help="print JSON (keys and codes never change with --lang)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import json

    from cann_config.app.device.table import device_from_choice
    from cann_config.app.support.diagnosis import diagnose

    device = None
    if args.device:
        try:
            device = device_from_choice(args.device)
        except ValueError as exc:
            raise UsageError.from_code("core-cli-device-invalid", detail=explain(exc)) from None
    if getattr(args, "bundle", None) or getattr(args, "report", None):
        from cann_config.app.support.report import run_diagnose_command

        return run_diagnose_command(args, device)
    result = diagnose(ini_path=args.ini, env_file=args.env_file, script=getattr(args, "script", None),
                      device=device, cache_dir=args.cache_dir, framework=args.framework)
    lang = current_language()
    if args.json:
        print(json.dumps(result.to_json(lang), ensure_ascii=False, indent=2))
    else:
        print(result.to_text(lang))
    return 1 if result.has_errors() else 0
