"""`cann-config export FORMAT`: the choices as a snippet, env file, op_cache.ini or profile.

    cann-config export FORMAT [--profile FILE] [--set ID=VALUE ...] [--device SOC|SERIES]
                       [--framework ID] [--ini EXISTING] [--add-versions]
                       [--adk-version V --ops-version V] [--changed-only] [-o FILE]

Without `-o` the export goes to stdout; with it, the file is written atomically and only when
the export succeeded. Without `--framework` and `--profile`, a format made for one framework
implies it (tf2 -> tf2, ge-options -> ge); otherwise the framework is tf1.

Exit status (docs/architecture.md#exit-status):
    0  written;
    1  a choice was refused: the device or framework cannot take it (huge pages on Ascend310P3,
       a memory option for PyTorch), or (op-cache-ini) CANN would ignore the file written: no
       version lines known, a foreign section, a BOM before the header, CR-only line ends. The
       reasons go to stderr and nothing is written (no file, no backup, nothing on stdout);
    2  bad usage or unreadable input, one line on stderr. This includes a format that does not
       fit the framework (tf2 with --framework pytorch): the command line asks for something
       that does not exist, before any choice is looked at, like an unknown format would.
op-cache-ini writes a file CANN uses or nothing (app.opcache.ini_save.plan_ini_save): both
size values, and the version lines a new or edited file lacks, from --adk-version/--ops-version,
else from the CANN installed here (--add-versions: those, or exit 2 when not found); with none
known it exits 1 and names those flags and the environment route (env-bash). `-o` onto an
existing op_cache.ini without `--ini` edits that file as `--ini` would, never replaces it.

Warnings (the catalog's notes on a chosen value, a choice this format cannot carry) go to stderr
and do not change the exit status.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from pathlib import Path

from cann_config.app.catalog import load_catalog
from cann_config.app.cli.choices import LazyChoices
from cann_config.app.device.table import DeviceInfo, device_from_choice
from cann_config.app.errors import InputError, UsageError, explain
from cann_config.app.findings import sort_findings
from cann_config.app.i18n import current_language
from cann_config.app.io.exporters import export_text, format_fits, text_of
from cann_config.app.io.exporters.files import write_export
from cann_config.app.io.formats import FORMATS, INI_FORMAT, formats_for, framework_for_format
from cann_config.app.io.outputfiles import is_stdout
from cann_config.app.opcache.ini import installed_op_cache_versions, read_op_cache_ini, save_op_cache_ini
from cann_config.app.profile import DEFAULT_FRAMEWORK, Profile, load_profile

PROG = "cann-config"


def _frameworks() -> list[str]:
    return list(load_catalog().frameworks)


DESCRIPTION = ("Write the choices in one export FORMAT: code for the top of a training script, an env file or a "
               "launch script for the job's environment, an op_cache.ini, a profile, or for many machines an "
               "Ansible playbook or a Kubernetes ConfigMap (each format's language, file and where it takes effect: "
               "docs/architecture.md#export-formats). Exit 1 when a choice is refused for the device or framework; "
               "2 for bad usage, including a format the framework does not take.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `cann-config export` (app/cli/__init__.py creates the parser)."""
    p.add_argument("format", choices=FORMATS, metavar="FORMAT", help="one of: %(choices)s")
    p.add_argument("--profile", metavar="FILE", help="start from a saved profile (JSON)")
    p.add_argument("--set", dest="settings", action="append", default=[], metavar="ID=VALUE",
                   help="choose a value (repeatable), e.g. --set static_memory_policy=2")
    p.add_argument("--device", metavar="SOC", help="an SoC version (Ascend910B3) or a series id (atlas-a2)")
    p.add_argument("--framework", choices=LazyChoices(_frameworks), metavar="ID", help="one of: %(choices)s")
    p.add_argument("--ini", metavar="EXISTING",
                   help="op-cache-ini: rewrite this op_cache.ini, changing only the values chosen")
    p.add_argument("--add-versions", action="store_true",
                   help="op-cache-ini: add adk_version and ops_version of the CANN installed here (exit 2 if not found)")
    p.add_argument("--adk-version", metavar="V",
                   help="op-cache-ini: adk_version of the CANN that will read the file (<toolkit>/compiler/version.info)")
    p.add_argument("--ops-version", metavar="V",
                   help="op-cache-ini: ops_version of the CANN that will read the file ($ASCEND_OPP_PATH/version.info)")
    p.add_argument("--changed-only", action="store_true", help="only what differs from the defaults")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    p.add_argument("--force", action="store_true", help="replace FILE even when it is read-only")


