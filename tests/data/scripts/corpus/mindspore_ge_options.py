# ruff: noqa - a model-zoo style script written for the corpus test; never executed
"""GE options for a MindSpore / Ascend Graph job, built key by key."""
import mindspore as ms

CACHE_ROOT = "/data/cache"


def build_ge_options(level):
    ge_options = {}
    ge_options["ge.exec.staticMemoryPolicy"] = "2"
    policy = "1"
    ge_options["ge.exec.atomicCleanPolicy"] = policy
    ge_options["ge.op_compiler_cache_dir"] = CACHE_ROOT + "/ge"
    ge_options["ge.op_compiler_cache_mode"] = level
    ge_options["ge.exec.precision_mode"] = "allow_fp32_to_fp16"
    return ge_options


ms.set_context(mode=ms.GRAPH_MODE, device_target="Ascend",
               ascend_config={"ge_options": {"global": build_ge_options("enable")}})
