"""Reading settings back: from a training script, an env file, an op_cache.ini or a profile.

Support staff receive a customer's script and want to know which memory and cache settings it
makes; users want to load a snippet they once exported back into the wizard. Scripts are read
with `ast` and never executed, as a careful reader reads them (app/io/scripts.py: constants
through variables, helper functions, `__main__` blocks, dicts built key by key); the importer
maps what the reader saw onto the catalog, with the syntaxes the exports use
(docs/cann/memory.md#export-targets) and the ones real code uses, each setting with its line:

- `MemoryConfig(kw=...)` and `NPURunConfig(op_compiler_cache_mode=..., op_compiler_cache_dir=...)`
  keywords (catalog targets.memory_config / targets.npu_run_config);
- `<x>.parameter_map["key"].i = N`, `.s = tf.compat.as_bytes("v")`, `.s = b"v"` (targets.parameter_map);
- `npu.global_options().memory_config.x = v`, also through a variable bound to
  `npu.global_options()` or to one of its sections (targets.tf2);
- dicts and subscript assignments keyed by GE option names (targets.ge);
- `os.environ["NAME"] = "..."`, `os.environ.setdefault(...)`, `os.environ.update({...})`,
  `os.putenv(...)` for the variables of targets.env, and torch_npu's PYTORCH_NPU_ALLOC_CONF /
  PYTORCH_ALLOC_CONF, whose `key:value` text app/allocconf.py reads into the npu_alloc_* options
  (docs/cann/torch-npu.md);
- `torch.npu.set_option({...})` / `torch_npu.npu.set_option({...})` with the ACL_* keys of the
  pytorch variables of targets.env (docs/cann/torch-npu.md#set-option): framework pytorch, and
  it wins over the variables.

A value known only at run time (a parameter, `args.x`, a call, an f-string of either) is kept
as *unknown* (ImportedSettings.unknown, with a finding), never guessed and never replaced by a
weaker source or a default; so does an invalid value or a keyword the callee does not have.
Only text that is not Python at all is an InputError (exit 2), naming the file and the line.

When the same option is set in several places, the one CANN uses wins: a setting in code wins
over an environment variable (the op_compiler_cache_dir option beats ASCEND_CACHE_PATH), a
framework's own variable over the generic one (ACL_OP_COMPILER_CACHE_DIR beats
ASCEND_CACHE_PATH; docs/cann/env-vars.md), and among equals the later line.

Public API:
    import_script(text, source) -> ImportedSettings
    import_env_settings(envfile) -> ImportedSettings            envfile: app.io.envfile.EnvFile
    import_fish_env(text, source) -> ImportedSettings           `set -gx NAME value` files
    import_ini_settings(ini) -> ImportedSettings                ini: app.opcache.ini.OpCacheIni
    import_profile_text(text, source) -> ImportedSettings
    import_text(text, fmt, source) -> ImportedSettings          any export format, read back
    read_<format>(text, source) -> ImportedSettings            the reader app.io.formats names for each format
"""

from __future__ import annotations

import ast
import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from cann_config.app.allocconf import VARIABLE, VARIABLES, alloc_options, both_variables_finding, parse_alloc_conf
from cann_config.app.catalog import Option, Value, load_catalog
from cann_config.app.errors import InputError, Message, explain
from cann_config.app.findings import Finding, make_finding
from cann_config.app.io.envfile import parse_env_text
from cann_config.app.io.exporters.fleet import configmap_items, playbook_env_text
from cann_config.app.io.formats import export_format
from cann_config.app.io.inputfiles import read_input_bytes
from cann_config.app.io.pysource import decode_python_source
from cann_config.app.io.scripts import (
    UNKNOWN,
    EnvAssignment,
    EnvState,
    KeywordCall,
    OptionCall,
    ScriptReading,
    ScriptValue,
    read_script,
)
from cann_config.app.opcache.ini import cann_stoi, parse_op_cache_ini
from cann_config.app.profile import DEFAULT_FRAMEWORK, Profile, profile_from_json

# MindSpore's allocator variable (app/mindspore_memory.py ALLOC_VARIABLE; named here so that reading
# an env file imports MindSpore's rules only when the file sets it).
MS_ALLOC_VARIABLE = "MS_ALLOC_CONF"

# A value known only when the code runs (a parameter, a call, an f-string of either): never guessed.
_DYNAMIC = UNKNOWN

# How strongly a setting binds when an option is set in several places (see the docstring).
RANK_ENV_GENERIC, RANK_ENV_FRAMEWORK, RANK_CODE = 0, 1, 2


