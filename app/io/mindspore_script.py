"""Reading a MindSpore training script's memory settings, without running it.

Why a module of its own: MindSpore's settings are calls with nested dicts
(`ms.set_context(ascend_config={"ge_options": {"global": {...}}})`), which the generic script
reader (app/io/scripts.py) keeps only one level deep, and a call can be made twice
(`runtime.set_memory`, refused the second time). This module reuses that reader - the same
following of imports (`import mindspore as ms`, `from mindspore import runtime`), variables, dicts
built key by key, branches and functions - and keeps, for the calls of
`mindspore.set_context` and `mindspore.runtime.set_memory`, every argument with nested dicts
whole. app/mindspore_memory.py then gives MindSpore 2.10's verdict on them
(docs/cann/mindspore.md).

Public API:
    read_mindspore_script(text, source) -> MindSporeReading
    MindSporeCall(api, line, keywords, positional, complete, expressions)
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from cann_config.app.io import scripts
from cann_config.app.io.scripts import UNKNOWN, EnvAssignment, ScriptValue

# The qualified names of the calls, as the reader resolves them through the script's imports.
SET_CONTEXT = frozenset({"mindspore.set_context", "mindspore.context.set_context"})
SET_MEMORY = frozenset({"mindspore.runtime.set_memory", "mindspore.runtime.memory.set_memory"})


@dataclass(frozen=True)
class MindSporeCall:
    """One call: "set_context" or "set_memory", its keywords and positional arguments as Python
    values (nested dicts whole; UNKNOWN where only the running script knows), `complete` False
    when a `*args`/`**kwargs` spread hides some."""

    api: str
    line: int
    keywords: dict[str, Any]
    positional: tuple[Any, ...]
    complete: bool
    expressions: dict[str, str] = field(default_factory=dict)  # the source of each argument


@dataclass
class MindSporeReading:
    source: str
    calls: list[MindSporeCall] = field(default_factory=list)
    env: list[EnvAssignment] = field(default_factory=list)
    imports_mindspore: bool = False


def _plain(value: Any) -> Any:
    """A tracked dict as a dict of plain values (UNKNOWN when not every key is known)."""
    if isinstance(value, scripts._TrackedDict):
        if not value.complete:
            return UNKNOWN
        return {key: entry.value for key, entry in value.entries.items()}
    return value


class _MindSporeReader(scripts.ScriptReader):
    """The generic reader, with dict values kept whole and MindSpore's calls recorded (the
    environment's states are the generic reading's: not walked again here)."""

    runs_environment = False

    def __init__(self, text: str, source: str) -> None:
        super().__init__(text, source)
        self.ms_calls: list[MindSporeCall] = []

    def value(self, node: ast.expr, scope: Any) -> ScriptValue:
        bound = self.binding(node, scope)
        if isinstance(bound, scripts._TrackedDict):
            plain = _plain(bound)
            if plain is not UNKNOWN:
                return ScriptValue(plain, node.lineno)
        return super().value(node, scope)

    def call(self, node: ast.Call, scope: Any) -> None:
        func = node.func
        qualname = self.qualname(func, scope) if isinstance(func, (ast.Name, ast.Attribute)) else None
        if qualname in SET_CONTEXT or qualname in SET_MEMORY:
            keywords: dict[str, Any] = {}
            expressions: dict[str, str] = {}
            complete = True
            for kw in node.keywords:
                if kw.arg is None:
                    complete = False
                    continue
                value = self.value(kw.value, scope)
                keywords[kw.arg] = value.value
                expressions[kw.arg] = value.expression or self.expression(kw.value)
            positional = []
            for index, arg in enumerate(node.args):
                if isinstance(arg, ast.Starred):
                    complete = False
                    break
                value = self.value(arg, scope)
                positional.append(value.value)
                expressions[str(index)] = value.expression or self.expression(arg)
            api = "set_context" if qualname in SET_CONTEXT else "set_memory"
            self.ms_calls.append(MindSporeCall(api, node.lineno, keywords, tuple(positional), complete, expressions))
        super().call(node, scope)


def read_mindspore_script(text: str, source: str) -> MindSporeReading:
    """The MindSpore calls and environment assignments of a script (never executed).

    Raises SyntaxError / ValueError as ast.parse does; the caller (app/io/importers.py reads the
    same text first) has already turned those into a one-line reason."""
    tree = ast.parse(text, filename=source)
    reader = _MindSporeReader(text, source)
    reading = reader.read(tree)
    out = MindSporeReading(source, reader.ms_calls, list(reading.env))
    out.imports_mindspore = any(name.split(".")[0] == "mindspore" for name in reading.imports)
    return out
