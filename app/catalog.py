"""The option catalog: every CANN option the assistant knows, loaded from `resources/catalog.toml`.

This is the one source of truth: pages, the documentation pane, validation, exporters, importers
and `cann-config options` are all generated from the objects defined here. The loader is strict
(in the manner of qutebrowser's `configdata._read_yaml`): an unknown key, a missing text or a
default outside the allowed values is refused with a message naming the file and the entry, so a
broken catalog never reaches a user.
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from cann_config.app.datafiles import compiled_data, toml_module
from cann_config.app.device.table import load_device_table
from cann_config.app.errors import InvalidValue, Message
from cann_config.app.i18n import pick
from cann_config.app.resources import resource

OPTION_TYPES = ("int", "float", "bool", "str", "path")
PAGES = ("memory", "cache")
SEVERITIES = ("error", "warning", "info")
TARGET_KEYS = ("memory_config", "npu_run_config", "parameter_map", "tf2", "ge", "atc", "acl", "env", "ini",
               "alloc_conf", "vllm_flag", "ms_runtime", "ms_context", "ms_alloc_conf", "shapes")
# What a `requires` table may name: the minimum version of each component an option needs.
REQUIREMENT_KEYS = ("torch_npu", "driver", "cann")
# The words `--set ID=...` takes for "not set" on an option whose default is unset.
UNSET_WORDS = ("", "unset")

# A chosen value. "" is "not set" for every type (the component's own default applies).
Value = int | float | bool | str


def _is_type(kind: str, value: object) -> bool:
    """Whether `value` has the catalog type `kind` (a bool is not an int; an int is a float)."""
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, str)


REQUIREMENT_NAMES = {"torch_npu": "TorchNPU", "driver": "driver (HDK)", "cann": "CANN"}

# Linux PATH_MAX (bytes, with the final NUL): no system call takes a longer path.
PATH_MAX = 4096


class CatalogError(Exception):
    """The catalog data is malformed. The message names the file and the entry."""


class ValueDoc(NamedTuple):
    """One allowed value of an enumerated option, with its meaning in both languages."""

    value: Value
    text: Mapping[str, str]


class Note(NamedTuple):
    """A rule the user must know about an option, for some values or for all."""

    code: str
    severity: str
    text: Mapping[str, str]
    values: tuple[Value, ...] | None = None
    # A question only the user can answer ("concurrent-graphs"): answered no, the rule does not
    # bite and is shown as info; unanswered or yes, with its own severity. Every page, export and
    # the CLI take the severity from here (Option.notes_for), never decide it themselves.
    question: str | None = None
    # A size rule: the note applies to a value from 0 up to, not including, `below` (a special
    # negative value such as -1, "ageing off", is no size and is left out).
    below: int | None = None
    # The frameworks the rule is about (catalog `frameworks`, e.g. vLLM-Ascend's sleep mode): for
    # another framework, or when none is known, it is not said. None: every framework.
    frameworks: tuple[str, ...] | None = None

    def concerns(self, framework: str | None) -> bool:
        """Whether the rule is about settings used with `framework` (None: not known)."""
        return self.frameworks is None or framework in self.frameworks

    def applies_to(self, value: Value) -> bool:
        if self.below is not None and not (isinstance(value, int) and not isinstance(value, bool)
                                           and 0 <= value < self.below):
            return False
        return self.values is None or value in self.values

    def for_answers(self, answers: Mapping[str, bool] | None) -> "Note":
        """The note with the severity the user's answers give it."""
        if self.question and answers is not None and answers.get(self.question) is False and self.severity != "info":
            return self._replace(severity="info")
        return self


class ParameterMapTarget(NamedTuple):
    """`custom_op.parameter_map[key].<field>` in a TF1 session config."""

    key: str
    field: str  # "i" for integers, "s" for bytes


