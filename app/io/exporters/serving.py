"""The `vllm-serve` export: a bash launch script for a vLLM-Ascend server.

Why a format of its own: a serving job is configured in two places, the environment torch_npu
reads (PYTORCH_NPU_ALLOC_CONF and the op cache variables, the same as env-bash) and the flags of
`vllm serve` (`--gpu-memory-utilization`, the catalog's `targets.vllm_flag`). The script sets the
first and passes the second, then the user's own arguments (the model and any other flag; a flag
given again there wins, as argparse keeps the last). Each variable's comment says what vLLM-Ascend
turns it into at start-up (app/vllm_ascend.py, docs/cann/vllm-ascend.md).
"""

from __future__ import annotations

from cann_config.app.io.exporters.envvars import env_variables
from cann_config.app.io.exporters.plan import Plan
from cann_config.app.io.exporters.quoting import bash_word
from cann_config.app.io.exporters.shell import bash_assign


def _flag_value(value: object) -> str:
    return bash_word(value) if isinstance(value, str) else str(value)


def write_vllm_serve(plan: Plan) -> str:
    lines = ["#!/usr/bin/env bash"] + [f"# {line}" for line in plan.header]
    blocks = ["\n".join(lines)]
    for variable in env_variables(plan):
        block = [f"# {line}" for line in variable.comments]
        if variable.kind == "set":
            block.append(bash_assign(variable.name, variable.value))
        elif variable.kind == "default":
            block.append("# " + bash_assign(variable.name, variable.value))
        blocks.append("\n".join(block))
    flags: list[str] = []
    flag_block: list[str] = []
    for entry in plan.in_slot("flag"):
        flag_block += [f"# {line}" for line in entry.comments]
        if entry.kind == "set":
            flags.append(f"{entry.name} {_flag_value(entry.value)}")
        elif entry.kind == "default":
            flag_block.append(f"#   {entry.name} {_flag_value(entry.value)}")
    trailing = [f"# {line}" for entry in plan.trailing() for line in entry.comments]
    if trailing:
        blocks.append("\n".join(trailing))
    command = " ".join(["exec vllm serve", *flags, '"$@"'])
    blocks.append("\n".join(flag_block + [command]))
    return "\n\n".join(blocks) + "\n"
