"""MindSpore 2.10's memory settings: what its validators accept and refuse, exactly.

Why this module exists: MindSpore (Huawei's own framework) sets device memory through
`mindspore.set_context(max_device_memory=..., mempool_block_size=..., variable_memory_max_size=...,
memory_optimize_level=..., ascend_config={...})` - deprecated in 2.10 for
`mindspore.runtime.set_memory(init_size, increase_size, max_size, optimize_level,
huge_page_reserve_size)` - and its validators are strict and surprising ("28G", "28 GB", "028GB",
".5GB" refused by a regular expression; "28GB " by a float conversion; "0.0GB" with a message of
its own; `True` accepted for `atomic_clean_policy`; set_memory looser than set_context). A user
whose script stops at start wants to know before the job is queued. This module answers as
MindSpore 2.10 does (docs/cann/mindspore.md): each check below is the validator of the
`mindspore` 2.10.0 wheel (`mindspore/context.py`, `mindspore/runtime/memory.py`,
`mindspore/_checkparam.py`) restated, step for step and in the same order, with the message
MindSpore raises; tests/data/mindspore/verdicts.json, recorded by running those validators
(tests/tools/record_mindspore_verdicts.py), is replayed against it through `diagnose`.

Public API:
    VERSION                                    the MindSpore release the rules were read from
    Refusal(error, message)                    MindSpore's exception type and message
    check_set_context(kwargs) -> Refusal | None      kwargs: name -> Python value (UNKNOWN skipped)
    check_set_memory(kwargs, positional=()) -> Refusal | None
    check_ascend_config(value) -> Refusal | None
    context_deprecations(kwargs) -> list[(name, replacement)]
    SET_MEMORY_ARGS, SET_MEMORY_DEFAULTS, CONTEXT_TO_RUNTIME
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from cann_config.app.findings import Finding, make_finding

VERSION = "2.10.0"
# mindspore/context.py _RE_PATTERN and mindspore/runtime/memory.py _MEMORY_PATTERN (the same text);
# _RESERVE_PATTERN allows a leading 0. Matched with re.match and re.ASCII: a PREFIX match.
MEMORY_PATTERN = r"[1-9][0-9]*(\.)?[0-9]*GB|0\.[0-9]*GB"
RESERVE_PATTERN = r"[0-9][0-9]*(\.)?[0-9]*GB|0\.[0-9]*GB"
# context.py _DEVICE_APP_MEMORY_SIZE: the largest variable_memory_max_size, in GB.
DEVICE_APP_MEMORY_SIZE = 31
OPTIMIZE_LEVELS = ["O0", "O1"]
# set_context's args_type_check: the settings that must be str (TypeError otherwise).
CONTEXT_STR_ARGS = ("max_device_memory", "variable_memory_max_size", "mempool_block_size")
# runtime.set_memory(init_size="2GB", increase_size="2GB", max_size="1024GB", optimize_level="O0",
# huge_page_reserve_size="0GB"); every argument must be str.
SET_MEMORY_ARGS = ("init_size", "increase_size", "max_size", "optimize_level", "huge_page_reserve_size")
SET_MEMORY_DEFAULTS = {"init_size": "2GB", "increase_size": "2GB", "max_size": "1024GB", "optimize_level": "O0",
                       "huge_page_reserve_size": "0GB"}
# context.py _check_context_deprecated: the memory settings and what replaces them in 2.10.
DEPRECATED = {
    "max_device_memory": "mindspore.runtime.set_memory(max_size=...)",
    "variable_memory_max_size": "mindspore.runtime.set_memory(max_size=...)",
    "mempool_block_size": "mindspore.runtime.set_memory(increase_size=...)",
    "memory_optimize_level": "mindspore.runtime.set_memory(optimize_level=...)",
    "ascend_config": "mindspore.device_context.ascend.* (op_precision, op_tuning, ...)",
}
# set_context keyword -> set_memory argument (the deprecation names set_memory; which argument
# takes over mempool_block_size is read from both docstrings: [inference], docs/cann/mindspore.md).
CONTEXT_TO_RUNTIME = {"max_device_memory": "max_size", "mempool_block_size": "increase_size",
                      "memory_optimize_level": "optimize_level"}
# The set_context keywords this module checks.
MEMORY_CONTEXT_KEYS = frozenset(CONTEXT_STR_ARGS + ("memory_optimize_level", "ascend_config"))
# context.py _check_key: these go inside ascend_config, never to set_context directly.
ASCEND_ONLY_KEYS = ("precision_mode", "jit_compile", "atomic_clean_policy", "matmul_allow_hf32", "conv_allow_hf32",
                    "op_precision_mode", "host_scheduling_max_threshold", "ge_options", "op_debug_option")
# context.py set_ascend_config: ascend_cfg_modes (a list: `value in list`; a tuple: isinstance).
ASCEND_CONFIG_MODES: dict[str, Any] = {
    "precision_mode": ["force_fp16", "allow_fp32_to_fp16", "allow_mix_precision", "must_keep_origin_dtype",
                       "force_fp32", "allow_fp32_to_bf16", "allow_mix_precision_fp16", "allow_mix_precision_bf16"],
    "jit_compile": [True, False],
    "atomic_clean_policy": [0, 1],
    "matmul_allow_hf32": [True, False],
    "conv_allow_hf32": [True, False],
    "exception_dump": ["0", "1", "2"],
    "op_precision_mode": (str,),
    "ge_options": (dict,),
    "parallel_speed_up_json_path": (str, type(None)),
    "host_scheduling_max_threshold": (int,),
    "cur_step_num": (int,),
    "save_checkpoint_steps": (int,),
    "need_ckpt": (bool,),
    "last_triggered_step": (int,),
    "hccl_watchdog": (bool,),
    "topo_order": (dict,),
    "op_debug_option": (str, type(None)),
}
REMOVED_ASCEND_KEYS = {"exception_dump": ("2.6", "device_context.ascend.op_debug.aclinit_config()")}
GE_OPTION_LEVELS = ("global", "session")


class Refusal(NamedTuple):
    """MindSpore stops the script: its exception type, its message, and what kind of check it
    was (the tool explains each kind: "format", "conversion", "zero", "range", "type", "choice",
    "ascend-only", "removed", "twice")."""

    error: str
    message: str
    kind: str = "choice"


def _regex_refusal(value: str, pattern: str) -> Refusal | None:
    # _checkparam.check_str_by_regular: re.match (a prefix match), flags re.ASCII.
    if re.match(pattern, value, re.ASCII) is None:
        return Refusal("ValueError", f"The '{value}' is illegal, it must be match regular'{pattern}' by flags"
                                     f"'re.ASCII.'", "format")
    return None


def _number(text: str, kind: type = float) -> tuple[float | int | None, Refusal | None]:
    """Python's float() / int() of the text before "GB", as MindSpore calls them."""
    try:
        return kind(text), None
    except ValueError as exc:
        return None, Refusal("ValueError", str(exc), "conversion")


