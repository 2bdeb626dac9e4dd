"""What each NPU memory error means and what to change: the cause, the findings, the suggested
settings (checked by torch_npu's own rules before they are shown) and the exports that apply them.

Why a module of its own: app/triage/events.py reads the numbers; this module decides. The order of
the tests and the thresholds are design choices of this tool, not CANN facts; the numbers are
facts (docs/cann/npu-memory.md#how-the-tool-reads-the-numbers):

torch-npu-oom, in this order:
1. `allowed` printed (set_per_process_memory_fraction in force) and allocated + requested > allowed:
   capacity if it exceeds total too, else fraction-limit;
2. allocated + requested > total: capacity, whatever else holds memory;
3. held outside (total − reserved − free) ≥ 10 % of total and ≥ the request: held-outside;
4. cached-unused (reserved − allocated) ≥ the request and allocated < 98 % of total: fragmentation
   (a few hundred MiB cached at ~99 % allocated is capacity, not fragmentation);
5. otherwise capacity.
Other kinds have a cause of their own: torch-npu-fraction fraction-limit, torch-npu-workspace
workspace, serving-start-up serving-start-up, hccl-buffer hccl-buffer, serving-kv-negative and
mindspore-device-memory capacity.

Suggestions start from the job's current PYTORCH_NPU_ALLOC_CONF (an env file's or a bundle's):
fragmentation suggests expandable_segments:True with every other key kept and max_split_size_mb /
garbage_collection_threshold removed (torch_npu refuses them together: docs/cann/torch-npu.md#alloc-conf);
the result is parsed by app.allocconf as torch_npu would and is shown only when it would start.
Held-outside and capacity change no allocator setting. An HCCL buffer error suggests HCCL_BUFFSIZE ≥
the size the operator printed as needed.

Public API:
    THRESHOLDS
    TriageEvent, Triage
    triage_text(text, *, source, environ=None, environ_source=None, framework=None,
                gpu_memory_utilization=None, communicators=None, line_numbers=None) -> Triage
    suggest_alloc_conf(current) -> AllocSuggestion
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from cann_config.app.allocconf import FALLBACK_VARIABLE, VARIABLE, chosen_variable, parse_alloc_conf
from cann_config.app.findings import Finding, make_finding
from cann_config.app.hbm_budget import HbmBudget, hbm_budget, hccl_buffsize_mb
from cann_config.app.i18n import pick
from cann_config.app.io.exporters.quoting import bash_word, python_str
from cann_config.app.io.formats import ENV_FORMAT
from cann_config.app.messages import message_table
from cann_config.app.triage.events import BYTE_KEYS, RawEvent, find_events

# Design choices (docs/cann/npu-memory.md#how-the-tool-reads-the-numbers), not CANN facts.
THRESHOLDS = {"held_outside_share": 0.10, "capacity_allocated_share": 0.98}
# The exports a suggestion is given in (app.io.formats): lines for the job's environment, and the
# same variables for the top of a PyTorch script.
EXPORT_FORMATS = (ENV_FORMAT, "torch-npu")
# torch_npu refuses these beside expandable_segments:True (docs/cann/torch-npu.md#alloc-conf).
_REPLACED_KEYS = ("max_split_size_mb", "garbage_collection_threshold")
_GIB = 1 << 30
_UNITS = ((1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB"))


def shown_size(n: int | None) -> str:
    """A byte count as torch_npu prints it, in the tool's spelling of binary units: "60.97 GB"."""
    if n is None:
        return "?"
    for unit, name in _UNITS:
        if abs(n) >= unit:
            return f"{n / unit:.2f} {name}"
    return f"{n} B"


class AllocSuggestion(NamedTuple):
    """What expandable segments would make of the current PYTORCH_NPU_ALLOC_CONF."""

    value: str | None  # the suggested value; None when none can be suggested
    replaced: tuple[str, ...]  # keys removed because torch_npu refuses them beside expandable segments
    already_on: bool  # expandable_segments:True is set already
    refused: tuple[Finding, ...]  # why the suggested value would not start (then value is None)