class Targets(NamedTuple):
    """The option's name in each export target; None where the target cannot carry it."""

    memory_config: str | None = None
    npu_run_config: str | None = None
    parameter_map: ParameterMapTarget | None = None
    tf2: str | None = None
    ge: str | None = None
    atc: str | None = None
    acl: str | None = None
    env: Mapping[str, str] = {}
    ini: str | None = None
    alloc_conf: str | None = None  # the key inside torch_npu's PYTORCH_NPU_ALLOC_CONF
    vllm_flag: str | None = None  # the launch flag of `vllm serve` (app/vllm_ascend.py)
    # MindSpore (app/mindspore_memory.py): the argument of mindspore.runtime.set_memory, the keyword
    # of mindspore.set_context ("ascend_config.<key>" inside ascend_config), the key in MS_ALLOC_CONF
    ms_runtime: str | None = None
    ms_context: str | None = None
    ms_alloc_conf: str | None = None
    shapes: str | None = None  # not a setting: it shapes the export named (mindspore_memory_api)

    def env_for(self, framework: str) -> str | None:
        """The environment variable that carries the option for `framework`, if any."""
        return self.env.get(framework) or self.env.get("*")


class Option(NamedTuple):
    id: str
    page: str
    type: str
    default: Value
    title: Mapping[str, str]
    doc: Mapping[str, str]
    targets: Targets
    values: tuple[ValueDoc, ...] = ()
    special: tuple[ValueDoc, ...] = ()
    notes: tuple[Note, ...] = ()
    series: tuple[str, ...] | None = None
    unit: str = ""
    min: int | float | None = None
    max: int | float | None = None
    min_exclusive: bool = False
    max_exclusive: bool = False
    advanced: bool = False
    documented: bool = True
    legacy_env: str | None = None
    sources: tuple[str, ...] = ()
    requires: Mapping[str, str] = {}
    # A component's own check of the value ("mindspore": app/mindspore_memory.py, MindSpore 2.10's
    # validators), after the catalog's own.
    validator: str | None = None

    @property
    def enumerated(self) -> bool:
        return bool(self.values)

    @property
    def unset_default(self) -> bool:
        """The option is not set unless the user sets it ("" default): the component decides."""
        return self.default == "" and self.type != "str" and self.type != "path"

    def allowed_values(self) -> tuple[Value, ...]:
        return tuple(v.value for v in self.values)

    def value_doc(self, value: Value) -> ValueDoc | None:
        for doc in self.values + self.special:
            if doc.value == value:
                return doc
        return None

    def check(self, value: object) -> str | None:
        """Why `value` is not a valid choice for this option (English), or None if it is."""
        problem = self.problem(value)
        return problem.text("en") if problem is not None else None

    def problem(self, value: object) -> Message | None:
        """Why `value` is not a valid choice for this option, as a message in both languages
        (resources/messages/core.toml), or None if it is."""
        if self.unset_default and isinstance(value, str) and value == "":
            return None
        if not _is_type(self.type, value):
            code = {"int": "core-option-not-integer", "float": "core-option-not-number",
                    "bool": "core-option-not-bool"}.get(self.type, "core-option-not-string")
            return Message(code, option=self.id, value=value)
        if self.enumerated:
            if value not in self.allowed_values() or (self.type != "bool" and isinstance(value, bool)):
                allowed = ", ".join(repr(v) if v == "" else str(v) for v in self.allowed_values())
                return Message("core-option-not-allowed", option=self.id, allowed=allowed, value=value)
            return None
        if any(value == s.value for s in self.special):
            return None
        if self.min is not None and (value <= self.min if self.min_exclusive else value < self.min):  # type: ignore[operator]
            code = "core-option-not-above" if self.min_exclusive else "core-option-below-min"
            return Message(code, option=self.id, min=self.min, value=value)
        if self.max is not None and (value >= self.max if self.max_exclusive else value > self.max):  # type: ignore[operator]
            code = "core-option-not-below" if self.max_exclusive else "core-option-above-max"
            return Message(code, option=self.id, max=self.max, value=value)
        if self.type == "path" and ("\0" in value):  # type: ignore[operator]
            return Message("core-option-nul", option=self.id)
        if isinstance(value, str):
            try:
                encoded = value.encode("utf-8")
            except UnicodeEncodeError:
                # Bytes that are not UTF-8 (argv decoded with surrogateescape, a JSON "\udcff"):
                # every export is UTF-8 text, so the value cannot be written into one.
                return Message("core-option-not-utf8", option=self.id)
            if self.type == "path" and len(encoded) >= PATH_MAX:
                return Message("core-option-path-too-long", option=self.id, limit=PATH_MAX, size=len(encoded))
        if self.validator == "mindspore" and isinstance(value, str) and value != "":
            from cann_config.app.mindspore_memory import option_problem

            return option_problem(self, value)
        return None

    @property
    def takes_sizes(self) -> bool:
        """Its value is a size counted in KB, MB or GB: typed as "2 GB" too (app/sizes.py)."""
        return self.type == "int" and self.unit in ("KB", "MB", "GB")

    def parse(self, text: str) -> Value:
        """Turn command-line text (`--set ID=TEXT`) into a value of this option's type.

        Raises InvalidValue (a ValueError) with a one-line reason when the text is not a valid value.
        """
        value: Value
        word = text.strip()
        if self.unset_default and word.lower() in UNSET_WORDS:
            return ""
        if self.type == "int":
            if not re.fullmatch(r"[+-]?[0-9]+", word):
                raise InvalidValue.from_code("core-option-not-integer", option=self.id, value=text)
            value = int(word)
        elif self.type == "float":
            if not re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", word):
                raise InvalidValue.from_code("core-option-not-number", option=self.id, value=text)
            value = float(word)
        elif self.type == "bool":
            # true/false in any case on the command line; the exports write True/False exactly.
            if word.lower() not in ("true", "false"):
                raise InvalidValue.from_code("core-option-not-bool", option=self.id, value=text)
            value = word.lower() == "true"
        else:
            value = text
        problem = self.problem(value)
        if problem is not None:
            raise InvalidValue(problem)
        return value

    def parse_typed(self, text: str) -> Value:
        """What a person typed (`--set ID=TEXT`, the wizard's size box): as `parse`, and for an
        option counting in KB, MB or GB a size with its unit too ("2 GB", "1.5 GiB"), converted by
        the one size parser (app/sizes.py), which names the unit when it refuses. (`parse` stays
        strict: it also reads what CANN and torch_npu read, where "8kb" is no number.)"""
        if not self.takes_sizes or re.fullmatch(r"\s*[+-]?[0-9]+\s*", text) or (
                self.unset_default and text.strip().lower() in UNSET_WORDS):
            return self.parse(text)
        from cann_config.app.sizes import parse_size

        value = parse_size(text, str(self.unit), option=self.id)
        problem = self.problem(value)
        if problem is not None:
            raise InvalidValue(problem)
        return value

    def notes_for(self, value: Value, answers: Mapping[str, bool] | None = None, *,
                  framework: str | None) -> tuple[Note, ...]:
        """The rules that apply to `value` used with `framework`, each with the severity `answers`
        (the user's answers to the notes' questions, e.g. {"concurrent-graphs": False}) give it.
        A rule scoped to some frameworks (Note.frameworks) is left out for another one and when
        `framework` is None: a fact about vLLM-Ascend is not claimed for a job not known to be one."""
        return tuple(n.for_answers(answers) for n in self.notes if n.applies_to(value) and n.concerns(framework))

    def describe(self, lang: str | None = None) -> str:
        """The full documentation text of the option: meaning, values, default, rules."""
        lines = [pick(self.title, lang), "", pick(self.doc, lang), ""]
        for doc in self.values + self.special:
            shown = '""' if doc.value == "" else str(doc.value)
            lines.append(f"  {shown}: {pick(doc.text, lang)}")
        for note in self.notes:
            lines.append(f"  ! {pick(note.text, lang)}")
        if self.requires:
            needs = ", ".join(f"{REQUIREMENT_NAMES[key]} >= {version}" for key, version in self.requires.items())
            lines.append(f"  ({needs})")
        return "\n".join(lines).rstrip()