def _gb_number(value: str) -> tuple[float | int | None, Refusal | None]:
    """A set_context size ("28GB"): the setter's regex check, then float() of what is before "GB"."""
    refused = _regex_refusal(value, MEMORY_PATTERN)
    return (None, refused) if refused else _number(value[:-2])


def _type_refusal(name: str, value: Any, kind: type) -> Refusal | None:
    # _checkparam.args_type_check
    if not isinstance(value, kind):
        return Refusal("TypeError", f"The parameter '{name}' must be {kind}, but got {type(value)}", "type")
    return None


def _context_setting(key: str, value: Any) -> Refusal | None:
    """One set_context keyword through its setter (context.py _Context.setters)."""
    where = "For 'context.set_context', the argument"
    if key == "max_device_memory":
        number, refused = _gb_number(value)
        if refused:
            return refused
        if number == 0:
            return Refusal("ValueError", f"{where} 'max_device_memory' should not be \"0GB\".", "zero")
        return None
    if key == "variable_memory_max_size":
        number, refused = _gb_number(value)
        if refused:
            return refused
        if number is not None and number > DEVICE_APP_MEMORY_SIZE:
            return Refusal("ValueError", f"{where} 'variable_memory_max_size' should not be greater than 31GB, "
                                         f"but got {value}GB.", "range")
        return _number(value[:-2], int)[1]  # int(): "30.0" is refused
    if key == "mempool_block_size":
        number, refused = _gb_number(value)
        if refused:
            return refused
        if number is not None and number < 1.0:
            # (MindSpore's message has two spaces after the comma)
            return Refusal("ValueError", "For 'context.set_context',  the argument 'mempool_block_size' should be "
                                         f"greater or equal to \"1GB\", "
                                         f"but got {number}GB", "range")
        return None
    if key == "memory_optimize_level":
        if value not in OPTIMIZE_LEVELS:
            return Refusal("ValueError", f"{where} 'memory_optimize_level' must be one of {OPTIMIZE_LEVELS}, "
                                         f"but got {value}.")
        return None
    if key == "ascend_config":
        return check_ascend_config(value)
    return None


