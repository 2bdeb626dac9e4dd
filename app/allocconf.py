"""torch_npu's allocator settings, PYTORCH_NPU_ALLOC_CONF: read as torch_npu reads it, written so it accepts it.

Why this module exists: a wrong PYTORCH_NPU_ALLOC_CONF stops a PyTorch job at start (an unknown
key, `true` instead of `True`, `expandable_segments:True` together with `max_split_size_mb`), and
users cannot see which allocator setting is in effect when two variables are set. The exporters,
the importers, `diagnose` and the bundle all go through this one module, so the tool refuses and
reports exactly what torch_npu would (docs/cann/torch-npu.md; Ascend/pytorch
`torch_npu/csrc/core/npu/NPUAllocatorConfig.cpp` and PyTorch's c10 allocator config, which parses
the keys shared with CUDA):

- the string is cut into tokens at `,` `:` `[` `]`, spaces dropped (c10 `ConfigTokenizer`); each
  setting is `key:value`, settings are joined by `,`, a later key overwrites an earlier one;
- a key neither torch_npu nor PyTorch knows stops the job ("Unrecognized key"); keys they know but
  this tool does not model are accepted and named as not checked;
- `expandable_segments` takes `True` or `False` exactly; `max_split_size_mb` an integer > 20;
  `garbage_collection_threshold` a number in (0.0, 1.0); `page_size` only `1g`;
  `base_addr_aligned_kb` an integer 0..16 (the ranges are the catalog's: resources/catalog.toml);
- `expandable_segments:True` with `max_split_size_mb` or `garbage_collection_threshold` stops the
  job; `base_addr_aligned_kb` without expandable segments has no effect;
- both PYTORCH_NPU_ALLOC_CONF and PYTORCH_ALLOC_CONF set: an error. Current torch_npu (since the
  v26.2.0 line and the 2.14.0 wheel) stops at the first allocation ("please set only one of
  them"); v7.3.x and older read only PYTORCH_NPU_ALLOC_CONF, which is why the values shown are
  that variable's (docs/cann/torch-npu.md#both-variables).

The catalog declares the options (`targets.alloc_conf` is each one's key); this module holds only
the variable's grammar and the rules between keys.

Public API:
    VARIABLE, FALLBACK_VARIABLE, VARIABLES
    alloc_options(catalog=None) -> dict[key, Option]                 catalog order
    format_value(value) -> str                                        True / 64 / 0.6 / 1g
    alloc_conf_text(values, catalog=None) -> str                      "key:value,key:value"
    parse_alloc_conf(text, *, variable=VARIABLE, file=None, line=None) -> ParsedAllocConf
    check_alloc_values(values, *, file=None, line=None, present=None) -> list[Finding]
    expandable_conflicts(values) -> list[option id]                   refused next to expandable:True
    chosen_variable(environ) -> (name, value) | None                  what torch_npu reads
    page_size_device_finding(value, device, *, file=None, line=None) -> Finding | None
    both_variables_finding(environ, *, file=None, line=None) -> Finding | None
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from cann_config.app.catalog import Catalog, Option, Value, load_catalog
from cann_config.app.device.availability import availability
from cann_config.app.errors import explain
from cann_config.app.findings import Finding, make_finding

VARIABLE = "PYTORCH_NPU_ALLOC_CONF"
FALLBACK_VARIABLE = "PYTORCH_ALLOC_CONF"
VARIABLES = (VARIABLE, FALLBACK_VARIABLE)
# The two allocator errors a suggested fix resolves by itself (app/support/fixes.py): unset
# PYTORCH_ALLOC_CONF; turn expandable segments off beside max_split_size_mb.
BOTH_VARIABLES_CODE = "torchnpu-alloc-both-variables"
EXPANDABLE_CONFLICT_CODE = "torchnpu-alloc-expandable-conflict"
FRAMEWORK = "pytorch"

# Keys torch_npu (NPUAllocatorConfig::parseArgs) or PyTorch's common allocator config know besides
# the catalog's; torch_npu accepts them (some with a warning that it does not support them). This
# tool does not check their values.
OTHER_KEYS = frozenset({
    "pin_memory_expandable_segments", "pinned_mem_register", "segment_size_mb", "large_segment_size_mb",
    "multi_stream_lazy_reclaim", "per_process_memory_fraction", "pinned_reserve_segment_size_mb",
    "release_lock_on_npumalloc", "max_non_split_rounding_mb", "roundup_power2_divisions",
    "pinned_use_background_threads", "pinned_num_register_threads", "pinned_use_host_register",
    "release_lock_on_cudamalloc", "pinned_use_cuda_host_register",
})
_SEPARATORS = ",:[]"
# PyTorch reads these two with std::stoi / std::stod, which take a number's leading characters and
# ignore the rest ("64MB" is 64); torch_npu reads base_addr_aligned_kb digits only.
_C_NUMBER_PREFIX = {
    "max_split_size_mb": re.compile(r"[+-]?[0-9]+"),
    "garbage_collection_threshold": re.compile(r"[+-]?([0-9]+\.?[0-9]*([eE][+-]?[0-9]+)?|\.[0-9]+([eE][+-]?[0-9]+)?)"),
}
EXPANDABLE = "npu_alloc_expandable_segments"
MAX_SPLIT = "npu_alloc_max_split_size_mb"
GC_THRESHOLD = "npu_alloc_garbage_collection_threshold"
BASE_ADDR = "npu_alloc_base_addr_aligned_kb"


def alloc_options(catalog: Catalog | None = None) -> dict[str, Option]:
    """The catalog's allocator options by their key in PYTORCH_NPU_ALLOC_CONF, in catalog order."""
    catalog = catalog or load_catalog()
    return {o.targets.alloc_conf: o for o in catalog.options.values() if o.targets.alloc_conf}