class Framework(NamedTuple):
    id: str
    name: Mapping[str, str]
    options: tuple[str, ...]
    defaults: Mapping[str, Value] = {}


class Catalog(NamedTuple):
    options: Mapping[str, Option]
    frameworks: Mapping[str, Framework]
    source: str

    def option(self, option_id: str) -> Option:
        try:
            return self.options[option_id]
        except KeyError:
            known = ", ".join(self.options)
            raise KeyError(f"unknown option {option_id!r}; known options: {known}") from None

    def default_for(self, option_id: str, framework: str | None = None) -> Value:
        """The option's default, as the given framework would use it."""
        if framework and framework in self.frameworks:
            overrides = self.frameworks[framework].defaults
            if option_id in overrides:
                return overrides[option_id]
        return self.option(option_id).default

    def defaults(self, framework: str | None = None) -> dict[str, Value]:
        return {oid: self.default_for(oid, framework) for oid in self.options}

    def on_page(self, page: str) -> list[Option]:
        return [o for o in self.options.values() if o.page == page]


# ---------------------------------------------------------------------------------------------
# The strict loader
# ---------------------------------------------------------------------------------------------


class _Reader:
    """Reads one table of the TOML document, refusing keys it was not told about."""

    def __init__(self, source: str, where: str, table: object):
        if not isinstance(table, dict):
            raise CatalogError(f"{source}: {where}: expected a table, got {type(table).__name__}")
        self.source, self.where, self.table = source, where, table
        self.seen: set[str] = set()

    def fail(self, message: str) -> CatalogError:
        return CatalogError(f"{self.source}: {self.where}: {message}")

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = ..., ) -> Any:
        self.seen.add(key)
        if key not in self.table:
            if default is ...:
                raise self.fail(f"missing key {key!r}")
            return default
        value = self.table[key]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise self.fail(f"{key!r} has the wrong type ({type(value).__name__})")
        return value

    def text(self, key: str) -> Mapping[str, str]:
        value = self.get(key, dict)
        return _text(self.source, f"{self.where}.{key}", value)

    def done(self) -> None:
        unknown = sorted(set(self.table) - self.seen)
        if unknown:
            raise self.fail(f"unknown key(s): {', '.join(unknown)}")


