"""Reading a Python training script as its author meant it, without running a line of it.

Support staff get a customer's training script and ask which settings it makes. Real scripts
rarely write a setting as one literal call: they build a dict key by key and pass it to
`torch.npu.set_option`, keep a path in a variable, set `os.environ` inside a helper or under
`if __name__ == "__main__":`. This module reads the script's syntax tree (`ast`, never executed)
the way a careful human reader does, and reports *generic facts* - which environment variables
are assigned, which `set_option` dicts are passed, which keyword calls and field assignments are
made - each with its line and its value, or the explicit `UNKNOWN` when only the running program
knows it (an f-string of a run-time value, `args.x`, a function parameter, a flag).

What a reader follows, and where a reader gives up:
- simple assignments of literals within one scope (module, function), in the order they run:
  `kernel_dir = "./kernel_meta"; NPURunConfig(op_compiler_cache_dir=kernel_dir)`;
- a module-level name assigned exactly once (and never rebound through `global`) is known inside
  functions; a function's parameters are not;
- a name (or dict key) given different values in the two arms of an `if`, or rebound in a loop,
  is unknown afterwards; code under a constant-false test (`if False:`) never runs;
- dicts built key by key (`d = {}; d["K"] = "v"`, `d.update(...)`, `dict(K=...)`), followed
  while the reader can see every change;
- literal-only expressions: string concatenation, f-strings of known values, `str(1)`,
  `os.path.join` of literals, `tf.compat.as_bytes("v")`, `"v".encode()`.
Which facts are CANN settings is the importer's business (app/io/importers.py), not this one's.

Public API:
    read_script(tree, text, source) -> ScriptReading
    UNKNOWN                         the value of anything known only at run time
    ScriptValue, EnvAssignment, OptionCall, KeywordCall, FieldAssignment, MappingEntry
"""

from __future__ import annotations

import ast
import posixpath
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

# `try ... except*` (ast.TryStar) exists from Python 3.11; the project runs on 3.10 too.
if sys.version_info >= (3, 11):
    _TryNode = ast.Try | ast.TryStar
    _TRY_NODES: tuple[type[ast.stmt], ...] = (ast.Try, ast.TryStar)
else:  # pragma: no cover
    _TryNode = ast.Try
    _TRY_NODES = (ast.Try,)


def _literal(value: Any) -> Any:
    """A binding as a value a variable can hold: a literal, else UNKNOWN."""
    return value if type(value) in (str, bytes, int, float, bool, type(None)) else UNKNOWN