def _items(conf: str) -> list[str]:
    """`key:value` items of an allocator string, split at commas outside brackets."""
    items, depth, current = [], 0, ""
    for ch in conf:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(depth - 1, 0)
        if ch == "," and depth == 0:
            items.append(current.strip())
            current = ""
        else:
            current += ch
    items.append(current.strip())
    return [item for item in items if item]


def _key(item: str) -> str:
    return item.split(":", 1)[0].replace(" ", "")


def suggest_alloc_conf(current: str | None) -> AllocSuggestion:
    """expandable_segments:True added to `current` (every other key kept, max_split_size_mb and
    garbage_collection_threshold removed), checked as torch_npu parses it."""
    if current and parse_alloc_conf(current).values.get("npu_alloc_expandable_segments") is True:
        return AllocSuggestion(None, (), True, ())
    items = _items(current or "")
    replaced = tuple(dict.fromkeys(_key(i) for i in items if _key(i) in _REPLACED_KEYS))
    kept = [i for i in items if _key(i) not in (*_REPLACED_KEYS, "expandable_segments")]
    value = ",".join([*kept, "expandable_segments:True"])
    parsed = parse_alloc_conf(value)
    errors = tuple(f for f in parsed.findings if f.severity == "error")
    if errors:
        return AllocSuggestion(None, replaced, False, errors)
    return AllocSuggestion(value, replaced, False, ())


def export_texts(env: Mapping[str, str], lang: str | None = None) -> list[dict[str, str]]:
    """The exports that apply `env` (name -> value): env-bash lines to source, and the torch-npu
    lines to paste at the top of the script, before torch_npu is imported (it reads its allocator
    variable once, when it initialises: docs/cann/torch-npu.md#set-option)."""
    if not env:
        return []
    head = pick(message_table()["triage-export-header"].text, lang)
    bash = [f"# {head}"] + [f"export {name}={bash_word(value)}" for name, value in env.items()]
    python = [f"# {head}", "import os"] + [f"os.environ[{python_str(name)}] = {python_str(value)}"
                                          for name, value in env.items()]
    python += ["", "import torch", "import torch_npu"]
    return [{"format": EXPORT_FORMATS[0], "text": "\n".join(bash) + "\n"},
            {"format": EXPORT_FORMATS[1], "text": "\n".join(python) + "\n"}]


class TriageEvent(NamedTuple):
    raw: RawEvent
    cause: str | None
    findings: Sequence[Finding]
    suggested_env: Mapping[str, str]

    @property
    def kind(self) -> str:
        return self.raw.kind

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        return {"kind": self.raw.kind, "line": self.raw.line, "device": self.raw.device,
                "bytes": {key: self.raw.bytes.get(key) for key in BYTE_KEYS}, "cause": self.cause,
                "findings": [f.to_json(lang) for f in self.findings],
                "suggested": {"env": dict(self.suggested_env), "exports": export_texts(self.suggested_env, lang)}}


class Triage:
    """The triage of one text: its events, the findings about the whole, and one card's budget."""

    def __init__(self, source: str, events: list[TriageEvent], findings: list[Finding], budget: HbmBudget,
                 environ_source: str | None = None) -> None:
        self.source = source
        self.events = events
        self.findings = findings
        self.budget = budget
        self.environ_source = environ_source

    @property
    def found(self) -> bool:
        return bool(self.events)

    def suggested_env(self) -> dict[str, str]:
        """Every event's suggested variables, the later event's value winning."""
        out: dict[str, str] = {}
        for event in self.events:
            out.update(event.suggested_env)
        return out

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        return {"events": [e.to_json(lang) for e in self.events], "findings": [f.to_json(lang) for f in self.findings],
                "budget": self.budget.to_json()}


def _where(source: str, line: int) -> dict[str, Any]:
    return {"file": source, "line": line}


