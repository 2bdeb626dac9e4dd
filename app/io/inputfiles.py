"""Reading a file the user named on the command line (or opened in the wizard), once, safely.

Every reader of user input (op_cache.ini, env files, scripts, npu-smi captures, support
bundles) must turn "this is not a file I can use" into one clear line naming the file — exit 2,
never a traceback (docs/architecture.md#exit-status). This is that one rule; what counts as the right
*content* stays with each reader.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from cann_config.app.errors import InputError, Message, os_reason


def read_input_bytes(path: str | os.PathLike[str], what: str | Message,
                     max_bytes: int) -> tuple[bytes, os.stat_result]:
    """The bytes of `path` and its stat; InputError when it is a directory, not a regular file,
    larger than `max_bytes`, or unreadable. `what` names the expected file, best as a message
    of the tables (Message("cache-kind-env-file")) so the reason reads in the user's language."""
    p = Path(path)
    try:
        with open(p, "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise InputError.from_code("core-input-not-regular", p, what=what)
            data = handle.read(max_bytes + 1)
    except InputError:
        raise
    except IsADirectoryError:
        raise InputError.from_code("core-input-directory", p, what=what) from None
    except OSError as exc:
        raise InputError.from_code("core-input-cannot-read", p, detail=os_reason(exc)) from None
    if len(data) > max_bytes:
        raise InputError.from_code("core-input-too-large", p, size=_size(max_bytes), what=what)
    return data, info


def _size(n: int) -> str:
    return f"{n >> 20} MB" if n >= 1 << 20 else f"{n >> 10} KB"
