"""The Python exports: tf1-estimator, tf1-session, tf2, ge-options and torch-npu.

Each writer turns a Plan (app.io.exporters.make_plan) into a snippet that runs as pasted, with the
syntax docs/cann/memory.md#export-targets gives for it:

- tf1-estimator: `MemoryConfig(...)` keywords, and `NPURunConfig(...)` keywords for the cache
  mode and directory, after `from npu_bridge.npu_init import *`;
- tf1-session: `custom_op.parameter_map[key].i = N` for integers and
  `.s = tf.compat.as_bytes("...")` for strings on the `NpuOptimizer`, with TensorFlow's
  remapping and memory_optimization rewrites off, as the TF Adapter's samples do;
- tf2: `npu.global_options()...` assignments, all before `npu.open().as_default()`, because
  npu_device reads the options once, when the device opens;
- ge-options: a dict of GE option names whose values are strings ("2"), as GE requires;
- torch-npu: `os.environ[...]` for PYTORCH_NPU_ALLOC_CONF and the cache sizes *before* torch_npu
  is imported (its allocator reads the variable once, when it first initialises), then
  `import torch` / `import torch_npu` and `torch_npu.npu.set_option({...})` for the cache mode and
  directory, which wins over ACL_OP_COMPILER_CACHE_MODE/_DIR (docs/cann/torch-npu.md).

Every value is a Python literal from app.io.exporters.quoting; comments come from the plan.
"""

from __future__ import annotations

from cann_config.app.catalog import Value
from cann_config.app.io.exporters.envvars import env_variables
from cann_config.app.io.exporters.plan import Entry, Plan, text_of
from cann_config.app.io.exporters.quoting import python_str

INDENT = "    "


def _literal(value: Value) -> str:
    return python_str(value) if isinstance(value, str) else str(value)


def comment_lines(lines: tuple[str, ...] | list[str], indent: str = "") -> list[str]:
    """Each line as a Python comment (the MindSpore writer uses it too)."""
    return [f"{indent}# {line}" for line in lines]


def _head(plan: Plan) -> list[str]:
    return comment_lines(plan.header)


def option_lines(entry: Entry, code: str, indent: str = "") -> list[str]:
    """The comments of one option, then its line (commented out when it is a default)."""
    lines = comment_lines(entry.comments, indent)
    if entry.kind == "set":
        lines.append(indent + code)
    elif entry.kind == "default":
        lines.append(f"{indent}# {code}")
    return lines


def _trailing(plan: Plan) -> list[str]:
    lines: list[str] = []
    for entry in plan.trailing():
        lines += comment_lines(entry.comments)
    return lines


def _finish(blocks: list[list[str]]) -> str:
    return "\n\n".join("\n".join(block) for block in blocks if block) + "\n"


def _call(name: str, fixed: list[str], entries: list[Entry]) -> list[str]:
    """`name(` keyword lines `)`; each entry as `keyword=value,` with its comments above."""
    if not fixed and not entries:
        return [f"{name}()"]
    lines = [f"{name}("]
    lines += [INDENT + item for item in fixed]
    for entry in entries:
        lines += option_lines(entry, f"{entry.name}={_literal(entry.value)},", INDENT)
    lines.append(")")
    return lines


def write_tf1_estimator(plan: Plan) -> str:
    imports = ["import tensorflow as tf", "from npu_bridge.npu_init import *"]
    memory = _call("MemoryConfig", [], plan.in_slot("memory_config"))
    memory[0] = "mem_config = " + memory[0]
    run = _call("NPURunConfig", ["memory_config=mem_config,", "session_config=session_config,"],
                plan.in_slot("npu_run_config"))
    run[0] = "config = " + run[0]
    body = memory + ["session_config = tf.ConfigProto(allow_soft_placement=True)"] + run
    return _finish([_head(plan), imports, body, _trailing(plan)])


def write_tf1_session(plan: Plan) -> str:
    imports = ["import tensorflow as tf", "from npu_bridge.npu_init import *",
               "from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig"]
    body = ["config = tf.ConfigProto()",
            "custom_op = config.graph_options.rewrite_options.custom_optimizers.add()",
            'custom_op.name = "NpuOptimizer"']
    for entry in plan.in_slot("parameter_map"):
        pm = entry.option.targets.parameter_map
        assert pm is not None
        if pm.field == "s":
            value = f"tf.compat.as_bytes({_literal(str(entry.value))})"
        else:
            value = _literal(entry.value)
        body += option_lines(entry, f"custom_op.parameter_map[{python_str(pm.key)}].{pm.field} = {value}")
    rewrites = comment_lines([text_of("export-text-rewriter-off", plan.lang)])
    rewrites += ["config.graph_options.rewrite_options.remapping = RewriterConfig.OFF",
                 "config.graph_options.rewrite_options.memory_optimization = RewriterConfig.OFF"]
    return _finish([_head(plan), imports, body, rewrites, _trailing(plan)])


def write_tf2(plan: Plan) -> str:
    imports = ["import npu_device as npu"]
    body: list[str] = []
    for entry in plan.in_slot("tf2"):
        body += option_lines(entry, f"npu.global_options().{entry.name} = {_literal(entry.value)}")
    body.append("npu.open().as_default()")
    return _finish([_head(plan), imports, body, _trailing(plan)])


def write_ge_options(plan: Plan) -> str:
    entries = plan.in_slot("ge")
    body = ["ge_options = {"] if entries else ["ge_options = {}"]
    for entry in entries:
        # GE option values are strings, "2" not 2 (docs/cann/memory.md#engine-option-names).
        line = f"{python_str(entry.name or '')}: {python_str(str(entry.value))},"
        body += option_lines(entry, line, INDENT)
    if entries:
        body.append("}")
    return _finish([_head(plan), body, _trailing(plan)])


def write_torch_npu(plan: Plan) -> str:
    environment = ["import os"]
    variables = env_variables(plan)
    if variables:
        environment += comment_lines([text_of("export-text-torch-npu-before-import", plan.lang)])
    for variable in variables:
        environment += comment_lines(variable.comments)
        line = f"os.environ[{python_str(variable.name)}] = {python_str(variable.text)}"
        if variable.kind == "set":
            environment.append(line)
        elif variable.kind == "default":
            environment.append(f"# {line}")
    imports = ["import torch", "import torch_npu"]
    entries = plan.in_slot("set_option")
    options: list[str] = []
    if entries:
        options = comment_lines([text_of("export-text-torch-npu-set-option", plan.lang)])
        if any(e.kind == "set" for e in entries):
            options.append("torch_npu.npu.set_option({")
            for entry in entries:
                options += option_lines(entry, f"{python_str(entry.name or '')}: {python_str(str(entry.value))},",
                                         INDENT)
            options.append("})")
        else:
            for entry in entries:
                call = f"torch_npu.npu.set_option({{{python_str(entry.name or '')}: {python_str(str(entry.value))}}})"
                options += option_lines(entry, call)
    return _finish([_head(plan), environment, imports, options, _trailing(plan)])