def torch_cause(b: Mapping[str, int | None]) -> str:
    """The cause of a torch-npu-oom event from its bytes (the order in the module docstring)."""
    requested, total, allocated = b.get("requested") or 0, b.get("total"), b.get("allocated")
    allowed, cached, held = b.get("allowed"), b.get("cached_unused"), b.get("held_outside")
    if total is None or allocated is None:
        return "capacity"
    need = allocated + requested
    if allowed is not None and need > allowed:
        return "capacity" if need > total else "fraction-limit"
    if need > total:
        return "capacity"
    if held is not None and held >= THRESHOLDS["held_outside_share"] * total and held >= requested:
        return "held-outside"
    if cached is not None and cached >= requested and allocated < THRESHOLDS["capacity_allocated_share"] * total:
        return "fragmentation"
    return "capacity"


class _Context(NamedTuple):
    source: str
    environ: Mapping[str, str] | None  # None: the job's settings are not known
    serving: bool  # the log is a serving stack's (vLLM-Ascend)


def _numbers(b: Mapping[str, int | None]) -> dict[str, Any]:
    return {key: shown_size(b.get(key)) for key in BYTE_KEYS}


def _alloc_findings(ctx: _Context, line: int) -> tuple[list[Finding], dict[str, str]]:
    """The fragmentation suggestion, from the job's current allocator settings."""
    where = _where(ctx.source, line)
    findings: list[Finding] = []
    current: str | None = None
    if ctx.environ is not None:
        chosen = chosen_variable(ctx.environ)
        current = chosen[1] if chosen else None
    suggestion = suggest_alloc_conf(current)
    if suggestion.already_on:
        findings.append(make_finding("triage-expandable-already-on", value=current, **where))
        return findings, {}
    if suggestion.value is None:
        reasons = "; ".join(pick(f.text) for f in suggestion.refused)
        findings.append(make_finding("triage-suggestion-refused", value=current, reason=reasons, **where))
        return findings, {}
    env = {VARIABLE: suggestion.value}
    findings.append(make_finding("triage-suggest-expandable", value=suggestion.value, variable=VARIABLE, **where))
    if suggestion.replaced:
        findings.append(make_finding("triage-suggest-replaces", keys=", ".join(suggestion.replaced),
                                     current=current, **where))
    if ctx.environ is None:
        findings.append(make_finding("triage-current-unknown", **where))
    elif FALLBACK_VARIABLE in ctx.environ:
        findings.append(make_finding("triage-unset-fallback", variable=VARIABLE, other=FALLBACK_VARIABLE, **where))
    if ctx.serving:
        findings.append(make_finding("triage-serving-appends", **where))
    return findings, env


def _hccl_now(ctx: _Context) -> tuple[int, str]:
    return hccl_buffsize_mb(ctx.environ)


