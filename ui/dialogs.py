"""Every modal question the wizard asks, in one place.

Tests replace these functions with monkeypatch (pytest-qt's advice for modal dialogs), so no
test ever waits on a dialog; the wizard never opens a QFileDialog or QMessageBox elsewhere.
Qt's dialog classes are imported when a dialog is asked for: the module is imported before the
window's first paint, and no dialog is needed until the user does something.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

if TYPE_CHECKING:  # pragma: no cover - typing only
    from PySide6.QtWidgets import QDialog, QWidget

translate = QCoreApplication.translate


def choose_open_file(parent: QWidget, title: str, filters: str, start: str = "") -> str:
    """A file to read, or "" when the user cancelled."""
    from PySide6.QtWidgets import QFileDialog

    path, _ = QFileDialog.getOpenFileName(parent, title, start, filters)
    return path


def choose_open_files(parent: QWidget, title: str, filters: str, start: str = "") -> list[str]:
    """Files to read (one or several), or [] when the user cancelled."""
    from PySide6.QtWidgets import QFileDialog

    paths, _ = QFileDialog.getOpenFileNames(parent, title, start, filters)
    return list(paths)


def choose_save_file(parent: QWidget, title: str, suggested: str, filters: str) -> str:
    """Where to write (the dialog asks before replacing a file), or "" when cancelled."""
    from PySide6.QtWidgets import QFileDialog

    path, _ = QFileDialog.getSaveFileName(parent, title, suggested, filters)
    return path


def choose_directory(parent: QWidget, title: str, start: str = "") -> str:
    from PySide6.QtWidgets import QFileDialog

    return QFileDialog.getExistingDirectory(parent, title, start)


def ask_unsaved(parent: QWidget, details: str, *, choices: bool = True, ini_path: str | None = None) -> str:
    """"save" (the choices, as a profile), "save-ini" (the op_cache.ini edit), "discard" or
    "cancel": one button per unsaved thing, so each can be saved before closing."""
    from PySide6.QtWidgets import QMessageBox

    things = []
    if choices:
        things.append(translate("Dialogs", "your choices have not been saved or copied yet"))
    if ini_path:
        things.append(translate("Dialogs", "the change to %1 has not been saved").replace("%1", ini_path))
    text = translate("Dialogs", "Unsaved: %1.").replace("%1", translate("Dialogs", "; ").join(things))
    box = QMessageBox(QMessageBox.Icon.Question, translate("Dialogs", "Unsaved changes"), text, parent=parent)
    box.setInformativeText(details)
    save = box.addButton(translate("Dialogs", "&Save profile…"), QMessageBox.ButtonRole.AcceptRole) if choices else None
    save_ini = (box.addButton(translate("Dialogs", "Save &op_cache.ini…"), QMessageBox.ButtonRole.AcceptRole)
                if ini_path else None)
    discard = box.addButton(translate("Dialogs", "&Discard"), QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    default = save or save_ini
    if default is not None:
        box.setDefaultButton(default)
    box.exec()
    clicked = box.clickedButton()
    if clicked is not None and clicked is save:
        return "save"
    if clicked is not None and clicked is save_ini:
        return "save-ini"
    if clicked is discard:
        return "discard"
    return "cancel"


def confirm_clean(parent: QWidget, text: str, details: str) -> bool:
    """True when the user agrees to delete what `cann-config clean` listed (`details`: the jsons)."""
    from PySide6.QtWidgets import QMessageBox

    box = QMessageBox(QMessageBox.Icon.Warning, translate("Dialogs", "Clean the cache"), text, parent=parent)
    box.setDetailedText(details)
    delete = box.addButton(translate("Dialogs", "&Delete"), QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is delete


def show_error(parent: QWidget, title: str, text: str) -> None:
    from PySide6.QtWidgets import QMessageBox

    QMessageBox.warning(parent, title, text)


def run_dialog(dialog: QDialog) -> bool:
    """Run a dialog of ours modally; True when accepted."""
    from PySide6.QtWidgets import QDialog

    return dialog.exec() == QDialog.DialogCode.Accepted