def check_ascend_config(config: Mapping[Any, Any]) -> Refusal | None:
    """context.py set_ascend_config, key by key in the dict's order, and _set_ge_options."""
    allowed = tuple(ASCEND_CONFIG_MODES)
    for key, value in config.items():
        if key not in allowed:
            return Refusal("ValueError", f"For 'context.set_context', the key of argument 'ascend_config' must be "
                                         f"one of {allowed}, but got {key}.")
        if key in REMOVED_ASCEND_KEYS:
            version, interface = REMOVED_ASCEND_KEYS[key]
            return Refusal("ValueError", f"For 'ascend_config', the parameter '{key}' has been removed since "
                                         f"MindSpore {version} version. Please use the {interface} instead.", "removed")
        modes = ASCEND_CONFIG_MODES[key]
        if isinstance(modes, list) and value not in modes:
            return Refusal("ValueError", f"For 'ascend_config', the value of argument {key} must be one of {modes}, "
                                         f"but got {value}.")
        if isinstance(modes, tuple) and not isinstance(value, modes):
            return Refusal("TypeError", f"For 'ascend_config', the type of argument {key} must be one of "
                                        f"{modes}, but got {type(value)}.", "type")
        if key == "ge_options":
            refused = _ge_options(value)
            if refused:
                return refused
    return None


def _ge_options(ge_options: Mapping[Any, Any]) -> Refusal | None:
    for level, options in ge_options.items():
        if level not in GE_OPTION_LEVELS:
            return Refusal("ValueError", f"For 'ascend_config', the key of ge_options must be one of "
                                         f"('global', 'session'), but got {level}.")
        if not isinstance(options, dict):
            return Refusal("TypeError", f"For 'ge_options', the type of {level} options must be dict, "
                                        f"but got {type(options)}. The error options: {options}.", "type")
        for key, value in options.items():
            if not isinstance(key, str):
                return Refusal("TypeError", f"For 'ge_options', the type of key and value must be str, "
                                            f"but got {type(key)}. The error key is {key}.", "type")
            if not isinstance(value, str):
                return Refusal("TypeError", f"For 'ge_options', the type of key and value must be str, "
                                            f"but got {type(value)}. The error value is {value}", "type")
    return None


def check_set_context(kwargs: Mapping[str, Any]) -> Refusal | None:
    """`mindspore.set_context(**kwargs)` as 2.10 validates the memory settings: the type checks of
    every keyword first (args_type_check), then each keyword in order. Keywords this module does
    not model pass (they are not memory settings)."""
    for key in CONTEXT_STR_ARGS:
        if key in kwargs:
            refused = _type_refusal(key, kwargs[key], str)
            if refused:
                return refused
    if "ascend_config" in kwargs:
        refused = _type_refusal("ascend_config", kwargs["ascend_config"], dict)
        if refused:
            return refused
    for key, value in kwargs.items():
        if key in ASCEND_ONLY_KEYS:
            return Refusal("ValueError", f"Please set '{key}' through parameter ascend_config", "ascend-only")
        refused = _context_setting(key, value)
        if refused:
            return refused
    return None


def check_set_memory(kwargs: Mapping[str, Any], positional: Iterable[Any] = ()) -> Refusal | None:
    """`mindspore.runtime.set_memory(...)` (runtime/memory.py), the first call of a process."""
    args = dict(SET_MEMORY_DEFAULTS)
    args.update(zip(SET_MEMORY_ARGS, positional, strict=False))
    args.update(kwargs)
    for name in SET_MEMORY_ARGS:
        refused = _type_refusal(name, args[name], str)
        if refused:
            return refused
    for name in ("init_size", "increase_size", "max_size"):
        refused = _regex_refusal(args[name], MEMORY_PATTERN)
        if refused:
            return refused
        if args[name] in ["0GB", "0.0GB"]:
            return Refusal("ValueError", "The memory value should not be \"0GB\".", "zero")
    refused = _regex_refusal(args["huge_page_reserve_size"], RESERVE_PATTERN)
    if refused:
        return refused
    for name in ("init_size", "increase_size", "max_size", "huge_page_reserve_size"):
        refused = _number(args[name][:-2])[1]
        if refused:
            return refused
    if args["optimize_level"] not in OPTIMIZE_LEVELS:
        return Refusal("ValueError", f"The optimize_level must be one of {OPTIMIZE_LEVELS}, "
                                     f"but got {args['optimize_level']}.")
    return None