@dataclass(frozen=True)
class SettingOrigin:
    """How a file makes one setting.

    `via`: the syntax that made it ("MemoryConfig", "NPURunConfig", "parameter_map",
    "global_options", a GE option name, "set_option", "env"); `name`: the environment variable
    or set_option key that carried it; `how`: for a variable, "assign", "setdefault", "update"
    or "putenv" (a setdefault does not replace a value the environment already has); `known`
    False with the `expression` when the value is known only at run time.
    """

    line: int | None
    via: str = ""
    name: str | None = None
    how: str = ""
    known: bool = True
    expression: str = ""
    # a default-if-unset (docs/cann/launch-scripts.md#python-scripts): the launching environment's
    # variable that replaces the value (`empty_too`: also when it is set but empty)
    inherited: str | None = None
    empty_too: bool = False
    # known only at run time because it depends on a run-time branch (`expression` has the branches)
    conditional: bool = False


@dataclass
class ImportedSettings:
    """What a file sets: option id -> (value, line), the findings, and the framework it suits.

    `framework` is the framework the syntax belongs to when only one fits (MemoryConfig: tf1,
    global_options: tf2, GE option names: ge, ACL_OP_COMPILER_CACHE_* and set_option: pytorch),
    else None. `unknown`: options the file does set, but to a value known only at run time
    (option id -> line); they are not in `settings`, and whatever a weaker source says for them
    (an env var the code overrides) does not apply. `origins` says how each option of
    `settings` and `unknown` is set. For a script, `environment` lists every environment
    assignment (catalog variables or not: PYTORCH_NPU_ALLOC_CONF, GE_USE_STATIC_MEMORY, ...) and
    `set_options` every torch_npu set_option call, as app.io.scripts read them.
    """

    source: str
    settings: dict[str, tuple[Value, int | None]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    framework: str | None = None
    unknown: dict[str, int | None] = field(default_factory=dict)
    origins: dict[str, SettingOrigin] = field(default_factory=dict)
    environment: list[EnvAssignment] = field(default_factory=list)
    set_options: list[OptionCall] = field(default_factory=list)
    # each variable as the script leaves the environment when it runs (app.io.scripts.EnvState)
    env_state: dict[str, EnvState] = field(default_factory=dict)

    def values(self) -> dict[str, Value]:
        return {oid: value for oid, (value, _line) in self.settings.items()}

    def line_of(self, option_id: str) -> int | None:
        return self.settings[option_id][1] if option_id in self.settings else None

    def to_profile(self, framework: str | None = None, device: str | None = None) -> Profile:
        """A Profile holding these settings (framework: the given one, else the detected one)."""
        return Profile(framework=framework or self.framework or DEFAULT_FRAMEWORK, device=device,
                       options=self.values())


@dataclass(frozen=True)
class _Names:
    """Every name the catalog gives an option, by target (built once per process)."""

    memory_config: Mapping[str, Option]
    npu_run_config: Mapping[str, Option]
    parameter_map: Mapping[str, Option]
    tf2: Mapping[tuple[str, ...], Option]
    ge: Mapping[str, Option]
    env: Mapping[str, tuple[tuple[Option, str], ...]]  # variable -> ((option, framework key or "*"), ...)
    legacy_env: Mapping[str, Option]


@lru_cache(maxsize=1)
def _names() -> _Names:
    catalog = load_catalog()
    memory, run, pmap, tf2, ge, legacy = {}, {}, {}, {}, {}, {}
    env: dict[str, list[tuple[Option, str]]] = {}
    for option in catalog.options.values():
        t = option.targets
        if t.memory_config:
            memory[t.memory_config] = option
        if t.npu_run_config:
            run[t.npu_run_config] = option
        if t.parameter_map:
            pmap[t.parameter_map.key] = option
        if t.tf2:
            tf2[tuple(t.tf2.split("."))] = option
        if t.ge:
            ge[t.ge] = option
        for framework, variable in t.env.items():
            env.setdefault(variable, []).append((option, framework))
        if option.legacy_env:
            legacy[option.legacy_env] = option
    return _Names(memory, run, pmap, tf2, ge, {k: tuple(v) for k, v in env.items()}, legacy)


def catalog_env_names() -> frozenset[str]:
    """The environment variables the importer turns into catalog settings (targets.env, and
    torch_npu's allocator variables)."""
    from cann_config.app.allocconf import VARIABLES

    return frozenset(_names().env) | frozenset(VARIABLES)


@dataclass(frozen=True)
class _Candidate:
    option: Option
    value: Value
    line: int | None
    rank: int
    origin: SettingOrigin = SettingOrigin(None)
    seq: int | None = None  # the order a script's run reaches it (else its line decides)

    @property
    def order(self) -> int:
        return self.seq if self.seq is not None else (self.line or 0)


# Far beyond any value CANN takes (its sizes are C ints and longs); such an integer cannot even
# be printed in decimal past Python's limit on integer string conversion (4300 digits).
_MAX_INT_BITS = 64


def _huge_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > _MAX_INT_BITS


def _shown(value: object) -> str:
    """A literal for a message: huge integers by their size, long texts cut."""
    if isinstance(value, int) and _huge_int(value):
        return f"<an integer of {value.bit_length()} bits>"
    text = repr(value)
    return text if len(text) <= 80 else text[:79] + "…"


class _Collector:
    """Collects candidate settings and findings for one source, then resolves them."""

    def __init__(self, source: str):
        self.source = source
        self.candidates: list[_Candidate] = []
        self.findings: list[Finding] = []
        self.frameworks: set[str] = set()
        self.legacy: list[tuple[str, Option, int | None]] = []
        # torch_npu allocator variables: (name, text or _DYNAMIC, line, expression, how, origin), read at the end.
        self.alloc_conf: list[tuple[str, object, int | None, str, str, SettingOrigin]] = []

    def finding(self, code: str, line: int | None, **params: Any) -> None:
        self.findings.append(make_finding(code, file=self.source, line=line, **params))

    def dynamic(self, option: Option, line: int | None, expression: str, rank: int = RANK_CODE,
                label: str | None = None, *, via: str = "", name: str | None = None, how: str = "",
                conditional: bool = False, seq: int | None = None) -> None:
        """A value known only at run time: a finding, and a placeholder that still wins over
        weaker settings (code that sets the cache dir from a variable hides ASCEND_CACHE_PATH).
        A value that depends on a run-time branch has its own finding, once per variable
        (app/io/importers.py _ScriptImporter.state_findings)."""
        if not conditional:
            self.finding("import-dynamic-value", line, option=label or option.id, expression=expression)
        origin = SettingOrigin(line, via, name, how, False, expression, conditional=conditional)
        self.candidates.append(_Candidate(option, _DYNAMIC, line, rank, origin, seq))

    def typed(self, option: Option, raw: object, line: int | None, rank: int = RANK_CODE, *, via: str = "",
              name: str | None = None, how: str = "") -> None:
        """A value written as a Python literal: it must already have the option's type."""
        if raw is None and option.type != "int" and option.default == "":
            raw = ""  # None is how MemoryConfig spells "not set" (memory_optimization_policy=None)
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError:
                self.finding("import-invalid-value", line, option=option.id, reason=Message("import-reason-not-utf8"))
                return
        if isinstance(raw, int) and _huge_int(raw):
            self.finding("import-invalid-value", line, option=option.id,
                         reason=Message("import-reason-int-too-large", bits=raw.bit_length()))
            return
        problem = option.problem(raw)
        if problem is not None:
            self.finding("import-invalid-value", line, option=option.id, reason=problem)
            return
        self.candidates.append(_Candidate(option, raw, line, rank,  # type: ignore[arg-type]
                                          SettingOrigin(line, via, name, how)))

    def text(self, option: Option, raw: str, line: int | None, rank: int, *, via: str = "",
             name: str | None = None, how: str = "", origin: SettingOrigin | None = None,
             seq: int | None = None) -> None:
        """A value written as text (an environment variable, a GE option): parse it."""
        try:
            value = option.parse(raw)
        except ValueError as exc:
            self.finding("import-invalid-value", line, option=option.id, reason=explain(exc))
            return
        self.candidates.append(_Candidate(option, value, line, rank, origin or SettingOrigin(line, via, name, how),
                                          seq))

    def env(self, name: str, raw: object, line: int | None, expression: str = "", how: str = "",
            state: EnvState | None = None, seq: int | None = None) -> None:
        """An environment variable assignment; ignores variables the catalog does not name.
        `state`: how a script's run leaves it (a default-if-unset, a run-time branch)."""
        inherited = state.inherited if state is not None else None
        empty_too = state.empty_too if state is not None else False
        conditional = bool(state.branches) if state is not None else False
        origin = SettingOrigin(line, "env", name, how, raw is not _DYNAMIC, expression if raw is _DYNAMIC else "",
                               inherited, empty_too, conditional)
        if name in VARIABLES:
            self.frameworks.add("pytorch")
            self.alloc_conf.append((name, raw, line, expression, how, origin))
            return
        if name == MS_ALLOC_VARIABLE and isinstance(raw, str):
            self.ms_alloc_conf(raw, line, how)
            return
        names = _names()
        if name in names.legacy_env:
            self.legacy.append((name, names.legacy_env[name], line))
        for option, framework in names.env.get(name, ()):
            rank = RANK_ENV_GENERIC if framework == "*" else RANK_ENV_FRAMEWORK
            if raw is _DYNAMIC:
                self.dynamic(option, line, expression, rank, f"{option.id} ({name})", via="env", name=name, how=how,
                             conditional=conditional, seq=seq)
                continue
            if not isinstance(raw, str):
                self.finding("import-invalid-value", line, option=option.id,
                             reason=f"environment values are strings, not {_shown(raw)} ({name})")
                continue
            if framework not in ("*", "vllm-ascend"):
                # A torch_npu variable names PyTorch; a vLLM-Ascend server is told by --framework.
                self.frameworks.add(framework)
            self.text(option, raw, line, rank, origin=origin, seq=seq)

    def ms_alloc_conf(self, raw: str, line: int | None, how: str) -> None:
        """MindSpore's MS_ALLOC_CONF, split as MindSpore splits it (app/mindspore_memory.py): each
        key the catalog names (targets.ms_alloc_conf) is that option's setting."""
        from cann_config.app.mindspore_memory import parse_ms_alloc_conf

        self.frameworks.add("mindspore")
        values, _unknown = parse_ms_alloc_conf(raw)
        for option in load_catalog().options.values():
            key = option.targets.ms_alloc_conf
            if key and key in values:
                self.text(option, values[key], line, RANK_ENV_FRAMEWORK, via="env", name=MS_ALLOC_VARIABLE, how=how)

    def read_alloc_conf(self) -> None:
        """torch_npu reads PYTORCH_NPU_ALLOC_CONF, else PYTORCH_ALLOC_CONF (app/allocconf.py); the
        last assignment of the variable it reads is the one in effect, and it replaces the whole
        setting: a key it leaves out is at its default."""
        if not self.alloc_conf:
            return
        last = {name: (raw, line, expression, how, origin)
                for name, raw, line, expression, how, origin in self.alloc_conf}
        name = VARIABLE if VARIABLE in last else next(iter(last))
        raw, line, expression, how, origin = last[name]
        if len(last) > 1:
            texts = {n: (v if isinstance(v, str) else e) for n, (v, _l, e, _h, _o) in last.items()}
            both = both_variables_finding(texts, file=self.source, line=line)
            if both is not None:
                self.findings.append(both)
        options = alloc_options().values()
        if raw is _DYNAMIC:
            if not origin.conditional:
                self.finding("import-dynamic-value", line, option=name, expression=expression)
            for option in options:
                self.candidates.append(_Candidate(option, _DYNAMIC, line, RANK_ENV_FRAMEWORK, origin))  # type: ignore[arg-type]
            return
        if not isinstance(raw, str):
            self.finding("import-invalid-value", line, option=name,
                         reason=f"environment values are strings, not {raw!r} ({name})")
            return
        parsed = parse_alloc_conf(raw, variable=name, file=self.source, line=line)
        self.findings += parsed.findings
        for option in options:
            value = parsed.values.get(option.id, option.default)
            self.candidates.append(_Candidate(option, value, line, RANK_ENV_FRAMEWORK, origin))

    def result(self) -> ImportedSettings:
        self.read_alloc_conf()
        by_option: dict[str, list[_Candidate]] = {}
        for candidate in self.candidates:
            by_option.setdefault(candidate.option.id, []).append(candidate)
        settings: dict[str, tuple[Value, int | None]] = {}
        unknown: dict[str, int | None] = {}
        origins: dict[str, SettingOrigin] = {}
        catalog = load_catalog()
        for oid in catalog.options:  # catalog order, so the result does not depend on the walk
            found = by_option.get(oid)
            if not found:
                continue
            ordered = sorted(found, key=lambda c: (c.rank, c.order))
            used = ordered[-1]
            origins[oid] = used.origin if used.origin.line is not None or used.line is None else \
                SettingOrigin(used.line, known=used.value is not _DYNAMIC)
            if used.value is _DYNAMIC:
                unknown[oid] = used.line
            else:
                settings[oid] = (used.value, used.line)
            # a value that depends on a run-time branch already names every value it may have
            others = [] if used.origin.conditional else [c for c in found if c is not used and c.value != used.value]
            if others:
                first = min(others, key=lambda c: c.line or 0)
                lines = sorted([first.line or 0, used.line or 0])
                self.finding("import-set-twice", used.line, option=oid, first=lines[0], second=lines[1],
                             used=used.line)
        for name, option, line in self.legacy:
            if option.id in settings:
                self.finding("import-legacy-env", line, name=name, option=option.id)
        framework = next(iter(self.frameworks)) if len(self.frameworks) == 1 else None
        findings = sorted(self.findings, key=lambda f: (f.line or 0))
        return ImportedSettings(self.source, settings, findings, framework, unknown, origins)



# ---------------------------------------------------------------------------------------------
# Python scripts
# ---------------------------------------------------------------------------------------------


# The Ascend adapter packages and the framework each serves (docs/cann/memory.md#export-targets,
# docs/cann/torch-npu.md).
_FRAMEWORK_MODULES = {"npu_bridge": "tf1", "npu_device": "tf2", "torch_npu": "pytorch"}


class _ScriptImporter:
    """Turns what app.io.scripts saw in a script into catalog settings."""

    def __init__(self, reading: ScriptReading):
        self.reading = reading
        self.out = _Collector(reading.source)
        self.names = _names()

    def read(self) -> ImportedSettings:
        for call in self.reading.calls:
            if call.name == "MemoryConfig":
                self.out.frameworks.add("tf1")
                self.keywords(call, self.names.memory_config, strict=True)
            else:
                self.out.frameworks.add("tf1")
                # NPURunConfig takes many other keywords; only the catalog's are read.
                self.keywords(call, self.names.npu_run_config, strict=False)
        for item in self.reading.fields:
            if item.kind == "parameter_map":
                key, field_name = item.path
                if key in self.names.parameter_map:
                    self.out.frameworks.add("tf1")
                    self.parameter_map(key, field_name, item.value)
            elif item.path in self.names.tf2:
                self.out.frameworks.add("tf2")
                self.python_value(self.names.tf2[item.path], item.value, "global_options")
        for entry in self.reading.mappings:
            if entry.key in self.names.ge:
                self.out.frameworks.add("ge")
                self.ge_value(entry.key, entry.value)
        final = self.reading.env_state
        for seq, state in enumerate(self.reading.env_applied):
            # what the run leaves, in the order it does; a variable the script finally removes is not its setting
            if state.unset or final[state.name].unset:
                continue
            self.out.env(state.name, state.value if state.known else _DYNAMIC, state.line, state.expression,
                         how=state.how, state=state, seq=seq)
        self.state_findings()
        for option_call in self.reading.set_options:
            self.set_option(option_call)
        if not self.out.frameworks:
            # No setting names its framework: the adapter the script imports does, when only one.
            imported = {_FRAMEWORK_MODULES.get(name.split(".")[0]) for name in self.reading.imports} - {None}
            if len(imported) == 1:
                self.out.frameworks |= imported  # type: ignore[arg-type]
        result = self.out.result()
        result.environment = list(self.reading.env)
        result.set_options = list(self.reading.set_options)
        result.env_state = dict(self.reading.env_state)
        return result

    def state_findings(self) -> None:
        """One finding per variable CANN or torch_npu reads that the script leaves as a default
        the launching environment may replace, or as a value that depends on a run-time branch
        (the twins of the shell reader's, app/io/envfile.py)."""
        from cann_config.app.io.shellread import WATCHED

        for line, expression in self.reading.env_unknown:
            self.out.finding("import-env-name-unknown", line, expression=expression)
        watched = catalog_env_names()
        for name, state in self.reading.env_state.items():
            if name not in watched and not WATCHED.fullmatch(name):
                continue
            if state.inherited and state.known:
                written = state.expression or f"os.environ.setdefault({name!r}, {str(state.value)!r})"
                self.out.finding("import-default-if-unset", state.line, name=name, value=str(state.value),
                                 variable=state.inherited, expression=written)
            elif state.branches:
                self.out.finding("import-conditional-value", state.line, name=name, branches=state.shown())

    def keywords(self, call: KeywordCall, names: Mapping[str, Option], strict: bool) -> None:
        if strict and call.positional:
            self.out.finding("import-positional-arguments", call.line, call=call.name)
        for keyword, value in call.keywords:
            if keyword is None:
                self.out.finding("import-dynamic-value", value.line, option=f"{call.name}(**...)",
                                 expression=value.expression)
            elif keyword in names:
                self.python_value(names[keyword], value, call.name)
            elif strict:
                self.out.finding("import-unknown-keyword", value.line, call=call.name, keyword=keyword)

    def python_value(self, option: Option, value: ScriptValue, via: str) -> None:
        if value.known:
            self.out.typed(option, value.value, value.line, via=via)
        else:
            self.out.dynamic(option, value.line, value.expression, via=via)

    def parameter_map(self, key: str, field_name: str, value: ScriptValue) -> None:
        option = self.names.parameter_map[key]
        pm = option.targets.parameter_map
        assert pm is not None
        if field_name != pm.field:
            self.out.finding("import-wrong-field", value.line, key=key, field=field_name, expected=pm.field)
            return
        if field_name == "s" and value.known and not isinstance(value.value, bytes):
            # A .s field takes bytes (b"v", tf.compat.as_bytes("v")); anything else is not read.
            value = ScriptValue(UNKNOWN, value.line, repr(value.value))
        self.python_value(option, value, "parameter_map")

    def ge_value(self, name: str, value: ScriptValue) -> None:
        option = self.names.ge[name]
        if not value.known:
            self.out.dynamic(option, value.line, value.expression, label=f"{option.id} ({name})", via=name)
        elif isinstance(value.value, str):
            self.out.text(option, value.value, value.line, RANK_CODE, via=name)
        else:
            # GE option values are strings (docs/cann/memory.md#engine-option-names); say so, and read the value.
            self.out.finding("import-ge-value-not-string", value.line, name=name, value=value.value)
            self.out.typed(option, value.value, value.line, via=name)

    def set_option(self, call: OptionCall) -> None:
        """torch_npu's set_option takes the ACL_* names of the op cache variables as keys, and
        wins over those variables; it serves single-operator mode (docs/cann/torch-npu.md#set-option)."""
        self.out.frameworks.add("pytorch")
        if not call.options and not call.complete:
            self.out.finding("import-dynamic-value", call.line, option=f"{call.call}(...)",
                             expression=call.expression)
            return
        for key, value in call.options.items():
            for option, framework in self.names.env.get(key, ()):
                if framework != "pytorch":
                    continue
                label = f"{option.id} ({key})"
                if not value.known:
                    self.out.dynamic(option, call.line, value.expression, RANK_CODE, label, via="set_option",
                                     name=key)
                elif not isinstance(value.value, str):
                    self.out.finding("import-invalid-value", call.line, option=option.id,
                                     reason=Message("import-reason-set-option-not-string", key=key,
                                                    value=repr(value.value)))
                else:
                    self.out.text(option, value.value, call.line, RANK_CODE, via="set_option", name=key)


def runtime_notes(imported: ImportedSettings) -> list[Finding]:
    """For the wizard's list of what a file set: one line per option the file sets to a value
    known only at run time, saying the wizard cannot take it (its editor keeps the wizard's own
    choice, which is not the script's)."""
    notes = []
    for oid, line in imported.unknown.items():
        origin = imported.origins.get(oid)
        expression = origin.expression if origin is not None else ""
        notes.append(make_finding("import-runtime-not-taken", file=imported.source, line=line, option=oid,
                                  expression=expression))
    return notes


def import_script(text: str, source: str) -> ImportedSettings:
    """The memory and cache settings a Python script makes, read with `ast` (never executed).

    Raises InputError (naming `source` and the line) when the text is not Python.
    """
    try:
        tree = ast.parse(text, filename=source)
    except SyntaxError as exc:
        raise InputError.from_code("import-not-python", source, exc.lineno, reason=exc.msg) from None
    except ValueError as exc:  # e.g. a NUL byte in the source
        raise InputError.from_code("import-not-python", source, reason=str(exc)) from None
    except (RecursionError, MemoryError):
        # Nesting deeper than Python's own parser and compiler accept: no training script.
        raise InputError.from_code("import-script-too-complex", source) from None
    try:
        return _ScriptImporter(read_script(tree, text, source)).read()
    except (RecursionError, MemoryError):
        # An expression so deep that walking it (to show it in a finding) exhausts the stack.
        raise InputError.from_code("import-script-too-complex", source) from None

# ---------------------------------------------------------------------------------------------
# Environment files
# ---------------------------------------------------------------------------------------------


def import_env_settings(envfile: Any) -> ImportedSettings:
    """The settings of an env file parsed by app.io.envfile (its own findings are not repeated)."""
    source = getattr(envfile, "source", None) or "<env>"
    out = _Collector(str(source))
    for name, value in envfile.values.items():
        out.env(name, value, envfile.lines.get(name))
    return out.result()


_FISH_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "e": "\x1b", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
_FISH_EXPANSIONS = "$()*?{}"


class _FishWords:
    """Splits fish source into commands of words, decoding quotes and escapes.

    Handles what fish gives a literal meaning to (single and double quotes, backslash escapes
    including \\xHH and \\XHH bytes, \\u, \\U, octal, line continuations, comments). A word that
    would be expanded (variables, command substitution, globs, braces, a leading ~) is marked,
    not expanded.
    """

    def __init__(self, text: str):
        self.text = text
        self.pos = 0
        self.line = 1

    def _peek(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.text[index] if index < len(self.text) else ""

    def _advance(self) -> str:
        ch = self.text[self.pos]
        self.pos += 1
        if ch == "\n":
            self.line += 1
        return ch

    def _hex(self, limit: int, digits: str = "0123456789abcdefABCDEF") -> str:
        out = ""
        while len(out) < limit and self._peek() and self._peek() in digits:
            out += self._advance()
        return out

    def _escape(self, buf: bytearray) -> None:
        ch = self._advance() if self._peek() else "\\"
        if ch == "\n":
            return  # line continuation
        if ch in _FISH_SIMPLE_ESCAPES:
            buf += _FISH_SIMPLE_ESCAPES[ch].encode()
        elif ch in "xX":
            digits = self._hex(2)
            buf += bytes([int(digits, 16)]) if digits else ch.encode()
        elif ch in "uU":
            digits = self._hex(4 if ch == "u" else 8)
            buf += chr(int(digits, 16)).encode("utf-8", "surrogatepass") if digits else ch.encode()
        elif ch in "01234567":
            digits = ch + self._hex(2, "01234567")
            buf += bytes([int(digits, 8) & 0xFF])
        elif ch == "c" and self._peek():
            buf += bytes([ord(self._advance()) & 0x1F])
        else:
            buf += ch.encode("utf-8", "surrogatepass")

    def commands(self) -> Iterable[tuple[int, list[tuple[str, bool]]]]:
        """(line, [(word, expands)]) for each command."""
        words: list[tuple[str, bool]] = []
        start = self.line
        while self.pos < len(self.text):
            ch = self._peek()
            if ch in "\n;":
                self._advance()
                if words:
                    yield start, words
                words = []
                start = self.line
            elif ch in " \t\r":
                self._advance()
            elif ch == "#":
                while self._peek() and self._peek() != "\n":
                    self._advance()
            else:
                if not words:
                    start = self.line
                words.append(self._word())
        if words:
            yield start, words

    def _word(self) -> tuple[str, bool]:
        buf = bytearray()
        expands = self._peek() == "~"
        while self.pos < len(self.text):
            ch = self._peek()
            if ch in " \t\r\n;":
                break
            self._advance()
            if ch == "\\":
                self._escape(buf)
            elif ch == "'":
                while self.pos < len(self.text) and self._peek() != "'":
                    c = self._advance()
                    if c == "\\" and self._peek() in ("\\", "'"):
                        c = self._advance()
                    buf += c.encode("utf-8", "surrogatepass")
                if self.pos < len(self.text):
                    self._advance()
            elif ch == '"':
                while self.pos < len(self.text) and self._peek() != '"':
                    c = self._advance()
                    if c == "\\" and self._peek() in ('\\', '"', "$", "\n"):
                        c = self._advance()
                        if c == "\n":
                            continue
                    elif c == "$":
                        expands = True
                    buf += c.encode("utf-8", "surrogatepass")
                if self.pos < len(self.text):
                    self._advance()
            else:
                if ch in _FISH_EXPANSIONS:
                    expands = True
                buf += ch.encode("utf-8", "surrogatepass")
        return buf.decode("utf-8", "surrogateescape"), expands


def import_fish_env(text: str, source: str) -> ImportedSettings:
    """The settings of a fish file: `set -gx NAME value` (and `set --export --global ...`)."""
    out = _Collector(source)
    for line, words in _FishWords(text).commands():
        if words[0] != ("set", False):
            continue
        args = [w for w in words[1:]]
        flags = set()
        while args and args[0][0].startswith("-") and args[0][0] != "--":
            flags.add(args.pop(0)[0])
        if args and args[0][0] == "--":
            args.pop(0)
        erase = any(f in ("-e", "--erase") or (not f.startswith("--") and "e" in f) for f in flags)
        if not args or erase:
            continue
        (name, _), values = args[0], args[1:]
        if any(expands for _, expands in values):
            out.finding("import-shell-expansion", line, name=name,
                        expression=" ".join(v for v, _ in values)[:60])
            continue
        if len(values) != 1:
            # fish joins a list with spaces when it exports it; a cache setting is one value.
            out.env(name, _DYNAMIC, line, " ".join(v for v, _ in values)[:60])
            continue
        out.env(name, values[0][0], line)
    return out.result()


# ---------------------------------------------------------------------------------------------
# op_cache.ini, profiles, and any export format
# ---------------------------------------------------------------------------------------------


def import_ini_settings(ini: Any) -> ImportedSettings:
    """The size settings of an op_cache.ini (app.opcache.ini.OpCacheIni), read as CANN reads
    them: the number std::stoi finds at the start of the value ("500MB" gives 500). Whether
    CANN uses the file at all (version lines, foreign sections) is the ini's own findings' job."""
    catalog = load_catalog()
    out = _Collector(str(ini.source))
    by_key = {o.targets.ini: o for o in catalog.options.values() if o.targets.ini}
    for key, entry in ini.values_as_cann_reads().items():
        option = by_key.get(key)
        if option is None:
            continue
        number = cann_stoi(entry.value)
        if number.value is None:
            out.finding("import-invalid-value", entry.line, option=option.id,
                        reason=f"{entry.value!r} is not a number CANN can read")
        else:
            out.typed(option, number.value, entry.line)
    return out.result()


def import_profile_text(text: str, source: str) -> ImportedSettings:
    """A profile (JSON) as ImportedSettings; InputError when it is not a valid profile."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError.from_code("import-error-not-json", source, exc.lineno, detail=exc.msg) from None
    profile = profile_from_json(data, source)
    settings: dict[str, tuple[Value, int | None]] = {oid: (value, None) for oid, value in profile.options.items()}
    return ImportedSettings(source, settings, [], profile.framework)


# ---------------------------------------------------------------------------------------------
# The readers of the export formats (app/io/formats.py names one per format)
# ---------------------------------------------------------------------------------------------


def read_python_export(text: str, source: str) -> ImportedSettings:
    """tf1-estimator, tf1-session, tf2, ge-options, torch-npu: a script like any other."""
    return import_script(text, source)


def read_env_bash(text: str, source: str) -> ImportedSettings:
    """env-bash: the environment bash leaves after `source FILE` (app/io/envfile.py)."""
    return import_env_settings(parse_env_text(text, source))


def read_op_cache_ini_export(text: str, source: str) -> ImportedSettings:
    """op-cache-ini: the size keys as CANN reads them."""
    return import_ini_settings(parse_op_cache_ini(text.encode("utf-8"), source))


def read_ansible_playbook(text: str, source: str) -> ImportedSettings:
    """ansible: the variables the playbook writes to its profile file (an env-bash text inside it)."""
    return import_env_settings(parse_env_text(playbook_env_text(text)[0], source))


def read_collect_playbook(text: str, source: str) -> ImportedSettings:
    """ansible-collect: it carries no choice."""
    return _Collector(source).result()


def read_configmap(text: str, source: str) -> ImportedSettings:
    """k8s-configmap: the ConfigMap's data, each key an environment variable."""
    out = _Collector(source)
    for name, value, line in configmap_items(text):
        out.env(name, value, line)
    return out.result()


def read_vllm_serve(text: str, source: str) -> ImportedSettings:
    """vllm-serve: the launch script's variables as bash sets them, and the flags of its
    `vllm serve` command that the catalog names (targets.vllm_flag)."""
    import shlex

    imported = read_env_bash(text, source)
    flags = {o.targets.vllm_flag: o for o in load_catalog().options.values() if o.targets.vllm_flag}
    for number, line in enumerate(text.splitlines(), 1):
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue
        starts = [i for i in range(len(words) - 1) if words[i] == "vllm" and words[i + 1] == "serve"]
        if not starts:
            continue
        rest = words[starts[0] + 2:]
        for index, word in enumerate(rest):
            name, eq, value = word.partition("=")
            option = flags.get(name)
            if option is None:
                continue
            raw = value if eq else (rest[index + 1] if index + 1 < len(rest) else "")
            try:
                imported.settings[option.id] = (option.parse(raw), number)
            except ValueError as exc:
                imported.findings.append(make_finding("import-invalid-value", file=source, line=number,
                                                      option=option.id, reason=explain(exc)))
    imported.framework = "vllm-ascend"
    return imported


def read_mindspore_export(text: str, source: str) -> ImportedSettings:
    """mindspore: the script's variables, and what MindSpore 2.10 takes from its
    `runtime.set_memory` / `set_context` calls (app/io/mindspore_script.py, app/mindspore_memory.py)."""
    from cann_config.app.io.mindspore_script import read_mindspore_script
    from cann_config.app.mindspore_memory import CONTEXT_OPTIONS, mindspore_settings

    imported = import_script(text, source)
    reading = read_mindspore_script(text, source)
    environ = {a.name: a.value for a in reading.env if a.known and isinstance(a.value, str)}
    found = mindspore_settings(reading.calls, environ, file=source)
    for oid, (value, _file, line, _how) in found.values.items():
        imported.settings[oid] = (value, line)
    memory_calls = [c for c in reading.calls if c.api == "set_memory" or set(c.keywords) & set(CONTEXT_OPTIONS)]
    if memory_calls:
        # Which call set the memory options (the catalog's mindspore_memory_api: set_memory or set_context).
        imported.settings["mindspore_memory_api"] = ("set_memory" if memory_calls[0].api == "set_memory"
                                                     else "set_context", memory_calls[0].line)
    imported.findings.extend(found.findings)
    imported.framework = "mindspore"
    return imported


def import_text(text: str, fmt: str, source: str) -> ImportedSettings:
    """Read back the text of an export format with the reader app.io.formats names for it
    (ValueError for an unknown format)."""
    reader: Callable[[str, str], ImportedSettings] = globals()[export_format(fmt).reader]
    return reader(text, source)


MAX_SCRIPT_BYTES = 8 << 20


def _read_source_text(path: str | os.PathLike[str], kind: Message) -> str:
    """A script or fish file as text; InputError (one line naming the file) when unusable."""
    data, _ = read_input_bytes(path, kind, MAX_SCRIPT_BYTES)
    if b"\x00" in data:
        raise InputError.from_code("cache-error-nul", os.fspath(path))
    return data.decode("utf-8", "replace")


def read_script_text(path: str | os.PathLike[str]) -> str:
    """A script's text through the guarded reader, decoded as `import_script_file` decodes it
    (InputError, one line, when it cannot be read)."""
    source = str(path)
    data, _ = read_input_bytes(path, Message("cache-kind-script"), MAX_SCRIPT_BYTES)
    if b"\x00" in data:
        raise InputError.from_code("cache-error-nul", source)
    return decode_python_source(data, source).text


def import_script_file(path: str | os.PathLike[str]) -> ImportedSettings:
    """`import_script` on a file (the CLI's --script and the wizard's "open script"), its bytes
    decoded as Python decodes them (BOM, PEP 263 cookie: app/io/pysource.py)."""
    source = str(path)
    data, _ = read_input_bytes(path, Message("cache-kind-script"), MAX_SCRIPT_BYTES)
    if b"\x00" in data:
        raise InputError.from_code("cache-error-nul", source)
    decoded = decode_python_source(data, source)
    imported = import_script(decoded.text, source)
    if decoded.unusual:
        imported.findings.insert(0, make_finding("import-script-encoding", file=source, line=decoded.declared_line,
                                                 encoding=decoded.encoding))
    return imported


def import_fish_file(path: str | os.PathLike[str]) -> ImportedSettings:
    """`import_fish_env` on a file (a saved env-fish export)."""
    return import_fish_env(_read_source_text(path, Message("cache-kind-env-file")), str(path))
