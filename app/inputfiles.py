"""Reading a file the user named on the command line (or opened in the wizard), once, safely.

Every reader of user input (op_cache.ini, env files, scripts, npu-smi captures, support
bundles) must turn "this is not a file I can use" into one clear line naming the file — exit 2,
never a traceback (DESIGN.md, "Exit status"). This is that one rule; what counts as the right
*content* stays with each reader.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from app.errors import InputError


def read_input_bytes(path: str | os.PathLike[str], what: str, max_bytes: int) -> tuple[bytes, os.stat_result]:
    """The bytes of `path` and its stat; InputError when it is a directory, not a regular file,
    larger than `max_bytes`, or unreadable. `what` names the expected file ("an env file")."""
    p = Path(path)
    try:
        with open(p, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise InputError(f"is not a regular file, not {what}", p)
            data = handle.read(max_bytes + 1)
    except InputError:
        raise
    except IsADirectoryError:
        raise InputError(f"is a directory, not {what}", p) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", p) from None
    if len(data) > max_bytes:
        raise InputError(f"is larger than {_size(max_bytes)}: too large to be {what}", p)
    return data, info


def _size(n: int) -> str:
    return f"{n >> 20} MB" if n >= 1 << 20 else f"{n >> 10} KB"