def _utf8(text: str) -> Any:
    """`text.encode("utf-8")` as the running script gets it: a lone surrogate ("\\ud800", legal in a
    Python literal) makes the call raise at run time, so the value is UNKNOWN, never a traceback."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return UNKNOWN


class _Unknown:
    """The value of an expression known only when the script runs."""

    _instance: _Unknown | None = None

    def __new__(cls) -> _Unknown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __copy__(self) -> _Unknown:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> _Unknown:
        return self


UNKNOWN: Any = _Unknown()

# How deep the reader follows one expression ("a" + "b" + ... nested by the parser): beyond this
# a reader would not compute it either, and Python's own recursion stays far away.
_MAX_DEPTH = 40
_MAX_EXPRESSION = 60
# A loop over literal keys is read once per key up to this many keys.
_MAX_UNROLL = 64


@dataclass(frozen=True)
class ScriptValue:
    """A value as the script gives it: a Python literal, or UNKNOWN with its source text."""

    value: Any
    line: int
    expression: str = ""

    @property
    def known(self) -> bool:
        return self.value is not UNKNOWN


@dataclass(frozen=True)
class EnvAssignment:
    """`os.environ[NAME] = v`, `os.environ.setdefault(NAME, v)`, `os.environ.update({NAME: v})`
    or `os.putenv(NAME, v)`. `how` is "assign", "setdefault", "update" or "putenv"; `value` is a
    literal (normally a str) or UNKNOWN."""

    name: str
    value: Any
    line: int
    how: str
    expression: str
    file: str
    # `os.environ[NAME] = os.environ.get(READS, default)` / `os.getenv(READS, default)` (also
    # `os.environ.get(READS) or default`, `empty_too`): the value is read from the environment at
    # run time (`value` stays UNKNOWN); `default` is what it is when READS is not set (UNKNOWN when
    # only the run knows, None for no default). For a setdefault, `reads` is NAME itself.
    reads: str | None = None
    default: Any = None
    empty_too: bool = False

    @property
    def known(self) -> bool:
        return self.value is not UNKNOWN


@dataclass(frozen=True)
class OptionCall:
    """`torch.npu.set_option(d)` / `torch_npu.npu.set_option(d)`: the dict as it is when the call
    runs. `complete` is False when the reader cannot see every key (a dict from a parameter or
    a call, a `**spread`, a key computed at run time); the keys it does see are in `options`."""

    call: str
    line: int
    options: dict[str, ScriptValue]
    complete: bool
    expression: str
    file: str


@dataclass(frozen=True)
class KeywordCall:
    """A call by its last name (`MemoryConfig`, `NPURunConfig`) with its keywords (None for
    `**spread`) and how many positional arguments it got."""

    name: str
    line: int
    keywords: tuple[tuple[str | None, ScriptValue], ...]
    positional: int


@dataclass(frozen=True)
class FieldAssignment:
    """`x.parameter_map["key"].i = v` (kind "parameter_map", path (key, field)) or
    `npu.global_options().a.b = v`, also through a variable bound to global_options() or one of
    its sections (kind "global_options", path ("a", "b"))."""

    kind: str
    path: tuple[str, ...]
    value: ScriptValue


@dataclass(frozen=True)
class MappingEntry:
    """A string key given a value in a dict display or a subscript assignment (`d["k"] = v`),
    outside os.environ: how GE option dicts are written."""

    key: str
    value: ScriptValue


@dataclass
class ScriptReading:
    """Everything the reader saw, in the order the script would do it (module first, then each
    function body)."""

    source: str
    env: list[EnvAssignment] = field(default_factory=list)
    set_options: list[OptionCall] = field(default_factory=list)
    calls: list[KeywordCall] = field(default_factory=list)
    fields: list[FieldAssignment] = field(default_factory=list)
    mappings: list[MappingEntry] = field(default_factory=list)
    imports: list[str] = field(default_factory=list)  # the modules imported, dotted, as written
    # The environment the script leaves when it runs as a program (_EnvRun): each variable's
    # last state, and every state the run reaches outside a run-time branch, in the order it
    # does (a branch adds what it leaves).
    env_state: dict[str, EnvState] = field(default_factory=dict)
    env_applied: list[EnvState] = field(default_factory=list)
    # (line, expression): os.environ changed under a name known only at run time (a key from a
    # file, a loop over what the reader cannot see): any variable, CANN's included
    env_unknown: list[tuple[int, str]] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# What a name can be bound to
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _ModuleRef:
    """A module or an object reached from one by name (`import torch_npu as tnpu`)."""

    dotted: str


@dataclass(frozen=True)
class _EnvRead:
    """`os.environ.get(NAME, default)`, `os.getenv(NAME, default)`, `os.environ[NAME]` (no default:
    None), `os.environ.get(NAME) or default` (`empty_too`: an empty value also gives the default)."""

    variable: str
    default: Any
    empty_too: bool = False


@dataclass(frozen=True)
class _OptionsPath:
    """npu.global_options() or one of its sections."""

    path: tuple[str, ...]


class _TrackedDict:
    """A dict whose every change the reader has seen so far."""

    def __init__(self, entries: dict[str, ScriptValue] | None = None, complete: bool = True):
        self.entries: dict[str, ScriptValue] = dict(entries or {})
        self.complete = complete

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, _TrackedDict) and self.entries == other.entries
                and self.complete == other.complete)

    __hash__ = None  # type: ignore[assignment]


_SET_OPTION = {"torch.npu.set_option", "torch_npu.npu.set_option"}


def _merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """The bindings after two paths join: equal values stay, a name bound on one path keeps
    that binding, different values become UNKNOWN (dicts are merged key by key)."""
    out: dict[str, Any] = {}
    for name in list(a) + [n for n in b if n not in a]:
        if name not in a:
            out[name] = b[name]
        elif name not in b:
            out[name] = a[name]
        else:
            out[name] = _merge_value(a[name], b[name])
    return out


def _merge_value(x: Any, y: Any) -> Any:
    if isinstance(x, _TrackedDict) and isinstance(y, _TrackedDict):
        merged = _TrackedDict(complete=x.complete and y.complete)
        for key in list(x.entries) + [k for k in y.entries if k not in x.entries]:
            vx, vy = x.entries.get(key), y.entries.get(key)
            if vx is None or vy is None or vx == vy:
                merged.entries[key] = vx or vy  # type: ignore[assignment]
            else:
                merged.entries[key] = ScriptValue(UNKNOWN, max(vx.line, vy.line), f"{_shown(vx)} / {_shown(vy)}")
        return merged
    if type(x) is type(y) and x == y:
        return x
    return UNKNOWN


def _shown(value: ScriptValue) -> str:
    """A value as the source would write it (for a value that depends on the path taken)."""
    return repr(value.value) if value.known else value.expression


def _assigned_names(statements: Iterable[ast.stmt]) -> list[str]:
    """Every name the statements bind (not counting nested functions' and classes' bodies)."""
    names: list[str] = []
    stack: list[ast.AST] = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
            stack.extend(node.decorator_list)
            continue
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.append(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    names.append((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.append(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            names.append(node.name)
        stack.extend(ast.iter_child_nodes(node))
    return names


class _Scope:
    def __init__(self, kind: str, parent: _Scope | None, body: list[ast.stmt], module: _Scope | None):
        self.kind = kind  # "module" | "function" | "class"
        self.parent = parent
        self.module = module or self
        self.bindings: dict[str, Any] = {}
        counts: dict[str, int] = {}
        for name in _assigned_names(body):
            counts[name] = counts.get(name, 0) + 1
        self.counts = counts
        self.declared_global: set[str] = set()
        self.unstable: set[str] = set()  # rebound from elsewhere (global / nonlocal)
        for node in _own_nodes(body):
            if isinstance(node, ast.Global):
                self.declared_global.update(node.names)
            elif isinstance(node, ast.Nonlocal):
                self.declared_global.update(node.names)
        self.final: dict[str, Any] | None = None

    def stable(self, name: str) -> Any:
        """The value a nested function sees for this scope's `name`: known only when it is bound
        exactly once here and nothing else rebinds it."""
        if name in self.unstable or self.counts.get(name, 0) != 1 or self.final is None:
            return UNKNOWN
        return self.final.get(name, UNKNOWN)


def _own_nodes(body: Iterable[ast.stmt]) -> Iterator[ast.AST]:
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))


# ---------------------------------------------------------------------------------------------
# The reader
# ---------------------------------------------------------------------------------------------


class ScriptReader:
    """The reader of one script (app/io/mindspore_script.py extends it with MindSpore's calls).
    `runs_environment`: also walk the script in the order it runs for the environment it leaves
    (ScriptReading.env_state); a reader that needs only the calls turns it off."""

    runs_environment = True

    def __init__(self, text: str, source: str):
        self.lines = text.splitlines(keepends=True) if text else []
        self.out = ScriptReading(source)
        self.source = source
        self.environ_dicts: set[int] = set()
        self.pending: list[tuple[ast.AST, _Scope]] = []
        # What the run (_EnvRun) needs: the environment changes each node makes, and the
        # outcome of each `if` whose test is a constant.
        self.env_events: dict[int, list[EnvAssignment]] = {}
        self.constant_tests: dict[int, bool] = {}
        self.unrolled: set[int] = set()  # loops over literal keys, read once per key

    # -- source text --------------------------------------------------------------------------

    def expression(self, node: ast.AST) -> str:
        """The node's source text on one line, shortened (for messages)."""
        text = self._segment(node)
        if text is None:
            try:
                text = ast.unparse(node)
            except (ValueError, RecursionError):  # pragma: no cover - defensive
                text = type(node).__name__
        text = " ".join(text.split())
        return text if len(text) <= _MAX_EXPRESSION else text[:_MAX_EXPRESSION - 3] + "..."

    def _segment(self, node: ast.AST) -> str | None:
        # ast.get_source_segment splits the whole text at every call; this reads one line range.
        try:
            first, last = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined]
            start, end = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
        except AttributeError:
            return None
        if last is None or end is None or first < 0 or last >= len(self.lines) or last - first > 50:
            return None
        if first == last:
            return self.lines[first].encode("utf-8", "surrogatepass")[start:end].decode("utf-8", "replace")
        parts = [self.lines[first].encode("utf-8", "surrogatepass")[start:].decode("utf-8", "replace")]
        parts.extend(self.lines[first + 1:last])
        parts.append(self.lines[last].encode("utf-8", "surrogatepass")[:end].decode("utf-8", "replace"))
        return "".join(parts)

    # -- names --------------------------------------------------------------------------------

    def lookup(self, name: str, scope: _Scope) -> Any:
        if name in scope.declared_global:
            return scope.module.stable(name)
        if name in scope.bindings:
            return scope.bindings[name]
        if name in scope.counts:
            return UNKNOWN  # bound later in this scope, or only on a path not taken
        outer = scope.parent
        while outer is not None:
            if outer.kind != "class" and name in outer.counts:
                return outer.stable(name)
            outer = outer.parent
        return None  # not bound anywhere in the script: a builtin or a star import

    def bind(self, name: str, value: Any, scope: _Scope) -> None:
        scope.bindings[name] = value

    def qualname(self, node: ast.expr, scope: _Scope) -> str | None:
        """`a.b.c` with `a` resolved through the script's imports; None for other shapes."""
        attrs: list[str] = []
        while isinstance(node, ast.Attribute):
            attrs.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        bound = self.lookup(node.id, scope)
        head = bound.dotted if isinstance(bound, _ModuleRef) else node.id
        return ".".join([head, *reversed(attrs)])

    # -- values -------------------------------------------------------------------------------

    def binding(self, node: ast.expr, scope: _Scope, depth: int = 0) -> Any:
        """What `node` evaluates to as far as a reader can tell: a literal, a _TrackedDict, a
        _ModuleRef, an _OptionsPath, or UNKNOWN."""
        if depth > _MAX_DEPTH:
            return UNKNOWN
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            bound = self.lookup(node.id, scope)
            return UNKNOWN if bound is None else bound
        if isinstance(node, ast.UnaryOp):
            operand = self.binding(node.operand, scope, depth + 1)
            if isinstance(node.op, (ast.USub, ast.UAdd)) and type(operand) in (int, float):
                return -operand if isinstance(node.op, ast.USub) else operand
            if isinstance(node.op, ast.Not) and type(operand) in (bool, int, str, type(None)):
                return not operand
            return UNKNOWN
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left = self.binding(node.left, scope, depth + 1)
            right = self.binding(node.right, scope, depth + 1)
            if type(left) is type(right) and type(left) in (str, bytes):
                return left + right
            return UNKNOWN
        if isinstance(node, ast.JoinedStr):
            return self.fstring(node, scope, depth)
        if isinstance(node, ast.Dict):
            return self.dict_display(node, scope, depth)
        if isinstance(node, ast.Attribute):
            path = self.options_path(node, scope)
            if path is not None:
                return _OptionsPath(path)
            base = self.binding(node.value, scope, depth + 1)
            if isinstance(base, _ModuleRef):
                return _ModuleRef(f"{base.dotted}.{node.attr}")
            if isinstance(node.value, ast.Name) and self.lookup(node.value.id, scope) is None:
                return _ModuleRef(f"{node.value.id}.{node.attr}")  # e.g. torch.npu without an import seen
            return UNKNOWN
        if isinstance(node, ast.Call):
            return self.call_value(node, scope, depth)
        if isinstance(node, ast.Subscript) and _is_environ(node.value):
            key = self.binding(node.slice, scope, depth + 1)
            return _EnvRead(key, None) if isinstance(key, str) else UNKNOWN
        if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or) and len(node.values) == 2:
            first = self.binding(node.values[0], scope, depth + 1)
            if isinstance(first, _EnvRead) and first.default is None:
                return _EnvRead(first.variable, _literal(self.binding(node.values[1], scope, depth + 1)), True)
        return UNKNOWN

    def value(self, node: ast.expr, scope: _Scope) -> ScriptValue:
        """A literal value for a setting, or UNKNOWN with the expression."""
        bound = self.binding(node, scope)
        if isinstance(bound, (_TrackedDict, _ModuleRef, _OptionsPath, _EnvRead)) or bound is UNKNOWN:
            return ScriptValue(UNKNOWN, node.lineno, self.expression(node))
        return ScriptValue(bound, node.lineno)

    def fstring(self, node: ast.JoinedStr, scope: _Scope, depth: int) -> Any:
        parts: list[str] = []
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                parts.append(part.value)
                continue
            if not isinstance(part, ast.FormattedValue) or part.format_spec is not None or part.conversion not in (-1, 115):
                return UNKNOWN
            inner = self.binding(part.value, scope, depth + 1)
            if type(inner) not in (str, int):
                return UNKNOWN
            parts.append(str(inner))
        return "".join(parts)

    def dict_display(self, node: ast.Dict, scope: _Scope, depth: int) -> _TrackedDict:
        tracked = _TrackedDict()
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                spread = self.binding(value, scope, depth + 1)
                if isinstance(spread, _TrackedDict):
                    tracked.entries.update(spread.entries)
                    tracked.complete = tracked.complete and spread.complete
                else:
                    tracked.complete = False
                continue
            name = self.binding(key, scope, depth + 1)
            if isinstance(name, str):
                tracked.entries[name] = self.value(value, scope)
            else:
                tracked.complete = False
        return tracked

    def call_value(self, node: ast.Call, scope: _Scope, depth: int) -> Any:
        func = node.func
        name = self.qualname(func, scope) or ""
        last = name.rsplit(".", 1)[-1] if name else (func.attr if isinstance(func, ast.Attribute) else "")
        if last == "global_options" and not node.args:
            return _OptionsPath(())
        if (((isinstance(func, ast.Attribute) and func.attr == "get" and _is_environ(func.value))
             or name in ("os.getenv", "getenv")) and 1 <= len(node.args) <= 2 and not node.keywords):
            variable = self.binding(node.args[0], scope, depth + 1)
            if isinstance(variable, str):
                default = self.binding(node.args[1], scope, depth + 1) if len(node.args) == 2 else None
                return _EnvRead(variable, _literal(default))
            return UNKNOWN
        args = [self.binding(a, scope, depth + 1) for a in node.args] if not any(
            isinstance(a, ast.Starred) for a in node.args) else None
        if name == "dict" and args is not None and (not args or (len(args) == 1 and isinstance(args[0], _TrackedDict))):
            tracked = _TrackedDict(args[0].entries if args else {}, args[0].complete if args else True)
            for kw in node.keywords:
                if kw.arg is None:
                    tracked.complete = False
                else:
                    tracked.entries[kw.arg] = self.value(kw.value, scope)
            return tracked
        if node.keywords or args is None:
            return UNKNOWN
        if name == "str" and len(args) == 1 and type(args[0]) in (str, int, float, bool):
            return str(args[0])
        if name in ("os.path.join", "posixpath.join") and args and all(type(a) is str for a in args):
            return posixpath.join(*args)
        if last == "as_bytes" and len(args) == 1 and type(args[0]) in (str, bytes):
            return _utf8(args[0]) if isinstance(args[0], str) else args[0]
        if isinstance(func, ast.Attribute) and func.attr == "encode" and len(args) <= 1:
            base = self.binding(func.value, scope, depth + 1)
            encoding = args[0] if args else "utf-8"
            if type(base) is str and isinstance(encoding, str) and encoding.lower().replace("-", "") == "utf8":
                return _utf8(base)
        return UNKNOWN

    def options_path(self, node: ast.expr, scope: _Scope) -> tuple[str, ...] | None:
        """The attribute path below npu.global_options() that `node` names, or None."""
        attrs: list[str] = []
        while isinstance(node, ast.Attribute):
            attrs.append(node.attr)
            node = node.value
        attrs.reverse()
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)) and not node.args:
            last = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
            if last == "global_options":
                return tuple(attrs)
        if isinstance(node, ast.Name):
            bound = self.lookup(node.id, scope)
            if isinstance(bound, _OptionsPath):
                return bound.path + tuple(attrs)
        return None

    # -- statements ---------------------------------------------------------------------------

    def read(self, tree: ast.Module) -> ScriptReading:
        module = _Scope("module", None, tree.body, None)
        # Names a function declares `global` are rebound from there: not stable module-wide.
        module.unstable = {name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names}
        self.pending.append((tree, module))
        while self.pending:
            node, scope = self.pending.pop(0)
            self.block(node.body, scope)  # type: ignore[attr-defined]
            scope.final = dict(scope.bindings)
        if self.runs_environment:
            run = _EnvRun(self)
            run.run(tree)
            self.out.env_state = run.state
            self.out.env_applied = run.applied
        return self.out

    def block(self, statements: list[ast.stmt], scope: _Scope) -> None:
        for statement in statements:
            self.statement(statement, scope)

    def statement(self, node: ast.stmt, scope: _Scope) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.expressions(node.decorator_list + node.args.defaults
                             + [d for d in node.args.kw_defaults if d is not None], scope)
            inner = _Scope("function", scope, node.body, scope.module)
            args = node.args
            for arg in args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]:
                inner.bindings[arg.arg] = UNKNOWN
                inner.counts[arg.arg] = inner.counts.get(arg.arg, 0) + 1
            self.pending.append((node, inner))
            self.bind(node.name, UNKNOWN, scope)
        elif isinstance(node, ast.ClassDef):
            self.expressions(node.decorator_list + node.bases + [k.value for k in node.keywords], scope)
            self.block(node.body, _Scope("class", scope, node.body, scope.module))
            self.bind(node.name, UNKNOWN, scope)
        elif isinstance(node, ast.If):
            self.if_statement(node, scope)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            self.loop(node, scope)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self.expressions([item.context_expr], scope)
                if item.optional_vars is not None:
                    self.unknown_targets(item.optional_vars, scope)
            self.block(node.body, scope)
        elif isinstance(node, _TRY_NODES):
            self.try_statement(node, scope)
        elif isinstance(node, ast.Match):
            self.expressions([node.subject], scope)
            self.branches([case.body for case in node.cases] + [[]], scope)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self.import_statement(node, scope)
        elif isinstance(node, ast.Assign):
            self.expressions([node.value], scope)
            bound = self.binding(node.value, scope)
            for target in node.targets:
                self.assign(target, node.value, bound, scope)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.expressions([node.value], scope)
                self.assign(node.target, node.value, self.binding(node.value, scope), scope)
        elif isinstance(node, ast.AugAssign):
            self.expressions([node.value], scope)
            if isinstance(node.target, ast.Subscript) and _is_environ(node.target.value):
                key = self.binding(node.target.slice, scope)
                if isinstance(key, str):
                    assignment = EnvAssignment(key, UNKNOWN, node.lineno, "assign", self.expression(node), self.source)
                    self.out.env.append(assignment)
                    self.env_events.setdefault(id(node.target), []).append(assignment)
            elif isinstance(node.target, ast.Name):
                self.bind(node.target.id, UNKNOWN, scope)
            elif isinstance(node.target, ast.Subscript):
                self.forget_key(node.target, scope)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and _is_environ(target.value):
                    key = self.binding(target.slice, scope)
                    if isinstance(key, str):
                        self.env_unset(key, target.lineno, target)
                elif isinstance(target, ast.Name):
                    scope.bindings.pop(target.id, None)
                elif isinstance(target, ast.Subscript):
                    tracked = self.binding(target.value, scope)
                    key = self.binding(target.slice, scope)
                    if isinstance(tracked, _TrackedDict):
                        if isinstance(key, str):
                            tracked.entries.pop(key, None)
                        else:
                            tracked.complete = False
        else:
            self.expressions([c for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)], scope)

    def import_statement(self, node: ast.Import | ast.ImportFrom, scope: _Scope) -> None:
        if isinstance(node, ast.Import):
            self.out.imports.extend(alias.name for alias in node.names)
            for alias in node.names:
                if alias.asname:
                    self.bind(alias.asname, _ModuleRef(alias.name), scope)
                else:
                    head = alias.name.split(".")[0]
                    self.bind(head, _ModuleRef(head), scope)
            return
        if node.level:
            base = "." * node.level + (node.module or "")
        else:
            base = node.module or ""
            self.out.imports.append(base)
        for alias in node.names:
            if alias.name != "*":
                self.bind(alias.asname or alias.name, _ModuleRef(f"{base}.{alias.name}"), scope)

    def if_statement(self, node: ast.If, scope: _Scope) -> None:
        self.expressions([node.test], scope)
        if _is_main_guard(node.test):
            # The script runs as a program: this block is what runs.
            self.block(node.body, scope)
            if node.orelse:
                self.branches([node.orelse, []], scope)
            return
        test = self.binding(node.test, scope)
        if type(test) in (bool, int, str, type(None)):
            # A constant test: the other arm never runs, like commented-out code.
            self.constant_tests[id(node)] = bool(test)
            self.block(node.body if test else node.orelse, scope)
            return
        self.branches([node.body, node.orelse], scope)

    def touched(self, statements: list[ast.stmt], scope: _Scope) -> set[str]:
        """The names the statements may rebind, or whose dict they may change: only these are
        saved and merged around a branch or a loop (copying every binding made the reading of
        a long script quadratic)."""
        names = set(_assigned_names(statements))
        for statement in statements:
            for node in ast.walk(statement):
                if isinstance(node, ast.Name) and isinstance(scope.bindings.get(node.id), _TrackedDict):
                    names.add(node.id)
        return names

    @staticmethod
    def saved(names: set[str], bindings: dict[str, Any]) -> dict[str, Any]:
        """Copies of the bindings of `names` (dicts copied, aliases kept)."""
        copies: dict[int, _TrackedDict] = {}
        out: dict[str, Any] = {}
        for name in names:
            if name not in bindings:
                continue
            value = bindings[name]
            if isinstance(value, _TrackedDict):
                value = copies.setdefault(id(value), _TrackedDict(value.entries, value.complete))
            out[name] = value
        return out

    @staticmethod
    def put_back(names: set[str], values: dict[str, Any], scope: _Scope) -> None:
        for name in names:
            if name in values:
                scope.bindings[name] = values[name]
            else:
                scope.bindings.pop(name, None)

    def branches(self, arms: list[list[ast.stmt]], scope: _Scope) -> None:
        names: set[str] = set()
        for arm in arms:
            names |= self.touched(arm, scope)
        before = self.saved(names, scope.bindings)
        results = []
        for arm in arms:
            self.put_back(names, self.saved(names, before), scope)
            self.block(arm, scope)
            results.append({name: scope.bindings[name] for name in names if name in scope.bindings})
        merged = results[0]
        for other in results[1:]:
            merged = _merge(merged, other)
        self.put_back(names, merged, scope)

    def loop(self, node: ast.For | ast.AsyncFor | ast.While, scope: _Scope) -> None:
        if self.unrolled_loop(node, scope):
            return
        if isinstance(node, ast.While):
            self.expressions([node.test], scope)
        else:
            self.expressions([node.iter], scope)
        # A name the body rebinds has the value of the previous pass at the top of the body.
        rebound = set(_assigned_names(node.body))
        if not isinstance(node, ast.While):
            rebound |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
        names = self.touched(node.body, scope) | rebound
        before = self.saved(names, scope.bindings)
        for name in rebound:
            if name in scope.bindings:
                scope.bindings[name] = UNKNOWN
        if not isinstance(node, ast.While):
            self.unknown_targets(node.target, scope)
        self.block(node.body, scope)
        after = {name: scope.bindings[name] for name in names if name in scope.bindings}
        self.put_back(names, _merge(before, after), scope)
        if node.orelse:
            self.block(node.orelse, scope)

    def unrolled_loop(self, node: ast.For | ast.AsyncFor | ast.While, scope: _Scope) -> bool:
        """`for k, v in d.items():`, `for k in d:` or `for k in ("A", "B"):` over keys the reader
        sees, with a body that always runs to its end: read once per key, in order (so
        `os.environ[k] = v` sets each variable). False when the loop is not one of these."""
        if not isinstance(node, ast.For) or node.orelse or any(
                isinstance(n, (ast.Break, ast.Continue, ast.Return, ast.Raise, ast.Try, ast.FunctionDef, ast.ClassDef))
                for statement in node.body for n in ast.walk(statement)):
            return False
        items = self.literal_items(node.iter, node.target, scope)
        if not items or len(items) > _MAX_UNROLL:
            return False
        self.expressions([node.iter], scope)
        for bindings in items:
            for name, value in bindings.items():
                self.bind(name, value, scope)
            self.block(node.body, scope)
        self.unrolled.add(id(node))
        return True

    def literal_items(self, iterable: ast.expr, target: ast.expr, scope: _Scope) -> list[dict[str, Any]] | None:
        """The bindings of the loop's target on each pass, when the reader knows every one."""
        if (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and iterable.func.attr == "items"
                and not iterable.args and not iterable.keywords and isinstance(target, ast.Tuple)
                and len(target.elts) == 2 and all(isinstance(e, ast.Name) for e in target.elts)):
            tracked = self.binding(iterable.func.value, scope)
            if isinstance(tracked, _TrackedDict) and tracked.complete:
                k, v = (e.id for e in target.elts)  # type: ignore[attr-defined]
                return [{k: key, v: entry.value} for key, entry in tracked.entries.items()]
            return None
        if not isinstance(target, ast.Name):
            return None
        bound = self.binding(iterable, scope)
        if isinstance(bound, _TrackedDict) and bound.complete:
            return [{target.id: key} for key in bound.entries]
        if isinstance(iterable, (ast.Tuple, ast.List)):
            values = [self.binding(e, scope) for e in iterable.elts]
            if all(type(v) is str for v in values):
                return [{target.id: v} for v in values]
        return None

    def try_statement(self, node: _TryNode, scope: _Scope) -> None:
        self.block(node.body, scope)
        arms: list[list[ast.stmt]] = [node.orelse]
        for handler in node.handlers:
            if handler.type is not None:
                self.expressions([handler.type], scope)
            arms.append(handler.body)
        self.branches(arms, scope)
        self.block(node.finalbody, scope)

    def unknown_targets(self, target: ast.expr, scope: _Scope) -> None:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                self.bind(node.id, UNKNOWN, scope)

    # -- assignments --------------------------------------------------------------------------

    def assign(self, target: ast.expr, value: ast.expr, bound: Any, scope: _Scope) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, bound, scope)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) and not any(
                    isinstance(e, ast.Starred) for e in target.elts + value.elts):
                for t, v in zip(target.elts, value.elts, strict=True):
                    self.assign(t, v, self.binding(v, scope), scope)
            else:
                self.unknown_targets(target, scope)
        elif isinstance(target, ast.Subscript):
            self.subscript_assign(target, value, scope)
        elif isinstance(target, ast.Attribute):
            self.attribute_assign(target, value, scope)
        elif isinstance(target, ast.Starred):
            self.unknown_targets(target, scope)

    def subscript_assign(self, target: ast.Subscript, value: ast.expr, scope: _Scope) -> None:
        key = self.binding(target.slice, scope)
        if _is_environ(target.value):
            if isinstance(key, str):
                self.env(key, value, "assign", scope, target.lineno, target)
            else:
                self.env_name_unknown(target.lineno, target.slice)
            return
        tracked = self.binding(target.value, scope)
        if isinstance(tracked, _TrackedDict):
            if isinstance(key, str):
                tracked.entries[key] = self.value(value, scope)
            else:
                tracked.complete = False
        if isinstance(key, str):
            self.out.mappings.append(MappingEntry(key, self.value(value, scope)))

    def forget_key(self, target: ast.Subscript, scope: _Scope) -> None:
        tracked = self.binding(target.value, scope)
        key = self.binding(target.slice, scope)
        if isinstance(tracked, _TrackedDict):
            if isinstance(key, str) and key in tracked.entries:
                tracked.entries[key] = ScriptValue(UNKNOWN, target.lineno, self.expression(target))
            elif not isinstance(key, str):
                tracked.complete = False

    def attribute_assign(self, target: ast.Attribute, value: ast.expr, scope: _Scope) -> None:
        # custom_op.parameter_map["key"].i / .s = ...
        if (isinstance(target.value, ast.Subscript) and isinstance(target.value.value, ast.Attribute)
                and target.value.value.attr == "parameter_map"):
            key = self.binding(target.value.slice, scope)
            if isinstance(key, str):
                self.out.fields.append(FieldAssignment("parameter_map", (key, target.attr), self.value(value, scope)))
            return
        path = self.options_path(target, scope)
        if path is not None:
            self.out.fields.append(FieldAssignment("global_options", path, self.value(value, scope)))

    def env(self, name: str, value: ast.expr, how: str, scope: _Scope, line: int, node: ast.AST) -> None:
        bound = self.binding(value, scope)
        v = self.value(value, scope)
        reads, default, empty_too = None, None, False
        if isinstance(bound, _EnvRead):
            reads, default, empty_too = bound.variable, bound.default, bound.empty_too
        elif how == "setdefault":
            reads, default = name, v.value
        assignment = EnvAssignment(name, v.value, line, how, v.expression, self.source, reads, default, empty_too)
        self.out.env.append(assignment)
        self.env_events.setdefault(id(node), []).append(assignment)

    def env_name_unknown(self, line: int, node: ast.AST) -> None:
        """os.environ changed under a name only the run knows."""
        self.out.env_unknown.append((line, self.expression(node)))

    def env_unset(self, name: str, line: int, node: ast.AST) -> None:
        """`del os.environ[NAME]`, `os.environ.pop(NAME)`, `os.unsetenv(NAME)`: for the run only."""
        self.env_events.setdefault(id(node), []).append(
            EnvAssignment(name, None, line, "unset", "", self.source))

    # -- calls inside expressions -----------------------------------------------------------

    def expressions(self, nodes: Iterable[ast.expr], scope: _Scope) -> None:
        """Record the calls and dict displays inside `nodes`, outermost first."""
        for root in nodes:
            for node in _walk_in_order(root):
                if isinstance(node, ast.Call):
                    self.call(node, scope)
                elif isinstance(node, ast.Dict) and id(node) not in self.environ_dicts:
                    for key, value in zip(node.keys, node.values, strict=True):
                        name = self.binding(key, scope) if key is not None else None
                        if isinstance(name, str):
                            self.out.mappings.append(MappingEntry(name, self.value(value, scope)))
                elif isinstance(node, ast.NamedExpr):
                    self.bind(node.target.id, self.binding(node.value, scope), scope)

    def call(self, node: ast.Call, scope: _Scope) -> None:
        func = node.func
        last = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if last in ("MemoryConfig", "NPURunConfig"):
            keywords = tuple((kw.arg, self.value(kw.value, scope) if kw.arg is not None
                              else ScriptValue(UNKNOWN, getattr(kw, "lineno", node.lineno), self.expression(kw.value)))
                             for kw in node.keywords)
            self.out.calls.append(KeywordCall(last, node.lineno, keywords, len(node.args)))
            return
        if isinstance(func, ast.Attribute) and _is_environ(func.value):
            if last == "setdefault" and len(node.args) == 2:
                name = self.binding(node.args[0], scope)
                if isinstance(name, str):
                    self.env(name, node.args[1], "setdefault", scope, node.lineno, node)
                else:
                    self.env_name_unknown(node.lineno, node.args[0])
            elif last == "update" and len(node.args) == 1 and not node.keywords:
                self.environ_update(node.args[0], scope, node)
            elif last == "update" and not node.args:
                for kw in node.keywords:
                    if kw.arg is not None:
                        self.env(kw.arg, kw.value, "update", scope, node.lineno, node)
            elif last == "pop" and node.args:
                name = self.binding(node.args[0], scope)
                if isinstance(name, str):
                    self.env_unset(name, node.lineno, node)
            return
        if last == "putenv" and len(node.args) == 2:
            name = self.binding(node.args[0], scope)
            if isinstance(name, str):
                self.env(name, node.args[1], "putenv", scope, node.lineno, node)
            else:
                self.env_name_unknown(node.lineno, node.args[0])
            return
        if last == "unsetenv" and len(node.args) == 1:
            name = self.binding(node.args[0], scope)
            if isinstance(name, str):
                self.env_unset(name, node.lineno, node)
            return
        qualname = self.qualname(func, scope) if isinstance(func, (ast.Name, ast.Attribute)) else None
        if qualname in _SET_OPTION:
            self.set_option(node, qualname, scope)
            return
        if isinstance(func, ast.Attribute) and last in ("update", "setdefault", "pop", "clear", "popitem"):
            tracked = self.binding(func.value, scope)
            if isinstance(tracked, _TrackedDict):
                self.dict_method(tracked, last, node, scope)

    def environ_update(self, arg: ast.expr, scope: _Scope, call: ast.Call) -> None:
        if isinstance(arg, ast.Dict):
            self.environ_dicts.add(id(arg))
            for key, value in zip(arg.keys, arg.values, strict=True):
                name = self.binding(key, scope) if key is not None else None
                if isinstance(name, str):
                    self.env(name, value, "update", scope, key.lineno if key is not None else arg.lineno, call)
                else:
                    self.env_name_unknown(key.lineno if key is not None else arg.lineno, key or value)
            return
        tracked = self.binding(arg, scope)
        if isinstance(tracked, _TrackedDict):
            for name, v in tracked.entries.items():
                assignment = EnvAssignment(name, v.value, arg.lineno, "update", v.expression, self.source)
                self.out.env.append(assignment)
                self.env_events.setdefault(id(call), []).append(assignment)
        if not isinstance(tracked, _TrackedDict) or not tracked.complete:
            self.env_name_unknown(arg.lineno, arg)

    def dict_method(self, tracked: _TrackedDict, method: str, node: ast.Call, scope: _Scope) -> None:
        args = node.args
        if method == "update":
            for arg in args:
                other = self.binding(arg, scope)
                if isinstance(other, _TrackedDict):
                    tracked.entries.update(other.entries)
                    tracked.complete = tracked.complete and other.complete
                else:
                    tracked.complete = False
            for kw in node.keywords:
                if kw.arg is None:
                    tracked.complete = False
                else:
                    tracked.entries[kw.arg] = self.value(kw.value, scope)
        elif method == "setdefault" and args:
            key = self.binding(args[0], scope)
            if isinstance(key, str):
                if key not in tracked.entries:
                    default = self.value(args[1], scope) if len(args) > 1 else ScriptValue(None, node.lineno)
                    tracked.entries[key] = default
            else:
                tracked.complete = False
        elif method == "pop" and args:
            key = self.binding(args[0], scope)
            if isinstance(key, str):
                tracked.entries.pop(key, None)
            else:
                tracked.complete = False
        elif method == "clear":
            tracked.entries.clear()
            tracked.complete = True
        else:
            tracked.complete = False

    def set_option(self, node: ast.Call, qualname: str, scope: _Scope) -> None:
        if len(node.args) == 1 and not node.keywords:
            arg = node.args[0]
            tracked = self.binding(arg, scope)
            if isinstance(tracked, _TrackedDict):
                self.out.set_options.append(OptionCall(qualname, node.lineno, dict(tracked.entries),
                                                       tracked.complete, self.expression(arg), self.source))
                return
        self.out.set_options.append(OptionCall(qualname, node.lineno, {}, False, self.expression(node), self.source))


