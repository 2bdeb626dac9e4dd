"""CANN Config Assistant: the Qt-free core.

Everything that knows CANN, files and formats lives here, so the CLI runs on a bare server and
every rule is tested without a display. Nothing in this package may import PySide6.
"""

__version__ = "0.1.0"
