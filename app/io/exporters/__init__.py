"""Exports: the user's choices as code and files they can paste, generated from the catalog.

People paste these straight into training scripts and shell profiles, so each export runs as it
is (its imports included), explains every setting with a comment taken from the catalog (the
value's meaning and its notes, in the reader's language), and reads back into the assistant
(app/importers.py). Every export is a pure function of a Profile and a few options: the same
Profile always gives the same bytes, and the preview can never be stale.

The names an option takes in each format come from `Option.targets` in resources/catalog.toml;
no CANN name that the catalog holds is written here. The formats (docs/architecture.md#command-line, `cann-config
export FORMAT`) and the catalog target each one reads:

    tf1-estimator  MemoryConfig(...) keywords (targets.memory_config) and NPURunConfig(...)
                   keywords (targets.npu_run_config)
    tf1-session    custom_op.parameter_map[key].i / .s (targets.parameter_map)
    tf2            npu.global_options().<path> before npu.open() (targets.tf2)
    ge-options     a dict of GE option names with string values (targets.ge)
    torch-npu      Python for the top of a PyTorch script: os.environ["PYTORCH_NPU_ALLOC_CONF"] (targets.alloc_conf)
                   and the cache sizes before torch_npu is imported, then torch_npu.npu.set_option({...})
                   for torch_npu's own variables (targets.env["pytorch"]: the cache mode and directory)
    env-bash       environment variables for the framework (targets.env, and PYTORCH_NPU_ALLOC_CONF
                   built from targets.alloc_conf), bash syntax; env_variables() decides them
    env-fish       the same, fish syntax
    op-cache-ini   op_cache.ini keys (targets.ini), written by app.opcache.ini
    profile        the Profile JSON (docs/architecture.md#profile-format)

Rules every format follows:
- a value that differs from the framework's default is set; in the full mode a default is shown
  commented out (uncomment to pin it), in the `changed_only` mode it is left out. Defaults are
  never set explicitly, so a snippet does not break an older adapter that lacks a keyword the
  user never touched (docs/cann/memory.md#version-history);
- a choice the device or framework cannot take (app.device.availability) is never silently dropped:
  the export leaves it out with a comment saying why, `refused` is True and check_choices()
  reports an error (the CLI exits 1);
- a choice the format cannot carry (a memory option in an env file) is named in a comment that
  points to the export that can, and reported as a warning;
- values in code are quoted by app.io.exporters.quoting; values in comments are always escaped.

Public API:
    FORMATS: tuple[str, ...]
    export_text(profile, fmt, *, changed_only=False, existing_ini=None, lang=None, ini_versions=None,
                device=None) -> ExportResult
    check_choices(profile, device=None) -> list[Finding]
    formats_for(framework) -> tuple[str, ...]       the formats a framework takes (catalog)
    format_fits(fmt, framework) -> bool
    framework_for_format(fmt) -> str | None         the only framework a format is for, if one
    carrier(fmt, option, framework) -> (slot, name) | None   the name an option takes in a format
    make_plan(profile, fmt, ...) -> Plan            what each option becomes (for other writers)
    app.io.exporters.files.write_export(path, data)    atomic save of any export (CLI -o, wizard Save)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cann_config.app.catalog import Catalog, Option, Value, load_catalog
from cann_config.app.device.availability import availability, device_phrase
from cann_config.app.device.table import DeviceInfo
from cann_config.app.findings import Finding, make_finding, message_table
from cann_config.app.i18n import current_language, normalize_language, pick
from cann_config.app.io.exporters.quoting import shown
from cann_config.app.profile import Profile

if TYPE_CHECKING:  # pragma: no cover - typing only
    from cann_config.app.opcache.ini import OpCacheIni

FORMATS: tuple[str, ...] = ("tf1-estimator", "tf1-session", "tf2", "ge-options", "torch-npu", "env-bash", "env-fish",
                            "op-cache-ini", "profile")
PYTHON_FORMATS = ("tf1-estimator", "tf1-session", "tf2", "ge-options", "torch-npu")
SHELL_FORMATS = ("env-bash", "env-fish")


@dataclass(frozen=True)
class ExportResult:
    """One export: its bytes, what the user must know, and whether a choice was refused.

    `data` is what gets written (for op-cache-ini the exact bytes app.opcache.ini rendered, which
    keep an existing file's encoding and line ends); `text` is the same for display.
    """

    format: str
    data: bytes
    findings: list[Finding] = field(default_factory=list)
    refused: bool = False

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", "replace")


# ---------------------------------------------------------------------------------------------
# Which name an option takes in a format
# ---------------------------------------------------------------------------------------------


def carrier(fmt: str, option: Option, framework: str) -> tuple[str, str] | None:
    """(slot, name) under which `fmt` carries `option` for `framework`; None if it cannot.

    The slot tells the writers where the name goes (the MemoryConfig or the NPURunConfig call
    of tf1-estimator); the name comes from the catalog.
    """
    t = option.targets
    if fmt == "tf1-estimator":
        if t.memory_config:
            return ("memory_config", t.memory_config)
        if t.npu_run_config:
            return ("npu_run_config", t.npu_run_config)
        return None
    if fmt == "tf1-session":
        return ("parameter_map", t.parameter_map.key) if t.parameter_map else None
    if fmt == "tf2":
        return ("tf2", t.tf2) if t.tf2 else None
    if fmt == "ge-options":
        return ("ge", t.ge) if t.ge else None
    if t.alloc_conf and fmt in SHELL_FORMATS + ("torch-npu",):
        # Keys of torch_npu's PYTORCH_NPU_ALLOC_CONF (app/allocconf.py): only PyTorch reads them.
        return ("alloc_conf", t.alloc_conf) if framework == "pytorch" else None
    if fmt == "torch-npu":
        # torch_npu's own variables can also be set by torch_npu.npu.set_option, which wins over
        # the environment (docs/cann/torch-npu.md); the cache sizes stay environment variables.
        own = t.env.get(framework)
        if own:
            return ("set_option", own)
        name = t.env_for(framework)
        return ("env", name) if name else None
    if fmt in SHELL_FORMATS:
        name = t.env_for(framework)
        return ("env", name) if name else None
    if fmt == "op-cache-ini":
        return ("ini", t.ini) if t.ini else None
    if fmt == "profile":
        return ("profile", option.id)
    raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")


def formats_for(framework: str, catalog: Catalog | None = None) -> tuple[str, ...]:
    """The export formats that make sense for `framework` (the catalog's `exports`)."""
    catalog = catalog or load_catalog()
    return tuple(catalog.frameworks[framework].exports)


def format_fits(fmt: str, framework: str, catalog: Catalog | None = None) -> bool:
    return fmt in formats_for(framework, catalog)


def framework_for_format(fmt: str, catalog: Catalog | None = None) -> str | None:
    """The framework a format belongs to when only one takes it (tf2 -> tf2), else None."""
    catalog = catalog or load_catalog()
    fits = [fid for fid, fw in catalog.frameworks.items() if fmt in fw.exports]
    return fits[0] if len(fits) == 1 else None


# ---------------------------------------------------------------------------------------------
# Texts
# ---------------------------------------------------------------------------------------------


def text_of(code: str, lang: str, **params: Any) -> str:
    """The message `code` of the message tables in `lang`, filled in."""
    return pick(message_table()[code].text, lang).format_map(params)


def _has_text(code: str) -> bool:
    return code in message_table()


def _reason_params(reason: Mapping[str, str] | None) -> dict[str, str]:
    reason = reason or {}
    return {"reason_en": reason.get("en", ""), "reason_zh": reason.get("zh", reason.get("en", ""))}


def _one_line(text: str) -> str:
    """Comment text on one line: a line break would end the comment in every target language."""
    return " ".join(text.replace("\r", "\n").split("\n"))


# ---------------------------------------------------------------------------------------------
# Checking the choices
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Choice:
    option: Option
    value: Value
    default: Value
    problem: Mapping[str, str] | None  # why the value cannot be used here ({en, zh}); None if it can
    device_note: Mapping[str, str] | None  # what to know although it can (no device known, ...)

    @property
    def changed(self) -> bool:
        return self.value != self.default


def _choices(profile: Profile, catalog: Catalog, device: DeviceInfo | None) -> tuple[list[_Choice], list[Finding]]:
    choices, findings = [], []
    for oid, option in catalog.options.items():
        value = profile.value(oid, catalog)
        default = catalog.default_for(oid, profile.framework)
        problem = device_note = None
        invalid = option.problem(value)
        if invalid is not None:
            findings.append(make_finding("export-invalid-value", option=oid, reason=invalid))
            problem = {"en": invalid.text("en"), "zh": invalid.text("zh_CN")}
        elif isinstance(value, str) and not _encodable(value):
            findings.append(make_finding("export-value-not-encodable", option=oid))
            problem = dict(findings[-1].text)
        elif value != default:
            av = availability(option, device, profile.framework, catalog)
            if not av.enabled:
                problem = dict(av.reason or {})
                findings.append(make_finding("export-choice-refused", option=oid, value=shown(value),
                                             default=shown(default), **_reason_params(problem)))
            else:
                device_note = av.note
                if device_note:
                    findings.append(Finding("info", "export-device-note", dict(device_note)))
                for note in option.notes_for(value):
                    findings.append(Finding(note.severity, note.code, dict(note.text)))
        choices.append(_Choice(option, value, default, problem, device_note))
    return _allocator_rules(profile, catalog, choices, findings)


def _allocator_rules(profile: Profile, catalog: Catalog, choices: list[_Choice],
                     findings: list[Finding]) -> tuple[list[_Choice], list[Finding]]:
    """torch_npu's rules between allocator keys (app/allocconf.py): a key torch_npu refuses next to
    expandable_segments:True is refused here too (the export leaves it out), with the same error."""
    from cann_config.app.allocconf import check_alloc_values, expandable_conflicts

    taken = catalog.frameworks[profile.framework].options
    usable = {c.option.id: c.value for c in choices
              if c.option.targets.alloc_conf and c.option.id in taken and c.problem is None and c.changed}
    if not usable:
        return choices, findings
    found = check_alloc_values(usable, present=set(usable))
    findings += found
    clashing = expandable_conflicts(usable)
    conflict = next((f for f in found if f.code == "torchnpu-alloc-expandable-conflict"), None)
    if conflict is not None:
        choices = [_Choice(c.option, c.value, c.default, dict(conflict.text), c.device_note)
                   if c.option.id in clashing else c for c in choices]
    return choices, findings
    present = set(usable)
    for finding in check_alloc_values(usable, present=present):
        findings.append(finding)
        if finding.severity != "error":
            continue
        # The keys that clash with expandable_segments:True are the ones left out.
        for index, choice in enumerate(choices):
            if choice.option.id in usable and choice.option.targets.alloc_conf in finding.message("en").split(
                    " cannot be combined with ")[-1]:
                choices[index] = _Choice(choice.option, choice.value, choice.default, dict(finding.text),
                                         choice.device_note)
    return choices, findings


def _encodable(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_choices(profile: Profile, device: DeviceInfo | None = None) -> list[Finding]:
    """What the user must know about the Profile's choices, for any format.

    Errors: a value other than the default that the device or framework cannot take (the reason
    names the device and where it came from), or a value the option does not accept. Warnings
    and info: the catalog's notes on each chosen value ("2 and 4 are not supported when several
    graphs execute concurrently"), and what could not be checked because no device is known.
    `device` (default: the Profile's device, as "from the profile") is the device as the caller
    knows it, so a reason can say "detected by npu-smi" or "chosen by hand".
    """
    return _choices(profile, load_catalog(), device or profile.device_info())[1]


# ---------------------------------------------------------------------------------------------
# The plan: what each option becomes in one format
# ---------------------------------------------------------------------------------------------

# Entry kinds: "set" (written), "default" (written commented out), "not-set" (a "" value: only a
# comment), "refused" and "unavailable" (left out, with the reason), "elsewhere" (another export
# carries it; named in the trailing comments).


@dataclass(frozen=True)
class Entry:
    option: Option
    value: Value
    kind: str
    slot: str | None = None
    name: str | None = None
    comments: tuple[str, ...] = ()


@dataclass
class Plan:
    fmt: str
    profile: Profile
    lang: str
    changed_only: bool
    catalog: Catalog
    entries: list[Entry]
    findings: list[Finding]
    refused: bool
    header: list[str]

    def in_slot(self, slot: str) -> list[Entry]:
        return [e for e in self.entries if e.slot == slot and e.kind in ("set", "default", "not-set", "refused",
                                                                         "unavailable")]

    def trailing(self) -> list[Entry]:
        """Comments for options this format has no place for: refused or carried elsewhere."""
        return [e for e in self.entries if e.kind == "elsewhere" or (e.kind == "refused" and e.slot is None)]


def _value_comments(choice: _Choice, fmt: str, name: str | None, kind: str, lang: str) -> tuple[str, ...]:
    option, value = choice.option, choice.value
    title = pick(option.title, lang)
    if option.unit:
        title += f" ({option.unit})"
    doc = option.value_doc(value)
    if kind == "not-set":
        lines = [pick(doc.text, lang) if doc else text_of("export-text-not-set", lang, title=title)]
        if doc:
            lines[0] = f"{title}{'：' if lang == 'zh_CN' else ': '}{lines[0]}"
        return tuple(lines)
    colon = "：" if lang == "zh_CN" else ": "
    lines = [f"{title}{colon}{pick(doc.text, lang)}" if doc else title]
    if kind == "set":
        lines += [f"! {pick(note.text, lang)}" for note in option.notes_for(value)]
        if choice.device_note:
            lines.append(f"! {pick(choice.device_note, lang)}")
    if fmt in SHELL_FORMATS and name and _has_text(f"export-text-env-{name}"):
        lines.append(text_of(f"export-text-env-{name}", lang))
    return tuple(_one_line(line) for line in lines)


def _elsewhere(choice: _Choice, fmt: str, framework: str, catalog: Catalog, lang: str) -> tuple[str, Finding]:
    """The comment and warning for a changed value `fmt` cannot carry."""
    option, value = choice.option, choice.value
    where = [f for f in formats_for(framework, catalog)
             if f not in (fmt, "profile") and carrier(f, option, framework) is not None]
    hand_name = getattr(option.targets, framework, None) if framework in ("atc", "acl") else None
    params = {"option": option.id, "value": shown(value), "format": fmt}
    if hand_name and _has_text(f"export-text-hint-{framework}"):
        hint = {key: text_of(f"export-text-hint-{framework}", lang_id, name=hand_name, value=shown(value))
                for key, lang_id in (("en", "en"), ("zh", "zh_CN"))}
        finding = Finding("warning", "export-not-carried-by-hand",
                          {key: text_of("export-not-carried-by-hand", lang_id, hint=hint[key], **params)
                           for key, lang_id in (("en", "en"), ("zh", "zh_CN"))})
        return text_of("export-text-by-hand", lang, hint=pick(hint, lang), **params), finding
    joined = " / ".join(where) if where else "profile"
    finding = make_finding("export-not-carried", where=joined, **params)
    return text_of("export-text-elsewhere", lang, where=joined, **params), finding


def make_plan(profile: Profile, fmt: str, *, changed_only: bool = False, lang: str | None = None,
              device: DeviceInfo | None = None) -> Plan:
    """Decide, for every option, what `fmt` does with the Profile's value (see Entry kinds)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    catalog = load_catalog()
    lang = normalize_language(lang or current_language())
    framework = profile.framework
    device = device or profile.device_info()
    choices, findings = _choices(profile, catalog, device)
    entries: list[Entry] = []
    refused = any(c.problem is not None for c in choices)
    for choice in choices:
        option, value = choice.option, choice.value
        target = carrier(fmt, option, framework)
        slot, name = target if target else (None, None)
        if choice.problem is not None:
            text = text_of("export-text-refused", lang, option=option.id, value=shown(value),
                           **_reason_params(choice.problem))
            entries.append(Entry(option, value, "refused", slot, name, (_one_line(text),)))
        elif not choice.changed:
            if changed_only or target is None:
                continue
            av = availability(option, device, framework, catalog)
            if not av.enabled:
                text = text_of("export-text-unavailable", lang, option=option.id, **_reason_params(av.reason))
                entries.append(Entry(option, value, "unavailable", slot, name, (_one_line(text),)))
            else:
                kind = "not-set" if value == "" else "default"
                entries.append(Entry(option, value, kind, slot, name,
                                     _value_comments(choice, fmt, name, kind, lang)))
        elif target is None:
            text, finding = _elsewhere(choice, fmt, framework, catalog, lang)
            findings.append(finding)
            entries.append(Entry(option, value, "elsewhere", None, None, (_one_line(text),)))
        else:
            entries.append(Entry(option, value, "set", slot, name, _value_comments(choice, fmt, name, "set", lang)))
    return Plan(fmt, profile, lang, changed_only, catalog, entries, findings, refused,
                _header(profile, device, fmt, changed_only, catalog, lang))


def _header(profile: Profile, device: DeviceInfo | None, fmt: str, changed_only: bool, catalog: Catalog,
            lang: str) -> list[str]:
    device_text = device_phrase(device, lang) if device else text_of("export-text-no-device", lang)
    framework = pick(catalog.frameworks[profile.framework].name, lang)
    lines = [text_of("export-text-header", lang, framework=framework, device=device_text),
             text_of("export-text-mode-changed" if changed_only else "export-text-mode-full", lang)]
    if _has_text(f"export-text-use-{fmt}"):
        lines.append(text_of(f"export-text-use-{fmt}", lang))
    return [_one_line(line) for line in lines]


# ---------------------------------------------------------------------------------------------
# The entry point
# ---------------------------------------------------------------------------------------------


def _mismatch(profile: Profile, fmt: str, lang: str) -> ExportResult:
    """A format the framework does not take: an explanation instead of a snippet."""
    catalog = load_catalog()
    params = {"format": fmt, "framework": profile.framework,
              "formats": ", ".join(formats_for(profile.framework, catalog))}
    finding = make_finding("export-format-framework", **params)
    line = text_of("export-text-format-framework", lang, **params)
    prefix = "" if fmt in ("op-cache-ini", "profile") else "# "
    return ExportResult(fmt, (prefix + line + "\n").encode("utf-8"), [finding], True)


def export_text(profile: Profile, fmt: str, *, changed_only: bool = False,
                existing_ini: OpCacheIni | None = None, lang: str | None = None,
                ini_versions: Mapping[str, str] | None = None, device: DeviceInfo | None = None) -> ExportResult:
    """The export `fmt` of `profile`, in `lang` (default: the current language).

    `existing_ini` (op-cache-ini only): an op_cache.ini read by app.opcache.ini; its text is
    kept and only the values the Profile sets are changed (byte-identical when none changes).
    `ini_versions` (op-cache-ini, new file only): {"adk_version": ..., "ops_version": ...} of the
    installed CANN (app.opcache.ini.installed_op_cache_versions), written into the new file.
    `device`: the Profile's device as the caller knows it (detected, chosen by hand); default:
    built from `profile.device`.
    A format the Profile's framework does not take gives a one-line explanation with `refused`
    True (the CLI refuses such a command line before it gets here). Raises ValueError for an
    unknown format.
    """
    lang = normalize_language(lang or current_language())
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    if not format_fits(fmt, profile.framework):
        return _mismatch(profile, fmt, lang)
    plan = make_plan(profile, fmt, changed_only=changed_only, lang=lang, device=device)
    if fmt == "op-cache-ini":
        from cann_config.app.io.exporters.files import write_op_cache_ini

        data, extra = write_op_cache_ini(plan, existing_ini, ini_versions)
        return ExportResult(fmt, data, plan.findings + extra, plan.refused)
    writer = _writers()[fmt]
    return ExportResult(fmt, writer(plan).encode("utf-8"), plan.findings, plan.refused)


def _writers() -> dict[str, Callable[[Plan], str]]:
    from cann_config.app.io.exporters import files, python_code, shell

    return {
        "torch-npu": python_code.write_torch_npu,
        "tf1-estimator": python_code.write_tf1_estimator,
        "tf1-session": python_code.write_tf1_session,
        "tf2": python_code.write_tf2,
        "ge-options": python_code.write_ge_options,
        "env-bash": shell.write_env_bash,
        "env-fish": shell.write_env_fish,
        "profile": files.write_profile,
    }