def format_value(value: Value) -> str:
    """A value as torch_npu reads it: True/False with that case, integers and numbers as digits."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def alloc_conf_text(values: Mapping[str, Value], catalog: Catalog | None = None) -> str:
    """`key:value` of each allocator option in `values` (option id -> value) that is set, in the
    catalog's order, joined by commas ("" when none is set)."""
    parts = []
    for key, option in alloc_options(catalog).items():
        value = values.get(option.id, "")
        if not (isinstance(value, str) and value == ""):
            parts.append(f"{key}:{format_value(value)}")
    return ",".join(parts)


class ParsedAllocConf:
    """What one PYTORCH_NPU_ALLOC_CONF value sets: option id -> value, the findings, the keys
    torch_npu knows that this tool does not check, and the keys present (in order)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.values: dict[str, Value] = {}
        self.findings: list[Finding] = []
        self.other_keys: list[str] = []
        self.keys: list[str] = []

    @property
    def usable(self) -> bool:
        """torch_npu would start with this value (no error finding)."""
        return not any(f.severity == "error" for f in self.findings)


def _tokens(text: str) -> list[str]:
    """c10's ConfigTokenizer: separators are tokens of their own, spaces are dropped."""
    tokens: list[str] = []
    buffer = ""
    for ch in text:
        if ch in _SEPARATORS:
            if buffer:
                tokens.append(buffer)
                buffer = ""
            tokens.append(ch)
        elif ch != " ":
            buffer += ch
    if buffer:
        tokens.append(buffer)
    return tokens