def _apply_setting(profile: Profile, item: str) -> Profile:
    option_id, sep, text = item.partition("=")
    option_id = option_id.strip()
    if not sep or not option_id:
        raise UsageError.from_code("export-error-set-syntax", item=item)

    catalog = load_catalog()
    if option_id not in catalog.options:
        raise UsageError.from_code("export-error-set-unknown", option=option_id, known=", ".join(catalog.options))
    try:
        value = catalog.options[option_id].parse_typed(text)
    except ValueError as exc:
        raise UsageError.from_code("export-error-set-invalid", detail=explain(exc)) from None
    return profile.with_value(option_id, value)


def build_profile(args: argparse.Namespace) -> tuple[Profile, DeviceInfo | None]:
    """The Profile the command line describes (--profile, then --framework, --device, --set), and
    the device as chosen by hand when --device is given (so reasons say "chosen by hand")."""

    profile = load_profile(args.profile) if args.profile else Profile()
    if args.framework:
        framework = args.framework
    elif args.profile:
        framework = profile.framework
    else:
        framework = framework_for_format(args.format) or DEFAULT_FRAMEWORK
    device = profile.device
    info = None
    if args.device:
        try:
            info = device_from_choice(args.device)
        except ValueError as exc:
            raise UsageError.from_code("core-cli-device-invalid", detail=explain(exc)) from None
        device = args.device.strip()
    profile = replace(profile, framework=framework, device=device)
    for item in args.settings:
        profile = _apply_setting(profile, item)
    return profile, info


def _same_file(a: str, b: str) -> bool:
    """Whether `-o` names the `--ini` that was read, also when that file is gone by now (so the
    save refuses to create it again instead of writing a new file)."""
    try:
        if os.path.samefile(a, b):
            return True
    except OSError:
        pass
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def run(args: argparse.Namespace) -> int:
    profile, device = build_profile(args)
    fmt = args.format
    if not format_fits(fmt, profile.framework):
        raise UsageError.from_code("export-error-format-framework", format=fmt, framework=profile.framework,
                                   formats=", ".join(formats_for(profile.framework)))
    given = {"adk_version": args.adk_version, "ops_version": args.ops_version}
    if (args.ini or args.add_versions or any(given.values())) and fmt != INI_FORMAT:
        raise UsageError.from_code("export-error-ini-flags")
    if any(given.values()) and not all(given.values()):
        raise UsageError.from_code("export-error-versions-pair")
    existing = None
    ini_path = args.ini
    if ini_path is None and fmt == INI_FORMAT and args.output and os.path.lexists(args.output):
        # Never replace an existing op_cache.ini with the template: edit it as --ini would (or
        # refuse, exit 2, when it cannot be read as one).
        ini_path = args.output
    if ini_path:
        existing = read_op_cache_ini(ini_path)
    versions: dict[str, str] | None = None
    if all(given.values()):
        versions = {k: str(v) for k, v in given.items()}
    elif fmt == INI_FORMAT:
        versions = installed_op_cache_versions()
        if args.add_versions and len(versions) < 2:
            raise InputError.from_code("export-error-versions-not-found")
    result = export_text(profile, fmt, changed_only=args.changed_only, existing_ini=existing, ini_versions=versions,
                         environ=os.environ,
                         device=device)
    for finding in sort_findings(result.findings):
        if finding.severity in ("error", "warning"):
            where = f"{finding.where()}: " if finding.where() else ""
            severity = text_of(f"export-severity-{finding.severity}", current_language())
            print(f"{PROG}: {severity}: {where}{finding.message()}", file=sys.stderr)
    if any(f.code == "cache-ini-save-without-versions" for f in result.findings):
        print(f"{PROG}: {text_of('cli-export-versions-hint', current_language())}", file=sys.stderr)
    if result.refused:
        # Nothing is written, not even a backup: a refused choice, or an op_cache.ini CANN would ignore.
        print(f"{PROG}: {text_of('export-text-nothing-exported', current_language())}", file=sys.stderr)
        return 1
    if args.output and not is_stdout(args.output):
        if existing is not None and _same_file(args.output, ini_path):
            saved = save_op_cache_ini(args.output, result.data, existing.original, force=args.force)
            if not saved.written:
                print(text_of("cli-export-unchanged", current_language(), path=args.output))
            elif saved.backup:
                print(text_of("cli-export-wrote-backup", current_language(), path=args.output, backup=saved.backup))
            else:
                print(text_of("cli-export-wrote", current_language(), path=args.output))
        else:
            write_export(Path(args.output), result.data, force=args.force)
            print(text_of("cli-export-wrote", current_language(), path=args.output))
        return 0
    sys.stdout.flush()
    sys.stdout.buffer.write(result.data)
    sys.stdout.buffer.flush()
    return 0
