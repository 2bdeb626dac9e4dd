"""The wizard's model: one immutable Profile, held by one small controller that says when it
changes.

Every page reads its state from here and writes changes back through here; nothing else keeps a
copy. A change replaces the Profile (app/profile.py is immutable) and emits `profileChanged`, so
the export preview, the availability marks and the gauge are always derived from the current
choices, never from a cached result (the stale-command pitfall of PyTorch's selector). The
controller knows no CANN rule: availability, resolution and import all come from app/.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cann_config.app.catalog import Catalog, Option, Value, load_catalog
from cann_config.app.device.table import DeviceInfo, DeviceOrigin, device_from_choice
from cann_config.app.profile import Profile
from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:  # pragma: no cover - typing only (the findings module is not needed for the first paint)
    from cann_config.app.findings import Finding


class WizardController(QObject):
    """Holds the Profile, the device it is for, and the files the user started from."""

    profileChanged = Signal()
    deviceChanged = Signal()
    filesChanged = Signal()
    detectionChanged = Signal()
    dirtyChanged = Signal(bool)
    findingsImported = Signal()
    bundleChanged = Signal()

    def __init__(self, profile: Profile | None = None, device: DeviceInfo | None = None,
                 device_origin: DeviceOrigin = DeviceOrigin.NONE, parent: QObject | None = None):
        super().__init__(parent)
        self.catalog: Catalog = load_catalog()
        self._profile = profile or Profile()
        self._device = device
        self.device_origin = device_origin
        self.detected: Any = None  # app.device.hostprobe.HostProbe once detection has finished
        self.detection_state = "idle"  # "idle", "running", "done", "failed"
        self.detection_error = ""
        self.ini: Any = None  # app.opcache.ini.OpCacheIni of the file being edited
        self.ini_path: Path | None = None
        self.ini_explicit = False
        # adk_version/ops_version typed by the user for a CANN that is not installed here.
        self.ini_versions: dict[str, str] = {}
        # The user's answers to the catalog notes' questions ({"concurrent-graphs": False}): the
        # core gives each rule its severity from them, the same on every page and export.
        self.answers: dict[str, bool] = {}
        self._host_versions: dict[str, str] | None = None
        self.env_file: Any = None  # app.io.envfile.EnvFile the user opened
        self.imported_findings: list[Finding] = []
        self.imported_from: list[str] = []
        # Per opened file, the settings taken from it: (option id, value, line); None for a
        # file that is not read for settings (op_cache.ini, a profile).
        self.imported_values: dict[str, list[tuple[str, Any, int | None]] | None] = {}
        self.base_environ: Mapping[str, str] = dict(os.environ)
        self.bundle: Any = None  # app.support.bundle.Bundle of the customer's host being looked at (support)
        self._bundle_diagnoses: dict[tuple[str, DeviceInfo | None], Any] = {}
        self._dirty = False
        self._availability: dict[str, Any] = {}
        self.usage: str | None = None
        self.preferred_format: str = self.catalog.frameworks[self._profile.framework].exports[0]

    # -- the Profile ------------------------------------------------------------------------

    @property
    def profile(self) -> Profile:
        return self._profile

    def value(self, option_id: str) -> Value:
        return self._profile.value(option_id, self.catalog)

    def set_profile(self, profile: Profile, *, dirty: bool = True) -> None:
        if profile == self._profile:
            return
        framework_changed = profile.framework != self._profile.framework
        self._profile = profile
        if framework_changed:
            self._availability.clear()
            if self.preferred_format not in self.catalog.frameworks[profile.framework].exports:
                self.preferred_format = self.catalog.frameworks[profile.framework].exports[0]
        self._set_dirty(self._dirty or dirty)
        self.profileChanged.emit()

    def set_value(self, option_id: str, value: Value) -> None:
        """The user chose `value`; an invalid value (the catalog says why) is not taken."""
        option = self.catalog.option(option_id)
        if option.check(value) is not None:
            return
        if option_id in self._profile.options and self._profile.options[option_id] == value:
            return
        # Choosing the default explicitly is still a choice the user made: it is kept, and
        # "only my changes" (Profile.changed) leaves it out.
        self.set_profile(self._profile.with_value(option_id, value))

    def reset_value(self, option_id: str) -> None:
        self.set_profile(self._profile.without_value(option_id))

    def set_usage(self, usage: str, framework: str, export_format: str | None) -> None:
        """Where the settings will be used: the framework, and the export format that suits it."""
        self.usage = usage
        self.preferred_format = export_format or self.catalog.frameworks[framework].exports[0]
        if framework != self._profile.framework:
            self.set_framework(framework)
        else:
            self.profileChanged.emit()

    def set_framework(self, framework: str) -> None:
        if framework not in self.catalog.frameworks:
            raise ValueError(f"unknown framework {framework!r}")
        self.set_profile(replace(self._profile, framework=framework))

    # -- the device ---------------------------------------------------------------------------

    @property
    def device(self) -> DeviceInfo | None:
        return self._device

    def set_device(self, device: DeviceInfo | None, origin: DeviceOrigin) -> None:
        """Use `device` for availability and exports; `origin` says how it became known."""
        self._device = device
        self.device_origin = origin if device is not None else DeviceOrigin.NONE
        self._availability.clear()
        choice = None
        if device is not None:
            choice = device.soc_version or device.series
        self.deviceChanged.emit()
        if choice != self._profile.device:
            self.set_profile(replace(self._profile, device=choice))
        else:
            self.profileChanged.emit()

    def set_device_choice(self, choice: str) -> None:
        """A SoC string or a series id chosen by hand (raises ValueError when it is neither)."""
        self.set_device(device_from_choice(choice, source="manual"), DeviceOrigin.MANUAL)

    def set_detection(self, state: str, probe: Any = None, error: str = "") -> None:
        self.detection_state = state
        self.detected = probe
        self.detection_error = error
        self.detectionChanged.emit()

    def availability(self, option: Option) -> Any:
        """cann_config.app.device.availability's verdict for `option` on the current device and framework."""
        cached = self._availability.get(option.id)
        if cached is None:
            from cann_config.app.device.availability import availability

            cached = availability(option, self._device, self._profile.framework)
            self._availability[option.id] = cached
        return cached

    # -- files --------------------------------------------------------------------------------

    @property
    def environ(self) -> dict[str, str]:
        """The environment CANN would see: this process's, with an opened env file on top."""
        env = dict(self.base_environ)
        if self.env_file is not None:
            env.update(self.env_file.values)
        return env

    def set_ini(self, ini: Any, path: Path | None, *, explicit: bool = True, notify: bool = True) -> None:
        """The op_cache.ini being edited; `explicit` when the user opened it (else the one found
        in the resolved cache dir, which follows the dir)."""
        self.ini = ini
        self.ini_path = path
        self.ini_explicit = explicit and path is not None
        if notify:
            self.filesChanged.emit()

    def set_env_file(self, env_file: Any) -> None:
        self.env_file = env_file
        self.filesChanged.emit()

    def add_imported(self, source: str, findings: list[Finding],
                     values: list[tuple[str, Any, int | None]] | None = None) -> None:
        self.imported_from.append(source)
        self.imported_values[source] = values
        self.imported_findings.extend(findings)
        self.findingsImported.emit()

    # -- a support bundle ---------------------------------------------------------------------

    def open_bundle(self, bundle: Any, *, keep_device: bool = False, choices: Profile | None = None) -> None:
        """Look at a customer's host through its support bundle (app.support.bundle.Bundle).

        From now on the environment CANN sees is the bundle's (never this machine's: a support
        desk's variables say nothing about the customer's host), the op_cache.ini is the bundle's
        (it cannot be saved from here: it is on the customer's host), and the device is the
        bundle's unless `keep_device` (a device chosen by hand stands in for it). The starting choices are `choices` when given,
        else the customer's current values as CANN resolves them (app.support.report.suggested_profile
        without any fix applied): what the customer runs with now, before any fix.
        """
        from cann_config.app.support.report import suggested_profile

        self.bundle = bundle
        self._bundle_diagnoses.clear()
        self.base_environ = dict(bundle.environ)
        self.env_file = None
        self.ini = bundle.op_cache_ini
        self.ini_path = Path(bundle.ini_path) if bundle.ini_path else None
        self.ini_explicit = True  # never replaced by a file of this machine found in the cache dir
        self.imported_from = []
        self.imported_values = {}
        self.imported_findings = []
        if not keep_device:
            known = bundle.device.soc_version or bundle.device.series
            self.set_device(bundle.device if known else None, DeviceOrigin.BUNDLE)
        if choices is None:
            choices = suggested_profile(self.bundle_diagnosis(), [])
        self.set_profile(replace(choices, framework=self._profile.framework, device=self._profile.device), dirty=False)
        # Nothing is chosen yet: what is shown is the customer's, kept in the bundle file.
        self._set_dirty(False)
        self.bundleChanged.emit()
        self.filesChanged.emit()
        self.findingsImported.emit()

    def bundle_diagnosis(self) -> Any:
        """The bundle's app.support.diagnosis.Diagnosis for the current framework and device (None
        without a bundle): the customer's configuration as collected, whatever was chosen since."""
        if self.bundle is None:
            return None
        key = (self._profile.framework, self._device)
        found = self._bundle_diagnoses.get(key)
        if found is None:
            # The same Host every command builds from a bundle (app/support/host.py).
            from cann_config.app.support.host import host_from_bundle

            found = host_from_bundle(self.bundle).diagnosis(framework=self._profile.framework, device=self._device)
            self._bundle_diagnoses[key] = found
        return found

    def suggested_profile(self) -> Profile | None:
        """The customer's values with every suggested fix applied (None without a bundle)."""
        if self.bundle is None:
            return None
        from cann_config.app.support.report import suggested_profile

        return suggested_profile(self.bundle_diagnosis())

    def apply_suggested_fixes(self) -> None:
        """Replace the choices with the bundle's suggested profile (the one explicit fix action)."""
        profile = self.suggested_profile()
        if profile is not None:
            self.set_profile(replace(profile, device=self._profile.device))

    def ini_from_bundle(self) -> bool:
        """The op_cache.ini shown is the customer's (from the bundle), not a file of this machine."""
        return self.bundle is not None and self.ini is self.bundle.op_cache_ini and self.ini_explicit

    def set_answer(self, question: str, answer: bool) -> None:
        if self.answers.get(question) != answer:
            self.answers[question] = answer
            self.profileChanged.emit()

    def known_versions(self) -> dict[str, str]:
        """The versions of the CANN that reads op_cache.ini, as far as known without asking: the
        customer's (a bundle), else this computer's installed CANN (read once)."""
        if self.bundle is not None:
            return dict(self.bundle.installed_versions())
        if self._host_versions is None:
            from cann_config.app.opcache.ini import installed_op_cache_versions

            self._host_versions = installed_op_cache_versions()
        return dict(self._host_versions)

    def versions_for_save(self) -> dict[str, str]:
        """adk_version/ops_version a save of op_cache.ini writes, as the core picks them
        (app.opcache.resolution.versions_for_save) from the known and the typed ones."""
        from cann_config.app.opcache.resolution import versions_for_save

        return versions_for_save(self.known_versions(), self.ini_versions)

    def baseline(self) -> dict[str, Any] | None:
        """What "only my changes" is measured against: the customer's current values with a
        bundle (before any fix), else None (the defaults)."""
        if self.bundle is None:
            return None
        from cann_config.app.support.report import suggested_profile

        return dict(suggested_profile(self.bundle_diagnosis(), []).options)

    # -- unsaved work -------------------------------------------------------------------------

    @property
    def dirty(self) -> bool:
        return self._dirty

    def _set_dirty(self, dirty: bool) -> None:
        if dirty != self._dirty:
            self._dirty = dirty
            self.dirtyChanged.emit(dirty)

    def mark_saved(self) -> None:
        """The current choices were written or copied somewhere: closing loses nothing."""
        self._set_dirty(False)
