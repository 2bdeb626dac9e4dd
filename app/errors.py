"""The two ways a command can fail before it has anything to say about CANN.

Both end the CLI with exit status 2 and a one-line reason on stderr (DESIGN.md, "Exit
status"); neither ever becomes a traceback.
"""

from __future__ import annotations

from pathlib import Path


class UsageError(Exception):
    """The command line itself is wrong (unknown option id, bad --set syntax, ...)."""


class InputError(Exception):
    """An input file cannot be used at all: missing, unreadable, not the expected format.

    The message names the file and, where known, the line, as `file:line: reason`.
    """

    def __init__(self, reason: str, file: str | Path | None = None, line: int | None = None):
        self.reason = reason
        self.file = str(file) if file is not None else None
        self.line = line
        super().__init__(self.one_line())

    def one_line(self) -> str:
        where = ""
        if self.file is not None:
            where = self.file if self.line is None else f"{self.file}:{self.line}"
            where += ": "
        return where + " ".join(self.reason.split())
