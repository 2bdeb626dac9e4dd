"""Loading the Qt translations for the chosen language: ours and Qt's own.

Our texts are translated in `resources/translations/cann_config_<lang>.ts` (made with
`pyside6-lupdate` over ui/). The compiled `.qm` is a build product: `make` and
packaging/build.sh compile it next to the `.ts`. Where that did not happen or is out of date (a
wheel or checkout installed without `make`, a `.ts` edited since), the `.ts` is compiled here,
once, with `pyside6-lrelease` into the user cache directory, before the window is shown (it
takes a few milliseconds; the normal case costs two `stat` calls). Without lrelease the window
stays English, with a one-line warning on stderr.

Qt's own `qtbase_<lang>.qm` (shipped with PySide6) translates the standard buttons and dialogs
(下一步 / 完成 / 取消).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, QLocale

from cann_config.app.i18n import normalize_language, set_language
from cann_config.app.resources import resource

if TYPE_CHECKING:  # pragma: no cover - typing only
    from PySide6.QtCore import QTranslator

CATALOG = "cann_config"  # resources/translations/cann_config_<lang>.ts
LRELEASE_TIMEOUT = 30.0  # seconds; compiling our .ts takes a few milliseconds

_installed: list[QTranslator] = []


def _resource_path(name: str) -> Path | None:
    """`resources/translations/<name>` as a file on disk, or None when there is none."""
    node = resource("translations", name)
    path = Path(str(node))
    return path if path.is_file() else None


def find_lrelease() -> str | None:
    """Qt's lrelease: the one inside the PySide6 package, then `pyside6-lrelease` beside this
    Python or on PATH, then a plain `lrelease` on PATH (the .ts and .qm formats are stable)."""
    import shutil

    try:
        import PySide6

        bundled = Path(PySide6.__file__).parent / ("lrelease.exe" if os.name == "nt" else "lrelease")
        if bundled.is_file() and os.access(bundled, os.X_OK):
            return str(bundled)
    except (ImportError, TypeError):
        pass
    beside = Path(sys.executable).parent / "pyside6-lrelease"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("pyside6-lrelease") or shutil.which("lrelease")


def cache_dir() -> Path:
    """Where translations compiled at run time are kept (the user cache directory)."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("cann-config", appauthor=False)) / "translations"


def compile_ts(ts: Path, qm: Path, lrelease: str) -> None:
    """Compile `ts` into `qm` (written to a temporary name first, so a reader never sees half a
    file). Raises OSError or subprocess.SubprocessError when lrelease fails."""
    import subprocess
    import tempfile

    qm.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{qm.stem}.", suffix=".qm", dir=str(qm.parent))
    os.close(fd)
    try:
        done = subprocess.run([lrelease, "-silent", str(ts), "-qm", tmp], stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=LRELEASE_TIMEOUT, check=False)
        if done.returncode != 0 or os.path.getsize(tmp) == 0:
            detail = (done.stderr or done.stdout).strip().splitlines()
            raise subprocess.SubprocessError(detail[-1] if detail else f"exit status {done.returncode}")
        os.replace(tmp, qm)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def catalog_qm(lang: str, *, lrelease: str | None = None, cache: Path | None = None) -> tuple[Path | None, str]:
    """The compiled translation of our texts for `lang`, and why there is none ("" when found).

    The `.qm` next to the `.ts` when it is at least as new; else one compiled from the `.ts`
    into `cache` (default: the user cache directory), named by the `.ts` content so a changed
    `.ts` is compiled again; else (None, reason).
    """
    name = f"{CATALOG}_{lang}"
    ts = _resource_path(f"{name}.ts")
    qm = _resource_path(f"{name}.qm")
    if qm is not None and (ts is None or qm.stat().st_mtime_ns >= ts.stat().st_mtime_ns):
        return qm, ""
    if ts is None:
        return None, f"no translation file {name}.ts"
    # Only when the build step did not run: what this needs is imported here, not at start-up.
    import hashlib
    import subprocess

    digest = hashlib.sha256(ts.read_bytes()).hexdigest()[:16]
    folder = cache or cache_dir()
    compiled = folder / f"{name}-{digest}.qm"
    if compiled.is_file():
        return compiled, ""
    tool = lrelease or find_lrelease()
    if tool is None:
        return None, "pyside6-lrelease was not found"
    try:
        compile_ts(ts, compiled, tool)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"{Path(tool).name} failed: {exc}"
    for old in folder.glob(f"{name}-*.qm"):  # earlier versions of the same .ts
        if old != compiled:
            old.unlink(missing_ok=True)
    return compiled, ""


def install_translators(lang: str) -> list[str]:
    """Replace the installed translators with those of `lang` ("zh_CN" or "en"); return the
    names of those that loaded (`qtbase_zh_CN`, `cann_config_zh_CN`)."""
    return _install(lang)[0]


def _install(lang: str) -> tuple[list[str], str]:
    """install_translators, and why our translation did not load ("" when it did)."""
    app = QCoreApplication.instance()
    if app is None:
        return [], "no application"
    for translator in _installed:
        app.removeTranslator(translator)
    _installed.clear()
    if lang == "en":
        QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))
        return [], ""
    # English needs no translator: what loads one is imported only for another language.
    from PySide6.QtCore import QLibraryInfo, QTranslator

    loaded = []
    qt = QTranslator(app)
    if qt.load(f"qtbase_{lang}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt)
        _installed.append(qt)
        loaded.append(f"qtbase_{lang}")
    qm, reason = catalog_qm(lang)
    ours = QTranslator(app)
    if qm is not None:
        if ours.load(str(qm)):
            # Installed last, so it is asked first.
            app.installTranslator(ours)
            _installed.append(ours)
            loaded.append(f"{CATALOG}_{lang}")
            QLocale.setDefault(QLocale(lang))
        else:
            reason = f"{qm} cannot be read"
    return loaded, reason


def apply_language(lang: str) -> str:
    """Show the interface and every catalog text in `lang` from now on; return the language
    in effect: English when the translation of the window cannot be had (with one line on
    stderr saying why), so the window never mixes languages."""
    lang = normalize_language(lang)
    loaded, reason = _install(lang)
    if lang != "en" and f"{CATALOG}_{lang}" not in loaded:
        print(f"cann-config: warning: the {lang} translation of the window cannot be loaded ({reason}); "
              "showing English", file=sys.stderr)
        _install("en")
        lang = "en"
    set_language(lang)
    return lang
