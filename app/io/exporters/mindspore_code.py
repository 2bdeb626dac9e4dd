"""The `mindspore` export: a snippet for the top of a MindSpore training script.

It runs as pasted with only `mindspore` and the standard library (docs/cann/mindspore.md):

- environment variables first (`os.environ[...]`, before `import mindspore`): MS_ALLOC_CONF built
  from the catalog's `targets.ms_alloc_conf` keys, MindSpore's graph compile cache
  (MS_COMPILER_CACHE_*), and CANN's op cache sizes and directory, as env-bash sets them
  (app.io.exporters.envvars decides them for both);
- the memory sizes and level in ONE call - `mindspore.runtime.set_memory(...)` (MindSpore 2.10; a
  second call stops the script) or the deprecated `mindspore.set_context(max_device_memory=...)`,
  as the option `mindspore_memory_api` chooses, with each option's `targets.ms_runtime` or
  `targets.ms_context` name;
- `mindspore.set_context(ascend_config={...})`: `atomic_clean_policy` as an int (MindSpore's check
  lets True pass, but GE then gets "True") and the GE options (`targets.ge`) under
  `ge_options["global"]` as strings, which MindSpore requires.
"""

from __future__ import annotations

from cann_config.app.catalog import Value
from cann_config.app.io.exporters.envvars import env_variables
from cann_config.app.io.exporters.plan import Plan, text_of
from cann_config.app.io.exporters.python_code import INDENT, comment_lines, option_lines
from cann_config.app.io.exporters.quoting import python_str


def _literal(value: Value) -> str:
    return python_str(value) if isinstance(value, str) else str(value)


def _memory_call(plan: Plan) -> list[str]:
    entries = plan.in_slot("ms_memory")
    api = next((e.value for e in plan.in_slot("ms_api")), "set_memory")
    if not entries:
        return []
    runtime = api != "set_context"
    name = "ms.runtime.set_memory" if runtime else "ms.set_context"
    lines = comment_lines(next(iter(e.comments for e in plan.in_slot("ms_api")), ()))
    if not any(e.kind == "set" for e in entries):
        lines += comment_lines([text_of("export-text-mindspore-memory-defaults", plan.lang)])
    lines.append(f"{name}(")
    for entry in entries:
        keyword = entry.option.targets.ms_runtime if runtime else entry.option.targets.ms_context
        lines += option_lines(entry, f"{keyword}={_literal(entry.value)},", INDENT)
    lines.append(")")
    if not any(e.kind == "set" for e in entries):
        # nothing chosen: the call itself stays a comment (set_memory may be called once only)
        lines = [line if line.startswith("#") else "# " + line for line in lines]
    return lines


def _ascend_config(plan: Plan) -> list[str]:
    atomic = plan.in_slot("ascend_config")
    ge = plan.in_slot("ge_options")
    if not atomic and not ge:
        return []
    chosen = any(e.kind == "set" for e in atomic + ge)
    lines = comment_lines([text_of("export-text-mindspore-ascend-config", plan.lang)])
    lines.append("ms.set_context(ascend_config={")
    for entry in atomic:
        # an int: MindSpore lets True pass its check, and GE would get "True"
        lines += option_lines(entry, f"{python_str(entry.name or '')}: {int(entry.value)},", INDENT)
    if ge:
        lines += [INDENT + '"ge_options": {"global": {']
        for entry in ge:
            # GE option values are strings, "2" not 2; MindSpore refuses an int (TypeError)
            lines += option_lines(entry, f"{python_str(entry.name or '')}: {python_str(str(entry.value))},", INDENT * 2)
        lines.append(INDENT + "}},")
    lines.append("})")
    if not chosen:
        lines = [line if line.startswith("#") else "# " + line for line in lines]
    return lines


def write_mindspore(plan: Plan) -> str:
    environment: list[str] = []
    for variable in env_variables(plan):
        environment += comment_lines(variable.comments)
        line = f"os.environ[{python_str(variable.name)}] = {python_str(variable.text)}"
        if variable.kind == "set":
            environment.append(line)
        elif variable.kind == "default":
            environment.append(f"# {line}")
    if environment:
        environment = ["import os", *comment_lines([text_of("export-text-mindspore-before-import", plan.lang)]),
                       *environment]
    blocks = [comment_lines(plan.header), environment, ["import mindspore as ms"], _memory_call(plan),
              _ascend_config(plan), [line for e in plan.trailing() for line in comment_lines(e.comments)]]
    return "\n\n".join("\n".join(block) for block in blocks if block) + "\n"
