"""Reading a shell launch script the way bash runs it, without running a line of it.

Why this module exists: most PyTorch and LLM jobs on Ascend set their allocator and cache
variables in a shell launch script, and what bash does with such a script is not what a line-by-
line reader sees (docs/cann/launch-scripts.md): `${X:-d}` keeps what the launching environment
already holds, `NAME=v torchrun ...` puts NAME in the job's environment, an `export` under a
run-time `if` may never run, `source` brings in another file, `eval` and heredocs hide
assignments. So the script is parsed with bash's own grammar (tree-sitter-bash, which recovers
from a line it cannot read and goes on) and the tree is walked in the order bash runs it, one
function per rule below, each leaving a per-variable record in an app.io.envfile.EnvFile:

- straight-line assignments, `export`, `declare -x`/`typeset -x`, `readonly`, `set -a` regions;
- default-if-unset (`${X:-d}`, `${X:=d}`, `: ${X:=d}`): the default, marked `inherited` with the
  variable the launching environment may set instead;
- a command-prefix assignment onto the job's launcher (`python`, `torchrun`, `accelerate`, ...):
  the job's setting; onto any other command: a finding;
- `if`/`case`/`&&`/`||`/loops: a variable that differs between the ways through is `conditional`,
  with the value of each branch;
- `source`/`.`: the file is read when it can be found (relative names against the script's own
  directory, `$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)` included), else a finding; CANN's
  own set_env.sh is known (app.io.envfile.SET_ENV_NAMES);
- `eval`, `bash -c` strings and heredocs that mention a variable CANN reads: a finding at the line;
- a value holding `$VAR` text the file does not set, `$(...)`, `~` or `$((...))`: `runtime`.

Nothing is ever executed; a function the script defines is read where it is called.

Public API:
    read_shell(text, source, env, base) -> None     (fills `env`, an app.io.envfile.EnvFile)
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cann_config.app.errors import InputError
from cann_config.app.findings import make_finding
from cann_config.app.io.envbranches import describe_branches

if TYPE_CHECKING:  # pragma: no cover - typing only
    from tree_sitter import Node, Parser

    from cann_config.app.io.envfile import EnvFile

# Linux refuses an environment string longer than MAX_ARG_STRLEN (32 pages, 128 KiB) at exec():
# a value that grows past it can never reach CANN, so reading stops there.
MAX_EXPANDED_CHARS = 128 << 10
# How deep `source` and function calls are followed (a file that sources itself, a recursive function).
MAX_DEPTH = 8
# Lines blanked after a parse error before the reader gives up re-parsing (each costs one parse).
MAX_RECOVERIES = 200
# The commands that start the job itself: `NAME=v <launcher> ...` puts NAME in the job's environment.
LAUNCHERS = frozenset({
    "python", "python3", "torchrun", "accelerate", "deepspeed", "msrun", "mpirun", "mpiexec", "bash", "sh",
    "srun", "horovodrun", "llamafactory-cli", "swift", "vllm", "colossalai", "tune", "ray", "pytest",
    "msprof", "ascend-dmi", "mindie", "lmdeploy", "xtuner", "torch.distributed.launch", "exec",
})
# Words in front of the real command that pass the environment on to it.
WRAPPERS = frozenset({"nohup", "exec", "time", "env", "numactl", "taskset", "stdbuf", "setsid", "nice", "ionice",
                      "command", "builtin", "unbuffer", "timeout"})
# Variables whose mention in an eval string or heredoc gets a finding: what CANN and torch_npu read.
WATCHED = re.compile(r"\b((?:ASCEND|ACL|GE|HCCL)_[A-Za-z0-9_]*|PYTORCH_(?:NPU_)?ALLOC_CONF)\b")
# bash keeps a CR in a value; tree-sitter-bash reads it as a blank. It is read as this private-use
# character instead (never in a real script) and turned back into a CR in values.
_CR = "\ue00d"
# `$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)`, `$(dirname "$0")`, `$(dirname $(readlink -f $0))`: the
# script's own directory (one level up per `/..`).
_SCRIPT_DIR = re.compile(r"dirname\s+[\"']?\$\(?(?:\{BASH_SOURCE(?:\[0\])?\}|BASH_SOURCE|\{0\}|0)|"
                         r"dirname\s+[\"']?\$\((?:readlink|realpath)[^)]*(?:BASH_SOURCE|\$0|\$\{0\})")

# A variable name bash accepts in an assignment, `unset` or `${NAME...}` (not a positional or special parameter).
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

_parser: Parser | None = None

# tree-sitter-bash 0.25.1's scanner crashes the process (SIGSEGV) on some non-ASCII input, e.g.
# "{\U000771a8k\U000d6963" (found by tests/app/io/test_envfile.py's random text). The grammar is
# given a copy in which every byte >= 0x80 is "a": the same length, so node offsets still index the
# real bytes (values are always cut from those), and the same meaning to bash, for which any
# non-ASCII character is a word character like "a" (it splits words on IFS: space, tab, newline).
_ASCII_MASK = bytes(range(128)) + b"a" * 128


def _bash_parser() -> Parser:
    """One tree-sitter parser with the bash grammar, made at first use (import ~2 ms)."""
    global _parser
    if _parser is None:
        import tree_sitter
        import tree_sitter_bash

        _parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    return _parser


# ---------------------------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------------------------


class Word:
    """A word after expansion, as far as the script's text tells.

    `known` False: part of it only the running shell knows (`text` then shows it as written);
    `inherited`: the value is a default the launching environment's variable of that name replaces;
    `here`: the path on this machine the word names (the script's own directory), for `source`.
    (Plain classes, not dataclasses: `diagnose` must not import dataclasses, tests/app/cli/test_cli_basics.py.)"""

    __slots__ = ("here", "inherited", "known", "text")

    def __init__(self, text: str, known: bool = True, inherited: str | None = None, here: str | None = None):
        self.text = text
        self.known = known
        self.inherited = inherited
        self.here = here

    def __repr__(self) -> str:
        return f"Word({self.text!r}, known={self.known}, inherited={self.inherited!r})"


def _join(parts: list[Word]) -> Word:
    if len(parts) == 1:
        return parts[0]
    text = "".join(p.text for p in parts)
    known = all(p.known for p in parts)
    inherited = next((p.inherited for p in parts if p.inherited), None) if known else None
    here = None
    if any(p.here for p in parts) and all(p.known or p.here for p in parts):
        here = "".join(p.here if p.here else p.text for p in parts)
    return Word(text, known, inherited, here)


class Binding:
    """What a variable holds at a point of the script.

    `value` None: unset for sure. `branches`: set to different values on different ways through
    the script ((condition, Word or None), ...): the value is known only at run time.
    `launcher`: set in front of this launcher command (`NAME=v torchrun ...`): the job's value;
    the shell itself still holds `before` (the binding the prefix hides, None: none)."""

    __slots__ = ("before", "branches", "file", "launcher", "line", "value")

    def __init__(self, value: Word | None, line: int, file: str,
                 branches: tuple[tuple[str, Word | None], ...] = (), launcher: str | None = None,
                 before: Binding | None = None):
        self.value = value
        self.line = line
        self.file = file
        self.branches = branches
        self.launcher = launcher
        self.before = before


class _State:
    """The shell's variables, exports, `set -a` and functions at a point of the script."""

    __slots__ = ("allexport", "exported", "functions", "vars")

    def __init__(self, vars: dict[str, Binding] | None = None, exported: set[str] | None = None,
                 allexport: bool = False, functions: dict[str, Any] | None = None):
        self.vars: dict[str, Binding] = vars if vars is not None else {}
        self.exported: set[str] = exported if exported is not None else set()
        self.allexport = allexport
        self.functions: dict[str, Any] = functions if functions is not None else {}


class _Stop(Exception):
    """`exit` or `return` at the top of the file: bash reads no further."""


class _Discard(Exception):
    """A plain assignment to a readonly variable (`A=2`, `A+=x`, `${A:=x}`): bash (not in POSIX
    mode) abandons the rest of the command it is running, up to the next command at the top of
    the file (or of the sourced file, or the end of the subshell); docs/cann/launch-scripts.md#readonly."""


def _line(node: Node) -> int:
    return int(node.start_point[0]) + 1


# ---------------------------------------------------------------------------------------------
# The reader
# ---------------------------------------------------------------------------------------------


class _Reader:
    def __init__(self, env: EnvFile, base: Mapping[str, str], see_file: Callable[[Path], str | None]):
        self.env = env
        self.base = base
        self.state = _State()
        self.see_file = see_file
        self.depth = 0
        self.in_function = 0
        self.source = env.source
        self.script = env.source
        self.data = b""
        self.expanded = 0
        self.reported: set[tuple[str, int, str]] = set()
        self.first_assigned: dict[str, int] = {}
        # the variables each running function declared `local` (innermost last): bash's dynamic scope
        self.frames: list[dict[str, Binding]] = []
        # `readonly X` / `declare -r X`: bash refuses later assignments and unsets ("readonly variable")
        self.readonly: set[str] = set()

    # -- findings ---------------------------------------------------------------------------

    def finding(self, code: str, line: int, **params: Any) -> None:
        key = (code, line, self.source + repr(sorted(params.items())))
        if key in self.reported:
            return
        self.reported.add(key)
        self.env.findings.append(make_finding(code, file=self.source, line=line, **params))

    def text(self, node: Node) -> str:
        return self.data[node.start_byte:node.end_byte].decode("utf-8", "surrogateescape").replace(_CR, "\r")

    # -- files ------------------------------------------------------------------------------

    def read_text(self, text: str) -> None:
        """Parse `text` (recovering at the next line after one the grammar cannot read) and run it."""
        text = _join_continued_words(text.replace("\r", _CR))
        lines = text.split("\n")
        parser = _bash_parser()
        for _ in range(MAX_RECOVERIES):
            data = "\n".join(lines).encode("utf-8", "surrogateescape")
            tree = parser.parse(data.translate(_ASCII_MASK))
            bad = _first_error(tree.root_node)
            if bad is None:
                break
            row = min(bad, len(lines) - 1)
            self.finding("shell-unreadable-line", row + 1, text=lines[row].replace(_CR, "").strip()[:60])
            lines[row] = ""
        self.data = data
        try:
            abandoned: int | None = None  # the row a readonly assignment abandoned the line on
            for node in tree.root_node.children:
                if abandoned is not None and node.start_point[0] == abandoned:
                    abandoned = node.end_point[0]  # `B=2; export A=1`: bash abandons the whole line
                    continue
                abandoned = None
                try:
                    self.statement(node)
                except _Discard:
                    abandoned = node.end_point[0]  # the next line runs
        except _Stop:
            pass

    # -- statements -------------------------------------------------------------------------

    def block(self, nodes: list[Node]) -> None:
        for node in nodes:
            self.statement(node)

    def statement(self, node: Node) -> None:
        self.expanded = 0  # the bound is per command, as the environment string limit is per variable
        kind = node.type
        handler = _STATEMENTS.get(kind)
        if handler is not None:
            handler(self, node)

    def variable_assignments(self, node: Node) -> None:
        """`A=1 B=2` on their own: plain assignments, left to right."""
        for child in node.named_children:
            if child.type == "variable_assignment":
                self.assignment(child, export=self.state.allexport)

    def plain_assignment(self, node: Node) -> None:
        self.assignment(node, export=self.state.allexport)

    def assignment(self, node: Node, *, export: bool, launcher: str | None = None, declared: bool = False) -> None:
        """NAME=value (also `NAME+=value`): the variable holds the expanded value from here on."""
        name_node = node.child_by_field_name("name")
        if name_node is None or name_node.type != "variable_name":
            return  # an array element (`a[1]=x`): not an environment variable
        name = self.text(name_node)
        value_node = node.child_by_field_name("value")
        value = self.word(value_node) if value_node is not None else Word("")
        if value_node is not None and value_node.type == "array":
            value = Word(self.text(value_node), False)
        equals = next((c for c in node.children if c.type in ("=", "+=")), None)
        if value_node is not None and equals is not None and value_node.start_byte > equals.end_byte:
            # tree-sitter-bash leaves an escaped blank at the start of a value (`A=\\ x`) out of the word
            gap = self.data[equals.end_byte:value_node.start_byte].decode("utf-8", "surrogateescape")
            if gap.startswith("\\"):
                value = _join([Word(_unescape(gap)), value])
        if any(c.type == "+=" for c in node.children):
            old = self.lookup(name, "${" + name + "}")
            value = _join([old, value])
        self.bind(name, value, _line(node), export, launcher, declared)

    def bind(self, name: str, value: Word | None, line: int, export: bool, launcher: str | None = None,
             declared: bool = False) -> None:
        """`declared`: by a builtin (`export A=1`), which fails alone on a readonly A; a plain
        assignment to a readonly A abandons the command (_Discard); a prefix (`A=1 cmd`) lets cmd run."""
        old = self.state.vars.get(name)
        if (old is not None and old.value is not None and value is not None and not old.branches
                and old.value.text != value.text and name in self.first_assigned and self.depth == 0
                and not self.in_function):
            self.finding("cache-envfile-reassigned", line, name=name, first_line=self.first_assigned[name])
        if name in self.readonly:
            if export or self.state.allexport:
                self.state.exported.add(name)  # `export A=2` of a readonly A still exports it
            if not declared and launcher is None:
                raise _Discard()
            return  # bash: "readonly variable", the value stays
        for frame in reversed(self.frames):
            if name in frame:  # a function's local: the script's variable is not touched
                frame[name] = Binding(value, line, self.source)
                return
        if self.depth == 0:
            self.first_assigned.setdefault(name, line)
        before = self.shell(name) if launcher else None
        self.state.vars[name] = Binding(value, line, self.source, launcher=launcher, before=before)
        if export or self.state.allexport:
            self.state.exported.add(name)

    def declaration(self, node: Node) -> None:
        """`export`, `declare`/`typeset` (`-x` exports, `+x` does not), `readonly`, `local`."""
        keyword = node.children[0].type
        flags = "".join(self.text(c) for c in node.named_children if c.type == "word" and self.text(c).startswith("-"))
        unflags = "".join(self.text(c) for c in node.named_children if c.type == "word" and self.text(c).startswith("+"))
        if keyword == "local" or (keyword in ("declare", "typeset") and self.in_function and "g" not in flags):
            self.local(node)  # a function's own variable: gone when it returns
            return
        exporting = (keyword == "export" and "n" not in flags) or "x" in flags
        freezing = keyword == "readonly" or "r" in flags
        for child in node.named_children:
            if child.type == "variable_assignment":
                name_node = child.child_by_field_name("name")
                if keyword != "export" and name_node is not None and self.text(name_node) in self.readonly:
                    continue  # `declare -x A=2` of a readonly A fails whole (`export A=2` still exports)
                self.assignment(child, export=exporting, declared=True)
                if freezing and name_node is not None:
                    self.readonly.add(self.text(name_node))
            elif child.type == "variable_name" or (child.type == "word" and re.fullmatch(
                    r"[A-Za-z_][A-Za-z0-9_]*", self.text(child))):
                name = self.text(child)
                if any(name in frame for frame in self.frames):
                    continue  # `export X` of a function's local exports the local, gone when it returns
                if freezing:
                    self.readonly.add(name)
                if exporting:
                    self.state.exported.add(name)
                elif keyword == "export" or "x" in unflags:
                    self.state.exported.discard(name)
            elif child.type in ("string", "raw_string", "concatenation"):
                # `export "NAME=value"`: the builtin sees NAME=value after quote removal.
                word = self.word(child)
                match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", word.text, re.S)
                if match is not None:
                    value = Word(match.group(2), word.known, word.inherited, word.here)
                    self.bind(match.group(1), value, _line(child), exporting, declared=True)

    def local(self, node: Node) -> None:
        """`local X=v` / `local X` in a function: X is the function's own until it returns; what
        the function assigns to X meanwhile never reaches the script."""
        if not self.frames:
            return  # `local` outside a function: bash refuses it
        frame = self.frames[-1]
        for child in node.named_children:
            if child.type == "variable_assignment":
                name_node = child.child_by_field_name("name")
                value_node = child.child_by_field_name("value")
                if name_node is not None and self.text(name_node) in self.readonly:
                    continue  # `local A=9` of a readonly A: "readonly variable", no local A
                if name_node is not None and name_node.type == "variable_name":
                    value = self.word(value_node) if value_node is not None else Word("")
                    frame[self.text(name_node)] = Binding(value, _line(child), self.source)
            elif child.type in ("variable_name", "word") and _NAME.fullmatch(self.text(child)) \
                    and self.text(child) not in self.readonly:
                frame.setdefault(self.text(child), Binding(None, _line(child), self.source))

    def unset(self, node: Node) -> None:
        functions = any(self.text(c) == "-f" for c in node.named_children)
        for child in node.named_children:
            name = self.text(child)
            if name.startswith("-"):
                continue
            if functions:
                self.state.functions.pop(name, None)
                continue
            if not _NAME.fullmatch(name):
                continue  # `unset A=1`: bash says "not a valid identifier" and unsets nothing
            if name in self.readonly:
                continue  # bash: "cannot unset: readonly variable"
            frame = next((f for f in reversed(self.frames) if name in f), None)
            if frame is not None:
                frame[name] = Binding(None, _line(child), self.source)  # a local: the script's stays
                continue
            self.state.vars[name] = Binding(None, _line(child), self.source)
            self.state.exported.discard(name)

    def function_definition(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        body = node.child_by_field_name("body")
        if name is not None and body is not None:
            self.state.functions[self.text(name)] = body

    def compound(self, node: Node) -> None:
        self.block(node.named_children)

    def redirected(self, node: Node) -> None:
        """A command with redirections: heredocs are looked into; the command runs as usual."""
        for child in node.named_children:
            if child.type in ("heredoc_redirect", "herestring_redirect"):
                self.heredoc(child)
        body = node.child_by_field_name("body")
        if body is not None:
            self.statement(body)

    def heredoc(self, node: Node) -> None:
        """A heredoc or here-string that mentions a variable CANN reads: a finding (never a value)."""
        for name in sorted(set(WATCHED.findall(self.text(node)))):
            self.finding("shell-heredoc-variable", _line(node), name=name)

    def negated(self, node: Node) -> None:
        self.block(node.named_children)

    def pipeline(self, node: Node) -> None:
        """Each part of a pipeline runs in a subshell: nothing it assigns stays (bash without lastpipe)."""
        for child in node.named_children:
            self.look_into(child)

    def subshell(self, node: Node) -> None:
        for child in node.named_children:
            self.look_into(child)

    def look_into(self, node: Node) -> None:
        """Run `node` for its findings only: its assignments do not reach the script (a subshell)."""
        saved = self.state
        self.state = _State(dict(saved.vars), set(saved.exported), saved.allexport, dict(saved.functions))
        findings = len(self.env.findings)
        try:
            self.statement(node)
        except _Discard:
            pass  # a readonly assignment ends the subshell only
        finally:
            self.state = saved
        del findings

    # -- run-time branches ------------------------------------------------------------------

    def branches(self, arms: list[tuple[str, list[Node]]],
                 around: dict[int, tuple[Callable[[], None], Callable[[], None]]] | None = None) -> None:
        """Run each arm from the same start; a variable the arms leave different is conditional.
        `around[i]`: what runs before and after arm i's statements (a loop's variable)."""
        start = self.state
        results: list[tuple[str, _State]] = []
        discarded = 0
        for index, (label, nodes) in enumerate(arms):
            self.state = _State(dict(start.vars), set(start.exported), start.allexport, dict(start.functions))
            first, last = (around or {}).get(index, (lambda: None, lambda: None))
            try:
                first()
                self.block(nodes)
            except _Stop:
                pass  # an `exit` in one arm: the other arms still run on
            except _Discard:
                discarded += 1  # a readonly assignment in this arm: what it did so far stays
            else:
                last()
            results.append((label, self.state))
        merged = _State(dict(start.vars), set(start.exported), start.allexport, dict(start.functions))
        names: list[str] = []
        for _, state in results:
            names += [n for n, b in state.vars.items() if start.vars.get(n) is not b and n not in names]
            merged.exported |= state.exported
            merged.functions.update(state.functions)
            merged.allexport = merged.allexport or state.allexport
        for name in names:
            outcomes = [(label, _unlaunched(state.vars.get(name), start.vars.get(name))) for label, state in results]
            merged.vars[name] = _merge_branches(name, outcomes, start.vars.get(name), self.source)
        self.state = merged
        if discarded == len(arms):
            raise _Discard()  # every way abandons the command

    def if_statement(self, node: Node) -> None:
        arms: list[tuple[str, list[Node]]] = []
        condition: list[Node] = []
        body: list[Node] = []
        label = ""
        seen_else = False
        condition_ids = {c.id for c in node.children_by_field_name("condition")}
        for child in node.named_children:
            if child.type in ("elif_clause", "else_clause", "comment"):
                continue
            if child.id in condition_ids:
                condition.append(child)
                label = self.text(child).rstrip("; \t\n")
            else:
                body.append(child)
        for c in condition:
            self.look_into(c)
        arms.append((label, body))
        for clause in node.named_children:
            if clause.type == "elif_clause":
                # tree-sitter-bash 0.25 gives an elif no `condition` field: it is what stands before `then`
                then = next((i for i, c in enumerate(clause.children) if c.type == "then"), len(clause.children))
                cond = [c for c in clause.children[:then] if c.is_named and c.type != "comment"]
                rest = [c for c in clause.children[then:] if c.is_named and c.type != "comment"]
                for c in cond:
                    self.look_into(c)
                arms.append((" ".join(self.text(c) for c in cond).rstrip("; \t\n"), rest))
            elif clause.type == "else_clause":
                seen_else = True
                arms.append(("otherwise", [c for c in clause.named_children if c.type != "comment"]))
        if not seen_else:
            arms.append(("otherwise", []))
        self.branches(arms)

    def case_statement(self, node: Node) -> None:
        value = node.child_by_field_name("value")
        arms: list[tuple[str, list[Node]]] = []
        catch_all = False
        for item in node.named_children:
            if item.type != "case_item":
                continue
            patterns = item.children_by_field_name("value")
            ids = {p.id for p in patterns}
            body = [c for c in item.named_children if c.id not in ids and c.type != "comment"]
            label = "|".join(self.text(p) for p in patterns)
            catch_all = catch_all or label.strip() == "*"
            arms.append((f"case {self.text(value) if value is not None else ''} in {label}", body))
        if not catch_all:
            arms.append(("no case matches", []))
        self.branches(arms)

    def list_statement(self, node: Node) -> None:
        """`a && b`, `a || b`: `a` runs, `b` only when `a` succeeds (fails)."""
        parts = node.named_children
        if len(parts) != 2:
            self.block(parts)
            return
        operator = next((c.type for c in node.children if c.type in ("&&", "||")), "&&")
        first, second = parts
        self.statement(first)
        label = f"{self.text(first)} {'succeeds' if operator == '&&' else 'fails'}"
        self.branches([(label, [second]), ("otherwise", [])])

    def loop(self, node: Node) -> None:
        body = node.child_by_field_name("body")
        label = self.text(node).split("\n", 1)[0][:60]
        nodes = body.named_children if body is not None else []
        variable = node.child_by_field_name("variable") if node.type == "for_statement" else None
        if variable is None:
            self.branches([(f"{label} runs", nodes), ("the loop does not run", [])],
                          around={0: (lambda: None, lambda: self.again(nodes))})
            return
        # `for X in a b; do ...; done`: X takes each word in turn and keeps the last one
        name = self.text(variable)
        values = node.children_by_field_name("value")
        words = [self.word(v) for v in values]
        plain = all(v.type in ("word", "number", "raw_string", "string") for v in values) and not any(
            re.search(r"[*?\[{]", self.text(v)) for v in values if v.type in ("word", "number"))
        last = words[-1] if values and plain and all(w.known and w.text.split() == [w.text] for w in words) \
            else Word(f"${name}", False)
        line = _line(variable)

        def turning() -> None:  # inside the body the variable is each word in turn
            self.loop_variable(name, Word(f"${name}", False), line)

        def done() -> None:
            self.again(nodes)
            self.loop_variable(name, last, line)

        self.branches([(f"{label} runs", nodes), ("the loop does not run", [])], around={0: (turning, done)})

    def loop_variable(self, name: str, value: Word, line: int) -> None:
        self.state.vars[name] = Binding(value, line, self.source)
        if self.state.allexport:
            self.state.exported.add(name)

    def again(self, nodes: list[Node]) -> None:
        """A loop's body once more: a variable a second turn changes (`A=$A/x`) depends on how many
        turns the loop takes, known only at run time."""
        first = {name: _shown(b) for name, b in self.state.vars.items()}
        try:
            self.block(nodes)
        except _Stop:
            return
        for name, binding in list(self.state.vars.items()):
            if first.get(name) != _shown(binding):
                self.state.vars[name] = Binding(Word(f"${name}", False), binding.line, binding.file)

    # -- commands ---------------------------------------------------------------------------

    def command(self, node: Node) -> None:
        prefix = [c for c in node.named_children if c.type == "variable_assignment"]
        name_node = node.child_by_field_name("name")
        args = node.children_by_field_name("argument")
        if name_node is None:
            for assignment in prefix:
                self.assignment(assignment, export=self.state.allexport)
            return
        words = [self.word(name_node)] + [self.word(a) for a in args]
        name = words[0].text if words[0].known else ""
        line = _line(node)
        if prefix:
            self.command_prefix(prefix, words, line)
        if name in self.state.functions and self.depth < MAX_DEPTH:
            self.call_function(name)
            return
        rule = _COMMANDS.get(name)
        if rule is not None:
            rule(self, node, words, line)

    def command_prefix(self, prefix: list[Node], words: list[Word], line: int) -> None:
        """`NAME=v cmd ...`: NAME exists for that command only; when the command is the job's
        launcher, that is the job's environment (docs/cann/launch-scripts.md#command-prefix)."""
        launcher = _launcher(words)
        for assignment in prefix:
            name_node = assignment.child_by_field_name("name")
            if name_node is None:
                continue
            if launcher is not None:
                # the launched job gets it; the shell does not export it (nor keep it)
                self.assignment(assignment, export=False, launcher=launcher)
                name = self.text(name_node)
                if WATCHED.fullmatch(name):
                    self.finding("shell-launcher-prefix", _line(assignment), name=name, launcher=launcher)
            else:
                self.finding("cache-envfile-command-prefix", _line(assignment), name=self.text(name_node))

    def call_function(self, name: str) -> None:
        body = self.state.functions[name]
        self.depth += 1
        self.in_function += 1
        self.frames.append({})
        try:
            self.statement(body)
        except _Stop:
            pass  # `return` ends the function only
        finally:
            self.frames.pop()
            self.depth -= 1
            self.in_function -= 1

    def set_builtin(self, node: Node, words: list[Word], line: int) -> None:
        """`set -a` / `set -o allexport`: every later assignment is exported (`+a` ends it)."""
        texts = [w.text for w in words[1:]]
        for i, t in enumerate(texts):
            if re.fullmatch(r"-[a-zA-Z]*a[a-zA-Z]*", t) or (t == "-o" and texts[i + 1:i + 2] == ["allexport"]):
                self.state.allexport = True
            elif re.fullmatch(r"\+[a-zA-Z]*a[a-zA-Z]*", t) or (t == "+o" and texts[i + 1:i + 2] == ["allexport"]):
                self.state.allexport = False

    def source_builtin(self, node: Node, words: list[Word], line: int) -> None:
        """`source FILE` / `. FILE`: read FILE when it can be found, else say so."""
        if len(words) < 2:
            return
        target = words[1]
        path_text = target.here if target.here else (target.text if target.known else None)
        shown = target.text
        if path_text is None:
            self.finding("shell-source-unknown", line, target=shown)
            return
        found = self.locate(path_text)
        if found is None:
            code = "shell-source-set-env" if _cann_set_env(path_text) else "shell-source-missing"
            self.finding(code, line, target=shown)
            return
        if self.depth >= MAX_DEPTH:
            self.finding("shell-source-too-deep", line, target=shown)
            return
        text = self.see_file(found)
        if text is None:
            self.finding("shell-source-missing", line, target=shown)
            return
        self.finding("shell-source-read", line, target=str(found))
        saved = (self.source, self.data, self.script)
        self.depth += 1
        self.source = str(found)
        try:
            self.read_text(text)
        finally:
            self.source, self.data, self.script = saved
            self.depth -= 1

    def locate(self, path_text: str) -> Path | None:
        """The file `source` reads: absolute as given, a relative name against the script's directory."""
        candidate = Path(path_text)
        if not candidate.is_absolute():
            candidate = Path(os.path.dirname(os.path.abspath(self.script))) / candidate
        try:
            return candidate if candidate.is_file() else None
        except OSError:
            return None

    def eval_builtin(self, node: Node, words: list[Word], line: int) -> None:
        """`eval "..."`: bash runs the string; a variable CANN reads inside it gets a finding."""
        self.strings_run(node, words[1:], line, "eval")

    def shell_c(self, node: Node, words: list[Word], line: int) -> None:
        """`bash -c "..."` / `sh -c`: the string runs in a child shell."""
        texts = [w.text for w in words[1:]]
        if "-c" in texts:
            self.strings_run(node, words[texts.index("-c") + 2:texts.index("-c") + 3], line, words[0].text + " -c")

    def strings_run(self, node: Node, words: list[Word], line: int, how: str) -> None:
        names = sorted({n for w in words for n in WATCHED.findall(w.text)})
        for name in names:
            self.finding("shell-eval-variable", line, name=name, how=how)

    def stop(self, node: Node, words: list[Word], line: int) -> None:
        if self.in_function and words[0].text == "return":
            raise _Stop()
        if not self.in_function:
            raise _Stop()

    # -- words ------------------------------------------------------------------------------

    def word(self, node: Node) -> Word:
        """The value of a word node after bash's expansions (as far as the text tells)."""
        value = self._word(node)
        self.expanded += len(value.text)
        if self.expanded > MAX_EXPANDED_CHARS:
            raise InputError.from_code("cache-error-envfile-expansion", self.source, _line(node),
                                       limit=MAX_EXPANDED_CHARS >> 10)
        return value

    def _word(self, node: Node) -> Word:
        kind = node.type
        if kind in ("word", "number", "extglob_pattern", "regex"):
            text = self.text(node)
            if kind == "word" and text.startswith("~"):
                return Word(text, False)
            return Word(_unescape(text))
        if kind == "raw_string":
            return Word(self.text(node)[1:-1])
        if kind == "ansi_c_string":
            return Word(_ansi_c(self.text(node)[2:-1]))
        if kind in ("string", "translated_string"):
            return self.string(node)
        if kind == "concatenation":
            return _join([self._word(c) for c in node.children])
        if kind == "simple_expansion":
            return self.simple_expansion(node)
        if kind == "expansion":
            return self.expansion(node)
        if kind == "command_substitution":
            return self.command_substitution(node)
        if kind == "command_name":
            return _join([self._word(c) for c in node.children])
        return Word(self.text(node), False)  # arithmetic, process substitution, brace expression, ...

    def string(self, node: Node) -> Word:
        parts: list[Word] = []
        start = node.start_byte + (2 if node.type == "translated_string" else 1)
        end = node.end_byte - 1
        for child in node.children:
            if child.start_byte < start or child.type == '"':
                continue
            if child.start_byte > start:
                parts.append(Word(_unescape_dq(self.data[start:child.start_byte].decode("utf-8", "surrogateescape"))))
            if child.type == "string_content":
                parts.append(Word(_unescape_dq(self.text(child))))
            else:
                raw = self.text(child)
                lead = len(raw) - len(raw.lstrip(" \t\n"))
                if lead:
                    parts.append(Word(raw[:lead]))
                parts.append(self._word(child))
            start = child.end_byte
        if start < end:
            parts.append(Word(_unescape_dq(self.data[start:end].decode("utf-8", "surrogateescape"))))
        return _join(parts) if parts else Word("")

    def shell(self, name: str) -> Binding | None:
        """What the shell itself holds for `name` (a prefix onto the launcher is the job's only)."""
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        binding = self.state.vars.get(name)
        while binding is not None and binding.launcher:
            binding = binding.before
        return binding

    def lookup(self, name: str, written: str) -> Word:
        binding = self.shell(name)
        if binding is not None:
            if binding.branches:
                return Word(written, False)
            if binding.value is None:
                return Word("")
            return binding.value
        if name in self.base:
            return Word(self.base[name])
        if name in ("BASH_SOURCE", "0"):
            return Word(written, False, here=os.path.abspath(self.source))
        return Word(written, False)

    def simple_expansion(self, node: Node) -> Word:
        name_node = next((c for c in node.named_children), None)
        if name_node is None:
            return Word("$")
        return self.lookup(self.text(name_node), self.text(node).strip())

    def expansion(self, node: Node) -> Word:
        """`${X}`, `${X:-d}`, `${X-d}`, `${X:=d}`, `${X:+w}`; other operators: known only at run time."""
        written = self.text(node).strip()
        children = [c for c in node.children if c.type not in ("${", "}")]
        if not children:
            return Word(written, False)
        head = children[0]
        if head.type == "subscript":
            array = head.child_by_field_name("name")
            if array is not None and self.text(array) == "BASH_SOURCE" and len(children) == 1:
                return Word(written, False, here=os.path.abspath(self.source))
            return Word(written, False)
        if head.type not in ("variable_name", "special_variable_name"):
            return Word(written, False)  # ${#X}, ${!X}, ...
        name = self.text(head)
        if len(children) == 1:
            return self.lookup(name, written)
        operator = children[1].type
        operand = _join([self._word(c) for c in children[2:]]) if len(children) > 2 else Word("")
        if operator not in (":-", "-", ":=", "=", ":+", "+") or not _NAME.fullmatch(name):
            # `${1:-d}`, `${@:-d}`: a positional or special parameter is the script's arguments or
            # the shell's state, never the launching environment's: known only at run time
            return Word(written, False)
        current = self._current(name)
        colon = operator.startswith(":")
        if current == "unknown":
            # Not set in the file: the launching environment decides (default-if-unset).
            if not operand.known:
                return Word(written, False, here=operand.here)
            if operator.endswith("+"):
                value = Word("", operand.known, name if operand.known else None)
            else:
                value = Word(operand.text, operand.known, name if operand.known else None, operand.here)
            if operator.endswith("=") and operand.known:
                self.bind(name, Word(operand.text, True, name, operand.here), _line(node), False)
            return value
        if current == "runtime":
            return self.expand_branches(name, operator, operand, written, _line(node))
        value_word = self.lookup(name, written)
        empty = current == "unset" or (colon and value_word.text == "")
        if operator.endswith("+"):
            return Word("") if empty else operand
        if empty:
            if operator.endswith("="):
                self.bind(name, operand, _line(node), False)
            return operand
        return value_word

    def expand_branches(self, name: str, operator: str, operand: Word, written: str, line: int) -> Word:
        """`${X:-d}`, `${X:=d}`, `${X:+w}` of a variable a run-time branch left with a different
        value on each way: taken on each way. One result on every way is a plain value; `:=` leaves
        X with each way's result (`A=1; if c; then A=; fi; : ${A:=1}` is 1 on both ways)."""
        binding = self.shell(name)
        if (binding is None or not binding.branches or not operand.known or name in self.base
                or not all(value is None or value.known for _, value in binding.branches)):
            return Word(written, False)
        colon = operator.startswith(":")
        results: list[tuple[str, Word]] = []
        assigned: list[tuple[str, Word | None]] = []
        for label, value in binding.branches:
            if value is None:
                # not set on this way: the default, unless the launching environment sets X
                default = Word("" if operator.endswith("+") else operand.text, True, name)
                results.append((label, default))
                assigned.append((label, Word(operand.text, True, name) if operator.endswith("=") else None))
                continue
            empty = colon and value.text == ""
            if operator.endswith("+"):
                results.append((label, Word("") if empty else operand))
            else:
                results.append((label, operand if empty else value))
            assigned.append((label, operand if empty and operator.endswith("=") else value))
        if operator.endswith("="):
            if len({(w.text, w.inherited) if w is not None else None for _, w in assigned}) == 1:
                self.bind(name, assigned[0][1], line, False)
            else:
                self.state.vars[name] = Binding(binding.value, line, self.source, tuple(assigned))
        if len({(w.text, w.inherited) for _, w in results}) == 1:
            return results[0][1]
        return Word(written, False)

    def _current(self, name: str) -> str:
        """"set", "unset" (for sure), "runtime" (set to what only the run knows) or "unknown" (the
        file does not set it: the launching environment decides)."""
        binding = self.shell(name)
        if binding is not None:
            if binding.branches:
                return "runtime"
            if binding.value is None:
                return "unset"
            if not binding.value.known:
                return "runtime"
            return "set"
        return "set" if name in self.base else "unknown"

    def command_substitution(self, node: Node) -> Word:
        text = self.text(node).strip()
        for child in node.named_children:
            self.look_into(child)
        if _SCRIPT_DIR.search(text):
            here = os.path.dirname(os.path.abspath(self.source))
            for _ in range(text.count("/..")):
                here = os.path.dirname(here)
            return Word(text, False, here=here)
        self.finding("cache-envfile-command-substitution", _line(node), text=text[:60])
        return Word(text, False)


def _first_error(root: Node) -> int | None:
    """The row of the first line the grammar could not read (an ERROR or a MISSING token).

    An ERROR node may hold whole statements that were fine before the trouble (tree-sitter
    wraps them when it cannot finish the program): the row is where its first token that is not
    a complete statement stands."""
    if not root.has_error:
        return None
    best: int | None = None
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_missing:
            # a MISSING token (an unclosed quote) is placed where the text ends: the line that
            # opened it is where its parent starts
            row = int((node.parent or node).start_point[0])
        elif node.is_error:
            row = _error_row(node)
        else:
            stack.extend(c for c in node.children if c.has_error or c.is_missing)
            continue
        best = row if best is None else min(best, row)
    return best


def _error_row(node: Node) -> int:
    for child in node.children:
        if child.is_named and not child.has_error and not child.is_missing and not child.is_error:
            continue  # a statement read whole
        if child.is_error:
            return _error_row(child)
        if child.has_error:
            found = _first_error(child)
            return int(child.start_point[0]) if found is None else found
        return int(child.start_point[0])
    return int(node.start_point[0])


def _join_continued_words(text: str) -> str:
    """Join `a\\<newline>b` inside an unquoted word, as bash does, keeping later lines' numbers.

    tree-sitter-bash reads a backslash-newline between words, not inside one; bash removes it
    everywhere outside single quotes and comments. The joined line is followed by an empty one.
    An escaped blank (`A=\\ x`) becomes the quoted blank it is (`A=' 'x`), which the grammar reads
    right at a word's start and end too."""
    if "\\\n" not in text and "\\ " not in text:
        return text
    out: list[str] = []
    pending = 0  # newlines owed to the end of the current line
    single = double = comment = False
    i, n = 0, len(text)
    while i < n:
        if comment:
            end = text.find("\n", i)
            if end < 0:
                out.append(text[i:])
                break
            out.append(text[i:end] + "\n" * (pending + 1))
            pending, comment, i = 0, False, end + 1
            continue
        # Copy the run of ordinary characters at once, up to the next one that may matter: a
        # char-by-char loop here was most of the cost of a 2,000-line script.
        found = _JOIN_SPECIAL.search(text, i)
        if found is None:
            out.append(text[i:])
            break
        if found.start() > i:
            out.append(text[i:found.start()])
            i = found.start()
        c = text[i]
        if c == "\\" and not single and i + 1 < n:
            if text[i + 1] == "\n" and not double and out and out[-1][-1:] not in (" ", "\t", "\n", ""):
                pending += 1
                i += 2
                continue
            if text[i + 1] == " " and not double:
                out.append("' '")  # tree-sitter-bash misreads an escaped blank at a word's start or end
            else:
                out.append(text[i:i + 2])
            i += 2
            continue
        if c == "'" and not double:
            single = not single
        elif c == '"' and not single:
            double = not double
        elif c == "#" and not single and not double and (not out or out[-1][-1:] in (" ", "\t", "\n", ";")):
            comment = True
        if c == "\n" and not single and not double and pending:
            out.append("\n" * (pending + 1))
            pending = 0
        else:
            out.append(c)
        i += 1
    out.append("\n" * pending)
    return "".join(out)


_JOIN_SPECIAL = re.compile(r"[\\'\"#\n]")


def _cann_set_env(path: str) -> bool:
    """CANN's own set_env.sh (`/usr/local/Ascend/ascend-toolkit/set_env.sh`, `.../cann/set_env.sh`, nnae)."""
    return posixpath.basename(path) == "set_env.sh" and bool(
        re.search(r"Ascend|ascend-toolkit|nnae|/cann\b|ASCEND_|TOOLKIT", path))


def _launcher(words: list[Word]) -> str | None:
    """The launcher a command starts (through nohup, env, numactl, ...), or None."""
    i = 0
    while i < len(words):
        text = words[i].text
        base = posixpath.basename(text) if words[i].known else ""
        if base in WRAPPERS:
            # the wrapped command follows the wrapper's options (and their arguments: `numactl -C 0-7`)
            for word in words[i + 1:i + 8]:
                name = posixpath.basename(word.text) if word.known else ""
                if re.fullmatch(r"python[0-9.]*", name) or (name in LAUNCHERS and name not in WRAPPERS):
                    return name
            return None
        if re.fullmatch(r"python[0-9.]*", base) or base in LAUNCHERS:
            return base
        return None
    return None


def _shown(binding: Binding) -> tuple[object, ...]:
    """What a binding says, for comparing two turns of a loop."""
    words: list[Word | None] = [binding.value, *(v for _, v in binding.branches)]
    return tuple((w.text, w.known, w.inherited) if w is not None else None for w in words)


def _unlaunched(binding: Binding | None, start: Binding | None) -> Binding | None:
    """An arm's binding of a variable for the merge: a prefix onto a launcher from before the
    branch that the arm left alone is the job's value, not the shell's: the shell's is merged."""
    while binding is not None and binding is start and binding.launcher:
        binding = start = binding.before
    return binding


def _merge_branches(name: str, outcomes: list[tuple[str, Binding | None]], before: Binding | None,
                    source: str) -> Binding:
    """One variable after a run-time branch: plain when every way through gives the same value."""
    # An arm that never touches the variable leaves the launching environment's value; one that
    # unsets it leaves none: two different outcomes, though neither has a value here.
    texts = {(b.value.text, b.value.known, b.value.inherited) if b is not None and b.value is not None
             else ("unset" if b is not None else "untouched") for _, b in outcomes}
    bindings = [b for _, b in outcomes if b is not None]
    last = max(bindings, key=lambda b: b.line)
    if len(texts) == 1 and not any(b.branches for b in bindings):
        return last
    branches: list[tuple[str, Word | None]] = []
    for label, binding in outcomes:
        if binding is not None and binding.branches:
            branches += [(f"{label}, {inner}", value) for inner, value in binding.branches]
        else:
            branches.append((label, binding.value if binding is not None else None))
    return Binding(last.value, last.line, last.file, tuple(branches))


def _unescape(text: str) -> str:
    """Quote removal in an unquoted word: `\\x` is x, a backslash-newline disappears."""
    return re.sub(r"\\(\n|.)", lambda m: "" if m.group(1) == "\n" else m.group(1), text, flags=re.S)


def _unescape_dq(text: str) -> str:
    """Inside double quotes a backslash quotes only $ ` \" \\ and newline."""
    return re.sub(r"\\([$`\"\\\n])", lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def _ansi_c(text: str) -> str:
    """The common escapes of bash's $'...' quoting."""
    table = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a", "e": "\x1b"}
    return re.sub(r"\\(.)", lambda m: table.get(m.group(1), "\\" + m.group(1)), text)


_STATEMENTS: dict[str, Callable[[_Reader, Any], None]] = {
    "variable_assignment": _Reader.plain_assignment,
    "variable_assignments": _Reader.variable_assignments,
    "declaration_command": _Reader.declaration,
    "unset_command": _Reader.unset,
    "command": _Reader.command,
    "function_definition": _Reader.function_definition,
    "compound_statement": _Reader.compound,
    "redirected_statement": _Reader.redirected,
    "negated_command": _Reader.negated,
    "pipeline": _Reader.pipeline,
    "subshell": _Reader.subshell,
    "if_statement": _Reader.if_statement,
    "case_statement": _Reader.case_statement,
    "list": _Reader.list_statement,
    "for_statement": _Reader.loop,
    "c_style_for_statement": _Reader.loop,
    "while_statement": _Reader.loop,
}

_COMMANDS: dict[str, Callable[[_Reader, Any, list[Word], int], None]] = {
    "set": _Reader.set_builtin,
    "source": _Reader.source_builtin,
    ".": _Reader.source_builtin,
    "eval": _Reader.eval_builtin,
    "bash": _Reader.shell_c,
    "sh": _Reader.shell_c,
    "exit": _Reader.stop,
    "return": _Reader.stop,
}


def read_shell(text: str, env: EnvFile, base: Mapping[str, str],
               see_file: Callable[[Path], str | None] | None = None) -> None:
    """Fill `env` with what sourcing `text` leaves (see the module docstring).

    `base` is the launching environment when it is known (else {}: the file's own view).
    `see_file(path)` reads a sourced file (None when it cannot); default: nothing is read.
    """
    reader = _Reader(env, base, see_file or (lambda _path: None))
    reader.read_text(text)
    for name, binding in reader.state.vars.items():
        env.files[name] = binding.file
        env.lines[name] = binding.line
        if binding.launcher:
            env.launcher[name] = binding.launcher
        if binding.value is None and not binding.branches:
            env.unset.add(name)
            env.lines.pop(name, None)
            env.files.pop(name, None)
            continue
        if binding.branches or binding.value is None or not binding.value.known:
            env.runtime[name] = RuntimeValue(
                binding.value.text if binding.value is not None and not binding.branches else "",
                tuple((label, value.text if value is not None and value.known else None)
                      for label, value in binding.branches))
            continue
        env.values[name] = binding.value.text.replace(_CR, "\r")
        if binding.value.inherited:
            env.inherited[name] = binding.value.inherited
    env.exported.update(n for n in reader.state.exported if n in env.values or n in env.runtime)
    env.exported.update(n for n in env.launcher if n in env.values)  # in the job's environment


class RuntimeValue:
    """A variable whose value only the running shell knows: `expression` as written (a `$VAR` the
    file does not set, `$(...)`), or `branches`: (condition, value or None for unset/unknown)."""

    __slots__ = ("branches", "expression")

    def __init__(self, expression: str, branches: tuple[tuple[str, str | None], ...] = ()):
        self.expression = expression
        self.branches = branches

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RuntimeValue) and (self.expression, self.branches) == (other.expression, other.branches)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RuntimeValue({self.expression!r}, {self.branches!r})"

    def shown(self) -> str:
        if not self.branches:
            return self.expression
        return describe_branches(self.branches)  # "v1 when COND; v2 otherwise", in both languages


__all__ = ["LAUNCHERS", "RuntimeValue", "Word", "read_shell"]
