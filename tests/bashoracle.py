"""bash itself as the oracle for app/io/shellread.py (issue 25): what `env -i bash -c 'set -a;
source FILE'` leaves, for a file that is made side-effect free, compared with what the tool reads.

Side effects are stubbed, not edited out of the file: the file is sourced from a copy of its
directory in a temporary dir (relative `source` lines still find their files there, redirections
write into the copy), PATH is an empty dir so every command is one bash cannot find, which then
succeeds and does nothing (`command_not_found_handle`, which also records the command's
environment), HOME is the copy, `cd`, `exec`, `kill`,
`ulimit` and `trap` are functions that do nothing; an existing program named by its path, an
existing dir put in PATH, or an existing file sourced by its absolute path (/etc/profile would put
real commands back in PATH) is moved under /nonexistent-oracle in the text both readers get
(`defuse`), and a file that still has one is refused rather than run; `set -e`/`set -u` are undone
after each `set` (bash would stop at the first failing stub; the tool does not model them). Builtins that only compute (`[`, `test`, `export`, `read`
from /dev/null) run as bash runs them. The variables are printed from an EXIT trap, so an `exit`
in the file still shows what was assigned before it.

Comparison rules (`check_file`):
- a plain value the tool reads equals bash's value, and the tool says it is exported exactly when
  bash, sourcing the file without `set -a`, exports it on at least one forced way through (an
  `export` under a run-time condition counts: docs/cann/launch-scripts.md#run-time-branches);
- default-if-unset (`env.inherited[X] = Y`): bash without Y gives the tool's default, and bash with
  Y set (to a sentinel) gives what the tool reads when told Y (`base={Y: sentinel}`);
- conditional (`env.runtime[X].branches`): every `if`/`elif` condition and every left side of
  `&&`/`||` is forced true and false, and the word of every `case` set to each literal pattern and
  to one no pattern matches, in copies of the file (all combinations up to 32, else one choice at
  a time); in each copy bash's value is one the tool lists for a branch (or a branch
  the tool leaves unknown/unset), and, when every combination was made (and the file has no
  loop), every value the tool lists is bash's in some copy (the tool takes each condition as
  independent of the others);
- unset: bash has no such variable after the file, on every forced way through, even when the
  launching environment sets it;
- a prefix onto the job's launcher (`env.launcher`): a stub that stands for that launcher sees the
  tool's value in its environment (a script may start it more than once);
- a value known only at run time (`$1`, `$(...)`) is not compared; a name bash sets that the tool
  does not mention at all is a miss (arrays, bash's own variables and names an `eval` finding
  names aside).
"""

from __future__ import annotations

import functools
import itertools
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

BASH = shutil.which("bash")
SENTINEL = "inherited-value"

_PRELUDE = r"""
PATH=$__oracle_empty
hash -r
command_not_found_handle() {
  local __n
  { printf '\1%s\0' "$*"
    for __n in $(compgen -e); do
      case $__n in __*) continue;; esac
      printf '%s\0%s\0' "$__n" "${!__n}"
    done; } >>"$__oracle_jobs"
  return 0
}
HOME=$__oracle_root
cd() { return 0; }
exec() { return 0; }
kill() { return 0; }
ulimit() { return 0; }
pushd() { return 0; }
popd() { return 0; }
__oracle_dump() {
  local __n __f
  for __n in $(compgen -v); do
    case $__n in __*|BASH*|FUNCNAME|PIPESTATUS|GROUPS|DIRSTACK|_) continue;; esac
    __f=${!__n@a}
    case $__f in *a*|*A*) continue;; esac
    if [[ -n $__oracle_exported_only && $__f != *x* ]]; then continue; fi
    if [[ -v $__n ]]; then printf '%s\0%s\0' "$__n" "${!__n}" >>"$__oracle_out"; fi
  done
}
builtin trap 'builtin wait; __oracle_dump' EXIT
trap() { return 0; }
set() { builtin set "$@"; builtin set +e +u +o pipefail; }
[[ -n $__oracle_exported_only ]] || builtin set -a
"""


def bash_environment(path: Path, env: Mapping[str, str] | None = None, text: str | None = None) -> dict[str, str]:
    """The variables set after `env -i bash -c 'set -a; source PATH'` with stubs (see above)."""
    return bash_run(path, env, text)[0]


def bash_exported(path: Path, text: str | None = None) -> set[str]:
    """The names the file leaves exported when it is sourced without `set -a`."""
    return set(bash_run(path, {}, text, exported_only=True)[0])


