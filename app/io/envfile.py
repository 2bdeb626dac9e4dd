"""Env files: the `export NAME=value` / `NAME=value` lines users source before a job.

Why this module exists: the op cache is configured as much by environment variables
(`ASCEND_MAX_OP_CACHE_SIZE`, `ASCEND_CACHE_PATH`, `ACL_OP_COMPILER_CACHE_MODE`, ...) as by files,
and support staff get them as a pasted env file. `--env-file` must read the values as a POSIX
shell would assign them (docs/architecture.md#command-line): quotes removed the way the shell removes them, `$NAME` and
`${NAME}` expanded from earlier assignments (or a given base environment), a backslash-newline
joining lines. Nothing is ever executed: a command substitution stays as text, with a finding.

Lines that are not assignments (shell logic in a `set_env.sh`) are skipped with an info finding;
what a shell would do differently from what the user probably meant (a variable assigned but not
exported, a CR at the end of every value from a Windows editor, a BOM in front of line 1) becomes
a finding with its line.

Public API:
    parse_env_text(text: str, source: str, base: Mapping[str, str] | None = None) -> EnvFile
    load_env_file(path) -> EnvFile          (InputError when the file cannot be used)
    EnvFile: values: dict[str, str], lines: dict[str, int], exported: set[str],
             findings: list[Finding], source: str
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

import re
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from cann_config.app.errors import InputError, Message
from cann_config.app.findings import Finding, make_finding
from cann_config.app.io.inputfiles import read_input_bytes

MAX_ENV_FILE_BYTES = 4 << 20
# Linux refuses an environment string longer than MAX_ARG_STRLEN (32 pages, 128 KiB) at exec():
# a line whose `$` expansions produce more can never reach CANN, so reading stops there.
MAX_EXPANDED_CHARS = 128 << 10
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")
# Words a shell treats as commands that declare or export variables.
_DECLARE = {"export", "declare", "typeset", "readonly", "local"}
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

    def environ(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """`base` with this file's variables applied on top (as after `source FILE`)."""
        env = {k: v for k, v in (base or {}).items() if k not in self.unset}
        env.update(self.values)
        return env


class _Word(NamedTuple):
    text: str
    quoted: bool  # any part was quoted (so `NAME=` with quotes still counts as one word)
    assignment: tuple[str, str] | None = None  # (NAME, value) when the word is NAME=value


class _Unclosed(Exception):
    pass


class _TooLong(Exception):
    pass


