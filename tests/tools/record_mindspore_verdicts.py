"""Record tests/data/mindspore/verdicts.json by running MindSpore 2.10's own validators.

Usage (in a virtual environment of its own, never this project's):
    python -m venv /tmp/ms && /tmp/ms/bin/pip install 'mindspore==2.10.*'
    /tmp/ms/bin/python tests/tools/record_mindspore_verdicts.py [-o FILE]

The tool's MindSpore rules (app/mindspore_memory.py) must accept and refuse exactly what MindSpore
does. This script runs each case of CASES - the body of a training script after
`import mindspore as ms` - against the installed MindSpore (the CPU wheel is enough: the checks
are Python), each in a forked child so that `runtime.set_memory`'s "can not be set repeatedly"
state starts fresh, and records whether MindSpore accepted it, the exception's type and message,
and the warnings MindSpore logged (its deprecations). One change makes the CPU wheel behave as
on Ascend: `context._check_target_specific_cfgs`, which skips Ascend-only keys on another
device, is told every key suits the device, so the Ascend validators run. Nothing of MindSpore
is copied into this project; the table is committed and tests/app/test_mindspore_memory.py
replays it through `cann-config diagnose --framework mindspore --script`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

# (case id, script body after `import mindspore as ms`)
CASES: list[tuple[str, str]] = []


def _add(prefix: str, template: str, values: list[str]) -> None:
    for value in values:
        CASES.append((f"{prefix}={value}", template.format(value)))


SIZES = ['"28GB"', '"0.5GB"', '"1024GB"', '"28.5GB"', '"1GB"', '"0GB"', '"0.0GB"', '"0.00GB"', '"28G"', '"28 GB"',
         '"28MB"', '"028GB"', '".5GB"', '"28GB "', '" 28GB"', '"28gb"', '"28"', "28", '"28.GB"', '"0.GB"',
         '"28GBx"', '"1e3GB"', '"32GB"', '"31GB"', '"30.0GB"', '"31.5GB"', '"0.9GB"', '"2GB"']
_add("set_context.max_device_memory", "ms.set_context(max_device_memory={})", SIZES)
_add("set_context.variable_memory_max_size", "ms.set_context(variable_memory_max_size={})", SIZES)
_add("set_context.mempool_block_size", "ms.set_context(mempool_block_size={})", SIZES)
_add("set_context.memory_optimize_level", "ms.set_context(memory_optimize_level={})",
     ['"O0"', '"O1"', '"O2"', '"o1"', "1", '"O1 "'])
_add("set_context.ascend_config.atomic_clean_policy", 'ms.set_context(ascend_config={{"atomic_clean_policy": {}}})',
     ["0", "1", "2", "True", "False", '"1"', "1.0", "-1"])
_add("set_context.ascend_config.ge_options", 'ms.set_context(ascend_config={{"ge_options": {}}})',
     ['{"global": {"ge.exec.staticMemoryPolicy": "2"}}', '{"global": {"ge.exec.staticMemoryPolicy": 2}}',
      '{"session": {"ge.exec.atomicCleanPolicy": "1"}}', '{"graph": {"ge.exec.staticMemoryPolicy": "2"}}',
      '{"global": "ge.exec.staticMemoryPolicy=2"}', '{"global": {}}', '{}', '"ge.exec.staticMemoryPolicy"',
      '{"global": {"ge.exec.staticMemoryPolicy": "2", "ge.exec.memoryOptimizationPolicy": "MemoryPriority"}}'])
_add("set_context.ascend_config", "ms.set_context(ascend_config={})",
     ['{"exception_dump": "1"}', '{"unknown_key": 1}', '"atomic_clean_policy=1"', "{}"])
_add("set_context.atomic_clean_policy", "ms.set_context(atomic_clean_policy={})", ["1"])
_add("set_memory.max_size", "ms.runtime.set_memory(max_size={})", SIZES)
_add("set_memory.init_size", "ms.runtime.set_memory(init_size={})", ['"2GB"', '"0.5GB"', '"0GB"', '"2G"'])
_add("set_memory.increase_size", "ms.runtime.set_memory(increase_size={})", ['"2GB"', '"0.5GB"', '"0.0GB"', '"2 GB"'])
_add("set_memory.optimize_level", "ms.runtime.set_memory(optimize_level={})", ['"O0"', '"O1"', '"O2"', '"o0"'])
_add("set_memory.huge_page_reserve_size", "ms.runtime.set_memory(huge_page_reserve_size={})",
     ['"0GB"', '"1GB"', '"0.5GB"', '"01GB"', '"1G"', '"-1GB"'])
CASES += [
    ("set_memory.positional", 'ms.runtime.set_memory("10GB", "2GB", "60GB", "O1", "0GB")'),
    ("set_memory.twice", 'ms.runtime.set_memory(max_size="28GB")\nms.runtime.set_memory(max_size="30GB")'),
    ("set_context.together", 'ms.set_context(max_device_memory="28GB", memory_optimize_level="O1", '
                             'ascend_config={"atomic_clean_policy": 0, "ge_options": {"global": '
                             '{"ge.exec.staticMemoryPolicy": "2"}}})'),
]


def _run_child(code: str) -> dict[str, object]:
    import mindspore as ms
    import mindspore.context as context

    context._check_target_specific_cfgs = lambda device, key: True  # as on Ascend
    warnings: list[str] = []
    for logger in {context.logger, ms.log}:
        logger.warning = lambda message, *args, **kwargs: warnings.append(str(message) % args if args else str(message))
    try:
        exec(code, {"ms": ms, "mindspore": ms})
    except Exception as exc:  # noqa: BLE001 - the verdict is the exception
        return {"accepted": False, "error": type(exc).__name__, "message": str(exc), "warnings": warnings}
    return {"accepted": True, "error": None, "message": None, "warnings": warnings}


def _verdict(code: str) -> dict[str, object]:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        try:
            data = json.dumps(_run_child(code)).encode()
        except BaseException as exc:  # noqa: BLE001
            data = json.dumps({"accepted": None, "error": "recorder", "message": repr(exc), "warnings": []}).encode()
        with os.fdopen(write, "wb") as out:
            out.write(data)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as inp:
        data = inp.read()
    os.waitpid(pid, 0)
    return json.loads(data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", type=Path, default=Path(__file__).resolve().parents[1] / "data" / "mindspore"
                        / "verdicts.json")
    args = parser.parse_args(argv)
    import mindspore  # imported once; every case runs in a child forked from here

    cases = []
    for case_id, code in CASES:
        cases.append({"id": case_id, "code": code, **_verdict(code)})
    table = {"origin": f"mindspore {mindspore.__version__} (PyPI CPU wheel), validators run by "
                       "tests/tools/record_mindspore_verdicts.py", "cases": cases}
    args.o.parent.mkdir(parents=True, exist_ok=True)
    args.o.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.o}: {len(cases)} cases, {sum(1 for c in cases if c['accepted'])} accepted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
