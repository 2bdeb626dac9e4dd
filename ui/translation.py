"""Loading the Qt translations for the chosen language (ours and Qt's own dialogs').

The translation files come in their own issue (`resources/translations/cann_config_<lang>.qm`);
until one exists the English source texts are shown. Qt's `qtbase_<lang>.qm` (shipped with
PySide6) translates the standard buttons and dialogs.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from app.resources import resource

_installed: list[QTranslator] = []


def install_translators(lang: str) -> list[str]:
    """Replace the installed translators with those of `lang` ("zh_CN" or "en"); return what loaded."""
    app = QCoreApplication.instance()
    if app is None:
        return []
    for translator in _installed:
        app.removeTranslator(translator)
    _installed.clear()
    if lang == "en":
        QLocale.setDefault(QLocale(QLocale.Language.English))
        return []
    QLocale.setDefault(QLocale(lang))
    loaded = []
    qt = QTranslator(app)
    if qt.load(f"qtbase_{lang}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt)
        _installed.append(qt)
        loaded.append(f"qtbase_{lang}")
    node = resource("translations", f"cann_config_{lang}.qm")
    if node.is_file():
        ours = QTranslator(app)
        if ours.load(str(node)):
            app.installTranslator(ours)
            _installed.append(ours)
            loaded.append(f"cann_config_{lang}")
    return loaded
