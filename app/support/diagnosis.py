"""`diagnose`: what CANN will do with a given op_cache.ini, environment, script and device.

Why this module exists: support staff and users ask one question - "which values will CANN use,
and why not mine?" - with a handful of inputs (a customer's op_cache.ini, an env file, a training
script, the SoC). This module gathers them, runs the resolution (app/opcache/resolution.py) and returns a
`Diagnosis`: plain data (device, effective values with their sources, findings, the cache
directory), with `to_json(lang)` in the shape of docs/architecture.md#json-output (`diagnose --json`) and `to_text(lang)`
for people. A report renderer (`diagnose --report`) and the GUI consume the same object.

Which environment counts: with an env file, only the file's assignments (a customer's file read
on a support machine must not pick up the support machine's variables); without one, this
process's environment (the user runs `cann-config diagnose` in the shell that starts the job).
Which op_cache.ini: `ini_path` if given; else `<cache_dir>/kernel_cache/op_cache.ini` when
`cache_dir` is given; else, in this process's environment, the file CANN itself would read. A
given `ini_path` is the file CANN reads only when app.opcache.which_ini says so (it is
`<base>/kernel_cache/op_cache.ini` of `cache_dir`, else of the base this environment resolves);
otherwise its sizes are not used and the values are those of the file CANN reads.
Which installed CANN the op_cache.ini version lines are checked against (CANN empties a SoC dir
whose adk_version/ops_version differ from the installed ones, docs/cann/op-cache.md#version-lines): the
caller's `installed_versions`; else, when the environment is this process's, the CANN installed
on this host (app.opcache.ini.installed_op_cache_versions). With an env file or a given
`environ` nothing is looked up: that is a customer's configuration read on a support machine,
whose CANN need not be the customer's (a support bundle passes the customer's versions).

Public API:
    diagnose(*, ini_path=None, env_file=None, script=None, device=None, cache_dir=None,
             framework=None, environ=None, profile=None, installed_versions=None, home=None)
        -> Diagnosis
    Diagnosis.to_json(lang=None) -> dict;  Diagnosis.to_text(lang=None) -> str
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cann_config.app.allocconf import BOTH_VARIABLES_CODE, EXPANDABLE_CONFLICT_CODE, page_size_device_finding
from cann_config.app.catalog import load_catalog
from cann_config.app.device.table import DeviceInfo
from cann_config.app.findings import (
    Finding,
    has_errors,
    make_finding,
    severity_column,
    severity_word,
    sort_findings,
    unique_findings,
)
from cann_config.app.i18n import colon, pick
from cann_config.app.io.envfile import EnvFile, load_env_file
from cann_config.app.io.inputfiles import input_exists
from cann_config.app.opcache.cachedir import CacheDirResolution, kernel_cache_of
from cann_config.app.opcache.ini import INI_NAME, OpCacheIni, installed_op_cache_versions, read_op_cache_ini
from cann_config.app.opcache.resolution import Effective, EnvOrigin, Resolution, Setting, resolve_settings
from cann_config.app.textsafe import terminal_text
from cann_config.app.textwidth import pad, table_lines

if TYPE_CHECKING:  # pragma: no cover - typing only: diagnose reads no profile
    from cann_config.app.profile import Profile


# Findings app/support/fixes.py makes a fix for without a `suggestion`: the allocator errors (unset
# a variable, expandable segments off), and op_cache.ini's form (the file written anew: fixes.py
# FILE_FORM_CODES; a quoted size written as a plain number).
_FIXED_BY_ITSELF = (BOTH_VARIABLES_CODE, EXPANDABLE_CONFLICT_CODE, "cache-ini-bom-line1", "cache-ini-cr-line-ends",
                    "cache-ini-foreign-section", "cache-ini-no-section", "cache-ini-value-not-number")


def _label(code: str, lang: str | None, **params: Any) -> str:
    return pick(make_finding(code, **params).text, lang)


class Diagnosis:
    """Everything `diagnose` found, as plain data."""

    def __init__(self, device: DeviceInfo | None, framework: str | None, effective: dict[str, Effective],
                 findings: list[Finding], cache_dir: CacheDirResolution, ini: OpCacheIni | None = None,
                 ini_path: Path | None = None, env_file: EnvFile | None = None, script: str | None = None,
                 resolution: Resolution | None = None, inputs: dict[str, Any] | None = None,
                 read_by_cann: bool = True, cann_ini_path: Path | None = None,
                 ini_base_from: str | None = None, environ: Mapping[str, str] | None = None,
                 installed_versions: Mapping[str, str] | None = None, cann_ini: OpCacheIni | None = None) -> None:
        self.device = device
        self.framework = framework
        self.effective = effective
        self.findings = findings
        self.cache_dir = cache_dir
        self.ini = ini
        self.ini_path = ini_path  # the op_cache.ini looked at (it may not exist)
        self.env_file = env_file
        self.script = script
        self.resolution = resolution
        self.inputs: dict[str, Any] = {} if inputs is None else inputs
        # False: `ini` is not the op_cache.ini CANN reads (app/opcache/which_ini.py)
        self.read_by_cann = read_by_cann
        # For a file the user named: the op_cache.ini CANN reads, and where the base compared
        # with came from (--cache-dir | environment | given-environment | ini-location).
        self.cann_ini_path = cann_ini_path
        self.ini_base_from = ini_base_from
        # The op_cache.ini CANN reads, parsed: `ini` when it is that file, else the file at
        # cann_ini_path (None: there is none). Its version lines decide whether the next start
        # empties the cache (app.opcache.measurement.next_start_empties), whatever file was named.
        self.cann_ini = ini if read_by_cann else cann_ini
        # The environment CANN runs with as resolved (env file and script applied): what a fix's
        # env lines are applied to (app/support/fixes.py recheck).
        self.environ: dict[str, str] = dict(environ or {})
        # The installed CANN versions the version lines were checked against (None: not known,
        # as for a customer's env file read here): the version lines a fix may add.
        self.installed_versions: dict[str, str] | None = dict(installed_versions) if installed_versions else None
        # The checked suggested fixes (app.support.fixes.plan_fixes), once asked for.
        self.fix_plan: Any = None
        # The cache measurement (app/opcache/measurement.py) when the Host measured one
        # (app/support/host.py), and its JSON: the `scan --json` document, or a bundle's record.
        self.measurement: Any = None
        self.cache: dict[str, Any] | None = None

    def has_errors(self) -> bool:
        return has_errors(self.findings)

    def has_fixes(self, versions: Mapping[str, str] | None = None) -> bool:
        """Whether a suggested fix exists (app/support/fixes.py makes them; this check is cheap,
        so a diagnosis with nothing to fix never loads the exporters): a finding's suggestion, an
        allocator error fixed by itself, or version lines to add from `versions`."""
        return any(f.suggestion or f.code in _FIXED_BY_ITSELF
                   or (versions and f.code == "cache-ini-missing-versions") for f in self.findings)

    # -- JSON (docs/architecture.md#json-output) ---------------------------------------------------

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        device = self.device or DeviceInfo()
        return {
            "device": device.to_json(),
            "framework": self.framework,
            "effective": {oid: eff.to_json(lang) for oid, eff in self.effective.items()},
            "findings": [f.to_json(lang) for f in self.findings],
            "cache_dir": {**self.cache_dir.to_json(lang), "op_cache_ini_location": pick(self.cache_dir.ini_how, lang),
                          "soc_dir": str(self.cache_dir.soc_dir(device.soc_version)) if device.soc_version else None},
            "op_cache_ini": {
                "path": str(self.ini_path) if self.ini_path else None,
                "found": self.ini is not None,
                "used_by_cann": bool(self.ini and self.ini.counts and self.read_by_cann),
                "read_by_cann": self.read_by_cann,
                "reason": (self.ini.cann_view.reason if self.read_by_cann else "not-read-by-cann") if self.ini else None,
                "cann_path": str(self.cann_ini_path or self.cache_dir.ini_path),
                "base_from": self.ini_base_from,
            },
            "inputs": dict(self.inputs),
            **({"cache": self.measurement.to_json(lang) if self.measurement is not None else self.cache}
               if self.cache is not None else {}),
        }

    # -- text, for people -----------------------------------------------------------------------

    def to_text(self, lang: str | None = None) -> str:
        """The diagnosis for people. Paths, values and messages come from files the user may
        not have written (a customer's op_cache.ini or env file), so each is printed through
        app.textsafe.terminal_text: no control character reaches the terminal, and no value
        breaks the layout with a line of its own."""
        catalog = load_catalog()
        safe = terminal_text
        out: list[str] = []
        device = self.device
        out.append(f"{_label('cache-label-device', lang)}{colon(lang)}"
                   f"{safe(device.label(lang)) if device else _label('cache-label-framework-unknown', lang)}")
        framework = (pick(catalog.frameworks[self.framework].name, lang)
                     if self.framework is not None and self.framework in catalog.frameworks
                     else _label("cache-label-framework-unknown", lang))
        out.append(f"{_label('cache-label-framework', lang)}{colon(lang)}{framework}")
        if self.env_file is not None:
            env_text = _label("cache-label-environment-file", lang, path=self.env_file.source)
        else:
            env_text = _label("cache-label-environment-shell", lang)
        out.append(f"{_label('cache-label-environment', lang)}{colon(lang)}{safe(env_text)}")
        if self.script:
            out.append(f"{_label('cache-label-script', lang)}{colon(lang)}{safe(self.script)}")
        if self.ini is not None and not self.read_by_cann:
            ini_text = _label("cache-label-ini-not-read", lang, path=self.ini.source,
                              cann_path=self.cann_ini_path or self.cache_dir.ini_path)
        elif self.ini is not None:
            code = "cache-label-ini-used" if self.ini.counts else "cache-label-ini-ignored"
            ini_text = _label(code, lang, path=self.ini.source)
        else:
            ini_text = _label("cache-label-ini-none", lang)
        out.append(f"{_label('cache-label-ini', lang)}{colon(lang)}{safe(ini_text)}")
        cd = self.cache_dir
        out.append(f"{_label('cache-label-cache-dir', lang)}{colon(lang)}{safe(cd.value)}  ({safe(pick(cd.how, lang))})")
        out.append(f"    kernel_cache: {safe(cd.kernel_cache)}")
        out.append(f"    {INI_NAME}: {safe(cd.ini_path)}  ({safe(pick(cd.ini_how, lang))})")
        if device is not None and device.soc_version:
            out.append(f"    {_label('cache-label-soc-dir', lang)}{colon(lang)}{safe(cd.soc_dir(device.soc_version))}")
        out.append("")
        out.append(_label('cache-label-effective', lang) + colon(lang).strip())
        rows = []
        for oid, eff in self.effective.items():
            option = catalog.options.get(oid)
            unit = f" {option.unit}" if option and option.unit and isinstance(eff.value, int) and eff.value != -1 else ""
            if eff.runtime:
                value = _label("cache-label-runtime", lang)
            else:
                value = '""' if eff.value == "" else safe(f"{eff.value}{unit}")
            if eff.inherited:
                value += f" ({_label('shell-label-inherited', lang, variable=eff.inherited)})"
            where = f" {eff.file}:{eff.line}" if eff.file and eff.line else (f" {eff.file}" if eff.file else "")
            detail = f" - {pick(eff.detail, lang)}" if eff.detail else ""
            rows.append([oid, value, f"[{eff.source}{safe(where)}]{safe(detail)}"])
        # columns line up by display width: values and paths may be Chinese (app/textwidth.py)
        out += table_lines(rows, gap="  ")
        out += self._measurement_lines(lang)
        out.append("")
        out.append(_label('cache-label-findings', lang) + colon(lang).strip())
        if not self.findings:
            out.append(f"  {_label('cache-label-no-findings', lang)}")
        column = severity_column(lang)
        indent = " " * (2 + column + 1)
        for f in self.findings:
            where = f"  {safe(f.where())}" if f.where() else ""
            out.append(f"  {pad(severity_word(f.severity, lang), column)} {f.code}{where}")
            out.append(f"{indent}{safe(f.message(lang))}")
            fix = f.fix_text(lang)
            if fix:
                out.append(f"{indent}{_label('cache-label-fix', lang)}{colon(lang)}{safe(fix)}")
        return "\n".join(out)


    def _measurement_lines(self, lang: str | None) -> list[str]:
        """The cache measured on this host, one line per SoC dir, as `scan` says it."""
        measured = self.measurement
        if measured is None or not measured.exists:
            return []
        out = ["", _label("cache-label-measured", lang, path=terminal_text(str(measured.kernel_cache)))]
        out += measured.soc_lines(lang, indent="  ")
        return out


def script_inputs(imported: Any, environment: Mapping[str, str], source: str
                  ) -> tuple[dict[str, Setting], dict[str, str], dict[str, EnvOrigin]]:
    """What a script (app.io.importers.ImportedSettings) adds to the resolution's inputs.

    Its catalog settings become Settings (a value known only at run time stays unknown, never
    a default); a default-if-unset (`os.environ.setdefault`, `os.environ.get(X, d)` written back:
    docs/cann/launch-scripts.md#python-scripts) is dropped when the environment already has the
    variable it reads: the script keeps (or copies) that value. The other variables it leaves
    (the legacy GE_USE_STATIC_MEMORY, MS_ALLOC_CONF, ...) are laid over the environment, with
    their line as origin; one set to a run-time value is taken out of it and marked in the
    origins; one the script removes is taken out.
    Returns (settings, environment, env_origins).
    """
    from cann_config.app.io.importers import catalog_env_names
    from cann_config.app.support.envstates import launching_sets

    settings: dict[str, Setting] = {}
    env = dict(environment)
    origins: dict[str, EnvOrigin] = {}
    for name, state in imported.env_state.items():
        if state.unset:
            env.pop(name, None)
    for oid, origin in imported.origins.items():
        if origin.inherited and launching_sets(env, origin.inherited, origin.empty_too):
            if origin.name is not None and origin.name != origin.inherited:
                # `os.environ[X] = os.environ.get(Y, d)`: X takes Y's value
                env[origin.name] = env[origin.inherited]
                origins[origin.name] = EnvOrigin(source, origin.line)
            continue
        over_env = origin.via in ("env", "set_option")
        if oid in imported.settings:
            value, line = imported.settings[oid]
            settings[oid] = Setting(value, source, line, origin.name, over_env, script=True)
        elif oid in imported.unknown:
            settings[oid] = Setting(None, source, imported.unknown[oid], origin.name, over_env, True,  # type: ignore[arg-type]
                                    origin.expression, script=True)
    handled = catalog_env_names()
    for name, state in imported.env_state.items():
        if name in handled or state.unset:
            continue
        if state.inherited and launching_sets(env, state.inherited, state.empty_too):
            if name != state.inherited:
                env[name] = env[state.inherited]
                origins[name] = EnvOrigin(source, state.line)
            continue
        if state.known and isinstance(state.value, str):
            env[name] = state.value
            origins[name] = EnvOrigin(source, state.line)
        else:
            env.pop(name, None)
            origins[name] = EnvOrigin(source, state.line, True, state.expression or repr(state.value))
    return settings, env, origins



def mindspore_calls(script: str | os.PathLike[str], source: str) -> list[Any]:
    """The MindSpore set_context / runtime.set_memory calls of a script (app/io/mindspore_script.py)."""
    from cann_config.app.io.importers import read_script_text
    from cann_config.app.io.mindspore_script import read_mindspore_script

    try:
        text = read_script_text(script)
        # Calls are known by their qualified names (mindspore.set_context, ...), reached only
        # through an import that names the package: a script that never spells it has none, and
        # is not parsed a second time (tests/bench/bench_script.py).
        if "mindspore" not in text:
            return []
        return read_mindspore_script(text, source).calls
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []  # import_script_file, which read the same text first, has said why


def mindspore_effective(calls: list[Any], environment: Mapping[str, str], resolution: Resolution,
                        script_source: str | None, envfile: EnvFile | None,
                        env_origins: Mapping[str, EnvOrigin]) -> list[Finding]:
    """MindSpore 2.10's verdict on the script's calls and on MS_ALLOC_CONF (app/mindspore_memory.py;
    docs/cann/mindspore.md): the findings, and the values MindSpore runs with added to
    `resolution.effective`."""
    from cann_config.app.mindspore_memory import ALLOC_VARIABLE, mindspore_settings

    def env_where(name: str) -> tuple[str | None, int | None]:
        if name in env_origins:
            return env_origins[name].file, env_origins[name].line
        if envfile is not None and name in envfile.values:
            return envfile.source, envfile.lines.get(name)
        return None, None

    found = mindspore_settings(calls, environment, file=script_source, env_where=env_where)
    for oid, (value, file, line, how) in found.values.items():
        where = f"{file}:{line}" if file and line else (file or how)
        source = "env" if how == ALLOC_VARIABLE else "script" if file else "profile"
        resolution.effective[oid] = Effective(value, source, file, line, how,
                                              dict(make_finding("cache-detail-profile", where=where).text))
    return found.findings


def serving_script_inputs(imported: Any, settings: dict[str, Setting], environment: dict[str, str],
                          env_origins: dict[str, EnvOrigin], source: str) -> None:
    """A vLLM-Ascend launcher that sets PYTORCH_NPU_ALLOC_CONF itself: the serving stack rewrites
    the variable's text (app/vllm_ascend.py), so the resolution gets the text the script sets, at
    its line, instead of the allocator settings read out of it (where an explicit
    expandable_segments:False and an absent key look alike). A value known only at run time stays
    a run-time setting. Changes `settings`, `environment` and `env_origins` in place."""
    from cann_config.app.allocconf import VARIABLE, alloc_options
    from cann_config.app.support.envstates import launching_sets

    last = imported.env_state.get(VARIABLE)
    if last is None or last.unset or not last.known or not isinstance(last.value, str):
        return
    if last.inherited and launching_sets(environment, last.inherited, last.empty_too):
        return
    for option in alloc_options().values():
        settings.pop(option.id, None)
    environment[VARIABLE] = last.value
    env_origins[VARIABLE] = EnvOrigin(source, last.line)


def diagnose(*, ini_path: str | os.PathLike[str] | None = None, env_file: str | os.PathLike[str] | None = None,
             script: str | os.PathLike[str] | None = None, device: DeviceInfo | None = None,
             cache_dir: str | os.PathLike[str] | None = None, framework: str | None = None,
             environ: Mapping[str, str] | None = None, profile: Profile | None = None,
             installed_versions: Mapping[str, str] | None = None, home: str | None = None,
             op_cache_ini: OpCacheIni | None = None) -> Diagnosis:
    """Read the given inputs and resolve the op cache settings as CANN would.

    Raises InputError (one line, names the file) for a file that cannot be used at all; every
    questionable value is a finding. `environ`: the base environment (default: this process's,
    or nothing when `env_file` is given). `script` is read with app.io.importers (never executed).
    `op_cache_ini`: an op_cache.ini already parsed (a support bundle's, app/support/bundle.py); it is
    used instead of reading a file, and `ini_path` then only names where it was.
    `installed_versions`: {"adk_version", "ops_version"} to check the op_cache.ini version lines
    against; None looks them up on this host only when the environment is this process's (no
    `env_file`, no `environ`, no `op_cache_ini`: see the module docstring), {} checks nothing.
    """
    findings: list[Finding] = []
    inputs: dict[str, Any] = {"ini": None, "env_file": None, "script": None, "cache_dir": None,
                              "environment": "file" if env_file is not None else "process"}
    base_env: Mapping[str, str] = (environ if environ is not None
                                   else ({} if env_file is not None else os.environ))
    if installed_versions is None and env_file is None and environ is None and op_cache_ini is None:
        # This host's environment, so this host's CANN decides whether the version lines match.
        installed_versions = installed_op_cache_versions() or None
    envfile: EnvFile | None = None
    environment: dict[str, str] = dict(base_env)
    ms_calls: list[Any] = []
    if env_file is not None:
        envfile = load_env_file(os.fspath(env_file), base=base_env)
        environment = envfile.environ(base_env)
        findings.extend(envfile.findings)
        inputs["env_file"] = str(env_file)
    settings: dict[str, Setting] = {}
    env_origins: dict[str, EnvOrigin] = {}
    if envfile is not None and envfile.runtime:
        # variables only the running script knows (app/support/envstates.py)
        from cann_config.app.support.envstates import runtime_inputs

        settings, env_origins = runtime_inputs(envfile, framework)
    script_source = None
    if script is not None:
        # imported here: the script reader brings the exporters (for the fleet formats) and the
        # script parser, which a diagnosis without --script never needs (tests/bench/bench_cli.py)
        from cann_config.app.io.importers import import_script_file

        script_source, imported = str(Path(script)), import_script_file(script)
        findings.extend(imported.findings)
        script_settings, environment, script_origins = script_inputs(imported, environment, script_source)
        settings, env_origins = {**settings, **script_settings}, {**env_origins, **script_origins}
        ms_calls = mindspore_calls(script, script_source) if framework in (None, "mindspore") else []
        if framework is None and ms_calls:
            framework = "mindspore"  # its ge_options alone would name GE
        if framework == "vllm-ascend":
            serving_script_inputs(imported, settings, environment, env_origins, script_source)
        if framework is None and imported.framework:
            framework = imported.framework
        inputs["script"] = script_source

    def resolve(ini: OpCacheIni | None) -> Resolution:
        return resolve_settings(ini=ini, environ=environment, profile=profile, framework=framework,
                                settings=settings, env_file=envfile, home=home,
                                installed_versions=installed_versions,
                                soc_version=device.soc_version if device else None, env_origins=env_origins)

    first = resolve(None)
    look_at: Path | None = None
    announce_missing = False
    if ini_path is not None:
        look_at = Path(ini_path)
    elif cache_dir is not None:
        look_at = kernel_cache_of(cache_dir) / INI_NAME
        announce_missing = True
    elif env_file is None and environ is None and first.cache_dir.home_known and first.cache_dir.known:
        # Only where CANN would look: never a default place the script's run-time dir replaces.
        look_at = first.cache_dir.ini_path
        announce_missing = True
    ini: OpCacheIni | None = op_cache_ini
    cann_ini: OpCacheIni | None = None  # the file CANN reads, when the given one is not it
    not_read = None
    if ini is not None:
        findings.extend(ini.findings)
        inputs["ini"] = ini.source
    elif look_at is not None:
        if ini_path is not None or input_exists(look_at):
            ini = read_op_cache_ini(look_at)
            findings.extend(ini.findings)
            inputs["ini"] = str(look_at)
        elif announce_missing:
            findings.append(make_finding("cache-ini-not-found", path=str(look_at)))
    choice = None
    if ini_path is not None and op_cache_ini is None:
        # CANN reads one file, <base>/kernel_cache/op_cache.ini, whatever the given one is named
        # (app/opcache/which_ini.py); the sizes are then those of the file CANN reads.
        from cann_config.app.opcache.which_ini import which_ini

        choice = which_ini(ini_path, first.cache_dir, cache_dir=cache_dir, local=env_file is None and environ is None)
        if choice.finding is not None:
            findings.append(choice.finding)
        if not choice.read_by_cann:
            not_read = choice.finding
            real = choice.cann_path
            cann_ini = read_op_cache_ini(real) if real.exists() else None
    if not_read is not None:
        resolution = resolve(cann_ini) if cann_ini is not None else first
    else:
        resolution = resolve(ini) if ini is not None else first
    if envfile is not None and (envfile.inherited or envfile.runtime):
        from cann_config.app.support.envstates import mark_env_states

        resolution.effective = mark_env_states(resolution.effective, envfile, environment)
    if script_source is not None:
        from cann_config.app.support.envstates import mark_script_states

        resolution.effective = mark_script_states(resolution.effective, imported, script_source, environment)
    findings.extend(resolution.findings)
    if resolution.framework == "mindspore":
        findings += mindspore_effective(ms_calls, environment, resolution, script_source, envfile, env_origins)
    page = resolution.effective.get("npu_alloc_page_size")
    if page is not None:
        refused = page_size_device_finding(page.value, device, file=page.file, line=page.line)
        if refused is not None:
            findings.append(refused)
    if cache_dir is not None:
        inputs["cache_dir"] = str(cache_dir)
        given = kernel_cache_of(cache_dir)
        if (resolution.cache_dir.home_known and resolution.cache_dir.known
                and os.path.abspath(given) != os.path.abspath(resolution.cache_dir.kernel_cache)):
            findings.append(make_finding("cache-dir-given-differs", given=str(given),
                                         kernel_cache=str(resolution.cache_dir.kernel_cache)))
    return Diagnosis(
        device=device,
        framework=resolution.framework,
        effective=resolution.effective,
        findings=sort_findings(unique_findings(findings)),
        cache_dir=resolution.cache_dir,
        ini=ini,
        ini_path=look_at,
        env_file=envfile,
        script=script_source,
        resolution=resolution,
        inputs=inputs,
        read_by_cann=not_read is None,
        cann_ini_path=choice.cann_path if choice is not None else None,
        ini_base_from=choice.base_from if choice is not None else None,
        environ=environment,
        installed_versions=installed_versions,
        cann_ini=cann_ini,
    )


