"""Reading a log or a pasted error for the triage: a file through the guarded reader, or standard input.

Why a module of its own: `cann-config triage` and `cann-config collect --log` read logs alike
(app/triage/bundled.py), bounded in size, refusing binary data with one line naming the file
(docs/architecture.md#input-and-output).

Public API:
    MAX_LOG_BYTES
    read_log(path) -> (text, source)        path "-": standard input
"""

from __future__ import annotations

import sys

from cann_config.app.errors import InputError, Message, UsageError

# A log is read whole; bigger ones are cut to their end by the user (`tail -c 64M`).
MAX_LOG_BYTES = 64 << 20


def read_log(path: str) -> tuple[str, str]:
    """(text, source name) of the log at `path` ('-': standard input); InputError when unusable."""
    from cann_config.app.io.inputfiles import read_input_bytes

    if path == "-":
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError.from_code("triage-error-stdin-terminal")
        data = sys.stdin.buffer.read(MAX_LOG_BYTES + 1)
        source = "<stdin>"
        if len(data) > MAX_LOG_BYTES:
            raise InputError.from_code("core-input-too-large", source, size=f"{MAX_LOG_BYTES >> 20} MB",
                                       what=Message("triage-kind-log"))
    else:
        data, _ = read_input_bytes(path, Message("triage-kind-log"), MAX_LOG_BYTES)
        source = path
    if b"\x00" in data:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise InputError.from_code("cache-error-nul", source, line)
    return data.decode("utf-8", "replace"), source
