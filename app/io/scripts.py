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
from dataclasses import dataclass, field
from typing import Any

# `try ... except*` (ast.TryStar) exists from Python 3.11; the project runs on 3.10 too.
if sys.version_info >= (3, 11):
    _TryNode = ast.Try | ast.TryStar
    _TRY_NODES: tuple[type[ast.stmt], ...] = (ast.Try, ast.TryStar)
else:  # pragma: no cover
    _TryNode = ast.Try
    _TRY_NODES = (ast.Try,)


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


# ---------------------------------------------------------------------------------------------
# What a name can be bound to
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _ModuleRef:
    """A module or an object reached from one by name (`import torch_npu as tnpu`)."""

    dotted: str


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


class _Reader:
    def __init__(self, text: str, source: str):
        self.lines = text.splitlines(keepends=True) if text else []
        self.out = ScriptReading(source)
        self.source = source
        self.environ_dicts: set[int] = set()
        self.pending: list[tuple[ast.AST, _Scope]] = []

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
        return UNKNOWN

    def value(self, node: ast.expr, scope: _Scope) -> ScriptValue:
        """A literal value for a setting, or UNKNOWN with the expression."""
        bound = self.binding(node, scope)
        if isinstance(bound, (_TrackedDict, _ModuleRef, _OptionsPath)) or bound is UNKNOWN:
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
            if isinstance(node.target, ast.Name):
                self.bind(node.target.id, UNKNOWN, scope)
            elif isinstance(node.target, ast.Subscript):
                self.forget_key(node.target, scope)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                if isinstance(target, ast.Name):
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
                self.env(key, value, "assign", scope, target.lineno)
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

    def env(self, name: str, value: ast.expr, how: str, scope: _Scope, line: int) -> None:
        v = self.value(value, scope)
        self.out.env.append(EnvAssignment(name, v.value, line, how, v.expression, self.source))

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
                    self.env(name, node.args[1], "setdefault", scope, node.lineno)
            elif last == "update" and len(node.args) == 1 and not node.keywords:
                self.environ_update(node.args[0], scope)
            elif last == "update" and not node.args:
                for kw in node.keywords:
                    if kw.arg is not None:
                        self.env(kw.arg, kw.value, "update", scope, node.lineno)
            return
        if last == "putenv" and len(node.args) == 2:
            name = self.binding(node.args[0], scope)
            if isinstance(name, str):
                self.env(name, node.args[1], "putenv", scope, node.lineno)
            return
        qualname = self.qualname(func, scope) if isinstance(func, (ast.Name, ast.Attribute)) else None
        if qualname in _SET_OPTION:
            self.set_option(node, qualname, scope)
            return
        if isinstance(func, ast.Attribute) and last in ("update", "setdefault", "pop", "clear", "popitem"):
            tracked = self.binding(func.value, scope)
            if isinstance(tracked, _TrackedDict):
                self.dict_method(tracked, last, node, scope)

    def environ_update(self, arg: ast.expr, scope: _Scope) -> None:
        if isinstance(arg, ast.Dict):
            self.environ_dicts.add(id(arg))
            for key, value in zip(arg.keys, arg.values, strict=True):
                name = self.binding(key, scope) if key is not None else None
                if isinstance(name, str):
                    self.env(name, value, "update", scope, key.lineno if key is not None else arg.lineno)
            return
        tracked = self.binding(arg, scope)
        if isinstance(tracked, _TrackedDict):
            for name, v in tracked.entries.items():
                self.out.env.append(EnvAssignment(name, v.value, arg.lineno, "update", v.expression, self.source))

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
    return _Reader(text, source).read(tree)


__all__ = ["UNKNOWN", "EnvAssignment", "FieldAssignment", "KeywordCall", "MappingEntry", "OptionCall",
           "ScriptReading", "ScriptValue", "read_script"]