def _text(source: str, where: str, value: object) -> Mapping[str, str]:
    if not isinstance(value, dict):
        raise CatalogError(f"{source}: {where}: expected a table {{en = ..., zh = ...}}")
    missing = [lang for lang in ("en", "zh") if not isinstance(value.get(lang), str) or not value[lang].strip()]
    if missing:
        raise CatalogError(f"{source}: {where}: missing text in {', '.join(missing)}")
    extra = sorted(set(value) - {"en", "zh"})
    if extra:
        raise CatalogError(f"{source}: {where}: unknown language key(s): {', '.join(extra)}")
    return dict(value)


def _value_docs(source: str, where: str, items: object, kind: str) -> tuple[ValueDoc, ...]:
    if not isinstance(items, list):
        raise CatalogError(f"{source}: {where}: expected a list of tables")
    docs = []
    for index, item in enumerate(items):
        r = _Reader(source, f"{where}[{index}]", item)
        value = r.get("value", (int, float, bool, str))
        text = _text(source, f"{where}[{index}]", {k: r.get(k, str) for k in ("en", "zh")})
        r.done()
        # "" documents "not set" whatever the type (an option whose default is unset).
        if not _is_type(kind, value) and value != "":
            raise r.fail(f"value {value!r} does not match the option's type {kind}")
        docs.append(ValueDoc(value, text))
    seen = [d.value for d in docs]
    if len(set(seen)) != len(seen):
        raise CatalogError(f"{source}: {where}: a value is listed twice")
    return tuple(docs)


