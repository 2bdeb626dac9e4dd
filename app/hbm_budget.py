"""The HBM budget of one card: what the framework may take, what HCCL takes, and what is left.

Why a module of its own: the triage shows it beside a memory error, the wizard beside the choices,
and each input is one the user must be asked for when the tool cannot know it (how many
communicators a job creates, the serving stack's gpu_memory_utilization): unknown inputs stay
unknown and are named, never guessed (docs/cann/npu-memory.md#the-hbm-budget-of-one-card).

The rules (docs/cann/npu-memory.md, with their sources):
- HCCL: each communicator takes 2 × HCCL_BUFFSIZE MB (send and receive buffers; integer ≥ 1,
  default 200); each P2P communicator 2 × P2P_HCCL_BUFFSIZE MB (default 20 since TorchNPU 7.1.0;
  0: no separate P2P communicator). HCCL's memory lies outside PyTorch's "reserved".
- vLLM-Ascend: the framework requests total × gpu_memory_utilization at start.
- MindSpore without a limit: free × 15/16, rounded down to 2 MB, minus 10 MB.
- PyTorch (torch_npu): no fixed share; `left` is what it may take after HCCL.

Public API:
    DEFAULT_HCCL_BUFFSIZE_MB, DEFAULT_P2P_HCCL_BUFFSIZE_MB
    hccl_buffsize_mb(environ) -> (value MB, source)         source: "env" | "default" | "invalid"
    HbmBudget(...), hbm_budget(total, *, framework, environ, gpu_memory_utilization=None,
                               free=None, communicators=None, p2p_communicators=None) -> HbmBudget
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

from collections.abc import Mapping
from typing import Any, NamedTuple

MB = 1 << 20
DEFAULT_HCCL_BUFFSIZE_MB = 200
DEFAULT_P2P_HCCL_BUFFSIZE_MB = 20
_MINDSPORE_ALIGN = 2 * MB
_MINDSPORE_MARGIN = 10 * MB


def _positive_int(text: str, minimum: int) -> int | None:
    text = text.strip()
    if not text.isdigit():
        return None
    value = int(text)
    return value if value >= minimum else None


def hccl_buffsize_mb(environ: Mapping[str, str] | None) -> tuple[int, str]:
    """HCCL_BUFFSIZE in MB as HCCL takes it: the variable when it is an integer ≥ 1, else 200."""
    raw = (environ or {}).get("HCCL_BUFFSIZE")
    if raw is None:
        return DEFAULT_HCCL_BUFFSIZE_MB, "default"
    value = _positive_int(raw, 1)
    return (value, "env") if value is not None else (DEFAULT_HCCL_BUFFSIZE_MB, "invalid")


def p2p_buffsize_mb(environ: Mapping[str, str] | None) -> tuple[int, str]:
    """P2P_HCCL_BUFFSIZE in MB: the variable when it is an integer ≥ 0, else 20."""
    raw = (environ or {}).get("P2P_HCCL_BUFFSIZE")
    if raw is None:
        return DEFAULT_P2P_HCCL_BUFFSIZE_MB, "default"
    value = _positive_int(raw, 0)
    return (value, "env") if value is not None else (DEFAULT_P2P_HCCL_BUFFSIZE_MB, "invalid")


class HbmBudget(NamedTuple):
    """One card's HBM, in bytes. None: not known (the names are in `unknown`)."""

    total: int | None
    framework: str | None
    framework_bytes: int | None  # what the framework may take
    hccl_buffsize_mb: int
    hccl_source: str
    hccl_per_communicator: int  # 2 × HCCL_BUFFSIZE
    communicators: int | None
    hccl_bytes: int | None
    p2p_buffsize_mb: int
    p2p_per_communicator: int
    p2p_communicators: int | None
    p2p_bytes: int | None
    left: int | None  # total − framework − HCCL − P2P, when all are known
    unknown: tuple[str, ...]  # inputs the tool was not given

    def to_json(self) -> dict[str, Any]:
        return {"total": self.total, "framework": self.framework, "framework_bytes": self.framework_bytes,
                "hccl_buffsize_mb": self.hccl_buffsize_mb, "hccl_source": self.hccl_source,
                "hccl_per_communicator": self.hccl_per_communicator, "communicators": self.communicators,
                "hccl_bytes": self.hccl_bytes, "p2p_buffsize_mb": self.p2p_buffsize_mb,
                "p2p_per_communicator": self.p2p_per_communicator, "p2p_communicators": self.p2p_communicators,
                "p2p_bytes": self.p2p_bytes, "left": self.left, "unknown": list(self.unknown)}


def framework_share(total: int | None, framework: str | None, *, gpu_memory_utilization: float | None = None,
                    free: int | None = None) -> int | None:
    """What the framework may take of one card: vLLM-Ascend total × gpu_memory_utilization;
    MindSpore without a limit free × 15/16 (down to 2 MB, minus 10 MB); None when not known."""
    if framework == "vllm-ascend":
        if total is None or gpu_memory_utilization is None:
            return None
        return round(total * gpu_memory_utilization)
    if framework == "mindspore":
        if free is None:
            return None
        share = free * 15 // 16
        return max(share - share % _MINDSPORE_ALIGN - _MINDSPORE_MARGIN, 0)
    return None


def hbm_budget(total: int | None, *, framework: str | None = None, environ: Mapping[str, str] | None = None,
               gpu_memory_utilization: float | None = None, free: int | None = None,
               communicators: int | None = None, p2p_communicators: int | None = None) -> HbmBudget:
    """The budget of one card of `total` bytes for a job with `environ` (its variables)."""
    unknown: list[str] = []
    if total is None:
        unknown.append("total")
    share = framework_share(total, framework, gpu_memory_utilization=gpu_memory_utilization, free=free)
    if framework == "vllm-ascend" and gpu_memory_utilization is None:
        unknown.append("gpu_memory_utilization")
    if framework == "mindspore" and free is None:
        unknown.append("free")
    hccl_mb, hccl_source = hccl_buffsize_mb(environ)
    p2p_mb, _ = p2p_buffsize_mb(environ)
    per_comm = 2 * hccl_mb * MB
    per_p2p = 2 * p2p_mb * MB
    if communicators is None:
        unknown.append("communicators")
    if p2p_communicators is None and p2p_mb:
        unknown.append("p2p_communicators")
    hccl_bytes = per_comm * communicators if communicators is not None else None
    p2p_bytes = per_p2p * p2p_communicators if p2p_communicators is not None else (0 if not p2p_mb else None)
    left = None
    # PyTorch has no share of its own: what is left after HCCL is what it may take.
    taken = share if framework in ("vllm-ascend", "mindspore") else 0
    if total is not None and taken is not None and hccl_bytes is not None and p2p_bytes is not None:
        left = total - taken - hccl_bytes - p2p_bytes
    return HbmBudget(total, framework, share, hccl_mb, hccl_source, per_comm, communicators, hccl_bytes, p2p_mb,
                     per_p2p, p2p_communicators, p2p_bytes, left, tuple(unknown))
