"""The lifecycle every wizard page declares, so the wizard treats its pages alike (Picard's
`OptionsPage` with load/save/check is the model).

    build()        make the page's widgets, once. A generator may yield between slices: the
                   wizard builds the pages after the first paint one slice per turn of the
                   event loop (no slice may stall the loop for more than 50 ms:
                   docs/architecture.md#pages-paid-for-when-shown), and a page visited or asked
                   for before it is done is finished at once (`ensure_built`).
    retranslate()  set the page's own texts again in the current language.
    refresh()      show the controller's state (after a build, a change, a language switch).
    remember()     write what the page remembers between runs (QSettings) when the window closes.
    stop()         the window is closing: start no worker from now on.
    help_html()    the page's help for the documentation pane, or None (the pane then shows
                   the documentation of the page's first option).

The wizard calls retranslate, refresh, remember and stop only on pages that are built: a page
never shown has nothing to show, remember or stop. The heavy imports of a page (its widgets, the
core modules it calls) are made by its `build()`, so the page itself can be created before the
first paint at no cost.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, QThread, Signal
from PySide6.QtWidgets import QWidget, QWizardPage

if TYPE_CHECKING:  # pragma: no cover - typing only
    from cann_config.ui.controller import WizardController


class WizardPage(QWizardPage):
    """A page of the configWizard around the one WizardController."""

    docRequested = Signal(str)  # show this option's documentation in the pane
    workerStarted = Signal(QThread)  # a worker the wizard joins when the window closes

    # Pages whose Tab stops include widgets that draw no focus mark (ui/focusmark.py).
    focus_marks = False

    def __init__(self, controller: WizardController, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.built = False
        self.prepared = False  # laid out and painted once (prepare_to_show)
        self._building: Iterator[None] | None = None

    # -- the lifecycle (pages override these) ----------------------------------------------------

    def build(self) -> Iterator[None] | None:
        """Make the page's widgets (a generator may yield between slices)."""
        raise NotImplementedError  # abstract

    def retranslate(self) -> None:
        """Set the page's own texts again, in the current language."""

    def refresh(self) -> None:
        """Show the controller's state."""

    def remember(self) -> None:
        """Write what the page remembers between runs."""

    def stop(self) -> None:
        """The window is closing: start no worker from now on."""

    def help_html(self) -> str | None:
        return None

    # The core modules (pure Python, no Qt) the page's build and first refresh import: the
    # wizard imports them in a worker thread after the first paint (ui/workers.py
    # ModulePreloader), so building the page on the GUI thread finds them loaded.
    core_modules: tuple[str, ...] = ()
    # The page's own widget modules, imported by the same thread: only modules whose import
    # defines classes and makes no Qt object (a QPalette or a text format made at import, as
    # ui/highlighter.py does, belongs to the GUI thread).
    widget_modules: tuple[str, ...] = ()

    # -- building ----------------------------------------------------------------------------

    def build_slice(self) -> bool:
        """Build one slice of the page; True once the page is built."""
        if self.built:
            return True
        if self._building is None:
            self._building = self._build_steps()
        if next(self._building, StopIteration) is StopIteration:
            self._building = None
        return self.built

    def _build_steps(self) -> Iterator[None]:
        """The page's own slices (`build()`), then its focus mark, its texts and its first
        `refresh()`, each in a slice of its own: together they would stall the loop longer
        than any one of them (docs/architecture.md#pages-paid-for-when-shown)."""
        steps = self.build()
        if steps is not None:
            yield from steps
        yield
        if self.focus_marks:
            from cann_config.ui.focusmark import FocusMark

            self._focus_mark = FocusMark(self)
            yield
        yield from self.build_texts()
        self.built = True
        self.refresh()

    def build_texts(self) -> Iterator[None]:
        """Set the page's texts while it is built (a page with many may yield between them)."""
        self.retranslate()
        yield

    def prepare_to_show(self, size: QSize) -> None:
        """Lay the page out at `size` and paint it once into a pixmap, off screen: the style's
        polish, the layouts, the fonts' glyphs and the widgets' first paint (the cache gauge's)
        are then paid in a slice of their own, not when the page is first shown. A page on
        screen has paid for it already."""
        self.prepared = True
        if not self.built or self.isVisible() or size.isEmpty():
            return
        from PySide6.QtGui import QPixmap

        self.resize(size)
        # The wizard's page frame lays the hidden page out again while it is rendered, at the
        # width it is shown at (its height may differ: the scroll areas' viewports adjust when it is shown).
        self.render(QPixmap(size))

    def ensure_built(self) -> None:
        """Build the whole page now (it is being shown, or a caller needs its widgets)."""
        while not self.build_slice():
            pass

    def initializePage(self) -> None:  # noqa: N802 - Qt override
        self.ensure_built()
        wizard = self.wizard()
        if wizard is not None and wizard.page(wizard.startId()) is self and not wizard.property("painted"):
            return  # the start page before the first paint: the wizard's first slice after it does this
        self.set_reading_order()

    def set_reading_order(self) -> None:
        """Tab in reading order, titles included (ui/taborder.py); again at each visit, since a
        page may have moved its groups since (the memory page's for PyTorch)."""
        from cann_config.ui.taborder import set_reading_order

        set_reading_order(self)
