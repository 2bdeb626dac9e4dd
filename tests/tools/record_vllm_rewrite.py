"""Record tests/data/serving/vllm_rewrite.json by running vLLM-Ascend's own functions.

Usage: python tests/tools/record_vllm_rewrite.py VLLM_ASCEND_CHECKOUT [-o FILE]

The golden table of app/vllm_ascend.py (tests/app/test_vllm_ascend.py) must be what vLLM-Ascend
does, not what this project believes it does. This script reads `vllm_ascend/platform.py` of a
vllm-project/vllm-ascend checkout, takes the two functions that touch PYTORCH_NPU_ALLOC_CONF
(`_set_pytorch_npu_alloc_env`, `_disable_expandable_segments`) out of it with `ast` (nothing of
vLLM-Ascend is imported or copied into this project), runs them against a dict standing for the
environment, and records, for each input, the value after start-up with and without sleep mode
and after RL mode, plus the sleep-mode memory pool's check read from
`vllm_ascend/device_allocator/camem.py` (its assert condition, evaluated the same way).
Not part of `make test`: the table it writes is committed.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

UNSET = None
# Every input the issue and docs/cann/vllm-ascend.md name, and the traps around them.
INPUTS = [UNSET, "", "page_size:1g", "max_split_size_mb:256", "expandable_segments:False",
          "expandable_segments:True", "pin_memory_expandable_segments:True", "garbage_collection_threshold:0.6",
          "base_addr_aligned_kb:2", "expandable_segments: True", "expandable_segments: False",
          "page_size:1g,expandable_segments:True", "page_size:1g,", "Expandable_Segments:True",
          "expandable_segments:true", "page_size:1g, expandable_segments:True"]


class _Environ(dict):
    """os.environ as the functions use it (getenv through the module below)."""


def _functions(source: str, names: set[str]) -> dict[str, object]:
    tree = ast.parse(source)
    picked = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name in names]
    for node in picked:
        node.returns = None
        for arg in node.args.args:
            arg.annotation = None
    module = ast.Module(body=picked, type_ignores=[])
    return {n.name: n for n in picked}, compile(module, "vllm_ascend/platform.py", "exec")


def record(checkout: Path, commit: str | None = None) -> dict[str, object]:
    platform = (checkout / "vllm_ascend" / "platform.py").read_text(encoding="utf-8")
    camem = (checkout / "vllm_ascend" / "device_allocator" / "camem.py").read_text(encoding="utf-8")
    _, code = _functions(platform, {"_set_pytorch_npu_alloc_env", "_disable_expandable_segments"})
    environ = _Environ()
    fake_os = SimpleNamespace(environ=environ, getenv=lambda name, default=None: environ.get(name, default))
    namespace: dict[str, object] = {"os": fake_os, "logger": SimpleNamespace(info=lambda *a, **k: None)}
    exec(code, namespace)
    # The memory pool's assertion: `assert <test> not in conf`, taken from the source.
    assert '"expandable_segments:True" not in conf' in camem, "camem.py's check changed: read it again"

    def run(value, *, sleep: bool, rl: bool):
        environ.clear()
        if value is not None:
            environ["PYTORCH_NPU_ALLOC_CONF"] = value
        if rl:
            namespace["_disable_expandable_segments"]()
        config = SimpleNamespace(model_config=SimpleNamespace(enable_sleep_mode=sleep))
        namespace["_set_pytorch_npu_alloc_env"](config)
        return environ.get("PYTORCH_NPU_ALLOC_CONF")

    cases = []
    for value in INPUTS:
        cases.append({
            "input": value,
            "startup": run(value, sleep=False, rl=False),
            "sleep_mode": run(value, sleep=True, rl=False),
            "rl_mode": run(value, sleep=False, rl=True),
            "rl_and_sleep_mode": run(value, sleep=True, rl=True),
            "sleep_pool_refuses": "expandable_segments:True" in (run(value, sleep=True, rl=False) or ""),
        })
    commit = commit or subprocess.run(["git", "-C", str(checkout), "log", "-1", "--format=%h %ad", "--date=short"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    return {"origin": f"vllm-project/vllm-ascend {commit}: vllm_ascend/platform.py _set_pytorch_npu_alloc_env, "
                      "_disable_expandable_segments; device_allocator/camem.py CaMemAllocator.__init__ "
                      "(recorded by tests/tools/record_vllm_rewrite.py)",
            "cases": cases}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("--commit", help="name the source (when CHECKOUT is an exported tree, not a git checkout)")
    parser.add_argument("-o", type=Path, default=Path(__file__).resolve().parents[1] / "data" / "serving"
                        / "vllm_rewrite.json")
    args = parser.parse_args(argv)
    table = record(args.checkout, args.commit)
    args.o.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.o}: {len(table['cases'])} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