SET_MEMORY_TWICE = Refusal("RuntimeError", "The 'set_memory' can not be set repeatedly.", "twice")


def context_deprecations(kwargs: Iterable[str]) -> list[tuple[str, str]]:
    """The memory keywords of a set_context call that 2.10 deprecates, with their replacement."""
    return [(key, DEPRECATED[key]) for key in kwargs if key in DEPRECATED]


# ---------------------------------------------------------------------------------------------
# MS_ALLOC_CONF (docs/cann/mindspore.md#ms-alloc-conf; C++ mem_env.h of mindspore-ai/mindspore)
# ---------------------------------------------------------------------------------------------

ALLOC_VARIABLE = "MS_ALLOC_CONF"
# The keys MindSpore reads; any other key is ignored without a word.
ALLOC_KEYS = ("acl_allocator", "somas_whole_block", "enable_vmm", "vmm_align_size", "memory_recycle",
              "memory_tracker", "simple_tracker", "memory_tracker_path", "defrag_memory_step_freq", "older_pool",
              "enable_small_pool", "enable_mem_huge_1g")


def parse_ms_alloc_conf(text: str) -> tuple[dict[str, str], list[str]]:
    """MS_ALLOC_CONF as MindSpore splits it: outer quotes stripped, items separated by `;` or `,`,
    each `key:value`. Returns (known key -> value, unknown keys) - MindSpore ignores the latter."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1]
    values: dict[str, str] = {}
    unknown: list[str] = []
    for item in text.replace(";", ",").split(","):
        if not item.strip():
            continue
        key, _, value = item.partition(":")
        key = key.strip()
        if key in ALLOC_KEYS:
            values[key] = value.strip()
        else:
            unknown.append(key)
    return values, unknown


def ms_alloc_conf_text(values: Mapping[str, str]) -> str:
    """`key:value` of each set key, joined by commas, in ALLOC_KEYS order."""
    return ",".join(f"{key}:{values[key]}" for key in ALLOC_KEYS if values.get(key, "") != "")


# ---------------------------------------------------------------------------------------------
# A script's and an environment's MindSpore settings, as findings and values
# ---------------------------------------------------------------------------------------------

# set_context keyword / set_memory argument -> catalog option id (resources/catalog.toml).
CONTEXT_OPTIONS = {"max_device_memory": "max_device_memory", "mempool_block_size": "mempool_block_size",
                   "memory_optimize_level": "memory_optimize_level"}
RUNTIME_OPTIONS = {"max_size": "max_device_memory", "increase_size": "mempool_block_size",
                   "optimize_level": "memory_optimize_level"}
ALLOC_OPTIONS = {"enable_vmm": "ms_alloc_enable_vmm", "memory_recycle": "ms_alloc_memory_recycle",
                 "enable_mem_huge_1g": "ms_alloc_enable_mem_huge_1g"}


class MindSporeSettings:
    """What `mindspore_settings` found: findings, and option id -> (value, file, line, how)."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.values: dict[str, tuple[Any, str | None, int | None, str]] = {}


def _call_text(call: Any) -> str:
    return "mindspore.set_context" if call.api == "set_context" else "mindspore.runtime.set_memory"


def _refusal_finding(refusal: Refusal, call: Any, file: str | None) -> Finding:
    return make_finding(f"mindspore-refused-{refusal.kind}", call=_call_text(call), error=refusal.error,
                        message=refusal.message, version=VERSION, file=file, line=call.line)


def _known(values: Mapping[str, Any], call: Any, out: MindSporeSettings, file: str | None) -> dict[str, Any]:
    """The arguments whose value the reader knows; the others are named as not checked."""
    known = {}
    by_name = {**{arg: call.expressions.get(str(i), "?") for i, arg in enumerate(SET_MEMORY_ARGS)},
               **call.expressions} if call.api == "set_memory" else call.expressions
    for name, value in values.items():
        if _has_unknown(value) and call.api == "set_context" and name not in MEMORY_CONTEXT_KEYS:
            continue  # not a memory setting (mode=ms.GRAPH_MODE, ...): nothing to check
        if _has_unknown(value):
            out.findings.append(make_finding("mindspore-value-unknown", call=_call_text(call), name=name,
                                             expression=by_name.get(name, "?"), file=file, line=call.line))
        else:
            known[name] = value
    return known


