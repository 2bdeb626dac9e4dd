"""Suggested fixes: the one source of what to change so that every fixable finding goes away.

Why this module exists: the report, `diagnose --json` (`suggested_changes`, `suggested_profile`,
`suggested_exports`) and the wizard (Apply suggested fixes, the Export preview it leads to) must
show the same fix. They all ask these functions; nothing else derives a fix.

A finding may carry a `suggestion` ({option id: value}, app/findings.py). Each becomes a
`SuggestedChange` with the export format that applies it where the value is really decided:
op-cache-ini for a value op_cache.ini sets (or a finding about that file), env-bash for a value the
environment sets, otherwise the framework's own format (the catalog's `exports`). When op_cache.ini
lacks its version lines and the customer's installed versions are known (from a bundle), adding
them is suggested too (docs/cann/op-cache.md#version-lines: CANN 8.5+ ignores the file without
them - an inference from the source). Some fixes remove a variable instead: both
PYTORCH_NPU_ALLOC_CONF and PYTORCH_ALLOC_CONF set is fixed by `unset PYTORCH_ALLOC_CONF`
(docs/cann/torch-npu.md#both-variables). `suggested_profile()` is the customer's effective values
with every suggestion applied: what the wizard opens with to apply the fixes.

Checked by the same rules before they are shown: `recheck()` applies the suggested exports to the
inputs as written (op-cache-ini into kernel_cache/op_cache.ini, env-bash lines into the job's
environment) and diagnoses again; the fixes are right when no fixed error is left and no new
warning appears (tests/app/support/test_fixes.py runs it over every fixture and bundle). A fix
never sets expandable_segments:True beside max_split_size_mb or garbage_collection_threshold
without replacing them: torch_npu stops at start with both (docs/cann/torch-npu.md#alloc-conf).

Public API:
    SuggestedChange, SuggestedExport
    suggested_changes(diagnosis, versions=None) -> list[SuggestedChange]
    suggested_profile(diagnosis, changes=None) -> Profile
    suggested_exports(diagnosis, changes, profile, versions=None, lang=None) -> list[SuggestedExport]
    option_in_effect(diagnosis, options, option_id) -> Value | None
    recheck(diagnosis, exports, *, versions=None) -> Diagnosis      (the inputs with the fixes applied)
    plan_fixes(diagnosis, versions=None) -> FixPlan   the fixes that pass recheck; what every view shows
    FixPlan: changes, profile, refused; .exports(lang), .to_json(lang)

Only fixes that pass `recheck` are shown (`plan_fixes`): applying every suggested fix to the inputs
and diagnosing again gives no error a fix was offered for, no new error and no new warning. A
finding whose fix fails that check is not offered one: its suggestion is dropped and its fix text
says why ("No single fix: ..."), in `diagnose`'s text and JSON, the report and the wizard alike.
The suggested profile is the configuration after the fixes, as the recheck resolves it (so the
wizard's Export preview after "Apply suggested fixes" shows what the report suggests).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cann_config.app.allocconf import (
    BOTH_VARIABLES_CODE,
    EXPANDABLE_CONFLICT_CODE,
    FALLBACK_VARIABLE,
    expandable_conflicts,
)
from cann_config.app.allocconf import VARIABLES as ALLOC_VARIABLES
from cann_config.app.catalog import Value, load_catalog
from cann_config.app.device.table import DeviceInfo, device_from_choice
from cann_config.app.errors import UsageError
from cann_config.app.findings import Finding, make_finding
from cann_config.app.i18n import current_language, normalize_language, pick
from cann_config.app.io.formats import ENV_FORMAT, INI_FORMAT, formats_for
from cann_config.app.opcache.ini import VERSION_KEYS, render_op_cache_ini
from cann_config.app.opcache.resolution import CHOSEN_SOURCES
from cann_config.app.profile import DEFAULT_FRAMEWORK, Profile
from cann_config.app.support.diagnosis import Diagnosis
from cann_config.app.textsafe import terminal_text

INI_NAME_KEY = "op_cache.ini"  # the key of a change that writes the whole file anew
# Findings whose fix removes a variable from the job's environment: code -> variable.
UNSET_FIXES = {BOTH_VARIABLES_CODE: FALLBACK_VARIABLE}
CONFLICT_CODE = EXPANDABLE_CONFLICT_CODE
NO_FIXES_JSON: dict[str, Any] = {"suggested_changes": [], "suggested_profile": None, "suggested_exports": []}
EXPANDABLE_ID = "npu_alloc_expandable_segments"


def _exporters() -> Any:
    # imported when a fix is made: a diagnosis with nothing to fix never pays for the exporters
    # (a plain `diagnose` stays fast, tests/bench/bench_cli.py)
    from cann_config.app.io import exporters

    return exporters


def fixes_json(diagnosis: Diagnosis, versions: Mapping[str, str] | None = None,
               lang: str | None = None) -> dict[str, Any]:
    """`suggested_changes`, `suggested_profile` and `suggested_exports` of `diagnose --json`
    (docs/architecture.md#json-output), only fixes that pass `recheck` (`plan_fixes`); empty
    lists and a null profile when nothing is to fix."""
    if not diagnosis.has_fixes(_versions(diagnosis, versions)):
        return NO_FIXES_JSON
    return plan_fixes(diagnosis, versions).to_json(lang)


def _t(code: str, lang: str, **params: Any) -> str:
    return pick(make_finding(code, **params).text, lang)


@dataclass(frozen=True)
class SuggestedChange:
    """One value to change, the finding it resolves, and the export format that applies it."""

    code: str
    key: str  # an option id, an op_cache.ini version key (adk_version, ops_version), or a variable to unset
    value: Value
    format: str
    file: str | None = None
    line: int | None = None
    unset: bool = False  # remove the variable `key` from the job's environment (env-bash `unset`)
    # op_cache.ini written anew (the customer's values in a file CANN reads), for a file whose form
    # makes CANN ignore it: a BOM, CR-only line ends, a foreign section, no section header.
    rewrite: bool = False

    def to_json(self) -> dict[str, Any]:
        data = {"finding": self.code, "option": self.key, "value": self.value, "format": self.format,
                "file": self.file, "line": self.line}
        if self.unset:
            data.update(option=None, variable=self.key, value=None, unset=True)
        if self.rewrite:
            data.update(option=None, value=None, rewrite=True)
        return data


@dataclass(frozen=True)
class SuggestedExport:
    format: str
    text: str
    findings: tuple[Finding, ...] = ()


def _framework(diagnosis: Diagnosis) -> str:
    framework = diagnosis.framework
    return framework if framework is not None and framework in load_catalog().frameworks else DEFAULT_FRAMEWORK


def _format_for(diagnosis: Diagnosis, finding: Finding, option_id: str,
                versions: Mapping[str, str] | None = None) -> str:
    """Where a suggested value belongs: where CANN decides that value now (docs/cann/op-cache.md#precedence:
    op_cache.ini › environment › default). A new op_cache.ini is suggested only when its version
    lines are known: without them CANN ignores it and the save is refused
    (docs/cann/op-cache.md#ignored-saves), so the environment carries the value instead."""
    catalog = load_catalog()
    option = catalog.options[option_id]
    framework = _framework(diagnosis)
    effective = diagnosis.effective.get(option_id)
    ini = diagnosis.ini
    about_ini = ini is not None and finding.file is not None and finding.file == ini.source
    if option.targets.ini and (about_ini or (effective is not None and effective.source == "op_cache.ini")):
        return INI_FORMAT
    if effective is not None and effective.source == "env" and (option.targets.env_for(framework)
                                                                  or _from_alloc_variable(option, effective)):
        return ENV_FORMAT
    new_ini_ignored = ini is None and not all((versions or {}).get(k) for k in VERSION_KEYS)
    if option.targets.ini:
        return ENV_FORMAT if new_ini_ignored and option.targets.env_for(framework) else INI_FORMAT
    for fmt in formats_for(framework):
        if fmt != "profile" and _exporters().carrier(fmt, option, framework) is not None:
            return fmt
    return "profile"


def _from_alloc_variable(option: Any, effective: Any) -> bool:
    """A torch_npu allocator option the environment sets through PYTORCH_NPU_ALLOC_CONF (or
    PYTORCH_ALLOC_CONF): the env file rewrites that variable whole (app/allocconf.py)."""
    return bool(option.targets.alloc_conf) and effective.variable in ALLOC_VARIABLES


def suggested_changes(diagnosis: Diagnosis, versions: Mapping[str, str] | None = None) -> list[SuggestedChange]:
    """Every finding's suggestion as a change (invalid suggestions are left out), plus the
    missing op_cache.ini version lines when `versions` (the installed ones) are known."""
    catalog = load_catalog()
    changes: list[SuggestedChange] = []
    for finding in diagnosis.findings:
        for key, value in finding.suggestion.items():
            option = catalog.options.get(key)
            if option is not None and option.check(value) is None:
                changes.append(SuggestedChange(finding.code, key, value, _format_for(diagnosis, finding, key, versions),
                                               finding.file, finding.line))
            elif key in VERSION_KEYS and isinstance(value, str) and value:
                changes.append(SuggestedChange(finding.code, key, value, INI_FORMAT, finding.file, finding.line))
    for finding in diagnosis.findings:
        variable = UNSET_FIXES.get(finding.code)
        if variable is not None and not any(c.unset and c.key == variable for c in changes):
            changes.append(SuggestedChange(finding.code, variable, "", ENV_FORMAT, finding.file, finding.line, True))
        elif finding.code == CONFLICT_CODE and not any(c.key == EXPANDABLE_ID for c in changes):
            # The customer's own expandable_segments:True beside max_split_size_mb (or the GC
            # threshold): the fix keeps their tuned keys and turns expandable segments off, as the
            # finding's text offers (docs/cann/torch-npu.md#alloc-conf).
            changes.append(SuggestedChange(finding.code, EXPANDABLE_ID, False,
                                           _format_for(diagnosis, finding, EXPANDABLE_ID, versions), finding.file, finding.line))
    changes += _file_form_changes(diagnosis, versions, changes)
    ini = diagnosis.ini
    if ini is not None and versions and not any(c.rewrite for c in changes):
        present = ini.values_as_cann_reads()
        missing_finding = next((f for f in diagnosis.findings if f.code == "cache-ini-missing-versions"), None)
        if missing_finding is not None:
            for key in VERSION_KEYS:
                if key not in present and versions.get(key) and not any(c.key == key for c in changes):
                    changes.append(SuggestedChange(missing_finding.code, key, versions[key], INI_FORMAT,
                                                   missing_finding.file, missing_finding.line))
    return changes


# A file of these forms is ignored by CANN whatever it holds (docs/cann/op-cache.md#reading-the-ini-file);
# the tool's writer refuses to edit it (docs/cann/op-cache.md#ignored-saves), so the fix is the file
# written anew with what the customer wrote in it.
FILE_FORM_CODES = ("cache-ini-bom-line1", "cache-ini-cr-line-ends", "cache-ini-foreign-section",
                   "cache-ini-no-section")
NOT_NUMBER_CODE = "cache-ini-value-not-number"
_INI_LINE = re.compile(r"\s*([A-Za-z_]+)\s*=\s*(.*?)\s*$")


def _meant_values(ini: Any) -> dict[str, Value]:
    """What the customer wrote in op_cache.ini, read as a person reads it: the keys of
    [op_compiler_cache] (or, with no such section, every `key=value` line), each value without
    surrounding quotes; a size that is no valid number, and a version line that is empty, are
    left out (the template's default, or the installed version, is written instead)."""
    catalog = load_catalog()
    section = ini.layout.section
    pairs: list[tuple[str, str]]
    if section is not None:
        pairs = [(e.key, e.value) for e in section.entries]
    else:
        pairs = [(m.group(1), m.group(2)) for line in ini.lines if (m := _INI_LINE.match(line.text.lstrip("\ufeff")))]
    meant: dict[str, Value] = {}
    for key, raw in pairs:
        value = raw.strip().strip("\"'").strip()
        if key in VERSION_KEYS and value and re.fullmatch(r"[0-9A-Za-z._-]+", value):
            meant[key] = value
        elif key in catalog.options and catalog.options[key].targets.ini and re.fullmatch(r"[0-9]+", value):
            number = int(value)
            if catalog.options[key].check(number) is None:
                meant[key] = number
    return meant


def _file_form_changes(diagnosis: Diagnosis, versions: Mapping[str, str] | None,
                       changes: Sequence[SuggestedChange]) -> list[SuggestedChange]:
    """The fixes of op_cache.ini's form: the file written anew (a BOM, CR-only line ends, a
    foreign section or no section header make CANN ignore it), offered when its version lines are
    known (the file's own, else the installed ones); a quoted size (`"800"`) written as the plain
    number CANN reads."""
    ini = diagnosis.ini
    if ini is None or not diagnosis.read_by_cann:
        return []
    out: list[SuggestedChange] = []
    form = [f for f in diagnosis.findings if f.code in FILE_FORM_CODES and f.file == ini.source]
    meant = _meant_values(ini)
    if form and all(meant.get(k) or (versions or {}).get(k) for k in VERSION_KEYS):
        for finding in form:
            if not any(c.code == finding.code for c in out):
                out.append(SuggestedChange(finding.code, INI_NAME_KEY, "", INI_FORMAT, finding.file, finding.line,
                                           rewrite=True))
        return out
    for finding in diagnosis.findings:
        if finding.code != NOT_NUMBER_CODE or finding.line is None or finding.file != ini.source:
            continue
        line = ini.line(finding.line)
        match = _INI_LINE.match(line.text) if line is not None else None
        if match is None or match.group(1) not in meant or any(c.key == match.group(1) for c in changes):
            continue
        out.append(SuggestedChange(finding.code, match.group(1), meant[match.group(1)], INI_FORMAT,
                                   finding.file, finding.line))
    return out


def _profile_device(device: DeviceInfo | None) -> str | None:
    for choice in (device.soc_version, device.series) if device else ():
        if choice:
            try:
                device_from_choice(choice)
            except ValueError:
                continue
            return choice
    return None


def suggested_profile(diagnosis: Diagnosis, changes: Sequence[SuggestedChange] | None = None) -> Profile:
    """The customer's effective values (those not at their default) with every suggestion applied.

    This is what the wizard opens with to review and export the fixes (docs/architecture.md#profile-format).
    """
    catalog = load_catalog()
    options: dict[str, Value] = {}
    for oid, effective in diagnosis.effective.items():
        option = catalog.options.get(oid)
        if option is not None and effective.source != "default" and option.check(effective.value) is None:
            options[oid] = effective.value
    changes = suggested_changes(diagnosis) if changes is None else changes
    for change in changes:
        if change.key in catalog.options and not change.unset:
            options[change.key] = change.value
    # Without changes this is the customer's configuration as it is (the wizard's starting
    # choices): a conflict there is shown as the error it is, never silently repaired.
    return Profile(framework=_framework(diagnosis), device=_profile_device(diagnosis.device),
                   options=_alloc_safe(options, changes) if changes else options)


def _alloc_safe(options: dict[str, Value], changes: Sequence[SuggestedChange]) -> dict[str, Value]:
    """Never expandable_segments:True beside max_split_size_mb or garbage_collection_threshold
    (torch_npu stops at start, docs/cann/torch-npu.md#alloc-conf): when a fix turns expandable
    segments on, the clashing keys are replaced (left at their default); otherwise expandable
    segments is turned off."""
    clashing = expandable_conflicts(options)
    if not clashing:
        return options
    if any(c.key == EXPANDABLE_ID and c.value is True for c in changes):
        return {oid: v for oid, v in options.items() if oid not in clashing}
    return {**options, EXPANDABLE_ID: False}


def option_in_effect(diagnosis: Diagnosis, options: Mapping[str, Value], option_id: str) -> Value | None:
    """The value the choices give the framework's option `option_id`, or None when the choice is
    only the customer's current value that CANN takes from elsewhere (ASCEND_CACHE_PATH for the
    cache dir, say): starting the wizard from a bundle does not turn an environment variable into
    an option, so the cache page names the source the bundle names (docs/cann/op-cache.md#base-directory)."""
    value = options.get(option_id)
    effective = diagnosis.effective.get(option_id)
    if value is None or (effective is not None and effective.value == value and effective.source not in CHOSEN_SOURCES):
        return None
    return value


def suggested_exports(diagnosis: Diagnosis, changes: Sequence[SuggestedChange], profile: Profile,
                      versions: Mapping[str, str] | None = None, lang: str | None = None) -> list[SuggestedExport]:
    """The files that apply `changes`: op_cache.ini edited in place (only the changed values; the
    one writer, app.opcache.ini), and for each other format named, the suggested profile as that
    format carries it (see `_profile_for`)."""
    exports: list[SuggestedExport] = []
    formats = list(dict.fromkeys(c.format for c in changes))
    if INI_FORMAT in formats:
        ini_changes = {c.key: c.value for c in changes if c.format == INI_FORMAT and not c.rewrite}
        result: SuggestedExport | None
        try:
            if diagnosis.ini is not None and any(c.rewrite for c in changes):
                meant = _meant_values(diagnosis.ini)
                wanted = {**{k: v for k, v in (versions or {}).items() if k in VERSION_KEYS}, **meant, **ini_changes}
                result = SuggestedExport(INI_FORMAT, render_op_cache_ini(None, wanted).decode("utf-8", "replace"))
            elif diagnosis.ini is not None:
                data = render_op_cache_ini(diagnosis.ini, ini_changes)
                result = SuggestedExport(INI_FORMAT, data.decode("utf-8", "replace"))
            else:
                options = {k: v for k, v in ini_changes.items() if k in load_catalog().options}
                new = Profile(framework=profile.framework, device=profile.device, options=options)
                made = _exporters().export_text(new, INI_FORMAT, lang=lang, ini_versions=versions or None)
                # a file CANN would ignore is never suggested (docs/cann/op-cache.md#ignored-saves)
                result = None if made.refused else SuggestedExport(INI_FORMAT, made.text, tuple(made.findings))
        except UsageError:
            result = None  # a version line that differs is never rewritten by this tool
        if result is not None:
            exports.append(result)
    for fmt in formats:
        if fmt == INI_FORMAT:
            continue
        made = _exporters().export_text(_profile_for(diagnosis, changes, profile, fmt), fmt, lang=lang, device=diagnosis.device)
        text = made.text
        if fmt == ENV_FORMAT:
            text += removal_text(removals(diagnosis, changes, profile), fmt, lang)
        exports.append(SuggestedExport(fmt, text, tuple(made.findings)))
    return exports


def _profile_for(diagnosis: Diagnosis, changes: Sequence[SuggestedChange], profile: Profile, fmt: str) -> Profile:
    """The suggested profile as one format carries it: the changes for that format, and the
    customer's values already set through the same channel (the same variable in an env file,
    the script's own options), so an export never moves a value to another variable."""
    catalog = load_catalog()
    options: dict[str, Value] = {}
    for oid, effective in diagnosis.effective.items():
        option = catalog.options.get(oid)
        if option is None or oid not in profile.options or effective.source == "default":
            continue
        if fmt == ENV_FORMAT:
            same = effective.source == "env" and (effective.variable == option.targets.env_for(profile.framework)
                                                  or _from_alloc_variable(option, effective))
        else:
            same = effective.source in CHOSEN_SOURCES
        if same:
            options[oid] = profile.options[oid]
    for change in changes:
        if change.format == fmt and change.key in catalog.options and not change.unset:
            options[change.key] = change.value
    return Profile(framework=profile.framework, device=profile.device, options=_alloc_safe(options, changes))


@dataclass(frozen=True)
class Removal:
    """A variable a fix removes from the job's environment: `option` is the catalog option whose
    suggested value is CANN's default (None for a variable a finding says to remove, UNSET_FIXES),
    `value` that default; `code` and `params` the comment's message."""

    variable: str
    code: str
    params: tuple[tuple[str, Any], ...]
    option: str | None = None
    value: Value | None = None

    def comment(self, lang: str | None) -> str:
        return terminal_text(_t(self.code, normalize_language(lang or current_language()), **dict(self.params)))


def removals(diagnosis: Diagnosis, changes: Sequence[SuggestedChange], profile: Profile) -> list[Removal]:
    """The variables the fixes remove: a variable whose suggested value is CANN's default (an
    export leaves defaults commented out, which would keep the customer's own value in force),
    then each variable a fix removes (UNSET_FIXES). Only catalog or UNSET_FIXES names, never a
    value from the bundle."""
    catalog = load_catalog()
    out: list[Removal] = []
    for change in changes:
        effective = diagnosis.effective.get(change.key)
        option = catalog.options.get(change.key)
        if (change.format != ENV_FORMAT or option is None or effective is None or effective.source != "env"
                or change.value != catalog.default_for(option.id, profile.framework)):
            continue
        variable = option.targets.env_for(profile.framework)
        if variable and variable == effective.variable and re.fullmatch(r"[A-Z_][A-Z0-9_]*", variable):
            out.append(Removal(variable, "support-label-export-unset", (("variable", variable), ("value", change.value)),
                               option.id, change.value))
    for change in changes:
        if change.unset and change.format == ENV_FORMAT and re.fullmatch(r"[A-Z_][A-Z0-9_]*", change.key):
            out.append(Removal(change.key, "support-label-export-unset-variable",
                               (("variable", change.key), ("finding", change.code))))
    return out


# How each format that sets the job's environment removes a variable (app/io/formats.py).
_REMOVE_LINE = {ENV_FORMAT: "unset {variable}", "env-fish": "set -e {variable}",
                "torch-npu": 'os.environ.pop("{variable}", None)'}


def removal_text(items: Sequence[Removal], fmt: str, lang: str | None) -> str:
    """The lines that remove `items` in `fmt` (a comment each), "" for a format without them."""
    line = _REMOVE_LINE.get(fmt)
    if line is None or not items:
        return ""
    lines: list[str] = []
    for item in items:
        lines += ["", f"# {item.comment(lang)}", line.format(variable=item.variable)]
    return "\n".join(lines) + "\n"


def with_removals(text: str, fmt: str, items: Sequence[Removal], profile: Profile, lang: str | None = None) -> str:
    """`text`, an export of `profile` as `fmt`, with the lines that remove `items` - those that
    still hold for `profile` (a variable removed for its default only while the option is still
    that default; the user may have chosen another value since). The shell formats get them at
    the end; torch-npu before `import torch` (torch_npu and CANN read the environment after)."""
    catalog = load_catalog()
    held = [r for r in items if r.option is None
            or profile.value(r.option, catalog) == r.value]
    extra = removal_text(held, fmt, lang)
    if not extra:
        return text
    if fmt != "torch-npu":
        return text + extra
    lines = text.splitlines(keepends=True)
    at = next((i for i, line in enumerate(lines) if line.startswith("import torch")), len(lines))
    head = "" if any(line.startswith("import os") for line in lines[:at]) else "import os\n"
    return "".join(lines[:at]) + head + extra.lstrip("\n") + "\n" + "".join(lines[at:])


def recheck(diagnosis: Diagnosis, exports: Sequence[SuggestedExport], *,
            versions: Mapping[str, str] | None = None, changes: Sequence[SuggestedChange] = ()) -> Diagnosis:
    """The diagnosis of the same inputs with `exports` applied as written: op-cache-ini as the
    op_cache.ini CANN reads, env-bash lines sourced into the job's environment (its `unset` lines
    too). What the fixes are checked against before they are shown (module docstring).

    The values a script or profile set (source "script" or "profile") stay set, and each of `changes` carried
    by another format (a framework's snippet, set in the script) is set the same way. The script's
    text is not read again (what it says about itself is not a fix's doing), nor is a cache
    measured: the cache prediction after a fix is not part of the check."""
    from cann_config.app.io.envfile import parse_env_text
    from cann_config.app.opcache.ini import parse_op_cache_ini
    from cann_config.app.support.diagnosis import diagnose

    environ: dict[str, str] = dict(diagnosis.environ)
    ini = diagnosis.ini if diagnosis.read_by_cann else None
    source = str(diagnosis.ini_path) if diagnosis.ini_path is not None else "op_cache.ini"
    for export in exports:
        if export.format == INI_FORMAT:
            ini = parse_op_cache_ini(export.text.encode("utf-8"), source)
        elif export.format == ENV_FORMAT:
            environ = parse_env_text(export.text, "suggested.sh", base=environ).environ(environ)
    catalog = load_catalog()
    chosen: dict[str, Value] = {oid: e.value for oid, e in diagnosis.effective.items()
                                if e.source in CHOSEN_SOURCES and not e.runtime and oid in catalog.options
                                and catalog.options[oid].check(e.value) is None}
    chosen.update({c.key: c.value for c in changes
                   if c.format not in (INI_FORMAT, ENV_FORMAT) and not c.unset and c.key in catalog.options})
    profile = Profile(framework=_framework(diagnosis), options=chosen) if chosen else None
    return diagnose(environ=environ, op_cache_ini=ini, ini_path=source if ini is not None else None,
                    device=diagnosis.device, framework=diagnosis.framework, profile=profile,
                    installed_versions=dict(versions or {}))


# ---------------------------------------------------------------------------------------------
# Only fixes that hold are shown
# ---------------------------------------------------------------------------------------------

NONE_LEFT_CODE = "support-fix-none-left"
NONE_NEW_CODE = "support-fix-none-new"
_CHECK_LANG = "en"  # the exports' comments differ by language, their settings do not


def _versions(diagnosis: Diagnosis, versions: Mapping[str, str] | None) -> dict[str, str] | None:
    """The installed versions a fix may write as version lines: the caller's, else those the
    diagnosis checked the file against (a bundle's, this host's; none for a customer's env file)."""
    chosen = versions if versions is not None else diagnosis.installed_versions
    return dict(chosen) if chosen else None


class FixPlan:
    """The suggested fixes of one diagnosis that pass `recheck` (module docstring).

    `changes` are the fixes shown; `profile` the configuration after them (None when nothing is to
    fix); `refused` the findings whose fix failed, each with the finding that says why (its
    `fix` is "No single fix: ..."); `after` the recheck's diagnosis of the fixes shown."""

    def __init__(self, diagnosis: Diagnosis, versions: Mapping[str, str] | None, changes: list[SuggestedChange],
                 export_profile: Profile, profile: Profile | None, refused: list[tuple[Finding, Finding]],
                 after: Diagnosis | None) -> None:
        self.diagnosis = diagnosis
        self.versions = dict(versions or {})
        self.changes = changes
        self.export_profile = export_profile
        self.profile = profile
        self.refused = refused
        self.after = after

    def removals(self) -> list[Removal]:
        """The variables the fixes shown remove from the job's environment (`removals`)."""
        return removals(self.diagnosis, self.changes, self.export_profile) if self.changes else []

    def exports(self, lang: str | None = None) -> list[SuggestedExport]:
        """The files that apply the fixes shown (`suggested_exports`), in `lang`."""
        if not self.changes:
            return []
        return suggested_exports(self.diagnosis, self.changes, self.export_profile, self.versions or None, lang)

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        if not self.changes:
            return dict(NO_FIXES_JSON)
        return {"suggested_changes": [c.to_json() for c in self.changes],
                "suggested_profile": self.profile.to_json() if self.profile is not None else None,
                "suggested_exports": [{"format": e.format, "text": e.text} for e in self.exports(lang)]}


def _serious(findings: Sequence[Finding]) -> set[str]:
    return {f.code for f in findings if f.severity in ("error", "warning")}


def _failures(diagnosis: Diagnosis, changes: Sequence[SuggestedChange], versions: Mapping[str, str] | None
              ) -> tuple[list[Finding], Diagnosis, Profile]:
    """Apply `changes` as written and diagnose again: the findings that make them fail (an error
    a fix was offered for left, a new error, a new warning), the new diagnosis and the profile
    the exports were made from."""
    profile = suggested_profile(diagnosis, changes)
    exports = suggested_exports(diagnosis, changes, profile, versions, _CHECK_LANG)
    after = recheck(diagnosis, exports, versions=versions, changes=changes)
    fixed = {c.code for c in changes}
    errors_before = {f.code for f in diagnosis.findings if f.severity == "error"}
    serious_before = _serious(diagnosis.findings)
    failed = [f for f in after.findings
              if (f.severity == "error" and (f.code in fixed or f.code not in errors_before))
              or (f.severity == "warning" and f.code not in serious_before)]
    return failed, after, profile


def _groups(changes: Sequence[SuggestedChange]) -> list[str]:
    """The findings the changes fix, in order: a fix is kept or refused whole, per finding."""
    return list(dict.fromkeys(c.code for c in changes))


def plan_fixes(diagnosis: Diagnosis, versions: Mapping[str, str] | None = None) -> FixPlan:
    """The fixes every view shows (module docstring), computed once per diagnosis.

    Every suggested change is checked with `recheck`; when all of them together fail, the
    findings whose fix is to blame are left out one by one (a fix whose own error is left, else
    the one whose removal makes the rest hold, else the last one) until the rest hold. A finding
    left without its fix gets "No single fix: ..." as its fix, and `diagnosis.findings` is
    updated: `diagnose`'s text, its JSON, the report and the wizard show the same words.
    """
    cached = diagnosis.fix_plan
    if isinstance(cached, FixPlan) and (versions is None or dict(versions) == cached.versions):
        return cached
    chosen = _versions(diagnosis, versions)
    changes = suggested_changes(diagnosis, chosen)
    refused: list[tuple[Finding, Finding]] = []
    after: Diagnosis | None = None
    export_profile = suggested_profile(diagnosis, [])
    if changes:
        kept = list(changes)
        while kept:
            failed, after, export_profile = _failures(diagnosis, kept, chosen)
            if not failed:
                break
            groups = _groups(kept)
            blamed = [g for g in groups if any(f.severity == "error" and f.code == g for f in failed)]
            if not blamed:
                blamed = [g for g in groups if len(groups) > 1
                          and not _failures(diagnosis, [c for c in kept if c.code != g], chosen)[0]][:1]
            culprit = (blamed or groups[-1:])[0]
            dropped = [c for c in kept if c.code == culprit]
            kept = [c for c in kept if c.code != culprit]
            refused += [(f, _no_fix(f, dropped, failed)) for f in diagnosis.findings if f.code == culprit]
        changes = kept
        if not changes:
            after, export_profile = None, suggested_profile(diagnosis, [])
    profile = _profile_after(diagnosis, after, changes, export_profile) if changes else None
    if refused:
        replaced = {id(old): new for old, new in refused}
        diagnosis.findings = [replaced.get(id(f), f) for f in diagnosis.findings]
    plan = FixPlan(diagnosis, chosen, changes, export_profile, profile, refused, after)
    diagnosis.fix_plan = plan
    return plan


def _no_fix(finding: Finding, dropped: Sequence[SuggestedChange], failed: Sequence[Finding]) -> Finding:
    """`finding` without its suggestion, its fix saying why none is offered (in both languages)."""
    what = ", ".join(f"unset {c.key}" if c.unset else c.key if c.rewrite else f"{c.key}={c.value}" for c in dropped)
    reason = next((f for f in failed if f.severity == "error" and f.code == finding.code), None)
    blame = reason or failed[0]
    code = NONE_LEFT_CODE if reason is not None else NONE_NEW_CODE
    fix = {}
    for key, lang in (("en", "en"), ("zh", "zh_CN")):
        from cann_config.app.findings import severity_word

        fix[key] = _t(code, lang, changes=what, finding=blame.code, message=blame.message(lang),
                      kind=severity_word(blame.severity, lang))
    return finding._replace(fix=fix, suggestion={})


def _profile_after(diagnosis: Diagnosis, after: Diagnosis | None, changes: Sequence[SuggestedChange],
                   export_profile: Profile) -> Profile:
    """The suggested profile: the configuration the recheck resolved with the fixes applied (the
    values CANN then uses, those not at their default), with every change a format outside
    op_cache.ini and the environment carries. It agrees with the exports: a size the customer
    wrote in an op_cache.ini CANN ignored is the size once the fix makes CANN read the file."""
    if after is None:
        return export_profile
    catalog = load_catalog()
    options: dict[str, Value] = {}
    for oid, effective in after.effective.items():
        option = catalog.options.get(oid)
        if (option is not None and effective.source != "default" and not effective.runtime
                and option.check(effective.value) is None):
            options[oid] = effective.value
    for oid, value in export_profile.options.items():
        before = diagnosis.effective.get(oid)
        if oid not in after.effective or (before is not None and before.runtime):
            options.setdefault(oid, value)
    for change in changes:
        if change.key in catalog.options and not change.unset:
            options[change.key] = change.value
    return Profile(framework=export_profile.framework, device=export_profile.device,
                   options=_alloc_safe(options, changes))
