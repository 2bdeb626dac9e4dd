# ruff: noqa - a sample of customer code, kept as customers write it
# GE options for MindSpore (read by tests/app/test_importers.py; never executed).
import os

level = os.getenv("LEVEL", "2")
ge_options = {
    "ge.exec.staticMemoryPolicy": "2",
    "ge.exec.atomicCleanPolicy": 1,
    "ge.op_compiler_cache_mode": f"{level}",
    "ge.exec.precision_mode": "allow_fp32_to_fp16",
}
ge_options["ge.op_compiler_cache_dir"] = "/ge/cache"