def _has_unknown(value: Any) -> bool:
    # the script reader's UNKNOWN (imported here: --set and the exports need no script reader)
    from cann_config.app.io.scripts import UNKNOWN

    if value is UNKNOWN:
        return True
    if isinstance(value, dict):
        return any(_has_unknown(k) or _has_unknown(v) for k, v in value.items())
    return False


def mindspore_settings(calls: Iterable[Any], environ: Mapping[str, str], *, file: str | None = None,
                       env_where: Any = None) -> MindSporeSettings:
    """MindSpore 2.10's verdict on a script's `set_context` / `runtime.set_memory` calls (in the
    order the script makes them; app/io/mindspore_script.py reads them) and on MS_ALLOC_CONF in
    `environ`. `env_where(name) -> (file, line)` says where a variable was set."""
    out = MindSporeSettings()
    memory_calls = 0
    for call in calls:
        if call.api == "set_memory":
            memory_calls += 1
            if memory_calls > 1:
                out.findings.append(_refusal_finding(SET_MEMORY_TWICE, call, file))
                continue
            positional = dict(zip(SET_MEMORY_ARGS, call.positional, strict=False))
            known = _known({**positional, **call.keywords}, call, out, file)
            refused = check_set_memory(known)
            if refused:
                out.findings.append(_refusal_finding(refused, call, file))
                continue
            for name, oid in RUNTIME_OPTIONS.items():
                if name in known:
                    out.values[oid] = (known[name], file, call.line, "mindspore.runtime.set_memory")
            continue
        known = _known(call.keywords, call, out, file)
        refused = check_set_context(known)
        if refused:
            out.findings.append(_refusal_finding(refused, call, file))
            continue
        for name, replacement in context_deprecations(known):
            if name == "ascend_config":
                out.findings.append(make_finding("mindspore-ascend-config-deprecated", version=VERSION, file=file,
                                                 line=call.line))
            else:
                out.findings.append(make_finding("mindspore-deprecated", name=name, replacement=replacement,
                                                 version=VERSION, file=file, line=call.line))
        for name, oid in CONTEXT_OPTIONS.items():
            if name in known:
                out.values[oid] = (known[name], file, call.line, "mindspore.set_context")
        config = known.get("ascend_config") or {}
        if "atomic_clean_policy" in config:
            value = config["atomic_clean_policy"]
            if isinstance(value, bool) or not isinstance(value, int):
                out.findings.append(make_finding("mindspore-atomic-not-int", value=repr(value), sent=str(value),
                                                 file=file, line=call.line))
            out.values["atomic_clean_policy"] = (value, file, call.line, "ascend_config")
        if config.get("ge_options"):
            out.findings.append(make_finding("mindspore-ge-options-ge-path", file=file, line=call.line))
    raw = environ.get(ALLOC_VARIABLE)
    if raw is not None:
        where_file, where_line = env_where(ALLOC_VARIABLE) if env_where else (None, None)
        values, unknown = parse_ms_alloc_conf(raw)
        for key in unknown:
            out.findings.append(make_finding("mindspore-alloc-unknown-key", key=key, variable=ALLOC_VARIABLE,
                                             known=", ".join(ALLOC_KEYS), file=where_file, line=where_line))
        for key, oid in ALLOC_OPTIONS.items():
            if key in values:
                out.values[oid] = (values[key], where_file, where_line, ALLOC_VARIABLE)
    return out


def option_problem(option: Any, value: str) -> Any:
    """Why MindSpore 2.10 refuses `value` for a catalog option with `validator = "mindspore"`
    (checked as runtime.set_memory's argument `targets.ms_runtime`, the API the mindspore export
    writes by default; the export checks set_context's own rules when it writes that), as a
    Message, or None."""
    from cann_config.app.errors import Message

    name = option.targets.ms_runtime
    refused = check_set_memory({name: value}) if name else None
    if refused is None:
        return None
    return Message("mindspore-value-refused", option=option.id, value=value, version=VERSION, error=refused.error,
                   message=refused.message)