def _value_of(option: Option, key: str, raw: str, variable: str, where: dict[str, Any]) -> tuple[Value | None, Finding | None]:
    """The value of one catalog key as torch_npu reads it, or the finding that says why it stops."""
    if option.type == "bool":
        if raw in ("True", "False"):
            return raw == "True", None
        if raw.lower() in ("true", "false"):
            return None, make_finding("torchnpu-alloc-wrong-case", key=key, value=raw, variable=variable,
                                      right="True" if raw.lower() == "true" else "False", **where)
        return None, make_finding("torchnpu-alloc-bad-value", key=key, value=raw, variable=variable,
                                  expected="True / False", **where)
    if option.enumerated:  # page_size: only the literal 1g ("Unsupported page_size value")
        allowed = [v for v in option.allowed_values() if v != ""]
        if raw in allowed:
            return raw, None
        return None, make_finding("torchnpu-alloc-page-size-value", key=key, value=raw, variable=variable,
                                  expected=", ".join(map(str, allowed)), **where)
    lenient = None
    prefix = _C_NUMBER_PREFIX.get(key)
    if prefix is not None:
        match = prefix.match(raw)
        if match and match.group(0) != raw:
            lenient = make_finding("torchnpu-alloc-number-prefix", key=key, value=raw, number=match.group(0),
                                   variable=variable, **where)
            raw = match.group(0)
    try:
        value = option.parse(raw)
    except ValueError as exc:
        if option.type in ("int", "float") and _is_number(raw):
            return None, make_finding("torchnpu-alloc-out-of-range", key=key, value=raw, variable=variable,
                                      reason=explain(exc), **where)
        return None, make_finding("torchnpu-alloc-bad-value", key=key, value=raw, variable=variable,
                                  expected=option.type, **where)
    if isinstance(value, str) and value == "":  # "unset" is not a value torch_npu reads
        return None, make_finding("torchnpu-alloc-bad-value", key=key, value=raw, variable=variable,
                                  expected=option.type, **where)
    return value, lenient


def _is_number(raw: str) -> bool:
    try:
        float(raw)
    except ValueError:
        return False
    return True


def parse_alloc_conf(text: str, *, variable: str = VARIABLE, file: str | None = None, line: int | None = None,
                     catalog: Catalog | None = None) -> ParsedAllocConf:
    """Read a PYTORCH_NPU_ALLOC_CONF value as torch_npu would, with a finding for each thing that
    would stop the job (errors) or that the user should know (warnings, info)."""
    options = alloc_options(catalog)
    where: dict[str, Any] = {"file": file, "line": line}
    out = ParsedAllocConf(text)
    tokens = _tokens(text)
    i = 0
    while i < len(tokens):
        key = tokens[i]
        if key in _SEPARATORS:
            out.findings.append(make_finding("torchnpu-alloc-malformed", variable=variable, text=text, token=key,
                                             **where))
            break
        if i + 1 >= len(tokens) or tokens[i + 1] != ":":
            out.findings.append(make_finding("torchnpu-alloc-malformed", variable=variable, text=text, token=key,
                                             **where))
            break
        # The value: one token, or a bracketed list (roundup_power2_divisions:[...]).
        j = i + 2
        if j < len(tokens) and tokens[j] == "[":
            while j < len(tokens) and tokens[j] != "]":
                j += 1
            raw = "".join(tokens[i + 2:j + 1])
        else:
            raw = tokens[j] if j < len(tokens) and tokens[j] not in _SEPARATORS else ""
        if key in options:
            out.keys.append(key)
            if raw == "":
                out.findings.append(make_finding("torchnpu-alloc-missing-value", key=key, variable=variable, **where))
                break
            value, problem = _value_of(options[key], key, raw, variable, where)
            if problem is not None:
                out.findings.append(problem)
            if value is not None:
                out.values[options[key].id] = value
        elif key in OTHER_KEYS:
            out.keys.append(key)
            out.other_keys.append(key)
            out.findings.append(make_finding("torchnpu-alloc-key-not-checked", key=key, variable=variable, **where))
        else:
            known = ", ".join(list(options) + sorted(OTHER_KEYS))
            out.findings.append(make_finding("torchnpu-alloc-unknown-key", key=key, variable=variable, known=known,
                                             **where))
            break  # torch_npu stops at the first unknown key
        i = j + 1
        if i < len(tokens):
            if tokens[i] != ",":
                out.findings.append(make_finding("torchnpu-alloc-malformed", variable=variable, text=text,
                                                 token=tokens[i], **where))
                break
            i += 1
    present = set(out.values)  # the keys that were read (a refused value is reported once)
    out.findings += check_alloc_values(out.values, file=file, line=line, present=present)
    return out


