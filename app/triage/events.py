"""Finding the NPU memory errors in a log: which message, on which line, for which device, with
every number it prints in bytes.

Why a module of its own: the texts are torch_npu's, vLLM-Ascend's, HCCL operators' and
MindSpore's (docs/cann/npu-memory.md#the-messages), each with its own layout, and they reach the
user inside whole logs - timestamps, `[rank3]:` and `(Worker pid=…) ERROR …]` prefixes, Ray's
`[repeated 6x across cluster]`, messages wrapped over several lines. This module only reads;
what the numbers mean is app/triage/analysis.py's.

Sizes: torch_npu's `format_size` prints `N bytes` below 1 KiB and KiB, MiB, GiB (powers of 1024)
with two decimals; a size becomes round(number × unit) bytes. vLLM prints GiB with two decimals,
MindSpore bytes (`…B`) and MiB (`…M`), HCCL operators MB (2^20 bytes).

Not events: CUDA's texts (`GPU 0;`, `cuda:0`, `xpu:0`), vLLM's INFO start-up line ("Free memory on
device (…) on startup. Desired GPU memory utilization is …"), a positive "Available KV cache memory".

Public API:
    KINDS                                    the event kinds, in the contract's order
    BYTE_KEYS                                the keys of an event's `bytes`
    RawEvent(kind, line, device, bytes, facts, span)
    find_events(text) -> list[RawEvent]      in the order of their first line
    size_bytes(number, unit) -> int
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

KINDS = ("torch-npu-oom", "torch-npu-fraction", "torch-npu-workspace", "serving-start-up",
         "serving-kv-negative", "hccl-buffer", "mindspore-device-memory")
BYTE_KEYS = ("requested", "total", "allocated", "reserved", "free", "allowed", "cached_unused", "held_outside")

_UNITS = {"bytes": 1, "b": 1, "kib": 1 << 10, "kb": 1 << 10, "mib": 1 << 20, "mb": 1 << 20, "m": 1 << 20,
          "gib": 1 << 30, "gb": 1 << 30, "g": 1 << 30, "tib": 1 << 40}

# A message may be wrapped over this many lines after its first one.
MAX_CONTINUATION_LINES = 6

_SIZE = r"(\d+(?:\.\d+)?)\s*(bytes|B|KiB|MiB|GiB|TiB)"


class RawEvent(NamedTuple):
    kind: str
    line: int  # 1-based, the first line of a wrapped message
    device: int | None
    bytes: Mapping[str, int | None]  # every BYTE_KEYS key; None for what the text does not print
    # Other numbers the text prints (gpu_memory_utilization, HCCL_BUFFSIZE in MB, ...), for the analysis.
    facts: Mapping[str, Any] = {}
    span: int = 1  # how many lines the message takes (a wrapped one more than 1)


def size_bytes(number: str, unit: str) -> int:
    """`60.97`, `GiB` -> 65465128796 (the printed number times the unit, rounded)."""
    return round(float(number) * _UNITS[unit.lower()])


# Log prefixes a continuation line may carry before the message goes on: `[rank0]:`,
# `(VllmWorker TP0 pid=123)`, `ERROR 06-09 06:57:48 worker_base.py:581]`, `[2026-02-24T20:21:58Z]`,
# `[Stage-0]`.
_PREFIX = re.compile(
    r"^\s*(?:\[rank\d+\]:\s*|\([^()]*pid=\d+[^()]*\)\s*|\[[\w.-]+\]\s*|\[\d{4}-\d\d-\d\d[^\]]*\]\s*"
    r"|(?:ERROR|WARNING|WARN|INFO|DEBUG)\s+\d\d-\d\d\s+\d\d:\d\d:\d\d(?:\.\d+)?\s+\[?[\w.]+:\d+\]\s*)*")


def _strip_prefix(line: str) -> str:
    return line[_PREFIX.match(line).end():]  # type: ignore[union-attr]  # the pattern always matches


class _Pattern(NamedTuple):
    kind: str
    start: re.Pattern[str]  # where a message begins on its first line
    whole: re.Pattern[str]  # the message with its numbers, matched from `start`


_PATTERNS = (
    _Pattern("torch-npu-oom", re.compile(r"NPU out of memory\. Tried to allocate (?!more than)"), re.compile(
        r"NPU out of memory\.\s+Tried to allocate\s+" + _SIZE + r"\s*\(\s*NPU\s+(\d+);\s*" + _SIZE
        + r"\s+total capacity;\s*" + _SIZE + r"\s+already allocated;\s*(?:" + _SIZE + r"\s+current active;\s*)?"
        + _SIZE + r"\s+free;\s*(?:" + _SIZE + r"\s+allowed;\s*)?" + _SIZE + r"\s+reserved in total by PyTorch\)")),
    _Pattern("torch-npu-fraction", re.compile(r"NPU out of memory\. Allocation was preemptively rejected"),
             re.compile(r"NPU out of memory\.\s+Allocation was preemptively rejected.*?Requested size:\s*" + _SIZE)),
    _Pattern("torch-npu-workspace", re.compile(r"NPU out of memory\. NPUWorkspaceAllocator tried to allocate"),
             re.compile(r"NPU out of memory\.\s+NPUWorkspaceAllocator tried to allocate\s+" + _SIZE + r"\s*\(\s*NPU\s+(\d+);\s*" + _SIZE
                        + r"\s+total capacity;\s*" + _SIZE + r"\s+free\)")),
    # vLLM-Ascend's worker (vllm_ascend/worker/worker.py); a device named `cuda:N` / `xpu:N` is not an NPU.
    _Pattern("serving-start-up", re.compile(r"Free memory on (?:NPU )?device (?:npu:\d+ )?\("), re.compile(
        r"Free memory on (?:NPU )?device (?:npu:(\d+) )?\((-?\d+(?:\.\d+)?)/(\d+(?:\.\d+)?) GiB\) on startup is\s+"
        r"less than\s+desired\s+(?:GPU|NPU)\s+memory\s+utilization\s+\((\d+(?:\.\d+)?),\s*(\d+(?:\.\d+)?)\s*GiB\)")),
    _Pattern("serving-kv-negative", re.compile(r"Available KV cache memory: -"),
             re.compile(r"Available KV cache memory: -(\d+(?:\.\d+)?)\s*GiB")),
    # HCCL-using operators' tiling check (sgl-kernel-npu, vllm-ascend csrc): "HCCL_BUFFSIZE is too SMALL,
    # …, NEEDED_HCCL_BUFFSIZE(…) = N MB, HCCL_BUFFSIZE=M MB."
    _Pattern("hccl-buffer", re.compile(r"HCCL_BUFFSIZE is too SMALL"), re.compile(
        r"HCCL_BUFFSIZE is too SMALL.*?NEEDED_HCCL_BUFFSIZE.*?=\s*(\d+)\s*MB\s*,\s*HCCL_BUFFSIZE\s*=\s*(\d+)\s*MB")),
    # MindSpore's Ascend memory adapter (ascend_memory_adapter.cc) and its dynamic pool.
    _Pattern("mindspore-device-memory", re.compile(r"Out of Memory!!! Request memory size"), re.compile(
        r"Out of Memory!!! Request memory size:\s*(\d+)\s*B?\s*,?\s*Memory Statistic:\s*Device HBM memory size:\s*"
        r"(\d+)\s*M\b")),
    _Pattern("mindspore-device-memory", re.compile(r"alloc size : \d+ is more than total mem size"), re.compile(
        r"alloc size : (\d+) is more than total mem size : (\d+)")),
)

# The fraction rejection's numbers are in a warning torch_npu prints once before it; its words as
# torch_npu's other messages use them ("allocated", "allowed", "total").
_FRACTION_WARNING = re.compile(r"Preemptively rejecting allocation")
_LABELLED = {key: re.compile(_SIZE + r"\s+(?:already\s+)?" + word + r"|" + word + r"[^0-9\n]{0,12}?" + _SIZE)
             for key, word in (("allocated", "allocated"), ("allowed", "(?:allowed|limit)"),
                               ("total", "total(?: capacity)?"))}


def _empty_bytes() -> dict[str, int | None]:
    return dict.fromkeys(BYTE_KEYS)


def _sizes(groups: tuple[str | None, ...]) -> list[int | None]:
    """Pairs (number, unit) of a match's groups as bytes; None where the optional part was absent."""
    out: list[int | None] = []
    for i in range(0, len(groups), 2):
        number, unit = groups[i], groups[i + 1]
        out.append(size_bytes(number, unit) if number is not None and unit is not None else None)
    return out


