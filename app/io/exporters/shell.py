"""The env-file exports: env-bash and env-fish.

They set the environment variables app.io.exporters.envvars decides for the Profile: the cache
size and keep ratio for everyone, the cache mode and directory where the framework reads them from
the environment (torch_npu: ACL_OP_COMPILER_CACHE_MODE / _DIR; the others: ASCEND_CACHE_PATH for
the directory), and for PyTorch torch_npu's PYTORCH_NPU_ALLOC_CONF. Each variable gets a comment
saying what it does and that it applies to the current user only (docs/cann/env-vars.md,
docs/cann/torch-npu.md). Values are single words from app.io.exporters.quoting, so sourcing the
file assigns exactly the chosen bytes and never runs anything that is inside a value.
"""

from __future__ import annotations

from collections.abc import Callable

from cann_config.app.catalog import Value
from cann_config.app.io.exporters.envvars import env_variables
from cann_config.app.io.exporters.plan import Plan
from cann_config.app.io.exporters.quoting import bash_word, fish_word


def _write(plan: Plan, assign: Callable[[str, Value], str]) -> str:
    blocks = [[f"# {line}" for line in plan.header]]
    for variable in env_variables(plan):
        block = [f"# {line}" for line in variable.comments]
        if variable.kind == "set":
            block.append(assign(variable.name, variable.value))
        elif variable.kind == "default":
            block.append("# " + assign(variable.name, variable.value))
        blocks.append(block)
    trailing = [f"# {line}" for entry in plan.trailing() for line in entry.comments]
    if trailing:
        blocks.append(trailing)
    return "\n\n".join("\n".join(block) for block in blocks) + "\n"


def bash_assign(name: str, value: Value) -> str:
    """`export NAME=value` with the value as one bash word."""
    return f"export {name}={bash_word(value) if isinstance(value, str) else value}"


def _fish_assign(name: str, value: Value) -> str:
    return f"set -gx {name} {fish_word(value) if isinstance(value, str) else value}"


def write_env_bash(plan: Plan) -> str:
    return _write(plan, bash_assign)


def write_env_fish(plan: Plan) -> str:
    return _write(plan, _fish_assign)
