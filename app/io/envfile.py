"""Env files: the `export NAME=value` / `NAME=value` lines users source before a job.

Why this module exists: the op cache is configured as much by environment variables
(`ASCEND_MAX_OP_CACHE_SIZE`, `ASCEND_CACHE_PATH`, `ACL_OP_COMPILER_CACHE_MODE`, ...) as by files,
and support staff get them as a pasted env file or a job's launch script. `--env-file` reads
the values as bash would leave them after `source FILE` (app/io/shellread.py walks bash's own
syntax tree; docs/architecture.md#command-line). Nothing is ever executed.

This module holds the result, one record per variable, and the file-level checks: what a shell
would do differently from what the user probably meant (a variable CANN reads assigned but not
exported, a CR at the end of every value from a Windows editor, a BOM in front of line 1), a
default the launching environment may replace, a value only the run knows: each a finding with
its line.

Public API:
    parse_env_text(text, source, base=None, see_file=None) -> EnvFile
    load_env_file(path, base=None) -> EnvFile   (InputError when the file cannot be used)
    EnvFile: values, lines, files, exported, unset, inherited, runtime, launcher, findings, source
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from cann_config.app.errors import InputError, Message
from cann_config.app.findings import Finding, make_finding
from cann_config.app.io.inputfiles import read_input_bytes

if TYPE_CHECKING:  # pragma: no cover - typing only: the reader is imported when a file is read
    from cann_config.app.io.shellread import RuntimeValue

MAX_ENV_FILE_BYTES = 4 << 20
# Variables CANN reads; only these get a finding when they are assigned but not exported.
WATCHED_PREFIXES = ("ASCEND_", "ACL_", "GE_")


class EnvFile:
    """The environment an env file leaves behind, and what it says about itself."""

    def __init__(self, source: str, values: dict[str, str] | None = None, lines: dict[str, int] | None = None,
                 exported: set[str] | None = None, unset: set[str] | None = None,
                 findings: list[Finding] | None = None) -> None:
        self.source = source
        self.values: dict[str, str] = {} if values is None else values
        self.lines: dict[str, int] = {} if lines is None else lines  # NAME -> line of the assignment that won
        self.exported: set[str] = set() if exported is None else exported
        # names the file unsets (and does not set again)
        self.unset: set[str] = set() if unset is None else unset
        self.findings: list[Finding] = [] if findings is None else findings
        # NAME -> the file that set it (the env file, or a file it sources)
        self.files: dict[str, str] = {}
        # NAME -> the launching environment's variable that replaces its default (`${X:-d}`): the
        # value in `values` is the default (docs/cann/launch-scripts.md#default-if-unset)
        self.inherited: dict[str, str] = {}
        # NAME -> its value known only at run time (not in `values`): an unset `$VAR`, `$(...)`, or
        # different values on different branches
        self.runtime: dict[str, RuntimeValue] = {}
        # NAME -> the launcher command it was set in front of (`NAME=v torchrun ...`): the job's
        self.launcher: dict[str, str] = {}

    def environ(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """`base` with this file's variables applied on top (as after `source FILE`)."""
        env = {k: v for k, v in (base or {}).items() if k not in self.unset and k not in self.runtime}
        env.update(self.values)
        return env


def parse_env_text(text: str, source: str, base: Mapping[str, str] | None = None,
                   see_file: Callable[[Path], str | None] | None = None) -> EnvFile:
    """The variables `text` assigns, as `source FILE` in bash would leave them (app/io/shellread.py).

    `base` is the environment the file is sourced into, when it is known: a `$NAME` or `${NAME:-d}`
    the file itself does not set is read from it; without it such a value is known only at run
    time (`runtime`) or is a default the launching environment may replace (`inherited`).
    `see_file(path)` reads a file the script sources (None: it cannot be read).
    """
    from cann_config.app.io.shellread import read_shell

    env = EnvFile(source)
    if text.startswith("\ufeff"):
        first = text.split("\n", 1)[0]
        env.findings.append(make_finding("cache-envfile-bom", file=source, line=1, text=first[1:61]))
        # A shell reads the BOM as part of the first word, so line 1 does not assign anything.
        cut = text.find("\n")
        text = "\n" + text[cut + 1:] if cut >= 0 else ""
    if "\r\n" in text:
        line = text.count("\n", 0, text.index("\r\n")) + 1
        env.findings.append(make_finding("cache-envfile-crlf", file=source, line=line))
    read_shell(text, env, base or {}, see_file)
    for name in env.values:
        if name not in env.exported and name.startswith(WATCHED_PREFIXES) and env.files.get(name, source) == source:
            env.findings.append(make_finding("cache-envfile-not-exported", file=source,
                                             line=env.lines[name], name=name))
    _state_findings(env)
    return env


def _state_findings(env: EnvFile) -> None:
    """One finding per variable CANN reads whose value is not a plain one: a default the launching
    environment may replace, a value only the run knows, a value that depends on a branch."""
    from cann_config.app.io.shellread import WATCHED

    for name, origin in env.inherited.items():
        if WATCHED.fullmatch(name):
            env.findings.append(make_finding("shell-default-if-unset", file=env.files.get(name, env.source),
                                             line=env.lines.get(name), name=name, value=env.values[name],
                                             variable=origin))
    for name, runtime in env.runtime.items():
        if not WATCHED.fullmatch(name):
            continue
        file, line = env.files.get(name, env.source), env.lines.get(name)
        if runtime.branches:
            env.findings.append(make_finding("shell-conditional-value", file=file, line=line, name=name,
                                             branches=runtime.shown()))
        else:
            env.findings.append(make_finding("shell-runtime-value", file=file, line=line, name=name,
                                             expression=runtime.expression[:80]))


def _read_sourced(path: Path) -> str | None:
    """A file a script sources, through the guarded reader; None when it cannot be used."""
    try:
        data, _ = read_input_bytes(path, Message("cache-kind-env-file"), MAX_ENV_FILE_BYTES)
    except InputError:
        return None
    if b"\x00" in data:
        return None
    return data.decode("utf-8", "surrogateescape")


def load_env_file(path: str | Path, base: Mapping[str, str] | None = None) -> EnvFile:
    """Read an env file; InputError when it is missing, a directory, binary or unreadable."""
    path = Path(path)
    data, _ = read_input_bytes(path, Message("cache-kind-env-file"), MAX_ENV_FILE_BYTES)
    if b"\x00" in data:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise InputError.from_code("cache-error-nul", path, line)
    text = data.decode("utf-8", "surrogateescape")
    env = parse_env_text(text, str(path), base, _read_sourced)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        env.findings.append(make_finding("cache-envfile-invalid-utf8", file=str(path), line=line))
    return env
