"""Page 1 (`devicePage`): which device, which framework, which files to start from.

The banner (`deviceBanner`) says what was detected and how; detection runs in a worker after
the window is shown, so a hung `npu-smi` never holds the window. `deviceCombo` overrides it
with any SoC or series (grouped by series), so support staff can stand in a customer's shoes;
pasted or saved `npu-smi` output is read by app.device.npusmi. Where the settings will be used picks
the framework (and the export format that suits it): `usageCombo`, whose item data is the
framework id (the usage, e.g. TF1 Estimator or sess.run, in USAGE_ROLE). Choices the framework
cannot take (app.framework_choices) are listed under it with the offer to drop them
(`dropChoicesButton`), instead of being left for the export to refuse. Existing files (op_cache.ini, an env file,
a script, a profile) are read by the core's importers to start from them.

A support bundle (`cann-config collect` on a customer's host, app.support.bundle) is opened beside
them (`openBundleButton`, read in a worker; a file that is not a bundle is one line in
`bundleStatus` and changes nothing). Its panel (`bundleBox`) says which file and what it holds,
lists every finding of the customer's configuration with its fix (`bundleFindings`), and offers
the suggested fixes as one explicit action (`applyFixesButton`): the wizard opens with the
customer's values as they are, so what support sees first is what the customer runs with.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from cann_config.app.device.table import DeviceOrigin, load_device_table
from cann_config.app.i18n import current_language, pick
from cann_config.app.profile import Profile
from cann_config.ui.controller import WizardController
from cann_config.ui.docpane import SEVERITY_COLOURS, add_finding_item, findings_label, show_findings_label
from cann_config.ui.pages.base import WizardPage
from cann_config.ui.qtprops import USER_ROLE, escape, rich_text, selectable_text

if TYPE_CHECKING:  # pragma: no cover - typing only
    from PySide6.QtWidgets import QListWidget

# Where the settings will be used: (usage id, framework id, preferred export format or None for
# the framework's first export). The names come from the catalog's frameworks table.
USAGES: tuple[tuple[str, str, str | None], ...] = (
    ("tf1-estimator", "tf1", "tf1-estimator"),
    ("tf1-session", "tf1", "tf1-session"),
    ("tf2", "tf2", None),
    ("pytorch", "pytorch", None),
    ("atc", "atc", None),
    ("ge", "ge", None),
    ("acl", "acl", None),
    ("vllm-ascend", "vllm-ascend", None),
    ("mindspore", "mindspore", None),
)
HEADER_ROLE = USER_ROLE + 1  # a series header of deviceCombo: its series id
USAGE_ROLE = USER_ROLE + 1  # usageCombo: the usage id of an item (its data is the framework id)
# No `Qt` enum is used here: this page is built before the first paint (see ui/qtprops.py).


def top_aligned(widget: QWidget) -> QVBoxLayout:
    """`widget` at the top of the space beside it (a taller neighbour does not stretch it)."""
    column = QVBoxLayout()
    column.addWidget(widget)
    column.addStretch(1)
    return column


class DevicePage(WizardPage):
    """Device, framework and starting files (built before the first paint: the start page)."""

    detectRequested = Signal()
    openFileRequested = Signal(str)
    openBundleRequested = Signal(str)

    def __init__(self, controller: WizardController, parent: QWidget | None = None, *, quick_start: bool = False):
        super().__init__(controller, parent)
        self.setObjectName("devicePage")
        # Until the window has painted (finish_quick_start), the banner names devices by their
        # label alone: the phrases that say how a device became known need every message table
        # read; and deviceCombo's series headers are not yet bold (a font made in Python makes
        # Python enums of all QFont's enums), which only its list, opened later, shows.
        self.quick_start = quick_start
        # What bundleStatus says, as a function of the current language (said again on a switch).
        self._bundle_status: Callable[[], str] | None = None

    def build(self) -> None:
        controller = self.controller
        # The page scrolls when the window is smaller than its content (at scale 2 on a laptop),
        # as the other pages do, instead of squashing its buttons and texts.
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.scroll_area = QScrollArea(self)
        self.scroll_area.setObjectName("deviceScroll")
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setProperty("frameShape", 0)  # QFrame.Shape.NoFrame
        body = QWidget(self.scroll_area)
        layout = QVBoxLayout(body)

        self.banner = QLabel(self)
        self.banner.setObjectName("deviceBanner")
        self.banner.setWordWrap(True)
        rich_text(self.banner)
        self.banner.setStyleSheet("QLabel#deviceBanner { background: #eef4fb; border: 1px solid #b7cde6;"
                                  " border-radius: 4px; padding: 8px; }")
        self.detect_button = QPushButton(self)
        self.detect_button.setObjectName("detectButton")
        banner_row = QHBoxLayout()
        banner_row.addWidget(self.banner, 1)
        banner_row.addLayout(top_aligned(self.detect_button))
        layout.addLayout(banner_row)

        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.device_combo = QComboBox(self)
        self.device_combo.setObjectName("deviceCombo")
        self.device_combo.setMaxVisibleItems(20)
        self.device_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.device_combo.setMinimumContentsLength(18)
        self.device_label = QLabel(self)
        self.device_label.setBuddy(self.device_combo)
        self.paste_button = QPushButton(self)
        self.paste_button.setObjectName("pasteNpuSmiButton")
        self.open_smi_button = QPushButton(self)
        self.open_smi_button.setObjectName("openNpuSmiButton")
        form.addRow(self.device_label, self.device_combo)
        smi_row = QHBoxLayout()
        smi_row.addWidget(self.paste_button)
        smi_row.addWidget(self.open_smi_button)
        smi_row.addStretch(1)
        form.addRow("", smi_row)
        self.device_notes = QLabel(self)
        self.device_notes.setObjectName("deviceNotes")
        self.device_notes.setWordWrap(True)
        form.addRow("", self.device_notes)
        # What `export` says about choices this device cannot take (1 GB huge pages on an
        # Ascend310P3, say), with its severity and words; hidden while there is none.
        self.findings_label = findings_label(self, "deviceFindings")
        form.addRow("", self.findings_label)

        self.usage_combo = QComboBox(self)
        self.usage_combo.setObjectName("usageCombo")
        self.usage_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.usage_combo.setMinimumContentsLength(18)
        self.usage_label = QLabel(self)
        self.usage_label.setBuddy(self.usage_combo)
        form.addRow(self.usage_label, self.usage_combo)
        # The choices the framework cannot take, and the offer to drop them.
        self.drop_box = QWidget(self)
        self.drop_box.setObjectName("dropChoicesBox")
        drop_row = QHBoxLayout(self.drop_box)
        drop_row.setContentsMargins(0, 0, 0, 0)
        self.drop_label = QLabel(self.drop_box)
        self.drop_label.setObjectName("dropChoicesLabel")
        self.drop_label.setWordWrap(True)
        self.drop_label.setStyleSheet("color: #8a5a00;")
        self.drop_button = QPushButton(self.drop_box)
        self.drop_button.setObjectName("dropChoicesButton")
        drop_row.addWidget(self.drop_label, 1)
        drop_row.addLayout(top_aligned(self.drop_button))
        self.drop_box.hide()
        form.addRow("", self.drop_box)
        layout.addLayout(form)

        self.files_box = QGroupBox(self)
        files_layout = QVBoxLayout(self.files_box)
        self.files_hint = QLabel(self.files_box)
        self.files_hint.setWordWrap(True)
        open_row = QHBoxLayout()
        self.open_button = QPushButton(self.files_box)
        self.open_button.setObjectName("openFileButton")
        self.recent_button = QToolButton(self.files_box)
        self.recent_button.setObjectName("recentButton")
        self.recent_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.recent_menu = QMenu(self.recent_button)
        self.recent_button.setMenu(self.recent_menu)
        self.open_bundle_button = QPushButton(self.files_box)
        self.open_bundle_button.setObjectName("openBundleButton")
        open_row.addWidget(self.open_button)
        open_row.addWidget(self.recent_button)
        open_row.addWidget(self.open_bundle_button)
        open_row.addStretch(1)
        # What became of the last support bundle opened: reading it, or why it cannot be used.
        self.bundle_status = QLabel(self.files_box)
        self.bundle_status.setObjectName("bundleStatus")
        self.bundle_status.setWordWrap(True)
        selectable_text(self.bundle_status)
        self.bundle_status.hide()
        files_layout.addWidget(self.files_hint)
        files_layout.addLayout(open_row)
        files_layout.addWidget(self.bundle_status)
        # The two lists (importList, bundleFindings) are made when they have something to list
        # (import_list, bundle_findings_list): empty, they are hidden, and the first paint need
        # not pay for Qt's list view classes.
        self._files_layout = files_layout
        self.imports: QListWidget | None = None
        layout.addWidget(self.files_box)

        self.bundle_box = QGroupBox(self)
        self.bundle_box.setObjectName("bundleBox")
        bundle_layout = QVBoxLayout(self.bundle_box)
        self.bundle_summary = QLabel(self.bundle_box)
        self.bundle_summary.setObjectName("bundleSummary")
        self.bundle_summary.setWordWrap(True)
        rich_text(self.bundle_summary)
        self._bundle_layout = bundle_layout
        self.bundle_findings: QListWidget | None = None
        fixes_row = QHBoxLayout()
        self.apply_fixes_button = QPushButton(self.bundle_box)
        self.apply_fixes_button.setObjectName("applyFixesButton")
        self.fixes_label = QLabel(self.bundle_box)
        self.fixes_label.setObjectName("fixesLabel")
        self.fixes_label.setWordWrap(True)
        fixes_row.addLayout(top_aligned(self.apply_fixes_button))
        fixes_row.addWidget(self.fixes_label, 1)
        bundle_layout.addWidget(self.bundle_summary)
        bundle_layout.addLayout(fixes_row)  # bundleFindings goes between them
        self.bundle_box.hide()
        layout.addWidget(self.bundle_box, 3)
        layout.addStretch(1)
        self.scroll_area.setWidget(body)
        outer.addWidget(self.scroll_area, 1)

        self._fill_devices()

        self.detect_button.clicked.connect(self.detectRequested)
        self.device_combo.activated.connect(self._device_chosen)
        self.device_combo.currentIndexChanged.connect(self._device_index_changed)
        self.usage_combo.currentIndexChanged.connect(self._usage_chosen)
        self.drop_button.clicked.connect(self._drop_choices)
        self.open_button.clicked.connect(lambda: self.openFileRequested.emit(""))
        self.open_bundle_button.clicked.connect(lambda: self.openBundleRequested.emit(""))
        self.apply_fixes_button.clicked.connect(controller.apply_suggested_fixes)
        controller.deviceChanged.connect(self.refresh_device)
        controller.deviceChanged.connect(self.refresh_banner)
        controller.detectionChanged.connect(self.refresh_banner)
        controller.profileChanged.connect(self._sync_usage)
        controller.profileChanged.connect(self.refresh_drop_offer)
        controller.profileChanged.connect(self.refresh_findings)
        controller.deviceChanged.connect(self.refresh_findings)
        controller.findingsImported.connect(self.refresh_imports)
        controller.bundleChanged.connect(self.refresh_bundle)
        controller.bundleChanged.connect(self.refresh_banner)
        controller.profileChanged.connect(self.refresh_bundle)
        controller.deviceChanged.connect(self.refresh_bundle)

    # -- building -------------------------------------------------------------------------------

    def _fill_devices(self) -> None:
        """The detected device first, then every series (a header, the series itself, its SoCs)."""
        table = load_device_table()
        combo = self.device_combo
        combo.blockSignals(True)
        combo.clear()
        combo.addItem("", "")
        model = combo.model()
        assert isinstance(model, QStandardItemModel)
        for sid in table.order:
            series = table.series[sid]
            combo.addItem(pick(series.name), None)
            combo.setItemData(combo.count() - 1, sid, HEADER_ROLE)
            model.item(combo.count() - 1).setEnabled(False)
            combo.addItem("", sid)
            for soc in table.socs_of(sid):  # the core's order (by generation)
                combo.addItem(soc, soc)
        combo.blockSignals(False)
        if not self.quick_start:
            self._bold_headers()

    def _bold_headers(self) -> None:
        """The series headers of deviceCombo in bold type."""
        combo = self.device_combo
        model = combo.model()
        assert isinstance(model, QStandardItemModel)
        for index in range(combo.count()):
            if combo.itemData(index) is None:  # a header (its series id is in HEADER_ROLE)
                header = model.item(index)
                font = header.font()
                font.setBold(True)
                header.setFont(font)

    def finish_quick_start(self) -> None:
        """After the first paint: the banner's full phrases and the bold series headers."""
        if self.quick_start:
            self.quick_start = False
            self.refresh_banner()
            self._bold_headers()

    def retranslate(self) -> None:
        self.setTitle(self.tr("Device and framework"))
        self.setSubTitle(self.tr("Which Ascend device the settings are for, and where they will be used."))
        self.detect_button.setText(self.tr("De&tect again"))
        self.device_label.setText(self.tr("&Device:"))
        self.paste_button.setText(self.tr("&Paste npu-smi output…"))
        self.open_smi_button.setText(self.tr("Open npu-smi &file…"))
        self.usage_label.setText(self.tr("&Used with:"))
        self.files_box.setTitle(self.tr("Start from existing files"))
        self.files_hint.setText(self.tr("Open an op_cache.ini, an env file (export NAME=value), a training script "
                                        "or a saved profile: its settings become the starting choices."))
        self.open_button.setText(self.tr("&Open file…"))
        self.recent_button.setText(self.tr("&Recent"))
        self.open_bundle_button.setText(self.tr("Open &support bundle…"))
        self.open_bundle_button.setToolTip(self.tr("A file written by 'cann-config collect' on a customer's host: "
                                                   "see their device, settings and cache as CANN sees them"))
        self.bundle_box.setTitle(self.tr("Support bundle"))
        self.apply_fixes_button.setText(self.tr("&Apply suggested fixes"))
        self.apply_fixes_button.setToolTip(self.tr("Replace the choices with the customer's values and every fix "
                                                   "suggested below; the export then carries them"))
        self.drop_button.setText(self.tr("Drop t&hem"))
        self.drop_button.setToolTip(self.tr("Remove these choices: each option goes back to its default"))
        self.refresh_drop_offer()
        if self._bundle_status is not None:
            self.bundle_status.setText(self._bundle_status())
        table = load_device_table()
        combo = self.device_combo
        for index in range(combo.count()):
            data = combo.itemData(index)
            if data == "":
                combo.setItemText(index, self.tr("As detected on this computer"))
            elif data in table.series:
                combo.setItemText(index, self.tr("Any %1 device").replace("%1", pick(table.series[data].name)))
            elif data is None:
                combo.setItemText(index, pick(table.series[combo.itemData(index, HEADER_ROLE)].name))
        self._fill_usages()

    def refresh(self) -> None:
        self.refresh_banner()
        self.refresh_device()
        self.refresh_imports()
        self.refresh_bundle()
        self.refresh_drop_offer()
        self.refresh_findings()

    def refresh_findings(self) -> None:
        """`deviceFindings`: the errors and warnings `export` gives because of the device (the
        core decides, app.session.Session.page_findings); gone when the choice or the device is."""
        if not hasattr(self, "findings_label"):
            return
        c = self.controller
        # Nothing chosen (as at start-up): nothing to check, and the core's checks not imported.
        show_findings_label(self.findings_label, c.page_findings("device") if c.profile.options else [])

    def finish_after_paint(self) -> None:
        """After the first paint (the wizard's slices): Tab in reading order, and the wheel over
        its combo boxes scrolls the page unless one has the keyboard focus (ui/wheelguard.py):
        a wheel turned to scroll must not switch the device or the framework."""
        from cann_config.ui.wheelguard import guard_wheel

        self.set_reading_order()
        guard_wheel(self.device_combo, self.usage_combo)

    def not_taken(self) -> tuple[str, ...]:
        """The choices the framework in use cannot take (app.framework_choices decides)."""
        c = self.controller
        if not c.profile.options:
            return ()  # nothing chosen (as at start-up): nothing to import for it
        from cann_config.app.framework_choices import choices_not_taken

        return choices_not_taken(c.profile, c.catalog)

    def refresh_drop_offer(self) -> None:
        """List the choices the framework cannot take, with the offer to drop them (hidden when
        there are none)."""
        if not hasattr(self, "drop_box"):
            return
        c = self.controller
        ids = self.not_taken()
        self.drop_box.setVisible(bool(ids))
        if not ids:
            self.drop_label.clear()
            return
        from cann_config.ui.editors import shown_value

        listed = "; ".join(f"{pick(c.catalog.option(oid).title)} = {shown_value(c.profile.options[oid])}"
                           for oid in ids)
        name = pick(c.catalog.frameworks[c.profile.framework].name)
        self.drop_label.setText(self.tr("%1 cannot take these choices, and the export would refuse them: %2")
                                .replace("%1", name).replace("%2", listed))

    def _drop_choices(self) -> None:
        from cann_config.app.framework_choices import without_choices

        c = self.controller
        c.set_profile(without_choices(c.profile, self.not_taken()))

    def _fill_usages(self) -> None:
        catalog = self.controller.catalog
        names = {"tf1-estimator": self.tr("%1 — Estimator (NPURunConfig)"),
                 "tf1-session": self.tr("%1 — sess.run (session config)")}
        combo = self.usage_combo
        combo.blockSignals(True)
        current = combo.currentData(USAGE_ROLE)
        combo.clear()
        for usage, framework, _fmt in USAGES:
            name = pick(catalog.frameworks[framework].name)
            combo.addItem(names.get(usage, "%1").replace("%1", name), framework)
            combo.setItemData(combo.count() - 1, usage, USAGE_ROLE)
        index = combo.findData(current, USAGE_ROLE) if current else -1
        combo.setCurrentIndex(index if index >= 0 else self._usage_index_for(self.controller.profile.framework))
        combo.blockSignals(False)

    def _usage_index_for(self, framework: str) -> int:
        current = self.usage_combo.currentData(USAGE_ROLE)
        for usage, fid, _fmt in USAGES:
            if usage == current and fid == framework:
                return self.usage_combo.currentIndex()
        for index, (_usage, fid, _fmt) in enumerate(USAGES):
            if fid == framework:
                return index
        return 0

    # -- reacting -------------------------------------------------------------------------------

    def _device_chosen(self, index: int) -> None:
        data = self.device_combo.itemData(index)
        if data == "":
            probe = self.controller.detected
            device = getattr(probe, "device", None)
            self.controller.set_device(device, DeviceOrigin.DETECTED if device is not None else DeviceOrigin.NONE)
        elif data:
            self.controller.set_device_choice(data)

    def _device_index_changed(self, index: int) -> None:
        # setCurrentIndex from a test or from keyboard selection: same as a user's choice.
        data = self.device_combo.itemData(index)
        wanted = self._combo_data_for_device()
        if data != wanted:
            self._device_chosen(index)

    def _combo_data_for_device(self) -> str:
        device = self.controller.device
        if device is None or self.controller.device_origin in (DeviceOrigin.DETECTED, DeviceOrigin.NONE):
            return ""
        return device.soc_version or device.series or ""

    def _usage_chosen(self, index: int) -> None:
        if index < 0:
            return
        usage, framework, fmt = USAGES[index]
        self.controller.set_usage(usage, framework, fmt)

    def _sync_usage(self) -> None:
        index = self._usage_index_for(self.controller.profile.framework)
        if index != self.usage_combo.currentIndex():
            self.usage_combo.blockSignals(True)
            self.usage_combo.setCurrentIndex(index)
            self.usage_combo.blockSignals(False)

    def refresh_device(self) -> None:
        wanted = self._combo_data_for_device()
        index = self.device_combo.findData(wanted)
        if index < 0 and wanted:
            self.device_combo.addItem(wanted, wanted)
            index = self.device_combo.count() - 1
        if index != self.device_combo.currentIndex():
            self.device_combo.blockSignals(True)
            self.device_combo.setCurrentIndex(index)
            self.device_combo.blockSignals(False)
        device = self.controller.device
        notes = list(device.notes) if device is not None else []
        self.device_notes.setText("\n".join(notes))
        self.device_notes.setVisible(bool(notes))

    def refresh_banner(self) -> None:
        if self.quick_start:
            def device_phrase(device):  # noqa: ANN001, ANN202 - the label until the phrases are read
                return device.label()
        else:
            from cann_config.app.device.availability import device_phrase

        c = self.controller
        lines: list[str] = []
        state = c.detection_state
        detected = getattr(c.detected, "device", None)
        detected_known = detected is not None and (detected.soc_version or detected.series)
        remote = c.session.remote_source  # the Session says whose host is shown (app/session.py)
        if remote is not None:
            lines.append(self.tr("<b>Support bundle:</b> %1 — the customer's host as it was collected; this "
                                 "computer's device, environment and cache are not used.")
                         .replace("%1", escape(remote)))
            if c.device is None:
                lines.append(self.tr("The bundle names no device: choose the customer's device below."))
        if c.device is not None and c.device_origin not in (DeviceOrigin.DETECTED, DeviceOrigin.NONE):
            lines.append(self.tr("<b>Settings for:</b> %1").replace("%1", escape(device_phrase(c.device))))
        if state == "running":
            lines.append(self.tr("Detecting the device on this computer (npu-smi, with a time limit)…"))
        elif state == "done" and detected_known:
            lines.append(self.tr("<b>Detected:</b> %1").replace("%1", escape(device_phrase(detected))))
        elif state == "done":
            lines.append(self.tr("<b>No Ascend device detected on this computer.</b> Choose the device below "
                                 "or paste npu-smi output from the machine the settings are for."))
        elif state == "failed":
            lines.append(self.tr("<b>Detection failed:</b> %1").replace("%1", escape(c.detection_error)))
        elif c.device is None:
            lines.append(self.tr("No device chosen: every option is shown as available. Choose the device below."))
        probe = c.detected
        if state == "done" and probe is not None:
            facts = []
            if getattr(probe, "toolkit_version", None):
                facts.append(self.tr("CANN toolkit %1").replace("%1", escape(probe.toolkit_version)))
            if getattr(probe, "driver_version", None):
                facts.append(self.tr("driver %1").replace("%1", escape(probe.driver_version)))
            if facts:
                lines.append(self.tr(", ", "list separator").join(facts))
            # The core's steps are messages: said again in the window's language at each switch.
            tried_text = getattr(probe, "tried_text", None)
            tried = tried_text() if callable(tried_text) else list(getattr(probe, "tried", []) or [])
            if tried:
                lines.append("<small>" + self.tr("How: %1").replace("%1", escape("; ".join(tried))) + "</small>")
        self.banner.setText("<br>".join(lines))

    def import_list(self) -> QListWidget:
        """`importList`: the files opened, the values taken from each, and their findings."""
        if self.imports is None:
            from PySide6.QtWidgets import QListWidget

            self.imports = QListWidget(self.files_box)
            self.imports.setObjectName("importList")
            self.imports.setWordWrap(True)
            self._files_layout.addWidget(self.imports, 1)
            # Tab goes to it where it was made with the page: after the open buttons.
            QWidget.setTabOrder(self.open_bundle_button, self.imports)
        return self.imports

    def bundle_findings_list(self) -> QListWidget:
        """`bundleFindings`: the findings of an opened support bundle, with their fixes."""
        if self.bundle_findings is None:
            from PySide6.QtWidgets import QListWidget

            self.bundle_findings = QListWidget(self.bundle_box)
            self.bundle_findings.setObjectName("bundleFindings")
            self.bundle_findings.setWordWrap(True)
            self.bundle_findings.setMinimumHeight(120)
            self._bundle_layout.insertWidget(1, self.bundle_findings, 1)
            # Added to a shown box, Qt would show it only at the next turn of the event loop
            # (a queued show): shown now, the panel is whole when refresh_bundle returns.
            self.bundle_findings.show()
            QWidget.setTabOrder(self.imports or self.open_bundle_button, self.bundle_findings)
        return self.bundle_findings

    def refresh_imports(self) -> None:
        c = self.controller
        if self.imports is None and not (c.imported_from or c.imported_findings):
            return  # nothing opened yet: no list to show
        from PySide6.QtWidgets import QListWidgetItem

        imports = self.import_list()
        imports.clear()
        imports.setMinimumHeight(140 if (c.imported_from or c.imported_findings) else 0)
        for source in c.imported_from:
            values = c.imported_values.get(source)
            if values is None:
                QListWidgetItem(self.tr("Read %1").replace("%1", source), imports)
                continue
            if not values:
                QListWidgetItem(self.tr("Read %1: no setting taken from it").replace("%1", source), imports)
                continue
            QListWidgetItem(self.tr("Read %1, took:").replace("%1", source), imports)
            # The editors' module (and the QStyle enums it brings) is not needed for the first paint.
            from cann_config.ui.editors import shown_value

            for oid, value, line in values:
                text = f"    {oid} = {shown_value(value)}"
                if line is not None:
                    text += " " + self.tr("(line %1)").replace("%1", str(line))
                QListWidgetItem(text, imports)
        for finding in c.imported_findings:
            add_finding_item(imports, finding, fix_in_tooltip=True)
        imports.setVisible(imports.count() > 0)

    def set_bundle_status(self, text: Callable[[], str] | None, *, error: bool = False) -> None:
        """Say what became of the bundle being opened (None: nothing to say)."""
        self._bundle_status = text
        self.bundle_status.setText(text() if text is not None else "")
        self.bundle_status.setStyleSheet(f"color: {SEVERITY_COLOURS['error']};" if error else "")
        self.bundle_status.setVisible(text is not None)

    def refresh_bundle(self) -> None:
        """The support bundle panel: the file, what it holds, its findings with their fixes, and
        what "Apply suggested fixes" would change."""
        c = self.controller
        # The Session decides whose configuration is shown: a remote host's diagnosis, else none.
        diagnosis = c.bundle_diagnosis()
        self.bundle_box.setVisible(diagnosis is not None)
        if diagnosis is None:
            return
        bundle = c.session.host.bundle  # the file the remote host's picture came from
        assert bundle, "a remote host's diagnosis comes from its bundle"
        lang = current_language()
        lines = [self.tr("<b>File:</b> %1").replace("%1", escape(bundle.source)), escape(bundle.summary(lang))]
        if bundle.created or bundle.tool_version:
            lines.append(self.tr("Collected %1 by cann-config %2").replace("%1", escape(bundle.created or "?"))
                         .replace("%2", escape(bundle.tool_version or "?")))
        self.bundle_summary.setText("<br>".join(lines))
        findings = self.bundle_findings_list()
        findings.clear()
        for finding in diagnosis.findings:
            add_finding_item(findings, finding)
        if not diagnosis.findings:
            from PySide6.QtWidgets import QListWidgetItem

            QListWidgetItem(self.tr("No findings: CANN uses this configuration as the customer meant it."), findings)
        changes = self.pending_fixes()
        self.apply_fixes_button.setEnabled(bool(changes))
        if changes:
            self.fixes_label.setText(self.tr("Changes the choices: %1").replace("%1", "; ".join(changes)))
        else:
            self.fixes_label.setText(self.tr("The choices hold every suggested fix."))

    def pending_fixes(self) -> list[str]:
        """What applying the suggested fixes would change, one "option: now → then" per option."""
        c = self.controller
        suggested = c.suggested_profile()
        if suggested is None:
            return []

        def shown(value: object) -> str:
            return '""' if value == "" else str(value)

        effective = c.bundle_diagnosis().effective

        def in_effect(profile: Profile, oid: str) -> object:
            # A value not chosen is the one CANN resolves on the customer's host.
            if oid in profile.options:
                return profile.options[oid]
            return effective[oid].value if oid in effective else profile.value(oid, c.catalog)

        return [f"{oid}: {shown(in_effect(c.profile, oid))} → {shown(in_effect(suggested, oid))}"
                for oid in c.catalog.options if c.profile.options.get(oid) != suggested.options.get(oid)]

    def set_recent(self, files: list[str], open_slot) -> None:  # noqa: ANN001 - a Qt slot
        self.recent_menu.clear()
        for path in files:
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _checked=False, p=path: open_slot(p))
        self.recent_button.setEnabled(bool(files))

    def help_html(self) -> str:
        return "<h3>{}</h3><p>{}</p><p>{}</p><p>{}</p><p>{}</p>".format(
            escape(self.tr("Device and framework")),
            escape(self.tr("The device decides which options are available: an option the device does not support "
                           "is greyed out with the reason next to it.")),
            escape(self.tr("Detection runs npu-smi with a time limit. To prepare settings for another machine, "
                           "choose its SoC or series, or paste its npu-smi output.")),
            escape(self.tr("'Used with' decides which options apply and which export formats are offered.")),
            escape(self.tr("A support bundle (cann-config collect on the customer's host) shows that host: its "
                           "device, its settings as CANN resolves them, its cache, and the findings with their "
                           "fixes. The choices start as the customer's values; 'Apply suggested fixes' changes "
                           "them, and the Export page's Report button writes the diagnosis for the ticket.")),
        )

    @staticmethod
    def file_kind(path: str) -> str:
        """How an opened file is read: "ini", "profile", "script", "fish" or "env" (by its name)."""
        p = Path(path)
        suffix = p.suffix.lower()
        if suffix == ".ini":
            return "ini"
        if suffix == ".json":
            return "profile"
        if suffix == ".py":
            return "script"
        if suffix == ".fish":
            return "fish"
        return "env"
