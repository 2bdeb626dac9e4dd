"""What each option becomes in one export format: the checks and the plan every writer follows.

Why a module of its own: the writers (python_code, shell, envvars, files) build their text from a
Plan, and app.io.exporters (the entry point, export_text) calls the writers; with the plan here the
writers need nothing from the package that calls them. The rules the plan applies are the ones in
the package docstring (app/io/exporters/__init__.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cann_config.app.allocconf import check_alloc_values, expandable_conflicts
from cann_config.app.catalog import Catalog, Option, Value, load_catalog
from cann_config.app.device.availability import availability, device_phrase
from cann_config.app.device.table import DeviceInfo
from cann_config.app.findings import Finding, make_finding
from cann_config.app.i18n import current_language, normalize_language, pick
from cann_config.app.io.exporters.quoting import shown
from cann_config.app.io.formats import FORMATS, export_format, formats_with
from cann_config.app.io.formats import formats_for as registry_formats_for
from cann_config.app.io.formats import framework_for_format as registry_framework_for_format
from cann_config.app.messages import message_table
from cann_config.app.profile import Profile

# The formats and their facts: app/io/formats.py (one row per format).
PYTHON_FORMATS = formats_with(carrier="python")
# The env files: shell text for the job's environment that every framework takes (env-bash, env-fish).
SHELL_FORMATS = tuple(f for f in formats_with(carrier="environment")
                      if export_format(f).language in ("bash", "fish") and not export_format(f).frameworks)
# Formats that carry the environment variables of the env files: the ConfigMap and the vLLM launch
# script set the job's environment, and the playbook writes the env-bash text to a profile file on
# each node (app/io/exporters/fleet.py).
ENV_FORMATS = formats_with(carrier="environment") + ("ansible",)
# The frameworks whose process is a torch_npu process: PYTORCH_NPU_ALLOC_CONF is theirs (a
# vLLM-Ascend server's after the serving stack's rewrite, app/vllm_ascend.py).
TORCH_NPU_FRAMEWORKS = ("pytorch", "vllm-ascend")
SERVING_FRAMEWORK = "vllm-ascend"  # app/vllm_ascend.py FRAMEWORK
SLEEP_QUESTION, RL_QUESTION = "vllm-sleep-mode", "vllm-rl-mode"  # app/vllm_ascend.py
# Formats that carry no choice at all (the collect playbook): nothing is "set elsewhere" for them.
CHOICE_FREE_FORMATS = ("ansible-collect",)


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
    if fmt == "mindspore":
        return _mindspore_carrier(option)
    if t.ms_alloc_conf and fmt in ENV_FORMATS:
        # A key of MindSpore's MS_ALLOC_CONF (app/mindspore_memory.py): only MindSpore reads it.
        return ("ms_alloc_conf", t.ms_alloc_conf) if framework == "mindspore" else None
    if fmt == "vllm-serve" and t.vllm_flag:
        return ("flag", t.vllm_flag)  # a flag of `vllm serve` (app/io/exporters/serving.py)
    if t.alloc_conf and fmt in ENV_FORMATS + ("torch-npu",):
        # Keys of torch_npu's PYTORCH_NPU_ALLOC_CONF (app/allocconf.py): only torch_npu reads them.
        return ("alloc_conf", t.alloc_conf) if framework in TORCH_NPU_FRAMEWORKS else None
    if fmt == "torch-npu":
        # torch_npu's own variables can also be set by torch_npu.npu.set_option, which wins over
        # the environment (docs/cann/torch-npu.md); the cache sizes stay environment variables.
        own = t.env.get(framework)
        if own:
            return ("set_option", own)
        name = t.env_for(framework)
        return ("env", name) if name else None
    if fmt in ENV_FORMATS:
        name = t.env_for(framework)
        return ("env", name) if name else None
    if fmt in CHOICE_FREE_FORMATS:
        return None
    if fmt == "op-cache-ini":
        return ("ini", t.ini) if t.ini else None
    if fmt == "profile":
        return ("profile", option.id)
    raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")


def _mindspore_carrier(option: Option) -> tuple[str, str] | None:
    """Where the mindspore snippet (app/io/exporters/mindspore_code.py) puts an option: the one
    memory call, ascend_config, its ge_options["global"] (GE option names), MS_ALLOC_CONF or
    another environment variable set before `import mindspore`."""
    t = option.targets
    if t.shapes == "mindspore":
        return ("ms_api", option.id)
    if t.ms_runtime or (t.ms_context and not t.ms_context.startswith("ascend_config.")):
        return ("ms_memory", option.id)
    if t.ms_context and t.ms_context.startswith("ascend_config."):
        return ("ascend_config", t.ms_context.split(".", 1)[1])
    if t.ms_alloc_conf:
        return ("ms_alloc_conf", t.ms_alloc_conf)
    name = t.env_for("mindspore")  # CANN's cache variables work on every MindSpore path
    if name:
        return ("env", name)
    return ("ge_options", t.ge) if t.ge else None


def formats_for(framework: str, catalog: Catalog | None = None) -> tuple[str, ...]:
    """The export formats that make sense for `framework` (app.io.formats)."""
    return registry_formats_for(framework)


def format_fits(fmt: str, framework: str, catalog: Catalog | None = None) -> bool:
    return export_format(fmt).fits(framework) if fmt in FORMATS else False


def framework_for_format(fmt: str, catalog: Catalog | None = None) -> str | None:
    """The framework a format belongs to when only one takes it (tf2 -> tf2), else None."""
    return registry_framework_for_format(fmt)


# ---------------------------------------------------------------------------------------------
# Texts
# ---------------------------------------------------------------------------------------------


def text_of(code: str, lang: str, **params: Any) -> str:
    """The message `code` of the message tables in `lang`, filled in."""
    return pick(message_table()[code].text, lang).format_map(params)


def _has_text(code: str) -> bool:
    return code in message_table()


def _reason_params(reason: Mapping[str, str] | None) -> dict[str, Any]:
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
    framework: str | None = None  # the framework the choice is exported for (notes scoped to it)

    @property
    def changed(self) -> bool:
        return self.value != self.default


def _choices(profile: Profile, catalog: Catalog, device: DeviceInfo | None,
             answers: Mapping[str, bool] | None = None) -> tuple[list[_Choice], list[Finding]]:
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
                for note in option.notes_for(value, answers, framework=profile.framework):
                    findings.append(Finding(note.severity, note.code, dict(note.text)))
        choices.append(_Choice(option, value, default, problem, device_note, profile.framework))
    if profile.framework == "mindspore":
        choices, findings = _mindspore_rules(profile, catalog, choices, findings)
    return _allocator_rules(profile, catalog, choices, findings, answers)


def _mindspore_rules(profile: Profile, catalog: Catalog, choices: list[_Choice],
                     findings: list[Finding]) -> tuple[list[_Choice], list[Finding]]:
    """With `mindspore_memory_api` set_context, the sizes must pass set_context's own checks
    (mempool_block_size at least 1GB, ...; app/mindspore_memory.py): a value it refuses is
    refused here too, with MindSpore's message."""
    from cann_config.app.mindspore_memory import VERSION, check_set_context

    if profile.value("mindspore_memory_api", catalog) != "set_context":
        return choices, findings
    out = []
    for choice in choices:
        name = choice.option.targets.ms_context
        refused = None
        if (choice.problem is None and choice.changed and name and not name.startswith("ascend_config.")
                and choice.option.id in catalog.frameworks[profile.framework].options):
            refused = check_set_context({name: choice.value})
        if refused is not None:
            finding = make_finding("mindspore-value-refused", option=choice.option.id, value=choice.value,
                                   version=VERSION, error=refused.error, message=refused.message)
            findings.append(finding)
            choice = _Choice(choice.option, choice.value, choice.default, dict(finding.text), choice.device_note)
        out.append(choice)
    return out, findings


