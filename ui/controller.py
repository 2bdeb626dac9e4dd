"""The wizard's model: one immutable Profile, held by one small controller that says when it
changes.

Every page reads its state from here and writes changes back through here; nothing else keeps a
copy. A change replaces the Profile (app/profile.py is immutable) and emits `profileChanged`, so
the export preview, the availability marks and the gauge are always derived from the current
choices, never from a cached result (the stale-command pitfall of PyTorch's selector). The
controller knows no CANN rule: availability, resolution and import all come from app/.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from cann_config.app.catalog import Catalog, Option, Value, load_catalog
from cann_config.app.device.table import DeviceInfo, DeviceOrigin, device_from_choice
from cann_config.app.io.formats import formats_for
from cann_config.app.profile import Profile
from cann_config.app.session import Session

if TYPE_CHECKING:  # pragma: no cover - typing only (the findings module is not needed for the first paint)
    from cann_config.app.findings import Finding


def _in_session(name: str) -> Any:
    """An attribute kept in the Session, read and written through the controller."""
    return property(lambda self: getattr(self.session, name), lambda self, value: setattr(self.session, name, value))


class WizardController(QObject):
    """Holds the Session (the Profile, the device it is for, the Host and the files the user
    started from) and says when it changes."""

    _profile = _in_session("profile")
    _device = _in_session("device")
    device_origin = _in_session("device_origin")
    ini = _in_session("ini")
    ini_path = _in_session("ini_path")
    ini_explicit = _in_session("ini_explicit")
    ini_versions = _in_session("ini_versions")
    answers = _in_session("answers")
    env_file = _in_session("env_file")
    imported_findings = _in_session("imported_findings")
    imported_from = _in_session("imported_from")
    imported_values = _in_session("imported_values")
    base_environ = _in_session("base_environ")

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
        # The state itself, Qt-free (app/session.py): this object only says when it changes.
        self.session = Session(profile, device, device_origin)
        self.detected: Any = None  # app.device.hostprobe.HostProbe once detection has finished
        self.detection_state = "idle"  # "idle", "running", "done", "failed"
        self.detection_error = ""
        self._dirty = False
        self._availability: dict[str, Any] = {}
        self._page_findings: tuple[Any, dict[str, list[Finding]]] | None = None
        self.usage: str | None = None
        self.preferred_format: str = formats_for(self._profile.framework)[0]

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
            if self.preferred_format not in formats_for(profile.framework):
                self.preferred_format = formats_for(profile.framework)[0]
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
        self.preferred_format = export_format or formats_for(framework)[0]
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
    def bundle(self) -> Any:
        """app.support.bundle.Bundle of the customer's host being looked at (support), else None."""
        return self.session.bundle

    @property
    def environ(self) -> dict[str, str]:
        """The environment CANN would see: the host's, with an opened env file on top."""
        return self.session.environ

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
        else the customer's current values as CANN resolves them (app.support.fixes.suggested_profile
        without any fix applied): what the customer runs with now, before any fix.
        """
        from cann_config.app.support.fixes import suggested_profile

        self.session.open_bundle(bundle)
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
        return self.session.host_diagnosis(self._profile.framework)

    def suggested_profile(self) -> Profile | None:
        """The customer's configuration with every suggested fix that passes its check applied
        (app.support.fixes.plan_fixes: the profile `diagnose --json` and the report suggest);
        the customer's values when nothing is to fix; None on this host."""
        diagnosis = self.bundle_diagnosis()
        if diagnosis is None:
            return None
        from cann_config.app.support.fixes import plan_fixes, suggested_profile

        planned = plan_fixes(diagnosis).profile
        return planned if planned is not None else suggested_profile(diagnosis, [])

    def apply_suggested_fixes(self) -> None:
        """Replace the choices with the bundle's suggested profile (the one explicit fix action)."""
        profile = self.suggested_profile()
        if profile is not None:
            from cann_config.app.support.fixes import plan_fixes

            self.session.applied_fixes(plan_fixes(self.bundle_diagnosis()))
            self.set_profile(replace(profile, device=self._profile.device))
            self.filesChanged.emit()  # the op_cache.ini the export edits may be a new one now

    def ini_from_bundle(self) -> bool:
        """The op_cache.ini shown is the customer's (from the bundle), not a file of this machine."""
        return self.session.ini_from_bundle()

    def choice_findings(self) -> list[Finding]:
        """What `cann-config export` says about the current choices, for any format: the one
        validation (app.io.exporters.check_choices, asked through the Session) every page shows
        with the CLI's severity and words; an error is a choice export refuses (exit 1) and Save
        refuses alike."""
        return self.session.choice_findings()

    def page_findings(self, page: str) -> list[Finding]:
        """The choices' errors and warnings the page `page` ("device", "memory", "cache") shows
        (app.session.Session.page_findings), worked out once per state of the choices."""
        state = (self._profile, self._device, tuple(sorted(self.answers.items())))
        cached = self._page_findings
        if cached is None or cached[0] != state:
            cached = self._page_findings = (state, self.session.page_findings())
        return cached[1].get(page, [])

    def set_answer(self, question: str, answer: bool) -> None:
        if self.answers.get(question) != answer:
            self.answers[question] = answer
            self.profileChanged.emit()

    def known_versions(self) -> dict[str, str]:
        """The versions of the CANN that reads op_cache.ini, as far as known without asking (the Session's)."""
        return self.session.known_versions()

    def versions_for_save(self) -> dict[str, str]:
        """adk_version/ops_version a save of op_cache.ini writes (the Session's)."""
        return self.session.versions_for_save()

    def baseline(self) -> dict[str, Any] | None:
        """What "only my changes" is measured against: the customer's current values with a
        bundle (before any fix), else None (the defaults)."""
        diagnosis = self.bundle_diagnosis()
        if diagnosis is None:
            return None
        from cann_config.app.support.fixes import suggested_profile

        return dict(suggested_profile(diagnosis, []).options)

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