# ---------------------------------------------------------------------------------------------
# The environment the script leaves: its statements in the order they run
# ---------------------------------------------------------------------------------------------

# How deep calls of the script's own functions are followed (a recursive function), and how many
# statements one run walks at most (a function called from many places is walked at each).
_MAX_CALL_DEPTH = 8
_MAX_RUN_STATEMENTS = 200_000
# A conditional with more ways through than this is shown as one run-time value.
_MAX_WAYS = 16
# Calls that end the program: an arm that makes one is not a way the job goes on.
_EXITS = frozenset({"sys.exit", "exit", "quit", "os._exit", "os.abort", "_exit"})


@dataclass(frozen=True)
class EnvState:
    """One variable as the script leaves the environment (docs/cann/launch-scripts.md#python-scripts).

    - plain: `value` a literal (normally a str), `inherited` None, no `branches`;
    - default-if-unset (`os.environ.setdefault(X, d)`, `os.environ[X] = os.environ.get(X, d)`,
      `os.getenv(X, d)`, `os.environ.get(X) or d`): `value` is d and `inherited` is the variable
      whose value in the launching environment replaces it (`empty_too`: also when it is empty);
    - run time: `value` UNKNOWN with the `expression`; conditional (set on some ways through
      only, or differently): `branches`, (condition, the state on that way or None: the script
      does not set it there), and `expression` says them all ("v1 when COND; v2 otherwise");
    - `how` "unset": the script removes the variable (`value` None).
    """

    name: str
    value: Any
    line: int
    file: str
    how: str
    expression: str = ""
    inherited: str | None = None
    empty_too: bool = False
    branches: tuple[tuple[str, EnvState | None], ...] = ()
    ways: int = 0  # a run-time value that stands for this many ways through (past _MAX_WAYS)

    @property
    def known(self) -> bool:
        return self.value is not UNKNOWN

    @property
    def unset(self) -> bool:
        return self.how == "unset" and not self.branches

    def shown(self) -> str:
        """The value as the report says it: the literal, the expression, or each way's value."""
        if self.branches:
            from cann_config.app.io.envbranches import describe_branches  # not paid by scripts without branches

            return describe_branches((label, _shown_way(state)) for label, state in self.branches)
        if self.unset:
            return "unset"
        return self.expression if not self.known else str(self.value)

    def with_expression(self) -> EnvState:
        """A conditional state with its branches spelled out as its expression."""
        return replace(self, expression=self.shown())

    def key(self) -> tuple[Any, ...]:
        """What the state says, without where it was said (two ways through that leave the
        same key leave the variable the same)."""
        return (self.value if self.known else None, self.unset, self.inherited, self.empty_too,
                "" if self.known or self.branches else self.expression,
                tuple((label, state.key() if state is not None else None) for label, state in self.branches))


