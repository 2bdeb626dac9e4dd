"""Page 3 (`cachePage`): the operator-compile cache — mode, directory, size limit, keep ratio,
the gauge and op_cache.ini.

The page composes the panels of `ui.pages.cache_panels` (directories, limits, gauge and scan,
op_cache.ini) around one CacheState, which holds what the core resolves for the current
choices; every panel shows a part of it. The editors show the value that will be written: the
user's choice when there is one, otherwise the value kept. op_cache.ini is written only after
the review dialog, never silently.

With a support bundle open the page shows the customer's host: the effective values resolved
from the bundle's op_cache.ini and environment, checked against the customer's installed CANN
(as `bundle.diagnosis()` resolves them), and the gauge shows the cache as `collect` measured it
there. Nothing of it is on this computer, so the scan and the save of op_cache.ini are off,
each saying why.

This module is imported before the first paint; the panels (and the core modules they call) are
imported when the page is built.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QThread
from PySide6.QtWidgets import QFrame, QGroupBox, QLabel, QScrollArea, QVBoxLayout, QWidget

from cann_config.app.catalog import Option, Value
from cann_config.ui.controller import WizardController
from cann_config.ui.docpane import findings_label, show_findings_label
from cann_config.ui.pages.options import OptionsPage

if TYPE_CHECKING:  # pragma: no cover - typing only
    from cann_config.ui.pages.cache_panels.dirs import CacheDirsPanel
    from cann_config.ui.pages.cache_panels.ini import IniPanel
    from cann_config.ui.pages.cache_panels.limits import LimitsPanel
    from cann_config.ui.pages.cache_panels.state import CacheState
    from cann_config.ui.pages.cache_panels.usage import UsagePanel


def is_graph_cache(option: Option) -> bool:
    """MindSpore's graph compile cache (MS_COMPILER_CACHE_*): set only through MindSpore's own
    variables, never through op_cache.ini or a CANN name (the catalog's targets say so)."""
    t = option.targets
    return bool(t.env) and set(t.env) == {"mindspore"} and not t.ini


class CachePage(OptionsPage):
    core_modules = ("cann_config.app.opcache.cachedir", "cann_config.app.opcache.which_ini", "cann_config.app.opcache.ini",
                    "cann_config.app.opcache.resolution", "cann_config.app.opcache.scanner",
                    "cann_config.app.opcache.cleanup", "cann_config.app.io.inputfiles", "cann_config.app.units",
                    "cann_config.app.sizes",
                    "cann_config.app.device.versions")
    widget_modules = ("cann_config.ui.pages.cache_panels.state", "cann_config.ui.pages.cache_panels.dirs",
                      "cann_config.ui.pages.cache_panels.limits", "cann_config.ui.gauge", "cann_config.ui.workers",
                      "cann_config.ui.pages.cache_panels.usage", "cann_config.ui.pages.cache_panels.ini")

    def __init__(self, controller: WizardController, parent: QWidget | None = None):
        super().__init__("cache", controller, parent)
        self.setObjectName("cachePage")
        self.state: CacheState | None = None
        self.dirs_panel: CacheDirsPanel | None = None
        self.limits_panel: LimitsPanel | None = None
        self.usage_panel: UsagePanel | None = None
        self.ini_panel: IniPanel | None = None
        self.graph_group: QGroupBox
        self.graph_hint: QLabel

    def build(self) -> Iterator[None]:
        # In slices: the panels' modules import the core's cache modules, the gauge and the
        # workers; each panel is made in its own turn of the event loop.
        from cann_config.ui.pages.cache_panels.state import CacheState

        self.state = state = CacheState(self.controller, self._start_worker, self.refresh)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        # What export would say about this page's choices (a cache mode the framework cannot
        # take, ...), in its words and severity, shown while it holds and gone when undone.
        self.findings_label = findings_label(self, "cacheFindings")
        outer.addWidget(self.findings_label)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        body = QWidget(scroll)
        layout = QVBoxLayout(body)
        options = self.options()
        yield
        from cann_config.ui.pages.cache_panels.dirs import CacheDirsPanel
        from cann_config.ui.pages.cache_panels.limits import LimitsPanel

        graph = [o for o in options if is_graph_cache(o)]
        options = [o for o in options if not is_graph_cache(o)]
        self.dirs_panel = CacheDirsPanel(self.controller, state, [o for o in options if not o.targets.ini],
                                         self.make_row, body)
        yield
        self.limits_panel = LimitsPanel(self.controller, state, [o for o in options if o.targets.ini],
                                        self.make_row, body)
        layout.addWidget(self.dirs_panel)
        layout.addWidget(self.limits_panel)
        yield
        from cann_config.ui.pages.cache_panels.usage import UsagePanel

        self.usage_panel = UsagePanel(self.controller, state, body)
        self.usage_panel.workerStarted.connect(self.workerStarted)
        layout.addWidget(self.usage_panel)
        yield
        from cann_config.ui.pages.cache_panels.ini import IniPanel

        self.ini_panel = IniPanel(self.controller, state, body)
        layout.addWidget(self.ini_panel)
        # MindSpore's graph compile cache: another cache with other rules, in a group of its own
        # below CANN's, never in the gauge (docs/cann/mindspore.md#graph-compile-cache).
        self.graph_group = QGroupBox(body)
        self.graph_group.setObjectName("graphCacheGroup")
        graph_layout = QVBoxLayout(self.graph_group)
        self.graph_hint = QLabel(self.graph_group)
        self.graph_hint.setObjectName("graphCacheHint")
        self.graph_hint.setWordWrap(True)
        graph_layout.addWidget(self.graph_hint)
        for option in graph:
            graph_layout.addWidget(self.make_row(option, self.graph_group))
        layout.addWidget(self.graph_group)
        layout.addStretch(1)
        yield
        scroll.setWidget(body)
        outer.addWidget(scroll, 1)
        c = self.controller
        c.profileChanged.connect(self.refresh)
        c.deviceChanged.connect(self.refresh)
        c.filesChanged.connect(self.refresh)
        c.bundleChanged.connect(self._bundle_opened)

    def panels(self) -> tuple[CacheDirsPanel, LimitsPanel, UsagePanel, IniPanel]:
        assert self.dirs_panel and self.limits_panel and self.usage_panel and self.ini_panel
        return self.dirs_panel, self.limits_panel, self.usage_panel, self.ini_panel

    # -- the lifecycle --------------------------------------------------------------------------

    def shown_value(self, option_id: str) -> Value:
        assert self.state is not None
        return self.state.shown_value(option_id)

    def modified(self, option_id: str) -> bool:
        """An op_cache.ini setting is modified when the choice differs from the value kept (the
        file's, else the one CANN uses now); Reset goes back to that value. Nothing to reset
        when the choice already is that value, e.g. just after op_cache.ini was saved with it."""
        assert self.state is not None
        base = self.state.base_value(option_id)
        if base is None:
            return super().modified(option_id)
        options = self.controller.profile.options
        return option_id in options and options[option_id] != base

    def reset_to_start(self, option_id: str) -> None:
        assert self.state is not None
        if self.state.base_value(option_id) is None:
            super().reset_to_start(option_id)
        else:
            self.controller.reset_value(option_id)

    def refresh(self) -> None:
        if not self.built:
            return
        assert self.state is not None
        self.state.resolve()
        super().refresh()  # the rows, with the values a save would write
        self.graph_group.setVisible(any(self.belongs_here(row.option) for row in self.rows.values()
                                        if is_graph_cache(row.option)))
        for panel in self.panels():
            panel.refresh()
        self._show_findings()

    def _show_findings(self) -> None:
        """`cacheFindings`: the errors and warnings `export` gives for this page's choices
        (app.session.Session.page_findings, through the controller)."""
        show_findings_label(self.findings_label, self.controller.page_findings("cache"))

    def retranslate_page(self) -> None:
        self.setTitle(self.tr("Operator compile cache"))
        self.setSubTitle(self.tr("Where compiled operators are kept, how much space they may use, and what "
                                 "CANN would delete next."))
        for panel in self.panels():
            panel.retranslate()
        self._show_findings()
        self.graph_group.setTitle(self.tr("MindSpore graph compile cache — not CANN's operator cache"))
        self.graph_hint.setText(self.tr("MindSpore's own cache of compiled graphs (MS_COMPILER_CACHE_ENABLE, "
                                        "MS_COMPILER_CACHE_PATH). op_cache.ini, the size limit, the gauge and "
                                        "CANN's cleanup above do not apply to it."))

    def stop(self) -> None:
        if self.state is not None:
            self.state.stop()
        self.panels()[2].stop()

    def _start_worker(self, worker: QThread) -> None:
        """Start a worker of the page's state (an op_cache.ini read), kept by the wizard to join it."""
        worker.setParent(self)
        self.workerStarted.emit(worker)
        worker.start()

    def _bundle_opened(self) -> None:
        """A bundle replaces this computer's cache and op_cache.ini."""
        _dirs, _limits, usage, ini = self.panels()
        usage.forget_scan()
        ini.forget_save()
        self.refresh()

    # -- what the wizard asks -------------------------------------------------------------------

    def unsaved_ini(self) -> str | None:
        """The op_cache.ini path when the choices would change it and it was not saved (None
        otherwise, and always for a bundle's file, which is not saved from here; and before the page
        is built, when nothing can have changed it)."""
        return self.state.unsaved_ini() if self.state is not None else None

    def ini_path(self) -> Path:
        """The op_cache.ini this page edits: the one the user opened, else the resolved one."""
        self.ensure_built()
        assert self.state is not None
        return self.state.ini_path()
