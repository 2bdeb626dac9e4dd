"""What the wizard remembers between runs (QSettings): window geometry, last choices, recent
files and the language.

The organisation and application names are set once, in `configure_application`; every read and
write goes through `app_settings()`, which uses the INI format in the user scope, so a test can
point the whole store at a temporary directory with `QSettings.setPath` and never touch the
real home.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QSettings

ORGANIZATION = "cann-config"
APPLICATION = "cann-config"
RECENT_LIMIT = 8

KEY_GEOMETRY = "window/geometry"
KEY_GEOMETRY_SCALE = "window/scale"  # the devicePixelRatio the geometry was saved at
KEY_LANGUAGE = "ui/language"
KEY_FORMAT = "choices/exportFormat"
KEY_CHANGED_ONLY = "choices/changedOnly"
KEY_ADVANCED = "choices/showAdvanced"
KEY_CONCURRENT = "choices/concurrentGraphs"
KEY_RECENT = "files/recent"


def configure_application(app: QCoreApplication) -> None:
    """Name the application once, so QSettings and the platform know who we are."""
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)


def app_settings() -> QSettings:
    """The settings store (INI format, user scope; tests redirect it with QSettings.setPath)."""
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)


def read_str(key: str, default: str = "") -> str:
    value = app_settings().value(key, default)
    return value if isinstance(value, str) else default


def read_bool(key: str, default: bool = False) -> bool:
    value = app_settings().value(key, default)
    if isinstance(value, str):
        return value.lower() in ("1", "true", "yes")
    return bool(value)


def write(key: str, value: object) -> None:
    store = app_settings()
    store.setValue(key, value)
    store.sync()


def recent_files() -> list[str]:
    value = app_settings().value(KEY_RECENT, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)):  # QSettings gives what the file holds: anything
        return []
    return [v for v in value if isinstance(v, str) and v]


def add_recent_file(path: str) -> list[str]:
    """Put `path` first in the recent-files list (kept short, no duplicates); return the list."""
    files = [path] + [p for p in recent_files() if p != path]
    files = files[:RECENT_LIMIT]
    write(KEY_RECENT, files)
    return files
