"""The four wizard pages: device, memory, cache, export. Each reads the controller and has a
`retranslate()` so a language switch can redo every text.

The memory, cache and export pages build their widgets on demand (`ensure_built`): the
application builds them right after the window's first paint, so the window appears as soon as
the device page is ready; `ui.create_wizard` builds them at once.
"""

from __future__ import annotations

from PySide6.QtWidgets import QWidget, QWizardPage


class LazyPage(QWizardPage):
    """A wizard page whose content is made by `_build()` the first time it is needed."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.built = False

    def ensure_built(self) -> None:
        if not self.built:
            self.built = True
            self._build()

    def _build(self) -> None:
        """Make the page's widgets (each page overrides this)."""

    def initializePage(self) -> None:  # noqa: N802 - Qt override
        self.ensure_built()
