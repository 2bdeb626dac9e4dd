"""The one guarded way in: every file the user names or the environment points at is read here.

Every reader of user input (op_cache.ini, env files, scripts, npu-smi captures, support bundles,
profiles) must turn "this is not a file I can use" into one clear line naming the file - exit 2,
never a traceback, never a hang (docs/architecture.md#exit-status and #input-and-output):

- the file is opened with O_NONBLOCK and O_NOCTTY, then checked with fstat: a FIFO, a socket, a
  device node or a directory is refused with one line before a byte is read (a FIFO without a
  writer would block `open()` forever; /dev/zero would never end; a terminal must not become our
  controlling terminal);
- at most `max_bytes + 1` bytes are read: a bigger file is refused, never loaded;
- every OSError (EACCES, ENAMETOOLONG, ELOOP, ENOENT, ...) becomes an InputError in the user's
  language (app.errors.os_reason);
- JSON (profiles, bundles) is parsed with limits on nesting and on the digits of a number
  (`parse_json_bounded`), because Python's decoder recurses per level and converts any number of
  digits, and both end in RecursionError or ValueError deep inside.

What counts as the right *content* stays with each reader.

Public API:
    input_exists(path) -> bool                                  (InputError when it cannot be looked at)
    input_is_dir(path) -> bool | None                           (None: nothing there)
    open_regular(path, what) -> tuple[int, os.stat_result]     (an fd the caller closes)
    read_input_bytes(path, what, max_bytes, *, nofollow=False) -> tuple[bytes, os.stat_result]
    parse_json_bounded(text, source, *, max_depth=..., max_digits=...) -> object
    describe_kind(mode) -> Message                              ("a FIFO", "a character device", ...)
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from cann_config.app.errors import InputError, Message, os_reason

# O_NONBLOCK: opening a FIFO that has no writer returns at once instead of waiting for one.
# O_NOCTTY: opening a terminal device never makes it this process's controlling terminal.
READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
# A profile or a bundle is a few levels deep; anything far deeper is not one.
MAX_JSON_DEPTH = 64
# The longest number a profile or bundle legitimately holds is a byte count (20 digits).
MAX_JSON_DIGITS = 40

_KINDS = ((stat.S_ISDIR, "core-kind-directory"), (stat.S_ISFIFO, "core-kind-fifo"),
          (stat.S_ISSOCK, "core-kind-socket"), (stat.S_ISCHR, "core-kind-char-device"),
          (stat.S_ISBLK, "core-kind-block-device"), (stat.S_ISLNK, "core-kind-symlink"))


def describe_kind(mode: int) -> Message:
    """What kind of file `mode` (st_mode) is, as a message ("a FIFO", "a directory", ...)."""
    for test, code in _KINDS:
        if test(mode):
            return Message(code)
    return Message("core-kind-special")


def input_exists(path: str | os.PathLike[str]) -> bool:
    """Whether anything is at `path` (a final symlink is not followed): False when nothing is
    (ENOENT, ENOTDIR), InputError naming the path when it cannot even be looked at (EACCES on a
    parent, ENAMETOOLONG, ELOOP...): "unreadable" must never read as "not there"."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as exc:
        raise InputError.from_code("core-input-cannot-read", Path(path), detail=os_reason(exc)) from None
    except ValueError:  # a NUL byte in the path
        raise InputError.from_code("core-input-cannot-read", Path(path),
                                   detail=Message("core-os-nul-in-path")) from None
    return True


def input_is_dir(path: str | os.PathLike[str]) -> bool | None:
    """None when nothing is at `path`, True for a directory (or a symlink to one), False for
    anything else; InputError naming the path when it cannot be looked at (see input_exists)."""
    if not input_exists(path):
        return None
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False  # a dangling symlink: something is there, and it is no directory
    except OSError as exc:
        raise InputError.from_code("core-input-cannot-read", Path(path), detail=os_reason(exc)) from None


def open_regular(path: str | os.PathLike[str], what: str | Message,
                 *, nofollow: bool = False) -> tuple[int, os.stat_result]:
    """Open `path` for reading without blocking; InputError unless it is a regular file.

    Returns the open descriptor (the caller closes it) and its fstat. `what` names the expected
    file, best as a message of the tables (Message("cache-kind-env-file")). With `nofollow` a
    symlink in the last component is refused (ELOOP), not followed.
    """
    p = Path(path)
    try:
        fd = os.open(p, READ_FLAGS | (os.O_NOFOLLOW if nofollow else 0))
    except OSError as exc:
        if exc.errno in (errno.ENXIO, errno.EOPNOTSUPP):
            # A socket cannot be opened at all (ENXIO): say what it is rather than the errno.
            with contextlib.suppress(OSError):
                mode = os.stat(p).st_mode
                if not stat.S_ISREG(mode):
                    raise InputError.from_code("core-input-special", p, kind=describe_kind(mode), what=what) from None
        raise InputError.from_code("core-input-cannot-read", p, detail=os_reason(exc)) from None
    except ValueError:  # a NUL byte in the path
        raise InputError.from_code("core-input-cannot-read", p, detail=Message("core-os-nul-in-path")) from None
    try:
        info = os.fstat(fd)
    except OSError as exc:
        os.close(fd)
        raise InputError.from_code("core-input-cannot-read", p, detail=os_reason(exc)) from None
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError.from_code("core-input-directory", p, what=what)
        raise InputError.from_code("core-input-special", p, kind=describe_kind(info.st_mode), what=what)
    return fd, info


