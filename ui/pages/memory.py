"""Page 2 (`memoryPage`): the memory options, one editor per catalog option.

The rows come from the catalog (`page = "memory"`) in two groups: the TF Adapter MemoryConfig
policies and torch_npu's allocator options (the catalog's `targets.alloc_conf`). With PyTorch the
allocator group comes first and the MemoryConfig rows stay visible, greyed with the reason the
core gives; with any other framework the allocator rows are hidden and a line says why (they
belong to PyTorch only). The advanced, undocumented
`memory_optimization_policy` sits behind the "Advanced" toggle. The catalog's rule that
static_memory_policy 2 and 4 do not support concurrent graphs (docs/cann/memory.md#concurrent-graphs) depends
on something only the user knows, so the page asks it and hands the answer to the controller; the
core gives the rule its severity from it (app.catalog.Note.for_answers: the catalog's warning when
ticked, a note otherwise), the same on this page and in the export. For a vLLM-Ascend server the
page asks, the same way, whether sleep mode and RL mode are on (app/vllm_ascend.py; the tool
cannot see the launch flags).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from PySide6.QtWidgets import QCheckBox, QFrame, QHBoxLayout, QLabel, QPushButton, QScrollArea, QVBoxLayout, QWidget

from cann_config.ui import settings
from cann_config.ui.controller import WizardController
from cann_config.ui.docpane import findings_label, show_findings_label
from cann_config.ui.pages.options import OptionsPage

# The question the concurrency note of resources/catalog.toml asks (its `question`).
CONCURRENCY_QUESTION = "concurrent-graphs"
# The serving stack's questions (app/vllm_ascend.py SLEEP_QUESTION, RL_QUESTION): the tool cannot
# see a server's launch flags, so the page asks whether sleep mode and RL mode are on.
SERVING_FRAMEWORK = "vllm-ascend"
MINDSPORE_FRAMEWORK = "mindspore"
SLEEP_QUESTION, RL_QUESTION = "vllm-sleep-mode", "vllm-rl-mode"


class MemoryPage(OptionsPage):
    core_modules = ("cann_config.app.device.availability", "cann_config.app.allocconf",
                    "cann_config.app.io.exporters.plan")
    widget_modules = ("cann_config.ui.optionrow", "cann_config.ui.focusmark", "cann_config.ui.taborder")

    def __init__(self, controller: WizardController, parent: QWidget | None = None):
        super().__init__("memory", controller, parent)
        self.setObjectName("memoryPage")

    def build(self) -> Iterator[None]:
        # One option row per slice (each is a few widgets and the catalog's texts).
        controller = self.controller
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.hint = QLabel(self)
        self.hint.setObjectName("memoryHint")
        self.hint.setWordWrap(True)
        outer.addWidget(self.hint)
        # "Why did my job run out of NPU memory?": the triage of a pasted error (ui/triage_dialog.py).
        paste_row = QHBoxLayout()
        self.paste_error = QPushButton(self)
        self.paste_error.setObjectName("pasteErrorButton")
        self.paste_error.clicked.connect(self.open_triage)
        paste_row.addWidget(self.paste_error)
        paste_row.addStretch(1)
        outer.addLayout(paste_row)
        self.triage_dialog: Any = None
        # What export would say about the choices (errors it refuses, warnings it prints), in its
        # words and severity, shown while it holds and gone when the choice is undone.
        self.findings_label = findings_label(self, "memoryFindings")
        outer.addWidget(self.findings_label)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        body = QWidget(scroll)
        layout = QVBoxLayout(body)
        self.body_layout = layout
        # torch_npu's allocator rows (PYTORCH_NPU_ALLOC_CONF), moved first for PyTorch.
        self.alloc_group = QWidget(body)
        self.alloc_group.setObjectName("allocatorGroup")
        alloc_layout = QVBoxLayout(self.alloc_group)
        alloc_layout.setContentsMargins(0, 0, 0, 0)
        self.alloc_title = QLabel(self.alloc_group)
        self.alloc_title.setObjectName("allocatorTitle")
        self.alloc_title.setWordWrap(True)
        alloc_layout.addWidget(self.alloc_title)
        self.sleep_mode = QCheckBox(self.alloc_group)
        self.sleep_mode.setObjectName("vllmSleepModeCheck")
        self.rl_mode = QCheckBox(self.alloc_group)
        self.rl_mode.setObjectName("vllmRlModeCheck")
        alloc_layout.addWidget(self.sleep_mode)
        alloc_layout.addWidget(self.rl_mode)
        layout.addWidget(self.alloc_group)
        self.concurrent = QCheckBox(body)
        self.concurrent.setObjectName("concurrentGraphsCheck")
        self.advanced = QCheckBox(body)
        self.advanced.setObjectName("advancedToggle")
        advanced_rows = []
        for option in self.options():
            yield
            if option.targets.alloc_conf:
                alloc_layout.addWidget(self.make_row(option, self.alloc_group))
                continue
            row = self.make_row(option, body)
            if option.advanced:
                advanced_rows.append(row)
                continue
            layout.addWidget(row)
            if any(n.question == CONCURRENCY_QUESTION for n in option.notes):
                row.extra.addWidget(self.concurrent)
        line = QFrame(body)
        line.setFrameShape(QFrame.Shape.HLine)
        layout.addWidget(line)
        layout.addWidget(self.advanced)
        for row in advanced_rows:
            layout.addWidget(row)
            row.setVisible(False)
        self.advanced_rows = advanced_rows
        layout.addStretch(1)
        yield
        scroll.setWidget(body)
        outer.addWidget(scroll, 1)
        self.concurrent.setChecked(settings.read_bool(settings.KEY_CONCURRENT))
        self.advanced.setChecked(settings.read_bool(settings.KEY_ADVANCED))
        self._show_advanced(self.advanced.isChecked())
        # The answer goes to the controller: the core gives the rule its severity from it, for
        # this page and the export alike (app.catalog.Note.for_answers).
        self.concurrent.toggled.connect(lambda on: controller.set_answer(CONCURRENCY_QUESTION, on))
        controller.set_answer(CONCURRENCY_QUESTION, self.concurrent.isChecked())
        # Unticked is an answer too ("no"): the core then gives those findings as information.
        self.sleep_mode.toggled.connect(lambda on: controller.set_answer(SLEEP_QUESTION, on))
        self.rl_mode.toggled.connect(lambda on: controller.set_answer(RL_QUESTION, on))
        controller.set_answer(SLEEP_QUESTION, self.sleep_mode.isChecked())
        controller.set_answer(RL_QUESTION, self.rl_mode.isChecked())
        self.advanced.toggled.connect(self._show_advanced)
        controller.profileChanged.connect(self.refresh)
        controller.deviceChanged.connect(self.refresh)

    def refresh(self) -> None:
        if not self.built:
            return
        pytorch = self.for_pytorch()
        self.alloc_group.setVisible(pytorch)
        serving = self.controller.profile.framework == SERVING_FRAMEWORK
        self.sleep_mode.setVisible(serving)
        self.rl_mode.setVisible(serving)
        # The allocator group first for PyTorch, after the MemoryConfig rows otherwise.
        self.body_layout.removeWidget(self.alloc_group)
        self.body_layout.insertWidget(0 if pytorch else self.body_layout.count() - 1, self.alloc_group)
        self._show_hint()
        self._show_findings()
        super().refresh()

    def _show_findings(self) -> None:
        """`memoryFindings`: the errors and warnings `export` gives for this page's choices (the
        controller asks the core, app.session.Session.page_findings). The catalog's notes on a
        value are shown in its row already, so they are not repeated."""
        show_findings_label(self.findings_label, self.controller.page_findings("memory"))

    def for_pytorch(self) -> bool:
        """The framework takes torch_npu's allocator options (the catalog says which does)."""
        taken = self.controller.catalog.frameworks[self.controller.profile.framework].options
        return any(o.targets.alloc_conf and o.id in taken for o in self.options())

    def _show_hint(self) -> None:
        if self.controller.profile.framework == MINDSPORE_FRAMEWORK:
            self.setSubTitle(self.tr("MindSpore's memory settings: runtime.set_memory (or the deprecated "
                                     "set_context), ascend_config and MS_ALLOC_CONF, checked as MindSpore 2.10 "
                                     "checks them. Click an option's title or ? for its full documentation."))
            self.hint.setText(self.tr("The GE options below (static memory policy, ...) reach CANN through "
                                      "ascend_config's ge_options and apply only on MindSpore's GE path "
                                      "(jit_level O2)."))
        elif self.controller.profile.framework == SERVING_FRAMEWORK:
            self.setSubTitle(self.tr("torch_npu's caching allocator in a vLLM-Ascend server: these settings become "
                                     "PYTORCH_NPU_ALLOC_CONF, which vLLM-Ascend rewrites at start-up. Click an "
                                     "option's title or ? for its full documentation."))
            self.hint.setText(self.tr("vLLM-Ascend adds expandable_segments:True unless the variable names "
                                      "expandable_segments, max_split_size_mb or garbage_collection_threshold; "
                                      "the export page shows what torch_npu will read."))
        elif self.for_pytorch():
            self.setSubTitle(self.tr("torch_npu's caching allocator: these settings become PYTORCH_NPU_ALLOC_CONF. "
                                     "Click an option's title or ? for its full documentation."))
            self.hint.setText(self.tr("The TensorFlow Adapter's MemoryConfig options further down do not apply "
                                      "to PyTorch; each says why."))
        else:
            self.setSubTitle(self.tr("TensorFlow Adapter MemoryConfig and the matching GE options. "
                                     "Click an option's title or ? for its full documentation."))
            self.hint.setText(self.tr("torch_npu's allocator options (PYTORCH_NPU_ALLOC_CONF) are hidden: only "
                                      "PyTorch reads them. Choose \"Used with: PyTorch\" on the device page to "
                                      "see them."))
        self.hint.show()

    def _show_advanced(self, shown: bool) -> None:
        for row in self.advanced_rows:
            row.setVisible(shown)

    def retranslate_page(self) -> None:
        self.setTitle(self.tr("Memory policies"))
        self.alloc_title.setText("<b>" + self.tr("torch_npu allocator (PYTORCH_NPU_ALLOC_CONF)") + "</b>")
        self._show_hint()
        self._show_findings()
        self.concurrent.setText(self.tr("Graphs run &concurrently"))
        self.concurrent.setToolTip(self.tr("Tick if several graphs of the session execute at the same time"))
        self.advanced.setText(self.tr("Show &advanced options (undocumented by Huawei)"))
        self.paste_error.setText(self.tr("Paste an out-of-memory &error..."))
        self.paste_error.setToolTip(self.tr("What holds the NPU memory, and which setting helps"))
        self.sleep_mode.setText(self.tr("The server runs in sleep mode (--enable-sleep-mode)"))
        self.sleep_mode.setToolTip(self.tr("vLLM-Ascend then leaves PYTORCH_NPU_ALLOC_CONF alone, and its memory "
                                           "pool refuses expandable_segments:True"))
        self.rl_mode.setText(self.tr("RL mode is on (additional_config rl_config.enabled)"))
        self.rl_mode.setToolTip(self.tr("vLLM-Ascend then removes the expandable_segments items before its "
                                        "start-up rewrite"))

    def open_triage(self) -> Any:
        """The "Paste an error" dialog (modeless: the page stays usable beside it)."""
        from cann_config.ui.triage_dialog import TriageDialog

        if self.triage_dialog is None:
            self.triage_dialog = TriageDialog(self.controller, self)
        self.triage_dialog.show()
        return self.triage_dialog

    def remember(self) -> None:
        settings.write(settings.KEY_CONCURRENT, self.concurrent.isChecked())
        settings.write(settings.KEY_ADVANCED, self.advanced.isChecked())