def _targets(source: str, where: str, table: object) -> Targets:
    r = _Reader(source, where, table)
    kwargs: dict[str, Any] = {}
    for key in TARGET_KEYS:
        if key == "parameter_map":
            pm = r.get(key, dict, None)
            if pm is not None:
                pr = _Reader(source, f"{where}.parameter_map", pm)
                key_name, field_name = pr.get("key", str), pr.get("field", str)
                pr.done()
                if field_name not in ("i", "s"):
                    raise pr.fail(f"field must be 'i' or 's', not {field_name!r}")
                kwargs[key] = ParameterMapTarget(key_name, field_name)
        elif key == "env":
            env = r.get(key, dict, {})
            if not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
                raise r.fail("env must map framework ids (or '*') to variable names")
            kwargs[key] = dict(env)
        else:
            kwargs[key] = r.get(key, str, None)
    r.done()
    return Targets(**kwargs)


def _option(source: str, option_id: str, table: object) -> Option:
    r = _Reader(source, f"options.{option_id}", table)
    kind = r.get("type", str)
    if kind not in OPTION_TYPES:
        raise r.fail(f"type must be one of {', '.join(OPTION_TYPES)}, not {kind!r}")
    page = r.get("page", str)
    if page not in PAGES:
        raise r.fail(f"page must be one of {', '.join(PAGES)}, not {page!r}")
    values = _value_docs(source, f"options.{option_id}.values", r.get("values", list, []), kind)
    special = _value_docs(source, f"options.{option_id}.special", r.get("special", list, []), kind)
    notes = []
    for index, item in enumerate(r.get("notes", list, [])):
        nr = _Reader(source, f"options.{option_id}.notes[{index}]", item)
        code = nr.get("code", str)
        severity = nr.get("severity", str)
        if severity not in SEVERITIES:
            raise nr.fail(f"severity must be one of {', '.join(SEVERITIES)}")
        note_values = nr.get("values", list, None)
        question = nr.get("question", str, None)
        below = nr.get("below", int, None)
        note_frameworks = nr.get("frameworks", list, None)
        if note_frameworks is not None and (not note_frameworks or not all(
                isinstance(f, str) and f for f in note_frameworks)):
            raise nr.fail("frameworks must be a non-empty list of framework ids")
        text = _text(source, nr.where, {k: nr.get(k, str) for k in ("en", "zh")})
        nr.done()
        notes.append(Note(code, severity, text, tuple(note_values) if note_values is not None else None, question,
                          below, tuple(note_frameworks) if note_frameworks is not None else None))
    series = r.get("series", list, None)
    default = r.get("default", (int, float, bool, str))
    if not _is_type(kind, default) and default != "":
        raise r.fail(f"the default {default!r} does not match the type {kind}")
    bounds = {key: r.get(key, (int, float), None) for key in ("min", "max")}
    for key, bound in bounds.items():
        if bound is not None and (isinstance(bound, bool) or (kind == "int" and not isinstance(bound, int))):
            raise r.fail(f"{key} {bound!r} does not match the type {kind}")
    requires = r.get("requires", dict, {})
    if not all(key in REQUIREMENT_KEYS and isinstance(v, str) and v for key, v in requires.items()):
        raise r.fail(f"requires names only {', '.join(REQUIREMENT_KEYS)}, each with a version string")
    option = Option(
        id=option_id,
        page=page,
        type=kind,
        default=default,
        title=r.text("title"),
        doc=r.text("doc"),
        targets=_targets(source, f"options.{option_id}.targets", r.get("targets", dict)),
        values=values,
        special=special,
        notes=tuple(notes),
        series=tuple(series) if series is not None else None,
        unit=r.get("unit", str, ""),
        min=bounds["min"],
        max=bounds["max"],
        min_exclusive=r.get("min_exclusive", bool, False),
        max_exclusive=r.get("max_exclusive", bool, False),
        advanced=r.get("advanced", bool, False),
        documented=r.get("documented", bool, True),
        legacy_env=r.get("legacy_env", str, None),
        sources=tuple(r.get("sources", list, [])),
        requires=dict(requires),
        validator=r.get("validator", str, None),
    )
    r.done()
    if option.validator not in (None, "mindspore"):
        raise r.fail(f"validator must be 'mindspore', not {option.validator!r}")
    reason = option.check(option.default)
    if reason:
        raise r.fail(f"the default is not valid: {reason}")
    for note in option.notes:
        for v in note.values or ():
            if option.enumerated and v not in option.allowed_values():
                raise r.fail(f"note {note.code!r} names value {v!r}, which the option does not allow")
    return option