def check_alloc_values(values: Mapping[str, Value], *, file: str | None = None, line: int | None = None,
                       present: set[str] | None = None) -> list[Finding]:
    """The rules between allocator keys, for values already valid one by one (option id -> value).

    `present`: the option ids that are really set (default: those in `values` whose value is not
    "" and, for base_addr_aligned_kb, differs from the default); used for the "no effect" rule.
    """
    where: dict[str, Any] = {"file": file, "line": line}

    def is_set(oid: str) -> bool:
        value = values.get(oid, "")
        return not (isinstance(value, str) and value == "")

    findings = []
    if values.get(EXPANDABLE) is True:
        clashing = expandable_conflicts(values)
        if clashing:
            keys = ", ".join(load_catalog().option(oid).targets.alloc_conf or oid for oid in clashing)
            findings.append(make_finding("torchnpu-alloc-expandable-conflict", keys=keys, **where))
    else:
        if present is not None:
            base_set = BASE_ADDR in present
        else:
            base_set = is_set(BASE_ADDR) and values.get(BASE_ADDR) != load_catalog().option(BASE_ADDR).default
        if base_set:
            findings.append(make_finding("torchnpu-alloc-base-addr-no-effect", value=values.get(BASE_ADDR, ""),
                                         **where))
    return findings


def expandable_conflicts(values: Mapping[str, Value]) -> list[str]:
    """The option ids torch_npu refuses next to expandable_segments:True that `values` sets."""
    if values.get(EXPANDABLE) is not True:
        return []
    return [oid for oid in (MAX_SPLIT, GC_THRESHOLD) if not (isinstance(values.get(oid, ""), str)
                                                            and values.get(oid, "") == "")]


def page_size_device_finding(value: Value, device: object, *, file: str | None = None,
                             line: int | None = None) -> Finding | None:
    """page_size:1g on a device whose series the docs do not list: the same refusal (error) the
    wizard and the exports give (app.device.availability); None when it is fine or unknown."""
    if value != "1g" or device is None:
        return None
    option = next(o for o in alloc_options().values() if o.targets.alloc_conf == "page_size")
    return availability(option, device, FRAMEWORK).to_finding("error", file=file, line=line)  # type: ignore[arg-type]


def chosen_variable(environ: Mapping[str, str]) -> tuple[str, str] | None:
    """The variable torch_npu reads and its value: PYTORCH_NPU_ALLOC_CONF when it is set (even
    empty), else PYTORCH_ALLOC_CONF; None when neither is set. With both set, current torch_npu
    stops at its first allocation (`both_variables_finding`); this is what v7.3.x and older read."""
    for name in VARIABLES:
        if name in environ:
            return name, environ[name]
    return None


def both_variables_finding(environ: Mapping[str, str], *, file: str | None = None,
                           line: int | None = None) -> Finding | None:
    """The error for both variables set (current torch_npu stops at its first allocation; v7.3.x
    and older read only PYTORCH_NPU_ALLOC_CONF: docs/cann/torch-npu.md#both-variables); None
    otherwise. Its fix, unsetting PYTORCH_ALLOC_CONF, is app.support.fixes'."""
    if VARIABLE in environ and FALLBACK_VARIABLE in environ:
        return make_finding("torchnpu-alloc-both-variables", used=VARIABLE, ignored=FALLBACK_VARIABLE,
                            value=environ[VARIABLE], other=environ[FALLBACK_VARIABLE], file=file, line=line)
    return None