def _serving_rules(usable: Mapping[str, Value], catalog: Catalog,
                   answers: Mapping[str, bool] | None) -> list[Finding]:
    """What vLLM-Ascend makes of the PYTORCH_NPU_ALLOC_CONF an export writes (app/vllm_ascend.py):
    the rewrite, its traps, and the answers to the sleep-mode and RL-mode questions."""
    from cann_config.app.allocconf import alloc_conf_text, parse_alloc_conf
    from cann_config.app.vllm_ascend import serving_findings, serving_value

    written = alloc_conf_text(usable, catalog) or None
    found = serving_findings(written, answers=answers)
    after = serving_value(written, sleep_mode=bool((answers or {}).get(SLEEP_QUESTION)),
                          rl_mode=bool((answers or {}).get(RL_QUESTION)))
    if after is not None and after != written:
        found += [f for f in parse_alloc_conf(after, catalog=catalog).findings if f.severity == "error"]
    return found


def _allocator_rules(profile: Profile, catalog: Catalog, choices: list[_Choice],
                     findings: list[Finding], answers: Mapping[str, bool] | None = None
                     ) -> tuple[list[_Choice], list[Finding]]:
    """torch_npu's rules between allocator keys (app/allocconf.py): a key torch_npu refuses next to
    expandable_segments:True is refused here too (the export leaves it out), with the same error."""
    taken = catalog.frameworks[profile.framework].options
    usable = {c.option.id: c.value for c in choices
              if c.option.targets.alloc_conf and c.option.id in taken and c.problem is None and c.changed}
    if not usable:
        if profile.framework == SERVING_FRAMEWORK and SERVING_FRAMEWORK in catalog.frameworks:
            findings += _serving_rules(usable, catalog, answers)
        return choices, findings
    found = check_alloc_values(usable, present=set(usable))
    findings += found
    if profile.framework == SERVING_FRAMEWORK:
        findings += _serving_rules(usable, catalog, answers)
    clashing = expandable_conflicts(usable)
    conflict = next((f for f in found if f.code == "torchnpu-alloc-expandable-conflict"), None)
    if conflict is not None:
        choices = [_Choice(c.option, c.value, c.default, dict(conflict.text), c.device_note)
                   if c.option.id in clashing else c for c in choices]
    return choices, findings