def parse_catalog(text: str, source: str = "catalog.toml", series_ids: frozenset[str] | None = None) -> Catalog:
    """Build a Catalog from TOML text; raise CatalogError naming `source` and the entry."""
    tomllib = toml_module()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{source}: not valid TOML: {exc}") from None
    return catalog_from_data(data, source, series_ids)


def catalog_from_data(data: dict[str, Any], source: str = "catalog.toml",
                      series_ids: frozenset[str] | None = None) -> Catalog:
    """Build a Catalog from the catalog's parsed TOML; raise CatalogError naming `source` and the entry."""
    r = _Reader(source, "top level", data)
    if r.get("format", str) != "cann-config-catalog":
        raise r.fail("format must be 'cann-config-catalog'")
    if r.get("version", int) != 1:
        raise r.fail("only version 1 is understood")
    options = {oid: _option(source, oid, table) for oid, table in r.get("options", dict).items()}
    frameworks = {}
    for fid, table in r.get("frameworks", dict).items():
        fr = _Reader(source, f"frameworks.{fid}", table)
        framework = Framework(
            id=fid,
            name=fr.text("name"),
            options=tuple(fr.get("options", list)),
            defaults=dict(fr.get("defaults", dict, {})),
        )
        fr.done()
        for oid in framework.options + tuple(framework.defaults):
            if oid not in options:
                raise fr.fail(f"names unknown option {oid!r}")
        for oid, value in framework.defaults.items():
            reason = options[oid].check(value)
            if reason:
                raise fr.fail(f"default for {oid} is not valid: {reason}")
        frameworks[fid] = framework
    r.done()
    for option in options.values():
        for index, note in enumerate(option.notes):
            for fid in note.frameworks or ():
                where = f"{source}: options.{option.id}.notes[{index}].frameworks"
                if fid not in frameworks:
                    raise CatalogError(f"{where}: unknown framework {fid!r}")
                if option.id not in frameworks[fid].options:
                    raise CatalogError(f"{where}: framework {fid!r} does not take {option.id}")
        for env_key in option.targets.env:
            if env_key != "*" and env_key not in frameworks:
                raise CatalogError(f"{source}: options.{option.id}.targets.env: unknown framework {env_key!r}")
        if series_ids is not None:
            for sid in option.series or ():
                if sid not in series_ids:
                    raise CatalogError(f"{source}: options.{option.id}.series: unknown series {sid!r}")
    return Catalog(options=options, frameworks=frameworks, source=source)


def load_catalog_file(path: str | Path) -> Catalog:
    """Load a catalog from a file (used by tests on broken copies)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(f"{path}: cannot read: {exc}") from None
    return parse_catalog(text, str(path), frozenset(load_device_table().series))


@lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    """The catalog shipped in `resources/catalog.toml` (loaded once per process)."""
    raw = resource("catalog.toml").read_bytes()
    source, series_ids = "resources/catalog.toml", frozenset(load_device_table().series)
    data = compiled_data("catalog.toml", raw)
    if data is not None:
        return catalog_from_data(data, source, series_ids)
    return parse_catalog(raw.decode("utf-8"), source, series_ids)
