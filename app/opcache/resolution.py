"""The values CANN will actually use for the op cache, where each comes from, and why others lose.

Why this module exists: users set the cache in three places that override each other and ask
"why is my setting ignored?". This module answers exactly as CANN decides
(docs/cann/op-cache.md#precedence; `te_cache_space_manager.cc` `UpdateOpCacheSizeCfg`, `GetCacheSpaceMaxSizeCfg`,
`GetCacheRemainSizeRadio`; `te_cache_manager.cc`):

- `max_op_cache_size` / `remain_cache_size_ratio`: op_cache.ini › environment › default
  (500 MB / 50 %). The ini counts only when CANN uses the file at all (see app/opcache/ini.py)
  and then only when **both** of its size values are valid; otherwise both come from the
  environment. The ini values go through `std::stoi` (a leading number is read: "500 # MB" is
  500): max -1 turns ageing off, 0 and < -1 are invalid; the ratio must be 1..100.
  `ASCEND_MAX_OP_CACHE_SIZE` goes through `std::stoi` too (-1 or 1..2147483647, else a warning and
  500); `ASCEND_REMAIN_CACHE_SIZE_RATIO` through `atoi` (0..100 accepted, else a warning and 50;
  a value that is not a number reads as 0). A value set by a profile or a script (which sets the
  variable for its own process) sits between the ini and the shell environment.
- `op_compiler_cache_mode`: the framework's option, else its default (`enable`; `disable` for
  ATC and AscendCL). torch_npu reads `ACL_OP_COMPILER_CACHE_MODE` and silently turns any other
  value into `enable`.
- `op_compiler_cache_dir`: see app/opcache/cachedir.py.
- torch_npu's allocator (`npu_alloc_*`): a script's or profile's choice, else
  PYTORCH_NPU_ALLOC_CONF, else PYTORCH_ALLOC_CONF, read by app/allocconf.py as torch_npu reads
  it (a key the variable leaves out is at its default); shown for PyTorch or when one of the two
  variables is set (docs/cann/torch-npu.md).

Public API:
    resolve_settings(*, ini, environ, profile=None, framework=None, settings=None, env_file=None,
                     home=None, installed_versions=None) -> Resolution
    Resolution: effective: dict[option_id, Effective], findings: list[Finding],
                cache_dir: CacheDirResolution, framework
    Effective(value, source, file, line, variable, detail); Effective.to_json(lang=None)
    Setting(value, file=None, line=None, ..., script=False): a choice from a profile or (script
      True) from the user's script; Setting.source is "script" or "profile", the Effective's source.
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from cann_config.app.allocconf import (
    VARIABLES,
    alloc_options,
    both_variables_finding,
    check_alloc_values,
    chosen_variable,
    parse_alloc_conf,
)
from cann_config.app.catalog import Catalog, Value, load_catalog
from cann_config.app.errors import Message
from cann_config.app.findings import Finding, make_finding, sort_findings, unique_findings
from cann_config.app.i18n import pick
from cann_config.app.io.envfile import EnvFile
from cann_config.app.opcache.cachedir import CACHE_PATH_ENV, CacheDirResolution, resolve_cache_dir
from cann_config.app.opcache.ini import (
    INT_MAX,
    MAX_SIZE,
    REASON_CODES,
    REMAIN_RATIO,
    VERSION_KEYS,
    CannEntry,
    OpCacheIni,
    cann_stoi,
)

if TYPE_CHECKING:  # pragma: no cover - typing only: a profile is read by its own command, not here
    from cann_config.app.profile import Profile

SERVING_FRAMEWORK = "vllm-ascend"  # app/vllm_ascend.py FRAMEWORK (imported there only when used)
SOURCES = ("op_cache.ini", "env", "default", "profile", "script")
# The sources of a value chosen outside op_cache.ini and the environment (Setting.source).
CHOSEN_SOURCES = ("profile", "script")
CACHE_OPTIONS = ("max_op_cache_size", "remain_cache_size_ratio", "op_compiler_cache_mode", "op_compiler_cache_dir")
MAX_ENV = "ASCEND_MAX_OP_CACHE_SIZE"
RATIO_ENV = "ASCEND_REMAIN_CACHE_SIZE_RATIO"
TORCH_MODE_ENV = "ACL_OP_COMPILER_CACHE_MODE"
TORCH_DIR_ENV = "ACL_OP_COMPILER_CACHE_DIR"
AGEING_OFF = -1
DEFAULT_MAX_MB = 500
DEFAULT_RATIO = 50


def _text(code: str, **params: Any) -> dict[str, str]:
    return dict(make_finding(code, **params).text)


class Setting(NamedTuple):
    """A value chosen outside op_cache.ini and the environment: a profile or a script.

    `script` says the value came from the user's script (diagnose --script): its Effective's
    source is then "script", a profile's (the wizard's choices, --profile) "profile". From a script: `variable` names the environment variable or set_option key that carried it
    (None for a framework option), `over_env` says the script's own process sets it after the
    shell did (so it beats the shell's variable of the same name), and `runtime` marks a value
    known only when the script runs (`value` is then None and `expression` its source text).
    """

    value: Value  # None (typed as the value) only for a value known at run time (`runtime`)
    file: str | None = None
    line: int | None = None
    variable: str | None = None
    over_env: bool = False
    runtime: bool = False
    expression: str = ""
    script: bool = False

    @property
    def source(self) -> str:
        """The Effective source of the value: "script" (the user's script sets it) or "profile"."""
        return "script" if self.script else "profile"

    def where(self) -> str:
        if self.file is None:
            return "profile"
        return self.file if self.line is None else f"{self.file}:{self.line}"


class EnvOrigin(NamedTuple):
    """Where an environment variable the resolution reads was set (a script's own assignment):
    file and line, and `runtime` when its value is known only when the script runs (it is then
    absent from the environment given to the resolution)."""

    file: str | None
    line: int | None
    runtime: bool = False
    expression: str = ""


class Effective(NamedTuple):
    """The value CANN uses and where it comes from."""

    value: Value  # None only for a value known at run time (`runtime`)
    source: str  # one of SOURCES: "script" for a value the user's script sets, "profile" for a profile's
    file: str | None = None
    line: int | None = None
    variable: str | None = None  # the env var or option name, when one decided it
    detail: Mapping[str, str] | None = None  # how it was decided, zh and en
    runtime: bool = False  # set by a script to a value known only at run time (value None)
    expression: str | None = None  # the script's expression for a run-time value
    # the launching environment's variable that replaces this value when it is set: the value is a
    # default-if-unset (`${X:-d}`, os.environ.setdefault; app/support/envstates.py)
    inherited: str | None = None

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {"value": self.value, "source": self.source, "file": self.file, "line": self.line}
        if self.variable:
            data["variable"] = self.variable
        if self.detail:
            data["detail"] = pick(self.detail, lang)
        if self.runtime:
            data["runtime"] = True
            data["expression"] = self.expression
        if self.inherited:
            data["inherited"] = True
            data["inherited_from"] = self.inherited
        return data


def runtime_effective(setting: Setting, variable: str | None = None) -> Effective:
    """A value the script sets, known only at run time: never a default in its place."""
    where = setting.where()
    return Effective(None, "script", setting.file, setting.line,  # type: ignore[arg-type]  # no value yet
                     variable or setting.variable, _text("cache-detail-script-runtime", where=where, expression=setting.expression),
                     runtime=True, expression=setting.expression)


class Resolution:
    """The effective values CANN uses, what is wrong with the inputs, and the cache dir."""

    def __init__(self, effective: dict[str, Effective], findings: list[Finding], cache_dir: CacheDirResolution,
                 framework: str | None = None, ini_used: bool = False) -> None:
        self.effective = effective
        self.findings = findings
        self.cache_dir = cache_dir
        self.framework = framework
        self.ini_used = ini_used  # CANN takes both size values from op_cache.ini

    def has_errors(self) -> bool:
        return any(f.severity == "error" for f in self.findings)


# ---------------------------------------------------------------------------------------------
# How CANN turns text into numbers
# ---------------------------------------------------------------------------------------------


def c_atoi(text: str) -> tuple[int, bool, bool]:
    """`atoi(text)` as glibc computes it: (value, had digits, characters after the number).

    atoi is `(int) strtol(text, NULL, 10)`: leading C whitespace and a sign, then digits; no
    digits gives 0; the long saturates at 64 bits and the cast keeps the low 32 bits (inference:
    what glibc on a 64-bit host does; the C standard leaves overflow undefined).
    """
    match = re.match(r"[ \t\n\v\f\r]*([+-]?)([0-9]*)", text)
    assert match is not None
    sign, digits = match.groups()
    if not digits:
        return 0, False, bool(text.strip())
    number = int(sign + digits)
    number = max(-(2**63), min(2**63 - 1, number))
    number &= 0xFFFFFFFF
    if number >= 2**31:
        number -= 2**32
    return number, True, match.end() != len(text)


def size_in_range(key: str, number: int) -> bool:
    """Whether CANN takes `number` for the op_cache.ini size `key`: max_op_cache_size is -1
    (no ageing) or 1..INT_MAX MB, remain_cache_size_ratio 1..100 (the source accepts (0, 100]);
    docs/cann/op-cache.md#size-limit-and-keep-ratio."""
    if key == MAX_SIZE:
        return not (number == 0 or number < AGEING_OFF or number > INT_MAX)
    return 0 < number <= 100


def _alloc_keys(text: str | None) -> set[str]:
    """The keys a PYTORCH_NPU_ALLOC_CONF text names (spaces dropped, as torch_npu reads it)."""
    return {item.replace(" ", "").split(":", 1)[0] for item in (text or "").split(",")}


def serving_detail() -> dict[str, str]:
    """The detail of a value the serving stack set (app/vllm_ascend.py)."""
    from cann_config.app import vllm_ascend

    return _text("vllm-alloc-effective-serving", variable=vllm_ascend.VARIABLE, version=vllm_ascend.SOURCE_VERSION)


def _env_where(env_file: EnvFile | None, name: str,
               origins: Mapping[str, EnvOrigin] | None = None) -> tuple[str | None, int | None]:
    if origins and name in origins:
        return origins[name].file, origins[name].line
    if env_file is not None and name in env_file.values:
        return env_file.files.get(name, env_file.source), env_file.lines.get(name)
    return None, None


def _trim(text: str) -> str:
    return text.strip(" \t")


# ---------------------------------------------------------------------------------------------
# The resolver
# ---------------------------------------------------------------------------------------------


class _Resolver:
    def __init__(self, *, ini: OpCacheIni | None, environ: Mapping[str, str], settings: Mapping[str, Setting],
                 framework: str | None, env_file: EnvFile | None, home: str | None,
                 installed: Mapping[str, str] | None, catalog: Catalog,
                 env_origins: Mapping[str, EnvOrigin] | None = None, serving: bool = False):
        self.ini = ini
        self.env = environ
        self.settings = settings
        self.framework = framework
        self.env_file = env_file
        self.home = home
        self.installed = installed
        self.catalog = catalog
        self.env_origins = dict(env_origins or {})
        # The serving stack (vLLM-Ascend) rewrites torch_npu's allocator variable first.
        self.serving = serving
        self.effective: dict[str, Effective] = {}
        self.findings: list[Finding] = []

    @property
    def note_framework(self) -> str | None:
        """The framework the catalog's notes are said for: vLLM-Ascend when serving (resolved as
        a torch_npu process, `framework` is "pytorch" then), else `framework` (Option.notes_for)."""
        return SERVING_FRAMEWORK if self.serving else self.framework

    def add(self, code: str, file: str | None = None, line: int | None = None, **params: Any) -> None:
        self.findings.append(make_finding(code, file=file, line=line, **params))

    def where_set(self, name: str) -> tuple[str | None, int | None]:
        """File and line of the environment variable `name` (an env file's or a script's)."""
        return _env_where(self.env_file, name, self.env_origins)

    def env_value(self, name: str) -> str | None:
        """The variable as CANN reads it (trimmed of spaces and tabs); None when unset or empty."""
        raw = self.env.get(name)
        if raw is None:
            return None
        value = _trim(raw)
        return value or None

    # -- cache mode -------------------------------------------------------------------------

    def resolve_mode(self) -> None:
        option = self.catalog.option("op_compiler_cache_mode")
        raw = self.env.get(TORCH_MODE_ENV)
        file, line = self.where_set(TORCH_MODE_ENV)
        setting = self.settings.get(option.id)
        if setting is not None and setting.over_env and raw and self.framework == "pytorch":
            # The script sets the mode itself (set_option or its own os.environ), after the shell.
            self.add("cache-env-overridden-by-profile", file, line, variable=TORCH_MODE_ENV, value=raw,
                     where=setting.where())
            raw = None
        if setting is not None and setting.runtime and not (self.framework == "pytorch" and raw):
            result = runtime_effective(setting)
        elif self.framework == "pytorch" and raw:
            # torch_npu: enable/disable/force, case-sensitive; anything else silently becomes enable.
            if raw in option.allowed_values():
                value: Value = raw
            else:
                value = "enable"
                self.add("cache-env-mode-invalid", file, line, value=raw)
            result = Effective(value, "env", file, line, TORCH_MODE_ENV,
                               _text("cache-detail-env", variable=TORCH_MODE_ENV))
            if setting is not None and setting.runtime:
                self.add("cache-profile-overridden-by-env", setting.file, setting.line, option=option.id,
                         value=setting.expression, variable=TORCH_MODE_ENV, env_value=raw)
            elif setting is not None and setting.value != value:
                self.add("cache-profile-overridden-by-env", setting.file, setting.line, option=option.id,
                         value=setting.value, variable=TORCH_MODE_ENV, env_value=raw)
        elif setting is not None:
            reason = option.check(setting.value)
            if reason:
                self.add("cache-option-invalid", setting.file, setting.line, option=option.id,
                         value=setting.value, allowed=", ".join(map(str, option.allowed_values())))
            result = Effective(setting.value, setting.source, setting.file, setting.line, None,
                               _text("cache-detail-profile", where=setting.where()))
        else:
            value = self.catalog.default_for(option.id, self.framework)
            if self.framework is not None and self.framework in self.catalog.frameworks:
                name = pick(self.catalog.frameworks[self.framework].name, "en")
                detail = _text("cache-detail-framework-default", framework=name)
            else:
                detail = _text("cache-detail-mode-default-unknown")
            result = Effective(value, "default", None, None, None, detail)
        if self.env.get(TORCH_MODE_ENV) and self.framework not in (None, "pytorch"):
            self.add("cache-env-torch-only", file, line, variable=TORCH_MODE_ENV, framework=self.framework)
        for note in option.notes_for(result.value, framework=self.note_framework):
            self.findings.append(Finding(note.severity, note.code, dict(note.text), result.file, result.line))
        self.effective[option.id] = result

    # -- cache dir --------------------------------------------------------------------------

    def resolve_dir(self) -> CacheDirResolution:
        setting = self.settings.get("op_compiler_cache_dir")
        option_value = ""
        where = None
        env = self.env
        torch_env = self.framework == "pytorch" and _trim(env.get(TORCH_DIR_ENV, ""))
        if torch_env and setting is not None and setting.over_env and setting.variable != CACHE_PATH_ENV:
            # The script sets torch_npu's own dir (set_option, or its os.environ) after the shell
            # did: the shell's ACL_OP_COMPILER_CACHE_DIR is replaced (docs/cann/torch-npu.md#set-option).
            file, line = self.where_set(TORCH_DIR_ENV)
            self.add("cache-env-overridden-by-profile", file, line, variable=TORCH_DIR_ENV,
                     value=env.get(TORCH_DIR_ENV, ""), where=setting.where())
            env = {k: v for k, v in env.items() if k != TORCH_DIR_ENV}
            torch_env = False
        runtime = setting is not None and setting.runtime and not torch_env
        if runtime:
            assert setting is not None
            resolution = resolve_cache_dir(self.framework, "", env, self.home, setting.where(),
                                           runtime=(setting.variable or "op_compiler_cache_dir", setting.expression))
            self.add("cache-dir-runtime", setting.file, setting.line, name=resolution.variable,
                     where=setting.where(), expression=setting.expression)
        else:
            if setting is not None and isinstance(setting.value, str) and setting.value and not torch_env:
                option_value, where = setting.value, setting.where()
            resolution = resolve_cache_dir(self.framework, option_value, env, self.home, where)
        self.findings.extend(resolution.findings)
        if setting is not None and torch_env and (setting.value or setting.runtime):
            self.add("cache-profile-overridden-by-env", setting.file, setting.line, option="op_compiler_cache_dir",
                     value=setting.expression if setting.runtime else setting.value, variable=TORCH_DIR_ENV,
                     env_value=self.env.get(TORCH_DIR_ENV, ""))
        if self.framework not in (None, "pytorch") and self.env.get(TORCH_DIR_ENV):
            file, line = self.where_set(TORCH_DIR_ENV)
            self.add("cache-env-torch-only", file, line, variable=TORCH_DIR_ENV, framework=self.framework)
        if runtime:
            assert setting is not None
            effective = runtime_effective(setting)
        elif resolution.source == "option":
            effective = Effective(resolution.value, setting.source if setting else "profile", setting.file if setting else None,
                                  setting.line if setting else None, resolution.variable, resolution.how)
        elif resolution.source == "env":
            file, line = self.where_set(resolution.variable or "")
            effective = Effective(resolution.value, "env", file, line, resolution.variable, resolution.how)
        else:
            effective = Effective(resolution.value, "default", None, None, None, resolution.how)
        self.effective["op_compiler_cache_dir"] = effective
        return resolution

    # -- size limit and keep ratio ------------------------------------------------------------

    def ini_pair(self) -> tuple[CannEntry, CannEntry] | None:
        """The two ini entries when CANN takes both values from op_cache.ini, else None (with findings)."""
        ini = self.ini
        if ini is None:
            return None
        values = ini.values_as_cann_reads()
        max_e, ratio_e = values.get(MAX_SIZE), values.get(REMAIN_RATIO)
        src = ini.source
        if not ini.counts:
            ignored = [e for e in (max_e, ratio_e) if e is not None]
            if ignored:
                name = ini.path.name if ini.path is not None else src
                shown = ", ".join(f"{e.key}={e.value.rstrip()} ({name}:{e.line})" for e in ignored)
                self.add("cache-ini-values-ignored", src, ignored[0].line, settings=shown,
                         reason=Message(REASON_CODES[ini.cann_view.reason]))
            return None
        if max_e is None and ratio_e is None:
            return None
        if max_e is None or ratio_e is None:
            present = max_e or ratio_e
            assert present is not None
            missing = REMAIN_RATIO if max_e is not None else MAX_SIZE
            default = self.catalog.option(missing).default
            self.add("cache-ini-size-pair-incomplete", src, present.line, present=present.key, missing=missing,
                     default=default, suggestion={missing: default})
            return None
        ok = True
        for entry in (max_e, ratio_e):
            parsed = cann_stoi(entry.value)
            shown = entry.value.rstrip()
            if parsed.error == "not-a-number":
                self.add("cache-ini-value-not-number", src, entry.line, key=entry.key, value=shown)
                ok = False
                continue
            if parsed.error == "out-of-range":
                self.add("cache-ini-value-out-of-range", src, entry.line, key=entry.key, value=shown)
                ok = False
                continue
            number = parsed.value
            assert number is not None
            if entry.key == MAX_SIZE and not size_in_range(MAX_SIZE, number):
                self.add("cache-ini-max-invalid", src, entry.line, value=shown)
                ok = False
            elif entry.key == REMAIN_RATIO and not size_in_range(REMAIN_RATIO, number):
                self.add("cache-ini-ratio-invalid", src, entry.line, value=shown)
                ok = False
            elif parsed.prefix_only and parsed.number_span is not None and "#" not in entry.value \
                    and entry.value[parsed.number_span[1]:].strip():
                self.add("cache-ini-numeric-prefix", src, entry.line, key=entry.key, value=shown, number=number)
        return (max_e, ratio_e) if ok else None

    def resolve_sizes(self) -> None:
        pair = self.ini_pair()
        max_setting = self.settings.get(MAX_SIZE)
        ratio_setting = self.settings.get(REMAIN_RATIO)
        if pair is not None:
            max_e, ratio_e = pair
            src = self.ini.source if self.ini else None
            max_value = cann_stoi(max_e.value).value
            ratio_value = cann_stoi(ratio_e.value).value
            assert max_value is not None and ratio_value is not None
            self.effective[MAX_SIZE] = Effective(max_value, "op_cache.ini", src, max_e.line, MAX_SIZE,
                                                 _text("cache-detail-ini", ini_line=max_e.line))
            self.effective[REMAIN_RATIO] = Effective(ratio_value, "op_cache.ini", src, ratio_e.line, REMAIN_RATIO,
                                                     _text("cache-detail-ini", ini_line=ratio_e.line))
            for variable in (MAX_ENV, RATIO_ENV):
                if self.env_value(variable) is not None:
                    file, line = self.where_set(variable)
                    self.add("cache-env-overridden-by-ini", file, line, variable=variable,
                             value=self.env_value(variable), ini_line=max_e.line)
            for setting, key in ((max_setting, MAX_SIZE), (ratio_setting, REMAIN_RATIO)):
                if setting is not None:
                    self.add("cache-profile-overridden-by-ini", setting.file, setting.line, option=key,
                             value=setting.expression if setting.runtime else setting.value, ini_line=max_e.line)
            if max_value == AGEING_OFF:
                self.add("cache-ageing-off", src, max_e.line, where="op_cache.ini")
            return
        self.effective[MAX_SIZE] = self.size_from_env_or_default(
            MAX_SIZE, MAX_ENV, max_setting, DEFAULT_MAX_MB, self.parse_env_max)
        ageing_off = self.effective[MAX_SIZE].value == AGEING_OFF
        self.effective[REMAIN_RATIO] = self.size_from_env_or_default(
            REMAIN_RATIO, RATIO_ENV, ratio_setting, DEFAULT_RATIO, self.parse_env_ratio, quiet=ageing_off)
        if ageing_off:
            where = self.effective[MAX_SIZE]
            self.add("cache-ageing-off", where.file, where.line, where=where.variable or where.source)

    def size_notes(self) -> None:
        """The catalog's rules on the limit CANN will use, wherever it comes from (a limit so small
        that CANN cleans at every start: docs/cann/op-cache.md#tiny-limit)."""
        effective = self.effective.get(MAX_SIZE)
        if effective is None or not isinstance(effective.value, int):
            return
        for note in self.catalog.option(MAX_SIZE).notes_for(effective.value, framework=self.note_framework):
            self.findings.append(Finding(note.severity, note.code, dict(note.text), effective.file, effective.line))

    def size_from_env_or_default(self, key: str, variable: str, setting: Setting | None, default: int,
                                 parse: Any, quiet: bool = False) -> Effective:
        if setting is not None and setting.runtime:
            if self.env_value(variable) is not None:
                file, line = self.where_set(variable)
                self.add("cache-env-overridden-by-profile", file, line, variable=variable,
                         value=self.env_value(variable), where=setting.where())
            return runtime_effective(setting, variable)
        if setting is not None:
            option = self.catalog.option(key)
            reason = option.check(setting.value)
            if reason is None:
                if self.env_value(variable) is not None:
                    file, line = self.where_set(variable)
                    self.add("cache-env-overridden-by-profile", file, line, variable=variable,
                             value=self.env_value(variable), where=setting.where())
                return Effective(setting.value, setting.source, setting.file, setting.line, variable,
                                 _text("cache-detail-profile", where=setting.where()))
            self.add("cache-option-invalid", setting.file, setting.line, option=key, value=setting.value,
                     allowed=f"{option.min}..{option.max}" + (" or -1" if key == MAX_SIZE else ""))
        raw = self.env_value(variable)
        if raw is None:
            return Effective(default, "default", None, None, None, _text("cache-detail-default", variable=variable))
        file, line = self.where_set(variable)
        value = parse(raw, file, line, quiet)
        if value is None:
            return Effective(default, "default", None, None, variable,
                             _text("cache-detail-env-fallback", variable=variable, value=raw, default=default))
        return Effective(value, "env", file, line, variable, _text("cache-detail-env", variable=variable))

    def parse_env_max(self, raw: str, file: str | None, line: int | None, quiet: bool) -> int | None:
        parsed = cann_stoi(raw)
        if parsed.value is None:
            self.add("cache-env-max-not-number", file, line, value=raw)
            return None
        # docs/cann/op-cache.md#size-limit-and-keep-ratio: 0, < -1 and > INT_MAX are invalid (env and ini alike).
        if parsed.value == 0 or parsed.value < AGEING_OFF or parsed.value > INT_MAX:
            self.add("cache-env-max-invalid", file, line, value=raw)
            return None
        if parsed.prefix_only:
            self.add("cache-env-numeric-prefix", file, line, variable=MAX_ENV, value=raw, number=parsed.value)
        return parsed.value

    def parse_env_ratio(self, raw: str, file: str | None, line: int | None, quiet: bool) -> int | None:
        value, had_digits, trailing = c_atoi(raw)
        if quiet:
            # CacheSpaceInitialize returns before reading the ratio when ageing is off.
            self.add("cache-env-ratio-unused", file, line, value=raw)
            return value if 0 <= value <= 100 else None
        if value < 0 or value > 100:
            self.add("cache-env-ratio-invalid", file, line, value=raw)
            return None
        if value == 0:
            self.add("cache-env-ratio-zero", file, line, value=raw, suggestion={REMAIN_RATIO: DEFAULT_RATIO})
        elif trailing:
            self.add("cache-env-numeric-prefix", file, line, variable=RATIO_ENV, value=raw, number=value)
        return value

    # -- the rest ---------------------------------------------------------------------------

    def check_versions(self, soc_hint: str) -> None:
        ini = self.ini
        if ini is None or not ini.counts or not self.installed:
            return
        values = ini.values_as_cann_reads()
        for key in VERSION_KEYS:
            entry = values.get(key)
            wanted = self.installed.get(key)
            if entry is not None and wanted and entry.value != wanted:
                self.add("cache-ini-version-differs", ini.source, entry.line, key=key,
                         value=entry.value.rstrip("\r"), installed=wanted, soc_dir=soc_hint)

    def alloc_conf(self) -> None:
        """torch_npu's allocator settings and where they come from (app/allocconf.py)."""
        options = list(alloc_options(self.catalog).values())
        chosen = {o.id: self.settings[o.id] for o in options if o.id in self.settings}
        known = {oid: setting for oid, setting in chosen.items() if not setting.runtime}
        serving_before: str | None = None
        if self.serving and not chosen:
            serving_before = self.serving_rewrite()
        picked = chosen_variable(self.env)
        if picked is not None:
            file, line = self.where_set(picked[0])
            both = both_variables_finding({n: self.env[n] for n in VARIABLES if n in self.env}, file=file, line=line)
            if both is not None:
                self.findings.append(both)
        if chosen and not known:
            return  # set by a script at run time: memory_options() reports them so
        if chosen:
            # A script or profile sets the variable for its own process: the shell's value is replaced.
            values = {oid: setting.value for oid, setting in known.items()}
            first = next(iter(known.values()))
            present = {oid for oid, v in values.items()
                       if v != self.catalog.option(oid).default}
            self.findings += check_alloc_values(values, file=first.file, line=first.line, present=present)
            return  # memory_options() reports the choices themselves
        if picked is None and self.framework != "pytorch":
            return
        parsed = None
        if picked is not None:
            name, raw = picked
            file, line = self.where_set(name)
            parsed = parse_alloc_conf(raw, variable=name, file=file, line=line, catalog=self.catalog)
            self.findings += parsed.findings
        for option in options:
            if parsed is not None and option.id in parsed.values:
                value = parsed.values[option.id]
                detail = _text("torchnpu-alloc-effective-env", variable=name)
                if self.serving and option.targets.alloc_conf not in _alloc_keys(serving_before):
                    detail = serving_detail()
                self.effective[option.id] = Effective(value, "env", file, line, name, detail)
                for note in option.notes_for(value, framework=self.note_framework):
                    self.findings.append(Finding(note.severity, note.code, dict(note.text), file, line))
            else:
                self.effective[option.id] = Effective(option.default, "default", None, None, None, None)

    def serving_rewrite(self) -> str | None:
        """vLLM-Ascend's start-up rewrite of PYTORCH_NPU_ALLOC_CONF (app/vllm_ascend.py;
        docs/cann/vllm-ascend.md), applied to the environment torch_npu reads, with its findings.
        Returns the value the user set (None: unset)."""
        from cann_config.app import vllm_ascend

        name = vllm_ascend.VARIABLE
        before = self.env.get(name)
        file, line = self.where_set(name)
        self.findings += vllm_ascend.serving_findings(before, file=file, line=line)
        after = vllm_ascend.startup_rewrite(before)
        if after is not None:
            self.env = {**self.env, name: after}
        return before

    def memory_options(self) -> None:
        for oid, setting in self.settings.items():
            option = self.catalog.options.get(oid)
            if option is None or option.page != "memory":
                continue
            if setting.runtime:
                self.effective[oid] = runtime_effective(setting)
                continue
            reason = option.check(setting.value)
            if reason:
                allowed = ", ".join(map(str, option.allowed_values())) or "-"
                self.add("cache-option-invalid", setting.file, setting.line, option=oid, value=setting.value,
                         allowed=allowed)
            self.effective[oid] = Effective(setting.value, setting.source, setting.file, setting.line, None,
                                            _text("cache-detail-profile", where=setting.where()))
            for note in option.notes_for(setting.value, framework=self.note_framework):
                self.findings.append(Finding(note.severity, note.code, dict(note.text), setting.file, setting.line))
        self.legacy_static_memory()

    def legacy_static_memory(self) -> None:
        """GE_USE_STATIC_MEMORY, the legacy twin of static_memory_policy. The docs forbid setting
        both; GE's source (VarManager::IsGeUseExtendSizeMemory) merges them as a union, so what
        GE runs with is shown as the policy of that union (docs/cann/memory.md#static-memory-union)."""
        option = self.catalog.option("static_memory_policy")
        legacy = option.legacy_env or "GE_USE_STATIC_MEMORY"
        origin = self.env_origins.get(legacy)
        raw = self.env.get(legacy)
        runtime = origin is not None and origin.runtime
        if not raw and not runtime:
            return
        file, line = self.where_set(legacy)
        policy = self.settings.get("static_memory_policy")
        shown = origin.expression if runtime and origin is not None else raw
        if policy is not None:
            self.add("cache-env-static-memory-conflict", file, line, variable=legacy, value=shown,
                     policy=policy.expression if policy.runtime else policy.value, where=policy.where())
        else:
            self.add("cache-env-static-memory-legacy", file, line, variable=legacy, value=shown)
        graph_engine = self.framework is None or (
            self.framework in self.catalog.frameworks and option.id in self.catalog.frameworks[self.framework].options)
        if not graph_engine:
            return  # torch_npu's single-operator mode, ATC, AscendCL: no static_memory_policy to merge with
        env_policy = None if runtime or raw is None else _policy_number(raw)
        if policy is None:
            option_policy: int | None = int(option.default)
            policy_where = "default"
        elif policy.runtime or not isinstance(policy.value, int):
            option_policy, policy_where = None, policy.where()
        else:
            option_policy, policy_where = policy.value, policy.where()
        if runtime:
            if option_policy == 4 or (policy is not None and policy.runtime):
                return  # the union with 4 is 4, whatever the script sets; both at run time: the option's stays
            assert origin is not None
            self.effective[option.id] = Effective(
                None, "script", file, line, legacy,  # type: ignore[arg-type]  # run time: no value
                _text("cache-detail-script-runtime", where=f"{file}:{line}" if line else (file or legacy),
                      expression=origin.expression), runtime=True, expression=origin.expression)
            return
        if env_policy is None:
            return  # a value GE's own reading is not confirmed for: the findings above say it is set
        if option_policy is None:
            if env_policy == 4:
                self.effective[option.id] = Effective(
                    4, "env", file, line, legacy,
                    _text("cache-detail-static-memory-union", variable=legacy, value=(raw or "").strip(),
                          policy=policy.expression if policy else "", where=policy_where, merged=4))
            return
        merged = static_memory_union(env_policy, option_policy)
        if policy is not None and merged == option_policy:
            return  # the option's own value is what GE runs with
        if policy is None:
            detail = _text("cache-detail-static-memory-alone", variable=legacy, value=(raw or "").strip(), merged=merged)
        else:
            detail = _text("cache-detail-static-memory-union", variable=legacy, value=(raw or "").strip(),
                           policy=option_policy, where=policy_where, merged=merged)
        self.effective[option.id] = Effective(merged, "env", file, line, legacy, detail)


def _policy_number(raw: str) -> int | None:
    text = raw.strip()
    return int(text) if text in ("0", "1", "2", "3", "4") else None


def static_memory_union(a: int, b: int) -> int:
    """The static_memory_policy GE behaves as when GE_USE_STATIC_MEMORY is `a` and the option `b`:
    static-shape expansion if either is 1, 2 or 4; dynamic-shape expansion if either is 3 or 4
    (`hicann/ge` graph_var_manager.h; docs/cann/memory.md#static-memory-union)."""
    static = a in (1, 2, 4) or b in (1, 2, 4)
    dynamic = a in (3, 4) or b in (3, 4)
    return 4 if static and dynamic else 2 if static else 3 if dynamic else 0


def _settings_from(profile: "Profile | None", settings: Mapping[str, Setting | Value] | None) -> dict[str, Setting]:
    result: dict[str, Setting] = {}
    if profile is not None:
        for oid, value in profile.options.items():
            result[oid] = Setting(value)
    for oid, item in (settings or {}).items():
        result[oid] = item if isinstance(item, Setting) else Setting(item)
    return result


def environment_framework(environ: Mapping[str, str]) -> str | None:
    """"pytorch" when the environment sets torch_npu's cache variables, else None (unknown)."""
    return "pytorch" if environ.get(TORCH_MODE_ENV) or environ.get(TORCH_DIR_ENV) else None


def resolve_settings(*, ini: OpCacheIni | None, environ: Mapping[str, str], profile: "Profile | None" = None,
                     framework: str | None = None, settings: Mapping[str, Setting | Value] | None = None,
                     env_file: EnvFile | None = None, home: str | None = None,
                     installed_versions: Mapping[str, str] | None = None, soc_version: str | None = None,
                     env_origins: Mapping[str, EnvOrigin] | None = None) -> Resolution:
    """Resolve the op cache settings as CANN would, with findings explaining every lost value.

    `environ` is the environment the job runs with (an env file's values already applied);
    `env_file`, when given, supplies the file and line of each variable it set. `settings`
    (option id -> Setting or value) are choices from a script or the wizard and override the
    profile's. `installed_versions` ({"adk_version", "ops_version"}) enables the check of the
    version lines against the installed CANN. `soc_version` names the SoC dir in messages.
    `env_origins` says where a script set variables of `environ` (and which ones it sets to a
    value known only at run time, absent from `environ`).
    """
    catalog = load_catalog()
    chosen = _settings_from(profile, settings)
    if framework is None and profile is not None and (profile.options or profile.device):
        framework = profile.framework
    extra: list[Finding] = []
    if framework is None and environment_framework(environ):
        framework = "pytorch"
        extra.append(make_finding("cache-framework-assumed-pytorch"))
    if framework is not None and framework not in catalog.frameworks:
        raise ValueError(f"unknown framework {framework!r}; use one of {', '.join(catalog.frameworks)}")
    # A serving process (vLLM-Ascend) is a torch_npu process: its op cache and allocator variables
    # are PyTorch's, read after the serving stack's rewrite (app/vllm_ascend.py).
    serving = framework == SERVING_FRAMEWORK
    resolver = _Resolver(ini=ini, environ=environ, settings=chosen, framework="pytorch" if serving else framework,
                         env_file=env_file, home=home, installed=installed_versions, catalog=catalog,
                         env_origins=env_origins, serving=serving)
    resolver.findings.extend(extra)
    resolver.resolve_mode()
    cache_dir = resolver.resolve_dir()
    resolver.resolve_sizes()
    resolver.size_notes()
    resolver.check_versions(str(cache_dir.soc_dir(soc_version or "<SoC>")))
    resolver.alloc_conf()
    resolver.memory_options()
    if resolver.effective["op_compiler_cache_mode"].value == "disable":
        resolver.add("cache-mode-disabled")
    ordered = {oid: resolver.effective[oid] for oid in catalog.options if oid in resolver.effective}
    ini_used = ordered[MAX_SIZE].source == "op_cache.ini"
    return Resolution(ordered, sort_findings(unique_findings(resolver.findings)), cache_dir, framework, ini_used)




__all__ = ["Effective", "EnvOrigin", "Resolution", "Setting", "environment_framework",
           "resolve_settings", "runtime_effective", "static_memory_union", "c_atoi", "size_in_range",
           "SOURCES", "CACHE_OPTIONS"]
