"""The env-file exports: env-bash and env-fish.

They set the environment variables the catalog names for the framework (`targets.env`): the
cache size and keep ratio for everyone, and the cache mode and directory where the framework
reads them from the environment (torch_npu: ACL_OP_COMPILER_CACHE_MODE / _DIR; the others:
ASCEND_CACHE_PATH for the directory). Each variable gets a comment saying what it does and
that it applies to the current user only (docs/cann/env-vars.md). Values are single
words from app.io.exporters.quoting, so sourcing the file assigns exactly the chosen bytes and
never runs anything that is inside a value.
"""

from __future__ import annotations

from collections.abc import Callable

from cann_config.app.catalog import Value
from cann_config.app.io.exporters import Plan
from cann_config.app.io.exporters.quoting import bash_word, fish_word


def _write(plan: Plan, assign: Callable[[str, Value], str]) -> str:
    blocks = [[f"# {line}" for line in plan.header]]
    for entry in plan.in_slot("env"):
        block = [f"# {line}" for line in entry.comments]
        assert entry.name is not None or entry.kind in ("refused", "unavailable")
        if entry.kind == "set":
            block.append(assign(entry.name or "", entry.value))
        elif entry.kind == "default":
            block.append("# " + assign(entry.name or "", entry.value))
        blocks.append(block)
    trailing = [f"# {line}" for entry in plan.trailing() for line in entry.comments]
    if trailing:
        blocks.append(trailing)
    return "\n\n".join("\n".join(block) for block in blocks) + "\n"


def _bash_assign(name: str, value: Value) -> str:
    return f"export {name}={bash_word(value) if isinstance(value, str) else value}"


def _fish_assign(name: str, value: Value) -> str:
    return f"set -gx {name} {fish_word(value) if isinstance(value, str) else value}"


def write_env_bash(plan: Plan) -> str:
    return _write(plan, _bash_assign)


def write_env_fish(plan: Plan) -> str:
    return _write(plan, _fish_assign)