class _Reader:
    """A tiny POSIX word splitter with parameter expansion; it never runs anything."""

    def __init__(self, env: EnvFile, base: Mapping[str, str]):
        self.env = env
        self.base = base
        self.notes: list[tuple[str, str]] = []  # (kind, detail) for the current command
        self.expanded = 0  # characters the current command's `$` expansions produced

    def lookup(self, name: str) -> str | None:
        if name in self.env.values:
            return self.env.values[name]
        if name in self.env.unset:
            return None
        return self.base.get(name)

    def known_unset(self, name: str) -> bool:
        """Unset for sure (the file unset it): it expands to nothing, without a finding."""
        return name in self.env.unset and name not in self.env.values

    def expand(self, text: str, i: int) -> tuple[str, int]:
        """Expand the `$...` starting at text[i] (text[i] == "$"); return (value, next index).

        What one command expands to is bounded (MAX_EXPANDED_CHARS): `A=$A$A` forty times
        would otherwise double to terabytes."""
        value, end = self._expand(text, i)
        self.expanded += len(value)
        if self.expanded > MAX_EXPANDED_CHARS:
            raise _TooLong()
        return value, end

    def _expand(self, text: str, i: int) -> tuple[str, int]:
        rest = text[i + 1:]
        if rest.startswith("("):
            depth, j = 0, i + 1
            while j < len(text):
                if text[j] == "(":
                    depth += 1
                elif text[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if j >= len(text):
                raise _Unclosed()
            self.notes.append(("command", text[i:j + 1]))
            return text[i:j + 1], j + 1
        if rest.startswith("{"):
            close = text.find("}", i + 2)
            if close < 0:
                raise _Unclosed()
            inner = text[i + 2:close]
            match = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=+?])(.*))?", inner, re.S)
            if match is None:
                self.notes.append(("unresolved", "${" + inner + "}"))
                return text[i:close + 1], close + 1
            name, op, word = match.group(1), match.group(2), match.group(3) or ""
            value = self.lookup(name)
            empty = value is None or (op is not None and op.startswith(":") and value == "")
            if op in ("-", ":-", "=", ":="):
                return (word if empty else value or ""), close + 1
            if op in ("+", ":+"):
                return ("" if empty else word), close + 1
            if value is None:
                if self.known_unset(name):
                    return "", close + 1
                self.notes.append(("unresolved", "${" + name + "}"))
                return text[i:close + 1], close + 1
            return value, close + 1
        match = _NAME.match(text, i + 1)
        if match is None:
            return "$", i + 1
        value = self.lookup(match.group())
        if value is None:
            if self.known_unset(match.group()):
                return "", match.end()
            self.notes.append(("unresolved", "$" + match.group()))
            return "$" + match.group(), match.end()
        return value, match.end()

    def words(self, text: str) -> tuple[list[list[_Word]], int]:
        """Split `text` into commands of words; stop at the end of the first complete line.

        Returns the commands and how many characters were consumed. Raises _Unclosed when a
        quote or `${` does not close before the end of `text`.
        """
        commands: list[list[_Word]] = [[]]
        current: list[str] = []
        in_word = quoted = False
        eq_name: str | None = None  # NAME when the word began with NAME=
        value_start = 0
        i = 0

        def finish() -> None:
            nonlocal current, in_word, quoted, eq_name
            if in_word:
                word = "".join(current)
                assignment = None
                if eq_name is not None:
                    assignment = (eq_name, word[value_start:])
                commands[-1].append(_Word(word, quoted, assignment))
            current, in_word, quoted, eq_name = [], False, False, None

        while i < len(text):
            c = text[i]
            if c == "\n":
                finish()
                return [c for c in commands if c], i + 1
            if c in " \t":
                finish()
                i += 1
                continue
            if c == "#" and not in_word:
                end = text.find("\n", i)
                i = len(text) if end < 0 else end
                continue
            if c == ";":
                # The next command is expanded only after this one ran (`A=1; B=$A`).
                finish()
                return [c for c in commands if c], i + 1
            if c in "&|<>()":
                # Pipelines, lists, redirections, subshells: not a plain assignment line.
                finish()
                commands[-1].append(_Word(c, False, None))
                self.notes.append(("operator", c))
                i += 1
                continue
            if not in_word:
                in_word = True
                match = _ASSIGNMENT.match(text, i)
                if match is not None:
                    eq_name = match.group(1)
                    current.append(match.group(0))
                    value_start = len(match.group(0))
                    i = match.end()
                    continue
            if c == "\\":
                if i + 1 < len(text) and text[i + 1] == "\n":
                    i += 2  # line continuation
                    continue
                if i + 1 < len(text):
                    current.append(text[i + 1])
                quoted = True
                i += 2
                continue
            if c == "'":
                end = text.find("'", i + 1)
                if end < 0:
                    raise _Unclosed()
                current.append(text[i + 1:end])
                quoted = True
                i = end + 1
                continue
            if c == '"':
                j = i + 1
                part: list[str] = []
                while True:
                    if j >= len(text):
                        raise _Unclosed()
                    d = text[j]
                    if d == '"':
                        break
                    if d == "\\" and j + 1 < len(text) and text[j + 1] in '$`"\\\n':
                        if text[j + 1] != "\n":
                            part.append(text[j + 1])
                        j += 2
                        continue
                    if d == "$":
                        value, j = self.expand(text, j)
                        part.append(value)
                        continue
                    if d == "`":
                        end = text.find("`", j + 1)
                        if end < 0:
                            raise _Unclosed()
                        self.notes.append(("command", text[j:end + 1]))
                        part.append(text[j:end + 1])
                        j = end + 1
                        continue
                    part.append(d)
                    j += 1
                current.append("".join(part))
                quoted = True
                i = j + 1
                continue
            if c == "`":
                end = text.find("`", i + 1)
                if end < 0:
                    raise _Unclosed()
                self.notes.append(("command", text[i:end + 1]))
                current.append(text[i:end + 1])
                i = end + 1
                continue
            if c == "$":
                if text.startswith("$'", i):
                    end = text.find("'", i + 2)
                    if end < 0:
                        raise _Unclosed()
                    current.append(_ansi_c(text[i + 2:end]))
                    quoted = True
                    i = end + 1
                    continue
                value, i = self.expand(text, i)
                current.append(value)
                continue
            current.append(c)
            i += 1
        finish()
        return [c for c in commands if c], len(text)


def _ansi_c(text: str) -> str:
    """The common escapes of bash's $'...' quoting."""
    table = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "a": "\a", "e": "\x1b"}
    return re.sub(r"\\(.)", lambda m: table.get(m.group(1), "\\" + m.group(1)), text)