def _shown_way(state: EnvState | None) -> str | None:
    """One way's value in a conditional."""
    if state is None:
        return None
    shown = state.shown()
    if not state.inherited:
        return shown
    from cann_config.app.io.envbranches import unless_inherited

    return unless_inherited(shown, state.inherited)


class _DeadEnd(Exception):
    """The program stops on this way through (`raise`, `sys.exit()`)."""


class _Return(Exception):
    """A `return`: the rest of the function does not run on this way through."""


class _LoopExit(Exception):
    """A `break` / `continue`: the rest of the loop body does not run on this way through."""


def _terminates(statements: list[ast.stmt]) -> bool:
    """The block always leaves the code that follows it (its last statement returns, raises,
    exits, breaks or continues)."""
    if not statements:
        return False
    last = statements[-1]
    return isinstance(last, (ast.Return, ast.Raise, ast.Break, ast.Continue)) or _exit_call(last)


def _exit_call(statement: ast.stmt) -> bool:
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    func = statement.value.func
    name = func.id if isinstance(func, ast.Name) else (
        f"{func.value.id}.{func.attr}" if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else "")
    return name in _EXITS


class _EnvRun:
    """Walks the script as it runs as a program (`python script.py`) and keeps what each
    statement leaves in os.environ, one rule per method:

    - straight-line statements, an `if __name__ == "__main__":` block and a `with` body: plain;
    - a call of one of the script's own functions (by its name): its body runs there, so what a
      function called under the `__main__` block sets is plain;
    - `if`/`elif`/`else`, loops, `try`/`except`, `match`, `a and b`, `x if c else y`,
      comprehensions: each way through from the same start; a variable they leave different is
      conditional ("v1 when COND; v2 otherwise"); an `if` whose test is a constant takes its arm;
    - a way through that raises or exits is not one the job goes on (`if not ok: sys.exit(1)`
      leaves the rest plain); one that returns ends its function there;
    - setdefault and a value read back from the environment with a default: default-if-unset;
    - a function nothing calls by name (a method, a callback): conditional, "when f() is called".
    """

    def __init__(self, reader: ScriptReader):
        self.reader = reader
        self.state: dict[str, EnvState] = {}
        self.applied: list[EnvState] = []
        self.level = 0  # run-time branches entered
        self.entered: set[int] = set()
        self.calling: list[int] = []
        self.defined_in: dict[int, dict[str, ast.AST]] = {}
        self.names: dict[int, str] = {}
        self.statements = 0
        self._touches: dict[int, bool] = {}
        self.all_functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        self.named: dict[str, list[ast.AST]] = {}
        self.interesting: set[int] = set()

    # -- the program --------------------------------------------------------------------------

    def run(self, tree: ast.Module) -> None:
        # One pass over the tree: the functions, the names called, and each call's parents.
        called: set[str] = set()  # the names the script's calls (and runners) call
        parent: dict[int, ast.AST] = {}
        calls: list[tuple[ast.Call, str]] = []
        stack: list[ast.AST] = [tree]
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.all_functions.append(node)
                self.named.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.Call):
                name = node.func.id if isinstance(node.func, ast.Name) else _runner_target(node)
                if name is not None:
                    called.add(name)
                    calls.append((node, name))
            for child in ast.iter_child_nodes(node):
                parent[id(child)] = node
                stack.append(child)
        self.all_functions.sort(key=lambda fn: fn.lineno)
        # The nodes worth walking: those that hold a change of os.environ or a call of one of
        # the script's functions (most expressions hold neither).
        hits = [id(call) for call, name in calls if name in self.named]
        hits += list(self.reader.env_events)
        for hit in hits:
            node_id: int | None = hit
            while node_id is not None and node_id not in self.interesting:
                self.interesting.add(node_id)
                up = parent.get(node_id)
                node_id = id(up) if up is not None else None
        module: dict[str, ast.AST] = {}
        try:
            self.block(tree.body, module)
        except (_DeadEnd, _Return, _LoopExit):
            pass
        # A function no statement calls by its name may still be called (a method, a signal
        # handler, a thread's target): what it sets holds only when it is. Those no function of
        # the script calls come first: a helper they call is then read inside them.
        for _ in range(len(self.all_functions)):
            waiting = sorted((fn for fn in self.all_functions if id(fn) not in self.entered and self.touches(fn)),
                             key=lambda fn: (fn.name in called, fn.lineno))
            if not waiting:
                break
            if not self.names:
                self.name_functions(tree.body, "")
            for fn in waiting:
                if id(fn) in self.entered:
                    continue
                scope = self.defined_in.get(id(fn), module)
                label = f"{self.names.get(id(fn), fn.name)}() is called"
                self.branches([(label, lambda fn=fn, scope=scope: self.call_body(fn, scope)), ("otherwise", _nothing)])

    def name_functions(self, body: list[ast.stmt], prefix: str) -> None:
        for node in _own_nodes(body):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qualified = f"{prefix}{node.name}"
                if not isinstance(node, ast.ClassDef):
                    self.names[id(node)] = qualified
                self.name_functions(node.body, qualified + ".")

    def touches(self, fn: ast.AST) -> bool:
        """Whether running `fn` can change os.environ (its own statements, or a function it calls
        by name)."""
        key = id(fn)
        if key in self._touches:
            return self._touches[key]
        self._touches[key] = False  # a recursive call adds nothing
        events = self.reader.env_events
        result = False
        called: set[str] = set()
        for node in ast.walk(fn):
            if id(node) in events:
                result = True
                break
            if isinstance(node, ast.Call):
                name = node.func.id if isinstance(node.func, ast.Name) else _runner_target(node)
                if name is not None:
                    called.add(name)
        if not result and called:
            result = any(self.touches(other) for other in self.by_name(called))
        self._touches[key] = result
        return result

    def by_name(self, names: set[str]) -> list[ast.AST]:
        return [fn for name in names for fn in self.named.get(name, ())]

    # -- the environment ------------------------------------------------------------------------

    def put(self, state: EnvState) -> None:
        self.state[state.name] = state
        if self.level == 0:
            self.applied.append(state)

    def apply(self, a: EnvAssignment) -> None:
        """One change of os.environ, with what the script has set so far."""
        if a.how == "unset":
            self.put(EnvState(a.name, None, a.line, a.file, "unset"))
        elif a.reads is not None:
            # setdefault (reads the variable itself), or a value read back with a default
            self.put(_read_back(a, self.state.get(a.reads)))
        else:
            self.put(EnvState(a.name, a.value, a.line, a.file, a.how, a.expression))

    def branches(self, arms: list[tuple[str, Any]]) -> None:
        """Run each arm from the same start; a variable the arms leave different is conditional.
        An arm that ends the program is left out; when every arm does, so does the statement."""
        start = dict(self.state)
        results: list[tuple[str, dict[str, EnvState]]] = []
        stopped: BaseException | None = None
        self.level += 1
        try:
            for label, run in arms:
                self.state = dict(start)
                try:
                    run()
                except _DeadEnd as exc:
                    stopped = exc
                    continue
                except (_Return, _LoopExit):
                    pass
                results.append((label, self.state))
        finally:
            self.level -= 1
        if not results:
            self.state = start
            raise stopped or _DeadEnd()
        merged = dict(start)
        names: list[str] = []
        for _, state in results:
            names += [n for n, s in state.items() if start.get(n) is not s and n not in names]
        for name in names:
            outcomes = [(label, state.get(name)) for label, state in results]
            merged[name] = _merge_states(name, outcomes)
        self.state = merged
        if self.level == 0:
            self.applied += [merged[name] for name in names]

    # -- statements ------------------------------------------------------------------------------

    def block(self, statements: list[ast.stmt], scope: dict[str, ast.AST]) -> None:
        for index, node in enumerate(statements):
            self.statements += 1
            if isinstance(node, ast.If) and self.reader.constant_tests.get(id(node)) is None \
                    and not _is_main_guard(node.test):
                rest = statements[index + 1:]
                if rest and _terminates(node.body) != _terminates(node.orelse):
                    # `if c: return` then the rest: the rest runs only on the other way through
                    self.if_statement(node, scope, rest)
                    return
            self.statement(node, scope)

    def statement(self, node: ast.stmt, scope: dict[str, ast.AST]) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.expressions(node.decorator_list + node.args.defaults
                             + [d for d in node.args.kw_defaults if d is not None], scope)
            scope[node.name] = node
            self.defined_in[id(node)] = scope
        elif isinstance(node, ast.ClassDef):
            self.expressions(node.decorator_list + node.bases + [k.value for k in node.keywords], scope)
            for inner in node.body:  # the class body runs now; its methods are not names here
                if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.expressions(inner.decorator_list, scope)
                    self.defined_in[id(inner)] = scope
                else:
                    self.statement(inner, dict(scope))
        elif isinstance(node, ast.If):
            self.if_statement(node, scope, [])
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            self.loop(node, scope)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            self.expressions([item.context_expr for item in node.items], scope)
            self.block(node.body, scope)
        elif isinstance(node, _TRY_NODES):
            self.try_statement(node, scope)
        elif isinstance(node, ast.Match):
            self.match_statement(node, scope)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            if node.value is not None:
                self.expressions([node.value], scope)
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                self.events(target)
                self.expressions([c for c in ast.iter_child_nodes(target) if isinstance(c, ast.expr)], scope)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                self.events(target)
        elif isinstance(node, ast.Return):
            if node.value is not None:
                self.expressions([node.value], scope)
            raise _Return()
        elif isinstance(node, ast.Raise):
            raise _DeadEnd()
        elif isinstance(node, (ast.Break, ast.Continue)):
            raise _LoopExit()
        else:
            self.expressions([c for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)], scope)
            if _exit_call(node):
                raise _DeadEnd()

    def if_statement(self, node: ast.If, scope: dict[str, ast.AST], rest: list[ast.stmt]) -> None:
        self.expressions([node.test], scope)
        if _is_main_guard(node.test):
            # run as a program: the block runs, its `else` never does
            self.block(node.body, scope)
            return
        constant = self.reader.constant_tests.get(id(node))
        if constant is not None:
            self.block(node.body if constant else node.orelse, scope)
            return
        guard = _unset_guard(node.test)
        if guard is not None and not node.orelse and not rest and self.unset_guard(node, guard, scope):
            return
        arms: list[tuple[str, Any]] = []
        current: ast.If | None = node
        while current is not None:
            body = current.body + (rest if not _terminates(current.body) else [])
            arms.append((self.reader.expression(current.test), lambda b=body: self.block(b, scope)))
            orelse = current.orelse
            if len(orelse) == 1 and isinstance(orelse[0], ast.If) and not rest \
                    and self.reader.constant_tests.get(id(orelse[0])) is None:
                current = orelse[0]
                self.expressions([current.test], scope)
                continue
            tail = orelse + (rest if not _terminates(orelse) else [])
            arms.append(("otherwise", lambda b=tail: self.block(b, scope)))
            current = None
        self.branches(arms)

    def unset_guard(self, node: ast.If, guard: tuple[str, bool], scope: dict[str, ast.AST]) -> bool:
        """`if "X" not in os.environ: os.environ["X"] = d` (also `os.environ.get("X") is None`,
        `not os.getenv("X")`: `empty_too`), the twin of `: ${X=d}` / `${X:=d}`: a default-if-unset
        of X. When the script itself has set or removed X, it decides the test. True when the
        statement is so read; False leaves it to the run-time branches."""
        variable, empty_too = guard
        before = self.state.get(variable)
        only = node.body[0] if len(node.body) == 1 else None
        if isinstance(only, ast.Assign) and len(only.targets) == 1:
            events = self.reader.env_events.get(id(only.targets[0]), [])
            if len(events) == 1 and events[0].name == variable and events[0].known and events[0].reads is None:
                # exactly os.environ.setdefault(X, d) (with empty_too, `${X:=d}`), over whatever the
                # script has left in X on each way through
                a = events[0]
                self.put(_read_back(EnvAssignment(variable, a.value, a.line, "setdefault", a.expression, a.file,
                                                  variable, a.value, empty_too), before))
                return True
        if before is not None and before.unset:
            self.block(node.body, scope)  # removed by the script: the test holds
            return True
        if before is not None and before.known and not before.branches:
            if before.value != "" or not empty_too:
                return True  # set by the script (or kept by its setdefault): the body never runs
            if not before.inherited:
                self.block(node.body, scope)  # set empty by the script: `not get(X)` holds
                return True
            # an empty default-if-unset: the launching X when it is not empty, else the body's
        elif before is not None:
            return False  # a run-time value: left to the branches
        label = self.reader.expression(node.test)
        self.branches([(label, lambda: self.block(node.body, scope)), ("otherwise", _nothing)])
        after = self.state.get(variable)
        if after is None or len(after.branches) != 2 or after.branches[1] != ("otherwise", before):
            return True
        way = after.branches[0][1]
        if way is None or not way.known or way.branches or way.unset or way.inherited:
            return True
        inherited = before.inherited if before is not None and before.inherited else variable
        state = EnvState(variable, way.value, way.line, way.file, way.how, way.expression, inherited, empty_too)
        self.state[variable] = state
        if self.level == 0:
            index = max(i for i, applied in enumerate(self.applied) if applied.name == variable)
            self.applied[index] = state
        return True

    def loop(self, node: ast.For | ast.AsyncFor | ast.While, scope: dict[str, ast.AST]) -> None:
        if isinstance(node, ast.While):
            self.expressions([node.test], scope)
            test = node.test
            if isinstance(test, ast.Constant) and test.value:
                # `while True:` runs its body (up to a break) at least once
                self.loop_body(node.body, scope)
                return
            label = f"while {self.reader.expression(test)} runs"
        else:
            self.expressions([node.iter], scope)
            if id(node) in self.reader.unrolled:
                # over keys the reader sees (at least one): the body runs, once per key
                self.block(node.body, scope)
                return
            label = f"for {self.reader.expression(node.target)} in {self.reader.expression(node.iter)} runs"
        self.branches([(label, lambda: self.loop_body(node.body, scope)), ("the loop does not run", _nothing)])
        if node.orelse:
            self.block(node.orelse, scope)

    def loop_body(self, body: list[ast.stmt], scope: dict[str, ast.AST]) -> None:
        try:
            self.block(body, scope)
        except _LoopExit:
            pass

    def try_statement(self, node: _TryNode, scope: dict[str, ast.AST]) -> None:
        arms: list[tuple[str, Any]] = []
        try:
            self.block(node.body, scope)
            arms.append(("no exception", lambda: self.block(node.orelse, scope)))
        except _DeadEnd:
            pass  # the body raises: a handler (or nothing) goes on
        for handler in node.handlers:
            kind = self.reader.expression(handler.type) if handler.type is not None else "any exception"
            arms.append((f"{kind} is raised", lambda h=handler: self.block(h.body, scope)))
        if arms:
            self.branches(arms)
        self.block(node.finalbody, scope)

    def match_statement(self, node: ast.Match, scope: dict[str, ast.AST]) -> None:
        self.expressions([node.subject], scope)
        subject = self.reader.expression(node.subject)
        arms: list[tuple[str, Any]] = []
        catch_all = False
        for case in node.cases:
            pattern = self.reader.expression(case.pattern)
            arms.append((f"{subject} matches {pattern}", lambda c=case: self.block(c.body, scope)))
            if isinstance(case.pattern, ast.MatchAs) and case.pattern.pattern is None and case.guard is None:
                catch_all = True
        if not catch_all:
            arms.append(("no case matches", _nothing))
        self.branches(arms)

    # -- expressions -----------------------------------------------------------------------------

    def events(self, node: ast.AST) -> None:
        for assignment in self.reader.env_events.get(id(node), ()):
            self.apply(assignment)

    def expressions(self, nodes: Iterable[ast.AST], scope: dict[str, ast.AST]) -> None:
        for node in nodes:
            if self.matters(node, scope):
                self.expression(node, scope, 0)

    def matters(self, root: ast.AST, scope: dict[str, ast.AST]) -> bool:
        """Whether `root` may change os.environ or call one of the script's functions (most
        expressions do neither, and are not walked)."""
        return id(root) in self.interesting

    def expression(self, node: ast.AST, scope: dict[str, ast.AST], depth: int) -> None:
        """The environment changes and the script's own calls in `node`, in evaluation order; the
        parts that run only sometimes (after `and`/`or`, the arms of `x if c else y`, the body of
        a comprehension) as branches. Past _MAX_DEPTH levels the rest is taken in order, as if
        it all ran (Python's own stack stays far away)."""
        if isinstance(node, ast.Lambda):
            return  # its body runs when it is called
        if depth > _MAX_DEPTH:
            for inner in reversed(list(_walk_in_order(node))):
                self.call_site(inner, scope)
            return
        deeper = depth + 1
        if isinstance(node, ast.BoolOp):
            self.expression(node.values[0], scope, deeper)
            word = "true" if isinstance(node.op, ast.And) else "false"
            for previous, value in zip(node.values, node.values[1:], strict=False):
                label = f"{self.reader.expression(previous)} is {word}"
                self.branches([(label, lambda v=value: self.expression(v, scope, deeper)), ("otherwise", _nothing)])
            return
        if isinstance(node, ast.IfExp):
            self.expression(node.test, scope, deeper)
            self.branches([(self.reader.expression(node.test), lambda: self.expression(node.body, scope, deeper)),
                           ("otherwise", lambda: self.expression(node.orelse, scope, deeper))])
            return
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            first = node.generators[0]
            self.expression(first.iter, scope, deeper)
            parts: list[ast.AST] = [*first.ifs, *node.generators[1:]]
            parts += [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            label = f"for {self.reader.expression(first.target)} in {self.reader.expression(first.iter)} runs"
            self.branches([(label, lambda: self.each(parts, scope, deeper)), ("the loop does not run", _nothing)])
            return
        for child in ast.iter_child_nodes(node):
            if id(child) in self.interesting:
                self.expression(child, scope, deeper)
        self.call_site(node, scope)

    def each(self, nodes: list[ast.AST], scope: dict[str, ast.AST], depth: int) -> None:
        for node in nodes:
            self.expression(node, scope, depth)

    def call_site(self, node: ast.AST, scope: dict[str, ast.AST]) -> None:
        """What a call does once its arguments are evaluated: its change of os.environ, or the
        body of the script's function it calls."""
        if isinstance(node, ast.Call):
            self.events(node)
            name = node.func.id if isinstance(node.func, ast.Name) else _runner_target(node)
            fn = scope.get(name) if name is not None else None
            if fn is not None:
                self.call(fn, scope)

    def call(self, fn: ast.AST, scope: dict[str, ast.AST]) -> None:
        """A call of the script's own function: its body runs here."""
        if id(fn) in self.calling or len(self.calling) >= _MAX_CALL_DEPTH or self.statements > _MAX_RUN_STATEMENTS:
            return
        self.entered.add(id(fn))
        if not self.touches(fn):
            return
        self.call_body(fn, self.defined_in.get(id(fn), scope))

    def call_body(self, fn: ast.AST, scope: dict[str, ast.AST]) -> None:
        self.entered.add(id(fn))
        self.calling.append(id(fn))
        try:
            self.block(fn.body, dict(scope))  # type: ignore[attr-defined]
        except _Return:
            pass
        finally:
            self.calling.pop()


# Library calls that call a function of the script (a runner): the dotted name's ending, and the
# name of the function they call when no argument names it. tf.app.run() and absl's app.run()
# call `main` (of the script run); torch.multiprocessing.spawn, fire.Fire and the runners take it
# as their first argument.
_RUNNERS = {"app.run": "main", "spawn": None, "start_processes": None, "Fire": None}


def _runner_target(call: ast.Call) -> str | None:
    """The name of the script's function a runner call calls (`tf.app.run(main)`,
    `mp.spawn(worker, ...)`), or None."""
    func = call.func
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    dotted = ".".join(reversed(parts))
    for ending, default in _RUNNERS.items():
        if dotted == ending or dotted.endswith("." + ending):
            given = next((kw.value for kw in call.keywords if kw.arg in ("main", "fn", "component")), None)
            if given is None and call.args:
                given = call.args[0]
            if isinstance(given, ast.Name):
                return given.id
            return default if given is None else None
    return None


def _unset_guard(test: ast.expr) -> tuple[str, bool] | None:
    """(X, empty_too) for a test that holds when the environment has no X: `"X" not in
    os.environ`, `os.environ.get("X") is None`, `os.getenv("X") is None`; `not os.environ.get("X")`
    and `not os.getenv("X")` also when X is empty (empty_too)."""
    def read_of(node: ast.expr) -> str | None:
        if (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            func = node.func
            if (isinstance(func, ast.Attribute) and func.attr == "get" and _is_environ(func.value)) or (
                    isinstance(func, ast.Attribute) and func.attr == "getenv" and isinstance(func.value, ast.Name)
                    and func.value.id == "os") or (isinstance(func, ast.Name) and func.id == "getenv"):
                return node.args[0].value
        return None

    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        variable = read_of(test.operand)
        if variable is not None:
            return variable, True
        inner = test.operand
        if (isinstance(inner, ast.Compare) and len(inner.ops) == 1 and isinstance(inner.ops[0], ast.In)
                and isinstance(inner.left, ast.Constant) and isinstance(inner.left.value, str)
                and _is_environ(inner.comparators[0])):
            return inner.left.value, False
        return None
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op, right = test.ops[0], test.comparators[0]
        if (isinstance(op, ast.NotIn) and isinstance(test.left, ast.Constant) and isinstance(test.left.value, str)
                and _is_environ(right)):
            return test.left.value, False
        if isinstance(op, (ast.Is, ast.Eq)) and isinstance(right, ast.Constant) and right.value is None:
            variable = read_of(test.left)
            if variable is not None:
                return variable, False
    return None


def _nothing() -> None:
    """An arm that does nothing (the `if` without `else`, a loop that does not run)."""


def _read_back(a: EnvAssignment, source: EnvState | None) -> EnvState:
    """The state `a` leaves when the variable it reads (`a.reads`) is in `source` (None: the
    script has not set it). setdefault keeps what is there; a read with a default copies it."""
    if source is not None and source.branches:
        ways = tuple((label, _read_back(a, way)) for label, way in source.branches)
        return EnvState(a.name, UNKNOWN, a.line, a.file, a.how, "", None, False, ways).with_expression()
    literal = a.default is not None and a.default is not UNKNOWN
    if source is None:
        if not literal:  # no default (`os.environ["X"]`) or one only the run knows
            return EnvState(a.name, UNKNOWN, a.line, a.file, a.how, a.expression)
        return EnvState(a.name, a.default, a.line, a.file, a.how, a.expression, a.reads, a.empty_too)
    if source.unset or (a.empty_too and source.known and source.value == "" and not source.inherited):
        if not literal:
            return EnvState(a.name, UNKNOWN, a.line, a.file, a.how, a.expression)
        return EnvState(a.name, a.default, a.line, a.file, a.how, a.expression)
    if a.empty_too and source.inherited and source.value == "":
        # `get(X) or d` of an empty default-if-unset: the launching X when it is not empty, else d
        if not literal:
            return EnvState(a.name, UNKNOWN, a.line, a.file, a.how, a.expression)
        return EnvState(a.name, a.default, a.line, a.file, a.how, a.expression, source.inherited, True)
    if a.how == "setdefault":
        return source  # setdefault keeps the value the script set
    return EnvState(a.name, source.value, a.line, a.file, a.how, source.expression or a.expression,
                    source.inherited, source.empty_too)


def _merge_states(name: str, outcomes: list[tuple[str, EnvState | None]]) -> EnvState:
    """One variable after a run-time branch: plain when every way through leaves it the same."""
    states = [s for _, s in outcomes if s is not None]
    last = max(states, key=lambda s: s.line)
    if len(states) == len(outcomes) and all(s.key() == states[0].key() for s in states):
        return last
    ways: list[tuple[str, EnvState | None]] = []
    for label, state in outcomes:
        if state is not None and state.branches:
            ways += [(f"{label}, {inner}", way) for inner, way in state.branches]
        else:
            ways.append((label, state))
    how = "assign" if last.how == "unset" else last.how
    count = sum(state.ways if state is not None and state.ways else 1 for _, state in ways)
    if count > _MAX_WAYS:
        # past a reader's patience (and a cost that grows with each branch): one run-time value
        return EnvState(name, UNKNOWN, last.line, last.file, how,
                        f"one of {count} ways through run-time branches, the last at line {last.line}", ways=count)
    return EnvState(name, UNKNOWN, last.line, last.file, how, "", None, False, tuple(ways)).with_expression()


def _walk_in_order(root: ast.AST) -> Iterator[ast.AST]:
    """The nodes of an expression, parents before children, left to right."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.Lambda):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _is_environ(node: ast.expr) -> bool:
    """`os.environ` or a bare `environ` (from os import environ)."""
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id == "environ")


def _is_main_guard(test: ast.expr) -> bool:
    """`__name__ == "__main__"` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    consts = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(consts) == 1


def read_script(tree: ast.Module, text: str, source: str) -> ScriptReading:
    """What a careful reader sees the script set (see the module docstring); never runs it."""
    return ScriptReader(text, source).read(tree)


__all__ = ["UNKNOWN", "EnvAssignment", "EnvState", "ScriptReader", "FieldAssignment", "KeywordCall", "MappingEntry", "OptionCall",
           "ScriptReading", "ScriptValue", "read_script"]
