"""How a launch script's variables that are not plain values enter the resolution and its result.

Why this module exists: app/io/shellread.py reads a variable as a plain value, a default the
launching environment may replace (`${X:-d}`: "inherited"), or a value only the run knows (an
unset `$VAR`, `$(...)`, a run-time branch: "runtime"). The resolution (app/opcache/resolution.py)
takes plain values from the environment; this module gives it the other two without changing its
rules: a run-time variable becomes a run-time Setting (or a run-time EnvOrigin for a variable no
option carries), exactly as a script's run-time value does, so no default is ever shown in its
place; an inherited one is resolved with its default and each effective value it decided is
then marked `inherited` (docs/cann/launch-scripts.md#default-if-unset).

A Python script's twins (`os.environ.setdefault(X, d)`, `os.environ[X] = os.environ.get(X, d)`:
app/io/scripts.py EnvState) reach the resolution as the script's settings, with their default
when the environment does not have X; `mark_script_states` marks the effective values so decided
the same way.

Public API:
    runtime_inputs(envfile, framework) -> (settings, env_origins)
    mark_env_states(effective, envfile, environ) -> effective
    mark_script_states(effective, imported, source, environ) -> effective
    launching_sets(environment, variable, empty_too) -> bool
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cann_config.app.allocconf import VARIABLE, VARIABLES, chosen_variable
from cann_config.app.catalog import load_catalog
from cann_config.app.io.envfile import EnvFile
from cann_config.app.opcache.resolution import Effective, EnvOrigin, Setting


def runtime_inputs(envfile: EnvFile, framework: str | None) -> tuple[dict[str, Setting], dict[str, EnvOrigin]]:
    """The env file's run-time variables as the resolution's run-time inputs.

    A variable an option reads (ASCEND_MAX_OP_CACHE_SIZE, ASCEND_CACHE_PATH, ...; for the
    framework that reads it) becomes a run-time Setting of that option; PYTORCH_NPU_ALLOC_CONF /
    PYTORCH_ALLOC_CONF one of every npu_alloc_* option; any other an EnvOrigin marked run time
    (GE_USE_STATIC_MEMORY: app/opcache/resolution.py legacy_static_memory)."""
    catalog = load_catalog()
    settings: dict[str, Setting] = {}
    origins: dict[str, EnvOrigin] = {}
    for name, runtime in envfile.runtime.items():
        file = envfile.files.get(name, envfile.source)
        line = envfile.lines.get(name)
        shown = runtime.shown()
        options = []
        if name in VARIABLES:
            # torch_npu reads PYTORCH_NPU_ALLOC_CONF when it is set, else PYTORCH_ALLOC_CONF
            # (docs/cann/torch-npu.md): the fallback matters only while the first is not set.
            if name == VARIABLE or (VARIABLE not in envfile.values and VARIABLE not in envfile.runtime):
                options = [o.id for o in catalog.options.values() if o.id.startswith("npu_alloc_")]
        else:
            for option in catalog.options.values():
                for reader, variable in option.targets.env.items():
                    if variable == name and (reader == "*" or framework in (None, reader)):
                        options.append(option.id)
        for oid in options:
            settings[oid] = Setting(None, file, line, name, False, True, shown)  # type: ignore[arg-type]
        origins[name] = EnvOrigin(file, line, True, shown)
    return settings, origins


def mark_env_states(effective: Mapping[str, Effective], envfile: EnvFile,
                    environ: Mapping[str, str]) -> dict[str, Effective]:
    """Each effective value an inherited variable decided, marked with the variable the launching
    environment may set instead; for the torch_npu allocator variable, every npu_alloc_* entry
    (a key it leaves out is at its default only while the variable is the file's). A run-time
    value from the env file keeps the source "env" (the environment the file makes)."""
    out = dict(effective)
    files = set(envfile.files.values()) | {envfile.source}
    for oid, eff in effective.items():
        if eff.runtime and eff.source == "script" and eff.file in files and eff.variable in envfile.runtime:
            out[oid] = eff._replace(source="env")
    if not envfile.inherited:
        return out
    picked = chosen_variable(environ)
    alloc_from = envfile.inherited.get(picked[0]) if picked is not None else None
    for oid, eff in effective.items():
        origin = None
        if eff.source == "env" and eff.variable and eff.variable in envfile.inherited:
            origin = envfile.inherited[eff.variable]
        elif oid.startswith("npu_alloc_") and alloc_from is not None and eff.source in ("env", "default"):
            origin = alloc_from
        if origin is not None:
            out[oid] = out[oid]._replace(inherited=origin)
    return out


def launching_sets(environment: Mapping[str, str], variable: str, empty_too: bool) -> bool:
    """Whether the environment a script starts in replaces its default-if-unset of `variable`
    (`os.environ.setdefault`/`get(X, d)` keep any value, even an empty one; `get(X) or d` not an
    empty one)."""
    return variable in environment and (environment[variable] != "" or not empty_too)


def mark_script_states(effective: Mapping[str, Effective], imported: Any, source: str,
                       environ: Mapping[str, str]) -> dict[str, Effective]:
    """Each effective value a script's default-if-unset decided (`imported`:
    app.io.importers.ImportedSettings), marked with the variable the launching environment may set
    instead; for the torch_npu allocator variable, every npu_alloc_* entry it decides or leaves at
    its default. A default the environment already replaces (`environ` has the variable) is not
    the script's value and is not marked."""
    out = dict(effective)
    alloc_from = None
    picked = chosen_variable(environ)
    for oid, origin in imported.origins.items():
        if not origin.inherited or oid not in out or launching_sets(environ, origin.inherited, origin.empty_too):
            continue
        eff = out[oid]
        if eff.file != source or eff.line != origin.line:
            continue  # another source decides it (op_cache.ini, a framework's own variable, ...)
        out[oid] = eff._replace(inherited=origin.inherited)
        if oid.startswith("npu_alloc_") and origin.name in VARIABLES and (picked is None or picked[0] == origin.name):
            alloc_from = origin.inherited
    if alloc_from is not None:
        for oid, eff in out.items():
            if oid.startswith("npu_alloc_") and not eff.inherited and (eff.source == "default" or eff.file == source):
                out[oid] = eff._replace(inherited=alloc_from)
    return out


__all__ = ["launching_sets", "mark_env_states", "mark_script_states", "runtime_inputs"]