def _event(kind: str, match: re.Match[str], line: int, warning: str | None, span: int) -> RawEvent:
    b = _empty_bytes()
    facts: dict[str, Any] = {}
    device: int | None = None
    g = match.groups()
    if kind == "torch-npu-oom":
        requested, = _sizes(g[0:2])
        device = int(g[2])
        total, allocated, _active, free, allowed, reserved = _sizes(g[3:15])
        b.update(requested=requested, total=total, allocated=allocated, free=free, allowed=allowed,
                 reserved=reserved)
        if reserved is not None and allocated is not None:
            b["cached_unused"] = max(reserved - allocated, 0)
        if total is not None and reserved is not None and free is not None:
            # Never below 0: the printed numbers are rounded to two decimals.
            b["held_outside"] = max(total - reserved - free, 0)
    elif kind == "torch-npu-fraction":
        b["requested"], = _sizes(g[0:2])
        if warning:
            for key, pattern in _LABELLED.items():
                found = pattern.search(warning)
                if found:
                    parts = found.groups()
                    b[key] = size_bytes(*(parts[0:2] if parts[0] is not None else parts[2:4]))
    elif kind == "torch-npu-workspace":
        b["requested"], = _sizes(g[0:2])
        device = int(g[2])
        b["total"], b["free"] = _sizes(g[3:7])
    elif kind == "serving-start-up":
        device = int(g[0]) if g[0] is not None else None
        free, total = size_bytes(g[1], "GiB"), size_bytes(g[2], "GiB")
        utilization = float(g[3])
        # The process holds nothing yet at start-up: what is not free is held outside it.
        b.update(free=free, total=total, requested=round(total * utilization), held_outside=max(total - free, 0))
        facts.update(gpu_memory_utilization=utilization, printed_requested=size_bytes(g[4], "GiB"))
    elif kind == "serving-kv-negative":
        b["free"] = -size_bytes(g[0], "GiB")
    elif kind == "hccl-buffer":
        needed, current = int(g[0]), int(g[1])
        b.update(requested=needed << 20, allowed=current << 20)
        facts.update(needed_mb=needed, hccl_buffsize_mb=current)
    elif kind == "mindspore-device-memory":
        if match.re.pattern.startswith("Out of Memory"):
            b.update(requested=int(g[0]), total=int(g[1]) << 20)
        else:
            b.update(requested=int(g[0]), total=int(g[1]))
    return RawEvent(kind, line, device, b, facts, span)


def find_events(text: str) -> list[RawEvent]:
    """Every known NPU memory error in `text` (a whole log or a pasted message), in line order."""
    lines = text.splitlines()
    events: list[RawEvent] = []
    warning: str | None = None
    for index, line in enumerate(lines):
        if _FRACTION_WARNING.search(line):
            warning = " ".join([line] + [_strip_prefix(x) for x in lines[index + 1:index + 3]])
        for pattern in _PATTERNS:
            start = pattern.start.search(line)
            if start is None:
                continue
            candidate = line[start.start():]
            match = pattern.whole.match(candidate)
            extra = 0
            while match is None and extra < MAX_CONTINUATION_LINES and index + extra + 1 < len(lines):
                extra += 1
                candidate = candidate.rstrip() + " " + _strip_prefix(lines[index + extra]).strip()
                match = pattern.whole.match(candidate)
            if match is not None:
                events.append(_event(pattern.kind, match, index + 1, warning, extra + 1))
                break
    return events