def parse_env_text(text: str, source: str, base: Mapping[str, str] | None = None) -> EnvFile:
    """The variables `text` assigns, as `source FILE` in a POSIX shell would leave them.

    `base` is the environment the file is sourced into; it is used only to expand `$NAME`
    references the file itself does not set (an unknown reference stays as written, with a
    finding, because the tool cannot know the customer's environment).
    """
    env = EnvFile(source)
    reader = _Reader(env, base or {})
    first_assigned: dict[str, int] = {}
    if text.startswith("\ufeff"):
        first = text.split("\n", 1)[0]
        env.findings.append(make_finding("cache-envfile-bom", file=source, line=1, text=first[1:61]))
        # A shell reads the BOM as part of the first word, so line 1 does not assign anything.
        cut = text.find("\n")
        text = "\n" + text[cut + 1:] if cut >= 0 else ""
    if "\r\n" in text:
        line = text.count("\n", 0, text.index("\r\n")) + 1
        env.findings.append(make_finding("cache-envfile-crlf", file=source, line=line))
    pos = 0
    line_no = 1
    while pos < len(text):
        reader.notes = []
        reader.expanded = 0
        try:
            commands, used = reader.words(text[pos:])
        except _Unclosed:
            env.findings.append(make_finding("cache-envfile-unclosed-quote", file=source, line=line_no))
            break
        except _TooLong:
            raise InputError.from_code("cache-error-envfile-expansion", source, line_no,
                                       limit=MAX_EXPANDED_CHARS >> 10) from None
        chunk = text[pos:pos + used]
        _apply(env, commands, reader.notes, line_no, first_assigned)
        line_no += chunk.count("\n")
        pos += used
    for name in env.values:
        if name not in env.exported and name.startswith(WATCHED_PREFIXES):
            env.findings.append(make_finding("cache-envfile-not-exported", file=source,
                                             line=env.lines[name], name=name))
    return env


def _apply(env: EnvFile, commands: list[list[_Word]], notes: list[tuple[str, str]], line: int,
           first_assigned: dict[str, int]) -> None:
    source = env.source
    if any(kind == "operator" for kind, _ in notes):
        env.findings.append(make_finding("cache-envfile-not-assignment", file=source, line=line))
        return
    for words in commands:
        head = words[0]
        if head.text in (".", "source") and not head.quoted:
            target = words[1].text if len(words) > 1 else ""
            env.findings.append(make_finding("cache-envfile-source", file=source, line=line, target=target))
            continue
        if head.text == "unset" and not head.quoted:
            for word in words[1:]:
                if not word.text.startswith("-"):
                    env.values.pop(word.text, None)
                    env.lines.pop(word.text, None)
                    env.exported.discard(word.text)
                    env.unset.add(word.text)
            continue
        exporting = False
        args = words
        if head.text in _DECLARE and not head.quoted:
            options = [w.text for w in words[1:] if w.text.startswith("-") and w.assignment is None]
            exporting = head.text == "export" or any("x" in o for o in options)
            if head.text == "export" and any("n" in o for o in options):
                exporting = False
            args = [w for w in words[1:] if not (w.text.startswith("-") and w.assignment is None)]
        elif head.assignment is None:
            env.findings.append(make_finding("cache-envfile-not-assignment", file=source, line=line))
            continue
        else:
            prefix = [w for w in words if w.assignment is not None]
            if len(prefix) < len(words):
                # `NAME=value command`: the variable exists only for that one command.
                for w in prefix:
                    env.findings.append(make_finding("cache-envfile-command-prefix", file=source, line=line,
                                                     name=w.assignment[0]))  # type: ignore[index]
                continue
        for word in args:
            if word.assignment is not None:
                name, value = word.assignment
                if name in first_assigned and env.values.get(name) != value:
                    env.findings.append(make_finding("cache-envfile-reassigned", file=source, line=line,
                                                     name=name, first_line=first_assigned[name]))
                first_assigned.setdefault(name, line)
                env.values[name] = value
                env.lines[name] = line
                env.unset.discard(name)
                if exporting:
                    env.exported.add(name)
            elif _NAME.fullmatch(word.text) and exporting:
                env.exported.add(word.text)
            elif word.quoted and _ASSIGNMENT.match(word.text):
                # `export "NAME=value"`: the builtin sees NAME=value after quote removal.
                name, value = word.text.split("=", 1)
                first_assigned.setdefault(name, line)
                env.values[name], env.lines[name] = value, line
                env.unset.discard(name)
                if exporting:
                    env.exported.add(name)
    for kind, detail in notes:
        if kind == "command":
            env.findings.append(make_finding("cache-envfile-command-substitution", file=source, line=line,
                                             text=detail[:60]))
        elif kind == "unresolved":
            env.findings.append(make_finding("cache-envfile-unresolved", file=source, line=line, ref=detail))


def load_env_file(path: str | Path, base: Mapping[str, str] | None = None) -> EnvFile:
    """Read an env file; InputError when it is missing, a directory, binary or unreadable."""
    path = Path(path)
    data, _ = read_input_bytes(path, Message("cache-kind-env-file"), MAX_ENV_FILE_BYTES)
    if b"\x00" in data:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise InputError.from_code("cache-error-nul", path, line)
    text = data.decode("utf-8", "surrogateescape")
    env = parse_env_text(text, str(path), base)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        env.findings.append(make_finding("cache-envfile-invalid-utf8", file=str(path), line=line))
    return env