def _encodable(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_choices(profile: Profile, device: DeviceInfo | None = None,
                  answers: Mapping[str, bool] | None = None) -> list[Finding]:
    """What the user must know about the Profile's choices, for any format.

    Errors: a value other than the default that the device or framework cannot take (the reason
    names the device and where it came from), or a value the option does not accept. Warnings
    and info: the catalog's notes on each chosen value ("2 and 4 are not supported when several
    graphs execute concurrently"), and what could not be checked because no device is known.
    `device` (default: the Profile's device, as "from the profile") is the device as the caller
    knows it, so a reason can say "detected by npu-smi" or "chosen by hand". `answers`: the
    user's answers to the catalog notes' questions (Note.for_answers), for their severity.
    """
    return _choices(profile, load_catalog(), device or profile.device_info(), answers)[1]


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
        lines += [f"! {pick(note.text, lang)}" for note in option.notes_for(value, framework=choice.framework)]
        if choice.device_note:
            lines.append(f"! {pick(choice.device_note, lang)}")
    if fmt in ENV_FORMATS and name and _has_text(f"export-text-env-{name}"):
        lines.append(text_of(f"export-text-env-{name}", lang))
    return tuple(_one_line(line) for line in lines)


def _elsewhere(choice: _Choice, fmt: str, framework: str, catalog: Catalog, lang: str) -> tuple[str, Finding]:
    """The comment and warning for a changed value `fmt` cannot carry."""
    option, value = choice.option, choice.value
    where = [f for f in formats_for(framework, catalog)
             if f not in (fmt, "profile") and carrier(f, option, framework) is not None]
    hand_name = getattr(option.targets, framework, None) if framework in ("atc", "acl") else None
    params: dict[str, Any] = {"option": option.id, "value": shown(value), "format": fmt}
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
              device: DeviceInfo | None = None, answers: Mapping[str, bool] | None = None,
              baseline: Mapping[str, Value] | None = None) -> Plan:
    """Decide, for every option, what `fmt` does with the Profile's value (see Entry kinds).

    `baseline` (option id -> value): what "changed" is measured against with `changed_only`,
    e.g. a customer's current values (a support bundle); default: the defaults."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    catalog = load_catalog()
    lang = normalize_language(lang or current_language())
    framework = profile.framework
    device = device or profile.device_info()
    choices, findings = _choices(profile, catalog, device, answers)
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
        elif not (choice.changed if not changed_only or baseline is None or option.id not in baseline
                  else baseline[option.id] != value):
            # With a baseline (a customer's current values) "changed" means changed from it.
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
        elif fmt in CHOICE_FREE_FORMATS:
            continue
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
