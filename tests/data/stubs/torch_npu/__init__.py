"""Stand-in for torch_npu: at import, reads the allocator variables as torch_npu does and raises
where it would stop the job.

Written from torch_npu's source, independently of the tool (Ascend/pytorch
torch_npu/csrc/core/npu/NPUAllocatorConfig.cpp `instance()` and `parseArgs`, and PyTorch's c10
allocator config for the keys it shares with CUDA):
- PYTORCH_NPU_ALLOC_CONF when it is set (even empty), else PYTORCH_ALLOC_CONF;
- tokens split at , : [ ] with spaces dropped; key ':' value, settings separated by ',';
- expandable_segments True/False exactly; max_split_size_mb stoi-like, must be > 20;
  garbage_collection_threshold stod-like, in (0.0, 1.0); page_size only "1g"; base_addr_aligned_kb
  digits only, 0..16; the other keys torch_npu or PyTorch know are skipped (value or [list]);
  anything else is an "Unrecognized key";
- expandable_segments:True with max_split_size_mb or garbage_collection_threshold: error.
The result (the keys and values it read) is recorded for the tests.
"""

import os
import re

import _stub_record
import torch

from torch_npu import npu  # noqa: F401  (torch_npu.npu.set_option)

_KNOWN_OTHER = {
    "pin_memory_expandable_segments", "pinned_mem_register", "segment_size_mb", "large_segment_size_mb",
    "multi_stream_lazy_reclaim", "per_process_memory_fraction", "pinned_reserve_segment_size_mb",
    "release_lock_on_npumalloc", "max_non_split_rounding_mb", "roundup_power2_divisions",
    "pinned_use_background_threads", "pinned_num_register_threads", "pinned_use_host_register",
    "release_lock_on_cudamalloc", "pinned_use_cuda_host_register",
}


class AllocatorConfigError(RuntimeError):
    """What TORCH_CHECK raises when the allocator config is refused."""


def _tokens(env):
    out, buf = [], ""
    for ch in env:
        if ch in ",:[]":
            if buf:
                out.append(buf)
                buf = ""
            out.append(ch)
        elif ch != " ":
            buf += ch
    if buf:
        out.append(buf)
    return out


def _stoi(text):
    match = re.match(r"\s*[+-]?\d+", text)
    if not match:
        raise AllocatorConfigError(f"stoi: no conversion of {text!r}")
    return int(match.group(0))


def _stod(text):
    match = re.match(r"\s*[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)", text)
    if not match:
        raise AllocatorConfigError(f"stod: no conversion of {text!r}")
    return float(match.group(0))


def _check(token, i, expected):
    if i >= len(token) or token[i] != expected:
        raise AllocatorConfigError(f"Expected '{expected}' at position {i}")


def parse_alloc_conf(env):
    conf = {}
    tok = _tokens(env)
    i = 0
    while i < len(tok):
        key = tok[i]
        if key in ("expandable_segments", "max_split_size_mb", "garbage_collection_threshold", "page_size",
                   "base_addr_aligned_kb"):
            _check(tok, i + 1, ":")
            i += 2
            if i >= len(tok):
                raise AllocatorConfigError(f"Error, expecting {key} value")
            value = tok[i]
            if key == "expandable_segments":
                if value not in ("True", "False"):
                    raise AllocatorConfigError("Expected a single True/False argument for expandable_segments")
                conf[key] = value == "True"
            elif key == "max_split_size_mb":
                number = _stoi(value)
                if number < 0:
                    number += 2 ** 64  # size_t
                if not number > 20:
                    raise AllocatorConfigError("CachingAllocator option max_split_size_mb too small, must be > 20")
                conf[key] = number
            elif key == "garbage_collection_threshold":
                number = _stod(value)
                if not 0.0 < number < 1.0:
                    raise AllocatorConfigError("garbage_collect_threshold is invalid, set it in (0.0, 1.0)")
                conf[key] = number
            elif key == "page_size":
                if value != "1g":
                    raise AllocatorConfigError(f"Unsupported page_size value: {value}")
                conf[key] = value
            else:
                if not value.isdigit() or not value.isascii():
                    raise AllocatorConfigError("CachingAllocator option base_addr_aligned_kb is invalid.")
                number = int(value)
                if len(value) != len(str(number)) or number > 16:
                    raise AllocatorConfigError("CachingAllocator option base_addr_aligned_kb error, must be [0~16]")
                conf[key] = number
        elif key in _KNOWN_OTHER:
            _check(tok, i + 1, ":")
            i += 2
            if i < len(tok) and tok[i] == "[":
                while i < len(tok) and tok[i] != "]":
                    i += 1
        else:
            raise AllocatorConfigError(f"Unrecognized key '{key}' in NPU allocator config.")
        if i + 1 < len(tok):
            i += 1
            _check(tok, i, ",")
        i += 1
    if conf.get("expandable_segments") and ("max_split_size_mb" in conf or "garbage_collection_threshold" in conf):
        raise AllocatorConfigError("`max_split_size_mb` or `garbage_collection_threshold`, cannot be enabled with "
                                   "`expandable_segments`, please set `expandable_segments` to `False`.")
    return conf


def _read_environment():
    name = "PYTORCH_NPU_ALLOC_CONF" if "PYTORCH_NPU_ALLOC_CONF" in os.environ else "PYTORCH_ALLOC_CONF"
    env = os.environ.get(name)
    conf = parse_alloc_conf(env) if env else {}
    _stub_record.event("torch_npu_init", variable=name if env is not None else None, alloc_conf=conf,
                       environ={k: v for k, v in os.environ.items()
                                if k.startswith(("ASCEND_", "ACL_", "PYTORCH_"))})


_read_environment()
torch.npu = npu