def _analyse(raw: RawEvent, ctx: _Context) -> TriageEvent:
    b = raw.bytes
    where = _where(ctx.source, raw.line)
    numbers = _numbers(b)
    device = "?" if raw.device is None else raw.device
    findings: list[Finding] = []
    env: dict[str, str] = {}
    cause: str | None
    if raw.kind == "torch-npu-oom":
        cause = torch_cause(b)
        findings.append(make_finding("triage-event-torch-oom", device=device, **numbers, **where))
        need = (b.get("allocated") or 0) + (b.get("requested") or 0)
        findings.append(make_finding(f"triage-cause-{cause}", need=shown_size(need), device=device,
                                     hccl=_hccl_now(ctx)[0], hccl2=2 * _hccl_now(ctx)[0], **numbers, **where))
        if cause == "fragmentation":
            more, env = _alloc_findings(ctx, raw.line)
            findings += more
        findings.append(make_finding("triage-snapshot-next-run", **where))
    elif raw.kind == "torch-npu-fraction":
        cause = "fraction-limit"
        findings.append(make_finding("triage-event-fraction", **numbers, **where))
    elif raw.kind == "torch-npu-workspace":
        cause = "workspace"
        findings.append(make_finding("triage-event-workspace", device=device, **numbers, **where))
        if ctx.environ is not None and ctx.environ.get("TASK_QUEUE_ENABLE", "").strip() == "2":
            env = {"TASK_QUEUE_ENABLE": "1"}
            findings.append(make_finding("triage-suggest-task-queue", **where))
    elif raw.kind == "serving-start-up":
        cause = "serving-start-up"
        total, free = b.get("total") or 0, b.get("free") or 0
        # The highest utilisation (two decimals, rounded down) whose request fits in what is free.
        fits = int(free * 100 // total) / 100 if total else 0.0
        findings.append(make_finding("triage-event-serving-start-up",
                                     utilization=raw.facts.get("gpu_memory_utilization"), fits=f"{fits:.2f}",
                                     **numbers, **where))
    elif raw.kind == "serving-kv-negative":
        cause = "capacity"
        findings.append(make_finding("triage-event-kv-negative", shortfall=shown_size(-(b.get("free") or 0)),
                                     **where))
    elif raw.kind == "hccl-buffer":
        cause = "hccl-buffer"
        needed = int(raw.facts["needed_mb"])
        env = {"HCCL_BUFFSIZE": str(needed)}
        findings.append(make_finding("triage-event-hccl", needed=needed, current=raw.facts["hccl_buffsize_mb"],
                                     per_communicator=2 * needed, **where))
    else:  # mindspore-device-memory
        cause = "capacity"
        findings.append(make_finding("triage-event-mindspore", **numbers, **where))
    return TriageEvent(raw, cause, findings, env)


_SERVING = re.compile(r"vllm|vllm_ascend|EngineCore", re.IGNORECASE)


def triage_text(text: str, *, source: str, environ: Mapping[str, str] | None = None,
                environ_source: str | None = None, framework: str | None = None,
                gpu_memory_utilization: float | None = None, communicators: int | None = None,
                line_numbers: Sequence[int] | None = None) -> Triage:
    """The triage of `text` (a log or a pasted error) read from `source`.

    `line_numbers`: the line each line of `text` has in the log it was taken from (a bundle keeps
    only some lines); events and findings then name those.
    `environ`: the job's variables (an env file's, a bundle's) the suggestions start from; None when
    they are not known (the findings say so). `framework`, `gpu_memory_utilization` and
    `communicators` feed the HBM budget (app.hbm_budget); what is not given is named as unknown.
    """
    raws = find_events(text)
    if line_numbers is not None:
        raws = [r._replace(line=line_numbers[r.line - 1]) if r.line <= len(line_numbers) else r for r in raws]
    serving = framework == "vllm-ascend" or bool(_SERVING.search(text)) or any(
        r.kind.startswith("serving-") for r in raws)
    ctx = _Context(source, environ, serving)
    events = [_analyse(raw, ctx) for raw in raws]
    findings: list[Finding] = []
    if not events:
        findings.append(make_finding("triage-none", file=source))
    total = next((e.raw.bytes.get("total") for e in events if e.raw.bytes.get("total")), None)
    free = next((e.raw.bytes.get("free") for e in events if e.raw.kind == "serving-start-up"), None)
    if gpu_memory_utilization is None:
        gpu_memory_utilization = next((e.raw.facts.get("gpu_memory_utilization") for e in events
                                       if e.raw.facts.get("gpu_memory_utilization") is not None), None)
    budget_framework = framework or ("vllm-ascend" if serving else None)
    budget = hbm_budget(total, framework=budget_framework, environ=environ,
                        gpu_memory_utilization=gpu_memory_utilization, free=free if budget_framework == "mindspore"
                        else None, communicators=communicators)
    if environ is not None and budget.hccl_source == "invalid":
        findings.append(make_finding("triage-hccl-invalid", value=environ.get("HCCL_BUFFSIZE", ""),
                                     file=environ_source))
    return Triage(source, events, findings, budget, environ_source)