def read_input_bytes(path: str | os.PathLike[str], what: str | Message,
                     max_bytes: int, *, nofollow: bool = False) -> tuple[bytes, os.stat_result]:
    """The bytes of `path` and its stat; InputError when it is not a regular file, larger than
    `max_bytes`, or unreadable. `what` names the expected file, best as a message of the tables
    (Message("cache-kind-env-file")) so the reason reads in the user's language."""
    p = Path(path)
    fd, info = open_regular(p, what, nofollow=nofollow)
    chunks: list[bytes] = []
    total = 0
    try:
        # A regular file cannot block; the loop also ends at max_bytes + 1 for a file that grows.
        while total <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except OSError as exc:
        raise InputError.from_code("core-input-cannot-read", p, detail=os_reason(exc)) from None
    finally:
        os.close(fd)
    if total > max_bytes:
        raise InputError.from_code("core-input-too-large", p, size=_size(max_bytes), what=what)
    return b"".join(chunks), info


class _TooLong(ValueError):
    pass


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_JSON_DIGITS:
        raise _TooLong(text)
    return int(text)


class _NonFinite(ValueError):
    pass


def _bounded_float(text: str) -> float:
    if len(text) > MAX_JSON_DIGITS * 2:
        raise _TooLong(text)
    value = float(text)
    if not math.isfinite(value):  # 1e999: a number no plain-JSON reader can hold
        raise _NonFinite(text)
    return value


def _non_finite(token: str) -> float:
    """NaN, Infinity, -Infinity: Python's json module reads them; RFC 8259 JSON has no such token,
    and other readers (jq, browsers, the receiving side of a bundle) refuse the file."""
    raise _NonFinite(token)


def _outside_strings(text: str) -> Iterator[tuple[int, str]]:
    """Each character of JSON `text` that stands outside a string, with its index."""
    in_string = escaped = False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        else:
            yield index, char


def _token_position(text: str, token: str) -> int:
    """Where `token` stands outside a JSON string (the first such place), or -1."""
    return next((index for index, _char in _outside_strings(text) if text.startswith(token, index)), -1)


def _depth_exceeds(text: str, limit: int) -> int | None:
    """The line where brackets outside strings nest deeper than `limit`, or None."""
    depth = 0
    for index, char in _outside_strings(text):
        if char in "[{":
            depth += 1
            if depth > limit:
                return text.count("\n", 0, index) + 1
        elif char in "]}":
            depth -= 1
    return None


def parse_json_bounded(text: str, source: str | os.PathLike[str], *, max_depth: int = MAX_JSON_DEPTH,
                       max_digits: int = MAX_JSON_DIGITS) -> object:
    """`json.loads(text)` with nesting at most `max_depth` levels and numbers of at most
    `max_digits` digits; InputError naming `source` (and the line) otherwise or when it is not JSON."""
    source = os.fspath(source)
    line = _depth_exceeds(text, max_depth)
    if line is not None:
        raise InputError.from_code("core-json-too-deep", source, line, limit=max_depth)
    try:
        return json.loads(text, parse_int=_bounded_int, parse_float=_bounded_float, parse_constant=_non_finite)
    except _NonFinite as exc:
        position = _token_position(text, str(exc.args[0]))
        where = text.count("\n", 0, position) + 1 if position >= 0 else None
        raise InputError.from_code("core-json-non-finite", source, where, token=exc.args[0]) from None
    except _TooLong as exc:
        position = text.find(str(exc.args[0])[:max_digits])
        where = text.count("\n", 0, position) + 1 if position >= 0 else None
        raise InputError.from_code("core-json-number-too-long", source, where, limit=max_digits) from None
    except json.JSONDecodeError as exc:
        raise InputError.from_code("core-json-invalid", source, exc.lineno, detail=exc.msg) from None
    except (ValueError, RecursionError) as exc:
        raise InputError.from_code("core-json-invalid", source, detail=type(exc).__name__) from None


def _size(n: int) -> str:
    return f"{n >> 20} MB" if n >= 1 << 20 else f"{n >> 10} KB"