def bash_run(path: Path, env: Mapping[str, str] | None = None, text: str | None = None,
             exported_only: bool = False) -> tuple[dict[str, str], list[tuple[str, dict[str, str]]]]:
    """The variables the file leaves, and each command it starts with that command's environment
    ((command line, environment), in order: every command is a stub that records them).

    `text` replaces the file's content (a forced-branch copy); `path`'s directory is copied so
    that the file's relative `source` lines find their files."""
    assert BASH is not None
    with tempfile.TemporaryDirectory(prefix="bashoracle_") as tmp:
        root = Path(tmp) / "d"
        shutil.copytree(path.parent, root)
        target = root / path.name
        if text is not None:
            target.write_bytes(text.encode("utf-8", "surrogateescape"))
        out = Path(tmp) / "out"
        out.write_bytes(b"")
        jobs = Path(tmp) / "jobs"
        jobs.write_bytes(b"")
        empty = Path(tmp) / "empty-path"
        empty.mkdir()
        _refuse_real_commands(target.read_bytes().decode("utf-8", "surrogateescape"))
        script = (f"__oracle_out='{out}'\n__oracle_jobs='{jobs}'\n__oracle_empty='{empty}'\n"
                  f"__oracle_root='{root}'\n__oracle_exported_only={'1' if exported_only else ''}\n") + _PRELUDE + f"source ./{path.name}\n"
        subprocess.run([BASH, "--norc", "--noprofile", "-c", script], cwd=root, env=dict(env or {}),
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        parts = out.read_bytes().decode("utf-8", "surrogateescape").split("\0")[:-1]
        started = []
        for record in jobs.read_bytes().decode("utf-8", "surrogateescape").split("\1")[1:]:
            fields = record.split("\0")[:-1]
            started.append((fields[0], dict(zip(fields[1::2], fields[2::2], strict=True))))
    return dict(zip(parts[::2], parts[1::2], strict=True)), started


def _refuse_real_commands(text: str) -> None:
    """No command named by a path that exists here may run (PATH is empty, so only a name with a
    `/` could reach a real program): such a file is refused, not sourced."""
    import tree_sitter
    import tree_sitter_bash

    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    data = text.encode("utf-8", "surrogateescape")
    stack = [parser.parse(data).root_node]
    while stack:
        node = stack.pop()
        if node.type == "variable_assignment" and data[node.start_byte:node.end_byte].startswith(b"PATH="):
            for part in data[node.start_byte + 5:node.end_byte].decode("utf-8", "surrogateescape").strip("'\"").split(":"):
                if part.startswith("/") and "$" not in part and Path(part).is_dir():
                    raise RuntimeError(f"the oracle will not run a file that puts {part}, which exists here, in PATH")
        if node.type == "command_name":
            name = data[node.start_byte:node.end_byte].decode("utf-8", "surrogateescape")
            if "/" in name and Path(name.strip("'\"")).exists():
                raise RuntimeError(f"the oracle will not run a file that calls {name}, which exists here")
        if node.type == "command" and node.child_by_field_name("name") is not None:
            name_node = node.child_by_field_name("name")
            args = node.children_by_field_name("argument")
            if data[name_node.start_byte:name_node.end_byte] in (b"source", b".") and args:
                target = data[args[0].start_byte:args[0].end_byte].decode("utf-8", "surrogateescape").strip("'\"")
                if target.startswith("/") and "$" not in target and Path(target).exists():
                    raise RuntimeError(f"the oracle will not source {target}, which exists here")
        stack.extend(node.children)


def defuse(text: str) -> str:
    """`text` with every existing program named by its path, and every existing dir put in PATH,
    moved under /nonexistent-oracle (then a stub runs instead). check_file gives the tool and bash
    this same text."""
    import tree_sitter
    import tree_sitter_bash

    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    data = text.encode("utf-8", "surrogateescape")
    cuts: list[int] = []
    stack = [parser.parse(data).root_node]
    while stack:
        node = stack.pop()
        if node.type == "variable_assignment" and data[node.start_byte:node.end_byte].startswith(b"PATH="):
            at = node.start_byte + 5
            for part in data[at:node.end_byte].split(b":"):
                path = part.strip(b"'\"")
                if path.startswith(b"/") and b"$" not in path and Path(path.decode("utf-8", "surrogateescape")).is_dir():
                    cuts.append(at + part.index(path))
                at += len(part) + 1
        if node.type == "command_name":
            name = data[node.start_byte:node.end_byte]
            if name.startswith(b"/") and Path(name.decode("utf-8", "surrogateescape")).exists():
                cuts.append(node.start_byte)
        if node.type == "command" and node.child_by_field_name("name") is not None:
            name_node = node.child_by_field_name("name")
            args = node.children_by_field_name("argument")
            if data[name_node.start_byte:name_node.end_byte] in (b"source", b".") and args:
                raw = data[args[0].start_byte:args[0].end_byte]
                quote = 1 if raw[:1] in (b'"', b"'") else 0
                target = raw.strip(b"'\"").decode("utf-8", "surrogateescape")
                if target.startswith("/") and "$" not in target and Path(target).exists():
                    cuts.append(args[0].start_byte + quote)
        stack.extend(node.children)
    for at in sorted(cuts, reverse=True):
        data = data[:at] + b"/nonexistent-oracle" + data[at:]
    return data.decode("utf-8", "surrogateescape")


@functools.cache
def bash_baseline() -> set[str]:
    """The names bash sets by itself (an empty file)."""
    with tempfile.TemporaryDirectory(prefix="bashoracle_") as tmp:
        empty = Path(tmp) / "empty.sh"
        empty.write_text("", encoding="utf-8")
        return set(bash_environment(empty))


# ---------------------------------------------------------------------------------------------
# Forced branches
# ---------------------------------------------------------------------------------------------


def conditions(text: str) -> list[tuple[int, int, list[bytes]]]:
    """The run-time choices in `text`, as (start byte, end byte, what may replace the span):
    `if`/`elif` conditions and the left side of each `&&`/`||` (innermost left side of a chain)
    become `true` or `false`; the word a `case` tests becomes each literal pattern, or a word no
    pattern matches. Never overlapping."""
    import tree_sitter
    import tree_sitter_bash

    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    data = text.encode("utf-8", "surrogateescape")
    found: list[tuple[int, int, list[bytes]]] = []
    either = [b"true", b"false"]

    def walk(node) -> None:
        if node.type in ("if_statement", "elif_clause"):
            ids = {c.id for c in node.children_by_field_name("condition")}
            if node.type == "elif_clause":  # no `condition` field in tree-sitter-bash 0.25: before `then`
                then = next((i for i, c in enumerate(node.children) if c.type == "then"), 0)
                ids = {c.id for c in node.children[:then]}
            for child in node.children:
                if child.id in ids and child.is_named:
                    found.append((child.start_byte, child.end_byte, either))
                else:
                    walk(child)
            return
        if node.type == "list" and len(node.named_children) == 2:
            left, right = node.named_children
            if left.type == "list":
                walk(left)
            else:
                found.append((left.start_byte, left.end_byte, either))
            walk(right)
            return
        if node.type == "case_statement" and node.child_by_field_name("value") is not None:
            value = node.child_by_field_name("value")
            words = [b"__oracle_no_pattern__"]
            for item in node.named_children:
                for pattern in item.children_by_field_name("value") if item.type == "case_item" else []:
                    raw = data[pattern.start_byte:pattern.end_byte].strip(b"'\"")
                    if raw and not any(c in raw for c in b"*?[]$`\\|"):
                        words.append(raw)
            found.append((value.start_byte, value.end_byte, words))
            for item in node.named_children:
                if item.type == "case_item":
                    walk(item)
            return
        for child in node.children:
            walk(child)

    walk(parser.parse(data).root_node)
    return found


def all_ways(text: str) -> bool:
    """Whether forced_copies makes every combination of the choices (else one choice at a time,
    or the file has a loop, whose running is not forced: a `while` forced true never ends)."""
    if re.search(r"(^|[;&|\s])(while|until|for)\s", text):
        return False
    total = 1
    for _, _, options in conditions(text):
        total *= len(options)
    return total <= 32


def forced_copies(text: str) -> list[str]:
    """Copies of `text` with its run-time choices made every way (all combinations up to 32
    copies, else one choice at a time)."""
    data = text.encode("utf-8", "surrogateescape")
    spans = conditions(text)
    if not spans:
        return []
    total = 1
    for _, _, options in spans:
        total *= len(options)
    if total <= 32:
        plans = [dict(enumerate(choice)) for choice in itertools.product(*(options for _, _, options in spans))]
    else:
        plans = [{i: option} for i, (_, _, options) in enumerate(spans) for option in options]
    copies = []
    for plan in plans:
        out = data
        for i in sorted(plan, key=lambda i: -spans[i][0]):
            start, end, _ = spans[i]
            out = out[:start] + plan[i] + out[end:]
        copies.append(out.decode("utf-8", "surrogateescape"))
    return copies


# ---------------------------------------------------------------------------------------------
# The comparison
# ---------------------------------------------------------------------------------------------


def check_file(path: Path, read, text: str | None = None) -> list[str]:
    """Differences between the tool and bash for `path` (empty: they agree).

    `read(text, base)` returns the tool's EnvFile for the file's text given a launching
    environment `base` (a dict)."""
    text = defuse(path.read_bytes().decode("utf-8", "surrogateescape") if text is None else text)
    problems: list[str] = []
    tool = read(text, {})
    plain, started = bash_run(path, {}, text)
    baseline = bash_baseline()

    for name, launcher in tool.launcher.items():
        jobs = [job for line, job in started if launcher in [w.rsplit("/", 1)[-1] for w in line.split()[:8]]]
        if name in tool.values and not any(job.get(name) == tool.values[name] for job in jobs):
            got = [job.get(name) for job in jobs] if jobs else "no such command started"
            problems.append(f"{name}: tool reads {tool.values[name]!r} for the job ({launcher}), bash gives it {got!r}")
    copies = forced_copies(text)
    exported = set().union(*(bash_exported(path, copy) for copy in [text, *copies]))
    for name in set(tool.values) - set(tool.launcher):
        if name in tool.exported and name not in exported and not all_ways(text):
            continue  # exported on a combination of choices one-at-a-time forcing does not make
        if (name in tool.exported) != (name in exported):
            problems.append(f"{name}: tool says {'' if name in tool.exported else 'not '}exported, bash "
                            f"{'does' if name in exported else 'does not'} export it")
    for name, value in tool.values.items():
        if name in tool.inherited or name in tool.launcher:
            continue
        if plain.get(name) != value:
            problems.append(f"{name}: tool reads {value!r}, bash gives {plain.get(name)!r}")
    if tool.inherited:
        for name, source in tool.inherited.items():
            if plain.get(name) != tool.values[name]:
                problems.append(f"{name}: tool's default {tool.values[name]!r}, bash without {source} gives "
                                f"{plain.get(name)!r}")
        base = {source: SENTINEL for source in set(tool.inherited.values())}
        told = read(text, base)
        given = bash_environment(path, base, text)
        for name in tool.inherited:
            if name in told.values and name not in told.launcher and given.get(name) != told.values[name]:
                problems.append(f"{name}: with {base} the tool reads {told.values[name]!r}, bash gives "
                                f"{given.get(name)!r}")
    if tool.unset:
        # unset for sure: on every way through, even when the launching environment has it
        held = {name: SENTINEL for name in tool.unset if name.isidentifier()}
        for copy in [text, *copies]:
            got = bash_environment(path, held, copy)
            for name in sorted(tool.unset & set(got)):
                problems.append(f"{name}: tool says unset, bash gives {got[name]!r}")
    mentioned = set(tool.values) | set(tool.runtime) | tool.unset | set(tool.launcher)
    # an assignment inside an `eval`/`bash -c` string is named in a finding at its line, never a value
    mentioned |= {name for name in set(plain) - baseline for f in tool.findings
                  if f.code == "shell-eval-variable" and name in f.message("en")}
    for name in set(plain) - baseline - mentioned:
        problems.append(f"{name}: bash sets it to {plain[name]!r}, the tool does not mention it")

    conditional = {n: r.branches for n, r in tool.runtime.items() if r.branches}
    if conditional:
        seen: dict[str, set[str | None]] = {n: set() for n in conditional}
        for copy in [text, *copies]:
            result = bash_environment(path, {}, copy)
            for name, branches in conditional.items():
                listed = {v for _, v in branches}
                value = result.get(name)
                seen[name].add(value)
                if value not in listed and None not in listed:
                    problems.append(f"{name}: a forced branch gives {value!r}, the tool lists {sorted(map(str, listed))}")
        for name, branches in conditional.items():
            for label, value in branches:
                # a way the tool lists is one combination of the choices: reached only when all are made
                if value is not None and value not in seen[name] and all_ways(text):
                    problems.append(f"{name}: the tool lists {value!r} ({label}), no forced branch gives it")
    return problems
